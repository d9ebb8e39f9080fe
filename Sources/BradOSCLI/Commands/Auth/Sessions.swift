import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation

/// `brados auth …` logic: sign in, status, switch, sign out (erasing the profile's data).
public struct Sessions: Sendable {
    let env: AppEnvironment

    public init(_ env: AppEnvironment) { self.env = env }

    /// Signs the profile in to the account (or to one service's own server).
    /// - Throws: ``AuthError``, ``NetworkError``, ``StorageError``.
    @discardableResult
    public func login(user: String, password: String, service: Service?) async throws -> Credential {
        let target = service ?? .account
        let server = try await env.network.baseURL(for: target)
        let account = await env.network.account(for: target)
        var credential = try await account.login(user: user, password: password, server: server, transport: env.network.httpTransport)
        if env.network.usesEmbedded(target) { credential.server = Credential.embeddedServer }
        try await FileLock.withExclusiveLock(at: env.credentials.lockURL, timeout: .seconds(60)) {
            var credentials = try env.credentials.loadForUpdate()
            if let service { credentials.services[service.rawValue] = credential } else { credentials.account = credential }
            try env.credentials.save(credentials)
        }
        env.logger.debug("signed in", metadata: ["user": "\(credential.user)", "profile": "\(env.profile.name)"])
        return credential
    }

    /// Saves the session `sign-in` gave for a service with an account server (``ServiceSignIn``).
    /// - Throws: ``StorageError``.
    public func save(_ credential: Credential, service: Service) async throws {
        try await FileLock.withExclusiveLock(at: env.credentials.lockURL, timeout: .seconds(60)) {
            var credentials = try env.credentials.loadForUpdate()
            // Another account's session: what was chosen with the previous one goes with it.
            if credentials.services[service.rawValue]?.userID != credential.userID { try env.credentials.removeAttachments(of: service) }
            credentials.services[service.rawValue] = credential
            try env.credentials.save(credentials)
        }
        env.logger.debug("signed in", metadata: ["user": "\(credential.user)", "service": "\(service.rawValue)", "profile": "\(env.profile.name)"])
    }

    /// Polls a sign-in link every `interval` until it is approved (the session, saved) or
    /// expires; `tick` gets the time left before each wait. Cancellation (Ctrl-C) stops it.
    /// - Throws: ``AuthError/linkExpired(service:)``, ``NetworkError``, `CancellationError`.
    public func waitForApproval(_ link: SignInLink, flow: any ServiceSignIn, service: Service, interval: Duration = .seconds(1),
                                tick: (Duration) -> Void = { _ in }) async throws -> Credential {
        while true {
            try Task.checkCancellation()
            switch try await flow.checkLink(id: link.id, transport: env.network.httpTransport) {
            case .approved(let credential):
                try await save(credential, service: service)
                return credential
            case .expired:
                throw AuthError.linkExpired(service: service.rawValue)
            case .waiting(let expiresAt):
                let left = expiresAt.timeIntervalSince(env.now())
                guard left > 0 else { throw AuthError.linkExpired(service: service.rawValue) }
                tick(.milliseconds(Int64(left * 1000)))
                try await env.clock.sleep(for: interval)
            }
        }
    }

    /// The account as the server sees it: `GET /api/auth/me` through the retrying,
    /// token-renewing client (so an expired token is renewed once).
    /// - Throws: ``AuthError``, ``NetworkError``.
    public func verify() async throws -> ServerAccount {
        try await env.client(for: .account).decode(ServerAccount.self, .get("/api/auth/me"))
    }

    /// The profile's sign-in state, read locally (no request). `askKeyring` false: the keyring
    /// only where the store may hold secrets there (what `auth login` shows after signing in:
    /// with `credentials.store = file` it never loads libsecret).
    public func status(askKeyring: Bool = true) -> AuthStatus { status(of: env.profile.name, askKeyring: askKeyring) }

    /// What `auth status` shows for `profile` (this one or another, `auth status --all`).
    public func status(of profile: ProfileName, askKeyring: Bool = true) -> AuthStatus {
        let store = env.credentials(of: profile)
        let (credentials, inventory) = store.readAll(askKeyring: askKeyring)
        let active = (try? Settings(flags: GlobalFlags(), environment: [:], file: env.settings.file).profile()) ?? .default
        func entry(_ credential: Credential) -> AuthStatus.Session {
            AuthStatus.Session(user: credential.user, userID: credential.userID, server: credential.server,
                               expiresAt: credential.expiresAt, signedInAt: credential.obtainedAt)
        }
        return AuthStatus(
            profile: profile.rawValue, active: active == profile,
            signedIn: !credentials.isEmpty || !inventory.secrets.isEmpty, account: credentials.account.map(entry),
            services: credentials.services.mapValues(entry),
            credentialsFile: store.url.path, secrets: inventory, verified: nil,
            importedFromOtherAccounts: ImportedData.load(env.paths.profile(profile)).fromAnotherAccount(than: credentials.accounts))
    }

    /// Moves the secrets of `profiles` to `target` (``CredentialStore/migrate(to:)``), each
    /// under its refresh lock, so no renewal writes to the old place meanwhile.
    /// - Throws: ``AuthError/keyring(_:)``, ``StorageError``; what moved before a failure stays moved.
    public func migrate(to target: SecretLocation, profiles: [ProfileName]) async throws -> [CredentialMigration] {
        var reports: [CredentialMigration] = []
        for profile in profiles {
            let store = env.credentials(of: profile)
            reports.append(try await FileLock.withExclusiveLock(at: store.lockURL, timeout: .seconds(60)) { try store.migrate(to: target) })
        }
        return reports
    }

    /// Every profile with secrets in the credentials folder, and `current`.
    public func profilesWithSecrets(including current: ProfileName) -> [ProfileName] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: env.paths.credentialsDirectory.path)) ?? []
        let stored = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.compactMap { ProfileName(rawValue: String($0.dropLast(5))) }
        return Array(Set(stored + [current])).sorted { $0.rawValue < $1.rawValue }
    }

    /// Makes `profile` the active one (config key `profile`); one that has nothing yet (no
    /// sign-in, cache or data) only with `create`.
    /// - Throws: ``ConfigError`` (``ConfigError/unknownProfile(_:known:)``), ``StorageError``.
    public func switchProfile(to name: String, create: Bool = false) throws -> ProfileName {
        let profile = try ProfileName(validating: name)
        // A mistyped name is an error with the nearest one suggested, never a new empty profile made active.
        guard create || env.paths.hasProfile(profile) else {
            throw ConfigError.unknownProfile(profile.rawValue, known: env.paths.knownProfiles().map(\.rawValue))
        }
        try ConfigFile.update(at: env.paths.configFile) { $0.values["profile"] = profile.rawValue }
        return profile
    }

    /// Signs the profile out: revokes the session on the server when reachable, deletes the
    /// credentials, and erases every domain's data for the profile (then the profile's folders).
    /// - Throws: ``StorageError`` (the server revocation never fails the command).
    public func logout() async throws -> LogoutReport {
        // With their tokens (a keyring's sessions are read from it): each is revoked below.
        let credentials = (try? env.credentials.loadForUpdate()) ?? env.credentials.load()
        var revoked = false
        // Every session is revoked where it was issued: the account's, then each service's own.
        let sessions = [(Service.account, credentials.account)] + credentials.services.compactMap { name, credential in
            Optional((Service(rawValue: name), Optional(credential)))
        }
        // A service with an account server of its own (Plex: plex.tv) signs out there, by its
        // own protocol (which sends the token only to the server that issued it).
        // Such a service never falls back to the BradOS route, even when its flow cannot be made.
        let linked = Dictionary(env.services.compactMap { description in description.signIn.map { (description.service, $0) } },
                                uniquingKeysWith: { first, _ in first })
        for case let (service, credential?) in sessions where !env.isOffline {
            if let factory = linked[service] {
                do { revoked = try await factory(env).signOut(credential, transport: env.network.httpTransport) || revoked } catch {
                    env.logger.info("could not sign out of \(service.rawValue); erasing locally anyway")
                }
                continue
            }
            do {
                let server = try await env.network.baseURL(for: service)
                // Tokens only ever go to the server that issued them.
                guard credential.isIssued(by: server, embedded: env.network.usesEmbedded(service)) else { continue }
                try await env.network.account(for: service).logout(credential, server: server, transport: env.network.httpTransport)
                revoked = true
            } catch {
                env.logger.info("could not revoke the \(service.rawValue) session on the server; erasing locally anyway")
            }
        }
        // Under the refresh lock, so a renewal in another process cannot write the tokens back.
        // The lock file itself stays: a process waiting on it must not end up holding a lock
        // on a deleted file while another takes a new one.
        // Erase everything we can even if one part fails (a locked keyring keeps its items),
        // then report the first failure.
        var firstFailure: (any Error)?
        do {
            try await FileLock.withExclusiveLock(at: env.credentials.lockURL, timeout: .seconds(60)) { try env.credentials.remove() }
        } catch let error as AuthError {
            firstFailure = error
        }
        var erased: [LogoutReport.Domain] = []
        for plugin in env.plugins {
            let stats = (try? plugin.stats(in: env.profile)) ?? CacheStats()
            do {
                try plugin.clear(in: env.profile)
                erased.append(.init(domain: plugin.name, files: stats.files, bytes: stats.bytes))
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        let leftovers = FileSystem.regularFiles(under: env.profile.cacheDirectory) + FileSystem.regularFiles(under: env.profile.dataDirectory)
        for folder in [env.profile.cacheDirectory, env.profile.dataDirectory] {
            do { try FileSystem.removeDurably(folder) } catch { firstFailure = firstFailure ?? error }
        }
        if let firstFailure { throw firstFailure }
        env.logger.debug("profile erased", metadata: ["profile": "\(env.profile.name)"])
        return LogoutReport(profile: env.profile.name.rawValue, wasSignedIn: !credentials.isEmpty, revokedOnServer: revoked,
                            domains: erased, otherFiles: leftovers.count)
    }
}

/// The account as `GET /api/auth/me` returns it.
public struct ServerAccount: Codable, Sendable {
    public var id: String
    public var username: String
    public var email: String?
    public var displayName: String?
}

/// What `auth status` shows.
public struct AuthStatus: Codable, Sendable {
    public struct Session: Codable, Sendable {
        public var user: String
        @NullWhenAbsent public var userID: String?
        public var server: String
        @NullWhenAbsent public var expiresAt: Date?
        public var signedInAt: Date
        /// `userId` in JSON, as every other id key is cased.
        enum CodingKeys: String, CodingKey { case user, userID = "userId", server, expiresAt, signedInAt }
    }
    public var profile: String
    public var active: Bool
    public var signedIn: Bool
    @NullWhenAbsent public var account: Session?
    public var services: [String: Session]
    public var credentialsFile: String
    /// Where each secret lives (the keyring or the file), and whether the keyring answered.
    public var secrets: CredentialInventory
    /// Filled by `auth status --check`.
    @NullWhenAbsent public var verified: ServerAccount?
    /// What imports brought from another account than this profile's (labelled, never taken for its own).
    public var importedFromOtherAccounts: [ImportedData.Entry] = []
}

/// What `auth logout` erased.
public struct LogoutReport: Codable, Sendable {
    public struct Domain: Codable, Sendable {
        public var domain: String
        public var files: Int
        public var bytes: Int64
    }
    public var profile: String
    public var wasSignedIn: Bool
    public var revokedOnServer: Bool
    public var domains: [Domain]
    public var otherFiles: Int
    /// Changes the person made and had not sent, erased with the profile (only ever with
    /// their agreement: a terminal's question, or `--discard-pending`).
    public var discardedUnsent: [UnsentChange] = []
    /// History kept only here, erased with the profile.
    public var erasedHistory: [HistoryItems] = []
    /// Files of the person's own that could not be read, erased with the profile (with the
    /// same agreement as unsent changes).
    public var erasedUnreadable: [UnreadableData] = []
}
