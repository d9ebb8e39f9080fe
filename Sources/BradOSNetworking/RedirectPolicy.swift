import Foundation

/// How brados follows HTTP redirects (AsyncHTTPClient's own following is off: it would
/// forward every header, a service's token headers included, to any host, and follow
/// https to http).
///
/// - At most ``maxRedirects`` hops; a loop or a longer chain is an error.
/// - Never from https to http: the request fails with the reason.
/// - Headers go only to the origin (scheme, host and port) that the request was made for: a
///   hop to another origin keeps only ``portableHeaders`` (whatever header a service carries
///   its token in, `Authorization` or its own, never leaves the origin).
/// - 301, 302 and 303 turn into a GET without a body (as browsers do); 307 and 308 keep the
///   method and body.
public enum RedirectPolicy {
    public static let maxRedirects = 5
    /// The header names (lowercased) a hop to another origin keeps: none carries a credential.
    public static let portableHeaders: Set<String> = ["accept", "accept-encoding", "accept-language", "user-agent", "content-type", "content-length"]

    /// The request to make after a redirect response, or `nil` when `status` is not a redirect.
    /// - Parameter original: the request as brados made it (its origin issued the credentials).
    /// - Throws: ``NetworkError/refusedRedirect(from:to:reason:)``.
    public static func follow(_ request: HTTPRequest, original: HTTPRequest, status: Int, location: String?) throws -> HTTPRequest? {
        guard [301, 302, 303, 307, 308].contains(status) else { return nil }
        guard let location, let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), target.host != nil || scheme == "http+unix" else {
            throw NetworkError.refusedRedirect(from: request.url.absoluteString, to: location ?? "(no Location)", reason: "the Location is not a URL")
        }
        let from = request.url.scheme?.lowercased() ?? ""
        guard scheme == from || (from == "http" && scheme == "https") else {
            throw NetworkError.refusedRedirect(from: request.url.absoluteString, to: target.absoluteString,
                                               reason: from == "https" && scheme == "http" ? "it leaves https for plain http" : "it changes the scheme to \(scheme)")
        }
        var next = request
        next.url = target
        if [301, 302, 303].contains(status), request.method != "GET" && request.method != "HEAD" {
            next.method = "GET"
            next.body = nil
            next.headers.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) }
        }
        if !sameOrigin(target, original.url) {
            next.headers.removeAll { !portableHeaders.contains($0.name.lowercased()) }
        } else {
            // Back on the origin: its credentials again (a hop elsewhere may have dropped them).
            next.headers = original.headers
            if next.method != original.method { next.headers.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) } }
        }
        return next
    }

    /// Scheme, host and port equal (default ports filled in).
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
            return "\(scheme)://\(url.host?.lowercased() ?? "")#\(port)"
        }
        return origin(a) == origin(b)
    }
}
