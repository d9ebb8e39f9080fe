#!/bin/sh
# Regenerates man/brados.1 from the command tree (swift-argument-parser's manual plugin,
# offline, debug configuration) plus man/sections.mdoc (CACHING, ENVIRONMENT, FILES,
# EXAMPLES) and EXIT STATUS from `brados exit-codes --format mdoc`. A test checks the result
# stays in step with the commands and the exit-code table.
set -eu
cd "$(dirname "$0")/.."
date="${BRADOS_MAN_DATE:-$(git log -1 --format=%cs 2>/dev/null || date +%F)}"
swift package plugin generate-manual --configuration debug --date "$date" --authors "the brados team" >/dev/null
generated=.build/plugins/GenerateManual/outputs/brados/brados.1
# A command's discussion is written a line a sentence or list item, as `--help` shows it: in
# the page each line starts a line of its own too (.br), never runs into the one before.
lines="$(mktemp)"
awk '
    /^\./ { print; text = 0; if ($0 == ".Pp") para = 1; else if ($0 !~ /^\.(Pp|br)$/) para = 0; next }
    { if (para && text) print ".br"; print; text = 1 }
' "$generated" > "$lines"
generated="$lines"
# Drop the generated EXIT STATUS (ours is complete), and put our sections before AUTHORS,
# with EXIT STATUS from the one exit-code table (ExitStatus.table) at its placeholder.
exit_status="$(mktemp)"
trap 'rm -f "$exit_status" "$lines"' EXIT
HOME="$(mktemp -d)" BRADOS_HOME="" .build/debug/brados exit-codes --format mdoc > "$exit_status"
awk -v sections=man/sections.mdoc -v exitstatus="$exit_status" '
    /^\.Sh "EXIT STATUS"/ { skip = 1; next }
    /^\.Sh AUTHORS/ {
        while ((getline line < sections) > 0) {
            if (line ~ /^\.\\" EXIT STATUS:/) { while ((getline code < exitstatus) > 0) print code } else print line
        }
        skip = 0
    }
    /^\.Sh / && !/^\.Sh "EXIT STATUS"/ && !/^\.Sh AUTHORS/ { skip = 0 }
    !skip { print }
' "$generated" > man/brados.1
# The footer names the version (the one in Sources/BradOSNetworking/BradOSVersion.swift); a test
# checks it is the built binary's `--version`, and packaging refuses a page for another one.
version="$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/BradOSNetworking/BradOSVersion.swift)"
sed -i "s/^\.Os.*/.Os brados $version/" man/brados.1
echo "man/brados.1 ($(wc -l < man/brados.1) lines, brados $version)"
