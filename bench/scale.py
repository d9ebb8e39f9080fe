#!/usr/bin/env python3
"""Scale (issue 31): what a refresh and a read cost as the data grow.

For each size, a brados-server seeded at that size (`--seed-messages`, `--seed-conversations`,
`--seed-albums`) and a fresh profile; for each case the server's requests and response bytes
(/_admin/stats), the wall time and the peak RSS (ru_maxrss of the brados process, forked by a
small helper: Linux carries the forking process's high-water mark into the child, so forking
from this script would report the script's own size):

coach, one conversation of N messages (--messages) and one user with --conversations conversations:
  - `coach show ID`: the first download; a refresh with nothing changed; with 10 changes
    (4 new messages, 2 late ones with an older created_at, 4 deleted); and `--full`, which is
    what every refresh cost before the delta path (all of it downloaded again)
  - `coach conversations`: the same four, with 10 changes (4 new conversations, 3 renamed, 3 deleted)
  - warm reads from the copy (--offline): `coach show ID --last 20` (the first screen) and all of it,
    with the time until its first message is out (a whole conversation is printed as it is read)
library, N albums (--albums):
  - `library albums --refresh`: the first download; nothing changed; 10 changes (4 added,
    2 retitled, 3 deleted, 1 touched by Plex with nothing changed); and `--full`, which is
    what every refresh cost before
  - warm reads from the store (--offline): `library albums --limit 50` (the first screen), a page
    in the middle (`--offset N/2`), and everything (`--json` and the table), with the time until
    the first album of `--json` is out (a whole listing is printed as it is read)

library with real-shaped albums (--real-albums: every field a real Plex sends, ~650-760 bytes
each in JSON), N albums added as a bulk import leaves them (all in one second) and as a scan
does (4 a second), changes stamped with the server's time now:
  - bulk: the first download; 8 changes (5 retitled, 3 added); 2 deleted inside the import's
    second (which no count can split); `--full`
  - scan: the first download; 10 changes (5 deleted, 3 added, 2 retitled); `--full`

Growth is the largest size's figure over the smallest's. Goals (issue 31): nothing changed ->
a constant number of requests (coach: <= 2 for the list, <= 2 per conversation) and <= 4 KB;
k changes -> O(k) rows; a warm first screen at 100k <= 20 ms and <= 1.5x its time at 1k.

    python3 bench/scale.py [--messages 1000,10000,100000] [--conversations 1000] [--albums 1000,10000,100000]
                           [--real-albums 10000,40000]
                           [--runs 5] [--no-build] [--configuration release] [--build-dir .build]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from common import Server  # bench/common.py: the seeded server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USER = "8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11"


# Forks and runs the command, then writes "exit seconds maxrss-KB" to argv[1].
RUNNER = r"""
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(sys.argv[1], "w") as handle:
    handle.write(f"{os.waitstatus_to_exitcode(status)} {seconds} {usage.ru_maxrss}")
"""


class Brados:
    def __init__(self, binary, server):
        self.binary = binary
        self.home = tempfile.mkdtemp(prefix="brados-scale-")
        server.homes.append(self.home)
        # No background prefetch after a load: its artwork requests would count in the next case's figures.
        self.env = dict(os.environ, BRADOS_HOME=self.home, HOME=self.home, BRADOS_SERVER=server.url, NO_COLOR="1",
                        BRADOS_LIBRARY_PREFETCH="false")
        self.env.pop("BRADOS_OFFLINE", None)

    def run(self, arguments, stdin=None):
        """(stdout, seconds, peak RSS in MB)."""
        figures = os.path.join(self.home, ".figures")
        result = subprocess.run([sys.executable, "-c", RUNNER, figures, self.binary] + arguments, env=self.env,
                                input=(stdin or "").encode(), capture_output=True)
        with open(figures) as handle:
            code, seconds, rss = handle.read().split()
        if int(code) != 0:
            raise SystemExit(f"brados {' '.join(arguments)} exited {code}: {result.stderr.decode()[-500:]}")
        return result.stdout.decode(), float(seconds), int(rss) / 1024


def measure(server, brados, arguments, runs=1):
    """requests, bytes, median ms, max RSS MB of `runs` runs (each from the same state)."""
    times, rss, traffic = [], [], []
    for _ in range(runs):
        server.reset()
        _, seconds, peak = brados.run(arguments)
        traffic.append(server.traffic())
        times.append(seconds * 1000)
        rss.append(peak)
    return {"requests": max(t[0] for t in traffic), "bytes": max(t[1] for t in traffic),
            "ms": statistics.median(times), "rss": max(rss)}


def first_row(brados, arguments, runs, marker):
    """Median ms until a listing's first row is out (its first line holding `marker`)."""
    times = []
    for _ in range(runs):
        started = time.monotonic()
        process = subprocess.Popen([brados.binary] + arguments, env=brados.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        first = None
        for line in process.stdout:
            if first is None and marker in line:
                first = time.monotonic() - started
        process.wait()
        times.append((first if first is not None else time.monotonic() - started) * 1000)
    return {"requests": 0, "bytes": 0, "ms": statistics.median(times), "rss": 0}


def coach(binaries, size, conversations, runs):
    server = Server(binaries["server"], ["--seed-messages", str(size), "--seed-conversations", str(conversations)])
    try:
        brados = Brados(binaries["brados"], server)
        brados.run(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], stdin="demo")
        conversation = server.sql("SELECT conversation_id FROM messages WHERE user_id = ? GROUP BY conversation_id ORDER BY COUNT(*) DESC LIMIT 1",
                                  USER)[0][0]
        # The refresh cases show the first screen (--last 20), so what they cost is the refresh's.
        show = ["coach", "show", conversation, "--last", "20", "--json"]
        listing = ["coach", "conversations", "--json"]
        figures = {}
        figures["show: first download"] = measure(server, brados, show)
        figures["show: nothing changed"] = measure(server, brados, show, runs)
        newest = server.sql("SELECT MAX(created_at) FROM messages WHERE conversation_id = ?", conversation)[0][0]
        for n in range(4):
            server.sql("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) VALUES (?, ?, ?, 'assistant', ?, ?)",
                       f"22222222-0000-4000-8000-{n:012d}", conversation, USER, f"new message {n}", newest + 60 + n)
        for n in range(2):
            server.sql("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) VALUES (?, ?, ?, 'user', ?, ?)",
                       f"33333333-0000-4000-8000-{n:012d}", conversation, USER, f"late message {n}", newest - 3600 - n)
        server.sql("DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE conversation_id = ? ORDER BY created_at LIMIT 4 OFFSET 10)",
                   conversation)
        figures["show: 10 changes"] = measure(server, brados, show)
        figures["show --full (every refresh before)"] = measure(server, brados, show + ["--full"], runs)
        figures["list: first download"] = measure(server, brados, listing)
        figures["list: nothing changed"] = measure(server, brados, listing, runs)
        stamp = server.sql("SELECT MAX(updated_at) FROM conversations")[0][0]
        for n in range(4):
            server.sql("INSERT INTO conversations (id, user_id, title, domain, last_message_at, message_count, created_at, updated_at) "
                       "VALUES (?, ?, ?, 'general', NULL, 0, ?, ?)", f"44444444-0000-4000-8000-{n:012d}", USER, f"new {n}", stamp + 1 + n, stamp + 1 + n)
        server.sql("UPDATE conversations SET title = title || ' (renamed)', updated_at = ? WHERE id IN "
                   "(SELECT id FROM conversations WHERE user_id = ? ORDER BY id LIMIT 3 OFFSET 5)", stamp + 10, USER)
        server.sql("DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE user_id = ? AND id <> ? ORDER BY id DESC LIMIT 3)",
                   USER, conversation)
        figures["list: 10 changes"] = measure(server, brados, listing)
        figures["list --full (every refresh before)"] = measure(server, brados, listing + ["--full"], runs)
        figures["warm: show --last 20"] = measure(server, brados, ["--offline", "coach", "show", conversation, "--last", "20"], runs)
        figures["warm: show (all)"] = measure(server, brados, ["--offline", "coach", "show", conversation, "--json"], runs)
        figures["warm: show (all), first message out"] = first_row(brados, ["--offline", "coach", "show", conversation, "--json"], runs, b'"role"')
        return figures
    finally:
        server.stop()


def library(binaries, size, runs):
    server = Server(binaries["server"], ["--seed-albums", str(size)])
    try:
        brados = Brados(binaries["brados"], server)
        brados.run(["auth", "login", "--user", "demo", "--password-stdin"], stdin="demo")
        figures = {}
        # The refresh cases show the first screen (--limit 50), so what they cost is the refresh's.
        figures["albums: first download"] = measure(server, brados, ["library", "albums", "--refresh", "--limit", "50", "--json"])
        figures["albums --refresh: nothing changed"] = measure(server, brados, ["library", "albums", "--refresh", "--limit", "50", "--json"], runs)
        keys = [album["ratingKey"] for album in json.loads(brados.run(["--offline", "library", "albums", "--json"])[0])["albums"]]
        server.admin("POST", "/_admin/plex", {
            "at": 1_900_000_000,
            "add": [{"ratingKey": str(990_000 + n), "title": f"Added {n}", "artist": "Air", "year": 2024, "addedAt": 1_650_000_000 + n * 1_000_000}
                    for n in range(4)],
            "retitle": {keys[len(keys) // 3]: "Retitled", keys[len(keys) // 2]: "Retitled too"},
            "delete": [keys[5], keys[len(keys) // 4], keys[-7]],
            "touch": [keys[len(keys) // 5]],
        })
        figures["albums --refresh: 10 changes (3 deleted)"] = measure(server, brados, ["library", "albums", "--refresh", "--limit", "50", "--json"])
        figures["albums --refresh --full (every refresh before)"] = measure(server, brados, ["library", "albums", "--refresh", "--full", "--limit", "50", "--json"], min(runs, 3))
        figures["warm: albums --limit 50 (first screen)"] = measure(server, brados, ["--offline", "library", "albums", "--limit", "50"], runs)
        figures["warm: albums --limit 50, a page in the middle"] = measure(
            server, brados, ["--offline", "library", "albums", "--limit", "50", "--offset", str(size // 2)], runs)
        figures["warm: albums --json (all)"] = measure(server, brados, ["--offline", "library", "albums", "--json"], runs)
        figures["warm: albums --json (all), first album out"] = first_row(brados, ["--offline", "library", "albums", "--json"], runs, b'"ratingKey"')
        figures["warm: albums (all, table)"] = measure(server, brados, ["--offline", "library", "albums"], runs)
        return figures
    finally:
        server.stop()


def real_library(binaries, size, shape, runs):
    """Real-shaped albums added `shape` = "bulk" (all in one second) or "scan" (4 a second)."""
    per_second = size if shape == "bulk" else 4
    server = Server(binaries["server"], ["--seed-albums", str(size), "--seed-albums-per-second", str(per_second), "--real-albums"])
    try:
        brados = Brados(binaries["brados"], server)
        brados.run(["auth", "login", "--user", "demo", "--password-stdin"], stdin="demo")
        refresh = ["library", "albums", "--refresh", "--limit", "50", "--json"]
        figures = {"first download": measure(server, brados, refresh)}
        keys = [album["ratingKey"] for album in json.loads(brados.run(["--offline", "library", "albums", "--json"])[0])["albums"]]
        adds = [{"ratingKey": str(990_000 + n), "title": f"Added {n}", "artist": "Air", "year": 2024} for n in range(3)]
        if shape == "bulk":
            server.admin("POST", "/_admin/plex", {"at": int(time.time()), "add": adds,
                                                  "retitle": {keys[len(keys) * n // 5]: f"Retitled {n}" for n in range(5)}})
            figures["8 changes (5 retitled, 3 added)"] = measure(server, brados, refresh)
            server.admin("POST", "/_admin/plex", {"at": int(time.time()), "delete": [keys[7], keys[len(keys) // 2]]})
            figures["2 deleted in the import's second"] = measure(server, brados, refresh)
        else:
            server.admin("POST", "/_admin/plex", {"at": int(time.time()), "add": adds,
                                                  "delete": [keys[len(keys) * n // 5 + 3] for n in range(5)],
                                                  "retitle": {keys[11]: "Retitled", keys[-11]: "Retitled too"}})
            figures["10 changes (5 deleted, 3 added, 2 retitled)"] = measure(server, brados, refresh)
        figures["--full (starting over)"] = measure(server, brados, ["library", "albums", "--refresh", "--full", "--limit", "50", "--json"], min(runs, 3))
        return figures
    finally:
        server.stop()


def table(title, sizes, results, unit):
    cases = list(results[sizes[0]].keys())
    lines = [f"### {title}", "", "| case | " + " | ".join(f"{size:,} {unit}" for size in sizes) + " | growth |",
             "|---|" + "---|" * (len(sizes) + 1)]
    for case in cases:
        cells = []
        for size in sizes:
            figure = results[size][case]
            cells.append(f"{figure['requests']} req, {figure['bytes'] / 1024:,.1f} KB, {figure['ms']:.0f} ms, {figure['rss']:.0f} MB")
        first, last = results[sizes[0]][case], results[sizes[-1]][case]
        growth = [f"req {last['requests'] / max(first['requests'], 1):.1f}x", f"time {last['ms'] / max(first['ms'], 0.001):.2f}x"]
        lines.append(f"| {case} | " + " | ".join(cells) + " | " + ", ".join(growth) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", default="1000,10000,100000")
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--albums", default="1000,10000,100000")
    parser.add_argument("--real-albums", default="10000,40000", help="sizes of the real-shaped bulk and scan libraries")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release")
    parser.add_argument("--build-dir", default=".build")
    options = parser.parse_args()
    if not options.no_build:
        for product in ("brados", "brados-server"):
            subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", f"PRODUCT={product}"], cwd=ROOT, check=True)
    directory = os.path.join(ROOT, options.build_dir, options.configuration)
    binaries = {"brados": os.path.join(directory, "brados"), "server": os.path.join(directory, "brados-server")}

    message_sizes = [int(size) for size in options.messages.split(",") if size]
    album_sizes = [int(size) for size in options.albums.split(",") if size]
    coach_results = {size: coach(binaries, size, options.conversations, options.runs) for size in message_sizes}
    library_results = {size: library(binaries, size, options.runs) for size in album_sizes}
    real_sizes = [int(size) for size in options.real_albums.split(",") if size]
    bulk_results = {size: real_library(binaries, size, "bulk", options.runs) for size in real_sizes}
    scan_results = {size: real_library(binaries, size, "scan", options.runs) for size in real_sizes}

    unchanged = [coach_results[size][case] for size in message_sizes for case in ("show: nothing changed", "list: nothing changed")]
    goals = {
        "coach refresh, nothing changed: <= 2 requests and <= 4 KB at every size":
            all(figure["requests"] <= 2 and figure["bytes"] <= 4096 for figure in unchanged),
        "coach refresh, 10 changes: bytes grow with the changes, not the size (largest <= 1.5x smallest)":
            all(coach_results[message_sizes[-1]][case]["bytes"] <= 1.5 * coach_results[message_sizes[0]][case]["bytes"]
                for case in ("show: 10 changes", "list: 10 changes")),
        "coach warm first screen: <= 20 ms at the largest size and <= 1.5x the smallest":
            coach_results[message_sizes[-1]]["warm: show --last 20"]["ms"] <= 20
            and coach_results[message_sizes[-1]]["warm: show --last 20"]["ms"] <= 1.5 * coach_results[message_sizes[0]]["warm: show --last 20"]["ms"],
        "library refresh, nothing changed: <= 2 requests and <= 4 KB at every size":
            all(library_results[size]["albums --refresh: nothing changed"]["requests"] <= 2
                and library_results[size]["albums --refresh: nothing changed"]["bytes"] <= 4096 for size in album_sizes),
        "library refresh, 10 changes: bytes grow with the changes, not the size (largest <= 3x smallest)":
            library_results[album_sizes[-1]]["albums --refresh: 10 changes (3 deleted)"]["bytes"]
            <= 3 * library_results[album_sizes[0]]["albums --refresh: 10 changes (3 deleted)"]["bytes"],
        "library warm first screen: <= 20 ms at the largest size and <= 1.5x the smallest":
            library_results[album_sizes[-1]]["warm: albums --limit 50 (first screen)"]["ms"] <= 20
            and library_results[album_sizes[-1]]["warm: albums --limit 50 (first screen)"]["ms"]
            <= 1.5 * library_results[album_sizes[0]]["warm: albums --limit 50 (first screen)"]["ms"],
        "coach full listing streams: its first message is out in under a tenth of the whole listing's time at the largest size":
            coach_results[message_sizes[-1]]["warm: show (all), first message out"]["ms"]
            < 0.1 * coach_results[message_sizes[-1]]["warm: show (all)"]["ms"],
        "whole listings cost the same per row at every size (largest <= 1.5x the next size per row, coach and library)":
            all(results[sizes[-1]][case]["ms"] / sizes[-1] <= 1.5 * results[sizes[-2]][case]["ms"] / sizes[-2]
                for results, sizes, case in ((coach_results, message_sizes, "warm: show (all)"),
                                             (library_results, album_sizes, "warm: albums --json (all)"),
                                             (library_results, album_sizes, "warm: albums (all, table)"))
                if len(sizes) > 1),
        "library full listing streams: its first album is out in under a tenth of the whole listing's time at the largest size":
            library_results[album_sizes[-1]]["warm: albums --json (all), first album out"]["ms"]
            < 0.1 * library_results[album_sizes[-1]]["warm: albums --json (all)"]["ms"],
    }
    if real_sizes:
        goals.update({
            "real-shaped bulk import, 8 changes: what changed, not the import's second (<= a tenth of starting over)":
                all(bulk_results[size]["8 changes (5 retitled, 3 added)"]["bytes"] <= 0.1 * bulk_results[size]["--full (starting over)"]["bytes"]
                    for size in real_sizes),
            "real-shaped bulk import, 2 deleted in its second: never more than starting over (<= 1.02x --full)":
                all(bulk_results[size]["2 deleted in the import's second"]["bytes"] <= 1.02 * bulk_results[size]["--full (starting over)"]["bytes"]
                    for size in real_sizes),
            "real-shaped scan, 10 changes: about 16 KB a change plus a constant (<= 10 x 16 KB + 32 KB at every size)":
                all(scan_results[size]["10 changes (5 deleted, 3 added, 2 retitled)"]["bytes"] <= 10 * 16384 + 32768 for size in real_sizes),
        })
    print(f"# scale: requests, response bytes, median wall time and peak RSS by size ({options.configuration}, {options.runs} runs)\n")
    print(table(f"coach: one conversation of N messages, {options.conversations:,} conversations", message_sizes, coach_results, "messages"))
    print()
    print(table("library: N albums", album_sizes, library_results, "albums"))
    print()
    if real_sizes:
        print(table("library, real-shaped albums from a bulk import (all in one second)", real_sizes, bulk_results, "albums"))
        print()
        print(table("library, real-shaped albums as a scan adds them (4 a second)", real_sizes, scan_results, "albums"))
        print()
    for goal, met in goals.items():
        print(f"- {goal}: {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
