import Foundation
import Testing
import TestSupport

/// What `make package` relies on, checked on every `make test` (packaging/check-package.sh then
/// installs the real artifacts in a clean Debian root, in CI).
@Suite("Packaging", .ownThread)
struct PackagingTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let home = TemporaryDirectory("e2e-packaging")

    func text(_ path: String) throws -> String {
        try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("brados --version, the man page's footer and the newest Debian changelog entry name one version")
    func oneVersion() throws {
        let version = try BuiltProducts.run("brados", ["--version"], environment: ["HOME": home.url.path]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.split(separator: ".").count == 3, "\(version)")
        let footer = try text("man/brados.1").split(separator: "\n").first { $0.hasPrefix(".Os") }
        #expect(footer == ".Os brados \(version)", "man/brados.1 is for another version: run make man")
        // "brados (0.1.0-1) unstable; urgency=medium": the upstream part is brados's version.
        let entry = try text("packaging/debian/changelog").split(separator: "\n").first ?? ""
        let packageVersion = entry.split(separator: "(").dropFirst().first?.split(separator: ")").first ?? ""
        #expect(packageVersion.hasPrefix("\(version)-"),
                "packaging/debian/changelog's newest entry is \(packageVersion), not for \(version): add one at its top")
        // The changelog a user reads (CHANGELOG.md, the package's changelog.gz) says what this version brings.
        let changes = try text("CHANGELOG.md")
        #expect(changes.contains("\n## \(version) — "), "CHANGELOG.md has no section for \(version): say what it brings")
        // The README's install commands name the files of this version.
        let readme = try text("README.md")
        let named = readme.matches(of: /brados[_-]([0-9]+\.[0-9]+\.[0-9]+)[-_]/).map { String($0.output.1) }
        #expect(!named.isEmpty && named.allSatisfy { $0 == version }, "README.md names versions \(Set(named)), not \(version)")
    }

    @Test("the binary names the library it opens with dlopen in an ELF dlopen note (the package's Depends reads it)")
    func dlopenNote() throws {
        let binary = try Data(contentsOf: BuiltProducts.url("brados"))
        // An ELF note: name size 4, description size, type 0x407c0c0a, "FDO\0", then the JSON.
        // Each C loader brings its own note (libarchive's, the pictures'): every one is read.
        let owner = Data([0x0A, 0x0C, 0x7C, 0x40]) + Data("FDO\0".utf8)
        var features: [[String: Any]] = []
        var from = binary.startIndex
        while let at = binary.range(of: owner, in: from..<binary.endIndex) {
            let size = binary[(at.lowerBound - 4)..<at.lowerBound].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let json = binary[at.upperBound..<(at.upperBound + size)].prefix { $0 != 0 }
            features += try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]])
            from = at.upperBound
        }
        let archive = try #require(features.first { $0["feature"] as? String == "archive" })
        #expect(archive["soname"] as? [String] == ["libarchive.so.13"])
        #expect(archive["priority"] as? String == "required")
        // The picture libraries are recommended: the .deb's Recommends, and brados works without them.
        for feature in ["pictures", "jpeg", "png"] {
            let entry = try #require(features.first { $0["feature"] as? String == feature }, "\(feature)")
            #expect(entry["priority"] as? String == "recommended", "\(feature)")
        }
        // The soname the loader opens is the one the note declares.
        #expect(try text("Sources/CArchiveLoader/loader.c").contains("#define LIBARCHIVE_SONAME \"libarchive.so.13\""))
    }

    @Test("packaging/stage.sh lays out exactly what --list names, stripped, 0755/0644, units that run brados")
    func stage() throws {
        let environment = ["HOME": home.url.path, "SCRATCH": BuiltProducts.directory.deletingLastPathComponent().deletingLastPathComponent().path]
        let script = Self.repository.appendingPathComponent("packaging/stage.sh")
        for layout in ["debian", "prefix"] {
            let listed = try BuiltProducts.run(executable: script, ["--list", layout], environment: environment)
            #expect(listed.status == 0, "\(listed.stderr)")
            let paths = listed.stdout.split(separator: "\n").map(String.init)
            let root = home.path(layout)
            let staged = try BuiltProducts.run(executable: script, [layout, BuiltProducts.url("brados").path, root.path, "/opt/brados"],
                                               environment: environment, timeout: 120)
            #expect(staged.status == 0, "\(staged.stderr)")
            var found: [String] = []
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
            while let file = enumerator?.nextObject() as? URL {
                if try file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
                    found.append(String(file.path.dropFirst(root.path.count + 1)))
                }
            }
            #expect(found.sorted() == paths.sorted(), "\(layout): staged files differ from --list")
            for path in paths {
                let mode = try #require(try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)[.posixPermissions] as? Int)
                #expect(mode == (path.hasSuffix("bin/brados") ? 0o755 : 0o644), "\(path): \(String(mode, radix: 8))")
            }
            let program = root.appendingPathComponent(paths.first { $0.hasSuffix("bin/brados") } ?? "")
            let run = try BuiltProducts.run(executable: program, ["--version"], environment: ["HOME": home.url.path])
            #expect(run.status == 0 && !run.stdout.isEmpty, "the staged binary does not run")
            let bash = try String(contentsOf: root.appendingPathComponent(paths.first { $0.contains("bash-completion") } ?? ""), encoding: .utf8)
            #expect(!bash.hasPrefix("#!"), "a completion file is sourced, not run: no #! line")
            let service = try String(contentsOf: root.appendingPathComponent(paths.first { $0.hasSuffix(".service") } ?? ""), encoding: .utf8)
            #expect(service.contains(layout == "debian" ? "\nExecStart=/usr/bin/brados sync\n" : "\nExecStart=/opt/brados/bin/brados sync\n"))
            #expect(!service.contains("@EXEC@"))
        }
    }

    @Test("the user units: systemd-analyze verify says nothing of them; the watch's stop is no failure, a failure restarts it, reload reads the config")
    func units() throws {
        let environment = ["HOME": home.url.path, "SCRATCH": BuiltProducts.directory.deletingLastPathComponent().deletingLastPathComponent().path]
        let root = home.path("units")
        // Staged under a prefix that is the staged folder itself: the units run the brados beside them, the man page is where man looks.
        let staged = try BuiltProducts.run(executable: Self.repository.appendingPathComponent("packaging/stage.sh"),
                                           ["prefix", BuiltProducts.url("brados").path, root.path, root.path], environment: environment, timeout: 120)
        #expect(staged.status == 0, "\(staged.stderr)")
        let units = ["brados-sync.service", "brados-sync.timer", "brados-watch.service"].map { root.appendingPathComponent("share/systemd/user/\($0)").path }
        let verified = try BuiltProducts.run(executable: try SystemCommand.url("systemd-analyze"), ["verify"] + units,
                                             environment: ["HOME": home.url.path, "MANPATH": root.appendingPathComponent("share/man").path,
                                                           "PATH": "/usr/bin:/bin"])
        #expect(verified.status == 0 && verified.stdout.isEmpty && verified.stderr.isEmpty, "clean: \(verified.stdout)\(verified.stderr)")
        let watch = try String(contentsOfFile: units[2], encoding: .utf8)
        for line in ["ExecStart=\(root.path)/bin/brados sync --watch", "SuccessExitStatus=143", "Restart=on-failure", "ExecReload=/bin/sh -c 'kill -HUP $MAINPID'"] {
            #expect(watch.contains("\n\(line)\n"), "\(line)")
        }
    }
}

/// `scripts/pins.py`: the check `make build`, `make test` and `make release` run first.
@Suite("Packaging: pinned Swift packages", .ownThread)
struct PinsTests {
    let home = TemporaryDirectory("e2e-pins")

    /// A `swift package show-dependencies --format json` graph of `packages` (flat under the root).
    func graph(_ packages: [[String: String]]) throws -> URL {
        let nodes = packages.map { ["identity": $0["identity"]!, "url": $0["url"]!, "version": $0["version"]!, "dependencies": []] as [String: Any] }
        let url = home.url.appendingPathComponent("graph-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: ["identity": "brados", "dependencies": nodes]).write(to: url)
        return url
    }

    func pins(_ arguments: [String], environment: [String: String] = [:]) throws -> BuiltProducts.Result {
        try SystemCommand.run("python3", [PackagingTests.repository.appendingPathComponent("scripts/pins.py").path] + arguments, environment: environment)
    }

    @Test("the graph Package.pins.json lists passes; a moved, an added and a dropped package each fail, named; brados version lists the pins")
    func drift() throws {
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: PackagingTests.repository.appendingPathComponent("Package.pins.json"))) as? [String: Any]
        let pinned = try #require(file?["packages"] as? [[String: String]])
        #expect(pinned.count >= 20 && pinned.contains { $0["identity"] == "swift-nio" })
        let same = try pins(["--graph", try graph(pinned).path])
        #expect(same.status == 0 && same.stdout.contains("\(pinned.count) Swift packages, each at its pinned version"), "\(same.stdout)\(same.stderr)")

        var moved = pinned
        let index = try #require(moved.firstIndex { $0["identity"] == "swift-nio" })
        let version = moved[index]["version"]!
        moved[index]["version"] = "2.999.0"
        moved.append(["identity": "swift-surprise", "url": "https://github.com/example/swift-surprise", "version": "1.0.0"])
        moved.removeAll { $0["identity"] == "swift-log" }
        let drifted = try pins(["--graph", try graph(moved).path])
        #expect(drifted.status == 1, "\(drifted.stdout)")
        for line in ["swift-nio resolved to 2.999.0, pinned at \(version)", "swift-surprise 1.0.0 is used but not pinned", "swift-log", "is pinned but no longer used",
                     "swift package update NAME"] {
            #expect(drifted.stderr.contains(line), "\(line): \(drifted.stderr)")
        }

        let listed = try BuiltProducts.run("brados", ["version", "--json"], environment: ["HOME": home.url.path])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let packages = (document["swiftPackages"] as? [[String: Any]] ?? []).map { "\($0["name"] ?? "") \($0["version"] ?? "")" }
        #expect(packages == pinned.map { "\($0["identity"]!) \($0["version"]!)" })
    }
}
