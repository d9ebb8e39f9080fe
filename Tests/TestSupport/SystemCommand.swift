import Foundation

/// The machine's commands the tests run (peers such as `tar`, `age`, `bsdtar`, a shell,
/// Debian's `python3`), found where Debian installs them, never on the caller's PATH.
///
/// Every test finds such a command here, by its name written out (`SystemCommand.url("age")`):
/// checks/check-deps.sh reads these calls to check that scripts/ensure-deps.sh installs each
/// one. A command that is missing fails the test that needs it; nothing is skipped.
public enum SystemCommand {
    static let folders = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"]

    /// Where `name` is installed.
    /// - Throws: ``Missing`` (saying how to install it) when it is not.
    public static func url(_ name: String) throws -> URL {
        guard let folder = folders.first(where: { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }) else {
            throw Missing(name: name)
        }
        return URL(fileURLWithPath: "\(folder)/\(name)")
    }

    /// Runs `name` to completion with `environment`, in the C locale with a PATH of /usr/bin:/bin.
    public static func run(_ name: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                           timeout: TimeInterval = 60) throws -> BuiltProducts.Result {
        try BuiltProducts.run(executable: url(name), arguments,
                              environment: environment.merging(["LC_ALL": "C", "PATH": "/usr/bin:/bin"]) { $1 },
                              stdin: stdin, timeout: timeout)
    }

    /// A command the tests need is not installed.
    public struct Missing: Error, CustomStringConvertible {
        public let name: String
        public var description: String {
            "\(name) is not installed in \(folders.joined(separator: ", ")): run scripts/ensure-deps.sh, which installs what the tests run"
        }
    }
}
