#!/usr/bin/env python3
"""Calendar and notifications: hostile text in `brados calendar`'s iCalendar, and floods of
news under `sync --watch --notify`, with nothing lost and the watch alive (issue 57).

Hostile calendar text. A brados-server whose visits' place, notes and address hold
iCalendar syntax (END:VCALENDAR, BEGIN:VEVENT, UID:, DTSTART: on lines of their own, after
CRLFs, bare LFs or bare CRs), every C0 control but NUL (no argument and no string the
reference server binds carries one), DEL, the C1 controls (U+0085 among them), U+2028 and
U+2029, combining characters, RTL marks, emoji, characters across the 75-octet folds, 2,000
characters of notes (the server's limit), a 100 KB address and one 100 KB character (a base
and 50,000 combining marks), added by `brados visits add`; 100 KB notes and a 100 KB place,
past the API's limits, written by the admin SQL route; two recipes of the meal plan and a
third meal's ingredients alike; and --visits more from a seeded random generator (every 4th
by SQL, longer). Then
`brados visits list --refresh`, `brados mealplan show` and `brados calendar -o FILE --json`,
and FILE is read here without a calendar library:
- one BEGIN:VCALENDAR and one END:VCALENDAR, first and last; VEVENTs inside, never nested,
  each with a UID, DTSTAMP, DTSTART, DTEND and SUMMARY, no property twice, none brados does
  not write;
- every line at most 75 octets, valid UTF-8 on its own (no character split by a fold), ending
  in CRLF; no other CR or LF, no control character (a fold's leading space aside);
- TEXT values: `;` and `,` escaped, no escape but `\\\\ \\; \\, \\n`; unfolded and unescaped,
  each SUMMARY, DESCRIPTION and LOCATION is what --json says less what brados drops (a CRLF or
  a bare CR is a line break, other controls go); --json says the visit's own text (the place;
  the notes, then the duration line; the address, or the place) and the meal's recipe;
- one VEVENT a visit and a meal (the cached plan's meals from its week through 14 days from
  today, counted here), UIDs unique, times and sequences as --json says.
Nothing lost: `visits list --offline --json` and `mealplan show --offline --json` still hold
every text exactly as the server has it (and as `visits add` was given it). Then calendar.file:
`config set calendar.file`, and --syncs rounds of a hostile visit added and `brados sync`, while
a thread reads the file in a loop: every read a whole VCALENDAR and one of the files a sync
left (goal: 0 partial reads); the file 0600, nothing beside it, equal byte for byte to
`brados calendar`'s output.

Notification floods. A private D-Bus session bus with python-dbusmock's notification
service (each Notify call logged), a profile signed in to both services with
--conversations conversations cached, and `brados sync --watch --notify` following the server
(Realtime). --flood assistant messages within one second across those conversations (batches
of 50, alternately through the admin SQL route and the server's SQLite file), then, once the
domain's window has passed, one more in the first conversation. Checks:
- the watch (--verbose: its reconnects are counted) alive all along, exit 143 on SIGTERM, no
  crash and no notice on stderr;
- every message in the cache with its text (`coach show ID --offline --json`);
- at most --max-notifications Notify calls for the flood, at least 5 s apart (one a domain a
  window), each titled by its conversation ("Title: N new messages from your coach") or, for
  a burst across conversations, "N new messages from your coach in K conversations" naming
  each; the one more titled by its conversation;
- the notifications left on screen (each id's last call: a call with replaces_id takes its
  place) count every message told, after the flood and after the one more; the flood's last
  names the newest message (after a reconnect: the newest of a conversation), the one more's
  names it;
- no session bus (DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent) and a bus with no
  notification service: the same flood and one more give exactly one notice line on stderr
  ("sync --watch --notify: ..."), the watch alive and every message cached.

Figures: hostile visits by kind, events checked, the calendar's size, reads of calendar.file
(partial: goal 0), texts lost (goal 0); per bus: Notify calls and their counts, what the
notifications left on screen count, how long the cache took to hold the flood, notices.

    python3 reliability/calendar_notify.py [--visits 200] [--syncs 20] [--flood 1000] [--seed 57] [--build-dir .build] [--configuration debug]
"""
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from calendar import timegm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Binaries, Profile, Server, Tally, kill_group, require, suite_parser  # noqa: E402

CRASH_MARKERS = ("Fatal error", "Stack dump", "Backtrace", "Current stack trace", "SIGSEGV", "SIGILL", "panic")
# What brados drops from a TEXT value: C0 (tab included), DEL, C1; CR and LF become line breaks.
CONTROLS = frozenset(range(0x20)) | {0x7F} | frozenset(range(0x80, 0xA0))
TEXT_PROPERTIES = ("SUMMARY", "DESCRIPTION", "LOCATION")
EVENT_PROPERTIES = {"UID", "DTSTAMP", "LAST-MODIFIED", "SEQUENCE", "DTSTART", "DTEND"} | set(TEXT_PROPERTIES)
REQUIRED = ("UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY")
CALENDAR_PROPERTIES = {"VERSION", "PRODID", "CALSCALE", "X-WR-CALNAME", "X-BRADOS-PROFILE"}
TIME = re.compile(r"\d{8}T\d{6}Z?")  # UTC (a visit), or floating (a meal at its hour)
NAME = re.compile(r"[A-Z][A-Z0-9-]*")

ICAL = ("END:VCALENDAR\r\nBEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:19700101T000000Z\r\n"
        "SUMMARY:injected\r\nEND:VEVENT\r\nEND:VCALENDAR")
C0 = "".join(chr(code) for code in range(1, 0x20))  # NUL cannot be an argument, and the server's binding ends a string there
C1 = "".join(chr(code) for code in range(0x80, 0xA0))
PIECES = ["END:VCALENDAR", "BEGIN:VCALENDAR", "BEGIN:VEVENT", "END:VEVENT", "UID:x", "DTSTART:19700101T000000Z",
          "SUMMARY:injected", "\r\n", "\n", "\r", ";", ",", "\\", "\\n", "\\;", "\\,", ":", "\"", " ", "\t", "\u2028",
          "\u2029", "\u0085", "\x7f", "\u00e9", "\u20ac", "\U0001F600", "e\u0301\u0302", "\u200f", "\u202e", "\u202c",
          "\u200d", "\U0001F469\u200d\U0001F469\u200d\U0001F467", "\U0001F1FA\U0001F1F3", "\ufeff", "\U0010FFFD", "word"]
KB100 = 100 * 1024
INSERT_VISIT = ("INSERT INTO visit (id, userId, place, address, visitedAt, durationMinutes, notes, createdAt) "
                "SELECT ?, id, ?, ?, CAST(? AS REAL), CAST(? AS INTEGER), ?, CAST(? AS REAL) FROM user WHERE username = 'demo'")
INSERT_MESSAGE = ("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) "
                  "SELECT ?, id, user_id, 'assistant', ?, (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?")
BATCH = 50
NOTIFY = re.compile(r'(\d+\.\d+) Notify "([^"]*)" (\d+) "([^"]*)" "([^"]*)" "(.*?)" \[\] \{([^}]*)\} -?\d+\n', re.S)
ONE = "New message from your coach"
MANY = re.compile(r"(\d+) new messages from your coach")
# A burst across conversations is a notification of its own; one conversation's is titled by it.
ACROSS = re.compile(r"(\d+) new messages from your coach in (\d+) conversations")
TITLED = re.compile(r".*: (\d+) new messages from your coach")


def sql(server, statement, *arguments):
    """One statement through the admin route; arguments are text or None."""
    return server.admin("POST", "/_admin/sql", {"sql": statement,
                                                "arguments": [None if a is None else str(a) for a in arguments]})["rows"]


def run_bytes(profile, *args, timeout=120):
    """`brados args`, stdout as bytes."""
    return subprocess.run([profile.binaries.brados, *args], capture_output=True, env=profile.env, timeout=timeout)


def calendar_text(value):
    """What a TEXT value of `value` holds once unescaped: a CRLF, a bare CR, U+2028 or U+2029 a
    line break, every other control character dropped."""
    value = value.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    return "".join(char for char in value if char == "\n" or ord(char) not in CONTROLS)


def ics_time(stamp):
    """`2026-10-12T11:45:00.000Z` (brados's JSON) as an iCalendar UTC time."""
    return stamp[:19].replace("-", "").replace(":", "") + "Z"


def epoch_time(seconds):
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(int(seconds // 1)))


def unescape(value):
    """A TEXT value unescaped (RFC 5545 3.3.11), and what is wrong with it."""
    out, wrong, index = [], [], 0
    while index < len(value):
        char = value[index]
        if char == "\\":
            following = value[index + 1:index + 2]
            if following in ("\\", ";", ","):
                out.append(following)
            elif following in ("n", "N"):
                out.append("\n")
            else:
                wrong.append(f"the escape \\{following!r}")
            index += 2
            continue
        if char in ";,":
            wrong.append(f"an unescaped {char!r}")
        out.append(char)
        index += 1
    return "".join(out), wrong


def read_calendar(data):
    """(problems, events): iCalendar bytes checked line by line, then as components; each
    event a dict of its properties, TEXT ones unescaped."""
    problems = []
    if not data.endswith(b"\r\n"):
        problems.append("the file does not end in CRLF")
    physical = data.split(b"\r\n")
    if physical and physical[-1] == b"":
        physical.pop()
    logical = []
    for number, raw in enumerate(physical, 1):
        if b"\r" in raw or b"\n" in raw:
            problems.append(f"line {number}: a bare CR or LF: {raw[:60]!r}")
        if len(raw) > 75:
            problems.append(f"line {number}: {len(raw)} octets")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(f"line {number}: not UTF-8 on its own (a character split by a fold): {error}")
            text = raw.decode("utf-8", "replace")
        controls = sorted({hex(ord(char)) for index, char in enumerate(text)
                           if ord(char) in CONTROLS and not (index == 0 and char == "\t" and number > 1)} - {"0xd", "0xa"})
        if controls:
            problems.append(f"line {number}: control characters {controls}")
        if raw[:1] in (b" ", b"\t") and logical:
            logical[-1] += raw[1:]
        else:
            logical.append(raw)
    lines = [raw.decode("utf-8", "replace") for raw in logical]
    if lines.count("BEGIN:VCALENDAR") != 1 or lines.count("END:VCALENDAR") != 1:
        problems.append(f"{lines.count('BEGIN:VCALENDAR')} BEGIN:VCALENDAR and {lines.count('END:VCALENDAR')} END:VCALENDAR lines")
    if not lines or lines[0] != "BEGIN:VCALENDAR" or lines[-1] != "END:VCALENDAR":
        problems.append(f"the file starts {lines[:1]!r} and ends {lines[-1:]!r}")
    events, stack, current = [], [], None
    for line in lines:
        name, colon, value = line.partition(":")
        if not colon or not NAME.fullmatch(name):
            problems.append(f"not a content line: {line[:80]!r}")
            continue
        if name == "BEGIN":
            if (value, stack) not in (("VCALENDAR", []), ("VEVENT", ["VCALENDAR"])):
                problems.append(f"BEGIN:{value[:40]} inside {stack}")
            stack.append(value)
            current = {} if value == "VEVENT" else current
        elif name == "END":
            if not stack or stack[-1] != value:
                problems.append(f"END:{value[:40]} closes {stack}")
                continue
            stack.pop()
            if value == "VEVENT":
                events.append(current)
                current = None
        elif stack == ["VCALENDAR", "VEVENT"]:
            if name not in EVENT_PROPERTIES:
                problems.append(f"a property brados does not write: {line[:80]!r}")
            if name in current:
                problems.append(f"{name} twice in an event ({current.get('UID')})")
            if name in TEXT_PROPERTIES:
                value, wrong = unescape(value)
                problems += [f"{name} of {current.get('UID')}: {what}" for what in sorted(set(wrong))]
            current[name] = value
        elif stack == ["VCALENDAR"]:
            if name not in CALENDAR_PROPERTIES:
                problems.append(f"a calendar property brados does not write: {line[:80]!r}")
        else:
            problems.append(f"{name} outside a component: {line[:80]!r}")
    if stack:
        problems.append(f"left open: {stack}")
    for event in events:
        missing = [name for name in REQUIRED if name not in event]
        if missing:
            problems.append(f"{event.get('UID')}: no {missing}")
        for name in ("DTSTAMP", "LAST-MODIFIED", "DTSTART", "DTEND"):
            if name in event and not TIME.fullmatch(event[name]):
                problems.append(f"{event.get('UID')}: {name} {event[name][:40]!r}")
    return problems, events


def whole(data):
    """A quick look: a whole VCALENDAR (what a reader of calendar.file must always get)."""
    return (data.startswith(b"BEGIN:VCALENDAR\r\n") and data.endswith(b"\r\nEND:VCALENDAR\r\n")
            and data.count(b"\r\nBEGIN:VEVENT\r\n") == data.count(b"\r\nEND:VEVENT\r\n"))


def hostile_text(rng, size):
    """About `size` characters of iCalendar syntax, escapes, controls, separators and emoji."""
    out, length = [], 0
    while length < size:
        draw = rng.random()
        if draw < 0.15:
            piece = rng.choice(C0)
        elif draw < 0.2:
            piece = rng.choice(C1)
        elif draw < 0.3:
            piece = "x" * rng.randint(1, 90)  # long runs: folds fall everywhere
        else:
            piece = rng.choice(PIECES)
        out.append(piece)
        length += len(piece)
    return "".join(out)[:size]


def to_size(unit, octets):
    """`unit` repeated to `octets` bytes of UTF-8 (whole characters)."""
    text = unit * (octets // len(unit.encode()) + 1)
    while len(text.encode()) > octets:
        text = text[:-1]
    return text


def named_visits():
    """The named cases: (what, place, notes, address, by) where by is `cli` (`visits add`) or `sql`."""
    interleaved = "".join(char + "x" for char in C0)
    cases = [
        ("iCalendar syntax on lines of their own (CRLF)", "END:VCALENDAR", ICAL, "BEGIN:VEVENT\r\nUID:x\r\nDTSTART:20000101T000000Z", "cli"),
        ("iCalendar syntax after bare LFs and bare CRs", "BEGIN:VEVENT\nUID:x", ICAL.replace("\r\n", "\n"), ICAL.replace("\r\n", "\r"), "cli"),
        ("escapes and separators", "a;b,c\\d:e\\n", "\\n is no line break; \\; \\, \\\\ ;,;,\\", "\\", "cli"),
        ("every C0 control but NUL", "C0 " + interleaved + " end", C0 + "after", "x".join(C0), "cli"),
        ("DEL and the C1 controls (NEL among them)", "DEL\x7fC1" + C1 + "end", "\x7f" + C1 + "\u0085next", C1 + "\x7f", "cli"),
        ("line and paragraph separators, VT, FF", "L\u2028P\u2029V\x0bF\x0cend", "one\u2028two\u2029three\x0bfour\x0cfive", "\u2028\u2029", "cli"),
        ("bare CR, CRLF, CR CR LF, LF CR", "a\rb\r\nc", "a\rb\r\nc\r\r\nd\n\re\r", "\r\n\r\n\r", "cli"),
        ("combining characters, RTL marks, emoji", "Zalgo " + "a\u0335\u0321\u0362" * 10,
         "\u200f\u05e9\u05dc\u05d5\u05dd\u200e \u202eevil\u202c \U0001F469\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
         "\U0001F1FA\U0001F1F3\U0001F3F3\ufe0f\u200d\U0001F308 e\u0301", "\u202eReversed \U0001F600", "cli"),
        ("a place with spaces and line breaks around it", " \r\n\tTrimmed by the server\r\n ", None, None, "cli"),
        ("empty notes and address", "Empty", "", "", "cli"),
        ("2,000 characters of notes (the server's limit)", "Limit", ("END:VCALENDAR;,\\\u20ac\U0001F600\u0301" * 300)[:2000],
         None, "cli"),
        ("a 100 KB address", "Big address", "notes", to_size("END:VCALENDAR\r\n;,\\ \u00e9\u20ac\U0001F600\x01\u0085 ", KB100), "cli"),
        ("one 100 KB character: a base and 50,000 combining marks", "Combining", "a" + "\u0301" * 50000, None, "cli"),
        ("100 KB of notes, past the API's limit", "Long notes", to_size("BEGIN:VEVENT\r\n;,\\\u20ac\U0001F600\x1b[31m\r", KB100), None, "sql"),
        ("a 100 KB place, past the API's limit", to_size("Place;,\\\r\nEND:VCALENDAR\U0001F600", KB100), None, "addr", "sql"),
    ]
    for offset in range(4):  # multi-octet characters across the 75-octet folds, at each offset
        cases.append((f"folds across multi-octet characters (offset {offset})", "x" * offset + "\u00e9" * 40,
                      "x" * offset + "\u20ac" * 100 + "\U0001F600" * 60, "x" * offset + "\U0001F600" * 50 + "\u0301" * 40, "cli"))
    return cases


def random_visits(rng, count):
    """`count` random hostile visits; every 4th by SQL (longer than the API takes)."""
    visits = []
    for index in range(count):
        by = "sql" if index % 4 == 3 else "cli"
        place = "P" + hostile_text(rng, rng.randint(0, 600 if by == "sql" else 120)) + "Q"
        notes = None if rng.random() < 0.15 else hostile_text(rng, rng.randint(0, 20000 if by == "sql" else 1800))
        size = 25000 if rng.random() < 0.05 else rng.randint(0, 3000)
        address = None if rng.random() < 0.2 else hostile_text(rng, size)
        visits.append((f"random {index}", place, notes, address, by))
    return visits


class Poller(threading.Thread):
    """Reads calendar.file in a loop; every read must be a whole VCALENDAR."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.reads = 0
        self.missing = 0
        self.partial = []
        self.seen = set()
        self.halt = threading.Event()

    def run(self):
        while not self.halt.is_set():
            try:
                with open(self.path, "rb") as handle:
                    data = handle.read()
            except FileNotFoundError:
                self.missing += 1
                continue
            self.reads += 1
            digest = hashlib.sha256(data).hexdigest()
            if digest in self.seen:
                continue
            self.seen.add(digest)
            if not whole(data):
                self.partial.append(f"{len(data)} bytes, starting {data[:20]!r}, ending {data[-20:]!r}")


class Calendar:
    """Part 1: hostile text in the calendar, and calendar.file under syncs."""

    def __init__(self, options, tally, server, profile, outside):
        self.options = options
        self.tally = tally
        self.server = server
        self.profile = profile
        self.outside = outside
        self.rng = random.Random(options.seed)
        self.sent = {}  # visit id -> (place, notes, address) as given to `visits add`
        self.kinds = {"named": 0, "random": 0, "by visits add": 0, "by SQL": 0}
        self.recipes = []
        self.lost = 0

    def add(self, what, place, notes, address, by, at):
        if by == "cli":
            args = ["visits", "add", "--json", *option("place", place), f"--at={time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(at))}",
                    f"--duration={self.rng.randint(1, 1440)}"]
            args += option("notes", notes) if notes is not None else []
            args += option("address", address) if address is not None else []
            result = self.profile.run(*args)
            if result.returncode != 0:
                self.tally.fail(f"`visits add` of {what}: exit {result.returncode}: {result.stderr.strip()[:300]!r}")
                return
            identifier = json.loads(result.stdout)["visit"]["id"]
            self.sent[identifier] = (place, notes, address)
            self.kinds["by visits add"] += 1
        else:
            identifier = f"v_rel{len(self.sent):05d}"
            sql(self.server, INSERT_VISIT, identifier, place, address, at, self.rng.randint(1, 1440), notes, time.time())
            self.sent[identifier] = (place, notes, address)
            self.kinds["by SQL"] += 1

    def hostile_meals(self):
        """Two recipes of the demo plan and a third meal's ingredients hostile (before it is cached)."""
        self.recipes = ["END:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:meal\r\nDTSTART:19700101T000000Z",
                        C0 + C1 + "\u2028;,\\" + "\U0001F600" * 30 + "\u0301" * 5]
        ingredients = json.dumps(["a,b;c", "END:VEVENT\r\n", "\u0085\x7f\\", "\U0001F600" * 40])
        sql(self.server, "UPDATE mealplanSession SET body = CAST(json_set(CAST(body AS TEXT), '$.days[0].meals[0].recipeName', ?, "
            "'$.days[1].meals[1].recipeName', ?, '$.days[2].meals[2].ingredients', json(?)) AS BLOB) "
            "WHERE userId = (SELECT id FROM user WHERE username = 'demo')", self.recipes[0], self.recipes[1], ingredients)
        self.profile.must("mealplan", "show", "--json")

    def add_visits(self):
        now = time.time()
        for index, (what, place, notes, address, by) in enumerate(named_visits()):
            self.add(what, place, notes, address, by, now - 3600 * (index + 1))
            self.kinds["named"] += 1
        for what, place, notes, address, by in random_visits(self.rng, self.options.visits):
            self.add(what, place, notes, address, by, now - self.rng.randint(60, 120 * 86400))
            self.kinds["random"] += 1
        self.profile.must("visits", "list", "--refresh")

    def server_visits(self):
        rows = sql(self.server, "SELECT id, place, address, notes, durationMinutes, visitedAt FROM visit "
                                "WHERE userId = (SELECT id FROM user WHERE username = 'demo')")
        return {row[0]: {"place": row[1], "address": row[2], "notes": row[3], "duration": row[4], "visitedAt": row[5]} for row in rows}

    def plan(self):
        return json.loads(self.profile.must("mealplan", "show", "--offline", "--json").stdout)["session"]

    def expected_meals(self, plan, now):
        """The plan's meals from the Monday of the week it was finalized in (UTC: the profile's
        TZ) through 14 days from today, as the calendar's default range holds them."""
        planned = plan.get("finalizedAt") or plan["createdAt"]
        day = timegm(time.strptime(planned[:10], "%Y-%m-%d")) // 86400
        day -= (day + 3) % 7  # 1970-01-01 was a Thursday: back to the Monday
        end = int(now // 86400) + 15
        meals = {entry["day"]: len(entry["meals"]) for entry in plan["days"]}
        return sum(meals.get((number + 3) % 7, 0) for number in range(day, end))

    def check_export(self):
        """`brados calendar -o FILE --json`: the file read here against --json and the server's rows."""
        path = os.path.join(self.outside, "export.ics")
        before = time.time()
        result = self.profile.run("calendar", "-o", path, "--json", "--from", "2000-01-01")  # every visit, past the 4-week window
        after = time.time()
        if result.returncode != 0:
            self.tally.fail(f"`calendar -o FILE --json` exited {result.returncode}: {result.stderr.strip()[:300]!r}")
            return
        listed = json.loads(result.stdout)
        with open(path, "rb") as handle:
            data = handle.read()
        lines = data.count(b"\r\n")
        self.tally.figures["calendar"] = f"{len(data)} bytes, {lines} lines, {len(listed['events'])} events"
        problems, events = read_calendar(data)
        if problems:
            self.tally.fail(f"the .ics: {len(problems)} problems: {problems[:5]}")
        else:
            self.tally.ok()
        self.compare(events, listed["events"], before, after)

    def compare(self, events, listed, before, after):
        tally = self.tally
        uids = [event.get("UID") for event in events]
        if len(set(uids)) != len(uids) or len({event["uid"] for event in listed}) != len(listed):
            tally.fail(f"UIDs not unique: {len(uids) - len(set(uids))} repeated in the file")
        by_uid = {event.get("UID"): event for event in events}
        visits = self.server_visits()
        plan = self.plan()
        recipes = {meal["recipeName"] for day in plan["days"] for meal in day["meals"]}
        meal_counts = {self.expected_meals(plan, before), self.expected_meals(plan, after)}
        listed_visits = [event for event in listed if event["uid"].startswith("visits-")]
        listed_meals = [event for event in listed if event["uid"].startswith("mealplan-")]
        if len(events) != len(listed) or len(listed) != len(listed_visits) + len(listed_meals):
            tally.fail(f"{len(events)} VEVENTs in the file, {len(listed)} events in --json "
                       f"({len(listed_visits)} visits, {len(listed_meals)} meals)")
        if {event["uid"] for event in listed_visits} != {f"visits-{identifier}@brados" for identifier in visits}:
            tally.fail(f"the calendar's visits are not the server's: {len(listed_visits)} events, {len(visits)} visits")
        if len(listed_meals) not in meal_counts:
            tally.fail(f"{len(listed_meals)} meals in the calendar, {meal_counts} in the plan's weeks through 14 days from today")
        for recipe in self.recipes:
            if not any(event["summary"].endswith(": " + recipe) for event in listed_meals):
                tally.fail(f"the renamed meal {recipe[:30]!r} is in no event")
        mismatched = 0
        for event in listed:
            uid = event["uid"]
            found = by_uid.get(uid)
            problems = []
            if found is None:
                problems.append("not in the file")
            else:
                for name, key in (("SUMMARY", "summary"), ("DESCRIPTION", "description"), ("LOCATION", "location")):
                    if event[key] is None:
                        if name in found:
                            problems.append(f"{name} in the file, null in --json")
                    elif found.get(name) != calendar_text(event[key]):
                        problems.append(f"{name} is not --json's text less the controls: "
                                        f"{difference(found.get(name), calendar_text(event[key]))}")
                for name, key in (("DTSTART", "start"), ("DTEND", "end"), ("LAST-MODIFIED", "lastModified")):
                    local = event.get("local") if key != "lastModified" else None
                    if found.get(name) != (ics_time(local[key])[:-1] if local else ics_time(event[key])):
                        problems.append(f"{name} {found.get(name)} for {event[key]}")
                if found.get("SEQUENCE") != str(int(event["sequence"])):
                    problems.append(f"SEQUENCE {found.get('SEQUENCE')} for {event['sequence']}")
            if uid.startswith("visits-"):
                problems += self.visit_event_problems(event, visits.get(uid[len("visits-"):-len("@brados")]), found)
            elif not any(event["summary"].endswith(": " + recipe) and event["description"].startswith(recipe + "\n") for recipe in recipes):
                problems.append(f"--json's summary {event['summary'][:60]!r} is no meal of the plan")
            if problems:
                mismatched += 1
                if mismatched <= 5:
                    tally.fail(f"event {uid}: {problems[:3]}")
            else:
                tally.ok()
        if mismatched > 5:
            tally.fail(f"{mismatched - 5} more events whose text differs")
        self.tally.figures["events checked"] = {"visits": len(listed_visits), "meals": len(listed_meals)}

    @staticmethod
    def visit_event_problems(event, visit, found):
        """--json's text against the server's visit: the place; the notes, then the duration line; the address or the place."""
        if visit is None:
            return ["no such visit on the server"]
        identifier = event["uid"][len("visits-"):-len("@brados")]
        description = (visit["notes"] + "\n" if visit["notes"] is not None else "") + f"{visit['duration']} min \u00b7 brados visits show {identifier}"
        problems = []
        if event["summary"] != visit["place"]:
            problems.append(f"--json's summary is not the place: {difference(event['summary'], visit['place'])}")
        if event["description"] != description:
            problems.append(f"--json's description is not the notes: {difference(event['description'], description)}")
        location = visit["address"] if visit["address"] is not None else visit["place"]
        if event["location"] != location:
            problems.append(f"--json's location is not the address: {difference(event['location'], location)}")
        if found is not None and found.get("DTSTART") != epoch_time(visit["visitedAt"]):
            problems.append(f"DTSTART {found.get('DTSTART')} for the visit at {epoch_time(visit['visitedAt'])}")
        return problems

    def check_nothing_lost(self, when):
        """The caches hold every text exactly as the server does, and as `visits add` was given it."""
        tally = self.tally
        visits = self.server_visits()
        cached = {visit["id"]: visit for visit in json.loads(self.profile.must("visits", "list", "--offline", "--json").stdout)["visits"]}
        if set(cached) != set(visits):
            self.lost += len(set(visits) - set(cached))
            tally.fail(f"{when}: the cache has {len(cached)} visits, the server {len(visits)} "
                       f"({len(set(visits) - set(cached))} missing)")
        changed = 0
        for identifier, visit in visits.items():
            held = cached.get(identifier)
            problems = []
            if held is not None:
                for key in ("place", "notes", "address"):
                    if held.get(key) != visit[key]:
                        problems.append(f"{key}: {difference(held.get(key), visit[key])}")
            if identifier in self.sent:
                place, notes, address = self.sent[identifier]
                if (visit["notes"], visit["address"]) != (notes, address) or visit["place"] not in place:
                    problems.append("the server does not hold what `visits add` was given")
            if problems:
                changed += 1
                if changed <= 5:
                    tally.fail(f"{when}: visit {identifier}: {problems[:3]}")
            else:
                tally.ok()
        self.lost += changed
        if self.recipes:
            held = {meal["recipeName"] for day in self.plan()["days"] for meal in day["meals"]}
            missing = [recipe[:30] for recipe in self.recipes if recipe not in held]
            if missing:
                self.lost += len(missing)
                tally.fail(f"{when}: the cached plan lost the recipes {missing}")
            else:
                tally.ok()

    def calendar_file(self):
        """calendar.file kept by `brados sync`, read meanwhile by a thread."""
        tally, profile = self.tally, self.profile
        folder = os.path.join(self.outside, "subscribed")
        path = os.path.join(folder, "brados.ics")
        profile.must("config", "set", "calendar.file", path)
        profile.must("sync")
        if not os.path.exists(path):
            tally.fail("`brados sync` with calendar.file set wrote no file")
            return
        with open(path, "rb") as handle:
            versions = {hashlib.sha256(handle.read()).hexdigest()}
        poller = Poller(path)
        poller.start()
        failed_syncs = 0
        try:
            for round_index in range(self.options.syncs):
                what, place, notes, address, _ = random_visits(self.rng, 1)[0]
                self.add(f"sync round {round_index}", place, notes, address, "cli", time.time() - self.rng.randint(60, 86400))
                result = profile.run("sync")
                if result.returncode != 0:
                    failed_syncs += 1
                    tally.fail(f"sync round {round_index}: exit {result.returncode}: {result.stderr.strip()[:300]!r}")
                with open(path, "rb") as handle:
                    versions.add(hashlib.sha256(handle.read()).hexdigest())
        finally:
            poller.halt.set()
            poller.join()
        stray = poller.seen - versions
        tally.figures["calendar.file"] = {"reads": poller.reads, "versions read": len(poller.seen), "versions written": len(versions),
                                          "partial reads": len(poller.partial), "missing": poller.missing}
        if poller.partial or stray or poller.missing:
            tally.fail(f"a reader of calendar.file saw {len(poller.partial)} partial files ({poller.partial[:2]}), "
                       f"{len(stray)} that no sync left, and no file {poller.missing} times")
        else:
            tally.ok()
        if len(versions) < self.options.syncs:
            tally.fail(f"{self.options.syncs} syncs, each after a visit was added, left only {len(versions) - 1} new files")
        with open(path, "rb") as handle:
            data = handle.read()
        printed = run_bytes(profile, "calendar")
        problems, _ = read_calendar(data)
        mode = os.stat(path).st_mode & 0o777
        beside = sorted(set(os.listdir(folder)) - {"brados.ics"})
        if printed.returncode != 0 or printed.stdout != data:
            tally.fail(f"calendar.file ({len(data)} bytes) is not `brados calendar`'s output ({len(printed.stdout)} bytes, "
                       f"exit {printed.returncode}): first difference at byte {first_difference(data, printed.stdout)}")
        elif problems or mode != 0o600 or beside:
            tally.fail(f"calendar.file: mode {oct(mode)}, beside it {beside}, problems {problems[:3]}")
        else:
            tally.ok()


def read_text(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def option(name, value):
    """`--name value`; `--name=value` for a value that starts with a dash. Not always the
    latter: a value that starts with a combining mark or a joiner makes `=` and it one
    character, and the option is not recognized."""
    return [f"--{name}={value}"] if value.startswith("-") else [f"--{name}", value]


def difference(got, expected):
    """Where two texts part, briefly."""
    if got is None or expected is None:
        return f"{'null' if got is None else 'text'} where {'null' if expected is None else 'text'} was expected"
    index = first_difference(got, expected)
    return f"{len(got)} vs {len(expected)} characters, from {index}: {got[index:index + 12]!r} vs {expected[index:index + 12]!r}"


def first_difference(a, b):
    return next((index for index, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


class Bus:
    """A private D-Bus session bus, with python-dbusmock's notification service on it or not."""

    def __init__(self, root, service):
        self.address = f"unix:path={root}/bus"
        self.log = os.path.join(root, "notify.log")
        self.env = {"DBUS_SESSION_BUS_ADDRESS": self.address, "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
        self.mock = None
        self.bus = subprocess.Popen([require("dbus-daemon"), "--session", "--nofork", "--nopidfile", f"--address={self.address}"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
        for _ in range(250):
            if os.path.exists(f"{root}/bus"):
                break
            time.sleep(0.02)
        if not service:
            return
        # Debian's python3-dbusmock is for Debian's own Python.
        self.mock = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--session", "-t", "notification_daemon", "-l", self.log],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            owner = subprocess.run([require("dbus-send"), "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                    "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"],
                                   capture_output=True, text=True, env=self.env)
            if "boolean true" in owner.stdout:
                return
            time.sleep(0.05)
        self.close()
        raise SystemExit("python3 -m dbusmock notification_daemon was not on the bus after 15 s")

    def calls(self):
        """The Notify calls so far: (time, app, replaces, summary, body, hints), oldest first."""
        try:
            with open(self.log, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except FileNotFoundError:
            return []
        return [(float(m[1]), m[2], int(m[3]), m[5], m[6], m[7]) for m in NOTIFY.finditer(text)]

    def close(self):
        for process in (self.mock, self.bus):
            if process and process.poll() is None:
                process.kill()
                process.wait()


TITLES = set()


def told(summary):
    """How many messages a notification's summary tells of (None: not the coach's words): a
    burst across conversations, one conversation's (its title, and how many), or the words of
    notify.detail summary."""
    if summary == ONE or summary in TITLES:
        return 1
    for pattern in (ACROSS, TITLED, MANY):
        match = pattern.fullmatch(summary)
        if match:
            return int(match[1])
    return None


def on_screen(calls):
    """What the notifications left on screen count: each id's last call (a call with replaces_id
    takes that notification's place; the service numbers the others from 1)."""
    shown, next_id = {}, 1
    for _, _, replaces, summary, _, _ in calls:
        if replaces:
            identifier = replaces
        else:
            identifier, next_id = next_id, next_id + 1
        shown[identifier] = told(summary) or 0
    return sum(shown.values()), len(shown)


class Flood:
    """Part 2: floods of coach messages under `sync --watch --notify`."""

    def __init__(self, options, tally, server, data, profile, outside):
        self.options = options
        self.tally = tally
        self.server = server
        self.data = data
        self.profile = profile
        self.outside = outside
        self.conversations = []
        self.number = 0

    def prepare(self):
        profile = self.profile
        profile.login(supabase_email="demo@example.com")
        listed = json.loads(profile.must("coach", "conversations", "--json").stdout)["conversations"]
        self.conversations = [conversation["id"] for conversation in listed[-self.options.conversations:]]
        self.titles = {conversation["id"]: conversation.get("title") or "Untitled conversation" for conversation in listed}
        TITLES.update(self.titles.values())
        for conversation in self.conversations:
            profile.must("coach", "show", conversation, "--last", "1")
        profile.must("mealplan", "show")
        profile.must("sync")  # every domain cached: the watch's first syncs are no news

    def channels(self):
        return self.server.admin("GET", "/_admin/realtime-channels")["channels"]

    def write(self, tag, count, seconds=1.0):
        """`count` assistant messages within `seconds`, round the conversations, in batches of 50:
        even ones through the admin SQL route, odd ones into the server's SQLite file. Returns
        [(id, conversation, text)] in the order written."""
        messages = [(f"{tag}-{index:05d}", self.conversations[index % len(self.conversations)], f"{tag} {index:05d}")
                    for index in range(count)]
        batches = [messages[index:index + BATCH] for index in range(0, count, BATCH)]
        user = sql(self.server, "SELECT user_id FROM conversations WHERE id = ?", self.conversations[0])[0][0]
        connection = sqlite3.connect(os.path.join(self.data, "server.sqlite"), timeout=10)
        started = time.monotonic()
        try:
            for number, batch in enumerate(batches):
                if number % 2 == 0:
                    values = ", ".join("(?, ?, ?)" for _ in batch)
                    sql(self.server, "INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) "
                                     f"SELECT column1, column2, ?, 'assistant', column3, (julianday('now') - 2440587.5) * 86400.0 FROM (VALUES {values})",
                        user, *[value for message in batch for value in message])
                else:
                    connection.executemany(INSERT_MESSAGE, [(identifier, text, conversation) for identifier, conversation, text in batch])
                    connection.commit()
                pause = started + seconds * (number + 1) / len(batches) - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
        finally:
            connection.close()
        return messages, time.monotonic() - started

    def missing(self, messages):
        """The messages the cache does not hold with their text."""
        held = {}
        for conversation in self.conversations:
            result = self.profile.run("coach", "show", conversation, "--offline", "--json")
            if result.returncode == 0:
                held.update({message["id"]: message["content"] for message in json.loads(result.stdout)["messages"]})
        return [identifier for identifier, _, text in messages if held.get(identifier) != text]

    def cached(self, messages, started, timeout=120):
        """Waits until the cache holds `messages`; returns the seconds since `started`, or None."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.missing(messages):
                return time.monotonic() - started
            time.sleep(0.5)
        return None

    def case(self, name, bus_address, bus=None):
        """One watch, one flood, one more message; the checks of the docstring."""
        tally = self.tally
        folder = tempfile.mkdtemp(prefix="watch-", dir=self.outside)
        errors = open(os.path.join(folder, "stderr"), "w+")
        process = subprocess.Popen([self.profile.binaries.brados, "sync", "--watch", "--notify", "--verbose"],
                                   env=dict(self.profile.env, DBUS_SESSION_BUS_ADDRESS=bus_address, BRADOS_REALTIME_HEARTBEAT="1"),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True)
        figures = {}
        alive = False
        try:
            # Joined, and caught up: a flood during the first catch-up would reach the cache
            # conversation by conversation, not in the order it was written.
            deadline = time.monotonic() + 30
            while self.channels() < 1 or "coach.watch: caught up" not in read_text(errors.name):
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"{name}: the watch did not join its channel and catch up in 30 s (exit {process.poll()})")
                time.sleep(0.05)
            self.number += 1
            started = time.monotonic()
            messages, took = self.write(f"flood{self.number}", self.options.flood)
            figures["flood written in"] = f"{took:.2f} s"
            held_after = self.cached(messages, started)
            figures["the cache held the flood after"] = f"{held_after:.1f} s" if held_after is not None else "never"
            if held_after is None:
                tally.fail(f"{name}: {len(self.missing(messages))} of {len(messages)} flood messages not in the cache after 120 s"
                           + ("" if process.poll() is None else f" (the watch exited {process.poll()})"))
            else:
                tally.ok()
            flood_calls = self.settle(bus) if bus else []
            # One more, past the domain's window, in the conversation the flood's first message went to.
            later = [(f"later{self.number}", self.conversations[0], f"one more after flood {self.number}")]
            sql(self.server, INSERT_MESSAGE, later[0][0], later[0][2], later[0][1])
            if self.cached(later, time.monotonic(), timeout=30) is None:
                tally.fail(f"{name}: the message after the flood did not reach the cache in 30 s")
            else:
                tally.ok()
            if bus:
                deadline = time.monotonic() + 15
                while len(bus.calls()) == len(flood_calls) and time.monotonic() < deadline:
                    time.sleep(0.1)
                time.sleep(1)
                reconnected = "coach.watch: following paused" in read_text(errors.name)
                self.check_calls(name, bus.calls(), len(flood_calls), messages, later, figures, reconnected)
            alive = process.poll() is None
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                code = process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                kill_group(process)
                code = None
            errors.seek(0)
            stderr = errors.read()
            errors.close()
            shutil.rmtree(folder, ignore_errors=True)
        if not alive:
            tally.fail(f"{name}: the watch exited {code} during the flood: {stderr.strip()[-300:]!r}")
        elif code != 143:
            tally.fail(f"{name}: the watch exited {code} on SIGTERM, not 143")
        else:
            tally.ok()
        if any(marker in stderr for marker in CRASH_MARKERS):
            tally.fail(f"{name}: a crash on the watch's stderr: {stderr.strip()[-300:]!r}")
        notices = [line for line in stderr.splitlines() if "sync --watch --notify:" in line]
        figures["notices"] = len(notices)
        expected = {"dbusmock": None, "no bus": "No desktop session bus", "no service": "No notification service"}[name]
        if expected is None and notices:
            tally.fail(f"{name}: notices with a notification service: {notices[:2]}")
        elif expected and (len(notices) != 1 or expected not in notices[0]):
            tally.fail(f"{name}: {len(notices)} notices, expected one saying {expected!r}: {notices[:3]}")
        else:
            tally.ok()
        paused = [line for line in stderr.splitlines() if "coach.watch: following paused" in line]
        figures["reconnects"] = len(paused)
        figures["catch-ups"] = sum("coach.watch: caught up" in line for line in stderr.splitlines())
        if paused:
            figures["first reconnect"] = paused[0].split("coach.watch: ", 1)[1][:160]
        deadline = time.monotonic() + 10
        while self.channels() > 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        return figures

    def settle(self, bus):
        """Waits until no Notify call came for 6 s (past the window of the last one)."""
        deadline = time.monotonic() + 60
        quiet_since, count = time.monotonic(), len(bus.calls())
        while time.monotonic() < deadline and time.monotonic() - quiet_since < 6:
            time.sleep(0.2)
            now = len(bus.calls())
            if now != count:
                quiet_since, count = time.monotonic(), now
        return bus.calls()

    def check_calls(self, name, calls, flood_count, messages, later, figures, reconnected):
        tally = self.tally
        flood_calls = calls[:flood_count]
        figures["Notify calls for the flood"] = len(flood_calls)
        figures["their summaries"] = [call[3] for call in flood_calls]
        figures["after the one more"] = [(call[2], call[3]) for call in calls[flood_count:]]
        problems = []
        if not flood_calls:
            problems.append("no notification for the flood")
        if len(flood_calls) > self.options.max_notifications:
            problems.append(f"{len(flood_calls)} notifications for the flood, more than {self.options.max_notifications}")
        gaps = [round(b[0] - a[0], 2) for a, b in zip(calls, calls[1:])]
        if any(gap < 4.9 for gap in gaps):
            problems.append(f"notifications less than 5 s apart: gaps {gaps}")
        wrong = [call for call in calls if call[1] != "brados" or told(call[3]) is None or '"category": "im.received"' not in call[5]]
        if wrong:
            problems.append(f"calls that are not the coach's: {wrong[:2]}")
        # The newest message it tells of: the flood's last; after a reconnect, the newest of a
        # conversation (the catch-up takes what was missed conversation by conversation).
        newest = {conversation: text for _, conversation, text in messages} if reconnected else {None: messages[-1][2]}
        if flood_calls:
            last = flood_calls[-1]
            figures["the flood's last notification names"] = last[4].splitlines()[-1:]
            if ACROSS.fullmatch(last[3]):
                # A burst across conversations names each by its title, under no one conversation's.
                written = {self.titles[conversation] for _, conversation, _ in messages}
                if int(ACROSS.fullmatch(last[3])[2]) != len(written) or not all(title in last[4] for title in written):
                    problems.append(f"the flood's last notification {last[3]!r} does not name its {len(written)} conversations: {last[4][:120]!r}")
            elif not any(last[4].endswith(text) for text in newest.values()):
                problems.append(f"the flood's last notification names {last[4].splitlines()[-1:]}, not the newest "
                                f"message of a conversation {sorted(newest.values())}")
        total, shown = on_screen(flood_calls)
        figures["the flood's notifications on screen count"] = f"{total} in {shown} notifications"
        if total < len(messages):
            problems.append(f"after the flood, the notifications on screen count {total} of {len(messages)} messages: "
                            f"{replacements(flood_calls)}")
        if len(calls) != flood_count + 1:
            problems.append(f"{len(calls) - flood_count} notifications for the one message after the flood")
        else:
            total, shown = on_screen(calls)
            figures["on screen after the one more"] = f"{total} in {shown} notifications"
            if total < len(messages) + 1:
                problems.append(f"after one more message, the notifications on screen count {total} of {len(messages) + 1}: "
                                f"{replacements(calls)[len(replacements(flood_calls)):]}")
            if not calls[-1][4].endswith(later[0][2]):
                problems.append(f"the last notification does not name the last message: {calls[-1][4][-60:]!r}")
            if not calls[-1][3].startswith(self.titles[later[0][1]]):
                problems.append(f"the last notification is not titled by its conversation: {calls[-1][3]!r}")
        if problems:
            for problem in problems:
                tally.fail(f"{name}: {problem}")
        else:
            tally.ok()


def replacements(calls):
    """Each call that took another's place (replaces_id), as `'new' replaced 'old'`."""
    shown, said = {}, []
    next_id = 1
    for _, _, replaces, summary, _, _ in calls:
        if replaces:
            said.append(f"{summary!r} replaced {shown.get(replaces, '(unknown)')!r}")
            identifier = replaces
        else:
            identifier, next_id = next_id, next_id + 1
        shown[identifier] = summary
    return said


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--visits", type=int, default=200, help="random hostile visits")
    parser.add_argument("--syncs", type=int, default=20, help="syncs while a thread reads calendar.file")
    parser.add_argument("--flood", type=int, default=1000, help="assistant messages written within a second")
    parser.add_argument("--conversations", type=int, default=4, help="conversations the flood is spread over")
    parser.add_argument("--max-notifications", type=int, default=6, help="Notify calls a flood may give")
    parser.add_argument("--seed", type=int, default=57)
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    if subprocess.run(["/usr/bin/python3", "-c", "import dbusmock"], capture_output=True).returncode != 0:
        sys.exit("python3-dbusmock is not installed for /usr/bin/python3: scripts/ensure-deps.sh reliability installs what the suites run")
    tally = Tally("calendar_notify")
    outside = tempfile.mkdtemp(prefix="brados-rel-calendar-")
    try:
        with Server(binaries) as server:
            profile = Profile(binaries, server, extra_env={"TZ": "UTC", "BRADOS_CREDENTIALS_STORE": "file"})
            calendar = Calendar(options, tally, server, profile, outside)
            try:
                profile.login()
                calendar.hostile_meals()
                calendar.add_visits()
                calendar.check_export()
                calendar.check_nothing_lost("after `brados calendar`")
                calendar.calendar_file()
                calendar.check_nothing_lost("after the syncs")
            finally:
                profile.remove()
        tally.figures["hostile visits"] = calendar.kinds
        tally.figures["texts lost"] = calendar.lost

        data = tempfile.mkdtemp(prefix="server-", dir=outside)
        with Server(binaries, data=data) as server:
            profile = Profile(binaries, server, extra_env={"BRADOS_CREDENTIALS_STORE": "file"})
            flood = Flood(options, tally, server, data, profile, outside)
            try:
                flood.prepare()
                cases = {}
                bus = Bus(tempfile.mkdtemp(prefix="bus-", dir=outside), service=True)
                try:
                    cases["dbusmock"] = flood.case("dbusmock", bus.address, bus)
                finally:
                    bus.close()
                cases["no bus"] = flood.case("no bus", "unix:path=/nonexistent")
                empty = Bus(tempfile.mkdtemp(prefix="bus-", dir=outside), service=False)
                try:
                    cases["no service"] = flood.case("no service", empty.address)
                finally:
                    empty.close()
                tally.figures["floods"] = cases
            finally:
                profile.remove()
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    print(json.dumps(tally.report()))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
