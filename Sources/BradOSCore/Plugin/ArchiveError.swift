import BradOSErrors
import BradOSNetworking
import BradOSTerminal
/// Failures of `brados cache export|verify|import`.
public enum ArchiveError: BradOSError, Equatable {
    case io(String)
    /// libarchive is missing, or lacks built-in support for a compression.
    case libarchiveUnavailable(String)
    case notAnArchive(String)
    case truncated(String)
    case notBradosArchive(String)
    /// Made by another brados whose files this one cannot read: a newer format (`what` is
    /// "format", `archive` its version, `reads` the newest this brados reads), or a domain's
    /// data of another version (`what` is the domain). `madeBy` is the archive's brados version.
    case otherVersion(what: String, archive: Int, reads: Int, madeBy: String)
    case invalidManifest(String)
    case unsafeEntry(path: String, reason: String)
    case unlistedEntry(path: String)
    case duplicateEntry(path: String)
    case missingEntry(path: String)
    case sizeMismatch(path: String, expected: Int64, actual: Int64)
    case checksumMismatch(path: String)
    case tooLarge(limit: Int64)
    case tooManyEntries(limit: Int)
    case compressionRatio(limit: Int)
    case foreignAccount(service: String, archive: String, profile: String, target: String)
    case targetNotEmpty(domains: [String])
    case changedDuringExport(path: String)
    case unknownDomain(String)
    /// `--replace` would drop changes the profile queued and has not sent.
    /// `send`: the command that sends them (the domain's own).
    case pendingChanges(domain: String, profile: String, count: Int, send: String)
    /// The file `cache export` would write exists and `--overwrite` was not given.
    case destinationExists(path: String)
    /// The disk the archive is written to is full (`path` is nil for standard output).
    case destinationFull(path: String?)
    /// The archive named on the command line does not exist.
    case noSuchArchive(path: String)
    /// `--encrypt` (or decrypting with the profile's key), and the profile has no age key.
    case noKey(profile: String)
    /// `keys generate`, and the profile has a key already.
    case keyExists(profile: String, recipient: String)
    /// A key, identity or recipients file that is not what it should be.
    case invalidKeys(source: String, detail: String)
    /// Recipients age does not put in one file (post-quantum with classic ones, too many).
    case recipientsRefused(detail: String)
    /// The passphrase could not be had: empty, the two entries differ, or no terminal to ask on.
    case passphrase(String)

    public var summary: String {
        switch self {
        case let .io(detail): "The archive could not be written or read: \(detail)."
        case let .libarchiveUnavailable(detail): "Cache archives need libarchive: \(detail)."
        case let .notAnArchive(detail): "This is not a tar archive brados can read (\(detail))."
        case let .truncated(detail): "The archive is truncated or damaged (\(detail))."
        case let .notBradosArchive(detail): "This is not a brados cache archive: \(detail)."
        case let .otherVersion(what, archive, reads, madeBy):
            archive > reads
                ? "The archive was made by a newer brados (\(madeBy)): its \(what) is version \(archive), and this brados (\(BradOSVersion.current)) reads up to \(reads)."
                : "The archive was made by an older brados (\(madeBy)): its \(what) data is version \(archive), and this brados (\(BradOSVersion.current)) reads only \(reads)."
        case let .invalidManifest(detail): "The archive's manifest is invalid: \(detail)."
        case let .unsafeEntry(path, reason): "The archive entry '\(path)' is refused: \(reason)."
        case let .unlistedEntry(path): "The archive entry '\(path)' is not listed in the manifest."
        case let .duplicateEntry(path): "The archive holds '\(path)' twice."
        case let .missingEntry(path): "The manifest lists '\(path)', but the archive does not hold it."
        case let .sizeMismatch(path, expected, actual): "'\(path)' is \(actual) bytes in the archive, but the manifest says \(expected)."
        case let .checksumMismatch(path): "'\(path)' does not match its SHA-256 in the manifest."
        case let .tooLarge(limit): "The archive expands to more than \(Format.bytes(limit)) (archive.max-bytes)."
        case let .tooManyEntries(limit): "The archive has more than \(limit) entries (archive.max-entries)."
        case let .compressionRatio(limit): "The archive expands more than \(limit) times its compressed size (archive.max-ratio): a compression bomb?"
        case let .foreignAccount(service, archive, profile, target):
            "The archive's \(service) data belongs to account \(archive), but profile '\(profile)' is signed in as \(target)."
        case let .targetNotEmpty(domains): "Profile already has data for \(domains.joined(separator: ", "))."
        case let .changedDuringExport(path): "'\(path)' changed while it was being exported."
        case let .unknownDomain(name): "There is no domain '\(name)' in the archive or in brados."
        case let .destinationExists(path): "\(path) already exists."
        case let .noSuchArchive(path): "There is no file \(path)."
        case let .destinationFull(path): "The disk is full: the archive\(path.map { " \($0)" } ?? "") could not be written."
        case let .noKey(profile): "Profile '\(profile)' has no age key."
        case let .keyExists(profile, recipient): "Profile '\(profile)' already has an age key (\(recipient))."
        case let .invalidKeys(source, detail): "\(source): \(detail)."
        case let .recipientsRefused(detail): "These recipients cannot share one archive: \(detail)."
        case let .passphrase(detail): "No passphrase: \(detail)."
        case let .pendingChanges(domain, profile, count, _):
            "Profile '\(profile)' has \(count) queued \(domain) change\(count == 1 ? "" : "s") not sent yet, which --replace would drop."
        }
    }

    public var recovery: String? {
        switch self {
        case .io: "Check the path and the free space."
        case .libarchiveUnavailable: "Install libarchive built with zlib and zstd (Debian: apt-get install libarchive13 libzstd1); `brados doctor` shows what is found."
        case .notAnArchive, .truncated, .checksumMismatch, .sizeMismatch, .missingEntry:
            "Nothing was imported. Export the archive again, or check it with `brados cache verify FILE`."
        case let .otherVersion(_, archive, reads, madeBy):
            archive > reads
                ? "Nothing was imported. Upgrade brados to \(madeBy) or later to read it."
                : "Nothing was imported. Export it again with this brados, or import it with the brados that made it."
        case .notBradosArchive, .invalidManifest, .unsafeEntry, .unlistedEntry, .duplicateEntry:
            "Nothing was imported: only archives made by `brados cache export` are accepted."
        case .tooLarge, .tooManyEntries, .compressionRatio:
            "Nothing was imported. If you trust the archive, raise the limit (`brados config set archive.max-bytes 50GB`, `archive.max-entries`, `archive.max-ratio`)."
        case .foreignAccount:
            "Cached data never moves between accounts by accident: import into a profile of that account (`--as PROFILE`), or pass --force if you mean it."
        case .targetNotEmpty: "Pass --replace (the archive's data replaces it) or --merge (files from the archive are added or overwrite), or --dry-run to see what would change."
        case .changedDuringExport: "Nothing was written. Run the export again (another brados was writing)."
        case .unknownDomain: "List the archive's domains with `brados cache verify FILE`."
        case .destinationExists: "Pass --overwrite, or choose another name with -o."
        case .noSuchArchive: "Check the archive's path (or pass - to read it from standard input)."
        case .destinationFull: "No partial archive was left. Free space on that disk, or write the archive to another one (-o PATH)."
        case let .noKey(profile):
            "Create one with `brados keys generate\(profile == "default" ? "" : " --profile \(profile)")`, or pass --recipient age1… (someone else's key) or --passphrase."
        case .keyExists:
            "Archives encrypted to it open only with it, so it is never replaced silently: keep it, or pass --force to replace it (back it up first: `brados keys show --json` prints its path)."
        case .invalidKeys: "An identity file holds AGE-SECRET-KEY-1… or AGE-SECRET-KEY-PQ-1… lines (`age-keygen` writes one); a recipient is an age1… or age1pq1… line, and one file goes to one kind. Lines starting with # are comments."
        case .recipientsRefused:
            "Nothing was written. Export once for each group: the post-quantum age1pq1… keys in one archive, the classic age1… keys in another (--encrypt adds this profile's own key; `brados keys show --json` says which kind it is)."
        case .passphrase: "Pass it on standard input with --passphrase-stdin, or run the command on a terminal to be asked."
        case let .pendingChanges(_, _, _, send):
            "Nothing was imported. Send them first (`\(send)`), import with --merge (they are kept), or add --discard-pending to drop them."
        }
    }

    public var kind: FailureKind {
        switch self {
        case .io, .libarchiveUnavailable, .otherVersion: .general
        case .targetNotEmpty, .unknownDomain, .destinationExists, .noKey, .keyExists, .invalidKeys, .recipientsRefused, .passphrase: .usage
        case .foreignAccount, .pendingChanges: .refused
        case .noSuchArchive: .notFound
        case .changedDuringExport: .general
        case .destinationFull: .diskFull
        default: .integrity
        }
    }
}
