import BradOSStorage
import BradOSTerminal
import Foundation

/// The back-off between a user unit's restarts of `sync --watch`: a watch that ends in a
/// failure (a configuration it cannot use, a profile another brados holds) waits before it
/// exits, longer each time it failed soon after its start (10 s, 20 s, 40 s… up to 10 min),
/// so `Restart=on-failure` does not fill the journal with the same line every few seconds
/// while the person has not fixed it. A watch that ran 10 minutes starts the count again.
/// Only under a service manager (`INVOCATION_ID`, which systemd sets): at a terminal the
/// failure is the person's at once.
enum WatchRestarts {
    static let first: Duration = .seconds(10)
    static let longest: Duration = .seconds(600)
    /// How long a watch must have run for its failure to count as the first again.
    static let settled: TimeInterval = 600

    /// The wait before the `failures`-th failure in a row exits.
    static func delay(after failures: Int) -> Duration {
        min(first * (1 << min(max(failures - 1, 0), 16)), longest)
    }

    /// Under a service manager, counts this failure (in `<data root>/watch-restarts`: the count
    /// and when the watch that failed started) and waits the back-off, saying so once.
    static func pause(started: Date, environment: [String: String], io: any TerminalIO, now: Date = Date()) async {
        guard environment["INVOCATION_ID"]?.isEmpty == false else { return }
        let url = Paths.resolve(environment: environment).dataRoot.appendingPathComponent("watch-restarts")
        let kept = (try? AtomicFile.readIfPresent(url)).map { String(decoding: $0, as: UTF8.self) }?.split(separator: " ").compactMap { Double($0) } ?? []
        let failures = kept.count == 2 && started.timeIntervalSince1970 - kept[1] < settled + 60 && now.timeIntervalSince(started) < settled
            ? Int(kept[0]) + 1 : 1
        try? AtomicFile.write(Data("\(failures) \(started.timeIntervalSince1970)".utf8), to: url, durable: false)
        let wait = delay(after: failures)
        Output(io: io, format: .human).notice("sync --watch ends (failure \(failures) in a row); the unit starts it again after \(Format.duration(wait)) and Restart=on-failure.")
        try? await Task.sleep(for: wait)
    }
}
