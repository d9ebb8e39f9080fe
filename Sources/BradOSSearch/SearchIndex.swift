import BradOSCore
import BradOSStorage
import Foundation
import GRDB
import GRDBSQLite

/// `brados search`'s index of one profile: an SQLite FTS5 table over every domain's
/// documents, at `<profile cache>/search/index.sqlite`, opened through ``SQLiteStore``.
///
/// It is derived data: never exported, removed with the profile, rebuilt by `brados search
/// --reindex`, and moved aside and rebuilt when damaged. It is never ahead of or behind the
/// caches: a domain's cache marks what it changes in the same transaction or write as the
/// change (``SearchRevision``, or a new stamp for a file), and every search first brings the
/// index up to each domain's stamp (``update(_:in:)``), in one transaction per domain (a
/// search killed half-way leaves the index at its last stamp, which the next run moves on).
///
/// The text is tokenized by `unicode61` with diacritics removed (`café` finds `cafe`), and
/// words inside unspaced scripts and emoji are found through their grams (``SearchGrams``);
/// the title weighs five times the body in the ranking (bm25), its grams too.
public struct SearchIndex: Sendable {
    public let url: URL

    public init(profile: ProfileScope) {
        url = profile.cacheDirectory.appendingPathComponent("search", isDirectory: true).appendingPathComponent("index.sqlite")
    }

    public init(url: URL) { self.url = url }

    /// What one update did, per domain that changed.
    public struct UpdateReport: Sendable, Equatable {
        public var written: [String: Int] = [:]
        public var removed: [String: Int] = [:]
        /// Domains whose cache could not be read (their documents stay as they were), and why.
        public var failed: [String: String] = [:]
        public var isEmpty: Bool { written.values.allSatisfy { $0 == 0 } && removed.values.allSatisfy { $0 == 0 } }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE source (
                    domain TEXT PRIMARY KEY,
                    store TEXT NOT NULL,
                    revision INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE document (
                    id INTEGER PRIMARY KEY,
                    domain TEXT NOT NULL,
                    key TEXT NOT NULL,
                    date REAL,
                    command TEXT NOT NULL,
                    UNIQUE (domain, key)
                );
                CREATE VIRTUAL TABLE document_text USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2');
                """)
        }
        // Ids in date order (``SearchFeed/slotBits``) and a prefix index for one letter (`a*`
        // reads one list, not the thousands of words it starts: 9 ms to 0.2 ms at 151k
        // documents, for 35 % more index; two letters read few enough words without one):
        // every document is read again from the caches.
        migrator.registerMigration("v2-newest-first") { db in
            try db.execute(sql: """
                DROP TABLE document_text;
                DROP TABLE document;
                DELETE FROM source;
                CREATE TABLE document (
                    id INTEGER PRIMARY KEY,
                    domain TEXT NOT NULL,
                    key TEXT NOT NULL,
                    date REAL,
                    command TEXT NOT NULL,
                    UNIQUE (domain, key)
                );
                CREATE VIRTUAL TABLE document_text USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '1');
                """)
        }
        // A quarter smaller (bench/search.py: 80 MB to 60 MB at 151k documents): ids of documents
        // near in time near each other (SearchFeed.slotBits), a domain's number and a
        // command's in each document (the messages of a conversation share one), the key
        // index on a hash of the key.
        migrator.registerMigration("v3-compact") { db in
            try db.execute(sql: """
                DROP TABLE document_text;
                DROP TABLE document;
                DELETE FROM source;
                CREATE TABLE domain (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE
                );
                CREATE TABLE command (
                    id INTEGER PRIMARY KEY,
                    text TEXT NOT NULL UNIQUE
                );
                CREATE TABLE document (
                    id INTEGER PRIMARY KEY,
                    domain INTEGER NOT NULL,
                    key TEXT NOT NULL,
                    hash INTEGER NOT NULL,
                    date REAL,
                    command INTEGER NOT NULL
                );
                CREATE INDEX document_key ON document (domain, hash);
                CREATE VIRTUAL TABLE document_text USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '1');
                """)
        }
        // Words inside Chinese, Japanese, Korean and Thai text, and emoji (SearchGrams): two
        // columns more, every document read again from the caches (once, with progress).
        migrator.registerMigration("v4-grams") { db in
            try db.execute(sql: """
                DROP TABLE document_text;
                DELETE FROM document;
                DELETE FROM command;
                DELETE FROM source;
                CREATE VIRTUAL TABLE document_text USING fts5(title, body, title_grams, body_grams,
                    tokenize = 'unicode61 remove_diacritics 2', prefix = '1');
                """)
        }
        return migrator
    }

    /// The last migration: an index without it is brought up to it before it is read.
    static let currentSchema = "v4-grams"

    /// Opens (creating) the index; a damaged one is set aside and started again (it is derived).
    func open() throws -> DatabasePool {
        try SQLiteStore.mapErrors(at: url.path) {
            try SQLiteStore.openReplacingDamaged(url, open: { try SQLiteStore.open($0, contents: .fetchable, migrator: Self.migrator) },
                                                 damaged: { try? FileSystem.remove($0) })
        }
    }

    /// Brings the index up to where each domain's cache stands: each plugin's documents, in
    /// one transaction per domain; a domain that yields nothing (or is gone) is removed.
    /// - Throws: ``StorageError``, or a plugin's errors reading its cache.
    /// - Parameter progress: told the domain being read and how many of its documents were
    ///   written so far (every 1,024).
    @discardableResult
    public func update(_ plugins: [any FeedsSearch], in profile: ProfileScope,
                       progress: ((_ domain: String, _ written: Int) -> Void)? = nil) throws -> UpdateReport {
        var report = UpdateReport()
        let names = Set(plugins.map(\.name))
        // First a read-only look: a domain whose cache has not moved costs no write, and a warm
        // search opens nothing for writing.
        let behind = try self.behind(plugins, in: profile, failed: &report.failed)
        if let behind, behind.isEmpty { return report }
        let pool = try open()
        try SQLiteStore.mapErrors(at: url.path) {
            try pool.writeWithoutTransaction { db in
                var domains = names
                for plugin in behind ?? plugins where report.failed[plugin.name] == nil {
                    do {
                        progress?(plugin.name, 0)
                        try Self.feed(plugin, in: profile, db, report: &report) { progress?(plugin.name, $0) }
                    } catch let error as DatabaseError {
                        throw error // the index's own
                    } catch {
                        // The domain's cache could not be read: its documents stay as they were
                        // (rolled back together with their stamp), the other domains go on.
                        report.failed[plugin.name] = error.summaryText
                    }
                }
                // Domains no longer registered.
                domains.formUnion(try String.fetchAll(db, sql: "SELECT domain FROM source"))
                for gone in domains.subtracting(plugins.map(\.name)) {
                    try db.inTransaction(.immediate) {
                        try SearchFeed(db: db, domain: gone, indexed: nil).removeAll()
                        return .commit
                    }
                }
            }
        }
        return report
    }

    /// One domain's documents brought up to date, in one transaction of the index.
    static func feed(_ plugin: any FeedsSearch, in profile: ProfileScope, _ db: Database, report: inout UpdateReport,
                     progress: ((Int) -> Void)? = nil) throws {
        try db.inTransaction(.immediate) {
            let feed = SearchFeed(db: db, domain: plugin.name, indexed: try stamp(of: plugin.name, db))
            feed.progress = progress
            try plugin.searchDocuments(in: profile, into: feed)
            if feed.stamp == nil { try feed.removeAll() }
            // Documents without their stamp would never be checked again.
            if feed.stamp != nil, feed.wanted != .nothing, !feed.finished {
                preconditionFailure("\(plugin.name): searchDocuments(in:into:) began a feed and did not finish it")
            }
            if feed.written + feed.removed > 0 {
                report.written[plugin.name] = feed.written
                report.removed[plugin.name] = feed.removed
            }
            return .commit
        }
    }

    static func stamp(of domain: String, _ db: Database) throws -> SearchStamp? {
        try Row.fetchOne(db, sql: "SELECT store, revision FROM source WHERE domain = ?", arguments: [domain]).map { SearchStamp(origin: $0[0], revision: $0[1]) }
    }

    /// The plugins whose caches moved since the index took their documents, read without
    /// writing anything; `nil` when everything must be looked at (no index yet, one that
    /// cannot be read, or documents of a domain no longer registered).
    func behind(_ plugins: [any FeedsSearch], in profile: ProfileScope, failed: inout [String: String]) throws -> [any FeedsSearch]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let names = Set(plugins.map(\.name))
        // The stamps through SQLite's C API: a warm search opens no GRDB queue to learn that
        // nothing moved. An index that cannot be read this way (damaged, another schema) is
        // looked at the full way, which repairs it.
        guard let answers = try? SQLiteQuery.rows(url, [("SELECT domain, store, revision FROM source", []),
                                                        ("SELECT count(*) FROM grdb_migrations WHERE identifier = ?", [Self.currentSchema])]),
              case .integer(1) = answers[1].first?[0]
        else { return nil }
        let rows = answers[0]
        var held: [String: SearchStamp] = [:]
        for row in rows {
            guard let domain = row[0].text, let origin = row[1].text, case let .integer(revision) = row[2] else { return nil }
            held[domain] = SearchStamp(origin: origin, revision: revision)
        }
        // A domain with documents always has a stamp (documents and stamp are written together).
        if !Set(held.keys).subtracting(names).isEmpty { return nil }
        var behind: [any FeedsSearch] = []
        for plugin in plugins {
            let probe = SearchFeed(db: nil, domain: plugin.name, indexed: held[plugin.name], probing: true)
            do {
                try plugin.searchDocuments(in: profile, into: probe)
                if probe.stamp == nil && held[plugin.name] != nil { behind.append(plugin) }
            } catch is SearchFeed.Behind {
                behind.append(plugin)
            } catch {
                failed[plugin.name] = error.summaryText
            }
        }
        return behind
    }

    /// Removes the named domains' documents (e.g. after `brados cache clear`); the next update
    /// reads them again from whatever the caches hold. Nothing when there is no index.
    /// - Throws: ``StorageError``.
    public func forget(domains: [String]) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let pool = try open()
        try SQLiteStore.mapErrors(at: url.path) {
            try pool.write { db in
                for domain in domains { try SearchFeed(db: db, domain: domain, indexed: nil).removeAll() }
            }
        }
    }

    /// Deletes the index (`--reindex`, a profile erased): the next update builds it again.
    /// - Throws: ``StorageError``.
    public func remove() throws {
        for suffix in [""] + SQLiteStore.sidecarSuffixes {
            let path = url.path + suffix
            if unlink(path) != 0 && errno != ENOENT { throw StorageError.io(operation: "unlink", path: path, errno: errno) }
        }
    }

    /// The documents, newest first or best match first (``SearchQuery/order``).
    /// - Throws: ``SearchError`` for a query FTS5 cannot parse, ``StorageError``.
    public func search(_ query: SearchQuery) throws -> [SearchHit] {
        let text = query.match
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw SearchError.emptyQuery }
        // Ranking costs the terms times their matches: a query of hundreds of terms would run
        // for minutes. Refused up front; anything still too slow is stopped at the deadline.
        // Counted in what the person typed (a Japanese word's grams are one word's).
        let terms = query.text.split(whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == ")" }).count
        guard terms <= SearchQuery.maximumTerms else { throw SearchError.tooManyTerms(terms) }
        if !FileManager.default.fileExists(atPath: url.path) { _ = try open() }
        // Newest first: the matches in descending id order, which is date order
        // (SearchFeed.slotBits), with their highlights, in one pass that stops after `limit`
        // (the auxiliary functions run for the rows returned only). No bm25 score: it counts
        // every document holding each term, for every row (`the` at 452k documents: 3.4 ms
        // of the query's 3.7).
        // Best match first: the best `limit` by bm25 alone, then the highlights of those only,
        // each found by its rowid (CROSS JOIN keeps that order): a highlight or a snippet of
        // every match of a common word would cost more than the ranking.
        var join = "", filter = ""
        var arguments: [(any Sendable)?] = [text]
        if let domains = query.domains, !domains.isEmpty {
            // The match is read first and each match's domain looked up by its id (a
            // `rowid IN (…)` filter would run the match once per document of the domain).
            join = " CROSS JOIN document AS d ON d.id = document_text.rowid"
            filter = " AND d.domain IN (SELECT id FROM domain WHERE name IN (\(domains.map { _ in "?" }.joined(separator: ", "))))"
            arguments += domains.map { $0 as (any Sendable)? }
        }
        arguments.append(query.limit)
        let marks = """
            highlight(document_text, 0, char(1), char(2)) AS title,
                snippet(document_text, 1, char(1), char(2), '…', 16) AS snippet
            """
        let sql: String
        switch query.order {
        case .newest:
            sql = """
                SELECT m.name, d.key, d.date, c.text, top.title, top.snippet, NULL
                FROM (SELECT document_text.rowid AS id, \(marks)
                      FROM document_text\(join)
                      WHERE document_text MATCH ?\(filter) ORDER BY document_text.rowid DESC LIMIT ?) AS top
                CROSS JOIN document AS d ON d.id = top.id
                CROSS JOIN domain AS m ON m.id = d.domain CROSS JOIN command AS c ON c.id = d.command
                ORDER BY top.id DESC
                """
        case .relevance:
            arguments.append(text)
            sql = """
                WITH top AS (
                    SELECT document_text.rowid AS id, bm25(document_text, 5.0, 1.0, 5.0, 1.0) AS score
                    FROM document_text\(join)
                    WHERE document_text MATCH ?\(filter) ORDER BY score LIMIT ?)
                SELECT m.name, d.key, d.date, c.text, \(marks), top.score
                FROM top CROSS JOIN document_text CROSS JOIN document AS d CROSS JOIN domain AS m CROSS JOIN command AS c
                WHERE document_text MATCH ? AND document_text.rowid = top.id AND d.id = top.id AND m.id = d.domain AND c.id = d.command
                ORDER BY top.score
                """
        }
        // One read-only connection through SQLite's C API, stopped at the deadline.
        do {
            return try SQLiteQuery.run(url, [(sql, arguments)], deadline: SearchQuery.deadline)[0].map { row in
                SearchHit(domain: row[0].text ?? "", id: row[1].text ?? "", date: row[2].double.map(Date.init(timeIntervalSince1970:)),
                          command: SearchDocument.command(row[3].text ?? "", forKey: row[1].text ?? ""),
                          markedTitle: SearchHit.marking(query.unspacedWords, in: row[4].text ?? ""),
                          markedSnippet: SearchHit.marking(query.unspacedWords, in: row[5].text ?? ""), score: row[6].double.map { -$0 })
            }
        } catch let failure as SQLiteQuery.Failure where failure.code == SQLITE_INTERRUPT {
            throw SearchError.tooSlow(query: query.text, seconds: Int(SearchQuery.deadline.components.seconds))
        } catch let failure as SQLiteQuery.Failure where failure.code == SQLITE_ERROR && !failure.message.hasPrefix("no such table") {
            throw SearchError.badQuery(query: query.text, reason: failure.message)
        } catch let failure as SQLiteQuery.Failure {
            throw StorageError.database(path: url.path, detail: failure.message)
        }
    }

    /// How many documents each domain has in the index.
    /// - Throws: ``StorageError``.
    public func counts() throws -> [String: Int] {
        if !FileManager.default.fileExists(atPath: url.path) { _ = try open() }
        return try SQLiteStore.readExisting(url, migrate: { _ = try open() }) { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT m.name, count(*) FROM document AS d JOIN domain AS m ON m.id = d.domain GROUP BY d.domain").map { ($0[0], $0[1]) })
        }
    }
}
