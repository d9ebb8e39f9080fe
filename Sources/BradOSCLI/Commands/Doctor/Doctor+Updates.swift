import BradOSCore
import Foundation

// Where the next version comes from: the brados apt repository, or by hand.
extension Doctor {
    /// The keyring the brados apt source names (`Signed-By`), installed by the `.deb`.
    static let archiveKeyring = "/usr/share/keyrings/brados-archive-keyring.gpg"
    /// The source the `.deb` installs and never enables.
    static let shippedSource = "/usr/share/brados/apt/brados.sources"

    /// Whether updates come from the brados apt repository: an enabled source under
    /// `root`/etc/apt that names its keyring (ok, with its address); a brados installed from a
    /// `.deb` with no such source (warn: how to enable it); otherwise (a tarball, a build) ok,
    /// updated by hand. `root` is `/` but in tests.
    static func updates(root: URL = URL(fileURLWithPath: "/")) -> DoctorCheck {
        let apt = root.appendingPathComponent("etc/apt")
        var files = [apt.appendingPathComponent("sources.list")]
        let parts = apt.appendingPathComponent("sources.list.d")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: parts.path)) ?? []).sorted()
        where name.hasSuffix(".sources") || name.hasSuffix(".list") {
            files.append(parts.appendingPathComponent(name))
        }
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8), text.contains("brados-archive-keyring.gpg") else { continue }
            let address = text.split(separator: "\n").lazy.compactMap { line -> String? in
                let words = line.split(separator: " ")
                if line.hasPrefix("URIs:") { return words.dropFirst().first.map(String.init) }
                if line.hasPrefix("deb ") || line.hasPrefix("deb [") { return words.first { $0.hasPrefix("http") || $0.hasPrefix("file:") }.map(String.init) }
                return nil
            }.first ?? "its address"
            return DoctorCheck(name: "updates", status: .ok, detail: "from the brados apt repository (\(address), \(file.path)): apt upgrade brings new versions")
        }
        if FileManager.default.fileExists(atPath: root.appendingPathComponent("var/lib/dpkg/info/brados.list").path) {
            return DoctorCheck(name: "updates", status: .warn, detail: "brados was installed from a .deb, and no apt source brings new versions",
                               fix: "sudo cp \(shippedSource) /etc/apt/sources.list.d/ && sudo apt-get update (docs/install.md)")
        }
        return DoctorCheck(name: "updates", status: .ok, detail: "not installed by apt (a tarball or a build): new versions come by hand")
    }
}
