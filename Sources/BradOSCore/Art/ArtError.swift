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
        case .missingLibrary: "Install brados's dependencies (apt install libchafa0 libturbojpeg0 libpng16-16)."
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
