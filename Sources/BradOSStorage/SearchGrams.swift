/// The search index's words for text written without spaces, and for emoji: what SQLite's
/// `unicode61` tokenizer cannot find.
///
/// `unicode61` makes a whole run of Chinese, Japanese, Korean or Thai characters one token
/// (東京駅前クリニック), so no word inside it is found, and it drops emoji. The index keeps a
/// second pair of columns (`title_grams`, `body_grams`) holding, for each such run, its
/// overlapping bigrams and its last character alone, as Lucene's CJKAnalyzer does
/// (東京駅前 → 東京 京駅 駅前 前), and each emoji as a token of its own (its code points, without
/// skin tone or presentation selector, so 👍 finds 👍🏽). A query word of two or more such
/// characters is the phrase of its bigrams there (東京駅 → "東京 京駅"), found wherever it
/// occurs inside a run, and ranked by the same bm25 as other words; a single character is the
/// prefix of a bigram (駅*), which finds it anywhere, a run's last character included.
///
/// Why bigrams and not FTS5's trigram tokenizer: trigrams find nothing shorter than three
/// characters, and the commonest Chinese and Japanese words are two (東京, 北京, 体检); a trigram
/// table would also change how every other word is found and ranked (no words, no prefixes)
/// and triple the index. Text in spaced scripts is not here at all: those words stay as they were.
public enum SearchGrams {
    /// The grams of `text`: bigrams and last characters of its unspaced runs, emoji tokens;
    /// empty for text that has neither (most text: nothing is added to the index for it).
    public static func of(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return "" }
        var tokens: [String] = []
        var run: [Character] = []
        func endRun() {
            guard !run.isEmpty else { return }
            for index in 0..<(run.count - 1) { tokens.append(String(run[index]) + String(run[index + 1])) }
            tokens.append(String(run[run.count - 1]))
            run.removeAll()
        }
        for character in text {
            if isUnspaced(character) {
                run.append(character)
            } else {
                endRun()
                if let emoji = emojiToken(character) { tokens.append(emoji) }
            }
        }
        endRun()
        // SQLite's tokenizer predates the isolates (U+2066–U+2069) and takes them for letters:
        // "⁨Dr. Cohen⁩" would be the words "⁨dr" and "cohen⁩". Its words without them, here.
        if text.unicodeScalars.contains(where: isBidiFormat) {
            tokens.append(String(String.UnicodeScalarView(text.unicodeScalars.map { isBidiFormat($0) ? " " : $0 })))
        }
        return tokens.joined(separator: " ")
    }

    /// The bidirectional formatting characters: LRM, RLM, ALM, embeddings, overrides, isolates.
    static func isBidiFormat(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The FTS5 query of one word the person typed (no spaces in it) when it holds unspaced
    /// characters or emoji: a phrase over the grams columns, with the word's other parts
    /// (`abc東京`: abc) required as prefixes in the text; `nil` for any other word.
    public static func query(word: String) -> String? {
        guard !word.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var grams: [String] = []
        var others: [String] = []
        var run: [Character] = []
        var other = ""
        func endRun() {
            guard !run.isEmpty else { return }
            if run.count == 1 {
                grams.append(String(run[0]) + "*")
            } else {
                for index in 0..<(run.count - 1) { grams.append(String(run[index]) + String(run[index + 1])) }
            }
            run.removeAll()
        }
        func endOther() {
            // Only letters and digits: what unicode61 keeps of the rest.
            let kept = String(other.unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil })
            if !kept.isEmpty { others.append(kept) }
            other = ""
        }
        for character in word {
            if isUnspaced(character) {
                endOther()
                run.append(character)
            } else if let emoji = emojiToken(character) {
                endOther()
                endRun()
                grams.append(emoji)
            } else {
                endRun()
                other.append(character)
            }
        }
        endRun()
        endOther()
        guard !grams.isEmpty else { return nil }
        // A phrase of bigrams; a lone character's prefix stands on its own (FTS5 has no prefix inside a phrase but the last).
        var parts: [String] = []
        var phrase: [String] = []
        for gram in grams {
            if gram.hasSuffix("*") {
                if !phrase.isEmpty { parts.append(quoted(phrase)) }
                phrase = []
                parts.append("\"" + String(gram.dropLast()).replacingOccurrences(of: "\"", with: "\"\"") + "\"*")
            } else {
                phrase.append(gram)
            }
        }
        if !phrase.isEmpty { parts.append(quoted(phrase)) }
        let grammed = parts.map { "{title_grams body_grams} : " + $0 }
        let texts = others.map { "{title body} : \"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
        let all = grammed + texts
        // One part stands as it is (FTS5 takes `{cols} : "…" "next"`, not `(…) "next"`).
        return all.count == 1 ? all[0] : "(" + all.joined(separator: " AND ") + ")"
    }

    static func quoted(_ tokens: [String]) -> String {
        "\"" + tokens.joined(separator: " ").replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A character of a script written without spaces between words: Han, kana, Hangul,
    /// bopomofo, Thai, Lao, Khmer, Myanmar.
    static func isUnspaced(_ character: Character) -> Bool {
        guard let value = character.unicodeScalars.first?.value, value >= 0x1000 || (0x0E00...0x0EFF).contains(value) else { return false }
        switch value {
        case 0x0E00...0x0EFF, 0x1000...0x109F, 0x1100...0x11FF, 0x1780...0x17FF, 0x2E80...0x2FDF, 0x3005...0x3007, 0x3021...0x3029,
             0x3031...0x3035, 0x3040...0x30FF, 0x3100...0x318F, 0x31A0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA960...0xA97F,
             0xAC00...0xD7FF, 0xF900...0xFAFF, 0xFF66...0xFFDC, 0x20000...0x3FFFF:
            return true
        default:
            return false
        }
    }

    /// An emoji's token: `emoji` and its code points in hex, without VS15/VS16 and skin tones
    /// (a keycap's digit is a digit, not an emoji, unless it has its keycap).
    static func emojiToken(_ character: Character) -> String? {
        let scalars = character.unicodeScalars
        guard let first = scalars.first, first.properties.isEmoji else { return nil }
        let pictured = first.properties.isEmojiPresentation || scalars.contains { $0.value == 0xFE0F || $0.value == 0x20E3 || $0.value == 0x200D }
            || (0x1F1E6...0x1F1FF).contains(first.value)
        guard pictured else { return nil }
        let kept = scalars.filter { $0.value != 0xFE0F && $0.value != 0xFE0E && !(0x1F3FB...0x1F3FF).contains($0.value) }
        return "emoji" + kept.map { String($0.value, radix: 16) }.joined(separator: "x")
    }
}
