import BradOSCore
import BradOSNetworking
import BradOSTerminal
import Foundation

/// The offline queue of profile changes: `plan weight`, `plan set` and `plan sync`.
extension NutritionRepository {
    /// `plan weight KG`: validates, queues the change durably *before* anything is sent, then
    /// (online) replays the queue in order.
    /// - Returns: the queued operation and, online, the replay's report.
    /// - Throws: ``NutritionError/invalidInput(_:fromServer:)`` for a weight out of range (nothing queued), ``StorageError``.
    public func updateWeight(_ kilograms: Double) async throws -> (operation: PendingOperation, report: SyncReport?) {
        guard kilograms.isFinite, WeightInput.range.contains(kilograms) else {
            throw NutritionError.invalidInput("weight must be 30–300 kg (got \(Format.number(kilograms)))", fromServer: false)
        }
        return try await send(PendingOperation(kind: .updateWeight, weightKg: (kilograms * 100).rounded() / 100, createdAt: now()))
    }

    /// The last weight known here, and its day: the newer of the service's last (as cached)
    /// and the last queued one (its local day). `nil` before the first weigh-in.
    public func lastKnownWeight(timeZone: TimeZone = .local) -> WeightPlausibility? {
        let log = WeightLog(history: cache.load()?.weights, queued: queued, timeZone: timeZone)
        let last = log.points.max { a, b in (WeightLog.dayNumber(a.date) ?? 0, a.queued ? 1 : 0) < (WeightLog.dayNumber(b.date) ?? 0, b.queued ? 1 : 0) }
        return last.map { WeightPlausibility(lastKilograms: $0.weight, lastDay: $0.date) }
    }

    /// `plan set target-weight|goal|activity`: a change to what the plan is computed from,
    /// handled as a weight is: validated, queued durably first, shown pending at once
    /// (``PendingInputs``), then (online) sent with the queue and the plan recomputed
    /// (`forceRecompute`); a refusal drops it from the queue, which rolls the pending value back.
    /// - Returns: the queued operation and, online, the replay's report.
    /// - Throws: ``NutritionError/invalidInput(_:fromServer:)`` for a value out of range (nothing queued), ``StorageError``.
    public func set(_ change: NutritionInputChange) async throws -> (operation: PendingOperation, report: SyncReport?) {
        let operation = try queue(change)
        if offline { return (operation, nil) }
        return (operation, try await sync())
    }

    /// The first half of ``set(_:)``: validates `change` and queues it durably; from here on
    /// it is shown pending (`plan set` says so before it sends the queue with ``sync(includeImported:)``).
    /// - Throws: ``NutritionError/invalidInput(_:fromServer:)`` for a value out of range (nothing queued), ``StorageError``.
    public func queue(_ change: NutritionInputChange) throws -> PendingOperation {
        try change.validate()
        let operation = change.operation(at: now())
        try enqueue(operation)
        return operation
    }

    /// Queues `operation` durably, then (online) replays the queue.
    func send(_ operation: PendingOperation) async throws -> (operation: PendingOperation, report: SyncReport?) {
        try enqueue(operation)
        if offline { return (operation, nil) }
        return (operation, try await sync())
    }

    func enqueue(_ operation: PendingOperation) throws {
        try queue.enqueue(operation)
        // Never the value: a log line is not the user's output (spec §6.5).
        logger.debug("queued \(operation.kind.noun)", metadata: ["id": "\(operation.id)"])
    }

    /// The changes to the plan's inputs queued and not sent yet (the pending values shown).
    public var pendingInputs: PendingInputs { PendingInputs(queued) }


    /// `plan sync`: replays the queue in order, under the replay lock (two processes never
    /// replay the same operation). An operation leaves the queue only once the server
    /// confirmed it; a failure worth retrying stops the replay and keeps the rest in order; a
    /// refusal is reported and dropped. After any applied change the plan is recomputed once.
    /// - Throws: ``NetworkError/offlineMode`` when offline (the queue is untouched), ``StorageError``.
    /// - Parameter includeImported: send changes that arrived in an imported archive too
    ///   (paused otherwise: they stay queued, in order); never those of another account.
    public func sync(includeImported: Bool = false) async throws -> SyncReport {
        try await sync(rule: SendRule(imported: includeImported))
    }

    /// `plan sync` with the rule of what goes (``SendRule``): what it does not send stays queued, in order.
    public func sync(rule: SendRule) async throws -> SyncReport {
        if offline { throw NetworkError.offlineMode }
        return try await OperationLog.run("plan.send-queued", logger: logger) { try await timed("plan sync") {
            try await queue.withReplayLock {
                var report = SyncReport()
                while let operation = try queue.all().first(where: rule.sends) {
                    do {
                        _ = try await api().updateProfile(operation.update)
                    } catch NetworkError.interruptedWrite {
                        // Sent, and no answer: kept, and said so (never "sent", never "dropped").
                        report.stoppedBy = NutritionError.interruptedSend(change: operation.summary(forms))
                        break
                    } catch {
                        // Only a definite "no" drops a change; anything else (no network, a server
                        // failure, an answer that does not decode, an expired session) keeps it.
                        if NutritionError.isRefusal(error) {
                            let refusal = NutritionError.map(error)
                            // The user is told (the command's output, with the value); the log
                            // says only which kind of change went, at debug level.
                            logger.debug("dropped \(operation.kind.noun): \(error.logText)", metadata: ["id": "\(operation.id)"])
                            report.dropped.append((operation, refusal))
                            try queue.remove(id: operation.id)
                            continue
                        }
                        report.stoppedBy = NutritionError.map(error)
                        break
                    }
                    try queue.remove(id: operation.id)
                    report.applied.append(operation)
                    logger.debug("applied \(operation.kind.noun)", metadata: ["id": "\(operation.id)"])
                }
                if !report.applied.isEmpty {
                    do { report.plan = try await fetch(forceRecompute: true, changedHere: true) } catch {
                        report.recomputeError = error
                        // The profile changed, so the cached plan is out of date: marked so (the
                        // next show fetches) but kept, with its real save time, as the fallback.
                        if var cached = cache.load() {
                            cached.outdatedAt = now()
                            try? cache.save(cached)
                        }
                    }
                }
                report.remaining = try queue.all()
                return report
            }
        } }
    }
}
