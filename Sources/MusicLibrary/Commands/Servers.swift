import ArgumentParser
import BradOSCore
import Foundation

extension LibraryCommand {
    /// `brados library servers`.
    public struct Servers: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "servers",
            abstract: "List the Plex account's media servers and their addresses.",
            discussion: """
            Asks plex.tv (`plex.account-server`) for the servers the account owns or was shared; \
            the one in use is marked *. Needs `brados auth login --service plex`.
            Examples:
              brados library servers
              brados library servers --json | jq '.[].name'
            """)
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let servers = PlexServers(env)
            let list = try await servers.list()
            let chosen = servers.chosen
            struct Row: Encodable {
                var name: String
                var machineIdentifier: String
                var owned: Bool
                var sharedBy: String?
                var version: String?
                var chosen: Bool
                var connections: [PlexAccount.Resource.Connection]
            }
            let rows = list.map { resource in
                Row(name: resource.name, machineIdentifier: resource.clientIdentifier, owned: resource.owned ?? false,
                    sharedBy: resource.owned == true ? nil : resource.sourceTitle, version: resource.productVersion,
                    chosen: chosen?.machineIdentifier == resource.clientIdentifier, connections: PlexServers.ordered(resource.connections ?? []))
            }
            if env.output.format == .json { return try env.output.json(rows) }
            if rows.isEmpty { return env.output.line("No media servers on this Plex account.") }
            for row in rows {
                let whose = row.owned ? "owned" : "shared by \(row.sharedBy ?? "another account")"
                env.output.line("\(row.chosen ? "*" : " ") \(row.name)  (\(whose), Plex \(row.version ?? "?"))")
                for connection in row.connections {
                    let kind = connection.relay == true ? "relay" : connection.local == true ? "local" : "remote"
                    let mark = row.chosen && chosen?.working == connection.uri ? "  ← in use" : ""
                    env.output.line("    \(kind.padding(toLength: 6, withPad: " ", startingAt: 0)) \(connection.uri)\(mark)")
                }
            }
            if chosen == nil, rows.count > 1 { env.output.line("Choose one with: brados library use NAME") }
        }
    }
}
