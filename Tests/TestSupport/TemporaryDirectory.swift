import Foundation

/// A unique temporary directory per test, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ label: String = "test") {
        url = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("brados-\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func path(_ component: String) -> URL { url.appendingPathComponent(component) }
}
