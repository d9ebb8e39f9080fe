@testable import BradOSServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Reference server: Plex music library")
struct PlexRoutesTests {
    func app() throws -> (some ApplicationProtocol, String) {
        let server = try ReferenceServer(configuration: ServerConfiguration(port: 0))
        let user = try #require(try server.database.verify(login: "demo", password: "demo"))
        let token = try server.database.issueTokens(for: user.id, accessTTL: 3600).access
        return (Application(router: server.buildRouter()), token)
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]
        return try #require(object?["MediaContainer"] as? [String: Any])
    }

    @Test("a token is required; XML by default, JSON when asked; two music sections (type artist) and a movie section")
    func sections() async throws {
        let (app, token) = try app()
        try await app.test(.router) { client in
            try await client.execute(uri: "/library/sections", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/library/sections", method: .get, headers: [.init("X-Plex-Token")!: token]) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/xml") == true)
                let xml = String(buffer: response.body)
                #expect(xml.contains("<MediaContainer size=\"3\""))
                #expect(xml.contains("type=\"artist\""))
            }
            try await client.execute(uri: "/library/sections?X-Plex-Token=\(token)", method: .get, headers: [.accept: "application/json"]) { response in
                let container = try Self.json(response.body)
                let directories = try #require(container["Directory"] as? [[String: Any]])
                #expect(directories.map { $0["type"] as? String } == ["artist", "artist", "movie"])
                #expect(directories.map { $0["title"] as? String } == ["Music", "Live Recordings", "Movies"])
            }
            try await client.execute(uri: "/identity", method: .get) { response in
                #expect(String(buffer: response.body).contains("machineIdentifier"))
            }
        }
    }

    @Test("albums page with X-Plex-Container-Start/Size, headers or query, and report totalSize")
    func paging() async throws {
        let (app, token) = try app()
        try await app.test(.router) { client in
            var seen: [String] = []
            var total = 0
            var start = 0
            repeat {
                try await client.execute(uri: "/library/sections/1/all?type=9&X-Plex-Container-Start=\(start)", method: .get,
                                         headers: [.init("X-Plex-Token")!: token, .accept: "application/json", .init("X-Plex-Container-Size")!: "50"]) { response in
                    let container = try Self.json(response.body)
                    total = container["totalSize"] as? Int ?? 0
                    #expect(container["offset"] as? Int == start)
                    let albums = container["Metadata"] as? [[String: Any]] ?? []
                    #expect(albums.count <= 50)
                    seen += albums.compactMap { $0["ratingKey"] as? String }
                }
                start += 50
            } while start < total
            #expect(total >= 250)
            #expect(seen.count == total)
            #expect(Set(seen).count == total)
        }
    }

    @Test("collections list their albums; metadata has the detail fields")
    func collectionsAndMetadata() async throws {
        let (app, token) = try app()
        try await app.test(.router) { client in
            let headers: HTTPFields = [.init("X-Plex-Token")!: token, .accept: "application/json"]
            var first = ""
            try await client.execute(uri: "/library/sections/1/collections", method: .get, headers: headers) { response in
                let items = try Self.json(response.body)["Metadata"] as? [[String: Any]] ?? []
                #expect(items.count == 20)
                first = items.first?["ratingKey"] as? String ?? ""
            }
            try await client.execute(uri: "/library/collections/\(first)/children", method: .get, headers: headers) { response in
                let albums = try Self.json(response.body)["Metadata"] as? [[String: Any]] ?? []
                #expect(albums.count >= 5)
                #expect(albums.allSatisfy { $0["type"] as? String == "album" })
            }
            try await client.execute(uri: "/library/metadata/1001", method: .get, headers: headers) { response in
                let album = (try Self.json(response.body)["Metadata"] as? [[String: Any]])?.first
                #expect(album?["title"] is String)
                #expect(album?["Genre"] is [[String: Any]])
            }
        }
    }

    @Test("artwork: JPEG from the transcoder as Plex sends (PNG with format=png), real images at the requested size, realistically sized, deterministic")
    func artwork() async throws {
        let catalogue = PlexCatalogue(seed: 0)
        let withArt = catalogue.albums.filter { $0.thumb != nil }
        for album in withArt.prefix(3) {
            let small = catalogue.artwork(for: album, size: 1024)
            #expect(small.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect((60_000...420_000).contains(small.count), "1024 px artwork of \(small.count) bytes")
            #expect(small == catalogue.artwork(for: album, size: 1024))
            // IHDR width and height.
            #expect(Array(small[16..<24]) == [0, 0, 4, 0, 0, 0, 4, 0])
        }
        for album in withArt.prefix(3) {
            let jpeg = catalogue.artwork(for: album, size: 1024, format: .jpeg)
            #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF, 0xE0]) && jpeg.suffix(2) == Data([0xFF, 0xD9]), "SOI, JFIF … EOI")
            #expect((60_000...520_000).contains(jpeg.count), "1024 px JPEG of \(jpeg.count) bytes")
            #expect(jpeg == catalogue.artwork(for: album, size: 1024, format: .jpeg))
            // SOF0: precision 8, height and width 1024, three components.
            let sof = try #require(jpeg.indices.dropLast().first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
            #expect(Array(jpeg[(sof + 4)..<(sof + 10)]) == [8, 4, 0, 4, 0, 3])
            // Entropy-coded data: every 0xFF is stuffed (followed by 0x00) up to EOI.
            let scan = try #require(jpeg.indices.dropLast().first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
            let body = jpeg[(scan + 14)..<(jpeg.count - 2)]
            #expect(!zip(body, body.dropFirst()).contains { $0 == 0xFF && $1 != 0x00 })
        }
        let large = catalogue.artwork(for: withArt[0], size: 2048)
        #expect((350_000...1_600_000).contains(large.count), "2048 px artwork of \(large.count) bytes")
        #expect(catalogue.albums.contains { $0.thumb == nil }, "a few albums have no artwork")
        let (app, token) = try app()
        let album = try #require(withArt.first)
        try await app.test(.router) { client in
            let uri = "/photo/:/transcode?width=1024&height=1024&minSize=1&upscale=1&url=\(album.thumb!.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            try await client.execute(uri: uri, method: .get, headers: [.init("X-Plex-Token")!: token]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.body.readableBytes > 50_000)
                #expect(response.body.getBytes(at: 0, length: 3) == [0xFF, 0xD8, 0xFF])
            }
            try await client.execute(uri: uri + "&format=png", method: .get, headers: [.init("X-Plex-Token")!: token]) { response in
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.body.getBytes(at: 0, length: 4) == [0x89, 0x50, 0x4E, 0x47])
            }
            try await client.execute(uri: uri + "&format=tiff", method: .get, headers: [.init("X-Plex-Token")!: token]) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/photo/:/transcode?width=1024&height=1024&url=%2Flibrary%2Fmetadata%2F999999%2Fthumb", method: .get,
                                     headers: [.init("X-Plex-Token")!: token]) { #expect($0.status == .notFound) }
        }
    }

    @Test("the routes python-plexapi uses: /library, sections/1/albums, all?type=18 (collections), thumb paths")
    func plexapiRoutes() async throws {
        let (app, token) = try app()
        try await app.test(.router) { client in
            let headers: HTTPFields = [.init("X-Plex-Token")!: token, .accept: "application/json"]
            try await client.execute(uri: "/library", method: .get, headers: headers) { response in
                let keys = (try Self.json(response.body)["Directory"] as? [[String: Any]])?.compactMap { $0["key"] as? String }
                #expect(keys?.contains("sections") == true)
            }
            try await client.execute(uri: "/library/sections/1/albums?X-Plex-Container-Size=3", method: .get, headers: headers) { response in
                let container = try Self.json(response.body)
                #expect((container["Metadata"] as? [[String: Any]])?.count == 3)
                #expect((container["totalSize"] as? Int ?? 0) > 250)
            }
            try await client.execute(uri: "/library/sections/1/all?type=18", method: .get, headers: headers) { response in
                let items = try Self.json(response.body)["Metadata"] as? [[String: Any]] ?? []
                #expect(items.count == 20)
                #expect(items.allSatisfy { $0["type"] as? String == "collection" })
            }
            let album = try #require(PlexCatalogue(seed: 0).albums.first { $0.thumb != nil })
            try await client.execute(uri: album.thumb!, method: .get, headers: headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                // A real PNG: the signature, then an IHDR chunk with a square image of some size.
                let bytes = Array(response.body.readableBytesView)
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
                #expect(bytes.count > 1000 && Array(bytes[12..<16]) == Array("IHDR".utf8))
                let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
                #expect(width == 1024 && height == 1024, "\(width)x\(height): the thumb path serves the 1024 px artwork")
            }
        }
    }

    @Test("the library has duplicates, as real ones do")
    func duplicates() {
        let albums = PlexCatalogue(seed: 0).albums
        let identities = albums.map { "\($0.title)|\($0.artist)|\($0.year)" }
        #expect(Set(identities).count < identities.count)
    }
}
