#!/usr/bin/env python3
"""Live: `brados coach show ID --follow` keeps the cache equal to the server through --rounds
rounds of random changes and Realtime faults (issue 45).

A brados-server (admin routes on, its SQLite file in a folder of its own) and a profile
signed in to it; the built brados follows one conversation (`--follow --json`, a heartbeat a
second). Each round makes 1-4 of, at random:
- a message inserted through /_admin/sql, or by this process writing the server's SQLite file;
- a message's text updated, or a message deleted (either way);
- a Realtime fault (POST /_admin/realtime-faults): a dropped connection, a silent one, a
  close with an error, a refused join, a delayed event, or a lost event;
- every access token expired (the channel is closed; brados renews and joins again).
Then, within 30 s, the cache (`coach show ID --offline --json`: ids and texts in order) must
equal the server's rows. A lost event while the connection stays up cannot be noticed by any
client of a service without offsets and without polling: such a round ends with a dropped
connection, and what is checked is that the next connection's catch-up repairs it.
Any round that does not converge is a failure; so is `--follow` exiting before the end, or
not exiting 130 on SIGINT with every line of its output one JSON object.

Figures: rounds, changes and faults by kind, reconnects `--follow` reported, lost events
repaired, the longest time to converge.

    python3 reliability/live.py [--rounds 200] [--seed 45] [--build-dir .build] [--configuration debug]
"""
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Binaries, Profile, Server, Tally, suite_parser  # noqa: E402

INSERT = ("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) "
          "SELECT ?, id, user_id, ?, ?, (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?")


class Follower:
    def __init__(self, profile, conversation):
        self.process = subprocess.Popen([profile.binaries.brados, "coach", "show", conversation, "--follow", "--json", "--last", "1"],
                                        env=dict(profile.env, BRADOS_REALTIME_HEARTBEAT="1"), stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        self.lines, self.bad = [], []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            try:
                self.lines.append(json.loads(line))
            except ValueError:
                self.bad.append(line)

    def count(self, event):
        return sum(1 for line in list(self.lines) if line.get("event") == event)


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=45)
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    rng = random.Random(options.seed)
    tally = Tally("live")
    kinds = {}
    longest = 0.0
    repaired = 0
    divergences = {}
    data = tempfile.mkdtemp(prefix="brados-rel-live-")
    with Server(binaries, data=data) as server:
        profile = Profile(binaries, server)
        try:
            profile.login(supabase_email="demo@example.com")
            listed = json.loads(profile.must("coach", "conversations", "--json").stdout)["conversations"]
            conversation = listed[-1]["id"]

            def sql(statement, *arguments):
                return server.admin("POST", "/_admin/sql", {"sql": statement, "arguments": [str(a) for a in arguments]})["rows"]

            def write_file(statement, *arguments):
                connection = sqlite3.connect(os.path.join(data, "server.sqlite"), timeout=10)
                connection.execute(statement, arguments)
                connection.commit()
                connection.close()

            def server_rows():
                return [[row[0], row[1]] for row in sql("SELECT id, content FROM messages WHERE conversation_id = ? ORDER BY created_at, id", conversation)]

            def cached_rows():
                result = profile.run("coach", "show", conversation, "--offline", "--json")
                if result.returncode != 0:
                    return None
                return [[m["id"], m["content"]] for m in json.loads(result.stdout)["messages"]]

            def consumed(kind, timeout=30):
                """Waits until the fault of `kind` is taken by an event that reached a channel; one that
                met none (a channel closed for an expired token, a join in progress) is followed by
                another change every 2 s."""
                nonlocal number
                deadline = time.monotonic() + timeout
                poke = time.monotonic() + 2
                while time.monotonic() < deadline:
                    if not any(fault["kind"] == kind for fault in server.admin("GET", "/_admin/realtime-faults")):
                        return
                    if time.monotonic() > poke:
                        number += 1
                        sql(INSERT, f"live-{number}", "user", f"message {number} (for the {kind} fault)", conversation)
                        poke = time.monotonic() + 2
                    time.sleep(0.05)
                reconnects = [line for line in list(follower.lines) if line.get("event") == "reconnecting"][-3:]
                channels = server.admin("GET", "/_admin/realtime-channels")["channels"]
                tally.fail(f"the {kind} fault was never taken (no event reached a channel in {timeout} s; {channels} channels; "
                           f"last reconnects {reconnects})")

            follower = Follower(profile, conversation)
            deadline = time.monotonic() + 30
            while server.admin("GET", "/_admin/realtime-channels")["channels"] < 1:
                if time.monotonic() > deadline:
                    raise RuntimeError("--follow did not join its channel in 30 s")
                time.sleep(0.05)

            number = 0
            for round_index in range(options.rounds):
                lost = False
                done = []
                for _ in range(rng.randint(1, 4)):
                    number += 1
                    kind = rng.choice(["insert", "insert", "insert-file", "update", "update-file", "delete", "delete-file",
                                       "drop", "stall", "close-error", "refuse-join", "delay", "lose", "expire"])
                    ours = [row[0] for row in server_rows() if row[0].startswith("live-")]
                    if kind in ("update", "update-file", "delete", "delete-file") and not ours:
                        kind = "insert"
                    kinds[kind] = kinds.get(kind, 0) + 1
                    done.append(kind)
                    role = rng.choice(["user", "assistant"])
                    if kind == "insert":
                        sql(INSERT, f"live-{number}", role, f"message {number}", conversation)
                    elif kind == "insert-file":
                        write_file(INSERT, f"live-{number}", role, f"message {number} (file)", conversation)
                    elif kind == "update":
                        sql("UPDATE messages SET content = ? WHERE id = ?", f"edited {number}", rng.choice(ours))
                    elif kind == "update-file":
                        write_file("UPDATE messages SET content = ? WHERE id = ?", f"edited {number} (file)", rng.choice(ours))
                    elif kind == "delete":
                        sql("DELETE FROM messages WHERE id = ?", rng.choice(ours))
                    elif kind == "delete-file":
                        write_file("DELETE FROM messages WHERE id = ?", rng.choice(ours))
                    elif kind == "expire":
                        server.admin("POST", "/_admin/expire-tokens")
                    else:
                        server.admin("POST", "/_admin/realtime-faults", {"kind": kind, "count": 1, "delayMs": rng.randint(50, 400)})
                        lost = lost or kind == "lose"
                        if kind != "refuse-join":
                            # The fault takes the next event: make one, and wait until it is taken (a
                            # silent connection must be noticed and replaced first).
                            number += 1
                            sql(INSERT, f"live-{number}", role, f"message {number} ({kind})", conversation)
                            consumed(kind)
                    time.sleep(rng.uniform(0, 0.15))
                if lost:
                    # A lost event is repaired by the next connection: end the round with one.
                    server.admin("POST", "/_admin/realtime-faults", {"kind": "drop", "count": 1})
                    number += 1
                    sql(INSERT, f"live-{number}", "user", f"after a lost event {number}", conversation)
                    consumed("drop")
                started = time.monotonic()
                equal = False
                while time.monotonic() - started < 30:
                    if follower.process.poll() is not None:
                        break
                    rows = server_rows()
                    if cached_rows() == rows:
                        equal = True
                        break
                    time.sleep(0.1)
                took = time.monotonic() - started
                longest = max(longest, took)
                # Whatever a round left (a stalled connection, a pending fault) must not carry over.
                server.admin("DELETE", "/_admin/realtime-faults")
                if equal:
                    tally.ok()
                    repaired += 1 if lost else 0
                else:
                    held = {row[0]: row[1] for row in (cached_rows() or [])}
                    rows = {row[0]: row[1] for row in server_rows()}
                    missing, extra = sorted(set(rows) - set(held)), sorted(set(held) - set(rows))
                    stale = sorted(key for key in set(rows) & set(held) if rows[key] != held[key])
                    kind = "an edit missed in a gap" if stale and not missing and not extra else "rows missing or extra"
                    divergences[kind] = divergences.get(kind, 0) + 1
                    tally.fail(f"round {round_index} ({', '.join(done)}): the cache did not equal the server's rows within 30 s: "
                               f"{len(missing)} missing, {len(extra)} extra, {len(stale)} with other text"
                               + (" (--follow exited)" if follower.process.poll() is not None else ""))
                    # Start the next round from equal copies.
                    profile.run("coach", "show", conversation, "--full", "--last", "1")
                if round_index % 20 == 19:
                    print(f"  round {round_index + 1}: ok so far ({len(tally.failures)} failures)", flush=True)
            follower.process.send_signal(signal.SIGINT)
            try:
                code = follower.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                follower.process.kill()
                code = None
            time.sleep(0.2)
            if code != 130:
                tally.fail(f"--follow exited {code} on SIGINT, not 130")
            else:
                tally.ok()
            if follower.bad:
                tally.fail(f"{len(follower.bad)} lines of --follow's output are not JSON: {follower.bad[:2]}")
            tally.figures["rounds"] = options.rounds
            tally.figures["changes and faults"] = dict(sorted(kinds.items()))
            tally.figures["reconnects reported"] = follower.count("reconnecting")
            tally.figures["lost events repaired by the next connection"] = repaired
            tally.figures["longest time to converge"] = f"{longest:.2f} s"
            tally.figures["divergences"] = divergences
            tally.figures["events printed"] = {event: follower.count(event) for event in ("added", "changed", "deleted")}
        finally:
            profile.remove()
    shutil.rmtree(data, ignore_errors=True)
    print(json.dumps(tally.report()))


if __name__ == "__main__":
    main()
