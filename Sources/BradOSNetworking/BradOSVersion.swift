/// The brados version: the one place it is written.
///
/// `brados --version`, the `User-Agent` and Plex headers, archive manifests, the man page's
/// footer (`scripts/generate-man.sh` reads it from this file), the Debian package's
/// version and the tarball's name (`packaging/package.sh`, also from the built binary) all come
/// from it. To release a new version: change it here, add an entry for it at the top of
/// `packaging/debian/changelog`, run `make man`; `make test` checks that all three agree.
public enum BradOSVersion {
    public static let current = "0.3.0"
}
