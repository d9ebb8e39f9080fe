import CBradOSSystem
import Glibc

/// Ctrl-C, SIGTERM (a service manager, `kill`) and SIGHUP (a closed terminal or SSH session)
/// cancel the command, so it can undo what it started (an optimistic delete is restored, a
/// half-written export is discarded) and exit 128 + the signal (130, 143, 129). A second
/// signal, or a command that ignores cancellation for 3 s, exits at once.
///
/// One thread of its own, started with the command, waits for them: the signals are blocked on
/// the main thread (and so on every thread it starts after), and their handler only writes
/// the signal's number to a pipe the watcher reads (CBradOSSystem's `brados_signals_to_pipe`).
/// So a command busy on the main thread is still cancelled at once, and no work of the command
/// is interrupted by a handler. A signal that arrives before the watcher runs stays pending
/// until it does.
enum SignalWatcher {
    /// Starts the watcher for `received`; without a pipe or a thread, the signals keep their
    /// default action (they end the process).
    static func start(_ received: Signals) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for number in Signals.handled { sigaddset(&blocked, number) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        let installed = Signals.handled.withUnsafeBufferPointer { brados_signals_to_pipe(fds[1], $0.baseAddress, Int32($0.count)) }
        let context = Unmanaged.passRetained(Context(reader: fds[0], received: received, signals: blocked)).toOpaque()
        var thread = pthread_t()
        if installed != 0 || pthread_create(&thread, nil, { context in
            let context = Unmanaged<SignalWatcher.Context>.fromOpaque(context!).takeRetainedValue()
            context.watch()
            return nil
        }, context) != 0 {
            Unmanaged<Context>.fromOpaque(context).release()
            pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
            return
        }
        pthread_detach(thread)
    }

    final class Context: @unchecked Sendable {
        let reader: Int32
        let received: Signals
        var signals: sigset_t

        init(reader: Int32, received: Signals, signals: sigset_t) {
            self.reader = reader
            self.received = received
            self.signals = signals
        }

        /// The watcher's loop: each signal is recorded and cancels the command; after the first,
        /// a second one, or 3 s, ends the process. A SIGHUP taken by ``Signals/hangupHandler``
        /// does neither.
        func watch() {
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            var deadline: Int64?
            while true {
                guard let number = next(before: deadline) else {
                    // 3 s since the first signal and the command has not ended: exit now.
                    exit(128 + (received.first ?? SIGTERM))
                }
                if number == SIGHUP, let handler = Signals.hangupHandler.withLock({ $0 }) {
                    handler()
                    continue
                }
                if received.record(number) > 0 { exit(128 + number) }
                deadline = deadline ?? Self.now() + 3_000
            }
        }

        /// The next signal's number; `nil` once `deadline` (monotonic milliseconds) passed.
        private func next(before deadline: Int64?) -> Int32? {
            while true {
                if let deadline {
                    let left = deadline - Self.now()
                    if left <= 0 { return nil }
                    var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
                    let polled = poll(&ready, 1, Int32(left))
                    if polled == 0 { return nil }
                    if polled < 0 { continue }
                }
                var byte: UInt8 = 0
                let count = read(reader, &byte, 1)
                if count == 1 { return Int32(byte) }
                if count < 0 && errno == EINTR { continue }
                // The pipe cannot end while the process lives; wait out the deadline, if any.
                if deadline == nil { pause() }
            }
        }

        private static func now() -> Int64 {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
        }
    }
}
