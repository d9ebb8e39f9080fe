import BradOSCore
import Foundation

/// What /etc/os-release says of the system brados runs on (os-release(5)): which distribution
/// names its packages, for the advice brados gives when a library is missing.
enum OSRelease {
    /// The fields of /etc/os-release (else /usr/lib/os-release), quotes removed; empty when neither reads.
    static var current: [String: String] {
        for path in ["/etc/os-release", "/usr/lib/os-release"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return parse(text) }
        }
        return [:]
    }

    static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#") else { continue }
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            fields[String(line[..<equals])] = value
        }
        return fields
    }

    /// Ubuntu, or a distribution built on it (ID_LIKE lists ubuntu: Linux Mint, Pop!_OS).
    static func isUbuntu(_ fields: [String: String]) -> Bool { isOrLike("ubuntu", fields) }

    /// Debian or a distribution built on it (Ubuntu and its own included): apt and Debian's names.
    static func isDebian(_ fields: [String: String]) -> Bool { isOrLike("debian", fields) || isUbuntu(fields) }

    private static func isOrLike(_ id: String, _ fields: [String: String]) -> Bool {
        fields["ID"] == id || (fields["ID_LIKE"] ?? "").split(separator: " ").contains(Substring(id))
    }
}
