import ArgumentParser
@testable import BradOSCore
@testable import BradOSSearch
import BradOSStorage
import Foundation
import GRDB
import TestSupport
import Testing

/// The search index against domains whose documents the test controls: the feed protocol
/// (everything, what changed, deletes found by the count, a new store, nothing cached), the
/// ranking and the query errors.
@Suite("Search index")
struct SearchIndexTests {
    /// A domain with a database of notes marked by `SearchRevision`, as the real domains do.
    final class NotesPlugin: FeedsSearch, @unchecked Sendable {
        struct Command: ParsableCommand {}
        let database: DatabaseQueue
        var name: String { "notes" }
        var summary: String { "notes" }
        var command: any ParsableCommand.Type { Command.self }
        var searchDescription: String { "note text" }
        var fed = 0

        init() throws {
            database = try DatabaseQueue()
            try database.write { db in
                try db.execute(sql: "CREATE TABLE note (key TEXT PRIMARY KEY, text TEXT NOT NULL, revision INTEGER NOT NULL)")
                try SearchRevision.createTable(db)
            }
        }

        func put(_ key: String, _ text: String) throws {
            try database.write { db in
                let revision = try SearchRevision.next(db)
                try db.execute(sql: "INSERT INTO note VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET text = excluded.text, revision = excluded.revision",
                               arguments: [key, text, revision])
            }
        }

        func delete(_ key: String) throws {
            try database.write { db in
                _ = try SearchRevision.next(db)
                try db.execute(sql: "DELETE FROM note WHERE key = ?", arguments: [key])
            }
        }

        func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
            try database.read { db in
                guard let stamp = try SearchRevision.stamp(db) else { return }
                let after: Int64
                switch try feed.begin(stamp) {
                case .nothing: return
                case .all: after = .min
                case let .changed(revision): after = revision
                }
                for row in try Row.fetchAll(db, sql: "SELECT key, text FROM note WHERE revision > ?", arguments: [after]) {
                    fed += 1
                    try feed.add(SearchDocument(key: row[0], title: "", body: row[1], date: nil, command: "notes show \(row[0] as String)"))
                }
                try feed.finish(count: try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? 0) { try String.fetchSet(db, sql: "SELECT key FROM note") }
            }
        }
    }

    /// A domain kept in one small file, a document a line: every document again when the file changes.
    struct LinesPlugin: FeedsSearch {
        struct Command: ParsableCommand {}
        let name: String
        let file: URL
        let document: @Sendable (Substring) -> SearchDocument
        var summary: String { name }
        var command: any ParsableCommand.Type { Command.self }
        var searchDescription: String { "lines" }

        func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
            guard let stamp = SearchStamp.file(file) else { return }
            try feed.replace(stamp: stamp) { try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(document) }
        }

        /// Each line a title.
        static func titles(_ file: URL) -> LinesPlugin {
            LinesPlugin(name: "file", file: file) {
                SearchDocument(key: String($0), title: String($0), body: "", date: Date(timeIntervalSince1970: 0), command: "file")
            }
        }

        /// `key|seconds|text` (no seconds: undated).
        static func dated(_ file: URL) -> LinesPlugin {
            LinesPlugin(name: "dated", file: file) { line in
                let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                return SearchDocument(key: parts[0], title: "", body: parts[2], date: Double(parts[1]).map(Date.init(timeIntervalSince1970:)),
                                      command: "dated \(parts[0])")
            }
        }
    }

    let dir = TemporaryDirectory("search-index")
    var index: SearchIndex { SearchIndex(url: dir.url.appendingPathComponent("index.sqlite")) }
    var profile: ProfileScope { Paths.resolve(environment: ["BRADOS_HOME": dir.url.path]).profile(ProfileName(rawValue: "default")!) }

    func keys(_ query: String, domains: [String]? = nil) throws -> [String] {
        try index.search(SearchQuery(text: query, domains: domains, limit: 100)).map(\.id).sorted()
    }

    /// The commands the index keeps (each once, however many documents name it).
    func commands() throws -> [String] {
        try DatabaseQueue(path: index.url.path).read { try String.fetchAll($0, sql: "SELECT text FROM command ORDER BY text") }
    }

    @Test("a database domain: everything first, then only what changed; deletes found by the count; a new store sends everything")
    func incremental() throws {
        let notes = try NotesPlugin()
        try notes.put("a", "protein at breakfast")
        try notes.put("b", "a long run on sunday")
        try index.update([notes], in: profile)
        #expect(notes.fed == 2)
        #expect(try keys("protein") == ["a"])

        // Nothing changed: nothing is read.
        try index.update([notes], in: profile)
        #expect(notes.fed == 2)

        // A change and an addition: only those two.
        try notes.put("b", "a short run, more protein")
        try notes.put("c", "sleep early")
        try index.update([notes], in: profile)
        #expect(notes.fed == 4)
        #expect(try keys("protein") == ["a", "b"])
        #expect(try keys("long").isEmpty)

        // A delete: no row to send, the count tells.
        try notes.delete("a")
        try index.update([notes], in: profile)
        #expect(try keys("protein") == ["b"])
        #expect(try index.counts() == ["notes": 2])
        #expect(try commands() == ["notes show b", "notes show c"], "the deleted document's command goes with it")

        // Another store (an import, a rebuilt database): every document again.
        let other = try NotesPlugin()
        try other.put("z", "protein shake")
        try index.update([other], in: profile)
        #expect(try keys("protein") == ["z"])

        // A domain no longer registered, or with nothing cached, holds nothing.
        try index.update([], in: profile)
        #expect(try index.counts().isEmpty)
    }

    @Test("a file domain: sent again when the file is rewritten, removed with it")
    func fileDomain() throws {
        let file = dir.url.appendingPathComponent("lines.txt")
        try AtomicFile.write(Data("blue train\nkind of blue\n".utf8), to: file)
        let plugin = LinesPlugin.titles(file)
        try index.update([plugin], in: profile)
        #expect(try keys("blue") == ["blue train", "kind of blue"])
        try AtomicFile.write(Data("a love supreme\n".utf8), to: file)
        try index.update([plugin], in: profile)
        #expect(try keys("blue").isEmpty && keys("supreme") == ["a love supreme"])
        try FileManager.default.removeItem(at: file)
        try index.update([plugin], in: profile)
        #expect(try index.counts().isEmpty)
    }

    @Test("ranking, domains, limit, highlights, literal words, and query errors as usage errors")
    func queries() throws {
        let notes = try NotesPlugin()
        try notes.put("one", "protein, and many other words about a long day at work, at home and on the road")
        try notes.put("two", "protein protein with breakfast, café au lait")
        try index.update([notes], in: profile)
        let hits = try index.search(SearchQuery(text: "protein", limit: 10))
        #expect(hits.map(\.id) == ["two", "one"], "bm25: more matches in a short text rank first")
        #expect(hits[0].markedSnippet.contains("\u{1}protein\u{2}") && hits[0].snippet.contains("protein") && !hits[0].snippet.contains("\u{1}"))
        #expect(SearchHit.styled(hits[0].markedSnippet) { "[\($0)]" }.contains("[protein]"))
        #expect(try index.search(SearchQuery(text: "protein", limit: 1)).count == 1)
        #expect(try keys("cafe") == ["two"], "accents are ignored")
        #expect(try keys("protein", domains: ["other"]).isEmpty)
        #expect(try index.search(SearchQuery(text: "prot*", syntax: true)).map(\.id).sorted() == ["one", "two"])
        // Words as typed by default: punctuation and operators are text, never syntax.
        #expect(try index.search(SearchQuery(text: "don't \"x", limit: 5)).isEmpty)
        #expect(try index.search(SearchQuery(text: "I'm AND (")).isEmpty)
        #expect(try keys("and (") == ["one"], "AND is a word as typed")
        #expect(try index.search(SearchQuery(text: "café,")).map(\.id) == ["two"])
        #expect(SearchQuery.literal("say \"hi\"  there") == "\"say\" \"\"\"hi\"\"\" \"there\"")
        for bad in ["AND", "\"unterminated", "(a", "nosuchcolumn:x"] {
            #expect(throws: SearchError.self, "\(bad)") { try index.search(SearchQuery(text: bad, syntax: true)) }
            #expect(throws: Never.self, "\(bad) as typed: words, never syntax") { try index.search(SearchQuery(text: bad)) }
        }
        let error = SearchError.badQuery(query: String(repeating: "x", count: 200), reason: "fts5: syntax error")
        #expect(error.kind == .usage && error.summary.count < 150 && error.recovery?.contains("drop --syntax") == true)
        #expect(throws: SearchError.emptyQuery) { try index.search(SearchQuery(text: "  ")) }
    }

    @Test("newest first by default (undated last), whatever the ranking; --sort relevance: bm25; a document whose date moves moves with it")
    func orders() throws {
        let file = dir.url.appendingPathComponent("dated.txt")
        let plugin = LinesPlugin.dated(file)
        func write(_ lines: [String]) throws {
            try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            // A new stamp each time: the file's size changes with what it holds.
            try index.update([plugin], in: profile)
        }
        try write(["old|1000|protein protein protein", "new|3000|protein and many other words in a long sentence about a day",
                   "mid|2000|protein and some other words", "undated||protein bar", "same|3000|protein in the same second as new"])
        let newest = try index.search(SearchQuery(text: "protein", limit: 10)).map(\.id)
        #expect(newest == ["same", "new", "mid", "old", "undated"], "\(newest)")
        let relevant = try index.search(SearchQuery(text: "protein", limit: 10, order: .relevance)).map(\.id)
        #expect(relevant.first == "old", "bm25: three matches in a short text first: \(relevant)")
        #expect(relevant != newest)
        // The first n of the newest order are the newest n.
        #expect(try index.search(SearchQuery(text: "protein", limit: 2)).map(\.id) == ["same", "new"])
        #expect(try index.search(SearchQuery(text: "protein", domains: ["dated"], limit: 3)).map(\.id) == ["same", "new", "mid"])
        // Its date moves: so does its place.
        try write(["old|9000|protein protein protein, read again", "new|3000|protein and many other words in a long sentence about a day",
                   "mid|2000|protein and some other words", "undated||protein bar", "same|3000|protein in the same second as new"])
        #expect(try index.search(SearchQuery(text: "protein", limit: 10)).map(\.id) == ["old", "same", "new", "mid", "undated"])
        // Prefixes of one and two letters read their own index.
        #expect(try index.search(SearchQuery(text: "p*", limit: 10, syntax: true)).count == 5)
        #expect(try index.search(SearchQuery(text: "se*", limit: 10, syntax: true)).map(\.id) == ["same", "new"])
    }

    @Test("more documents in one second than it has slots: every one kept, after the earlier seconds and before the later; commands kept once")
    func crowdedSecond() throws {
        let file = dir.url.appendingPathComponent("dated.txt")
        let plugin = LinesPlugin.dated(file)
        let bulk = (0..<40).map { "bulk\($0)" }
        try (["after|9000|protein after"] + bulk.map { "\($0)|5000|protein bulk" } + ["before|4000|protein before"])
            .joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        try index.update([plugin], in: profile)
        #expect(bulk.count > 1 << SearchFeed.slotBits)
        let newest = try index.search(SearchQuery(text: "protein", limit: 100)).map(\.id)
        #expect(newest.count == 42)
        #expect(newest.first == "after" && newest.last == "before", "\(newest)")
        #expect(Set(newest.dropFirst().dropLast()) == Set(bulk))
        #expect(try commands().count == 42)
        // Ten of them left: the others' commands leave with them.
        try (bulk.prefix(10).map { "\($0)|5000|protein bulk" } + ["before|4000|protein before"])
            .joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        try index.update([plugin], in: profile)
        #expect(try keys("protein").count == 11)
        #expect(try commands() == (bulk.prefix(10) + ["before"]).map { "dated \($0)" }.sorted())
    }

    @Test("a query of too many terms is refused, a slow one stopped at the deadline")
    func limits() throws {
        let notes = try NotesPlugin()
        try notes.put("a", "protein")
        try index.update([notes], in: profile)
        #expect(throws: SearchError.tooManyTerms(SearchQuery.maximumTerms + 1)) {
            try index.search(SearchQuery(text: Array(repeating: "a*", count: SearchQuery.maximumTerms + 1).joined(separator: " "), syntax: true))
        }
        #expect(try index.search(SearchQuery(text: Array(repeating: "protein", count: SearchQuery.maximumTerms).joined(separator: " "))).count == 1)
        let started = ContinuousClock.now
        #expect {
            try SQLiteQuery.run(index.url, [("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n", [])],
                                deadline: .milliseconds(20))
        } throws: { ($0 as? SQLiteQuery.Failure)?.code == 9 } // SQLITE_INTERRUPT
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(SearchError.tooSlow(query: "x", seconds: 5).kind == .usage)
    }

    /// A domain whose cache cannot be read.
    struct FailingPlugin: FeedsSearch {
        struct Command: ParsableCommand {}
        var name: String { "broken" }
        var searchDescription: String { "nothing it can read" }
        var summary: String { "broken" }
        var command: any ParsableCommand.Type { Command.self }
        func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
            throw StorageError.database(path: "/nowhere/broken.sqlite", detail: "database is locked")
        }
    }

    /// A domain that sends one key twice in a full feed (a store with duplicate rows).
    struct RepeatingPlugin: FeedsSearch {
        struct Command: ParsableCommand {}
        var name: String { "repeating" }
        var searchDescription: String { "one key twice" }
        var summary: String { "repeating" }
        var command: any ParsableCommand.Type { Command.self }
        func searchDocuments(in profile: ProfileScope, into feed: SearchFeed) throws {
            guard try feed.begin(SearchStamp(origin: "s", revision: 1)) != .nothing else { return }
            try feed.add(SearchDocument(key: "k", title: "blue train", body: "", date: nil, command: "x"))
            try feed.add(SearchDocument(key: "k", title: "kind of blue", body: "", date: nil, command: "x"))
            try feed.finish(count: 1) { ["k"] }
        }
    }

    @Test("a key sent twice replaces itself; a domain that cannot be read keeps its documents and the others go on")
    func duplicatesAndFailures() throws {
        let notes = try NotesPlugin()
        try notes.put("a", "protein")
        let report = try index.update([RepeatingPlugin(), FailingPlugin(), notes], in: profile)
        #expect(report.failed.keys.sorted() == ["broken"])
        #expect(try keys("blue") == ["k"] && keys("kind") == ["k"] && keys("train").isEmpty)
        #expect(try keys("protein") == ["a"])
        #expect(try index.update([RepeatingPlugin(), FailingPlugin(), notes], in: profile).failed.keys.sorted() == ["broken"])
    }

    @Test("a damaged index is set aside and built again")
    func damaged() throws {
        let notes = try NotesPlugin()
        try notes.put("a", "protein")
        try FileManager.default.createDirectory(at: dir.url, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 4096).write(to: index.url)
        try index.update([notes], in: profile)
        #expect(try keys("protein") == ["a"])
    }

    @Test("an update that takes long is told once done: how many documents, per domain (a second by default; here from the start)")
    func buildTold() throws {
        let notes = try NotesPlugin()
        for number in 0..<2500 { try notes.put("n\(number)", "note number \(number) about protein") }
        let io = CapturingIO(environment: ["BRADOS_HOME": dir.url.path, "HOME": dir.url.path], terminal: true)
        let env = try AppEnvironment(io: io, flags: GlobalFlags(offline: true), plugins: [notes], embedded: nil)
        var run = SearchRun(env: env)
        run.progressAfter = .zero
        let results = try run.run(SearchQuery(text: "protein", limit: 3), reindex: false)
        #expect(results.results.count == 3)
        #expect(io.stderr.contains("search index: 2500 documents indexed in"), "\(io.stderr)")
        #expect(io.stderr.contains("(notes 2500)"), "\(io.stderr)")
        // Nothing more to index: nothing said.
        let quiet = CapturingIO(environment: ["BRADOS_HOME": dir.url.path, "HOME": dir.url.path], terminal: true)
        var again = SearchRun(env: try AppEnvironment(io: quiet, flags: GlobalFlags(offline: true), plugins: [notes], embedded: nil))
        again.progressAfter = .zero
        _ = try again.run(SearchQuery(text: "protein"), reindex: false)
        #expect(!quiet.stderr.contains("indexed"), "\(quiet.stderr)")
    }

    @Test("Chinese, Japanese, Korean and Thai words inside longer runs, emoji, and text with isolates are found; marked in results")
    func unspacedScripts() throws {
        let notes = try NotesPlugin()
        try notes.put("tokyo", "東京駅前クリニックで血液検査。ランニングは続けてよい 👨‍👩‍👧‍👦🇯🇵")
        try notes.put("beijing", "北京协和医院体检中心：年度体检")
        try notes.put("seoul", "서울대학교병원 건강검진")
        try notes.put("thai", "โรงพยาบาลกรุงเทพ ตรวจสุขภาพ")
        try notes.put("hebrew", "מרפאה \u{2068}Dr. Cohen\u{2069}")
        try notes.put("mixed", "東京2026 marathon, 神隠しの夜")
        try notes.put("latin", "the blue train to Tokyo")
        try index.update([notes], in: profile)
        for (query, expected) in [("東京", ["mixed", "tokyo"]), ("クリニック", ["tokyo"]), ("血液検査", ["tokyo"]), ("ランニング", ["tokyo"]),
                                  ("北京", ["beijing"]), ("体检", ["beijing"]), ("건강검진", ["seoul"]), ("대학", ["seoul"]),
                                  ("ตรวจ", ["thai"]), ("駅", ["tokyo"]), ("ク", ["tokyo"]), ("🇯🇵", ["tokyo"]), ("👨‍👩‍👧‍👦", ["tokyo"]),
                                  ("Cohen", ["hebrew"]), ("東京2026", ["mixed"]), ("東京 blue", []), ("京駅前", ["tokyo"]), ("駅東", [])] {
            #expect(try keys(query) == expected, "\(query)")
        }
        #expect(try index.search(SearchQuery(text: "神隠し*", limit: 10, syntax: true)).map(\.id) == ["mixed"])
        #expect(try index.search(SearchQuery(text: "\"血液検査\" OR 体检", limit: 10, syntax: true)).map(\.id).sorted() == ["beijing", "tokyo"])
        let hit = try #require(try index.search(SearchQuery(text: "血液検査", limit: 1)).first)
        #expect(hit.markedSnippet.contains("\u{1}血液検査\u{2}"), "\(hit.markedSnippet)")
        let ranked = try index.search(SearchQuery(text: "東京", limit: 10, order: .relevance))
        #expect(ranked.count == 2 && ranked.allSatisfy { $0.score != nil })
    }

    @Test("an index of the version before (no grams) is built again once, and then finds Japanese")
    func upgradeFromV3() throws {
        let notes = try NotesPlugin()
        try notes.put("tokyo", "東京駅前クリニック")
        let pool = try DatabasePool(path: index.url.path)
        try SearchIndex.migrator.migrate(pool, upTo: "v3-compact")
        try pool.close()
        try index.update([notes], in: profile)
        #expect(notes.fed == 1)
        #expect(try keys("クリニック") == ["tokyo"])
        try index.update([notes], in: profile)
        #expect(notes.fed == 1, "once")
    }
}
