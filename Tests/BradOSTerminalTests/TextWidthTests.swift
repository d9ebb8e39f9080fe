import Testing
@testable import BradOSTerminal

/// Cutting and wrapping by grapheme cluster, CJK line breaking with kinsoku, and bidirectional
/// formatting kept to its field.
@Suite("Text width: clusters, CJK wrapping, bidirectional text")
struct TextWidthTests {
    let family = "👨‍👩‍👧‍👦"

    @Test("a joined emoji, a flag, a keycap and VS16 are one cluster of two columns; VS15 one")
    func clusters() {
        #expect(TextWidth.of(family) == 2)
        #expect(TextWidth.of("🇯🇵🇨🇳") == 4)
        #expect(TextWidth.of("1️⃣") == 2)
        #expect(TextWidth.of("☺️") == 2 && TextWidth.of("☺︎") == 1 && TextWidth.of("⌚︎") == 1)
        #expect(TextWidth.of("👍🏽") == 2)
        #expect(TextWidth.of("é") == 1 && TextWidth.of("東京") == 4 && TextWidth.of("क्षि") == 3)
    }

    @Test("cutting never leaves a dangling joiner or half a flag")
    func cutting() {
        let row = "Family \(family)\(family) trip"
        let cut = TextWidth.truncate(row, to: 10)
        #expect(cut == "Family \(family)…", "\(cut.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(!cut.contains("\u{200D}…"))
        let flags = TextWidth.truncate("🇯🇵🇨🇳🇰🇷🇹🇼", to: 6)
        #expect(flags == "🇯🇵🇨🇳…" && flags.unicodeScalars.filter { (0x1F1E6...0x1F1FF).contains($0.value) }.count == 4)
        for width in 1...12 {
            let (head, tail) = TextWidth.split(family + "🇯🇵" + family, at: width)
            #expect(head.count + tail.count == 3, "split at \(width) keeps clusters whole")
        }
    }

    @Test("Japanese wraps between characters, never starting a line with 、。？ nor ending one with 「")
    func kinsoku() {
        let text = "東京駅前クリニックで血液検査を受けました。結果は来週わかります？「ランニング」は続けてください、と言われました。"
        for width in 10...40 {
            let lines = TextWidth.wrap(text, width: width)
            #expect(lines.joined() == text, "nothing lost at \(width)")
            for line in lines {
                #expect(TextWidth.of(line) <= width, "\(line) at \(width)")
                #expect(!"、。，．？！）」』".contains(line.first!), "a line starts with \(line.first!) at \(width)")
                #expect(!"（「『".contains(line.last!), "a line ends with \(line.last!) at \(width)")
            }
        }
        // Spaced scripts still break at spaces only, and a closing mark after a space stays.
        #expect(TextWidth.wrap("see f(x) and --flag=[a] now", width: 12) == ["see f(x) and", "--flag=[a]", "now"])
        #expect(TextWidth.wrap("Hello world !", width: 11) == ["Hello", "world !"])
    }

    @Test("a wrapped prose line in Japanese stays within the width, under its own text")
    func softWrapJapanese() {
        let line = "  note: 東京駅前クリニックで血液検査を受けました。結果は来週わかります。"
        let wrapped = TextWidth.softWrap(line, width: 40).split(separator: "\n").map(String.init)
        #expect(wrapped.count == 2 && wrapped.allSatisfy { TextWidth.of($0) <= 40 }, "\(wrapped)")
        #expect(wrapped[1].hasPrefix(String(repeating: " ", count: 8)) && !wrapped[1].dropFirst(8).hasPrefix(" "))
    }

    @Test("isolates and LRM pass, overrides are shown, and a field closes the isolates it opens")
    func bidi() {
        let place = "מרפאה \u{2068}Dr. Cohen\u{2069}"
        #expect(SafeText.visible(place) == place)
        #expect(SafeText.visible("a\u{200F}b\u{200E}") == "a\u{200F}b\u{200E}")
        #expect(SafeText.visible("x\u{202E}y") == "x<U+202E>y")
        #expect(SafeText.visible("open \u{2067}שלום") == "open \u{2067}שלום\u{2069}")
        #expect(SafeText.visible("a\u{2066}b\nc", keepLines: true) == "a\u{2066}b\u{2069}\nc")
        let cut = TextWidth.truncate("מרפאה \u{2068}Dr. Cohen of Tel Aviv\u{2069}", to: 12)
        #expect(cut.unicodeScalars.filter { $0 == "\u{2068}" }.count == cut.unicodeScalars.filter { $0 == "\u{2069}" }.count, "\(cut)")
        #expect(TextWidth.of(place) == 15, "the isolates take no column")
    }
}
