import BradOSAuth
import BradOSCore
import Foundation

/// One domain's sync, as `sync` and `sync --watch` both run it: its operation line logged
/// (``OperationLog``), and a service this profile never signed in to taken as a skip, not a
/// failure (an expired or revoked session still fails).
enum DomainSync {
    enum Result {
        /// Synced; the domain's summary (`nil`: nothing to do).
        case synced(String?)
        /// Never signed in to the domain's service: what to run to sign in.
        case notSignedIn(String)
    }

    /// - Throws: what the domain's sync throws, other than never having signed in.
    static func run(_ plugin: any Syncs, env: AppEnvironment, options: SyncOptions) async throws -> Result {
        let started = ContinuousClock.now
        let operation = "\(plugin.name).sync"
        do {
            let summary = try await plugin.sync(env, options: options)
            OperationLog.record(operation, elapsed: ContinuousClock.now - started, failure: nil, logger: env.logger)
            return .synced(summary)
        } catch let error as AuthError where error.isNeverSignedIn {
            OperationLog.record(operation, elapsed: ContinuousClock.now - started, failure: nil, logger: env.logger,
                                fields: ["skipped": "not signed in"])
            return .notSignedIn(error.recovery ?? error.summary)
        } catch {
            OperationLog.record(operation, elapsed: ContinuousClock.now - started, failure: error, logger: env.logger)
            throw error
        }
    }
}
