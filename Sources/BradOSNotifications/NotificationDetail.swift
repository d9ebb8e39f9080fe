import BradOSCore
import BradOSTerminal
import Foundation

/// How much a notification says (`notify.detail`), for lock screens and shared screens.
public enum NotificationDetail: String, Sendable, CaseIterable {
    /// What happened and its content (the message's text, the targets).
    case full
    /// What happened, without content: "New message from your coach".
    case summary
    /// Only how many updates: "brados: 3 updates".
    case none

    public static let configKey = ConfigKey(
        name: "notify.detail", summary: "What a `sync --watch --notify` notification shows: full (the text), summary (what happened, no content) or none (a count)",
        defaultValue: NotificationDetail.full.rawValue,
        validate: { NotificationDetail(rawValue: $0) == nil ? "full, summary or none" : nil })

    public static let ownChangesKey = ConfigKey(
        name: "notify.own-changes", summary: "`sync --watch --notify` tells of this profile's own changes too (a change sent, finalized or recomputed here)",
        defaultValue: "false", validate: ConfigKey.boolValidator)

    public static let notifyKey = ConfigKey(
        name: "watch.notify", summary: "`sync --watch` sends desktop notifications (as with --notify)",
        defaultValue: "false", validate: ConfigKey.boolValidator)

    /// The words of one notification, at this level.
    ///
    /// - One thread: at `full` titled by the thread ("Asking for a raise", "Asking for a raise:
    ///   3 new messages from your coach") with the newest news's text; at `summary` what
    ///   happened, no title, no text.
    /// - Several threads at once: how many news in how many threads ("3 new messages in 2
    ///   conversations"), at `full` with each thread's title and count.
    /// - `none`: how many updates.
    public func text(for outgoing: NotificationSchedule.Outgoing) -> (summary: String, body: String) {
        let latest = outgoing.latest, count = outgoing.count
        func many(_ format: String) -> String { format.replacingOccurrences(of: "%d", with: String(count)) }
        switch self {
        case .none:
            return ("brados: \(count) update\(count == 1 ? "" : "s")", "")
        case _ where outgoing.isAcrossThreads:
            let across = (latest.headlineAcross ?? latest.headlineMany + " (%t threads)").replacingOccurrences(of: "%t", with: String(outgoing.threads.count))
            guard self == .full else { return (many(across), "") }
            let titles = outgoing.threads.map { thread in (thread.latest.threadTitle ?? thread.latest.thread) + (thread.count > 1 ? " (\(thread.count))" : "") }
            return (many(across), NotificationText.body(titles.joined(separator: ", ")))
        case .full:
            let what = count == 1 ? latest.headline : many(latest.headlineMany)
            let summary = latest.threadTitle.map { title in count == 1 ? title : "\(title): \(what)" } ?? what
            return (NotificationText.summary(summary), latest.detail.map { NotificationText.body($0) } ?? "")
        case .summary:
            return (count == 1 ? latest.headline : many(latest.headlineMany), "")
        }
    }
}

/// A notification body: the freedesktop spec lets a server read simple markup (`<b>`, `&amp;`),
/// so `&`, `<` and `>` from the data are escaped; what never reaches a terminal either
/// (`SafeText.needsEscape`: controls but line breaks and tabs, bidirectional overrides) is dropped.
public enum NotificationText {
    /// A notification's summary: plain text to the spec (no markup is read there), one line,
    /// without what never reaches a screen.
    public static func summary(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar == "\t" { out.unicodeScalars.append(" "); continue }
            if SafeText.needsEscape(scalar, keepLines: false) { continue }
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    public static func body(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default:
                if SafeText.needsEscape(scalar, keepLines: true) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
