import Foundation
import BradOSErrors

/// Failures of the output itself: a value a command printed that JSON cannot hold, or a
/// stream that could not be written.
public enum OutputError: BradOSError, Equatable {
    /// Standard output or standard error.
    public enum Stream: Sendable, Equatable {
        case output, error
    }

    /// The value could not be encoded (a number JSON has no form for, such as NaN).
    case unencodable(detail: String)
    /// A write to a stream failed (`brados calendar > cal.ics` on a full disk): the output is
    /// cut, so the command does not end in success.
    case writeFailed(stream: Stream, errno: Int32)

    public var summary: String {
        switch self {
        case let .unencodable(detail): return "Could not encode or decode <output>: \(detail)."
        case let .writeFailed(stream, code):
            let name = stream == .output ? "the output" : "to standard error"
            if Self.isFull(code) { return "Could not write \(name): the disk is full." }
            return "Could not write \(name): \(String(cString: strerror(code)))."
        }
    }

    public var recovery: String? {
        switch self {
        case .unencodable: "Report this as a bug; nothing stored was changed."
        case let .writeFailed(_, code) where Self.isFull(code):
            "What was written is cut short: free some space where it goes (or send it elsewhere) and run the command again. Nothing stored was changed."
        case .writeFailed:
            "What was written is cut short: check where the output goes and run the command again. Nothing stored was changed."
        }
    }

    public var kind: FailureKind {
        switch self {
        case let .writeFailed(_, code) where Self.isFull(code): .diskFull
        default: .general
        }
    }

    private static func isFull(_ code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }
}
