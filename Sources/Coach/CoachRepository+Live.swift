import ArgumentParser
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging
import Synchronization

extension CoachRepository {
    /// The repository of the command's profile: its database (opened on first use), its Supabase
    /// session, and `coach.context-ttl`.
    /// - Throws: ``ConfigError`` for an invalid TTL.
    public static func live(_ env: AppEnvironment) throws -> CoachRepository {
        let ttl = try CoachPlugin.contextTTLSetting.value(in: env.settings)
        let opener = DatabaseOpener(url: CoachPlugin.databaseURL(env.profile), logger: env.logger)
        let anonKey = CoachPlugin.anonKey(env.settings)
        let credentials = env.credentials
        var repository = CoachRepository(
            database: { try opener.database() },
            offline: env.isOffline, contextTTL: ttl, profile: env.profile.name.rawValue, now: env.now, logger: env.logger,
            notice: { [output = env.output] in output.notice($0) },
            userID: { credentials.load().credential(for: .supabase, dedicated: true)?.userID },
            api: {
                // Every Supabase request carries the project's key; the user's JWT goes as a bearer token.
                var client = try await env.client(for: .supabase)
                client.defaultHeaders = [("apikey", anonKey)]
                return PostgRESTCoachClient(client: client)
            })
        let profile = env.profile
        repository.refreshStamps = { RefreshStamp.of(domain: CoachPlugin.domainName, resource: $0, in: profile) }
        let heartbeat = env.io.environment["BRADOS_REALTIME_HEARTBEAT"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } ?? 30
        repository.realtime = {
            let client = try await env.client(for: .supabase)
            guard let url = RealtimeChannel.url(base: client.baseURL, anonKey: anonKey), let authenticator = client.authenticator else {
                throw CoachError.realtimeRefused("no Supabase session to follow with")
            }
            return RealtimeAccess(url: url, token: { try await authenticator.accessToken() },
                                  renew: { try await authenticator.renewToken(replacing: $0) },
                                  connector: NIOWebSocketClient(), heartbeat: .milliseconds(Int64(heartbeat * 1000)))
        }
        return repository
    }
}

/// Opens the coach database once, on first use (commands that never touch it never open it).
final class DatabaseOpener: Sendable {
    let url: URL
    let logger: Logger
    private let opened = Mutex<CoachCache?>(nil)

    init(url: URL, logger: Logger) {
        self.url = url
        self.logger = logger
    }

    func database() throws -> CoachCache {
        try opened.withLock { database in
            if let database { return database }
            let created = try CoachCache(url: url, logger: logger)
            database = created
            return created
        }
    }
}
