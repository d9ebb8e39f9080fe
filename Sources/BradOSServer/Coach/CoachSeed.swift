import Crypto
import Foundation
import GRDB

/// Deterministic demo coaching data: several conversations per user with tens to thousands
/// of messages (so paging is exercised), some sharing a timestamp (so ordering ties are),
/// and one context profile each.
extension CoachRoutes {
    struct SeedConversation {
        var title: String
        var domain: String
        var messages: Int
    }

    static let demoConversations: [SeedConversation] = [
        SeedConversation(title: "Getting back into running", domain: "fitness", messages: 2_400),
        SeedConversation(title: "Asking for a raise", domain: "career", messages: 640),
        SeedConversation(title: "Evening wind-down routine", domain: "health", messages: 160),
        SeedConversation(title: "Boundaries with my sister", domain: "relationships", messages: 75),
        SeedConversation(title: "Saving for a sabbatical", domain: "finance", messages: 36),
        SeedConversation(title: "Finishing the novel draft", domain: "creativity", messages: 18),
        SeedConversation(title: "Nervous about the team offsite", domain: "mindset", messages: 12),
        SeedConversation(title: "Quick check-in", domain: "general", messages: 4),
    ]

    static let otherConversations: [SeedConversation] = [
        SeedConversation(title: "Preparing for a marathon", domain: "fitness", messages: 20),
        SeedConversation(title: "New manager, new habits", domain: "career", messages: 6),
    ]

    static let userLines = [
        "I keep putting this off and I'm not sure why.",
        "This week went better than I expected, honestly.",
        "Can we make a plan for the next two weeks?",
        "I tried what we talked about and it felt awkward at first.",
        "What should I focus on first?",
        "I'm worried I'm taking on too much again.",
        "Small win today: I actually did it before breakfast.",
        "I'm not sure this goal is still the right one.",
    ]

    static let coachLines = [
        "That makes sense. What do you think is underneath the hesitation?",
        "Nice progress. What made this week different from the last one?",
        "Let's pick one small step you can take tomorrow, and one for the weekend.",
        "Awkward is normal when something is new. Would you try it twice more before judging it?",
        "Start with the thing that gives you energy back; the rest gets easier after it.",
        "You mentioned that pattern before. What would saying no to one thing look like?",
        "Celebrate that. How can you make tomorrow's version just as easy to start?",
        "Goals can change. What matters most to you about this right now?",
    ]

    /// A stable UUID from a name (the demo data is the same on every server).
    static func uuid(_ name: String) -> String {
        var bytes = Array(SHA256.hash(data: Data(name.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// The demo user's conversations at the sizes a benchmark asks for: the first with
    /// `messages` messages, then short ones up to `conversations` in all.
    static func demoConversations(messages: Int?, conversations: Int?) -> [SeedConversation] {
        var list = demoConversations
        if let messages { list[0].messages = messages }
        if let conversations {
            if conversations <= list.count { return Array(list.prefix(conversations)) }
            for index in list.count..<conversations {
                let base = demoConversations[index % demoConversations.count]
                list.append(SeedConversation(title: "\(base.title) (\(index + 1))", domain: base.domain, messages: 2 + index % 5))
            }
        }
        return list
    }

    static func seedDemo(_ database: ServerDatabase, users: [String], messages: Int? = nil, conversations: Int? = nil, now: Date = Date()) throws {
        let sized = demoConversations(messages: messages, conversations: conversations)
        try database.writer.write { db in
            // Seeding is not a change anyone follows: nothing logged for Realtime.
            try db.execute(sql: "INSERT INTO realtime_pause VALUES ('seed')")
            defer { try? db.execute(sql: "DELETE FROM realtime_pause") }
            for (userIndex, userID) in users.enumerated() {
                let conversations = userIndex == 0 ? sized : otherConversations
                for (index, conversation) in conversations.enumerated() {
                    let id = uuid("conversation/\(userID)/\(index)")
                    // The busiest conversations are the oldest; each message follows the last by 1-9 minutes.
                    var time = (now.timeIntervalSince1970 - Double(index + 1) * 3 * 86400 - Double(conversation.messages) * 300).rounded()
                    let createdAt = time
                    try db.execute(sql: """
                        INSERT INTO conversations (id, user_id, title, domain, last_message_at, message_count, created_at, updated_at)
                        VALUES (?, ?, ?, ?, NULL, 0, ?, ?)
                        """, arguments: [id, userID, conversation.title, conversation.domain, createdAt, createdAt])
                    let insert = try db.makeStatement(sql: """
                        INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?)
                        """)
                    for number in 0..<conversation.messages {
                        // Every seventh message shares its predecessor's timestamp (a tie to break).
                        if number % 7 != 6 { time += Double(60 + (number * 37 + index * 11) % 480) + Double(number % 1000) / 1_000_000 }
                        let fromUser = number % 2 == 0
                        let lines = fromUser ? userLines : coachLines
                        let content = "\(lines[(number / 2 + index) % lines.count]) (\(conversation.title.lowercased()), #\(number + 1))"
                        try insert.execute(arguments: [uuid("message/\(id)/\(number)"), id, userID, fromUser ? "user" : "assistant", content, time])
                    }
                    try db.execute(sql: "UPDATE conversations SET last_message_at = ?, message_count = ?, updated_at = ? WHERE id = ?",
                                   arguments: [conversation.messages > 0 ? time : nil, conversation.messages, time, id])
                }
                let values = userIndex == 0
                    ? [["id": uuid("value/\(userID)/0"), "content": "Health before hustle", "source": "conversation"],
                       ["id": uuid("value/\(userID)/1"), "content": "Being present with family", "source": "user"]]
                    : [["id": uuid("value/\(userID)/0"), "content": "Craft and consistency", "source": "user"]]
                let goals = userIndex == 0
                    ? [["id": uuid("goal/\(userID)/0"), "content": "Run a 10K by spring", "domain": "fitness", "status": "active", "source": "conversation"],
                       ["id": uuid("goal/\(userID)/1"), "content": "Ask for a raise before the review cycle", "domain": "career", "status": "active", "source": "user"],
                       ["id": uuid("goal/\(userID)/2"), "content": "Read twenty minutes every night", "domain": "health", "status": "completed", "source": "user"]]
                    : [["id": uuid("goal/\(userID)/0"), "content": "Finish a marathon under four hours", "domain": "fitness", "status": "active", "source": "user"]]
                let situation = userIndex == 0
                    ? ["life_stage": "Mid-career, two young kids", "occupation": "Product designer", "relationships": "Married; close to one sister",
                       "challenges": "Evenings disappear into email", "other": NSNull()] as [String: Any]
                    : ["life_stage": "Early career", "occupation": "Nurse", "relationships": NSNull(), "challenges": "Night shifts", "other": NSNull()]
                func text(_ object: Any) throws -> String {
                    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
                }
                let stamp = (now.timeIntervalSince1970 - 2 * 86400).rounded()
                try db.execute(sql: """
                    INSERT INTO context_profiles (id, user_id, "values", goals, situation, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [uuid("context/\(userID)"), userID, try text(values), try text(goals), try text(situation), stamp - 30 * 86400, stamp])
            }
        }
    }
}
