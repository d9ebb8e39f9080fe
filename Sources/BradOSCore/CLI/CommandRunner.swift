import ArgumentParser
import Foundation

/// Runs a root command the way `brados` does: parse, run, and map every failure to a
/// message on stderr and an exit code from ``ExitStatus``. Never calls `exit` itself.
public enum CommandRunner {
    /// Parses `arguments` against `root` and runs the chosen command.
    /// - Returns: the process exit code.
    public static func run(_ root: any ParsableCommand.Type, arguments: [String], io: any TerminalIO) async -> Int32 {
        let command: any ParsableCommand
        do {
            command = try root.parseAsRoot(GlobalOptions.hoistLeadingGlobals(arguments))
        } catch {
            return report(parserError: error, root: root, io: io)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
            return ExitStatus.success
        } catch let error as any BradOSError {
            report(error, io: io)
            return ExitStatus.code(for: error)
        } catch is CancellationError {
            io.writeError("brados: interrupted\n")
            return ExitStatus.code(for: .interrupted)
        } catch {
            return report(parserError: error, root: root, io: io)
        }
    }

    /// Prints a brados error: what happened, then what to do next.
    public static func report(_ error: any BradOSError, io: any TerminalIO) {
        var text = "brados: \(error.summary)\n"
        if let recovery = error.recovery { text += "  \(recovery)\n" }
        io.writeError(text)
    }

    private static func report(parserError error: any Error, root: any ParsableCommand.Type, io: any TerminalIO) -> Int32 {
        let code = root.exitCode(for: error).rawValue
        let message = root.fullMessage(for: error)
        if code == 0 {
            if !message.isEmpty { io.write(message + "\n") }
        } else if !message.isEmpty {
            io.writeError(message + "\n")
        }
        return code
    }
}
