import ArgumentParser
import BradOSServer
import Foundation
import Hummingbird
import Logging

/// `brados-server`: the reference backend for brados, on loopback by default.
@main
struct BradOSServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "brados-server",
        abstract: "The brados reference server: BradOS REST, Plex, Supabase and the plan API over SQLite.",
        discussion: """
        Prints "brados-server listening on URL" on stdout once it accepts connections.
        Example:
          brados-server --port 8080 --data-dir /tmp/brados-server --seed demo --admin
        """)

    @Option(help: "Address to bind.") var host = "127.0.0.1"
    @Option(help: "Port to bind; 0 picks a free one.") var port = 8080
    @Option(help: ArgumentHelp("Keep the SQLite database here (default: in memory).", valueName: "dir")) var dataDir: String?
    @Option(help: ArgumentHelp("Seed data set: demo or none.", valueName: "name")) var seed = "demo"
    @Option(help: "Number that varies the generated demo content.") var seedValue = 0
    @Option(help: ArgumentHelp("Access-token lifetime in seconds.", valueName: "seconds")) var tokenTTL = 3600
    @Option(help: ArgumentHelp("Lifetime of plex.tv sign-in pins in seconds.", valueName: "seconds")) var plexPinLifetime = 1800
    @Option(help: ArgumentHelp("The Supabase anon API key /auth/v1 and /rest/v1 require.", valueName: "key"))
    var anonKey = ServerConfiguration.defaultAnonKey
    @Option(help: ArgumentHelp("Messages in the demo user's first conversation (default 2400; benchmarks).", valueName: "n"))
    var seedMessages: Int?
    @Option(help: ArgumentHelp("Conversations of the demo user (default 8; benchmarks).", valueName: "n"))
    var seedConversations: Int?
    @Option(help: ArgumentHelp("Albums in the music library (default a few hundred; benchmarks).", valueName: "n"))
    var seedAlbums: Int?
    @Option(help: ArgumentHelp("Albums added in each second, as a scan (4) or a bulk import (10000) leaves them (default: spread over three years; benchmarks).", valueName: "n"))
    var seedAlbumsPerSecond: Int?
    @Flag(help: "Albums with every field a real Plex server sends (about 650 bytes each in JSON; benchmarks).") var realAlbums = false
    @Option(help: ArgumentHelp("Plan generations a client may ask for in --plan-rate-window (0: no limit).", valueName: "n"))
    var planRateLimit = 20
    @Option(help: ArgumentHelp("The window of --plan-rate-limit in seconds (tests shorten it).", valueName: "seconds"))
    var planRateWindow = 60
    @Flag(help: "Serve /_admin/stats and /_admin/faults (tests and benchmarks).") var admin = false
    @Flag(help: "Exit when standard input closes: whoever starts the server holds it open, so the server lives exactly as long as its starter (tests, benchmarks), however long that is, and never outlives it.")
    var untilStdinCloses = false
    @Option(help: ArgumentHelp("Log level.", valueName: "level")) var logLevel = "warning"

    func validate() throws {
        guard ["demo", "none"].contains(seed) else { throw ValidationError("--seed must be demo or none.") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535.") }
        guard tokenTTL > 0 else { throw ValidationError("--token-ttl must be positive.") }
        guard plexPinLifetime > 0 else { throw ValidationError("--plex-pin-lifetime must be positive.") }
        if let seedMessages, seedMessages < 0 { throw ValidationError("--seed-messages must be 0 or more.") }
        if let seedAlbums, seedAlbums < 0 { throw ValidationError("--seed-albums must be 0 or more.") }
        if let seedAlbumsPerSecond, seedAlbumsPerSecond < 1 { throw ValidationError("--seed-albums-per-second must be at least 1.") }
        if let seedConversations, seedConversations < 1 { throw ValidationError("--seed-conversations must be at least 1.") }
        guard planRateLimit >= 0 else { throw ValidationError("--plan-rate-limit must be 0 or more.") }
        guard planRateWindow > 0 else { throw ValidationError("--plan-rate-window must be positive.") }
    }

    func run() async throws {
        var logger = Logger(label: "brados-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .warning
        var configuration = ServerConfiguration(
            host: host, port: port, dataDirectory: dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
            seedDemo: seed == "demo", seed: seedValue, tokenTTL: tokenTTL, admin: admin, supabaseAnonKey: anonKey)
        configuration.plexPinLifetime = plexPinLifetime
        configuration.coachMessages = seedMessages
        configuration.coachConversations = seedConversations
        configuration.plexAlbums = seedAlbums
        configuration.plexAddedPerSecond = seedAlbumsPerSecond
        configuration.plexRealAlbums = realAlbums
        configuration.planRateLimit = planRateLimit
        configuration.planRateWindow = planRateWindow
        let server = try ReferenceServer(configuration: configuration)
        let host = self.host
        let app = server.makeApplication(logger: logger) { port in
            FileHandle.standardOutput.write(Data("brados-server listening on http://\(host):\(port)\n".utf8))
        }
        if untilStdinCloses {
            // The kernel closes the starter's end when it exits, however it exits (a crash, SIGKILL).
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 512)
                while true {
                    let count = read(0, &buffer, buffer.count)
                    if count == 0 || (count < 0 && errno != EINTR) { Foundation.exit(0) }
                }
            }
        }
        try await app.runService()
    }
}
