#!/usr/bin/env python3
"""Server faults (issue 11, suite 4): for each domain, with a valid cache in place, the
server answers 500, 502, 503, 504, 429 with Retry-After, too slowly (a timeout), with a
reset connection, a truncated body, invalid JSON, valid JSON of the wrong shape, and (for
the plan) an out-of-range plan. Each must give its documented behaviour: transient faults
are retried (but the plan service's 503, maintenance, which is asked once), then the cache
is served (exit 0, with a warning) or the command fails with
the documented exit code and an error that says what to do; bad data is rejected. Never a
crash or stack trace, never a cache overwritten by bad data.

    python3 reliability/server_faults.py [--build-dir .build] [--configuration debug]
"""
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally, corrupt_files, tree_digest  # noqa: E402


def cache_digest(folder):
    """The domain's cache files, lock files aside (a lock's mtime is not data)."""
    return tree_digest(folder, skip=lambda relative: relative.endswith(".lock") or "/." in "/" + relative)

# (domain, command, route the fault hits, route key in /_admin/stats)
DOMAINS = [
    ("mealplan", ["mealplan", "refresh"], "GET /api/mealplans", "GET /api/mealplans/latest"),
    ("visits", ["visits", "list"], "GET /api/visits", "GET /api/visits"),
    ("library", ["library", "albums", "--refresh"], "GET /library/sections", None),
    ("coach", ["coach", "list"], "GET /rest/v1/conversations", "GET /rest/v1/conversations"),
    ("plan", ["plan", "refresh"], "POST /v1/plans/generate", "POST /v1/plans/generate"),
]
TRANSIENT = {0, 5, 6}          # served from the cache, or: needs network / server failure
RATE_LIMITED = {0, 9}         # served from the cache, or: rate limited
BAD_DATA = {0, 6, 8}           # served from the cache, or: server failure / integrity
CRASH_MARKERS = ("Fatal error", "Stack dump", "Backtrace", "Current stack trace", "SIGSEGV", "SIGILL", "panic")


def faults(plan_body):
    out = [
        ("500", {"status": 500}, TRANSIENT, True),
        ("502", {"status": 502}, TRANSIENT, True),
        ("503", {"status": 503}, TRANSIENT, True),
        ("504", {"status": 504}, TRANSIENT, True),
        ("429 Retry-After", {"status": 429, "retryAfter": 1}, RATE_LIMITED, True),
        ("timeout", {"latencyMs": 2500}, TRANSIENT, True),
        ("reset connection", {"drop": True}, TRANSIENT, True),
        ("truncated body", {"truncate": True}, TRANSIENT | BAD_DATA, None),
        ("invalid JSON", {"body": '{"data": [1, 2,'}, BAD_DATA, None),
        ("wrong shape", {"body": '{"items": "not what you expect", "success": "maybe"}'}, BAD_DATA, None),
        ("empty body", {"body": ""}, BAD_DATA, None),
    ]
    if plan_body:
        out.append(("out-of-range plan", {"body": plan_body}, BAD_DATA, None))
    return out


def out_of_range_plan(profile):
    """A plan response of the right shape whose targets are impossible."""
    path = os.path.join(profile.home, "cache", "users", "default", "plan", "plan.json")
    with open(path) as handle:
        cached = json.load(handle)
    data = copy.deepcopy(cached["data"])
    data["targets"]["calorieTarget"] = -400
    data["targets"]["proteinTarget"] = 90000
    return json.dumps({"success": True, "data": data})


# The CI run's faults (--quick): one of each way a server fails (a 5xx retried, a rate limit,
# a timeout, a cut body, bad data); the whole list in the full run.
QUICK = {"500", "429 Retry-After", "timeout", "truncated body", "invalid JSON", "out-of-range plan"}


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--quick", action="store_true", help="one fault of each kind per domain (the CI run)")
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("server faults")
    outcomes = {}

    with Server(binaries) as server:
        # A 2 s request timeout, a stale visits cache, and reads that wait for the server
        # (refresh.wait; by default a read with a copy leaves the refresh to the background):
        # every command goes to the server in the foreground, where its faults are seen.
        profile = Profile(binaries, server, extra_env={"BRADOS_NETWORK_TIMEOUT": "2s", "BRADOS_VISITS_TTL": "0s", "BRADOS_REFRESH_WAIT": "60s"})
        try:
            profile.login(supabase_email="demo@example.com")
            for _, command, _, _ in DOMAINS:
                profile.must(*command)
            plan_body = out_of_range_plan(profile)
            for domain, command, route, stats_key in DOMAINS:
                cache = os.path.join(profile.home, "cache", "users", "default", domain)
                for name, rule, allowed, retried in faults(plan_body if domain == "plan" else None):
                    if options.quick and name not in QUICK:
                        continue
                    if domain == "plan" and name == "503":
                        retried = False  # the plan service's 503 is maintenance: asked once, never retried (spec 004)
                    before = cache_digest(cache)
                    server.admin("DELETE", "/_admin/stats")
                    server.fault(match=route, **rule)
                    result = profile.run(*command, timeout=180)
                    server.clear_faults()
                    stats = server.admin("GET", "/_admin/stats")["byRoute"]
                    requests = sum(count for key, count in stats.items()
                                   if (stats_key and key == stats_key) or (not stats_key and key.startswith("GET /library")))
                    after = cache_digest(cache)
                    label = f"{domain} / {name}"
                    outcomes[label] = {"exit": result.returncode, "requests": requests}
                    problems = []
                    if result.returncode < 0 or any(marker in result.stderr for marker in CRASH_MARKERS):
                        problems.append(f"crashed: {result.returncode} {result.stderr.strip()[:300]}")
                    if result.returncode not in allowed:
                        problems.append(f"exit {result.returncode}, documented: {sorted(allowed)}; {result.stderr.strip()[:300]}")
                    if result.returncode != 0:
                        lines = result.stderr.strip().splitlines()
                        errors = [line for line in lines if line.startswith("brados:")]
                        if not errors or not any(line.startswith("  ") for line in lines):
                            problems.append(f"the error does not say what happened and what to do: {result.stderr.strip()[:300]}")
                    elif not result.stderr.strip():
                        problems.append("exit 0 without a word that the server failed")
                    if retried and requests < 2:
                        problems.append(f"not retried ({requests} request)")
                    if after != before:
                        changed = sorted(set(after.items()) ^ set(before.items()))
                        problems.append(f"the cache changed: {[path for path, _ in changed][:3]}")
                    problems += [f"{path}: {reason}" for path, reason in corrupt_files(cache)]
                    if problems:
                        tally.fail(f"{label}: {problems}")
                    else:
                        tally.ok()
                # After the faults, the domain works again.
                healed = profile.run(*command)
                if healed.returncode != 0:
                    tally.fail(f"{domain}: fails after the faults are cleared: {healed.stderr.strip()[:200]}")
        finally:
            profile.remove()

    tally.figures["outcomes"] = outcomes
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
