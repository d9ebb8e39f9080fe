#!/usr/bin/env python3
"""Writes the package's copyright file: brados's own notice and the Swift runtime's
(packaging/debian/copyright.in), then one section per Swift package the build resolved
(Package.resolved), with its licence: a reference to the Apache License plus the package's
NOTICE file, or the whole text of any other licence (MIT, BSD, ...); then the C code a
package vendors (BoringSSL, zlib, llhttp): its own licence files, every copyright line and
each distinct licence text at the top of its files. The list follows the build, so a new
dependency appears in the next package without anyone typing it.

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


LICENCE_START = re.compile(r"(?i)^(permission|redistribution|this package is|licensed under|the licen[cs]e and distribution|this software is provided|use, modification)")


def header_comment(path):
    """The first comment of a C source file (block or line comments), as lines."""
    text = open(path, encoding="utf-8", errors="replace").read(12000)
    block = re.match(r"\s*(?:#[^\n]*\n\s*)*/\*(.*?)\*/", text, re.S)
    if block:
        return [re.sub(r"^\s*\*+ ?", "", line).rstrip() for line in block.group(1).splitlines()]
    lines = re.match(r"((?:[ \t]*//[^\n]*\n)+)", text)
    return [re.sub(r"^\s*//+ ?", "", line).rstrip() for line in lines.group(1).splitlines()] if lines else []


def vendored(checkout):
    """C code a Swift package carries inside it (BoringSSL, zlib, llhttp, ...): per folder, each
    distinct licence text found at the top of its files, once, with every copyright line."""
    sections = []
    sources = os.path.join(checkout, "Sources")
    for name in sorted(os.listdir(sources)) if os.path.isdir(sources) else []:
        folder = os.path.join(sources, name)
        if not name.startswith("C") or not os.path.isdir(folder):
            continue
        licences, holders, files = {}, set(), []
        for directory, _, names in sorted(os.walk(folder)):
            for file in sorted(names):
                path = os.path.join(directory, file)
                if re.match(r"(?i)^(licen[cs]e|copying|notice)", file):
                    files.append(path)
                elif file.endswith((".c", ".cc", ".h", ".S")):
                    comment = header_comment(path)
                    holders.update(line.strip() for line in comment if re.search(r"(?i)copyright \(c\)|copyright [0-9]", line))
                    start = next((i for i, line in enumerate(comment) if LICENCE_START.match(line.strip())), None)
                    if start is not None:
                        text = "\n".join(comment[start:]).strip()
                        # Apache 2.0 is the packages' own licence, referenced above.
                        if not ("Apache" in text and "2.0" in text):
                            licences.setdefault(" ".join(text.split()), text)
        if not licences and not files:
            continue
        title = f"{os.path.basename(checkout)}/Sources/{name} (vendored C code)"
        lines = [title, "-" * len(title), ""]
        own = [" ".join(open(f, encoding="utf-8", errors="replace").read().split()) for f in files]
        for path in files:
            lines += ["  " + line if line else "" for line in open(path, encoding="utf-8", errors="replace").read().strip().splitlines()] + [""]
        if holders:
            lines += ["Copyright lines in its files:", ""] + ["  " + holder for holder in sorted(holders)] + [""]
        for key, text in licences.items():
            if any(key in text_of_file for text_of_file in own):
                continue
            lines += ["A licence in its files:", ""] + ["  " + line if line else "" for line in text.splitlines()] + [""]
        sections.append("\n".join(lines).rstrip() + "\n")
    return sections


def section(pin, checkout):
    title = f"{pin['identity']} {pin['state'].get('version') or pin['state'].get('revision', '')[:12]}".strip()
    lines = [title, "-" * len(title), "", pin["location"], ""]
    path = licence_file(checkout)
    if path is None:
        sys.exit(f"copyright.py: {checkout} has no LICENSE file; its licence must be written down before it ships")
    text = open(path, encoding="utf-8").read().strip()
    if "Apache License" in text and "Version 2.0" in text:
        lines.append("Licensed under the Apache License, Version 2.0 (see the Swift runtime above).")
        notice = next((os.path.join(checkout, name) for name in ("NOTICE.txt", "NOTICE") if os.path.exists(os.path.join(checkout, name))), "")
        if notice:
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
        parts += ["\n" + text for text in vendored(checkout)]
    sys.stdout.write("".join(parts))


if __name__ == "__main__":
    main()
