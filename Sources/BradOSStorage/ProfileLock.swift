import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import BradOSTerminal
#endif

/// The one lock on a profile, held for a whole command (`flock(2)` on
/// `<data root>/locks/<profile>.lock`).
///
/// Commands that read or write a profile hold it shared, so any number run side by side.
/// `cache import`, `cache clear` and `auth logout` hold it exclusively: they wait for every
/// other command on the profile to finish, and every other command waits for them, so an
/// import never swaps folders under a running command, two imports never interleave, and a
/// sign-out never races a background refresh that would write the cache back.
///
/// - Waiting never blocks a thread: the lock is tried without blocking and the wait sleeps
///   on the injected clock, up to a limit (`profile.lock-timeout`); then
///   ``StorageError/profileBusy(profile:holder:)`` (exit 11) names the other brados.
/// - An exclusive holder writes `<pid> <activity>` into the file, so a waiter can say
///   "waiting for another brados (pid N) to finish importing…". Shared holders are found in
///   `/proc/locks`.
/// - The file is outside the folders a sign-out erases. It is deleted only by an exclusive
///   holder, for a profile that does not exist (``discard(profile:paths:)``: a refused import
///   `--as` a new name); a process that was waiting on the deleted file's lock sees, once it
///   has it, that the path no longer names that file and takes the lock of the path again, so
///   two holders never hold two different files.
/// - The kernel releases the lock when the process ends, however it ends.
/// - A background refresh (``DetachedProcess``) never holds up a command that needs the
///   profile to itself: such a command stops it (SIGTERM: it ends as Ctrl-C ends a command)
///   instead of waiting for a slow or stopped server to answer it.
///
/// Safe because `url` and `access` never change and the one mutable field, `descriptor`, is written only by
/// ``release()`` (in `deinit`, and in ``hold(_:profile:paths:timeout:clock:io:)`` on the lock it finds in the
/// `held` Mutex); no lock guards `descriptor` itself, so one lock must not be released from two tasks at once.
public final class ProfileLock: @unchecked Sendable {
    /// How a command holds the profile.
    public enum Access: Sendable, Equatable {
        /// Reads and writes that run side by side with each other.
        case shared
        /// Alone on the profile; the activity is said to waiters ("importing").
        case exclusive(activity: String)
    }

    /// Who holds the profile, as far as can be told.
    public struct Holder: Sendable, Equatable {
        /// The holders' process ids (empty when unknown).
        public var pids: [Int32]
        /// What an exclusive holder is doing ("importing"), when it said so.
        public var activity: String?
        /// Each brados holder's command line (`brados sync --watch`) and the systemd unit it
        /// runs in, when it runs in one, by pid (read from `/proc`).
        public var commands: [Int32: (command: String, unit: String?)]

        public init(pids: [Int32], activity: String?, commands: [Int32: (command: String, unit: String?)] = [:]) {
            self.pids = pids
            self.activity = activity
            self.commands = commands
        }

        public static func == (lhs: Holder, rhs: Holder) -> Bool {
            lhs.pids == rhs.pids && lhs.activity == rhs.activity
                && lhs.commands.mapValues { "\($0.command)|\($0.unit ?? "")" } == rhs.commands.mapValues { "\($0.command)|\($0.unit ?? "")" }
        }

        /// "brados sync --watch (pid 8730, the user unit brados-watch.service)", "another brados
        /// (pid 4242)", "2 other brados commands (pids 1, 2)".
        public var description: String {
            switch pids.count {
            case 0: return "another brados"
            case 1:
                guard let known = commands[pids[0]] else { return "another brados (pid \(pids[0]))" }
                return "\(known.command) (pid \(pids[0])\(known.unit.map { ", the user unit \($0)" } ?? ""))"
            default:
                guard !commands.isEmpty else { return "\(pids.count) other brados commands (pids \(pids.map(String.init).joined(separator: ", ")))" }
                let named = pids.map { pid in commands[pid].map { "\($0.command) (pid \(pid))" } ?? "pid \(pid)" }
                return "\(pids.count) other brados commands (\(named.joined(separator: ", ")))"
            }
        }

        /// The user unit of a holder that is a long-running `sync --watch`, when one is.
        public var watchUnit: String? { commands.values.first { $0.command.contains("sync --watch") }?.unit }

        /// Whether a holder is a `sync --watch` (it ends only when stopped).
        public var isWatch: Bool { commands.values.contains { $0.command.contains("sync --watch") } }

        /// The line shown on a terminal while waiting.
        public var waitingMessage: String {
            "waiting for \(description) to finish\(activity.map { " \($0)" } ?? "")…"
        }
    }

    /// The lock file of a profile.
    public static func url(for profile: ProfileName, paths: Paths) -> URL {
        paths.dataRoot.appendingPathComponent("locks", isDirectory: true).appendingPathComponent("\(profile.rawValue).lock")
    }

    public let url: URL
    public let access: Access
    private var descriptor: Int32

    private init(url: URL, access: Access, descriptor: Int32) {
        self.url = url
        self.access = access
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Releases the lock (an exclusive holder first clears what it wrote). Idempotent.
    public func release() {
        guard descriptor >= 0 else { return }
        if case .exclusive = access { _ = ftruncate(descriptor, 0) }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    /// Takes the profile's lock, waiting (without blocking a thread) for other holders.
    /// - Parameters:
    ///   - timeout: how long to wait before giving up.
    ///   - poll: how often the lock is tried while waiting.
    ///   - clock: what the wait sleeps on (tests inject a manual clock).
    ///   - io: a terminal shows the waiting message on stderr (a spinner); nothing else does.
    /// - Throws: ``StorageError/profileBusy(profile:holder:)`` after `timeout`;
    ///   ``StorageError/io(operation:path:errno:)``; `CancellationError` when interrupted.
    public static func acquire(
        _ access: Access, profile: ProfileName, paths: Paths, timeout: Duration,
        poll: Duration = .milliseconds(25), clock: any Clock<Duration> = ContinuousClock(), io: (any TerminalIO)? = nil
    ) async throws -> ProfileLock {
        let url = url(for: profile, paths: paths)
        // Measured on the clock, not counted in polls: the work between polls (reading
        // /proc/locks) is waiting too, and a wait never runs past the timeout it was given.
        let waited = stopwatch(clock)
        var spinner: Spinner?
        defer { spinner?.stop() }
        while true {
            let descriptor = try open(url)
            var owned = true
            defer { if owned { close(descriptor) } }
            try await wait(access, descriptor: descriptor, url: url, profile: profile, timeout: timeout, poll: poll,
                           clock: clock, io: io, waited: waited, spinner: &spinner)
            // The lock of a file an exclusive holder deleted meanwhile (discard) guards nothing.
            guard names(url, descriptor) else { continue }
            if case let .exclusive(activity) = access {
                let text = "\(getpid()) \(activity)\n"
                _ = ftruncate(descriptor, 0)
                _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
            }
            owned = false
            return ProfileLock(url: url, access: access, descriptor: descriptor)
        }
    }

    /// Opens (creating) the lock file.
    private static func open(_ url: URL) throws -> Int32 {
        try FileSystem.createDirectory(url.deletingLastPathComponent())
        let descriptor = Glibc.open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw StorageError.io(operation: "open the profile lock", path: url.path, errno: errno) }
        return descriptor
    }

    /// Whether the path still names the open file (an exclusive holder may have deleted it).
    private static func names(_ url: URL, _ descriptor: Int32) -> Bool {
        var open = stat(), named = stat()
        return fstat(descriptor, &open) == 0 && stat(url.path, &named) == 0 && open.st_ino == named.st_ino && open.st_dev == named.st_dev
    }

    /// A function returning the time elapsed on `clock` since this call.
    static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Waits for the flock on `descriptor`, up to `timeout` in all (`waited` runs over a retry).
    private static func wait(
        _ access: Access, descriptor: Int32, url: URL, profile: ProfileName, timeout: Duration, poll: Duration,
        clock: any Clock<Duration>, io: (any TerminalIO)?, waited: @Sendable () -> Duration, spinner: inout Spinner?
    ) async throws {
        let operation = access == .shared ? LOCK_SH : LOCK_EX
        var stopped: Set<Int32> = []
        while flock(descriptor, operation | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                throw StorageError.io(operation: "lock", path: url.path, errno: code)
            }
            if code == EINTR { continue }
            if case .exclusive = access { stopBackgroundHolders(descriptor: descriptor, stopped: &stopped) }
            let left = timeout - waited()
            guard left > .zero else {
                throw StorageError.profileBusy(profile: profile.rawValue, holder: holder(descriptor: descriptor, access: access),
                                               exclusive: access != .shared)
            }
            if spinner == nil, let io, io.drawsProgress {
                spinner = Spinner(io: io, message: holder(descriptor: descriptor, access: access).waitingMessage)
            }
            try await clock.sleep(for: min(poll, left))
        }
    }

    /// Deletes the lock file of a profile that does not exist, while this process holds it
    /// exclusively, then releases it: a refused import `--as` a new name leaves nothing.
    /// Does nothing unless this process holds the profile exclusively.
    public static func discard(profile: ProfileName, paths: Paths) {
        let key = url(for: profile, paths: paths).path
        held.withLock { locks in
            guard let lock = locks[key], case .exclusive = lock.access, lock.descriptor >= 0, names(lock.url, lock.descriptor) else { return }
            unlink(key)
            lock.release()
            locks[key] = nil
        }
    }

    /// The locks this process holds, by lock file.
    private static let held = Mutex<[String: ProfileLock]>([:])

    /// Takes the profile's lock for the rest of the process (the kernel releases it at exit).
    /// A second call for a profile this process already holds keeps the lock it has, upgrading
    /// a shared one to exclusive when asked (never the reverse).
    /// - Throws: as ``acquire(_:profile:paths:timeout:poll:clock:io:)``.
    public static func hold(_ access: Access, profile: ProfileName, paths: Paths, timeout: Duration,
                            clock: any Clock<Duration> = ContinuousClock(), io: (any TerminalIO)? = nil) async throws {
        let key = url(for: profile, paths: paths).path
        if let current = held.withLock({ $0[key] }) {
            guard case .exclusive = access, current.access == .shared else { return }
            current.release()
            held.withLock { $0[key] = nil }
        }
        let lock = try await acquire(access, profile: profile, paths: paths, timeout: timeout, clock: clock, io: io)
        held.withLock { $0[key] = lock }
    }

    /// Who holds the lock this process is waiting for: an exclusive holder's own words, or
    /// the holders `/proc/locks` lists for the file.
    static func holder(descriptor: Int32, access: Access) -> Holder {
        var info = stat()
        let pids = fstat(descriptor, &info) == 0 ? lockingProcesses(inode: UInt64(info.st_ino)) : []
        let commands = Dictionary(uniqueKeysWithValues: pids.compactMap { pid in command(of: pid).map { (pid, ($0, unit(of: pid))) } })
        // An exclusive holder wrote "<pid> <activity>"; while shared holders hold it, the file is empty.
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        let text = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
        let words = text.split(separator: "\n").first.map { $0.split(separator: " ", maxSplits: 1) } ?? []
        if words.count == 2, let pid = Int32(words[0]), pids.isEmpty || pids.contains(pid) {
            return Holder(pids: [pid], activity: SafeText.visible(String(words[1])), commands: commands.filter { $0.key == pid })
        }
        return Holder(pids: pids, activity: nil, commands: commands)
    }

    /// A brados process's command line as a person typed it (`brados sync --watch`), from
    /// `/proc/PID/cmdline`; `nil` for any other program (or one that cannot be read).
    static func command(of pid: Int32, proc: String = "/proc") -> String? {
        guard let data = FileManager.default.contents(atPath: "\(proc)/\(pid)/cmdline") else { return nil }
        let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard let program = words.first, (program as NSString).lastPathComponent == "brados" else { return nil }
        let shown = (["brados"] + words.dropFirst().prefix(6)).joined(separator: " ")
        return SafeText.visible(shown.count > 80 ? String(shown.prefix(79)) + "…" : shown)
    }

    /// The systemd unit a process runs in (`brados-watch.service`), from `/proc/PID/cgroup`;
    /// `nil` outside one (a terminal's shell, a session scope).
    static func unit(of pid: Int32, proc: String = "/proc") -> String? {
        guard let text = try? String(contentsOfFile: "\(proc)/\(pid)/cgroup", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            guard let path = line.split(separator: ":", maxSplits: 2).last else { continue }
            let unit = path.split(separator: "/").last.map(String.init) ?? ""
            if unit.hasSuffix(".service"), !unit.hasPrefix("user@") { return SafeText.visible(unit) }
        }
        return nil
    }

    /// Stops the background refreshes that hold the lock (each once): they would hold an
    /// import, a clear or a sign-out for as long as their server takes to answer.
    static func stopBackgroundHolders(descriptor: Int32, stopped: inout Set<Int32>) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        for pid in lockingProcesses(inode: UInt64(info.st_ino)) where !stopped.contains(pid) && DetachedProcess.isBackground(pid) {
            kill(pid, SIGTERM)
            stopped.insert(pid)
        }
    }

    /// The processes `/proc/locks` says hold an flock on the file with this inode (Linux).
    static func lockingProcesses(inode: UInt64, table: String? = nil) -> [Int32] {
        guard let table = table ?? (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) else { return [] }
        var pids: [Int32] = []
        for line in table.split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 4242 08:01:131090 0 EOF"; waiters are marked "->".
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", !fields.contains("->") else { continue }
            let device = fields[5].split(separator: ":")
            guard device.count == 3, UInt64(device[2]) == inode, let pid = Int32(fields[4]), pid != getpid(), pid > 0 else { continue }
            if !pids.contains(pid) { pids.append(pid) }
        }
        return pids.sorted()
    }
}
