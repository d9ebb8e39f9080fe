# The signed apt repository, proven in each clean root (sourced by packaging/check-package.sh,
# whose helpers it uses: check, logged, in_root, as_user, shows, said).
#
# prepare_repo (once): three throw-away keys (A signs first; B is the next key; C a stranger's);
#   the .deb under test re-made with A in its keyring and a source naming the loopback server
#   (0.3.0-1), then re-versioned (+rot1: keyring A and B; +rot2: keyring B) as the same binary;
#   and static trees made by packaging/repo.sh, served by a Python HTTP server on 127.0.0.1 only
#   that stops with this script:
#     good/      1. {0.3.0-1} signed by A   2. + rot1, signed by A and B   3. + rot2, signed by B alone
#     otherkey/  a newer version, signed by C          cut/      its InRelease's signature cut
#     hash/      a Packages that is not the Release's  expired/  a Release past its Valid-Until
# repo_install RELEASE [VERSION]: the README's commands for a new user (key, source, apt-get install),
#   run as written with the server's address; the result is the state the shipped source gives,
#   the fetched key's path (/etc/apt/keyrings) the person's, a link to the package's keyring.
# repo_update RELEASE: with brados used (every domain's cache, a sign-in, a config value, the
#   sync timer enabled), apt-get update && apt-get upgrade to +rot1 then +rot2 (the key rotated
#   with no step by the user): the user's files byte for byte as they were, the timer enabled;
#   each broken repository refused by apt, and brados still working; between the two, a copy
#   of the old key in the link's place: doctor warns naming the next key, and its fix mends it.
# repo_purged RELEASE: after purge, apt warns on the person's source; docs/install.md's one
#   command removes it; the README's commands install brados again.

repo_keys=() repo_url="" repo_server_pid=""

repo_deb() { # repo_deb VERSION OUT KEY.asc...: the .deb under test, re-keyed, re-sourced and re-versioned
    local version="$1" out="$2" tree
    shift 2
    tree="$(mktemp -d "$repo_work/deb.XXXXXX")"
    dpkg-deb -R "$deb" "$tree"
    cat "$@" | gpg --batch --dearmor -o - > "$tree/usr/share/keyrings/brados-archive-keyring.gpg"
    sed -i "s|^URIs: .*|URIs: $repo_url/good/|" "$tree/usr/share/brados/apt/brados.sources"
    sed -i "s|^Version: .*|Version: $version|" "$tree/DEBIAN/control"
    (cd "$tree" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
    dpkg-deb --root-owner-group -Zgzip -z1 --build "$tree" "$out" >/dev/null # fast: only these checks install them
    rm -rf "$tree"
}

prepare_repo() {
    repo_work="$work/repo"
    rm -rf "$repo_work" && mkdir -p "$repo_work/www"
    local name
    for name in a b c; do
        mkdir -m 700 "$repo_work/gnupg-$name"
        gpg --homedir "$repo_work/gnupg-$name" --batch --quiet --passphrase '' \
            --quick-gen-key "brados check key $name <check-$name@brados.invalid>" ed25519 sign 1d 2>/dev/null 9>&- || return 1
        gpg --homedir "$repo_work/gnupg-$name" --batch --armor --export-secret-keys > "$repo_work/$name.secret.asc"
        gpg --homedir "$repo_work/gnupg-$name" --batch --armor --export > "$repo_work/$name.asc"
    done
    # The server first: the packages' source names its address.
    # Without the roots' lock (fd 9): nothing started here may hold it after this script.
    python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$repo_work/www" > "$repo_work/server.log" 2>&1 9>&- &
    repo_server_pid=$!
    local port="" i
    for i in $(seq 50); do
        port="$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$repo_work/server.log" | head -1)"
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { echo "     the HTTP server did not start: $(cat "$repo_work/server.log")"; return 1; }
    repo_url="http://127.0.0.1:$port"
    v1="$version" v2="$version+rot1" v3="$version+rot2" evil="$version+zz9"
    repo_deb "$v1" "$repo_work/v1.deb" "$repo_work/a.asc"
    repo_deb "$v2" "$repo_work/v2.deb" "$repo_work/a.asc" "$repo_work/b.asc"
    repo_deb "$v3" "$repo_work/v3.deb" "$repo_work/b.asc"
    repo_deb "$evil" "$repo_work/evil.deb" "$repo_work/a.asc"
    make_repo() { # make_repo NAME KEYS DEB... (more args to repo.sh through the environment)
        local name="$1" keys="$2"
        shift 2
        REPO="$repo_work/www/$name" BRADOS_REPO_KEYS="$keys" packaging/repo.sh "$@" > "$repo_work/$name.log" 2>&1 9>&- \
            || { tail -5 "$repo_work/$name.log" | sed 's/^/     /'; return 1; }
    }
    make_repo good "$repo_work/a.secret.asc" "$repo_work/v1.deb" || return 1
    make_repo otherkey "$repo_work/c.secret.asc" "$repo_work/v1.deb" "$repo_work/evil.deb" || return 1
    make_repo cut "$repo_work/a.secret.asc" "$repo_work/v1.deb" "$repo_work/evil.deb" || return 1
    # The signature's last lines gone, and no detached signature to fall back on.
    head -n -4 "$repo_work/www/cut/dists/stable/InRelease" > "$repo_work/cut.InRelease" && mv "$repo_work/cut.InRelease" "$repo_work/www/cut/dists/stable/InRelease"
    rm "$repo_work/www/cut/dists/stable/Release.gpg"
    make_repo hash "$repo_work/a.secret.asc" "$repo_work/v1.deb" "$repo_work/evil.deb" || return 1
    printf 'Description: changed after signing\n' >> "$repo_work/www/hash/dists/stable/main/binary-$arch/Packages"
    gzip -9n -c "$repo_work/www/hash/dists/stable/main/binary-$arch/Packages" > "$repo_work/www/hash/dists/stable/main/binary-$arch/Packages.gz"
    BRADOS_REPO_DATE=$(($(date +%s) - 10 * 86400)) BRADOS_REPO_VALID_DAYS=1 \
        make_repo expired "$repo_work/a.secret.asc" "$repo_work/v1.deb" "$repo_work/evil.deb" || return 1
    # The tarball's signature, as make repo writes it (by key A).
    gpg --homedir "$repo_work/gnupg-a" --batch --armor --detach-sign -o "$repo_work/tarball.asc" "$tarball" 9>&- || return 1
    echo "     repositories on $repo_url: good (A), otherkey (C), cut, hash, expired"
}

stop_repo_server() {
    [ -n "$repo_server_pid" ] && kill "$repo_server_pid" 2>/dev/null
    repo_server_pid=""
    local home
    for home in "${repo_work:-/nonexistent}"/gnupg-*; do [ -d "$home" ] && gpgconf --homedir "$home" --kill all 2>/dev/null; done
    return 0
}

# apt in the root, straight to the loopback server whatever proxy the machine has.
root_apt() { in_root apt-get -o Acquire::http::Proxy::127.0.0.1=DIRECT -o Acquire::Retries=0 "$@"; }

# The README's block between <!-- NAME --> and <!-- end NAME -->, as a script.
readme_block() { awk -v start="<!-- $1 -->" -v end="<!-- end $1 -->" '$0 == start { on = 1; next } $0 == end { on = 0 } on && !/^```/' README.md; }

repo_install() {
    local release="$1" expected="${2:-$v1}" script
    script="$(readme_block apt-new-user | sed "s|^url=[^ ]*|url=$repo_url/good|")"
    readme_has_block() { [ -n "$script" ] && grep -q 'apt-get install' <<< "$script"; }
    check "$release: the README's commands for a new user (apt source and key) are there" readme_has_block
    # As written: sudo is the root's own shell here; apt-get straight to the loopback server.
    new_user() {
        in_root bash -euc "sudo() { \"\$@\"; }; apt-get() { command apt-get -o Acquire::http::Proxy::127.0.0.1=DIRECT \"\$@\"; }
$(grep -v '^brados ' <<< "$script")"
    }
    check "$release: a new user adds the key and the source as the README says, apt-get install brados" logged repo-install.log new_user
    installed_is() { [ "$(in_root dpkg-query -W -f '${Version}' brados)" = "$1" ]; }
    check "$release: brados $expected came from the repository" installed_is "$expected"
    same_source() { cmp -s "$root/etc/apt/sources.list.d/brados.sources" "$root/usr/share/brados/apt/brados.sources"; }
    check "$release: the README's source is the one the .deb ships (enabling either ends the same)" same_source
    # The key the person fetched is theirs: in /etc/apt/keyrings, which no package owns, made a
    # link to the keyring the package keeps current (so a rotation needs no step from them).
    linked() {
        [ "$(readlink "$root/etc/apt/keyrings/brados-archive-keyring.gpg")" = /usr/share/keyrings/brados-archive-keyring.gpg ] \
            && ! in_root dpkg -S /etc/apt/keyrings/brados-archive-keyring.gpg >/dev/null 2>&1 \
            && in_root dpkg -S /usr/share/keyrings/brados-archive-keyring.gpg >/dev/null
    }
    check "$release: the fetched key's path is the person's (no package owns it), now a link to the package's keyring" linked
}

# repo_purged RELEASE: after apt-get purge brados, the source the person wrote stays and apt
# warns on it at every update (its keyring went with the package; apt keeps the old lists and
# exits 0), as docs/install.md says; its one command removes it and apt is quiet again; the
# README's commands install brados again from the key.
repo_purged() {
    local release="$1" remove
    warns() {
        # apt 2.x says NO_PUBKEY; apt 3 (sqv) that the keyring cannot be parsed: a warning either way.
        root_apt update > "$work/repo-purged.log" 2>&1 && grep -q "^W:.*$repo_url/good" "$work/repo-purged.log" || { tail -5 "$work/repo-purged.log" | sed 's/^/     /'; return 1; }
    }
    check "$release: after purge, apt-get update warns on the brados source (its key went with the package), as docs/install.md says" warns
    remove="$(grep -x 'sudo rm /etc/apt/sources.list.d/brados.sources /etc/apt/keyrings/brados-archive-keyring.gpg' docs/install.md)"
    quiet_again() {
        [ -n "$remove" ] && in_root bash -euc "sudo() { \"\$@\"; }; $remove" && root_apt update > "$work/repo-removed.log" 2>&1 \
            && ! grep -Eq '^(W|E):' "$work/repo-removed.log" && [ ! -e "$root/etc/apt/keyrings/brados-archive-keyring.gpg" ] \
            || { tail -5 "$work/repo-removed.log" | sed 's/^/     /'; return 1; }
    }
    check "$release: docs/install.md's one command removes the source and the link; apt-get update has no warning" quiet_again
    # repo_update left the repository in its first state ($v1, signed by the first key).
    repo_install "$release"
    doctor_clean() { as_user brados doctor > "$work/doctor.out" && ! grep -q '^\(FAIL\|warn\)' "$work/doctor.out" || { grep -A1 '^\(FAIL\|warn\)' "$work/doctor.out" | sed 's/^/     /'; return 1; }; }
    check "$release: installed again as the README says, brados doctor has no warning" doctor_clean
}

repo_update() {
    local release="$1"
    # brados in use: every domain's cache, the demo sign-in, a setting, the sync timer enabled.
    used() {
        local command
        for command in "mealplan show" "visits list" "coach conversations" "library albums" "plan show" "today"; do
            # shellcheck disable=SC2086 # the command's words
            as_user brados $command >/dev/null || { echo "     brados $command failed: $(cat "$work/stderr")"; return 1; }
        done
        as_user brados config set visits.ttl 42m >/dev/null \
            && as_user mkdir -p /home/alice/.config/systemd/user/timers.target.wants \
            && as_user ln -sf /usr/lib/systemd/user/brados-sync.timer /home/alice/.config/systemd/user/timers.target.wants/brados-sync.timer
    }
    check "$release: brados used before the update (every domain, a setting, the sync timer enabled)" used
    signed_in() { shows 'signedIn" : true' brados auth status --json; }
    check "$release: signed in before the update" signed_in

    publish() { make_repo good "$1" "${@:2}"; }
    # The user's files are compared right around apt (no brados command between).
    upgrade_keeps() {
        local before
        before="$(user_state)"
        logged "repo-upgrade-$1.log" root_apt update && logged "repo-upgrade-$1.log" root_apt upgrade -y && installed_is "$1" \
            && [ "$(user_state)" = "$before" ] || { echo "     installed: $(in_root dpkg-query -W -f '${Version}' brados)"; return 1; }
    }
    kept() { signed_in && shows '42m' brados config get visits.ttl && shows breakfast brados --offline mealplan show \
        && [ "$(readlink "$root/home/alice/.config/systemd/user/timers.target.wants/brados-sync.timer")" = /usr/lib/systemd/user/brados-sync.timer ] \
        && [ -f "$root/usr/lib/systemd/user/brados-sync.timer" ]; }
    check "$release: the repository gets $v2 (its keyring: the old and the next key), signed by both" \
        publish "$repo_work/a.secret.asc:$repo_work/b.secret.asc" "$repo_work/v2.deb"
    check "$release: apt-get update && apt-get upgrade installs $v2; the user's files byte for byte as they were" upgrade_keeps "$v2"
    check "$release: after the update: still signed in, the setting, the timer enabled, the caches offline" kept
    # The key copied instead of linked (the old key alone): the doctor names the next key and
    # the link before the rotation makes apt refuse; the link it names mends it.
    stale_copy() {
        local link="$root/etc/apt/keyrings/brados-archive-keyring.gpg" fix
        rm -f "$link" && gpg --batch --dearmor -o - "$repo_work/a.asc" > "$link" && chmod 644 "$link"
        as_user brados doctor > "$work/doctor.out"
        grep -q "^warn  updates: .*lacks $(gpg --show-keys --with-colons "$repo_work/b.asc" | awk -F: '$1 == "fpr" { print $10; exit }')" "$work/doctor.out" \
            || { grep updates -A1 "$work/doctor.out" | sed 's/^/     /'; return 1; }
        fix="$(grep -A1 '^warn  updates:' "$work/doctor.out" | sed -n 's/^ *→ //p')"
        [ "$fix" = "sudo ln -sf /usr/share/keyrings/brados-archive-keyring.gpg /etc/apt/keyrings/brados-archive-keyring.gpg" ] \
            && in_root bash -euc "sudo() { \"\$@\"; }; $fix" && as_user brados doctor > "$work/doctor.out" && grep -q '^ok    updates: from the brados apt repository' "$work/doctor.out" \
            || { echo "     fix: $fix"; grep updates -A1 "$work/doctor.out" | sed 's/^/     /'; return 1; }
    }
    check "$release: a copy of the old key in the link's place: doctor warns, naming the next key, and its fix mends it" stale_copy
    check "$release: the repository is then signed by the next key alone, and gets $v3" publish "$repo_work/b.secret.asc" "$repo_work/v3.deb"
    check "$release: apt-get update && apt-get upgrade installs $v3 with no step by the user (the key rotated)" upgrade_keeps "$v3"
    check "$release: after the rotation: still signed in, the setting, the timer enabled, the caches offline" kept
    doctor_says_repo() { shows "from the brados apt repository ($repo_url/good/" brados doctor; }
    check "$release: brados doctor says updates come from the brados repository" doctor_says_repo

    # Broken or hostile repositories, each offering a newer version: apt refuses, brados works.
    local variant
    refused() {
        local name="${1%%:*}"
        sed -i "s|^URIs: .*|URIs: $repo_url/$name/|" "$root/etc/apt/sources.list.d/brados.sources"
        ! root_apt update > "$work/repo-$name.log" 2>&1 && grep -Eq '^(E|W):' "$work/repo-$name.log" \
            && ! in_root apt-cache policy brados | grep -qF "$evil" && installed_is "$v3" && shows breakfast brados mealplan show \
            || { grep -E '^(E|W):' "$work/repo-$name.log" | head -3 | sed 's/^/     /'; return 1; }
    }
    for variant in otherkey:'signed by another key' cut:'whose InRelease signature is cut' hash:"whose Packages is not the one its Release signs" \
                   expired:'past its Valid-Until'; do
        check "$release: a repository ${variant#*:}: apt refuses it, $v3 stays and works" refused "$variant"
    done
    sed -i "s|^URIs: .*|URIs: $repo_url/good/|" "$root/etc/apt/sources.list.d/brados.sources"
    # The next release's root starts from the first state.
    rm -rf "$repo_work/www/good" && make_repo good "$repo_work/a.secret.asc" "$repo_work/v1.deb"
}
