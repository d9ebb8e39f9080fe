import BradOSCore
import CArchive

/// The type of an archive entry, from libarchive's `AE_IF*` file types
/// (re-exported as constants by the CArchive shim because the macros do not import).
public enum ArchiveEntryType: Sendable, Equatable {
    case regular, directory, symlink, hardlinkOrOther, characterDevice, blockDevice, fifo, socket

    public init(mode: mode_t) {
        switch mode & CARCHIVE_AE_IFMT {
        case CARCHIVE_AE_IFREG: self = .regular
        case CARCHIVE_AE_IFDIR: self = .directory
        case CARCHIVE_AE_IFLNK: self = .symlink
        case CARCHIVE_AE_IFCHR: self = .characterDevice
        case CARCHIVE_AE_IFBLK: self = .blockDevice
        case CARCHIVE_AE_IFIFO: self = .fifo
        case CARCHIVE_AE_IFSOCK: self = .socket
        default: self = .hardlinkOrOther
        }
    }
}
