#!/bin/sh
# Writes the parts of README.md generated from the code: the exit-code table (between the
# `exit-codes` markers) from `brados exit-codes --format markdown`. A test checks they agree.
set -eu
cd "$(dirname "$0")/.."
swift build --product brados >/dev/null
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
HOME="$(mktemp -d)" BRADOS_HOME="" .build/debug/brados exit-codes --format markdown > "$table"
awk -v table="$table" '
    /^<!-- exit-codes:/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
    /^<!-- end exit-codes -->/ { skip = 0 }
    !skip { print }
' README.md > README.md.new
mv README.md.new README.md
echo "README.md: exit codes ($(grep -c '^| [0-9]' "$table") rows)"
