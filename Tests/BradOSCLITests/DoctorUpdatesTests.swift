import Foundation
import Testing
import TestSupport
@testable import BradOSCLI
import BradOSCore

/// `brados doctor`'s updates line: the apt source the `.deb` ships, enabled or not.
@Suite("doctor: where updates come from")
struct DoctorUpdatesTests {
    let root = TemporaryDirectory("doctor-updates")

    func write(_ text: String, to path: String) throws {
        let url = root.url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test("no package, no source: a tarball or a build, updated by hand (ok)")
    func byHand() {
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .ok && check.detail.contains("by hand"), "\(check.detail)")
    }

    @Test("installed from a .deb with no source: a warning that says how to enable the shipped one")
    func debWithoutSource() throws {
        try write("/usr/bin/brados\n", to: "var/lib/dpkg/info/brados.list")
        try write("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n", to: "etc/apt/sources.list.d/debian.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .warn && check.fix?.contains("sudo cp /usr/share/brados/apt/brados.sources /etc/apt/sources.list.d/") == true, "\(check)")
    }

    @Test("the source enabled (deb822 or a one-line .list): ok, with the repository's address")
    func enabled() throws {
        try write("/usr/bin/brados\n", to: "var/lib/dpkg/info/brados.list")
        try write("Types: deb\nURIs: http://127.0.0.1:8080/\nSuites: stable\nComponents: main\nSigned-By: /usr/share/keyrings/brados-archive-keyring.gpg\n",
                  to: "etc/apt/sources.list.d/brados.sources")
        let check = Doctor.updates(root: root.url)
        #expect(check.status == .ok && check.detail.contains("http://127.0.0.1:8080/"), "\(check.detail)")
        try FileManager.default.removeItem(at: root.url.appendingPathComponent("etc/apt/sources.list.d/brados.sources"))
        try write("deb [signed-by=/usr/share/keyrings/brados-archive-keyring.gpg] https://apt.example.org/ stable main\n", to: "etc/apt/sources.list.d/brados.list")
        let line = Doctor.updates(root: root.url)
        #expect(line.status == .ok && line.detail.contains("https://apt.example.org/"), "\(line.detail)")
    }
}
