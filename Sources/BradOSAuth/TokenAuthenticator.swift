import BradOSNetworking
import BradOSStorage
import Foundation
import Logging

/// The default ``Authenticating``: tokens from the profile's ``CredentialStore``, renewed
/// through the service's ``AccountProtocol``.
///
/// Renewal is serialized twice: by this actor within a process, and by the credential
/// store's file lock across processes. Under the lock the stored token is re-read; if it is
/// no longer the rejected one, another process already renewed it and no request is made.
/// That is what keeps single-use refresh tokens from being spent twice.
public actor TokenAuthenticator: Authenticating {
    let service: Service
    let store: CredentialStore
    let account: any AccountProtocol
    let server: URL
    let transport: any HTTPTransport
    let logger: Logger
    /// The service has its own accounts: only its own slot is read and written.
    let dedicated: Bool
    /// `server` is the embedded backend (whose sessions are marked, not named by URL).
    let embedded: Bool

    public init(service: Service, store: CredentialStore, account: any AccountProtocol, server: URL,
                transport: any HTTPTransport, logger: Logger, dedicated: Bool = false, embedded: Bool = false) {
        self.dedicated = dedicated
        self.embedded = embedded
        self.service = service
        self.store = store
        self.account = account
        self.server = server
        self.transport = transport
        self.logger = logger
    }

    /// The stored session for this service, re-read on every use (another process may have
    /// renewed it, or signed the profile in elsewhere) and re-checked against the server this
    /// client talks to: a session only ever goes to the server that issued it.
    func currentCredential(_ credentials: CredentialSet) throws -> Credential {
        guard let credential = credentials.credential(for: service, dedicated: dedicated) else {
            throw AuthError.notSignedIn(profile: store.profile.rawValue)
        }
        guard credential.isIssued(by: server, embedded: embedded) else {
            throw AuthError.signedInElsewhere(profile: store.profile.rawValue, service: service.rawValue, signedInTo: credential.server,
                                              using: embedded ? "the built-in demo backend" : server.absoluteString)
        }
        return credential
    }

    /// A service with its own accounts is named in "sign in again".
    /// The service to name when the session must be signed in again (`--service NAME`);
    /// `nil` for the account service.
    public nonisolated var signInService: String? { dedicated ? service.rawValue : nil }

    public nonisolated func sessionExpired(profile: String) -> any Error {
        AuthError.sessionExpired(profile: profile, service: signInService)
    }

    /// The service's current access token, re-read from the credential store.
    /// - Throws: ``AuthError/notSignedIn(profile:)``, ``AuthError/signedInElsewhere(profile:service:signedInTo:using:)``;
    ///   ``StorageError/io(operation:path:errno:)`` when the credentials cannot be read.
    public func accessToken() throws -> String {
        try currentCredential(try store.loadForUpdate()).accessToken
    }

    /// Room the renewed credentials need on the disk before a refresh token is spent.
    static let credentialsRoom: UInt64 = 64 << 10

    /// Renews the session after `rejected` was refused, under the credential store's file lock, and returns the new
    /// token; if another process already renewed it, returns that token without a request.
    /// - Throws: ``AuthError/sessionExpired(profile:service:)`` when the refresh is refused, ``AuthError/notSignedIn(profile:)``,
    ///   ``AuthError/signedInElsewhere(profile:service:signedInTo:using:)``, ``NetworkError``; ``StorageError`` (a lock
    ///   timeout, a full disk before the refresh token is spent, a failed write), `CancellationError` while waiting for the lock.
    public func renewToken(replacing rejected: String) async throws -> String {
        try await FileLock.withExclusiveLock(at: store.lockURL) {
            let credentials = try store.loadForUpdate()
            let current = try currentCredential(credentials)
            if current.accessToken != rejected {
                logger.debug("token already renewed by another process", metadata: ["service": "\(service.rawValue)"])
                return current.accessToken
            }
            // A refresh token is single-use: spending it when the renewed tokens cannot be
            // saved (a full disk) would sign the profile out. Refuse first, keeping the session.
            if FileSystem.isFull(at: store.url, margin: Self.credentialsRoom) {
                throw StorageError.io(operation: "write", path: store.url.path, errno: ENOSPC)
            }
            logger.debug("renewing access token", metadata: ["service": "\(service.rawValue)"])
            // Once the refresh token is sent it is spent: the renewal and its saving run to
            // the end even when the command is interrupted (Ctrl-C), or the profile would be
            // signed out by a cancelled answer. (An unstructured task: cancellation does not
            // reach it.)
            let renewal = Task { [credentials] in
                var credentials = credentials
                var renewed: Credential
                do { renewed = try await account.refresh(current, profile: store.profile, server: server, transport: transport) } catch AuthError.sessionExpired(let profile, _) {
                    throw AuthError.sessionExpired(profile: profile, service: signInService)
                }
                // Still the same server (for the embedded backend, its marker rather than this run's port).
                renewed.server = current.server
                if dedicated { credentials.services[service.rawValue] = renewed } else { credentials.replace(for: service, with: renewed) }
                try store.save(credentials)
                return renewed.accessToken
            }
            return try await renewal.value
        }
    }
}
