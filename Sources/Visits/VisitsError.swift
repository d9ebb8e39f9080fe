import BradOSCore
import BradOSErrors

/// Failures of the visits domain.
public enum VisitsError: BradOSError {
    case notFound(id: String)
    /// `visits delete` was interrupted after the request was sent and before the server
    /// answered: the visit may be deleted or not. It stays out of the cached list, marked,
    /// and the next refresh of the visits settles it (``VisitsCache/settleDeletes(serverIDs:)``).
    /// The delete was sent and no answer came: interrupted (Ctrl-C), or (`lost`: why) the connection failed.
    case deleteOutcomeUnknown(id: String, place: String?, lost: String? = nil)

    public var summary: String {
        switch self {
        case let .notFound(id): "There is no visit \(id)."
        case let .deleteOutcomeUnknown(id, place, nil):
            "Interrupted after the delete of visit \(id)\(place.map { " (\($0))" } ?? "") was sent: whether the server deleted it is not known yet."
        case let .deleteOutcomeUnknown(id, place, lost?):
            "No answer came after the delete of visit \(id)\(place.map { " (\($0))" } ?? "") was sent (\(lost)): whether the server deleted it is not known yet."
        }
    }

    public var recovery: String? {
        switch self {
        case .notFound: "List visits and their ids with `brados visits list`."
        case .deleteOutcomeUnknown:
            "The next refresh of the visits finds out and says which it was: `brados visits list --refresh` does it now."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .notFound: .notFound
        case .deleteOutcomeUnknown(_, _, nil): .interrupted
        case .deleteOutcomeUnknown: .server
        }
    }
}
