import Crypto
import Foundation
import GRDB
import Hummingbird

// The answers: the user, a pin, and the account's resources (its servers and a player).
extension PlexTVRoutes {
    /// plex.tv's numeric user id, stable per account.
    static func numericID(_ id: String) -> Int {
        Int(SHA256.hash(data: Data(id.utf8)).prefix(4).reduce(0) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF)
    }

    static func uuid(_ id: String) -> String {
        String(id.replacingOccurrences(of: "-", with: "").prefix(16))
    }

    static func iso(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle())
    }

    func userAnswer(_ user: ServerDatabase.User, token: String, status: HTTPResponse.Status, request: Request) throws -> Response {
        let attributes: [(String, Any)] = [
            ("id", Self.numericID(user.id)), ("uuid", Self.uuid(user.id)), ("username", user.username), ("title", user.displayName),
            ("email", user.email), ("friendlyName", user.displayName), ("locale", ""), ("confirmed", true), ("joinedAt", 1_600_000_000),
            ("emailOnlyAuth", false), ("hasPassword", true), ("protected", false), ("thumb", "https://plex.tv/users/\(Self.uuid(user.id))/avatar"),
            ("authToken", token), ("mailingListStatus", "inactive"), ("mailingListActive", false), ("scrobbleTypes", ""),
            ("country", "US"), ("restricted", false), ("home", false), ("guest", false), ("homeSize", 1), ("homeAdmin", false),
            ("maxHomeSize", 15), ("rememberExpiresAt", 1_900_000_000), ("twoFactorEnabled", try twoFactorCode(user.id) != nil),
        ]
        let subscription: [(String, Any)] = [("active", false), ("subscribedAt", ""), ("status", "Inactive"), ("paymentService", ""), ("plan", "")]
        let profile: [(String, Any)] = [("autoSelectAudio", true), ("defaultAudioLanguage", "en"), ("defaultSubtitleLanguage", "en"),
                                        ("autoSelectSubtitle", 0), ("defaultSubtitleAccessibility", 0), ("defaultSubtitleForced", 0)]
        if Self.wantsJSON(request) {
            var object = Self.jsonObject(attributes)
            object["subscription"] = Self.jsonObject(subscription).merging(["features": [] as [String]]) { $1 }
            object["profile"] = Self.jsonObject(profile)
            object["entitlements"] = [] as [String]
            object["roles"] = [] as [String]
            object["services"] = [] as [String]
            return try Self.json(object, status: status)
        }
        let children = [XMLNode(tag: "subscription", attributes: subscription, children: [XMLNode(tag: "features")]),
                        XMLNode(tag: "profile", attributes: profile), XMLNode(tag: "entitlements"), XMLNode(tag: "roles"), XMLNode(tag: "services")]
        return Self.xml(XMLNode(tag: "user", attributes: attributes, children: children), status: status)
    }

    func pinAnswer(_ pin: Pin, status: HTTPResponse.Status, request: Request) throws -> Response {
        let attributes: [(String, Any)] = [
            ("id", pin.id), ("code", pin.code), ("product", pin.product ?? ""), ("trusted", false), ("qr", "https://plex.tv/api/v2/pins/qr/\(pin.code)"),
            ("clientIdentifier", pin.clientIdentifier), ("expiresIn", max(0, Int(pin.expiresAt - Date().timeIntervalSince1970))),
            ("createdAt", Self.iso(pin.createdAt)), ("expiresAt", Self.iso(pin.expiresAt)),
        ]
        if Self.wantsJSON(request) {
            var object = Self.jsonObject(attributes)
            object["authToken"] = pin.authToken ?? NSNull()
            object["newRegistration"] = NSNull()
            object["location"] = ["code": "US", "country": "United States", "city": "Loopback", "subdivisions": "", "coordinates": "0, 0"]
            return try Self.json(object, status: status)
        }
        return Self.xml(XMLNode(tag: "pin", attributes: attributes + [("authToken", pin.authToken ?? "")]), status: status)
    }

    /// The servers the user owns or has been shared, and one player (not a server).
    func resourcesAnswer(for user: ServerDatabase.User, relay: Bool, host: String, request: Request) throws -> Response {
        var resources: [(attributes: [(String, Any)], connections: [[(String, Any)]])] = []
        let (address, port) = Self.split(host)
        for server in servers where server.owner == user.username || server.sharedWith.contains(user.username) {
            let owned = server.owner == user.username
            var connections: [[(String, Any)]] = []
            func connection(_ uri: String, address: String, local: Bool, relay: Bool) -> [(String, Any)] {
                [("protocol", "http"), ("address", address), ("port", port), ("uri", uri), ("local", local), ("relay", relay), ("IPv6", false)]
            }
            if server.hasLocalAndRelay {
                // Loopback, but an address nothing listens on: the connection is refused.
                connections.append(connection("http://127.0.0.2:\(port)\(server.prefix)", address: "127.0.0.2", local: true, relay: false))
            }
            connections.append(connection("http://\(address):\(port)\(server.prefix)", address: address, local: false, relay: false))
            if server.hasLocalAndRelay, relay {
                connections.append(connection("http://\(address):\(port)\(server.prefix)/relay", address: address, local: false, relay: true))
            }
            let attributes: [(String, Any)] = [
                ("name", server.name), ("product", "Plex Media Server"), ("productVersion", PlexRoutes.version), ("platform", "Linux"),
                ("platformVersion", "6.1"), ("device", "PC"), ("clientIdentifier", server.machineIdentifier),
                ("createdAt", "2023-11-14T22:13:20Z"), ("lastSeenAt", "2026-11-01T00:00:00Z"), ("provides", "server"),
                ("ownerId", owned ? "" : "\(Self.numericID(try ownerID(server.owner)))"), ("sourceTitle", owned ? "" : server.owner),
                ("publicAddress", address), ("accessToken", try serverToken(user.id, server: server.machineIdentifier)),
                ("owned", owned), ("home", false), ("synced", false), ("relay", server.hasLocalAndRelay), ("presence", true),
                ("httpsRequired", false), ("publicAddressMatches", true), ("dnsRebindingProtection", false), ("natLoopbackSupported", false),
            ]
            resources.append((attributes, connections))
        }
        resources.append(([
            ("name", "\(user.displayName)'s phone"), ("product", "Plexamp"), ("productVersion", "4.11.0"), ("platform", "Android"),
            ("platformVersion", "14"), ("device", "Pixel"), ("clientIdentifier", "player-\(Self.uuid(user.id))"),
            ("createdAt", "2024-01-01T00:00:00Z"), ("lastSeenAt", "2026-11-01T00:00:00Z"), ("provides", "client,player"),
            ("ownerId", ""), ("sourceTitle", ""), ("publicAddress", address), ("accessToken", ""), ("owned", true), ("home", false),
            ("synced", false), ("relay", false), ("presence", false), ("httpsRequired", false), ("publicAddressMatches", true),
            ("dnsRebindingProtection", false), ("natLoopbackSupported", false),
        ], []))
        if Self.wantsJSON(request) {
            let array: [[String: Any]] = resources.map { resource in
                var object = Self.jsonObject(resource.attributes)
                for key in ["ownerId", "sourceTitle"] where (object[key] as? String)?.isEmpty == true { object[key] = NSNull() }
                if let owner = object["ownerId"] as? String { object["ownerId"] = Int(owner) }
                object["connections"] = resource.connections.map(Self.jsonObject)
                return object
            }
            return try Self.json(array, status: .ok)
        }
        let nodes = resources.map { resource in
            XMLNode(tag: "resource", attributes: resource.attributes,
                    children: [XMLNode(tag: "connections", children: resource.connections.map { XMLNode(tag: "connection", attributes: $0) })])
        }
        return Self.xml(XMLNode(tag: "resources", attributes: [("size", resources.count)], children: nodes), status: .ok)
    }

    func ownerID(_ username: String) throws -> String {
        try database.writer.read { try String.fetchOne($0, sql: "SELECT id FROM user WHERE username = ?", arguments: [username]) } ?? username
    }
}
