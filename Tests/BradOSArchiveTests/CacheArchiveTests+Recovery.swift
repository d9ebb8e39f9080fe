import ArgumentParser
@testable import BradOSArchive
@testable import BradOSCore
import BradOSStorage
import Crypto
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

// An import killed mid-swap, the staging marker, the key-value store in the journal.
extension CacheArchiveTests {
    /// What a killed import leaves: staged data for `beta`, a journal of the one move it made
    /// (the target's `beta` aside, the staged one in its place), no lock holder.
    /// - Returns: the import's staging folder.
    func killedImport(_ name: String, into target: ProfileScope) throws -> URL {
        let folder = paths.dataRoot.appendingPathComponent(".staging/\(name)", isDirectory: true)
        let staged = folder.appendingPathComponent("beta", isDirectory: true)
        try FileSystem.createDirectory(staged)
        try AtomicFile.write(Data("new".utf8), to: staged.appendingPathComponent("notes.json"))
        var journal = SwapJournal(url: folder.appendingPathComponent("journal.json"))
        try journal.replace(target.dataDirectory(for: "beta"), with: staged, trash: folder.appendingPathComponent(".replaced-beta"))
        return folder
    }

    @Test("an import killed mid-swap is rolled back by the next brados: the profile is as it was")
    func recoveryAfterKill() throws {
        let source = profile("default")
        try fill(source, seed: 3)
        let target = profile("victim")
        try fill(target, seed: 9)
        let before = try snapshot(target)
        let folder = try killedImport("import-1", into: target)
        #expect(try snapshot(target) != before)
        // A live import (its lock held) is left alone.
        let lock = try FileLock(url: folder.appendingPathComponent(".lock"))
        try lock.lock()
        #expect(CacheImportRecovery.recover(paths).isEmpty)
        lock.unlock()
        #expect(CacheImportRecovery.recover(paths) == [folder])
        #expect(try snapshot(target) == before)
        #expect(!FileSystem.exists(folder))
    }

    @Test("commands look for a killed import only when the staging marker says one may have run; the marker goes once nothing is left")
    func recoveryMarker() throws {
        let target = profile("victim")
        try fill(target, seed: 5)
        let before = try snapshot(target)
        let marker = StagingMarker(paths: paths)
        // An import holds the marker from before its first staging folder; killed mid-swap.
        let hold = try marker.hold()
        let folder = try killedImport("import-3", into: target)
        hold.release()
        #expect(marker.isSet)
        #expect(CacheImportRecovery.recoverIfMarked(paths) == [folder])
        #expect(try snapshot(target) == before)
        #expect(!marker.isSet, "the marker stays after everything was recovered")
        // Without the marker, nothing is looked at (the folder of an import from before the
        // marker existed is left to `recover`).
        try FileSystem.createDirectory(folder)
        #expect(CacheImportRecovery.recoverIfMarked(paths).isEmpty)
        #expect(FileSystem.exists(folder))
        // A running import's hold keeps the marker even when its folders are all there is.
        let running = try marker.hold()
        #expect(CacheImportRecovery.recoverIfMarked(paths).isEmpty)
        #expect(marker.isSet)
        running.release()
        #expect(CacheImportRecovery.recoverIfMarked(paths).isEmpty)
        #expect(!marker.isSet)
        // While recovery looks, no import or export can take the marker (it would wait), so none
        // can make a staging folder that the marker's removal then hides from the next command.
        _ = try marker.hold()
        let excluded = marker.recover {
            let other = open(marker.url.path, O_RDONLY | O_CLOEXEC)
            defer { close(other) }
            return (flock(other, LOCK_SH | LOCK_NB) != 0 ? [marker.url] : [], 0)
        }
        #expect(excluded == [marker.url], "an import could take the marker while recovery was looking")
        #expect(!marker.isSet)
    }

    @Test("the key-value store is inside the journal: a kill after the load puts back the store as it was (or removes one that was not there)")
    func keyValueStoreInJournal() throws {
        let target = profile("victim")
        try fill(target, seed: 4)
        try AtomicFile.write(Data(#"{"visits":"before"}"#.utf8), to: target.defaultsFile)
        let before = try snapshot(target)
        let folder = paths.dataRoot.appendingPathComponent(".staging/import-2", isDirectory: true)
        var journal = SwapJournal(url: folder.appendingPathComponent("journal.json"))
        try journal.preserve(target.defaultsFile, backup: folder.appendingPathComponent("defaults-before.json"))
        try AtomicFile.write(Data(#"{"visits":"imported"}"#.utf8), to: target.defaultsFile)
        // Killed here: the next brados rolls the store back with the folders.
        #expect(CacheImportRecovery.recover(paths) == [folder])
        #expect(try AtomicFile.readIfPresent(target.defaultsFile) == Data(#"{"visits":"before"}"#.utf8))
        #expect(try snapshot(target) == before)
        // A store that did not exist before the import does not exist after its rollback.
        let fresh = profile("fresh")
        var second = SwapJournal(url: folder.appendingPathComponent("journal.json"))
        try second.preserve(fresh.defaultsFile, backup: folder.appendingPathComponent("defaults-before.json"))
        try AtomicFile.write(Data("{}".utf8), to: fresh.defaultsFile)
        let rolledBack = second.rollBack()
        #expect(rolledBack)
        #expect(!FileSystem.exists(fresh.defaultsFile))
        // Nothing of either import is left, not even the `.staging` folders.
        _ = CacheImportRecovery.recover(paths)
        #expect(!FileSystem.exists(paths.dataRoot.appendingPathComponent(".staging")))
        #expect(!FileSystem.exists(target.dataDirectory.appendingPathComponent(".staging")))
    }

    @Test("a failed import leaves no .staging folder behind")
    func failedImportLeavesNoStaging() throws {
        let source = profile("default")
        try fill(source)
        let archive = try export(source)
        let data = try Data(contentsOf: archive)
        let truncated = root.url.appendingPathComponent("truncated.tar.zst")
        try data.prefix(data.count / 2).write(to: truncated)
        let target = profile("other")
        #expect(throws: ArchiveError.self) { try importArchive(truncated, into: target) }
        for side in [paths.cacheRoot, paths.dataRoot] {
            #expect(!FileSystem.exists(side.appendingPathComponent(".staging")))
        }
        #expect(FileSystem.regularFiles(under: target.cacheDirectory).isEmpty && FileSystem.regularFiles(under: target.dataDirectory).isEmpty)
    }
}
