import Foundation
import Hummingbird

/// `/_admin/stats`, `/_admin/faults` and `/_admin/expire-tokens`, served only with `--admin`.
struct AdminRoutes {
    let state: AdminState
    let database: ServerDatabase

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/_admin/stats") { _, _ in try JSON.response(await state.stats()) }
        router.delete("/_admin/stats") { _, _ in
            await state.resetStats()
            return Response(status: .noContent)
        }
        router.get("/_admin/faults") { _, _ in try JSON.response(await state.faults()) }
        router.post("/_admin/faults") { request, _ in
            let rule = try await JSON.decode(FaultRule.self, from: request)
            await state.add(rule)
            return try JSON.response(rule, status: .created)
        }
        router.delete("/_admin/faults") { _, _ in
            await state.clearFaults()
            return Response(status: .noContent)
        }
        // Expires every access token now (refresh tokens stay valid), so tests see a 401 and a renewal without waiting.
        router.post("/_admin/expire-tokens") { _, _ in
            try database.writer.write { try $0.execute(sql: "UPDATE token SET expiresAt = 0 WHERE kind = 'access'") }
            return Response(status: .noContent)
        }
    }
}
