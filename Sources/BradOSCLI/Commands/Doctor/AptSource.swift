import Foundation

/// One apt source entry, as `sources.list(5)` has it: a deb822 stanza (`*.sources`) or a
/// one-line `deb [options] URI suite components` (`*.list`). Only what the doctor reads.
struct AptSource: Equatable, Sendable {
    /// What `Signed-By` names: a keyring file, a key's fingerprint, or a key block inline.
    enum Key: Equatable, Sendable {
        case file(String)
        case fingerprint(String)
        case inline(String)
    }

    let file: URL
    let uris: [String]
    let signedBy: [Key]

    /// Every enabled entry in `root`/etc/apt (sources.list and sources.list.d), in apt's order.
    static func all(root: URL) -> [AptSource] {
        let apt = root.appendingPathComponent("etc/apt")
        var files = [apt.appendingPathComponent("sources.list")]
        let parts = apt.appendingPathComponent("sources.list.d")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: parts.path)) ?? []).sorted()
        where name.hasSuffix(".sources") || name.hasSuffix(".list") {
            files.append(parts.appendingPathComponent(name))
        }
        return files.flatMap(all(inFile:))
    }

    /// The enabled entries of one file: deb822 for `*.sources`, one-line otherwise.
    static func all(inFile file: URL) -> [AptSource] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return file.pathExtension == "sources" ? stanzas(text, file: file) : lines(text, file: file)
    }

    /// deb822: fields `Name: value`, a line that starts with a space continues the one before,
    /// a blank line ends the stanza; `Enabled: no` turns one off.
    static func stanzas(_ text: String, file: URL) -> [AptSource] {
        var found: [AptSource] = []
        var fields: [String: String] = [:]
        var last: String?
        func end() {
            defer { fields = [:]; last = nil }
            guard !fields.isEmpty, fields["enabled"]?.lowercased() != "no" else { return }
            let uris = (fields["uris"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
            found.append(AptSource(file: file, uris: uris, signedBy: keys(fields["signed-by"] ?? "")))
        }
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = String(raw)
            if line.trimmingCharacters(in: .whitespaces).isEmpty { end(); continue }
            if line.hasPrefix("#") { continue }
            if line.first == " " || line.first == "\t", let name = last {
                fields[name, default: ""] += "\n" + line
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                last = name
            }
        }
        end()
        return found
    }

    /// One-line: `deb [signed-by=A,B arch=amd64] URI suite component...`.
    static func lines(_ text: String, file: URL) -> [AptSource] {
        text.split(whereSeparator: \.isNewline).compactMap { raw -> AptSource? in
            var line = raw.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("deb ") || line.hasPrefix("deb\t") else { return nil }
            line = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            var signedBy: [Key] = []
            if line.hasPrefix("["), let close = line.firstIndex(of: "]") {
                for option in line[line.index(after: line.startIndex)..<close].split(whereSeparator: \.isWhitespace) {
                    let parts = option.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "signed-by" { signedBy = keys(parts[1].replacingOccurrences(of: ",", with: " ")) }
                }
                line = String(line[line.index(after: close)...]).trimmingCharacters(in: .whitespaces)
            }
            guard let uri = line.split(whereSeparator: \.isWhitespace).first else { return nil }
            return AptSource(file: file, uris: [String(uri)], signedBy: signedBy)
        }
    }

    /// A `Signed-By` value: an inline key block, or absolute paths and fingerprints (a trailing
    /// `!` pins a subkey) separated by spaces or commas.
    static func keys(_ value: String) -> [Key] {
        if value.contains("-----BEGIN PGP PUBLIC KEY BLOCK-----") { return [.inline(value)] }
        return value.split { $0.isWhitespace || $0 == "," }.map { item in
            item.hasPrefix("/") ? .file(String(item)) : .fingerprint(item.trimmingCharacters(in: ["!"]).uppercased())
        }
    }

    /// `path` inside `root`, its symbolic links followed there (an absolute target is under
    /// `root` too); nil when they loop.
    static func resolve(_ path: String, in root: URL) -> URL? {
        var current = path
        for _ in 0..<8 {
            let url = root.appendingPathComponent(current)
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) else { return url }
            current = target.hasPrefix("/") ? target : (current as NSString).deletingLastPathComponent + "/" + target
        }
        return nil
    }
}
