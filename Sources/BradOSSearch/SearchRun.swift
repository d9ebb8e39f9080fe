import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

/// One `brados search`: the index brought up to date from the caches, then asked.
public struct SearchRun: Sendable {
    let env: AppEnvironment
    /// How long an update of the index runs before its progress shows on a terminal, and the
    /// least it takes to be told once it is done (a second; tests shorten it).
    public var progressAfter: Duration = .seconds(1)

    public init(env: AppEnvironment) { self.env = env }

    /// What a search printed about.
    public struct Results: Sendable, Encodable {
        public var query: String
        public var results: [SearchHit]
        /// Documents in the index, per domain, after the update.
        public var indexed: [String: Int]
        /// Set when the index was built again (`--reindex`).
        public var reindexed: Bool
    }

    /// - Parameter query: `nil` with `reindex` only rebuilds.
    /// - Throws: ``SearchError``, ``StorageError``, the domains' errors reading their caches.
    public func run(_ query: SearchQuery, reindex: Bool) throws -> Results {
        let index = SearchIndex(profile: env.profile)
        if reindex { try index.remove() }
        let started = ContinuousClock.now
        // Building the index (the first search, a new cache) can take seconds: progress on a
        // terminal once it has taken one.
        let indicator = Spinner(io: env.io, message: "indexing the caches for search…", after: progressAfter)
        defer { indicator.stop() }
        var earlier = 0, current = 0
        func attempt() throws -> (SearchIndex.UpdateReport, [SearchHit]) {
            let report = try index.update(env.plugins.compactMap(\.asFeedsSearch), in: env.profile) { domain, written in
                if written == 0 { earlier += current }
                current = written
                indicator.update(message: "indexing the \(domain) cache for search… \(Format.count(earlier + written, "document"))")
            }
            indicator.stop()
            return (report, query.text.isEmpty ? [] : try index.search(query))
        }
        let (report, hits): (SearchIndex.UpdateReport, [SearchHit])
        do {
            (report, hits) = try attempt()
        } catch let StorageError.database(path, detail) where path == index.url.path {
            // The index is derived: one that fails under us is built again from the caches, once.
            env.logger.info("the search index failed (\(detail)); building it again")
            try index.remove()
            (report, hits) = try attempt()
        }
        if !report.isEmpty {
            env.logger.debug("search index updated", metadata: ["written": "\(report.written)", "removed": "\(report.removed)"])
            let took = ContinuousClock.now - started
            let written = report.written.values.reduce(0, +)
            if took >= progressAfter, written > 0 {
                env.output.notice("search index: \(Format.count(written, "document")) indexed in \(Format.duration(took)) "
                    + "(\(report.written.sorted { $0.key < $1.key }.map { "\($0.key) \(Format.count($0.value))" }.joined(separator: ", ")))")
            }
        }
        for (domain, reason) in report.failed.sorted(by: { $0.key < $1.key }) {
            env.output.notice("the \(domain) cache could not be read for search (\(reason)); its results may be out of date")
        }
        return Results(query: query.text, results: hits, indexed: reindex || env.output.format == .json ? try index.counts() : [:], reindexed: reindex)
    }
}

/// Prints search results: a block per result, or `--json`.
public struct SearchRenderer: Sendable {
    let output: Output
    let now: Date

    public init(output: Output, now: Date) {
        self.output = output
        self.now = now
    }

    /// - Throws: ``StorageError`` when the JSON cannot be encoded.
    public func render(_ results: SearchRun.Results) throws {
        if output.format == .json { return try output.json(results) }
        if results.reindexed {
            let total = results.indexed.values.reduce(0, +)
            output.notice("search index built again: \(Format.count(total, "document")) "
                + "(\(results.indexed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))")
        }
        guard !results.query.isEmpty else { return }
        guard !results.results.isEmpty else {
            output.line("No cached item matches \(SearchError.shown(results.query)).")
            output.line(output.styled("Only what brados has cached is searched: a domain's list commands fill its cache (`brados cache stats` shows what is held).", .dim))
            return
        }
        let mark: (String) -> String = { output.styled($0, .bold) }
        let width = results.results.map(\.domain.count).max() ?? 0
        for (position, hit) in results.results.enumerated() {
            if position > 0 { output.line() }
            let date = hit.date.map { Format.day($0) } ?? ""
            let title = SearchHit.styled(hit.markedTitle, mark: mark)
            // A document's fields (an address, a note) are its lines: kept apart by " · ".
            let fields = hit.markedSnippet.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let snippet = SearchHit.styled(fields.joined(separator: " · "), mark: mark)
            // A document without a title (a message) leads with its text.
            output.line(hit.domain + String(repeating: " ", count: width - hit.domain.count) + "  "
                + output.styled(date.isEmpty ? "" : date + "  ", .dim) + (title.isEmpty ? snippet : title))
            if !title.isEmpty, !snippet.isEmpty { output.line("  " + snippet) }
            output.line("  " + output.styled(hit.command, .cyan))
        }
    }
}
