import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Synchronization

/// A row change Supabase Realtime sent (`postgres_changes`).
public struct RowChange: Sendable, Equatable {
    public enum Kind: String, Sendable { case insert = "INSERT", update = "UPDATE", delete = "DELETE" }
    public var table: String
    public var kind: Kind
    /// The row after the change (inserts, updates), as JSON.
    public var record: Data?
    /// The row before it (updates, deletes; its primary key at least), as JSON.
    public var oldRecord: Data?
}

/// What a Realtime socket delivers to the one channel brados joins.
enum RealtimeIncoming: Sendable {
    case change(RowChange)
    /// The server closed the channel or said it failed (an expired token among the reasons).
    case channelClosed(reason: String)
    /// A heartbeat's reply (its ref).
    case heartbeatReply(ref: Int)
    case other
}

/// Supabase Realtime, Phoenix channels protocol v1 (JSON frames), as supabase-js and
/// realtime-py speak it: one channel (`realtime:<name>`) of `postgres_changes` bindings on a
/// socket at `<supabase>/realtime/v1/websocket?apikey=KEY&vsn=1.0.0`; heartbeats on topic
/// `phoenix`; `access_token` renews the JWT the server checks each change against.
final class RealtimeChannel: Sendable {
    let connection: any WebSocketConnection
    let topic: String
    private let refs = Mutex(0)

    init(connection: any WebSocketConnection, name: String) {
        self.connection = connection
        topic = "realtime:" + name
    }

    /// The socket's address for a Supabase project at `base` (its REST base URL).
    static func url(base: URL, anonKey: String) -> URL? {
        let http = APIRequest.get("/realtime/v1/websocket", query: [("apikey", anonKey), ("vsn", "1.0.0")]).url(relativeTo: base)
        guard var components = URLComponents(url: http, resolvingAgainstBaseURL: false) else { return nil }
        switch components.scheme?.lowercased() {
        case "http": components.scheme = "ws"
        case "https": components.scheme = "wss"
        default: break // http+unix: the embedded backend's socket, as it is
        }
        return components.url
    }

    private func nextRef() -> Int { refs.withLock { $0 += 1; return $0 } }

    private func send(topic: String, event: String, payload: JSONValue, ref: Int?, joinRef: Int? = nil) async throws {
        var object: [String: JSONValue] = ["topic": .string(topic), "event": .string(event), "payload": payload,
                                           "ref": ref.map { .string(String($0)) } ?? .null]
        if let joinRef { object["join_ref"] = .string(String(joinRef)) }
        try await connection.send(String(decoding: try JSONCoding.encode(JSONValue.object(object)), as: UTF8.self))
    }

    /// Joins with the bindings (`{event, schema, table, filter}`) and waits for the reply.
    /// - Throws: ``CoachError/realtimeRefused(_:)`` when the server refuses the join;
    ///   ``NetworkError`` when the socket closes first.
    func join(_ bindings: [[String: String]], accessToken: String) async throws {
        let ref = nextRef()
        let config: JSONValue = .object([
            "broadcast": .object(["ack": .bool(false), "self": .bool(false)]),
            "presence": .object(["key": .string(""), "enabled": .bool(false)]),
            "private": .bool(false),
            "postgres_changes": .array(bindings.map { .object($0.mapValues { .string($0) }) }),
        ])
        try await send(topic: topic, event: "phx_join", payload: .object(["config": config, "access_token": .string(accessToken)]),
                       ref: ref, joinRef: ref)
        while let text = try await connection.receive() {
            guard let frame = Self.frame(text), frame.topic == topic, frame.event == "phx_reply", frame.ref == String(ref) else { continue }
            let payload = frame.payload.objectValue ?? [:]
            if payload["status"]?.stringValue == "ok" { return }
            let reason = payload["response"]?.objectValue?["reason"]?.stringValue ?? "no reason given"
            throw CoachError.realtimeRefused(reason)
        }
        throw NetworkError.connectionLost(host: "Supabase Realtime", reason: "the socket closed before the join was answered")
    }

    /// Sends a heartbeat; its reply comes back as ``RealtimeIncoming/heartbeatReply(ref:)``.
    /// - Returns: the heartbeat's ref.
    func heartbeat() async throws -> Int {
        let ref = nextRef()
        try await send(topic: "phoenix", event: "heartbeat", payload: .object([:]), ref: ref)
        return ref
    }

    /// Gives the channel a renewed JWT.
    func renew(_ accessToken: String) async throws {
        try await send(topic: topic, event: "access_token", payload: .object(["access_token": .string(accessToken)]), ref: nextRef())
    }

    /// The next message for this channel; `nil` once the socket closed.
    func next() async throws -> RealtimeIncoming? {
        guard let text = try await connection.receive() else { return nil }
        guard let frame = Self.frame(text) else { return .other }
        if frame.topic == "phoenix", frame.event == "phx_reply", let ref = frame.ref.flatMap(Int.init) { return .heartbeatReply(ref: ref) }
        guard frame.topic == topic else { return .other }
        let payload = frame.payload.objectValue ?? [:]
        switch frame.event {
        case "postgres_changes":
            guard let data = payload["data"]?.objectValue, let table = data["table"]?.stringValue,
                  let kind = (data["type"] ?? data["eventType"])?.stringValue.flatMap(RowChange.Kind.init(rawValue:)) else { return .other }
            func json(_ key: String, _ alias: String) -> Data? {
                (data[key] ?? data[alias]).flatMap { $0 == .null ? nil : try? JSONCoding.encode($0) }
            }
            return .change(RowChange(table: table, kind: kind, record: json("record", "new"), oldRecord: json("old_record", "old")))
        case "phx_close":
            return .channelClosed(reason: "the server closed the channel")
        case "phx_error":
            return .channelClosed(reason: "the channel failed on the server")
        case "system" where payload["status"]?.stringValue == "error":
            return .channelClosed(reason: payload["message"]?.stringValue ?? "an error")
        default:
            return .other
        }
    }

    struct Frame {
        var topic: String
        var event: String
        var payload: JSONValue
        var ref: String?
    }

    static func frame(_ text: String) -> Frame? {
        guard let value = try? JSONCoding.decode(JSONValue.self, from: Data(text.utf8)), let object = value.objectValue,
              let topic = object["topic"]?.stringValue, let event = object["event"]?.stringValue else { return nil }
        // A ref is a string ("1"), as the JavaScript and Python clients send it; a number is taken too.
        let ref = object["ref"].flatMap { $0.stringValue ?? $0.doubleValue.map { String(Int($0)) } }
        return Frame(topic: topic, event: event, payload: object["payload"] ?? .null, ref: ref)
    }
}

/// When a JWT expires (its `exp` claim), read without checking its signature: to renew it in time.
enum JWTExpiry {
    static func of(_ token: String) -> Date? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let claims = try? JSONCoding.decode(JSONValue.self, from: data).objectValue,
              let exp = claims["exp"]?.doubleValue else { return nil }
        return Date(timeIntervalSince1970: exp)
    }
}
