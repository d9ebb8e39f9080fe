import ArgumentParser
import BradOSCore
import BradOSErrors
import BradOSNetworking
import BradOSServer
import BradOSStorage
import BradOSTerminal
import Foundation
import Synchronization

/// The root command: core commands plus one group of domain commands from the plugins of the
/// composition bound around the parse (``Composition/current``, bound by ``BradosMain/run(plugins:)``).
public struct Brados: AsyncParsableCommand {
    public init() {}
    public static var configuration: CommandConfiguration {
        if let arguments = CommandRunner.parsedArguments { return parsingConfiguration(arguments) }
        return CommandConfiguration(
            commandName: "brados",
            abstract: "Offline-first terminal access to your BradOS data.",
            discussion: """
            Every domain serves from a local cache first and works with --offline.
            With no server configured, brados uses its built-in demo backend.
            Reading: NO_COLOR=1 turns colour off (no escape sequence at all); -q keeps stderr \
            quiet; --art none (config display.art, env BRADOS_ART) draws no pictures, each then \
            one line of text; BRADOS_ACCESSIBLE=1 (config display.accessible true) is for a \
            screen reader: no spinners, pictures or pager, words for symbols; config \
            display.progress off keeps stderr free of spinners.

            """ + ExitStatus.helpLine,
            version: BradOSVersion.current,
            subcommands: coreCommands.map(\.command),
            groupedSubcommands: [CommandGroup(name: "Domains", subcommands: Composition.current.plugins.map(\.command))])
    }

    /// The configuration the parser reads (``CommandRunner/parsedArguments``): no help text, no
    /// super-command name (the parser then skips its own `--generate-completion-script` check,
    /// answered before), and when the command line names a command, that command alone. The
    /// parser reads the configuration of every command it is given, and each first read of
    /// another module's command touches that module's pages and metadata (bench/RESULTS.md,
    /// start-up). A line naming no known command gets them all: its usage error, help and
    /// suggestion are made after the parse, from ``configuration``.
    static func parsingConfiguration(_ arguments: [String]) -> CommandConfiguration {
        let plugins = Composition.current.plugins
        let named = arguments.first.flatMap { word in
            coreCommands.first { $0.name == word }?.command ?? plugins.first { $0.name == word }?.command
        }
        var configuration = CommandConfiguration(
            commandName: "brados", version: BradOSVersion.current,
            subcommands: named.map { [$0] } ?? coreCommands.map(\.command) + plugins.map(\.command))
        configuration._superCommandName = ""
        return configuration
    }
}

extension Brados {
    /// The core's commands, by name, in the order help lists them: the one list of them, so the
    /// parser can be given the one a command line names without reading any configuration (a
    /// debug build checks each name against its command's configuration whenever it reads the
    /// command tree).
    static let coreCommands: [(name: String, command: any ParsableCommand.Type)] = [
        ("today", TodayCommand.self), ("search", SearchCommand.self), ("calendar", CalendarCommand.self), ("auth", AuthCommand.self),
        ("config", ConfigCommand.self), ("cache", CacheCommand.self), ("keys", KeysCommand.self), ("plugins", PluginsCommand.self),
        ("sync", SyncCommand.self), ("doctor", DoctorCommand.self), ("exit-codes", ExitCodesCommand.self),
        ("completion", CompletionCommand.self), ("version", VersionCommand.self),
    ]

    /// The names of the core's commands (and the parser's `help`), for telling them from an
    /// external `brados-NAME` without building every help text.
    static let coreCommandNames: Set<String> = Set(coreCommands.map(\.name) + ["help"])
}

/// Starts the reference server inside this process when no server is configured: once a
/// socket, however many environments ask (`sync --watch` builds a new one when its
/// configuration changes; a second server would take the first one's socket).
struct EmbeddedReferenceBackend: EmbeddedBackend {
    private static let started = Mutex<[String: Task<URL, any Error>]>([:])

    func start(dataDirectory: URL, socket: String, password: String) async throws -> URL {
        let task = Self.started.withLock { started in
            if let running = started[socket] { return running }
            let task = Task { try await ReferenceServer.startEmbedded(dataDirectory: dataDirectory, socket: socket, password: password) }
            started[socket] = task
            return task
        }
        do { return try await task.value } catch {
            Self.started.withLock { $0[socket] = nil }
            throw error
        }
    }
}

/// The `brados` process: an executable is its plugin list plus one call, `BradosMain.run(plugins:)`.
public enum BradosMain {
    /// Synchronous until a command has to run: `brados --help` and `--version` are answered
    /// before anything else, and other help, usage errors and sync commands before the signal
    /// watcher exists; a command then runs on this thread (bench/startup.py).
    public static func run(plugins: [any DomainPlugin], features: [any Feature] = Registry.features) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        DetachedProcess.yieldIfBackground()
        StandardIO.holdClosedStreams()
        Paths.settleProcessHome()
        let io = StandardIO()
        // The one composition root: every help text, completion and environment below reads
        // this composition (bound as a task-local, never a global). The built-in names come
        // from the command tree, whose help reads the plugins, so they are computed when asked.
        let builtInNames: @Sendable () -> Set<String> = {
            // (`subcommands` lists the grouped domain commands too.)
            assert(Brados.coreCommands.allSatisfy { $0.command._commandName == $0.name }, "Brados.coreCommands must name each command as its configuration does")
            assert(plugins.allSatisfy { $0.command._commandName == $0.name }, "a plugin's name must be its command's name")
            return Set((Brados.configuration.subcommands + plugins.map(\.command)).map { $0._commandName } + ["help"])
        }
        // Help texts that ask the plugins what they adopt are made only when help may be shown.
        let helpWords: Set<String> = ["-h", "--help", "-help", "--help-hidden", "help", "--experimental-dump-help"]
        let composition = Composition(plugins: plugins, features: features, embedded: EmbeddedReferenceBackend(), builtInCommands: builtInNames,
                                      mayShowHelp: arguments.contains(where: helpWords.contains))
        composition.bind { () -> Never in
            // A domain's name is built in at once; any other word costs reading every command's
            // configuration (their help texts), so only such a word pays for it.
            // The core's own names are known without reading any configuration too (a name
            // missing from this list is only slower: it is found in the command tree).
            let isBuiltIn: (String) -> Bool = { name in
                plugins.contains { $0.name == name } || Brados.coreCommandNames.contains(name) || builtInNames().contains(name)
            }
            if let answer = CommandRunner.quickAnswer(Brados.self, arguments: arguments) {
                io.write(answer + "\n")
                end(ExitStatus.success, io: io)
            }
            if let plugin = ExternalPluginLauncher.match(arguments, isBuiltIn: isBuiltIn) {
                exit(ExternalPluginLauncher.run(plugin, plugins: plugins))
            }
            switch CommandRunner.parse(Brados.self, arguments: arguments, io: io) {
            case .exit(let code):
                end(code, io: io)
            case .command(let parsed) where CommandRunner.asynchronous(parsed) == nil:
                end(CommandRunner.executeSynchronously(parsed, root: Brados.self, io: io), io: io)
            case .command(let parsed):
                // The signal watcher comes first: a signal that arrives as the command starts
                // cancels it like any other, rather than killing the process halfway through its
                // first write. The command then runs on this thread (MainThreadExecutor): a read of
                // the caches starts no thread but the watcher.
                let signals = Signals()
                SignalWatcher.start(signals)
                let loop = MainThreadExecutor()
                let outcome = Mutex<Int32?>(nil)
                let command = Task(executorPreference: loop) {
                    let code = await composition.bind { await CommandRunner.execute(parsed, root: Brados.self, io: io) }
                    outcome.withLock { $0 = code }
                    loop.wake()
                    return code
                }
                signals.attach(command)
                loop.run { outcome.withLock { $0 } != nil }
                end(signals.exitCode(for: outcome.withLock { $0 } ?? ExitStatus.success), io: io)
            }
        }
    }

    /// Exits with `code`; a command whose stdout reader went away ends by SIGPIPE instead, and
    /// one whose output could not be written with that failure (``CommandRunner/settle(_:io:)``).
    static func end(_ code: Int32, io: any TerminalIO) -> Never {
        if code == ExitStatus.readerGone { StandardIO.endForGoneReader() }
        exit(CommandRunner.settle(code, io: io))
    }
}

/// The terminating signals a command was sent, the first one deciding the exit code, and the
/// command they cancel.
final class Signals: Sendable {
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// A long-running command's own use of SIGHUP: while set, SIGHUP calls it instead of ending
    /// the command (`sync --watch` under a service manager reads its configuration again).
    static let hangupHandler = Mutex<(@Sendable () -> Void)?>(nil)
    private let state = Mutex<(count: Int, first: Int32?, command: Task<Int32, Never>?)>((0, nil, nil))

    /// Records a signal and cancels the command (once it is attached); returns how many
    /// signals came before this one.
    func record(_ number: Int32) -> Int {
        let (count, command) = state.withLock { state in
            defer { state.count += 1; state.first = state.first ?? number }
            return (state.count, state.command)
        }
        command?.cancel()
        return count
    }

    /// The first signal recorded, if any.
    var first: Int32? { state.withLock { $0.first } }

    /// The command the signals cancel; cancelled at once if a signal came before it started.
    func attach(_ command: Task<Int32, Never>) {
        let signalled = state.withLock { state in
            state.command = command
            return state.count > 0
        }
        if signalled { command.cancel() }
    }

    /// The command's exit code: an interrupted command (130) exits 128 + the signal that
    /// stopped it; any other result stands.
    func exitCode(for code: Int32) -> Int32 {
        guard code == ExitStatus.code(for: .interrupted), let first = state.withLock({ $0.first }) else { return code }
        return 128 + first
    }
}

/// `brados NAME …` for a NAME that is not built in: runs `brados-NAME` from PATH.
enum ExternalPluginLauncher {
    struct Match {
        var name: String
        var arguments: [String]
        var flags: GlobalFlags
    }

    /// The plugin a command line names, after any leading global options; `nil` for built-ins,
    /// options (`--help`), and names that cannot be plugins.
    static func match(_ arguments: [String], isBuiltIn: (String) -> Bool) -> Match? {
        var flags = GlobalFlags()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--offline": flags.offline = true
            case "--json": flags.json = true
            case "--verbose", "-v": flags.verbose = true
            case "--quiet", "-q": flags.quiet = true
            case "--profile", "--server":
                guard index + 1 < arguments.count else { return nil }
                if argument == "--profile" { flags.profile = arguments[index + 1] } else { flags.server = arguments[index + 1] }
                index += 1
            default:
                if argument.hasPrefix("--profile=") { flags.profile = String(argument.dropFirst(10)) }
                else if argument.hasPrefix("--server=") { flags.server = String(argument.dropFirst(9)) }
                else {
                    guard ExternalPlugins.isValidName(argument), !isBuiltIn(argument) else { return nil }
                    let rest = Array(arguments[(index + 1)...])
                    return Match(name: argument, arguments: rest, flags: globalFlags(after: rest, flags))
                }
            }
            index += 1
        }
        return nil
    }

    /// brados's global options after the plugin's name count as they would before it (`brados
    /// hello --offline` is `brados --offline hello`): they set the plugin's environment, and
    /// stay in its arguments too. The long forms only (a plugin's `-v` is its own), up to `--`.
    static func globalFlags(after arguments: [String], _ flags: GlobalFlags) -> GlobalFlags {
        var flags = flags
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            switch argument {
            case "--offline": flags.offline = true
            case "--json": flags.json = true
            case "--verbose": flags.verbose = true
            case "--quiet": flags.quiet = true
            case "--profile" where index + 1 < arguments.count:
                flags.profile = arguments[index + 1]
                index += 1
            case "--server" where index + 1 < arguments.count:
                flags.server = arguments[index + 1]
                index += 1
            default:
                if argument.hasPrefix("--profile=") { flags.profile = String(argument.dropFirst(10)) }
                if argument.hasPrefix("--server=") { flags.server = String(argument.dropFirst(9)) }
            }
            index += 1
        }
        return flags
    }

    /// Runs the plugin (replacing this process), or explains why not; returns an exit code.
    static func run(_ match: Match, plugins: [any DomainPlugin]) -> Int32 {
        let io = StandardIO()
        guard let executable = ExternalPlugins.find(match.name, path: io.environment["PATH"]) else {
            io.writeError("brados: '\(match.name)' is not a brados command, and no executable brados-\(match.name) is on PATH.\n")
            // The nearest command, built in or a plugin on PATH (`brados helo` → `brados hello`).
            let builtIns = Composition.current.builtInCommands.subtracting(["help"])
            let plugins = ExternalPlugins.all(path: io.environment["PATH"], builtIns: builtIns).filter { $0.executable && $0.shadowedBy == nil }.map(\.name)
            if let name = Suggestion.nearest(match.name, among: (Array(builtIns) + plugins).sorted()) {
                io.writeError("  Did you mean `brados \((([name] + match.arguments).joined(separator: " ")))`?\n")
            }
            io.writeError("  See `brados --help` for the commands, and `brados plugins list` for plugins.\n")
            return ExitStatus.code(for: .usage)
        }
        do {
            let env = try AppEnvironment(io: io, flags: match.flags, plugins: plugins, embedded: nil)
            var environment = ExternalPlugins.environment(base: io.environment, settings: env.settings, paths: env.paths, profile: env.profile)
            if match.flags.offline { environment["BRADOS_OFFLINE"] = "1" }
            if match.flags.verbose { environment["BRADOS_LOG"] = "debug" }
            if match.flags.json { environment["BRADOS_JSON"] = "1" }
            return ExternalPlugins.exec(executable, arguments: match.arguments, environment: environment)
        } catch {
            io.writeError("brados: \((error as? any BradOSError)?.description ?? "\(error)")\n")
            return ExitStatus.code(for: error)
        }
    }
}
