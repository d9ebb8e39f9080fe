import ArgumentParser
import BradOSCore
import BradOSTerminal
import Foundation

extension NutritionCommand {
    /// Records a new weight: queued durably first, then sent (when online) and the plan recomputed.
    public struct Weight: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "weight",
            abstract: "Update your current weight, then recompute the plan; queued when offline.",
            discussion: """
            A bare number is in your `units` (kilograms unless `brados config set units imperial`); \
            a unit after it says which outright: 84.5 or 84,5, 188lb, "188 lbs", 85.5kg, "13st 6lb". \
            The weight must be 30–300 kg (66–661 lb), the range the plan service takes.
            A weight far from your last one (more than 10 % of it, or 5 kg, a week since, and never \
            more than 30 %: pounds typed as kilograms, a missing digit) is asked about on a terminal \
            and refused in a script (exit 14, nothing queued or sent) unless --yes.
            The change is written to the pending queue before anything is sent, so it is never lost: \
            offline, or if the service cannot be reached, it waits for `brados plan sync`. Stored and \
            sent in kilograms.
            Examples:
              brados plan weight 84.5
              brados plan weight 186lb
              brados --offline plan weight 84,5
            """)

        @Argument(help: ArgumentHelp("Your weight, in your units or with its unit: 84.5, 84,5, 186lb, '85.5 kg'.", valueName: "weight"))
        var weight: [String]
        @Flag(name: .shortAndLong, help: "Record a weight far from your last one without asking.")
        var yes = false
        @OptionGroup public var global: GlobalOptions
        public init() {}

        public func validate() throws {
            guard (1...4).contains(weight.count) else { throw ValidationError("Give one weight, e.g. 84.5 or 186lb.") }
        }

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let repository = try NutritionRepository.live(env)
            let forms = env.output.forms
            var input = try WeightInput.parse(weight.joined(separator: " "), units: forms.units)
            try input.checkRange()
            if !yes, let last = repository.lastKnownWeight(), !last.isPlausible(input.kilograms, on: Format.day(env.now())) {
                input = try Self.confirm(input, last: last, today: Format.day(env.now()), io: env.io)
            }
            let renderer = NutritionRenderer(output: env.output)
            let (operation, report) = try await Spinner.run("Updating your weight", io: env.io, enabled: env.output.format == .human) {
                try await repository.updateWeight(input.kilograms)
            }
            guard let report else {
                if env.output.format == .json { return try renderer.queuedOffline(operation, remaining: try repository.queue.all()) }
                env.output.line("Queued \(operation.summary(forms)): offline. `brados plan sync` sends it when you are back online.")
                return
            }
            try renderer.sync(report, queued: operation)
            if let dropped = report.dropped.first(where: { $0.operation.id == operation.id }) { throw dropped.error }
            if report.remaining.contains(where: { $0.id == operation.id }) {
                // Kept for later: fine for a failure the plan's cache policy answers (the network
                // or the service); anything the user must fix (an expired session) is the command's error.
                if let error = report.stoppedBy, !repository.policy.answers(error) { throw error }
                if env.output.format == .human { env.output.line("Queued \(operation.summary(forms)); `brados plan sync` sends it later.") }
            } else if !report.applied.contains(where: { $0.id == operation.id }), env.output.format == .human {
                env.output.line("\(operation.summary(forms).capitalizedFirst) was sent by another brados already.")
            }
        }

        /// A weight the rule finds implausible: asked about on a terminal (`y` keeps it, `lb` or
        /// `kg` takes the other reading, anything else records nothing), refused elsewhere.
        /// - Throws: ``NutritionError/implausibleWeight(typed:change:last:alternative:answered:)`` (exit 14).
        static func confirm(_ input: WeightInput, last: WeightPlausibility, today: String, io: any TerminalIO) throws -> WeightInput {
            // Said in the unit it was read in: the person's own words back.
            let said = DisplayForms(units: input.unit == .kilograms ? .metric : .imperial)
            let shown = said.weightBrief
            let difference = input.kilograms - last.lastKilograms
            let change = "\(shown(abs(difference))) \(difference > 0 ? "more" : "less")"
            let lastText = "\(shown(last.lastKilograms)), \(last.lastDay)"
            let other = input.otherReading.flatMap { other in
                WeightInput.range.contains(other.kilograms) && last.isPlausible(other.kilograms, on: today) ? other : nil
            }
            let typed = input.unit == .stones ? input.typed : shown(input.kilograms)
            let refusal = { (answered: Bool) in
                NutritionError.implausibleWeight(typed: typed, change: change, last: lastText, alternative: other.map(\.typed), answered: answered)
            }
            guard io.isInputTerminal, io.isErrorTerminal else { throw refusal(false) }
            var question = "\(typed) is \(change) than your last weight (\(lastText))."
            let choices: String
            if let other {
                let otherUnit = other.unit.rawValue
                io.writeError("(y records \(typed) as typed, \(otherUnit) records \(other.typed), anything else records nothing)\n")
                let inKilograms = other.unit == .kilograms ? "" : " (\(DisplayForms.standard.weightBrief(other.kilograms)))"
                question += " Did you mean \(other.typed)\(inKilograms)?"
                choices = "[y/N/\(otherUnit)]"
            } else {
                question += " Record it anyway?"
                choices = "[y/N]"
            }
            io.writeError("\(SafeText.visible(question)) \(choices) ")
            let answer = io.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            if answer == "y" || answer == "yes" { return input }
            if let other, answer == other.unit.rawValue || (other.unit == .pounds && ["lbs", "pounds"].contains(answer)) { return other }
            throw refusal(true)
        }
    }
}
