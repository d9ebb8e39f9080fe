#!/bin/sh
# Lists code in Sources/BradOSCore (comments stripped) that names a domain or a backend.
# The core must name none (issue 17): domains and services are the plugins' declarations.
# Distinctive names match anywhere (identifiers, env vars, strings: PlexToken, BRADOS_PLEX_SERVER);
# the common words "plan" and "library" match as words or camelCase parts.
# Exit 1 when any is found.
cd "$(dirname "$0")/.." || exit 2
distinctive='plex|supabase|postgrest|gtsd|mealplan|meal|coach|visit|album|artwork|nutrition|recipe|conversation'
common='(^|[^a-z])(plans?|library)([^a-z]|$)|[a-z](Plans?|Library)([A-Z_]|$)|(^|[^A-Za-z])(PLANS?|LIBRARY)(_|$)|(^|[^A-Za-z])(Plans?|Library)[A-Z]'
found=0
for file in $(find Sources/BradOSCore -name '*.swift' | sort); do
    # Drop // comments (whole-line and trailing) and /* … */ on one line; keep line numbers.
    code=$(sed -e 's|/\*.*\*/||g' -e 's|^[[:space:]]*//.*$||' -e 's|[[:space:]]//[^"]*$||' "$file")
    hits=$( (printf '%s\n' "$code" | grep -nE -i "$distinctive"; printf '%s\n' "$code" | grep -nE "$common") | sort -n -u)
    if [ -n "$hits" ]; then
        printf '%s\n' "$hits" | sed "s|^|$file:|"
        found=1
    fi
done
if [ "$found" = 1 ]; then
    echo "core-names: the lines above name a domain or a backend in the core" >&2
    exit 1
fi
echo "core-names: no domain or backend name in Sources/BradOSCore (outside comments)"
