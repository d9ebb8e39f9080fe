#!/usr/bin/env python3
"""Time to the prompt of every read command with a cached copy, as the server gets slower
(issue 53): latency 0 ms, 2 s and 30 s, and a server frozen with SIGSTOP (its socket
accepts connections, nothing answers). Peer: the same command reading its cache with
--offline (a warm read: no socket at all). Goal: within 1.5x the warm read at every latency.

Every copy is made due a refresh first (the TTLs at 1 s and the background refresh
intervals at 0, then past them): the worst case, where each read starts a background
refresh. Each command runs through a pipe (a script: one JSON document or the table) and
in a pseudo-terminal (a person: the prompt comes back when brados exits); the time is from
spawning brados to its exit, output drained. Conditions and commands alternate their
order; leftover background refreshes are stopped between conditions.

    python3 bench/time_to_prompt.py [--runs 5] [--warmup 1] [--no-build]
"""
import argparse
import json
import os
import pty
import select
import signal
import statistics
import subprocess
import time

from common import admin, binaries, build_options, server_with_home, stop_background  # bench/common.py

GOAL = 1.5


def run_to_exit(args, env, tty):
    """Seconds from spawning `args` to its exit, its stdout (a pipe or a pseudo-terminal) drained."""
    if tty:
        out_read, out_write = pty.openpty()
    else:
        out_read, out_write = os.pipe()
    devnull = os.open(os.devnull, os.O_RDWR)
    start = time.perf_counter()
    pid = os.posix_spawn(args[0], args, env, file_actions=[
        (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, out_write, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    os.close(out_write)
    os.close(devnull)
    while True:
        ready, _, _ = select.select([out_read], [], [], 120)
        if not ready:
            os.kill(pid, signal.SIGKILL)
            raise SystemExit(f"{' '.join(args)}: no output or exit within 120 s")
        try:
            chunk = os.read(out_read, 65536)
        except OSError:
            break
        if not chunk:
            break
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    os.close(out_read)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(args)} exited {code}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    build_options(parser)
    options = parser.parse_args()

    bin_dir = binaries(options)
    brados = os.path.join(bin_dir, "brados")
    server, home = server_with_home(bin_dir, "brados-bench-prompt-")
    frozen = False
    try:
        url = server.url
        env = {"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": home, "BRADOS_SERVER": url, "HOME": home, "TERM": "xterm",
               "BRADOS_CREDENTIALS_STORE": "file", "BRADOS_VISITS_TTL": "1s", "BRADOS_PLAN_TTL": "1s", "BRADOS_COACH_CONTEXT_TTL": "1s",
               "BRADOS_VISITS_MIN_REFRESH_INTERVAL": "0s", "BRADOS_LIBRARY_MIN_REFRESH_INTERVAL": "0s",
               "COLUMNS": "120", "LINES": "40"}

        def brados_run(arguments, stdin=None):
            return subprocess.run([brados] + arguments, input=stdin, env=env, check=True, capture_output=True)

        brados_run(["auth", "login", "--user", "demo", "--password-stdin"], b"demo")
        brados_run(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], b"demo")
        conversation = json.loads(brados_run(["coach", "conversations", "--json"]).stdout)["conversations"][0]["id"][:8]
        albums = json.loads(brados_run(["library", "albums", "--json"]).stdout)["albums"]
        album = next(a["ratingKey"] for a in albums if a.get("thumb"))
        visit = json.loads(brados_run(["visits", "list", "--json"]).stdout)["visits"][0]["id"]
        commands = [
            ["mealplan", "show"], ["visits", "list"], ["visits", "show", visit], ["library", "albums"], ["library", "collections"],
            ["library", "show", album, "--art", "none"], ["coach", "conversations"], ["coach", "show", conversation, "--last", "20"],
            ["coach", "context"], ["plan", "show", "--art", "none"], ["today"], ["search", "protein"],
        ]
        for command in commands:  # every cache filled (and the album's details and cover kept)
            brados_run(command + ["--no-pager"])
        time.sleep(1.2)  # every TTL of 1 s passed: each read starts a background refresh
        stop_background(home)

        conditions = [("warm (--offline)", None), ("0 ms", 0), ("2 s", 2000), ("30 s", 30000), ("frozen (SIGSTOP)", "stop")]
        samples = {(name, " ".join(c), mode): [] for name, _ in conditions for c in commands for mode in ("pipe", "tty")}
        for name, latency in conditions:
            admin(url, "DELETE", "/_admin/faults")
            if isinstance(latency, int) and latency > 0:
                admin(url, "POST", "/_admin/faults", {"match": "*", "latencyMs": latency})
            if latency == "stop":
                server.process.send_signal(signal.SIGSTOP)
                frozen = True
            offline = ["--offline"] if latency is None else []
            for round_index in range(options.warmup + options.runs):
                order = commands if round_index % 2 == 0 else list(reversed(commands))
                for command in order:
                    for mode in (("pipe", "tty") if round_index % 2 == 0 else ("tty", "pipe")):
                        elapsed = run_to_exit([brados] + offline + command + ["--no-pager"], env, tty=mode == "tty")
                        if round_index >= options.warmup:
                            samples[(name, " ".join(command), mode)].append(elapsed)
            if frozen:
                stop_background(home)
                server.process.send_signal(signal.SIGCONT)
                frozen = False
            stop_background(home)
    finally:
        if frozen:
            server.process.send_signal(signal.SIGCONT)
        stop_background(home)
        server.stop()

    names = [name for name, _ in conditions]
    print(f"# Time to the prompt with a cached copy due a refresh ({options.runs} runs each, median; {os.cpu_count()} cores)\n")
    print("Each cell: median time from spawning brados to its exit, and its ratio to the same command's warm read "
          "(--offline, no socket). Goal: every ratio at most 1.5x.\n")
    print("| command | mode | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    worst = 0.0
    for command in commands:
        key = " ".join(command)
        for mode in ("pipe", "tty"):
            warm = statistics.median(samples[(names[0], key, mode)])
            cells = [f"{warm * 1000:.0f} ms"]
            for name in names[1:]:
                value = statistics.median(samples[(name, key, mode)])
                ratio = value / warm
                worst = max(worst, ratio)
                cells.append(f"{value * 1000:.0f} ms ({ratio:.2f}x)")
            print(f"| `brados {key}` | {mode} | " + " | ".join(cells) + " |")
    print()
    print(f"- goal: within {GOAL}x the warm read at every latency and frozen: {'met' if worst <= GOAL else 'NOT met'} "
          f"(worst {worst:.2f}x)")


if __name__ == "__main__":
    main()
