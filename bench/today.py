#!/usr/bin/env python3
"""Warm `brados today` vs warm `brados mealplan show`: one screen across every domain costs at
most 1.3x the one domain's cached read.

Starts a `brados-server` on loopback (the default demo seed; it stops with this process), signs a fresh
profile in (api and supabase) and fills the caches today reads: `mealplan show`, `visits
list`, `coach conversations`, `plan show`. Then runs the two commands in alternation (which
goes first alternates each round, after a warm-up), as plain warm runs (no --offline), and
reports whole-process wall-time medians, min-max and the ratio. Through /_admin/stats it checks
that neither makes a request.
Goal: today / mealplan show <= 1.3x.

    python3 bench/today.py [--runs 30] [--warmup 3] [--no-build] [--configuration release] [--build-dir .build]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from common import Server, admin, timed  # bench/common.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build", help="SwiftPM scratch path (default .build)")
    options = parser.parse_args()

    if not options.no_build:
        for product in ("brados", "brados-server"):
            subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", f"PRODUCT={product}"], cwd=ROOT, check=True)
    bin_dir = os.path.join(ROOT, options.build_dir, options.configuration)
    brados = os.path.join(bin_dir, "brados")
    server = Server(os.path.join(bin_dir, "brados-server"), [])
    url = server.url
    home = tempfile.mkdtemp(prefix="brados-bench-")
    server.homes.append(home)
    try:
        env = {"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": home, "BRADOS_SERVER": url, "HOME": home, "BRADOS_LIBRARY_PREFETCH": "false"}
        for login in (["--user", "demo"], ["--service", "supabase", "--user", "demo@example.com"]):
            subprocess.run([brados, "auth", "login", *login, "--password-stdin"], input=b"demo", env=env, check=True, stdout=subprocess.DEVNULL)
        for command in (["mealplan", "show"], ["visits", "list"], ["coach", "conversations"], ["plan", "show"]):
            subprocess.run([brados] + command, env=env, check=True, stdout=subprocess.DEVNULL)
        # Every domain today shows must come from its cache, not a "nothing cached" line.
        screen = json.loads(subprocess.run([brados, "today", "--json"], env=env, check=True, capture_output=True, text=True).stdout)
        empty = [domain for domain, section in screen.items() if not section.get("cached")]
        if empty:
            sys.exit(f"`brados today` has nothing cached for: {', '.join(empty)}")
        # A visits revalidation left behind by `visits list` must not land in a timed run.
        time.sleep(0.5)

        commands = {"brados today": [brados, "today"], "brados mealplan show": [brados, "mealplan", "show"]}
        samples = {name: [] for name in commands}
        requests = {name: [] for name in commands}
        for round_index in range(options.warmup + options.runs):
            order = list(commands) if round_index % 2 == 0 else list(reversed(commands))
            for name in order:
                admin(url, "DELETE", "/_admin/stats")
                elapsed = timed(commands[name], env)
                made = admin(url, "GET", "/_admin/stats")["total"]
                if round_index >= options.warmup:
                    samples[name].append(elapsed)
                    requests[name].append(made)
    finally:
        server.stop()

    med = {name: statistics.median(values) for name, values in samples.items()}
    ratio = med["brados today"] / med["brados mealplan show"]
    most = max(max(made) for made in requests.values())
    print(f"# today: warm `brados today` vs warm `brados mealplan show` ({options.configuration}, {options.runs} alternated runs "
          f"after {options.warmup}, {os.cpu_count()} cores)\n")
    print(f"- today's domains, all from their caches: {', '.join(sorted(screen))}\n")
    print("| case | median | min – max | requests per run |")
    print("|---|---|---|---|")
    for name, values in samples.items():
        print(f"| {name} | {med[name] * 1000:.1f} ms | {min(values) * 1000:.1f} – {max(values) * 1000:.1f} ms | max {max(requests[name])} |")
    print()
    print(f"- today / mealplan show: {ratio:.2f}x (goal <= 1.3x): {'met' if ratio <= 1.3 else 'NOT met'}")
    print(f"- requests per warm run: max {most} (goal 0): {'met' if most == 0 else 'NOT met'}")


if __name__ == "__main__":
    main()
