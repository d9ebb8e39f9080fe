#!/usr/bin/env python3
"""The reliability and security suite: crashes, concurrency, hostile input, server faults,
leaks, fuzzing. Each suite prints its figure (runs, failures) and exits non-zero on any
failure; this runs them and writes reliability/RESULTS.md.

    python3 reliability/run.py                 # make reliability: everything, full sizes
    python3 reliability/run.py --smoke         # make reliability-smoke: the CI subset (a few minutes)
    python3 reliability/run.py --suites leaks,server_faults

Suites (issue 11):
  crash_safety      SIGKILL during finalize, prefetch, coach writes, export, import: 200 kills, 0 corrupt states
  concurrency       8 processes x 50 artwork fetches (20 MB cap); 4 concurrent plan syncs; 4 concurrent token refreshes
  hostile_archives  the import attack corpus, bombs, and 1,000 randomly mutated archives
  server_faults     500/502/503/504/429/timeout/reset/truncated/invalid JSON/wrong shape/out-of-range per domain
  leaks             nothing left after logout; modes 0600/0700; no token or password in logs, caches, archives
  security          issue 16: completion injection (3 shells x 3 id kinds), hostile databases, the embedded
                    backend probed as another local user, hostile headers and redirects, control
                    characters, imported queues
  full_disk         issue 18: every domain's reads, refreshes, adds/deletes, plan weight, export and import
                    on a nearly full and a full tmpfs (needs root): 0 bytes lost, 0 partial files, exit codes
  profile_lock      issue 18: import vs sync vs revalidation vs logout vs writers on one profile, N rounds:
                    0 lost writes, 0 corrupt stores, the lock timeout (exit 11) and nothing left after logout
  signals           issue 18: SIGTERM/SIGHUP during visits delete, cache export and cache import (undone,
                    exit 143/129, nothing left); SIGPIPE into `| head -1` (quiet)
  refresh_interval  issue 18: background revalidations per 100 scripted `visits list` / `library albums` calls
  delta_equality    issue 31: 200 rounds of random server changes between coach and library delta refreshes:
                    the copy equals the server after each (the randomized end-to-end tests, 25 rounds in make test)
  search            SIGKILL while `brados search` builds or updates its FTS5 index over large caches
                    (50 rounds), then the index equals the coach and library stores and passes integrity_check;
                    hostile queries (10 KB of words and operators, control characters, invalid UTF-8, 200
                    random FTS5 fragments) exit 0 or 64 within 10 s, never crash
  live              issue 45: 200 rounds of random inserts, edits and deletes (by the API and by another process)
                    and Realtime faults while `coach show --follow` runs: the cache equals the server after each
  keyring           issue 46: a real Secret Service; SIGKILL mid `auth migrate` both ways, the keyring locked, its
                    daemon killed mid-command (100 rounds): no secret lost, none left in a file after a move to the keyring
  merge             issue 54: export, change, merge, N rounds both ways (an older archive into a newer profile,
                    a newer one into an older profile): kept plans a union with their ids, the newer plan,
                    visits, conversations (renamed, started, deleted) and album list kept, no queued change
                    dropped, dry runs that change nothing
  calendar_notify   issue 57: hostile calendar text (iCalendar syntax, every control character, 100 KB fields; 200
                    random visits): one VCALENDAR, lines of 75 octets in CRLF, each text --json's, nothing lost; a
                    reader of calendar.file over 20 syncs never sees half a file; 1,000 coach messages in a second
                    under `sync --watch --notify`: all cached, a handful of notifications counting every message,
                    the watch alive; no bus or no service: one notice
  soak              issue 65: `sync --watch --notify` for a week of days compressed (server killed, moved, sessions
                    revoked, 429s, the watch stopped, another profile's sync, other time zones), a follower and a
                    calendar subscriber beside it: every message followed once, every notification titled by its
                    conversation, calendar.file whole and its visits the cache's, one log line a trouble, memory flat
  power_loss        issue 68: each write path on a file system that forgets what a power cut forgets (data since
                    a file's last fsync, names since their folder's), cut at every sync point: nothing acknowledged
                    lost, every file readable, an import old or new, never a mix
  fuzz              libFuzzer on the cache decoders, the manifest parser, the archive reader and the
                    reference server's header and query parsing, Retry-After, the terminal text filter

The suites run on the debug build of `make test` by default (--configuration release for the
shipped build). Servers bind 127.0.0.1 only and stop with the suite that started them (--until-stdin-closes).
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITES = ["crash_safety", "concurrency", "hostile_archives", "server_faults", "leaks", "security", "full_disk",
          "profile_lock", "signals", "refresh_interval", "delta_equality", "search", "live", "keyring", "merge", "calendar_notify",
          "soak", "power_loss", "fuzz"]
# The CI subset: every suite, smaller.
SMOKE = {
    "crash_safety": ["--runs", "40"],
    "concurrency": ["--processes", "4", "--fetches", "10", "--rounds", "1"],
    "hostile_archives": ["--mutations", "100"],
    "server_faults": ["--quick"],
    "leaks": [],
    "security": [],
    "full_disk": [],
    "profile_lock": ["--rounds", "3"],
    # 6 late exports per signal: a signal ignored while the compressor drains shows in every CI run.
    "signals": ["--rounds", "3", "--late-rounds", "6"],
    "refresh_interval": ["--calls", "50", "--spread", "6"],
    "delta_equality": ["--rounds", "10"],
    "search": ["--rounds", "5", "--messages", "2000", "--conversations", "10", "--albums", "2000"],
    "live": ["--rounds", "10"],
    "keyring": ["--rounds", "10"],
    "merge": ["--rounds", "3"],
    "calendar_notify": ["--visits", "20", "--flood", "200"],
    "soak": ["--minutes", "2.5", "--round-seconds", "18"],
    "power_loss": ["--rounds", "1", "--max-cuts", "6"],
    "fuzz": ["--runs", "20000"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="the CI subset")
    parser.add_argument("--suites", help="comma-separated subset of: " + ", ".join(SUITES))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--configuration", default="debug")
    parser.add_argument("--output", default=os.path.join(ROOT, "reliability", "RESULTS.md"))
    options = parser.parse_args()
    suites = options.suites.split(",") if options.suites else SUITES
    unknown = [suite for suite in suites if suite not in SUITES]
    if unknown:
        sys.exit(f"unknown suite(s): {', '.join(unknown)}")
    if not options.no_build:
        args = ["swift", "build", "--build-tests", "--scratch-path", options.build_dir]
        if options.configuration == "release":
            args = ["make", "-s", "release", f"SCRATCH={options.build_dir}", "PRODUCT="]
        subprocess.run(args, cwd=ROOT, check=True)

    rows, details, failed = [], [], []
    for suite in suites:
        started = time.monotonic()
        args = [sys.executable, os.path.join(ROOT, "reliability", f"{suite}.py"), "--build-dir", options.build_dir,
                "--configuration", options.configuration] + (SMOKE[suite] if options.smoke else [])
        if options.smoke and suite == "fuzz":
            # The dependencies built for the tests serve the fuzzer too (they are not instrumented):
            # only brados's own modules are compiled again, minutes less in CI.
            args += ["--fuzz-build-dir", options.build_dir]
        print(f"reliability: {suite}…", file=sys.stderr, flush=True)
        result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        sys.stderr.write("".join(line + "\n" for line in result.stdout.splitlines() if not line.startswith("{")))
        figure = None
        for line in result.stdout.splitlines():
            if line.startswith("{"):
                try:
                    figure = json.loads(line)
                except ValueError:
                    pass
        seconds = time.monotonic() - started
        if result.returncode != 0 or figure is None:
            failed.append(suite)
        if figure is None:
            rows.append(f"| {suite} | — | — | FAILED to run (exit {result.returncode}) | {seconds:.0f} s |")
            details.append(f"### {suite}\n\n```\n{(result.stderr or result.stdout)[-3000:]}\n```\n")
            continue
        figures = ", ".join(f"{key}: {value}" for key, value in figure["figures"].items() if key != "outcomes")
        rows.append(f"| {suite} | {figure['runs']} | {figure['failures']} | {figures} | {seconds:.0f} s |")
        if figure["failures"]:
            details.append(f"### {suite}: failures\n\n" + "".join(f"- {example}\n" for example in figure["examples"]))
        if "outcomes" in figure["figures"]:
            table = ["| domain / fault | exit code | requests |", "|---|---|---|"]
            table += [f"| {name} | {outcome['exit']} | {outcome['requests']} |" for name, outcome in figure["figures"]["outcomes"].items()]
            details.append(f"### {suite}: what each fault gave\n\n" + "\n".join(table) + "\n")

    title = "Reliability smoke run (the CI subset)" if options.smoke else "Reliability results"
    report = (f"# {title}\n\n- Date: {datetime.date.today().isoformat()}\n"
              f"- Machine: {os.cpu_count()} cores, {platform.system()} {platform.release()}\n"
              f"- Build: {options.configuration}\n\n"
              "| suite | runs | failures | figures | time |\n|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n" + "\n".join(details))
    if options.smoke:
        print(report)
    else:
        with open(options.output, "w") as handle:
            handle.write(report)
        print(f"wrote {options.output}", file=sys.stderr)
    if failed:
        sys.exit(f"reliability: failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
