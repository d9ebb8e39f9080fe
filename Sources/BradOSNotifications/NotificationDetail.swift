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

    public static let notifyKey = ConfigKey(
        name: "watch.notify", summary: "`sync --watch` sends desktop notifications (as with --notify)",
        defaultValue: "false", validate: ConfigKey.boolValidator)

    /// The words of one notification for `count` news of one thread (`latest` the newest), at this level.
    public func text(for latest: News, count: Int) -> (summary: String, body: String) {
        switch self {
        case .full:
            let summary = count == 1 ? latest.headline : latest.headlineMany.replacingOccurrences(of: "%d", with: String(count))
            return (summary, latest.detail.map { NotificationText.body($0) } ?? "")
        case .summary:
            return (count == 1 ? latest.headline : latest.headlineMany.replacingOccurrences(of: "%d", with: String(count)), "")
        case .none:
            return ("brados: \(count) update\(count == 1 ? "" : "s")", "")
        }
    }
}

/// A notification body: the freedesktop spec lets a server read simple markup (`<b>`, `&amp;`),
/// so `&`, `<` and `>` from the data are escaped; what never reaches a terminal either
/// (`SafeText.needsEscape`: controls but line breaks and tabs, bidirectional overrides) is dropped.
public enum NotificationText {
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
