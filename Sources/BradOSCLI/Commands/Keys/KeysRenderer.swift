import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import BradOSTerminal
import Foundation

/// What `keys generate|show` print.
struct KeysRenderer {
    let output: Output

    func show(_ recipient: NativeRecipient, store: ArchiveKeyStore, created: Bool) throws {
        if output.format == .json {
            struct Document: Encodable { var profile: String; var recipient: String; var kind: String; var postQuantum: Bool; var identityFile: String; var created: Bool }
            return try output.json(Document(profile: store.profile.rawValue, recipient: recipient.string, kind: recipient.kind, postQuantum: recipient.isPostQuantum,
                                            identityFile: store.url.path, created: created))
        }
        output.line(recipient.string)
        if created {
            output.notice("created the age key of profile '\(store.profile)' in \(store.url.path) (0600); back it up: archives encrypted to it open only with it")
        }
    }
}
