import ArgumentParser
import BradOSCore
import BradOSStorage
import BradOSTerminal

/// `brados exit-codes`: what each exit code means (the table of ``ExitStatus``).
public struct ExitCodesCommand: EnvironmentCommand {
    public static let profileAccess: ProfileLock.Access? = nil
    public static let configuration = CommandConfiguration(
        commandName: "exit-codes",
        abstract: "Explain each exit code brados uses.",
        discussion: """
        Scripts can branch on the code: 4 means sign in again, 5 try later or online, \
        10 free some space. --format markdown or mdoc prints the table as the README and \
        the man page hold it (make man and make readme use them).
        Examples:
          brados exit-codes
          brados exit-codes --json
        """)

    public enum Format: String, ExpressibleByArgument, CaseIterable, Sendable { case text, markdown, mdoc }

    @Option(help: "text, markdown (the README's table) or mdoc (the man page's section).") var format: Format = .text
    @OptionGroup public var global: GlobalOptions
    public init() {}

    /// Prints the exit-code table as text, Markdown or mdoc (or as JSON).
    /// - Throws: ``ConfigError`` for an unreadable config file or invalid profile name;
    ///   ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func run(in env: AppEnvironment) async throws {
        if env.output.format == .json {
            struct Row: Encodable { var code: Int32; var name: String; var meaning: String }
            return try env.output.json(ExitStatus.table.map { Row(code: $0.code, name: $0.name, meaning: $0.meaning) })
        }
        switch format {
        case .markdown: env.io.write(ExitStatus.markdown)
        case .mdoc: env.io.write(ExitStatus.mdoc)
        case .text:
            env.output.table(Table(headers: ["CODE", "NAME", "MEANING"], rows: ExitStatus.table.map { ["\($0.code)", $0.name, $0.meaning] },
                                   rightAligned: [0], keepWhole: [0, 1], wrapLast: true))
        }
    }
}
