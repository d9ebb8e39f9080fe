import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// Attachments: secrets a service keeps beside its session (a Plex media server's own token
/// and addresses, which must come from plex.tv and never from a cache or an archive). One lives
/// where its service's session lives (a new one where new secrets go): in the keyring as an item
/// with `attachment=<name>`, or in `<config>/credentials/<profile>.d/<service>.<name>.json`
/// (0600, in a 0700 folder). Removed with the credentials.
extension CredentialStore {
    /// `<config>/credentials/<profile>.d/`.
    package var attachmentsDirectory: URL {
        url.deletingLastPathComponent().appendingPathComponent("\(profile.rawValue).d", isDirectory: true)
    }

    /// The file of an attachment kept in files.
    public func attachmentURL(_ name: String, of service: Service) -> URL {
        attachmentsDirectory.appendingPathComponent("\(service.rawValue).\(name).json")
    }

    /// The file of an attachment's slot (`service/name`).
    func attachmentURL(_ slot: String) -> URL {
        let (service, name) = CredentialStore.split(slot)
        return attachmentURL(name ?? "", of: Service(rawValue: service))
    }

    /// An attachment, decoded; `nil` when absent or unreadable.
    public func attachment<T: Decodable>(_ type: T.Type, _ name: String, of service: Service) -> T? {
        let slot = "\(service.rawValue)/\(name)"
        let data: Data?
        if (try? readFile())?.keyring.contains(slot) == true {
            let item = try? keyring.search(attributes(slot)).first { $0.attributes.attachment == name }
            data = item?.secret.map { Data($0.utf8) }
        } else {
            data = try? AtomicFile.readIfPresent(attachmentURL(name, of: service))
        }
        return data.flatMap { try? JSONCoding.decode(T.self, from: $0) }
    }

    /// Writes an attachment where its service's session lives.
    /// - Throws: ``StorageError``, ``AuthError/keyring(_:)``.
    public func saveAttachment<T: Encodable>(_ value: T, _ name: String, of service: Service) throws {
        let slot = "\(service.rawValue)/\(name)"
        let data = try JSONCoding.encode(value)
        var snapshot = try snapshot()
        let location = try snapshot.location(of: slot) ?? snapshot.location(of: service.rawValue) ?? newLocation(for: slot, snapshot: &snapshot)
        if location == .keyring {
            try keyring.store(String(decoding: data, as: UTF8.self), label: label(slot), attributes: attributes(slot))
            if !snapshot.file.keyring.contains(slot) {
                snapshot.file.keyring.insert(slot)
                try write(snapshot.file)
            }
            try FileSystem.remove(attachmentURL(name, of: service))
            return
        }
        try FileSystem.createDirectory(attachmentsDirectory)
        try AtomicFile.write(data, to: attachmentURL(name, of: service), mode: 0o600)
        if snapshot.file.keyring.remove(slot) != nil {
            try write(snapshot.file)
            try keyring.clear(attributes(slot))
        }
    }

    /// Removes every attachment of a service, from the files and the keyring.
    /// - Throws: ``StorageError``, ``AuthError/keyring(_:)``.
    public func removeAttachments(of service: Service) throws {
        for name in fileAttachments() where name.service == service.rawValue {
            try FileSystem.remove(attachmentURL(name.name, of: service))
        }
        var file = try readFile()
        let kept = file.keyring.filter { !$0.hasPrefix("\(service.rawValue)/") }
        guard kept != file.keyring else { return }
        for slot in file.keyring.subtracting(kept) { try keyring.clear(attributes(slot)) }
        file.keyring = kept
        try write(file)
    }

    /// The attachments kept in files: (service, name).
    func fileAttachments() -> [(service: String, name: String)] {
        ((try? FileManager.default.contentsOfDirectory(atPath: attachmentsDirectory.path)) ?? []).sorted().compactMap { file in
            guard file.hasSuffix(".json"), let dot = file.firstIndex(of: ".") else { return nil }
            return (String(file[..<dot]), String(file[file.index(after: dot)...].dropLast(5)))
        }
    }
}
