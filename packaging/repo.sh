#!/usr/bin/env bash
# make repo: a signed apt repository of brados, as a static tree any web host can serve.
#
#     packaging/repo.sh [DEB...]      (default: the .deb in dist/)
#
#   REPO=DIR                   the tree (default repo/); .debs already in its pool stay, so
#                              apt sees every published version
#   BRADOS_REPO_KEYS=A[:B]     the signing keys: files holding OpenPGP secret keys (armored or
#                              not), never in the repository. Each signs; two during a key
#                              rotation (docs/install.md)
#   BRADOS_REPO_VALID_DAYS=N   how long a Release stays valid (default 30): apt refuses an
#                              older one, so a stale mirror cannot hold an update back for long
#   BRADOS_REPO_DATE=EPOCH     the Release's Date (default now; tests set it)
#
# The tree: pool/main/b/brados/*.deb; dists/stable/main/binary-ARCH/Packages(.gz);
# dists/stable/Release (SHA-256 of every index), InRelease (clear-signed) and Release.gpg
# (detached); and brados-archive-keyring.gpg (the public keys, for a new user to fetch).
# Run on dist/ (no DEB named), it signs dist/'s tarball too: TARBALL.asc beside it.
# Signing uses gpg in a throw-away home: no key touches the caller's keyring.
set -euo pipefail
umask 022
cd "$(dirname "$0")/.."
repo="$(realpath -m "${REPO:-repo}")"
keys="${BRADOS_REPO_KEYS:?repo.sh: BRADOS_REPO_KEYS names the file(s) of the secret signing key(s), e.g. BRADOS_REPO_KEYS=~/keys/brados-2026.asc}"
valid_days="${BRADOS_REPO_VALID_DAYS:-30}"
date="${BRADOS_REPO_DATE:-$(date +%s)}"
scripts/ensure-deps.sh package >&2

debs=("$@") release_run=false
if [ ${#debs[@]} -eq 0 ]; then
    release_run=true
    shopt -s nullglob
    debs=(dist/brados_*.deb)
    [ ${#debs[@]} -gt 0 ] || { echo "repo.sh: no .deb in dist/: run make package first, or name the .deb files" >&2; exit 1; }
fi

gnupg="$(mktemp -d)"
# gpg starts an agent for the home: stopped with it (an agent left behind keeps the caller's
# open files, a lock among them).
trap 'gpgconf --homedir "$gnupg" --kill all 2>/dev/null; rm -rf "$gnupg"' EXIT
signers=()
IFS=: read -r -a key_files <<< "$keys"
for file in "${key_files[@]}"; do
    [ -r "$file" ] || { echo "repo.sh: cannot read the signing key $file" >&2; exit 1; }
    gpg --homedir "$gnupg" --batch --quiet --import "$file" 2>/dev/null
    fingerprint="$(gpg --homedir "$gnupg" --batch --with-colons --show-keys "$file" | awk -F: '$1 == "fpr" { print $10; exit }')"
    gpg --homedir "$gnupg" --batch --list-secret-keys "$fingerprint" >/dev/null 2>&1 \
        || { echo "repo.sh: $file holds no secret key (a public key cannot sign)" >&2; exit 1; }
    signers+=(--local-user "$fingerprint!")
done

mkdir -p "$repo/pool/main/b/brados"
for deb in "${debs[@]}"; do
    [ "$(dpkg-deb -f "$deb" Package)" = brados ] || { echo "repo.sh: $deb is not a brados package" >&2; exit 1; }
    # Debian's file name (apt-ftparchive picks an architecture's packages by it).
    version="$(dpkg-deb -f "$deb" Version)"
    cp "$deb" "$repo/pool/main/b/brados/brados_${version#*:}_$(dpkg-deb -f "$deb" Architecture).deb"
done

rm -rf "$repo/dists"
archs=()
for deb in "$repo"/pool/main/b/brados/*.deb; do archs+=("$(dpkg-deb -f "$deb" Architecture)"); done
mapfile -t archs < <(printf '%s\n' "${archs[@]}" | sort -u)
for arch in "${archs[@]}"; do
    dir="dists/stable/main/binary-$arch"
    mkdir -p "$repo/$dir"
    (cd "$repo" && apt-ftparchive --arch "$arch" packages pool > "$dir/Packages")
    gzip -9n -c "$repo/$dir/Packages" > "$repo/$dir/Packages.gz"
done
release_date="$(LC_ALL=C date -u -d "@$date" '+%a, %d %b %Y %H:%M:%S UTC')"
valid_until="$(LC_ALL=C date -u -d "@$((date + valid_days * 86400))" '+%a, %d %b %Y %H:%M:%S UTC')"
(cd "$repo/dists/stable" && apt-ftparchive \
    -o APT::FTPArchive::Release::Origin=brados -o APT::FTPArchive::Release::Label=brados \
    -o APT::FTPArchive::Release::Suite=stable -o APT::FTPArchive::Release::Codename=stable \
    -o APT::FTPArchive::Release::Architectures="${archs[*]}" -o APT::FTPArchive::Release::Components=main \
    -o APT::FTPArchive::Release::Description="brados, offline-first terminal access to your BradOS data" \
    -o APT::FTPArchive::Release::MD5=false -o APT::FTPArchive::Release::SHA1=false -o APT::FTPArchive::Release::SHA512=false \
    release . > ../Release.new)
# apt-ftparchive dates the Release now; the date and its validity are this script's.
awk -v date="$release_date" -v until="$valid_until" \
    '/^Date:/ { print "Date: " date; print "Valid-Until: " until; next } { print }' "$repo/dists/Release.new" > "$repo/dists/stable/Release"
rm "$repo/dists/Release.new"
gpg --homedir "$gnupg" --batch --yes --digest-algo SHA512 "${signers[@]}" --clearsign -o "$repo/dists/stable/InRelease" "$repo/dists/stable/Release"
gpg --homedir "$gnupg" --batch --yes --digest-algo SHA512 "${signers[@]}" --armor --detach-sign -o "$repo/dists/stable/Release.gpg" "$repo/dists/stable/Release"
gpg --homedir "$gnupg" --batch --export > "$repo/brados-archive-keyring.gpg"
# A release run (dist/'s .deb) signs dist/'s tarball too, by the same key(s) (README: gpgv
# before unpacking).
shopt -s nullglob
$release_run || exit 0
for tarball in dist/brados-*-linux-*.tar.gz; do
    gpg --homedir "$gnupg" --batch --yes "${signers[@]}" --armor --detach-sign -o "$tarball.asc" "$tarball"
    echo "$tarball.asc"
done
echo "$repo: $(find "$repo/pool" -name '*.deb' | wc -l) package(s) for ${archs[*]}, signed by ${#key_files[@]} key(s), valid until $valid_until"
