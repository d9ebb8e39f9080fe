import ArgumentParser
import CArchive
import CArchiveLoader
import CArtLoader
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `brados doctor`: checks the set-up and says what to fix.
public struct DoctorCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the configuration, servers, sign-in, cache folders and libarchive; say what to fix.",
        discussion: "Exits 1 when a check fails (warnings do not count). Uses the network unless --offline.\nExamples:\n  brados doctor\n  brados --offline doctor\n  brados doctor --json")

    @OptionGroup var global: GlobalOptions
    public init() {}

    /// Runs every check and prints them.
    /// - Throws: `ExitCode(1)` when a check fails; ``ConfigError`` for an unreadable config file or invalid profile name;
    ///   ``StorageError/coding(path:detail:)``.
    public func run() async throws {
        let env = try await AppEnvironment.live(global, access: nil)
        let checks = await Doctor(env).run()
        try DoctorRenderer(output: env.output).render(checks)
        if checks.contains(where: { $0.status == .fail }) { throw ExitCode(1) }
    }
}

/// One finding of `brados doctor`.
public struct DoctorCheck: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case ok, warn, fail }
    public var name: String
    public var status: Status
    public var detail: String
    /// What to do, for a warning or a failure.
    public var fix: String?
}

/// The checks of `brados doctor`, in order: configuration, servers and sign-in, folders,
/// libarchive. Network checks are skipped offline.
public struct Doctor {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    public func run() async -> [DoctorCheck] {
        configuration() + (await servers()) + folders() + libarchive() + pictures()
    }

    /// Every setting, checked by the rule `config set` applies.
    func configuration() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        func add(_ name: String, _ status: DoctorCheck.Status, _ detail: String, fix: String? = nil) {
            checks.append(DoctorCheck(name: name, status: status, detail: detail, fix: fix))
        }
        add("config", .ok, "\(env.paths.configFile.path) (profile \(env.profile.name))")
        for key in env.settings.keys {
            let setting = env.settings.resolve(key.name)
            if let value = setting.value, let problem = key.validate(value) {
                add("config \(key.name)", .fail, "'\(value)' is not \(problem)", fix: "brados config set \(key.name) VALUE (or unset it)")
            }
        }
        return checks
    }

    /// Each service's server (asked for an answer, online) and the profile's sign-in there.
    func servers() async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        func add(_ name: String, _ status: DoctorCheck.Status, _ detail: String, fix: String? = nil) {
            checks.append(DoctorCheck(name: name, status: status, detail: detail, fix: fix))
        }
        let credentials = env.credentials.load()
        for service in env.services.map(\.service) {
            let configured = try? env.settings.serverURL(for: service)
            let name = "server \(service.rawValue)"
            guard let configured else {
                add(name, .ok, "the built-in demo backend (no server configured)")
                continue
            }
            let url = configured.url
            if env.isOffline {
                add(name, .warn, "\(url.absoluteString): not checked (offline)")
            } else {
                do {
                    let response = try await env.network.httpTransport.send(HTTPRequest(method: "GET", url: url, timeout: .seconds(5)))
                    add(name, .ok, "\(url.absoluteString) answers (HTTP \(response.status))")
                } catch {
                    add(name, .fail, "\(url.absoluteString): \(error.summaryText)",
                        fix: "Check the URL (`brados config get \(service.configKey)`) and that the server runs.")
                }
            }
            let dedicated = await env.network.isDedicated(service)
            if let credential = credentials.credential(for: service, dedicated: dedicated) {
                let issued = credential.isIssued(by: url, embedded: false)
                add("sign-in \(service.rawValue)", issued ? .ok : .fail, "\(credential.user) at \(credential.server)",
                    fix: issued ? nil : "Sign in to \(url.absoluteString): brados auth login\(dedicated ? " --service \(service.rawValue)" : "") --user NAME --password-stdin")
            } else {
                add("sign-in \(service.rawValue)", .warn, "not signed in",
                    fix: "brados auth login\(dedicated ? " --service \(service.rawValue)" : "") --user NAME --password-stdin")
            }
        }
        return checks
    }

    /// The config, cache and data folders: private (0700), and their sizes.
    func folders() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        func add(_ name: String, _ status: DoctorCheck.Status, _ detail: String, fix: String? = nil) {
            checks.append(DoctorCheck(name: name, status: status, detail: detail, fix: fix))
        }
        for folder in [env.paths.configRoot, env.profile.cacheDirectory, env.profile.dataDirectory] {
            var info = stat()
            guard stat(folder.path, &info) == 0 else { add("folder", .ok, "\(folder.path) (not created yet)"); continue }
            let mode = info.st_mode & 0o777
            let size = FileSystem.regularFiles(under: folder).reduce(Int64(0)) { $0 + $1.size }
            if mode & 0o077 != 0 {
                add("folder", .fail, "\(folder.path) is mode \(String(mode, radix: 8)), readable by others", fix: "chmod 700 \(folder.path)")
            } else {
                add("folder", .ok, "\(folder.path) (0\(String(mode, radix: 8)), \(Format.bytes(size)))")
            }
        }
        return checks
    }

    /// libarchive, loaded, with built-in zstd.
    func libarchive() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        func add(_ name: String, _ status: DoctorCheck.Status, _ detail: String, fix: String? = nil) {
            checks.append(DoctorCheck(name: name, status: status, detail: detail, fix: fix))
        }
        let version = archive_version_details().map { String(cString: $0) } ?? "unknown"
        var zstd = false
        if let writer = archive_write_new() {
            zstd = archive_write_add_filter_zstd(writer) == ARCHIVE_OK
            archive_write_free(writer)
        }
        if let reason = carchive_load_error() {
            add("libarchive", .fail, "not loaded: \(String(cString: reason))", fix: "Install libarchive (Debian: apt-get install libarchive13).")
        } else {
            add("libarchive", zstd ? .ok : .fail, version + (zstd ? "" : " (no built-in zstd; brados does not run an external zstd)"),
                fix: zstd ? nil : "Install a libarchive built with zstd (Debian: apt-get install libarchive13 libzstd1), or export with --format tar.gz.")
        }
        return checks
    }

    /// The libraries pictures are drawn with, and the mode a picture would be drawn in here
    /// and why (the same choice `library show` makes, without `--art`).
    func pictures() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        for lib in ArtLibraries.all {
            let soname = ArtLibraries.soname(lib)
            if let reason = ArtLibraries.loadError(lib) {
                // A recommended library: brados works without it, so a warning, not a failure.
                checks.append(DoctorCheck(name: "pictures \(soname)", status: .warn, detail: "not loaded: \(reason)",
                                          fix: (ArtError.missingLibrary(soname: soname, detail: reason).recovery ?? "")
                                              + " Until then covers are placeholders; plots are text and need none of them."))
            } else {
                checks.append(DoctorCheck(name: "pictures \(soname)", status: .ok, detail: "loaded"))
            }
        }
        do {
            // doctor's own stdout may be a pipe (`brados doctor | less`): judge the terminal
            // a command would draw on, the one doctor runs in.
            var detector = try env.artDetector()
            detector.json = false
            if !detector.isTerminal, env.io.isErrorTerminal || env.io.isInputTerminal { detector.isTerminal = true }
            let choice = detector.choose()
            checks.append(DoctorCheck(name: "pictures mode", status: .ok, detail: "\(choice.modeName): \(choice.reason)"))
        } catch {
            checks.append(DoctorCheck(name: "pictures mode", status: .fail, detail: "\(error)", fix: "brados config set display.art auto"))
        }
        return checks
    }
}

/// Human and JSON output of `brados doctor`.
public struct DoctorRenderer {
    let output: Output
    public init(output: Output) { self.output = output }

    /// Prints each check with its mark and, unless it passed, what to do; or the checks as JSON.
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func render(_ checks: [DoctorCheck]) throws {
        if output.format == .json { return try output.json(checks) }
        for check in checks {
            let mark = switch check.status {
            case .ok: output.styled("ok  ", .green)
            case .warn: output.styled("warn", .yellow)
            case .fail: output.styled("FAIL", .red)
            }
            output.line("\(mark)  \(check.name): \(check.detail)")
            if let fix = check.fix, check.status != .ok { output.line("        → \(fix)") }
        }
    }
}
