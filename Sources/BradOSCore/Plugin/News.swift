import Foundation

/// Something a person wants to hear of without a terminal open (a message from the coach, a
/// plan newly finalized), as `sync --watch --notify` tells it: the notification's words at each
/// `notify.detail` level come from here.
public struct News: Sendable, Equatable {
    /// The domain it comes from.
    public var domain: String
    /// What it is about within the domain (a conversation's id): news of one thread update one
    /// notification instead of stacking.
    public var thread: String
    /// What happened, without content (`notify.detail = summary`): "New message from your coach".
    public var headline: String
    /// What happened, for several at once, `%d` standing for how many: "%d new messages from your coach".
    public var headlineMany: String
    /// The content, shown only with `notify.detail = full`: the message's text, the targets.
    public var detail: String?
    /// The freedesktop notification category (`im.received`), and an icon name from the theme.
    public var category: String
    public var icon: String

    public init(domain: String, thread: String, headline: String, headlineMany: String, detail: String? = nil,
                category: String, icon: String) {
        self.domain = domain
        self.thread = thread
        self.headline = headline
        self.headlineMany = headlineMany
        self.detail = detail
        self.category = category
        self.icon = icon
    }
}

/// What changed in a domain's cache since a mark, and the mark to ask from next.
public struct NewsReport: Sendable, Equatable {
    public var news: [News]
    /// Opaque to everyone but the domain (a row id, a plan's id, a hash of targets).
    public var mark: String

    public init(news: [News], mark: String) {
        self.news = news
        self.mark = mark
    }
}

/// `brados sync --watch --notify`: the domain says what changed in its cache that a person
/// wants to hear of. The watch asks after each change it sees (a sync, a live update) and
/// compares with the mark it kept, so what another brados wrote is told too.
public protocol Notifies: DomainPlugin {
    /// What the domain notifies of, for `brados sync --help` ("a new message from the assistant").
    var notifyDescription: String { get }
    /// What changed since `mark`, read from the profile's cache. With `mark` `nil` (the watch
    /// starting): no news, only the mark of what is cached now.
    /// - Throws: the domain's errors reading its cache.
    func news(_ env: AppEnvironment, since mark: String?) throws -> NewsReport
}
