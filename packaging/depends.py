#!/usr/bin/env python3
"""Computes the package relations of a binary from the binary itself, as substvars lines.

dpkg-shlibdeps sees only the libraries in DT_NEEDED. brados also opens libraries with
dlopen at run time (libarchive for cache export/import; Chafa, TurboJPEG and libpng for
pictures), and says so in its ELF dlopen metadata note (https://systemd.io/ELF_DLOPEN_METADATA/:
section .note.dlopen, owner "FDO", type 0x407c0c0a, a JSON array of {feature, description,
priority, soname}). For each soname there, and for each release the package is made for
(packaging/releases.py), this finds the package that ships the library in that release and the
lowest version that has every symbol the binary asks for by name, from that package's symbols
file (the rule dpkg-shlibdeps applies to linked symbols); the releases' answers become
alternatives (`libturbojpeg0 (>= 1:2.0.2) | libturbojpeg`: Ubuntu names it otherwise, and
jammy's shlibs file gives it no version). Priorities map to relations as the specification says: required ->
Depends, recommended -> Recommends, suggested -> Suggests.

    packaging/depends.py BINARY      prints  dlopen:Depends=..., dlopen:Recommends=..., dlopen:Suggests=...

Fails, saying why, when a library named in the note is not installed here, no package owns it,
or a release has no package that ships it: a relation that cannot be computed is never guessed.
checks/check-deps.sh uses dlopen_notes, relation_field, library_path and package_of to check
that what the binary loads is what ensure-deps installs and the package depends on.
"""
import functools
import glob
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import releases  # noqa: E402

NOTE_OWNER = b"FDO\0"
NOTE_TYPE = 0x407C0C0A
RELATION = {"required": "Depends", "recommended": "Recommends", "suggested": "Suggests"}


def fail(message):
    sys.exit(f"depends.py: {message}")


def dlopen_notes(path):
    """The JSON entries of every FDO dlopen note in an ELF file (ELF32/64, either byte order)."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF":
        fail(f"{path} is not an ELF file")
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    if wide:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x2E)
    entries = []
    for index in range(shnum):
        base = shoff + index * shentsize
        if wide:
            _, kind, _, _, offset, size = struct.unpack_from(order + "IIQQQQ", data, base)
        else:
            _, kind, _, _, offset, size = struct.unpack_from(order + "IIIIII", data, base)
        if kind != 7:  # SHT_NOTE
            continue
        position, end = offset, offset + size
        while position + 12 <= end:
            name_size, description_size, note_type = struct.unpack_from(order + "III", data, position)
            name_start = position + 12
            description_start = name_start + ((name_size + 3) & ~3)
            name = data[name_start:name_start + name_size]
            description = data[description_start:description_start + description_size]
            position = description_start + ((description_size + 3) & ~3)
            if name == NOTE_OWNER and note_type == NOTE_TYPE:
                entries += json.loads(description.rstrip(b"\0").decode("utf-8"))
    return entries


@functools.lru_cache(maxsize=None)
def _loader_cache():
    return subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=True).stdout


def library_path(soname):
    """Where the dynamic loader finds `soname` on this machine (ldconfig's cache), or None."""
    for line in _loader_cache().splitlines():
        match = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        # This machine's own word size: "libc6,x86-64" (or AArch64...), never x32's or 32-bit's.
        if match and match.group(1) == soname and "64" in match.group(2) and "x32" not in match.group(2):
            return match.group(3)
    return None


@functools.lru_cache(maxsize=None)
def _owners():
    """Every file an installed package ships, and the package (dpkg's .list files, read once)."""
    owners = {}
    for listing in glob.glob("/var/lib/dpkg/info/*.list"):
        package = os.path.basename(listing)[:-5].split(":")[0]
        with open(listing, encoding="utf-8", errors="replace") as file:
            for line in file:
                owners.setdefault(line.rstrip("\n"), package)
    return owners


def package_of(path):
    """The installed package that ships `path` (trying its merged-/usr twins), or None."""
    owners, real = _owners(), os.path.realpath(path)
    for candidate in (path, real, "/usr" + path, "/usr" + real, re.sub(r"^/usr", "", path), re.sub(r"^/usr", "", real)):
        if candidate in owners:
            return owners[candidate]
    return None


def relation_field(entry):
    """The control field a dlopen note entry's priority asks for (Recommends when it says none)."""
    return RELATION.get(entry.get("priority", "recommended"), "Recommends")


newer = releases.newer


def relation(soname, package, strings, symbols, shlibs):
    """`package (>= version)`: the lowest version with every symbol of `soname` the binary names,
    from the package's symbols file (text), else its shlibs file, else `package` alone."""
    if symbols:
        template, minimum, current = None, None, None
        for line in symbols.splitlines():
            if not line.startswith((" ", "|", "*", "#")):
                current = line.split()[0] if line.split() else None
                template = line.split(None, 1)[1].strip() if current == soname else None
                continue
            if current != soname or not line.startswith(" "):
                continue
            name, version = line.split()[:2]
            if name.split("@")[0] in strings and (minimum is None or newer(version, minimum)):
                minimum = version
        if template is not None and minimum is not None:
            return template.replace("#MINVER#", f"(>= {minimum})").strip()
    if shlibs:  # "libarchive 13 libarchive13 (>= 3.6.2)": name, version, dependency
        stem, _, major = soname.partition(".so.")
        for line in shlibs.splitlines():
            fields = line.split(None, 2)
            if len(fields) == 3 and fields[0] == stem and fields[1] == major:
                return fields[2].strip()
    return package


def source_package(package):
    """The source package `package` (installed here) is built from."""
    return subprocess.run(["dpkg-query", "-W", "-f", "${source:Package}", package],
                          capture_output=True, text=True, check=True).stdout.strip() or package


def combine(relations):
    """One dependency group from the releases' relations: an alternative a package name, each
    with the lowest version any release asked for (every release's version satisfies it). Only
    `name` and `name (>= version)` are combined; anything else is refused, never dropped."""
    lowest = {}
    for text in relations:
        match = re.fullmatch(r"(\S+)(?:\s*\(>=\s*([^)\s]+)\s*\))?", text.strip())
        if match is None:
            fail(f"a symbols or shlibs file gives '{text}': only 'name' or 'name (>= version)' can be combined across releases")
        name, version = match.groups()
        if name not in lowest:
            lowest[name] = version
        elif lowest[name] is not None and (version is None or newer(lowest[name], version)):
            lowest[name] = version
    return " | ".join(f"{name} (>= {version})" if version else name for name, version in lowest.items())


def main():
    if len(sys.argv) != 2:
        fail("usage: depends.py BINARY")
    binary = sys.argv[1]
    strings = set(re.findall(rb"[A-Za-z_][A-Za-z0-9_]{2,}(?=\0)", open(binary, "rb").read()))
    strings = {name.decode() for name in strings}
    relations = {name: [] for name in RELATION.values()}
    notes = dlopen_notes(binary)
    if not notes:
        # brados always opens libarchive: a binary without the note was built without it
        # (or stripped of it), and a package from it would forget libarchive13.
        fail(f"{binary} has no .note.dlopen: the libraries it opens at run time would be missing from Depends")
    archives = {}
    for entry in notes:
        field = relation_field(entry)
        for soname in entry.get("soname", []):
            path = library_path(soname)
            if path is None:
                fail(f"{soname} (named in the binary's dlopen note) is not installed on this machine: "
                     "install the package that ships it (scripts/ensure-deps.sh does), then package again")
            if package_of(path) is None:
                fail(f"no Debian package owns {path}: the library must come from a package to be a dependency")
            source = source_package(package_of(path))
            found = []
            for release, _, _ in releases.RELEASES:
                if release not in archives:
                    archives[release] = releases.Archive(release)
                archive = archives[release]
                name, control = releases.shipping(archive, soname, source)
                if name is None:
                    fail(f"no package of {release} built from {source} ships {soname}: "
                         "the .deb could not install there (packaging/releases.py lists the releases)")
                found.append(relation(soname, name, strings, control.get("symbols"), control.get("shlibs")))
            relations[field].append(combine(found))
    for field, values in relations.items():
        print(f"dlopen:{field}={', '.join(dict.fromkeys(values))}")


if __name__ == "__main__":
    main()
