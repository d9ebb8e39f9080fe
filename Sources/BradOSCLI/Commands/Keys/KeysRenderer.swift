import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import Foundation

/// What `keys generate|show` print.
struct KeysRenderer {
    let output: Output

    func show(_ recipient: X25519Recipient, store: ArchiveKeyStore, created: Bool) throws {
        if output.format == .json {
            struct Document: Encodable { var profile: String; var recipient: String; var identityFile: String; var created: Bool }
            return try output.json(Document(profile: store.profile.rawValue, recipient: recipient.string, identityFile: store.url.path, created: created))
        }
        output.line(recipient.string)
        if created {
            output.notice("created the age key of profile '\(store.profile)' in \(store.url.path) (0600); back it up: archives encrypted to it open only with it")
        }
    }
}
