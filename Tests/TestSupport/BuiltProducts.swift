import Foundation

/// Runs the package's built executables (`brados`, `brados-server`) as real processes.
public enum BuiltProducts {
    /// The build folder holding the test bundle and the executables.
    public static var directory: URL {
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
    ///   - environment: the whole environment (nothing is inherited but PATH).
    ///   - timeout: the run is killed after this long (it then fails with status 137).
    public static func run(_ name: String, _ arguments: [String], environment: [String: String], stdin: String? = nil,
                           timeout: TimeInterval = 60) throws -> Result {
        let process = Process()
        process.executableURL = url(name)
        process.arguments = arguments
        process.environment = environment.merging(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]) { a, _ in a }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrData, as: UTF8.self))
    }
}
