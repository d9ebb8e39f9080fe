import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import BradOSErrors
@testable import BradOSStorage

@Suite("The profile lock")
struct ProfileLockTests {
    let root = TemporaryDirectory("profile-lock")
    var paths: Paths { Paths(configRoot: root.url.appendingPathComponent("config"), cacheRoot: root.url.appendingPathComponent("cache"), dataRoot: root.url.appendingPathComponent("data")) }
    let profile = ProfileName(rawValue: "default")!

    func acquire(_ access: ProfileLock.Access, timeout: Duration = .seconds(1), clock: ManualClock = ManualClock()) async throws -> ProfileLock {
        try await ProfileLock.acquire(access, profile: profile, paths: paths, timeout: timeout, clock: clock)
    }

    @Test("shared holders run side by side; an exclusive one waits for them, then gives up with exit 11 without blocking a thread")
    func sharedThenExclusive() async throws {
        let first = try await acquire(.shared)
        let second = try await acquire(.shared)
        let clock = ManualClock()
        do {
            _ = try await acquire(.exclusive(activity: "importing"), timeout: .seconds(1), clock: clock)
            Issue.record("the exclusive lock was taken while shared holders held it")
        } catch let error as StorageError {
            #expect(error.kind == .busy, "exit 11: profile busy")
            guard case let .profileBusy(name, holder, _) = error else { throw error }
            #expect(name == "default" && holder.activity == nil)
            #expect(error.summary.contains("is still using it"))
            #expect(error.recovery?.contains("profile.lock-timeout") == true)
        }
        // It polled on the injected clock (25 ms at a time, up to the limit): no thread slept.
        #expect(clock.sleeps.count == 40 && clock.sleeps.allSatisfy { $0 == .milliseconds(25) })
        first.release()
        second.release()
        let exclusive = try await acquire(.exclusive(activity: "importing"))
        exclusive.release()
    }

    @Test("an exclusive holder says what it is doing: a waiter names its pid and activity, and the file is left empty, never deleted")
    func exclusiveHolderIsNamed() async throws {
        let importer = try await acquire(.exclusive(activity: "importing"))
        let url = ProfileLock.url(for: profile, paths: paths)
        #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == "\(getpid()) importing\n")
        do {
            _ = try await acquire(.shared, timeout: .milliseconds(100))
            Issue.record("a shared lock was taken while an import held the profile")
        } catch let StorageError.profileBusy(_, holder, _) {
            #expect(holder == ProfileLock.Holder(pids: [getpid()], activity: "importing"))
            #expect(holder.description == "another brados (pid \(getpid()))")
        }
        importer.release()
        #expect(FileSystem.exists(url))
        #expect(try Data(contentsOf: url).isEmpty)
        #expect((try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) == 0o600)
        _ = try await acquire(.shared)
    }

    /// A clock whose every sleep first runs `onSleep` (and sleeps no time).
    struct HookClock: Clock {
        let onSleep: @Sendable () -> Void
        var now: ContinuousClock.Instant { .now }
        var minimumResolution: Duration { .zero }
        func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws { onSleep() }
    }

    @Test("discard deletes a new profile's lock file while holding it; a waiter on the deleted file takes the path's lock again, so two never hold at once")
    func discardWhileWaited() async throws {
        let ghost = ProfileName(rawValue: "ghost")!
        let url = ProfileLock.url(for: ghost, paths: paths)
        try await ProfileLock.hold(.exclusive(activity: "importing"), profile: ghost, paths: paths, timeout: .seconds(1))
        let paths = paths
        // The waiter opened the file and waits; the holder discards it at the waiter's first poll.
        let clock = HookClock { ProfileLock.discard(profile: ghost, paths: paths) }
        let waiter = try await ProfileLock.acquire(.exclusive(activity: "syncing"), profile: ghost, paths: paths, timeout: .seconds(1), clock: clock)
        // It holds the file the path names now (a new one), not the deleted one nobody else sees.
        #expect(FileSystem.exists(url))
        #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == "\(getpid()) syncing\n")
        do {
            _ = try await ProfileLock.acquire(.shared, profile: ghost, paths: paths, timeout: .zero, clock: ManualClock())
            Issue.record("a second holder took the lock while the waiter held it")
        } catch StorageError.profileBusy {}
        waiter.release()
        // discard does nothing without an exclusive hold by this process: the file stays.
        ProfileLock.discard(profile: ghost, paths: paths)
        #expect(FileSystem.exists(url))
    }

    @Test("the waiting line names who is waited for")
    func waitingMessage() {
        #expect(ProfileLock.Holder(pids: [4242], activity: "importing").waitingMessage == "waiting for another brados (pid 4242) to finish importing…")
        #expect(ProfileLock.Holder(pids: [7, 9], activity: nil).waitingMessage == "waiting for 2 other brados commands (pids 7, 9) to finish…")
        #expect(ProfileLock.Holder(pids: [], activity: "signing out").waitingMessage == "waiting for another brados to finish signing out…")
    }

    @Test("holders are read from /proc/locks by the lock file's inode; waiters and other files are not holders")
    func procLocks() {
        let table = """
        1: FLOCK  ADVISORY  READ  4242 fd:01:1234 0 EOF
        1: -> FLOCK  ADVISORY  WRITE 5151 fd:01:1234 0 EOF
        2: FLOCK  ADVISORY  READ  77 fd:01:1234 0 EOF
        3: POSIX  ADVISORY  WRITE 88 fd:01:1234 0 EOF
        4: FLOCK  ADVISORY  WRITE 99 fd:01:9999 0 EOF
        """
        #expect(ProfileLock.lockingProcesses(inode: 1234, table: table) == [77, 4242])
        #expect(ProfileLock.lockingProcesses(inode: 5, table: table).isEmpty)
    }

    @Test("a shared hold is upgraded in place when the same process asks for the profile exclusively")
    func upgrade() async throws {
        try await ProfileLock.hold(.shared, profile: profile, paths: paths, timeout: .seconds(1), clock: ManualClock())
        try await ProfileLock.hold(.exclusive(activity: "clearing the cache"), profile: profile, paths: paths, timeout: .seconds(1), clock: ManualClock())
        let url = ProfileLock.url(for: profile, paths: paths)
        #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self).hasSuffix(" clearing the cache\n"))
        await #expect(throws: StorageError.self) { _ = try await acquire(.shared, timeout: .zero) }
    }

    @Test("a holder that is a brados is named by its command line and its systemd unit, read from /proc; other programs are not")
    func holderNamed() throws {
        let proc = TemporaryDirectory("profile-lock-proc")
        try FileManager.default.createDirectory(at: proc.path("8730"), withIntermediateDirectories: true)
        try Data("/usr/bin/brados\0sync\0--watch\0".utf8).write(to: proc.path("8730/cmdline"))
        try Data("0::/user.slice/user-1000.slice/user@1000.service/app.slice/brados-watch.service\n".utf8).write(to: proc.path("8730/cgroup"))
        try FileManager.default.createDirectory(at: proc.path("9000"), withIntermediateDirectories: true)
        try Data("/usr/bin/python3\0-c\0x\0".utf8).write(to: proc.path("9000/cmdline"))
        try Data("0::/user.slice/user-1000.slice/session-2.scope\n".utf8).write(to: proc.path("9000/cgroup"))
        #expect(ProfileLock.command(of: 8730, proc: proc.url.path) == "brados sync --watch")
        #expect(ProfileLock.unit(of: 8730, proc: proc.url.path) == "brados-watch.service")
        #expect(ProfileLock.command(of: 9000, proc: proc.url.path) == nil && ProfileLock.unit(of: 9000, proc: proc.url.path) == nil)
        let holder = ProfileLock.Holder(pids: [8730], activity: nil, commands: [8730: ("brados sync --watch", "brados-watch.service")])
        #expect(holder.description == "brados sync --watch (pid 8730, the user unit brados-watch.service)")
        let error = StorageError.profileBusy(profile: "default", holder: holder, exclusive: true)
        #expect(error.recovery?.contains("`systemctl --user stop brados-watch.service`") == true && error.recovery?.contains("--wait") == true)
    }

    /// A clock on which the work between sleeps takes time too (15 ms a poll: reading /proc/locks on a busy machine).
    final class BusyClock: Clock, @unchecked Sendable {
        let manual = ManualClock()
        var now: ManualClock.Instant { manual.now }
        var minimumResolution: Duration { .nanoseconds(1) }
        func sleep(until deadline: ManualClock.Instant, tolerance: Duration?) async throws {
            try await manual.sleep(until: deadline, tolerance: tolerance)
            manual.advance(by: .milliseconds(15))
        }
    }

    @Test("the wait is measured on the clock, the work between polls included: it never runs past profile.lock-timeout")
    func waitsNoLongerThanTheTimeout() async throws {
        let holder = try await acquire(.shared)
        defer { holder.release() }
        let clock = BusyClock()
        await #expect(throws: StorageError.self) {
            _ = try await ProfileLock.acquire(.exclusive(activity: "clearing the cache"), profile: profile, paths: paths, timeout: .seconds(1), clock: clock)
        }
        #expect(clock.now.offset <= .seconds(1) + .milliseconds(15), "waited \(clock.now.offset), the timeout is 1 s")
        #expect(clock.now.offset >= .milliseconds(975))
    }
}
