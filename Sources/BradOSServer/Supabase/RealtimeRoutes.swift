import Foundation
import Hummingbird
import HummingbirdWebSocket

/// Supabase Realtime's socket, `GET /realtime/v1/websocket?apikey=KEY&vsn=1.0.0`: Phoenix
/// channels v1 JSON frames (``RealtimeHub``). A wrong or missing `apikey` is refused before
/// the upgrade.
struct RealtimeRoutes {
    let hub: RealtimeHub
    let auth: SupabaseAuthRoutes

    func register(on router: Router<BasicWebSocketRequestContext>) {
        router.ws("/realtime/v1/websocket", shouldUpgrade: { [auth] request, _ in
            auth.checkAPIKey(request) == nil ? .upgrade([:]) : .dontUpgrade
        }, onUpgrade: { [hub] inbound, outbound, _ in
            let socket = try await hub.connect(outbound)
            do {
                // Reading is what answers the peer's pings and sees its close.
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case let .text(text) = message else { continue }
                    await hub.receive(text, from: socket)
                }
            } catch {}
            await hub.disconnect(socket)
        })
    }
}
