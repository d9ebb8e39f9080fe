#!/usr/bin/env python3
"""Start-up: every read command's warm path against `brados --version` and three hello-worlds
(issues 10 and 69).

The peers: a C hello-world (`cc -O2`), a Swift hello-world with the runtime linked statically,
and one that imports Foundation (bench/hello/main.swift), built as a release brados is (release:
optimized, Swift runtime static); for transparency the Foundation one also linked the way a
release brados is (fixed address, no exported symbols). The brados commands run in a new home
whose caches the built-in demo backend filled once (no server configured, credentials in a
file): `mealplan show` as it is (a finalized plan is never fetched again), the other reads
`--offline`, so no run is a refresh. Runs alternate (forward, then backward) after a warm-up;
medians, min-max and each command's ratio to `brados --version` are reported.

Goals (issue 69): warm `mealplan show` <= 1.5x `--version`; every other read <= 2x; `exit-codes`
<= 1.3x. `--check-ratio R` exits 1 when warm `mealplan show` is more than R times `--version`
(bench-smoke's guard: a ratio, never a time).

    python3 bench/startup.py [--runs 40] [--warmup 3] [--no-build] [--build-dir DIR] [--configuration release]
                             [--check-ratio 2.0]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from common import stop_background, timed  # bench/common.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOALS = {"warm `mealplan show`": 1.5, "`exit-codes` (prints a table)": 1.3}
READ_GOAL = 2.0


def build_peers(options):
    """The peers, built the default way for the configuration (release: optimized, Swift runtime
    static, as brados ships), and the Foundation one also linked the way a release brados is
    (fixed address, no exported symbols; see Package.swift). Kept per configuration: a debug
    peer is never timed as a release one. Returns their paths by name."""
    hello_dir = os.path.join(ROOT, options.build_dir, "bench-hello", options.configuration)
    os.makedirs(hello_dir, exist_ok=True)
    source = os.path.join(ROOT, "bench", "hello", "main.swift")
    release = options.configuration == "release"
    flags = ["-O", "-static-stdlib"] if release else ["-Onone"]
    link_like_brados = ["-Xlinker", "--no-export-dynamic", "-Xlinker", "-no-pie"]
    peers = {}

    def fresh(binary, inputs):
        return os.path.exists(binary) and all(os.path.getmtime(binary) >= os.path.getmtime(path) for path in inputs)

    for name, extra in [("hello", []), ("hello-fixed-address", link_like_brados)]:
        binary = os.path.join(hello_dir, name)
        if not fresh(binary, [source]):
            subprocess.run(["swiftc", *flags, *extra, source, "-o", binary], check=True, stderr=subprocess.DEVNULL)
        peers[name] = binary
    # The two peers written here: (name, source file, its text, the compiler's command).
    for name, file, text, compiler in [
        ("hello-swift", "plain.swift", 'print("Hello")\n', ["swiftc", *flags]),
        ("hello-c", "hello.c", '#include <stdio.h>\nint main(void) { puts("Hello"); return 0; }\n', ["cc", "-O2"]),
    ]:
        written = os.path.join(hello_dir, file)
        if not os.path.exists(written):
            with open(written, "w") as handle:
                handle.write(text)
        binary = os.path.join(hello_dir, name)
        if not fresh(binary, [written]):
            subprocess.run([*compiler, written, "-o", binary], check=True, stderr=subprocess.DEVNULL)
        peers[name] = binary
    return peers


def warm_home(brados, home):
    """Fills a new home's caches from the demo backend; returns its environment and a
    conversation id."""
    # No artwork prefetch after the first load: it runs on in the background, into the home.
    env = {"HOME": home, "BRADOS_HOME": home, "PATH": "/usr/bin:/bin", "BRADOS_CREDENTIALS_STORE": "file",
           "BRADOS_LIBRARY_PREFETCH": "false"}

    def run(*arguments):
        result = subprocess.run([brados, *arguments], env=env, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"brados {' '.join(arguments)} failed with {result.returncode}: {result.stderr[-500:]}")
        return result.stdout

    run("mealplan", "show")
    run("visits", "list")
    # The smallest conversation: `coach show` prints every message, and this measures the start-up.
    items = json.loads(run("coach", "conversations", "--json"))["conversations"]
    smallest = min(items, key=lambda item: item.get("messageCount") or 0)
    conversation = str(smallest["id"])
    run("coach", "show", conversation)
    run("library", "albums")
    run("plan", "show")
    run("--offline", "search", "breakfast")
    return env, conversation, smallest.get("messageCount")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--check-ratio", type=float, help="exit 1 when warm `mealplan show` is more than this times `--version`")
    parser.add_argument("--peer-only", action="store_true",
                        help="build the hello-world peer for --configuration and print its path (packaging/check-package.sh)")
    options = parser.parse_args()
    if options.peer_only:
        print(build_peers(options)["hello"])
        return 0
    if not options.no_build:
        subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", "PRODUCT=brados"], cwd=ROOT, check=True)
    brados = os.path.join(ROOT, options.build_dir, options.configuration, "brados")
    peers = build_peers(options)
    with tempfile.TemporaryDirectory(prefix="brados-startup-") as home:
        env, conversation, messages = warm_home(brados, home)
        commands = {
            "C hello-world": [peers["hello-c"]],
            "Swift hello-world, static runtime": [peers["hello-swift"]],
            "Swift + Foundation hello-world (bench/hello)": [peers["hello"]],
            "the same, linked like brados": [peers["hello-fixed-address"]],
            "`brados --version`": [brados, "--version"],
            "`brados --help`": [brados, "--help"],
            "`exit-codes` (prints a table)": [brados, "exit-codes"],
            "warm `mealplan show`": [brados, "mealplan", "show"],
            "`--offline visits list`": [brados, "--offline", "visits", "list"],
            "`--offline today`": [brados, "--offline", "today"],
            f"`--offline coach show ID` ({messages} messages)": [brados, "--offline", "coach", "show", conversation],
            "`--offline library albums`": [brados, "--offline", "library", "albums"],
            "`--offline plan show`": [brados, "--offline", "plan", "show"],
            "`--offline search breakfast`": [brados, "--offline", "search", "breakfast"],
        }
        for _ in range(options.warmup):
            for args in commands.values():
                timed(args, env)
        runs = {name: [] for name in commands}
        for index in range(options.runs):
            order = list(commands) if index % 2 == 0 else list(reversed(commands))
            for name in order:
                runs[name].append(timed(commands[name], env))
        # A background refresh the warm-up's online reads started may still write into the home.
        stop_background(home)
    medians = {name: statistics.median(samples) for name, samples in runs.items()}
    version = medians["`brados --version`"]
    peers_end = list(commands).index("`brados --version`")
    print(f"# start-up: {options.runs} alternated runs after a warm-up of {options.warmup}, {os.cpu_count()} cores\n")
    print("| command | median ms (min-max) | x `brados --version` | goal | met |")
    print("|---|---|---|---|---|")
    unmet = []
    for position, (name, samples) in enumerate(runs.items()):
        ratio = medians[name] / version
        goal = GOALS.get(name, READ_GOAL if name.startswith("`--offline") else None)
        met = "" if goal is None else ("yes" if ratio <= goal else "no")
        if met == "no":
            unmet.append(name)
        ratio_cell = "" if position < peers_end else f"{ratio:.2f}x"
        print(f"| {name} | {medians[name] * 1000:.1f} ({min(samples) * 1000:.1f}-{max(samples) * 1000:.1f}) | {ratio_cell} | "
              f"{'' if goal is None else f'<= {goal}x'} | {met} |")
    print(f"\n- goals met: {'yes' if not unmet else 'no (' + ', '.join(unmet) + ')'}")
    if options.check_ratio is not None:
        ratio = medians["warm `mealplan show`"] / version
        if ratio > options.check_ratio:
            print(f"startup: warm `mealplan show` is {ratio:.2f}x `brados --version`, over {options.check_ratio}x", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
