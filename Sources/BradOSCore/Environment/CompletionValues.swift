import ArgumentParser
import BradOSStorage
import BradOSTerminal
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

    /// Profile names: `default`, signed-in ones and those with data (``Paths/knownProfiles()``).
    public static func profiles() -> [String] { scope().paths.knownProfiles().map(\.rawValue) }

    /// Values with what each is, for the shell asking (``CompletionShell/requesting``): zsh
    /// and fish show the description beside the value (`1eca1011-…  Getting back into
    /// running`), bash offers the values alone. A description is one line of text from a
    /// cache: its control characters (C0, DEL, C1, bidirectional overrides) become spaces,
    /// and it is cut to 60 characters.
    public static func described(_ pairs: [(value: String, description: String)]) -> [String] {
        let shell = CompletionShell.requesting
        return pairs.map { pair in
            let text = String(pair.description.unicodeScalars.map { SafeText.needsEscape($0, keepLines: false) ? " " : Character($0) }).prefix(60)
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

    /// `config set KEY <Tab>`: the values the key takes, when they are a few words (`true`,
    /// `false` for a switch); `words` is the command line, the key the word before the value.
    public static func configValues(_ words: [String], at index: Int) -> [String] {
        guard index > 0, index - 1 < words.count,
              let key = Settings.keys(Composition.current.plugins, features: Composition.current.features).first(where: { $0.name == words[index - 1] })
        else { return [] }
        if !key.choices.isEmpty { return key.choices }
        return key.defaultValue.flatMap(parseBool) != nil && key.validate("maybe") != nil && key.validate("true") == nil ? ["true", "false"] : []
    }

    /// The rows an SQLite query returns from a database, read-only (empty when unreadable).
    public static func strings(_ sql: String, in url: URL) -> [String] {
        guard FileSystem.exists(url) else { return [] }
        return (try? GRDBReadOnly.strings(sql, at: url)) ?? []
    }
}
