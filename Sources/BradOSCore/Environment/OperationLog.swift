import BradOSErrors
import Foundation
import Logging

/// One log line per domain operation (spec 004 §6.5): a refresh, a recompute, a sync, a
/// delete, an export or import, a live feed's event. At info level (`--verbose`, `BRADOS_LOG=info`),
/// with the fields `operation`, `success`, `duration_ms` and, on a failure, `error_type` (the
/// failure's kind: never its text). `--log-format json` makes each a JSON object.
///
///     brados: info: visits.refresh ok in 112 ms duration_ms=112 operation=visits.refresh success=true
public enum OperationLog {
    /// Runs `body` as operation `name` and logs how it went.
    /// - Throws: what `body` throws (logged first).
    public static func run<T>(_ name: String, logger: Logger, _ body: () async throws -> T) async throws -> T {
        let started = ContinuousClock.now
        do {
            let value = try await body()
            record(name, elapsed: ContinuousClock.now - started, failure: nil, logger: logger)
            return value
        } catch {
            record(name, elapsed: ContinuousClock.now - started, failure: error, logger: logger)
            throw error
        }
    }

    /// ``run(_:logger:_:)`` for work that does not suspend (an archive written or read).
    /// - Throws: what `body` throws (logged first).
    public static func measure<T>(_ name: String, logger: Logger, _ body: () throws -> T) throws -> T {
        let started = ContinuousClock.now
        do {
            let value = try body()
            record(name, elapsed: ContinuousClock.now - started, failure: nil, logger: logger)
            return value
        } catch {
            record(name, elapsed: ContinuousClock.now - started, failure: error, logger: logger)
            throw error
        }
    }

    /// Logs operation `name`: done in `elapsed`, or failed with `failure`.
    public static func record(_ name: String, elapsed: Duration, failure: (any Error)?, logger: Logger, fields: Logger.Metadata = [:]) {
        let milliseconds = Int((Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15).rounded())
        var metadata = fields
        metadata["operation"] = .string(name)
        metadata["success"] = .stringConvertible(failure == nil)
        metadata["duration_ms"] = .stringConvertible(milliseconds)
        if let failure { metadata["error_type"] = .string(errorType(failure)) }
        let outcome = failure.map { "failed (\(errorType($0)))" } ?? "ok"
        logger.info("\(name) \(outcome) in \(milliseconds) ms", metadata: metadata)
    }

    /// An event of a live feed or a watch (`coach.watch`: "3 new messages"), in brados's own
    /// words, with the same fields (`success`, no duration).
    public static func event(_ name: String, _ text: String, logger: Logger) {
        logger.info("\(name): \(text)", metadata: ["operation": .string(name), "success": .stringConvertible(true), "event": .string(text)])
    }

    /// What kind of failure it was: a ``FailureKind`` (`server`, `offline`, `authRequired`…),
    /// `cancelled`, or the error's type.
    public static func errorType(_ error: any Error) -> String {
        if let error = error as? any BradOSError { return error.kind.rawValue }
        if error is CancellationError { return "cancelled" }
        return "\(type(of: error))"
    }
}
