import Foundation
import Testing
import TestSupport

/// `brados sync --watch --notify` end to end: the built `brados` follows a `brados-server`
/// process while the test writes assistant messages into it, and a notification service that
/// is not brados's own (python-dbusmock's, on a private session bus) receives the Notify calls.
@Suite("End to end: sync --watch --notify", .serialized, .ownThread)
struct NotificationsEndToEndTests {
    let home = TemporaryDirectory("e2e-notify")
    let data = TemporaryDirectory("e2e-notify-server")

    func environment(_ server: ServerProcess, _ extra: [String: String] = [:]) -> [String: String] {
        ["BRADOS_HOME": home.url.path, "HOME": home.url.path, "BRADOS_SERVER": server.url.absoluteString, "BRADOS_REALTIME_HEARTBEAT": "1",
         "BRADOS_CREDENTIALS_STORE": "file"].merging(extra) { $1 }
    }

    func brados(_ arguments: [String], _ server: ServerProcess, stdin: String? = nil) throws -> BuiltProducts.Result {
        try BuiltProducts.run("brados", arguments, environment: environment(server), stdin: stdin)
    }

    /// Signs in to both services and opens two conversations; returns their ids and titles.
    func prepare(_ server: ServerProcess) throws -> [(id: String, title: String)] {
        #expect(try brados(["auth", "login", "--user", "demo", "--password-stdin"], server, stdin: "demo").status == 0)
        #expect(try brados(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], server, stdin: "demo").status == 0)
        let listed = try brados(["coach", "conversations", "--json"], server)
        let conversations = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["conversations"] as? [[String: Any]]
        let opened = try #require(conversations?.prefix(2).map { ($0["id"] as? String ?? "", $0["title"] as? String ?? "") })
        for conversation in opened { #expect(try brados(["coach", "show", conversation.0, "--last", "1"], server).status == 0) }
        return opened.map { (id: $0.0, title: $0.1) }
    }

    /// Starts the watch with notifications and waits until the coach follows its channel.
    func watch(_ server: ServerProcess, _ extra: [String: String]) async throws -> BuiltProducts.Running {
        let watch = try BuiltProducts.start("brados", ["sync", "--watch", "--notify", "--verbose"], environment: environment(server, extra))
        #expect(try await eventually(timeout: .seconds(30)) { try await server.realtimeChannels() == 1 }, "the coach joins its channel")
        return watch
    }

    /// `count` messages from `role` in one statement (one transaction: a burst).
    func say(_ count: Int, in conversation: String, _ server: ServerProcess, role: String = "assistant", text: String = "Drink water") async throws {
        try await server.sql("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
            SELECT 'notify-' || lower(hex(randomblob(8))), c.id, c.user_id, ?, ? || ' ' || n.i, (julianday('now') - 2440587.5) * 86400.0 + n.i / 1000.0
            FROM conversations c, n WHERE c.id = ?
            """, [role, text, conversation])
    }

    @Test("a message from the assistant is one notification; a burst of 50 is one (\"50 new messages\"); a conversation's next replaces its own")
    func notifies() async throws {
        let server = try ServerProcess(dataDirectory: data.url)
        let conversations = try prepare(server)
        let session = try NotificationSession()
        let watch = try await watch(server, session.environment)

        try await say(1, in: conversations[0].id, server, text: "Eat <more> greens & rest")
        #expect(try await eventually(timeout: .seconds(20)) { session.calls().count == 1 })
        let first = try #require(session.calls().first)
        #expect(first.appName == "brados" && first.replaces == 0 && first.icon == "mail-message-new")
        #expect(first.summary == conversations[0].title, "titled by its conversation")
        #expect(first.body == "Eat &lt;more&gt; greens &amp; rest 1", "markup in the data is escaped: \(first.body)")
        #expect(first.hints.contains(#""category": "im.received""#) && first.hints.contains(#""desktop-entry": "brados""#), "\(first.hints)")

        // A message of the person's own is not news; 50 from the assistant in another conversation
        // are one notification: one call, or (on a slow machine, the burst arriving across the
        // gather) a first replaced by one that counts all 50.
        try await say(1, in: conversations[1].id, server, role: "user")
        try await say(50, in: conversations[1].id, server)
        #expect(try await eventually(timeout: .seconds(30)) { session.calls().last?.summary == "\(conversations[1].title): 50 new messages from your coach" },
                "\(session.calls().map(\.summary))")
        let burst = Array(session.calls().dropFirst())
        #expect((1...2).contains(burst.count) && burst.first?.replaces == 0, "\(burst)")
        #expect(burst.dropFirst().allSatisfy { $0.replaces == 2 }, "a second replaces the first (id 2): \(burst)")
        #expect(burst.last?.body.hasSuffix("Drink water 50") == true, "the newest message's text: \(burst.last?.body ?? "")")

        // The first conversation again: its notification replaces its own (id 1), counting on.
        try await say(1, in: conversations[0].id, server)
        #expect(try await eventually(timeout: .seconds(30)) { session.calls().last?.replaces == 1 })
        let third = try #require(session.calls().last)
        // It counts on while the conversation's news follow within a minute (the schedule's
        // quiet time); a loaded machine may take longer from the first, and then it is one.
        let since = third.at.timeIntervalSince(first.at)
        let counted = "\(conversations[0].title): 2 new messages from your coach", alone = conversations[0].title
        if since < 58 { #expect(third.summary == counted, "\(since) s after the first: \(third)") }
        else if since > 62 { #expect(third.summary == alone, "\(since) s after the first: \(third)") }
        else { #expect([counted, alone].contains(third.summary), "\(since) s after the first: \(third)") }
        #expect(third.at.timeIntervalSince(burst.last?.at ?? .distantPast) >= 4.9, "at most one a domain every 5 seconds")

        #expect(watch.isRunning)
        watch.send(SIGTERM)
        let result = watch.finish()
        #expect(result.status == 143, "\(result.stderr)")
        #expect(!result.stderr.contains("--notify:"), "no notice when notifications work: \(result.stderr)")
    }

    @Test("two conversations at once: one notification of how many conversations, under neither's title or id; each keeps its own, unread, after")
    func acrossConversations() async throws {
        let server = try ServerProcess(dataDirectory: data.url)
        let conversations = try prepare(server)
        let session = try NotificationSession()
        let watch = try await watch(server, session.environment)
        defer { watch.send(SIGKILL); _ = watch.finish() }
        try await say(1, in: conversations[0].id, server, text: "first of the first")
        #expect(try await eventually(timeout: .seconds(20)) { session.calls().count == 1 })
        // Within the domain's window: one in each conversation, in one write (two writes could
        // fall either side of a sync on a loaded machine, and be two notifications rightly).
        try await server.sql("""
            INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
            SELECT 'notify-' || lower(hex(randomblob(8))), c.id, c.user_id, 'assistant',
                   CASE c.id WHEN ? THEN 'second of the first' ELSE 'first of the second' END, (julianday('now') - 2440587.5) * 86400.0
            FROM conversations c WHERE c.id IN (?, ?)
            """, [conversations[0].id, conversations[0].id, conversations[1].id])
        #expect(try await eventually(timeout: .seconds(20)) { session.calls().count == 2 }, "\(session.calls().map(\.summary))")
        let burst = try #require(session.calls().last)
        #expect(burst.summary == "2 new messages from your coach in 2 conversations", "\(burst)")
        #expect(burst.body.contains(conversations[0].title) && burst.body.contains(conversations[1].title), "\(burst.body)")
        #expect(burst.replaces == 0, "a notification of its own: the first conversation's (id 1) stays on screen")
        // The second conversation's next is its own, not the burst's id (2), not the first's (1).
        try await Task.sleep(for: .seconds(5.2))
        try await say(1, in: conversations[1].id, server, text: "second of the second")
        #expect(try await eventually(timeout: .seconds(20)) { session.calls().count == 3 })
        let own = try #require(session.calls().last)
        #expect(own.replaces == 0 && own.summary == "\(conversations[1].title): 2 new messages from your coach", "\(own)")
    }

    @Test("the person's own weight is no news; targets another brados fetched are, without waiting for the watch's next sync")
    func ownChanges() async throws {
        let server = try ServerProcess(dataDirectory: data.url)
        _ = try prepare(server)
        func calories() throws -> Int? {
            let shown = try brados(["plan", "show", "--json", "--offline"], server)
            let document = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
            return ((document?["plan"] as? [String: Any])?["targets"] as? [String: Any])?["calorieTarget"] as? Int
        }
        #expect(try brados(["plan", "show"], server).status == 0)
        let before = try calories()
        let session = try NotificationSession()
        let watch = try await watch(server, session.environment)
        defer { watch.send(SIGKILL); _ = watch.finish() }
        try await Task.sleep(for: .seconds(1))
        #expect(try brados(["plan", "weight", "85.2"], server).status == 0)
        #expect(try calories() != before, "the weight moved the targets")
        try await Task.sleep(for: .seconds(5))
        #expect(session.calls().isEmpty, "their own change: \(session.calls().map(\.body))")
        // The service's plan changes, and another brados fetches it.
        _ = try await server.sql("UPDATE nutrition_plan SET document = json_set(document, '$.targets.calorieTarget', 2100)")
        #expect(try brados(["plan", "refresh"], server).status == 0)
        #expect(try await eventually(timeout: .seconds(15)) { session.calls().count == 1 }, "\(watch.stderrSoFar)")
        let call = try #require(session.calls().first)
        #expect(call.summary == "Your nutrition plan changed" && call.body.contains("→ 2100 kcal"), "\(call)")
    }

    @Test("notify.detail summary shows what happened without content; none only a count")
    func detailLevels() async throws {
        let server = try ServerProcess(dataDirectory: data.url)
        let conversations = try prepare(server)
        let session = try NotificationSession()
        for (level, summary) in [("summary", "New message from your coach"), ("none", "brados: 1 update")] {
            #expect(try brados(["config", "set", "notify.detail", level], server).status == 0)
            let before = session.calls().count
            let watch = try await watch(server, session.environment)
            try await say(1, in: conversations[0].id, server, text: "Your weight 81.4 kg")
            #expect(try await eventually(timeout: .seconds(20)) { session.calls().count == before + 1 })
            let call = try #require(session.calls().last)
            #expect(call.summary == summary && call.body.isEmpty, "\(level): \(call)")
            watch.send(SIGTERM)
            #expect(watch.finish().status == 143)
            #expect(try await eventually(timeout: .seconds(10)) { try await server.realtimeChannels() == 0 })
        }
    }

    @Test("no session bus, or no notification service on it: one notice, and the watch goes on caching")
    func withoutService() async throws {
        let server = try ServerProcess(dataDirectory: data.url)
        let conversations = try prepare(server)
        let empty = try NotificationSession(withService: false)
        // A service the bus starts on demand that dies as it starts (dunst with no display): as none, in a person's words.
        let crashing = try NotificationSession(crashingService: true)
        for bus in ["unix:path=\(home.url.path)/no-bus-here", empty.environment["DBUS_SESSION_BUS_ADDRESS"]!, crashing.environment["DBUS_SESSION_BUS_ADDRESS"]!] {
            let watch = try await watch(server, ["DBUS_SESSION_BUS_ADDRESS": bus])
            for round in 1...2 {
                try await say(1, in: conversations[0].id, server, text: "round \(round) \(bus.hasSuffix("no-bus-here"))")
                #expect(try await eventually(timeout: .seconds(20)) {
                    try brados(["coach", "show", conversations[0].id, "--offline", "--json", "--last", "1"], server).stdout
                        .contains("round \(round) \(bus.hasSuffix("no-bus-here"))")
                })
                try await Task.sleep(for: .seconds(5.2))  // the next round is past the domain's window
            }
            #expect(watch.isRunning)
            watch.send(SIGTERM)
            let result = watch.finish()
            #expect(result.status == 143)
            let notices = result.stderr.components(separatedBy: "\n").filter { $0.contains("sync --watch --notify:") }
            #expect(notices.count == 1, "\(result.stderr)")
            #expect(notices.first?.contains(bus.hasSuffix("no-bus-here") ? "No desktop session bus" : "No notification service") == true, "\(notices)")
            #expect(!notices.joined().contains("org.freedesktop.DBus.Error"), "in a person's words: \(notices)")
            if bus == crashing.environment["DBUS_SESSION_BUS_ADDRESS"] {
                #expect(notices.first?.contains("could start") == true && notices.first?.contains("killed by a signal") == true, "\(notices)")
            }
            #expect(try await eventually(timeout: .seconds(10)) { try await server.realtimeChannels() == 0 })
        }
    }
}
