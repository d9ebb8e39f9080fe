import ArgumentParser
import BradOSCore
import BradOSSearch
import Foundation

/// `brados search QUERY`: full-text search over everything cached in the profile.
public struct SearchCommand: EnvironmentCommand {
    public static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "search",
        abstract: "Full-text search over everything cached, newest first. Never uses the network.",
        discussion: Composition.current.helpText("search") { discussion(Composition.current.plugins) }) }

    static func discussion(_ plugins: [any DomainPlugin]) -> String {
        var lines = ["Searches the profile's caches (what the other commands have read), newest first:",
                     "only the results shown are read, so a common word costs what a rare one does.",
                     "--sort relevance puts the best match first (bm25, a title above a body): every",
                     "match is scored, so it takes longer the more documents hold the words.", "What each domain yields:"]
        lines += HelpExamples.columns(plugins.compactMap(\.asFeedsSearch).map { ($0.name, $0.searchDescription) })
        lines += [
            "Words are read as typed: each must appear (in any order, any case, accents ignored), and",
            "punctuation is text (I'm, don't). --syntax reads FTS5 query syntax instead: \"a phrase\" in",
            "double quotes; blu* for a prefix; OR, NOT and parentheses; NEAR(a b, 5); title:blue for the",
            "title alone.",
            "Each result gives its domain, date, the command that opens it and the matching text",
            "(matches in bold on a terminal). The index is kept beside the caches and brought up",
            "to date before every search; --reindex builds it again from the caches.",
            "Examples:",
            "  brados search protein breakfast",
            "  brados search \"don't skip\"",
            "  brados search protein --sort relevance",
            "  brados search --syntax '\"blue train\"' --limit 5",
            "  brados search --syntax 'run* NOT marathon' --json",
        ]
        return lines.joined(separator: "\n")
    }

    @Argument(help: "The words to look for, as typed (with --syntax: FTS5 query syntax; see above).") var query: [String] = []
    @Option(help: ArgumentHelp("Only this domain (repeat for more).", valueName: "domain"),
            completion: .custom { _, _, _ in Composition.current.plugins.filter { $0 is any FeedsSearch }.map(\.name) })
    var domain: [String] = []
    @Option(help: "At most this many results (1-1000).") var limit = 20
    @Flag(help: "Read the words as FTS5 query syntax: phrases, prefixes (blu*), OR, NOT, NEAR, title:.") var syntax = false
    /// The default since 0.3 (words as typed); still accepted so that scripts written for it work.
    @Flag(name: [.customShort("F"), .customLong("fixed-strings")], help: ArgumentHelp("Words as typed (the default).", visibility: .hidden))
    var fixedStrings = false
    @Flag(help: "Build the index again from the caches first (with no query: only that).") var reindex = false
    @Option(help: ArgumentHelp("newest (default: only the results shown are read) or relevance (every match scored: slower for common words).",
                               valueName: "order")) var sort: SearchOrder = .newest
    @OptionGroup public var global: GlobalOptions
    public init() {}

    /// Checks the limit, the domains and that there is a query (or --reindex).
    /// - Throws: `ValidationError`.
    public func validate() throws {
        if syntax && fixedStrings { throw ValidationError("--syntax and -F cannot go together: -F (words as typed) is the default.") }
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000 (got \(limit)).") }
        if query.joined().allSatisfy(\.isWhitespace) && !reindex {
            throw ValidationError("Give the words to look for, e.g. brados search protein (see --help).")
        }
        let known = Composition.current.plugins.filter { $0 is any FeedsSearch }.map(\.name)
        for name in domain where !known.contains(name) {
            throw ValidationError("--domain \(name): no such searchable domain (\(known.joined(separator: ", "))).")
        }
    }

    /// Brings the index up to date, then searches it.
    /// - Throws: ``SearchError`` (a `--syntax` query FTS5 cannot parse: exit 64), ``StorageError``, ``ConfigError``.
    public func run(in env: AppEnvironment) async throws {
        if let notice = ImportedData.notice(env.profile, accounts: { env.credentials.load().accounts }) { env.output.notice(notice) }
        env.pageOutput()
        let results = try SearchRun(env: env).run(SearchQuery(text: query.joined(separator: " "), domains: domain.isEmpty ? nil : domain, limit: limit,
                                                             syntax: syntax, order: sort), reindex: reindex)
        try SearchRenderer(output: env.output, now: env.now()).render(results)
    }
}

extension SearchOrder: ExpressibleByArgument {}
