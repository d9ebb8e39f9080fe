#!/usr/bin/env bash
# Lays out everything brados installs, in one of two layouts: the one list of what is
# installed where. The .deb, the tarball, `make install` and `make uninstall` all use it.
#
#     packaging/stage.sh debian BINARY ROOT           ROOT/usr/bin/brados, ... (the .deb's tree)
#     packaging/stage.sh prefix BINARY DIR [PREFIX]   DIR/bin/brados, DIR/share/... (tarball, make install)
#     packaging/stage.sh --list debian|prefix         the paths it installs, relative, one a line
#
# debian: Debian's paths (zsh vendor-completions, /usr/lib/systemd/user, a doc folder with
#   CHANGELOG.md as changelog.gz and the Debian changelog.Debian.gz, the lintian override file).
# prefix: the layout of /usr/local or ~/.local. With PREFIX (make install), the systemd unit
#   runs PREFIX/bin/brados; without (the tarball, whose folder may be unpacked anywhere), it
#   finds brados on a PATH of ~/.local/bin, /usr/local/bin and /usr/bin.
#
# The binary is copied stripped (its symbols, .comment, and .swift_modhash: the compiler's
# hash of each module's code and debug information, for incremental builds only, which differs
# with the folder the build ran in; the ELF notes stay: .note.dlopen is how the package's
# Depends learns about libarchive). Files are 0644, the binary and
# folders 0755; compressed files carry no name or time (gzip -n), so builds compare equal.
set -euo pipefail
umask 022
cd "$(dirname "$0")/.."
usage="usage: stage.sh debian|prefix BINARY DIR [PREFIX]  |  stage.sh --list debian|prefix"

listing=false
if [ "${1:-}" = --list ]; then
    listing=true
    layout="${2:?$usage}"
    binary="" dir="" prefix=""
else
    layout="${1:?$usage}"
    binary="${2:?$usage}"
    dir="${3:?$usage}"
    prefix="${4:-}"
    [ -x "$binary" ] || { echo "stage.sh: $binary is not an executable: build it first (make release)" >&2; exit 1; }
fi
scratch="${SCRATCH:-.build}"

case "$layout" in
    debian)
        usr=usr zsh=usr/share/zsh/vendor-completions units=usr/lib/systemd/user
        exec_line="ExecStart=/usr/bin/brados sync"
        ;;
    prefix)
        usr=. zsh=share/zsh/site-functions units=share/systemd/user
        if [ -n "$prefix" ]; then
            exec_line="ExecStart=$prefix/bin/brados sync"
        else
            exec_line=$'Environment=PATH=%h/.local/bin:/usr/local/bin:/usr/bin:/bin\nExecStart=/usr/bin/env brados sync'
        fi
        ;;
    *) echo "stage.sh: unknown layout '$layout' (debian or prefix)" >&2; exit 64 ;;
esac
doc="$usr/share/doc/brados"

# put MODE DEST COMMAND...: runs COMMAND with its output going to DIR/DEST (or lists DEST).
put() {
    local mode="$1" dest="${2#./}"
    shift 2
    if $listing; then echo "$dest"; return; fi
    install -d -m 755 "$(dirname "$dir/$dest")"
    "$@" > "$dir/$dest"
    chmod "$mode" "$dir/$dest"
}
apache_text() { # Debian's copy, else the Swift toolchain's (the same licence, with the runtime exception)
    if [ -f /usr/share/common-licenses/Apache-2.0 ]; then cat /usr/share/common-licenses/Apache-2.0
    else cat "$(dirname "$(readlink -f "$(command -v swift)")")/../share/swift/LICENSE.txt"; fi
}

program="${usr#.}/bin/brados" program="${program#/}"
if $listing; then echo "$program"; else
    install -d -m 755 "$dir/$(dirname "$program")"
    strip --strip-all --remove-section=.comment --remove-section=.swift_modhash -o "$dir/$program" "$binary"
    chmod 755 "$dir/$program"
fi
put 644 "$usr/share/man/man1/brados.1.gz" gzip -9n -c man/brados.1
# A completion file is sourced, never run: no #! line (lintian's bash-completion-with-hashbang).
put 644 "$usr/share/bash-completion/completions/brados" sed '1{/^#!/d}' completions/brados.bash
put 644 "$zsh/_brados" cat completions/_brados
put 644 "$usr/share/fish/vendor_completions.d/brados.fish" cat completions/brados.fish
put 644 "$units/brados-sync.service" \
    awk -v line="$exec_line" '$0 == "@EXEC@" { print line; next } { print }' packaging/systemd/brados-sync.service.in
put 644 "$units/brados-sync.timer" cat packaging/systemd/brados-sync.timer
put 644 "$units/brados-watch.service" \
    awk -v line="$exec_line --watch" '$0 == "@EXEC@" { print line; next } { print }' packaging/systemd/brados-watch.service.in
put 644 "$doc/README" cat packaging/README
# The software bill of materials, of the binary just staged (packaging/sbom.py).
put 644 "$doc/sbom.spdx.json" packaging/sbom.py "$dir/$program"
if [ "$layout" = debian ]; then
    # The apt repository's keys and source (packaging/apt/README): installed, never enabled.
    put 644 usr/share/keyrings/brados-archive-keyring.gpg gpg --batch --dearmor -o - packaging/apt/brados-archive-keyring.asc
    put 644 usr/share/brados/apt/brados.sources cat packaging/apt/brados.sources
    put 644 "$doc/copyright" packaging/copyright.py --scratch "$scratch"
    # Debian's names: the upstream changelog is changelog.gz, the package's changelog.Debian.gz.
    put 644 "$doc/changelog.gz" gzip -9n -c CHANGELOG.md
    put 644 "$doc/changelog.Debian.gz" gzip -9n -c packaging/debian/changelog
    put 644 usr/share/lintian/overrides/brados cat packaging/debian/lintian-overrides
else
    put 644 "$doc/copyright" packaging/copyright.py --scratch "$scratch" --apache-beside
    put 644 "$doc/Apache-2.0" apache_text
    put 644 "$doc/CHANGELOG.md" cat CHANGELOG.md
fi
