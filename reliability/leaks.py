#!/usr/bin/env python3
"""Leaks (issue 11, suite 5): after `auth logout`, 0 bytes of the profile's data remain on
disk (and the other profile's data is untouched); every cache, data and config file is 0600
and every folder 0700; tokens and passwords appear in no log (`--verbose`, `BRADOS_LOG=trace`), no cache
file and no archive.

    python3 reliability/leaks.py [--build-dir .build] [--configuration debug]
"""
import io
import json
import os
import re
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally, files_under, modes_problems, tree_digest  # noqa: E402

# Every domain, online, so each one writes what it caches.
COMMANDS = [
    ["mealplan", "show"], ["visits", "list"], ["library", "albums"], ["library", "prefetch", "--rows", "6"],
    ["coach", "list"], ["coach", "context"], ["plan", "show"], ["plan", "targets"], ["sync"], ["doctor"],
    ["auth", "status", "--check"],
]
PASSWORD_PATTERNS = [re.compile(rb'"password"\s*:'), re.compile(rb"password=[^&\s]"), re.compile(rb"grant_type=password")]


def secrets(profile):
    """Every token-like string in the profile's credentials (they change on renewal)."""
    found = set()
    folder = os.path.join(profile.home, "config", "credentials")
    for path in files_under(folder):
        if not path.endswith(".json"):
            continue
        def walk(value, key=""):
            if isinstance(value, dict):
                for k, v in value.items():
                    walk(v, k)
            elif isinstance(value, str) and "token" in key.lower() and len(value) >= 16:
                found.add(value)
        with open(path) as handle:
            walk(json.load(handle))
    return found


def scan(blob, tokens):
    hits = [f"token …{token[-6:]}" for token in tokens if token.encode() in blob]
    hits += [pattern.pattern.decode() for pattern in PASSWORD_PATTERNS if pattern.search(blob)]
    return hits


def main():
    parser = suite_parser(__doc__)
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("leaks")

    with Server(binaries) as server:
        demo = Profile(binaries, server)
        alice = Profile(binaries, server, home=demo.home, extra_env={"BRADOS_PROFILE": "alice"})
        try:
            logs = []
            tokens = set()
            for profile, user, email in [(demo, "demo", "demo@example.com"), (alice, "alice", "alice@example.com")]:
                for extra in ([], ["--service", "supabase"]):
                    name = email if extra else user
                    result = profile.run("auth", "login", *extra, "--user", name, "--password-stdin", "--verbose",
                                         stdin=user + "\n", env={"BRADOS_LOG": "trace"})
                    logs.append(("auth login " + name, result.stdout + result.stderr))
                    if result.returncode != 0:
                        tally.fail(f"login {name}: {result.stderr.strip()}")
                tokens |= secrets(profile)
                for round_index in range(2):
                    if round_index == 1:
                        server.admin("POST", "/_admin/expire-tokens")  # every command renews its token
                    for command in COMMANDS:
                        for flags, env in (["--verbose"], {}), ([], {"BRADOS_LOG": "trace"}):
                            result = profile.run(*command, *flags, env=env)
                            logs.append((" ".join(command + flags), result.stdout + result.stderr))
                            tokens |= secrets(profile)
            tally.figures["tokens tracked"] = len(tokens)
            if len(tokens) < 4:
                tally.fail(f"only {len(tokens)} tokens found in the credentials: the scan would prove nothing")

            # Logs.
            for what, text in logs:
                hits = scan(text.encode(), tokens)
                if hits:
                    tally.fail(f"log of `brados {what}` contains {hits}")
                else:
                    tally.ok()

            # Cache and data files, and their modes.
            scanned = 0
            for path, reason in modes_problems(os.path.join(demo.home, "config")):
                tally.fail(f"{os.path.relpath(path, demo.home)}: {reason}")
            for root in ("cache", "data"):
                for path in files_under(os.path.join(demo.home, root)):
                    with open(path, "rb") as handle:
                        hits = scan(handle.read(), tokens)
                    scanned += 1
                    if hits:
                        tally.fail(f"{os.path.relpath(path, demo.home)} contains {hits}")
                for path, reason in modes_problems(os.path.join(demo.home, root)):
                    tally.fail(f"{os.path.relpath(path, demo.home)}: {reason}")
            tally.ok(scanned)
            tally.figures["files scanned"] = scanned

            # An archive of everything (tar.gz, so python reads it without zstd).
            archive = os.path.join(demo.home, "backup.tar.gz")
            demo.must("cache", "export", "--format", "tar.gz", "-o", archive)
            members = 0
            with tarfile.open(archive, "r:gz") as tar:
                for member in tar.getmembers():
                    members += 1
                    blob = member.name.encode()
                    if member.isfile():
                        blob += tar.extractfile(member).read()
                    hits = scan(blob, tokens)
                    if hits:
                        tally.fail(f"archive member {member.name} contains {hits}")
            mode = os.stat(archive).st_mode & 0o777
            if mode & 0o077:
                tally.fail(f"the archive is readable by others: {oct(mode)}")
            tally.ok(members)
            tally.figures["archive members scanned"] = members
            os.remove(archive)

            # Logout: nothing of demo's remains; alice's data is untouched.
            alice_before = {root: tree_digest(os.path.join(demo.home, root, "users", "alice")) for root in ("cache", "data")}
            demo_bytes = sum(os.path.getsize(p) for root in ("cache", "data")
                             for p in files_under(os.path.join(demo.home, root, "users", "default")))
            tally.figures["demo bytes before logout"] = demo_bytes
            result = demo.run("auth", "logout")
            if result.returncode != 0:
                tally.fail(f"auth logout: {result.stderr.strip()}")
            remaining = []
            for path in files_under(demo.home):
                relative = os.path.relpath(path, demo.home)
                if "/users/alice/" in "/" + relative or "credentials/alice" in relative:
                    continue
                with open(path, "rb") as handle:
                    blob = handle.read()
                if relative.startswith(("cache/users/default", "data/users/default")) or scan(blob, tokens):
                    remaining.append((relative, len(blob)))
            left = sum(size for _, size in remaining)
            tally.figures["bytes left after logout"] = left
            if remaining:
                tally.fail(f"after logout, demo's data remains: {remaining[:5]}")
            else:
                tally.ok()
            alice_after = {root: tree_digest(os.path.join(demo.home, root, "users", "alice")) for root in ("cache", "data")}
            if alice_after != alice_before or not alice_after["cache"]:
                tally.fail("alice's caches changed (or were empty) when demo logged out")
            else:
                tally.ok()
        finally:
            demo.remove()

    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
