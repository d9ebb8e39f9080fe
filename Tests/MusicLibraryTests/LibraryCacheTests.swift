import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation
import GRDB
@testable import MusicLibrary
import TestSupport
import Testing

@Suite("Library: the store read in part")
struct LibraryCacheTests {
    let dir = TemporaryDirectory()

    func open() throws -> LibraryCache { try LibraryCache(url: dir.path("library.sqlite")) }

    /// An update; a delta's base is the store's generation now unless given.
    func update(_ albums: [Album], deletions: Set<String> = [], whole: Bool, at seconds: Double = 1_800_000_000,
                collections: [PlexCollection] = [], section: String = "1", origin: String? = nil, base: String? = nil,
                in database: LibraryCache? = nil) -> LibraryCache.Update {
        .init(sectionKey: section, sectionTitle: "Music", origin: origin, albums: albums, deletions: deletions, whole: whole, collections: collections,
              contentChangedAt: 7, updatedThrough: 100, at: Date(timeIntervalSince1970: seconds),
              base: base ?? (try? (database ?? (try? open()))?.header())??.generation)
    }

    /// What the store must show for a section listing: brados's order, the first of each title/artist/year.
    func expected(_ listing: [Album]) -> [Album] {
        var seen = Set<String>()
        return listing.sorted { ($0.title.lowercased(), $0.ratingKey) < ($1.title.lowercased(), $1.ratingKey) }.filter { seen.insert($0.identity).inserted }
    }

    @Test("albums are shown in brados's order, duplicates (same title, artist, year) set apart, a page read alone")
    func orderAndDuplicates() throws {
        let database = try open()
        let albums = [makeAlbum("4", title: "b"), makeAlbum("1", title: "A"), makeAlbum("2", title: "a"), makeAlbum("3", title: "A", year: 2001),
                      makeAlbum("10", title: "B")]
        let applied = try database.apply(update(albums, whole: true))
        #expect(try database.albums().map(\.ratingKey) == ["1", "3", "10"], "'a' (2) repeats 'A' (1); 'b' (4) repeats 'B' (10), whose key sorts first")
        #expect(applied.header.shownCount == 3)
        #expect(applied.changes == LibraryChanges(added: 5, updated: 0, removed: 0))
        #expect(try database.albums(limit: 1, offset: 1).map(\.ratingKey) == ["3"])
        #expect(try database.albums(limit: 5, offset: 3).isEmpty)
        // Deleting the shown one shows its duplicate.
        _ = try database.apply(update([], deletions: ["1"], whole: false))
        #expect(try database.albums().map(\.ratingKey) == ["2", "3", "10"])
        #expect(try database.header()?.shownCount == 3)
    }

    @Test("a refresh that changes nothing keeps the generation and the save time; only the confirmation time moves")
    func unchanged() throws {
        let database = try open()
        let albums = (1...50).map { makeAlbum("\($0)") }
        let first = try database.apply(update(albums, whole: true, collections: [PlexCollection(ratingKey: "9", title: "C", childCount: 2, thumb: nil)]))
        let again = try database.apply(update(albums.shuffled(), whole: true, at: 1_800_000_500,
                                              collections: [PlexCollection(ratingKey: "9", title: "C", childCount: 2, thumb: nil)]))
        #expect(again.changes == LibraryChanges())
        #expect(again.header.generation == first.header.generation)
        #expect(again.header.savedAt == first.header.savedAt)
        #expect(again.header.checkedAt == Date(timeIntervalSince1970: 1_800_000_500))
        var retitled = albums[7]
        retitled.title = "Renamed"
        let changed = try database.apply(update([retitled], whole: false, at: 1_800_000_900,
                                                collections: [PlexCollection(ratingKey: "9", title: "C", childCount: 2, thumb: nil)]))
        #expect(changed.changes == LibraryChanges(added: 0, updated: 1, removed: 0))
        #expect(changed.header.generation != first.header.generation)
        #expect(try database.album("8")?.title == "Renamed")
        let moved = try database.apply(update([], whole: false, collections: []))
        #expect(moved.header.generation != changed.header.generation, "the collections changed")
    }

    @Test("random adds, changes and deletes, whole or partial: the store always shows what the listing does", arguments: [1, 2, 3])
    func randomized(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let database = try open()
        var server: [String: Album] = [:]
        var next = 1
        func newAlbum() -> Album {
            next += 1
            // Few titles and artists, so duplicates and ties are common.
            return Album(ratingKey: "\(next)", title: ["Blue", "blue", "Red", "Green", "Kind of Blue"].randomElement(using: &random)!,
                         artist: ["Air", "air", "Miles"].randomElement(using: &random)!, year: [nil, 1999, 2001].randomElement(using: &random)!,
                         thumb: nil, art: nil, addedAt: Int.random(in: 0...5, using: &random))
        }
        for _ in 0..<60 { let album = newAlbum(); server[album.ratingKey] = album }
        _ = try database.apply(update(Array(server.values), whole: true))
        for round in 0..<40 {
            var changed: [Album] = [], deleted = Set<String>()
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: let album = newAlbum(); server[album.ratingKey] = album; changed.append(album)
                case 1: if var album = server.values.randomElement(using: &random) {
                    album.title = ["Blue", "Red", "Green 2"].randomElement(using: &random)!
                    server[album.ratingKey] = album; changed.append(album)
                }
                default: if let key = server.keys.randomElement(using: &random) { server[key] = nil; deleted.insert(key) }
                }
            }
            let whole = round % 7 == 0
            _ = try database.apply(update(whole ? Array(server.values) : changed.filter { server[$0.ratingKey] != nil }, deletions: whole ? [] : deleted, whole: whole))
            let shown = expected(Array(server.values))
            #expect(try database.albums() == shown, "round \(round)")
            #expect(try database.header()?.shownCount == shown.count)
            var streamed: [Album] = []
            try database.forEachShownAlbum(batchSize: 7) { streamed += $0 }
            #expect(streamed == shown)
        }
    }

    @Test("a whole listing of another section or server replaces the store; a delta computed against another store is refused, writing nothing")
    func otherSection() throws {
        let database = try open()
        _ = try database.apply(update([makeAlbum("1"), makeAlbum("2")], whole: true))
        #expect(throws: LibraryCache.BaseMoved.self) { try database.apply(update([makeAlbum("3")], whole: false, section: "2")) }
        #expect(try database.albums().map(\.ratingKey) == ["1", "2"])
        _ = try database.apply(update([makeAlbum("3")], whole: true, section: "2"))
        #expect(try database.albums().map(\.ratingKey) == ["3"])
        #expect(try database.header()?.sectionKey == "2")
        _ = try database.apply(update([makeAlbum("4")], whole: true, section: "2", origin: "abc123"))
        #expect(try database.albums().map(\.ratingKey) == ["4"])
    }

    @Test("two refreshes at once: a delta whose base another refresh changed is refused (the refresh then reads everything)")
    func baseMoved() throws {
        let database = try open()
        let first = try database.apply(update((1...5).map { makeAlbum("\($0)") }, whole: true)).header.generation
        // Another process applies its changes...
        _ = try database.apply(update([makeAlbum("6")], whole: false, base: first))
        // ...then this one's delta, computed from the first generation, arrives.
        #expect(throws: LibraryCache.BaseMoved.self) { try database.apply(update([makeAlbum("7")], deletions: ["6"], whole: false, base: first)) }
        #expect(try database.albums().map(\.ratingKey) == ["1", "2", "3", "4", "5", "6"])
        #expect(try database.confirm(first, at: Date()) == nil, "a confirmation of a generation that is gone writes nothing")
    }

    @Test("an empty section lists as a table and as JSON")
    func emptySection() throws {
        let database = try open()
        _ = try database.apply(update([], whole: true))
        let snapshot = try #require(try LibraryCacheHandle(url: database.url).existingDatabase().flatMap { db in try db.header().map { LibrarySnapshot(header: $0, database: db) } })
        for format in [OutputFormat.human, .json] {
            let io = CapturingIO(environment: [:])
            try LibraryRenderer(output: Output(io: io, format: format)).albums(snapshot, source: .network)
            #expect(io.stdout.contains(format == .json ? "\"total\" : 0" : "0 albums"), "\(io.stdout)")
        }
    }

    @Test("an older brados's JSON snapshot is moved in once (albums, duplicates, collections), without its refresh state")
    func legacy() throws {
        let legacy = dir.path("snapshot.json")
        try Data("""
            {"formatVersion":1,"savedAt":"2027-01-15T08:00:00Z","sectionKey":"1","sectionTitle":"Music",
             "albums":[{"ratingKey":"1","title":"A","artist":"X"},{"ratingKey":"3","title":"C","artist":"X"}],
             "duplicates":[{"ratingKey":"2","title":"a","artist":"x"}],
             "collections":[{"ratingKey":"9","title":"Best","childCount":2}]}
            """.utf8).write(to: legacy)
        try Data("{}".utf8).write(to: dir.path("snapshot-state.json"))
        let storage = LibraryCacheHandle(url: dir.path("library.sqlite"))
        let database = try #require(try storage.existingDatabase())
        #expect(try database.albums().map(\.ratingKey) == ["1", "3"])
        let header = try #require(try database.header())
        #expect(header.wholeAt == nil && header.updatedThrough == nil && header.contentChangedAt == nil, "the next refresh downloads every album")
        #expect(header.collections.map(\.title) == ["Best"])
        #expect(header.checkedAt == ISO8601DateFormatter().date(from: "2027-01-15T08:00:00Z"))
        #expect(!FileSystem.exists(legacy) && !FileSystem.exists(dir.path("snapshot-state.json")))
    }

    @Test("a JSON snapshot that does not decode is removed and nothing is moved")
    func legacyCorrupt() throws {
        try Data(#"{"formatVersion":1,"albums":[{"ratingKey":"$(x)"}]}"#.utf8).write(to: dir.path("snapshot.json"))
        let database = try #require(try LibraryCacheHandle(url: dir.path("library.sqlite")).existingDatabase())
        #expect(try database.header() == nil)
        #expect(!FileSystem.exists(dir.path("snapshot.json")))
        #expect(try LibraryCacheHandle(url: TemporaryDirectory().path("library.sqlite")).existingDatabase() == nil, "nothing stored: no database made")
    }

    @Test("an imported store is rebuilt: derived columns computed again, refresh state dropped, a hostile rating key refused")
    func imported() throws {
        let database = try open()
        _ = try database.apply(update([makeAlbum("1", title: "A"), makeAlbum("2", title: "a"), makeAlbum("3", title: "B")], whole: true))
        let url = database.url
        try database.writer.writeWithoutTransaction { db in
            try db.execute(sql: "UPDATE album SET shown = 1 WHERE ratingKey = '2'")
            try db.execute(sql: "UPDATE album SET sortTitle = '0' WHERE ratingKey = '3'")
        }
        try database.writer.close()
        let staged = dir.path("staged.sqlite")
        try FileManager.default.copyItem(at: url, to: staged)
        try LibraryCache.rebuildImported(staged, label: "data/library/library.sqlite")
        let rebuilt = try LibraryCache(url: staged)
        #expect(try rebuilt.albums().map(\.ratingKey) == ["1", "3"], "'2' repeats '1'; '3' (B) sorts after 'A' whatever its stored sort title")
        #expect(try rebuilt.header()?.updatedThrough == nil)
        #expect(try rebuilt.header()?.wholeAt == nil)
        try rebuilt.writer.close()

        let hostile = dir.path("hostile.sqlite")
        try FileManager.default.copyItem(at: url, to: hostile)
        try DatabaseQueue(path: hostile.path).write { try $0.execute(sql: "UPDATE album SET ratingKey = '$(touch x)' WHERE ratingKey = '3'") }
        #expect(throws: ArchiveError.self) { try LibraryCache.rebuildImported(hostile, label: "data/library/library.sqlite") }
    }

    @Test("a refresh applied to a copy in memory (no room on disk) shows the change and leaves the stored copy as it was")
    func inMemoryCopy() throws {
        let database = try open()
        _ = try database.apply(update([makeAlbum("1"), makeAlbum("2")], whole: true))
        let before = try Data(contentsOf: database.url)
        let memory = try LibraryCache.inMemory(copying: database, url: database.url)
        let applied = try memory.apply(update([makeAlbum("3")], deletions: ["1"], whole: false))
        #expect(applied.changes == LibraryChanges(added: 1, updated: 0, removed: 1))
        #expect(try memory.albums().map(\.ratingKey) == ["2", "3"])
        #expect(try database.albums().map(\.ratingKey) == ["1", "2"])
        #expect(try Data(contentsOf: database.url) == before)
        #expect(try LibraryCache.inMemory(copying: nil, url: database.url).header() == nil)
    }

    @Test("a damaged store is moved aside and a new one started")
    func damaged() throws {
        try Data(repeating: 0x41, count: 8192).write(to: dir.path("library.sqlite"))
        let database = try open()
        #expect(try database.header() == nil)
        #expect(FileSystem.exists(dir.path("library.sqlite.corrupt")))
    }
}
