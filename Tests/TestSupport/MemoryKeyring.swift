import BradOSAuth
import BradOSCore

/// A keyring in memory, with the Secret Service's rules (an item replaced when its attributes
/// are the same; a locked one found without its secret, neither stored to nor cleared) and
/// faults to order: absent, locked, failing after a number of stores.
public final class MemoryKeyring: Keyring, Sendable {
    public struct State: Sendable {
        public var items: [KeyringAttributes: String] = [:]
        /// Every call fails as when no keyring answers.
        public var absent = false
        public var locked = false
        /// Stores left before one fails (`nil`: never).
        public var storesBeforeFailure: Int?
        public var calls = 0
    }
    public let state = Locked(State())

    public init() {}

    public var items: [KeyringAttributes: String] { state.value.items }

    public func search(_ attributes: KeyringAttributes) throws -> [KeyringItem] {
        try state.withLock { state -> Result<[KeyringItem], AuthError> in
            state.calls += 1
            if state.absent { return .failure(.keyring(.noService("absent"))) }
            return .success(state.items.filter { attributes.matches($0.key) }.sorted { $0.key.description < $1.key.description }
                .map { KeyringItem(attributes: $0.key, secret: state.locked ? nil : $0.value) })
        }.get()
    }

    public func store(_ secret: String, label: String, attributes: KeyringAttributes) throws {
        try state.withLock { state -> Result<Void, AuthError> in
            state.calls += 1
            if state.absent { return .failure(.keyring(.noService("absent"))) }
            if state.locked { return .failure(.keyring(.locked)) }
            if let left = state.storesBeforeFailure {
                if left == 0 { return .failure(.keyring(.failed("failing on purpose"))) }
                state.storesBeforeFailure = left - 1
            }
            state.items[attributes] = secret
            return .success(())
        }.get()
    }

    public func clear(_ attributes: KeyringAttributes) throws {
        try state.withLock { state -> Result<Void, AuthError> in
            state.calls += 1
            if state.absent { return .failure(.keyring(.noService("absent"))) }
            if !state.locked { state.items = state.items.filter { !attributes.matches($0.key) } }
            return .success(())
        }.get()
    }
}
