import BradOSCore
import BradOSStorage
import Foundation

/// The search index as the core sees it (``Feature``): derived from the domains' caches, it
/// forgets a domain whose stored copy was cleared or replaced, and is removed with all of them.
public struct SearchFeature: Feature {
    public init() {}

    public func forget(domains: [String]?, in profile: ProfileScope) throws {
        let index = SearchIndex(profile: profile)
        if let domains { try index.forget(domains: domains) } else { try index.remove() }
    }
}
