import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Helpers shared by the archive commands.
enum CacheArchiveSupport {
    /// `<profile folder>/.staging`: inside the profile, so `auth logout` erases whatever a
    /// killed export or import left, and on the same file system as the folders it swaps.
    static func staging(_ profileFolder: URL) -> URL { profileFolder.appendingPathComponent(".staging", isDirectory: true) }

    /// `cache export --with-settings`: the config file's values, without the active profile
    /// (a choice of this machine's). Secrets are never in the config file.
    static func exportedSettings(_ env: AppEnvironment) throws -> [String: String] {
        try ConfigFile.load(from: env.paths.configFile).values.filter { $0.key != "profile" }
    }

    /// What an import did with the archive's settings.
    struct SettingsImport: Encodable {
        /// Set here, where they were unset.
        var applied: [String: String] = [:]
        /// Set here to another value, which stays (key → the archive's value).
        var kept: [String: String] = [:]
        /// Unknown to this brados, or a value it refuses.
        var refused: [String] = []
    }

    /// Applies the archive's settings to this machine's config file: only keys it does not set
    /// already (what a person set here stays), each passing the rule `config set` applies.
    /// - Throws: ``StorageError`` when the config file cannot be written.
    static func importSettings(_ settings: [String: String], env: AppEnvironment) throws -> SettingsImport {
        var result = SettingsImport()
        let current = try ConfigFile.load(from: env.paths.configFile).values
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) where key != "profile" {
            guard let definition = env.settings.key(named: key), definition.validate(value) == nil else { result.refused.append(key); continue }
            if let mine = current[key] {
                if mine != value { result.kept[key] = value }
                continue
            }
            result.applied[key] = value
        }
        if !result.applied.isEmpty {
            let applied = result.applied
            try ConfigFile.update(at: env.paths.configFile) { file in for (key, value) in applied { file.values[key] = value } }
        }
        return result
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func limits(_ settings: Settings) throws -> ArchiveLimits {
        // Each value passes the rule `config set` applies, or the error names that key and value.
        let bytes = try settings.validated("archive.max-bytes")
        let entries = try settings.validated("archive.max-entries")
        let ratio = try settings.validated("archive.max-ratio")
        return ArchiveLimits(maxBytes: parseByteSize(bytes) ?? 0, maxEntries: Int(entries) ?? 0, maxRatio: Int(ratio) ?? 0)
    }

    /// Opens `path` for reading (`-` is stdin); returns the descriptor and whether to close it.
    static func open(_ path: String) throws -> (Int32, Bool) {
        if path == "-" { return (STDIN_FILENO, false) }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            // The user's own file: never the advice about brados's folders that StorageError gives.
            if errno == ENOENT { throw ArchiveError.noSuchArchive(path: path) }
            throw ArchiveError.io("\(path): \(String(cString: strerror(errno)))")
        }
        return (fd, true)
    }
}
