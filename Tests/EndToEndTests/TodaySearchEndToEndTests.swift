import Foundation
import Testing
import TestSupport

/// `brados today` and `brados search` end to end: the built `brados` against a
/// `brados-server` process; the search index checked after each write path that must move it.
@Suite("End to end: today and search", .serialized, .ownThread)
struct TodaySearchEndToEndTests {
    let home = TemporaryDirectory("e2e-today-search")

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil, extra: [String: String] = [:]) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: [
            "BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString,
        ].merging(extra) { $1 }, stdin: stdin)
    }

    func json(_ arguments: [String], _ server: ServerProcess) throws -> [String: Any] {
        let result = try brados(arguments + ["--json"], server)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    /// The ids `brados search` finds.
    func found(_ query: String, _ server: ServerProcess, domain: String? = nil, syntax: Bool = false) throws -> [String] {
        let document = try json(["search", query, "--limit", "1000"] + (syntax ? ["--syntax"] : []) + (domain.map { ["--domain", $0] } ?? []), server)
        return (document["results"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func signIn(_ server: ServerProcess) throws {
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
    }

    @Test("today: nothing cached says what fills it; after mealplan show it shows today's meals; no request; --json keyed by domain; --refresh fills")
    func today() async throws {
        let server = try ServerProcess()
        try signIn(server)
        try await server.resetStats()
        let empty = try brados(["today"], server)
        #expect(empty.status == 0, "\(empty.stderr)")
        for fill in ["brados mealplan show", "brados visits list", "brados coach conversations", "brados plan show"] {
            #expect(empty.stdout.contains("nothing cached · \(fill)"), "\(empty.stdout)")
        }
        #expect(try await server.stats().total == 0, "today never uses the network")

        #expect(try brados(["mealplan", "show"], server).status == 0)
        let meals = try #require((try json(["mealplan", "today"], server)["day"] as? [String: Any])?["meals"] as? [[String: Any]])
        try await server.resetStats()
        let shown = try brados(["today"], server)
        for meal in meals { #expect(shown.stdout.contains(meal["recipeName"] as? String ?? "?"), "\(shown.stdout)") }
        #expect(try await server.stats().total == 0)

        let document = try json(["today"], server)
        #expect(Set(document.keys) == ["mealplan", "visits", "coach", "plan"])
        let mealplan = try #require(document["mealplan"] as? [String: Any])
        #expect(mealplan["cached"] as? Bool == true)
        #expect((mealplan["meals"] as? [[String: Any]])?.compactMap { $0["recipeName"] as? String } == meals.compactMap { $0["recipeName"] as? String })
        #expect((document["visits"] as? [String: Any])?["cached"] as? Bool == false)
        #expect((document["visits"] as? [String: Any])?["fill"] as? String == "brados visits list")

        // --refresh fetches what is missing; a weight queued offline is listed as waiting.
        #expect(try brados(["today", "--refresh"], server).status == 0)
        #expect(try brados(["--offline", "plan", "weight", "81.5"], server).status == 0)
        let refreshed = try json(["today"], server)
        for domain in ["mealplan", "visits", "coach", "plan"] {
            #expect((refreshed[domain] as? [String: Any])?["cached"] as? Bool == true, "\(domain): \(refreshed)")
        }
        #expect(((refreshed["plan"] as? [String: Any])?["queued"] as? [[String: Any]])?.first?["summary"] as? String == "weight 81.5 kg", "\(refreshed)")
        let screen = try brados(["today"], server)
        #expect(screen.stdout.contains("Waiting to be sent") && screen.stdout.contains("plan: weight 81.5 kg"), "\(screen.stdout)")
        #expect(!screen.stdout.contains("\u{1B}["), "no styles when piped")
    }

    @Test("search: each domain's documents, --domain, --json fields, -F, bad and hostile queries, and every write path keeps the index equal to the caches")
    func search() async throws {
        let server = try ServerProcess()
        try signIn(server)
        #expect(try brados(["search", "anything"], server).stdout.contains("No cached item matches"))
        #expect(try brados(["mealplan", "show"], server).status == 0)
        let visits = try #require(try json(["visits", "list"], server)["visits"] as? [[String: Any]])
        let conversations = try #require(try json(["coach", "conversations"], server)["conversations"] as? [[String: Any]])
        let conversation = try #require(conversations.first?["id"] as? String)
        #expect(try brados(["coach", "show", conversation], server).status == 0)
        let albums = try #require(try json(["library", "albums"], server)["albums"] as? [[String: Any]])

        // Each domain's documents are found by a word of theirs, with the command that opens them.
        let meal = try #require(((try json(["mealplan", "today"], server)["day"] as? [String: Any])?["meals"] as? [[String: Any]])?.first)
        let mealWord = try #require((meal["recipeName"] as? String)?.components(separatedBy: " ").max { $0.count < $1.count })
        let mealHits = try #require(try json(["search", mealWord, "--domain", "mealplan"], server)["results"] as? [[String: Any]])
        #expect(mealHits.contains { $0["command"] as? String == "brados mealplan show" && ($0["title"] as? String ?? "").contains(mealWord) }, "\(mealHits)")
        // The plan's critiques are the plan's text too ("more protein please").
        let critiqueHits = try #require(try json(["search", "protein", "please", "--domain", "mealplan"], server)["results"] as? [[String: Any]])
        #expect(critiqueHits.contains { ($0["id"] as? String)?.hasPrefix("critique:") == true && ($0["title"] as? String ?? "").contains("more protein please") },
                "\(critiqueHits)")
        let visit = try #require(visits.first)
        let visitID = try #require(visit["id"] as? String)
        #expect(try found("\"\(visit["place"] as? String ?? "")\"", server, domain: "visits").contains("visit:\(visitID)"))
        let title = try #require(conversations.first?["title"] as? String)
        let coachHits = try #require(try json(["search", "\"\(title)\"", "--domain", "coach"], server)["results"] as? [[String: Any]])
        #expect(coachHits.contains { $0["id"] as? String == "conversation:\(conversation)" && $0["command"] as? String == "brados coach show \(conversation)" })
        // A message's hit names it: its command opens the conversation at that message, not from the top.
        let messages = try #require(try json(["coach", "show", conversation, "--last", "1"], server)["messages"] as? [[String: Any]])
        let lastMessage = try #require(messages.first)
        let messageID = try #require(lastMessage["id"] as? String)
        let words = (lastMessage["content"] as? String ?? "").split(separator: " ").prefix(6).joined(separator: " ")
        let messageHit = try #require((try json(["search", words, "--domain", "coach", "--limit", "1000"], server)["results"] as? [[String: Any]])?
            .first { $0["id"] as? String == "message:\(messageID)" }, "\(words)")
        let opener = try #require(messageHit["command"] as? String)
        #expect(opener == "brados coach show \(conversation) --message \(messageID)")
        let opened = try brados(Array(opener.split(separator: " ").dropFirst().map(String.init)), server)
        #expect(opened.status == 0 && opened.stdout.split(separator: "\n").contains { $0.hasPrefix("▶ ") }, "\(opened.stdout)\(opened.stderr)")
        #expect(opened.stdout.split(separator: "\n").count < 40, "the message in its place, not the whole conversation")
        let album = try #require(albums.first)
        let albumHits = try #require(try json(["search", "\"\(album["title"] as? String ?? "")\"", "--domain", "library"], server)["results"] as? [[String: Any]])
        let albumHit = try #require(albumHits.first { $0["id"] as? String == "album:\(album["ratingKey"] as? String ?? "")" })
        #expect(Set(albumHit.keys) == ["domain", "id", "title", "snippet", "date", "command", "score"])
        #expect(albumHit["command"] as? String == "brados library show \(album["ratingKey"] as? String ?? "")")
        #expect(try found("\"\(title)\"", server, domain: "library").allSatisfy { $0.hasPrefix("album:") || $0.hasPrefix("collection:") })
        #expect(try SearchIndexCheck.indexed(home: home.url, domain: "coach") == (try SearchIndexCheck.coachCache(home: home.url)))
        #expect(try SearchIndexCheck.indexed(home: home.url, domain: "library") == (try SearchIndexCheck.libraryCache(home: home.url)))

        // Queries: words as typed by default (punctuation and operators are text); --syntax errors
        // are usage errors with a way out; long and operator-heavy ones are answered or refused cleanly.
        for typed in ["I'm", "don't", "AND OR", "\"unbalanced", "(a"] {
            let result = try brados(["search", typed], server)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(typed): \(result.status) \(result.stderr)")
        }
        let bad = try brados(["search", "--syntax", "AND OR"], server)
        #expect(bad.status == 64 && bad.stderr.contains("not valid FTS5 query syntax") && bad.stderr.contains("drop --syntax"), "\(bad.stderr)")
        #expect(try brados(["search", "--syntax", "don't"], server).status == 64)
        #expect(try brados(["search", "-F", "don't"], server).status == 0, "-F, the default now, is still accepted")
        let long = try brados(["search", String(repeating: "protein ", count: 1300)], server)
        #expect(long.status == 64 && long.stderr.contains("1300 terms"), "\(long.stderr)")
        #expect(try brados(["search", String(repeating: "protein ", count: 60)], server).status == 0)
        for hostile in [String(repeating: "\"(", count: 2000), String(repeating: "a OR NOT ", count: 1200) + "b", "NEAR(\"", "*", "title:", "^^^"] {
            let result = try brados(["search", "--syntax", hostile], server)
            #expect([0, 64].contains(result.status) && !result.stderr.contains("Fatal"), "\(hostile.prefix(20)): \(result.status) \(result.stderr)")
        }
        #expect(try brados(["search", "x", "--limit", "0"], server).status == 64)
        // --domain narrows the match, never re-runs it per document.
        #expect(try found("a*", server, domain: "library", syntax: true).allSatisfy { $0.hasPrefix("album:") || $0.hasPrefix("collection:") })
        #expect(try brados(["search", "x", "--domain", "plan"], server).status == 64, "plan yields no documents")

        // Write paths: a visit deleted leaves the index; one whose delete the server refuses comes back.
        #expect(try brados(["visits", "delete", visitID], server).status == 0)
        #expect(try !found("\"\(visit["place"] as? String ?? "")\"", server, domain: "visits").contains("visit:\(visitID)"))
        let kept = try #require(visits.dropFirst().first?["id"] as? String)
        try await server.addFault(#"{"match":"DELETE /api/visits","status":503}"#)
        #expect(try brados(["visits", "delete", kept], server).status != 0)
        try await server.clearFaults()
        #expect(try found("\"\(visits.dropFirst().first?["place"] as? String ?? "")\"", server, domain: "visits").contains("visit:\(kept)"))

        // A conversation deleted takes its messages out of the index.
        #expect(try brados(["coach", "delete", conversation, "--yes"], server).status == 0)
        #expect(try !found("\"\(title)\"", server, domain: "coach").contains("conversation:\(conversation)"))
        #expect(try SearchIndexCheck.indexed(home: home.url, domain: "coach") == (try SearchIndexCheck.coachCache(home: home.url)))

        // cache clear, export and import: the index follows; --reindex builds the same.
        let archive = home.url.appendingPathComponent("backup.tar.gz").path
        #expect(try brados(["cache", "export", "--output", archive], server).status == 0)
        #expect(try brados(["cache", "clear", "library"], server).status == 0)
        #expect(try found("\"\(album["title"] as? String ?? "")\"", server, domain: "library").isEmpty)
        #expect(try brados(["cache", "import", archive, "--replace"], server).status == 0)
        #expect(try !found("\"\(album["title"] as? String ?? "")\"", server, domain: "library").isEmpty)
        #expect(try SearchIndexCheck.indexed(home: home.url, domain: "library") == (try SearchIndexCheck.libraryCache(home: home.url)))
        let before = try SearchIndexCheck.indexed(home: home.url, domain: "coach")
        #expect(try brados(["search", "--reindex"], server).status == 0)
        #expect(try SearchIndexCheck.indexed(home: home.url, domain: "coach") == before)

        // Logout erases the index with the profile.
        let index = home.url.appendingPathComponent("cache/users/default/search/index.sqlite")
        #expect(FileManager.default.fileExists(atPath: index.path))
        #expect(try brados(["auth", "logout", "--keep-key"], server).status == 0)
        #expect(!FileManager.default.fileExists(atPath: index.path))
    }
}
