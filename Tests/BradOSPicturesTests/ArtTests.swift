@testable import BradOSCore
@testable import BradOSPictures
import BradOSTerminal
import CArtLoader
import Foundation
import TestSupport
import Testing

/// Pictures: decoding, drawing through Chafa (symbols against stored expected text; the
/// kitty, iTerm2 and sixel sequences' framing), the layouts, the braille plot, and how the
/// mode is chosen.
@Suite("Art")
struct ArtTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/art")

    static func fixture(_ name: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(name)) }

    /// Compares `text` with the stored `name`; `BRADOS_UPDATE_EXPECTED=1` writes it instead
    /// (then the change shows in review as a diff of that file).
    static func expectStored(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = fixtures.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["BRADOS_UPDATE_EXPECTED"] == "1" {
            try Data(text.utf8).write(to: url)
            return
        }
        let stored = try String(contentsOf: url, encoding: .utf8)
        #expect(text == stored, "drawing differs from \(name); run with BRADOS_UPDATE_EXPECTED=1 to accept it", sourceLocation: sourceLocation)
    }

    /// ESC shown as ␛, so a stored drawing with colours reads in a diff.
    static func visible(_ text: String) -> String { text.replacingOccurrences(of: "\u{1B}", with: "␛") }

    static func choice(_ drawing: ArtProtocol?, colours: ArtColours = .truecolor, passthrough: Bool = false,
                       cell: (Int, Int)? = nil) -> ArtChoice {
        ArtChoice(drawing: drawing, colours: colours, tmuxPassthrough: passthrough, cellWidth: cell?.0, cellHeight: cell?.1, reason: "test")
    }

    // MARK: decoding

    @Test("PNG and JPEG decode to their size; a JPEG decodes at a smaller scale when fewer pixels are needed")
    func decodes() throws {
        let png = try Picture(decoding: try Self.fixture("cover.png"))
        #expect(png.width == 128 && png.height == 128)
        let jpeg = try Picture(decoding: try Self.fixture("cover.jpg"))
        #expect(jpeg.width == 128 && jpeg.height == 128)
        let scaled = try Picture(decoding: try Self.fixture("cover.jpg"), minSide: 30)
        #expect(scaled.width == 32 && scaled.height == 32, "1/4 is the smallest scale with sides ≥ 30")
    }

    @Test("bytes that are not an image, a truncated PNG, a corrupt JPEG and an oversized header are refused with ArtError")
    func refusesBadImages() throws {
        #expect(throws: ArtError.unknownFormat) { try Picture(decoding: Data("not an image".utf8)) }
        #expect(throws: ArtError.unknownFormat) { try Picture(decoding: Data()) }
        #expect { try Picture(decoding: try Self.fixture("truncated.png")) } throws: { error in
            guard case .corrupt = error as? ArtError else { return false }
            return true
        }
        var jpeg = try Self.fixture("cover.jpg")
        jpeg = jpeg.prefix(40) + Data(repeating: 0x55, count: 200)
        #expect { try Picture(decoding: jpeg) } throws: { error in
            guard case .corrupt = error as? ArtError else { return false }
            return true
        }
        // A PNG header (with its checksum right) that claims 100,000 × 100,000 pixels: refused
        // before any pixel is allocated.
        var huge = try Self.fixture("cover.png")
        huge.replaceSubrange(16..<24, with: [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0])
        let crc = Self.crc32(huge[12..<29])
        huge.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(throws: ArtError.tooLarge) { try Picture(decoding: huge) }
    }

    @Test("a JPEG with a warning still decodes, as viewers show it: bytes before a marker, a premature end")
    func jpegWarningsDecode() throws {
        let jpeg = try Self.fixture("cover.jpg")
        let scan = try #require(jpeg.indices.dropLast().first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        var extraneous = jpeg
        extraneous.insert(contentsOf: [0x00, 0x11, 0x22], at: scan)
        #expect(try Picture(decoding: extraneous).width == 128)
        #expect(try Picture(decoding: jpeg.prefix(jpeg.count - 600)).width == 128)
    }

    /// CRC-32 (PNG's, ISO 3309), for a changed chunk.
    static func crc32(_ bytes: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    // MARK: drawing

    @Test("symbols at 40×20: the drawing equals the stored text, with truecolor and without colour")
    func symbolsMatchStoredText() throws {
        let picture = try Picture(decoding: try Self.fixture("cover.png"))
        let colour = try ArtPainter.draw(picture, in: (40, 20), choice: Self.choice(.symbols))
        #expect(colour.columns == 40 && colour.rows == 20 && colour.lines.count == 20 && !colour.isPixels)
        try Self.expectStored(Self.visible(colour.lines.joined(separator: "\n")) + "\n", "cover-symbols-truecolor-40x20.txt")
        let plain = try ArtPainter.draw(picture, in: (40, 20), choice: Self.choice(.symbols, colours: .none))
        let text = plain.lines.joined(separator: "\n")
        #expect(!text.contains("\u{1B}"), "no escape sequence without colour")
        try Self.expectStored(text + "\n", "cover-symbols-plain-40x20.txt")
    }

    @Test("a picture keeps its shape: a 2:1 image in a 40×40 box is 40×10 cells; a square one 40×20")
    func keepsShape() throws {
        let wide = try Picture(decoding: try Self.fixture("wide.png"))
        let drawn = try ArtPainter.draw(wide, in: (40, 40), choice: Self.choice(.symbols))
        #expect(drawn.columns == 40 && drawn.rows == 10)
        let square = ArtPainter.fit(width: 100, height: 100, in: (40, 40), choice: Self.choice(.symbols))
        #expect(square.columns == 40 && square.rows == 20)
    }

    @Test("kitty: APC sequences `ESC _G … ESC \\`, the first with a=T and the size, chunks of at most 4096 base64 bytes, the last m=0, the payload the pixels")
    func kittyFraming() throws {
        let picture = try Picture(decoding: try Self.fixture("cover.png"))
        let drawn = try ArtPainter.draw(picture, in: (10, 5), choice: Self.choice(.kitty, cell: (8, 16)))
        #expect(drawn.isPixels && drawn.columns == 10 && drawn.rows == 5)
        let text = drawn.lines.joined()
        let sequences = text.components(separatedBy: "\u{1B}\\").dropLast()
        #expect(sequences.count >= 2)
        var pixels = Data()
        for (index, sequence) in sequences.enumerated() {
            #expect(sequence.hasPrefix("\u{1B}_G"), "sequence \(index) starts with ESC _G")
            let body = sequence.dropFirst(3)
            let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            let keys = parts[0].split(separator: ",")
            if index == 0 { #expect(keys.contains("a=T") && keys.contains { $0.hasPrefix("s=") } && keys.contains { $0.hasPrefix("v=") }) }
            #expect(keys.contains(index == sequences.count - 1 ? "m=0" : "m=1"), "chunk \(index): \(keys)")
            let chunk = parts.count > 1 ? String(parts[1]) : ""
            #expect(chunk.count <= 4096 && chunk.count % 4 == 0)
            // Each chunk is base64 on its own (kitty decodes chunk by chunk).
            if !chunk.isEmpty { pixels += try #require(Data(base64Encoded: chunk), "chunk \(index) is base64") }
        }
        let header = sequences[0].dropFirst(3).split(separator: ";")[0].split(separator: ",")
        func value(_ key: String) -> Int? { header.first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } }
        let width = try #require(value("s")), height = try #require(value("v")), format = try #require(value("f"))
        #expect(pixels.count == width * height * format / 8, "the payload is the \(width)×\(height) pixels")
    }

    @Test("sixel: one DCS `ESC P … q … ESC \\` with raster attributes and colour registers; iTerm2: OSC 1337 File=inline=1 with the base64 image")
    func sixelAndITermFraming() throws {
        let picture = try Picture(decoding: try Self.fixture("cover.png"))
        let sixel = try ArtPainter.draw(picture, in: (10, 5), choice: Self.choice(.sixel, cell: (8, 16))).lines.joined()
        #expect(sixel.hasPrefix("\u{1B}P"), "\(Self.visible(String(sixel.prefix(20))))")
        #expect(sixel.hasSuffix("\u{1B}\\"))
        let introducer = try #require(sixel.firstIndex(of: "q"))
        #expect(sixel[sixel.index(sixel.startIndex, offsetBy: 2)..<introducer].allSatisfy { $0.isNumber || $0 == ";" })
        #expect(sixel.contains("\"1;1;") && sixel.contains("#0;2;"), "raster attributes and an RGB colour register")
        #expect(sixel.dropFirst(2).dropLast(2).contains("\u{1B}") == false, "one sequence")
        // An image gets every colour, whatever TERM says of the text's (xterm's is 16).
        let palette = try ArtPainter.draw(picture, in: (10, 5), choice: Self.choice(.sixel, colours: .indexed16, cell: (8, 16))).lines.joined()
        #expect(palette.contains("#16;2;"), "more than the 16 colours of TERM=xterm's text")

        let iterm = try ArtPainter.draw(picture, in: (10, 5), choice: Self.choice(.iterm, cell: (8, 16))).lines.joined()
        #expect(iterm.hasPrefix("\u{1B}]1337;File=inline=1;"), "\(Self.visible(String(iterm.prefix(40))))")
        #expect(iterm.hasSuffix("\u{07}") || iterm.hasSuffix("\u{1B}\\"))
        let body = try #require(iterm.split(separator: ":", maxSplits: 1).last)
        #expect(Data(base64Encoded: String(body.dropLast(body.hasSuffix("\u{07}") ? 1 : 2))) != nil, "the image is base64")
    }

    @Test("inside tmux a pixel image is wrapped in passthrough, every ESC doubled (kitty: one wrap a chunk)")
    func tmuxPassthrough() throws {
        let picture = try Picture(decoding: try Self.fixture("cover.png"))
        let plain = try ArtPainter.draw(picture, in: (10, 5), choice: Self.choice(.kitty, cell: (8, 16))).lines.joined()
        let wrapped = try ArtPainter.draw(picture, in: (10, 5), choice: Self.choice(.kitty, passthrough: true, cell: (8, 16))).lines.joined()
        let chunks = plain.components(separatedBy: "\u{1B}\\").count - 1
        #expect(wrapped.components(separatedBy: "\u{1B}Ptmux;").count - 1 == chunks)
        let unwrapped = wrapped.components(separatedBy: "\u{1B}Ptmux;").dropFirst().map { part in
            String(part.dropLast(2)).replacingOccurrences(of: "\u{1B}\u{1B}", with: "\u{1B}")
        }.joined()
        #expect(unwrapped == plain)
    }

    @Test("the placeholder is a frame of the size asked with the mark in its middle, in plain text")
    func placeholder() {
        let drawn = ArtPainter.placeholder(columns: 9, rows: 5, mark: "♪")
        #expect(drawn.lines == ["┌───────┐", "│       │", "│   ♪   │", "│       │", "└───────┘"])
        #expect(!drawn.isPixels)
    }

    // MARK: layout

    @Test("beside: symbol rows and text rows joined row by row; above: the picture, then the text")
    func besideAndAbove() {
        let drawing = ArtDrawing(lines: ["AA", "BB", "CC"], columns: 2, rows: 3, isPixels: false)
        #expect(ArtLayout.beside(drawing, lines: ["one", "two"], gap: 1) == "AA one\nBB two\nCC\n")
        #expect(ArtLayout.beside(drawing, lines: ["1", "2", "3", "4"], gap: 1) == "AA 1\nBB 2\nCC 3\n   4\n")
        #expect(ArtLayout.above(drawing, lines: ["x"]) == "AA\nBB\nCC\nx\n")
    }

    @Test("beside a pixel image: room made, cursor saved, image, cursor restored, text moved right, then below the image")
    func besidePixels() {
        let drawing = ArtDrawing(lines: ["<image>"], columns: 4, rows: 3, isPixels: true)
        let text = ArtLayout.beside(drawing, lines: ["a", "b"], gap: 2)
        #expect(text == "\n\n\n\u{1B}[3A\u{1B}7<image>\u{1B}8\u{1B}[6Ca\n\u{1B}[6Cb\n\u{1B}[1B")
    }

    @Test("grid: covers side by side in their slots, captions cut to the slot under them, rows of perRow")
    func grid() {
        let a = ArtDrawing(lines: ["aa", "aa"], columns: 2, rows: 2, isPixels: false)
        let b = ArtDrawing(lines: ["b", "b"], columns: 1, rows: 2, isPixels: false)
        let text = ArtLayout.grid([(a, "First"), (b, "Second"), (a, "Third")], cell: 3, gap: 1, perRow: 2)
        #expect(text == "aa  b\naa  b\nFir… Sec…\naa\naa\nThi…\n".replacingOccurrences(of: "Fir…", with: "Fi…")
            .replacingOccurrences(of: "Sec…", with: "Se…").replacingOccurrences(of: "Thi…", with: "Th…"))
    }

    @Test("a caption is cut to its slot by the columns it takes: wide characters count two")
    func wideCaptions() {
        let a = ArtDrawing(lines: ["aa"], columns: 2, rows: 1, isPixels: false)
        let text = ArtLayout.grid([(a, "日本語テキスト"), (a, "ab")], cell: 5, gap: 1, perRow: 2)
        #expect(text == "aa    aa\n日本… ab\n")
    }

    // MARK: plot

    @Test("the braille plot equals the stored text: a solid line, a dotted one, the dashed reference and the labels")
    func braillePlot() throws {
        let plot = BraillePlot(
            series: [.init(points: [(0, 90), (10, 88), (20, 88.5), (30, 86)], stroke: .solid, style: .cyan),
                     .init(points: [(30, 86), (35, 85)], stroke: .dotted, style: .yellow)],
            reference: (78, "target 78"), width: 30, height: 6,
            valueLabel: { String(format: "%.0f", $0) }, timeLabel: { "d\(Int($0))" }, lastLabel: "85 kg")
        let plain = plot.render(colours: false)
        #expect(!plain.joined().contains("\u{1B}"))
        try Self.expectStored(plain.joined(separator: "\n") + "\n", "plot-30x6.txt")
        let coloured = SafeText.rendered(plot.render(colours: true).joined(separator: "\n"), keepLines: true)
        #expect(coloured.contains("\u{1B}[36m") && coloured.contains("\u{1B}[33m") && coloured.contains("\u{1B}[2m"))
        #expect(BraillePlot(series: [.init(points: [(0, 1)])], width: 3, height: 1, valueLabel: { "\($0)" }, timeLabel: { "\($0)" })
            .render(colours: false).isEmpty, "too small to draw")
    }

    @Test("sparkline: eight heights from the lowest to the highest value, a gap for nil, a flat middle for one value")
    func sparkline() {
        #expect(Sparkline.render([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█")
        #expect(Sparkline.render([1, nil, 8]) == "▁ █")
        #expect(Sparkline.render([5, 5]) == "▄▄")
        #expect(Sparkline.render([nil, nil]) == "  ")
    }

    // MARK: choosing the mode

    static func detect(_ environment: [String: String], requested: ArtMode = .auto, terminal: Bool = true, json: Bool = false,
                       answer: String? = nil, asked: Locked<[String]>? = nil, cell: (width: Int, height: Int)? = (8, 16)) -> ArtChoice {
        let query: (@Sendable (String, @Sendable (String) -> Bool, Duration) -> String?)? = answer.map { answer in
            { @Sendable request, _, _ in asked?.withLock { $0.append(request) }; return answer.isEmpty ? nil : answer }
        }
        return ArtDetector(requested: requested, requestedBy: requested == .auto ? "auto" : "--art", environment: environment,
                           isTerminal: terminal, json: json, query: query, cellPixels: cell).choose()
    }

    @Test("never a picture with --json, through a pipe (unless symbols were asked: then without colour), or with none")
    func noPicture() {
        #expect(Self.detect(["TERM": "xterm-kitty"], json: true).drawing == nil)
        #expect(Self.detect(["TERM": "xterm-kitty"], terminal: false).drawing == nil)
        #expect(Self.detect(["TERM": "xterm-kitty"], requested: .kitty, terminal: false).drawing == nil)
        let piped = Self.detect(["TERM": "xterm-kitty"], requested: .symbols, terminal: false)
        #expect(piped.drawing == .symbols && piped.colours == .none && !piped.writesEscapes)
        let forced = Self.detect(["TERM": "xterm-256color", "CLICOLOR_FORCE": "1"], requested: .symbols, terminal: false)
        #expect(forced.drawing == .symbols && forced.colours == .indexed256, "CLICOLOR_FORCE colours a pipe")
        #expect(Self.detect(["TERM": "xterm-kitty"], requested: .none).drawing == nil)
        #expect(Self.detect(["TERM": "dumb"]).drawing == nil)
    }

    @Test("the environment decides first: kitty, Ghostty, iTerm2, WezTerm, foot, mlterm; NO_COLOR makes symbols colourless")
    func fromEnvironment() {
        #expect(Self.detect(["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]).drawing == .kitty)
        #expect(Self.detect(["TERM": "xterm-kitty"]).drawing == .kitty)
        #expect(Self.detect(["TERM": "xterm-ghostty"]).drawing == .kitty)
        #expect(Self.detect(["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"]).drawing == .iterm)
        #expect(Self.detect(["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"]).drawing == .iterm)
        #expect(Self.detect(["TERM": "foot"]).drawing == .sixel)
        #expect(Self.detect(["TERM": "mlterm"]).drawing == .sixel)
        let noColour = Self.detect(["TERM": "xterm-256color", "NO_COLOR": "1"], requested: .symbols)
        #expect(noColour.drawing == .symbols && noColour.colours == .none && !noColour.writesEscapes)
        #expect(Self.detect(["TERM": "xterm-256color", "COLORTERM": "truecolor"], requested: .symbols).colours == .truecolor)
        #expect(Self.detect(["TERM": "xterm-256color"], requested: .symbols).colours == .indexed256)
        #expect(Self.detect(["TERM": "xterm"], requested: .symbols).colours == .indexed16)
    }

    @Test("then the terminal's answer: kitty's OK means kitty; DA1 with 4 means sixel; a DA1 without, or silence, means symbols")
    func fromTheTerminal() {
        let asked = Locked<[String]>([])
        let kitty = Self.detect(["TERM": "xterm-256color"], answer: "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;22c", asked: asked)
        #expect(kitty.drawing == .kitty && kitty.reason.contains("kitty's graphics query"))
        #expect(asked.value.first?.hasSuffix("\u{1B}[c") == true, "DA1 follows kitty's query")
        let sixel = Self.detect(["TERM": "xterm"], answer: "\u{1B}[?63;1;2;4;6;9;15;22c")
        #expect(sixel.drawing == .sixel && sixel.reason.contains("DA1"))
        #expect(Self.detect(["TERM": "xterm"], answer: "\u{1B}[?1;2c").drawing == .symbols)
        let silent = Self.detect(["TERM": "xterm"], answer: "")
        #expect(silent.drawing == .symbols && silent.reason.contains("did not answer"))
        #expect(Self.detect(["TERM": "xterm"]).drawing == .symbols, "no terminal to ask")
        let console = Locked<[String]>([])
        #expect(Self.detect(["TERM": "linux"], answer: "\u{1B}[?62;4c", asked: console).drawing == .symbols)
        #expect(console.value.isEmpty, "the Linux console is not asked")
    }

    @Test("sixel needs the cell's pixel size: from the window size, else `CSI 16 t`, else symbols")
    func sixelNeedsTheCellSize() {
        let asked = Locked<[String]>([])
        let reported = Self.detect(["TERM": "foot"], answer: "\u{1B}[6;18;9t\u{1B}[?62;4c", asked: asked, cell: nil)
        #expect(reported.drawing == .sixel && reported.cellWidth == 9 && reported.cellHeight == 18)
        #expect(asked.value == ["\u{1B}[16t\u{1B}[c"])
        let unknown = Self.detect(["TERM": "foot"], answer: "\u{1B}[?62;4c", cell: nil)
        #expect(unknown.drawing == .symbols && unknown.reason.contains("cell size"))
        #expect(Self.detect(["TERM": "xterm-kitty"], cell: nil).drawing == .kitty, "kitty places images in cells")
    }

    @Test("inside tmux or screen: symbols, and the terminal is not asked; a pixel mode asked by name goes through tmux's passthrough")
    func insideMultiplexers() {
        let asked = Locked<[String]>([])
        let tmux = Self.detect(["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "KITTY_WINDOW_ID": "1"], answer: "\u{1B}[?62;4c", asked: asked)
        #expect(tmux.drawing == .symbols && tmux.reason.contains("tmux") && asked.value.isEmpty)
        let forced = Self.detect(["TERM": "tmux-256color", "TMUX": "x"], requested: .kitty)
        #expect(forced.drawing == .kitty && forced.tmuxPassthrough, "unknown: sent through")
        let off = ArtDetector(requested: .sixel, requestedBy: "--art", environment: ["TERM": "tmux-256color", "TMUX": "x"], isTerminal: true,
                              json: false, tmuxAllowsPassthrough: { false }).choose()
        #expect(off.drawing == .symbols && off.reason.contains("allow-passthrough is off"))
        let on = ArtDetector(requested: .sixel, requestedBy: "--art", environment: ["TERM": "tmux-256color", "TMUX": "x"], isTerminal: true,
                             json: false, cellPixels: (8, 16), tmuxAllowsPassthrough: { true }).choose()
        #expect(on.drawing == .sixel && on.tmuxPassthrough)
        #expect(Self.detect(["TERM": "screen", "STY": "1.pts"], requested: .sixel).drawing == .symbols)
        #expect(Self.detect(["TERM": "screen.xterm-256color", "STY": "1.pts"]).drawing == .symbols)
    }
}

/// The advice brados gives when a picture library is missing: the package for this system,
/// said once a command.
@Suite("Pictures: missing libraries")
struct ArtMissingLibraryTests {
    @Test("the package to install is the distribution's: Debian's names, Ubuntu's libturbojpeg (and on systems built on Ubuntu)")
    func packageNames() {
        let debian = OSRelease.parse("PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nID=debian\nVERSION_CODENAME=trixie\n")
        let ubuntu = OSRelease.parse("ID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=noble\n")
        let mint = OSRelease.parse("ID=linuxmint\nID_LIKE='ubuntu debian'\n")
        #expect(debian["VERSION_CODENAME"] == "trixie" && mint["ID_LIKE"] == "ubuntu debian")
        #expect(ArtLibraries.package(CART_LIB_TURBOJPEG, osRelease: debian) == "libturbojpeg0")
        #expect(ArtLibraries.package(CART_LIB_TURBOJPEG, osRelease: ubuntu) == "libturbojpeg")
        #expect(ArtLibraries.package(CART_LIB_TURBOJPEG, osRelease: mint) == "libturbojpeg")
        let fedora = OSRelease.parse("ID=fedora\nVERSION_ID=41\n")
        #expect(ArtLibraries.package(CART_LIB_TURBOJPEG, osRelease: fedora) == nil, "no apt name where apt is not")
        #expect(ArtLibraries.package(CART_LIB_CHAFA, osRelease: [:]) == nil)
        for fields in [debian, ubuntu] {
            #expect(ArtLibraries.package(CART_LIB_CHAFA, osRelease: fields) == "libchafa0")
            #expect(ArtLibraries.package(CART_LIB_PNG, osRelease: fields) == "libpng16-16")
        }
        #expect(ArtLibraries.advice(soname: "libchafa.so.0", osRelease: debian) == "Install it with `sudo apt install libchafa0`.")
        #expect(ArtLibraries.advice(soname: "libturbojpeg.so.0", osRelease: ubuntu) == "Install it with `sudo apt install libturbojpeg`.")
        #expect(ArtLibraries.advice(soname: "libturbojpeg.so.0", osRelease: fedora)
                == "Install your distribution's libjpeg-turbo (TurboJPEG) package (it provides libturbojpeg.so.0).")
        #expect(ArtError.missingLibrary(soname: "libchafa.so.0", detail: "not found").kind == .general)
    }

    @Test("a missing library is said once a command, whatever number of covers fall back; other failures say nothing")
    func saidOnce() {
        let io = CapturingIO(environment: [:])
        let notices = ArtNotices(output: Output(io: io, format: .human))
        for _ in 0..<12 { notices.report(.missingLibrary(soname: "libchafa.so.0", detail: "gone")) }
        notices.report(.corrupt(detail: "bad"))
        notices.report(.tooLarge)
        #expect(io.stderr.components(separatedBy: "covers are drawn as placeholders").count - 1 == 1, "\(io.stderr)")
        notices.report(.missingLibrary(soname: "libturbojpeg.so.0", detail: "gone"))
        #expect(io.stderr.components(separatedBy: "covers are drawn as placeholders").count - 1 == 2, "another library is another notice")
        #expect(io.stdout.isEmpty)
    }
}
