import Foundation

/// Escaping of values (ids) inserted into request paths.
public enum PathComponent {
    /// Percent-encodes everything but ASCII letters, digits and `-_.~` (RFC 3986 unreserved),
    /// so an id can never change the path or trap URL parsing.
    public static func escape(_ value: String) -> String {
        var escaped = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped += String(format: "%%%02X", byte)
            }
        }
        return escaped
    }
}
