import BradOSCore
import BradOSTerminal
import Synchronization

/// Says once per command, as a notice on stderr, that pictures are drawn as placeholders
/// because a library is missing, and what to install: a missing picture is never a
/// command's failure, and never silent either. Thread-safe.
public final class ArtNotices: Sendable {
    private let output: Output
    private let said = Mutex<Set<String>>([])

    public init(output: Output) { self.output = output }

    /// Reports `error` when it is a missing library not reported yet; anything else is the
    /// picture's own trouble (a corrupt image), which the placeholder shows by itself.
    public func report(_ error: ArtError) {
        guard case let .missingLibrary(soname, _) = error, said.withLock({ $0.insert(soname).inserted }) else { return }
        output.notice("covers are drawn as placeholders: \(error.summary). \(error.recovery ?? "")")
    }
}
