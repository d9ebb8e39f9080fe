#!/usr/bin/env bash
# make package: the release binary (Swift runtime linked statically, stripped) as a Debian
# package and a tarball, in dist/:
#
#   brados_<version>_<arch>.deb                   built by Debian's own tools: dpkg-shlibdeps,
#                                                  dpkg-gencontrol, dpkg-deb
#   brados-<upstream>-linux-<arch>.tar.gz         the same files as bin/ and share/ under one
#   brados-<upstream>-linux-<arch>.tar.gz.sha256  folder, and its SHA-256
#   brados-<upstream>-linux-<arch>.spdx.json      the software bill of materials both install
#
#     packaging/package.sh [SCRATCH]   (SCRATCH: the release build's scratch path, default .build)
#
# The version is brados's own (`brados --version`, from Sources/BradOSNetworking/BradOSVersion.swift);
# the package adds the Debian revision of the newest entry of packaging/debian/changelog, which
# must be for that version. Depends and Recommends are computed from the binary: dpkg-shlibdeps
# for the libraries it links, packaging/depends.py for the ones it opens with dlopen (libarchive;
# the picture libraries), with alternatives for every release packaging/releases.py lists.
set -euo pipefail
# The modes in the package are ours, not the caller's (lintian wants 0644/0755 control files).
umask 022
cd "$(dirname "$0")/.."
scratch="${1:-${SCRATCH:-.build}}"
dist="${DIST:-dist}"
binary="$scratch/release/brados"
export SCRATCH="$scratch"
[ -x "$binary" ] || { echo "package.sh: no release binary at $binary: run make package (it builds one)" >&2; exit 1; }

version="$("$binary" --version)"
package_version="$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)"
if [ "${package_version%-*}" != "$version" ]; then
    echo "package.sh: brados --version is $version, but the newest entry of packaging/debian/changelog is" \
         "$package_version: add an entry for $version-1 at its top (dch -c packaging/debian/changelog -v $version-1)" >&2
    exit 1
fi
if ! grep -qx "\.Os brados $version" man/brados.1; then
    echo "package.sh: man/brados.1 is not for brados $version: run make man" >&2
    exit 1
fi
arch="$(dpkg --print-architecture)"
# Every file's time is the commit's (else the changelog entry's): two packagings of one commit
# give the same archives around the same binary.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || dpkg-parsechangelog -l packaging/debian/changelog -S Timestamp)}"

work="$scratch/package"
rm -rf "$work"
mkdir -p "$work/debian" "$dist"
# Earlier versions' artifacts go: dist/ holds one .deb and one tarball (check-package.sh wants one).
rm -f "$dist"/brados_*.deb "$dist"/brados_*.deb.sha256 "$dist"/brados-*-linux-*.tar.gz "$dist"/brados-*-linux-*.tar.gz.sha256 "$dist"/brados-*-linux-*.spdx.json "$dist"/brados-*-linux-*.tar.gz.asc
cp packaging/debian/control packaging/debian/changelog "$work/debian/"

# The .deb: the tree in debian/brados/ as debhelper lays it out, so Debian's tools run as usual.
packaging/stage.sh debian "$binary" "$work/debian/brados"
mkdir -p "$work/debian/brados/DEBIAN"
(cd "$work" && dpkg-shlibdeps -Tdebian/brados.substvars debian/brados/usr/bin/brados)
packaging/depends.py "$work/debian/brados/usr/bin/brados" >> "$work/debian/brados.substvars"
grep -q '^dlopen:Depends=.\+' "$work/debian/brados.substvars" || { echo "package.sh: no dlopen:Depends computed (libarchive)" >&2; exit 1; }
(cd "$work/debian/brados" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
(cd "$work" && dpkg-gencontrol -pbrados -Pdebian/brados -Tdebian/brados.substvars)
find "$work/debian/brados" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
deb="$dist/brados_${package_version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$work/debian/brados" "$deb" >/dev/null

# The tarball: bin/ and share/ under brados-<version>-linux-<arch>/, to unpack into ~/.local or /usr/local.
name="brados-$version-linux-$arch"
packaging/stage.sh prefix "$binary" "$work/tarball/$name"
find "$work/tarball/$name" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$work/tarball" -cf - "$name" | gzip -9n > "$dist/$name.tar.gz"
# The SBOM beside the tarball too (the same file both packages install).
cp "$work/tarball/$name/share/doc/brados/sbom.spdx.json" "$dist/$name.spdx.json"
(cd "$dist" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256" && sha256sum "$(basename "$deb")" > "$(basename "$deb").sha256")

size() { du -k --apparent-size "$1" | awk '{ printf "%.1f MB", $1 / 1024 }'; }
echo "$deb ($(size "$deb"), installed $(dpkg-deb -f "$deb" Installed-Size | awk '{ printf "%.1f MB", $1 / 1024 }'))"
echo "  Depends: $(dpkg-deb -f "$deb" Depends)"
echo "  Recommends: $(dpkg-deb -f "$deb" Recommends)"
echo "$dist/$name.tar.gz ($(size "$dist/$name.tar.gz"))"
echo "  $(cat "$dist/$name.tar.gz.sha256")"
