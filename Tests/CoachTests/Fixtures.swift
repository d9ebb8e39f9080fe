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

    static func database(_ dir: TemporaryDirectory) throws -> CoachDatabase {
        try CoachDatabase(url: dir.url.appendingPathComponent("coach/coach.sqlite"))
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

    func conversations(userID: String) async throws -> Listing<Conversation> {
        try record("conversations")
        return lock.withLock { Listing(rows: conversationList.filter { $0.userId == userID }, complete: true) }
    }

    func conversation(id: String) async throws -> Conversation? {
        try record("conversation")
        return lock.withLock { conversationList.first { $0.id == id } }
    }

    func messages(conversationID: String) async throws -> Listing<Message> {
        try record("messages")
        return lock.withLock { Listing(rows: messagesByConversation[conversationID] ?? [], complete: true) }
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
