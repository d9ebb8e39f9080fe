import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation
import Logging

/// One change to the profile, queued before it is sent.
public struct PendingOperation: Codable, Sendable, Equatable, Identifiable {
    /// What changes. `updateWeight` is `plan weight`; the others are `plan set`.
    public enum Kind: String, Codable, Sendable {
        case updateWeight, updateTargetWeight, updateGoal, updateActivityLevel

        /// `a weight change`: what a log line may say of an operation (never its value).
        public var noun: String {
            switch self {
            case .updateWeight: "a weight change"
            case .updateTargetWeight: "a target-weight change"
            case .updateGoal: "a goal change"
            case .updateActivityLevel: "an activity-level change"
            }
        }
    }

    public var id: String
    public var kind: Kind
    /// For `updateWeight`: the new current weight.
    public var weightKg: Double?
    /// For `updateTargetWeight`: the new target weight.
    public var targetWeightKg: Double?
    /// For `updateGoal`.
    public var goal: NutritionGoal?
    /// For `updateActivityLevel`.
    public var activityLevel: ActivityLevel?
    public var createdAt: Date
    /// Set for a change that arrived in an imported archive: when it was imported.
    /// Such a change is paused: only `plan sync --include-imported` sends it.
    public var importedAt: Date?
    /// For an imported change: where it came from ("profile default, archive of 2026-11-01").
    public var importedFrom: String?
    /// The account (remote id) that queued it, when it came in an archive that says: such a
    /// change is never sent to another account unless that account is named (`plan sync
    /// --include-imported-from ID`).
    public var importedAccount: String?

    public init(id: String = UUID().uuidString.lowercased(), kind: Kind, weightKg: Double?, targetWeightKg: Double? = nil,
                goal: NutritionGoal? = nil, activityLevel: ActivityLevel? = nil, createdAt: Date,
                importedAt: Date? = nil, importedFrom: String? = nil) {
        self.id = id
        self.kind = kind
        self.weightKg = weightKg
        self.targetWeightKg = targetWeightKg
        self.goal = goal
        self.activityLevel = activityLevel
        self.createdAt = createdAt
        self.importedAt = importedAt
        self.importedFrom = importedFrom
    }

    /// Paused until the user sends it explicitly (it came from an import).
    public var isImported: Bool { importedAt != nil }

    /// Queued by another account than `account` (it came in an archive of that account's).
    public func isFromAnotherAccount(than account: String?) -> Bool {
        guard isImported, let importedAccount else { return false }
        return importedAccount != account
    }

    /// The characters a change id may hold (see ``IdentifierRule``).
    public static let idRule = IdentifierRule.token("change id")

    enum CodingKeys: String, CodingKey { case id, kind, weightKg, targetWeightKg, goal, activityLevel, createdAt, importedAt, importedFrom, importedAccount }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Self.idRule, forKey: .id)
        kind = try container.decode(Kind.self, forKey: .kind)
        weightKg = try container.decodeIfPresent(Double.self, forKey: .weightKg)
        targetWeightKg = try container.decodeIfPresent(Double.self, forKey: .targetWeightKg)
        goal = try container.decodeIfPresent(NutritionGoal.self, forKey: .goal)
        activityLevel = try container.decodeIfPresent(ActivityLevel.self, forKey: .activityLevel)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        importedAt = try container.decodeIfPresent(Date.self, forKey: .importedAt)
        importedFrom = try container.decodeIfPresent(String.self, forKey: .importedFrom)
        importedAccount = try container.decodeIfPresent(String.self, forKey: .importedAccount)
    }

    /// `weight 84.5 kg` (`186.3 lb` in imperial), `target weight 78 kg`, `goal gain_muscle`,
    /// `activity very_active`: for the user's own output (never a log line: see ``Kind/noun``).
    public func summary(_ forms: DisplayForms) -> String {
        switch kind {
        case .updateWeight: "weight \(weightKg.map { forms.weightBrief($0) } ?? "?")"
        case .updateTargetWeight: "target weight \(targetWeightKg.map { forms.weightBrief($0) } ?? "?")"
        case .updateGoal: "goal \(goal?.rawValue ?? "?")"
        case .updateActivityLevel: "activity \(activityLevel?.rawValue ?? "?")"
        }
    }

    /// The profile update that sends this change (a weight with the day it was logged, the
    /// person's local day: what `today` and `plan history` showed them).
    var update: ProfileUpdate { update(timeZone: .local) }

    func update(timeZone: TimeZone) -> ProfileUpdate {
        switch kind {
        case .updateWeight: ProfileUpdate(currentWeight: weightKg, currentWeightDate: Format.day(createdAt, timeZone: timeZone))
        case .updateTargetWeight: ProfileUpdate(targetWeight: targetWeightKg)
        case .updateGoal: ProfileUpdate(goal: goal)
        case .updateActivityLevel: ProfileUpdate(activityLevel: activityLevel)
        }
    }
}

/// The pending-operations queue: `pending.json` in the profile's data folder (it holds the
/// user's intent, so it is data, not cache). Each change is written durably (fsync) under a
/// file lock before anything is sent.
///
/// Unlike a cache, a queue file that does not decode is never dropped: reads fail with a
/// clear error naming the file, and the file stays for the user to inspect. Replays hold a
/// second, long-lived lock (``withReplayLock(_:)``), so two processes never replay the same
/// operation; changes can still be queued meanwhile. Thread-safe.
///
/// The file is format 1 while it holds only weights (what every brados reads), and format 2
/// once it holds a `plan set` change: a brados from before them says its queue is newer than
/// it understands, instead of failing to decode a change it does not know.
public struct PendingQueue: Sendable {
    struct File: Codable {
        var formatVersion = 1
        var operations: [PendingOperation]

        /// The version a file of these operations is written in.
        static func version(of operations: [PendingOperation]) -> Int {
            operations.allSatisfy { $0.kind == .updateWeight } ? 1 : 2
        }
    }

    /// The newest queue format this brados reads.
    static let newestFormat = 2

    public let url: URL
    var lockURL: URL { url.deletingLastPathComponent().appendingPathComponent(".pending.lock") }
    var replayLockURL: URL { url.deletingLastPathComponent().appendingPathComponent(".replay.lock") }

    public init(url: URL) { self.url = url }

    /// The queued operations, oldest first.
    /// - Throws: ``StorageError/coding(path:detail:)`` for a file that does not decode.
    public func all() throws -> [PendingOperation] {
        try FileLock.withExclusiveLock(at: lockURL) { try read().operations }
    }

    /// Appends an operation, durably.
    /// - Throws: ``StorageError``.
    public func enqueue(_ operation: PendingOperation) throws {
        try FileLock.withExclusiveLock(at: lockURL) {
            var file = try read()
            file.operations.append(operation)
            try write(file)
        }
    }

    /// Removes an operation (after the server confirmed it, or when it was dropped).
    /// - Throws: ``StorageError``.
    public func remove(id: String) throws {
        try FileLock.withExclusiveLock(at: lockURL) {
            var file = try read()
            file.operations.removeAll { $0.id == id }
            try write(file)
        }
    }

    /// Replaces the whole queue (an import's staged copy), durably.
    /// - Throws: ``StorageError``.
    public func replaceAll(_ operations: [PendingOperation]) throws {
        try FileLock.withExclusiveLock(at: lockURL) { try write(File(operations: operations)) }
    }

    /// Runs a replay holding the replay lock (waiting up to `timeout` for another replay to finish).
    /// - Throws: ``StorageError/lockTimeout(path:)``, or what `body` throws.
    public func withReplayLock<T>(timeout: Duration = .seconds(300), isolation: isolated (any Actor)? = #isolation,
                                  _ body: () async throws -> T) async throws -> T {
        try await FileLock.withExclusiveLock(at: replayLockURL, timeout: timeout, isolation: isolation, body)
    }

    private func read() throws -> File {
        guard let data = try AtomicFile.readIfPresent(url) else { return File(operations: []) }
        do {
            let file = try JSONCoding.decode(File.self, from: data)
            guard (1...Self.newestFormat).contains(file.formatVersion) else {
                throw StorageError.coding(path: url.path, detail: "format version \(file.formatVersion) is newer than this brados understands")
            }
            return file
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.coding(path: url.path, detail: "the pending-operations queue does not decode (\(APIClient.describe(error))); it was left as it is")
        }
    }

    private func write(_ file: File) throws {
        if file.operations.isEmpty {
            try FileSystem.removeDurably(url)
            return
        }
        var file = file
        file.formatVersion = File.version(of: file.operations)
        let data: Data
        do { data = try JSONCoding.encode(file) } catch { throw StorageError.coding(path: url.path, detail: "\(error)") }
        try AtomicFile.write(data, to: url, durable: true)
    }
}

/// Which queued changes `plan sync` sends: the profile's own always; imported ones of this
/// account with `imported`; imported ones of another account only when that account is named.
public struct SendRule: Sendable, Equatable {
    /// Imported changes of this account too (`--include-imported`, or a yes on a terminal).
    public var imported: Bool
    /// The account the profile is signed in to at the plan service.
    public var account: String?
    /// Other accounts whose imported changes may go to this one (`--include-imported-from`).
    public var otherAccounts: Set<String>

    public init(imported: Bool = false, account: String? = nil, otherAccounts: Set<String> = []) {
        self.imported = imported
        self.account = account
        self.otherAccounts = otherAccounts
    }

    public func sends(_ operation: PendingOperation) -> Bool {
        guard operation.isImported else { return true }
        guard operation.isFromAnotherAccount(than: account), let from = operation.importedAccount else { return imported }
        return otherAccounts.contains(from)
    }
}
