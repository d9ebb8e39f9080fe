#!/usr/bin/env bash
# Makes home.tar.gz again: what brados 0.1.0 (the code that shipped as 0.1.0-1, at cee5dba)
# leaves in a new user's home after a first session on the built-in demo backend. Kept as made:
# regenerating it is only for a new fixture (a fixture of another version goes beside it).
#
#     Tests/Fixtures/upgrade-0.1.0/make.sh      (from the project root; builds 0.1.0 in a worktree)
set -euo pipefail
cd "$(dirname "$0")"
here="$(pwd)"
tree="$(mktemp -d)"
home="$(mktemp -d)"
trap 'git worktree remove --force "$tree/src" 2>/dev/null; rm -rf "$tree" "$home"' EXIT
git worktree add --detach "$tree/src" cee5dba >/dev/null
(cd "$tree/src" && swift build --product brados >/dev/null)
brados="$tree/src/.build/debug/brados"
[ "$("$brados" --version)" = 0.1.0 ]
run() { env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$brados" "$@" >/dev/null; }
run mealplan show                 # the finalized meal plan, cached
run visits list                   # the visits (key-value store)
run library albums                # the library snapshot: snapshot.json in 0.1.0
run coach list                    # coach.sqlite: the conversations
run coach show d8904652           # and one conversation's 160 messages
run plan                          # the nutrition plan, cached
run --offline plan weight 84.2    # a weight queued offline: pending.json
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$home" -czf "$here/home.tar.gz" .
echo "home.tar.gz: $(du -k home.tar.gz | cut -f1) KB"
