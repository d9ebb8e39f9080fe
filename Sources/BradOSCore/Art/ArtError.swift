import CArtLoader

/// The libraries pictures are drawn with, and the Debian package of each.
enum ArtLibraries {
    static let all: [(lib: cart_lib, package: String)] = [
        (CART_LIB_CHAFA, "libchafa0"), (CART_LIB_TURBOJPEG, "libturbojpeg0"), (CART_LIB_PNG, "libpng16-16"),
    ]

    static func soname(_ lib: cart_lib) -> String { String(cString: cart_lib_soname(lib)) }
    static func package(_ lib: cart_lib) -> String { all.first { $0.lib == lib }?.package ?? soname(lib) }

    /// Why `lib` could not be loaded, or `nil` when it was.
    static func loadError(_ lib: cart_lib) -> String? { cart_load_error(lib).map { String(cString: $0) } }
}

extension ArtError {
    /// `lib` is missing (or lacks a function brados calls).
    static func missing(_ lib: cart_lib) -> ArtError {
        .missingLibrary(soname: ArtLibraries.soname(lib), detail: ArtLibraries.loadError(lib) ?? "a function is missing")
    }
}

/// Why a picture could not be drawn. Callers draw the placeholder instead (a missing or
/// broken picture is never a command's failure); the summary goes to `--verbose` logs.
public enum ArtError: BradOSError, Equatable {
    /// A library pictures need is not installed.
    case missingLibrary(soname: String, detail: String)
    /// The bytes are neither a JPEG nor a PNG.
    case unknownFormat
    /// A JPEG or PNG that does not decode.
    case corrupt(detail: String)
    /// Larger than ``Picture/maxSide`` on a side.
    case tooLarge
    /// No memory for the pixels.
    case noMemory

    public var summary: String {
        switch self {
        case let .missingLibrary(soname, detail): "\(soname) could not be loaded (\(detail))"
        case .unknownFormat: "the image is neither a JPEG nor a PNG"
        case let .corrupt(detail): "the image does not decode" + (detail.isEmpty ? "" : ": \(detail)")
        case .tooLarge: "the image is larger than \(Picture.maxSide) pixels on a side"
        case .noMemory: "there is not enough memory to decode the image"
        }
    }

    public var recovery: String? {
        switch self {
        case .missingLibrary: "Install brados's dependencies (apt-get install \(ArtLibraries.all.map(\.package).joined(separator: " ")))."
        default: nil
        }
    }

    public var kind: FailureKind {
        switch self {
        case .missingLibrary: .general
        default: .integrity
        }
    }
}
