import ArgumentParser
import BradOSCore
import BradOSTerminal
import Foundation

extension VisitsCommand {
    /// Records a visit.
    public struct Add: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "add", 
            abstract: "Record a visit (kept here and sent later when no server takes it).",
            discussion: """
            Offline (--offline, or a server that cannot be reached) the visit is recorded here, \
            shown by `visits list` as pending under a local id (local-…), and sent by the next \
            refresh or `brados sync`, which then give it the server's id. Sent with no answer \
            (a dropped connection), it is kept the same way and the next refresh's list says \
            whether the server has it. `cache clear` keeps it; `auth logout` asks first.
            Examples:
              brados visits add --place "Riverside Dental" --duration 30 --notes "Cleaning"
              brados visits add --place "Greenway Physio" --at 2026-11-20T14:30
              brados visits add --place "City Eye Care" --at 2026-11-20T14:30:00+01:00
            """)

        @Option(help: "Where (1 to 200 characters).") var place: String
        @Option(help: ArgumentHelp("When: \(DateInput.shapes) (default: now).", valueName: "date")) var at: String?
        @Option(help: ArgumentHelp("How long, in minutes (1 to 1440).", valueName: "minutes")) var duration = 30
        @Option(help: "Notes.") var notes: String?
        @Option(help: "Address.") var address: String?
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            guard (1...200).contains(place.trimmingCharacters(in: .whitespaces).count) else {
                throw ValidationError("--place needs 1 to 200 characters.")
            }
            guard (1...1440).contains(duration) else { throw ValidationError("--duration must be 1 to 1440 minutes.") }
            if let at, DateInput.parse(at) == nil {
                throw ValidationError("--at '\(at)' is not a date brados reads: \(DateInput.shapes).")
            }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let visit = NewVisit(place: place.trimmingCharacters(in: .whitespaces), address: address,
                                 visitedAt: at.flatMap { DateInput.parse($0) } ?? env.now(), durationMinutes: duration, notes: notes)
            let visits = try VisitsRepository.live(env)
            defer { visits.tellSettled(env.output.notice) }
            let added = try await visits.add(visit)
            let renderer = VisitsRenderer(output: env.output, now: env.now)
            switch added {
            case let .created(created): try renderer.render(created, source: .network)
            case let .queued(queued, unanswered):
                env.output.notice(unanswered
                    ? "no answer came after the visit was sent: kept here as \(queued.id); the next refresh (`brados visits list --refresh`, or `brados sync`) finds out whether the server has it."
                    : "no server to take the visit (\(env.isOffline ? "offline" : "it cannot be reached")): recorded here as \(queued.id), and sent by the next refresh or `brados sync`.")
                try renderer.render(queued, source: .cache(age: 0, noun: "visits"))
            }
        }
    }
}
