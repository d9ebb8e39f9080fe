import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Long output on a terminal goes through a pager, as git and gh page theirs: `BRADOS_PAGER`,
/// then `PAGER`, then `less -FRX` (`-F`: output that fits the screen is printed and less
/// quits; `-R`: colours pass; `-X`: the screen is not cleared). Never into a pipe or a file,
/// never with `--no-pager`, and an empty pager or `cat` turns it off.
///
/// A command that may print more than a screen asks for it (``AppEnvironment/pageOutput()``);
/// the pager starts at the first byte written to stdout, so progress and notices on stderr
/// come first, on the terminal. Standard output then stays "a terminal" for the command
/// (colours, widths, pictures), and the process waits for the pager before it exits.
public enum Pager {
    struct State {
        var armed = false
        var command: String?
        var pid: pid_t = 0
        /// The terminal stdout was, kept while the pager holds stdout.
        var terminal: Int32 = -1
    }

    static let state = Mutex(State())
    /// Read on every write: whether a pager waits for the first byte, or holds stdout.
    static let active = Atomic<Bool>(false)

    /// The pager to run for `environment`: `BRADOS_PAGER`, then `PAGER`, then `less -FRX`;
    /// `nil` when the one chosen is empty or `cat`.
    public static func command(environment: [String: String]) -> String? {
        let chosen = (environment["BRADOS_PAGER"] ?? environment["PAGER"] ?? "less -FRX").trimmingCharacters(in: .whitespaces)
        return chosen.isEmpty || chosen == "cat" ? nil : chosen
    }

    /// Sends the rest of this process's stdout through the pager from its first byte, when
    /// stdout is a terminal and a pager is chosen.
    /// - Returns: whether stdout goes (or will go) through the pager.
    @discardableResult
    static func arm(environment: [String: String]) -> Bool {
        guard isatty(STDOUT_FILENO) == 1, let command = command(environment: environment) else { return isPaging }
        state.withLock { state in
            guard state.pid == 0 else { return }
            state.armed = true
            state.command = command
        }
        active.store(true, ordering: .releasing)
        return true
    }

    /// Before a write to stdout: starts the pager if one was asked for and is not running yet.
    static func beforeWrite() {
        guard active.load(ordering: .acquiring) else { return }
        state.withLock { state in
            guard state.armed, let command = state.command else { return }
            state.armed = false
            start(command, &state)
        }
    }

    /// The terminal stdout was, while the pager holds it.
    static var terminal: Int32? {
        guard active.load(ordering: .acquiring) else { return nil }
        return state.withLock { $0.terminal >= 0 ? $0.terminal : nil }
    }

    /// Whether stdout is (or is about to be) the pager's, in front of the user's terminal.
    static var isPaging: Bool { active.load(ordering: .acquiring) }

    private static func start(_ command: String, _ state: inout State) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return active.store(false, ordering: .releasing) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let terminal = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, terminal, STDOUT_FILENO)
        var environment = ProcessInfo.processInfo.environment
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        if environment["LV"] == nil { environment["LV"] = "-c" }
        let arguments = ["/bin/sh", "-c", command]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        close(fds[0])
        guard spawned == 0 else {
            close(fds[1])
            close(terminal)
            return active.store(false, ordering: .releasing)
        }
        dup2(fds[1], STDOUT_FILENO)
        close(fds[1])
        state.pid = pid
        state.terminal = terminal
        atexit { Pager.finish() }
    }

    /// Ends the pager's input and waits for the user to leave it (at exit).
    static func finish() {
        let pid = state.withLock { state -> pid_t in
            let pid = state.pid
            state.pid = 0
            return pid
        }
        guard pid > 0 else { return }
        close(STDOUT_FILENO)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
