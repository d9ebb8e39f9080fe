import BradOSTerminal
import CSecretLoader
import Foundation

/// The freedesktop Secret Service through libsecret (opened on first use; see CSecretLoader):
/// GNOME Keyring, KeePassXC, KWallet's bridge. It never prompts: a locked keyring is reported
/// as ``KeyringFailure/locked``. Each call runs on a thread of its own and is given up after
/// `timeout` (a daemon that stopped answering blocks libsecret's call for good).
public struct SecretServiceKeyring: Keyring {
    /// `BRADOS_KEYRING_TIMEOUT` (seconds) or 10 s.
    public let timeout: Duration

    public init(timeout: Duration = .seconds(10)) { self.timeout = timeout }

    /// The keyring of the environment: `BRADOS_KEYRING_TIMEOUT` seconds, else 10.
    public init(environment: [String: String]) {
        self.init(timeout: environment["BRADOS_KEYRING_TIMEOUT"].flatMap(parseDuration) ?? .seconds(10))
    }

    public func search(_ attributes: KeyringAttributes) throws -> [KeyringItem] {
        final class Found: @unchecked Sendable { var items: [KeyringItem] = [] }
        let found = Found()
        try call { message in
            withAttributes(attributes) { values in
                csecret_search(values, { context, values, secret in
                    let found = Unmanaged<Found>.fromOpaque(context!).takeUnretainedValue()
                    func value(_ index: Int) -> String? { values?[index].map { String(cString: $0) } }
                    guard value(0) == nil || value(0) == KeyringAttributes.application else { return }
                    found.items.append(KeyringItem(attributes: KeyringAttributes(profile: value(1), service: value(2), attachment: value(3)),
                                                   secret: secret.map { String(cString: $0) }))
                }, Unmanaged.passUnretained(found).toOpaque(), message)
            }
        }
        return withExtendedLifetime(found) { found.items }
    }

    public func store(_ secret: String, label: String, attributes: KeyringAttributes) throws {
        try call { message in withAttributes(attributes) { csecret_store(label, $0, secret, message) } }
    }

    public func clear(_ attributes: KeyringAttributes) throws {
        try call { message in
            var removed: Int32 = 0
            return withAttributes(attributes) { csecret_clear($0, &removed, message) }
        }
    }

    /// Runs a libsecret call on a thread of its own, waiting at most `timeout`.
    private func call(_ body: @escaping @Sendable (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> csecret_status) throws {
        final class Outcome: @unchecked Sendable {
            var status = CSECRET_FAILED
            var message: String?
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var message: UnsafeMutablePointer<CChar>?
            outcome.status = body(&message)
            if let message {
                outcome.message = String(cString: message)
                free(message)
            }
            done.signal()
        }
        thread.start()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard done.wait(timeout: .now() + seconds) == .success else {
            throw AuthError.keyring(.timedOut(seconds: max(1, Int(seconds.rounded()))))
        }
        let message = outcome.message ?? "no reason given"
        switch outcome.status {
        case CSECRET_OK: return
        case CSECRET_NO_LIBRARY: throw AuthError.keyring(.noLibrary(message))
        case CSECRET_NO_SERVICE: throw AuthError.keyring(.noService(message))
        case CSECRET_LOCKED: throw AuthError.keyring(.locked)
        default: throw AuthError.keyring(.failed(message))
        }
    }

    /// The attributes as the C array the loader takes (NULL where one is left out).
    private func withAttributes<T>(_ attributes: KeyringAttributes, _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = attributes.values.map { $0.map { strdup($0)! } }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
