import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation
import TestSupport
import Testing

/// A renamed service: what a user kept under the old name moves once, and nothing reads it after.
@Suite("Service renames")
struct ServiceRenameTests {
    static let renamed = ServiceDescription(Service(rawValue: "nutrition"), summary: "a renamed service", formerNames: ["gtsd"])
    static let services = [ServiceDescription.account, renamed]

    static func credential(_ token: String) -> Credential {
        Credential(accessToken: token, refreshToken: "r-\(token)", expiresAt: nil, user: "me", userID: "u1",
                   server: "http://127.0.0.1:1", obtainedAt: Date(timeIntervalSince1970: 0))
    }

    @Test("the config key moves to the new name once; a new key already set wins and the old one goes")
    func configKey() throws {
        let home = TemporaryDirectory("rename")
        let paths = Paths.resolve(environment: ["BRADOS_HOME": home.url.path])
        try ConfigFile.update(at: paths.configFile) { $0.values = ["server.gtsd": "http://127.0.0.1:9/", "log": "info"] }

        let notices = try ServiceRename.migrate(paths, services: Self.services)
        #expect(notices.count == 1)
        #expect(notices.first?.contains("server.gtsd is now server.nutrition") == true)
        #expect(try ConfigFile.load(from: paths.configFile).values == ["server.nutrition": "http://127.0.0.1:9/", "log": "info"])
        let settings = Settings(flags: GlobalFlags(), environment: [:], file: try ConfigFile.load(from: paths.configFile))
        #expect(try settings.serverURL(for: Service(rawValue: "nutrition"))?.url.absoluteString == "http://127.0.0.1:9")

        // Once moved, nothing more to say and nothing rewritten.
        let modified = FileSystem.attributes(of: paths.configFile)?.modified
        #expect(try ServiceRename.migrate(paths, services: Self.services).isEmpty)
        #expect(FileSystem.attributes(of: paths.configFile)?.modified == modified)

        try ConfigFile.update(at: paths.configFile) { $0.values["server.gtsd"] = "http://127.0.0.1:8" }
        let both = try ServiceRename.migrate(paths, services: Self.services)
        #expect(both.first?.contains("removed server.gtsd") == true)
        #expect(try ConfigFile.load(from: paths.configFile).values["server.nutrition"] == "http://127.0.0.1:9/")
        #expect(try ConfigFile.load(from: paths.configFile).values["server.gtsd"] == nil)
    }

    @Test("each profile's sign-in and attachments move to the new name; other services are untouched")
    func credentials() throws {
        let home = TemporaryDirectory("rename")
        let paths = Paths.resolve(environment: ["BRADOS_HOME": home.url.path])
        let work = CredentialStore(paths: paths, profile: ProfileName(rawValue: "work")!)
        try work.save(CredentialSet(account: Self.credential("acct"), services: ["gtsd": Self.credential("n"), "plex": Self.credential("p")]))
        try work.saveAttachment(["k": "v"], "server", of: Service(rawValue: "gtsd"))
        let other = CredentialStore(paths: paths, profile: .default)
        try other.save(CredentialSet(account: Self.credential("only")))

        let notices = try ServiceRename.migrate(paths, services: Self.services)
        #expect(notices == ["credentials of profile work: service gtsd → nutrition."])
        let moved = work.load()
        #expect(moved.services.keys.sorted() == ["nutrition", "plex"])
        #expect(moved.services["nutrition"] == Self.credential("n"))
        #expect(moved.account == Self.credential("acct"))
        #expect(work.attachment([String: String].self, "server", of: Service(rawValue: "nutrition")) == ["k": "v"])
        #expect(!FileSystem.exists(work.attachmentURL("server", of: Service(rawValue: "gtsd"))))
        #expect(other.load() == CredentialSet(account: Self.credential("only")))
        #expect(try ServiceRename.migrate(paths, services: Self.services).isEmpty)
    }

    @Test("an exported old variable stands for the new one, with a notice; the new one set wins")
    func environment() {
        let (environment, notices) = ServiceRename.environment(["BRADOS_GTSD_SERVER": "http://a"], services: Self.services)
        #expect(environment == ["BRADOS_NUTRITION_SERVER": "http://a"])
        #expect(notices == ["BRADOS_GTSD_SERVER is the former name of BRADOS_NUTRITION_SERVER; using it this time. Rename it in your environment."])

        let both = ServiceRename.environment(["BRADOS_GTSD_SERVER": "http://a", "BRADOS_NUTRITION_SERVER": "http://b"], services: Self.services)
        #expect(both.environment == ["BRADOS_NUTRITION_SERVER": "http://b"])
        #expect(both.notices.first?.contains("ignoring BRADOS_GTSD_SERVER") == true)

        let untouched = ServiceRename.environment(["HOME": "/h"], services: Self.services)
        #expect(untouched.environment == ["HOME": "/h"] && untouched.notices.isEmpty)
    }
}
