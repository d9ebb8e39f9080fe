import BradOSCore
import Foundation
@testable import MusicLibrary
import Testing
import TestSupport

@Suite("Library: the snapshot")
struct SnapshotTests {
    @Test("the snapshot round-trips; another format version reads as missing and is left for the next refresh")
    func snapshot() throws {
        let dir = TemporaryDirectory()
        let store = LibrarySnapshotCache(url: dir.path("snapshot.json"))
        let snapshot = LibrarySnapshot(savedAt: Date(timeIntervalSince1970: 1_800_000_000), sectionKey: "1", sectionTitle: "Music",
                                       albums: [makeAlbum("1")], collections: [PlexCollection(ratingKey: "5", title: "C", childCount: 1, thumb: nil)])
        try store.save(snapshot)
        #expect(store.load() == snapshot)
        var future = snapshot
        future.formatVersion = 2
        try JSONCoding.encode(future).write(to: dir.path("snapshot.json"))
        #expect(store.load() == nil)
        // Left for the brados that wrote it (the next save here replaces it).
        #expect(FileManager.default.fileExists(atPath: dir.path("snapshot.json").path))
    }

    @Test("duplicates (same title, artist, year) are dropped, keeping the first")
    func dedup() {
        let albums = [makeAlbum("1", title: "A"), makeAlbum("2", title: "a"), makeAlbum("3", title: "A", year: 2001), makeAlbum("4", title: "B")]
        #expect(deduplicated(albums).map(\.ratingKey) == ["1", "3", "4"])
    }
}
