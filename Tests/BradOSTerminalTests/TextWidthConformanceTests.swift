import Foundation
import Testing
import TestSupport
@testable import BradOSTerminal

/// ``TextWidth`` against text nobody here chose: Unicode's own test files (Debian's
/// unicode-data, /usr/share/unicode) measured by a peer nobody here wrote, Python's `wcwidth`
/// (its `wcswidth`, grapheme-aware since 0.3), and Unicode's line-break test cases.
@Suite("Text width: Unicode's test files against wcwidth and UAX #14", .ownThread)
struct TextWidthConformanceTests {
    static let ucd = URL(fileURLWithPath: "/usr/share/unicode")

    /// What `wcwidth.wcswidth` says of each string (one a line, as code points in hex).
    static func peerWidths(_ strings: [[UInt32]]) throws -> [Int] {
        let folder = TemporaryDirectory("width-peer")
        let input = folder.path("strings.txt")
        try strings.map { $0.map { String($0, radix: 16) }.joined(separator: " ") }.joined(separator: "\n")
            .write(to: input, atomically: true, encoding: .utf8)
        let script = """
            import sys
            try:
                import wcwidth
            except ImportError:
                sys.exit("Python's wcwidth is missing: scripts/ensure-deps.sh installs it (pip install wcwidth)")
            with open(sys.argv[1], encoding="utf-8") as lines:
                for line in lines:
                    print(wcwidth.wcswidth("".join(chr(int(p, 16)) for p in line.split())))
            """
        let result = try BuiltProducts.run(executable: try Self.pipPython(), ["-c", script, input.path], environment: [:], timeout: 300)
        guard result.status == 0 else { throw Failure(what: "python3 wcwidth: \(result.stderr)") }
        return withExtendedLifetime(folder) { result.stdout.split(separator: "\n").map { Int($0) ?? -99 } }
    }

    /// The machine's CPython with pip, first on PATH: where scripts/ensure-deps.sh installs
    /// Python's wcwidth (Debian's python3-wcwidth, 0.2.5, predates grapheme clusters).
    static func pipPython() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/python3") {
            return URL(fileURLWithPath: "\(folder)/python3")
        }
        throw Failure(what: "no python3 on PATH: scripts/ensure-deps.sh names the CPython with pip it needs")
    }

    struct Failure: Error, CustomStringConvertible { let what: String; var description: String { what } }

    static func string(_ points: [UInt32]) -> String {
        var view = String.UnicodeScalarView()
        for point in points { if let scalar = Unicode.Scalar(point) { view.append(scalar) } }
        return String(view)
    }

    /// Every sequence of emoji-test.txt (fully-qualified, minimally-qualified, unqualified and
    /// components): ZWJ sequences, flags, keycaps, skin tones, VS16.
    @Test("every line of emoji-test.txt measures as wcwidth measures it")
    func emojiTest() throws {
        let text = try String(contentsOf: Self.ucd.appendingPathComponent("emoji/emoji-test.txt"), encoding: .utf8)
        let sequences: [[UInt32]] = text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let field = line.split(separator: ";").first else { return nil }
            let points = field.split(separator: " ").compactMap { UInt32($0, radix: 16) }
            return points.isEmpty ? nil : points
        }
        #expect(sequences.count > 4000, "emoji-test.txt read: \(sequences.count) sequences")
        let peer = try Self.peerWidths(sequences)
        var differences: [String] = []
        for (index, points) in sequences.enumerated() {
            let ours = TextWidth.of(Self.string(points))
            if ours != peer[index] { differences.append("\(points.map { String($0, radix: 16) }) brados \(ours), wcwidth \(peer[index])") }
        }
        #expect(differences.isEmpty, "\(differences.count) differences: \(differences.prefix(40))")
    }

    /// Every code point EastAsianWidth.txt lists (but the controls, which brados shows as `^X`
    /// before measuring, and surrogates, which no Swift string holds), each on its own.
    @Test("every code point of EastAsianWidth.txt measures as wcwidth measures it")
    func eastAsianWidth() throws {
        let text = try String(contentsOf: Self.ucd.appendingPathComponent("EastAsianWidth.txt"), encoding: .utf8)
        var points: [UInt32] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let field = line.split(separator: ";").first else { continue }
            let bounds = field.split(separator: ".", omittingEmptySubsequences: true).compactMap { UInt32($0.trimmingCharacters(in: .whitespaces), radix: 16) }
            guard let first = bounds.first else { continue }
            for point in first...(bounds.last ?? first) {
                guard let scalar = Unicode.Scalar(point), scalar.properties.generalCategory != .control else { continue }
                points.append(point)
            }
        }
        #expect(points.count > 250_000, "EastAsianWidth.txt read: \(points.count) code points")
        let peer = try Self.peerWidths(points.map { [$0] })
        // Differences as runs of code points: first...last brados N, wcwidth M.
        var differences: [(first: UInt32, last: UInt32, ours: Int, peer: Int)] = []
        for (index, point) in points.enumerated() {
            let ours = TextWidth.of(Self.string([point]))
            guard ours != peer[index], !Self.argued(point) else { continue }
            if let last = differences.last, last.last + 1 == point, last.ours == ours, last.peer == peer[index] {
                differences[differences.count - 1].last = point
            } else {
                differences.append((point, point, ours, peer[index]))
            }
        }
        let listed = differences.map { "\(String($0.first, radix: 16))..\(String($0.last, radix: 16)) brados \($0.ours), wcwidth \($0.peer)" }
        #expect(differences.isEmpty, "\(differences.count) runs differ: \(listed)")
    }

    /// The code points where brados and wcwidth differ on purpose (none so far).
    static func argued(_ point: UInt32) -> Bool { false }

    /// LineBreakTest.txt's cases whose characters are of the classes brados's wrapping knows —
    /// letters and other AL, ideographs and emoji (ID, drawn wide), spaces, and the kinsoku
    /// classes OP, CL, CP, EX, IS, NS — and each its own cluster: brados may break a line
    /// exactly where Unicode's rules say, with one difference argued: between two narrow
    /// characters that are not spaces (`}#`, `!(`, `a(`, `⁉(`) UAX #14 allows a break and brados
    /// does not. Text of spaced scripts is wrapped at spaces only, as fold, less and every
    /// terminal tool does; a break in `f(x)` or `--flag=[a]` would break what a person copies.
    @Test("brados breaks lines where LineBreakTest.txt does, for the classes it knows")
    func lineBreakTest() throws {
        let classes = try Self.lineBreakClasses()
        let known: Set<String> = ["AL", "ID", "SP", "OP", "CL", "CP", "EX", "IS", "NS"]
        let text = try String(contentsOf: Self.ucd.appendingPathComponent("auxiliary/LineBreakTest.txt"), encoding: .utf8)
        var checked = 0
        var differences: [String] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "#").first?.split(separator: " ").map(String.init) ?? []
            var points: [UInt32] = []
            var expected: [Int] = []
            for field in fields {
                if field == "÷" { if !points.isEmpty { expected.append(points.count) } } else if let point = UInt32(field, radix: 16) { points.append(point) }
            }
            guard !points.isEmpty else { continue }
            expected.removeAll { $0 == points.count } // the end of the text
            // The argued difference: no break between two narrow characters but at a space.
            expected.removeAll { offset in
                guard let before = Unicode.Scalar(points[offset - 1]), let after = Unicode.Scalar(points[offset]) else { return false }
                return before != " " && after != " " && TextWidth.columns(before) == 1 && TextWidth.columns(after) == 1
            }
            // Only the classes brados knows, and wide exactly where Unicode says ideographic.
            let applies = points.allSatisfy { point in
                guard let lineClass = classes[point], known.contains(lineClass), let scalar = Unicode.Scalar(point) else { return false }
                let wide = TextWidth.columns(scalar) == 2
                switch lineClass {
                case "ID": return wide
                case "AL": return !wide
                default: return true
                }
            }
            let string = Self.string(points)
            guard applies, string.count == points.count else { continue }
            checked += 1
            let ours = TextWidth.breakOpportunities(string)
            if ours != expected { differences.append("\(points.map { String($0, radix: 16) }): brados \(ours), Unicode \(expected)") }
        }
        #expect(checked > 250, "LineBreakTest.txt cases that apply: \(checked)")
        #expect(differences.isEmpty, "\(differences.count) of \(checked) differ: \(differences.prefix(30))")
    }

    /// Each code point's line-break class in LineBreak.txt (those it lists).
    static func lineBreakClasses() throws -> [UInt32: String] {
        let text = try String(contentsOf: ucd.appendingPathComponent("LineBreak.txt"), encoding: .utf8)
        var classes: [UInt32: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let data = line.split(separator: "#").first ?? ""
            let parts = data.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count >= 2 else { continue }
            let bounds = parts[0].components(separatedBy: "..").compactMap { UInt32($0, radix: 16) }
            guard let first = bounds.first else { continue }
            for point in first...(bounds.last ?? first) { classes[point] = parts[1] }
        }
        return classes
    }
}
