import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Synchronization

/// One `TimelineEntry` of a Plex Media Server notification: an item of a library section
/// created (state 0, then 5 once processed), changed (5) or deleted (9).
struct PlexTimelineEntry: Sendable, Equatable {
    var sectionID: String
    var itemID: String
    /// 9: album.
    var type: Int
    var title: String
    var state: Int
    var metadataState: String?
    var updatedAt: Int

    var json: [String: Any] {
        var object: [String: Any] = ["identifier": "com.plexapp.plugins.library", "sectionID": sectionID, "itemID": itemID,
                                     "type": type, "title": title, "state": state, "updatedAt": updatedAt]
        if let metadataState { object["metadataState"] = metadataState }
        return object
    }

    /// The entries a change of the catalogue sends, in order.
    static func entries(for change: PlexCatalogue.Change, before: PlexCatalogue, after: PlexCatalogue) -> [PlexTimelineEntry] {
        let section = after.sectionKey
        var entries: [PlexTimelineEntry] = []
        for new in change.add ?? [] {
            entries.append(PlexTimelineEntry(sectionID: section, itemID: new.ratingKey, type: 9, title: new.title, state: 0,
                                             metadataState: "created", updatedAt: change.at))
            entries.append(PlexTimelineEntry(sectionID: section, itemID: new.ratingKey, type: 9, title: new.title, state: 5,
                                             metadataState: nil, updatedAt: change.at))
        }
        for key in Set((change.retitle ?? [:]).keys).union(change.touch ?? []).sorted() {
            guard let album = after.albumsByKey[key], (change.add ?? []).allSatisfy({ $0.ratingKey != key }) else { continue }
            entries.append(PlexTimelineEntry(sectionID: section, itemID: key, type: 9, title: album.title, state: 5, metadataState: nil,
                                             updatedAt: change.at))
        }
        for key in change.delete ?? [] {
            guard let album = before.albumsByKey[key] else { continue }
            entries.append(PlexTimelineEntry(sectionID: section, itemID: key, type: 9, title: album.title, state: 9,
                                             metadataState: "deleted", updatedAt: change.at))
        }
        return entries
    }
}

/// Who listens to the library's notifications (websocket and server-sent events alike).
final class PlexNotifier: Sendable {
    private let listeners = Mutex<[UUID: AsyncStream<[PlexTimelineEntry]>.Continuation]>([:])

    /// A stream of entry batches, until `stop(id)`.
    func listen() -> (id: UUID, entries: AsyncStream<[PlexTimelineEntry]>) {
        let (stream, continuation) = AsyncStream<[PlexTimelineEntry]>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        listeners.withLock { $0[id] = continuation }
        return (id, stream)
    }

    func stop(_ id: UUID) {
        listeners.withLock { $0.removeValue(forKey: id) }?.finish()
    }

    func send(_ entries: [PlexTimelineEntry]) {
        guard !entries.isEmpty else { return }
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(entries) }
    }

    /// A websocket frame: `{"NotificationContainer": {"type": "timeline", "size": N, "TimelineEntry": [...]}}`.
    static func frame(_ entries: [PlexTimelineEntry]) -> String {
        let container: [String: Any] = ["NotificationContainer": ["type": "timeline", "size": entries.count,
                                                                  "TimelineEntry": entries.map(\.json)]]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: container)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Server-sent events: one event a timeline entry, its object alone under `TimelineEntry`.
    static func events(_ entries: [PlexTimelineEntry]) -> String {
        entries.map { entry in
            let data = (try? JSONSerialization.data(withJSONObject: ["TimelineEntry": entry.json])) ?? Data("{}".utf8)
            return "event: timeline\ndata: " + String(decoding: data, as: UTF8.self) + "\n\n"
        }.joined()
    }
}

extension PlexRoutes {
    /// `/:/websockets/notifications` (websocket) for the owned server: a token as every route
    /// takes it (the `X-Plex-Token` header or query parameter), then timeline notifications
    /// as the library changes.
    func registerNotifications(on router: Router<BasicWebSocketRequestContext>) {
        router.ws("/:/websockets/notifications", shouldUpgrade: { request, _ in
            (try? authenticate(request)) == nil ? .dontUpgrade : .upgrade([:])
        }, onUpgrade: { [library] inbound, outbound, _ in
            let (id, entries) = library.notifier.listen()
            let sender = Task {
                for await batch in entries { try await outbound.write(.text(PlexNotifier.frame(batch))) }
            }
            do { for try await _ in inbound.messages(maxSize: 1 << 16) {} } catch {}
            library.notifier.stop(id)
            sender.cancel()
        })
    }

    /// `/:/eventsource/notifications`: the same as server-sent events, with a `ping` every 10 s.
    func registerEventSource<Context: RequestContext>(on router: some RouterMethods<Context>) {
        router.get("/:/eventsource/notifications") { [library] request, _ in
            try authenticate(request)
            let (id, entries) = library.notifier.listen()
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                            body: ResponseBody { writer in
                                defer { library.notifier.stop(id) }
                                let pings = Task {
                                    while !Task.isCancelled {
                                        try await Task.sleep(for: .seconds(10))
                                        library.notifier.sendPing(to: id)
                                    }
                                }
                                defer { pings.cancel() }
                                for await batch in entries {
                                    let text = batch.isEmpty ? "event: ping\ndata: {}\n\n" : PlexNotifier.events(batch)
                                    try await writer.write(ByteBuffer(string: text))
                                }
                                try await writer.finish(nil)
                            })
        }
    }
}

extension PlexNotifier {
    /// An empty batch to one listener: a server-sent `ping`.
    func sendPing(to id: UUID) { _ = listeners.withLock { $0[id] }?.yield([]) }
}
