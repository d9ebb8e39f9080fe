#!/bin/sh
# Regenerates man/brados.1 from the command tree (swift-argument-parser's manual plugin,
# offline, debug configuration) plus man/sections.mdoc (CACHING, ENVIRONMENT, FILES,
# EXIT STATUS, EXAMPLES). A test checks the result stays in step with the commands.
set -eu
cd "$(dirname "$0")/.."
date="${BRADOS_MAN_DATE:-$(git log -1 --format=%cs 2>/dev/null || date +%F)}"
swift package plugin generate-manual --configuration debug --date "$date" --authors "the brados team" >/dev/null
generated=.build/plugins/GenerateManual/outputs/brados/brados.1
# Drop the generated EXIT STATUS (ours is complete), and put our sections before AUTHORS.
awk -v sections=man/sections.mdoc '
    /^\.Sh "EXIT STATUS"/ { skip = 1; next }
    /^\.Sh AUTHORS/ { while ((getline line < sections) > 0) print line; skip = 0 }
    /^\.Sh / && !/^\.Sh "EXIT STATUS"/ && !/^\.Sh AUTHORS/ { skip = 0 }
    !skip { print }
' "$generated" > man/brados.1
# The footer names the version (the one in Sources/BradOSCore/BradOSVersion.swift); a test
# checks it is the built binary's `--version`, and packaging refuses a page for another one.
version="$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/BradOSCore/BradOSVersion.swift)"
sed -i "s/^\.Os.*/.Os brados $version/" man/brados.1
echo "man/brados.1 ($(wc -l < man/brados.1) lines, brados $version)"
