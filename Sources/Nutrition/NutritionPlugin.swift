import ArgumentParser
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

extension Service {
    /// The nutrition plan service (`server.nutrition`; `gtsd`, the original service's name,
    /// until 0.3: ``ServiceRename`` moves what a user kept under it).
    public static let nutrition = Service(rawValue: "nutrition")
}

/// The plan domain: the nutrition plan from the science service, cached with a TTL, with an
/// offline queue of profile changes. The queue (the person's changes) and the kept plans
/// (history) are not cache: `cache clear` keeps them (``KeepsPersonalData``).
public struct NutritionPlugin: DomainPlugin, Syncs, ShowsToday, ShapesArchives, KeepsPersonalData {
    public static let domainName = "plan"
    public static let ttlKey = "plan.ttl"

    public init() {}
    public var name: String { Self.domainName }
    public var summary: String { "Nutrition plan: cached for an hour, validated, with an offline queue of changes." }
    public var command: any ParsableCommand.Type { NutritionCommand.self }

    /// `plan.ttl`: above zero (half of it is when a refresh starts).
    public static let ttlSetting = DurationSetting(name: ttlKey, summary: "How long a cached plan counts as fresh (refreshed past half of it)",
                                                   environmentVariable: "BRADOS_PLAN_TTL", defaultValue: "1h", allowsZero: false)

    /// Fresh for the TTL; past half of it, shown and refreshed behind; past the TTL, shown as
    /// out of date and refreshed behind (``CacheReader``: the foreground is never held).
    public static func cachePolicy(ttl: Duration) -> CachePolicy {
        CachePolicy(freshFor: ttl, revalidation: .behind, revalidateAfter: ttl / 2)
    }

    public var configKeys: [ConfigKey] { [Self.ttlSetting.configKey] }
    public var services: [ServiceDescription] { [ServiceDescription(.nutrition, summary: "the nutrition plan service (plan)", formerNames: ["gtsd"])] }
    public var importDescription: String? {
        "Queued plan changes in the archive (`brados plan pending`) arrive paused: only `brados plan sync --include-imported` sends them."
    }
    public var syncDescription: String { "sends the queued changes in order, then revalidates the plan" }

    /// Replays the pending queue, then revalidates the plan.
    public func sync(_ env: AppEnvironment, options: SyncOptions) async throws -> String? {
        let repository = try NutritionRepository.live(env)
        // Imported changes stay paused: the timer never sends an old backup's changes.
        let report = try await repository.sync(includeImported: false)
        if let error = report.stoppedBy, !report.remaining.isEmpty { throw error }
        let plan: NutritionPlanResult
        if let recomputed = report.plan { plan = recomputed } else { plan = try await repository.refresh() }
        let paused = report.remaining.filter(\.isImported).count
        return "plan \(plan.data.plan.name), \(report.applied.count) queued change\(report.applied.count == 1 ? "" : "s") sent"
            + (paused > 0 ? ", \(paused) imported paused (`brados plan sync --include-imported`)" : "")
    }

    /// The targets `plan show` last showed: `<profile cache>/plan/shown-targets.json` (a
    /// file of its own, so that reading it costs `brados today` one small decode).
    static func shownTargets(_ profile: ProfileScope) -> JSONDocument<Targets> {
        JSONDocument(url: cacheDirectory(profile).appendingPathComponent("shown-targets.json"))
    }

    /// Records the targets shown (only when they differ from those recorded).
    static func rememberShown(_ targets: Targets, in env: AppEnvironment) {
        let document = shownTargets(env.profile)
        guard document.load() != targets else { return }
        do { try document.save(targets) } catch {
            env.logger.debug("could not record the targets shown: \(error.logText)")
        }
    }

    /// The targets, a significant change since `plan show` last showed them, queued changes.
    public func todaySection(_ context: TodayContext) async throws -> TodaySection? {
        let repository = try NutritionRepository.live(context.env)
        let operations = repository.queued
        let queued = Self.unsent(operations, forms: context.output.forms)
        guard let read = await context.read(repository.currentPlan) else {
            return .nothingCached("Nutrition plan", fill: "brados plan show", queued: queued)
        }
        let targets = read.value.data.targets
        let forms = context.output.forms
        var lines = ["\(targets.calorieTarget) kcal · \(targets.proteinTarget) g protein · \(forms.volume(targets.waterTarget)) water · "
            + context.output.styled("brados plan show", .cyan)]
        // `waterTarget`, `weight` and `weights30Days` are the names before 0.4 (deprecated: the ones named with their unit replace them).
        var json: [String: JSONValue] = ["plan": .string(read.value.data.plan.name), "calorieTarget": .number(Double(targets.calorieTarget)),
                                         "proteinTarget": .number(Double(targets.proteinTarget)), "waterTargetMl": .number(Double(targets.waterTarget)),
                                         "waterTarget": .number(Double(targets.waterTarget))]
        if let shown = Self.shownTargets(context.env.profile).load(),
           let change = NutritionPlanChange.significant(from: shown, to: targets) {
            lines.append(context.output.styled("Changed since you last looked: \(change.previous.calorieTarget) → \(change.new.calorieTarget) kcal, "
                + "\(change.previous.proteinTarget) → \(change.new.proteinTarget) g protein", .yellow))
            json["changeSinceShown"] = .object(["calorieTarget": .number(Double(change.new.calorieTarget - change.previous.calorieTarget)),
                                                "proteinTarget": .number(Double(change.new.proteinTarget - change.previous.proteinTarget))])
        }
        let log = WeightLog(history: read.value.weights, queued: operations)
        if let spark = log.sparkline(days: 30, now: context.now), let last = log.points.last {
            // The sparkline where pictures are drawn; its text line (the last weight, the days) everywhere else.
            let picture = context.drawsPictures ? context.output.styled(spark.line, .cyan) + " " : ""
            lines.append("Weight " + picture + "\(forms.weight(last.weight))"
                         + (last.queued ? " (queued)" : "") + context.output.styled(" · 30 days · brados plan history", .dim))
            let days = JSONValue.array(spark.values.map { $0.map(JSONValue.number) ?? .null })
            json["weights30DaysKg"] = days
            json["weights30Days"] = days
            json["weightKg"] = .number(last.weight)
            json["weight"] = .number(last.weight)
        }
        if let failure = read.refreshFailure { lines.append(context.output.styled("could not refresh: \(failure)", .yellow)) }
        return TodaySection(title: "Nutrition plan", lines: lines, json: json, queued: queued, staleAge: read.staleAge)
    }

    /// An imported queue arrives paused, and the profile's own queue is never lost: each
    /// staged change is marked imported (with its origin); with `--merge` the local changes
    /// are kept ahead of them; `--replace` refuses while local changes are queued unless
    /// `--discard-pending`.
    public func prepareImport(cache: URL, data: URL, context: ImportContext) throws {
        try ImportedDatabases.rebuild(domain: name, cache: cache, data: data, databases: [:])
        let staged = PendingQueue(url: data.appendingPathComponent("pending.json"))
        // An unreadable local queue stops the import: it may hold changes not sent yet.
        let local: [PendingOperation]
        do {
            // Read only if there is one: a dry run must not create the queue's folder or lock.
            let url = Self.queueURL(context.target)
            local = FileSystem.exists(url) ? try PendingQueue(url: url).all() : []
        } catch {
            throw ArchiveError.io("the profile's own queue of plan changes could not be read (\(error.summaryText)); nothing was imported")
        }
        let mine = local.filter { !$0.isImported }
        if context.mode == .replace, !mine.isEmpty, !context.discardPending {
            throw ArchiveError.pendingChanges(domain: name, profile: context.target.name.rawValue, count: mine.count, send: "brados plan sync")
        }
        guard FileManager.default.fileExists(atPath: staged.url.path) else { return }
        // The staged queue's lock file must not travel into the profile (where others may hold the live one).
        defer { unlink(staged.lockURL.path) }
        let origin = "profile \(context.archiveProfile), archive of \(ISO8601DateFormatter().string(from: context.archiveCreatedAt))"
        let imported: [PendingOperation]
        do {
            // Always this import's time and origin: never what the archive claims.
            imported = try staged.all().map { operation in
                var paused = operation
                paused.importedAt = context.now
                paused.importedFrom = origin
                // The account that queued it: never sent to another one unless that one is named.
                paused.importedAccount = Self.account(in: context.archiveAccounts).map { String($0.prefix(128)) }
                return paused
            }
        } catch {
            throw ArchiveError.unsafeEntry(path: "data/plan/pending.json", reason: "it is not a queue brados reads (\(error.summaryText))")
        }
        var operations = context.mode == .merge ? local : []
        let known = Set(operations.map(\.id))
        operations += imported.filter { !known.contains($0.id) }
        try staged.replaceAll(operations)
    }

    /// The account this profile is signed in to at the plan service (its remote id), if any.
    public static func account(of env: AppEnvironment) -> String? {
        account(in: env.credentials.load().accounts)
    }

    /// Queued changes as the core shows them (`today`, `cache clear`, `auth logout`), each with the command that sends it.
    static func unsent(_ operations: [PendingOperation], forms: DisplayForms) -> [UnsentChange] {
        operations.map { operation in
            UnsentChange(domain: domainName, id: operation.id, summary: operation.summary(forms) + (operation.isImported ? " (imported, paused)" : ""),
                         createdAt: operation.createdAt, send: operation.isImported ? "brados plan sync --include-imported" : "brados plan sync")
        }
    }

    /// The plan service's account among a profile's (or an archive's) accounts per service:
    /// its own sign-in, else the account's.
    public static func account(in accounts: [String: String]) -> String? {
        accounts[Service.nutrition.rawValue] ?? accounts[Service.account.rawValue]
    }

    /// The changes queued and not sent (an imported one paused: sent only when asked), and the
    /// plans kept; a queue that cannot be read is named as such (never dropped unnamed).
    public func personalData(in profile: ProfileScope, forms: DisplayForms) throws -> PersonalData {
        let url = Self.queueURL(profile)
        var queued: [PendingOperation] = []
        var unreadable: [UnreadableData] = []
        do {
            queued = FileSystem.exists(url) ? try PendingQueue(url: url).all() : []
        } catch {
            unreadable.append(UnreadableData(domain: name, what: "the queue of plan changes not sent", path: url.path,
                                             reason: { if case let .coding(_, detail)? = error as? StorageError { detail } else { error.summaryText } }()))
        }
        let unsent = Self.unsent(queued, forms: forms)
        let kept = KeptNutritionPlans(directory: Self.cacheDirectory(profile)).all().count
        return PersonalData(unsent: unsent, history: [HistoryItems(domain: name, name: "plan history", noun: "plan", count: kept, show: "brados plan history --plans")],
                            unreadable: unreadable)
    }

    /// Removes the cached plan and what is derived from it; the queue (`data/plan/`) and the
    /// kept plans stay.
    /// - Throws: ``StorageError``.
    public func clearCache(in profile: ProfileScope) throws {
        let kept = KeptNutritionPlans(directory: Self.cacheDirectory(profile))
        let keep: Set<String> = [kept.url.lastPathComponent, kept.lockURL.lastPathComponent]
        let folder = Self.cacheDirectory(profile)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where !keep.contains(name) {
            try FileSystem.remove(folder.appendingPathComponent(name))
        }
    }

    /// Empties the queue of changes not sent.
    /// - Throws: ``StorageError``.
    public func discardUnsent(in profile: ProfileScope) throws {
        let url = Self.queueURL(profile)
        guard FileSystem.exists(url) else { return }
        try PendingQueue(url: url).replaceAll([])
    }

    /// The ids of the plans kept, newest first, for completing `plan diff` (from the cache only).
    public static func keptPlanIDs() -> [String] {
        KeptNutritionPlans(directory: cacheDirectory(CompletionValues.scope().profile)).all().reversed().map { String($0.id) }
    }

    /// `<profile cache>/plan/` (the cached plan).
    public static func cacheDirectory(_ profile: ProfileScope) -> URL { profile.cacheDirectory(for: domainName) }
    /// `<profile data>/plan/pending.json` (the queue: the user's changes, not a cache).
    public static func queueURL(_ profile: ProfileScope) -> URL {
        profile.dataDirectory(for: domainName).appendingPathComponent("pending.json")
    }
}
