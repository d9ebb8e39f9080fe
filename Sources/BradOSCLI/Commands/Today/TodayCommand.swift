import ArgumentParser
import BradOSCore
import BradOSPictures
import BradOSToday
import Foundation

/// `brados today`: what is on today, across every domain, from the caches.
public struct TodayCommand: EnvironmentCommand {
    public static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "Show what is on today across every domain, and the changes waiting to be sent. From the caches only.",
        discussion: """
            One screen from what brados has cached: it never uses the network unless --refresh is \
            given, which first refreshes what is stale or missing (with progress on a terminal) and \
            shows the cached copy of any domain it cannot reach.
            A domain with nothing cached says so in one dim line with the command that fills it. \
            Queued offline changes (weights not yet sent, deletes to retry) and stale copies are \
            listed at the end.
            --json prints one object keyed by domain: each holds the domain's data ("cached": \
            false and "fill" when nothing is cached), "queued" and "stale" (its age in seconds, or null).
            Examples:
              brados today
              brados today --refresh
              brados today --json | jq 'keys'
            """)

    @Flag(help: "Refresh what is stale or missing first (uses the network).") var refresh = false
    @OptionGroup var art: ArtOptions
    @OptionGroup public var global: GlobalOptions
    public init() {}

    /// Gathers each domain's section and prints them.
    /// - Throws: ``ConfigError``, ``StorageError`` (see ``AppEnvironment/live(_:access:)``); a domain's failure is shown in its section.
    public func run(in env: AppEnvironment) async throws {
        if let notice = ImportedData.notice(env.profile, accounts: { env.credentials.load().accounts }) { env.output.notice(notice) }
        // The sparkline is a text picture: drawn where every picture would be (no terminal asked).
        let pictures = try env.art(art, askTerminal: false).drawing != nil
        let context = TodayContext(env: env, refresh: refresh, now: env.now(), drawsPictures: pictures)
        let screen = await TodayScreen.gather(env.plugins, context: context)
        try TodayRenderer(output: env.output, now: context.now).render(screen)
    }
}
