@testable import Coach
import BradOSCore
import Foundation
import TestSupport

enum Fixtures {
    static let user = "8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11"
    static let base = Date(timeIntervalSince1970: 1_800_000_000)

    static func conversationID(_ index: Int) -> String { String(format: "%08x-0000-4000-8000-000000000000", index) }
    static func messageID(_ conversation: Int, _ index: Int) -> String { String(format: "%08x-%04x-4000-8000-000000000001", conversation, index) }

    static func conversation(_ index: Int, messages: Int = 3, updated: TimeInterval = 0, title: String? = nil) -> Conversation {
        Conversation(id: conversationID(index), userId: user, title: title ?? "Conversation \(index)", domain: "fitness",
                     lastMessageAt: base.addingTimeInterval(updated), messageCount: messages,
                     createdAt: base.addingTimeInterval(-86400), updatedAt: base.addingTimeInterval(updated))
    }

    static func messages(_ conversation: Int, count: Int) -> [Message] {
        (0..<count).map { index in
            Message(id: messageID(conversation, index), conversationId: conversationID(conversation), role: index % 2 == 0 ? .user : .assistant,
                    content: "message \(index)", createdAt: base.addingTimeInterval(Double(index) * 60 + 0.000_123))
        }
    }

    static let profile = ContextProfile(
        id: "c0000000-0000-4000-8000-000000000000", userId: user,
        values: [.init(id: "v1", content: "Health before hustle", source: "user")],
        goals: [.init(id: "g1", content: "Run a 10K", domain: "fitness", status: "active", source: "conversation")],
        situation: .init(lifeStage: "Mid-career", occupation: "Designer"), createdAt: base, updatedAt: base)

    static func database(_ dir: TemporaryDirectory) throws -> CoachCache {
        try CoachCache(url: dir.url.appendingPathComponent("coach/coach.sqlite"))
    }
}

/// A ``CoachAPI`` double: answers from memory, counts calls, fails on demand.
final class FakeCoachAPI: CoachAPI, @unchecked Sendable {
    let lock = NSLock()
    var conversationList: [Conversation]
    var messagesByConversation: [String: [Message]]
    var profile: ContextProfile?
    var failure: (any Error)?
    private(set) var calls: [String] = []

    init(conversations: [Conversation] = [], messages: [String: [Message]] = [:], profile: ContextProfile? = nil) {
        conversationList = conversations
        messagesByConversation = messages
        self.profile = profile
    }

    private func record(_ call: String) throws {
        try lock.withLock {
            calls.append(call)
            if let failure { throw failure }
        }
    }

    func conversations(userID: String, updatedSince since: Date?) async throws -> [Conversation] {
        try record("conversations")
        return lock.withLock {
            conversationList.filter { $0.userId == userID && $0.updatedAt >= (since ?? .distantPast) }
                .sorted { ($0.updatedAt, $0.id) < ($1.updatedAt, $1.id) }
        }
    }

    func conversationCount(userID: String) async throws -> Int {
        try record("conversation count")
        return lock.withLock { conversationList.filter { $0.userId == userID }.count }
    }

    func conversationIDs(userID: String) async throws -> Set<String> {
        try record("conversation ids")
        return lock.withLock { Set(conversationList.filter { $0.userId == userID }.map(\.id)) }
    }

    func conversations(ids: [String]) async throws -> [Conversation] {
        try record("conversations by id")
        return lock.withLock { conversationList.filter { ids.contains($0.id) } }
    }

    func conversation(id: String) async throws -> RemoteConversation? {
        try record("conversation")
        return lock.withLock {
            conversationList.first { $0.id == id }.map { RemoteConversation(conversation: $0, messageCount: messagesByConversation[id]?.count ?? 0) }
        }
    }

    func messages(conversationID: String, createdSince since: Date?) async throws -> [Message] {
        try record("messages")
        return lock.withLock {
            (messagesByConversation[conversationID] ?? []).filter { $0.createdAt >= (since ?? .distantPast) }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    func inRange(_ message: Message, _ range: TimeRange) -> Bool {
        range.contains(message.createdAt)
    }

    func messageIDs(conversationID: String, in range: TimeRange) async throws -> Set<String> {
        try record(range == .all ? "message ids" : "message ids in range")
        return lock.withLock { Set((messagesByConversation[conversationID] ?? []).filter { inRange($0, range) }.map(\.id)) }
    }

    func messageCount(conversationID: String, in range: TimeRange) async throws -> Int {
        try record("message count")
        return lock.withLock { (messagesByConversation[conversationID] ?? []).filter { inRange($0, range) }.count }
    }

    func messages(ids: [String]) async throws -> [Message] {
        try record("messages by id")
        return lock.withLock { messagesByConversation.values.flatMap { $0 }.filter { ids.contains($0.id) } }
    }

    func deleteConversation(id: String) async throws -> Bool {
        try record("delete")
        return lock.withLock {
            let existed = conversationList.contains { $0.id == id }
            conversationList.removeAll { $0.id == id }
            messagesByConversation[id] = nil
            return existed
        }
    }

    func contextProfile(userID: String) async throws -> ContextProfile? {
        try record("context")
        return lock.withLock { profile }
    }
}
