import BradOSStorage
import Foundation

/// A feature module beside the domains (archives, the search index, pictures), as the
/// composition root installs it. The core calls a feature at these points and knows nothing
/// else of it: the core imports no feature, and a domain imports only the features it uses.
public protocol Feature: Sendable {
    /// The settings the feature owns, documented and validated like the core's
    /// (`brados config list` shows them). None by default.
    var configKeys: [ConfigKey] { get }
    /// Called once a command holds its profile, before anything reads the caches: puts right
    /// what a run killed in the middle left behind (a half-swapped import).
    /// - Returns: a notice for the user when something was put right, else `nil`.
    func recover(_ paths: Paths) -> String?
    /// Called after the stored copies of `domains` were cleared or replaced wholesale (`cache
    /// clear`, `cache import`): the feature keeps nothing derived from what they no longer
    /// hold. `domains` is `nil` when every domain was cleared. Nothing by default.
    /// - Throws: the feature's storage errors.
    func forget(domains: [String]?, in profile: ProfileScope) throws
    /// What `brados doctor` reports of the feature (the libraries it opens, what it would do
    /// here). None by default.
    func doctorChecks(_ env: AppEnvironment) -> [DoctorCheck]
    /// Called as a command that held the profile ends (it succeeded or failed, it was not
    /// interrupted): the feature brings what it derives up to date with what the command
    /// changed (`calendar.file` after `visits add`). It must cost next to nothing when the
    /// command changed nothing of it. Nothing by default.
    func commandEnded(_ env: AppEnvironment)
}

extension Feature {
    public var configKeys: [ConfigKey] { [] }
    public func recover(_ paths: Paths) -> String? { nil }
    public func forget(domains: [String]?, in profile: ProfileScope) throws {}
    public func doctorChecks(_ env: AppEnvironment) -> [DoctorCheck] { [] }
    public func commandEnded(_ env: AppEnvironment) {}
}

extension Array where Element == any Feature {
    /// Tells every feature that `domains` (all when `nil`) were cleared or replaced.
    /// - Throws: the first feature's error; every feature is told either way.
    public func forget(domains: [String]?, in profile: ProfileScope) throws {
        var first: (any Error)?
        for feature in self {
            do { try feature.forget(domains: domains, in: profile) } catch { first = first ?? error }
        }
        if let first { throw first }
    }
}
