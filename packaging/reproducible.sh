#!/usr/bin/env bash
# make reproducible: what a release is made of is the same bytes every time it is made from
# one commit.
#
#     packaging/reproducible.sh             the packaging half (CI): packaging/package.sh twice from
#                                           the same release binary, into two folders; every
#                                           artifact (.deb, tarball, their .sha256, the SBOM) compared
#     packaging/reproducible.sh --binary    also the binary: the commit cloned into another folder,
#                                           built there with `make release`, and the two release
#                                           binaries compared (a clean release build: ~10 minutes)
#
# A difference fails, naming the file, with diffoscope's report when diffoscope is installed.
# The release flags (Makefile: `release`) map the source folder to "." in every path the
# compilers write into the binary (-file-prefix-map), so where the tree lies does not show.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${SCRATCH:-.build}"
failures=0

compare() { # compare A B LABEL
    if cmp -s "$1" "$2"; then
        echo "ok   $3: identical ($(sha256sum < "$1" | cut -c1-16)…)"
    else
        echo "FAIL $3 differs: $1 $2"
        command -v diffoscope >/dev/null && diffoscope --text - "$1" "$2" | head -60
        failures=$((failures + 1))
    fi
}

# --- the packaging half ----------------------------------------------------------------------
work="$(realpath -m "$scratch/reproducible")"
rm -rf "$work"
mkdir -p "$work"
for run in a b; do
    DIST="$work/$run" packaging/package.sh "$scratch" > "$work/$run.log" || { cat "$work/$run.log"; exit 1; }
done
for file in "$work"/a/*; do
    compare "$file" "$work/b/$(basename "$file")" "make package twice: $(basename "$file")"
done

# --- the binary half -------------------------------------------------------------------------
if [ "${1:-}" = --binary ]; then
    elsewhere="$(mktemp -d /tmp/brados-reproducible.XXXXXX)"
    trap 'rm -rf "$elsewhere"' EXIT
    git clone --quiet --no-hardlinks . "$elsewhere/brados"
    git -C "$elsewhere/brados" checkout --quiet "$(git rev-parse HEAD)"
    [ -z "$(git status --porcelain --untracked-files=no)" ] || echo "note: this tree has uncommitted changes; the clone builds HEAD" >&2
    start=$SECONDS
    make -C "$elsewhere/brados" -s release PRODUCT=brados > "$elsewhere/build.log" 2>&1 || { tail -30 "$elsewhere/build.log"; exit 1; }
    echo "     release build in $elsewhere/brados: $((SECONDS - start)) s"
    compare "$scratch/release/brados" "$elsewhere/brados/.build/release/brados" "the release binary built in another folder"
fi

[ "$failures" -eq 0 ] || exit 1
