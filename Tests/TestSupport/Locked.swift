import Synchronization

/// A value behind a lock, as a class: storable in structs and capturable in closures.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public var value: Value { mutex.withLock { $0 } }

    @discardableResult
    public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

extension Locked where Value == Int {
    /// Returns the current count and increments it.
    public func next() -> Int { withLock { count in defer { count += 1 }; return count } }
}
