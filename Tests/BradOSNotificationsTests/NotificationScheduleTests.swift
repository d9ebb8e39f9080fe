@testable import BradOSNotifications
import TestSupport
import BradOSCore
import Foundation
import Testing

@Suite("When notifications are shown: bursts coalesce, one a window a domain, each conversation its own")
struct NotificationScheduleTests {
    func message(_ conversation: String, _ text: String = "Hi") -> News {
        News(domain: "coach", thread: conversation, threadTitle: "Title \(conversation)", headline: "New message from your coach",
             headlineMany: "%d new messages from your coach", headlineAcross: "%d new messages from your coach in %t conversations",
             detail: text, category: "im.received", icon: "mail-message-new")
    }

    @Test("50 messages in a second: one notification at first, then one replacing it that says 50, titled by the conversation")
    func burst() {
        var plan = NotificationSchedule(detail: .full)
        plan.add(message("c1", "first"), at: .zero)
        #expect(plan.takeDue(at: .milliseconds(50)).isEmpty, "news waits the gather time")
        let first = plan.takeDue(at: .milliseconds(100))
        #expect(first.count == 1 && first[0].count == 1 && first[0].replaces == 0)
        #expect(NotificationDetail.full.text(for: first[0]) == ("Title c1", "first"))
        plan.shown(first[0], id: 7, at: .milliseconds(100))
        for index in 1..<50 { plan.add(message("c1", "m\(index)"), at: .milliseconds(100 + index * 18)) }
        #expect(plan.takeDue(at: .seconds(1)).isEmpty, "no second notification inside the window")
        #expect(plan.nextDue == .milliseconds(5100))
        let second = plan.takeDue(at: .milliseconds(5100))
        #expect(second.count == 1)
        #expect(second[0].count == 50 && second[0].replaces == 7, "\(second)")
        #expect(NotificationDetail.full.text(for: second[0]) == ("Title c1: 50 new messages from your coach", "m49"))
        #expect(NotificationDetail.summary.text(for: second[0]) == ("50 new messages from your coach", ""), "no title, no text")
    }

    @Test("a burst inside the gather time is one notification")
    func together() {
        var plan = NotificationSchedule(detail: .summary)
        for index in 0..<1000 { plan.add(message("c1", "\(index)"), at: .microseconds(index * 50)) }
        let due = plan.takeDue(at: .milliseconds(150))
        #expect(due.count == 1 && due[0].count == 1000)
        #expect(plan.nextDue == nil)
    }

    @Test("each conversation replaces its own notification, titled by it; after a quiet minute the count starts again")
    func threads() {
        var plan = NotificationSchedule(detail: .full)
        plan.add(message("c1"), at: .zero)
        let one = plan.takeDue(at: .milliseconds(100))[0]
        plan.shown(one, id: 1, at: .milliseconds(100))
        plan.add(message("c2"), at: .seconds(10))
        let two = plan.takeDue(at: .seconds(11))[0]
        #expect(two.replaces == 0 && two.count == 1, "another conversation does not replace the first's")
        #expect(NotificationDetail.full.text(for: two).summary == "Title c2")
        plan.shown(two, id: 2, at: .seconds(11))
        plan.add(message("c1"), at: .seconds(20))
        let three = plan.takeDue(at: .seconds(21))[0]
        #expect(three.replaces == 1 && three.count == 2, "the first conversation's replaces its own, counting on")
        plan.shown(three, id: 3, at: .seconds(21))
        plan.add(message("c1"), at: .seconds(200))
        #expect(plan.takeDue(at: .seconds(201))[0].count == 1, "after a quiet minute the count starts again")
    }

    @Test("two conversations at once are one notification saying how many conversations, under neither's title nor id; each keeps its own after")
    func acrossConversations() {
        var plan = NotificationSchedule(detail: .full)
        plan.add(message("a"), at: .zero)
        let first = plan.takeDue(at: .milliseconds(100))[0]
        plan.shown(first, id: 1, at: .milliseconds(100))
        // Within one window: two in a, one in b.
        plan.add(message("a", "more"), at: .seconds(1))
        plan.add(message("b", "hello"), at: .seconds(2))
        plan.add(message("a", "again"), at: .seconds(3))
        let burst = plan.takeDue(at: .milliseconds(5100))
        #expect(burst.count == 1)
        #expect(burst[0].key == "coach/*" && burst[0].replaces == 0, "its own notification, not a's (1): \(burst[0].replaces)")
        #expect(burst[0].count == 3 && burst[0].threads.count == 2, "what came since, not what a's own still shows: \(burst[0].count)")
        #expect(NotificationDetail.full.text(for: burst[0]) == ("3 new messages from your coach in 2 conversations", "Title a (2), Title b"))
        #expect(NotificationDetail.summary.text(for: burst[0]) == ("3 new messages from your coach in 2 conversations", ""))
        plan.shown(burst[0], id: 2, at: .milliseconds(5100))
        // b's next is b's own (a new notification), never the burst's id nor a's.
        plan.add(message("b", "b again"), at: .seconds(11))
        let next = plan.takeDue(at: .seconds(11) + .milliseconds(100))[0]
        #expect(next.key == "coach/b" && next.replaces == 0 && next.count == 2, "\(next)")
        #expect(NotificationDetail.full.text(for: next).summary == "Title b: 2 new messages from your coach")
        plan.shown(next, id: 3, at: .seconds(12))
        // a's next replaces a's own (1), counting what the burst told of it.
        plan.add(message("a", "a again"), at: .seconds(20))
        let mine = plan.takeDue(at: .seconds(20) + .milliseconds(100))[0]
        #expect(mine.key == "coach/a" && mine.replaces == 1 && mine.count == 4, "\(mine)")
        // Another burst within the quiet time replaces the first burst's notification, counting on.
        plan.add(message("a"), at: .seconds(30))
        plan.add(message("c"), at: .seconds(30))
        let again = plan.takeDue(at: .seconds(31))[0]
        #expect(again.key == "coach/*" && again.replaces == 2 && again.threads.count == 3 && again.count == 5, "\(again)")
    }

    @Test("detail none: every domain is one count; summary: no content; full: the text, markup escaped")
    func levels() {
        var plan = NotificationSchedule(detail: .none)
        plan.add(message("c1"), at: .zero)
        plan.add(News(domain: "plan", thread: "plan", headline: "Your nutrition plan changed", headlineMany: "x %d", detail: "Calories 2200 → 2050 kcal",
                      category: "x-brados.plan", icon: "dialog-information"), at: .zero)
        plan.add(message("c2"), at: .zero)
        let due = plan.takeDue(at: .seconds(1))
        #expect(due.count == 1)
        #expect(NotificationDetail.none.text(for: due[0]) == ("brados: 3 updates", ""))
        var single = NotificationSchedule(detail: .summary)
        single.add(message("c1", "secret weight 81 kg"), at: .zero)
        #expect(NotificationDetail.summary.text(for: single.takeDue(at: .seconds(1))[0]) == ("New message from your coach", ""))
        var full = NotificationSchedule(detail: .full)
        var hostile = message("c1", "<b>eat</b> & rest\u{7}")
        hostile.threadTitle = "Tom & <Jerry>\u{202E}"
        full.add(hostile, at: .zero)
        let words = NotificationDetail.full.text(for: full.takeDue(at: .seconds(1))[0])
        #expect(words.body == "&lt;b&gt;eat&lt;/b&gt; &amp; rest")
        #expect(words.summary == "Tom & <Jerry>", "a summary is plain text: nothing escaped, nothing unseen kept")
    }
}

@Suite("The session bus: addresses and messages")
struct SessionBusTests {
    @Test("unix: addresses, path and abstract, with %-escapes; others are skipped")
    func addresses() throws {
        #expect(SessionBus.socketPath("unix:path=/run/user/1000/bus")! == ("/run/user/1000/bus", false))
        #expect(SessionBus.socketPath("unix:abstract=/tmp/dbus-x,guid=abc")! == ("/tmp/dbus-x", true))
        #expect(SessionBus.socketPath("unix:path=/tmp/a%20b")!.path == "/tmp/a b")
        #expect(SessionBus.socketPath("tcp:host=localhost,port=1") == nil)
        #expect(throws: NotificationError.self) { try SessionBus.address(environment: [:]) }
        #expect(throws: NotificationError.self) { try SessionBus(address: "unix:path=/nonexistent/bus") }
    }

    @Test("marshalling: strings, arrays and a{sv} hints aligned as D-Bus says")
    func marshal() {
        var marshal = Marshal()
        marshal.append(.string("brados"))
        marshal.append(.uint32(5))
        marshal.append(.stringArray([]))
        marshal.append(.hints([("urgency", .byte(1))]))
        let bytes = marshal.bytes
        #expect(Array(bytes[0..<4]) == [6, 0, 0, 0] && Array(bytes[4..<11]) == Array("brados\0".utf8))
        #expect(Array(bytes[12..<16]) == [5, 0, 0, 0], "the u is 4-aligned after the string")
        #expect(Array(bytes[16..<20]) == [0, 0, 0, 0], "an empty as")
        // a{sv}: length at 20, padding to 24, then the dict entry: "urgency" (4+7+1), signature "y", the byte.
        #expect(Marshal.read32(bytes, 20, true) == UInt32(bytes.count - 24))
        #expect(bytes.suffix(4) == [1, UInt8(ascii: "y"), 0, 1])
    }
}

@Suite("The notifier says once that notifications cannot be shown")
struct NotifierTests {
    final class Absent: NotificationSending {
        func send(_ notification: DesktopNotification) throws -> UInt32 { throw NotificationError.noSessionBus("none here") }
        func serverName() throws -> String { throw NotificationError.noSessionBus("none here") }
    }

    @Test("no bus when the watch starts: one notice then, none again")
    func probe() async {
        let said = Locked<[String]>([])
        let notifier = Notifier(detail: .full, sender: Absent(), warn: { line in said.withLock { $0.append(line) } })
        await notifier.probe()
        await notifier.probe()
        #expect(said.value == ["No desktop session bus to send notifications on (none here). The watch goes on without notifications."])
    }
}
