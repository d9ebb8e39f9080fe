import Foundation

/// Runs a command in `Tests/TestSupport/fake-terminal.py`: a pseudo-terminal that answers
/// terminal queries like the named terminal; what reached it is the result's stdout.
public enum FakeTerminal {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("fake-terminal.py")

    /// - Parameters:
    ///   - options: the script's own (`--answers kitty`, `--size 40x120`, `--stderr`…); `silent` answers by default.
    ///   - environment: the whole environment (as ``BuiltProducts/run(_:_:environment:stdin:timeout:)``).
    public static func run(_ command: [String], options: [String] = ["--answers", "silent"], environment: [String: String]) throws -> BuiltProducts.Result {
        try BuiltProducts.run(executable: SystemCommand.url("python3"), [script.path] + options + ["--"] + command,
                              environment: BuiltProducts.quiet(environment))
    }
}
