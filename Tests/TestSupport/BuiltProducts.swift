import Foundation

/// Runs the package's built executables (`brados`, `brados-server`) as real processes.
public enum BuiltProducts {
    /// The build folder holding the test bundle and the executables; `BRADOS_TEST_PRODUCTS`
    /// names another (today's tests against an earlier build's binaries: does a test fail there?).
    public static var directory: URL {
        if let other = ProcessInfo.processInfo.environment["BRADOS_TEST_PRODUCTS"], !other.isEmpty { return URL(fileURLWithPath: other) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        // The test runner may live inside a .xctest bundle folder.
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("brados").path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        return folder
    }

    public static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// The result of one run.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs a built executable to completion.
    /// - Parameters:
    ///   - environment: the whole environment (nothing is inherited but PATH), with the
    ///     library's background prefetch off unless it says otherwise (``quiet(_:)``).
    ///   - timeout: the run is killed after this long (it then fails with status 137).
    public static func run(_ name: String, _ arguments: [String], environment: [String: String], stdin: String? = nil,
                           timeout: TimeInterval = 60) throws -> Result {
        try run(executable: url(name), arguments, environment: quiet(environment), stdin: stdin, timeout: timeout)
    }

    /// `environment` with `library.prefetch` off unless it sets it: a prefetch brados starts by
    /// itself after a library load is a detached process that would write into the test's
    /// home and count in its server's statistics while the test reads them. The tests of the
    /// background prefetch turn it on (`BRADOS_LIBRARY_PREFETCH=true`).
    ///
    /// Secrets go to files (`credentials.store = file`) unless it says otherwise: with no session
    /// bus, `auto` would say on each sign-in that it fell back to one. The keyring's own tests
    /// set the store and give a bus of their own (``KeyringSession``).
    public static func quiet(_ environment: [String: String]) -> [String: String] {
        var environment = environment
        if environment["BRADOS_LIBRARY_PREFETCH"] == nil { environment["BRADOS_LIBRARY_PREFETCH"] = "false" }
        if environment["BRADOS_CREDENTIALS_STORE"] == nil { environment["BRADOS_CREDENTIALS_STORE"] = "file" }
        return environment
    }

    /// Runs any program (a peer such as `tar`) the same way.
    public static func run(executable: URL, _ arguments: [String], environment: [String: String], stdin: String? = nil,
                           timeout: TimeInterval = 60) throws -> Result {
        try Running(executable, arguments, environment: environment, stdin: stdin).finish(timeout: timeout)
    }

    /// Whether a process started with `BRADOS_HOME=home` still runs (a detached revalidation
    /// or prefetch): read from each process's environment, so a test waits for exactly its own.
    public static func isRunning(home: URL) -> Bool {
        let mine = "BRADOS_HOME=\(home.path)"
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(pid) != nil {
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { continue }
            if environ.split(separator: 0).contains(where: { String(decoding: $0, as: UTF8.self) == mine }) { return true }
        }
        return false
    }

    /// A built executable started in the background, to be signalled while it runs.
    public final class Running: @unchecked Sendable {
        let process: Process
        let out = Pipe(), err = Pipe()
        // Read as the process writes, so a full pipe never blocks it; what came so far can be looked at.
        private let stdoutData = Locked(Data()), stderrData = Locked(Data())
        private let readers = DispatchGroup()

        /// `stdin` is written, then closed (closed at once when nil).
        init(_ executable: URL, _ arguments: [String], environment: [String: String], stdin: String? = nil) throws {
            process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = environment.merging(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]) { a, _ in a }
            process.standardOutput = out
            process.standardError = err
            let input = Pipe()
            process.standardInput = input
            try process.run()
            for (pipe, buffer) in [(out, stdoutData), (err, stderrData)] {
                DispatchQueue.global().async(group: readers) {
                    while true {
                        let chunk = pipe.fileHandleForReading.availableData
                        if chunk.isEmpty { return }
                        buffer.withLock { $0.append(chunk) }
                    }
                }
            }
            if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
            try input.fileHandleForWriting.close()
        }

        /// Sends `signal` to the process.
        public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

        /// The process id.
        public var pid: Int32 { process.processIdentifier }

        /// Whether it is still running.
        public var isRunning: Bool { process.isRunning }

        /// What it wrote to stdout and stderr so far.
        public var stdoutSoFar: String { String(decoding: stdoutData.withLock { $0 }, as: UTF8.self) }
        public var stderrSoFar: String { String(decoding: stderrData.withLock { $0 }, as: UTF8.self) }

        /// Waits for the process (killing it after `timeout`) and returns what it did.
        public func finish(timeout: TimeInterval = 30) -> Result {
            OwnThread.mayBlock("waiting on `\(([process.executableURL?.lastPathComponent ?? "?"] + (process.arguments ?? [])).joined(separator: " "))`")
            let killer = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
            process.waitUntilExit()
            killer.cancel()
            readers.wait()
            return Result(status: process.terminationStatus, stdout: stdoutSoFar, stderr: stderrSoFar)
        }
    }

    /// Starts a built executable without waiting for it.
    public static func start(_ name: String, _ arguments: [String], environment: [String: String]) throws -> Running {
        try Running(url(name), arguments, environment: quiet(environment))
    }
}
