#!/usr/bin/env python3
"""Two brados binaries side by side: stripped size, Swift protocol conformance records, and
the start-up of a command that reads nothing (`brados exit-codes`), runs alternating (A B A B
...) after a warm-up; medians, min-max and the ratio A/B.

What the embedded demo backend costs the client (issue 56, docs/ARCHITECTURE.md): A is a
release brados, B the same tree built once without the reference server (a throw-away
build: BradOSServer dropped from BradOSCLI's dependencies, `embedded: nil` in BradosMain).
Also used for "no worse than before": A the new build, B the previous commit's.

    python3 bench/binary_cost.py A B [--label-a with] [--label-b without] [--runs 60] [--command exit-codes]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time


def stripped_size(binary):
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "stripped")
        subprocess.run(["strip", "-o", out, binary], check=True)
        return os.path.getsize(out)


def section_size(binary, name):
    lines = subprocess.run(["readelf", "-S", "-W", binary], capture_output=True, text=True, check=True).stdout.splitlines()
    for line in lines:
        parts = line.replace("[ ", "[").split()
        if name in parts:
            index = parts.index(name)
            return int(parts[index + 4], 16)  # Name Type Address Off Size
    return 0


def timed(command, env):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--label-a", default="A")
    parser.add_argument("--label-b", default="B")
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--command", default="exit-codes")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        # A home of its own: nothing configured, nothing read.
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "BRADOS_HOME": home, "LANG": "C.UTF-8"}
        args = options.command.split()
        for _ in range(3):
            timed([options.a, *args], env)
            timed([options.b, *args], env)
        times = {options.a: [], options.b: []}
        ratios = []
        for _ in range(options.runs):
            a = timed([options.a, *args], env)
            b = timed([options.b, *args], env)
            times[options.a].append(a)
            times[options.b].append(b)
            ratios.append(a / b)
    print(f"| | {options.label_a} | {options.label_b} | {options.label_a}/{options.label_b} |")
    print("|---|---|---|---|")
    size_a, size_b = stripped_size(options.a), stripped_size(options.b)
    print(f"| stripped size | {size_a / 1e6:.1f} MB | {size_b / 1e6:.1f} MB | {size_a / size_b:.3f} |")
    conf_a = section_size(options.a, "swift5_protocol_conformances") // 4
    conf_b = section_size(options.b, "swift5_protocol_conformances") // 4
    print(f"| protocol conformance records | {conf_a:,} | {conf_b:,} | {conf_a / max(conf_b, 1):.3f} |")
    text_a, text_b = section_size(options.a, ".text"), section_size(options.b, ".text")
    print(f"| .text | {text_a / 1e6:.1f} MB | {text_b / 1e6:.1f} MB | {text_a / max(text_b, 1):.3f} |")

    def spread(values):
        return f"{statistics.median(values) * 1000:.2f} ms ({min(values) * 1000:.2f}-{max(values) * 1000:.2f})"
    print(f"| `brados {options.command}` ({options.runs} runs each, alternating) | {spread(times[options.a])} | "
          f"{spread(times[options.b])} | {statistics.median(ratios):.3f} |")


if __name__ == "__main__":
    main()
