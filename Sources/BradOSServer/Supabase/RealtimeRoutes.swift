import Foundation
import Hummingbird
import HummingbirdWebSocket
import Synchronization

/// Supabase Realtime's socket, `GET /realtime/v1/websocket?apikey=KEY&vsn=1.0.0`: Phoenix
/// channels v1 JSON frames (``RealtimeHub``). A wrong or missing `apikey` is refused before
/// the upgrade. As a Phoenix server does, it closes a socket that sent nothing (not even a
/// heartbeat) for ``idleTimeout``; it sends no WebSocket pings of its own, so an idle
/// connection costs only the client's heartbeats.
struct RealtimeRoutes {
    let hub: RealtimeHub
    let auth: SupabaseAuthRoutes
    static let idleTimeout: Duration = .seconds(60)

    /// When the socket last sent anything.
    final class LastHeard: Sendable {
        let time = Mutex(ContinuousClock.now)
        func touch() { time.withLock { $0 = .now } }
        var silence: Duration { ContinuousClock.now - time.withLock { $0 } }
    }

    func register(on router: Router<BasicWebSocketRequestContext>) {
        router.ws("/realtime/v1/websocket", shouldUpgrade: { [auth] request, _ in
            auth.checkAPIKey(request) == nil ? .upgrade([:]) : .dontUpgrade
        }, onUpgrade: { [hub] inbound, outbound, _ in
            let socket = try await hub.connect(outbound)
            let heard = LastHeard()
            let watchdog = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(5))
                    if heard.silence > Self.idleTimeout {
                        try? await outbound.close(.goingAway, reason: "heartbeat timeout")
                        return
                    }
                }
            }
            do {
                // Reading is what sees the peer's close (and answers its pings).
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    heard.touch()
                    guard case let .text(text) = message else { continue }
                    await hub.receive(text, from: socket)
                }
            } catch {}
            watchdog.cancel()
            await hub.disconnect(socket)
        })
    }
}
