#!/usr/bin/env python3
"""Warm vs cold `brados mealplan show`, and vs `brados --version` (issue 3's benchmark).

Starts a release `brados-server` on loopback that adds 200 ms to every request, signs a
profile in, then runs the three cases in alternation (rotating order each round, after a
warm-up) and reports whole-process wall-time medians, min-max and ratios. It also checks,
through /_admin/stats, that warm runs make zero requests.

    python3 bench/mealplan_warm_read.py [--runs 30] [--latency-ms 200] [--no-build]
"""
import argparse
import os
import statistics
import subprocess
from common import admin, binaries, build_options, server_with_home, timed  # bench/common.py



def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--latency-ms", type=int, default=200)
    build_options(parser)
    options = parser.parse_args()

    bin_dir = binaries(options)
    brados = os.path.join(bin_dir, "brados")
    server, home = server_with_home(bin_dir, "brados-bench-")
    try:
        url = server.url
        env = {"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": home, "BRADOS_SERVER": url, "HOME": home}
        subprocess.run([brados, "auth", "login", "--user", "demo", "--password-stdin"], input=b"demo", env=env,
                       check=True, stdout=subprocess.DEVNULL)
        admin(url, "POST", "/_admin/faults", {"match": "*", "latencyMs": options.latency_ms})
        cache_file = subprocess.run([brados, "mealplan", "path"], env=env, capture_output=True, text=True).stdout.strip()

        def cold():
            if os.path.exists(cache_file):
                os.remove(cache_file)
            return timed([brados, "mealplan", "show"], env)

        def warm():
            if not os.path.exists(cache_file):
                subprocess.run([brados, "mealplan", "show"], env=env, check=True, stdout=subprocess.DEVNULL)
            admin(url, "DELETE", "/_admin/stats")
            elapsed = timed([brados, "mealplan", "show"], env)
            requests = admin(url, "GET", "/_admin/stats")["total"]
            warm.requests.append(requests)
            return elapsed
        warm.requests = []

        def version():
            return timed([brados, "--version"], env)

        def parsed_version():
            # The same answer through the argument parser, as every real command is parsed.
            return timed([brados, "--offline", "--version"], env)

        cases = [("cold mealplan show", cold), ("warm mealplan show", warm), ("brados --version", version),
                 ("brados --offline --version (parsed)", parsed_version)]
        samples = {name: [] for name, _ in cases}
        for _ in range(options.warmup):
            for _, run in cases:
                run()
        warm.requests.clear()
        for round_index in range(options.runs):
            order = cases[round_index % len(cases):] + cases[:round_index % len(cases)]
            for name, run in order:
                samples[name].append(run())
    finally:
        server.stop()

    med = {name: statistics.median(values) for name, values in samples.items()}
    print(f"# mealplan warm read ({options.runs} alternated runs, server latency {options.latency_ms} ms, {os.cpu_count()} cores)\n")
    print("| case | median | min – max |")
    print("|---|---|---|")
    for name, values in samples.items():
        print(f"| {name} | {med[name] * 1000:.1f} ms | {min(values) * 1000:.1f} – {max(values) * 1000:.1f} ms |")
    print()
    print(f"- requests per warm run: max {max(warm.requests)} (goal 0)")
    print(f"- cold / warm: {med['cold mealplan show'] / med['warm mealplan show']:.1f}x (goal >= 10x)")
    print(f"- warm / --version: {med['warm mealplan show'] / med['brados --version']:.2f}x (goal <= 1.3x)")
    print(f"- warm / parsed --version: {med['warm mealplan show'] / med['brados --offline --version (parsed)']:.2f}x "
          "(`brados --version` alone skips the argument parser; every command pays for it)")
    ok = max(warm.requests) == 0 and med['cold mealplan show'] / med['warm mealplan show'] >= 10 and \
        med['warm mealplan show'] / med['brados --version'] <= 1.3
    print(f"- goals met: {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
