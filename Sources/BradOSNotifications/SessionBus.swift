import BradOSErrors
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A connection to the D-Bus session bus, enough to call a method and read its reply: the
/// wire protocol spoken directly (a Unix socket, SASL EXTERNAL, little-endian messages), so
/// notifications need nothing at build time and no library at run time.
public final class SessionBus: @unchecked Sendable {
    private let fd: Int32
    private var serial: UInt32 = 0
    private var buffer: [UInt8] = []

    /// Connects to `address` (`DBUS_SESSION_BUS_ADDRESS`: `unix:path=…` or `unix:abstract=…`,
    /// alternatives separated by `;`), authenticates as this user and says Hello.
    /// - Throws: ``NotificationError/noSessionBus(_:)`` when no address can be reached.
    public init(address: String, timeout: Duration = .seconds(2)) throws {
        var lastProblem = "no unix: address in DBUS_SESSION_BUS_ADDRESS ('\(address)')"
        var connected: Int32 = -1
        for alternative in address.split(separator: ";") {
            guard let socketPath = Self.socketPath(String(alternative)) else { continue }
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw NotificationError.noSessionBus("socket: \(String(cString: strerror(errno)))") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(socketPath.path.utf8)
            let capacity = MemoryLayout.size(ofValue: address.sun_path)
            let offset = socketPath.abstract ? 1 : 0
            guard bytes.count + offset < capacity else { close(fd); lastProblem = "the bus path is too long"; continue }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.initializeMemory(as: UInt8.self, repeating: 0)
                for (index, byte) in bytes.enumerated() { raw[index + offset] = byte }
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + offset + bytes.count + (socketPath.abstract ? 0 : 1))
            let result = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
            if result == 0 { connected = fd; break }
            lastProblem = "\(socketPath.abstract ? "@" : "")\(socketPath.path): \(String(cString: strerror(errno)))"
            close(fd)
        }
        guard connected >= 0 else { throw NotificationError.noSessionBus(lastProblem) }
        fd = connected
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        do {
            try authenticate()
            _ = try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "Hello",
                         signature: "", body: [])
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    /// The session bus of this process's environment: `DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus` (systemd's user bus) when it exists.
    /// - Throws: ``NotificationError/noSessionBus(_:)``.
    public static func address(environment: [String: String]) throws -> String {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, FileManager.default.fileExists(atPath: runtime + "/bus") {
            return "unix:path=\(runtime)/bus"
        }
        throw NotificationError.noSessionBus("DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus")
    }

    /// The socket of one `unix:` address (its `path=` or `abstract=` value, %-escapes decoded).
    static func socketPath(_ address: String) -> (path: String, abstract: Bool)? {
        guard address.hasPrefix("unix:") else { return nil }
        for pair in address.dropFirst(5).split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] == "path" || parts[0] == "abstract" else { continue }
            return (parts[1].removingPercentEncoding ?? parts[1], parts[0] == "abstract")
        }
        return nil
    }

    // MARK: The wire

    private func authenticate() throws {
        let uid = String(getuid())
        try send(Array("\0AUTH EXTERNAL \(uid.utf8.map { String(format: "%02x", $0) }.joined())\r\n".utf8))
        let answer = try readLine()
        guard answer.hasPrefix("OK ") else { throw NotificationError.busFailed("the bus refused brados's sign-in (\(answer))") }
        try send(Array("BEGIN\r\n".utf8))
    }

    /// One argument of a method call, by its D-Bus type.
    public enum Argument: Sendable {
        case string(String)
        case uint32(UInt32)
        case int32(Int32)
        case stringArray([String])
        /// `a{sv}` whose variants are strings or bytes.
        case hints([(String, HintValue)])
    }

    public enum HintValue: Sendable {
        case string(String)
        case byte(UInt8)
    }

    /// The reply of a method call: its body's first `u` or `s` (the only values brados reads).
    public struct Reply: Sendable {
        public var uint32: UInt32?
        public var string: String?
    }

    /// Calls a method and waits for its reply.
    /// - Throws: ``NotificationError/callFailed(name:message:)`` for an error reply, ``NotificationError/busFailed(_:)``
    ///   when the connection fails or no reply comes before the timeout.
    @discardableResult
    public func call(destination: String, path: String, interface: String, member: String, signature: String, body: [Argument]) throws -> Reply {
        serial &+= 1
        let sent = serial
        var writer = Marshal()
        for argument in body { writer.append(argument) }
        var header = Marshal()
        header.bytes = [UInt8(ascii: "l"), 1, 0, 1]
        header.uint32(UInt32(writer.bytes.count))
        header.uint32(sent)
        var fields: [(UInt8, Character, String)] = [(1, "o", path), (2, "s", interface), (3, "s", member), (6, "s", destination)]
        if !signature.isEmpty { fields.append((8, "g", signature)) }
        header.array(alignment: 8) { marshal in
            for (code, type, value) in fields {
                marshal.align(8)
                marshal.bytes.append(code)
                marshal.signature(String(type))
                if type == "g" { marshal.signature(value) } else { marshal.string(value) }
            }
        }
        header.align(8)
        try send(header.bytes + writer.bytes)
        while true {
            let message = try readMessage()
            guard message.replySerial == sent else { continue }  // a signal (NameAcquired), another reply
            if message.type == 3 {
                throw NotificationError.callFailed(name: message.errorName ?? "unknown", message: message.firstString ?? "")
            }
            return Reply(uint32: message.firstUInt32, string: message.firstString)
        }
    }

    struct Incoming {
        var type: UInt8
        var replySerial: UInt32?
        var errorName: String?
        var signature: String
        var body: [UInt8]
        var littleEndian: Bool

        var firstUInt32: UInt32? {
            guard signature.first == "u", body.count >= 4 else { return nil }
            return Marshal.read32(body, 0, littleEndian)
        }
        var firstString: String? {
            guard signature.first == "s", body.count >= 4 else { return nil }
            let length = Int(Marshal.read32(body, 0, littleEndian))
            guard 4 + length <= body.count else { return nil }
            return String(decoding: body[4..<(4 + length)], as: UTF8.self)
        }
    }

    private func readMessage() throws -> Incoming {
        let fixed = try read(16)
        let little = fixed[0] == UInt8(ascii: "l")
        guard little || fixed[0] == UInt8(ascii: "B") else { throw NotificationError.busFailed("the bus sent something that is not D-Bus") }
        let bodyLength = Int(Marshal.read32(fixed, 4, little)), fieldsLength = Int(Marshal.read32(fixed, 12, little))
        guard bodyLength < 64 << 20, fieldsLength < 64 << 20 else { throw NotificationError.busFailed("the bus sent a message too large") }
        let fieldsPadded = (fieldsLength + 7) & ~7
        let rest = try read(fieldsPadded + bodyLength)
        let message = fixed + rest
        var incoming = Incoming(type: fixed[1], signature: "", body: Array(rest[fieldsPadded...]), littleEndian: little)
        // The header fields: (code, variant) structs, 8-aligned from the message's start.
        var offset = 16
        let end = 16 + fieldsLength
        while offset < end {
            offset = (offset + 7) & ~7
            guard offset + 2 < end else { break }
            let code = message[offset]
            let signatureLength = Int(message[offset + 1])
            guard offset + 2 + signatureLength < end else { break }
            let type = message[offset + 2]
            offset += 3 + signatureLength
            switch type {
            case UInt8(ascii: "s"), UInt8(ascii: "o"):
                offset = (offset + 3) & ~3
                let length = Int(Marshal.read32(message, offset, little))
                guard offset + 4 + length <= end else { offset = end; break }
                let text = String(decoding: message[(offset + 4)..<(offset + 4 + length)], as: UTF8.self)
                if code == 4 { incoming.errorName = text }
                offset += 4 + length + 1
            case UInt8(ascii: "g"):
                let length = Int(message[offset])
                guard offset + 1 + length <= end else { offset = end; break }
                if code == 8 { incoming.signature = String(decoding: message[(offset + 1)..<(offset + 1 + length)], as: UTF8.self) }
                offset += 1 + length + 1
            case UInt8(ascii: "u"):
                offset = (offset + 3) & ~3
                if code == 5 { incoming.replySerial = Marshal.read32(message, offset, little) }
                offset += 4
            default:
                offset = end  // a field brados does not read, of a type it does not know: the rest is skipped
            }
        }
        return incoming
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw NotificationError.busFailed("writing to the bus: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw NotificationError.busFailed("the bus did not answer in time") }
            guard count > 0 else { throw NotificationError.busFailed("the bus closed the connection") }
            buffer += chunk[0..<count]
            return
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let taken = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return taken
    }

    private func readLine() throws -> String {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[0..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                buffer.removeFirst(end + 1)
                return line
            }
            guard buffer.count < 16_384 else { throw NotificationError.busFailed("the bus sent a line too long") }
            try fill()
        }
    }
}

/// D-Bus marshalling (little-endian), of the types brados sends.
struct Marshal {
    var bytes: [UInt8] = []

    mutating func align(_ boundary: Int) {
        while bytes.count % boundary != 0 { bytes.append(0) }
    }

    mutating func uint32(_ value: UInt32) {
        align(4)
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8.filter { $0 != 0 })
        uint32(UInt32(utf8.count))
        bytes += utf8
        bytes.append(0)
    }

    mutating func signature(_ value: String) {
        bytes.append(UInt8(value.utf8.count))
        bytes += value.utf8
        bytes.append(0)
    }

    /// An array: its length (of the elements, after the padding to their alignment), then them.
    mutating func array(alignment: Int, _ elements: (inout Marshal) -> Void) {
        uint32(0)
        let lengthAt = bytes.count - 4
        align(alignment)
        let start = bytes.count
        elements(&self)
        let length = UInt32(bytes.count - start)
        withUnsafeBytes(of: length.littleEndian) { raw in for index in 0..<4 { bytes[lengthAt + index] = raw[index] } }
    }

    mutating func append(_ argument: SessionBus.Argument) {
        switch argument {
        case let .string(value): string(value)
        case let .uint32(value): uint32(value)
        case let .int32(value): uint32(UInt32(bitPattern: value))
        case let .stringArray(values): array(alignment: 4) { marshal in for value in values { marshal.string(value) } }
        case let .hints(pairs):
            array(alignment: 8) { marshal in
                for (key, value) in pairs {
                    marshal.align(8)
                    marshal.string(key)
                    switch value {
                    case let .string(text):
                        marshal.signature("s")
                        marshal.string(text)
                    case let .byte(byte):
                        marshal.signature("y")
                        marshal.bytes.append(byte)
                    }
                }
            }
        }
    }

    static func read32(_ bytes: [UInt8], _ offset: Int, _ little: Bool) -> UInt32 {
        guard offset + 4 <= bytes.count else { return 0 }
        let b = bytes[offset..<(offset + 4)].map(UInt32.init)
        return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24
    }
}
