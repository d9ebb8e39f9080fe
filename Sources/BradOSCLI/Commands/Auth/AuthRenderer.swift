import BradOSCore
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
    }

    /// Prints what `auth logout` erased.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func loggedOut(_ report: LogoutReport) throws {
        if output.format == .json { return try output.json(report) }
        let files = report.domains.reduce(0) { $0 + $1.files } + report.otherFiles
        let bytes = report.domains.reduce(Int64(0)) { $0 + $1.bytes }
        output.line("\(report.wasSignedIn ? "Signed out" : "Was not signed in"); erased \(Format.count(files, "file")) (\(Format.bytes(bytes))) of profile \(report.profile).")
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
