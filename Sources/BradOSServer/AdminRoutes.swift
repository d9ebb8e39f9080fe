import Foundation
import GRDB
import Hummingbird

/// `/_admin/stats`, `/_admin/faults`, `/_admin/realtime-faults`, `/_admin/realtime-channels`, `/_admin/sql`, `/_admin/plex` and `/_admin/expire-tokens`, served only with `--admin`.
struct AdminRoutes {
    let state: AdminState
    let database: ServerDatabase
    let library: PlexLibrary
    let realtime: RealtimeHub

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
        // Reads or changes the data behind the routes as another client would (tests and
        // benchmarks: inserts, updates and deletes between two refreshes, and the server's
        // rows to compare a copy with). One statement per call; its rows come back as arrays.
        router.post("/_admin/sql") { request, _ in
            let statement = try await JSON.decode(AdminStatement.self, from: request)
            // The rows are not Sendable: the synchronous write, as the other routes use.
            let (rows, changes) = try database.writer.write { db in
                let rows = try Row.fetchAll(db, sql: statement.sql, arguments: StatementArguments((statement.arguments ?? []).map(StoredText.value)))
                return (rows, db.changesCount)
            }
            let values: [[Any]] = rows.map { row in
                row.databaseValues.map { value -> Any in
                    switch value.storage {
                    case .null: NSNull()
                    case .int64(let number): number
                    case .double(let number): number
                    case .string(let text): text
                    // A text with a NUL is stored as its bytes (``StoredText``); other bytes as base64.
                    case .blob(let data): String(data: data, encoding: .utf8) ?? data.base64EncodedString()
                    }
                }
            }
            let body = try JSONSerialization.data(withJSONObject: ["changes": changes, "rows": values])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
        }
        // Changes the music library as Plex would (``PlexCatalogue/Change``).
        router.post("/_admin/plex") { request, _ in
            library.apply(try await JSON.decode(PlexCatalogue.Change.self, from: request))
            return try JSON.response(["contentChangedAt": library.current.contentChangedAt, "albums": library.current.albums.count])
        }
        // Realtime's faults (``RealtimeFault``): lost events, dropped connections, refused joins.
        router.get("/_admin/realtime-faults") { _, _ in try JSON.response(await realtime.currentFaults()) }
        router.post("/_admin/realtime-faults") { request, _ in
            let fault = try await JSON.decode(RealtimeFault.self, from: request)
            await realtime.add(fault)
            return try JSON.response(fault, status: .created)
        }
        router.get("/_admin/realtime-channels") { _, _ in try JSON.response(["channels": await realtime.channelCount()]) }
        router.delete("/_admin/realtime-faults") { _, _ in
            await realtime.clearFaults()
            return Response(status: .noContent)
        }
        // Expires every access token now (refresh tokens stay valid), so tests see a 401 and a renewal without waiting.
        router.post("/_admin/expire-tokens") { _, _ in
            try database.writer.write { try $0.execute(sql: "UPDATE token SET expiresAt = 0 WHERE kind = 'access'") }
            return Response(status: .noContent)
        }
    }
}

/// The body of `POST /_admin/sql`: one SQL statement and its arguments (text or null).
struct AdminStatement: Decodable {
    var sql: String
    var arguments: [String?]?
}
