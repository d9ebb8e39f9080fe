import ArgumentParser
import BradOSCore
import BradOSNetworking
import BradOSStorage
import BradOSTerminal

/// `brados version`: this brados's version and the Swift packages it was built with, at the
/// versions `Package.pins.json` pins (``BuildDependencies``).
public struct VersionCommand: EnvironmentCommand {
    public static let profileAccess: ProfileLock.Access? = nil
    public static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Show brados's version and the Swift packages it was built with.",
        discussion: """
        `brados --version` prints the version alone. The system libraries brados links or \
        opens are in its software bill of materials: /usr/share/doc/brados/sbom.spdx.json \
        (the .deb), share/doc/brados/ (the tarball).
        Examples:
          brados version
          brados version --json
        """)

    @OptionGroup public var global: GlobalOptions
    public init() {}

    /// Prints the version and the packages (a table, or one JSON document).
    /// - Throws: ``StorageError/coding(path:detail:)`` if the JSON document cannot be encoded.
    public func run(in env: AppEnvironment) async throws {
        if env.output.format == .json {
            struct Document: Encodable { var version: String; var swiftPackages: [BuildDependencies.Package] }
            return try env.output.json(Document(version: BradOSVersion.current, swiftPackages: BuildDependencies.packages))
        }
        env.output.line("brados \(BradOSVersion.current)")
        env.output.line("Built with \(Format.count(BuildDependencies.packages.count, "Swift package")):")
        env.output.table(Table(headers: ["PACKAGE", "VERSION", "LICENCE"],
                               rows: BuildDependencies.packages.map { [$0.name, $0.version, $0.licence] }, keepWhole: [0, 1]))
    }
}
