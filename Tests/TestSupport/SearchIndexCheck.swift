import Foundation

/// Compares `brados search`'s index with a domain's cache, row for row, by reading both
/// SQLite files (python3's sqlite3: the tests need no SQLite tool of their own).
public enum SearchIndexCheck {
    /// A query's rows as `a|b|c` lines.
    public static func rows(_ database: URL, _ sql: String) throws -> [String] {
        OwnThread.mayBlock("reading the index with python3")
        let python = Process(), pipe = Pipe()
        python.executableURL = try SystemCommand.url("python3")
        python.arguments = ["-c", "import sqlite3,sys; print('\\n'.join('|'.join('' if v is None else str(v) for v in r) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))",
                            database.path, sql]
        python.standardOutput = pipe
        try python.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init).sorted()
    }

    /// The index's documents of `domain`, as `key|title|body` lines.
    public static func indexed(home: URL, domain: String, profile: String = "default") throws -> [String] {
        try rows(home.appendingPathComponent("cache/users/\(profile)/search/index.sqlite"), """
            SELECT d.key, t.title, t.body FROM document AS d JOIN document_text AS t ON t.rowid = d.id
            JOIN domain AS m ON m.id = d.domain WHERE m.name = '\(domain)'
            """)
    }

    /// What the coach store holds, as the index must hold it.
    public static func coachCache(home: URL, profile: String = "default") throws -> [String] {
        try rows(home.appendingPathComponent("data/users/\(profile)/coach/coach.sqlite"), """
            SELECT 'conversation:' || remoteId, coalesce(title, 'Untitled conversation'), '' FROM conversation
            UNION ALL SELECT 'message:' || remoteId, '', content FROM message
            """)
    }

    /// What the library store holds, as the index must hold it.
    public static func libraryCache(home: URL, profile: String = "default") throws -> [String] {
        try rows(home.appendingPathComponent("data/users/\(profile)/library/library.sqlite"), """
            SELECT 'album:' || ratingKey, title, artist || coalesce(' (' || year || ')', '') FROM album
            UNION ALL SELECT DISTINCT 'collection:' || ratingKey, title, 'collection of ' || childCount || ' albums' FROM collection
            """)
    }
}
