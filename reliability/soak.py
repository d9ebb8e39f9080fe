#!/usr/bin/env python3
"""A week with brados always on (issue 65): `brados sync --watch --notify` running for
--minutes, with a follower and a calendar subscriber beside it, while the server and the
person do in it what they do in a week, its days compressed to --round-seconds each. The
server's sessions last --token-ttl (2 minutes): they are renewed all along. (A day turning
over in the calendar is the calendar's end-to-end test's, on a clock of its own.)

Each day brings one of these, in turn, besides what every day brings (assistant messages in
two conversations every few seconds, visits added from another terminal in other zones, a
weight sent):
- the server killed, and started again on its port 15 s later;
- the server moved to another port: `config set server` and a sign-in there, as a person
  would (the follower is started again: it is a command, not a service);
- the sessions revoked on the server, then a sign-in 10 s later;
- 429 bursts: the visits list and the plan's generate answer 429 with Retry-After;
- the watch stopped (SIGSTOP) for 10 s and continued;
- another profile's sync (a profile imported from a backup, never signed in);
- other commands with other time zones (`TZ=Asia/Tokyo brados sync`, New York) and a meal
  plan finalized here;
- the service's nutrition plan changed, fetched by another brados (`plan refresh`).

Checks:
- the follower (`coach show ID --follow --json`): every message stored while it followed is
  printed once (`added`), in order; none twice;
- every notification of the coach is titled by its conversation (the message it shows is
  that conversation's), or says how many conversations a burst spans; none for this
  profile's own weight; the plan's when the service changed it;
- calendar.file, read every half second: always a whole VCALENDAR of this profile; after each
  day its visits are the cache's (`visits list --offline --json`); a UID's times never move
  (the suite changes no visit's time and no meal time), whatever TZ a writer had;
- the watch's log: one line when the server goes and one when it is back, one for a
  revoked session, no "Ctrl-C"; it stays alive through everything (exit 143 on SIGTERM);
- its memory and file descriptors stay flat (sampled each minute).

Figures: days, messages, notifications, follower sessions and what they printed, calendar
reads and versions, the watch's lines by kind, memory and fds first/last/highest.

    python3 reliability/soak.py [--minutes 30] [--round-seconds 200] [--build-dir .build] [--configuration debug]
"""
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import datetime as dt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Binaries, Profile, Tally, kill_group, require, suite_parser  # noqa: E402
from calendar_notify import Bus, CRASH_MARKERS  # noqa: E402

UTC = dt.timezone.utc
# The services a profile here is signed in to (sign_in): a move asks each once.
SIGNED_IN_SERVICES = ("account", "plex", "supabase", "nutrition")
ACROSS = re.compile(r"(\d+) new messages from your coach in (\d+) conversations")
TITLED = re.compile(r"(.*): (\d+) new messages from your coach")


class SoakServer:
    """A brados-server on a port of its own (started again there, or on another)."""

    def __init__(self, binaries, data, token_ttl):
        self.binaries, self.data, self.process, self.token_ttl = binaries, data, None, token_ttl
        self.port = free_port()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, port=None):
        self.port = port or self.port
        self.process = subprocess.Popen([self.binaries.server, "--port", str(self.port), "--admin", "--data-dir", self.data,
                                         "--until-stdin-closes", "--plan-rate-limit", "0", "--token-ttl", str(self.token_ttl)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        start_new_session=True)
        line = self.process.stdout.readline()
        if "127.0.0.1" not in line:
            raise RuntimeError(f"brados-server did not start: {line!r}")

    def stop(self):
        if self.process and self.process.poll() is None:
            kill_group(self.process)

    def admin(self, method, path, body=None):
        import urllib.request
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=15) as response:
            text = response.read()
            return json.loads(text) if text else None

    def sql(self, statement, *arguments):
        return self.admin("POST", "/_admin/sql", {"sql": statement, "arguments": [None if a is None else str(a) for a in arguments]})["rows"]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def parse_calendar(data):
    """The VEVENTs of an .ics (unfolded), as property name (parameters dropped) → value."""
    text = data.decode("utf-8", errors="replace").replace("\r\n ", "")
    events, current = [], None
    for line in text.split("\r\n"):
        if line == "BEGIN:VEVENT":
            current = {}
        elif line == "END:VEVENT" and current is not None:
            events.append(current)
            current = None
        elif current is not None and ":" in line:
            name, value = line.split(":", 1)
            current[name.split(";")[0]] = value
    return events


class Subscriber:
    """A calendar reading calendar.file every half second: whole or not, whose, and each UID's times."""

    def __init__(self, path, tally):
        self.path, self.tally = path, tally
        self.reads = self.partial = self.foreign = 0
        self.versions, self.times, self.moved = set(), {}, []
        self.lock = threading.Lock()
        self.allowed = set()  # UIDs whose times may change (their data changed on purpose)
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            try:
                with open(self.path, "rb") as handle:
                    data = handle.read()
            except FileNotFoundError:
                time.sleep(0.5)
                continue
            with self.lock:
                self.reads += 1
                if not (data.startswith(b"BEGIN:VCALENDAR\r\n") and data.endswith(b"END:VCALENDAR\r\n")):
                    self.partial += 1
                elif b"\r\nX-BRADOS-PROFILE:default\r\n" not in data:
                    self.foreign += 1
                else:
                    self.versions.add(hash(data))
                    for event in parse_calendar(data):
                        uid, times = event.get("UID"), (event.get("DTSTART"), event.get("DTEND"))
                        if uid in self.times and self.times[uid] != times and uid not in self.allowed:
                            self.moved.append((uid, self.times[uid], times))
                        self.times[uid] = times
            time.sleep(0.5)

    def close(self):
        self.running = False
        self.thread.join(timeout=5)


class Follower:
    """`coach show ID --follow --json`, one session: what it printed, and what was stored while it followed."""

    def __init__(self, profile, conversation, folder, number):
        self.out = os.path.join(folder, f"follow-{number}.jsonl")
        self.handle = open(self.out, "w")
        self.process = subprocess.Popen([profile.binaries.brados, "coach", "show", conversation, "--follow", "--json", "--last", "1"],
                                        stdout=self.handle, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=profile.env,
                                        start_new_session=True)
        self.started = None   # when its tail was printed: messages stored after it must come as `added`
        self.expected = []    # (id, inserted at) while it followed

    def lines(self):
        with open(self.out, encoding="utf-8", errors="replace") as handle:
            return [json.loads(line) for line in handle if line.strip().startswith("{")]

    def ready(self):
        if self.started is None and any(line.get("event") == "conversation" for line in self.lines()):
            self.started = time.monotonic()
        return self.started is not None

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                kill_group(self.process)
        self.handle.close()

    def check(self, tally, margin):
        """Every message stored while it followed (until `margin` before it stopped) printed once, in order."""
        added = [line["message"]["id"] for line in self.lines() if line.get("event") == "added" and line.get("message")]
        duplicates = sorted({identifier for identifier in added if added.count(identifier) > 1})
        due = [identifier for identifier, at in self.expected if at <= margin]
        missing = [identifier for identifier in due if identifier not in added]
        order = [identifier for identifier in added if identifier in set(due)]
        if duplicates:
            tally.fail(f"the follower printed {len(duplicates)} messages twice: {duplicates[:3]}")
        elif missing:
            tally.fail(f"the follower missed {len(missing)} of {len(due)} messages: {missing[:3]}")
        elif order != [identifier for identifier in due if identifier in set(order)]:
            tally.fail(f"the follower printed messages out of order: {order[:5]}")
        else:
            tally.ok()
        return len(due), len(added)


class Soak:
    def __init__(self, options, tally, binaries, folder):
        self.options, self.tally, self.binaries, self.folder = options, tally, binaries, folder
        self.server = SoakServer(binaries, os.path.join(folder, "server"), options.token_ttl)
        os.makedirs(self.server.data)
        self.bus = Bus(folder, service=True)
        env = dict(TZ="UTC", BRADOS_CREDENTIALS_STORE="file", BRADOS_REALTIME_HEARTBEAT="2",
                   BRADOS_WATCH_RESTART="2", DBUS_SESSION_BUS_ADDRESS=self.bus.address)
        self.profile = Profile(binaries, home=os.path.join(folder, "home"), extra_env=env)
        os.makedirs(self.profile.home, exist_ok=True)
        self.calendar = os.path.join(folder, "calendar", "brados.ics")
        self.messages = []          # (id, conversation, text, inserted at)
        self.followers = []
        self.figures = {"days": 0, "events": [], "messages": 0, "visits added": 0, "weights sent": 0}
        self.plan_changes = 0
        self.samples = []
        self.number = 0
        self.steps = 0

    # --- the person's commands

    def brados(self, *arguments, env=None, check=True, stdin=None):
        result = self.profile.run(*arguments, env=env, stdin=stdin, timeout=180)
        if check and result.returncode != 0:
            self.tally.fail(f"brados {' '.join(arguments)[:80]} exited {result.returncode}: {result.stderr.strip()[-300:]!r}")
        return result

    def sign_in(self):
        self.brados("auth", "login", "--user", "demo", "--password-stdin", stdin="demo\n")
        self.brados("auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin", stdin="demo\n")

    def prepare(self):
        self.server.start()
        self.brados("config", "set", "server", self.server.url)
        self.brados("config", "set", "calendar.file", self.calendar)
        self.brados("config", "set", "notify.detail", "full")
        self.sign_in()
        listed = json.loads(self.brados("coach", "conversations", "--json").stdout)["conversations"]
        self.conversations = [conversation["id"] for conversation in listed[:2]]
        self.titles = {conversation["id"]: conversation.get("title") or "Untitled conversation" for conversation in listed}
        for conversation in self.conversations:
            self.brados("coach", "show", conversation, "--last", "1")
        for command in (["mealplan", "show"], ["visits", "list"], ["plan", "show"], ["sync"]):
            self.brados(*command)
        # A backup, for another profile's sync on its day.
        self.archive = os.path.join(self.folder, "backup.tar.zst")
        self.brados("cache", "export", "-o", self.archive)
        self.brados("cache", "import", self.archive, "--as", "restored")

    def start_watch(self):
        self.watch_log = open(os.path.join(self.folder, "watch.stderr"), "w")
        self.watch = subprocess.Popen([self.binaries.brados, "sync", "--watch", "--notify"], env=self.profile.env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=self.watch_log, start_new_session=True)
        self.wait_for(lambda: self.channels() >= 1, 60, "the watch joins its channel")

    def channels(self):
        try:
            return self.server.admin("GET", "/_admin/realtime-channels")["channels"]
        except OSError:
            return 0

    def wait_for(self, condition, seconds, what):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition():
                return True
            time.sleep(0.2)
        self.tally.fail(f"{what}: not within {seconds} s")
        return False

    def start_follower(self):
        self.number += 1
        follower = Follower(self.profile, self.conversations[0], self.folder, self.number)
        if self.wait_for(follower.ready, 60, f"follower {self.number} prints the conversation's tail"):
            self.followers.append(follower)
            return follower
        follower.stop()
        return None

    def stop_follower(self):
        if self.followers and self.followers[-1].process.poll() is None:
            self.followers[-1].stopped = time.monotonic()
            self.followers[-1].stop()

    # --- what every day brings

    def say(self):
        """One assistant message in one of the conversations, stored by the server's API."""
        index = len(self.messages)
        conversation = self.conversations[index % len(self.conversations)]
        identifier = f"soak-{index:05d}"
        text = f"soak message {index} in {conversation}"
        try:
            self.server.sql("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) "
                            "SELECT ?, id, user_id, 'assistant', ?, (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?",
                            identifier, text, conversation)
        except OSError:
            return  # the server is away (its outage): no message then
        at = time.monotonic()
        self.messages.append((identifier, conversation, text, at))
        follower = self.followers[-1] if self.followers else None
        if follower and follower.process.poll() is None and conversation == self.conversations[0]:
            follower.expected.append((identifier, at))

    def everyday(self, until):
        """Messages every few seconds, a visit and a weight from another terminal now and then."""
        while time.monotonic() < until:
            self.say()
            self.steps += 1
            step = self.steps
            if step % 7 == 0:
                when = (dt.datetime.now(UTC) + dt.timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:00Z")
                tz = ["UTC", "Asia/Tokyo", "America/New_York"][step % 3]
                if self.brados("visits", "add", "--place", f"Soak Clinic {step}", "--at", when, "--duration", "20",
                               env={"TZ": tz}, check=False).returncode == 0:
                    self.figures["visits added"] += 1
            if step % 11 == 0:
                if self.brados("plan", "weight", f"{84 + (step % 5) / 10:.1f}", check=False).returncode == 0:
                    self.figures["weights sent"] += 1
            time.sleep(self.options.message_every)

    # --- each day's trouble

    def outage(self):
        self.server.stop()
        time.sleep(15)
        self.server.start()

    def move(self):
        self.stop_follower()
        self.server.stop()
        self.server.start(port=free_port())
        self.brados("config", "set", "server", self.server.url)
        self.sign_in()
        self.start_follower()

    def revoke(self):
        self.stop_follower()
        self.server.sql("DELETE FROM token WHERE session IS NOT NULL")
        self.server.admin("POST", "/_admin/expire-tokens")
        self.say()
        time.sleep(10)
        self.brados("auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin", stdin="demo\n")
        self.start_follower()

    def rate_limits(self):
        self.server.admin("POST", "/_admin/faults", {"match": "GET /api/visits", "status": 429, "retryAfter": 20, "count": 5})
        self.server.admin("POST", "/_admin/faults", {"match": "POST /v1/plans/generate", "status": 429, "retryAfter": 20, "count": 3})

    def pause_watch(self):
        os.killpg(self.watch.pid, signal.SIGSTOP)
        time.sleep(10)
        os.killpg(self.watch.pid, signal.SIGCONT)

    def other_profile(self):
        before = open(self.calendar, "rb").read() if os.path.exists(self.calendar) else None
        result = self.brados("--profile", "restored", "sync", check=False)
        after = open(self.calendar, "rb").read() if os.path.exists(self.calendar) else None
        if "X-BRADOS-PROFILE:default" not in (after or b"").decode("utf-8", "replace"):
            self.tally.fail(f"another profile's sync (exit {result.returncode}) wrote calendar.file")
        elif before is not None and after != before and result.returncode == 0:
            # The watch may have written it meanwhile: still this profile's, as checked.
            self.tally.ok()
        else:
            self.tally.ok()

    def time_zones(self):
        self.brados("sync", env={"TZ": "Asia/Tokyo"}, check=False)
        self.brados("visits", "list", env={"TZ": "America/New_York"}, check=False)
        self.brados("mealplan", "new", check=False)
        self.brados("mealplan", "finalize", check=False)
        # The new plan changes meals from today on: their times stay; their text may not.

    def plan_changed(self):
        # First what the person's own changes brought (a recompute a 429 refused is answered by
        # the next plan fetched, theirs, and quiet): the service's change alone is news.
        self.brados("plan", "refresh", check=False)
        time.sleep(3)
        calories = 1900 + 37 * self.plan_changes
        self.server.sql(f"UPDATE nutrition_plan SET document = json_set(document, '$.targets.calorieTarget', {calories})")
        if self.brados("plan", "refresh", check=False).returncode == 0:
            self.plan_changes += 1

    DAYS = ["outage", "move", "revoke", "rate_limits", "pause_watch", "other_profile", "time_zones", "plan_changed"]

    # --- the checks of each day and of the end

    def check_calendar(self):
        """The visits in calendar.file are the cache's (in its window)."""
        listed = self.brados("visits", "list", "--offline", "--json", check=False)
        if listed.returncode != 0 or not os.path.exists(self.calendar):
            return
        visits = {f"visits-{visit['id']}@brados" for visit in json.loads(listed.stdout)["visits"]}
        deadline = time.monotonic() + 20
        while True:
            with open(self.calendar, "rb") as handle:
                events = {event["UID"] for event in parse_calendar(handle.read()) if event.get("UID", "").startswith("visits-")}
            # The file reaches back to the start (Monday, display.week-start's default) of the
            # week four weeks ago, in the machine's days: a visit older is the cache's only.
            first = dt.datetime.now().astimezone().date() - dt.timedelta(days=28)
            monday = first - dt.timedelta(days=first.weekday())
            window = dt.datetime.combine(monday, dt.time(0, 0)).astimezone()
            old = {f"visits-{visit['id']}@brados" for visit in json.loads(listed.stdout)["visits"]
                   if dt.datetime.fromisoformat(visit["visitedAt"].replace("Z", "+00:00")) < window}
            if events == visits - old or time.monotonic() > deadline:
                break
            time.sleep(1)
            listed = self.brados("visits", "list", "--offline", "--json", check=False)
            visits = {f"visits-{visit['id']}@brados" for visit in json.loads(listed.stdout)["visits"]}
        if events != visits - old:
            self.tally.fail(f"day {self.figures['days']}: calendar.file's visits are not the cache's (of the last four weeks): "
                            f"{len(events - (visits - old))} more, {len((visits - old) - events)} missing")
        else:
            self.tally.ok()

    def sample(self):
        try:
            with open(f"/proc/{self.watch.pid}/status") as handle:
                rss = next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))
            fds = len(os.listdir(f"/proc/{self.watch.pid}/fd"))
            self.samples.append((rss, fds))
        except (OSError, StopIteration):
            pass

    def check_notifications(self):
        calls = self.bus.calls()
        texts = {text: conversation for _, conversation, text, _ in self.messages}
        coach = [call for call in calls if '"category": "im.received"' in call[5]]
        plan = [call for call in calls if call[3] == "Your nutrition plan changed"]
        wrong = []
        for _, _, _, summary, body, _ in coach:
            if ACROSS.fullmatch(summary):
                if not all(any(title in body for title in self.titles.values()) for _ in [0]):
                    wrong.append(summary)
                continue
            title = TITLED.fullmatch(summary)[1] if TITLED.fullmatch(summary) else summary
            conversation = next((texts[text] for text in texts if body.endswith(text)), None)
            if conversation is None or self.titles.get(conversation) != title:
                wrong.append(f"{summary!r} over {body[-60:]!r}")
        if wrong:
            self.tally.fail(f"{len(wrong)} of {len(coach)} coach notifications not titled by their conversation: {wrong[:3]}")
        else:
            self.tally.ok()
        if self.plan_changes and not plan:
            self.tally.fail(f"the service changed the plan {self.plan_changes} times, and no notification said so")
        elif len(plan) > self.plan_changes:
            self.tally.fail(f"{len(plan)} plan notifications for {self.plan_changes} changes of the service's: the person's own weights notified")
        else:
            self.tally.ok()
        self.figures["notifications"] = {"coach": len(coach), "of bursts across conversations": sum(bool(ACROSS.fullmatch(c[3])) for c in coach),
                                         "plan": len(plan), "plan changes by the service": self.plan_changes, "others": len(calls) - len(coach) - len(plan)}

    def check_watch(self):
        log = open(self.watch_log.name, encoding="utf-8", errors="replace").read()
        lines = log.splitlines()
        gone = sum("cannot be reached" in line for line in lines)
        back = sum("answers again" in line for line in lines)
        signin = sum("waits for the sign-in" in line for line in lines)
        outages = sum(1 for name in self.figures["events"] if name in ("outage", "move"))
        self.figures["the watch's lines"] = {"in all": len(lines), "cannot be reached": gone, "answers again": back,
                                             "sign in again": signin, "configuration changed": sum("configuration changed" in line for line in lines)}
        problems = []
        if "Ctrl-C" in log:
            problems.append("a line says Ctrl-C")
        if any(marker in log for marker in CRASH_MARKERS):
            problems.append("a crash on its stderr")
        if gone > outages + 1 or back > outages + 1:
            problems.append(f"{gone} lines 'cannot be reached' and {back} 'answers again' for {outages} outages")
        # A revocation is one service's session; a move asks each service the profile is signed in
        # to once (every one of them is signed in to the old address until `auth login`).
        revokes, moves = self.figures["events"].count("revoke"), self.figures["events"].count("move")
        if signin > revokes + moves * len(SIGNED_IN_SERVICES) + 1:
            problems.append(f"{signin} sign-in lines for {revokes} revocations and {moves} moves")
        renewed = sum("the sign-ins changed" in line for line in lines)
        # A move signs in twice (the account, then supabase): at most a line each.
        if renewed > 2 * moves + 1:
            problems.append(f"{renewed} lines 'the sign-ins changed' for {moves} moves: a renewed token is no new sign-in")
        if len(lines) > 40 * max(self.figures["days"], 1):
            problems.append(f"{len(lines)} lines in {self.figures['days']} days")
        for problem in problems:
            self.tally.fail(f"the watch's log: {problem}")
        if not problems:
            self.tally.ok()

    def run(self):
        self.prepare()
        self.subscriber = Subscriber(self.calendar, self.tally)
        self.start_watch()
        self.start_follower()
        day = self.options.round_seconds
        ends = time.monotonic() + self.options.minutes * 60
        last_sample = 0.0
        while time.monotonic() < ends:
            name = self.DAYS[self.figures["days"] % len(self.DAYS)]
            self.figures["days"] += 1
            self.figures["events"].append(name)
            started = time.monotonic()
            getattr(self, name)()
            until = min(started + day, ends)
            while time.monotonic() < until:
                self.everyday(min(until, time.monotonic() + 30))
                if time.monotonic() - last_sample > 60:
                    self.sample()
                    last_sample = time.monotonic()
                if self.watch.poll() is not None:
                    self.tally.fail(f"the watch exited {self.watch.returncode} on day {self.figures['days']} ({name})")
                    return
            self.check_calendar()
        self.finish()

    def finish(self):
        time.sleep(8)  # what was said last reaches the cache, the follower and the desktop
        margin = time.monotonic() - 8
        self.stop_follower()
        self.sample()
        due = printed = 0
        for follower in self.followers:
            session_due, session_printed = follower.check(self.tally, min(margin, getattr(follower, "stopped", margin) - 8))
            due, printed = due + session_due, printed + session_printed
        self.figures["follower"] = {"sessions": len(self.followers), "messages due": due, "printed (added)": printed}
        self.figures["messages"] = len(self.messages)
        self.check_notifications()
        self.check_watch()
        self.subscriber.close()
        sub = self.subscriber
        self.figures["calendar.file"] = {"reads": sub.reads, "versions": len(sub.versions), "partial": sub.partial,
                                         "another profile's": sub.foreign, "UIDs whose times moved": len(sub.moved)}
        if sub.partial or sub.foreign:
            self.tally.fail(f"calendar.file: {sub.partial} partial reads, {sub.foreign} of another profile")
        else:
            self.tally.ok()
        if sub.moved:
            self.tally.fail(f"calendar.file: {len(sub.moved)} UIDs' times moved: {sub.moved[:2]}")
        else:
            self.tally.ok()
        if self.samples:
            rss, fds = [s[0] for s in self.samples], [s[1] for s in self.samples]
            self.figures["memory (KiB)"] = f"first {rss[0]}, last {rss[-1]}, highest {max(rss)}"
            self.figures["file descriptors"] = f"first {fds[0]}, last {fds[-1]}, highest {max(fds)}"
            if len(self.samples) >= 3 and (rss[-1] > rss[1] * 1.5 + 20_000 or fds[-1] > fds[1] + 12):
                self.tally.fail(f"the watch grew: memory {rss[1]} → {rss[-1]} KiB, fds {fds[1]} → {fds[-1]}")
            else:
                self.tally.ok()
        self.watch.send_signal(signal.SIGTERM)
        try:
            code = self.watch.wait(timeout=30)
        except subprocess.TimeoutExpired:
            kill_group(self.watch)
            code = None
        if code != 143:
            self.tally.fail(f"the watch exited {code} on SIGTERM, not 143")
        else:
            self.tally.ok()

    def close(self):
        for follower in self.followers:
            follower.stop()
        if getattr(self, "watch", None) and self.watch.poll() is None:
            kill_group(self.watch)
        self.server.stop()
        self.bus.close()


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--minutes", type=float, default=30, help="minutes the watch runs")
    parser.add_argument("--round-seconds", type=float, default=200, help="seconds a day of the week takes (its trouble, then every day's)")
    parser.add_argument("--token-ttl", type=int, default=120, help="the server's access-token lifetime, seconds (sessions renewed all along)")
    parser.add_argument("--message-every", type=float, default=3.0, help="real seconds between assistant messages")
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    require("dbus-daemon")
    tally = Tally("soak")
    folder = tempfile.mkdtemp(prefix="brados-soak-")
    soak = Soak(options, tally, binaries, folder)
    try:
        soak.run()
    finally:
        soak.close()
    tally.figures.update(soak.figures)
    result = tally.report()
    print(json.dumps(result))
    if tally.failures:
        print(f"soak: kept for a look: {folder}", file=sys.stderr)
    else:
        shutil.rmtree(folder, ignore_errors=True)
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
