import AgeEncryption
import CZlib
import Crypto
import Foundation
import Testing

/// C2SP's CCTV age vectors (testdata/README.md): every vector gives the expected result.
@Suite("age: C2SP test vectors")
struct AgeVectorTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("testdata")

    struct Vector: CustomStringConvertible {
        var name: String
        var expect: String
        var payload: String
        var identities: [String] = []
        var passphrases: [String] = []
        var armored = false
        var body: [UInt8]
        var description: String { name }
    }

    static func inflate(_ data: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        #expect(inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var input = data
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        try input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { target -> Int32 in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output += chunk[0..<(chunk.count - Int(stream.avail_out))]
                if status == Z_STREAM_END { return }
                guard status == Z_OK else { throw CocoaError(.fileReadCorruptFile) }
            }
        }
        return output
    }

    static func load() throws -> [Vector] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".md") }.sorted()
        return try names.map { name in
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            let split = try #require(bytes.indices.first { bytes[$0] == 0x0A && $0 + 1 < bytes.count && bytes[$0 + 1] == 0x0A })
            var vector = Vector(name: name, expect: "", payload: "", body: Array(bytes[(split + 2)...]))
            var compressed = false
            for line in String(decoding: bytes[..<split], as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "expect": vector.expect = parts[1]
                case "payload": vector.payload = parts[1]
                case "identity": vector.identities.append(parts[1])
                case "passphrase": vector.passphrases.append(parts[1])
                case "armored": vector.armored = parts[1] == "yes"
                case "compressed": compressed = parts[1] == "zlib"
                default: break
                }
            }
            if compressed { vector.body = try inflate(vector.body) }
            return vector
        }
    }

    /// Decrypts; returns the failure class (nil on success) and the SHA-256 of all plaintext released.
    static func run(_ vector: Vector) -> (failure: String?, released: String) {
        var hasher = SHA256()
        do {
            let identities: [any AgeIdentity] = try vector.identities.map { try NativeIdentity($0) }
                + vector.passphrases.map { ScryptPassphrase($0) }
            let decryptor = try AgeDecryptor(input: MemorySource(vector.body), format: vector.armored ? .armored : .binary) { _ in identities }
            var buffer = [UInt8](repeating: 0, count: 10_000)
            while true {
                let count = try buffer.withUnsafeMutableBytes { try decryptor.read(into: $0) }
                if count == 0 { break }
                hasher.update(data: buffer[0..<count])
            }
            return (nil, hex(hasher.finalize()))
        } catch let error as AgeError {
            return (error.failureClass, hex(hasher.finalize()))
        } catch {
            return ("unexpected \(error)", hex(hasher.finalize()))
        }
    }

    static func hex(_ digest: SHA256.Digest) -> String { digest.map { String(format: "%02x", $0) }.joined() }

    @Test("every vector: success with the payload's hash, or the expected failure class")
    func vectors() throws {
        let vectors = try Self.load()
        #expect(vectors.count == 143)
        // The 19 post-quantum (mlkem768x25519) vectors among them.
        #expect(vectors.filter { $0.identities.contains { $0.hasPrefix("AGE-SECRET-KEY-PQ-") } }.count == 19)
        var checked = 0
        for vector in vectors {
            let (failure, released) = Self.run(vector)
            let expected = vector.expect == "success" ? nil : vector.expect
            #expect(failure == expected, "\(vector.name): expected \(vector.expect), got \(failure ?? "success")")
            // Whatever was released before a failure must be exactly the vector's payload.
            if expected == nil || expected == "payload failure" {
                #expect(released == vector.payload, "\(vector.name): released plaintext hash")
            }
            checked += 1
        }
        #expect(checked == 143)
    }
}
