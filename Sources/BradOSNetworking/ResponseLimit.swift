/// How large a response body each kind of endpoint may send, in bytes. A body past its limit is
/// not read further: ``NetworkError/responseTooLarge(method:path:limit:)`` (a server failure,
/// exit 6, never retried), so a server sending without end costs one limit's worth of memory
/// and time, once.
///
/// Each request names the limit that fits what it returns (``APIRequest/responseLimit``,
/// ``HTTPRequest/responseLimit``); the default is ``page``.
public enum ResponseLimit {
    /// A sign-in's tokens, an account, a health check: 1 MB.
    public static let small = 1_000_000
    /// One item, one page of a paged list, a plan, a meal-plan session, a change's answer: 16 MB.
    public static let page = 16_000_000
    /// A picture (artwork up to 2048 px): 32 MB.
    public static let image = 32_000_000
    /// A list the service sends whole, never paged (the visit history): 64 MB.
    public static let wholeList = 64_000_000
}
