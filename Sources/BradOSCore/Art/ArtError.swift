import CArtLoader

/// The libraries pictures are drawn with, and the package that ships each on this system.
/// They are the .deb's Recommends (its note says so): apt installs them by default, and
/// without them brados works, a cover is a placeholder, and the command says why once.
enum ArtLibraries {
    static let all: [cart_lib] = [CART_LIB_CHAFA, CART_LIB_TURBOJPEG, CART_LIB_PNG]

    static func soname(_ lib: cart_lib) -> String { String(cString: cart_lib_soname(lib)) }

    /// The package to install for `lib`: Debian's name, which apt also takes on the releases
    /// that renamed it for 64-bit time (trixie, noble: the new package provides the old name);
    /// Ubuntu ships TurboJPEG as `libturbojpeg`. scripts/check-package.sh installs what this
    /// names in a clean root of each release the .deb is made for.
    static func package(_ lib: cart_lib, osRelease: [String: String] = OSRelease.current) -> String {
        switch lib {
        case CART_LIB_CHAFA: "libchafa0"
        case CART_LIB_TURBOJPEG: OSRelease.isUbuntu(osRelease) ? "libturbojpeg" : "libturbojpeg0"
        default: "libpng16-16"
        }
    }

    static func lib(soname: String) -> cart_lib? { all.first { self.soname($0) == soname } }

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
        case let .missingLibrary(soname, _):
            let package = ArtLibraries.lib(soname: soname).map { ArtLibraries.package($0) } ?? soname
            return "Install it with `sudo apt install \(package)`."
        default: return nil
        }
    }

    public var kind: FailureKind {
        switch self {
        case .missingLibrary: .general
        default: .integrity
        }
    }
}
