#!/usr/bin/env python3
"""The coach store (GRDB) vs python sqlite3 executemany (issue 6).

Upsert: 10,000 messages in one transaction into the same schema (created by brados's own
migrations), same rows, same SQL (INSERT ... ON CONFLICT(remoteId) DO UPDATE), same
settings (WAL, synchronous=NORMAL, foreign keys on). Two cases: into an empty table
(inserts) and again over the stored rows (updates). Alternated rounds (A B, B A, ...).
Listing: 50 conversations from a store holding 100,000 messages, reported as a time.

    python3 bench/coach_upsert.py [--rows 10000] [--rounds 7] [--no-build] [--build-dir DIR]
"""
import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONVERSATION = "00000000-0000-4000-8000-000000000000"
SQL = """INSERT INTO message (remoteId, conversationId, role, content, createdAt, cachedAt) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT(remoteId) DO UPDATE SET conversationId = excluded.conversationId, role = excluded.role,
    content = excluded.content, createdAt = excluded.createdAt, cachedAt = excluded.cachedAt"""

# What brados runs since issue 32: each changed row marked with the transaction's search
# revision (the index reads the rows changed after its own; nothing is tokenized here).
MARKED_SQL = """INSERT INTO message (remoteId, conversationId, role, content, createdAt, cachedAt, revision) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(remoteId) DO UPDATE SET conversationId = excluded.conversationId, role = excluded.role,
    content = excluded.content, createdAt = excluded.createdAt, cachedAt = excluded.cachedAt,
    revision = CASE WHEN content IS excluded.content AND conversationId IS excluded.conversationId
        AND createdAt IS excluded.createdAt AND role IS excluded.role THEN revision ELSE excluded.revision END"""


def rows(count):
    now = time.time()
    return [(f"m-{n:08d}", CONVERSATION, "user" if n % 2 == 0 else "assistant",
             f"Message {n}: let's pick one small step you can take tomorrow, and one for the weekend. How does that sound?",
             1_795_000_000.0 + n, now) for n in range(count)]


def python_upsert(path, count, marked=False):
    data = rows(count)  # built before timing, as the Swift side builds its models first
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    if marked:
        # The rows carry the revision the transaction takes (one writer: the next one), built
        # before timing like the rest of the data.
        revision = connection.execute("SELECT revision FROM searchRevision WHERE id = 1").fetchone()[0] + 1
        data = [row + (revision,) for row in data]
    start = time.perf_counter()
    connection.execute("BEGIN IMMEDIATE")
    if marked:
        connection.execute("UPDATE searchRevision SET revision = revision + 1 WHERE id = 1")
        connection.executemany(MARKED_SQL, data)
    else:
        connection.executemany(SQL, data)
    connection.execute("COMMIT")
    seconds = time.perf_counter() - start
    stored = connection.execute("SELECT COUNT(*) FROM message").fetchone()[0]
    connection.close()
    return {"rows": count, "seconds": seconds, "stored": stored}


def swift_upsert(bench, path, count):
    out = subprocess.run([bench, "coach-upsert", path, str(count)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build")
    options = parser.parse_args()
    if not options.no_build:
        subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", "PRODUCT=brados-bench"], cwd=ROOT, check=True)
    bench = os.path.join(ROOT, options.build_dir, options.configuration, "brados-bench")
    work = tempfile.mkdtemp(prefix="brados-coach-bench-")
    try:
        template = os.path.join(work, "template.sqlite")
        subprocess.run([bench, "coach-schema", template], check=True)
        cases = {"brados CoachCache (GRDB)": swift_upsert, "python sqlite3 executemany": None,
                 "python sqlite3, the same SQL marking search revisions": "marked"}
        results = {(name, phase): [] for name in cases for phase in ("insert", "update")}
        for round_index in range(options.rounds + 1):  # round 0 is a warm-up
            order = list(cases) if round_index % 2 == 0 else list(reversed(cases))
            for name in order:
                path = os.path.join(work, f"round{round_index}-{name.split()[0]}.sqlite")
                shutil.copy(template, path)
                for phase in ("insert", "update"):
                    if cases[name] is None or cases[name] == "marked":
                        result = python_upsert(path, options.rows, marked=cases[name] == "marked")
                    else:
                        result = swift_upsert(bench, path, options.rows)
                    assert result["stored"] == options.rows, result
                    if round_index > 0:
                        results[(name, phase)].append(result["seconds"])
                for suffix in ("", "-wal", "-shm"):
                    if os.path.exists(path + suffix):
                        os.remove(path + suffix)
        listing = json.loads(subprocess.run([bench, "coach-list", os.path.join(work, "list.sqlite"), "50", "2000"],
                                            check=True, capture_output=True, text=True).stdout)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    peer = "python sqlite3 executemany"
    print(f"# coach upsert: {options.rows:,} messages in one transaction, {options.rounds} alternated rounds after a warm-up, "
          f"{os.cpu_count()} cores\n")
    print("| store | phase | median ms (min-max) | ratio to python (lower is better) |")
    print("|---|---|---|---|")
    for (name, phase), samples in results.items():
        median = statistics.median(samples)
        ratio = median / statistics.median(results[(peer, phase)])
        print(f"| {name} | {phase} | {median * 1000:.1f} ({min(samples) * 1000:.1f}-{max(samples) * 1000:.1f}) | {ratio:.2f}x |")
    marked = "python sqlite3, the same SQL marking search revisions"
    for phase in ("insert", "update"):
        upkeep = statistics.median(results[(marked, phase)]) / statistics.median(results[(peer, phase)])
        print(f"\n- search index upkeep, {phase}: the same upsert marking revisions costs {upkeep:.2f}x the plain one "
              f"(goal <= 1.10x): {'met' if upkeep <= 1.10 else 'NOT met'}", end="")
    print()
    print(f"\n- Listing {listing['conversations']} conversations from a store of {listing['messages']:,} messages: "
          f"median {listing['medianSeconds'] * 1000:.2f} ms (min {listing['minSeconds'] * 1000:.2f}, max {listing['maxSeconds'] * 1000:.2f}; "
          f"20 runs, database opened each time)")


if __name__ == "__main__":
    main()
