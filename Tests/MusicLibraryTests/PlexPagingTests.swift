import BradOSCore
import BradOSNetworking
import Foundation
@testable import MusicLibrary
import TestSupport
import Testing

@Suite("Library: Plex paging")
struct PlexPagingTests {
    @Test("albums page through X-Plex-Container-Start/Size until totalSize, with the Plex headers")
    func paging() async throws {
        let transport = StubTransport { request, _ in
            let start = Int(request.header("X-Plex-Container-Start") ?? "0")!
            let size = Int(request.header("X-Plex-Container-Size") ?? "0")!
            let items = (start..<min(250, start + size)).map {
                #"{"ratingKey":"\#($0)","title":"T\#($0)","parentTitle":"A","type":"album","year":1999}"#
            }
            return .json(#"{"MediaContainer":{"size":\#(items.count),"totalSize":250,"offset":\#(start),"Metadata":[\#(items.joined(separator: ","))]}}"#)
        }
        var client = APIClient(service: .plex, baseURL: URL(string: "http://127.0.0.1:9")!, transport: transport,
                               authenticator: StaticToken(), authScheme: PlexRESTClient.authScheme,
                               retrier: Retrier(clock: ManualClock(), random: { 0.5 }))
        client.defaultHeaders = PlexRESTClient.identificationHeaders(clientIdentifier: "test-id")
        let progress = Locked<[Int]>([])
        let albums = try await PlexRESTClient(client: client, pageSize: 100).albums(section: "1") { done, _ in progress.withLock { $0.append(done) } }
        #expect(albums.count == 250)
        #expect(Set(albums.map(\.ratingKey)).count == 250)
        #expect(progress.value == [100, 200, 250])
        #expect(transport.requests.count == 3)
        let first = try #require(transport.requests.first)
        #expect(first.header("X-Plex-Token") == "plex-token")
        #expect(first.header("X-Plex-Client-Identifier") == "test-id")
        #expect(first.header("Accept") == "application/json")
        #expect(first.url.query?.contains("type=9") == true)
    }
}
