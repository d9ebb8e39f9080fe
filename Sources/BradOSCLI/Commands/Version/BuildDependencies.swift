// Written by scripts/pins.py from Package.pins.json; do not edit.

/// The Swift packages this brados is built with, at the versions `Package.pins.json` pins
/// (`brados version` names them; `scripts/pins.py` fails a build whose resolution differs).
public enum BuildDependencies {
    public struct Package: Sendable, Encodable {
        public var name: String
        public var version: String
        public var url: String
        /// Its licence, as an SPDX expression.
        public var licence: String
    }

    public static let packages: [Package] = [
        Package(name: "async-http-client", version: "1.37.0", url: "https://github.com/swift-server/async-http-client", licence: "Apache-2.0"),
        Package(name: "compress-nio", version: "1.5.0", url: "https://github.com/adam-fowler/compress-nio.git", licence: "Apache-2.0"),
        Package(name: "grdb.swift", version: "7.10.0", url: "https://github.com/groue/GRDB.swift", licence: "MIT"),
        Package(name: "hummingbird", version: "2.28.1", url: "https://github.com/hummingbird-project/hummingbird", licence: "Apache-2.0"),
        Package(name: "hummingbird-websocket", version: "2.8.1", url: "https://github.com/hummingbird-project/hummingbird-websocket", licence: "Apache-2.0"),
        Package(name: "swift-algorithms", version: "1.2.1", url: "https://github.com/apple/swift-algorithms.git", licence: "Apache-2.0 WITH Swift-exception"),
        Package(name: "swift-argument-parser", version: "1.8.2", url: "https://github.com/apple/swift-argument-parser", licence: "Apache-2.0 WITH Swift-exception"),
        Package(name: "swift-asn1", version: "1.7.4", url: "https://github.com/apple/swift-asn1.git", licence: "Apache-2.0"),
        Package(name: "swift-async-algorithms", version: "1.1.4", url: "https://github.com/apple/swift-async-algorithms.git", licence: "Apache-2.0 WITH Swift-exception"),
        Package(name: "swift-atomics", version: "1.3.0", url: "https://github.com/apple/swift-atomics.git", licence: "Apache-2.0 WITH Swift-exception"),
        Package(name: "swift-certificates", version: "1.21.1", url: "https://github.com/apple/swift-certificates.git", licence: "Apache-2.0"),
        Package(name: "swift-collections", version: "1.6.0", url: "https://github.com/apple/swift-collections.git", licence: "Apache-2.0 WITH Swift-exception"),
        Package(name: "swift-configuration", version: "1.4.0", url: "https://github.com/apple/swift-configuration.git", licence: "Apache-2.0"),
        Package(name: "swift-crypto", version: "4.5.2", url: "https://github.com/apple/swift-crypto", licence: "Apache-2.0"),
        Package(name: "swift-distributed-tracing", version: "1.7.3", url: "https://github.com/apple/swift-distributed-tracing.git", licence: "Apache-2.0"),
        Package(name: "swift-http-structured-headers", version: "1.7.0", url: "https://github.com/apple/swift-http-structured-headers.git", licence: "Apache-2.0"),
        Package(name: "swift-http-types", version: "1.8.0", url: "https://github.com/apple/swift-http-types.git", licence: "Apache-2.0"),
        Package(name: "swift-log", version: "1.16.2", url: "https://github.com/apple/swift-log", licence: "Apache-2.0"),
        Package(name: "swift-metrics", version: "2.13.0", url: "https://github.com/apple/swift-metrics.git", licence: "Apache-2.0"),
        Package(name: "swift-nio", version: "2.101.3", url: "https://github.com/apple/swift-nio", licence: "Apache-2.0"),
        Package(name: "swift-nio-extras", version: "1.35.2", url: "https://github.com/apple/swift-nio-extras.git", licence: "Apache-2.0"),
        Package(name: "swift-nio-http2", version: "1.46.0", url: "https://github.com/apple/swift-nio-http2.git", licence: "Apache-2.0"),
        Package(name: "swift-nio-ssl", version: "2.37.6", url: "https://github.com/apple/swift-nio-ssl", licence: "Apache-2.0"),
        Package(name: "swift-nio-transport-services", version: "1.28.0", url: "https://github.com/apple/swift-nio-transport-services.git", licence: "Apache-2.0"),
        Package(name: "swift-numerics", version: "1.1.1", url: "https://github.com/apple/swift-numerics.git", licence: "Apache-2.0 WITH Swift-exception"),
        Package(name: "swift-service-context", version: "1.5.1", url: "https://github.com/apple/swift-service-context.git", licence: "Apache-2.0"),
        Package(name: "swift-service-lifecycle", version: "2.13.0", url: "https://github.com/swift-server/swift-service-lifecycle.git", licence: "Apache-2.0"),
        Package(name: "swift-system", version: "1.8.1", url: "https://github.com/apple/swift-system", licence: "Apache-2.0 WITH Swift-exception"),
        Package(name: "swift-websocket", version: "1.6.2", url: "https://github.com/hummingbird-project/swift-websocket.git", licence: "Apache-2.0"),
    ]
}
