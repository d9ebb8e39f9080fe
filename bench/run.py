#!/usr/bin/env python3
"""The benchmark suite: every performance claim, measured side by side with its peer.

Builds the release binaries once (Swift runtime linked statically, as `make release`
ships them), runs every case (each alternates with its peer over rounds after a warm-up
and binds only 127.0.0.1), and writes bench/RESULTS.md: the machine, the date, and for
each case the medians, min-max and the ratio to its peer. Ratios are what we quote.

    python3 bench/run.py                      # make bench: the whole suite (~12 minutes)
    python3 bench/run.py --smoke              # make bench-smoke: seconds-long subset on the debug build
    python3 bench/run.py --cases startup,coach_upsert --no-build --build-dir .build-static

Cases (script: workload vs peer, goal):
  mealplan_warm_read   cached `mealplan show`, server at 200 ms vs cold show and --version: 0 requests, >= 10x cold, <= 1.3x --version
  visits_first_output  `visits list` with a valid cache, server at 2 s: < 50 ms to first byte
  artwork_lru          5,000 blobs, zipf reads, 250 MB cap vs python diskcache: >= 2x get and put, cap never exceeded
  coach_upsert         10,000 messages in one transaction vs python sqlite3 executemany: <= 1.2x
  cache_archive        export of a ~260 MB cache vs tar -czf / tar --zstd; import vs tar -xf
  startup              every read's warm path and exit-codes vs `brados --version` and three hello-worlds: warm mealplan show
                       <= 1.5x, the other reads <= 2x, exit-codes <= 1.3x
  scale                issue 31: refresh and read cost by size (coach 1k-100k messages, library 1k-100k albums)
  today                warm `today` (every domain's section) vs warm `mealplan show`: <= 1.3x, 0 requests
  search               `search` over 100k coach messages and 50k albums, and three times that, vs `rg -i` over the same text in
                       files: seven query classes (rare, medium, commonest word, 1- and 2-letter prefixes, two words, a phrase),
                       each at most rg's time; the rare word within 1.5x --version; 3x the data within 1.2x
  covers               a 1024 px cover in symbols at 80x40 cells: `library show` vs the `chafa` CLI on the same file: <= 30 ms
  follow               issue 45: `coach show --follow` latency (p50, p95) and idle traffic vs a 30 s polling loop and the timer
  time_to_prompt       issue 53: every read with a cached copy due a refresh, server at 0 ms, 2 s, 30 s and frozen (SIGSTOP), through a
                       pipe and a terminal vs the same read --offline: <= 1.5x
  plan_flow            spec 004: the plan's disk-cache hit (< 10 ms) and generate-and-show flows (< 2 s) vs warm `mealplan show`
  calendar_notify      issue 57: `calendar` of a week and of everything cached with 1,000 cached visits vs warm `mealplan show`: <= 1.5x,
                       0 requests; `sync --watch --notify` from a coach message's arrival to its desktop notification: p95 <= 250 ms
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ["mealplan_warm_read", "visits_first_output", "artwork_lru", "coach_upsert", "cache_archive", "startup", "scale", "today", "search",
         "covers", "plan_flow", "follow", "time_to_prompt", "calendar_notify"]
# Small workloads for the smoke run: it checks the harness works, its numbers mean nothing.
SMOKE = {
    "mealplan_warm_read": ["--runs", "3", "--warmup", "1", "--latency-ms", "20"],
    "visits_first_output": ["--runs", "3", "--warmup", "1", "--latency-ms", "200", "--interactive-runs", "1"],
    "artwork_lru": ["--blobs", "200", "--reads", "400", "--cap-mb", "10", "--rounds", "1"],
    "coach_upsert": ["--rows", "500", "--rounds", "1"],
    "startup": ["--runs", "3", "--warmup", "1"],
    "scale": ["--messages", "200,1000", "--conversations", "30", "--albums", "200,500", "--real-albums", "300,600", "--runs", "1"],
    "today": ["--runs", "3", "--warmup", "1"],
    "covers": ["--runs", "3", "--warmup", "1"],
    "search": ["--messages", "2000", "--conversations", "20", "--albums", "1000", "--scales", "1,2", "--runs", "2", "--warmup", "1"],
    "plan_flow": ["--runs", "3", "--warmup", "1", "--cache-reads", "20"],
    "follow": ["--rounds", "5", "--idle", "2", "--runs", "1"],
    "time_to_prompt": ["--runs", "1", "--warmup", "0"],
    "calendar_notify": ["--runs", "3", "--warmup", "1", "--visits", "200", "--rounds", "2"],
}


def machine():
    memory = "?"
    try:
        with open("/proc/meminfo") as handle:
            kilobytes = int(handle.readline().split()[1])
            memory = f"{kilobytes / 1e6:.1f} GB"
    except (OSError, ValueError, IndexError):
        pass
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    return (f"{os.cpu_count()} cores, {memory} memory, {platform.system()} {platform.release()}, "
            f"{swift[0] if swift else 'swift ?'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="a seconds-long subset on the debug build (CI)")
    parser.add_argument("--cases", help="comma-separated subset of: " + ", ".join(CASES))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--output", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    options = parser.parse_args()
    cases = options.cases.split(",") if options.cases else (list(SMOKE) if options.smoke else CASES)
    unknown = [case for case in cases if case not in CASES]
    if unknown:
        sys.exit(f"unknown case(s): {', '.join(unknown)}")
    configuration = "debug" if options.smoke else "release"
    if not options.no_build:
        if options.smoke:
            # The same build as `make test` (with tests), so nothing is compiled twice.
            subprocess.run(["swift", "build", "--build-tests", "--scratch-path", options.build_dir], cwd=ROOT, check=True)
        else:
            for product in ("brados", "brados-server", "brados-bench"):
                subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", f"PRODUCT={product}"], cwd=ROOT, check=True)
    sections = []
    failures = []
    for case in cases:
        started = time.monotonic()
        args = [sys.executable, os.path.join(ROOT, "bench", f"{case}.py"), "--no-build", "--build-dir", options.build_dir,
                "--configuration", configuration] + (SMOKE.get(case, []) if options.smoke else [])
        print(f"bench: {case}…", file=sys.stderr, flush=True)
        result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        if result.returncode != 0:
            failures.append(case)
            sections.append(f"## {case}\n\nFAILED (exit {result.returncode}):\n\n```\n{result.stderr[-2000:]}\n```\n")
            continue
        body = result.stdout.strip()
        if body.startswith("# "):
            body = "##" + body[1:]
        sections.append(f"{body}\n\n_{time.monotonic() - started:.0f} s_\n")
    title = "Benchmark smoke run (debug build; the numbers mean nothing)" if options.smoke else "Benchmark results"
    header = (f"# {title}\n\n- Date: {datetime.date.today().isoformat()}\n- Machine: {machine()}\n"
              f"- Build: {configuration}{', Swift runtime linked statically' if not options.smoke else ''}\n"
              f"- Ratios are to each case's peer; every case alternates with it after a warm-up.\n")
    report = header + "\n" + "\n".join(sections)
    if options.smoke:
        print(report)
    else:
        with open(options.output, "w") as handle:
            handle.write(report)
        print(f"wrote {options.output}", file=sys.stderr)
    if failures:
        sys.exit(f"bench: failed: {', '.join(failures)}")


if __name__ == "__main__":
    main()
