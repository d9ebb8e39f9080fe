import Foundation

/// An image file's format, told by its first bytes (its "magic"), never by a name or a
/// server's `Content-Type`.
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case png, jpeg, gif, webp

    /// The format `data` starts like, if any.
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { self = .png }
        else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { self = .jpeg }
        else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { self = .gif }
        else if bytes.count == 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { self = .webp }
        else { return nil }
    }

    /// The usual file extension.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Every extension a file of this format goes by.
    public var fileExtensions: Set<String> { self == .jpeg ? ["jpg", "jpeg", "jpe"] : [rawValue] }

    /// The format a file extension names (any case), if it names one.
    public init?(fileExtension: String) {
        let lowered = fileExtension.lowercased()
        guard let format = Self.allCases.first(where: { $0.fileExtensions.contains(lowered) }) else { return nil }
        self = format
    }

    /// Where to write an image of this format that the user asked to write to `path`: the path
    /// as given when its extension fits (or names no image format), else with the right one,
    /// replacing an image extension of another format or added when there is none.
    public func fittingPath(_ path: String) -> String {
        if path.hasSuffix("/") { return path } // a folder: the caller names the file
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        if ext.isEmpty { return path + "." + fileExtension }
        guard let named = ImageFormat(fileExtension: ext) else { return path }
        if named == self { return path }
        return String(path.dropLast(ext.utf8.count)) + fileExtension
    }
}
