#!/usr/bin/env python3
"""Start-up: `brados --help` vs a Swift hello-world that imports Foundation (issue 10).

Both are built the same way (release, Swift runtime linked statically). Runs alternate
(A B A B ...) after a warm-up; medians, min-max and the ratio are reported.
Goal: <= 1.2x the hello-world.

    python3 bench/startup.py [--runs 40] [--no-build] [--build-dir DIR] [--configuration release]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(args, env):
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - start


def build_peers(options):
    """The peer, a Swift hello-world built the default way for the configuration (release:
    optimized, Swift runtime static, as brados ships); and, for transparency, the same source
    linked the way a release brados is (fixed address, no exported symbols; see Package.swift).
    Kept per configuration: a debug peer is never timed as a release one."""
    hello_dir = os.path.join(ROOT, options.build_dir, "bench-hello", options.configuration)
    source = os.path.join(ROOT, "bench", "hello", "main.swift")
    hello, hello_fixed = os.path.join(hello_dir, "hello"), os.path.join(hello_dir, "hello-fixed-address")
    link_like_brados = ["-Xlinker", "--no-export-dynamic", "-Xlinker", "-no-pie"]
    flags = ["-O", "-static-stdlib"] if options.configuration == "release" else ["-Onone"]
    for binary, extra in [(hello, []), (hello_fixed, link_like_brados)]:
        if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
            os.makedirs(hello_dir, exist_ok=True)
            subprocess.run(["swiftc", *flags, *extra, source, "-o", binary], check=True, stderr=subprocess.DEVNULL)
    return hello, hello_fixed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--peer-only", action="store_true",
                        help="build the hello-world peer for --configuration and print its path (packaging/check-package.sh)")
    options = parser.parse_args()
    if options.peer_only:
        print(build_peers(options)[0])
        return
    if not options.no_build:
        subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", "PRODUCT=brados"], cwd=ROOT, check=True)
    brados = os.path.join(ROOT, options.build_dir, options.configuration, "brados")
    hello, hello_fixed = build_peers(options)
    with tempfile.TemporaryDirectory() as home:
        env = {"HOME": home, "BRADOS_HOME": home, "PATH": "/usr/bin:/bin"}
        commands = {
            "brados --help": [brados, "--help"],
            "brados --version": [brados, "--version"],
            "brados auth --help (full parse)": [brados, "auth", "--help"],
            "hello-world (Foundation)": [hello],
            "hello-world linked like brados": [hello_fixed],
        }
        for _ in range(options.warmup):
            for args in commands.values():
                timed(args, env)
        runs = {name: [] for name in commands}
        for index in range(options.runs):
            order = list(commands) if index % 2 == 0 else list(reversed(commands))
            for name in order:
                runs[name].append(timed(commands[name], env))
    peer = statistics.median(runs["hello-world (Foundation)"])
    print(f"# start-up: {options.runs} alternated runs after a warm-up of {options.warmup}, {os.cpu_count()} cores\n")
    print("| command | median ms (min-max) | ratio to hello-world | goal |")
    print("|---|---|---|---|")
    for name, samples in runs.items():
        goal = "<= 1.2x" if name == "brados --help" else ""
        print(f"| {name} | {statistics.median(samples) * 1000:.1f} ({min(samples) * 1000:.1f}-{max(samples) * 1000:.1f}) | "
              f"{statistics.median(samples) / peer:.2f}x | {goal} |")


if __name__ == "__main__":
    main()
