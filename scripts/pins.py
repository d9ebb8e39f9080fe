#!/usr/bin/env python3
"""Every Swift package a build of brados uses, transitive ones included, pinned by version in
Package.pins.json (committed), with its source and licence. Package.swift asks for its direct
dependencies at exactly these versions; this script checks the whole graph SwiftPM resolved
(`swift package show-dependencies --format json`) against the list, so a dependency moves only
by a commit that changes it. `make build`, `make release` and `make test` run the check first:
a build that would use other dependency code fails, saying which package moved.

It also writes Sources/BradOSCLI/Commands/Version/BuildDependencies.swift from the list (what `brados version`
names), and the check covers that file too.

    scripts/pins.py            # check (exit 1 on any difference, with the packages named)
    scripts/pins.py --write    # after changing a version in Package.swift and
                               # `swift package update NAME`: write both files again

(Package.resolved is not committed: it carries commit ids, which differ between a mirror and
GitHub for the same version.)
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The licence file of a checkout is found as the package's copyright file finds it.
_spec = importlib.util.spec_from_file_location("packaging_copyright", os.path.join(ROOT, "packaging", "copyright.py"))
copyright_file = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(copyright_file)
PINS = os.environ.get("BRADOS_PINS_FILE") or os.path.join(ROOT, "Package.pins.json")  # another list: the tests
SWIFT = os.path.join(ROOT, "Sources", "BradOSCLI", "Commands", "Version", "BuildDependencies.swift")


def resolved(scratch, graph_file=None):
    """identity -> (url, version) of every package in the resolved graph (SwiftPM's, or the
    same JSON read from `graph_file`: the tests)."""
    if graph_file:
        text = open(graph_file).read()
    else:
        command = [os.environ.get("SWIFT", "swift"), "package", "--scratch-path", scratch, "show-dependencies", "--format", "json"]
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"pins.py: {' '.join(command)} failed:\n{result.stderr.strip()}")
        text = result.stdout[result.stdout.index("{"):]  # after any "Fetching …" lines
    graph, packages = json.loads(text), {}

    def walk(node):
        for child in node.get("dependencies", []):
            packages[child["identity"]] = (child["url"], child["version"])
            walk(child)
    walk(graph)
    return packages


def licence(scratch, url):
    """The SPDX identifier of a checkout's licence file."""
    checkout = os.path.join(ROOT, scratch, "checkouts", os.path.basename(url).removesuffix(".git"))
    path = copyright_file.licence_file(checkout) if os.path.isdir(checkout) else None
    if path is None:
        sys.exit(f"pins.py: no licence file in {checkout}: build first, or write the package's licence down before it ships")
    text = open(path, encoding="utf-8", errors="replace").read()
    if "Apache License" in text and "Version 2.0" in text:
        return "Apache-2.0 WITH Swift-exception" if "Runtime Library Exception" in text else "Apache-2.0"
    if "Permission is hereby granted, free of charge" in text:
        return "MIT"
    if "Redistribution and use in source and binary forms" in text:
        return "BSD-3-Clause" if "Neither the name" in text else "BSD-2-Clause"
    sys.exit(f"pins.py: {path}: a licence this script does not know; add it")


def swift_source(packages):
    rows = "\n".join(f'        Package(name: "{p["identity"]}", version: "{p["version"]}", url: "{p["url"]}", licence: "{p["licence"]}"),'
                     for p in packages)
    return f"""// Written by scripts/pins.py from Package.pins.json; do not edit.

/// The Swift packages this brados is built with, at the versions `Package.pins.json` pins
/// (`brados version` names them; `scripts/pins.py` fails a build whose resolution differs).
public enum BuildDependencies {{
    public struct Package: Sendable, Encodable {{
        public var name: String
        public var version: String
        public var url: String
        /// Its licence, as an SPDX expression.
        public var licence: String
    }}

    public static let packages: [Package] = [
{rows}
    ]
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write Package.pins.json and BuildDependencies.swift from the resolution")
    parser.add_argument("--scratch", default=os.environ.get("SCRATCH", ".build"), help="the build's scratch path")
    parser.add_argument("--graph", help="check this `show-dependencies --format json` output instead of asking SwiftPM")
    options = parser.parse_args()
    graph = resolved(options.scratch, options.graph)
    if options.write:
        packages = [{"identity": identity, "url": url, "version": version, "licence": licence(options.scratch, url)}
                    for identity, (url, version) in sorted(graph.items())]
        with open(PINS, "w") as handle:
            json.dump({"comment": "Every Swift package the build uses, by version (scripts/pins.py; docs/development.md says how to move one).",
                       "packages": packages}, handle, indent=2)
            handle.write("\n")
        with open(SWIFT, "w") as handle:
            handle.write(swift_source(packages))
        print(f"pins.py: wrote {len(packages)} packages to Package.pins.json and {os.path.relpath(SWIFT, ROOT)}")
        return
    try:
        pinned = {p["identity"]: p for p in json.load(open(PINS))["packages"]}
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"pins.py: Package.pins.json cannot be read ({error}); scripts/pins.py --write makes it")
    problems = []
    for identity in sorted(set(pinned) | set(graph)):
        if identity not in graph:
            problems.append(f"  {identity} {pinned[identity]['version']} is pinned but no longer used")
        elif identity not in pinned:
            problems.append(f"  {identity} {graph[identity][1]} is used but not pinned")
        elif graph[identity][1] != pinned[identity]["version"]:
            problems.append(f"  {identity} resolved to {graph[identity][1]}, pinned at {pinned[identity]['version']}")
        elif graph[identity][0].removesuffix(".git").lower() != pinned[identity]["url"].removesuffix(".git").lower():
            problems.append(f"  {identity} comes from {graph[identity][0]}, pinned from {pinned[identity]['url']}")
    expected = swift_source(sorted(pinned.values(), key=lambda p: p["identity"]))
    if not os.path.exists(SWIFT) or open(SWIFT).read() != expected:
        problems.append(f"  {os.path.relpath(SWIFT, ROOT)} is not what Package.pins.json says")
    if problems:
        sys.exit("pins.py: the Swift packages differ from Package.pins.json:\n" + "\n".join(problems) +
                 "\nA dependency moves only by a commit: change its version in Package.swift, `swift package update NAME`,"
                 " `scripts/pins.py --write`, run the tests (docs/development.md). Or, for a stale resolution: swift package resolve.")
    print(f"pins.py: {len(pinned)} Swift packages, each at its pinned version")


if __name__ == "__main__":
    main()
