#!/usr/bin/env python3
"""Leaks (issue 11, suite 5): after `auth logout`, 0 bytes of the profile's data remain on
disk (and the other profile's data is untouched); every cache, data and config file is 0600
and every folder 0700; tokens and passwords appear in no log (`--verbose`, `BRADOS_LOG=trace`), no cache
file and no archive.

    python3 reliability/leaks.py [--build-dir .build] [--configuration debug]
"""
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


class Leaks:
    """One run of the suite: the two profiles (demo and alice, one BRADOS_HOME), the logs of
    every command and the tokens seen. The commands run first; each check is a method after
    that, numbered in the order they run (logout last: it removes what the others scan)."""

    def __init__(self, tally, server, demo, alice):
        self.tally = tally
        self.server = server
        self.demo = demo
        self.alice = alice
        self.logs = []  # (what ran, its stdout and stderr)
        self.tokens = set()

    def sign_in_and_run(self):
        """Both profiles sign in to both services and run every command twice (the second
        time after every token expired, so each one renews), with --verbose and with
        BRADOS_LOG=trace; their logs and the tokens in the credentials are kept."""
        profiles = [(self.demo, "demo", "demo@example.com"), (self.alice, "alice", "alice@example.com")]
        for profile, user, email in profiles:
            self.sign_in(profile, user, email)
            for round_index in range(2):
                if round_index == 1:
                    self.server.admin("POST", "/_admin/expire-tokens")  # every command renews its token
                for command in COMMANDS:
                    for flags, env in (["--verbose"], {}), ([], {"BRADOS_LOG": "trace"}):
                        result = profile.run(*command, *flags, env=env)
                        self.logs.append((" ".join(command + flags), result.stdout + result.stderr))
                        self.tokens |= secrets(profile)
        self.tally.figures["tokens tracked"] = len(self.tokens)
        if len(self.tokens) < 4:
            self.tally.fail(f"only {len(self.tokens)} tokens found in the credentials: the scan would prove nothing")

    def sign_in(self, profile, user, email):
        """`auth login` to the BradOS services and to Supabase, logged at trace level."""
        for extra in ([], ["--service", "supabase"]):
            name = email if extra else user
            result = profile.run("auth", "login", *extra, "--user", name, "--password-stdin", "--verbose",
                                 stdin=user + "\n", env={"BRADOS_LOG": "trace"})
            self.logs.append(("auth login " + name, result.stdout + result.stderr))
            if result.returncode != 0:
                self.tally.fail(f"login {name}: {result.stderr.strip()}")
        self.tokens |= secrets(profile)

    def scan_logs(self):
        """1. Logs: no token, no password."""
        for what, text in self.logs:
            hits = scan(text.encode(), self.tokens)
            if hits:
                self.tally.fail(f"log of `brados {what}` contains {hits}")
            else:
                self.tally.ok()

    def scan_files(self):
        """2. Cache and data files: no token, no password; config, cache and data modes 0600/0700."""
        tally, home = self.tally, self.demo.home
        scanned = 0
        for path, reason in modes_problems(os.path.join(home, "config")):
            tally.fail(f"{os.path.relpath(path, home)}: {reason}")
        for root in ("cache", "data"):
            for path in files_under(os.path.join(home, root)):
                with open(path, "rb") as handle:
                    hits = scan(handle.read(), self.tokens)
                scanned += 1
                if hits:
                    tally.fail(f"{os.path.relpath(path, home)} contains {hits}")
            for path, reason in modes_problems(os.path.join(home, root)):
                tally.fail(f"{os.path.relpath(path, home)}: {reason}")
        tally.ok(scanned)
        tally.figures["files scanned"] = scanned

    def scan_archive(self):
        """3. An archive of everything (tar.gz, so python reads it without zstd): no token, no
        password in any member's name or content; not readable by others."""
        tally = self.tally
        archive = os.path.join(self.demo.home, "backup.tar.gz")
        self.demo.must("cache", "export", "--format", "tar.gz", "-o", archive)
        members = 0
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar.getmembers():
                members += 1
                blob = member.name.encode()
                if member.isfile():
                    blob += tar.extractfile(member).read()
                hits = scan(blob, self.tokens)
                if hits:
                    tally.fail(f"archive member {member.name} contains {hits}")
        mode = os.stat(archive).st_mode & 0o777
        if mode & 0o077:
            tally.fail(f"the archive is readable by others: {oct(mode)}")
        tally.ok(members)
        tally.figures["archive members scanned"] = members
        os.remove(archive)

    def alice_digest(self):
        home = self.demo.home
        return {root: tree_digest(os.path.join(home, root, "users", "alice")) for root in ("cache", "data")}

    def logout(self):
        """4. Logout: nothing of demo's remains; alice's data is untouched."""
        tally, home = self.tally, self.demo.home
        alice_before = self.alice_digest()
        demo_bytes = sum(os.path.getsize(p) for root in ("cache", "data")
                         for p in files_under(os.path.join(home, root, "users", "default")))
        tally.figures["demo bytes before logout"] = demo_bytes
        result = self.demo.run("auth", "logout")
        if result.returncode != 0:
            tally.fail(f"auth logout: {result.stderr.strip()}")
        remaining = []
        for path in files_under(home):
            relative = os.path.relpath(path, home)
            if "/users/alice/" in "/" + relative or "credentials/alice" in relative:
                continue
            with open(path, "rb") as handle:
                blob = handle.read()
            if relative.startswith(("cache/users/default", "data/users/default")) or scan(blob, self.tokens):
                remaining.append((relative, len(blob)))
        left = sum(size for _, size in remaining)
        tally.figures["bytes left after logout"] = left
        if remaining:
            tally.fail(f"after logout, demo's data remains: {remaining[:5]}")
        else:
            tally.ok()
        alice_after = self.alice_digest()
        if alice_after != alice_before or not alice_after["cache"]:
            tally.fail("alice's caches changed (or were empty) when demo logged out")
        else:
            tally.ok()


def main():
    parser = suite_parser(__doc__)
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("leaks")

    with Server(binaries) as server:
        demo = Profile(binaries, server)
        alice = Profile(binaries, server, home=demo.home, extra_env={"BRADOS_PROFILE": "alice"})
        suite = Leaks(tally, server, demo, alice)
        try:
            suite.sign_in_and_run()
            suite.scan_logs()
            suite.scan_files()
            suite.scan_archive()
            suite.logout()
        finally:
            demo.remove()

    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
