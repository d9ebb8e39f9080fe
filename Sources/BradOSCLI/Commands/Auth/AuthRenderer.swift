import BradOSAuth
import BradOSCore
import BradOSTerminal
import Foundation

/// What `auth status` and `auth logout` print, in both output formats.
public struct AuthRenderer {
    let output: Output
    let now: Date
    public init(output: Output, now: Date) {
        self.output = output
        self.now = now
    }

    /// Prints the profile's sign-in status: the account, the verified user and each service's session.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func status(_ status: AuthStatus) throws {
        if output.format == .json { return try output.json(status) }
        output.line("Profile: \(status.profile)\(status.active ? " (active)" : "")")
        guard status.signedIn else { return output.line("Not signed in.") }
        if let account = status.account { output.line("Signed in as \(describe(account))") }
        if let verified = status.verified { output.line("Verified with the server: \(verified.username) (\(verified.id))") }
        for (service, session) in status.services.sorted(by: { $0.key < $1.key }) {
            output.line("  \(service): \(describe(session))")
        }
        secrets(status.secrets)
        if !status.importedFromOtherAccounts.isEmpty {
            output.line("Another account's data, imported (not this account's own):")
            for entry in status.importedFromOtherAccounts { output.line("  \(entry.described)") }
        }
    }

    /// `auth status --all`: every profile's status, one after the other.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func statuses(_ statuses: [AuthStatus]) throws {
        if output.format == .json { return try output.json(statuses) }
        for (index, status) in statuses.enumerated() {
            if index > 0 { output.line("") }
            try self.status(status)
        }
    }

    /// Where each secret lives (`auth status`, `auth migrate`).
    func secrets(_ inventory: CredentialInventory) {
        output.line("Secrets (credentials.store \(inventory.store.rawValue); keyring: \(inventory.keyring)):")
        let width = inventory.secrets.map(\.name.count).max() ?? 0
        for secret in inventory.secrets {
            let place = secret.location == .keyring ? "keyring" : "file \(secret.name.contains("/") ? "(beside it)" : inventory.file)"
            output.line("  \(secret.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(place)\(secret.problem.map { " — \($0)" } ?? "")")
        }
        if inventory.secrets.isEmpty { output.line("  none") }
        if let target = inventory.migrationTarget {
            output.line("\(Format.count(inventory.misplaced.count, "secret")) not where credentials.store puts new ones; move them: brados auth migrate --to \(target.rawValue)")
        }
    }

    /// Prints what `auth migrate` moved.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func migrated(_ reports: [CredentialMigration]) throws {
        if output.format == .json { return try output.json(reports) }
        for report in reports {
            let place = report.to == .keyring ? "the keyring" : "files"
            if report.moved.isEmpty {
                output.line("Profile \(report.profile): \(report.alreadyThere.isEmpty ? "no secrets" : "every secret already in \(place)").")
            } else {
                output.line("Profile \(report.profile): moved \(report.moved.joined(separator: ", ")) to \(place)"
                            + (report.alreadyThere.isEmpty ? "." : " (\(report.alreadyThere.joined(separator: ", ")) already there)."))
            }
        }
    }

    /// Prints what `auth logout` erased.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func loggedOut(_ report: LogoutReport) throws {
        if output.format == .json { return try output.json(report) }
        let files = report.domains.reduce(0) { $0 + $1.files } + report.otherFiles
        let bytes = report.domains.reduce(Int64(0)) { $0 + $1.bytes }
        var erased = [Format.count(files, "file") + " (\(Format.bytes(bytes)))"]
        if !report.discardedUnsent.isEmpty {
            erased.append("\(Format.count(report.discardedUnsent.count, "unsent change")) (\(report.discardedUnsent.map(\.summary).joined(separator: ", ")))")
        }
        erased += report.erasedHistory.map(\.described)
        erased += report.erasedUnreadable.map { "\($0.what) (unreadable)" }
        let list = erased.count == 1 ? erased[0] : erased.dropLast().joined(separator: ", ") + " and " + erased[erased.count - 1]
        output.line("\(report.wasSignedIn ? "Signed out" : "Was not signed in"); erased \(list) of profile \(report.profile).")
    }

    func describe(_ session: AuthStatus.Session) -> String {
        var text = "\(session.user) on \(session.server)"
        if let expires = session.expiresAt {
            let left = expires.timeIntervalSince(now)
            text += left > 0 ? ", token valid for \(Format.age(left))" : ", token expired (renewed on next use)"
        }
        return text
    }
}
