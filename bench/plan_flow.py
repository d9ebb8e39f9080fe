#!/usr/bin/env python3
"""Spec 004's figures for `brados plan` (issue 43): a disk-cache hit under 10 ms and a whole
generate-and-show flow under 2 s, side by side with a warm `mealplan show`.

Starts a `brados-server` on loopback (its plan rate limit off: the benchmark generates far
more than 20 plans a minute; `--latency-ms` adds latency to every request, 0 by default),
signs a profile in, then alternates over rounds after a warm-up (rotating the order):

  - warm `plan show`: the plan from the disk cache, whole process (checked: 0 requests)
  - warm `mealplan show`: the peer, the same kind of read in another domain
  - cold `plan show`: no cache, so generate (`POST /v1/plans/generate`), weights, validate, cache, show
  - `plan weight KG`: the spec's flow: queue, `PUT /auth/profile`, forced recompute, show the change

and, in process (`brados-bench plan-cache-read`), the disk-cache hit itself: a new cache
(an empty memory tier, as in a new process) reading and decoding plan.json.

    python3 bench/plan_flow.py [--runs 30] [--latency-ms 0] [--no-build]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
from common import Server, admin, timed  # bench/common.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--latency-ms", type=int, default=0)
    parser.add_argument("--cache-reads", type=int, default=200, help="in-process disk-cache hits timed")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build", help="SwiftPM scratch path (default .build)")
    options = parser.parse_args()

    if not options.no_build:
        # Release binaries link the Swift runtime statically, as they ship: ~30% faster start-up.
        subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", "PRODUCT="], cwd=ROOT, check=True)
    bin_dir = os.path.join(ROOT, options.build_dir, options.configuration)
    brados = os.path.join(bin_dir, "brados")
    home = tempfile.mkdtemp(prefix="brados-bench-")
    server = Server(os.path.join(bin_dir, "brados-server"), ["--plan-rate-limit", "0"])
    server.homes.append(home)
    try:
        url = server.url
        env = {"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": home, "BRADOS_SERVER": url, "HOME": home}
        subprocess.run([brados, "auth", "login", "--user", "demo", "--password-stdin"], input=b"demo", env=env,
                       check=True, stdout=subprocess.DEVNULL)
        if options.latency_ms:
            admin(url, "POST", "/_admin/faults", {"match": "*", "latencyMs": options.latency_ms})
        plan_folder = os.path.join(home, "cache", "users", "default", "plan")
        plan_file = os.path.join(plan_folder, "plan.json")
        for command in (["plan", "show"], ["mealplan", "show"]):
            subprocess.run([brados] + command, env=env, check=True, stdout=subprocess.DEVNULL)

        requests = {"warm plan show": [], "warm mealplan show": []}

        def warm(command, name):
            def run():
                admin(url, "DELETE", "/_admin/stats")
                elapsed = timed([brados] + command, env)
                requests[name].append(admin(url, "GET", "/_admin/stats")["total"])
                return elapsed
            return run

        def cold_plan():
            if os.path.exists(plan_file):
                os.remove(plan_file)
            return timed([brados, "plan", "show"], env)

        weights = iter(x for _ in range(10**6) for x in ("84.5", "84"))

        def weight_flow():
            return timed([brados, "plan", "weight", next(weights)], env)

        cases = [("warm plan show", warm(["plan", "show"], "warm plan show")),
                 ("warm mealplan show", warm(["mealplan", "show"], "warm mealplan show")),
                 ("cold plan show (generate and show)", cold_plan),
                 ("plan weight (update, forced recompute, show)", weight_flow)]
        samples = {name: [] for name, _ in cases}
        for _ in range(options.warmup):
            for _, run in cases:
                run()
        for values in requests.values():
            values.clear()
        for round_index in range(options.runs):
            order = cases[round_index % len(cases):] + cases[:round_index % len(cases)]
            for name, run in order:
                samples[name].append(run())
        # Leave a cached plan, then time the disk-cache hit in process.
        subprocess.run([brados, "plan", "show"], env=env, check=True, stdout=subprocess.DEVNULL)
        read = json.loads(subprocess.run([os.path.join(bin_dir, "brados-bench"), "plan-cache-read", plan_folder, str(options.cache_reads)],
                                         check=True, capture_output=True, text=True).stdout)
    finally:
        server.stop()

    med = {name: statistics.median(values) for name, values in samples.items()}
    warm_plan, warm_meal = med["warm plan show"], med["warm mealplan show"]
    cold, flow = med["cold plan show (generate and show)"], med["plan weight (update, forced recompute, show)"]
    print(f"# plan: disk-cache hit and generate-and-show flow ({options.runs} alternated runs, server latency "
          f"{options.latency_ms} ms, {os.cpu_count()} cores)\n")
    print("| case | median | min – max | ratio to warm mealplan show |")
    print("|---|---|---|---|")
    for name, values in samples.items():
        print(f"| {name} | {med[name] * 1000:.1f} ms | {min(values) * 1000:.1f} – {max(values) * 1000:.1f} ms | {med[name] / warm_meal:.2f}x |")
    print(f"| disk-cache hit in process (plan.json read and decoded, {read['runs']} reads) | {read['medianSeconds'] * 1000:.3f} ms | "
          f"{read['minSeconds'] * 1000:.3f} – {read['maxSeconds'] * 1000:.3f} ms | |")
    print()
    hit_ok = read["medianSeconds"] < 0.010
    flow_ok = max(cold, flow) < 2.0
    print(f"- disk-cache hit: {read['medianSeconds'] * 1000:.3f} ms in process, {warm_plan * 1000:.1f} ms for the whole `plan show` "
          f"process (goal < 10 ms for the hit: {'met' if hit_ok else 'NOT met'})")
    print(f"- requests per warm run: plan show max {max(requests['warm plan show'])}, mealplan show max "
          f"{max(requests['warm mealplan show'])} (goal 0)")
    print(f"- warm plan show / warm mealplan show: {warm_plan / warm_meal:.2f}x (the same cached read in two domains)")
    print(f"- generate and show: cold plan show {cold * 1000:.0f} ms, weight update flow {flow * 1000:.0f} ms "
          f"(goal < 2 s: {'met' if flow_ok else 'NOT met'}); {cold / warm_plan:.1f}x and {flow / warm_plan:.1f}x a warm plan show")
    ok = hit_ok and flow_ok and max(requests["warm plan show"]) == 0
    print(f"- goals met: {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
