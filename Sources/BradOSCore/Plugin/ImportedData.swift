import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// What `cache import` brought into a profile, and from whom: so that data another account
/// made is labelled as such wherever it is shown (`auth status`, `today`, `search`), and a
/// person can tell their own data from a copy of someone else's. Kept in the profile's data
/// folder (`imported.json`); `auth logout` erases it with the rest.
public struct ImportedData: Codable, Sendable, Equatable {
    /// One import.
    public struct Entry: Codable, Sendable, Equatable {
        /// The domains it brought.
        public var domains: [String]
        /// The profile the archive was exported from.
        public var fromProfile: String
        /// The remote account per service the archive's data belonged to (its manifest's).
        public var accounts: [String: String]
        public var archiveCreatedAt: Date

        public init(domains: [String], fromProfile: String, accounts: [String: String], archiveCreatedAt: Date) {
            self.domains = domains
            self.fromProfile = fromProfile
            self.accounts = accounts
            self.archiveCreatedAt = archiveCreatedAt
        }

        /// Whether this data was another account's than `accounts` (the profile's now): a service
        /// both name with different ids. An archive with no account, or a profile not signed in
        /// to that service, cannot tell: such data is not labelled.
        public func isFromAnotherAccount(than accounts: [String: String]) -> Bool {
            self.accounts.contains { service, id in accounts[service].map { $0 != id } ?? false }
        }

        /// `plan, visits: imported from profile demo (account 6b1e…), archive of 2026-11-02`.
        public var described: String {
            let account = accounts[Service.account.rawValue] ?? accounts.sorted { $0.key < $1.key }.first?.value
            return "\(domains.joined(separator: ", ")): imported from profile \(fromProfile)"
                + (account.map { " (account \($0))" } ?? "") + ", archive of \(Format.day(archiveCreatedAt))"
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }

    /// The file, in the profile's data folder.
    public static func url(_ profile: ProfileScope) -> URL { profile.dataDirectory.appendingPathComponent("imported.json") }

    /// The imports recorded for `profile`; none when the file is missing or unreadable (a label
    /// is never a reason for a command to fail).
    public static func load(_ profile: ProfileScope) -> ImportedData {
        guard let data = try? AtomicFile.readIfPresent(url(profile)),
              let document = try? JSONCoding.decode(ImportedData.self, from: data) else { return ImportedData() }
        return document
    }

    /// Records an import: it replaces what earlier imports said of the same domains. Written
    /// inside the import's journal (a rollback puts the previous file back).
    /// - Throws: ``StorageError`` when the file cannot be written.
    public static func record(_ entry: Entry, in profile: ProfileScope) throws {
        var document = load(profile)
        document.forget(domains: entry.domains)
        document.entries.append(entry)
        try FileSystem.createDirectory(profile.dataDirectory)
        try AtomicFile.write(try JSONCoding.encode(document), to: url(profile))
    }

    /// `cache clear`: the domains' copies are gone, and so are their labels.
    /// - Throws: ``StorageError`` when the file cannot be written.
    public static func forget(domains: [String], in profile: ProfileScope) throws {
        var document = load(profile)
        let before = document
        document.forget(domains: domains)
        guard document != before else { return }
        if document.entries.isEmpty { try FileSystem.remove(url(profile)) } else { try AtomicFile.write(try JSONCoding.encode(document), to: url(profile)) }
    }

    /// The domains' data is no longer the imported copy (cleared, or replaced).
    public mutating func forget(domains: [String]) {
        entries = entries.compactMap { entry in
            var entry = entry
            entry.domains.removeAll { domains.contains($0) }
            return entry.domains.isEmpty ? nil : entry
        }
    }

    /// The imports of another account than `accounts` (the profile's now).
    public func fromAnotherAccount(than accounts: [String: String]) -> [Entry] {
        entries.filter { $0.isFromAnotherAccount(than: accounts) }
    }

    /// One notice for people: "Holds data of another account: plan, visits: imported from …";
    /// `nil` when every domain is the profile's own.
    /// `accounts` is asked only when an import was recorded: most profiles have none, and
    /// reading the sign-in may ask the keyring, which `today` and `search` should not wait for.
    public static func notice(_ profile: ProfileScope, accounts: () -> [String: String]) -> String? {
        let recorded = load(profile)
        guard !recorded.entries.isEmpty else { return nil }
        let foreign = recorded.fromAnotherAccount(than: accounts())
        guard !foreign.isEmpty else { return nil }
        return "This profile holds another account's data, imported: " + foreign.map(\.described).joined(separator: "; ") + "."
    }
}
