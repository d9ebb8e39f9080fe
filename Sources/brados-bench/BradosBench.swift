import ArgumentParser
import BradOSCore
import BradOSStorage
import Foundation

/// Benchmark driver for the scripts in `bench/`: runs one workload through brados's own
/// code and prints one JSON line of figures.
///
///     brados-bench blobcache DIR WORKLOAD CAP_BYTES MEMORY_BYTES   (bench/artwork_lru.py)
///     brados-bench coach-schema FILE                                (bench/coach_upsert.py)
///     brados-bench coach-upsert FILE ROWS
///     brados-bench coach-list FILE CONVERSATIONS MESSAGES
///     brados-bench plan-cache-read DIR RUNS                         (bench/plan_flow.py)
///
/// Workload lines: `put KEY SIZE` or `get KEY SIZE` (a get that misses puts the blob, as an
/// artwork fetch would). Blob bytes are slices of one random pool, with a PNG signature.
@main
struct BradosBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "brados-bench",
        abstract: "Runs one benchmark workload through brados's own code and prints one JSON line (used by bench/).",
        subcommands: [BlobStoreWorkload.self, CoachSchema.self, CoachUpsert.self, CoachList.self, NutritionCacheRead.self])
}

struct CoachSchema: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coach-schema", abstract: "Create an empty coach store with one conversation.")
    @Argument(help: "The database file.") var file: String
    func run() throws { try CoachBench.run(["coach-schema", file]) }
}

struct CoachUpsert: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coach-upsert", abstract: "Upsert ROWS messages in one transaction; print the time.")
    @Argument(help: "The database file.") var file: String
    @Argument(help: "How many messages.") var rows: Int
    func run() throws { try CoachBench.run(["coach-upsert", file, String(rows)]) }
}

struct CoachList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coach-list", abstract: "Fill a store, then time listing its conversations.")
    @Argument(help: "The database file.") var file: String
    @Argument(help: "How many conversations.") var conversations: Int
    @Argument(help: "Messages per conversation.") var messages: Int
    func run() throws { try CoachBench.run(["coach-list", file, String(conversations), String(messages)]) }
}

struct BlobStoreWorkload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blobcache", abstract: "Replay a workload file (put/get KEY SIZE lines) through the BlobStore.")
    @Argument(help: "The cache directory.") var directory: String
    @Argument(help: "The workload file.") var workload: String
    @Argument(help: "The cap in bytes.") var cap: Int64
    @Argument(help: "The memory tier in bytes (0: disk only).") var memory: Int

    func run() throws {
        let directory = URL(fileURLWithPath: self.directory, isDirectory: true)
        let lines = try String(contentsOfFile: workload, encoding: .utf8).split(separator: "\n")
        var generator = SystemRandomNumberGenerator()
        var pool = [UInt8](repeating: 0, count: 401_000)
        for index in pool.indices { pool[index] = UInt8.random(in: 0...255, using: &generator) }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func blob(_ size: Int, _ key: Int) -> Data {
            var data = Data(signature)
            let offset = key % 1000
            data.append(contentsOf: pool[offset..<(offset + size - signature.count)])
            return data
        }
        let cache = try BlobStore(directory: directory, configuration: BlobStoreConfiguration(capacity: cap, memoryCapacity: memory))
        var putSeconds = 0.0, getSeconds = 0.0, puts = 0, gets = 0, hits = 0, peak: Int64 = 0, overCap = 0
        let clock = ContinuousClock()
        for (index, line) in lines.enumerated() {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let key = Int(parts[1]), let size = Int(parts[2]) else { continue }
            let blobKey = BlobKey(bucket: key % 2 == 0 ? "1024" : "2048", identifier: "\(key)")
            if parts[0] == "put" {
                let data = blob(size, key)
                let elapsed = try clock.measure { try cache.store(data, for: blobKey) }
                putSeconds += elapsed.seconds
                puts += 1
            } else {
                var found = false
                let elapsed = try clock.measure { found = try cache.data(for: blobKey) != nil }
                getSeconds += elapsed.seconds
                gets += 1
                if found { hits += 1 } else {
                    let data = blob(size, key)
                    let put = try clock.measure { try cache.store(data, for: blobKey) }
                    putSeconds += put.seconds
                    puts += 1
                }
            }
            if index % 100 == 0 {
                let bytes = try cache.stats().bytes
                peak = max(peak, bytes)
                if bytes > cap { overCap += 1 }
            }
        }
        let stats = try cache.stats()
        let onDisk = ["1024", "2048"].flatMap { FileSystem.regularFiles(under: directory.appendingPathComponent($0)) }.filter { !($0.relativePath as NSString).lastPathComponent.hasPrefix(".") }
        let report: [String: Any] = [
            "puts": puts, "putSeconds": putSeconds, "gets": gets, "getSeconds": getSeconds, "hits": hits,
            "peakBytes": max(peak, stats.bytes), "finalBytes": stats.bytes, "checkpointsOverCap": overCap,
            "indexMatchesDisk": onDisk.count == stats.entries && onDisk.reduce(0) { $0 + $1.size } == stats.bytes,
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
