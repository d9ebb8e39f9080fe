#!/usr/bin/env python3
"""Live: `brados coach show ID --follow` against a 30 s polling loop of `coach show` (issue 45).

Starts a brados-server (loopback, admin routes on), signs a fresh profile in and follows a
conversation with `--follow --json`, reading its lines as they come. Through a byte-counting
TCP relay between brados and the server (so WebSocket frames count, headers and all):

1. Latency: --rounds times, a message is inserted on the server (`/_admin/sql`) and the time
   until `--follow` prints its `added` line is taken; p50 and p95. The peer, a loop running
   `coach show ID --last 1` every 30 s, prints a message on its next run: on average half the
   interval after it was written, at worst the whole of it, plus the run itself (timed here:
   --runs runs with nothing changed). Its p50 and p95 are 15 s and 28.5 s plus that run.
2. Idle cost: nothing changes for --idle seconds with the default heartbeat (30 s); HTTP
   requests seen by the server and bytes through the relay, per hour. The peers: the polling
   loop (120 `coach show` runs an hour, each measured) and the systemd timer (`brados sync`
   every 30 minutes, two runs an hour, measured).
Goals: p95 <= 250 ms; idle: 0 HTTP requests, heartbeats only, <= 20 KB an hour.

    python3 bench/follow.py [--rounds 100] [--idle 125] [--runs 10] [--no-build] [--configuration release] [--build-dir .build]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

from scale import Brados  # bench/scale.py: a fresh profile against the seeded server
from common import Server  # bench/common.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POLL_INTERVAL = 30.0


class Relay:
    """A TCP relay on loopback that counts the bytes each way."""

    def __init__(self, target_port):
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.up = self.down = 0
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            server = socket.create_connection(self.target)
            threading.Thread(target=self.pump, args=(client, server, "up"), daemon=True).start()
            threading.Thread(target=self.pump, args=(server, client, "down"), daemon=True).start()

    def pump(self, source, sink, direction):
        try:
            while data := source.recv(65536):
                with self.lock:
                    setattr(self, direction, getattr(self, direction) + len(data))
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def total(self):
        with self.lock:
            return self.up + self.down


class Follower:
    """`brados coach show ID --follow --json`, its lines read as they come."""

    def __init__(self, brados, conversation):
        self.process = subprocess.Popen([brados.binary, "coach", "show", conversation, "--follow", "--json", "--last", "1"],
                                        env=brados.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.seen = {}
        self.condition = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            now = time.perf_counter()
            event = json.loads(line)
            if event.get("event") == "added":
                with self.condition:
                    self.seen[event["message"]["id"]] = now
                    self.condition.notify_all()

    def wait(self, message, timeout=30):
        with self.condition:
            self.condition.wait_for(lambda: message in self.seen, timeout)
            return self.seen.get(message)

    def stop(self):
        self.process.terminate()
        self.process.wait()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--idle", type=float, default=125.0, help="seconds of nothing changing (the default heartbeat is 30 s)")
    parser.add_argument("--runs", type=int, default=10, help="runs of each polling peer")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release")
    parser.add_argument("--build-dir", default=".build")
    options = parser.parse_args()
    if not options.no_build and options.configuration == "release":
        subprocess.run(["make", "-s", "release", "PRODUCT=", f"SCRATCH={options.build_dir}"], cwd=ROOT, check=True)
    directory = os.path.join(ROOT, options.build_dir, options.configuration)
    server = Server(os.path.join(directory, "brados-server"), [])
    relay = Relay(int(server.url.rsplit(":", 1)[1]))
    try:
        brados = Brados(os.path.join(directory, "brados"), server)
        brados.env["BRADOS_SERVER"] = f"http://127.0.0.1:{relay.port}"
        brados.run(["auth", "login", "--user", "demo", "--password-stdin"], stdin="demo")
        brados.run(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], stdin="demo")
        listed = json.loads(brados.run(["coach", "conversations", "--json"])[0])["conversations"]
        conversation = listed[0]["id"]

        # The peers first: one `coach show` and one `brados sync` with nothing changed.
        brados.run(["coach", "show", conversation, "--last", "1"])
        poll_times, poll_traffic = [], []
        for _ in range(options.runs):
            server.reset()
            before = relay.total()
            poll_times.append(brados.run(["coach", "show", conversation, "--last", "1"])[1])
            poll_traffic.append((server.traffic()[0], relay.total() - before))
        brados.run(["sync"])
        sync_traffic = []
        for _ in range(max(2, options.runs // 5)):
            server.reset()
            before = relay.total()
            brados.run(["sync"])
            sync_traffic.append((server.traffic()[0], relay.total() - before))

        follower = Follower(brados, conversation)
        deadline = time.monotonic() + 30
        while server.admin("GET", "/_admin/realtime-channels")["channels"] < 1:
            if time.monotonic() > deadline:
                sys.exit("--follow did not join the conversation's channel in 30 s")
            time.sleep(0.05)
        time.sleep(0.5)

        # Idle: nothing changes.
        server.reset()
        before = relay.total()
        time.sleep(options.idle)
        idle_requests, idle_bytes = server.traffic()[0], relay.total() - before

        # Latency.
        latencies = []
        for number in range(options.rounds):
            message = f"bench-follow-{number}"
            started = time.perf_counter()
            server.sql("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) "
                       "SELECT ?, id, user_id, 'user', ?, (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?",
                       message, f"message {number} of the benchmark", conversation)
            printed = follower.wait(message)
            if printed is None:
                sys.exit(f"--follow never printed {message}")
            latencies.append((printed - started) * 1000)
            time.sleep(0.05)
        follower.stop()
    finally:
        server.stop()

    poll_ms = statistics.median(poll_times) * 1000
    hour = 3600 / options.idle
    print(f"# follow: `coach show --follow` vs a {POLL_INTERVAL:.0f} s polling loop of `coach show` ({options.configuration}, 2 cores)\n")
    print(f"Latency, from a row inserted on the server to its line printed ({options.rounds} rounds, loopback):\n")
    print("| | p50 | p95 | max |")
    print("|---|---|---|---|")
    print(f"| `coach show --follow` | {percentile(latencies, 0.5):.1f} ms | {percentile(latencies, 0.95):.1f} ms | {max(latencies):.1f} ms |")
    print(f"| polling `coach show` every {POLL_INTERVAL:.0f} s (half and 95 % of the interval, plus a run of {poll_ms:.0f} ms) | "
          f"{POLL_INTERVAL * 500 + poll_ms:,.0f} ms | {POLL_INTERVAL * 950 + poll_ms:,.0f} ms | {POLL_INTERVAL * 1000 + poll_ms:,.0f} ms |")
    p95_ratio = (POLL_INTERVAL * 950 + poll_ms) / percentile(latencies, 0.95)
    print(f"\np95: polling / follow = {p95_ratio:,.0f}x\n")
    print(f"Idle cost, nothing changing ({options.idle:.0f} s measured, scaled to an hour; bytes through the relay, both ways):\n")
    print("| | HTTP requests / h | bytes / h |")
    print("|---|---|---|")
    print(f"| `coach show --follow` | {idle_requests * hour:.0f} | {idle_bytes * hour / 1000:.1f} KB |")
    poll_requests = statistics.median([t[0] for t in poll_traffic]) * 3600 / POLL_INTERVAL
    poll_bytes = statistics.median([t[1] for t in poll_traffic]) * 3600 / POLL_INTERVAL
    print(f"| polling `coach show` every {POLL_INTERVAL:.0f} s | {poll_requests:.0f} | {poll_bytes / 1000:.1f} KB |")
    sync_requests = statistics.median([t[0] for t in sync_traffic]) * 2
    sync_bytes = statistics.median([t[1] for t in sync_traffic]) * 2
    print(f"| the timer: `brados sync` every 30 min (every domain) | {sync_requests:.0f} | {sync_bytes / 1000:.1f} KB |")
    print()
    goals = [("latency p95 <= 250 ms", percentile(latencies, 0.95) <= 250),
             ("idle: 0 HTTP requests", idle_requests == 0),
             ("idle: <= 20 KB an hour", idle_bytes * hour <= 20_000)]
    for name, met in goals:
        print(f"- {name}: {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
