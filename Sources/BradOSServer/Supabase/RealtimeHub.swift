import Foundation
import GRDB
import HummingbirdWebSocket
import Synchronization

/// A fault Realtime injects (`POST /_admin/realtime-faults`): `{"kind": "lose", "count": 1}`.
/// `count` absent means until cleared (`DELETE /_admin/realtime-faults`); `topic` limits it to
/// the events of one channel (`"realtime:coach:ID"`: one subscriber late while another is not).
public struct RealtimeFault: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// The next event closes the connection instead (1001, no reason), the event unsent.
        case drop
        /// The next event is not sent.
        case lose
        /// The next event waits `delayMs` before it is sent (the next `count` events).
        case delay
        /// The next join is answered with an error.
        case refuseJoin = "refuse-join"
        /// The next event closes the connection with 1011 and a reason.
        case closeError = "close-error"
        /// The connection goes silent: no events, no heartbeat replies (a dead peer).
        case stall
    }

    public var kind: Kind
    public var count: Int?
    public var delayMs: Int?
    /// Only events to channels of this topic; every channel when absent.
    public var topic: String?

    public init(kind: Kind, count: Int? = nil, delayMs: Int? = nil, topic: String? = nil) {
        self.kind = kind
        self.count = count
        self.delayMs = delayMs
        self.topic = topic
    }
}

/// Supabase Realtime's `postgres_changes` for the reference server: the sockets, their
/// channels, and a pump that reads the change log (``RealtimeChanges``) every
/// ``pollInterval`` while anyone listens and sends each change to the channels whose
/// bindings match it and whose user may see it.
actor RealtimeHub {
    struct Binding: Sendable {
        var id: Int
        var event: String
        var schema: String
        var table: String
        var filter: RealtimeFilter?
    }

    struct Channel: Sendable {
        var topic: String
        var joinRef: String?
        var bindings: [Binding]
        var token: String?
    }

    final class Socket: Sendable {
        let writer: WebSocketOutboundWriter
        let channels = Mutex<[String: Channel]>([:])
        let stalled = Mutex(false)
        init(writer: WebSocketOutboundWriter) { self.writer = writer }
    }

    let database: ServerDatabase
    let anonKey: String
    let pollInterval: Duration
    private var sockets: [UUID: Socket] = [:]
    private var lastChange: Int64?
    private var pump: Task<Void, Never>?
    private var faults: [RealtimeFault] = []
    private var nextBindingID = 1
    private var lastPrune = Date.distantPast
    /// How long the change log keeps a change: long after every subscriber had it.
    static let keep: Double = 600

    init(database: ServerDatabase, anonKey: String, pollInterval: Duration = .milliseconds(20)) {
        self.database = database
        self.anonKey = anonKey
        self.pollInterval = pollInterval
    }

    /// Channels joined now, over every socket (`GET /_admin/realtime-channels`: a test or a
    /// benchmark waits for a subscriber before it changes anything).
    func channelCount() -> Int { sockets.values.reduce(0) { $0 + $1.channels.withLock { $0.count } } }

    // MARK: Faults

    func add(_ fault: RealtimeFault) { faults.append(fault) }
    func clearFaults() { faults = [] }
    func currentFaults() -> [RealtimeFault] { faults }

    /// Takes one use of the first fault of `kinds` (for an event to `topic`: a fault of that topic or of none).
    private func take(_ kinds: Set<RealtimeFault.Kind>, topic: String? = nil) -> RealtimeFault? {
        guard let index = faults.firstIndex(where: { kinds.contains($0.kind) && ($0.topic == nil || $0.topic == topic) }) else { return nil }
        let fault = faults[index]
        if let count = fault.count {
            if count <= 1 { faults.remove(at: index) } else { faults[index].count = count - 1 }
        }
        return fault
    }

    // MARK: Sockets

    func connect(_ writer: WebSocketOutboundWriter) throws -> UUID {
        let id = UUID()
        sockets[id] = Socket(writer: writer)
        if lastChange == nil { lastChange = try database.writer.read { try RealtimeChanges.last($0) } }
        if pump == nil { pump = Task { await self.run() } }
        return id
    }

    func disconnect(_ id: UUID) {
        sockets[id] = nil
    }

    /// One text frame from a socket: a Phoenix message.
    func receive(_ text: String, from id: UUID) async {
        guard let socket = sockets[id], let message = PhoenixMessage(text) else { return }
        if socket.stalled.withLock({ $0 }) { return }
        switch (message.topic, message.event) {
        case ("phoenix", "heartbeat"):
            await send(socket, PhoenixMessage.reply(to: message, status: "ok", response: [:]))
        case (_, "phx_join"):
            await join(message, socket: socket)
        case (_, "phx_leave"):
            socket.channels.withLock { $0[message.topic] = nil }
            await send(socket, PhoenixMessage.reply(to: message, status: "ok", response: [:]))
        case (_, "access_token"):
            let token = message.payload["access_token"] as? String
            socket.channels.withLock { $0[message.topic]?.token = token }
        default:
            await send(socket, PhoenixMessage.reply(to: message, status: "error", response: ["reason": "unknown event \(message.event)"]))
        }
    }

    private func join(_ message: PhoenixMessage, socket: Socket) async {
        func refuse(_ reason: String) async {
            await send(socket, PhoenixMessage.reply(to: message, status: "error", response: ["reason": reason]))
        }
        if take([.refuseJoin]) != nil { return await refuse("injected: join refused") }
        guard message.topic.hasPrefix("realtime:") else { return await refuse("unknown topic \(message.topic)") }
        let config = message.payload["config"] as? [String: Any] ?? [:]
        let token = message.payload["access_token"] as? String
        var bindings: [Binding] = []
        for case let entry as [String: Any] in config["postgres_changes"] as? [Any] ?? [] {
            let event = entry["event"] as? String ?? "*", schema = entry["schema"] as? String ?? "public"
            guard let table = entry["table"] as? String, schema == "public",
                  let published = RealtimeChanges.published.first(where: { $0.name == table }) else {
                return await refuse("Unable to subscribe to changes with given parameters: table \(entry["table"] as? String ?? "?") is not published")
            }
            guard ["*", "INSERT", "UPDATE", "DELETE"].contains(event) else { return await refuse("invalid event \(event)") }
            var filter: RealtimeFilter?
            if let text = entry["filter"] as? String {
                guard let parsed = RealtimeFilter(text), published.type(of: parsed.column) != nil else {
                    return await refuse("Unable to subscribe to changes with given parameters: invalid filter \(text)")
                }
                filter = parsed
            }
            bindings.append(Binding(id: nextBindingID, event: event, schema: schema, table: table, filter: filter))
            nextBindingID += 1
        }
        let channel = Channel(topic: message.topic, joinRef: message.joinRef ?? message.ref, bindings: bindings, token: token)
        socket.channels.withLock { $0[message.topic] = channel }
        let echoed: [[String: Any]] = bindings.map { binding in
            var object: [String: Any] = ["id": binding.id, "event": binding.event, "schema": binding.schema, "table": binding.table]
            if let filter = binding.filter { object["filter"] = filter.text }
            return object
        }
        await send(socket, PhoenixMessage.reply(to: message, status: "ok", response: ["postgres_changes": echoed]))
        await send(socket, ["topic": message.topic, "event": "system", "ref": NSNull(),
                            "payload": ["channel": String(message.topic.dropFirst("realtime:".count)), "extension": "postgres_changes",
                                        "message": "Subscribed to PostgreSQL", "status": "ok"]])
    }

    // MARK: The pump

    private func run() async {
        while !sockets.isEmpty {
            do { try await deliverNew() } catch {}
            try? await Task.sleep(for: pollInterval)
        }
        pump = nil
    }

    private func deliverNew() async throws {
        let after = lastChange ?? 0
        let now = Date()
        let prune = now.timeIntervalSince(lastPrune) > 60
        if prune { lastPrune = now }
        let changes = try await database.writer.write { db -> [RealtimeChanges.Change] in
            if prune { try RealtimeChanges.prune(olderThan: Self.keep, now: now, db) }
            return try RealtimeChanges.after(after, db)
        }
        guard let newest = changes.last?.id else { return }
        lastChange = newest
        var users: [String: String?] = [:] // token → its user, once per batch
        for change in changes {
            guard let table = RealtimeChanges.published.first(where: { $0.name == change.table }) else { continue }
            let record = RealtimeChanges.record(change.record, of: table), old = RealtimeChanges.record(change.oldRecord, of: table)
            for socket in sockets.values where !socket.stalled.withLock({ $0 }) {
                for channel in socket.channels.withLock({ Array($0.values) }) {
                    let ids = channel.bindings.filter { $0.matches(change, record: record ?? old ?? [:]) }.map(\.id)
                    guard !ids.isEmpty else { continue }
                    let user: String?
                    if let cached = users[channel.token ?? ""] { user = cached } else {
                        user = try channel.token.flatMap { $0 == anonKey ? nil : try database.user(forAccessToken: $0)?.id }
                        users[channel.token ?? ""] = user
                    }
                    guard let user else {
                        if channel.token != nil && channel.token != anonKey { await expire(channel, socket: socket) }
                        continue
                    }
                    guard user == change.userID else { continue }
                    var data: [String: Any] = ["schema": "public", "table": change.table, "type": change.type, "errors": NSNull(),
                                               "commit_timestamp": SupabaseAuthRoutes.timestamp(Date(timeIntervalSince1970: change.committedAt)),
                                               "columns": RealtimeChanges.columns(of: table)]
                    if let record { data["record"] = record }
                    if let old { data["old_record"] = old }
                    await deliver(["topic": channel.topic, "event": "postgres_changes", "ref": NSNull(),
                                   "payload": ["ids": ids, "data": data]], to: socket)
                }
            }
        }
    }

    /// An event to a socket, through the faults.
    private func deliver(_ message: [String: Any], to socket: Socket) async {
        let topic = message["topic"] as? String
        if let fault = take([.drop, .lose, .closeError, .stall], topic: topic) {
            switch fault.kind {
            case .drop: try? await socket.writer.close(.goingAway, reason: nil)
            case .closeError: try? await socket.writer.close(.unexpectedServerError, reason: "injected: server error")
            case .stall: socket.stalled.withLock { $0 = true }
            default: break
            }
            return
        }
        if let fault = take([.delay], topic: topic), let delay = fault.delayMs {
            // One channel late: its event waits on its own, the others' go on.
            guard fault.topic != nil else { try? await Task.sleep(for: .milliseconds(delay)); return await send(socket, message) }
            let text = (try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes])).map { String(decoding: $0, as: UTF8.self) }
            Task {
                try? await Task.sleep(for: .milliseconds(delay))
                if let text { try? await socket.writer.write(.text(text)) }
            }
            return
        }
        await send(socket, message)
    }

    /// A channel whose token expired: told so, and closed (the client joins again with a new one).
    private func expire(_ channel: Channel, socket: Socket) async {
        socket.channels.withLock { $0[channel.topic] = nil }
        await send(socket, ["topic": channel.topic, "event": "system", "ref": NSNull(),
                            "payload": ["channel": String(channel.topic.dropFirst("realtime:".count)), "extension": "system",
                                        "message": "Token has expired", "status": "error"]])
        await send(socket, ["topic": channel.topic, "event": "phx_close", "ref": channel.joinRef ?? NSNull(), "payload": [:] as [String: Any]])
    }

    private func send(_ socket: Socket, _ message: [String: Any]) async {
        guard let data = try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes]) else { return }
        try? await socket.writer.write(.text(String(decoding: data, as: UTF8.self)))
    }
}

extension RealtimeHub.Binding {
    /// Whether a change is one this binding asked for.
    func matches(_ change: RealtimeChanges.Change, record: [String: Any]) -> Bool {
        guard change.table == table, event == "*" || event == change.type else { return false }
        return filter?.holds(for: record) ?? true
    }
}

/// A Realtime filter, `column=op.value`: `eq`, `neq`, `lt`, `lte`, `gt`, `gte`, `in.(a,b)`.
struct RealtimeFilter: Sendable {
    /// As the client sent it (the join's reply echoes it).
    var text: String
    var column: String
    var op: String
    var values: [String]

    init?(_ text: String) {
        guard let equals = text.firstIndex(of: "="), let dot = text[equals...].firstIndex(of: ".") else { return nil }
        self.text = text
        column = String(text[..<equals])
        op = String(text[text.index(after: equals)..<dot])
        let operand = String(text[text.index(after: dot)...])
        switch op {
        case "eq", "neq", "lt", "lte", "gt", "gte": values = [operand]
        case "in":
            guard operand.hasPrefix("("), operand.hasSuffix(")") else { return nil }
            values = operand.dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
        default: return nil
        }
    }

    func holds(for record: [String: Any]) -> Bool {
        let value = record[column].map { "\($0)" } ?? ""
        switch op {
        case "eq": return value == values[0]
        case "neq": return value != values[0]
        case "in": return values.contains(value)
        default:
            let left = Double(value), right = Double(values[0])
            guard let left, let right else {
                return op == "lt" ? value < values[0] : op == "lte" ? value <= values[0] : op == "gt" ? value > values[0] : value >= values[0]
            }
            return op == "lt" ? left < right : op == "lte" ? left <= right : op == "gt" ? left > right : left >= right
        }
    }
}

/// A Phoenix channels v1 message: `{"topic", "event", "payload", "ref", "join_ref"}`.
struct PhoenixMessage {
    var topic: String
    var event: String
    var payload: [String: Any]
    var ref: String?
    var joinRef: String?

    init?(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let topic = object["topic"] as? String, let event = object["event"] as? String else { return nil }
        self.topic = topic
        self.event = event
        payload = object["payload"] as? [String: Any] ?? [:]
        ref = object["ref"] as? String
        joinRef = object["join_ref"] as? String
    }

    /// `phx_reply` to a message, with its ref (`null` when it had none).
    static func reply(to message: PhoenixMessage, status: String, response: [String: Any]) -> [String: Any] {
        var reply: [String: Any] = ["topic": message.topic, "event": "phx_reply", "ref": message.ref ?? NSNull(),
                                    "payload": ["status": status, "response": response]]
        if let joinRef = message.joinRef { reply["join_ref"] = joinRef }
        return reply
    }
}
