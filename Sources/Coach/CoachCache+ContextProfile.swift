import BradOSCore
import BradOSTerminal
import Foundation
import GRDB

// The context profile: saving it (or that the user has none), reading it back.
extension CoachCache {
    /// Saves the context profile.
    /// - Throws: ``StorageError``.
    public func saveContextProfile(_ profile: ContextProfile, at now: Date) throws {
        let values = try JSONCoding.encode(profile.values)
        let goals = try JSONCoding.encode(profile.goals)
        let situation = try JSONCoding.encode(profile.situation)
        try write { db in
            // One profile per user: a new remote id for the same user replaces the old row.
            try db.execute(sql: "DELETE FROM contextProfile WHERE userId = ? AND remoteId <> ?", arguments: [profile.userId, profile.id])
            try db.execute(sql: """
                INSERT INTO contextProfile (remoteId, userId, valuesJSON, goalsJSON, situationJSON, createdAt, updatedAt, cachedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(remoteId) DO UPDATE SET userId = excluded.userId, valuesJSON = excluded.valuesJSON,
                    goalsJSON = excluded.goalsJSON, situationJSON = excluded.situationJSON, createdAt = excluded.createdAt,
                    updatedAt = excluded.updatedAt, cachedAt = excluded.cachedAt
                """, arguments: [profile.id, profile.userId, String(decoding: values, as: UTF8.self), String(decoding: goals, as: UTF8.self),
                                 String(decoding: situation, as: UTF8.self), profile.createdAt?.timeIntervalSince1970,
                                 profile.updatedAt?.timeIntervalSince1970, now.timeIntervalSince1970])
        }
    }

    /// Records that the user has no context profile on the server (so the hour of freshness applies to "none" too).
    public func markNoContextProfile(userID: String, at now: Date) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM contextProfile WHERE userId = ?", arguments: [userID])
            try Self.markSynced("context:\(userID)", at: now, db)
        }
    }

    /// The cached context profile and when it was fetched (`profile` is nil when the server had none).
    public func contextProfile(userID: String) throws -> (profile: ContextProfile?, cachedAt: Date)? {
        try read { db in
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM contextProfile WHERE userId = ?", arguments: [userID]) {
                let profile = ContextProfile(
                    id: row["remoteId"], userId: row["userId"],
                    values: (try? JSONCoding.decode([ContextProfile.Value].self, from: Data((row["valuesJSON"] as String).utf8))) ?? [],
                    goals: (try? JSONCoding.decode([ContextProfile.Goal].self, from: Data((row["goalsJSON"] as String).utf8))) ?? [],
                    situation: (try? JSONCoding.decode(ContextProfile.Situation.self, from: Data((row["situationJSON"] as String).utf8)))
                        ?? ContextProfile.Situation(),
                    createdAt: (row["createdAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                    updatedAt: (row["updatedAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
                return (profile, Date(timeIntervalSince1970: row["cachedAt"]))
            }
            return try Self.syncedAt("context:\(userID)", db).map { (nil, $0) }
        }
    }
}
