#!/usr/bin/env python3
"""Hostile archives (issue 11, suite 3): the import attack corpus (traversal, absolute,
symlink, link-then-write-through, hard link, device, FIFO, duplicate, unlisted entry,
tampered checksum, truncated, compression bomb, entry-count bomb, foreign account) and
randomly mutated valid archives. Every one must be rejected, or imported correctly; 0 bytes
may be written outside the cache root, and a rejected import leaves the prior cache intact.

    python3 reliability/hostile_archives.py [--mutations 1000] [--build-dir .build] [--configuration debug]
"""
import copy
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally, files_under, profile_digest  # noqa: E402


def read_archive(path):
    """(manifest, [(TarInfo, bytes)]) of a tar.gz export."""
    entries = []
    with tarfile.open(path, "r:gz") as tar:
        for member in tar.getmembers():
            data = tar.extractfile(member).read() if member.isfile() else b""
            entries.append((member, data))
    manifest = json.loads(next(data for member, data in entries if member.name == "manifest.json"))
    return manifest, entries


def write_archive(path, manifest, entries, manifest_override=None):
    """A tar.gz with `manifest` first (recomputed unless overridden) and `entries` after."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        body = manifest_override if manifest_override is not None else json.dumps(manifest).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(body)
        info.mode = 0o600
        tar.addfile(info, io.BytesIO(body))
        for member, data in entries:
            if member.name == "manifest.json":
                continue
            member = copy.copy(member)
            if member.isfile():
                member.size = len(data)
                tar.addfile(member, io.BytesIO(data))
            else:
                tar.addfile(member)
    with open(path, "wb") as handle:
        handle.write(gzip.compress(buffer.getvalue(), compresslevel=1))
    return buffer.getvalue()


def file_entry(name, data, mode=0o600):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    return info, data


def listed(manifest, path, data, domain=None):
    domain = domain or path.split("/")[1]
    manifest = copy.deepcopy(manifest)
    manifest["files"].append({"path": path, "domain": domain, "size": len(data),
                              "sha256": hashlib.sha256(data).hexdigest(), "mode": 384, "kind": "file"})
    for entry in manifest["domains"]:
        if entry["name"] == domain:
            entry["files"] += 1
            entry["bytes"] += len(data)
    return manifest


def corpus(manifest, entries, outside):
    """(name, manifest, entries, manifest_override, expect_rejected) for every attack."""
    victim = next(f for f in manifest["files"] if f["kind"] == "file")
    domain = victim["domain"]
    base = [e for e in entries if e[0].name != "manifest.json"]
    out = []

    def attack(name, extra, manifest_for=None, override=None, drop=None):
        kept = [e for e in base if e[0].name != drop] if drop else list(base)
        out.append((name, manifest_for or manifest, kept + extra, override))

    payload = b"pwned\n"
    attack("traversal ../", [file_entry(f"cache/{domain}/../../../../{os.path.basename(outside)}/traversal", payload)])
    attack("traversal listed", [file_entry(f"cache/{domain}/../../escape", payload)],
           listed(manifest, f"cache/{domain}/../../escape", payload, domain))
    attack("absolute path", [file_entry(os.path.join(outside, "absolute"), payload)])
    link = tarfile.TarInfo(f"cache/{domain}/link"); link.type = tarfile.SYMTYPE; link.linkname = outside
    attack("symlink", [(link, b"")])
    through = tarfile.TarInfo(f"cache/{domain}/door"); through.type = tarfile.SYMTYPE; through.linkname = outside
    attack("link then write through", [(through, b""), file_entry(f"cache/{domain}/door/written", payload)],
           listed(manifest, f"cache/{domain}/door/written", payload, domain))
    hard = tarfile.TarInfo(f"cache/{domain}/hard"); hard.type = tarfile.LNKTYPE; hard.linkname = "/etc/passwd"
    attack("hard link", [(hard, b"")])
    device = tarfile.TarInfo(f"cache/{domain}/device"); device.type = tarfile.CHRTYPE; device.devmajor = 1; device.devminor = 3
    attack("device", [(device, b"")])
    fifo = tarfile.TarInfo(f"cache/{domain}/fifo"); fifo.type = tarfile.FIFOTYPE
    attack("fifo", [(fifo, b"")])
    victim_entry = next(e for e in base if e[0].name == victim["path"])
    attack("duplicate entry", [file_entry(victim["path"], b"second copy")])
    attack("unlisted entry", [file_entry(f"cache/{domain}/unlisted.json", b"{}")])
    tampered = bytearray(victim_entry[1] or b"x"); tampered[len(tampered) // 2] ^= 0xFF
    attack("tampered checksum", [file_entry(victim["path"], bytes(tampered))], drop=victim["path"])
    foreign = copy.deepcopy(manifest); foreign["accounts"] = {k: "someone-else-" + k for k in manifest["accounts"]} or {"api": "x"}
    attack("foreign account", [], foreign)
    attack("not json manifest", [], None, b"{not json")
    bad_format = copy.deepcopy(manifest); bad_format["format"] = "tar"
    attack("wrong format", [], bad_format)
    return out


def bomb(path, manifest, entries, kind):
    if kind == "compression bomb":
        # One listed file of 2 GiB of zeros: a few MB compressed. The limits must stop it early.
        size = 2 << 30
        member = tarfile.TarInfo(f"cache/{manifest['domains'][0]['name']}/bomb.bin"); member.size = size; member.mode = 0o600
        header = member.tobuf(format=tarfile.PAX_FORMAT)
        body = json.dumps(manifest).encode()
        info = tarfile.TarInfo("manifest.json"); info.size = len(body); info.mode = 0o600
        with gzip.open(path, "wb", compresslevel=1) as out:
            out.write(info.tobuf(format=tarfile.PAX_FORMAT) + body + b"\0" * ((512 - len(body) % 512) % 512))
            out.write(header)
            chunk = b"\0" * (8 << 20)
            for _ in range(size // len(chunk)):
                out.write(chunk)
            out.write(b"\0" * 1024)
    else:
        # 300,000 empty entries.
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
            body = json.dumps(manifest).encode()
            info = tarfile.TarInfo("manifest.json"); info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
            domain = manifest["domains"][0]["name"]
            for index in range(300_000):
                tar.addfile(tarfile.TarInfo(f"cache/{domain}/e{index}"), io.BytesIO(b""))
        with open(path, "wb") as handle:
            handle.write(gzip.compress(buffer.getvalue(), compresslevel=1))


class HostileArchives:
    """One run of the suite: a profile signed in to the server, the valid export every attack
    is built from, and what each import is checked against."""

    def __init__(self, options, tally, profile, work):
        self.options = options
        self.tally = tally
        self.profile = profile
        self.work = work
        self.outside = os.path.join(work, "outside")          # must stay empty
        self.valid = os.path.join(work, "valid.tar.gz")
        self.attack_path = os.path.join(work, "attack.tar.gz")
        self.manifest = self.entries = None                   # the valid archive, read
        self.compressed = None                                # its bytes, as exported
        self.before = None                                    # the profile every import starts from
        self.expected_after_valid = None                      # the profile the valid archive gives
        self.rejected_codes = {}

    def state(self):
        return profile_digest(self.profile.home)

    def outside_writes(self):
        """Files an import wrote outside the cache root: under `outside`, or beside the home."""
        written = list(files_under(self.outside))
        for name in os.listdir(self.work):
            if name not in ("outside", "home", "valid.tar.gz", "attack.tar.gz"):
                written.append(os.path.join(self.work, name))
        return written

    def keep(self, name, path):
        """Copies a failing archive to --keep-failures, if given."""
        if self.options.keep_failures:
            os.makedirs(self.options.keep_failures, exist_ok=True)
            shutil.copy(path, os.path.join(self.options.keep_failures, name.replace(" ", "-") + ".tar.gz"))

    def attempt(self, name, path, must_reject):
        """Imports `path` with --replace: nothing may be written outside the cache root; an
        accepted archive must be allowed and give what the valid one gives; a rejected one
        must leave the prior cache intact and say why in a brados error."""
        tally = self.tally
        result = self.profile.run("cache", "import", path, "--replace", timeout=600)
        escaped = self.outside_writes()
        now = self.state()
        if escaped:
            tally.fail(f"{name}: wrote outside the cache root: {escaped[:3]}")
            for item in escaped:
                shutil.rmtree(item, ignore_errors=True) if os.path.isdir(item) else os.remove(item)
            return
        if result.returncode == 0:
            if must_reject:
                self.keep(name, path)
                tally.fail(f"{name}: imported (exit 0), should be rejected")
            elif self.expected_after_valid is not None and now != self.expected_after_valid:
                self.keep(name, path)
                expected = self.expected_after_valid
                differs = sorted({p for root in now for p in set(now[root].items()) ^ set(expected[root].items())})
                tally.fail(f"{name}: imported, but the cache is not what the archive holds: {differs[:4]}")
            else:
                tally.ok()
            if now != self.before:  # back to the known state, so one failure does not cascade
                self.profile.must("cache", "import", self.valid, "--replace")
            return
        if "Traceback" in result.stderr or "Fatal error" in result.stderr or result.returncode < 0:
            tally.fail(f"{name}: crashed ({result.returncode}): {result.stderr.strip()[:200]}")
            self.keep(name, path)
        elif now != self.before:
            self.keep(name, path)
            tally.fail(f"{name}: rejected ({result.returncode}) but the prior cache changed")
            self.profile.must("cache", "import", self.valid, "--replace")
        elif not result.stderr.strip().startswith("brados:"):
            tally.fail(f"{name}: rejected without a brados error: {result.stderr.strip()[:200]}")
        else:
            tally.ok()
            self.rejected_codes[result.returncode] = self.rejected_codes.get(result.returncode, 0) + 1

    def export_valid(self):
        """Fills the cache (every domain) and exports it: the archive the attacks start from."""
        self.profile.login()
        for command in (["mealplan", "show"], ["visits", "list"], ["plan", "show"], ["library", "prefetch", "--rows", "4"]):
            self.profile.must(*command)
        self.profile.must("cache", "export", "--format", "tar.gz", "-o", self.valid)
        self.manifest, self.entries = read_archive(self.valid)
        self.before = self.state()

    def import_valid(self):
        """The valid archive imports, and gives the state every accepted mutation must give."""
        result = self.profile.run("cache", "import", self.valid, "--replace")
        if result.returncode != 0:
            raise SystemExit(f"the valid archive does not import: {result.stderr}")
        self.expected_after_valid = self.state()
        self.before = self.expected_after_valid

    def attack_corpus(self):
        """The attack corpus, a truncated archive and (unless --no-bombs) the two bombs: every
        one must be rejected."""
        for name, attack_manifest, attack_entries, override in corpus(self.manifest, self.entries, self.outside):
            write_archive(self.attack_path, attack_manifest, attack_entries, override)
            self.attempt(name, self.attack_path, must_reject=True)
        with open(self.valid, "rb") as handle:
            self.compressed = handle.read()
        with open(self.attack_path, "wb") as handle:
            handle.write(self.compressed[: len(self.compressed) // 2])
        self.attempt("truncated", self.attack_path, must_reject=True)
        if not self.options.no_bombs:
            for kind in ("compression bomb", "entry-count bomb"):
                bomb(self.attack_path, self.manifest, self.entries, kind)
                self.attempt(kind, self.attack_path, must_reject=True)
        self.tally.figures["corpus"] = self.tally.runs

    def mutations(self):
        """Random mutations: of the tar (then recompressed), or of the compressed bytes. Each
        is rejected or imported correctly, and `cache stats` works afterwards."""
        tally = self.tally
        tar_bytes = gzip.decompress(self.compressed)
        for index in range(self.options.mutations):
            if index % 2 == 0:
                data = bytearray(tar_bytes)
                for _ in range(random.randint(1, 8)):
                    position = random.randrange(len(data))
                    data[position] = random.randrange(256)
                with open(self.attack_path, "wb") as handle:
                    handle.write(gzip.compress(bytes(data), compresslevel=1))
            else:
                data = bytearray(self.compressed)
                for _ in range(random.randint(1, 4)):
                    position = random.randrange(len(data))
                    data[position] = random.randrange(256)
                with open(self.attack_path, "wb") as handle:
                    handle.write(bytes(data))
            runs_before = tally.runs - len(tally.failures)
            self.attempt(f"mutation {index}", self.attack_path, must_reject=False)
            if self.profile.run("cache", "stats").returncode != 0:
                tally.fail(f"mutation {index}: cache stats fails afterwards")
            if self.state() == self.expected_after_valid and tally.runs - len(tally.failures) > runs_before:
                pass
        tally.figures["mutations"] = self.options.mutations
        tally.figures["rejected by exit code"] = dict(sorted(self.rejected_codes.items()))


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--mutations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--no-bombs", action="store_true", help="skip the two bombs (they take a while)")
    parser.add_argument("--keep-failures", metavar="DIR", help="copy every archive that failed a check here")
    options = parser.parse_args()
    random.seed(options.seed)
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("hostile archives")
    work = tempfile.mkdtemp(prefix="brados-hostile-")
    os.makedirs(os.path.join(work, "outside"))

    with Server(binaries) as server:
        profile = Profile(binaries, server, home=os.path.join(work, "home"))
        suite = HostileArchives(options, tally, profile, work)
        try:
            suite.export_valid()
            suite.import_valid()
            suite.attack_corpus()
            suite.mutations()
        finally:
            shutil.rmtree(work, ignore_errors=True)

    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
