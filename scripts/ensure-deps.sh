#!/usr/bin/env bash
# Installs the system packages brados builds against, when they are missing.
# Idempotent and quiet when everything is present.
#
#     scripts/ensure-deps.sh            what the build, the tests, the benchmarks need
#     scripts/ensure-deps.sh package    and what make package and scripts/check-package.sh need
set -euo pipefail

need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# zsh and fish: the completion tests run all three shells; strace: reliability/security.py
# checks that the embedded backend binds no TCP port; libarchive-tools (bsdtar): a test lists
# an exported archive with bsdtar, GNU tar and Python's tarfile; age: the encrypted-archive tests
# open brados's exports with the age command and import files it made (and make bench compares
# with it); zstd: those tests list a decrypted archive with tar --zstd.
packages=(libarchive-dev libsqlite3-dev pkg-config zlib1g-dev libzstd-dev zsh fish strace libarchive-tools age zstd)
# dpkg-dev: dpkg-shlibdeps, dpkg-gencontrol; binutils: strip; lintian checks the .deb;
# debootstrap makes the clean Debian root that scripts/check-package.sh installs it in.
[ "${1:-}" = package ] && packages+=(dpkg-dev binutils xz-utils lintian debootstrap)
for package in "${packages[@]}"; do
    have "$package" || need+=("$package")
done
[ ${#need[@]} -eq 0 ] && exit 0

echo "ensure-deps: installing ${need[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${need[@]}" >/dev/null
