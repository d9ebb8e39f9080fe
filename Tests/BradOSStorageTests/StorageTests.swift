import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import BradOSStorage

@Suite("Storage core")
struct StorageTests {
    struct Failure: Error {}

    @Test("an atomic write creates 0600 files in 0700 directories and round-trips")
    func atomicRoundTrip() throws {
        let dir = TemporaryDirectory()
        let file = dir.path("a/b/value.json")
        try AtomicFile.write(Data("hello".utf8), to: file)
        #expect(try AtomicFile.readIfPresent(file) == Data("hello".utf8))
        let fileMode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        let dirMode = try FileManager.default.attributesOfItem(atPath: dir.path("a/b").path)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(dirMode == 0o700)
    }

    @Test("a folder's names come as FileManager lists them; bytes are searched anywhere in them")
    func namesAndByteSearch() throws {
        let dir = TemporaryDirectory()
        #expect(FileSystem.names(in: dir.path("missing")).isEmpty)
        for name in ["a.json", ".hidden", "東京.json", "b"] { try AtomicFile.write(Data("x".utf8), to: dir.path("f/\(name)")) }
        try FileSystem.createDirectory(dir.path("f/sub"))
        let listed = FileSystem.names(in: dir.path("f")).sorted()
        #expect(listed == (try FileManager.default.contentsOfDirectory(atPath: dir.path("f").path)).sorted())
        #expect(listed == [".hidden", "b", "sub", "a.json", "東京.json"].sorted())
        let text = Data(#"{"services":{"oldname":{"token":"t"}}}"#.utf8)
        #expect(FileSystem.bytes(text, contain: "\"oldname"))
        #expect(FileSystem.bytes(text, contain: "}}}"), "at the very end")
        #expect(FileSystem.bytes(text, contain: "{\"s"), "at the very start")
        #expect(!FileSystem.bytes(text, contain: "\"oldnamex"))
        #expect(!FileSystem.bytes(Data("ab".utf8), contain: "abc"), "longer than the bytes")
        #expect(!FileSystem.bytes(Data("aab".utf8), contain: "aaa") && FileSystem.bytes(Data("aaab".utf8), contain: "aab"), "a partial match restarts")
    }

    @Test("a failure before the rename leaves the old file intact and no temp file behind")
    func atomicWriteSurvivesFailure() throws {
        let dir = TemporaryDirectory()
        let file = dir.path("doc.json")
        try AtomicFile.write(Data("old".utf8), to: file)
        #expect(throws: Failure.self) {
            try AtomicFile.write(Data("new".utf8), to: file, hooks: .init(beforeRename: { _ in throw Failure() }))
        }
        #expect(try AtomicFile.readIfPresent(file) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["doc.json"])
    }

    @Test("reading a missing file gives nil")
    func missingIsNil() throws {
        let dir = TemporaryDirectory()
        #expect(try AtomicFile.readIfPresent(dir.path("nope")) == nil)
    }

    struct Doc: Codable, Equatable, Sendable { var id: String; var at: Date }

    @Test("a JSON document round-trips with ISO-8601 dates")
    func documentRoundTrip() throws {
        let dir = TemporaryDirectory()
        let doc = JSONDocument<Doc>(url: dir.path("d.json"))
        let value = Doc(id: "x", at: Date(timeIntervalSince1970: 1_700_000_000.25))
        try doc.save(value)
        #expect(doc.load() == value)
        let text = try String(contentsOf: dir.path("d.json"), encoding: .utf8)
        #expect(text.contains("2023-11-14T22:13:20.250Z"))
    }

    @Test("a corrupt or truncated document reads as missing and is removed", arguments: ["{not json", "{\"id\":\"x\",\"at\":\"2023-", "", "[1,2]"])
    func corruptDocument(content: String) throws {
        let dir = TemporaryDirectory()
        let url = dir.path("d.json")
        try Data(content.utf8).write(to: url)
        let doc = JSONDocument<Doc>(url: url)
        #expect(doc.load() == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("the key-value store keeps typed values, removes keys, and treats a corrupt file as empty")
    func keyValueStore() throws {
        let dir = TemporaryDirectory()
        let store = KeyValueStore(url: dir.path("defaults.json"))
        try store.set("abc", forKey: "session")
        try store.set([1, 2, 3], forKey: "list")
        #expect(store.value(String.self, forKey: "session") == "abc")
        #expect(store.value([Int].self, forKey: "list") == [1, 2, 3])
        #expect(store.value(Int.self, forKey: "session") == nil)
        try store.removeValue(forKey: "session")
        #expect(store.keys() == ["list"])
        try Data("garbage".utf8).write(to: dir.path("defaults.json"))
        #expect(store.keys().isEmpty)
        try store.set(true, forKey: "flag")
        #expect(store.value(Bool.self, forKey: "flag") == true)
    }

    @Test("concurrent writers to the key-value store never lose each other's keys")
    func keyValueConcurrentWriters() async throws {
        let dir = TemporaryDirectory()
        let url = dir.path("defaults.json")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { try KeyValueStore(url: url).set(index, forKey: "k\(index)") }
            }
            try await group.waitForAll()
        }
        #expect(KeyValueStore(url: url).keys().count == 40)
    }

    @Test("a held lock excludes a second holder until released")
    func lockExcludes() throws {
        let dir = TemporaryDirectory()
        let first = try FileLock(url: dir.path("x.lock"))
        let second = try FileLock(url: dir.path("x.lock"))
        try first.lock()
        #expect(second.tryLock() == false)
        first.unlock()
        #expect(second.tryLock() == true)
        #expect(first.tryLock() == false)
        second.unlock()
    }

    @Test("a lock held by another process excludes this one and is released when it dies")
    func lockAcrossProcesses() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("p.lock").path
        let holder = Process()
        holder.executableURL = try SystemCommand.url("flock")
        // --no-fork: the lock holder is the process we terminate, not a child that outlives it.
        holder.arguments = ["--no-fork", path, "sh", "-c", "echo locked; exec sleep 30"]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL) }
        // "locked\n": the other process holds it now (a flock that failed to start would say nothing).
        #expect(out.fileHandleForReading.readData(ofLength: 7) == Data("locked\n".utf8))
        let lock = try FileLock(url: URL(fileURLWithPath: path))
        #expect(lock.tryLock() == false)
        // The holder dies (SIGKILL, like a crash): the kernel releases its lock.
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        #expect(lock.tryLock() == true)
    }
}

@Suite("Unnamed files")
struct UnnamedFileTests {
    let folder = TemporaryDirectory("unnamed")

    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() }

    func write(_ text: String, to file: UnnamedFile) {
        let bytes = Array(text.utf8)
        #expect(Glibc.write(file.descriptor, bytes, bytes.count) == bytes.count)
    }

    @Test("nothing has a name in the folder until publish; then the file is whole, mode 0600")
    func publishes() throws {
        let destination = folder.url.appendingPathComponent("backup.tar.zst")
        let file = try UnnamedFile(destination: destination)
        #expect(file.isUnnamed, "O_TMPFILE is expected on the file systems CI uses")
        write("archive bytes", to: file)
        #expect(try names().isEmpty)
        try file.publish(overwrite: false)
        #expect(try names() == ["backup.tar.zst"])
        #expect(try String(contentsOf: destination, encoding: .utf8) == "archive bytes")
        #expect(try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int == 0o600)
    }

    @Test("a name taken meanwhile is never replaced without overwrite, and with it is replaced whole")
    func overwrite() throws {
        let destination = folder.url.appendingPathComponent("backup.tar.zst")
        let first = try UnnamedFile(destination: destination)
        write("new", to: first)
        try Data("someone else's".utf8).write(to: destination)
        #expect(throws: StorageError.self) { try first.publish(overwrite: false) }
        first.discard()
        #expect(try String(contentsOf: destination, encoding: .utf8) == "someone else's")
        let second = try UnnamedFile(destination: destination)
        write("new", to: second)
        try second.publish(overwrite: true)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "new")
        #expect(try names() == ["backup.tar.zst"])
    }

    @Test("a throw before naming (an export interrupted while the file syncs) gives it no name, whether or not it would replace one")
    func interruptedBeforeNaming() throws {
        struct Interrupted: Error {}
        let destination = folder.url.appendingPathComponent("backup.tar.zst")
        for overwrite in [false, true] {
            let file = try UnnamedFile(destination: destination)
            write("whole archive", to: file)
            #expect(throws: Interrupted.self) { try file.publish(overwrite: overwrite, beforeNaming: { throw Interrupted() }) }
            file.discard()
            #expect(try names().isEmpty, "overwrite \(overwrite)")
        }
        try Data("yesterday's".utf8).write(to: destination)
        let replacing = try UnnamedFile(destination: destination)
        write("today's", to: replacing)
        #expect(throws: Interrupted.self) { try replacing.publish(overwrite: true, beforeNaming: { throw Interrupted() }) }
        replacing.discard()
        #expect(try String(contentsOf: destination, encoding: .utf8) == "yesterday's", "the file it would replace is kept")
        #expect(try names() == ["backup.tar.zst"])
    }

    @Test("discard leaves nothing")
    func discard() throws {
        let file = try UnnamedFile(destination: folder.url.appendingPathComponent("x"))
        write("half", to: file)
        file.discard()
        #expect(try names().isEmpty)
    }
}
