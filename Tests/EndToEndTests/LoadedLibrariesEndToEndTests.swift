import Foundation
import Testing
import TestSupport

/// What brados loads is what the command uses: libsecret (and with it GLib, GIO and the session
/// bus) only when a secret is read or written in the keyring, never for a read of the caches
/// nor with `credentials.store = file`; a read of the caches starts no thread but the signal
/// watcher and changes no thread's priority; and nothing it loads writes into the working directory.
@Suite("End to end: libraries loaded only when used", .serialized, .ownThread)
struct LoadedLibrariesEndToEndTests {
    let home = TemporaryDirectory("e2e-loaded")
    let work = TemporaryDirectory("e2e-loaded-cwd")

    /// `brados ARGUMENTS` in the empty folder `work`, with the dynamic loader saying what it opens.
    func brados(_ arguments: [String], store: String, server: ServerProcess, extra: [String: String] = [:], stdin: String? = nil) throws -> BuiltProducts.Result {
        let brados = BuiltProducts.url("brados").path
        return try BuiltProducts.run(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", work.url.path, brados] + arguments,
                                     environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
                                                   "BRADOS_CREDENTIALS_STORE": store, "BRADOS_LIBRARY_PREFETCH": "false", "LD_DEBUG": "files"]
                                        .merging(extra) { $1 }, stdin: stdin)
    }

    static func loadsSecret(_ result: BuiltProducts.Result) -> Bool { result.stderr.contains("libsecret-1.so") }

    @Test("with credentials.store file: sign-in, reads and today load no libsecret; auto's reads of a file session neither")
    func noKeyringUnlessUsed() async throws {
        let server = try ServerProcess()
        let login = try brados(["auth", "login", "--user", "demo", "--password-stdin"], store: "file", server: server, stdin: "demo")
        #expect(login.status == 0)
        #expect(!Self.loadsSecret(login), "auth login with credentials.store file asked the keyring")
        for arguments in [["visits", "list"], ["--offline", "today"], ["--offline", "mealplan", "show"], ["--offline", "search", "protein"]] {
            for store in ["file", "auto"] {
                let result = try brados(arguments, store: store, server: server)
                #expect(!Self.loadsSecret(result), "\(store): \(arguments) loaded libsecret")
            }
        }
        // Where a command does ask the keyring (auth status with auto), an empty HOME is the account's, never the working directory.
        let status = try brados(["auth", "status"], store: "auto", server: server, extra: ["HOME": "", "XDG_CACHE_HOME": "", "XDG_CONFIG_HOME": "relative"])
        #expect(status.status == 0, "\(status.stderr.suffix(500))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.url.path).isEmpty, "brados wrote into the working directory")
    }

    @Test("a read of the caches starts one thread (the signal watcher) and calls no setpriority; a request starts more")
    func threadsOnlyWhenUsed() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], store: "file", server: server, stdin: "demo").status == 0)
        #expect(try brados(["mealplan", "show"], store: "file", server: server).status == 0)
        #expect(try brados(["visits", "list"], store: "file", server: server).status == 0)
        let trace = home.url.appendingPathComponent("threads.trace")
        func traced(_ arguments: [String]) throws -> (status: Int32, clones: Int, priorities: Int) {
            let run = try BuiltProducts.run(executable: URL(fileURLWithPath: "/usr/bin/strace"),
                                            ["-f", "-qq", "-e", "trace=clone,clone3,setpriority", "-o", trace.path, BuiltProducts.url("brados").path] + arguments,
                                            environment: ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
                                                          "BRADOS_CREDENTIALS_STORE": "file", "BRADOS_LIBRARY_PREFETCH": "false"])
            let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
            return (run.status, lines.filter { $0.contains("clone") && !$0.contains("resumed") }.count, lines.filter { $0.contains("setpriority(") }.count)
        }
        for arguments in [["mealplan", "show"], ["--offline", "visits", "list"], ["--offline", "today"], ["exit-codes"]] {
            let run = try traced(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.clones == 1, "\(arguments) started \(run.clones) threads")
            #expect(run.priorities == 0, "\(arguments) called setpriority \(run.priorities) times")
        }
        // A request uses threads (NIO's event loop): the trace sees them, so the count above means something.
        let fetch = try traced(["mealplan", "refresh"])
        #expect(fetch.status == 0)
        #expect(fetch.clones > 1, "a fetch started \(fetch.clones) threads")
    }
}
