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
    /// The thread's title (a conversation's), which titles its notification at `notify.detail
    /// = full`; `nil` for a domain of one thread.
    public var threadTitle: String?
    /// What happened in several threads at once, `%d` standing for how many news and `%t` for
    /// how many threads: "%d new messages in %t conversations".
    public var headlineAcross: String?
    /// What happened, without content (`notify.detail = summary`): "New message from your coach".
    public var headline: String
    /// What happened, for several at once, `%d` standing for how many: "%d new messages from your coach".
    public var headlineMany: String
    /// The content, shown only with `notify.detail = full`: the message's text, the targets.
    public var detail: String?
    /// The change was this profile's own (a weight it sent, a plan it finalized): the person
    /// knows, so it is told only when `notify.own-changes` asks.
    public var ownChange: Bool = false
    /// The freedesktop notification category (`im.received`), and an icon name from the theme.
    public var category: String
    public var icon: String

    public init(domain: String, thread: String, threadTitle: String? = nil, headline: String, headlineMany: String,
                headlineAcross: String? = nil, detail: String? = nil, ownChange: Bool = false, category: String, icon: String) {
        self.ownChange = ownChange
        self.domain = domain
        self.thread = thread
        self.threadTitle = threadTitle
        self.headlineAcross = headlineAcross
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
    /// What changes whenever the domain's cache may hold news (its file's identity): the watch
    /// looks at it every few seconds, so what another brados wrote (a `plan refresh`, a plan
    /// finalized in another terminal) is told without waiting for the domain's next sync.
    /// `nil` (the default): only the watch's own syncs and live updates prompt a look.
    func newsStamp(_ env: AppEnvironment) -> String?
}

extension Notifies {
    public func newsStamp(_ env: AppEnvironment) -> String? { nil }
}
