#!/usr/bin/env bash
# The proof that brados installs the way Linux CLIs do: the .deb and the tarball from
# `make package`, installed in a clean Debian root (no Swift, no compiler, no project) and
# used there by an ordinary user. Prints one line per check; exits 1 when one fails.
#
#     scripts/check-package.sh      (as root: debootstrap, chroot, mount; run by .ci/run)
#
# - lintian on the .deb: no error.
# - A Debian bookworm minbase root from the mirror apt on this machine uses, cached in
#   $SCRATCH/debian-roots/ as a tar keyed by suite, variant and mirror (a later run unpacks
#   it in seconds), then per run: /proc mounted (never /dev: the root's own nodes are enough,
#   and a bind of the machine's /dev is what a later rm -rf would reach), unmounted before
#   the folder is removed, whatever happens.
# - `apt-get install ./brados_*.deb` resolves every dependency from Debian; as a new user:
#   --version, mealplan show, visits list, today, search (FTS5), a cover and the weight plot, cache export + import
#   --as, doctor (which loads the picture libraries); man -w; a bash
#   login shell completes `brados lib<TAB>`; systemd-analyze --user verify takes the units.
# - apt-get remove, then purge (after a reinstall): every file dpkg -L listed is gone and the
#   user's ~/.config, ~/.cache and ~/.local/share/brados are byte for byte as they were.
# - The tarball, in a second clean root with only the .deb's Depends installed: its SHA-256,
#   then bin/brados mealplan show, unpacked into ~/.local as the README says.
# - Sizes, and `brados --version` start-up in the clean root next to the build tree's.
set -uo pipefail
cd "$(dirname "$0")/.."
scratch="${SCRATCH:-.build}"
dist="${DIST:-dist}"
suite="${BRADOS_CHECK_SUITE:-bookworm}"
variant=minbase
[ "$(id -u)" -eq 0 ] || { echo "check-package.sh: needs root (debootstrap, chroot, mount /proc); CI runs as root" >&2; exit 1; }
scripts/ensure-deps.sh package
arch="$(dpkg --print-architecture)"
shopt -s nullglob
debs=("$dist"/brados_*_"$arch".deb)
tarballs=("$dist"/brados-*-linux-"$arch".tar.gz)
[ ${#debs[@]} -eq 1 ] && [ ${#tarballs[@]} -eq 1 ] || {
    echo "check-package.sh: expected one .deb and one tarball for $arch in $dist/ (found ${#debs[@]} and ${#tarballs[@]}): run make package" >&2
    exit 1
}
deb="${debs[0]}" tarball="${tarballs[0]}"
version="$(dpkg-deb -f "$deb" Version)"
upstream="${version%-*}"

failures=0
# check LABEL COMMAND...: runs COMMAND; prints ok or FAIL with the label.
check() { local label="$1"; shift; if "$@"; then echo "ok   $label"; else echo "FAIL $label"; failures=$((failures + 1)); fi; }
size() { du -k --apparent-size "$1" | awk '{ printf "%.1f MB", $1 / 1024 }'; }

# --- lintian -------------------------------------------------------------------------------
echo "lintian $(basename "$deb"):"
lintian_out="$(lintian "$deb" 2>/dev/null)"; lintian_rc=$?
[ -n "$lintian_out" ] && sed 's/^/    /' <<< "$lintian_out"
no_lintian_errors() { [ $lintian_rc -eq 0 ] && ! grep -q '^E:' <<< "$lintian_out"; }
check "lintian: 0 errors ($(grep -c '^E:' <<< "$lintian_out") errors, $(grep -c '^W:' <<< "$lintian_out") warnings)" no_lintian_errors

# --- the clean root --------------------------------------------------------------------------
# The mirror: BRADOS_DEBIAN_MIRROR, else the first URI apt on this machine uses for $suite.
mirror="${BRADOS_DEBIAN_MIRROR:-$(python3 - "$suite" <<'PY'
import glob, re, sys
suite = sys.argv[1]
entries = []  # (uri, suites) of every deb source, deb822 and one-line
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for stanza in re.split(r"\n\s*\n", open(path).read()):
        fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
        if "deb" in fields.get("Types", "").split() and fields.get("URIs"):
            entries.append((fields["URIs"].split()[0], fields.get("Suites", "").split()))
for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    try: lines = open(path).read().splitlines()
    except OSError: continue
    for line in lines:
        words = re.sub(r"\[[^]]*\]", "", line).split()
        if len(words) >= 3 and words[0] == "deb":
            entries.append((words[1], [words[2]]))
# The mirror of this suite; else, on a host of another Debian release, its Debian mirror
# (the same mirror serves every suite).
for uri, suites in entries:
    if suite in suites:
        print(uri); sys.exit()
for uri, suites in entries:
    if re.search(r"/debian/?$", uri):
        print(uri); sys.exit()
PY
)}"
[ -n "$mirror" ] || { echo "check-package.sh: apt here has no source for $suite; set BRADOS_DEBIAN_MIRROR" >&2; exit 1; }
key="$suite-$variant-$(printf %s "$mirror" | sha256sum | cut -c1-12)"
cache="$scratch/debian-roots/$key.tar"
work="$(realpath -m "$scratch/check-package")"
mkdir -p "$work" "$scratch/debian-roots"
roots=()
# One run at a time: the roots and the cached root have fixed names.
exec 9>"$scratch/debian-roots/.lock"
flock -n 9 || { echo "check-package.sh: another run holds $scratch/debian-roots/.lock; waiting" >&2; flock 9; }

mounted_under() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r; }
unmount_all() { # every mount at or under $1, deepest first; fails if one stays
    local m
    for m in $(mounted_under "$1"); do umount "$m" 2>/dev/null || umount -l "$m"; done
    [ -z "$(mounted_under "$1")" ]
}
cleanup() {
    local r
    for r in "${roots[@]}"; do
        if unmount_all "$r"; then rm -rf --one-file-system "$r"
        else echo "check-package.sh: $r is still mounted; left in place" >&2; fi
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# use_new_root NAME: root= a fresh copy of the clean root, /proc mounted.
use_new_root() {
    root="$work/$1"
    roots+=("$root")
    unmount_all "$root" && rm -rf --one-file-system "$root" || exit 1
    mkdir -p "$root" && tar -xf "$cache" -C "$root" && cp /etc/resolv.conf "$root/etc/resolv.conf" \
        && mount -t proc proc "$root/proc" || { echo "check-package.sh: could not set up $root" >&2; exit 1; }
}
if [ ! -f "$cache" ]; then
    echo "debootstrap --variant=$variant $suite from $mirror (kept in $cache for the next run)"
    tmp="$(realpath -m "$scratch/debian-roots/$key.tmp")"
    roots+=("$tmp")
    unmount_all "$tmp" && rm -rf --one-file-system "$tmp" || exit 1
    started=$SECONDS
    if ! debootstrap --variant="$variant" "$suite" "$tmp" "$mirror" > "$scratch/debian-roots/$key.log" 2>&1; then
        tail -20 "$scratch/debian-roots/$key.log"
        echo "FAIL debootstrap (log: $scratch/debian-roots/$key.log)"
        exit 1
    fi
    unmount_all "$tmp" || exit 1
    tar -cf "$cache.part" -C "$tmp" . && mv "$cache.part" "$cache" || { echo "check-package.sh: could not keep the root in $cache" >&2; exit 1; }
    rm -rf --one-file-system "$tmp"
    echo "     made in $((SECONDS - started)) s ($(size "$cache"))"
else
    echo "clean root: $cache ($suite, $variant, $mirror)"
fi

# A clean environment, but the machine's proxy (apt in the root needs it where this one does).
proxy=(); for v in http_proxy https_proxy no_proxy; do [ -n "${!v:-}" ] && proxy+=("$v=${!v}"); done
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "${proxy[@]}" "$@"; }
add_user() {
    in_root useradd -m -s /bin/bash alice
    uid="$(in_root id -u alice)" gid="$(in_root id -g alice)"
    install -d -m 700 -o "$uid" -g "$gid" "$root/run/user/$uid"
}
as_user() { chroot --userspec="$uid:$gid" "$root" env -i HOME=/home/alice USER=alice LOGNAME=alice SHELL=/bin/bash \
    XDG_RUNTIME_DIR="/run/user/$uid" PATH=/home/alice/.local/bin:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb "$@" 2>"$work/stderr"; }
# logged LOG COMMAND...: runs COMMAND with its output in $work/LOG, shown when it fails.
logged() { local log="$work/$1"; shift; "$@" > "$log" 2>&1 || { tail -20 "$log" | sed 's/^/     /'; return 1; }; }
# shows TEXT COMMAND...: COMMAND's stdout has TEXT (grep reads it all: no SIGPIPE for pipefail to see)
shows() { as_user "${@:2}" | grep -- "$1" >/dev/null; }

use_new_root deb
no_toolchain() { ! in_root sh -c 'command -v swift || command -v swiftc || command -v cc || command -v gcc || command -v brados' >/dev/null; }
check "apt-get update in the clean root" logged update.log in_root apt-get update
check "the clean root has no Swift, no compiler, no brados" no_toolchain
cp "$deb" "$root/tmp/"
check "apt-get install ./$(basename "$deb") resolves every dependency from Debian" \
    logged install.log in_root apt-get install -y "/tmp/$(basename "$deb")"
add_user
version_is() { [ "$(as_user brados --version)" = "$upstream" ]; }
check "brados --version is $upstream" version_is
check "brados mealplan show (a new user, the embedded default)" shows breakfast brados mealplan show
check "brados mealplan show again comes from the cache" shows '"kind" : "cache"' brados mealplan show --json
check "brados visits list (the demo's visits)" shows '^[1-9][0-9]* visits' brados visits list
check "brados today right after mealplan show shows the meals" shows 'breakfast' brados today
# FTS5 comes from the package's libsqlite3 dependency (Debian builds it in): a real search proves it.
check "brados search (SQLite FTS5 from the installed libsqlite3)" shows 'brados mealplan show' brados search breakfast
# Pictures: Chafa and TurboJPEG (the demo's covers are JPEG, as Plex sends) opened at run time
# from the packages the dlopen note put in Depends; doctor fails if one of the three is missing.
check "brados library show 1001 draws the cover (libchafa0, libturbojpeg0)" shows '████' env COLUMNS=80 LINES=30 brados library show 1001 --art symbols
check "brados plan show plots the weight trend" shows 'target 78.0 kg' brados plan show --art symbols
exported() { as_user brados cache export -o /home/alice/backup.tar.zst >/dev/null && [ -s "$root/home/alice/backup.tar.zst" ]; }
check "brados cache export" exported
imported() { as_user brados cache import /home/alice/backup.tar.zst --as bob >/dev/null && shows breakfast brados --profile bob --offline mealplan show; }
check "brados cache import --as bob, then bob's mealplan offline" imported
doctor_ok() { as_user brados doctor >/dev/null; }
check "brados doctor" doctor_ok

check "man-db, bash-completion and systemd install (the checks' tools, not brados's)" \
    logged tools.log in_root apt-get install -y --no-install-recommends man-db bash-completion systemd
man_finds() { [ "$(as_user man -w brados)" = /usr/share/man/man1/brados.1.gz ]; }
check "man -w brados finds the page" man_finds
check "man brados renders" shows 'EXIT STATUS' env MANWIDTH=80 man brados
completes_lib() {
    local script='COMP_LINE="brados lib"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(brados lib); COMP_CWORD=1
__load_completion brados && f=$(complete -p brados | sed -n "s/.* -F \([^ ]*\) .*/\1/p") && "$f" brados lib brados
printf "%s\n" "${COMPREPLY[@]}"'
    [ "$(as_user bash --login -i -c "$script")" = library ]
}
check "a bash login shell completes brados lib<TAB> to library" completes_lib
check "systemd-analyze --user verify accepts the units" \
    as_user systemd-analyze --user verify /usr/lib/systemd/user/brados-sync.service /usr/lib/systemd/user/brados-sync.timer

# Sizes and start-up, while it is installed.
installed_kb="$(in_root dpkg-query -W -f='${Installed-Size}' brados)"
# The peer of make bench's start-up case, built the same way (bench/startup.py, release).
hello="$(python3 bench/startup.py --peer-only --configuration release --build-dir "$scratch")"
cp "$hello" "$root/tmp/hello"
startup="$(python3 - "$root" "$scratch/release/brados" "$hello" <<'PY'
import os, shutil, statistics, subprocess, sys, time
chroot = shutil.which("chroot")
root, build_tree, hello = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
cases = {"installed": [chroot, root, "/usr/bin/brados", "--version"],
         "build tree": [chroot, "/", build_tree, "--version"],
         "hello, root": [chroot, root, "/tmp/hello"],
         "hello, build": [chroot, "/", hello]}
times = {name: [] for name in cases}
for round in range(45):  # alternating, the first 5 rounds a warm-up
    for name, args in cases.items():
        start = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={"HOME": "/tmp"}, check=True)
        if round >= 5:
            times[name].append(time.perf_counter() - start)
m = {name: statistics.median(values) * 1000 for name, values in times.items()}
print(f"start-up, brados --version (median of 40): {m['installed']:.1f} ms installed in the clean root, "
      f"{m['build tree']:.1f} ms from the build tree ({m['installed'] / m['build tree']:.2f}x); "
      f"against a Swift hello-world (make bench's start-up case): {m['installed'] / m['hello, root']:.2f}x in the root, "
      f"{m['build tree'] / m['hello, build']:.2f}x in the build tree")
PY
)"
measured() { [ -n "$startup" ]; }
check "brados --version start-up measured in the clean root and the build tree" measured

files="$(in_root dpkg -L brados | while read -r path; do [ -d "$root$path" ] || echo "$path"; done)"
listed() { grep -x /usr/bin/brados <<< "$files" >/dev/null && [ "$(wc -l <<< "$files")" -ge 8 ]; }
check "dpkg -L brados lists its files ($(wc -l <<< "$files"), /usr/bin/brados among them)" listed
user_state() { (cd "$root/home/alice" && find .config/brados .cache/brados .local/share/brados -printf '%p %s %T@ %m\n' | sort | sha256sum); }
before="$(user_state)"
user_folders() { [ -d "$root/home/alice/.config/brados" ] && [ -d "$root/home/alice/.cache/brados" ] && [ -d "$root/home/alice/.local/share/brados" ]; }
check "the user's brados folders are there before uninstalling" user_folders
gone() { local path; for path in $files; do [ ! -e "$root$path" ] || { echo "     still there: $path"; return 1; }; done; }
untouched() { [ "$(user_state)" = "$before" ]; }
check "apt-get remove brados" logged remove.log in_root apt-get remove -y brados
check "every file dpkg -L listed is gone ($(wc -w <<< "$files") files)" gone
check "the user's ~/.config, ~/.cache and ~/.local/share/brados are untouched" untouched
reinstall_and_purge() { in_root apt-get install -y "/tmp/$(basename "$deb")" && in_root apt-get purge -y brados; }
check "apt-get install again, then apt-get purge brados" logged purge.log reinstall_and_purge
forgotten() { gone && ! in_root dpkg-query -W brados >/dev/null 2>&1; }
check "after purge: every file is gone and dpkg keeps no record" forgotten
check "after purge: the user's files are untouched" untouched

# --- the tarball, in a second clean root with only the .deb's Depends -------------------------
use_new_root tarball
satisfy() { in_root apt-get update && in_root apt-get satisfy -y "$(dpkg-deb -f "$deb" Depends)"; }
check "apt-get satisfy the .deb's Depends in a second clean root" logged satisfy.log satisfy
add_user
cp "$tarball" "$tarball.sha256" "$root/tmp/"
name="$(basename "$tarball" .tar.gz)"
sums() { (cd "$root/tmp" && sha256sum -c --quiet "$name.tar.gz.sha256"); }
check "sha256sum -c $name.tar.gz.sha256" sums
unpacked() { as_user sh -c "mkdir -p ~/.local && tar -xzf /tmp/$name.tar.gz -C ~/.local --strip-components=1" && [ -x "$root/home/alice/.local/bin/brados" ]; }
check "the tarball unpacks into ~/.local (bin/, share/)" unpacked
check "bin/brados mealplan show works from the tarball" shows breakfast /home/alice/.local/bin/brados mealplan show
check "bin/brados library show draws a cover with only the .deb's Depends" shows '████' env COLUMNS=80 LINES=30 /home/alice/.local/bin/brados library show 1001 --art symbols
in_place() {
    local share="$root/home/alice/.local/share"
    [ -f "$share/man/man1/brados.1.gz" ] && [ -f "$share/bash-completion/completions/brados" ] \
        && [ -f "$share/zsh/site-functions/_brados" ] && [ -f "$share/fish/vendor_completions.d/brados.fish" ]
}
check "its man page and completions are where tools look under ~/.local" in_place
check "man-db and systemd install in the second root" logged tools2.log in_root apt-get install -y --no-install-recommends man-db systemd
local_man() { [ "$(as_user man -w brados)" = /home/alice/.local/share/man/man1/brados.1.gz ]; }
check "man -w brados finds ~/.local/share/man/man1/brados.1.gz (from PATH)" local_man
units="/home/alice/.local/share/systemd/user"
check "systemd-analyze --user verify accepts the tarball's units" \
    as_user systemd-analyze --user verify "$units/brados-sync.service" "$units/brados-sync.timer"
unit_finds_brados() { # the unit's own PATH (%h is the home folder) leads to the unpacked brados
    local path
    path="$(sed -n 's/^Environment=PATH=//p' "$root$units/brados-sync.service" | sed 's|%h|/home/alice|g')"
    [ -n "$path" ] && [ "$(as_user env PATH="$path" sh -c 'command -v brados')" = /home/alice/.local/bin/brados ]
}
check "the tarball's unit finds ~/.local/bin/brados on its PATH" unit_finds_brados

echo "sizes: $(basename "$deb") $(size "$deb"), installed $(awk -v k="$installed_kb" 'BEGIN { printf "%.1f MB", k / 1024 }'), $(basename "$tarball") $(size "$tarball")"
echo "Depends: $(dpkg-deb -f "$deb" Depends)"
[ -n "$startup" ] && echo "$startup"
[ $failures -gt 0 ] && [ -s "$work/stderr" ] && { echo "last stderr:"; sed 's/^/    /' "$work/stderr"; }
echo "$failures failed"
exit $((failures > 0))
