import BradOSStorage
import Foundation
import GRDB

/// Where a domain sends its documents when the search index brings itself up to date
/// (``DomainPlugin/searchDocuments(in:into:)``). It runs inside the index's write
/// transaction, so a domain's documents and the stamp they were read at are kept together
/// or not at all.
///
/// The protocol, for a domain with a database (``SearchRevision``):
/// 1. ``begin(_:)`` with where the cache stands; it says what the index needs.
/// 2. ``add(_:)`` for each document it needs: every one, or those changed after a revision.
/// 3. ``finish(count:keys:)`` with how many documents the cache holds now. The index then
///    holds every one of them (each was either unchanged since it was indexed or just sent)
///    and maybe some the cache deleted: when it holds more, ``finish(count:keys:)`` asks for
///    every key and removes the others.
///
/// A domain whose documents are a small file sends them all whenever its stamp moves:
/// ``replace(stamp:documents:)``. A domain that never calls ``begin(_:)`` holds nothing:
/// the index removes what it had of it.
public final class SearchFeed {
    /// What the index needs of the domain.
    public enum Wanted: Sendable, Equatable {
        /// It is up to date: send nothing.
        case nothing
        /// Every document.
        case all
        /// The documents changed after this revision of the same store.
        case changed(after: Int64)
    }

    /// The index's write transaction (`nil` for a probing feed, which writes nothing).
    private let transaction: Database?
    private var db: Database { transaction! }
    let domain: String
    let indexed: SearchStamp?
    package private(set) var stamp: SearchStamp?
    package private(set) var wanted: Wanted?
    package private(set) var finished = false
    /// Told how many documents were written so far, every 1,024 (the first build's progress).
    package var progress: ((Int) -> Void)?
    /// Documents written and removed, for the report.
    package private(set) var written = 0
    package private(set) var removed = 0
    private var empty = false
    /// Keys added since the domain's documents were all removed (a key sent twice is replaced).
    private var sent = Set<String>()
    /// The domain's number in the index, commands' numbers, the next id to try per second.
    private var domainNumber: Int64?
    private var commands: [String: Int64] = [:]
    private var nextFree: [Int64: Int64] = [:]
    /// Documents were removed or replaced: some commands may be named by none.
    private var orphans = false

    /// A feed that only asks whether the index is up to date (in a read): ``begin(_:)``
    /// throws ``Behind`` when it is not.
    let probing: Bool

    /// Thrown by a probing feed's ``begin(_:)``: the domain has documents to send.
    package struct Behind: Error {}

    package init(db: Database?, domain: String, indexed: SearchStamp?, probing: Bool = false) {
        transaction = db
        self.domain = domain
        self.indexed = indexed
        self.probing = probing
    }

    /// Whether the index already holds the documents of this stamp (then ``begin(_:)`` wants
    /// nothing): for a domain that can read its stamp more cheaply than its documents.
    public func holds(_ stamp: SearchStamp) -> Bool { indexed == stamp }

    /// Starts the feed with where the cache stands.
    /// - Returns: what to send.
    /// - Throws: GRDB's `DatabaseError` (the index's).
    public func begin(_ stamp: SearchStamp) throws -> Wanted {
        self.stamp = stamp
        if probing && indexed != stamp { throw Behind() }
        let wanted: Wanted
        if indexed == stamp {
            wanted = .nothing
        } else if let indexed, indexed.origin == stamp.origin, indexed.revision < stamp.revision {
            wanted = .changed(after: indexed.revision)
        } else {
            try removeAll()
            empty = true
            sent = []
            wanted = .all
        }
        self.wanted = wanted
        return wanted
    }

    /// Adds or replaces one document (by its key).
    /// - Throws: GRDB's `DatabaseError` (the index's).
    public func add(_ document: SearchDocument) throws {
        precondition(wanted != nil && wanted != .nothing, "SearchFeed.add before begin, or when nothing is wanted")
        let domain = try domainID()
        let hash = Self.keyHash(document.key)
        var id: Int64?, replaced: Int64?
        let second = Self.orderSecond(document.date)
        if !empty || !sent.insert(document.key).inserted,
           let held = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, date, command FROM document WHERE domain = ? AND hash = ? AND key = ?"),
                                       arguments: [domain, hash, document.key]) {
            id = held[0]
            replaced = held[2]
            try db.cachedStatement(sql: "DELETE FROM document_text WHERE rowid = ?").execute(arguments: [id])
            if Self.orderSecond((held[1] as Double?).map(Date.init(timeIntervalSince1970:))) != second {
                // Its date moved to another second: it takes an id there (the id is its place in the order).
                try db.cachedStatement(sql: "DELETE FROM document WHERE id = ?").execute(arguments: [id])
                id = nil
            }
        }
        let command = try commandID(document.command)
        if let replaced, replaced != command { orphans = true }
        if let id {
            try db.cachedStatement(sql: "UPDATE document SET date = ?, command = ? WHERE id = ?")
                .execute(arguments: [document.date?.timeIntervalSince1970, command, id])
        } else {
            let next = try freeID(second)
            try db.cachedStatement(sql: "INSERT INTO document (id, domain, key, hash, date, command) VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: [next, domain, document.key, hash, document.date?.timeIntervalSince1970, command])
            id = next
        }
        try db.cachedStatement(sql: "INSERT INTO document_text (rowid, title, body, title_grams, body_grams) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [id, document.title, document.body, SearchGrams.of(document.title), SearchGrams.of(document.body)])
        written += 1
        if written % 1024 == 0 { progress?(written) }
    }

    /// Ends the feed: `count` is how many documents the cache holds now; when the index holds
    /// more (the cache deleted some), `keys` gives every key held and the others are removed.
    /// The stamp given to ``begin(_:)`` is recorded.
    /// - Throws: GRDB's `DatabaseError` (the index's), or what `keys` throws.
    public func finish(count: Int, keys: () throws -> Set<String>) throws {
        guard let stamp, wanted != .nothing else { return }
        let domain = try domainID()
        let held = try Int.fetchOne(db, sql: "SELECT count(*) FROM document WHERE domain = ?", arguments: [domain]) ?? 0
        if held != count {
            let keep = try keys()
            let rows = try Row.fetchAll(db, sql: "SELECT id, key FROM document WHERE domain = ?", arguments: [domain])
            for row in rows where !keep.contains(row[1]) {
                try remove(id: row[0])
            }
        }
        try db.execute(sql: """
            INSERT INTO source (domain, store, revision) VALUES (?, ?, ?)
            ON CONFLICT(domain) DO UPDATE SET store = excluded.store, revision = excluded.revision
            """, arguments: [self.domain, stamp.origin, stamp.revision])
        try removeOrphanCommands()
        finished = true
    }

    /// For a domain whose documents are few: when `stamp` differs from the index's, every
    /// document again (`documents` is only called then).
    /// - Throws: GRDB's `DatabaseError` (the index's), or what `documents` throws.
    public func replace(stamp: SearchStamp, documents: () throws -> [SearchDocument]) throws {
        let wanted = try begin(stamp)
        guard wanted != .nothing else { return }
        if wanted != .all {
            try removeAll()
            empty = true
            sent = []
        }
        var keys = Set<String>()
        for document in try documents() where keys.insert(document.key).inserted {
            try add(document)
        }
        try finish(count: keys.count) { keys }
    }

    /// Removes every document of the domain and its stamp.
    package func removeAll() throws {
        if let domain = try Int64.fetchOne(db, sql: "SELECT id FROM domain WHERE name = ?", arguments: [domain]) {
            try db.execute(sql: "DELETE FROM document_text WHERE rowid IN (SELECT id FROM document WHERE domain = ?)", arguments: [domain])
            removed += db.changesCount
            try db.execute(sql: "DELETE FROM document WHERE domain = ?", arguments: [domain])
            orphans = orphans || db.changesCount > 0
        }
        try db.execute(sql: "DELETE FROM source WHERE domain = ?", arguments: [domain])
        try removeOrphanCommands()
    }

    /// A document's id is its place in the newest-first order: its date's second (0 for none),
    /// shifted left by ``slotBits``, plus its slot among the documents of that second; when a
    /// second's slots are taken, the next free id after them (a bulk import of thousands of
    /// items in one second sorts a few minutes late, among its own). The full-text index
    /// returns matches in id order, so `ORDER BY rowid DESC LIMIT n` reads only the newest n
    /// matches, however many there are.
    ///
    /// Four bits: the index stores each match's id as the difference from the one before, in
    /// as few bytes as it takes, so the ids of documents near in time must be near: with 24
    /// bits (one second apart: 2^24) the full-text data of bench/search.py's 151k documents
    /// took 33 MB, with 4 bits 23 MB.
    package static let slotBits: Int64 = 4

    /// The second a date sorts in: whole Unix seconds, from 1970 to 2^38 (the year 10,680).
    package static func orderSecond(_ date: Date?) -> Int64 {
        guard let seconds = date?.timeIntervalSince1970, seconds.isFinite else { return 0 }
        return min(max(0, Int64(seconds.rounded(.down))), (1 << 38) - 1)
    }

    /// The first id at or after the second's first slot that no document holds.
    private func freeID(_ second: Int64) throws -> Int64 {
        let base = second << Self.slotBits
        var candidate = max(base, nextFree[base] ?? base)
        if nextFree[base] == nil,
           let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(id) FROM document WHERE id >= ? AND id < ?"),
                                         arguments: [base, base + (1 << Self.slotBits)]) {
            candidate = last + 1
        }
        while try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM document WHERE id = ?"), arguments: [candidate]) != nil {
            candidate += 1
        }
        nextFree[base] = candidate + 1
        return candidate
    }

    /// FNV-1a over the key's UTF-8: the key index holds this, not the key (the key is compared
    /// in the row).
    package static func keyHash(_ key: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// The domain's number in the index (each document holds it, not the name).
    private func domainID() throws -> Int64 {
        if let domainNumber { return domainNumber }
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO domain (name) VALUES (?)").execute(arguments: [domain])
        let number = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM domain WHERE name = ?"), arguments: [domain])!
        domainNumber = number
        return number
    }

    /// A command's number: the documents of one conversation share theirs.
    private func commandID(_ command: String) throws -> Int64 {
        if let number = commands[command] { return number }
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO command (text) VALUES (?)").execute(arguments: [command])
        let number = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM command WHERE text = ?"), arguments: [command])!
        if commands.count > 4096 { commands.removeAll(keepingCapacity: true) }
        commands[command] = number
        return number
    }

    /// Commands no document names any more, after documents were removed or changed.
    private func removeOrphanCommands() throws {
        guard orphans else { return }
        try db.execute(sql: "DELETE FROM command WHERE id NOT IN (SELECT command FROM document)")
        orphans = false
        commands.removeAll()
    }

    private func remove(id: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM document_text WHERE rowid = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM document WHERE id = ?").execute(arguments: [id])
        removed += 1
        orphans = true
    }
}

extension SearchFeed {
    /// Sends the documents of a database whose rows are marked with ``SearchRevision``: when
    /// nothing changed since the index took them, the stamp alone (no database opened);
    /// else, in one read-only read (a store of an older schema is migrated first by
    /// `migrate`), `changed(db, after)` sends the rows marked after the index's revision
    /// (`Int64.min`: every row), then `count(db)` counts every document and, when the
    /// index holds more, `keys(db)` lists them, which finds the deletes.
    /// - Throws: ``StorageError``; the feed's errors; what the closures throw.
    public func sendChanges(at url: URL, migrate: () throws -> Void, changed: (Database, Int64) throws -> Void,
                            count: (Database) throws -> Int, keys: (Database) throws -> Set<String>) throws {
        if let stamp = try? SearchRevision.stamp(at: url), holds(stamp) {
            _ = try begin(stamp)
            return
        }
        try SQLiteStore.readExisting(url, migrate: migrate) { db in
            guard let stamp = try SearchRevision.stamp(db) else { return }
            switch try begin(stamp) {
            case .nothing: return
            case .all: try changed(db, Int64.min)
            case let .changed(revision): try changed(db, revision)
            }
            try finish(count: try count(db)) { try keys(db) }
        }
    }
}
