import BradOSCore
import CArtLoader
import Foundation

/// A decoded image (RGB or RGBA, 8 bits a channel), decoded from JPEG (TurboJPEG) or PNG
/// (libpng), told apart by their signatures.
public final class Picture: @unchecked Sendable {
    /// The largest side decoded: a bigger image is refused before its pixels are allocated
    /// (artwork comes at 2048 px at most; 4096 px of RGBA is 64 MB).
    public static let maxSide = 4096

    /// Never mutated after init; freed in deinit.
    let image: cart_image

    public var width: Int { Int(image.width) }
    public var height: Int { Int(image.height) }

    /// Decodes `data`. A JPEG is decoded at the smallest of TurboJPEG's scales (1/8 … 1)
    /// whose sides are still at least `minSide`: a picture drawn 80 cells wide needs hundreds
    /// of pixels, not 2048.
    /// - Throws: ``ArtError``.
    public init(decoding data: Data, minSide: Int = 0) throws(ArtError) {
        var decoded = cart_image()
        var detail = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBytes { bytes in
            cart_decode(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, Int32(clamping: minSide),
                        Int32(Self.maxSide), &decoded, &detail, detail.count)
        }
        let message = String(decoding: detail.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case CART_OK: image = decoded
        case CART_MISSING_LIBRARY:
            throw .missing(data.first == 0xFF ? CART_LIB_TURBOJPEG : CART_LIB_PNG)
        case CART_UNKNOWN_FORMAT: throw .unknownFormat
        case CART_TOO_LARGE: throw .tooLarge
        case CART_NO_MEMORY: throw .noMemory
        default: throw .corrupt(detail: message)
        }
    }

    deinit {
        var owned = image
        cart_image_free(&owned)
    }
}
