import BradOSStorage
import Foundation

/// One finding of `brados doctor`.
public struct DoctorCheck: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case ok, warn, fail }
    public var name: String
    public var status: Status
    public var detail: String
    /// What to do, for a warning or a failure (`null` in JSON otherwise).
    @NullWhenAbsent public var fix: String?

    public init(name: String, status: Status, detail: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = fix
    }
}
