#!/usr/bin/env python3
"""Refresh interval: in scripts (stdout not a terminal, or --json) `visits list` and `library
albums` print the cache and start a detached background revalidation (`brados visits
revalidate`, `brados library revalidate`), at most one per domain per
`visits.min-refresh-interval` / `library.min-refresh-interval` (default 30 s; env
BRADOS_VISITS_MIN_REFRESH_INTERVAL, BRADOS_LIBRARY_MIN_REFRESH_INTERVAL).

1. With the default interval: --calls scripted `visits list --json` in a tight loop, then the
   same for `library albums --json`; once the detached children have finished, the server
   must have seen at least one revalidation and at most ceil(elapsed / 30 s) + 1.
2. With the interval at --interval seconds (env): one call every so often for --spread
   seconds: at least 2 revalidations (an interval, not "once ever") and at most
   ceil(elapsed / interval) + 1.

A revalidation is counted by its first request (`GET /api/visits`; `GET /library/sections`
for the library), calibrated against one `revalidate` run by hand. Every call must exit 0
with one JSON document on stdout.

Figures: revalidations per --calls scripted calls, per domain (goal 1), and in phase 2.

    python3 reliability/refresh_interval.py [--calls 100] [--spread 6] [--interval 2] [--build-dir .build] [--configuration debug]
"""
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally, corrupt_files  # noqa: E402

DEFAULT_INTERVAL = 30.0
# domain: (the scripted command, the hidden background command, the stats key of its first
# request, the environment variable of the interval)
DOMAINS = {
    "visits": (["visits", "list", "--json"], ["visits", "revalidate"], "GET /api/visits",
               "BRADOS_VISITS_MIN_REFRESH_INTERVAL"),
    "library": (["library", "albums", "--json"], ["library", "revalidate"], "GET /library/sections",
                "BRADOS_LIBRARY_MIN_REFRESH_INTERVAL"),
}


def brados_processes(home, brados):
    """Process ids of the `brados` processes running on this BRADOS_HOME (detached children
    included), found through /proc."""
    pids = []
    marker = f"BRADOS_HOME={home}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.path.realpath(f"/proc/{entry}/exe") != os.path.realpath(brados):
                continue
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker in handle.read().split(b"\0"):
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


def settle(profile, server, timeout=60):
    """Waits until no brados runs on the profile (the detached revalidations have ended)
    and the server's request count has stopped moving for a second."""
    deadline = time.monotonic() + timeout
    last = None
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        total = server.admin("GET", "/_admin/stats")["total"]
        if total != last:
            last, quiet_since = total, time.monotonic()
        if not brados_processes(profile.home, profile.binaries.brados) and time.monotonic() - quiet_since >= 1.0:
            return True
        time.sleep(0.1)
    return False


def requests(server, key):
    return server.admin("GET", "/_admin/stats")["byRoute"].get(key, 0)


class RefreshInterval:
    """One run of the suite: the signed-in profile, the server, the tally, the first requests
    per revalidation (calibrated) and the revalidations counted per domain in each phase.
    Each phase is a method, run in the order of the docstring."""

    def __init__(self, options, tally, server, profile):
        self.options = options
        self.tally = tally
        self.server = server
        self.profile = profile
        self.per_revalidation = {}  # domain: the first requests one revalidation makes
        self.per_calls = {}         # domain: revalidations in phase 1
        self.spread = {}            # domain: revalidations in phase 2

    def calibrate(self):
        """Caches in place; then one revalidation by hand: how many first requests it makes
        (1 expected)."""
        profile, server = self.profile, self.server
        for command, _, _, _ in DOMAINS.values():
            profile.must(*command, "--refresh")          # caches in place, no background work
        for domain, (_, background, key, _) in DOMAINS.items():
            settle(profile, server)
            server.admin("DELETE", "/_admin/stats")
            profile.must(*background)
            settle(profile, server)
            self.per_revalidation[domain] = max(1, requests(server, key))

    def measure(self, domain, calls, pause, env):
        """`calls` scripted calls, `pause` seconds apart; returns (revalidations, elapsed)."""
        profile, server, tally = self.profile, self.server, self.tally
        command, _, key, _ = DOMAINS[domain]
        if not settle(profile, server):
            tally.fail(f"{domain}: brados processes still running before the loop")
        server.admin("DELETE", "/_admin/stats")
        failed = []
        started = time.monotonic()
        for index in range(calls):
            if pause:
                time.sleep(max(0.0, started + index * pause - time.monotonic()))
            result = profile.run(*command, env=env)
            if result.returncode != 0:
                failed.append(f"exit {result.returncode}: {result.stderr.strip()[:200]}")
                continue
            try:
                json.loads(result.stdout)
            except ValueError as error:
                failed.append(f"stdout is not one JSON document: {error}")
        elapsed = time.monotonic() - started
        if not settle(profile, server):
            tally.fail(f"{domain}: background revalidations still running 60 s after the loop")
        for problem in failed[:3]:
            tally.fail(f"`{' '.join(command)}`: {problem}")
        if len(failed) > 3:
            tally.fail(f"`{' '.join(command)}`: {len(failed) - 3} more calls failed")
        return requests(server, key) / self.per_revalidation[domain], elapsed

    def default_interval(self):
        """1. The default interval (30 s), a tight loop."""
        calls, tally = self.options.calls, self.tally
        for domain in DOMAINS:
            count, elapsed = self.measure(domain, calls, 0, None)
            allowed = math.ceil(elapsed / DEFAULT_INTERVAL) + 1
            self.per_calls[domain] = round(count, 2)
            print(f"  {domain}: {calls} scripted calls in {elapsed:.1f} s, {count:g} background "
                  f"revalidations (allowed 1 to {allowed})", flush=True)
            if count > allowed:
                tally.fail(f"{domain}: {count:g} revalidations for {calls} scripted calls in {elapsed:.1f} s "
                           f"with the default {DEFAULT_INTERVAL:.0f} s interval (at most {allowed})")
            elif count < 1:
                tally.fail(f"{domain}: no background revalidation at all for {calls} scripted calls")
            else:
                tally.ok()

    def short_interval(self):
        """2. A short interval (env), calls spread out: one per interval, not one ever."""
        interval, tally = self.options.interval, self.tally
        calls = max(8, int(self.options.spread / interval * 8))
        pause = self.options.spread / calls
        for domain, (_, _, _, variable) in DOMAINS.items():
            count, elapsed = self.measure(domain, calls, pause, {variable: f"{interval:g}s"})
            allowed = math.ceil(elapsed / interval) + 1
            self.spread[domain] = round(count, 2)
            print(f"  {domain}: {calls} calls over {elapsed:.1f} s at a {interval:g} s interval, "
                  f"{count:g} revalidations (allowed 2 to {allowed})", flush=True)
            if count > allowed:
                tally.fail(f"{domain}: {count:g} revalidations in {elapsed:.1f} s with a {interval:g} s "
                           f"interval ({variable}) (at most {allowed})")
            elif count < 2:
                tally.fail(f"{domain}: {count:g} revalidation(s) in {elapsed:.1f} s with a {interval:g} s "
                           f"interval ({variable}): expected at least 2 (an interval, not once ever)")
            else:
                tally.ok()

    def check_files(self):
        """After the loops: every JSON file parses and every database passes integrity_check."""
        problems = [f"{path}: {reason}" for path, reason in corrupt_files(self.profile.home)]
        if problems:
            self.tally.fail(f"after the loops: {problems[:3]}")
        else:
            self.tally.ok()

    def figures(self):
        """The suite's figures, into the tally."""
        options = self.options
        self.tally.figures[f"revalidations per {options.calls} scripted calls"] = ", ".join(
            f"{domain} {count:g}" for domain, count in self.per_calls.items())
        self.tally.figures[f"revalidations in {options.spread:g} s at a {options.interval:g} s interval"] = ", ".join(
            f"{domain} {count:g}" for domain, count in self.spread.items())


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--calls", type=int, default=100, help="scripted calls per domain in the tight loop")
    parser.add_argument("--spread", type=float, default=10.0, help="seconds phase 2 spreads its calls over")
    parser.add_argument("--interval", type=float, default=2.0, help="the min-refresh-interval of phase 2, seconds")
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("refresh interval")

    with Server(binaries) as server:
        profile = Profile(binaries, server)
        suite = RefreshInterval(options, tally, server, profile)
        try:
            profile.login()
            suite.calibrate()
            suite.default_interval()
            suite.short_interval()
            suite.check_files()
        finally:
            profile.remove()

    suite.figures()
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
