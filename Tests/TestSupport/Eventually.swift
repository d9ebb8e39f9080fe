import Foundation

/// Waits until `condition` holds, asking it again every `interval`, for at most `timeout`:
/// a test waits for what it needs (a request seen by the server, a code expired), never for
/// a guessed amount of time.
/// - Returns: whether the condition held in time.
public func eventually(timeout: Duration = .seconds(20), interval: Duration = .milliseconds(25),
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
