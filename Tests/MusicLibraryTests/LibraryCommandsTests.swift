import Foundation
@testable import MusicLibrary
import TestSupport
import Testing

/// `brados library …` run in process (``CommandHarness``) against the reference server's
/// demo (a Plex Media Server), inside the test process: the commands' own logic, with
/// captured output.
@Suite("library's commands, in process against the demo service")
struct LibraryCommandsTests {
    @Test("albums lists the server's, offline from the snapshot; show gives one album's details, offline too")
    func albumsAndShow() async throws {
        let harness = CommandHarness(plugins: [LibraryPlugin()])
        let albums = try await harness.run(LibraryCommand.Albums.parse([]), json: true)
        #expect(albums.stdout.contains("Nina Simone"), "\(albums.stdout.prefix(400))")
        let offline = try await harness.run(LibraryCommand.Albums.parse([]), offline: true)
        #expect(offline.stdout.contains("Nina Simone"))
        let key = try #require(albums.stdout.firstMatch(of: /"ratingKey"\s*:\s*"(\d+)"/)?.1, "\(albums.stdout.prefix(400))")
        let shown = try await harness.run(LibraryCommand.Show.parse([String(key)]))
        let again = try await harness.run(LibraryCommand.Show.parse([String(key)]), offline: true)
        #expect(!shown.stdout.isEmpty && again.stdout.contains(shown.stdout.split(separator: "\n").first.map(String.init) ?? "-"))
    }
}
