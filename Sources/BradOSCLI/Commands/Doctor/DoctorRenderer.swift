import ArgumentParser
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSTerminal
#endif

/// Human and JSON output of `brados doctor`.
public struct DoctorRenderer {
    let output: Output
    public init(output: Output) { self.output = output }

    /// Prints each check with its mark and, unless it passed, what to do; or the checks as JSON.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func render(_ checks: [DoctorCheck]) throws {
        if output.format == .json { return try output.json(checks) }
        for check in checks {
            let mark = switch check.status {
            case .ok: output.styled("ok  ", .green)
            case .warn: output.styled("warn", .yellow)
            case .fail: output.styled("FAIL", .red)
            }
            output.line("\(mark)  \(check.name): \(check.detail)")
            if let fix = check.fix, check.status != .ok { output.line("        → \(fix)") }
        }
    }
}
