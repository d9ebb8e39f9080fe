import ArgumentParser
import BradOSCore

extension VisitsCommand {
    /// Shows one visit.
    public struct Show: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one visit (from cache when there).", discussion: "Examples:\n  brados visits show v_8f3a2c01")

        @Argument(help: "The visit id (see `brados visits list`).", completion: .custom { _, _, _ in VisitsPlugin.cachedVisitIDs() }) var id: String
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let renderer = VisitsRenderer(output: env.output, now: env.now)
            let visits = try VisitsRepository.live(env)
            defer { visits.tellSettled(env.output.notice) }
            try await env.reader.show(visits.visit(id: id)) { try renderer.render($0, source: $1) }
        }
    }
}
