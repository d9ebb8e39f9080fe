import ArgumentParser
import BradOSCore
import BradOSErrors
import BradOSTerminal
import Foundation

/// Runs a root command the way `brados` does: parse, run, and map every failure to a
/// message on stderr and an exit code from ``ExitStatus``. Never calls `exit` itself.
public enum CommandRunner {
    /// What parsing a command line gives: a command to run, or an exit code because it was
    /// already answered (`--help`, `--version`) or rejected (a usage error, on stderr).
    public enum Parsed {
        case command(any ParsableCommand)
        case exit(Int32)
    }

    /// Parses `arguments` against `root` and runs the chosen command.
    /// - Returns: the process exit code.
    public static func run(_ root: any ParsableCommand.Type, arguments: [String], io: any TerminalIO) async -> Int32 {
        switch parse(root, arguments: arguments, io: io) {
        case .exit(let code): return code
        case .command(let command): return await execute(command, root: root, io: io)
        }
    }

    /// The answer to `brados --version` and `brados --help` (`-h`, `help`) exactly, without
    /// parsing: the same text ArgumentParser prints, minus the reflection its parser does
    /// first. Every type's first protocol-conformance check scans all 11,000 conformance
    /// records in the binary, and a full parse of `--help` makes about 30 of them
    /// (bench/startup.py). `nil` for anything else.
    public static func quickAnswer(_ root: any ParsableCommand.Type, arguments: [String]) -> String? {
        // Every form of the completion request is answered here, so ArgumentParser's own
        // (unhardened) bash script is never printed: no shell given means the one in $SHELL.
        // ArgumentParser finds the flag anywhere before `--`, so it is looked for everywhere here.
        let options = arguments.prefix { $0 != "--" }
        if let position = options.firstIndex(where: { $0 == "--generate-completion-script" || $0.hasPrefix("--generate-completion-script=") }) {
            let flag = arguments[position]
            let following = position + 1 < options.endIndex ? arguments[position + 1] : nil
            let named = flag.hasPrefix("--generate-completion-script=") ? String(flag.dropFirst(29))
                : following.flatMap { $0.hasPrefix("-") ? nil : $0 }
            guard let shell = named ?? CompletionShell.autodetected()?.rawValue else {
                return "# brados: usage: brados --generate-completion-script bash|zsh|fish"
            }
            return CompletionScript.generate(root, shell: shell) ?? "# brados: no completion script for '\(SafeText.visible(shell))' (bash, zsh or fish)"
        }
        guard arguments.count == 1 else { return nil }
        switch arguments[0] {
        case "--version":
            let version = root.configuration.version
            return version.isEmpty ? nil : version
        case "--help", "-h", "help":
            return root.helpMessage()
        default:
            return nil
        }
    }

    /// The command line (its leading global options moved after the command) while
    /// ``parse(_:arguments:io:)`` runs swift-argument-parser, `nil` otherwise. A command's
    /// configuration read then is the parser's: it can leave out help texts and the commands
    /// the line does not name (``Brados/parsingConfiguration(_:)``). Help and usage texts are
    /// made after the parse, when it is `nil` again.
    @TaskLocal public static var parsedArguments: [String]?

    /// Parses `arguments` against `root`, synchronously. `--help`, `--version` and usage
    /// errors are answered here, so `brados` never starts its async runtime for them.
    public static func parse(_ root: any ParsableCommand.Type, arguments: [String], io: any TerminalIO) -> Parsed {
        do {
            let line = GlobalOptions.hoistLeadingGlobals(arguments)
            return .command(try $parsedArguments.withValue(line) { try root.parseAsRoot(line) })
        } catch {
            let code = report(parserError: error, root: root, io: io)
            if code == ExitStatus.code(for: .usage), let suggestion = Suggestion.subcommand(in: arguments, root: root) {
                io.writeError("  Did you mean `\(suggestion)`?\n")
            }
            return .exit(code)
        }
    }

    /// Runs a parsed command.
    /// - Returns: the process exit code.
    public static func execute(_ command: any ParsableCommand, root: any ParsableCommand.Type, io: any TerminalIO) async -> Int32 {
        guard var asyncCommand = asynchronous(command) else {
            return executeSynchronously(command, root: root, io: io)
        }
        do {
            try await asyncCommand.run()
            return ExitStatus.success
        } catch {
            return report(failure: error, root: root, io: io)
        }
    }

    /// The command as an async one, if it is: cast from its own type, not from the existential
    /// (the runtime scans every conformance record of the binary once for each type it casts,
    /// the existential's counting as one more: bench/RESULTS.md, start-up).
    public static func asynchronous(_ command: any ParsableCommand) -> (any AsyncParsableCommand)? {
        func cast<Command: ParsableCommand>(_ command: Command) -> (any AsyncParsableCommand)? { command as? any AsyncParsableCommand }
        return cast(command)
    }

    /// Runs a parsed command that is not async (`help`, for one) on the calling thread.
    /// - Returns: the process exit code.
    public static func executeSynchronously(_ command: any ParsableCommand, root: any ParsableCommand.Type, io: any TerminalIO) -> Int32 {
        var command = command
        do {
            try command.run()
            return ExitStatus.success
        } catch {
            return report(failure: error, root: root, io: io)
        }
    }

    private static func report(failure error: any Error, root: any ParsableCommand.Type, io: any TerminalIO) -> Int32 {
        switch error {
        case let error as any BradOSError:
            report(error, io: io)
            return ExitStatus.code(for: error)
        case is ReaderGone:
            return ExitStatus.readerGone
        case is CancellationError:
            io.writeError("brados: interrupted\n")
            return ExitStatus.code(for: .interrupted)
        default:
            return report(parserError: error, root: root, io: io)
        }
    }

    /// The exit code of a process that ends with `code`, once its writes are counted: a
    /// command that succeeded but whose output could not be written (a full disk, an I/O
    /// error) ends with that failure, said on stderr when stderr still takes it. A failed
    /// command keeps its own code.
    public static func settle(_ code: Int32, io: any TerminalIO) -> Int32 {
        guard code == ExitStatus.success, let failure = io.writeFailure else { return code }
        if case .writeFailed(.output, _) = failure { report(failure, io: io) }
        return ExitStatus.code(for: failure)
    }

    /// Prints a brados error: what happened, then what to do next.
    public static func report(_ error: any BradOSError, io: any TerminalIO) {
        var text = "brados: \(SafeText.visible(error.summary, keepLines: true))\n"
        if let recovery = error.recovery { text += "  \(SafeText.visible(recovery, keepLines: true))\n" }
        io.writeError(text)
    }

    private static func report(parserError error: any Error, root: any ParsableCommand.Type, io: any TerminalIO) -> Int32 {
        let code = root.exitCode(for: error).rawValue
        let message = root.fullMessage(for: error)
        if code == 0 {
            if !message.isEmpty { io.write(message + "\n") }
        } else if !message.isEmpty {
            io.writeError(usageMessage(message) + "\n")
        }
        return code
    }

    /// ArgumentParser's message for a usage error with brados's one prefix: `brados: …`, as
    /// every other error begins (it writes `Error: …`).
    static func usageMessage(_ message: String) -> String {
        message.hasPrefix("Error: ") ? "brados: " + message.dropFirst(7) : message
    }
}
