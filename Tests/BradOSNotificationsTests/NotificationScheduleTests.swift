@testable import BradOSNotifications
import TestSupport
import BradOSCore
import Foundation
import Testing

@Suite("When notifications are shown: bursts coalesce, one a window a domain, replacing their own")
struct NotificationScheduleTests {
    func message(_ conversation: String, _ text: String = "Hi") -> News {
        News(domain: "coach", thread: conversation, headline: "New message from your coach", headlineMany: "%d new messages from your coach",
             detail: "Title\n" + text, category: "im.received", icon: "mail-message-new")
    }

    @Test("50 messages in a second: one notification at first, then one replacing it that says 50")
    func burst() {
        var plan = NotificationSchedule(detail: .full)
        plan.add(message("c1", "first"), at: .zero)
        #expect(plan.takeDue(at: .milliseconds(50)).isEmpty, "news waits the gather time")
        let first = plan.takeDue(at: .milliseconds(100))
        #expect(first.count == 1 && first[0].count == 1 && first[0].replaces == 0)
        plan.shown(first[0], id: 7, at: .milliseconds(100))
        for index in 1..<50 { plan.add(message("c1", "m\(index)"), at: .milliseconds(100 + index * 18)) }
        #expect(plan.takeDue(at: .seconds(1)).isEmpty, "no second notification inside the window")
        #expect(plan.nextDue == .milliseconds(5100))
        let second = plan.takeDue(at: .milliseconds(5100))
        #expect(second.count == 1)
        #expect(second[0].count == 50 && second[0].replaces == 7, "\(second)")
        #expect(NotificationDetail.full.text(for: second[0].latest, count: second[0].count).summary == "50 new messages from your coach")
        #expect(NotificationDetail.full.text(for: second[0].latest, count: second[0].count).body == "Title\nm49")
    }

    @Test("a burst inside the gather time is one notification")
    func together() {
        var plan = NotificationSchedule(detail: .summary)
        for index in 0..<1000 { plan.add(message("c1", "\(index)"), at: .microseconds(index * 50)) }
        let due = plan.takeDue(at: .milliseconds(150))
        #expect(due.count == 1 && due[0].count == 1000)
        #expect(plan.nextDue == nil)
    }

    @Test("each conversation replaces its own notification; several at once in a domain are one")
    func threads() {
        var plan = NotificationSchedule(detail: .full)
        plan.add(message("c1"), at: .zero)
        let one = plan.takeDue(at: .milliseconds(100))[0]
        plan.shown(one, id: 1, at: .milliseconds(100))
        plan.add(message("c2"), at: .seconds(10))
        let two = plan.takeDue(at: .seconds(11))[0]
        #expect(two.replaces == 0 && two.count == 1, "another conversation does not replace the first's")
        plan.shown(two, id: 2, at: .seconds(11))
        plan.add(message("c1"), at: .seconds(20))
        let three = plan.takeDue(at: .seconds(21))[0]
        #expect(three.replaces == 1 && three.count == 2, "the first conversation's replaces its own, counting on")
        plan.shown(three, id: 3, at: .seconds(21))
        plan.add(message("c1"), at: .seconds(200))
        #expect(plan.takeDue(at: .seconds(201))[0].count == 1, "after a quiet minute the count starts again")
        plan.add(message("c1"), at: .seconds(300))
        plan.add(message("c2"), at: .seconds(300))
        let both = plan.takeDue(at: .seconds(301))
        #expect(both.count == 1 && both[0].count == 2 && both[0].threads == ["coach/c1", "coach/c2"])
    }

    @Test("a notification for several conversations counts on from the one it replaces, and the next of either counts on from it")
    func replacingCountsOn() {
        var plan = NotificationSchedule(detail: .full)
        for _ in 0..<16 { plan.add(message("a"), at: .zero) }
        let first = plan.takeDue(at: .milliseconds(100))[0]
        #expect(first.count == 16)
        plan.shown(first, id: 1, at: .milliseconds(100))
        for index in 0..<984 { plan.add(message(index % 2 == 0 ? "b" : "a"), at: .milliseconds(200 + index)) }
        let burst = plan.takeDue(at: .milliseconds(5100))[0]
        #expect(burst.threads == ["coach/a", "coach/b"] && burst.replaces == 1 && burst.count == 1000, "\(burst.count)")
        plan.shown(burst, id: 2, at: .milliseconds(5100))
        plan.add(message("b"), at: .seconds(11))
        let next = plan.takeDue(at: .seconds(11) + .milliseconds(100))[0]
        #expect(next.replaces == 2 && next.count == 1001)
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
        let none = NotificationDetail.none.text(for: due[0].latest, count: due[0].count)
        #expect(none.summary == "brados: 3 updates" && none.body.isEmpty)
        let summary = NotificationDetail.summary.text(for: message("c1", "secret weight 81 kg"), count: 1)
        #expect(summary.summary == "New message from your coach" && summary.body.isEmpty)
        let full = NotificationDetail.full.text(for: message("c1", "<b>eat</b> & rest\u{7}"), count: 1)
        #expect(full.body == "Title\n&lt;b&gt;eat&lt;/b&gt; &amp; rest")
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
