import Foundation
import Synchronization

/// The reference server's music library: one section, a few hundred albums by realistic
/// artists (some duplicated, as real libraries are), about twenty collections.
/// Deterministic: the same seed always gives the same library.
struct PlexCatalogue: Sendable {
    /// What has a cover: an album, or a collection (whose cover Plex composes from its albums').
    protocol ArtworkSubject: Sendable {
        var ratingKey: String { get }
        /// 0…1: how busy the generated artwork is (drives its compressed size).
        var detail: Double { get }
    }

    struct Album: ArtworkSubject {
        var ratingKey: String
        var title: String
        var artist: String
        var artistKey: String
        var year: Int
        var addedAt: Int
        /// When the album's metadata last changed (Plex bumps it on its own refreshes too).
        var updatedAt: Int
        var trackCount: Int
        var genre: String
        var studio: String
        /// `nil` for the few albums without artwork.
        var thumb: String?
        var art: String?
        /// 0…1: how busy the generated artwork is (drives its compressed size).
        var detail: Double
    }

    struct Collection: ArtworkSubject {
        var ratingKey: String
        var title: String
        var albumKeys: [String]
        var thumb: String?
        var detail: Double { 0.5 }
    }

    let sectionKey = "1"
    let sectionUUID: String
    let machineIdentifier: String
    private(set) var albums: [Album]
    private(set) var collections: [Collection]
    private(set) var albumsByKey: [String: Album]
    /// The music section's change counter, as `/library/sections` reports it: it moves on
    /// every change of the section's content.
    private(set) var contentChangedAt: Int = 1_700_000_000

    /// Six name their albums in their own scripts (``ownWords``), as real libraries hold.
    static let artists = [
        "Miles Davis", "Nina Simone", "Radiohead", "Björk", "Fleetwood Mac", "Kendrick Lamar", "Joni Mitchell",
        "Daft Punk", "Aretha Franklin", "久石譲", "Portishead", "John Coltrane", "Massive Attack", "宇多田ヒカル",
        "The National", "Stevie Wonder", "王菲", "Leonard Cohen", "Bonobo", "Fela Kuti", "Sade", "Arcade Fire",
        "Bill Evans", "Erykah Badu", "Boards of Canada", "Patti Smith", "فيروز", "Nick Drake", "Solange",
        "Tame Impala", "Alice Coltrane", "LCD Soundsystem", "עומר אדם", "Herbie Hancock", "Phoebe Bridgers", "아이유",
        "Sufjan Stevens", "Mulatu Astatke", "Björn Meyer", "Floating Points", "Cocteau Twins", "Bon Iver", "Air",
        "Ella Fitzgerald", "Rosalía",
    ]
    /// The title words of artists who name their albums in their own script; Chinese and
    /// Japanese titles are written without spaces.
    static let ownWords: [String: (words: [String], spaced: Bool)] = [
        "久石譲": (["千と千尋の神隠し", "となりのトトロ", "風の谷", "夏", "東京", "交響曲", "サウンドトラック", "ピアノ"], false),
        "宇多田ヒカル": (["初恋", "東京", "夜", "ファントーム", "光", "ランニング", "ハート", "花束"], false),
        "王菲": (["北京", "天空", "寓言", "浮躁", "唱游", "菲靡靡之音", "夜", "光"], false),
        "아이유": (["꽃갈피", "밤편지", "라일락", "팔레트", "좋은", "날", "봄", "스물셋"], true),
        "فيروز": (["وحدن", "بيروت", "القدس", "في", "البال", "حبيتك", "بالصيف", "شتي"], true),
        "עומר אדם": (["תל", "אביב", "לילה", "שמש", "ים", "אהבה", "בית", "שיר"], true),
    ]
    static let words = [
        "Blue", "Harbor", "Night", "Rooms", "Paper", "Moon", "Golden", "Hour", "Quiet", "Storm", "Electric", "Garden",
        "Winter", "Light", "Silver", "Lines", "Velvet", "Echo", "Northern", "Tides", "Glass", "Houses", "Slow", "Motion",
        "Wild", "Honey", "Distant", "Shores", "Low", "Sun", "Open", "Roads", "Second", "Nature", "Small", "Hours",
    ]
    static let genres = ["Jazz", "Electronic", "Rock", "Soul", "Folk", "Hip-Hop", "Ambient", "Pop", "Afrobeat", "Trip Hop"]
    static let collectionNames = [
        "Late Night Jazz", "Road Trip", "Sunday Morning", "Focus", "Rainy Day", "Desert Island Discs", "Kitchen Dancing",
        "Headphones Only", "Summer 1999", "Deep Listening", "Gym", "Dinner Party", "Afterhours", "First Dates",
        "Vinyl Wishlist", "Lost Weekends", "Cold Mornings", "Golden Era", "Sleep", "Top Rated",
    ]

    /// - Parameters:
    ///   - size: how many albums (benchmarks: `--seed-albums`); a few hundred by default.
    ///     Sized libraries number their titles ("… No. 12") so none are duplicates.
    ///   - addedPerSecond: albums added in each second, one after another (a scan adds a few
    ///     a second, a bulk import thousands in one); `nil`: spread at random over three years.
    init(seed: Int, size: Int? = nil, addedPerSecond: Int? = nil) {
        var random = SplitMix64(seed: UInt64(bitPattern: Int64(seed)) &+ 0x5EED)
        let base = 1_600_000_000
        var albums: [Album] = []
        var key = 1000
        let perArtist = size.map { total in (0..<Self.artists.count).map { total / Self.artists.count + ($0 < total % Self.artists.count ? 1 : 0) } }
        for (artistIndex, artist) in Self.artists.enumerated() {
            let count = perArtist?[artistIndex] ?? 5 + Int(random.next() % 4)
            for number in 0..<count {
                key += 1
                let (words, spaced) = Self.ownWords[artist] ?? (Self.words, true)
                var title = words[Int(random.next() % UInt64(words.count))] + (spaced ? " " : "") + words[Int(random.next() % UInt64(words.count))]
                if size != nil { title += " No. \(number + 1)" }
                let hasArt = random.next() % 40 != 0
                albums.append(Album(
                    ratingKey: "\(key)", title: title, artist: artist, artistKey: "\(100 + artistIndex)",
                    year: 1958 + Int(random.next() % 66), addedAt: base + Int(random.next() % 90_000_000), updatedAt: 0,
                    trackCount: 6 + Int(random.next() % 10), genre: Self.genres[Int(random.next() % UInt64(Self.genres.count))],
                    studio: ["Blue Note", "XL", "Warp", "Atlantic", "Sub Pop", "4AD", "Impulse!"][Int(random.next() % 7)],
                    thumb: hasArt ? "/library/metadata/\(key)/thumb/\(base + key)" : nil,
                    art: hasArt ? "/library/metadata/\(key)/art/\(base + key)" : nil,
                    detail: Double(random.next() % 1000) / 1000))
            }
        }
        if let addedPerSecond, addedPerSecond > 0 {
            for index in albums.indices { albums[index].addedAt = base + index / addedPerSecond }
        }
        // Last updated when added, as albums nobody has edited since.
        for index in albums.indices { albums[index].updatedAt = albums[index].addedAt }
        // A few duplicates (the same album added twice), as real libraries have.
        for index in stride(from: 7, to: albums.count, by: 37).prefix(size == nil ? 8 : 0) {
            key += 1
            var duplicate = albums[index]
            duplicate.ratingKey = "\(key)"
            duplicate.addedAt += 86400
            albums.append(duplicate)
        }
        var collections: [Collection] = []
        for (index, name) in Self.collectionNames.enumerated() {
            let size = 10 + Int(random.next() % 16)
            let members = albums.isEmpty ? [] : (0..<size).map { _ in albums[Int(random.next() % UInt64(albums.count))].ratingKey }
            let unique = members.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            collections.append(Collection(ratingKey: "\(5000 + index)", title: name, albumKeys: unique,
                                          thumb: "/library/collections/\(5000 + index)/composite/\(base)"))
        }
        self.albums = albums.sorted(by: Self.order)
        self.collections = collections
        albumsByKey = Dictionary(albums.map { ($0.ratingKey, $0) }, uniquingKeysWith: { first, _ in first })
        sectionUUID = String(format: "%08x-0000-4000-8000-%012x", seed & 0xFFFF_FFFF, 0x1234 + seed)
        machineIdentifier = String(format: "%016llx%016llx", UInt64(bitPattern: Int64(seed)) &* 0x9E37_79B9_7F4A_7C15, 0xB7AD05)
    }

    /// The listing order: title in any case, then rating key.
    static func order(_ a: Album, _ b: Album) -> Bool { (a.title.lowercased(), a.ratingKey) < (b.title.lowercased(), b.ratingKey) }

    /// Changes to the music section, as another Plex client or the server's own scans make
    /// them (`POST /_admin/plex`): new albums, retitled ones, deleted ones, and `touch`, which
    /// bumps `updatedAt` with nothing changed, as Plex's background refreshes do. Every change
    /// moves `updatedAt` to `at` and `contentChangedAt` forward.
    struct Change: Codable, Sendable {
        var add: [NewAlbum]?
        var retitle: [String: String]?
        var delete: [String]?
        var touch: [String]?
        /// The server time of the change (Unix seconds).
        var at: Int

        struct NewAlbum: Codable, Sendable {
            var ratingKey: String
            var title: String
            var artist: String
            var year: Int
            var addedAt: Int?
        }
    }

    mutating func apply(_ change: Change) {
        var byKey = albumsByKey
        for new in change.add ?? [] {
            byKey[new.ratingKey] = Album(ratingKey: new.ratingKey, title: new.title, artist: new.artist, artistKey: "100", year: new.year,
                                         addedAt: new.addedAt ?? change.at, updatedAt: change.at, trackCount: 10, genre: "Jazz", studio: "Blue Note",
                                         thumb: nil, art: nil, detail: 0.5)
        }
        for (key, title) in change.retitle ?? [:] where byKey[key] != nil {
            byKey[key]?.title = title
            byKey[key]?.updatedAt = change.at
        }
        for key in change.touch ?? [] where byKey[key] != nil { byKey[key]?.updatedAt = change.at }
        for key in change.delete ?? [] { byKey[key] = nil }
        albumsByKey = byKey
        albums = byKey.values.sorted(by: Self.order)
        collections = collections.map { collection in
            var kept = collection
            kept.albumKeys = collection.albumKeys.filter { byKey[$0] != nil }
            return kept
        }
        contentChangedAt = max(contentChangedAt + 1, change.at)
    }

    /// What `path` is the artwork of: an album's thumb or art (`/library/metadata/KEY/…`), or
    /// a collection's composite (`/library/collections/KEY/composite/…`); `nil` for anything
    /// without artwork.
    func subject(forArtworkPath path: String) -> (any ArtworkSubject)? {
        let parts = path.split(separator: "/")
        guard parts.count >= 3, parts[0] == "library" else { return nil }
        switch parts[1] {
        case "metadata": return albumsByKey[String(parts[2])].flatMap { $0.thumb == nil ? nil : $0 }
        case "collections": return collection(String(parts[2])).flatMap { $0.thumb == nil ? nil : $0 }
        default: return nil
        }
    }

    /// The collection with rating key `key`.
    func collection(_ key: String) -> Collection? { collections.first { $0.ratingKey == key } }

    /// The image formats the photo transcoder answers in: JPEG by default, as Plex's does.
    enum ImageFormat: String, Sendable {
        case jpeg, png
        var contentType: String { self == .png ? "image/png" : "image/jpeg" }
    }

    /// The album's artwork as `format`: the same design either way (a record on a colour
    /// gradient, crossed by bands of noise whose share sets the size).
    func artwork(for album: some ArtworkSubject, size: Int, format: ImageFormat) -> Data {
        format == .png ? artwork(for: album, size: size) : jpegArtwork(for: album, size: size)
    }

    /// The design in 8×8 blocks: flat gradient blocks, and noisy block rows (random DC and AC
    /// coefficients, which entropy coding cannot shrink) in the same share as the PNG's rows.
    func jpegArtwork(for album: some ArtworkSubject, size: Int) -> Data {
        let hash = UInt64(album.ratingKey) ?? 1
        let noisyRows = Int((0.03 + album.detail * 0.085) * Double(size))
        let hue = (UInt8(truncatingIfNeeded: hash &* 37), UInt8(truncatingIfNeeded: hash &* 91), UInt8(truncatingIfNeeded: hash &* 53))
        var random = SplitMix64(seed: hash &* 0x9E37_79B9)
        var noisyBlockRow = -1
        var noisy = false
        return JPEGEncoder.encode(width: size, height: size) { column, row, component in
            if row != noisyBlockRow {
                noisyBlockRow = row
                let y = row * 8
                noisy = (y &* 7919 &+ Int(hash % 1021)) % size < noisyRows
            }
            if noisy {
                let dc = Int(random.next() % 161) - 80
                let ac = (0..<63).map { _ in
                    let value = random.next()
                    let magnitude = Int(value % 31) + 1
                    return value & (1 << 40) == 0 ? magnitude : -magnitude
                }
                return .init(dc: dc, ac: ac)
            }
            let x = min(size - 1, column * 8 + 4), y = min(size - 1, row * 8 + 4)
            let colour = Self.coverColour(x: x, y: y, size: size, hue: hue)
            let r = Double(colour.0), g = Double(colour.1), b = Double(colour.2)
            let level = switch component {
            case 0: 0.299 * r + 0.587 * g + 0.114 * b
            case 1: 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
            default: 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
            }
            return .init(dc: Int((level - 128).rounded()), ac: nil)
        }
    }

    /// The design of a cover at (x, y): a record on a coarse 16-step gradient (long runs that
    /// compress well, so the noise bands still set the size): a dark disc, a label in the
    /// album's hue, and the spindle hole.
    static func coverColour(x: Int, y: Int, size: Int, hue: (UInt8, UInt8, UInt8)) -> (UInt8, UInt8, UInt8) {
        let background = (hue.0 &+ UInt8(truncatingIfNeeded: (x * 16 / size) * 16), hue.1 &+ UInt8(truncatingIfNeeded: (y * 16 / size) * 16), hue.2)
        let dx = x - size / 2, dy = y - size / 2
        let distance = Double(dx * dx + dy * dy).squareRoot() / Double(size)
        switch distance {
        case ..<0.012: return (16, 16, 20)
        case ..<0.13: return (hue.0 | 0x80, hue.1 | 0x40, hue.2 / 2)
        case ..<0.38: return (24, 24, 30)
        default: return background
        }
    }

    /// Generated cover art as PNG: a record on a gradient with bands of noise; busier albums compress worse,
    /// so sizes spread like real artwork (about 100–400 KB at 1024 px, 0.4–1.5 MB at 2048 px).
    func artwork(for album: some ArtworkSubject, size: Int) -> Data {
        let hash = UInt64(album.ratingKey) ?? 1
        // Exactly this share of rows is noise (incompressible); the rest is a gradient.
        let noisyRows = Int((0.03 + album.detail * 0.085) * Double(size))
        let hue = (UInt8(truncatingIfNeeded: hash &* 37), UInt8(truncatingIfNeeded: hash &* 91), UInt8(truncatingIfNeeded: hash &* 53))
        var random = SplitMix64(seed: hash &* 0x9E37_79B9)
        return PNGEncoder.encode(width: size, height: size) { y, row in
            let noisy = (y &* 7919 &+ Int(hash % 1021)) % size < noisyRows
            for x in 0..<size {
                if noisy {
                    let value = random.next()
                    row[x * 3] = UInt8(truncatingIfNeeded: value)
                    row[x * 3 + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    row[x * 3 + 2] = UInt8(truncatingIfNeeded: value >> 16)
                } else {
                    let colour = Self.coverColour(x: x, y: y, size: size, hue: hue)
                    row[x * 3] = colour.0
                    row[x * 3 + 1] = colour.1
                    row[x * 3 + 2] = colour.2
                }
            }
        }
    }
}

/// The reference server's music library, shared by its Plex routes and changed by `/_admin/plex`.
final class PlexLibrary: Sendable {
    private let state: Mutex<PlexCatalogue>
    /// Who hears of each change (`/:/websockets/notifications`, `/:/eventsource/notifications`).
    let notifier = PlexNotifier()

    init(_ catalogue: PlexCatalogue) { state = Mutex(catalogue) }

    /// The library as it is now (a copy: later changes do not reach it).
    var current: PlexCatalogue { state.withLock { $0 } }

    /// Changes the library, then tells the listeners.
    func apply(_ change: PlexCatalogue.Change) {
        let entries = state.withLock { catalogue in
            let before = catalogue
            catalogue.apply(change)
            return PlexTimelineEntry.entries(for: change, before: before, after: catalogue)
        }
        notifier.send(entries)
    }
}
