import BradOSCore
import BradOSErrors
import Foundation

/// Failures of the library domain.
public enum LibraryError: BradOSError {
    case noMusicSection
    case noSuchSection(String, available: [PlexSection])
    /// The section named is not a music library.
    case notMusic(PlexSection, available: [PlexSection])
    case noSuchAlbum(String)
    /// The Plex account has no media server.
    case noServers
    /// The Plex account has several servers and none is chosen.
    case chooseServer([String])
    case noSuchServer(String, available: [String])
    /// None of the server's addresses answered as that server.
    case serverUnreachable(String, tried: [String])
    /// `-o` named one file, the image's format calls for another name, and that file exists.
    case wouldReplace(String, asked: String, format: String)
    /// The profile uses one media server directly (`server.plex`), not a plex.tv account.
    case signedInToServer(String)
    /// The Plex connection gives no notifications to follow (`sync --watch`).
    case noNotifications

    public var summary: String {
        switch self {
        case .noMusicSection: "The Plex server has no music library."
        case let .noSuchSection(key, _): "The Plex server has no library section '\(key)'."
        case let .notMusic(section, _): "The library section '\(section.title)' (\(section.key)) holds \(section.type == "movie" ? "movies" : section.type + " items"), not music."
        case let .noSuchAlbum(key): "There is no album with rating key \(key)."
        case .noServers: "The Plex account has no media server."
        case let .chooseServer(names): "The Plex account has \(names.count) media servers; brados uses the one you choose."
        case let .noSuchServer(name, _): "The Plex account has no media server named '\(name)'."
        case let .serverUnreachable(name, tried): "The Plex server '\(name)' did not answer at any of its \(tried.count) addresses (\(tried.joined(separator: ", ")))."
        case let .wouldReplace(written, asked, format): "The image is a \(format), so brados would write \(written) instead of \(asked), and \(written) already exists."
        case let .signedInToServer(url): "Profile signed in to the Plex server at \(url) directly (server.plex), not to a plex.tv account with servers to list."
        case .noNotifications: "The Plex connection has no session to open the server's notifications with."
        }
    }

    public var recovery: String? {
        switch self {
        case .noMusicSection: "Add a music library in Plex, or check the server (`brados config get server.plex`)."
        case let .noSuchSection(_, available), let .notMusic(_, available):
            "Music sections: " + available.filter(\.isMusic).map { "\($0.key) (\($0.title))" }.joined(separator: ", ")
                + ". Name one with --section KEY|TITLE, or for every command: `brados config set library.section TITLE`."
        case .noSuchAlbum: "List albums and their rating keys with `brados library albums`."
        case .noServers: "Add a server to the account in Plex, or name one directly: `brados config set server.plex URL`."
        case let .chooseServer(names), let .noSuchServer(_, names):
            "Choose one: " + names.map { "`brados library use \"\($0)\"`" }.joined(separator: ", ") + " (see `brados library servers`)."
        case .serverUnreachable: "Check that the server is running and online in Plex; brados tries its addresses again on the next command."
        case let .wouldReplace(written, _, _): "To replace it, name it: `-o \(written)`; or choose another name."
        case .signedInToServer: "To choose among an account's servers, unset server.plex and sign in through plex.tv: `brados config unset server.plex && brados auth login --service plex`."
        case .noNotifications: "Sign in to Plex (`brados auth login --service plex`); until then `sync --watch` refreshes the library on its interval."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .serverUnreachable: .offline
        case .chooseServer, .signedInToServer, .notMusic, .wouldReplace: .usage
        case .noNotifications: .authRequired
        default: .notFound
        }
    }
}
