import Foundation
import Testing

/// The README stays a page a newcomer reads to the end, and every link in it and in docs/
/// leads somewhere: a file of the repository, and a heading of it when the link names one.
@Suite("Documentation: the README's length and every link", .ownThread)
struct DocumentationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// GitHub's anchor for a heading: lower case, spaces to hyphens, punctuation dropped.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { $0 == " " ? "-" : ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : nil })
    }

    static func pages() throws -> [URL] {
        let docs = repository.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        return [repository.appendingPathComponent("README.md")] + names.map { docs.appendingPathComponent($0) }
    }

    @Test("README.md is under 300 lines and links every page of docs/")
    func readme() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count < 300)
        for page in try Self.pages().dropFirst() {
            #expect(text.contains("](docs/\(page.lastPathComponent))"), "README.md does not link docs/\(page.lastPathComponent)")
        }
    }

    @Test("every relative link in README.md and docs/ resolves to a file, and to a heading when it names one")
    func links() throws {
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var checked = 0
        for page in try Self.pages() {
            let text = try String(contentsOf: page, encoding: .utf8)
            for match in text.matches(of: link) {
                let target = String(text[match.range]).dropFirst(2).dropLast()
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file = parts[0].isEmpty ? page : page.deletingLastPathComponent().appendingPathComponent(String(parts[0])).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: file.path), "\(page.lastPathComponent): \(target) leads nowhere")
                if parts.count == 2, file.pathExtension == "md", let linked = try? String(contentsOf: file, encoding: .utf8) {
                    let anchors = linked.split(separator: "\n").filter { $0.hasPrefix("#") }
                        .map { Self.anchor($0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) }
                    #expect(anchors.contains(String(parts[1])), "\(page.lastPathComponent): \(target) names no heading there")
                }
                checked += 1
            }
        }
        #expect(checked > 20)
    }
}
