import BradOSCore

/// Failures of the visits domain.
public enum VisitsError: BradOSError {
    case notFound(id: String)

    public var summary: String {
        switch self {
        case let .notFound(id): "There is no visit \(id)."
        }
    }

    public var recovery: String? { "List visits and their ids with `brados visits list`." }
    public var kind: FailureKind { .notFound }
}
