import ArgumentParser
import BradOSCore
import BradOSStorage
import BradOSTerminal
import Foundation

extension PluginsCommand {
    public struct List: EnvironmentCommand {
        public static let profileAccess: ProfileLock.Access? = nil
        public static let configuration = CommandConfiguration(commandName: "list", abstract: "List built-in domains and external plugins; warn about unusable ones.", discussion: "Examples:\n  brados plugins list\n  brados plugins list --json")
        @OptionGroup public var global: GlobalOptions
        public init() {}

        /// Prints the built-in domains and the external plugins on `PATH`, with a notice for each unusable one.
        /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name;
        ///   ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
        public func run(in env: AppEnvironment) async throws {
            let external = ExternalPlugins.all(path: env.io.environment["PATH"], builtIns: env.builtInCommands)
            if env.output.format == .json {
                struct BuiltIn: Encodable { var name: String; var summary: String }
                struct Document: Encodable { var builtIn: [BuiltIn]; var external: [ExternalPlugins.Found] }
                return try env.output.json(Document(builtIn: env.plugins.map { BuiltIn(name: $0.name, summary: $0.summary) }, external: external))
            }
            env.output.line(env.output.styled("Built-in domains", .bold))
            env.output.table(Table(headers: [], rows: env.plugins.map { ["  " + $0.name, $0.summary] }, wrapLast: true))
            env.output.line()
            env.output.line(env.output.styled("External plugins (brados-NAME on PATH)", .bold))
            if external.isEmpty { env.output.line("  none") }
            env.output.table(Table(headers: [], rows: external.map { plugin in
                let status = plugin.shadowedBy.map { "shadowed by \($0)" } ?? (plugin.executable ? "ok" : "not executable")
                return ["  " + plugin.name, status, plugin.path]
            }))
            for plugin in external {
                if let shadow = plugin.shadowedBy { env.output.notice("\(plugin.path) never runs: it is shadowed by \(shadow).") }
                else if !plugin.executable { env.output.notice("\(plugin.path) is not executable: `chmod +x \(plugin.path)` to use `brados \(plugin.name)`.") }
            }
        }
    }
}
