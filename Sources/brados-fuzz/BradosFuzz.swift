import AgeEncryption
import BradOSArchive
import BradOSCore
import BradOSServer
import CFuzzDriver
import Foundation
import MusicLibrary
import MealPlan
import Nutrition
import Visits

#if canImport(Glibc)
import Glibc
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
#endif

/// The parsers brados runs on bytes it did not write: cache files, archive manifests,
/// archives. Each must reject bad input with an error, never crash (reliability/fuzz.py).
enum FuzzTarget: String, CaseIterable {
    case manifest, archive, mealplan, library, plan, visits, server, headers, text, age

    /// The age target's key (C2SP's test-vector identity; fuzz.py encrypts its seeds to it).
    static let ageIdentity = try! X25519Identity("AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0")
    static let hybridIdentity = try! HybridIdentity("AGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG")

    /// Runs one input through the target's real decoding path.
    func run(_ data: Data) {
        switch self {
        case .manifest:
            guard let manifest = try? JSONCoding.decode(CacheArchiveManifest.self, from: data) else { return }
            try? manifest.validate(maxEntries: 200_000, maxBytes: 20_000_000_000)
            for file in manifest.files { try? CacheArchiveManifest.checkPath(file.path) }
        case .archive:
            readArchive(data)
        case .age:
            // An encrypted archive's reader: detection, armor, header, stanzas, STREAM, to the
            // end. The seeds' key and passphrase open it; scrypt is capped at 2^10 here.
            let identities: [any AgeIdentity] = [Self.ageIdentity, Self.hybridIdentity, ScryptPassphrase("fuzz", maxWorkFactor: 10)]
            guard let decryptor = try? AgeDecryptor(input: MemorySource(Array(data)), identities: { _ in identities }) else { return }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while let count = try? buffer.withUnsafeMutableBytes({ try decryptor.read(into: $0) }), count > 0 {}
        case .mealplan:
            _ = try? JSONCoding.decode(CachedMealPlan.self, from: data)
        case .library:
            // The JSON snapshot older brados wrote, read once to move it into the store.
            _ = try? JSONCoding.decode(LegacyLibrarySnapshot.self, from: data)
        case .plan:
            if let cached = try? JSONCoding.decode(CachedNutritionPlan.self, from: data) { try? cached.data.validate() }
        case .server:
            // The reference server's query and header parsing (a Range of 0-Int64.max trapped).
            ServerRequestParsing.check(String(decoding: data, as: UTF8.self))
        case .headers:
            // Header values brados reads from any server: Retry-After (inf and 1e20 trapped).
            _ = APIClient.retryAfter(HTTPResponse(status: 429, headers: [("Retry-After", String(decoding: data, as: UTF8.self))]))
        case .text:
            // What every server string goes through on its way to the terminal (ESC then m trapped).
            let text = String(decoding: data, as: UTF8.self)
            _ = SafeText.rendered(text, keepLines: data.count % 2 == 0)
            _ = SafeText.visible(text)
            _ = SafeText.escapingJSON(text)
        case .visits:
            // The visits cache lives in the profile's key-value store (defaults.json).
            let url = Scratch.file("defaults.json")
            guard (try? data.write(to: url)) != nil else { return }
            _ = VisitsCache(store: KeyValueStore(url: url)).load()
        }
    }

    /// Reads every entry header and up to 1 MB of content, as `cache import` does.
    private func readArchive(_ data: Data) {
        let fd = brados_fuzz_memfd()
        guard fd >= 0 else { return }
        defer { close(fd) }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == data.count, lseek(fd, 0, SEEK_SET) == 0, let reader = try? ArchiveReader(fd: fd) else { return }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var budget = 1 << 20
        while budget > 0, let header = try? reader.next() {
            _ = header.path.utf8.count
            while budget > 0 {
                let count = buffer.withUnsafeMutableBytes { (try? reader.read(into: $0)) ?? 0 }
                if count <= 0 { break }
                budget -= count
            }
        }
    }
}

/// A private folder for inputs that must be files.
enum Scratch {
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("brados-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func file(_ name: String) -> URL { folder.appendingPathComponent(name) }
}

/// The target libFuzzer's C callback runs (it cannot capture context).
nonisolated(unsafe) var currentTarget = FuzzTarget.manifest

@main
enum BradosFuzz {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("""
                usage: brados-fuzz \(names) [libFuzzer options] [corpus folders]   (a BRADOS_FUZZ=1 build)
                       brados-fuzz \(names) FILE|FOLDER…                          (replays inputs)

                """.utf8))
            exit(64)
        }
        currentTarget = target
        defer { try? FileManager.default.removeItem(at: Scratch.folder) }
        if brados_fuzz_available() == 1 {
            var argv = [arguments[0]] + arguments.dropFirst(2)
            var cStrings = argv.map { strdup($0) }
            var argc = Int32(argv.count)
            argv.removeAll()
            let code = cStrings.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
                return brados_fuzz_run(&argc, &pointer) { data, size in
                    currentTarget.run(size == 0 ? Data() : Data(bytes: data!, count: size))
                    return 0
                }
            }
            cStrings.forEach { free($0) }
            exit(code)
        }
        // Replay: every file named, or in a folder named.
        var count = 0
        for path in arguments.dropFirst(2) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("brados-fuzz: no such file: \(path)\n".utf8))
                exit(66)
            }
            let files = isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target.run(data)
                count += 1
            }
        }
        print("brados-fuzz \(target.rawValue): \(count) inputs replayed, no crash")
    }
}
