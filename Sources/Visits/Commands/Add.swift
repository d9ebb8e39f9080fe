import ArgumentParser
import BradOSCore
import BradOSTerminal
import Foundation

extension VisitsCommand {
    /// Records a visit.
    public struct Add: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "add", 
            abstract: "Record a visit.",
            discussion: """
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
            let created = try await visits.add(visit)
            try VisitsRenderer(output: env.output, now: env.now).render(created, source: .network)
        }
    }
}
