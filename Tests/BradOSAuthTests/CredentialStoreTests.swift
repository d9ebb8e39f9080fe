@testable import BradOSAuth
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import TestSupport
import Testing

/// Where secrets live: the keyring, the file, `auto` between them, and moving them.
@Suite("Credentials: the keyring and the file")
struct CredentialStoreTests {
    static func credential(_ token: String, user: String = "demo") -> Credential {
        Credential(accessToken: token, refreshToken: "refresh-\(token)", expiresAt: nil, user: user, userID: "u-\(user)",
                   server: "http://127.0.0.1:9", obtainedAt: Date(timeIntervalSince1970: 1_800_000_000))
    }

    struct Fixture {
        let dir = TemporaryDirectory()
        let keyring = MemoryKeyring()
        let notices = Locked<[String]>([])
        var paths: Paths { Paths.resolve(environment: ["BRADOS_HOME": dir.url.path]) }

        func store(_ choice: CredentialStoreChoice, profile: ProfileName = .default) -> CredentialStore {
            CredentialStore(paths: paths, profile: profile, choice: choice, keyring: keyring,
                            notify: { [notices] notice in notices.withLock { $0.append(notice) } })
        }

        var fileText: String { (try? String(contentsOf: store(.file).url, encoding: .utf8)) ?? "" }
    }

    static let account = KeyringAttributes(profile: "default", service: "account")

    @Test("keyring: the secret is an item with application, profile and service; the file keeps only its name")
    func keyringStore() throws {
        let fixture = Fixture()
        try fixture.store(.keyring).save(CredentialSet(account: Self.credential("tok-1"), services: ["plex": Self.credential("tok-2")]))
        let item = try #require(fixture.keyring.items[Self.account])
        #expect(try JSONCoding.decode(Credential.self, from: Data(item.utf8)) == Self.credential("tok-1"))
        #expect(fixture.keyring.items[KeyringAttributes(profile: "default", service: "plex")] != nil)
        #expect(!fixture.fileText.contains("tok-"), "no token in the file")
        #expect(fixture.fileText.contains("\"keyring\""))
        #expect(try fixture.store(.file).loadForUpdate().account?.accessToken == "tok-1", "read from where it lives, whatever the choice")
        #expect(fixture.notices.value.isEmpty)
    }

    @Test("auto: the keyring when it answers; the file when none does, said once; keyring: refuses without one")
    func autoFallsBack() throws {
        let fixture = Fixture()
        fixture.keyring.state.withLock { $0.absent = true }
        try fixture.store(.auto).save(CredentialSet(account: Self.credential("tok-1")))
        #expect(fixture.fileText.contains("tok-1"))
        #expect(fixture.notices.value.count == 1 && fixture.notices.value[0].contains("brados auth migrate --to keyring"))
        // A renewal of a secret already in the file says nothing more.
        try fixture.store(.auto).save(CredentialSet(account: Self.credential("tok-2")))
        #expect(fixture.notices.value.count == 1)
        #expect(throws: AuthError.keyring(.noService("absent"))) {
            try fixture.store(.keyring).save(CredentialSet(account: Self.credential("tok-2"), services: ["plex": Self.credential("p")]))
        }
        #expect(try fixture.store(.file).loadForUpdate().services.isEmpty, "nothing written by the refused save")

        let answering = Fixture()
        try answering.store(.auto).save(CredentialSet(account: Self.credential("tok-1")))
        #expect(answering.keyring.items[Self.account] != nil && answering.notices.value.isEmpty)
        // A locked keyring refuses the new secret: auto puts it in the file and says why.
        answering.keyring.state.withLock { $0.locked = true; $0.items = [:] }
        try answering.store(.auto).save(CredentialSet(services: ["plex": Self.credential("p")]))
        #expect(answering.notices.value.count == 1 && answering.notices.value[0].contains("locked"))
    }

    @Test("a secret stays where it lives when it changes (a renewal), whatever credentials.store says")
    func staysWhereItLives() throws {
        let fixture = Fixture()
        try fixture.store(.keyring).save(CredentialSet(account: Self.credential("tok-1")))
        try fixture.store(.file).save(CredentialSet(account: Self.credential("tok-2"), services: ["plex": Self.credential("p")]))
        #expect(fixture.keyring.items[Self.account]?.contains("tok-2") == true)
        #expect(fixture.fileText.contains("refresh-p") && !fixture.fileText.contains("tok-2"))
        // Signed out of one service: its item goes.
        try fixture.store(.file).save(CredentialSet(services: ["plex": Self.credential("p")]))
        #expect(fixture.keyring.items[Self.account] == nil)
    }

    @Test("locked: a secret the keyring holds is never taken for a sign-out, nor overwritten")
    func lockedKeyring() throws {
        let fixture = Fixture()
        try fixture.store(.keyring).save(CredentialSet(account: Self.credential("tok-1")))
        fixture.keyring.state.withLock { $0.locked = true }
        #expect(throws: AuthError.keyring(.locked)) { try fixture.store(.auto).loadForUpdate() }
        // A read for display needs no keyring: who is signed in comes from the file, never a token.
        let shown = fixture.store(.auto).load().account
        #expect(shown?.user == Self.credential("tok-1").user && shown?.accessToken == "", "\(String(describing: shown))")
        let inventory = fixture.store(.auto).inventory()
        #expect(inventory.secrets == [.init(name: "account", location: .keyring, problem: KeyringFailure.locked.reason)])
        #expect(throws: AuthError.keyring(.locked)) { try fixture.store(.auto).remove() }
        fixture.keyring.state.withLock { $0.locked = false }
        #expect(try fixture.store(.auto).loadForUpdate().account?.accessToken == "tok-1", "nothing erased by the refused sign-out")
        // Gone (no bus now): the index says where it is, so it is an error, not a sign-out.
        fixture.keyring.state.withLock { $0.absent = true }
        #expect(throws: AuthError.keyring(.noService("absent"))) { try fixture.store(.file).loadForUpdate() }
    }

    @Test("an item stored by hand (secret-tool) under brados's attributes is used: JSON or a bare token bound to no server")
    func storedByHand() throws {
        let fixture = Fixture()
        fixture.keyring.state.withLock { $0.items[KeyringAttributes(profile: "default", service: "plex")] = "hand-token\n" }
        let credentials = try fixture.store(.auto).loadForUpdate()
        let plex = try #require(credentials.services["plex"])
        #expect(plex.accessToken == "hand-token" && plex.isIssued(by: URL(string: "https://plex.example")!, embedded: false))
        #expect(fixture.store(.file).load().services["plex"] == nil, "file: the keyring is not asked")
    }

    @Test("attachments go where their service's session lives, and are removed with it")
    func attachments() throws {
        let fixture = Fixture()
        let store = fixture.store(.keyring)
        try store.save(CredentialSet(services: ["plex": Self.credential("p")]))
        try store.saveAttachment(["token": "server-secret"], "server", of: Service(rawValue: "plex"))
        #expect(fixture.keyring.items[KeyringAttributes(profile: "default", service: "plex", attachment: "server")]?.contains("server-secret") == true)
        #expect(!FileManager.default.fileExists(atPath: store.attachmentURL("server", of: Service(rawValue: "plex")).path))
        #expect(store.attachment([String: String].self, "server", of: Service(rawValue: "plex")) == ["token": "server-secret"])
        try store.removeAttachments(of: Service(rawValue: "plex"))
        #expect(fixture.keyring.items.count == 1, "the session stays, its attachment goes")
    }

    @Test("migrate: to the keyring leaves no secret in a file; back to files empties the keyring; nothing lost either way")
    func migrate() throws {
        let fixture = Fixture()
        let plex = Service(rawValue: "plex")
        try fixture.store(.file).save(CredentialSet(account: Self.credential("tok-1"), services: ["plex": Self.credential("p")]))
        try fixture.store(.file).saveAttachment(["token": "server-secret"], "server", of: plex)
        let before = try fixture.store(.file).loadForUpdate()

        let report = try fixture.store(.file).migrate(to: .keyring)
        #expect(report.moved == ["account", "plex", "plex/server"])
        #expect(!fixture.fileText.contains("tok-1") && !fixture.fileText.contains("refresh-p"))
        #expect(FileSystem.regularFiles(under: fixture.paths.credentialsDirectory).allSatisfy { file in
            !((try? String(contentsOf: file.url, encoding: .utf8)) ?? "").contains("secret")
        })
        #expect(try fixture.store(.file).loadForUpdate() == before)
        #expect(fixture.store(.file).attachment([String: String].self, "server", of: plex) == ["token": "server-secret"])
        #expect(try fixture.store(.file).migrate(to: .keyring).moved.isEmpty, "again: nothing to move")

        let back = try fixture.store(.keyring).migrate(to: .file)
        #expect(back.moved == ["account", "plex", "plex/server"])
        #expect(fixture.keyring.items.isEmpty)
        #expect(try fixture.store(.file).loadForUpdate() == before)
        #expect(fixture.store(.file).attachment([String: String].self, "server", of: plex) == ["token": "server-secret"])
    }

    @Test("migrate stopped halfway (the keyring fails at its nth store): every secret still reads, and a second run finishes", arguments: 0...2)
    func migrateStopped(failingAfter stores: Int) throws {
        let fixture = Fixture()
        try fixture.store(.file).save(CredentialSet(account: Self.credential("tok-1"), services: ["plex": Self.credential("p")]))
        try fixture.store(.file).saveAttachment(["token": "server-secret"], "server", of: Service(rawValue: "plex"))
        let before = try fixture.store(.file).loadForUpdate()
        fixture.keyring.state.withLock { $0.storesBeforeFailure = stores }
        #expect(throws: AuthError.self) { try fixture.store(.auto).migrate(to: .keyring) }
        #expect(try fixture.store(.auto).loadForUpdate() == before)
        fixture.keyring.state.withLock { $0.storesBeforeFailure = nil }
        _ = try fixture.store(.auto).migrate(to: .keyring)
        #expect(try fixture.store(.auto).loadForUpdate() == before)
        #expect(!fixture.fileText.contains("tok-1") && fixture.store(.auto).inventory().secrets.allSatisfy { $0.location == .keyring })
    }

    @Test("sign-out erases from both: the keyring's items and the file")
    func removeErasesBoth() throws {
        let fixture = Fixture()
        try fixture.store(.keyring).save(CredentialSet(account: Self.credential("tok-1")))
        try fixture.store(.file).save(CredentialSet(account: Self.credential("tok-1"), services: ["plex": Self.credential("p")]))
        fixture.keyring.state.withLock { $0.items[KeyringAttributes(profile: "work", service: "account")] = "other profile" }
        try fixture.store(.file).remove()
        #expect(fixture.keyring.items.keys.map(\.profile) == ["work"])
        #expect(!FileManager.default.fileExists(atPath: fixture.store(.file).url.path))
    }
}
