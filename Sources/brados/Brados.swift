import ArgumentParser
import BradOSCore
import BradOSServer
import Dispatch
import Foundation
import Synchronization

/// The root command: core commands plus one group of domain commands from the registry.
struct Brados: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "brados",
        abstract: "Offline-first terminal access to your BradOS data.",
        discussion: """
        Every domain serves from a local cache first and works with --offline.
        With no server configured, brados uses its built-in demo backend.
        Exit codes: 0 ok, 1 failure, 3 not found, 4 sign in, 5 needs network, \
        6 server failure, 7 rejected, 8 integrity, 9 rate limited, 64 usage.
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
        let command = Task {
            await CommandRunner.run(Brados.self, arguments: Array(CommandLine.arguments.dropFirst()), io: StandardIO())
        }
        let interrupts = cancelOnInterrupt(command)
        let code = await command.value
        interrupts.cancel()
        exit(code)
    }

    /// Ctrl-C cancels the command, so it can undo what it started (an optimistic delete is
    /// restored) and exit 130. A second Ctrl-C, or a command that ignores cancellation for
    /// 3 s, exits at once. Nonisolated: the handler runs on a dispatch queue, not the main actor.
    nonisolated static func cancelOnInterrupt(_ command: Task<Int32, Never>) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let count = Interrupts()
        interrupts.setEventHandler {
            if count.next() > 0 { exit(130) }
            command.cancel()
            DispatchQueue.global().asyncAfter(deadline: .now() + 3) { exit(130) }
        }
        interrupts.resume()
        return interrupts
    }
}

/// Counts Ctrl-Cs.
final class Interrupts: Sendable {
    private let count = Mutex(0)
    func next() -> Int { count.withLock { value in defer { value += 1 }; return value } }
}
