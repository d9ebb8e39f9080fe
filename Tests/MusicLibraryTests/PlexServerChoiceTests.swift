import BradOSCore
import BradOSNetworking
import Foundation
@testable import MusicLibrary
import TestSupport
import Testing

@Suite("Plex servers from plex.tv")
struct PlexServerChoiceTests {
    func connection(_ uri: String, local: Bool = false, relay: Bool = false) -> PlexAccount.Resource.Connection {
        .init(protocol: nil, address: nil, port: nil, uri: uri, local: local, relay: relay)
    }

    @Test("addresses are tried local, remote, relay, https before http; anything but an http(s) URL with a host is dropped")
    func orderAndFilter() throws {
        let resource = PlexAccount.Resource(
            name: "nas", clientIdentifier: "abc", provides: "server", owned: true, sourceTitle: nil, productVersion: nil, accessToken: "t",
            connections: [connection("http://relay.example:1", relay: true), connection("http://remote.example:2"),
                          connection("https://remote.example:3"), connection("http://192.168.1.2:32400", local: true),
                          connection("file:///etc/passwd", local: true), connection("not a url"), connection("http://", local: true)])
        let choice = try PlexServers.choice(resource)
        #expect(choice.connections.map(\.uri) == ["http://192.168.1.2:32400", "https://remote.example:3", "http://remote.example:2", "http://relay.example:1"])
        #expect(choice.working == nil)
        var tokenless = resource
        tokenless.accessToken = nil
        #expect(throws: NetworkError.self) { try PlexServers.choice(tokenless) }
    }
}
