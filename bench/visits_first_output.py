#!/usr/bin/env python3
"""Time to first output of `brados visits list` with a valid cache while the server adds
2 s of latency (issue 4's benchmark). Goal: < 50 ms.

Measures, over repeated runs after a warm-up, the time from spawning `brados visits list`
to the first byte on its stdout:
  - script:      stdout is a pipe (one JSON document; revalidation goes to the background)
  - interactive: stdout is a pseudo-terminal (the cached list prints first; the check for
                 changes runs in the background, so the prompt comes back: total time reported too)

    python3 bench/visits_first_output.py [--runs 30] [--latency-ms 2000] [--no-build]
"""
import argparse
import os
import pty
import select
import statistics
import subprocess
import time

from common import admin, binaries, build_options, server_with_home  # bench/common.py



def first_byte(args, env, tty):
    """(seconds to the first stdout byte, seconds to exit)."""
    if tty:
        master, slave = pty.openpty()
        out_read, out_write = master, slave
    else:
        out_read, out_write = os.pipe()
    devnull = os.open(os.devnull, os.O_WRONLY)
    start = time.perf_counter()
    pid = os.posix_spawn(args[0], args, env, file_actions=[
        (os.POSIX_SPAWN_DUP2, out_write, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    os.close(out_write)
    os.close(devnull)
    ready, _, _ = select.select([out_read], [], [], 30)
    first = time.perf_counter() - start
    if not ready:
        raise SystemExit("no output within 30 s")
    while True:  # drain until the command closes stdout
        try:
            chunk = os.read(out_read, 65536)
        except OSError:
            break
        if not chunk:
            break
    os.waitpid(pid, 0)
    total = time.perf_counter() - start
    os.close(out_read)
    return first, total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--latency-ms", type=int, default=2000)
    parser.add_argument("--interactive-runs", type=int, default=5)
    build_options(parser)
    options = parser.parse_args()

    bin_dir = binaries(options)
    brados = os.path.join(bin_dir, "brados")
    server, home = server_with_home(bin_dir, "brados-bench-")
    try:
        url = server.url
        env = {"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": home, "BRADOS_SERVER": url, "HOME": home, "TERM": "xterm"}
        subprocess.run([brados, "auth", "login", "--user", "demo", "--password-stdin"], input=b"demo", env=env,
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([brados, "visits", "list"], env=env, check=True, stdout=subprocess.DEVNULL)  # fill the cache
        admin(url, "POST", "/_admin/faults", {"match": "*", "latencyMs": options.latency_ms})
        script = []
        for index in range(options.warmup + options.runs):
            first, _ = first_byte([brados, "visits", "list", "--json"], env, tty=False)
            if index >= options.warmup:
                script.append(first)
        interactive_first, interactive_total = [], []
        for _ in range(options.interactive_runs):
            first, total = first_byte([brados, "visits", "list"], env, tty=True)
            interactive_first.append(first)
            interactive_total.append(total)
    finally:
        server.stop()

    def row(name, values):
        return f"| {name} | {statistics.median(values) * 1000:.1f} ms | {min(values) * 1000:.1f} – {max(values) * 1000:.1f} ms |"

    print(f"# visits list: time to first output (cache valid, server latency {options.latency_ms} ms, {os.cpu_count()} cores)\n")
    print("| case | median | min – max |")
    print("|---|---|---|")
    print(row(f"script (pipe, --json), first byte, {options.runs} runs", script))
    print(row(f"interactive (pty), first byte, {options.interactive_runs} runs", interactive_first))
    print(row(f"interactive (pty), until exit (the prompt back)", interactive_total))
    print()
    median = statistics.median(script) * 1000
    print(f"- goal < 50 ms to first output: {'met' if median < 50 and statistics.median(interactive_first) * 1000 < 50 else 'NOT met'} "
          f"({median:.1f} ms script, {statistics.median(interactive_first) * 1000:.1f} ms interactive)")


if __name__ == "__main__":
    main()
