#!/usr/bin/env python3
"""Writes the package's copyright file: brados's own notice and the Swift runtime's
(packaging/debian/copyright.in), then one section per Swift package the build resolved
(Package.resolved), with its licence: a reference to the Apache License plus the package's
NOTICE file, or the whole text of any other licence (MIT, BSD, ...). The list follows the
build, so a new dependency appears in the next package without anyone typing it.

    packaging/copyright.py --scratch .build [--apache-beside] > copyright

--apache-beside: the tarball ships the Apache License as a file beside the copyright file
(systems other than Debian have no /usr/share/common-licenses).
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def licence_file(checkout):
    for name in sorted(os.listdir(checkout)):
        if re.match(r"(?i)^(licen[cs]e|copying)(\.(txt|md))?$", name):
            return os.path.join(checkout, name)
    return None


def section(pin, checkout):
    title = f"{pin['identity']} {pin['state'].get('version') or pin['state'].get('revision', '')[:12]}".strip()
    lines = [title, "-" * len(title), "", pin["location"], ""]
    path = licence_file(checkout)
    if path is None:
        sys.exit(f"copyright.py: {checkout} has no LICENSE file; its licence must be written down before it ships")
    text = open(path, encoding="utf-8").read().strip()
    if "Apache License" in text and "Version 2.0" in text:
        lines.append("Licensed under the Apache License, Version 2.0 (see the Swift runtime above).")
        notice = os.path.join(checkout, "NOTICE.txt")
        if os.path.exists(notice):
            lines += ["Its NOTICE file:", ""] + ["  " + line if line else "" for line in open(notice, encoding="utf-8").read().strip().splitlines()]
    else:
        lines += ["  " + line if line else "" for line in text.splitlines()]
    return "\n".join(lines).rstrip() + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scratch", default=".build", help="the build's scratch path (its checkouts/)")
    parser.add_argument("--apache-beside", action="store_true")
    options = parser.parse_args()
    resolved = os.path.join(ROOT, "Package.resolved")
    if not os.path.exists(resolved):
        sys.exit("copyright.py: Package.resolved is missing: build first (swift build resolves the packages)")
    pins = sorted(json.load(open(resolved))["pins"], key=lambda pin: pin["identity"].lower())
    header = open(os.path.join(ROOT, "packaging", "debian", "copyright.in"), encoding="utf-8").read()
    note = ", and beside this file as Apache-2.0" if options.apache_beside else ""
    parts = [header.replace("@APACHE_NOTE@", note).rstrip() + "\n"]
    parts.append("\nSwift packages brados is built with\n===================================\n")
    for pin in pins:
        checkout = os.path.join(ROOT, options.scratch, "checkouts", os.path.basename(pin["location"]).removesuffix(".git"))
        if not os.path.isdir(checkout):
            sys.exit(f"copyright.py: {checkout} is missing: build with --scratch-path {options.scratch} first")
        parts.append("\n" + section(pin, checkout))
    sys.stdout.write("".join(parts))


if __name__ == "__main__":
    main()
