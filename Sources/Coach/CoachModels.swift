import BradOSCore
import Foundation

/// A coaching conversation, as PostgREST returns a `conversations` row (snake_case on the
/// wire, camelCase in brados's JSON output). The same type comes from the network and
/// from the local store.
public struct Conversation: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var userId: String
    public var title: String?
    public var domain: String?
    public var lastMessageAt: Date?
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

    enum CodingKeys: String, CodingKey {
        case id, userId, title, domain, lastMessageAt, messageCount, createdAt, updatedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
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
}

/// What the coach knows about the user (a `context_profiles` row): values, goals, situation.
public struct ContextProfile: Codable, Sendable, Equatable {
    public struct Value: Codable, Sendable, Equatable {
        public var id: String?
        public var content: String
        public var source: String?
    }

    public struct Goal: Codable, Sendable, Equatable {
        public var id: String?
        public var content: String
        public var domain: String?
        public var status: String?
        public var source: String?
    }

    public struct Situation: Codable, Sendable, Equatable {
        public var lifeStage: String?
        public var occupation: String?
        public var relationships: String?
        public var challenges: String?
        public var other: String?

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
    public var createdAt: Date?
    public var updatedAt: Date?

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
    public static func parseTimestamp(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                guard let hours = number((index + 1)..<(index + 3)) else { return nil }
                index += 3
                var minutes = 0
                if index < bytes.count {
                    if bytes[index] == UInt8(ascii: ":") { index += 1 }
                    guard let value = number(index..<(index + 2)) else { return nil }
                    minutes = value
                    index += 2
                }
                offset = sign * (hours * 3600 + minutes * 60)
            default: return nil
            }
        }
        guard index == bytes.count else { return nil }
        // Days from the civil date (proleptic Gregorian), then seconds.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }
}
