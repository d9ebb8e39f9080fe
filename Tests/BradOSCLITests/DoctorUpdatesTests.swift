import Foundation
import Testing
import TestSupport
@testable import BradOSCLI
import BradOSCore

/// `brados doctor`'s updates line: the apt source the `.deb` ships, enabled or not, and whether
/// the keyring it names holds the brados keys (now and after a key rotation).
@Suite("doctor: where updates come from")
struct DoctorUpdatesTests {
    let root = TemporaryDirectory("doctor-updates")
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The archive's key as the project ships it (armored), a next key (binary, `gpg --export`)
    /// and a stranger's (RSA, armored); fingerprints as `gpg --show-keys` prints them.
    static let archiveKey = repository.appendingPathComponent("packaging/apt/brados-archive-keyring.asc")
    static let nextKey = repository.appendingPathComponent("Tests/BradOSCLITests/testdata/next-key.gpg")
    static let strangerKey = repository.appendingPathComponent("Tests/BradOSCLITests/testdata/stranger-key.asc")
    static let nextFingerprint = "DB18032AE9C8A1D049B3D89BB8C3ED5120B2708D"
    static let strangerFingerprint = "9ED717B5549C617E794E3749E735B21316A25BE3"
    static let source = "Types: deb\nURIs: http://127.0.0.1:8080/\nSuites: stable\nComponents: main\nSigned-By: /etc/apt/keyrings/brados-archive-keyring.gpg\n"

    func write(_ data: Data, to path: String) throws {
        let url = root.url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: url)
        try data.write(to: url)
    }

    func write(_ text: String, to path: String) throws { try write(Data(text.utf8), to: path) }

    /// The files' keys as one binary keyring (as `gpg --dearmor` and the `.deb` write it).
    func keys(_ files: URL...) throws -> Data {
        try files.reduce(into: Data()) { keyring, file in
            let data = try Data(contentsOf: file)
            if let text = String(data: data, encoding: .utf8), text.hasPrefix("-----BEGIN") {
                keyring += try OpenPGPKeyring.dearmor(text)
            } else {
                keyring += data
            }
        }
    }

    /// Installed from the `.deb`: its keyring holds `package`; the README's link in /etc/apt/keyrings.
    func installed(package: Data, linked: Bool = true) throws {
        try write("/usr/bin/brados\n", to: "var/lib/dpkg/info/brados.list")
        try write(package, to: "usr/share/keyrings/brados-archive-keyring.gpg")
        if linked {
            let link = root.url.appendingPathComponent("etc/apt/keyrings/brados-archive-keyring.gpg")
            try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: Doctor.archiveKeyring)
        }
    }

    @Test("fingerprints: an armored keyring, a binary one (old packet headers), RSA and Ed25519, several in one file")
    func fingerprints() throws {
        #expect(try OpenPGPKeyring(Data(contentsOf: Self.archiveKey)).fingerprints == Doctor.archiveKeyFingerprints,
                "packaging/apt/brados-archive-keyring.asc changed: update Doctor.archiveKeyFingerprints")
        #expect(try OpenPGPKeyring(Data(contentsOf: Self.nextKey)).fingerprints == [Self.nextFingerprint])
        #expect(try OpenPGPKeyring(Data(contentsOf: Self.strangerKey)).fingerprints == [Self.strangerFingerprint])
        let binary = try OpenPGPKeyring.dearmor(String(contentsOf: Self.archiveKey, encoding: .utf8))
        let both = try OpenPGPKeyring(Data(binary) + Data(contentsOf: Self.nextKey))
        #expect(both.fingerprints == Doctor.archiveKeyFingerprints + [Self.nextFingerprint])
    }

    @Test("a cut keyring, an empty one and text are not keyrings", arguments: [0, 1, 7, 40])
    func notKeyrings(cut: Int) throws {
        let whole = try Data(contentsOf: Self.nextKey)
        #expect(throws: OpenPGPKeyring.ReadError.self) { try OpenPGPKeyring(whole.prefix(cut)) }
        #expect(throws: OpenPGPKeyring.ReadError.self) { try OpenPGPKeyring(Data("Types: deb\n".utf8)) }
    }

    @Test("no package, no source: a tarball or a build, updated by hand (ok)")
    func byHand() {
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .ok && check.detail.contains("by hand"), "\(check.detail)")
    }

    @Test("installed from a .deb with no source: a warning that says how to enable the shipped one")
    func debWithoutSource() throws {
        try installed(package: keys(Self.archiveKey), linked: false)
        try write("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n", to: "etc/apt/sources.list.d/debian.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .warn && check.fix?.contains("sudo cp /usr/share/brados/apt/brados.sources /etc/apt/sources.list.d/") == true, "\(check)")
        #expect(check.fix?.contains("sudo ln -sf /usr/share/keyrings/brados-archive-keyring.gpg /etc/apt/keyrings/brados-archive-keyring.gpg") == true)
    }

    @Test("the source enabled as the README leaves it (deb822, or a one-line .list): ok, with the repository's address")
    func enabled() throws {
        try installed(package: keys(Self.archiveKey))
        try write(Self.source, to: "etc/apt/sources.list.d/brados.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .ok && check.detail.contains("http://127.0.0.1:8080/"), "\(check.detail)")
        try FileManager.default.removeItem(at: root.url.appendingPathComponent("etc/apt/sources.list.d/brados.sources"))
        try write("deb [arch=amd64 signed-by=/etc/apt/keyrings/brados-archive-keyring.gpg] https://apt.example.org/ stable main\n", to: "etc/apt/sources.list.d/brados.list")
        let line = Doctor.updates(root: root.url)
        #expect(line.status == .ok && line.detail.contains("https://apt.example.org/"), "\(line.detail)")
    }

    @Test("a key block inline in the source (deb822 Signed-By) is read like a file")
    func inline() throws {
        try installed(package: keys(Self.archiveKey), linked: false)
        let block = try String(contentsOf: Self.archiveKey, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? " ." : " " + $0 }.joined(separator: "\n")
        try write("Types: deb\nURIs: http://127.0.0.1:8080/\nSuites: stable\nComponents: main\nSigned-By:\n\(block)\n", to: "etc/apt/sources.list.d/brados.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .ok, "\(check)")
    }

    @Test("during a key rotation, a copy of the old key where the link should be: a warning naming the next key and the link")
    func staleCopy() throws {
        try installed(package: keys(Self.archiveKey, Self.nextKey), linked: false)
        try write(keys(Self.archiveKey), to: "etc/apt/keyrings/brados-archive-keyring.gpg")
        try write(Self.source, to: "etc/apt/sources.list.d/brados.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .warn && check.detail.contains(Self.nextFingerprint) && check.detail.contains("next key rotation"), "\(check)")
        #expect(check.fix == "sudo ln -sf /usr/share/keyrings/brados-archive-keyring.gpg /etc/apt/keyrings/brados-archive-keyring.gpg", "\(check)")
    }

    @Test("a keyring with none of the brados keys: apt refuses the repository (fail), the fix named")
    func strangerOnly() throws {
        try installed(package: keys(Self.archiveKey), linked: false)
        try write(keys(Self.strangerKey), to: "etc/apt/keyrings/brados-archive-keyring.gpg")
        try write(Self.source, to: "etc/apt/sources.list.d/brados.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .fail && check.detail.contains(Doctor.archiveKeyFingerprints[0]) && check.fix?.hasPrefix("sudo ln -sf") == true, "\(check)")
    }

    @Test("a tarball's brados checks against the key it was built with: a fetched copy ok, a stranger's refused with the curl to fetch it")
    func tarball() throws {
        try write(keys(Self.archiveKey), to: "etc/apt/keyrings/brados-archive-keyring.gpg")
        try write(Self.source, to: "etc/apt/sources.list.d/brados.sources")
        #expect(Doctor.updates(root: root.url).status == .ok)
        try write(keys(Self.strangerKey), to: "etc/apt/keyrings/brados-archive-keyring.gpg")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .fail && check.fix == "curl -fsSL http://127.0.0.1:8080/brados-archive-keyring.gpg | sudo tee /etc/apt/keyrings/brados-archive-keyring.gpg > /dev/null", "\(check)")
    }

    @Test("after apt-get purge: the link dangles, apt warns on the source at every update; the doctor names the one command that removes it")
    func purged() throws {
        let link = root.url.appendingPathComponent("etc/apt/keyrings/brados-archive-keyring.gpg")
        try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: Doctor.archiveKeyring)
        try write(Self.source, to: "etc/apt/sources.list.d/brados.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .fail && check.detail.contains("not there"), "\(check)")
        #expect(check.fix?.hasPrefix("sudo rm \(root.url.path)/etc/apt/sources.list.d/brados.sources /etc/apt/keyrings/brados-archive-keyring.gpg") == true, "\(check)")
    }

    @Test("a keyring that is no keyring (cut): fail, not ok")
    func cutKeyring() throws {
        try installed(package: keys(Self.archiveKey), linked: false)
        try write(keys(Self.nextKey).prefix(30), to: "etc/apt/keyrings/brados-archive-keyring.gpg")
        try write(Self.source, to: "etc/apt/sources.list.d/brados.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .fail && check.detail.contains("not a keyring"), "\(check)")
    }

    @Test("the old README's source, naming the package's own keyring: a warning, and the two commands that move it")
    func namesThePackagesKeyring() throws {
        try installed(package: keys(Self.archiveKey), linked: false)
        try write(Self.source.replacingOccurrences(of: Doctor.sourceKeyring, with: Doctor.archiveKeyring), to: "etc/apt/sources.list.d/brados.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .warn && check.detail.contains("removing brados"), "\(check)")
        #expect(check.fix?.contains("sudo sed -i 's|/usr/share/keyrings/brados-archive-keyring.gpg|/etc/apt/keyrings/brados-archive-keyring.gpg|'") == true, "\(check)")
    }

    @Test("a disabled stanza (Enabled: no) is no source")
    func disabled() throws {
        try installed(package: keys(Self.archiveKey))
        try write(Self.source + "Enabled: no\n", to: "etc/apt/sources.list.d/brados.sources")
        #expect(Doctor.updates(root: root.url).status == .warn)
    }
}
