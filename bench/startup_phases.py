#!/usr/bin/env python3
"""Where a brados process's start-up goes, by phase (issue 69).

Profiles each command with `perf record` (cpu-clock at 20 kHz, call graphs, user and
kernel) over --runs runs, then splits the samples of the brados process by phase, each
phase being the samples under a marker function (the innermost marker on the stack wins, so
the environment a command builds counts as the environment, not as the command):

- dynamic loading: the dynamic linker mapping and relocating libraries (`_dl_start`)
- static initialisers: ELF constructors run before main, Foundation's and ICU's (`_dl_init`)
- the composition: the plugin list and the features (`Registry.plugins`, `Composition.init`)
- argument parsing: swift-argument-parser from the arguments to a command
  (`CommandRunner.parse`, `quickAnswer`)
- the environment: configuration, profile, paths, credentials (`AppEnvironment.init`)
- output: writes to stdout and stderr (`StandardIO.write`)
- the command: its task's jobs (`run()`), less the environment and output
- the runtime's conformance scans (`swift_conformsToProtocol*`): counted where they are, and
  again as their own line across the phases
- threads: samples on other threads under no marker (dispatch, the concurrency pool)
- exit: `exit` and its handlers
- the rest: the kernel's exec, page faults outside a phase, and whatever no marker holds

The machine here has no hardware counters in its virtual CPU, so this counts time samples
rather than instructions; callgrind cannot run a process whose signal thread sits in
sigsuspend (valgrind 3.19).

    python3 bench/startup_phases.py [--runs 20] [--build-dir .build] [--configuration release]
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (phase, regular expression over a frame's mangled or plain symbol), outermost first.
PHASES = [
    ("exit", r"^(exit|__run_exit_handlers|_exit)$"),
    ("dynamic loading", r"^(_dl_start|_dl_start_final|_dl_sysdep_start|dl_main|_dl_relocate_object|_dl_map_object.*)$"),
    ("static initialisers", r"^(_dl_init|call_init|__libc_csu_init|_init)$"),
    ("the composition", r"Registry.*plugins|CompositionV.*plugins.*features.*embedded|8RegistryO"),
    ("argument parsing", r"parseAsRoot|CommandRunnerO5parse|CommandRunnerO11quickAnswer"),
    ("the environment", r"AppEnvironmentV4live|AppEnvironmentV2io5flags"),
    ("output", r"StandardIOV.*write|StandardIOC.*write"),
    # The command's task (its jobs), or the thread it ran on before it ran on the main one.
    ("the command", r"swift_job_run|CommandRunnerO7execute|CommandRunnerO20executeSynchronously"),
]
SCAN = re.compile(r"swift_conformsToProtocol")


def record(binary, arguments, env, runs, out):
    for index in range(runs):
        data = f"{out}.{index}"
        subprocess.run(["perf", "record", "-q", "-F", "20000", "-g", "-o", data, "--", binary, *arguments],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        yield data


def stacks(data):
    """Each sample as (thread name, is main thread, frames from outermost to innermost)."""
    text = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,ip,sym", "--no-demangle"],
                          capture_output=True, text=True).stdout
    for block in text.strip().split("\n\n"):
        lines = block.strip().splitlines()
        if not lines:
            continue
        head = lines[0].split()
        comm, ids = head[0], head[1] if len(head) > 1 else "0/0"
        pid, _, tid = ids.partition("/")
        frames = []
        for line in lines[1:]:
            parts = line.strip().split(None, 1)
            frames.append(parts[1].split("+0x")[0] if len(parts) > 1 else "[unknown]")
        yield comm, pid == tid, list(reversed(frames))


def split(datas):
    counts = collections.Counter()
    scans = 0
    total = 0
    for data in datas:
        for comm, main_thread, frames in stacks(data):
            total += 1
            if any(SCAN.search(frame) for frame in frames):
                scans += 1
            phase = "the rest (exec, page faults outside a phase, unmarked)" if main_thread else \
                "threads (dispatch, the Swift concurrency pool)"
            for frame in reversed(frames):
                match = next((name for name, pattern in PHASES if re.search(pattern, frame)), None)
                if match:
                    phase = match
                    break
            counts[phase] += 1
        os.remove(data)
    return counts, scans, total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--configuration", default="release")
    parser.add_argument("--home", help="a BRADOS_HOME with warm caches (default: a new one, filled by the demo backend)")
    options = parser.parse_args()
    binary = os.path.join(ROOT, options.build_dir, options.configuration, "brados")
    home = options.home or tempfile.mkdtemp(prefix="brados-phases-")
    env = {"HOME": home, "BRADOS_HOME": home, "PATH": "/usr/bin:/bin", "BRADOS_CREDENTIALS_STORE": "file"}
    if not options.home:
        for warm in (["mealplan", "show"], ["visits", "list"]):
            subprocess.run([binary, *warm], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    commands = [["--version"], ["exit-codes"], ["mealplan", "show"]]
    names = [name for name, _ in PHASES] + ["threads (dispatch, the Swift concurrency pool)",
                                            "the rest (exec, page faults outside a phase, unmarked)"]
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for arguments in commands:
            results[" ".join(arguments)] = split(record(binary, arguments, env, options.runs, os.path.join(scratch, "perf")))
    print(f"# start-up by phase: perf cpu-clock samples at 20 kHz, {options.runs} runs each, {os.cpu_count()} cores\n")
    print("| phase | " + " | ".join(f"`brados {name}`" for name in results) + " |")
    print("|---|" + "---|" * len(results))
    for name in names:
        cells = []
        for counts, _, total in results.values():
            cells.append(f"{counts[name] / options.runs / 20:.2f} ms ({100 * counts[name] / max(total, 1):.0f} %)")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| all samples | " + " | ".join(f"{total / options.runs / 20:.2f} ms" for _, _, total in results.values()) + " |")
    print("| of which conformance scans | " + " | ".join(f"{scans / options.runs / 20:.2f} ms ({100 * scans / max(total, 1):.0f} %)"
                                                   for _, scans, total in results.values()) + " |")


if __name__ == "__main__":
    sys.exit(main())
