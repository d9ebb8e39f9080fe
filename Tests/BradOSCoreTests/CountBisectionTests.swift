import BradOSCore
import BradOSNetworking
import Foundation
import Synchronization
import Testing

/// Finding where a copy and its server differ by counting halves.
@Suite("Count bisection")
struct CountBisectionTests {
    /// Rows as (key, id); a fake server that counts and lists them and tallies what it was asked.
    final class Server: Sendable {
        let rows: [(key: Int, id: String)]
        let counts = Atomic<Int>(0)
        let listed = Atomic<Int>(0)
        init(_ rows: [(key: Int, id: String)]) { self.rows = rows }
        func inRange(_ range: KeyRange<Int>) -> [(key: Int, id: String)] { rows.filter { range.contains($0.key) } }
    }

    static func search(local: [(key: Int, id: String)], server: Server, listLimit: Int) -> CountBisection<Int> {
        let sorted = local.sorted { $0.key < $1.key }
        return CountBisection(
            listLimit: listLimit,
            localCount: { range in sorted.filter { range.contains($0.key) }.count },
            middle: { range in
                let keys = sorted.filter { range.contains($0.key) }.map(\.key)
                guard keys.count > 1 else { return nil }
                let median = keys[keys.count / 2]
                return median > keys[0] ? median : keys.first { $0 > keys[0] }
            },
            localIDs: { range in Set(sorted.filter { range.contains($0.key) }.map(\.id)) },
            serverCount: { range in
                server.counts.add(1, ordering: .relaxed)
                return server.inRange(range).count
            },
            serverIDs: { range in
                let rows = server.inRange(range)
                server.listed.add(rows.count, ordering: .relaxed)
                return Set(rows.map(\.id))
            })
    }

    @Test("k differences among n rows: about k·log(n/limit) counts and k small listings, never every id")
    func finds() async throws {
        let local = (0..<4000).map { (key: $0 / 4, id: "a\($0)") }  // four rows a key, as a scan adds albums
        var remote = local.filter { !["a17", "a2222", "a3999"].contains($0.id) }
        remote.append((key: 120, id: "new"))  // where a row was deleted too: see below
        let server = Server(remote)
        let found = try await Self.search(local: local, server: server, listLimit: 16).differences(serverCount: remote.count)
        #expect(found.extra == ["a2222", "a3999"])
        // What it cannot see: a row added and another deleted in the same half cancel out
        // (the library counts only after reading every added album, so that never happens there).
        #expect(found.missing.isEmpty && !found.extra.contains("a17"))
        #expect(server.listed.load(ordering: .relaxed) <= 4 * 16, "\(server.listed.load(ordering: .relaxed)) rows listed")
        #expect(server.counts.load(ordering: .relaxed) <= 4 * 10, "\(server.counts.load(ordering: .relaxed)) counts")
    }

    @Test("rows that share one key cannot be split: the range is listed whole, within the budget; past it, OverBudget")
    func budget() async throws {
        let local = (0..<500).map { (key: 7, id: "b\($0)") } + (0..<100).map { (key: 8 + $0, id: "c\($0)") }
        let remote = local.filter { $0.id != "b250" }
        let server = Server(remote)
        var search = Self.search(local: local, server: server, listLimit: 16)
        search.listBudget = remote.count
        let found = try await search.differences(serverCount: remote.count)
        #expect(found.extra == ["b250"] && found.missing.isEmpty)
        #expect(server.listed.load(ordering: .relaxed) == 499, "the one second's rows, listed once")

        search.listBudget = 400
        let error = await #expect(throws: CountBisection<Int>.OverBudget.self) { try await search.differences(serverCount: remote.count) }
        #expect(error?.rows == 499)
        #expect(server.listed.load(ordering: .relaxed) == 499, "nothing more was listed before it gave up")
    }
}

@Suite("HTTP responses")
struct HTTPResponseTests {
    @Test("the server's clock comes from Date (an IMF-fixdate), in Unix seconds; anything else is unknown")
    func serverTime() {
        #expect(HTTPResponse(status: 200, headers: [("date", "Fri, 27 Nov 2026 10:00:02 GMT")]).serverTime == 1_795_773_602)
        #expect(HTTPResponse(status: 200, headers: [("Date", "Thu, 01 Jan 1970 00:00:00 GMT")]).serverTime == 0)
        #expect(HTTPResponse(status: 200, headers: [("Date", "yesterday")]).serverTime == nil)
        #expect(HTTPResponse(status: 200).serverTime == nil)
    }
}
