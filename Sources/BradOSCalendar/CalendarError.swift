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
    /// `calendar.file` holds another profile's calendar: this one leaves it as it is.
    case otherProfile(path: String, owner: String, profile: String)

    public var summary: String {
        switch self {
        case let .notInCalendar(name, _): "The domain '\(name)' puts nothing in the calendar."
        case let .invalidDate(option, value, _): "\(option) '\(value)' is not a date brados reads."
        case let .emptyRange(from, to): "--to \(to) is not after --from \(from): the range holds nothing."
        case let .otherProfile(path, owner, profile):
            "calendar.file (\(path)) is the calendar of profile '\(owner)'; profile '\(profile)' leaves it as it is."
        }
    }

    public var recovery: String? {
        switch self {
        case let .notInCalendar(_, adding): "Domains that do: \(adding.joined(separator: ", ")) (see `brados calendar --help`)."
        case let .invalidDate(_, _, expected): "Give \(expected)."
        case .emptyRange: "Give a --to later than --from, e.g. --from 2026-11-30 --to 2026-12-07 for that week."
        case let .otherProfile(path, _, profile):
            "For a calendar of this profile too, write another file: `brados --profile \(profile) calendar -o OTHER.ics`; to give it this one, remove \(path) and run `brados --profile \(profile) sync`."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .otherProfile: .refused
        default: .usage
        }
    }
}
