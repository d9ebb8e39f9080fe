import BradOSAuth
import BradOSNetworking
import Foundation

/// A service as a plugin declares it: its name, what it is, and how to sign in to it.
public struct ServiceDescription: Sendable {
    public typealias AccountFactory = @Sendable (_ settings: Settings, _ now: @escaping @Sendable () -> Date) -> any AccountProtocol

    public var service: Service
    /// What the service is, for `config list` and `--help`: "a Plex Media Server (library)".
    public var summary: String
    public typealias SignInFactory = @Sendable (_ env: AppEnvironment) throws -> any ServiceSignIn

    /// Its sign-in protocol; `nil` when it signs in the way the account service does.
    public var account: AccountFactory?
    /// How `auth login --service NAME` signs in when the service's accounts live on a server
    /// of their own (Plex: plex.tv); `nil` for services that sign in on their own server.
    public var signIn: SignInFactory?
    /// The names the service had before (``ServiceRename``): what a user's config file,
    /// credentials and environment may still say, moved to the current name once.
    public var formerNames: [String]

    public init(_ service: Service, summary: String, account: AccountFactory? = nil, signIn: SignInFactory? = nil,
                formerNames: [String] = []) {
        self.service = service
        self.summary = summary
        self.account = account
        self.signIn = signIn
        self.formerNames = formerNames
    }

    /// The current name of a service once called `name`, if one was.
    public static func renamed(_ name: String, in plugins: [any DomainPlugin]) -> Service? {
        all(plugins).first { $0.formerNames.contains(name) }?.service
    }

    /// The account service, described by the core.
    public static let account = ServiceDescription(.account, summary: "brados's own server (accounts, and domains without a server of their own)")

    /// The `server.<name>` key of the service.
    public var configKey: ConfigKey {
        ConfigKey(name: service.configKey, summary: "Server URL of \(summary) (default: `server`)",
                  environmentVariable: service.environmentVariable, validate: ConfigKey.urlValidator)
    }

    /// Every service: the account service, then each plugin's, in registry order (a name
    /// declared twice counts once).
    public static func all(_ plugins: [any DomainPlugin]) -> [ServiceDescription] {
        // A handful of services: an array, not a Set (a Set<Service> costs a runtime metadata
        // lookup on every start-up, as command help reads this).
        var all: [ServiceDescription] = [account]
        for plugin in plugins {
            for described in plugin.services where !all.contains(where: { $0.service == described.service }) { all.append(described) }
        }
        return all
    }
}
