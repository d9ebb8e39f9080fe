import ArgumentParser
import Foundation

/// Values for shell completion, read from the local files only (no network, nothing
/// written), fast enough to run on every TAB. Each domain adds its own (ids from its cache).
public enum CompletionValues {
    /// The paths and profile completion runs against (the same environment rules as commands).
    public static func scope() -> (paths: Paths, profile: ProfileScope) {
        let environment = ProcessInfo.processInfo.environment
        let paths = Paths.resolve(environment: environment)
        let file = (try? ConfigFile.load(from: paths.configFile)) ?? ConfigFile()
        let settings = Settings(flags: GlobalFlags(), environment: environment, file: file, keys: ConfigKey.core)
        let profile = (try? settings.profile()) ?? .default
        return (paths, paths.profile(profile))
    }

    /// Profile names: signed-in ones and those with data.
    public static func profiles() -> [String] {
        let paths = scope().paths
        var names = Set<String>()
        for file in (try? FileManager.default.contentsOfDirectory(atPath: paths.credentialsDirectory.path)) ?? [] where file.hasSuffix(".json") {
            let name = String(file.dropLast(5))
            if ProfileName(rawValue: name) != nil { names.insert(name) }
        }
        for root in [paths.cacheRoot, paths.dataRoot] {
            let users = root.appendingPathComponent("users")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: users.path)) ?? [] where ProfileName(rawValue: name) != nil {
                names.insert(name)
            }
        }
        return names.sorted()
    }

    /// Values with what each is, for the shell asking (``CompletionShell/requesting``): zsh
    /// and fish show the description beside the value (`1eca1011-…  Getting back into
    /// running`), bash offers the values alone. A description is one line of text from a
    /// cache: its control characters become spaces, and it is cut to 60 characters.
    public static func described(_ pairs: [(value: String, description: String)]) -> [String] {
        let shell = CompletionShell.requesting
        return pairs.map { pair in
            let text = String(pair.description.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) }).prefix(60)
            switch shell {
            // U+001F becomes `:` in the zsh script, after the colons of the value and text are escaped.
            case .zsh?: return text.isEmpty ? pair.value : pair.value + "\u{1F}" + text
            case .fish?: return text.isEmpty ? pair.value : pair.value + "\t" + text
            default: return pair.value
            }
        }
    }

    /// The built-in domain names.
    public static func domains() -> [String] { Composition.current.plugins.map(\.name) }

    /// Every configuration key.
    public static func configKeys() -> [String] { Settings.keys(Composition.current.plugins, features: Composition.current.features).map(\.name) }

    /// The rows an SQLite query returns from a database, read-only (empty when unreadable).
    public static func strings(_ sql: String, in url: URL) -> [String] {
        guard FileSystem.exists(url) else { return [] }
        return (try? GRDBReadOnly.strings(sql, at: url)) ?? []
    }
}
