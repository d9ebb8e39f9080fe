import Foundation
#if canImport(Glibc)
import Glibc
import BradOSCore
import BradOSNetworking
import BradOSStorage
#endif

/// External plugins, the git/gh/kubectl way: `brados NAME …` runs an executable `brados-NAME`
/// found on `PATH` when NAME is not a built-in command (built-ins always win), passing the
/// remaining arguments and exiting with its code. The plugin gets the profile's folders and
/// the configured server URLs in its environment, so it can share the core's files:
/// `BRADOS_PROFILE`, `BRADOS_CACHE_DIR`, `BRADOS_DATA_DIR`, `BRADOS_CONFIG_DIR`, and
/// `BRADOS_SERVER` / `BRADOS_<SERVICE>_SERVER` for every configured server.
public enum ExternalPlugins {
    public static let prefix = "brados-"

    /// One `brados-NAME` file found on `PATH`.
    public struct Found: Codable, Sendable, Equatable {
        public var name: String
        public var path: String
        public var executable: Bool
        /// Why it never runs: a built-in command of that name, or an earlier file on `PATH`.
        public var shadowedBy: String?
    }

    /// Whether `name` can be a plugin name (`brados-<name>`): lowercase letters, digits, `-`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.first != "-"
            && name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }

    /// Every `brados-*` file on `PATH`, first occurrence first.
    public static func all(path: String?, builtIns: Set<String>) -> [Found] {
        var found: [Found] = []
        var seen: [String: String] = [:]
        for directory in (path ?? "").split(separator: ":").map(String.init) where !directory.isEmpty {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
            for file in names where file.hasPrefix(prefix) {
                let name = String(file.dropFirst(prefix.count))
                guard isValidName(name) else { continue }
                let full = (directory as NSString).appendingPathComponent(file)
                var info = stat()
                guard stat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                let shadow: String? = builtIns.contains(name) ? "the built-in `brados \(name)`" : seen[name]
                found.append(Found(name: name, path: full, executable: access(full, X_OK) == 0, shadowedBy: shadow))
                if seen[name] == nil { seen[name] = full }
            }
        }
        return found
    }

    /// The executable `brados-NAME` that `brados NAME` would run, if any.
    public static func find(_ name: String, path: String?) -> String? {
        guard isValidName(name) else { return nil }
        for directory in (path ?? "").split(separator: ":").map(String.init) where !directory.isEmpty {
            let full = (directory as NSString).appendingPathComponent(prefix + name)
            var info = stat()
            if stat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(full, X_OK) == 0 { return full }
        }
        return nil
    }

    /// The environment a plugin runs with: the caller's, plus the profile's folders and servers.
    public static func environment(base: [String: String], settings: Settings, paths: Paths, profile: ProfileScope) -> [String: String] {
        var environment = base
        environment["BRADOS_PROFILE"] = profile.name.rawValue
        environment["BRADOS_CACHE_DIR"] = profile.cacheDirectory.path
        environment["BRADOS_DATA_DIR"] = profile.dataDirectory.path
        environment["BRADOS_CONFIG_DIR"] = paths.configRoot.path
        environment["BRADOS_VERSION"] = BradOSVersion.current
        if let server = settings.resolve("server").value, !server.isEmpty { environment["BRADOS_SERVER"] = server }
        for service in settings.services {
            if let url = try? settings.serverURL(for: service) { environment[service.environmentVariable] = url.url.absoluteString }
        }
        return environment
    }

    /// Replaces this process with the plugin (like `exec`): its exit code is brados's.
    /// Returns only if the plugin could not be started.
    public static func exec(_ executable: String, arguments: [String], environment: [String: String]) -> Int32 {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(executable, argv, envp)
        let code = errno
        FileHandle.standardError.write(Data("brados: could not run \(executable): \(String(cString: strerror(code)))\n".utf8))
        return ExitStatus.pluginNotRunnable
    }
}
