import BradOSStorage
import BradOSTerminal
import Foundation

/// A domain that keeps, beside its cached copies of a service's data, what the person made:
/// changes not sent yet, history kept only on this machine. A capability a domain adopts
/// (found with `as?`): cache commands never delete it unless told to, and `auth logout`
/// names it before erasing it.
///
/// - `brados cache clear` calls ``clearCache(in:)`` (the copies go, the person's data stays)
///   and says what it kept; `--discard-pending` also drops the unsent changes
///   (``discardUnsent(in:)``), naming them.
/// - `brados auth logout` lists the unsent changes first and goes on only when the person
///   agrees (a terminal's question, or `--discard-pending`).
public protocol KeepsPersonalData: DomainPlugin {
    /// What the profile holds of the person's own in this domain; a file of it that cannot
    /// be read is in ``PersonalData/unreadable`` (kept by cache commands, named by a sign-out).
    /// - Throws: ``StorageError`` only when the profile itself cannot be read.
    /// `forms`: the output's, for the summaries of changes (a weight in the person's unit).
    func personalData(in profile: ProfileScope, forms: DisplayForms) throws -> PersonalData
    /// Removes the domain's cached copies, keeping its personal data where it is.
    /// - Throws: ``StorageError``.
    func clearCache(in profile: ProfileScope) throws
    /// Drops the changes not sent yet (only ever asked for by name: `--discard-pending`).
    /// - Throws: ``StorageError``.
    func discardUnsent(in profile: ProfileScope) throws
}

/// What a person made in one domain that is not a copy of a service's data.
public struct PersonalData: Sendable, Codable, Equatable {
    /// Changes made and not sent yet, oldest first.
    public var unsent: [UnsentChange]
    /// History kept only here, each with how many items: `kept plans` 4.
    public var history: [HistoryItems]
    /// Files of the person's own that cannot be read (a queue damaged by hand or by a
    /// disk): never dropped unnamed.
    public var unreadable: [UnreadableData]

    public init(unsent: [UnsentChange] = [], history: [HistoryItems] = [], unreadable: [UnreadableData] = []) {
        self.unsent = unsent
        self.history = history.filter { $0.count > 0 }
        self.unreadable = unreadable
    }

    public var isEmpty: Bool { unsent.isEmpty && history.isEmpty && unreadable.isEmpty }
}

/// A file of the person's own that brados cannot read: what it is, where, and why.
public struct UnreadableData: Sendable, Codable, Equatable {
    public var domain: String
    /// What it holds: "the queue of plan changes not sent".
    public var what: String
    public var path: String
    /// Why it cannot be read, as a person reads it.
    public var reason: String

    public init(domain: String, what: String, path: String, reason: String) {
        self.domain = domain
        self.what = what
        self.path = path
        self.reason = reason
    }

    /// "the queue of plan changes not sent (/…/pending.json), which cannot be read: …".
    public var described: String { "\(what) (\(path)), which cannot be read: \(reason)" }
}

/// One change the person made that the service has not received.
public struct UnsentChange: Sendable, Codable, Equatable {
    public var domain: String
    public var id: String
    /// What it is, for the person's own screen: `weight 85 kg`.
    public var summary: String
    public var createdAt: Date
    /// The command that sends it: `brados plan sync`.
    public var send: String

    public init(domain: String, id: String, summary: String, createdAt: Date, send: String) {
        self.domain = domain
        self.id = id
        self.summary = summary
        self.createdAt = createdAt
        self.send = send
    }
}

/// A history kept only here, and how much of it: the plan history, 4 plans.
public struct HistoryItems: Sendable, Codable, Equatable {
    public var domain: String
    /// What it is: "plan history".
    public var name: String
    /// One item of it, singular: "plan".
    public var noun: String
    public var count: Int
    /// The command that shows it: `brados plan history --plans`.
    public var show: String

    /// "the plan history (4 plans)".
    public var described: String { "the \(name) (\(Format.count(count, noun)))" }

    public init(domain: String, name: String, noun: String, count: Int, show: String) {
        self.domain = domain
        self.name = name
        self.noun = noun
        self.count = count
        self.show = show
    }
}

extension Array where Element == any DomainPlugin {
    /// The personal data of every domain that keeps some, by domain, in the plugins' order.
    /// - Throws: ``StorageError`` from a domain that cannot read its own.
    public func personalData(in profile: ProfileScope, forms: DisplayForms) throws -> [(domain: String, data: PersonalData)] {
        try compactMap { plugin in
            guard let keeper = plugin as? any KeepsPersonalData else { return nil }
            let data = try keeper.personalData(in: profile, forms: forms)
            return data.isEmpty ? nil : (plugin.name, data)
        }
    }
}
