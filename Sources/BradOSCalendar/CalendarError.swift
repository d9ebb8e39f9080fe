import BradOSErrors
import Foundation

/// What `brados calendar` and the `calendar.file` refuse or fail at.
public enum CalendarError: BradOSError, Equatable {
    /// `--domains` named something that puts nothing in the calendar.
    case notInCalendar(String, adding: [String])
    /// `--from` or `--to` is not a date brados reads.
    case invalidDate(option: String, value: String, expected: String)
    /// `--to` is not after `--from`.
    case emptyRange(from: String, to: String)

    public var summary: String {
        switch self {
        case let .notInCalendar(name, _): "The domain '\(name)' puts nothing in the calendar."
        case let .invalidDate(option, value, _): "\(option) '\(value)' is not a date brados reads."
        case let .emptyRange(from, to): "--to \(to) is not after --from \(from): the range holds nothing."
        }
    }

    public var recovery: String? {
        switch self {
        case let .notInCalendar(_, adding): "Domains that do: \(adding.joined(separator: ", ")) (see `brados calendar --help`)."
        case let .invalidDate(_, _, expected): "Give \(expected)."
        case .emptyRange: "Give a --to later than --from, e.g. --from 2026-11-30 --to 2026-12-07 for that week."
        }
    }

    public var kind: FailureKind { .usage }
}
