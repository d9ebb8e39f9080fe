#!/usr/bin/env python3
"""`brados calendar` of a week with 1,000 cached visits vs warm `brados mealplan show`, and how soon
`brados sync --watch --notify` shows a new coach message as a desktop notification (issue 57).

Starts a `brados-server` on loopback (the default demo seed; it stops with this process) and gives
the demo user --visits more visits (`/_admin/sql`), all in this week (Monday to Monday, local time).

1. Export: signs a fresh profile in (api and supabase), fills the caches the calendar reads
   (`mealplan show`, `visits list`; `visits list --json --offline` must hold every visit) and runs
   three commands in alternation (which goes first rotates each round, after a warm-up), as plain
   warm runs: `calendar --from MONDAY --to MONDAY+7` (the week: its meals and every visit placed in
   it), `calendar` (the default range: everything cached, meals through 14 days from today) and the
   peer, `mealplan show`; and, as context, the week with nothing kept from an export before (a new
   --to each run: every cache read and written out, as after a change). The .ics goes to stdout (/dev/null), as the peer's table does. Whole-process
   wall-time medians, min-max and the ratios; through /_admin/stats it checks that no run makes a
   request. Goal: each calendar / mealplan show <= 1.5x.
2. Notifications: a private session bus (dbus-daemon, with no service files, so nothing else starts
   on it) and python-dbusmock's notification_daemon on it, logging each Notify. A second fresh
   profile signs in, caches the conversation list and a conversation's messages, and runs `sync
   --watch --notify --verbose` (JSON log lines, Realtime heartbeat 1 s) until it has joined Realtime.
   Then --rounds times, 5.5 s after the previous notification (so the 5 s a domain waits between
   two notifications never holds one back), a message from the assistant is inserted on the server
   and timed (a) from the insert to its Notify in the mock's log (end to end: server, Realtime, the
   watch's cache, the notification) and (b) from the watch's `coach.watch: message … added` line
   (its `time`, ms) to the Notify: what the notification itself costs. (b) includes the 100 ms the
   notifier gathers news for by design (a burst is one notification). p50, p95, max.
   Goal: (b) p95 <= 250 ms.

    python3 bench/calendar_notify.py [--runs 30] [--warmup 3] [--visits 1000] [--rounds 30] [--no-build] [--configuration release] [--build-dir .build]
"""
import argparse
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from common import Server, admin, binaries, build_options, require, timed  # bench/common.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's python3-dbusmock is installed for it alone
GATHER_MS = 100  # NotificationSchedule.gather
SPACING = 5.5  # seconds between a notification and the next round: the 5 s window plus a margin
PLACES = [
    ("Riverside Dental", "14 Mill Lane", "Check-up and cleaning; next one booked for spring."),
    ("Greenway Physio", "3 Station Road", "Knee mobility work, new band exercises twice a day."),
    ("Harbor Family Clinic", "220 Harbor St", "Annual physical, blood pressure 118/76, labs ordered."),
    ("Lakeside Gym", "77 Lake Ave", "Strength session with the trainer: squats, rows, carries."),
    ("Maple Nutrition", "2 Maple Court", "Reviewed the food diary; more protein at breakfast."),
    ("Calm Mind Therapy", "16 Willow Way", "Weekly session, worked on the sleep routine."),
]
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={path}</listen>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
"""


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def sign_in(brados, env):
    for login in (["--user", "demo"], ["--service", "supabase", "--user", "demo@example.com"]):
        subprocess.run([brados, "auth", "login", *login, "--password-stdin"], input=b"demo", env=env, check=True, stdout=subprocess.DEVNULL)


def add_visits(server, count, monday):
    """`count` visits of the demo user, spread evenly over the week from `monday` (epoch seconds), 100 a statement."""
    user = server.sql("SELECT id FROM user WHERE username = 'demo'")[0][0]
    rows = []
    for index in range(count):
        place, address, notes = PLACES[index % len(PLACES)]
        at = monday + int(7 * 86400 * (index + 0.5) / count) // 60 * 60
        rows.append([f"v_bench{index:05d}", user, place, address, at, [30, 45, 60, 20, 90][index % 5], f"{notes} (visit {index + 1})", at])
    for first in range(0, count, 100):
        chunk = rows[first:first + 100]
        server.sql("INSERT INTO visit (id, userId, place, address, visitedAt, durationMinutes, notes, createdAt) VALUES "
                   + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?)"] * len(chunk)), *[value for row in chunk for value in row])


def export(brados, env, options):
    """Part 1: the calendar's runs and the peer's; returns what the report needs."""
    sign_in(brados, env)
    for command in (["mealplan", "show"], ["visits", "list"]):
        subprocess.run([brados] + command, env=env, check=True, stdout=subprocess.DEVNULL)
    listed = json.loads(subprocess.run([brados, "visits", "list", "--json", "--offline"], env=env, check=True, capture_output=True, text=True).stdout)
    if len(listed["visits"]) < options.visits:
        sys.exit(f"`brados visits list` cached {len(listed['visits'])} visits, not {options.visits}+")
    week = ["--from", options.monday.isoformat(), "--to", (options.monday + datetime.timedelta(days=7)).isoformat()]
    commands = {"brados calendar " + " ".join(week) + " (a week)": [brados, "calendar", *week],
                "brados calendar (everything cached)": [brados, "calendar"],
                "brados mealplan show": [brados, "mealplan", "show"]}
    # Context, not a goal: the week with nothing kept from an export before (a --to one second
    # later each run is a range never exported), so every domain's cache is read and written out.
    end = options.monday + datetime.timedelta(days=7)
    cold = "brados calendar of the week, nothing kept (a new --to each run)"
    commands[cold] = lambda index: [brados, "calendar", "--from", options.monday.isoformat(),
                                    "--to", f"{end.isoformat()}T00:{index // 60 % 60:02d}:{index % 60:02d}"]
    counts = {}
    for name, args in list(commands.items())[:2]:
        exported = json.loads(subprocess.run(args + ["--json"], env=env, check=True, capture_output=True, text=True).stdout)
        counts[name] = {domain: part["events"] for domain, part in exported["domains"].items()}
    week_name = next(iter(commands))
    if counts[week_name].get("visits", 0) < options.visits or not counts[week_name].get("mealplan"):
        sys.exit(f"the week's export has {counts[week_name]}: not the week's meals and {options.visits}+ visits")
    # A revalidation left behind by a read must not land in a timed run.
    time.sleep(0.5)

    samples = {name: [] for name in commands}
    requests = {name: [] for name in commands}
    names = list(commands)
    for round_index in range(options.warmup + options.runs):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            admin(options.url, "DELETE", "/_admin/stats")
            command = commands[name]
            elapsed = timed(command(round_index + 1) if callable(command) else command, env)
            made = admin(options.url, "GET", "/_admin/stats")["total"]
            if round_index >= options.warmup:
                samples[name].append(elapsed)
                requests[name].append(made)
    return samples, requests, counts, len(listed["visits"])


class Watch:
    """`brados sync --watch --notify --verbose` with JSON log lines, its stderr read as it comes: when
    each message's `added` line was written (its `time`) and when it arrived here."""

    def __init__(self, brados, env):
        self.process = subprocess.Popen([brados, "sync", "--watch", "--notify", "--verbose"], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.added = {}  # message id prefix -> (logged, read), epoch seconds
        self.caught_up = False
        self.other = []  # lines that are not JSON (notices)
        self.condition = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stderr:
            now = time.time()
            try:
                event = json.loads(line)
            except ValueError:
                self.other.append(line.rstrip())
                continue
            message = event.get("message", "")
            with self.condition:
                if message.startswith("coach.watch: caught up"):
                    self.caught_up = True
                match = re.match(r"coach\.watch: message (\S+) of \S+ added", message)
                if match:
                    logged = datetime.datetime.fromisoformat(event["time"].replace("Z", "+00:00")).timestamp()
                    self.added[match.group(1)] = (logged, now)
                self.condition.notify_all()

    def wait(self, predicate, timeout=30):
        with self.condition:
            return self.condition.wait_for(predicate, timeout)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def notifications(log):
    """The mock's Notify calls: (epoch seconds, summary, body), in order (a body may span lines)."""
    try:
        with open(log, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except FileNotFoundError:
        return []
    found = []
    for match in re.finditer(r'^(\d+\.\d{3}) Notify "brados" \d+ "[^"]*" "(.*?)" "(.*?)" \[\] \{', text, re.M | re.S):
        found.append((float(match.group(1)), match.group(2), match.group(3)))
    return found


def stop(process):
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()


def notify(brados, server, home, options):
    """Part 2: the watch's notifications through a private bus; returns the latencies and what was shown at its start."""
    require("dbus-daemon")
    require("dbus-send")
    if subprocess.run([SYSTEM_PYTHON, "-c", "import dbusmock"], capture_output=True).returncode != 0:
        sys.exit("python3-dbusmock is not installed for /usr/bin/python3: scripts/ensure-deps.sh test installs it")
    bus_dir = tempfile.mkdtemp(prefix="brados-bus-")
    daemon = mock = watch = None
    try:
        path = os.path.join(bus_dir, "bus")
        config = os.path.join(bus_dir, "bus.conf")
        with open(config, "w") as handle:
            handle.write(BUS_CONFIG.format(path=path))
        daemon = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile", "--print-address"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if not daemon.stdout.readline().startswith("unix:"):
            sys.exit("dbus-daemon did not start")
        address = f"unix:path={path}"
        log = os.path.join(bus_dir, "notify.log")
        mock = subprocess.Popen([SYSTEM_PYTHON, "-m", "dbusmock", "--session", "-t", "notification_daemon", "-l", log],
                                env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": address}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while subprocess.run(["dbus-send", f"--bus={address}", "--print-reply", "--dest=org.freedesktop.Notifications",
                              "/org/freedesktop/Notifications", "org.freedesktop.Notifications.GetCapabilities"],
                             capture_output=True).returncode != 0:
            if time.monotonic() > deadline or mock.poll() is not None:
                sys.exit("python-dbusmock's notification_daemon did not answer on the bus in 30 s")
            time.sleep(0.1)

        env = {"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": home, "BRADOS_SERVER": server.url, "HOME": home,
               "BRADOS_LIBRARY_PREFETCH": "false", "BRADOS_CREDENTIALS_STORE": "file", "BRADOS_REALTIME_HEARTBEAT": "1",
               "BRADOS_LOG_FORMAT": "json", "DBUS_SESSION_BUS_ADDRESS": address}
        sign_in(brados, env)
        for command in (["mealplan", "show"], ["visits", "list"]):
            subprocess.run([brados] + command, env=env, check=True, stdout=subprocess.DEVNULL)
        listed = json.loads(subprocess.run([brados, "coach", "conversations", "--json"], env=env, check=True, capture_output=True, text=True).stdout)
        conversation = listed["conversations"][0]["id"]
        subprocess.run([brados, "coach", "show", conversation, "--last", "1"], env=env, check=True, stdout=subprocess.DEVNULL)

        watch = Watch(brados, env)
        deadline = time.monotonic() + 30
        while server.admin("GET", "/_admin/realtime-channels")["channels"] < 1:
            if time.monotonic() > deadline or watch.process.poll() is not None:
                sys.exit("sync --watch did not join Realtime in 30 s")
            time.sleep(0.05)
        if not watch.wait(lambda: watch.caught_up):
            sys.exit("sync --watch did not catch the coach up in 30 s")
        time.sleep(1.0)  # the other domains' first syncs
        at_start = notifications(log)

        end_to_end, after_line, after_read = [], [], []
        next_at = time.time()
        for number in range(options.rounds):
            time.sleep(max(0.0, next_at - time.time()))
            message = f"nb{number:06d}-calendar-notify"
            marker = f"[bench-notify-{number}]"
            seen = len(notifications(log))
            inserted = time.time()
            server.sql("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) "
                       "SELECT ?, id, user_id, 'assistant', ?, (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?",
                       message, f"{marker} Good progress this week: keep the protein at breakfast and add a walk after dinner.", conversation)
            deadline = time.monotonic() + 30
            shown = None
            while shown is None:
                shown = next((at for at, _, body in notifications(log)[seen:] if marker in body), None)
                if shown is None:
                    if time.monotonic() > deadline:
                        sys.exit(f"no notification of {message} in 30 s; the watch said: {watch.other[-5:]}")
                    time.sleep(0.005)
            if not watch.wait(lambda: message[:8] in watch.added, timeout=5):
                sys.exit(f"sync --watch --verbose printed no `added` line for {message}")
            logged, read = watch.added[message[:8]]
            end_to_end.append((shown - inserted) * 1000)
            after_line.append((shown - logged) * 1000)
            after_read.append((shown - read) * 1000)
            next_at = shown + SPACING
        return end_to_end, after_line, after_read, at_start
    finally:
        if watch is not None:
            watch.stop()
        stop(mock)
        stop(daemon)
        shutil.rmtree(bus_dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--visits", type=int, default=1000, help="visits added in this week")
    parser.add_argument("--rounds", type=int, default=30, help="notifications timed, 5.5 s apart")
    build_options(parser)
    options = parser.parse_args()

    bin_dir = binaries(options)
    brados = os.path.join(bin_dir, "brados")
    today = datetime.date.today()
    options.monday = today - datetime.timedelta(days=today.weekday())
    server = Server(os.path.join(bin_dir, "brados-server"), [])
    options.url = server.url
    homes = [tempfile.mkdtemp(prefix="brados-bench-"), tempfile.mkdtemp(prefix="brados-bench-")]
    server.homes += homes
    try:
        add_visits(server, options.visits, time.mktime(options.monday.timetuple()))
        env = {"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": homes[0], "BRADOS_SERVER": server.url, "HOME": homes[0],
               "BRADOS_LIBRARY_PREFETCH": "false", "BRADOS_CREDENTIALS_STORE": "file"}
        if "TZ" in os.environ:
            env["TZ"] = os.environ["TZ"]  # the week is this process's local week
        samples, requests, counts, cached = export(brados, env, options)
        end_to_end, after_line, after_read, at_start = notify(brados, server, homes[1], options)
    finally:
        server.stop()

    med = {name: statistics.median(values) for name, values in samples.items()}
    week, everything, peer, cold = list(samples)
    ratios = {name: med[name] / med[peer] for name in (week, everything, cold)}
    most = max(max(made) for made in requests.values())
    print(f"# calendar_notify: `brados calendar` of a week with {options.visits:,} cached visits vs warm `brados mealplan show`; "
          f"`sync --watch --notify` latency ({options.configuration}, {options.runs} alternated runs after {options.warmup}, "
          f"{options.rounds} notifications, {os.cpu_count()} cores)\n")
    print(f"- cached: {cached:,} visits ({options.visits:,} added in the week of {options.monday.isoformat()} and the demo's own "
          f"{cached - options.visits} of the last weeks) and the demo's finalized meal plan")
    for name in (week, everything):
        parts = ", ".join(f"{domain} {count:,}" for domain, count in sorted(counts[name].items()))
        print(f"- `{name.split(' (')[0]}` exports {sum(counts[name].values()):,} events: {parts}")
    print("- the .ics goes to stdout (/dev/null), as the peer's table does\n")
    print("| case | median | min – max | requests per run |")
    print("|---|---|---|---|")
    for name, values in samples.items():
        print(f"| {name} | {med[name] * 1000:.1f} ms | {min(values) * 1000:.1f} – {max(values) * 1000:.1f} ms | max {max(requests[name])} |")
    print()
    print(f"- calendar of a week / mealplan show: {ratios[week]:.2f}x (goal <= 1.5x): {'met' if ratios[week] <= 1.5 else 'NOT met'}")
    print(f"- calendar of everything cached / mealplan show: {ratios[everything]:.2f}x (goal <= 1.5x): "
          f"{'met' if ratios[everything] <= 1.5 else 'NOT met'}")
    print(f"- the week with nothing kept from an export before / mealplan show: {ratios[cold]:.2f}x (context: every visit decoded "
          f"and written; a warm export writes the document kept with the stamps of what it came from)")
    print(f"- requests per run: max {most} (goal 0): {'met' if most == 0 else 'NOT met'}\n")

    print(f"Notifications: {options.rounds} messages from the assistant inserted on the server, each {SPACING} s after the "
          f"previous notification (the 5 s window a domain waits between two never holds one back); the Notify times are "
          f"python-dbusmock's log (ms) on a private session bus:\n")
    print("| | p50 | p95 | max |")
    print("|---|---|---|---|")
    rows = [("(a) inserted on the server → Notify (end to end)", end_to_end),
            ("(b) the watch's `coach.watch: message … added` line (its time) → Notify", after_line),
            ("(b') that line read from the watch's stderr → Notify", after_read),
            (f"(b) less the {GATHER_MS} ms gather: reading the news and the D-Bus call", [value - GATHER_MS for value in after_line])]
    for name, values in rows:
        print(f"| {name} | {percentile(values, 0.5):.1f} ms | {percentile(values, 0.95):.1f} ms | {max(values):.1f} ms |")
    print()
    print(f"- the peer is the design: news waits {GATHER_MS} ms (gather) so a burst is one notification, then at most one "
          f"notification every 5 s a domain; (b) cannot be under {GATHER_MS} ms")
    print(f"- notifications at the watch's start, with nothing new: {len(at_start)}"
          + (" (" + "; ".join(summary for _, summary, _ in at_start) + ")" if at_start else ""))
    p95 = percentile(after_line, 0.95)
    print(f"- (b) p95 <= 250 ms: {p95:.1f} ms: {'met' if p95 <= 250 else 'NOT met'}")


if __name__ == "__main__":
    main()
