import BradOSCore
import Foundation

/// Pictures as the core sees them (``Feature``): the `display.art` setting, and the picture
/// libraries and mode for `brados doctor`.
public struct PicturesFeature: Feature {
    public init() {}

    public var configKeys: [ConfigKey] { [ArtMode.configKey] }

    /// `brados doctor`: the libraries pictures are drawn with, and the mode a picture would be drawn in here
    /// and why (the same choice `library show` makes, without `--art`).
    public func doctorChecks(_ env: AppEnvironment) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        for lib in ArtLibraries.all {
            let soname = ArtLibraries.soname(lib)
            if let reason = ArtLibraries.loadError(lib) {
                // A recommended library: brados works without it, so a warning, not a failure.
                checks.append(DoctorCheck(name: "pictures \(soname)", status: .warn, detail: "not loaded: \(reason)",
                                          fix: (ArtError.missingLibrary(soname: soname, detail: reason).recovery ?? "")
                                              + " Until then covers are placeholders; plots are text and need none of them."))
            } else {
                checks.append(DoctorCheck(name: "pictures \(soname)", status: .ok, detail: "loaded"))
            }
        }
        do {
            // doctor's own stdout may be a pipe (`brados doctor | less`): judge the terminal
            // a command would draw on, the one doctor runs in.
            var detector = try env.artDetector()
            detector.json = false
            if !detector.isTerminal, env.io.isErrorTerminal || env.io.isInputTerminal { detector.isTerminal = true }
            let choice = detector.choose()
            checks.append(DoctorCheck(name: "pictures mode", status: .ok, detail: "\(choice.modeName): \(choice.reason)"))
        } catch {
            checks.append(DoctorCheck(name: "pictures mode", status: .fail, detail: "\(error)", fix: "brados config set display.art auto"))
        }
        return checks
    }
}
