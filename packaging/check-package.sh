#!/usr/bin/env bash
# The proof that brados installs the way Linux CLIs do, on every release the package is made
# for (packaging/releases.py: Debian bookworm and trixie, Ubuntu 22.04 jammy and 24.04 noble):
# the .deb and the tarball from `make package`, installed in clean roots (no Swift, no compiler,
# no project) and used there by an ordinary user. Prints one line per check; exits 1 when one fails.
#
#     packaging/check-package.sh      (as root: debootstrap, chroot, mount; run by .ci/run)
#     BRADOS_CHECK_RELEASES="bookworm jammy" packaging/check-package.sh      some releases only
#
# - lintian on the .deb: no error; packaging/releases.py check: every relation installs on each release.
# - Per release, a minbase root from its archive (Debian's mirror apt here uses; Ubuntu's archive,
#   main and universe, without Ubuntu's keyring here: --no-check-gpg, and apt in the root checks
#   signatures with its own), kept as a tar in $BRADOS_ROOTS_CACHE (default
#   ~/.cache/brados-packaging/roots: outside the clone, so CI makes each once), unpacked per run;
#   /proc mounted (never /dev), unmounted before the folder is removed, whatever happens.
# - The upgrade: a cache made by brados 0.1.0 (Tests/Fixtures/upgrade-0.1.0) put in the user's
#   home first; after the install, the new brados reads it offline, migrates it and exports it.
# - `apt-get install ./brados_*.deb` resolves every dependency and recommendation there; as a new
#   user: --version, mealplan show, visits list, today, search (FTS5), a cover and the weight
#   plot, cache export + import --as, doctor; man -w; a bash login shell completes
#   `brados lib<TAB>`; systemd-analyze --user verify takes the units.
# - apt-get remove, then purge (after a reinstall): every file dpkg -L listed is gone and the
#   user's ~/.config, ~/.cache and ~/.local/share/brados are byte for byte as they were; the
#   person's apt source then makes apt-get update warn, docs/install.md's one command removes
#   it, and the README's commands install brados again (doctor: no warning).
# - The tarball, in a second clean root with only the .deb's Depends (no Recommends): its
#   SHA-256, then bin/brados mealplan show from ~/.local as the README says; without the picture
#   libraries a cover is a placeholder, the command says what to install, doctor warns (exit 0);
#   installing what it names draws the cover.
# - On the release packages are built on: sizes, and `brados --version` start-up in the clean
#   root next to the build tree's.
set -uo pipefail
cd "$(dirname "$0")/.."
scratch="${SCRATCH:-.build}"
dist="${DIST:-dist}"
variant=minbase
[ "$(id -u)" -eq 0 ] || { echo "check-package.sh: needs root (debootstrap, chroot, mount /proc); CI runs as root" >&2; exit 1; }
scripts/ensure-deps.sh package || exit 1
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
fixture="Tests/Fixtures/upgrade-0.1.0"
# The releases: NAME DISTRIBUTION MIRROR COMPONENTS... (packaging/releases.py, the one list).
listing="$(packaging/releases.py list)" || exit 1
mapfile -t releases <<< "$listing"
if [ -n "${BRADOS_CHECK_RELEASES:-}" ]; then
    mapfile -t releases < <(printf '%s\n' "${releases[@]}" | awk -v want=" $BRADOS_CHECK_RELEASES " 'index(want, " " $1 " ")')
fi
[ ${#releases[@]} -gt 0 ] || { echo "check-package.sh: no release to check (BRADOS_CHECK_RELEASES=${BRADOS_CHECK_RELEASES:-})" >&2; exit 1; }
host="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"

failures=0
# check LABEL COMMAND...: runs COMMAND; prints ok or FAIL with the label (and the release).
check() { local label="$1"; shift; if "$@"; then echo "ok   $label"; else echo "FAIL $label"; failures=$((failures + 1)); fi; }
size() { du -k --apparent-size "$1" | awk '{ printf "%.1f MB", $1 / 1024 }'; }

# --- lintian, and every relation against every release's archive -----------------------------
echo "lintian $(basename "$deb"):"
lintian_out="$(lintian "$deb" 2>/dev/null)"; lintian_rc=$?
[ -n "$lintian_out" ] && sed 's/^/    /' <<< "$lintian_out"
no_lintian_errors() { [ $lintian_rc -eq 0 ] && ! grep -q '^E:' <<< "$lintian_out"; }
check "lintian: 0 errors ($(grep -c '^E:' <<< "$lintian_out") errors, $(grep -c '^W:' <<< "$lintian_out") warnings)" no_lintian_errors
# The SBOM both packages install: SPDX's own validator takes it, and it names every pinned Swift package.
sbom_valid() {
    local sbom="$work_sbom/sbom.spdx.json"
    mkdir -p "$work_sbom"
    dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/brados/sbom.spdx.json > "$sbom" || return 1
    pyspdxtools -i "$sbom" || return 1
    python3 - "$sbom" Package.pins.json <<'PY'
import json, sys
sbom, pins = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["packages"]
listed = {(p["name"], p.get("versionInfo")) for p in sbom["packages"]}
missing = [f"{p['identity']} {p['version']}" for p in pins if (p["identity"], p["version"]) not in listed]
sys.exit(f"     the SBOM lacks {missing}" if missing else 0)
PY
}
work_sbom="$(realpath -m "$scratch/check-package/sbom")"
check "the SBOM (/usr/share/doc/brados/sbom.spdx.json) is valid SPDX 2.3 and lists every pinned Swift package" sbom_valid
relations_install() { packaging/releases.py check "$deb" | sed 's/^/     /'; return "${PIPESTATUS[0]}"; }
check "every Depends and Recommends can be installed on each release's archive" relations_install

# --- the clean roots ---------------------------------------------------------------------------
roots_cache="${BRADOS_ROOTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/brados-packaging/roots}"
work="$(realpath -m "$scratch/check-package")"
mkdir -p "$work" "$roots_cache"
roots=()
# One run at a time: the roots and the cached roots have fixed names.
exec 9>"$roots_cache/.lock"
flock -n 9 || { echo "check-package.sh: another run holds $roots_cache/.lock; waiting" >&2; flock 9; }

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

# clean_root NAME DISTRIBUTION MIRROR COMPONENTS...: cache= the release's minbase root, a tar
# made by debootstrap the first time and kept for later runs.
clean_root() {
    local release="$1" distribution="$2" mirror="$3" components
    components="$(IFS=,; echo "${*:4}")"
    cache="$roots_cache/$release-$variant-$(printf %s "$mirror $components" | sha256sum | cut -c1-12).tar"
    if [ -f "$cache" ]; then
        echo "clean root: $cache ($release, $variant, $mirror)"
        return 0
    fi
    local tmp options=() script=() started=$SECONDS
    tmp="$(realpath -m "$roots_cache/$release.tmp")"
    roots+=("$tmp")
    unmount_all "$tmp" && rm -rf --one-file-system "$tmp" || return 1
    if [ "$distribution" = ubuntu ]; then
        # Debian ships no Ubuntu keyring (bookworm has no ubuntu-keyring package): debootstrap
        # cannot check the Release file's signature, so the root's first packages are trusted as
        # the mirror serves them; apt in the root then checks everything with the keyring it installed.
        options=(--no-check-gpg "--components=$components")
        # bookworm's debootstrap knows jammy but not noble: Ubuntu's generic script makes it.
        [ -e "/usr/share/debootstrap/scripts/$release" ] || script=(/usr/share/debootstrap/scripts/gutsy)
    fi
    echo "debootstrap --variant=$variant $release from $mirror (kept in $cache for the next run)"
    if ! debootstrap --variant="$variant" "${options[@]}" "$release" "$tmp" "$mirror" "${script[@]}" > "$roots_cache/$release.log" 2>&1; then
        tail -20 "$roots_cache/$release.log"
        echo "FAIL debootstrap $release (log: $roots_cache/$release.log)"
        return 1
    fi
    unmount_all "$tmp" || return 1
    tar -cf "$cache.part" -C "$tmp" . && mv "$cache.part" "$cache" || { echo "check-package.sh: could not keep the root in $cache" >&2; return 1; }
    rm -rf --one-file-system "$tmp"
    echo "     made in $((SECONDS - started)) s ($(size "$cache"))"
}

# use_new_root NAME: root= a fresh copy of the clean root in $cache, /proc mounted.
use_new_root() {
    root="$work/$1"
    roots+=("$root")
    unmount_all "$root" && rm -rf --one-file-system "$root" || exit 1
    mkdir -p "$root" && tar -xf "$cache" -C "$root" && cp /etc/resolv.conf "$root/etc/resolv.conf" \
        && mount -t proc proc "$root/proc" || { echo "check-package.sh: could not set up $root" >&2; exit 1; }
}

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
said() { grep -- "$1" "$work/stderr" >/dev/null; }
# verify_clean UNIT...: systemd-analyze --user verify passes the units and says nothing about them
# (an unknown key is only a warning to it: a unit written for a newer systemd shows here). Ubuntu's
# systemd 249 and 255 also say they found no system bus, which a root never has: not about a unit.
verify_clean() {
    as_user systemd-analyze --user verify "$@" > "$work/verify" \
        && ! grep -vx 'Failed to connect to system bus: No such file or directory' "$work/stderr" > "$work/stderr.units" \
        && ! [ -s "$work/verify" ] || { sed 's/^/     /' "$work/verify" "$work/stderr"; return 1; }
}

# check_keyring: the keyring from the .deb: a session bus and GNOME Keyring in the clean root, libsecret from
# the .deb's Recommends. The demo session, stored in a file while no keyring answered (auto's
# fallback, above), moves to the keyring; secret-tool reads it there, none is left in a file,
# and brados signs in with it; logout erases it from the keyring.
check_keyring() {
    check "$release: dbus, gnome-keyring and secret-tool install (the keyring's session, not brados's)" \
        logged keyring-tools.log in_root apt-get install -y --no-install-recommends dbus-daemon dbus-bin gnome-keyring libsecret-tools
    has_libsecret() { in_root dpkg-query -W libsecret-1-0 >/dev/null; }
    check "$release: the .deb's Recommends brought libsecret" has_libsecret
    # Without the roots' lock (fd 9): the keyring daemon may outlive the session.
    in_session() { as_user dbus-run-session -- sh -c 'printf %s keyring-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null; '"$1" > "$work/keyring.out" 2>&1 9>&-; }
    keyring_migrated() {
        in_session 'brados auth migrate --to keyring && brados auth status && secret-tool lookup application brados profile default service account' \
            && grep -Eq 'moved account(, [a-z/]+)* to the keyring' "$work/keyring.out" && grep -Eq '^ +account +keyring$' "$work/keyring.out" \
            && grep -q accessToken "$work/keyring.out" && ! grep -q accessToken "$root/home/alice/.config/brados/credentials/default.json" \
            || { tail -5 "$work/keyring.out" "$work/stderr" | sed 's/^/     /'; return 1; }
    }
    check "$release: brados auth migrate --to keyring: secret-tool reads it there, no token left in a file" keyring_migrated
    signs_in() { in_session 'brados auth status --check && brados doctor' && grep -q 'Verified with the server: demo' "$work/keyring.out" && grep -Eq 'credentials: store auto; keyring: answers; [0-9]+ secrets? in the keyring' "$work/keyring.out"; }
    check "$release: brados uses the session in the keyring (auth status --check), doctor says where it is" signs_in
    locked_out() { ! as_user brados auth status --check >/dev/null 2>"$work/stderr" && said 'keyring' && [ -f "$root/home/alice/.config/brados/credentials/default.json" ]; }
    check "$release: with no session bus, the secret in the keyring is an error, not a sign-out" locked_out
    logged_out() { in_session 'brados auth logout >/dev/null; secret-tool search --all application brados' && ! grep -q 'attribute.application' "$work/keyring.out"; }
    check "$release: brados auth logout erases it from the keyring" logged_out
}

# check_deb RELEASE: the .deb, installed as users install it, used, removed and purged.
check_deb() {
    local release="$1"
    use_new_root "$release-deb"
    no_toolchain() { ! in_root sh -c 'command -v swift || command -v swiftc || command -v cc || command -v gcc || command -v brados' >/dev/null; }
    check "$release: apt-get update in the clean root" logged update.log in_root apt-get update
    check "$release: the clean root has no Swift, no compiler, no brados" no_toolchain
    add_user
    # The upgrade: what brados 0.1.0 left in a user's home, there before the new package.
    tar --no-overwrite-dir -xzf "$fixture/home.tar.gz" -C "$root/home/alice" && chown -R "$uid:$gid" "$root/home/alice"
    cp "$deb" "$root/tmp/"
    # From the signed repository, as the README tells a new user; apt resolves every dependency and recommendation.
    repo_install "$release"
    version_is() { [ "$(as_user brados --version)" = "$upstream" ]; }
    check "$release: brados --version is $upstream" version_is
    check_upgrade "$release"
    check "$release: brados mealplan show (the embedded default)" shows breakfast brados mealplan show
    check "$release: brados mealplan show again comes from the cache" shows '"kind" : "cache"' brados mealplan show --json
    check "$release: brados visits list (the demo's visits)" shows '^[1-9][0-9]* visits' brados visits list
    check "$release: brados today after mealplan show shows the meals" shows 'breakfast' brados today
    # FTS5 comes from the package's libsqlite3 dependency: a real search proves it.
    check "$release: brados search (SQLite FTS5 from the installed libsqlite3)" shows 'brados mealplan show' brados search breakfast
    # Chafa and TurboJPEG (the demo's covers are JPEG, as Plex sends), the Recommends apt installed.
    check "$release: brados library show 1001 draws the cover (the recommended picture libraries)" \
        shows '████' env COLUMNS=80 LINES=30 brados library show 1001 --art symbols
    check "$release: brados plan show plots the weight trend" shows 'target 78.0 kg' brados plan show --art symbols
    exported() { as_user brados cache export -o /home/alice/backup.tar.zst >/dev/null && [ -s "$root/home/alice/backup.tar.zst" ]; }
    check "$release: brados cache export" exported
    imported() { as_user brados cache import /home/alice/backup.tar.zst --as bob >/dev/null && shows breakfast brados --profile bob --offline mealplan show; }
    check "$release: brados cache import --as bob, then bob's mealplan offline" imported
    pq_archive() {
        as_user brados keys generate --post-quantum | grep -q '^age1pq1' && as_user brados cache export --encrypt -o /home/alice/pq.tar.zst.age >/dev/null \
            && grep -aq '^-> mlkem768x25519 ' "$root/home/alice/pq.tar.zst.age" \
            && as_user brados cache import /home/alice/pq.tar.zst.age --as carol >/dev/null && shows breakfast brados --profile carol --offline mealplan show
    }
    check "$release: a post-quantum key (keys generate --post-quantum), cache export --encrypt to it, import --as carol" pq_archive
    doctor_ok() { as_user brados doctor > "$work/doctor.out" && ! grep -q '^\(FAIL\|warn\)' "$work/doctor.out"; }
    check "$release: brados doctor (no failure, no warning)" doctor_ok

    check "$release: man-db, bash-completion and systemd install (the checks' tools, not brados's)" \
        logged tools.log in_root apt-get install -y --no-install-recommends man-db bash-completion systemd
    man_finds() { [ "$(as_user man -w brados)" = /usr/share/man/man1/brados.1.gz ]; }
    check "$release: man -w brados finds the page" man_finds
    check "$release: man brados renders" shows 'EXIT STATUS' env MANWIDTH=80 man brados
    completes_lib() {
        local script='COMP_LINE="brados lib"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(brados lib); COMP_CWORD=1
__load_completion brados && f=$(complete -p brados | sed -n "s/.* -F \([^ ]*\) .*/\1/p") && "$f" brados lib brados
printf "%s\n" "${COMPREPLY[@]}"'
        [ "$(as_user bash --login -i -c "$script")" = library ]
    }
    check "$release: a bash login shell completes brados lib<TAB> to library" completes_lib
    check "$release: systemd-analyze --user verify accepts the units, without a warning" \
        verify_clean /usr/lib/systemd/user/brados-sync.service /usr/lib/systemd/user/brados-sync.timer /usr/lib/systemd/user/brados-watch.service

    [ "$release" = "$host" ] && check_keyring

    [ "$release" = "$host" ] && measure_startup

    user_state() { (cd "$root/home/alice" && find .config/brados .cache/brados .local/share/brados -printf '%p %s %T@ %m\n' | sort | sha256sum); }
    repo_update "$release"

    local files before
    files="$(in_root dpkg -L brados | while read -r path; do [ -d "$root$path" ] || echo "$path"; done)"
    listed() { grep -x /usr/bin/brados <<< "$files" >/dev/null && [ "$(wc -l <<< "$files")" -ge 8 ]; }
    check "$release: dpkg -L brados lists its files ($(wc -l <<< "$files"), /usr/bin/brados among them)" listed
    before="$(user_state)"
    user_folders() { [ -d "$root/home/alice/.config/brados" ] && [ -d "$root/home/alice/.cache/brados" ] && [ -d "$root/home/alice/.local/share/brados" ]; }
    check "$release: the user's brados folders are there before uninstalling" user_folders
    gone() { local path; for path in $files; do [ ! -e "$root$path" ] || { echo "     still there: $path"; return 1; }; done; }
    untouched() { [ "$(user_state)" = "$before" ]; }
    check "$release: apt-get remove brados" logged remove.log in_root apt-get remove -y brados
    check "$release: every file dpkg -L listed is gone ($(wc -w <<< "$files") files)" gone
    check "$release: the user's ~/.config, ~/.cache and ~/.local/share/brados are untouched" untouched
    reinstall_and_purge() { in_root apt-get install -y "/tmp/$(basename "$deb")" && in_root apt-get purge -y brados; }
    check "$release: apt-get install again, then apt-get purge brados" logged purge.log reinstall_and_purge
    forgotten() { gone && ! in_root dpkg-query -W brados >/dev/null 2>&1; }
    check "$release: after purge, every file is gone and dpkg keeps no record" forgotten
    check "$release: after purge, the user's files are untouched" untouched
    repo_purged "$release"
    installed_kb="$(awk -v k="$(dpkg-deb -f "$deb" Installed-Size)" 'BEGIN { printf "%.1f MB", k / 1024 }')"
}

# check_upgrade RELEASE: the 0.1.0 cache in alice's home, read by the new brados offline, then
# migrated, then exported (Tests/Fixtures/upgrade-0.1.0/README says what it holds).
check_upgrade() {
    local release="$1"
    local arguments text
    while IFS=$'\t' read -r -u 3 arguments text; do
        # shellcheck disable=SC2086 # the command's words
        check "$release: upgrade: brados $arguments shows 0.1.0's '$text'" shows "$text" brados $arguments
    done 3< "$fixture/expected.txt"
    migrated() { [ -f "$root/home/alice/.local/share/brados/users/default/library/library.sqlite" ] \
        && [ ! -e "$root/home/alice/.local/share/brados/users/default/library/snapshot.json" ]; }
    check "$release: upgrade: the library snapshot moved into its database" migrated
    check "$release: upgrade: the weight queued by 0.1.0 is sent" shows 'Sent weight 84.2 kg' brados plan sync
    upgrade_exported() { as_user brados cache export -o /home/alice/upgraded.tar.zst >/dev/null && as_user brados cache verify /home/alice/upgraded.tar.zst >/dev/null; }
    check "$release: upgrade: the migrated cache exports and verifies" upgrade_exported
}

# check_tarball RELEASE: the tarball in a root with only the .deb's Depends: it works, and
# without the recommended picture libraries a cover is a placeholder and brados says why.
check_tarball() {
    local release="$1"
    use_new_root "$release-tarball"
    satisfy() { in_root apt-get update && in_root apt-get satisfy -y --no-install-recommends "$(dpkg-deb -f "$deb" Depends)"; }
    check "$release: apt-get satisfy the .deb's Depends (no Recommends) in a second clean root" logged satisfy.log satisfy
    add_user
    cp "$tarball" "$tarball.sha256" "$root/tmp/"
    local name units brados=/home/alice/.local/bin/brados package
    name="$(basename "$tarball" .tar.gz)"
    # The signature, checked as the README says (gpgv, the repository's public key), and a
    # changed tarball refused.
    cp "$repo_work/tarball.asc" "$root/tmp/$name.tar.gz.asc"
    gpg --batch --dearmor -o - "$repo_work/a.asc" > "$root/tmp/brados-archive-keyring.gpg"
    signature() {
        in_root sh -c 'command -v gpgv >/dev/null || apt-get install -y --no-install-recommends gpgv' >/dev/null 2>&1
        as_user sh -c "cd /tmp && gpgv --keyring ./brados-archive-keyring.gpg $name.tar.gz.asc $name.tar.gz" \
            && cp "$root/tmp/$name.tar.gz" "$root/tmp/changed.tar.gz" && printf x >> "$root/tmp/changed.tar.gz" \
            && ! as_user sh -c "cd /tmp && gpgv --keyring ./brados-archive-keyring.gpg $name.tar.gz.asc changed.tar.gz"
    }
    check "$release: gpgv verifies $name.tar.gz.asc (the README's command) and refuses a changed tarball" signature
    sums() { (cd "$root/tmp" && sha256sum -c --quiet "$name.tar.gz.sha256"); }
    check "$release: sha256sum -c $name.tar.gz.sha256" sums
    unpacked() { as_user sh -c "mkdir -p ~/.local && tar -xzf /tmp/$name.tar.gz -C ~/.local --strip-components=1" && [ -x "$root$brados" ]; }
    check "$release: the tarball unpacks into ~/.local (bin/, share/)" unpacked
    check "$release: bin/brados mealplan show works from the tarball" shows breakfast "$brados" mealplan show
    # Without the picture libraries: the details, a placeholder for the cover, and a notice
    # naming the package to install; doctor warns and exits 0; the plot needs no library.
    placeholder() { as_user env COLUMNS=80 LINES=30 "$brados" library show 1001 --art symbols > "$work/show.out" \
        && grep -q 'Moon Garden' "$work/show.out" && grep -q '♪' "$work/show.out" && ! grep -q '████' "$work/show.out" \
        && said 'covers are drawn as placeholders'; }
    check "$release: without the picture libraries, library show prints the album with a placeholder and says why" placeholder
    doctor_warns() { as_user "$brados" doctor > "$work/doctor.out" && grep -q '^warn  pictures' "$work/doctor.out"; }
    check "$release: without them, doctor warns (exit 0)" doctor_warns
    check "$release: without them, plan show still plots the weights" shows 'target 78.0 kg' "$brados" plan show --art symbols
    # What brados says to install, installed: the apt command of its advice, as a user would copy it.
    mapfile -t packages < <(sed -n 's/.*`sudo apt install \([^`]*\)`.*/\1/p' "$work/doctor.out" | sort -u)
    advised() { [ ${#packages[@]} -gt 0 ] && in_root apt-get install -y --no-install-recommends "${packages[@]}"; }
    check "$release: apt-get install what brados names (${packages[*]:-nothing named})" logged advised.log advised
    check "$release: then bin/brados library show draws the cover" shows '████' env COLUMNS=80 LINES=30 "$brados" library show 1001 --art symbols
    in_place() {
        local share="$root/home/alice/.local/share"
        [ -f "$share/man/man1/brados.1.gz" ] && [ -f "$share/bash-completion/completions/brados" ] \
            && [ -f "$share/zsh/site-functions/_brados" ] && [ -f "$share/fish/vendor_completions.d/brados.fish" ]
    }
    check "$release: its man page and completions are where tools look under ~/.local" in_place
    check "$release: man-db and systemd install in the second root" logged tools2.log in_root apt-get install -y --no-install-recommends man-db systemd
    local_man() { [ "$(as_user man -w brados)" = /home/alice/.local/share/man/man1/brados.1.gz ]; }
    check "$release: man -w brados finds ~/.local/share/man/man1/brados.1.gz (from PATH)" local_man
    units="/home/alice/.local/share/systemd/user"
    check "$release: systemd-analyze --user verify accepts the tarball's units, without a warning" \
        verify_clean "$units/brados-sync.service" "$units/brados-sync.timer" "$units/brados-watch.service"
    unit_finds_brados() { # the unit's own PATH (%h is the home folder) leads to the unpacked brados
        local path
        path="$(sed -n 's/^Environment=PATH=//p' "$root$units/brados-sync.service" | sed 's|%h|/home/alice|g')"
        [ -n "$path" ] && [ "$(as_user env PATH="$path" sh -c 'command -v brados')" = "$brados" ]
    }
    check "$release: the tarball's unit finds ~/.local/bin/brados on its PATH" unit_finds_brados
}

# Start-up in the clean root next to the build tree's, while the package is installed.
startup=""
measure_startup() {
    local hello
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
    check "$host: brados --version start-up measured in the clean root and the build tree" measured
}

# The signed apt repository every root installs from and updates through (packaging/check-repo.sh).
. packaging/check-repo.sh
trap 'stop_repo_server; cleanup' EXIT
check "the apt repositories: made by make repo with throw-away keys, served on 127.0.0.1" prepare_repo

started=$SECONDS
for line in "${releases[@]}"; do
    read -r release distribution mirror components <<< "$line"
    release_started=$SECONDS
    echo "--- $release ($distribution, $mirror)"
    if ! clean_root $line; then failures=$((failures + 1)); continue; fi
    check_deb "$release"
    check_tarball "$release"
    cleanup; roots=()
    echo "    $release checked in $((SECONDS - release_started)) s"
done

echo "sizes: $(basename "$deb") $(size "$deb"), installed ${installed_kb:-?}, $(basename "$tarball") $(size "$tarball")"
echo "Depends: $(dpkg-deb -f "$deb" Depends)"
echo "Recommends: $(dpkg-deb -f "$deb" Recommends)"
[ -n "$startup" ] && echo "$startup"
[ $failures -gt 0 ] && [ -s "$work/stderr" ] && { echo "last stderr:"; sed 's/^/    /' "$work/stderr"; }
echo "releases: $(printf '%s\n' "${releases[@]}" | awk '{ printf "%s%s", sep, $1; sep = ", " }') in $((SECONDS - started)) s; $failures failed"
exit $((failures > 0))
