import BradOSTerminal
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// A WebSocket connection (RFC 6455), text messages each way: what a live feed reads.
public protocol WebSocketConnection: Sendable {
    /// The next text message; `nil` once the peer closed. Pings are answered on the way.
    /// One task reads at a time.
    /// - Throws: ``NetworkError`` when the connection fails.
    func receive() async throws -> String?
    /// Sends one text message.
    /// - Throws: ``NetworkError`` when the connection is gone.
    func send(_ text: String) async throws
    /// Sends a ping and waits for its pong (read by whoever is reading ``receive()``).
    /// - Throws: ``NetworkError/connectionLost(host:reason:)`` when none comes within `timeout`.
    func ping(timeout: Duration) async throws
}

/// Opens WebSocket connections: the real one (``NIOWebSocketClient``), or a test's.
public protocol WebSocketConnecting: Sendable {
    /// Connects to `url` (`ws:`, `wss:`, or `http+unix:` as the HTTP client takes it), runs
    /// `body` with the connection, and closes it when `body` returns or throws.
    /// - Throws: ``NetworkError`` for a connection or an upgrade that fails; what `body` throws.
    func withConnection<T: Sendable>(to url: URL, headers: [(name: String, value: String)],
                                     _ body: @Sendable (any WebSocketConnection) async throws -> T) async throws -> T
}

/// The WebSocket client over SwiftNIO: TCP (with TLS for `wss:`/`https:`) or a Unix socket
/// (`http+unix://<percent-encoded path>/…`, the embedded backend's).
public struct NIOWebSocketClient: WebSocketConnecting {
    /// The largest message accepted.
    public var maxFrameSize = 1 << 22
    public var connectTimeout: Duration = .seconds(10)

    public init() {}

    enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }

    public func withConnection<T: Sendable>(to url: URL, headers: [(name: String, value: String)],
                                            _ body: @Sendable (any WebSocketConnection) async throws -> T) async throws -> T {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
              let host = components.percentEncodedHost, !host.isEmpty else { throw NetworkError.unreachable(host: url.absoluteString, reason: "not a WebSocket address") }
        let target = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
            + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let tls = scheme == "wss" || scheme == "https"
        let unixPath = scheme == "http+unix" || scheme == "ws+unix" ? host.removingPercentEncoding : nil
        let hostName = unixPath == nil ? (components.host ?? host) : "localhost"
        let sslContext = try tls ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target)
        head.headers.add(name: "Host", value: hostName)
        for header in headers { head.headers.add(name: header.name, value: header.value) }
        let request = head, maxFrameSize = maxFrameSize
        let initializer: @Sendable (any Channel) -> EventLoopFuture<EventLoopFuture<Upgrade>> = { channel in
            channel.eventLoop.makeCompletedFuture {
                if let sslContext {
                    try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: hostName))
                }
                let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maxFrameSize) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                    }
                }
                let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                    upgradeRequestHead: request, upgraders: [upgrader],
                    notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(.refused) })
                return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                    configuration: NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration))
            }
        }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(connectTimeout.components.seconds * 1000)))
        let upgrade: Upgrade
        do {
            let pending: EventLoopFuture<Upgrade>
            if let unixPath {
                pending = try await bootstrap.connect(unixDomainSocketPath: unixPath, channelInitializer: initializer)
            } else {
                pending = try await bootstrap.connect(host: hostName, port: components.port ?? (tls ? 443 : 80), channelInitializer: initializer)
            }
            upgrade = try await pending.get()
        } catch {
            throw NetworkError.unreachable(host: unixPath == nil ? NetworkError.endpoint(url) : "the built-in demo backend", reason: NetworkError.describe(error).1)
        }
        // The server answered, with something other than an upgrade (a refused token, a route it does not have).
        guard case let .websocket(channel) = upgrade else {
            throw NetworkError.connectionLost(host: unixPath == nil ? NetworkError.endpoint(url) : "the built-in demo backend",
                                              reason: "the server refused the WebSocket upgrade of \(components.path)")
        }
        return try await channel.executeThenClose { inbound, outbound in
            let connection = FrameConnection(inbound: inbound.makeAsyncIterator(), outbound: outbound,
                                             peer: unixPath == nil ? NetworkError.endpoint(url) : "the built-in demo backend")
            return try await body(connection)
        }
    }
}

/// Text messages over frames: fragments joined, pings answered, a close answered and ended.
final class FrameConnection: WebSocketConnection, @unchecked Sendable {
    /// Pongs received (the reader counts them; ``ping(timeout:)`` waits for one more).
    private let pongs = Mutex(0)
    // One reader at a time (the protocol says so); writes go through NIO's writer, which is Sendable.
    private var inbound: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    private var closed = false
    /// The server, as errors name it (`127.0.0.1:8080`).
    private let peer: String

    init(inbound: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>, peer: String) {
        self.inbound = inbound
        self.outbound = outbound
        self.peer = peer
    }

    func receive() async throws -> String? {
        var message = ByteBuffer()
        var inMessage = false
        while !closed {
            let frame: WebSocketFrame?
            do { frame = try await inbound.next() } catch is CancellationError { throw CancellationError() } catch {
                throw NetworkError.connectionLost(host: peer, reason: NetworkError.describe(error).1)
            }
            guard let frame else { return nil }
            switch frame.opcode {
            case .text, .binary, .continuation:
                if frame.opcode != .continuation { message.clear(); inMessage = true }
                guard inMessage else { continue }
                var data = frame.unmaskedData
                message.writeBuffer(&data)
                if frame.fin { return String(buffer: message) }
            case .ping:
                try? await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
            case .pong:
                pongs.withLock { $0 += 1 }
            case .connectionClose:
                closed = true
                try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer()))
                return nil
            default:
                continue
            }
        }
        return nil
    }

    func ping(timeout: Duration) async throws {
        let before = pongs.withLock { $0 }
        try await write(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: ByteBuffer(string: "brados")))
        let deadline = ContinuousClock.now + timeout
        while pongs.withLock({ $0 }) == before {
            guard ContinuousClock.now < deadline else {
                throw NetworkError.connectionLost(host: peer, reason: "no answer to a ping within \(Format.duration(timeout))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func write(_ frame: WebSocketFrame) async throws {
        do { try await outbound.write(frame) } catch { throw NetworkError.connectionLost(host: peer, reason: NetworkError.describe(error).1) }
    }

    func send(_ text: String) async throws {
        do {
            try await outbound.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
        } catch {
            throw NetworkError.connectionLost(host: peer, reason: NetworkError.describe(error).1)
        }
    }
}
