import BradOSCore
import BradOSErrors
import BradOSNetworking
import BradOSTerminal
import Foundation

/// Failures that mean something to the plan domain, each with a message, a recovery
/// suggestion, whether retrying may help, and an exit code (through ``FailureKind``).
///
/// The plan service's taxonomy also has a network error, a timeout, no connection, a server
/// error and rate limiting: those are the core's ``NetworkError`` (`connectionLost`,
/// `timedOut`, `unreachable`/`offlineMode`, `http` 5xx, `http` 429 with its `Retry-After`),
/// worded and classified once for every domain; ``map(_:)`` leaves them as they are.
public enum NutritionError: BradOSError, Equatable {
    /// 404: the user has no plan or profile yet.
    case notFound
    /// 400 mentioning onboarding.
    case onboardingIncomplete(String)
    /// A value the user gave (or the server refused as invalid: 400, 422).
    case invalidInput(String, fromServer: Bool)
    /// The envelope said `success: false`, or held no data.
    case invalidResponse(String)
    /// 503.
    case maintenance
    /// The targets failed validation; nothing was cached.
    case invalidTargets(String)
    /// The plan shown is a cached copy older than the service's 7-day window (seconds old):
    /// the service would have made a new plan since. Told beside the plan, which is still
    /// shown (offline first); never a reason to show nothing.
    case staleData(age: TimeInterval)
    /// `plan diff`: no kept plan has this id (the ids kept, oldest first).
    case planNotKept(id: Int, kept: [Int])
    /// `plan diff`: fewer than two plans are kept.
    case tooFewPlansKept(count: Int)
    /// A queued change was being sent when the command was interrupted (after the request
    /// left): the server may have it or not. It stays queued; sending it again sets the same value.
    case interruptedSend(change: String)
    /// `plan sync --include-imported` with changes an archive brought from another account
    /// (`account`; `origin`: where from), which this profile (`thisAccount`) never sends unasked.
    case anotherAccount(account: String, count: Int, origin: String?, thisAccount: String?)
    /// `plan weight`: a weight far from the last one known (``WeightPlausibility``), in a
    /// script or answered no: nothing queued, nothing sent. `typed` as read (`188 kg`),
    /// `change` from the last (`102 kg more`), `last` (`86 kg, 2026-11-24`), and the other
    /// reading when it is plausible (`188lb`).
    case implausibleWeight(typed: String, change: String, last: String, alternative: String?, answered: Bool)

    public var summary: String {
        switch self {
        case .notFound: "No plan found: complete onboarding first."
        case let .onboardingIncomplete(message): "Onboarding is not complete (\(message))."
        case let .invalidInput(reason, _): "Invalid input: \(reason)."
        case let .invalidResponse(reason): "The plan service's response was not understood: \(reason)."
        case .maintenance: "The plan service is down for maintenance."
        case let .invalidTargets(reason): "The plan service sent targets that fail validation: \(reason). The cached plan was kept."
        case let .staleData(age):
            "The cached plan is \(Format.age(age)) old, older than the service's \(Int(NutritionRepository.serviceWindow / 86400))-day window: its targets may be out of date."
        case let .planNotKept(id, kept):
            "No plan \(id) is kept here" + (kept.isEmpty ? "." : " (kept: \(kept.map(String.init).joined(separator: ", "))).")
        case let .interruptedSend(change):
            "Interrupted while \(change) was being sent: whether the server has it is not known, so it stays queued."
        case let .tooFewPlansKept(count):
            "A diff needs two plans, and \(count == 0 ? "none is" : "only one is") kept here."
        case let .anotherAccount(account, count, origin, thisAccount):
            "\(count) queued change\(count == 1 ? " was" : "s were") made by account \(account)\(origin.map { " (imported from \($0))" } ?? ""), "
                + "and this profile is signed in to \(thisAccount.map { "account \($0)" } ?? "no account") at the plan service: nothing was sent."
        case let .implausibleWeight(typed, change, last, _, answered):
            "\(typed) is \(change) than your last weight (\(last))\(answered ? "" : ", more than a weight changes"): nothing was queued or sent."
        }
    }

    /// Without what the service said or the values it sent.
    public var logSummary: String {
        switch self {
        case .onboardingIncomplete: "Onboarding is not complete."
        case let .invalidInput(_, fromServer): fromServer ? "The plan service refused the input." : "Invalid input."
        case .invalidResponse: "The plan service's response was not understood."
        case .invalidTargets: "The plan service sent targets that fail validation; the cached plan was kept."
        default: summary
        }
    }

    public var recovery: String? {
        switch self {
        case .notFound, .onboardingIncomplete: "Complete onboarding in the app (your profile needs weight, target, goal, activity, height, age and sex)."
        case let .invalidInput(_, fromServer): fromServer ? "Check the value and try again." : "See `brados plan weight --help` for the accepted range."
        case .invalidResponse, .invalidTargets: "The service may be misconfigured; try again later, or report it."
        case .maintenance: "Try again later."
        case .staleData: "Run `brados plan refresh` when the service can be reached."
        case .planNotKept: "`brados plan history --plans` lists the plans kept, with their ids."
        case .tooFewPlansKept: "Every plan brados receives is kept; `brados plan recompute` asks for a new one."
        case .interruptedSend: "`brados plan sync` sends it again (the same value twice changes nothing)."
        case let .anotherAccount(account, _, _, _):
            "Another account's changes never go to this one by accident: `brados plan pending` shows them; to send them to this account, "
                + "name theirs: brados plan sync --include-imported-from \(account)"
        case let .implausibleWeight(_, _, _, alternative, _):
            (alternative.map { "If you meant \($0), `brados plan weight \($0.filter { $0 != " " })`; if " } ?? "If ")
                + "the weight is right, run the command again with --yes."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .notFound: .notFound
        case .onboardingIncomplete: .rejected
        case let .invalidInput(_, fromServer): fromServer ? .rejected : .usage
        case .invalidResponse, .maintenance: .server
        case .invalidTargets: .integrity
        case .staleData: .offline
        case .planNotKept, .tooFewPlansKept: .notFound
        case .interruptedSend: .interrupted
        case .anotherAccount, .implausibleWeight: .refused
        }
    }

    /// None is: maintenance outlasts a retry (the spec's `maintenanceMode` is not retryable,
    /// and the client never retries a 503), and the others need the user or new data.
    public var isRetryable: Bool { false }

    /// Whether the service answered a change with a definite "no", so replaying it cannot
    /// succeed: the queue drops such a change and keeps anything else. A refusal is one of
    /// the plan's own (invalid input, onboarding, not found) or any other 4xx but an expired
    /// session (401), a timeout (408) or rate limiting (429).
    public static func isRefusal(_ error: any Error) -> Bool {
        switch map(error) {
        case NutritionError.invalidInput, NutritionError.onboardingIncomplete, NutritionError.notFound: true
        case let NetworkError.http(status, _, _, _, _): (400..<500).contains(status) && ![401, 408, 429].contains(status)
        default: false
        }
    }

    /// The plan service's own meaning of a core failure (its 400, 404, 422 and 503); every
    /// other error unchanged.
    public static func map(_ error: any Error) -> any Error {
        guard case let NetworkError.http(status, _, _, message, _) = error else { return error }
        switch status {
        case 400 where (message ?? "").localizedCaseInsensitiveContains("onboarding"): return NutritionError.onboardingIncomplete(message ?? "")
        case 400, 422: return NutritionError.invalidInput(message ?? "the server refused the value", fromServer: true)
        case 404: return NutritionError.notFound
        case 503: return NutritionError.maintenance
        default: return error
        }
    }
}
