#!/usr/bin/env bash
# Fails, one line per gap and naming the package to add, when brados needs something from the
# machine that scripts/ensure-deps.sh does not install (or the machine does not have by itself):
#
#   - headers: every header a C target includes, and the project's and its packages' system
#     module maps (GRDB's SQLite), with what they link, from gcc -M and dpkg -S;
#   - commands: every command the tests, benchmarks, reliability suites, packaging and CI
#     scripts run, and every Python module they import (pip's, named with its version; for a
#     script whose #! line names Debian's /usr/bin/python3, the Debian package that ships it);
#   - libraries (--binary FILE): every library a built brados loads, linked (DT_NEEDED) or opened
#     (its ELF dlopen note, read by packaging/depends.py); with --deb, the package names each in
#     Depends (or Recommends, as the note's priority says).
#
#     checks/check-deps.sh                              headers and commands (before any build)
#     checks/check-deps.sh --binary B [--deb D] ...     and the libraries B loads; D depends on them
#     checks/check-deps.sh --only headers|commands|libraries ...
#
# .ci/run runs it before anything is built, and again on the built binaries and the .deb.
set -euo pipefail
cd "$(dirname "$0")/.."
# The packages' system module maps are read from their checkouts (no build: a resolve clones them).
[ -d .build/checkouts ] || swift package resolve >/dev/null
exec python3 checks/check-deps.py "$@"
