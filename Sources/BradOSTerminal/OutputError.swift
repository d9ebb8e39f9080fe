import BradOSErrors

/// Failures of the output itself: a value a command printed that JSON cannot hold.
public enum OutputError: BradOSError, Equatable {
    /// The value could not be encoded (a number JSON has no form for, such as NaN).
    case unencodable(detail: String)

    public var summary: String {
        switch self {
        case let .unencodable(detail): "Could not encode or decode <output>: \(detail)."
        }
    }

    public var recovery: String? { "Report this as a bug; nothing stored was changed." }
    public var kind: FailureKind { .general }
}
