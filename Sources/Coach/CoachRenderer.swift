import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
import Foundation

/// Human and JSON output of the coach domain. JSON documents carry the same model types
/// whatever the source, plus the shared `source` object (``DataSource``).
public struct CoachRenderer: Sendable {
    let output: Output
    let contextTTL: Duration

    public init(output: Output, contextTTL: Duration = CoachRepository.defaultContextTTL) {
        self.output = output
        self.contextTTL = contextTTL
    }

    public func conversations(_ conversations: [Conversation], source: DataSource) throws {
        if output.format == .json {
            struct Document: Encodable { var source: DataSource; var conversations: [Conversation] }
            return try output.json(Document(source: source, conversations: conversations))
        }
        output.line(output.styled("\(conversations.count) conversation\(conversations.count == 1 ? "" : "s")", .bold)
                    + " · " + output.styled(source.origin, .dim))
        guard !conversations.isEmpty else { return output.line("No conversations yet.") }
        let zone = TimeZone.local
        output.table(Table(
            headers: ["ID", "UPDATED", "MESSAGES", "DOMAIN", "TITLE"],
            rows: conversations.map {
                [String($0.id.prefix(8)), output.forms.minute($0.updatedAt, timeZone: zone), "\($0.messageCount)", $0.domain ?? "", Format.firstLine($0.title ?? "(untitled)", 40)]
            },
            rightAligned: [2], keepWhole: [0, 1, 2]))
        output.line(output.styled("Show one with `brados coach show ID` (4 characters of the id are enough).", .dim))
    }

    /// A conversation and the messages shown (all, or the last N of ``ConversationThread/total``).
    /// A whole conversation is printed as the store is read.
    public func conversation(_ thread: ConversationThread, source: DataSource) throws {
        let conversation = thread.conversation
        if output.format == .json {
            return try output.jsonStream(arrayKey: "messages", of: Message.self, fields: ["source": source, "conversation": conversation]) { emit in
                try thread.forEachBatch(emit)
            }
        }
        var headline = [output.styled(conversation.title ?? "(untitled)", .bold)]
        if let domain = conversation.domain { headline.append(domain) }
        headline.append("\(thread.total) message\(thread.total == 1 ? "" : "s")")
        headline.append(output.styled(source.origin, .dim))
        output.line(headline.joined(separator: " · "))
        output.line(output.styled("id \(conversation.id)", .dim))
        if thread.earlier > 0 {
            output.line(output.styled("… \(Format.count(thread.earlier, "earlier message")) (\(thread.marked == nil ? "show all without --last" : "--last N shows the end, no option all of them"))", .dim))
        }
        try thread.forEachBatch { batch in batch.forEach { show($0, marked: $0.id == thread.marked) } }
        if thread.later > 0 { output.line(output.styled("… \(Format.count(thread.later, "later message"))", .dim)) }
    }

    /// What `--follow` prints first: the conversation's tail (NDJSON with --json, one
    /// `message` event a line).
    public func followStart(_ thread: ConversationThread, source: DataSource) throws {
        guard output.format == .json else { return try conversation(thread, source: source) }
        try output.jsonLine(FollowLine(event: "conversation", conversation: thread.conversation, total: thread.total, source: source))
        try thread.forEachBatch { batch in
            for message in batch { try output.jsonLine(FollowLine(event: "message", message: message)) }
        }
    }

    /// One line of `--follow --json`: every line has every key, `null` where its event has
    /// no such value (`contract/json/coach-follow.schema.json`).
    struct FollowLine: Encodable {
        var event: String
        @NullWhenAbsent var message: Message?
        @NullWhenAbsent var id: String?
        @NullWhenAbsent var conversation: Conversation?
        @NullWhenAbsent var total: Int?
        @NullWhenAbsent var source: DataSource?
        @NullWhenAbsent var reason: String?
        @NullWhenAbsent var after: Double?

        init(event: String, message: Message? = nil, id: String? = nil, conversation: Conversation? = nil, total: Int? = nil,
             source: DataSource? = nil, reason: String? = nil, after: Double? = nil) {
            self.event = event
            self.message = message
            self.id = id
            self.conversation = conversation
            self.total = total
            self.source = source
            self.reason = reason
            self.after = after
        }
    }

    /// One followed change, as it happens.
    public func follow(_ event: FollowEvent) {
        if output.format == .json {
            let line: FollowLine
            switch event {
            case let .added(message): line = FollowLine(event: "added", message: message)
            case let .changed(message): line = FollowLine(event: "changed", message: message)
            case let .deleted(id): line = FollowLine(event: "deleted", id: id)
            case let .conversationChanged(conversation): line = FollowLine(event: "conversation-changed", conversation: conversation)
            case let .conversationDeleted(id): line = FollowLine(event: "conversation-deleted", id: id)
            case let .reconnecting(reason, after):
                line = FollowLine(event: "reconnecting", reason: reason, after: after.seconds)
            }
            try? output.jsonLine(line)
            return
        }
        switch event {
        case let .added(message): show(message)
        case let .changed(message):
            show(message)
            output.line(output.styled("       (edited)", .dim))
        case let .deleted(id): output.line(output.styled("       message \(id.prefix(8)) deleted", .dim))
        case let .conversationChanged(conversation):
            output.line(output.styled("       conversation renamed: \(conversation.title ?? "(untitled)")", .dim))
        case .conversationDeleted: output.line(output.styled("The conversation was deleted on the server.", .bold))
        case let .reconnecting(reason, after):
            output.notice(LiveConnection.paused(reason, after: after))
        }
    }

    /// One message: its time and author, then its text, continuation lines indented under
    /// its first; on a terminal the text wraps at word boundaries to its width. The message
    /// `--message` opened the conversation at is `marked`: an arrow before it, its text bold.
    func show(_ message: Message, marked: Bool = false) {
        let who = message.role == .user ? "you" : message.role == .assistant ? "coach" : message.role.rawValue
        let prefix = "\(marked ? "▶ " : "")\(output.forms.minute(message.createdAt))  \(who.padding(toLength: 5, withPad: " ", startingAt: 0))  "
        let text = SafeText.visible(message.content, keepLines: true).replacingOccurrences(of: "\t", with: "    ")
        let body: (String) -> String = { marked ? output.styled($0, .bold) : $0 }
        // Too narrow for the text beside its time and author (40 columns): the text below them, indented.
        if let width = output.width, width - prefix.count < 24 {
            output.line(output.styled(prefix.trimmingCharacters(in: .whitespaces), message.role == .user ? .cyan : .green))
            for line in TextWidth.wrap(text, width: max(10, width - 2)) { output.line("  " + body(line)) }
            return
        }
        let lines = output.width.map { TextWidth.wrap(text, width: $0 - prefix.count) }
            ?? text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        output.line(output.styled(prefix, message.role == .user ? .cyan : .green) + body(lines.first ?? ""))
        let indent = String(repeating: " ", count: prefix.count)
        for line in lines.dropFirst() { output.line(indent + body(line)) }
    }

    public func context(_ profile: ContextProfile?, source: DataSource) throws {
        if output.format == .json {
            struct Document: Encodable { var source: DataSource; @NullWhenAbsent var contextProfile: ContextProfile? }
            return try output.json(Document(source: source, contextProfile: profile))
        }
        var origin = source.origin
        if source.kind == .cache, source.reason == nil, let age = source.age {
            origin += " (fresh for \(Format.age(TimeInterval(contextTTL.components.seconds) - age)) more)"
        }
        output.line(output.styled("Context profile", .bold) + " · " + output.styled(origin, .dim))
        guard let profile else { return output.line("No context profile yet: it fills in as you talk with your coach.") }
        output.line()
        output.line(output.styled("VALUES", .bold))
        if profile.values.isEmpty { output.line("  (none yet)") }
        for value in profile.values { output.line("  • \(value.content)") }
        output.line()
        output.line(output.styled("GOALS", .bold))
        if profile.goals.isEmpty { output.line("  (none yet)") }
        for goal in profile.goals {
            let details = [goal.domain, goal.status].compactMap { $0 }.joined(separator: ", ")
            output.line("  • \(goal.content)" + (details.isEmpty ? "" : output.styled(" (\(details))", .dim)))
        }
        output.line()
        output.line(output.styled("SITUATION", .bold))
        let fields = profile.situation.fields
        if fields.isEmpty { return output.line("  (nothing yet)") }
        output.table(Table(headers: [], rows: fields.map { ["  \($0.label)", $0.value] }, wrapLast: true))
    }

}
