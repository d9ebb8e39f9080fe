#!/usr/bin/env python3
"""The Debian and Ubuntu releases the .deb is made for, and what their archives say.

The package must install on each of RELEASES: depends.py computes, for every library brados
opens at run time, which package ships it in each release (Ubuntu's TurboJPEG is `libturbojpeg`,
Debian's `libturbojpeg0`; trixie's t64 renames) and from which version, and writes them as
alternatives; `check` proves each relation of a built .deb installable in each release;
packaging/check-package.sh installs the .deb in a clean root of each.

    packaging/releases.py list                     NAME DISTRIBUTION MIRROR COMPONENTS..., one a line
    packaging/releases.py mirror RELEASE           the archive debootstrap and apt use for RELEASE
    packaging/releases.py check DEB                every Depends and Recommends group of DEB has an
                                                   alternative each release can install (exit 1 if not)
    packaging/releases.py owner PATH-REGEX         the packages of the host's release that ship a file
                                                   matching PATH-REGEX (its Contents index), one a line

The archives are read over HTTP: each release's Release file, then the Packages indexes it
lists, kept by their SHA-256 in $XDG_CACHE_HOME/brados-packaging (a later run downloads only
what changed). The Release file's signature is not checked (Ubuntu's keyring is not on a Debian
machine): the checksums guard against a damaged or half-updated mirror, not a forged one;
what is computed here is proven by installing the package from each release's own apt, which
checks signatures, in packaging/check-package.sh. Mirrors: BRADOS_DEBIAN_MIRROR (else the Debian mirror apt on this machine uses)
and BRADOS_UBUNTU_MIRROR (else http://archive.ubuntu.com/ubuntu).
"""
import glob
import gzip
import hashlib
import io
import lzma
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

# (name, distribution, components): oldest first within each distribution.
RELEASES = [
    ("bookworm", "debian", ["main"]),
    ("trixie", "debian", ["main"]),
    ("jammy", "ubuntu", ["main", "universe"]),
    ("noble", "ubuntu", ["main", "universe"]),
]
ARCH = "amd64"


def fail(message):
    sys.exit(f"releases.py: {message}")


def host_release():
    """The codename of the Debian release this machine runs (the one packages are built on)."""
    try:
        fields = dict(re.findall(r'^(\w+)="?([^"\n]*)"?$', open("/etc/os-release").read(), re.M))
    except OSError:
        fields = {}
    return fields.get("VERSION_CODENAME") or "bookworm"


def apt_sources():
    """(uri, suites) of every deb source apt on this machine uses, deb822 and one-line."""
    entries = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for stanza in re.split(r"\n\s*\n", open(path).read()):
            fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
            if "deb" in fields.get("Types", "").split() and fields.get("URIs"):
                entries.append((fields["URIs"].split()[0], fields.get("Suites", "").split()))
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
        try:
            lines = open(path).read().splitlines()
        except OSError:
            continue
        for line in lines:
            words = re.sub(r"\[[^]]*\]", "", line).split()
            if len(words) >= 3 and words[0] == "deb":
                entries.append((words[1], [words[2]]))
    return entries


def mirror(release):
    """The archive of `release`: the environment's, else for Debian the mirror apt here uses for
    it (or for any suite: one Debian mirror serves them all), else Ubuntu's main archive."""
    distribution = next((d for name, d, _ in RELEASES if name == release), None)
    if distribution is None:
        fail(f"unknown release {release} (known: {', '.join(name for name, _, _ in RELEASES)})")
    if distribution == "ubuntu":
        return os.environ.get("BRADOS_UBUNTU_MIRROR") or "http://archive.ubuntu.com/ubuntu"
    if os.environ.get("BRADOS_DEBIAN_MIRROR"):
        return os.environ["BRADOS_DEBIAN_MIRROR"]
    # Debian's own mirrors only: a third party's repository (download.docker.com/linux/debian)
    # may end in /debian too. The one apt uses for this release, else for any, else Debian's CDN.
    entries = [(uri, suites) for uri, suites in apt_sources()
               if re.search(r"debian\.org/|/debian/?$", uri) and not re.search(r"security|docker|ports", uri)]
    for uri, suites in entries:
        if release in suites:
            return uri
    return entries[0][0] if entries else "http://deb.debian.org/debian"


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "brados-packaging")
    os.makedirs(path, exist_ok=True)
    return path


def download(url, sha256=None):
    """The bytes at `url`; with `sha256`, from the cache when kept, checked either way."""
    kept = os.path.join(cache_dir(), sha256) if sha256 else None
    if kept and os.path.exists(kept):
        data = open(kept, "rb").read()
        if hashlib.sha256(data).hexdigest() == sha256:
            return data
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except OSError as error:
        fail(f"could not read {url} ({error}): the archive must be reachable to compute or check the package's relations")
    if sha256:
        if hashlib.sha256(data).hexdigest() != sha256:
            fail(f"{url} does not have the SHA-256 its Release file gives: try again (a mirror mid-update?)")
        # A name of its own until whole: two runs sharing the cache never see half a file.
        descriptor, part = tempfile.mkstemp(dir=cache_dir(), prefix=".part-")
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(part, kept)
    return data


def parse_stanzas(text, wanted):
    """Each stanza of a Packages file as {field: value}, only the `wanted` fields."""
    for stanza in text.split("\n\n"):
        fields = {}
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t") or ":" not in line:
                continue
            name, _, value = line.partition(":")
            if name in wanted:
                fields[name] = value.strip()
        if "Package" in fields:
            yield fields


class Archive:
    """One release's packages for ARCH (and all): {name: fields}, and who provides what."""

    FIELDS = {"Package", "Version", "Source", "Provides", "Filename", "SHA256", "Architecture"}

    def __init__(self, release):
        self.release = release
        self.mirror = mirror(release).rstrip("/")
        components = next(c for name, _, c in RELEASES if name == release)
        listing = download(f"{self.mirror}/dists/{release}/Release").decode("utf-8", "replace")
        sums = {}
        in_sha256 = False
        for line in listing.splitlines():
            if not line.startswith(" "):
                in_sha256 = line.startswith("SHA256:")
                continue
            if in_sha256:
                digest, _, path = line.split()
                sums[path] = digest
        self.packages = {}
        self.provides = {}  # virtual name -> [(provider, version or None)]
        for component in components:
            path = f"{component}/binary-{ARCH}/Packages.xz"
            if path not in sums:
                fail(f"{release}'s Release file lists no {path}")
            text = lzma.decompress(download(f"{self.mirror}/dists/{release}/{path}", sums[path])).decode("utf-8", "replace")
            for fields in parse_stanzas(text, self.FIELDS):
                name = fields["Package"]
                if name in self.packages and not newer(fields["Version"], self.packages[name]["Version"]):
                    continue
                self.packages[name] = fields
        for name, fields in self.packages.items():
            for provided in filter(None, (p.strip() for p in fields.get("Provides", "").split(","))):
                match = re.match(r"(\S+)(?:\s*\(=\s*([^)]+)\))?", provided)
                self.provides.setdefault(match.group(1), []).append((name, match.group(2)))

    def source(self, name):
        fields = self.packages.get(name, {})
        return (fields.get("Source") or name).split()[0]

    def satisfies(self, alternative):
        """Whether one alternative, `name` or `name (op version)`, can be installed here."""
        match = re.match(r"\s*([^\s(]+)\s*(?:\((<<|<=|=|>=|>>)\s*([^)]+)\))?\s*$", alternative)
        if not match:
            return False
        name, op, version = match.groups()
        candidates = []
        if name in self.packages:
            candidates.append(self.packages[name]["Version"])
        for _, provided in self.provides.get(name, []):
            # An unversioned Provides satisfies only an unversioned relation.
            if op is None or provided is not None:
                candidates.append(provided)
        if op is None:
            return bool(candidates)
        dpkg_op = {"<<": "lt", "<=": "le", "=": "eq", ">=": "ge", ">>": "gt"}[op]
        return any(compare(candidate, dpkg_op, version.strip()) for candidate in candidates if candidate)

    def deb(self, name):
        """The .deb of package `name`, downloaded (kept by its SHA-256)."""
        fields = self.packages[name]
        return download(f"{self.mirror}/{fields['Filename']}", fields["SHA256"])


def compare(a, op, b):
    return subprocess.run(["dpkg", "--compare-versions", a, op, b]).returncode == 0


def newer(a, b):
    return compare(a, "gt", b)


def deb_members(data):
    """(file paths, {control file name: text}) of a .deb, read with Python alone."""
    files, control = [], {}
    position = 8  # "!<arch>\n"
    while position + 60 <= len(data):
        name = data[position:position + 16].decode().strip().rstrip("/")
        size = int(data[position + 48:position + 58].decode().strip())
        body = data[position + 60:position + 60 + size]
        position += 60 + size + (size & 1)
        if name.startswith(("control.tar", "data.tar")):
            archive = tarfile.open(fileobj=io.BytesIO(decompress(name, body)))
            for member in archive.getmembers():
                path = member.name.lstrip(".")
                if name.startswith("data.tar"):
                    files.append(path)
                elif member.isfile():
                    control[os.path.basename(path)] = archive.extractfile(member).read().decode("utf-8", "replace")
    return files, control


def decompress(name, body):
    if name.endswith(".xz"):
        return lzma.decompress(body)
    if name.endswith(".gz"):
        return gzip.decompress(body)
    if name.endswith(".zst"):  # Ubuntu's packages since 21.10
        return subprocess.run(["zstd", "-dc"], input=body, capture_output=True, check=True).stdout
    return body


def shipping(archive, soname, source):
    """The package of `archive` built from `source` that ships `soname`, with its control files."""
    for name in sorted(archive.packages):
        if archive.source(name) != source or not name.startswith("lib") or name.endswith(("-dev", "-dbg", "-doc")):
            continue
        files, control = deb_members(archive.deb(name))
        if any(os.path.basename(path) == soname for path in files):
            return name, control
    return None, None


def check(deb):
    """Every Depends and Recommends group of `deb` has an alternative each release installs."""
    fields = {}
    for field in ("Depends", "Recommends"):
        value = subprocess.run(["dpkg-deb", "-f", deb, field], capture_output=True, text=True, check=True).stdout.strip()
        fields[field] = [group.strip() for group in value.split(",") if group.strip()]
    problems = 0
    for release, _, _ in RELEASES:
        archive = Archive(release)
        for field, groups in fields.items():
            for group in groups:
                if not any(archive.satisfies(alternative) for alternative in group.split("|")):
                    print(f"{release}: {field}: {group} cannot be installed (no package or version there satisfies it)")
                    problems += 1
    return problems


def owner(pattern):
    """Packages of the host's release that ship a file matching `pattern`, read from its
    Contents indexes (Debian's main/Contents-ARCH and main/Contents-all, or Ubuntu's
    Contents-ARCH) a line at a time: only a file that is not installed needs them."""
    release = host_release()
    base = mirror(release).rstrip("/")
    listing = download(f"{base}/dists/{release}/Release").decode("utf-8", "replace")
    sums = dict((path, digest) for digest, _, path in
                (line.split() for line in listing.splitlines() if line.startswith(" ") and len(line.split()) == 3))
    paths = [path for path in (f"main/Contents-{ARCH}.gz", "main/Contents-all.gz", f"Contents-{ARCH}.gz") if path in sums]
    if not paths:
        fail(f"{release}'s Release file lists no Contents index")
    regex = re.compile(pattern)
    found = []
    for path in paths:
        data = download(f"{base}/dists/{release}/{path}", sums[path])
        with gzip.open(io.BytesIO(data), "rt", encoding="utf-8", errors="replace") as lines:
            for line in lines:
                file, _, locations = line.rstrip("\n").rpartition(" ")
                if regex.search("/" + file.strip()):
                    found += [location.rsplit("/", 1)[-1] for location in locations.split(",")]
    return list(dict.fromkeys(found))


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "list" and len(sys.argv) == 2:
        for name, distribution, components in RELEASES:
            print(name, distribution, mirror(name), *components)
    elif command == "mirror" and len(sys.argv) == 3:
        print(mirror(sys.argv[2]))
    elif command == "check" and len(sys.argv) == 3:
        problems = check(sys.argv[2])
        if problems == 0:
            print(f"every relation of {os.path.basename(sys.argv[2])} installs on {', '.join(name for name, _, _ in RELEASES)}")
        sys.exit(1 if problems else 0)
    elif command == "owner" and len(sys.argv) == 3:
        print("\n".join(owner(sys.argv[2])))
    else:
        fail("usage: releases.py list | mirror RELEASE | check DEB | owner PATH-REGEX")


if __name__ == "__main__":
    main()
