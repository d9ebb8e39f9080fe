import Hummingbird

/// A plex.tv error: `{"errors":[{"code":…,"message":…,"status":…}]}` (or `<errors>` in XML).
struct PlexTVError: HTTPResponseError {
    var status: HTTPResponse.Status
    var code: Int
    var message: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        if PlexTVRoutes.wantsJSON(request) {
            return try PlexTVRoutes.json(["errors": [["code": code, "message": message, "status": Int(status.code)]]], status: status)
        }
        return PlexTVRoutes.xml(PlexTVRoutes.XMLNode(tag: "errors", children: [
            .init(tag: "error", attributes: [("code", code), ("message", message), ("status", Int(status.code))]),
        ]), status: status)
    }
}
