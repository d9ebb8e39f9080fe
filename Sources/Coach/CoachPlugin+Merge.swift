import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation
import GRDB

/// `cache import --merge`: conversations, messages and context profiles merge row by row,
/// by remote id. Of a conversation both copies hold, the one updated later stays (the
/// profile's on a tie); a context profile likewise, per account. Messages are a history:
/// both copies' messages stay. A row only the archive holds is taken, unless this profile
/// checked the whole list (or the conversation's messages) after the archive cached it: the
/// row was deleted since, and merging it would bring it back; a deletion the archive
/// remembers likewise takes this profile's older copy out.
extension CoachPlugin: MergesByItem {
    public func mergeImport(cache: URL, data: URL, into target: ProfileScope) throws -> [String] {
        let staged = data.appendingPathComponent("coach.sqlite"), mine = Self.databaseURL(target)
        guard FileManager.default.fileExists(atPath: staged.path) else { return ["keeps this profile's conversations (the archive has none)"] }
        guard FileManager.default.fileExists(atPath: mine.path) else { return ["takes the archive's conversations (this profile has none cached)"] }
        let counts = try ImportMerge.intoStaged(staged, attaching: mine, Self.mergeRows)
        return counts.sentences
    }

    /// The merge, inside one transaction on the staged database with the profile's attached as `mine`.
    static func mergeRows(_ db: Database) throws -> CoachMergeCounts {
        var counts = CoachMergeCounts()
        func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
        // When this profile last saw each account's whole list, and each conversation's whole message list.
        let checked = "(SELECT syncedAt FROM mine.sync WHERE key = 'checked:conversations:' || s.userId)"
        let checkedMessages = "(SELECT syncedAt FROM mine.sync WHERE key = 'checked:messages:' || s.conversationId)"
        let mineNewer = "(m.updatedAt > s.updatedAt OR (m.updatedAt = s.updatedAt AND m.cachedAt >= s.cachedAt))"

        // Deleted there (the archive's profile remembers it) since this profile cached them: left out.
        let deletedThere = "EXISTS (SELECT 1 FROM main.sync t WHERE t.key = 'deleted:' || m.remoteId AND t.syncedAt > m.cachedAt)"
        counts.deletedThere = try count("SELECT count(*) FROM mine.conversation m WHERE m.remoteId NOT IN (SELECT remoteId FROM main.conversation) AND \(deletedThere)")
        counts.onlyMine = try count("SELECT count(*) FROM mine.conversation m WHERE m.remoteId NOT IN (SELECT remoteId FROM main.conversation)") - counts.deletedThere
        counts.mineNewer = try count("SELECT count(*) FROM mine.conversation m JOIN main.conversation s USING (remoteId) WHERE \(mineNewer) AND m.updatedAt > s.updatedAt")
        counts.theirsNewer = try count("SELECT count(*) FROM mine.conversation m JOIN main.conversation s USING (remoteId) WHERE NOT \(mineNewer)")
        // Deleted here since the archive cached them: left out (their messages go with them).
        let deleted = """
            FROM main.conversation s WHERE s.remoteId NOT IN (SELECT remoteId FROM mine.conversation)
            AND (\(checked) > s.cachedAt OR (SELECT syncedAt FROM mine.sync WHERE key = 'deleted:' || s.remoteId) > s.cachedAt)
            """
        counts.deletedHere = try count("SELECT count(*) \(deleted)")
        try db.execute(sql: "DELETE FROM main.message WHERE conversationId IN (SELECT s.remoteId \(deleted))")
        try db.execute(sql: "DELETE FROM main.conversation WHERE remoteId IN (SELECT s.remoteId \(deleted))")
        counts.onlyTheirs = try count("SELECT count(*) FROM main.conversation WHERE remoteId NOT IN (SELECT remoteId FROM mine.conversation)")

        let revision = try SearchRevision.next(db)
        try db.execute(sql: """
            INSERT INTO main.conversation (remoteId, userId, title, domain, lastMessageAt, messageCount, createdAt, updatedAt, cachedAt, revision)
            SELECT m.remoteId, m.userId, m.title, m.domain, m.lastMessageAt, m.messageCount, m.createdAt, m.updatedAt, m.cachedAt, ?
            FROM mine.conversation m LEFT JOIN main.conversation s USING (remoteId)
            WHERE (s.remoteId IS NULL AND NOT \(deletedThere)) OR \(mineNewer)
            ON CONFLICT (remoteId) DO UPDATE SET userId = excluded.userId, title = excluded.title, domain = excluded.domain,
                lastMessageAt = excluded.lastMessageAt, messageCount = excluded.messageCount, createdAt = excluded.createdAt,
                updatedAt = excluded.updatedAt, cachedAt = excluded.cachedAt, revision = excluded.revision
            """, arguments: [revision])

        // Messages only the archive holds, of a conversation this profile read whole since: deleted here.
        let deletedMessages = """
            FROM main.message s WHERE s.remoteId NOT IN (SELECT remoteId FROM mine.message) AND \(checkedMessages) > s.cachedAt
            """
        counts.messagesDeletedHere = try count("SELECT count(*) \(deletedMessages)")
        try db.execute(sql: "DELETE FROM main.message WHERE remoteId IN (SELECT s.remoteId \(deletedMessages))")
        let added = "FROM mine.message m WHERE m.remoteId NOT IN (SELECT remoteId FROM main.message)"
        counts.messagesOnlyMine = try count("SELECT count(*) \(added)")
        try db.execute(sql: """
            INSERT INTO main.message (remoteId, conversationId, role, content, createdAt, cachedAt, revision)
            SELECT m.remoteId, m.conversationId, m.role, m.content, m.createdAt, m.cachedAt, ? \(added)
            AND m.conversationId IN (SELECT remoteId FROM main.conversation)
            """, arguments: [revision])

        // Both sides' deletions stay remembered.
        try db.execute(sql: """
            INSERT INTO main.sync (key, syncedAt) SELECT key, syncedAt FROM mine.sync WHERE key LIKE 'deleted:%'
            ON CONFLICT (key) DO UPDATE SET syncedAt = max(syncedAt, excluded.syncedAt)
            """)

        // Context profiles: one per account, the one updated later.
        let profiles = try Row.fetchAll(db, sql: """
            SELECT m.remoteId, m.userId, m.valuesJSON, m.goalsJSON, m.situationJSON, m.createdAt, m.updatedAt, m.cachedAt FROM mine.contextProfile m
            LEFT JOIN main.contextProfile s USING (userId)
            WHERE s.userId IS NULL OR coalesce(m.updatedAt, m.cachedAt) >= coalesce(s.updatedAt, s.cachedAt)
            """)
        for row in profiles {
            let remoteId: String = row[0], userId: String = row[1]
            try db.execute(sql: "DELETE FROM main.contextProfile WHERE userId = ? OR remoteId = ?", arguments: [userId, remoteId])
            try db.execute(sql: """
                INSERT INTO main.contextProfile (remoteId, userId, valuesJSON, goalsJSON, situationJSON, createdAt, updatedAt, cachedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: StatementArguments(row.databaseValues))
        }
        counts.contextProfilesKept = profiles.count
        return counts
    }
}

/// What a coach merge kept and took, for its sentences.
struct CoachMergeCounts {
    var onlyMine = 0, mineNewer = 0, theirsNewer = 0, onlyTheirs = 0, deletedHere = 0, deletedThere = 0
    var messagesOnlyMine = 0, messagesDeletedHere = 0, contextProfilesKept = 0

    var sentences: [String] {
        func clauses(_ parts: [(Int, String)]) -> String {
            parts.filter { $0.0 > 0 }.map { "\(Format.count($0.0, "conversation")) \($0.1)" }.joined(separator: ", ")
        }
        var lines: [String] = []
        let kept = clauses([(onlyMine, "the archive lacks"), (mineNewer, "updated here later")])
        let taken = clauses([(onlyTheirs, "missing here"), (theirsNewer, "updated there later")])
        if !kept.isEmpty { lines.append("keeps this profile's \(kept)") }
        if !taken.isEmpty { lines.append("takes the archive's \(taken)") }
        if deletedHere > 0 { lines.append("leaves out the archive's \(Format.count(deletedHere, "conversation")) deleted here since it was made") }
        if deletedThere > 0 { lines.append("removes this profile's \(Format.count(deletedThere, "conversation")) deleted in the archive's profile since") }
        if lines.isEmpty { lines.append("keeps this profile's conversations (the archive's are the same or older)") }
        if messagesOnlyMine > 0 || messagesDeletedHere > 0 {
            lines.append("keeps every message of both (\(Format.count(messagesOnlyMine, "message")) only here)"
                         + (messagesDeletedHere > 0 ? ", but \(Format.count(messagesDeletedHere, "message")) deleted here since" : ""))
        }
        if contextProfilesKept > 0 { lines.append("keeps this profile's context profile (not older than the archive's)") }
        return lines
    }
}
