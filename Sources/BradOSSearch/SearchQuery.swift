import BradOSCore
import BradOSStorage
import BradOSErrors
import BradOSTerminal
import Foundation

/// What to look for.
public struct SearchQuery: Sendable, Equatable {
    /// The words as typed (each must appear; `I'm`, `don't` and `"` are text), or FTS5 query
    /// syntax when ``syntax`` (`protein AND breakfast`, `"blue train"`, `blu*`, `title:blue`).
    public var text: String
    /// Only these domains (all when `nil`).
    public var domains: [String]?
    public var limit: Int
    /// The text is FTS5 query syntax (`--syntax`): false by default, every word as it is.
    public var syntax: Bool
    public var order: SearchOrder

    public init(text: String, domains: [String]? = nil, limit: Int = 20, syntax: Bool = false, order: SearchOrder = .newest) {
        self.text = text
        self.domains = domains
        self.limit = limit
        self.syntax = syntax
        self.order = order
    }

    /// The FTS5 query: the text as it is with ``syntax``, else each word a phrase of its own;
    /// a word in an unspaced script or an emoji is looked for through its grams (``SearchGrams``).
    public var match: String { syntax ? Self.rewritingUnspaced(text) : Self.literal(text) }

    /// The words of the query in unspaced scripts (and emoji), which FTS5 cannot mark in a
    /// title or a snippet: ``SearchHit/marking(_:in:)`` marks them.
    var unspacedWords: [String] {
        text.split(whereSeparator: { $0.isWhitespace || $0 == "\"" || $0 == "(" || $0 == ")" || $0 == "*" })
            .map(String.init).filter { SearchGrams.query(word: $0) != nil }
    }

    /// FTS5 query syntax with each bare word or phrase in an unspaced script (or an emoji)
    /// replaced by its grams' query (`'神隠し*'`: a prefix is any place in a run already).
    static func rewritingUnspaced(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var result = ""
        var word = ""
        var quoted: String?
        func endWord() {
            defer { word = "" }
            let bare = word.hasSuffix("*") ? String(word.dropLast()) : word
            guard !bare.contains(":"), let grams = SearchGrams.query(word: bare) else { return result += word }
            result += grams
        }
        for character in text {
            if var phrase = quoted {
                if character == "\"" {
                    // A doubled quote is a quote inside the phrase.
                    phrase.append(character)
                    quoted = phrase
                    if phrase.hasSuffix("\"\""), phrase.count > 2 { continue }
                    let inner = String(phrase.dropFirst().dropLast())
                    let words = inner.split(separator: " ").map(String.init)
                    if words.contains(where: { SearchGrams.query(word: $0) != nil }) {
                        result += "(" + words.map { SearchGrams.query(word: $0) ?? "\"" + $0 + "\"" }.joined(separator: " AND ") + ")"
                    } else {
                        result += phrase
                    }
                    quoted = nil
                } else {
                    phrase.append(character)
                    quoted = phrase
                }
                continue
            }
            switch character {
            case "\"":
                endWord()
                quoted = "\""
            case " ", "\t", "\n", "(", ")":
                endWord()
                result.append(character)
            default:
                word.append(character)
            }
        }
        endWord()
        if let quoted { result += quoted }
        return result
    }

    /// The most terms a query may have (words, phrases, operators).
    public static let maximumTerms = 64
    /// How long a query may run before it is stopped.
    public static let deadline: Duration = .seconds(5)

    /// `text` as FTS5 phrases: each whitespace-separated word quoted (quotes doubled), all
    /// required; a word in an unspaced script, or an emoji, through its grams (or, when it is
    /// mixed with other letters, `東京2026`, as the word it is).
    public static func literal(_ text: String) -> String {
        var result = ""
        var previousGrams = false
        for word in text.split(whereSeparator: \.isWhitespace) {
            let phrase = "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let grams = SearchGrams.query(word: String(word)).map { $0.contains("{title body}") ? "(\(phrase) OR \($0))" : $0 }
            // FTS5 reads `"a" "b"` as both; next to a group it needs the AND written out.
            if !result.isEmpty { result += grams != nil || previousGrams ? " AND " : " " }
            result += grams ?? phrase
            previousGrams = grams != nil
        }
        return result
    }
}

/// The order of the results (`--sort`).
public enum SearchOrder: String, Sendable, Equatable, CaseIterable {
    /// Newest first (a message's time, a visit's day, an album's addition), as notmuch and
    /// atuin order theirs: only the results shown are read, however many documents match.
    case newest
    /// Best match first (bm25, the title weighing five times the body): every match is
    /// scored, so a common word costs time in proportion to how many documents hold it.
    case relevance
}

/// One result.
public struct SearchHit: Sendable, Equatable, Encodable {
    public var domain: String
    /// The document's key in its domain.
    public var id: String
    public var date: Date?
    public var command: String
    /// The title and the snippet with each match between U+0001 and U+0002.
    public var markedTitle: String
    public var markedSnippet: String
    /// bm25, higher is better: with ``SearchOrder/relevance`` only (`nil` newest first,
    /// which reads no score).
    public var score: Double?

    public var title: String { Self.plain(markedTitle) }
    public var snippet: String { Self.plain(markedSnippet) }

    /// `marked` (FTS5's marks in it) with each occurrence of `words` marked too: matches in
    /// unspaced scripts, which FTS5 found through the grams, not in this text.
    static func marking(_ words: [String], in marked: String) -> String {
        guard !words.isEmpty, !marked.isEmpty else { return marked }
        var result = marked
        for word in words.sorted(by: { $0.count > $1.count }) {
            let pieces = result.components(separatedBy: word)
            guard pieces.count > 1 else { continue }
            result = pieces.joined(separator: "\u{1}" + word + "\u{2}")
        }
        return result
    }

    /// The text without its match marks.
    public static func plain(_ marked: String) -> String { marked.filter { $0 != "\u{1}" && $0 != "\u{2}" } }

    /// The text with each match passed through `mark` (and the rest made safe to print).
    public static func styled(_ marked: String, mark: (String) -> String) -> String {
        var result = ""
        var inMatch = false
        var part = ""
        func flush() {
            let safe = SafeText.visible(part)
            result += inMatch ? mark(safe) : safe
            part = ""
        }
        for character in marked {
            switch character {
            case "\u{1}": flush(); inMatch = true
            case "\u{2}": flush(); inMatch = false
            default: part.append(character)
            }
        }
        flush()
        return result
    }

    enum CodingKeys: String, CodingKey { case domain, id, title, snippet, date, command, score }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(snippet, forKey: .snippet)
        try container.encode(date, forKey: .date)
        try container.encode(command, forKey: .command)
        try container.encode(score, forKey: .score)
    }
}

/// What can go wrong searching (beyond the storage's own errors).
public enum SearchError: BradOSError, Equatable {
    case emptyQuery
    case badQuery(query: String, reason: String)
    case tooManyTerms(Int)
    case tooSlow(query: String, seconds: Int)

    public var summary: String {
        switch self {
        case .emptyQuery: "the search query is empty"
        case let .badQuery(query, reason):
            "the search query \(Self.shown(query)) is not valid FTS5 query syntax (\(SafeText.visible(reason)))"
        case let .tooManyTerms(count):
            "the search query has \(count) terms; at most \(SearchQuery.maximumTerms) are searched"
        case let .tooSlow(query, seconds):
            "the search query \(Self.shown(query)) was stopped after \(seconds) s"
        }
    }

    public var recovery: String? {
        switch self {
        case .emptyQuery: "Give the words to look for: brados search protein"
        case .badQuery:
            "Quote words that hold punctuation (brados search --syntax '\"don't\"'), or drop --syntax to search for the words as they are. See `brados search --help` for the syntax."
        case .tooManyTerms:
            "Keep the few words that matter most: every result must hold each of them."
        case .tooSlow:
            "Use fewer terms, fewer prefixes (blu*) and fewer OR/NEAR groups, or narrow it with --domain."
        }
    }

    public var kind: FailureKind { .usage }

    /// A query in a message: quoted, and cut when long.
    static func shown(_ query: String) -> String {
        let visible = SafeText.visible(query)
        return "'" + (visible.count > 60 ? String(visible.prefix(57)) + "…" : visible) + "'"
    }
}
