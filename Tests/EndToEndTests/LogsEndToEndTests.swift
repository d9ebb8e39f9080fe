import Foundation
import Testing
import TestSupport

/// Spec 004 §6.5 on logs: one structured line per operation (operation, success, duration,
/// error type), JSON lines with `--log-format json`; and no user's body values: a server's
/// error text may quote them ("could not store currentWeight 84.5 kg"), so no log line at any
/// verbosity carries text a server sent; the error a command ends with, on the person's own
/// screen, may.
@Suite("End to end: logs", .serialized, .ownThread)
struct LogsEndToEndTests {
    let home = TemporaryDirectory("e2e-logs")
    static let marker = "MARKER-currentWeight-84.5kg"

    /// The built brados at log level `trace` (or as `extra` says).
    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_LOG": "trace",
        ].merging(extra) { $1 }, stdin: stdin)
    }

    /// The lines of stderr the logger wrote (`brados: LEVEL: …`), not the command's final error.
    static func logLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.range(of: #"^brados: (trace|debug|info|notice|warning|error|critical): "#, options: .regularExpression) != nil }
    }

    @Test("every domain's commands against a server that puts a marker in every error body: no log line holds it")
    func serverTextNeverLogged() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let commands: [[String]] = [
            ["mealplan", "show", "--refresh"], ["visits", "list", "--refresh"], ["visits", "add", "--place", "Somewhere"],
            ["library", "albums", "--refresh"], ["coach", "conversations", "--refresh"], ["plan", "show", "--refresh"],
            ["plan", "recompute"], ["plan", "weight", "84.5"], ["plan", "sync"], ["sync"],
        ]
        // Every command once with no fault: the caches the fallbacks below log about.
        for command in commands { _ = try brados(command, server) }
        let body = #"{"error":{"message":"could not store \#(Self.marker)"},"message":"\#(Self.marker)","detail":"\#(Self.marker)"}"#
        let faults = [
            // Retried (each retry logs a line), then answered.
            #"{"match":"*","status":500,"count":1,"body":\#(Self.quoted(body))}"#,
            // Refused: a definite "no", with the service's words.
            #"{"match":"*","status":422,"count":2,"body":\#(Self.quoted(body))}"#,
            #"{"match":"*","status":400,"count":2,"body":\#(Self.quoted("plain text: " + Self.marker))}"#,
            // An answer that does not decode, holding the marker.
            #"{"match":"*","status":200,"count":2,"body":\#(Self.quoted(#"{"id": "\#(Self.marker)", "oops": ["# + "\"" + Self.marker + "\"" + "]"))}"#,
        ]
        var logged = 0
        var quoted = 0
        for fault in faults {
            for command in commands {
                try await server.clearFaults()
                try await server.addFault(fault)
                let result = try brados(command, server)
                let lines = Self.logLines(result.stderr)
                logged += lines.count
                let leaked = lines.filter { $0.contains(Self.marker) }
                #expect(leaked.isEmpty, "\(command) under \(fault) logged the server's text: \(leaked)")
                if result.stderr.contains(Self.marker) { quoted += 1 }
            }
        }
        try await server.clearFaults()
        // The test saw log lines to check (trace logs every request), and the marker did reach
        // the person's own screen in the final errors: it was there to leak.
        #expect(logged > 100, "only \(logged) log lines")
        #expect(quoted > 0)
    }

    @Test("each operation logs one line with operation, success, duration_ms and error_type; --log-format json makes them JSON lines")
    func operationLines() async throws {
        let server = try ServerProcess()
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        let text = try brados(["visits", "list", "--refresh"], server, extra: ["BRADOS_LOG": "info"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stderr.contains("brados: info: visits.refresh ok in ") && text.stderr.contains("operation=visits.refresh success=true"), "\(text.stderr)")

        func jsonLines(_ arguments: [String], extra: [String: String] = [:]) throws -> (status: Int32, lines: [[String: Any]]) {
            let result = try brados(arguments, server, extra: ["BRADOS_LOG": "info"].merging(extra) { $1 })
            let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
            let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(objects.count == lines.count, "every log line is one JSON object: \(result.stderr)")
            return (result.status, objects)
        }
        // Every domain's sync: one line each, the fields typed (a number, a boolean).
        let synced = try jsonLines(["sync", "--log-format", "json"])
        #expect(synced.status == 0)
        for domain in ["mealplan", "visits", "library", "coach", "plan"] {
            let line = synced.lines.first { $0["operation"] as? String == "\(domain).sync" }
            #expect(line?["success"] as? Bool == true && line?["duration_ms"] is Int && line?["level"] as? String == "info", "\(domain): \(synced.lines)")
            #expect((line?["time"] as? String)?.hasSuffix("Z") == true, "\(String(describing: line))")
        }
        // The setting's environment variable does the same; a failure names its type, never its text.
        try await server.addFault(#"{"match":"GET /api/visits","status":503}"#)
        let failed = try jsonLines(["visits", "list", "--refresh"], extra: ["BRADOS_LOG_FORMAT": "json"])
        #expect(failed.status == 6)
        let refresh = failed.lines.first { $0["operation"] as? String == "visits.refresh" }
        #expect(refresh?["success"] as? Bool == false && refresh?["error_type"] as? String == "server", "\(failed.lines)")
        try await server.clearFaults()
        // A delete and an export are operations too.
        let added = try brados(["visits", "add", "--place", "Logged", "--json"], server)
        let document = try? JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any]
        let id = try #require((document?["visit"] as? [String: Any])?["id"] as? String, "\(added.stdout)")
        let deleted = try jsonLines(["visits", "delete", id, "--log-format", "json"])
        #expect(deleted.lines.contains { $0["operation"] as? String == "visits.delete" && $0["success"] as? Bool == true }, "\(deleted.lines)")
        let archive = home.url.appendingPathComponent("logged.tar.zst").path
        let exported = try jsonLines(["cache", "export", "-o", archive, "--log-format", "json"])
        #expect(exported.lines.contains { $0["operation"] as? String == "cache.export" && $0["success"] as? Bool == true }, "\(exported.lines)")
        // A wrong value is a usage error that says what is accepted.
        let wrong = try brados(["visits", "list", "--log-format", "yaml"], server)
        #expect(wrong.status == 64 && wrong.stderr.contains("text or json"), "\(wrong.stderr)")
    }

    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes]), as: UTF8.self).dropFirst().dropLast().description
    }
}
