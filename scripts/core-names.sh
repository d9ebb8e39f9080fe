#!/bin/sh
# Lists lines of Sources/BradOSCore (outside comments) that name a domain or a backend.
# The core must name none (issue 17): domains and services are the plugins' declarations.
# Exit 1 when any is found.
cd "$(dirname "$0")/.." || exit 2
pattern='mealplan|meal plan|\bmeals?\b|\bvisits?\b|\blibrary\b|\bcoach\b|\bplans?\b|\bplex\b|supabase|postgrest|\bgtsd\b|artwork|nutrition|album'
if grep -rniE "$pattern" Sources/BradOSCore --include='*.swift' | grep -vE '^[^:]+:[0-9]+:\s*//'; then
    echo "core-names: the lines above name a domain or a backend in the core" >&2
    exit 1
fi
echo "core-names: no domain or backend name in Sources/BradOSCore (outside comments)"
