import Foundation
import Synchronization

/// What `coach show --follow` has printed of one conversation: each message's id and a hash of
/// what it said, and the store revision it last read up to. The follower prints what the store
/// holds that differs from this, whichever process stored it (its own Realtime event, a
/// `sync --watch` beside it that stored the same row first, a refresh in another terminal),
/// so every message is printed once, in order, however the row reached the store.
///
/// Threading: every read of the store and every print happens under one lock, so a Realtime
/// event and a change found in the store never print the same message twice or out of order.
final class FollowLedger: Sendable {
    struct State {
        /// The messages printed or known (older than the tail shown first), by id.
        var printed: [String: Int]
        /// The store's identity and the revision read up to (0: read every row next time).
        var origin: String?
        var revision: Int64 = 0
        /// The conversation's deletion was told: nothing more is printed.
        var ended = false
    }

    let conversationID: String
    private let state: Mutex<State>

    /// The ledger as `--follow` starts: the messages of `shown` (the tail just printed) are
    /// printed, every message before the tail's last is known; any other message the store
    /// holds is printed by the first ``reconcile(_:emit:)``.
    init(conversationID: String, shown: [Message], held: [Message]) {
        self.conversationID = conversationID
        var printed: [String: Int] = [:]
        for message in shown { printed[message.id] = Self.hash(message) }
        if let last = shown.last {
            for message in held where printed[message.id] == nil && (message.createdAt, message.id) < (last.createdAt, last.id) {
                printed[message.id] = Self.hash(message)
            }
        }
        state = Mutex(State(printed: printed))
    }

    /// What a message says that `--follow` prints: a change of any of it is a `changed` line.
    static func hash(_ message: Message) -> Int {
        var hasher = Hasher()
        hasher.combine(message.role.rawValue)
        hasher.combine(message.content)
        hasher.combine(message.createdAt.timeIntervalSince1970)
        return hasher.finalize()
    }

    /// Whether the store moved since the last reconcile (a cheap read: its revision).
    func moved(_ database: CoachCache) throws -> Bool {
        let now = try database.revision()
        return state.withLock { $0.origin != now.origin || $0.revision != now.revision }
    }

    /// Prints what the store holds of the conversation that differs from what was printed:
    /// new messages in order of creation (`added`), messages whose text changed (`changed`),
    /// printed messages the store no longer holds (`deleted`). A conversation the store does
    /// not hold (a cache cleared meanwhile) prints nothing; only the server's deletion ends it.
    /// - Throws: ``StorageError``; what `emit` throws.
    func reconcile(_ database: CoachCache, emit: (FollowEvent) throws -> Void) throws {
        try state.withLock { state in
            guard !state.ended else { return }
            let since = state.origin == nil ? 0 : state.revision
            guard let snapshot = try database.followSnapshot(conversationID: conversationID, changedAfter: since) else { return }
            // Another store (imported, rebuilt): its revisions are not this one's; read every row.
            let fresh = snapshot.origin != state.origin && state.origin != nil
            let changed = fresh ? try database.followSnapshot(conversationID: conversationID, changedAfter: 0)?.changed ?? [] : snapshot.changed
            for message in changed {
                let hash = Self.hash(message)
                switch state.printed[message.id] {
                case nil: try emit(.added(message))
                case hash?: continue
                case _?: try emit(.changed(message))
                }
                state.printed[message.id] = hash
            }
            for gone in state.printed.keys.filter({ !snapshot.ids.contains($0) }).sorted() {
                state.printed[gone] = nil
                try emit(.deleted(id: gone))
            }
            state.origin = snapshot.origin
            state.revision = snapshot.revision
        }
    }

    /// Tells the conversation's deletion, once.
    /// - Throws: what `emit` throws.
    func end(emit: (FollowEvent) throws -> Void) throws {
        try state.withLock { state in
            guard !state.ended else { return }
            state.ended = true
            try emit(.conversationDeleted(id: conversationID))
        }
    }

    /// Prints a change of the conversation's own row, in turn with the messages.
    /// - Throws: what `emit` throws.
    func tell(_ event: FollowEvent, emit: (FollowEvent) throws -> Void) throws {
        try state.withLock { state in
            guard !state.ended else { return }
            try emit(event)
        }
    }
}
