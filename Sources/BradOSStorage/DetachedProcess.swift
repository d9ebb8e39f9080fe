import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts `brados` again as a detached background process, the way git runs its automatic
/// maintenance: a new session (no terminal, survives the parent), stdin/stdout/stderr on
/// `/dev/null`, never waited for. It carries `BRADOS_BACKGROUND=1`, by which a command that
/// needs the profile to itself (``ProfileLock``) tells it from a command a person runs.
public enum DetachedProcess {
    /// The environment variable (set to `1`) every detached brados carries.
    public static let marker = "BRADOS_BACKGROUND"

    /// A detached brados runs at a lower CPU priority (nice 10): the command a person waits
    /// for, and the next one, come first on a machine with few cores.
    /// (`environment`: the process's own when `nil`, read with getenv.)
    public static func yieldIfBackground(environment: [String: String]? = nil) {
        guard (environment.map { $0[marker] } ?? getenv(marker).map { String(cString: $0) }) == "1" else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    }

    /// The path of the running executable.
    public static var currentExecutable: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }

    /// Spawns `executable arguments…` detached, with the current environment.
    /// - Throws: ``StorageError/io(operation:path:errno:)`` when the process cannot be started.
    public static func spawn(_ executable: String = currentExecutable, arguments: [String]) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A new session (POSIX_SPAWN_SETSID, 0x80 in glibc), detached from our terminal, with a
        // clean signal mask and default dispositions whatever our parent handed us.
        posix_spawnattr_setflags(&attributes, Int16(0x80 | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // No other descriptor may reach the child: a copy of our stdout pipe kept open by it
        // would make `$(brados visits --json)` wait for the background work.
        markDescriptorsCloseOnExec(above: 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = ProcessInfo.processInfo.environment
        environment[marker] = "1"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw StorageError.io(operation: "start", path: executable, errno: status) }
    }

    /// Whether process `pid` is a detached brados (its environment carries ``marker``); false
    /// for any other, and for one that cannot be read (another user's).
    public static func isBackground(_ pid: Int32) -> Bool {
        guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
        return environ.split(separator: 0).contains { $0.elementsEqual("\(marker)=1".utf8) }
    }

    /// Sets close-on-exec on every open descriptor above `lowest` (the ones a parent leaked to us).
    static func markDescriptorsCloseOnExec(above lowest: Int32) {
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > lowest, fd != own else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
