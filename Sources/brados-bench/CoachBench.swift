import BradOSCore
import Coach
import Foundation

/// The coach store's side of `bench/coach_upsert.py`.
enum CoachBench {
    static let user = "8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11"

    static func run(_ arguments: [String]) throws {
        switch (arguments.first, arguments.count) {
        case ("coach-schema", 2):
            // An empty store with one conversation, for both sides of the upsert comparison.
            let database = try CoachCache(url: URL(fileURLWithPath: arguments[1]))
            try database.upsertConversations([conversation(0, messages: 0)], at: Date())
        case ("coach-upsert", 3):
            guard let rows = Int(arguments[2]) else { return usage() }
            let database = try CoachCache(url: URL(fileURLWithPath: arguments[1]))
            let messages = (0..<rows).map(message)
            let clock = ContinuousClock()
            let elapsed = try clock.measure { try database.upsertMessages(messages, at: Date()) }
            print(#"{"rows":\#(rows),"seconds":\#(elapsed.seconds),"stored":\#(try database.counts().messages)}"#)
        case ("coach-list", 4):
            guard let conversations = Int(arguments[2]), let perConversation = Int(arguments[3]) else { return usage() }
            let database = try CoachCache(url: URL(fileURLWithPath: arguments[1]))
            if try database.counts().messages == 0 {
                for index in 0..<conversations {
                    let thread = conversation(index, messages: perConversation)
                    let messages = (0..<perConversation).map { number in
                        Message(id: String(format: "%08x-%04x-4000-8000-%012x", index, number % 65536, number), conversationId: thread.id,
                                role: number % 2 == 0 ? .user : .assistant, content: content(number),
                                createdAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(number) * 60))
                    }
                    try database.saveMessages(messages, of: thread, at: Date())
                }
                try database.saveConversations((0..<conversations).map { conversation($0, messages: perConversation) }, userID: user, at: Date())
            }
            let clock = ContinuousClock()
            var listed = 0
            var samples: [Double] = []
            for _ in 0..<20 {
                let reopened = try CoachCache(url: URL(fileURLWithPath: arguments[1]))
                samples.append(try clock.measure { listed = try reopened.conversations(userID: user).conversations.count }.seconds)
            }
            samples.sort()
            print(#"{"conversations":\#(listed),"messages":\#(try database.counts().messages),"medianSeconds":\#(samples[samples.count / 2]),"minSeconds":\#(samples[0]),"maxSeconds":\#(samples[samples.count - 1])}"#)
        default:
            usage()
        }
    }

    static func usage() {
        FileHandle.standardError.write(Data("usage: brados-bench coach-schema FILE | coach-upsert FILE ROWS | coach-list FILE CONVERSATIONS MESSAGES\n".utf8))
        exit(64)
    }

    static func conversation(_ index: Int, messages: Int) -> Conversation {
        Conversation(id: String(format: "%08x-0000-4000-8000-000000000000", index), userId: user, title: "Conversation \(index)",
                     domain: "fitness", lastMessageAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(index)), messageCount: messages,
                     createdAt: Date(timeIntervalSince1970: 1_794_000_000), updatedAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(index)))
    }

    /// The same rows `bench/coach_upsert.py` builds for python.
    static func message(_ number: Int) -> Message {
        Message(id: String(format: "m-%08d", number), conversationId: "00000000-0000-4000-8000-000000000000",
                role: number % 2 == 0 ? .user : .assistant, content: content(number),
                createdAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(number)))
    }

    static func content(_ number: Int) -> String {
        "Message \(number): let's pick one small step you can take tomorrow, and one for the weekend. How does that sound?"
    }
}
