import BradOSAuth
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// `brados sync --watch` for the library: the Plex server's notifications
/// (`/:/websockets/notifications`). On every connection the library is first brought up to
/// date by the delta refresh (so nothing missed while away is lost); then each `timeline`
/// entry of an album or a collection (added, changed, deleted) refreshes the section by what
/// changed, several entries in a burst by one refresh. A ping every 30 s unanswered within
/// 10 s ends a dead connection; the next is tried after an exponential, jittered wait.
extension LibraryRepository {
    /// Follows the library until the task is cancelled.
    /// - Throws: `CancellationError`; ``AuthError`` when the session is gone; ``LibraryError``
    ///   when the server has no notifications.
    public func watch(ping: Duration = .seconds(30), backoff: RetryPolicy = LiveConnection.backoff,
                      tell: @escaping @Sendable (WatchEvent) -> Void) async throws {
        try await LiveConnection.keep(backoff: backoff, gap: { error, _ in
            switch error {
            case let error as AuthError: throw error
            case LibraryError.noNotifications: throw LibraryError.noNotifications
            default: return .init(error)
            }
        }, reconnecting: { gap, wait in tell(.paused(reason: gap.reason, after: wait, unreachable: gap.unreachable)) }) { _, connected in
            guard let socket = try await self.api().notificationSocket() else { throw LibraryError.noNotifications }
            try await NIOWebSocketClient().withConnection(to: socket.url, headers: socket.headers) { connection in
                connected()
                try await self.followNotifications(connection, ping: ping, tell: tell)
            }
            return false
        }
    }

    private func followNotifications(_ connection: any WebSocketConnection, ping: Duration, tell: @escaping @Sendable (WatchEvent) -> Void) async throws {
        let (changes, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { signal.finish() }
                while let text = try await connection.receive() {
                    if Self.timelineEntries(text) > 0 { signal.yield() }
                }
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: ping)
                    try await connection.ping(timeout: min(ping, .seconds(10)))
                }
            }
            group.addTask {
                // Caught up first: what changed while no one listened.
                tell(.changed("caught up (\(try await self.refresh().albumCount) albums)"))
                for await _ in changes {
                    let snapshot = try await self.refresh()
                    tell(.changed("refreshed after a notification (\(snapshot.albumCount) albums)"))
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// How many `timeline` entries of albums (type 9) or collections (18) a notification holds.
    static func timelineEntries(_ text: String) -> Int {
        guard let value = try? JSONCoding.decode(JSONValue.self, from: Data(text.utf8)),
              let container = value.objectValue?["NotificationContainer"]?.objectValue,
              container["type"]?.stringValue == "timeline",
              case let .array(entries)? = container["TimelineEntry"] else { return 0 }
        return entries.filter { entry in
            let type = entry.objectValue?["type"]
            return type?.doubleValue == 9 || type?.doubleValue == 18 || type?.stringValue == "9" || type?.stringValue == "18"
        }.count
    }
}
