import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// A coaching conversation, as PostgREST returns a `conversations` row (snake_case on the
/// wire, camelCase in brados's JSON output). The same type comes from the network and
/// from the local store.
public struct Conversation: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var userId: String
    @NullWhenAbsent public var title: String?
    @NullWhenAbsent public var domain: String?
    @NullWhenAbsent public var lastMessageAt: Date?
    public var messageCount: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: String, userId: String, title: String?, domain: String?, lastMessageAt: Date?, messageCount: Int,
                createdAt: Date, updatedAt: Date) {
        self.id = id
        self.userId = userId
        self.title = title
        self.domain = domain
        self.lastMessageAt = lastMessageAt
        self.messageCount = messageCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The characters a conversation id may hold (see ``IdentifierRule``).
    public static let idRule = IdentifierRule.token("conversation id")

    enum CodingKeys: String, CodingKey {
        case id, userId, title, domain, lastMessageAt, messageCount, createdAt, updatedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Self.idRule, forKey: .id)
        userId = try container.decode(String.self, forKey: .userId)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        domain = try container.decodeIfPresent(String.self, forKey: .domain)
        lastMessageAt = try container.decodeIfPresent(Date.self, forKey: .lastMessageAt)
        messageCount = try container.decodeIfPresent(Int.self, forKey: .messageCount) ?? 0
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(Date.self, forKey: .updatedAt) ?? createdAt
    }
}

/// Who wrote a message. Stored as text; roles brados does not know are kept as they are.
public struct MessageRole: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }

    public static let user = MessageRole(rawValue: "user")
    public static let assistant = MessageRole(rawValue: "assistant")
}

/// One message of a conversation (a `messages` row).
public struct Message: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var conversationId: String
    public var role: MessageRole
    public var content: String
    public var createdAt: Date

    public init(id: String, conversationId: String, role: MessageRole, content: String, createdAt: Date) {
        self.id = id
        self.conversationId = conversationId
        self.role = role
        self.content = content
        self.createdAt = createdAt
    }

    /// The characters a message id may hold (see ``IdentifierRule``).
    public static let idRule = IdentifierRule.token("message id")

    enum CodingKeys: String, CodingKey { case id, conversationId, role, content, createdAt }

    /// Decodes a message, refusing ids outside their ``IdentifierRule``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Self.idRule, forKey: .id)
        conversationId = try container.decode(Conversation.idRule, forKey: .conversationId)
        role = try container.decode(MessageRole.self, forKey: .role)
        content = try container.decode(String.self, forKey: .content)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
    }
}

/// What the coach knows about the user (a `context_profiles` row): values, goals, situation.
public struct ContextProfile: Codable, Sendable, Equatable {
    public struct Value: Codable, Sendable, Equatable {
        @NullWhenAbsent public var id: String?
        public var content: String
        @NullWhenAbsent public var source: String?
    }

    public struct Goal: Codable, Sendable, Equatable {
        @NullWhenAbsent public var id: String?
        public var content: String
        @NullWhenAbsent public var domain: String?
        @NullWhenAbsent public var status: String?
        @NullWhenAbsent public var source: String?
    }

    public struct Situation: Codable, Sendable, Equatable {
        @NullWhenAbsent public var lifeStage: String?
        @NullWhenAbsent public var occupation: String?
        @NullWhenAbsent public var relationships: String?
        @NullWhenAbsent public var challenges: String?
        @NullWhenAbsent public var other: String?

        public init(lifeStage: String? = nil, occupation: String? = nil, relationships: String? = nil, challenges: String? = nil, other: String? = nil) {
            self.lifeStage = lifeStage
            self.occupation = occupation
            self.relationships = relationships
            self.challenges = challenges
            self.other = other
        }

        /// The filled-in fields, labelled, in a fixed order.
        public var fields: [(label: String, value: String)] {
            [("Life stage", lifeStage), ("Occupation", occupation), ("Relationships", relationships),
             ("Challenges", challenges), ("Other", other)].compactMap { label, value in
                guard let value, !value.isEmpty else { return nil }
                return (label, value)
            }
        }
    }

    public var id: String
    public var userId: String
    public var values: [Value]
    public var goals: [Goal]
    public var situation: Situation
    @NullWhenAbsent public var createdAt: Date?
    @NullWhenAbsent public var updatedAt: Date?

    public init(id: String, userId: String, values: [Value], goals: [Goal], situation: Situation, createdAt: Date?, updatedAt: Date?) {
        self.id = id
        self.userId = userId
        self.values = values
        self.goals = goals
        self.situation = situation
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey { case id, userId, values, goals, situation, createdAt, updatedAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        userId = try container.decode(String.self, forKey: .userId)
        values = try container.decodeIfPresent([Value].self, forKey: .values) ?? []
        goals = try container.decodeIfPresent([Goal].self, forKey: .goals) ?? []
        situation = try container.decodeIfPresent(Situation.self, forKey: .situation) ?? Situation()
        createdAt = try container.decodeIfPresent(Date.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(Date.self, forKey: .updatedAt)
    }
}

/// JSON as Supabase speaks it: snake_case keys and PostgreSQL timestamps (any number of
/// fractional digits, `Z` or an offset such as `+00:00`).
public enum SupabaseJSON {
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseTimestamp(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a timestamp: \(text.prefix(40))")
            }
            return date
        }
        return decoder
    }

    /// Parses `2026-11-21T10:15:30.123456+00:00`, `2026-11-21 10:15:30Z`, `2026-11-21T10:15:30+02`…
    public static func parseTimestamp(_ text: String) -> Date? { JSONCoding.parseTimestamp(text) }

    /// A time for a filter (`updated_at=gte.…`), to the microsecond as PostgreSQL keeps it:
    /// `2026-11-21T10:15:30.123456Z` (`Z`, not `+00:00`: a `+` in a query means a space).
    public static func timestamp(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (seconds, fraction) = micros.quotientAndRemainder(dividingBy: 1_000_000)
        let (wholeSeconds, micro) = fraction < 0 ? (seconds - 1, fraction + 1_000_000) : (seconds, fraction)
        var time = time_t(wholeSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(micro))
    }
}
