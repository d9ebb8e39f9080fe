import AgeEncryption
import ArgumentParser
import BradOSArchive
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `--identity FILE` and `--passphrase-stdin` of `cache verify|import`, and how `cache
/// export`'s encryption flags become recipients.
public struct ArchiveKeyFlags: ParsableArguments, Sendable {
    @Option(name: .customLong("identity"), help: ArgumentHelp("Decrypt with this age identity file (repeatable; default: the profile's key).", valueName: "file"),
            completion: .file()) var identities: [String] = []
    @Flag(help: "Read an encrypted archive's passphrase from the first line of standard input.") var passphraseStdin = false

    public init() {}

    func validate(file: String) throws {
        if passphraseStdin, file == "-" { throw ValidationError("--passphrase-stdin needs standard input, which carries the archive (-): name the file instead.") }
    }

    /// Identities from `--identity`, then the given profiles' keys; a passphrase (from stdin or
    /// the terminal) only when the archive is for one.
    func decryption(profiles: [ProfileName], env: AppEnvironment) throws -> ArchiveDecryption {
        let files = try identities.flatMap { path -> [NativeIdentity] in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ArchiveError.invalidKeys(source: path, detail: "it cannot be read")
            }
            do { return try AgeIdentityFile.parse(String(decoding: data, as: UTF8.self)) } catch {
                throw ArchiveError.invalidKeys(source: path, detail: "\(error)")
            }
        }
        let stores = profiles.reduce(into: [ProfileName]()) { if !$0.contains($1) { $0.append($1) } }.map { ArchiveKeyStore(paths: env.paths, profile: $0) }
        let fromStdin = passphraseStdin
        let io = env.io
        return ArchiveDecryption { header in
            if header.isPassphrase {
                // A file that cannot be opened anyway is refused before a passphrase is asked.
                try header.checkPassphraseStanza()
                let passphrase = fromStdin ? ArchiveKeyFlags.firstLine(io.readInput()) : io.readSecret(prompt: "Enter the archive's passphrase: ")
                guard let passphrase, !passphrase.isEmpty else { throw AgeError.noUsableIdentity(kinds: header.recipientTypes) }
                return [ScryptPassphrase(passphrase)]
            }
            // --identity first; a profile key that cannot be read matters only without them.
            let keys = try files + stores.compactMap { files.isEmpty ? try $0.load() : try? $0.load() }
            guard !keys.isEmpty else { throw AgeError.noUsableIdentity(kinds: header.recipientTypes) }
            return keys
        }
    }

    /// The recipients of `cache export`'s flags.
    static func encryption(recipients: [String], files: [String], ownKey: Bool, passphrase: Bool, fromStdin: Bool, armor: Bool,
                           env: AppEnvironment) throws -> ArchiveEncryption {
        if passphrase {
            let factor = Int(try env.settings.validated("archive.scrypt-work-factor")) ?? ScryptPassphrase.defaultWorkFactor
            return ArchiveEncryption(recipients: [ScryptPassphrase(try askPassphrase(fromStdin: fromStdin, io: env.io), workFactor: factor)], armor: armor)
        }
        var list: [any AgeRecipient] = []
        for text in recipients {
            do { list.append(try NativeRecipient(text.trimmingCharacters(in: .whitespaces))) } catch {
                throw ArchiveError.invalidKeys(source: "--recipient", detail: "\(error)")
            }
        }
        for path in files {
            guard let data = FileManager.default.contents(atPath: path) else { throw ArchiveError.invalidKeys(source: path, detail: "it cannot be read") }
            do { list += try AgeRecipientsFile.parse(String(decoding: data, as: UTF8.self)) as [any AgeRecipient] } catch {
                throw ArchiveError.invalidKeys(source: path, detail: "\(error)")
            }
        }
        if ownKey {
            guard let identity = try ArchiveKeyStore(paths: env.paths, profile: env.profile.name).load() else {
                throw ArchiveError.noKey(profile: env.profile.name.rawValue)
            }
            list.append(identity.recipient)
        }
        do { try AgeEncryptor.check(list) } catch { throw ArchiveError.recipientsRefused(detail: "\(error)") }
        return ArchiveEncryption(recipients: list, armor: armor)
    }

    static func askPassphrase(fromStdin: Bool, io: any TerminalIO) throws -> String {
        if fromStdin {
            guard let passphrase = firstLine(io.readInput()), !passphrase.isEmpty else { throw ArchiveError.passphrase("standard input was empty") }
            return passphrase
        }
        guard let first = io.readSecret(prompt: "Enter a passphrase for the archive: ") else { throw ArchiveError.passphrase("there is no terminal to ask on") }
        guard !first.isEmpty else { throw ArchiveError.passphrase("it is empty") }
        guard io.readSecret(prompt: "Enter it again: ") == first else { throw ArchiveError.passphrase("the two entries differ") }
        return first
    }

    /// The first line of `data`, without its LF or CRLF.
    static func firstLine(_ data: Data) -> String? {
        guard !data.isEmpty else { return nil }
        var line = data.prefix { $0 != 0x0A }
        if line.last == 0x0D { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
