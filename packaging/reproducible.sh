#!/usr/bin/env bash
# make reproducible: what a release is made of is the same bytes every time it is made from
# one commit.
#
#     packaging/reproducible.sh             the packaging half (CI; after make package, which made
#                                           dist/): packaging/package.sh once more from the same
#                                           release binary, into another folder; every artifact
#                                           (.deb, tarball, their .sha256, the SBOM) compared with dist/'s
#     packaging/reproducible.sh --binary    also the binary: the commit cloned into another folder,
#                                           built there with `make release`, and the two release
#                                           binaries compared as the packages ship them (stripped
#                                           by packaging/stage.sh; a clean release build: ~17 minutes)
#
# A difference fails, naming the file, with diffoscope's report when diffoscope is installed.
# The release flags (Makefile: `release`) map the source folder to "." in every path the
# compilers write into the binary (-file-prefix-map), so where the tree lies does not show.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${SCRATCH:-.build}"
failures=0

compare() { # compare A B LABEL [UNSTRIPPED_A]: a binary's differences by section and function
    if cmp -s "$1" "$2"; then
        echo "ok   $3: identical ($(sha256sum < "$1" | cut -c1-16)…)"
    else
        echo "FAIL $3 differs: $1 $2"
        if [ -n "${4:-}" ]; then
            packaging/elfdiff.py "$1" "$2" --symbols "$4" || true
        elif command -v diffoscope >/dev/null; then
            { diffoscope --text - "$1" "$2" || true; } | head -60
        fi
        failures=$((failures + 1))
    fi
}

# --- the packaging half ----------------------------------------------------------------------
dist="${DIST:-dist}"
work="$(realpath -m "$scratch/reproducible")"
rm -rf "$work"
mkdir -p "$work"
shopt -s nullglob
made=("$dist"/brados[_-]*)
[ ${#made[@]} -gt 0 ] || { echo "reproducible.sh: nothing in $dist/: run make package first (make reproducible does)" >&2; exit 1; }
DIST="$work/again" packaging/package.sh "$scratch" > "$work/again.log" || { cat "$work/again.log"; exit 1; }
for file in "$work"/again/*; do
    [ -e "$dist/$(basename "$file")" ] || { echo "FAIL $(basename "$file") was made the second time only"; failures=$((failures + 1)); continue; }
    compare "$dist/$(basename "$file")" "$file" "make package twice: $(basename "$file")"
done

# --- the binary half -------------------------------------------------------------------------
if [ "${1:-}" = --binary ]; then
    elsewhere="$(mktemp -d /tmp/brados-reproducible.XXXXXX)"
    trap 'rm -rf "$elsewhere"' EXIT
    [ -z "${KEEP:-}" ] || trap 'echo "kept: $elsewhere"' EXIT
    git clone --quiet --no-hardlinks . "$elsewhere/brados"
    git -C "$elsewhere/brados" checkout --quiet "$(git rev-parse HEAD)"
    [ -z "$(git status --porcelain --untracked-files=no)" ] || echo "note: this tree has uncommitted changes; the clone builds HEAD" >&2
    start=$SECONDS
    make -C "$elsewhere/brados" -s release PRODUCT=brados > "$elsewhere/build.log" 2>&1 || { tail -30 "$elsewhere/build.log"; exit 1; }
    echo "     release build in $elsewhere/brados: $((SECONDS - start)) s"
    # As shipped: stage.sh strips symbols, .comment and .swift_modhash (an incremental-build
    # hash over each module's code and debug information, which names the build folder).
    packaging/stage.sh prefix "$scratch/release/brados" "$work/here" > /dev/null
    packaging/stage.sh prefix "$elsewhere/brados/.build/release/brados" "$work/there" > /dev/null
    compare "$work/here/bin/brados" "$work/there/bin/brados" "the release binary built in another folder, as the packages ship it" "$scratch/release/brados"
    if ! cmp -s "$scratch/release/brados" "$elsewhere/brados/.build/release/brados"; then
        echo "note the unstripped binaries differ (debug information and .swift_modhash, which ship in neither package): $(cmp -l "$scratch/release/brados" "$elsewhere/brados/.build/release/brados" | wc -l) bytes"
    fi
fi

[ "$failures" -eq 0 ] || exit 1
