#!/usr/bin/env python3
"""Concurrency (issue 11, suite 2): 8 `brados` processes at once, 50 artwork fetches each,
under a 20 MB cap; 4 concurrent `plan sync` over one queue; 4 concurrent token refreshes
with single-use refresh tokens (both services). Goals: the cap held after every command,
the index consistent with the files on disk, no queued change replayed twice, no spurious
sign-out, 0 errors.

    python3 reliability/concurrency.py [--processes 8] [--fetches 50] [--build-dir .build] [--configuration debug]
"""
import json
import os
import random
import sqlite3
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally, corrupt_files  # noqa: E402
from crash_safety import artwork_problems  # noqa: E402

CAP = 20_000_000


def indexed_bytes(profile):
    index = os.path.join(profile.home, "cache", "users", "default", "library", "artwork", "index.sqlite")
    if not os.path.exists(index):
        return 0
    connection = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=30)
    try:
        return connection.execute("SELECT bytes FROM total").fetchone()[0]
    except sqlite3.OperationalError as error:
        # The first `library artwork` of the race may have created the file and not yet run
        # its migrations: a database with no schema yet holds no artwork.
        if "no such table" in str(error):
            return 0
        raise
    finally:
        connection.close()


def run_all(jobs):
    """Runs the callables at once; returns their results in order."""
    results = [None] * len(jobs)
    def work(index, job):
        results[index] = job()
    threads = [threading.Thread(target=work, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


class Concurrency:
    """One run of the suite: the signed-in profile (its artwork capped at 20 MB), the server
    and the tally. Each race is a method, run in the order of the docstring."""

    def __init__(self, options, tally, server, profile):
        self.options = options
        self.tally = tally
        self.server = server
        self.profile = profile
        self.albums = []
        self.over_cap = []  # the index's total after a fetch, whenever it was over the cap

    def artwork(self):
        """1. Artwork: --processes processes x --fetches fetches of random albums at both
        sizes, 20 MB cap: the cap held after every fetch and the index matches the files."""
        options, tally = self.options, self.tally
        listing = json.loads(self.profile.must("library", "albums", "--json").stdout)
        self.albums = [a["ratingKey"] for a in listing["albums"]]
        batches = run_all([lambda s=s: self.fetcher(s) for s in range(options.processes)])
        errors = [e for batch in batches for e in batch]
        fetches = options.processes * options.fetches
        tally.figures["artwork fetches"] = fetches
        tally.figures["peak indexed bytes"] = max([indexed_bytes(self.profile)] + self.over_cap)
        for error in errors:
            tally.fail(f"artwork fetch: {error}")
        tally.ok(fetches - len(errors) - 1)
        if self.over_cap:
            tally.fail(f"the cap was exceeded after {len(self.over_cap)} commands (max {max(self.over_cap)} bytes)")
        self.check_artwork_index()

    def fetcher(self, seed):
        """One process's fetches (its own random sequence, from `seed`); returns their errors."""
        rng = random.Random(seed)
        errors = []
        for _ in range(self.options.fetches):
            size = rng.choice(["1024", "2048"])
            result = self.profile.run("library", "artwork", rng.choice(self.albums), "--size", size)
            if result.returncode != 0:
                errors.append(result.stderr.strip()[:200])
            total = indexed_bytes(self.profile)
            if total > CAP:
                self.over_cap.append(total)
        return errors

    def check_artwork_index(self):
        """After the race: the index is intact, matches the files and their bytes are under the cap."""
        profile, tally = self.profile, self.tally
        problems = artwork_problems(profile) + [f"{p}: {r}" for p, r in corrupt_files(profile.home)]
        root = os.path.join(profile.home, "cache", "users", "default", "library", "artwork")
        on_disk = sum(os.path.getsize(os.path.join(folder, name)) for bucket in ("1024", "2048")
                      for folder, _, names in os.walk(os.path.join(root, bucket)) for name in names)
        tally.figures["bytes on disk"] = on_disk
        if on_disk > CAP:
            problems.append(f"{on_disk} bytes of artwork on disk, over the cap")
        if on_disk != indexed_bytes(profile):
            problems.append(f"{on_disk} bytes on disk, {indexed_bytes(profile)} in the index")
        if problems:
            tally.fail(f"artwork index after the race: {problems[:3]}")
        else:
            tally.ok()

    def plan_sync(self):
        """2. plan sync: 4 at once over one queue; each queued change is sent exactly once."""
        profile, server, tally = self.profile, self.server, self.tally
        replayed_twice = 0
        for round_index in range(self.options.rounds):
            weights = [80.0 + round_index + step / 10 for step in range(3)]
            for weight in weights:
                profile.must("plan", "weight", f"{weight}", "--offline", "--yes")
            server.admin("DELETE", "/_admin/stats")
            results = run_all([lambda: profile.run("plan", "sync")] * 4)
            stats = server.admin("GET", "/_admin/stats")["byRoute"]
            sent = sum(count for key, count in stats.items() if key.startswith("PUT /auth/profile"))
            for result in results:
                if result.returncode != 0:
                    tally.fail(f"plan sync: exit {result.returncode}: {result.stderr.strip()[:200]}")
                else:
                    tally.ok()
            if sent != len(weights):
                replayed_twice += max(0, sent - len(weights))
                tally.fail(f"round {round_index}: {len(weights)} queued changes, {sent} sent")
            pending = json.loads(profile.must("plan", "pending", "--json").stdout)["pending"]
            if pending:
                tally.fail(f"round {round_index}: {len(pending)} changes still queued after sync")
        tally.figures["replayed twice"] = replayed_twice

    def token_refresh(self):
        """3. Token refresh: every access token expires, 4 commands renew at once (single-use
        refresh tokens), for each service; nobody is signed out."""
        profile, tally = self.profile, self.tally
        for _ in range(self.options.rounds):
            for service, command in (("api", ["visits", "list"]), ("supabase", ["coach", "list"])):
                self.server.admin("POST", "/_admin/expire-tokens")
                results = run_all([lambda c=command: profile.run(*c, env={"BRADOS_VISITS_TTL": "0s"})] * 4)
                for result in results:
                    if result.returncode != 0:
                        tally.fail(f"{service} refresh race: exit {result.returncode}: {result.stderr.strip()[:200]}")
                    else:
                        tally.ok()
                status = profile.run("auth", "status", "--check")
                if status.returncode != 0:
                    tally.fail(f"{service}: signed out after the refresh race: {status.stderr.strip()[:200]}")
                else:
                    tally.ok()


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--fetches", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the plan-sync and token-refresh races")
    parser.add_argument("--seed", type=int, default=2)
    options = parser.parse_args()
    random.seed(options.seed)
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("concurrency")

    with Server(binaries) as server:
        profile = Profile(binaries, server, extra_env={"BRADOS_LIBRARY_ARTWORK_CAP": "20MB"})
        suite = Concurrency(options, tally, server, profile)
        try:
            profile.login(supabase_email="demo@example.com")
            suite.artwork()
            suite.plan_sync()
            suite.token_refresh()
        finally:
            profile.remove()

    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
