import BradOSCore
import Foundation

// Where the next version comes from: the brados apt repository, or by hand; and whether apt
// can check that repository's signatures now and after its next key rotation.
extension Doctor {
    /// The keyring the `.deb` installs and keeps current (a key rotation comes with an upgrade).
    static let archiveKeyring = "/usr/share/keyrings/brados-archive-keyring.gpg"
    /// The keyring the brados apt source names (`Signed-By`): the person's path, where dpkg
    /// never writes. The README fetches the key there, then makes it a link to `archiveKeyring`.
    static let sourceKeyring = "/etc/apt/keyrings/brados-archive-keyring.gpg"
    /// The source the `.deb` installs and never enables.
    static let shippedSource = "/usr/share/brados/apt/brados.sources"
    /// The keys of packaging/apt/brados-archive-keyring.asc (a test reads that file): what a
    /// brados not installed by the `.deb` checks the source's keyring against.
    static let archiveKeyFingerprints = ["A7A8C9DA13C862BB1F43380F6AE728A0B833BE8B"]

    /// Whether updates come from the brados apt repository: an enabled source under
    /// `root`/etc/apt for it, whose `Signed-By` keyring holds every brados key (those of the
    /// package's keyring, or `archiveKeyFingerprints`); a brados installed from a `.deb` with no
    /// such source (warn: how to enable it); otherwise (a tarball, a build) ok, updated by hand.
    /// `root` is `/` but in tests.
    static func updates(root: URL = URL(fileURLWithPath: "/")) -> DoctorCheck {
        let fileManager = FileManager.default
        let fromDeb = fileManager.fileExists(atPath: root.appendingPathComponent("var/lib/dpkg/info/brados.list").path)
        let shipped = AptSource.all(inFile: root.appendingPathComponent(String(shippedSource.dropFirst()))).flatMap(\.uris)
        let expected = (try? OpenPGPKeyring(Data(contentsOf: root.appendingPathComponent(String(archiveKeyring.dropFirst())))))?.fingerprints
            ?? archiveKeyFingerprints
        // The brados entry: its address, a keyring named for it, or a brados key inline.
        let brados = AptSource.all(root: root).first { source in
            source.uris.contains { shipped.contains($0) || $0.contains("brados") } || source.signedBy.contains { key in
                switch key {
                case .file(let path): path.contains("brados")
                case .fingerprint(let fingerprint): expected.contains(fingerprint)
                case .inline(let block): (try? OpenPGPKeyring(Data(block.utf8)))?.fingerprints.contains { expected.contains($0) } ?? false
                }
            }
        }
        guard let source = brados else {
            if fromDeb {
                return DoctorCheck(name: "updates", status: .warn, detail: "brados was installed from a .deb, and no apt source brings new versions",
                                   fix: "sudo ln -sf \(archiveKeyring) \(sourceKeyring) && sudo cp \(shippedSource) /etc/apt/sources.list.d/ && sudo apt-get update (docs/install.md)")
            }
            return DoctorCheck(name: "updates", status: .ok, detail: "not installed by apt (a tarball or a build): new versions come by hand")
        }
        let address = source.uris.first ?? "its address"
        let whence = "\(address), \(source.file.path)"
        let link = "sudo ln -sf \(archiveKeyring) \(sourceKeyring)"
        let refetch = "curl -fsSL \(address.hasSuffix("/") ? address : address + "/")brados-archive-keyring.gpg | sudo tee \(sourceKeyring) > /dev/null"
        let remove = "sudo rm \(source.file.path) \(sourceKeyring) (brados is no longer installed by apt; docs/install.md)"
        guard !source.signedBy.isEmpty else {
            return DoctorCheck(name: "updates", status: .warn, detail: "the brados apt source (\(whence)) names no keyring: apt takes any key it trusts for it",
                               fix: "add 'Signed-By: \(sourceKeyring)' to \(source.file.path), then \(fromDeb ? link : refetch)")
        }
        var trusted: [String] = []
        for key in source.signedBy {
            switch key {
            case .fingerprint(let fingerprint):
                trusted.append(fingerprint)
            case .inline(let block):
                trusted += (try? OpenPGPKeyring(Data(block.utf8)))?.fingerprints ?? []
            case .file(let path):
                let problem: String?
                if let file = AptSource.resolve(path, in: root), fileManager.fileExists(atPath: file.path) {
                    do {
                        trusted += try OpenPGPKeyring(Data(contentsOf: file)).fingerprints
                        problem = nil
                    } catch OpenPGPKeyring.ReadError.notAKeyring(let why) {
                        problem = "not a keyring (\(why))"
                    } catch {
                        problem = "unreadable (\(error.localizedDescription))"
                    }
                } else {
                    problem = fromDeb ? "not there" : "not there (a link to the keyring that went with the package?)"
                }
                if let problem {
                    return DoctorCheck(name: "updates", status: .fail, detail: "apt cannot check the brados repository (\(whence)): its keyring \(path) is \(problem)",
                                       fix: fromDeb ? link : remove)
                }
            }
        }
        let missing = expected.filter { !trusted.contains($0) }
        let keyringText = source.signedBy.compactMap { if case .file(let path) = $0 { return path } else { return nil } }.joined(separator: ", ")
        let named = keyringText.isEmpty ? "its Signed-By" : keyringText
        if missing.count == expected.count {
            return DoctorCheck(name: "updates", status: .fail,
                               detail: "the brados apt source (\(whence)) trusts none of the brados keys (\(expected.joined(separator: ", "))) in \(named): apt refuses its updates",
                               fix: fromDeb ? link : refetch)
        }
        if !missing.isEmpty {
            return DoctorCheck(name: "updates", status: .warn,
                               detail: "\(named), the keyring of the brados apt source (\(whence)), lacks \(missing.joined(separator: ", ")): after the next key rotation apt refuses its updates",
                               fix: fromDeb ? link : refetch)
        }
        if source.signedBy.contains(.file(archiveKeyring)) {
            return DoctorCheck(name: "updates", status: .warn,
                               detail: "the brados apt source (\(whence)) names the package's own keyring: removing brados takes the key and leaves a source apt warns about at every update",
                               fix: "\(link) && sudo sed -i 's|\(archiveKeyring)|\(sourceKeyring)|' \(source.file.path)")
        }
        return DoctorCheck(name: "updates", status: .ok,
                           detail: "from the brados apt repository (\(whence)): apt upgrade brings new versions, signed by a key \(named) holds")
    }
}
