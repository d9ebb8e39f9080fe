import BradOSCore
import Foundation

/// Failures of the plan domain: the science service's taxonomy, each with a message, a
/// recovery suggestion, whether retrying may help, and an exit code (through ``FailureKind``).
public enum PlanError: BradOSError, Equatable {
    /// 404: the user has no plan or profile yet.
    case notFound
    /// 400 mentioning onboarding.
    case onboardingIncomplete(String)
    /// A value the user gave (or the server refused as invalid).
    case invalidInput(String, fromServer: Bool)
    /// The response did not decode or was not `success`.
    case invalidResponse(String)
    /// The connection broke mid-request.
    case networkError(String)
    /// The server did not answer in time.
    case timeout
    /// No network: unreachable server, or offline mode.
    case noConnection(offlineMode: Bool)
    /// 5xx other than 503.
    case serverError(Int, String)
    /// 429, with how long the server asked to wait.
    case rateLimited(retryAfter: Duration?)
    /// 503.
    case maintenance
    /// The targets failed validation; nothing was cached.
    case invalidTargets(String)

    public var summary: String {
        switch self {
        case .notFound: "No plan found: complete onboarding first."
        case let .onboardingIncomplete(message): "Onboarding is not complete (\(message))."
        case let .invalidInput(reason, _): "Invalid input: \(reason)."
        case let .invalidResponse(reason): "The plan service's response was not understood: \(reason)."
        case let .networkError(reason): "The connection to the plan service failed (\(reason))."
        case .timeout: "The plan service did not answer in time."
        case let .noConnection(offlineMode): offlineMode ? "This needs the network, and offline mode is on." : "The plan service cannot be reached."
        case let .serverError(status, message): "The plan service failed (\(status)\(message.isEmpty ? "" : ": \(message)"))."
        case let .rateLimited(retryAfter):
            "The plan service is rate limiting" + (retryAfter.map { "; try again in \(Format.duration($0))" } ?? "") + "."
        case .maintenance: "The plan service is down for maintenance."
        case let .invalidTargets(reason): "The plan service sent targets that fail validation: \(reason). The cached plan was kept."
        }
    }

    public var recovery: String? {
        switch self {
        case .notFound, .onboardingIncomplete: "Complete onboarding in the app (your profile needs weight, target, goal, activity, height, age and sex)."
        case let .invalidInput(_, fromServer): fromServer ? "Check the value and try again." : "See `brados plan weight --help` for the accepted range."
        case .invalidResponse, .invalidTargets: "The service may be misconfigured; try again later, or report it."
        case .networkError, .timeout: "Try again in a moment."
        case let .noConnection(offlineMode): offlineMode ? "Drop --offline (or unset BRADOS_OFFLINE) to use the network." : "Check your connection; `brados plan sync` sends queued changes later."
        case let .serverError(status, _) where (500...599).contains(status): "This is a temporary problem; try again in a few minutes."
        case .serverError: nil
        case .rateLimited: "Wait, then try again."
        case .maintenance: "Try again later."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .notFound: .notFound
        case .onboardingIncomplete: .rejected
        case let .invalidInput(_, fromServer): fromServer ? .rejected : .usage
        case .invalidResponse, .networkError, .serverError, .maintenance: .server
        case .timeout, .noConnection: .offline
        case .rateLimited: .rateLimited
        case .invalidTargets: .integrity
        }
    }

    public var isRetryable: Bool {
        switch self {
        case .networkError, .timeout, .noConnection, .serverError, .rateLimited, .maintenance: true
        case .notFound, .onboardingIncomplete, .invalidInput, .invalidResponse, .invalidTargets: false
        }
    }

    /// Whether the service answered this change with a definite "no" (so replaying it again
    /// cannot succeed): the queue drops such a change. Anything else keeps it.
    public var isRefusal: Bool {
        switch self {
        case .invalidInput, .onboardingIncomplete, .notFound: true
        default: false
        }
    }

    /// The plan taxonomy for a core network failure; other errors unchanged.
    public static func map(_ error: any Error) -> any Error {
        guard let network = error as? NetworkError else { return error }
        switch network {
        case .offlineMode: return PlanError.noConnection(offlineMode: true)
        case .unreachable: return PlanError.noConnection(offlineMode: false)
        case .timedOut: return PlanError.timeout
        case let .operationTimedOut(seconds): return PlanError.networkError("gave up after \(seconds) s of retries")
        case let .connectionLost(_, reason): return PlanError.networkError(reason)
        case let .invalidResponse(_, detail): return PlanError.invalidResponse(detail)
        case .refusedData, .refusedRedirect: return error // in the core's words
        case let .http(status, _, _, message, retryAfter):
            switch status {
            case 400 where (message ?? "").localizedCaseInsensitiveContains("onboarding"): return PlanError.onboardingIncomplete(message ?? "")
            case 400, 422: return PlanError.invalidInput(message ?? "the server refused the value", fromServer: true)
            case 404: return PlanError.notFound
            case 429: return PlanError.rateLimited(retryAfter: retryAfter)
            case 503: return PlanError.maintenance
            case 500...: return PlanError.serverError(status, message ?? "")
            case 401: return error // the session: AuthError's business (renewal, exit 4)
            default: return PlanError.invalidInput(message ?? "the service refused the request (HTTP \(status))", fromServer: true)
            }
        }
    }
}
