import BradOSAuth
import BradOSNetworking
import BradOSStorage
import Foundation

/// Moves what a user keeps under a service's former name (``ServiceDescription/formerNames``)
/// to its current name, once: the `server.<old>` key of the config file, each profile's
/// credentials and attachments. A service is renamed, never aliased: after the move nothing
/// reads the old name, and the process that moved it says so once on stderr.
///
/// An environment variable cannot be moved: `BRADOS_<OLD>_SERVER` is used for the current
/// name while the new variable is unset, with a notice on every run that names the new one
/// (``environment(_:services:)``), so a setup that exported the old name keeps working and
/// is told how to stop depending on it.
public enum ServiceRename {
    /// Moves the config key and the credentials of every renamed service.
    /// - Returns: one notice per thing moved (empty when nothing was).
    /// - Throws: ``StorageError`` or ``ConfigError`` when a file cannot be read or written;
    ///   nothing is lost (each file is rewritten atomically, the old name removed only with it).
    /// - Parameter config: the config file as just read (`nil`: read it): the file is locked
    ///   and rewritten only when it holds a former name.
    public static func migrate(_ paths: Paths, services: [ServiceDescription], config: ConfigFile? = nil) throws -> [String] {
        let renames = services.flatMap { described in described.formerNames.map { (old: $0, new: described.service) } }
        guard !renames.isEmpty else { return [] }
        return try migrateConfig(paths, renames, read: config) + migrateCredentials(paths, renames)
    }

    /// The environment with each former `BRADOS_<OLD>_SERVER` standing for the current
    /// variable when that one is unset, and a notice for each.
    public static func environment(_ environment: [String: String], services: [ServiceDescription]) -> (environment: [String: String], notices: [String]) {
        var result = environment
        var notices: [String] = []
        for described in services {
            for old in described.formerNames {
                let oldVariable = Service(rawValue: old).environmentVariable
                let newVariable = described.service.environmentVariable
                guard let value = environment[oldVariable] else { continue }
                if environment[newVariable] == nil {
                    result[newVariable] = value
                    notices.append("\(oldVariable) is the former name of \(newVariable); using it this time. Rename it in your environment.")
                } else {
                    notices.append("\(oldVariable) is the former name of \(newVariable), which is set too; ignoring \(oldVariable). Remove it from your environment.")
                }
                result[oldVariable] = nil
            }
        }
        return (result, notices)
    }

    private typealias Rename = (old: String, new: Service)

    private static func migrateConfig(_ paths: Paths, _ renames: [Rename], read: ConfigFile?) throws -> [String] {
        let stale = { (file: ConfigFile) in renames.filter { file.values[Service(rawValue: $0.old).configKey] != nil } }
        // Read first: the lock and the rewrite only when a former key is there.
        guard !stale(try read ?? ConfigFile.load(from: paths.configFile)).isEmpty else { return [] }
        var notices: [String] = []
        try ConfigFile.update(at: paths.configFile) { file in
            for rename in stale(file) {
                let oldKey = Service(rawValue: rename.old).configKey, newKey = rename.new.configKey
                if file.values[newKey] == nil {
                    file.values[newKey] = file.values[oldKey]
                    notices.append("config: \(oldKey) is now \(newKey) (moved in \(paths.configFile.path)).")
                } else {
                    notices.append("config: removed \(oldKey), the former name of \(newKey), which is set.")
                }
                file.values[oldKey] = nil
            }
        }
        return notices
    }

    private static func migrateCredentials(_ paths: Paths, _ renames: [Rename]) throws -> [String] {
        let directory = paths.credentialsDirectory
        let names = FileSystem.names(in: directory)
        var notices: [String] = []
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            guard let profile = ProfileName(rawValue: String(name.dropLast(5))) else { continue }
            // Files only: the keyring came after every rename, so no secret there has a former name.
            let store = CredentialStore(paths: paths, profile: profile, choice: .file)
            // Read first: the lock and the rewrite only when a former name is there. The file's
            // bytes are looked at before it is decoded: a former name is in them in quotes, and
            // nearly every start finds none (decoding it was a twentieth of a warm read's start-up).
            let attachments = FileSystem.names(in: store.attachmentsDirectory)
            let bytes = (try? AtomicFile.readIfPresent(store.url)) ?? nil
            let mayHold = { (old: String) in bytes.map { FileSystem.bytes($0, contain: "\"\(old)") } ?? false }
            let stored = renames.contains { mayHold($0.old) } ? store.storedSlots() : []
            guard renames.contains(where: { rename in
                stored.contains(rename.old) || attachments.contains { $0.hasPrefix("\(rename.old).") }
            }) else { continue }
            let moved = try FileLock.withExclusiveLock(at: store.lockURL) { () throws -> [String] in
                var credentials = try store.loadForUpdate()
                var moved: [String] = []
                for rename in renames {
                    try moveAttachments(of: rename, in: store)
                    guard let credential = credentials.services.removeValue(forKey: rename.old) else { continue }
                    if credentials.services[rename.new.rawValue] == nil { credentials.services[rename.new.rawValue] = credential }
                    moved.append("\(rename.old) → \(rename.new.rawValue)")
                }
                if !moved.isEmpty { try store.save(credentials) }
                return moved
            }
            if !moved.isEmpty { notices.append("credentials of profile \(profile): service \(moved.joined(separator: ", ")).") }
        }
        return notices
    }

    /// `<profile>.d/<old>.<name>.json` → `<profile>.d/<new>.<name>.json` (a file the new name
    /// already has is kept and the old one removed).
    private static func moveAttachments(of change: Rename, in store: CredentialStore) throws {
        let directory = store.attachmentsDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasPrefix("\(change.old).") && name.hasSuffix(".json") {
            let from = directory.appendingPathComponent(name)
            let to = store.attachmentURL(String(name.dropFirst(change.old.count + 1).dropLast(5)), of: change.new)
            if FileSystem.exists(to) { try FileSystem.remove(from) } else if rename(from.path, to.path) != 0 {
                throw StorageError.io(operation: "rename", path: from.path, errno: errno)
            }
        }
    }
}
