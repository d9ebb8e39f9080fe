#!/usr/bin/env python3
"""The layers of brados, checked (docs/ARCHITECTURE.md, "Layers"). One line per breach, exit 1.

    python3 checks/check-boundaries.py

1. What each module may import of the project's own modules:
   - the shared layers go one way: BradOSErrors (the error contract) < BradOSTerminal <
     BradOSStorage < BradOSNetworking < BradOSAuth < BradOSCore (the plugin contract), each
     importing only those before it;
   - the core (BradOSCore) imports no feature, domain, CLI or server module;
   - a feature (archives, search, today, pictures) imports the core and its own C helpers,
     never another feature or a domain;
   - a domain imports the core and the pictures feature, never another domain or feature;
   - the reference server imports nothing of the client.
2. Every module a target imports is one Package.swift declares for it (SwiftPM lets a target
   import what another target brought in; a declared graph is the only one that is true).
3. The core holds no command (no ParsableCommand conformance: commands are the CLI's and the
   domains') and stays under 4,500 lines of Swift: the contract, not the services behind it.
4. One word per idea (docs/ARCHITECTURE.md, "Words the code uses"), in every Swift file: a type
   named for a plan says whose (MealPlan…, …NutritionPlan…), and a repository is never held
   in something called `store` (byte storage alone is a store).
5. The shared layers and the features name no domain or backend outside comments (issue 17): domains
   and services are the plugins' declarations. Distinctive names match anywhere (PlexToken,
   BRADOS_PLEX_SERVER); "plan" and "library" as words or camelCase parts.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The shared layers, bottom first: each may import the ones before it.
LAYERS = ["BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "BradOSCore"]
CORE = set(LAYERS)
CORE_LINE_LIMIT = 4500
FEATURES = {"BradOSArchive", "BradOSSearch", "BradOSToday", "BradOSPictures", "BradOSCalendar", "BradOSNotifications"}
DOMAINS = {"MealPlan", "Visits", "MusicLibrary", "Coach", "Nutrition"}
# The C and format modules a feature (or the core) keeps to itself.
HELPERS = {
    "BradOSTerminal": {"CBradOSSystem"},
    "BradOSStorage": {"CBradOSSystem"},
    "BradOSAuth": {"CSecretLoader"},
    "BradOSArchive": {"CBradOSSystem", "CArchive", "CArchiveLoader", "AgeEncryption"},
    "BradOSPictures": {"CArtLoader"},
}
CLIENT = CORE | FEATURES | DOMAINS | {"BradOSCLI", "CBradOSSystem", "CSecretLoader", "CArchive", "CArchiveLoader", "CArtLoader", "CLoadOnce", "AgeEncryption"}


def allowed(target, project):
    """The project modules `target` may import, or None when the layers say nothing of it."""
    if target in CORE:
        return set(LAYERS[:LAYERS.index(target)]) | HELPERS.get(target, set())
    if target in FEATURES:
        return CORE | HELPERS.get(target, set())
    if target in DOMAINS:
        return CORE | {"BradOSPictures"}
    if target == "BradOSServer":
        return project - CLIENT
    return None


DISTINCTIVE = re.compile(r"plex|supabase|postgrest|gtsd|mealplan|meal|coach|visit|album|artwork|nutrition|recipe|conversation", re.I)
COMMON = re.compile(r"(^|[^a-z])(plans?|library)([^a-z]|$)|[a-z](Plans?|Library)([A-Z_]|$)|(^|[^A-Za-z])(PLANS?|LIBRARY)(_|$)|(^|[^A-Za-z])(Plans?|Library)[A-Z]")
PLAN_TYPE = re.compile(r"\b(?:struct|class|enum|actor|protocol|typealias)\s+(\w*Plans?\w*)")
STORE_REPOSITORY = re.compile(r"\b(?:let|var)\s+store\b\s*(?::\s*\w*Repository\b|=\s*(?:try\s*)?\w*Repository\b)")
COMMAND = re.compile(r"\b(struct|class|enum)\s+\w+\s*:[^{]*\b(Async)?ParsableCommand\b")
IMPORT = re.compile(r"^\s*(?:@testable\s+|@_implementationOnly\s+|(?:public|package|internal)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def code_lines(path):
    """The file's lines with comments blanked (// to the end of a line, /* */ on one line), numbered."""
    in_block = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if in_block:
                if "*/" not in line:
                    continue
                line, in_block = line.split("*/", 1)[1], False
            line = re.sub(r"/\*.*?\*/", "", line)
            if "/*" in line:
                line, in_block = line.split("/*", 1)[0], True
            stripped = line.lstrip()
            if stripped.startswith("//"):
                continue
            # A trailing comment, unless inside a string (a URL in a literal).
            line = re.sub(r"\s//[^\"]*$", "", line)
            yield number, line


def swift_files(folder):
    for base, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def main():
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True)
    if dump.returncode != 0:
        sys.exit(f"check-boundaries: swift package dump-package failed:\n{dump.stderr}")
    package = json.loads(dump.stdout)
    targets = {target["name"]: target for target in package["targets"]}
    project = set(targets)
    # What a product of a package dependency brings: its module names are the product's, or
    # for Crypto's extras the product's own name.
    gaps = []
    for name, target in sorted(targets.items()):
        if target["type"] in ("system", "binary"):
            continue
        folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
        folder = os.path.join(ROOT, folder)
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        may = allowed(name, project)
        for path in swift_files(folder):
            relative = os.path.relpath(path, ROOT)
            for number, line in code_lines(path):
                match = IMPORT.match(line)
                if not match:
                    continue
                module = match.group(1)
                if module in project or module in declared:
                    if module not in declared and module != name:
                        gaps.append(f"{relative}:{number}: imports {module}, which Package.swift does not declare for {name}")
                    if may is not None and module in project and module not in may and module != name:
                        gaps.append(f"{relative}:{number}: {name} imports {module}: {layer(name)} must not (see docs/ARCHITECTURE.md, Layers)")
                    if line.lstrip().startswith("@testable") and target["type"] != "test":
                        gaps.append(f"{relative}:{number}: @testable import outside a test target")
                elif module in PRODUCT_MODULES and module not in declared:
                    gaps.append(f"{relative}:{number}: imports {module}, which Package.swift does not declare for {name}")
        if name == "BradOSCore":
            lines = 0
            for path in swift_files(folder):
                relative = os.path.relpath(path, ROOT)
                with open(path, encoding="utf-8") as handle:
                    lines += sum(1 for _ in handle)
                for number, line in code_lines(path):
                    if COMMAND.search(line):
                        gaps.append(f"{relative}:{number}: a command in the core (commands live in BradOSCLI and the domains): {line.strip()[:120]}")
            if lines >= CORE_LINE_LIMIT:
                gaps.append(f"Sources/BradOSCore: {lines} lines of Swift, not under {CORE_LINE_LIMIT}: the core is the contract; a service goes in its layer")
        for path in swift_files(folder):
            relative = os.path.relpath(path, ROOT)
            for number, line in code_lines(path):
                for match in PLAN_TYPE.finditer(line):
                    if not re.search(r"MealPlan|NutritionPlan", match.group(1)):
                        gaps.append(f"{relative}:{number}: the type {match.group(1)} says plan without whose (MealPlan…, …NutritionPlan…)")
                if STORE_REPOSITORY.search(line):
                    gaps.append(f"{relative}:{number}: a repository held in `store` (a store is byte storage): {line.strip()[:100]}")
        if name in CORE | FEATURES:
            for path in swift_files(folder):
                relative = os.path.relpath(path, ROOT)
                for number, line in code_lines(path):
                    if DISTINCTIVE.search(line) or COMMON.search(line):
                        gaps.append(f"{relative}:{number}: names a domain or backend in {layer(name)}: {line.strip()[:120]}")
    for gap in gaps:
        print(gap, flush=True)
    if gaps:
        sys.exit(f"check-boundaries: {len(gaps)} breach(es) of the layers above")
    print(f"check-boundaries: {len(targets)} targets keep to their layers and declare what they import;"
          f" the core holds no command and is under {CORE_LINE_LIMIT} lines; every type named for a plan says whose, no repository"
          " is held in a store; the shared layers and the features name no domain")


def layer(name):
    if name == "BradOSCore":
        return "the core"
    if name in CORE:
        return f"the shared layer {name}"
    if name in FEATURES:
        return "a feature"
    if name in DOMAINS:
        return "a domain"
    return name


# Modules of the packages brados depends on that its targets import (a product's module).
PRODUCT_MODULES = {"ArgumentParser", "AsyncHTTPClient", "GRDB", "GRDBSQLite", "Hummingbird", "HummingbirdTesting",
                   "HummingbirdWebSocket", "HTTPTypes", "Crypto", "_CryptoExtras", "Logging", "NIOCore", "NIOHTTP1",
                   "NIOPosix", "NIOWebSocket", "NIOSSL", "NIOFoundationCompat", "NIOConcurrencyHelpers"}

if __name__ == "__main__":
    main()
