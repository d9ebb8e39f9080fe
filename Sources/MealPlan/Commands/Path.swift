import ArgumentParser
import BradOSCore

extension MealPlanCommand {
    /// Prints the cache file's stable path, for scripts and widgets that read it directly.
    public struct Path: EnvironmentCommand {
        public static let configuration = CommandConfiguration(commandName: "path", 
            abstract: "Print the stable path of the cached plan file (its format is in docs/mealplan.md).", discussion: "Examples:\n  brados mealplan path\n  cat $(brados mealplan path)")

        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// The command's work, in `env`: the process's, or one a test builds.
        public func run(in env: AppEnvironment) async throws {
            let path = MealPlanRepository.live(env).cacheFileURL.path
            if env.output.format == .json { return try env.output.json(["path": path]) }
            env.output.line(path)
        }
    }
}
