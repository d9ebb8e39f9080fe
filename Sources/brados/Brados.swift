import ArgumentParser
import BradOSCore
import BradOSServer
import Foundation

/// The root command: core commands plus one group of domain commands from the registry.
struct Brados: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "brados",
        abstract: "Offline-first terminal access to your BradOS data.",
        discussion: """
        Every domain serves from a local cache first and works with --offline.
        With no server configured, brados uses its built-in demo backend.
        Exit codes: 0 ok, 1 failure, 3 not found, 4 sign in, 5 needs network, \
        6 server failure, 7 rejected, 8 integrity, 64 usage.
        """,
        version: BradOSVersion.current,
        subcommands: [AuthCommand.self, ConfigCommand.self, CacheCommand.self],
        groupedSubcommands: [CommandGroup(name: "Domains", subcommands: Registry.plugins.map(\.command))])
}

/// Starts the reference server inside this process when no server is configured.
struct EmbeddedReferenceBackend: EmbeddedBackend {
    func start(dataDirectory: URL) async throws -> URL {
        try await ReferenceServer.startEmbedded(dataDirectory: dataDirectory)
    }
}

@main
enum Main {
    static func main() async {
        Runtime.install(plugins: Registry.plugins, embedded: EmbeddedReferenceBackend())
        let code = await CommandRunner.run(Brados.self, arguments: Array(CommandLine.arguments.dropFirst()), io: StandardIO())
        exit(code)
    }
}
