import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSStorage
#endif

// Phase 1: validate and extract, in one pass over the stream.
extension CacheImporter {
    /// What the first phase found: the manifest, the domains chosen and those skipped.
    struct Extracted {
        var manifest: CacheArchiveManifest
        var chosen: Set<String>
        var skipped: [String]
    }

    /// Phase 1, validate and extract (one pass over the stream): the manifest is checked
    /// (domains asked for, data versions, whose account the data is), then every entry of a
    /// chosen domain is checked and written into staging. A dry run extracts too: the
    /// domains' checks need the files.
    func validateAndExtract(_ input: ArchiveInput, options: Options, into staging: Staging) throws -> Extracted {
        var chosen = Set<String>()
        var skipped: [String] = []
        let manifest = try ArchiveScan(limits: options.limits).run(input, manifestChecked: { manifest in
            let archived = manifest.domains.map(\.name)
            for name in options.domains ?? [] where !archived.contains(name) { throw ArchiveError.unknownDomain(name) }
            for name in archived {
                if plugins.contains(where: { $0.name == name }), options.domains?.contains(name) ?? true { chosen.insert(name) } else { skipped.append(name) }
            }
            // A domain's files are read as its data version says; another version is refused.
            try manifest.checkDataVersions(Dictionary(plugins.map { ($0.name, $0.archive.readableDataVersions) }, uniquingKeysWith: { first, _ in first }), only: chosen)
            guard !options.force else { return }
            // Every account the target profile is signed in to must be the archive's too: an
            // archive that does not say whose data it holds is not trusted with a signed-in profile.
            for (service, mine) in accounts.sorted(by: { $0.key < $1.key }) where manifest.accounts[service] != mine {
                throw ArchiveError.foreignAccount(service: service, archive: manifest.accounts[service] ?? "no account", profile: target.name.rawValue, target: mine)
            }
        }, destination: { file in
            guard chosen.contains(file.domain) else { return nil }
            let root = file.path.hasPrefix("cache/") ? staging.cacheRoot : staging.dataRoot
            let relative = file.path.split(separator: "/").dropFirst().joined(separator: "/")
            let url = root.appendingPathComponent(relative)
            try FileSystem.createDirectory(url.deletingLastPathComponent())
            let out = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard out >= 0 else { throw StorageError.io(operation: "create", path: url.path, errno: errno) }
            return (out, url.path)
        })
        return Extracted(manifest: manifest, chosen: chosen, skipped: skipped)
    }
}
