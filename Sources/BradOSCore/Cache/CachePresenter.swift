/// How a domain shows what it read through the cache: a renderer, given where the value came
/// from (``DataSource``), human or `--json` as its ``Output`` says.
public protocol CachePresenter<Value> {
    associatedtype Value

    /// Shows `value`, which came from `source`.
    /// - Throws: an output error (a closed pipe).
    func render(_ value: Value, source: DataSource) throws

    /// After a refresh of a copy already shown on a terminal: shows what changed from `old` to
    /// `new`, if anything did. Returns whether it showed something. By default nothing is.
    /// - Throws: an output error.
    func rerender(old: Value, new: Value) throws -> Bool
}

extension CachePresenter {
    /// Shows nothing: returns `false`.
    /// - Throws: nothing in this default.
    public func rerender(old: Value, new: Value) throws -> Bool { false }
}
