import BradOSCore
import BradOSErrors
import CArtLoader

/// The libraries pictures are drawn with, and the package that ships each on this system.
/// They are the .deb's Recommends (its note says so): apt installs them by default, and
/// without them brados works, a cover is a placeholder, and the command says why once.
enum ArtLibraries {
    static let all: [cart_lib] = [CART_LIB_CHAFA, CART_LIB_TURBOJPEG, CART_LIB_PNG]

    static func soname(_ lib: cart_lib) -> String { String(cString: cart_lib_soname(lib)) }

    /// The apt package to install for `lib` on Debian and the distributions built on it:
    /// Debian's name, which apt also takes on the releases that renamed it for 64-bit time
    /// (trixie, noble: the new package provides the old name); Ubuntu ships TurboJPEG as
    /// `libturbojpeg`. `nil` elsewhere (the tarball on Fedora: its names are its own).
    /// packaging/check-package.sh installs what this names in a clean root of each release.
    static func package(_ lib: cart_lib, osRelease: [String: String] = OSRelease.current) -> String? {
        guard OSRelease.isDebian(osRelease) else { return nil }
        switch lib {
        case CART_LIB_CHAFA: return "libchafa0"
        case CART_LIB_TURBOJPEG: return OSRelease.isUbuntu(osRelease) ? "libturbojpeg" : "libturbojpeg0"
        default: return "libpng16-16"
        }
    }

    /// The library's name as distributions call its project.
    static func project(_ lib: cart_lib) -> String {
        switch lib {
        case CART_LIB_CHAFA: "Chafa"
        case CART_LIB_TURBOJPEG: "libjpeg-turbo (TurboJPEG)"
        default: "libpng"
        }
    }

    static func lib(soname: String) -> cart_lib? { all.first { self.soname($0) == soname } }

    /// What to install when `soname` is missing: the apt command on Debian and Ubuntu, the
    /// project's name elsewhere.
    static func advice(soname: String, osRelease: [String: String] = OSRelease.current) -> String {
        guard let lib = lib(soname: soname) else { return "Install the package that provides \(soname)." }
        guard let package = package(lib, osRelease: osRelease) else {
            return "Install your distribution's \(project(lib)) package (it provides \(soname))."
        }
        return "Install it with `sudo apt install \(package)`."
    }

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
        case let .missingLibrary(soname, _): ArtLibraries.advice(soname: soname)
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
