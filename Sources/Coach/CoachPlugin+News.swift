import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// `sync --watch --notify`: each message from the assistant that reached the cache.
extension CoachPlugin: Notifies {
    public var notifyDescription: String { "a message from the assistant" }

    /// Messages from the assistant whose row is newer than `mark` (the highest message row id
    /// the watch saw; an upsert keeps a message's row, so an edit is not news).
    public func news(_ env: AppEnvironment, since mark: String?) throws -> NewsReport {
        let url = Self.databaseURL(env.profile)
        // Nothing cached yet: the first copy (a whole history caught up) is the mark, not news.
        guard FileManager.default.fileExists(atPath: url.path) else { return NewsReport(news: [], mark: "none") }
        let newest = { (rows: [[SQLiteQuery.Value]]) in rows.first?.first?.integer ?? 0 }
        guard let mark, let after = Int(mark) else {
            return NewsReport(news: [], mark: String(newest(try SQLiteQuery.rows(url, [("SELECT coalesce(max(id), 0) FROM message", [])])[0])))
        }
        let userID = env.credentials.load().credential(for: .supabase, dedicated: true)?.userID
        let found = try SQLiteQuery.rows(url, [
            ("SELECT coalesce(max(id), 0) FROM message", []),
            ("""
             SELECT m.conversationId, m.content, c.title FROM message m JOIN conversation c ON c.remoteId = m.conversationId
             WHERE m.id > CAST(?1 AS INTEGER) AND m.role = 'assistant' AND (?2 IS NULL OR c.userId = ?3) ORDER BY m.id
             """, [mark, userID, userID]),
        ])
        let news = found[1].map { row in
            let title = row[2].text ?? "Untitled conversation"
            let text = row[1].text ?? ""
            return News(domain: name, thread: row[0].text ?? "", threadTitle: title, headline: "New message from your coach",
                        headlineMany: "%d new messages from your coach", headlineAcross: "%d new messages from your coach in %t conversations",
                        detail: text.count > 300 ? String(text.prefix(299)) + "…" : text,
                        category: "im.received", icon: "mail-message-new")
        }
        return NewsReport(news: news, mark: String(max(newest(found[0]), after)))
    }
}
