#!/usr/bin/env bash
# Installs what brados's build, tests, benchmarks, reliability suites and packaging need, when
# it is missing: the one list of them (checks/check-deps.sh holds the code to it). Idempotent,
# and quiet when everything is present. Each group is what one kind of work needs; a group
# given also brings build and test:
#
#     scripts/ensure-deps.sh               build, test: what make run and make test need
#     scripts/ensure-deps.sh bench         and the benchmarks' peers (make bench)
#     scripts/ensure-deps.sh reliability   and what the reliability suites use (make reliability)
#     scripts/ensure-deps.sh package       and make package's and packaging/check-package.sh's tools
#     scripts/ensure-deps.sh all           every group (.ci/run: also the interop checks' clients)
#     scripts/ensure-deps.sh --list [KIND] the list: KIND GROUP NAME, one a line (KIND apt, pip or
#                                          machine), without installing anything
set -euo pipefail

# What a machine brados builds on has before this script runs; it installs none of them. Each
# brings what it depends on (gcc brings binutils, libc6-dev; git brings perl), and every Debian
# machine has Debian's Essential and Priority: required packages (coreutils, tar, gzip, util-linux's
# setsid, unshare and setpriv, zlib1g, libc6's loader). Not from Debian: the Swift toolchain in
# /opt/swift (swift, swiftc, clang, lld, libFuzzer) and the machine's CPython with pip.
#
# KIND     GROUP        NAME                WHY
read -r -d '' LIST <<'EOF' || true
machine    -            gcc                 the C compiler and its binutils (strip, readelf): the machine's
machine    -            make                the entry points: make run, make test, make package
machine    -            git                 SwiftPM clones the packages; package.sh dates files by the last commit
machine    -            apt                 apt-get: this script installs everything else with it (every Debian and Ubuntu has it)
machine    -            libc6-dev           the C library's headers, which gcc needs to compile C (and linux-libc-dev)
apt        build        libarchive-dev      archive.h, archive_entry.h: CArchive, CArchiveLoader (cache export/import)
apt        build        libturbojpeg0-dev   turbojpeg.h: CArtLoader decodes JPEG covers with it
apt        build        libpng-dev          png.h: CArtLoader decodes PNG covers with it
apt        build        libsqlite3-dev      sqlite3.h and libsqlite3.so: GRDB's GRDBSQLite module links SQLite
apt        build        zlib1g-dev          zlib.h: CZlib (the reference server's PNG artwork, the age tests)
apt        test         libchafa0           libchafa.so.0: the binary opens it to draw pictures (ArtTests, PicturesEndToEndTests)
apt        test         python3             /usr/bin/python3 (with sqlite3): the end-to-end tests' helpers and Tests/TestSupport/fake-terminal.py
apt        test         zsh                 the completion tests run all three shells
apt        test         fish                the completion tests run all three shells
apt        test         man-db              man: ManPageTests renders the page at 80 columns, without a warning
apt        test         strace              reliability/security.py and a test check the embedded backend binds no TCP port
apt        test         libarchive-tools    bsdtar: a test lists an exported archive with bsdtar, GNU tar and Python's tarfile
apt        test         age                 age, age-keygen: the encrypted-archive tests open brados's exports with age and import its files
apt        test         libsecret-1-0       libsecret-1.so.0: the binary opens it to keep secrets in the system keyring (KeyringEndToEndTests)
apt        test         libsecret-tools     secret-tool: the keyring tests read brados's secrets with it and store one it uses
apt        test         gnome-keyring       gnome-keyring-daemon: the Secret Service the keyring tests and reliability/keyring.py run
apt        test         dbus-daemon         dbus-daemon: the keyring tests' private session bus
apt        test         dbus-bin            dbus-send: the keyring tests lock the keyring and wait for it on the bus
apt        test         python3-dbusmock    python-dbusmock's notification_daemon: the notification tests' service on a private session bus (Debian's, for /usr/bin/python3)
apt        test         systemd             systemd-analyze: the packaging tests verify the user units without a warning
apt        test         faketime            faketime (libfaketime): the calendar's days-past test and the soak run brados on a clock of their own
apt        test         locales             localedef: the units tests run brados under de_DE, ja_JP and en_US (UTF-8), generated below
apt        test         unicode-data        /usr/share/unicode: TextWidthConformanceTests reads Unicode's emoji-test.txt, EastAsianWidth.txt, LineBreakTest.txt
apt        test         zstd                the tests list a decrypted archive with tar --zstd; debootstrap unpacks Ubuntu's packages with it
apt        bench        chafa               the covers benchmark's peer (the chafa command)
apt        bench        ripgrep             rg: the search benchmark's peer
apt        bench        linux-perf          perf: bench/startup_phases.py samples the start-up by phase
apt        bench        gdb                 bench/conformances.py counts the runtime's conformance lookups
apt        bench        valgrind            bench/startup_instructions.py counts the start-up's instructions (callgrind)
pip        test         wcwidth==0.7.0      TextWidthConformanceTests: Python's wcwidth measures Unicode's test files beside brados
pip        bench        diskcache==5.6.3    the artwork cache benchmark's peer (python-diskcache)
apt        reliability  python3-pyfuse3     power_loss's file system that forgets what a power cut forgets (reliability/lazyfs.py, for /usr/bin/python3)
apt        reliability  fuse3               fusermount3 and the FUSE configuration libfuse3 reads (power_loss mounts its own file system)
pip        reliability  xxhash==3.5.0       crash_safety checks the artwork index's xxh64 checksum
pip        interop      plexapi==4.18.3     checks/check-plexapi.py (CI): python-plexapi against the reference server
pip        interop      pillow==13.0.0      checks/check-plexapi.py decodes the artwork python-plexapi downloads
pip        interop      supabase==2.34.1    checks/check-supabase.py: supabase-py against the reference server
pip        interop      websocket-client==1.9.2  checks/check-plexapi.py: python-plexapi's AlertListener (Plex notifications)
pip        interop      icalendar==7.3.2    checks/check-calendar.py: Python's icalendar reads brados calendar's .ics
apt        interop      khal                checks/check-calendar.py: khal import --batch takes the export into a private vdir, and updates it
pip        interop      kyber-py==1.2.0     checks/check-age-pq.py: ML-KEM-768 of the second implementation of age's post-quantum type
pip        interop      cryptography==48.0.0  checks/check-age-pq.py: its X25519 and ChaCha20-Poly1305
apt        package      dpkg-dev            dpkg-shlibdeps, dpkg-gencontrol, dpkg-parsechangelog: make package
apt        package      lintian             packaging/check-package.sh checks the .deb with it
apt        package      debootstrap         packaging/check-package.sh makes the clean Debian and Ubuntu roots with it
apt        package      apt-utils           apt-ftparchive: make repo writes the apt repository's Packages and Release with it
apt        package      diffoscope-minimal  diffoscope: make reproducible shows what differs when two builds are not the same bytes
apt        package      gpgconf             gpgconf: make repo and the package checks stop the gpg agents their throw-away homes start
apt        package      gnupg               gpg: make repo signs the Release and the tarball; the tests make throw-away keys
pip        package      spdx-tools==0.8.5   pyspdxtools: packaging/check-package.sh validates the shipped SBOM with SPDX's own validator
EOF

if [ "${1:-}" = --list ]; then
    kind="${2:-}"
    awk -v kind="$kind" '!/^#/ && NF >= 3 && (kind == "" || $1 == kind) { print $1, $2, $3 }' <<< "$LIST"
    exit 0
fi
case "${1:-}" in
    "") groups="build test" ;;
    bench|reliability|package) groups="build test $1" ;;
    all) groups="build test bench reliability package interop" ;;
    *) echo "usage: scripts/ensure-deps.sh [bench|reliability|package|all] | --list [apt|pip|machine]" >&2; exit 64 ;;
esac
listed() { awk -v kind="$1" -v groups=" $groups " '$1 == kind && index(groups, " " $2 " ") { print $3 }' <<< "$LIST"; }

have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
apt_need=()
for package in $(listed apt); do
    have "$package" || apt_need+=("$package")
done
if [ ${#apt_need[@]} -gt 0 ]; then
    echo "ensure-deps: installing ${apt_need[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${apt_need[@]}" >/dev/null
fi

# The locales the units tests run brados under (UnitsEndToEndTests): each generated once, when missing.
for locale_name in de_DE ja_JP en_US; do
    if ! locale -a 2>/dev/null | grep -qix "${locale_name}.utf8"; then
        echo "ensure-deps: generating the locale ${locale_name}.UTF-8" >&2
        SUDO=""
        [ "$(id -u)" -eq 0 ] || SUDO="sudo"
        $SUDO localedef -i "$locale_name" -c -f UTF-8 -A /usr/share/locale/locale.alias "${locale_name}.UTF-8"
    fi
done

# Python packages, into the machine's CPython (the python3 on PATH), at the versions named;
# none for build, one for test (wcwidth, the peer the width tests measure against). Debian's own python3 refuses pip (PEP 668, EXTERNALLY-MANAGED): the
# machine's CPython with pip, first on PATH, is what the benchmarks, suites and interop checks
# run with.
[ -n "$(listed pip)" ] || exit 0
if ! python3 -c 'import os, sys, sysconfig; sys.exit(os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' \
    || ! python3 -m pip --version >/dev/null 2>&1; then
    echo "ensure-deps: $(command -v python3) cannot pip install (Debian's python3 is externally managed, or pip is missing):" \
         "put a CPython with pip first on PATH (pyenv, or python3 -m venv ~/.venvs/brados and its bin/), then run again" >&2
    exit 1
fi
pip_need=()
for requirement in $(listed pip); do
    python3 - "$requirement" <<'PY' || pip_need+=("$requirement")
import sys
from importlib import metadata
name, _, version = sys.argv[1].partition("==")
try:
    sys.exit(0 if metadata.version(name) == version else 1)
except metadata.PackageNotFoundError:
    sys.exit(1)
PY
done
if [ ${#pip_need[@]} -gt 0 ]; then
    echo "ensure-deps: pip installing ${pip_need[*]}" >&2
    python3 -m pip install --quiet --disable-pip-version-check "${pip_need[@]}"
fi
