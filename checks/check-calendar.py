#!/usr/bin/env python3
"""Checks that `brados calendar` writes iCalendar (RFC 5545) that parsers nobody here wrote
read as brados means it: Python's icalendar finds every event of `brados calendar --json`
with its start and end (visits in UTC, meals as floating local times), the required properties
(VERSION, PRODID, CALSCALE; UID, DTSTAMP, SEQUENCE, unique UIDs) and each meal at its time of
day, floating, and with `calendar.timezone Europe/Berlin` in that zone (its VTIMEZONE) across a
change of offset; Debian's khal imports the file into a vdir, one file an event, shows each meal
at its hour, and a changed meal plan imported again updates the same events of today and later
(new text, a higher SEQUENCE) instead of adding a second copy, the days before kept; and a
visit whose place, notes and address hold END:VCALENDAR, bare CRs, commas, semicolons,
backslashes, control characters and 100 KB of text stays one event in one VCALENDAR, its
text as brados keeps it.

    python3 checks/check-calendar.py [--build-dir .build] [--configuration debug]
"""
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import tempfile
from zoneinfo import ZoneInfo

import interop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BERLIN = ZoneInfo("Europe/Berlin")
MEAL_TIMES = {"breakfast": (8, 0), "lunch": (12, 30), "dinner": (19, 0)}  # brados's defaults, 30 min each
UTC = dt.timezone.utc


def main():
    options = interop.options(__doc__)
    try:
        import icalendar  # noqa: F401
    except ImportError:
        interop.not_installed("icalendar")
    khal = shutil.which("khal")
    if not khal:
        interop.not_installed("khal", "apt")

    binary = os.path.join(ROOT, options.build_dir, options.configuration, "brados")
    scratch = tempfile.mkdtemp(prefix="brados-check-calendar-")
    check = interop.Checks()
    try:
        run = Run(binary, khal, scratch)
        monday = dt.datetime.now(BERLIN).date()
        monday -= dt.timedelta(days=monday.weekday())
        weeks = ["--from", monday.isoformat(), "--to", (monday + dt.timedelta(days=14)).isoformat()]

        # A new user's first commands fill the caches from the embedded reference server.
        visits = run.brados("visits", "list", "--json")["visits"]
        run.brados("mealplan", "show", "--json")

        first, first_json = run.calendar("first.ics", *weeks)
        events = read_calendar(first, first_json, check, f"two weeks from {monday}")
        meals = {uid: event for uid, event in events.items() if uid.startswith("mealplan-")}
        check(f"... 14 days of breakfast, lunch and dinner ({len(meals)} meals)", len(meals) == 42)
        meal_times(meals, check, None)

        # The plan repeats weekly: a week around Berlin's next change of UTC offset keeps each meal
        # at its local time, floating and (calendar.timezone) in Berlin with its VTIMEZONE.
        switch = monday + dt.timedelta(days=14)
        while dt.datetime(switch.year, switch.month, switch.day, 12, tzinfo=BERLIN).utcoffset() == \
                dt.datetime(monday.year, monday.month, monday.day, 12, tzinfo=BERLIN).utcoffset():
            switch += dt.timedelta(days=1)
        around = ["--from", (switch - dt.timedelta(days=4)).isoformat(), "--to", (switch + dt.timedelta(days=3)).isoformat()]
        shifted, shifted_json = run.calendar("shift.ics", *around)
        shifted_meals = read_calendar(shifted, shifted_json, check, f"the week around {switch}'s change of offset")
        check(f"... 7 days of meals ({len(shifted_meals)})", len(shifted_meals) == 21)
        meal_times(shifted_meals, check, None)
        run.brados("config", "set", "calendar.timezone", "Europe/Berlin")
        zoned, zoned_json = run.calendar("shift-berlin.ics", *around)
        zoned_meals = read_calendar(zoned, zoned_json, check, f"the same week, calendar.timezone Europe/Berlin", zone=BERLIN)
        meal_times(zoned_meals, check, BERLIN)
        run.brados("config", "unset", "calendar.timezone")

        everything, everything_json = run.calendar("everything.ics", "--from", "2000-01-01")
        all_events = read_calendar(everything, everything_json, check, "no range")
        check(f"... every cached visit is there ({len(visits)})",
              {f"visits-{visit['id']}@brados" for visit in visits} <= set(all_events))

        # khal: the export into a vdir, once and again.
        run.khal_import("brados", first)
        imported = run.vdir("brados")
        check(f"khal imports the two weeks: one file an event ({len(imported)})",
              len(imported) == len(events) and set(imported) == set(events))
        run.khal_import("brados", first)
        check("khal imports the same export again: nothing changes", run.vdir("brados") == imported)
        day_listed = run.khal("list", "-a", "brados", "--format", "{start-time}-{end-time} {title}", "--day-format", "",
                              monday.isoformat(), "1d")
        breakfast = meals.get(f"mealplan-{monday.isoformat()}-breakfast@brados", {})
        check(f"khal lists {monday}'s breakfast at 08:00-08:30 Berlin time",
              breakfast and f"08:00-08:30 {breakfast['SUMMARY']}" in day_listed.splitlines())

        # A new plan: the same days and meal types, so the same UIDs with new text from today on;
        # the days before today stay as they were exported.
        run.brados("mealplan", "new")
        run.brados("mealplan", "critique", "no fish")
        run.brados("mealplan", "finalize")
        second, second_json = run.calendar("second.ics", *weeks)
        changed_events = read_calendar(second, second_json, check, "after a new meal plan")
        check("... the same UIDs as before", set(changed_events) == set(events))
        changed = sorted(uid for uid in changed_events if uid in events
                         and (changed_events[uid]["SUMMARY"], changed_events[uid]["DESCRIPTION"]) != (events[uid]["SUMMARY"], events[uid]["DESCRIPTION"]))
        check(f"... {len(changed)} meals with new text, each with a higher SEQUENCE",
              changed and all(changed_events[uid]["SEQUENCE"] > events[uid]["SEQUENCE"] for uid in changed))
        today = dt.datetime.now(UTC).date().isoformat()  # the machine's days (UTC here)
        past = [uid for uid in changed if uid.startswith("mealplan-") and uid[9:19] < today]
        check(f"... none of them a day before today ({today})" + (f" (not: {', '.join(past[:3])})" if past else ""), not past)
        unchanged = [uid for uid in changed_events if uid in events and uid not in changed]
        check(f"... the {len(unchanged)} others keep theirs",
              all(changed_events[uid]["SEQUENCE"] == events[uid]["SEQUENCE"] for uid in unchanged))
        run.khal_import("brados", second)
        updated = run.vdir("brados")
        check(f"khal imports the new plan: no duplicate ({len(updated)} files)",
              len(updated) == len(set(events) | set(changed_events)) and set(updated) == set(changed_events) | set(events))
        in_khal = {uid: event_of(text) for uid, text in updated.items()}
        check(f"... each changed meal's file holds the new text and SEQUENCE (e.g. {changed[0] if changed else '-'})",
              changed and all(in_khal.get(uid, {}).get(key) == changed_events[uid][key]
                              for uid in changed for key in ("SUMMARY", "DESCRIPTION", "SEQUENCE")))
        again = run.calendar_bytes("again.ics", *weeks)
        check("an export with nothing new is the same bytes", again == second)
        run.khal_import("brados", again)
        check("khal imports the unchanged export: nothing changes", run.vdir("brados") == updated)

        # One more visit: one more event.
        visit_day = monday + dt.timedelta(days=2)
        added = run.brados("visits", "add", "--place", "Check Clinic", "--at", f"{visit_day}T10:00", "--json")["visit"]
        third, third_json = run.calendar("third.ics", *weeks)
        third_events = read_calendar(third, third_json, check, "after a visit is added")
        uid = f"visits-{added['id']}@brados"
        check("... exactly one event more, the visit's", set(third_events) == set(changed_events) | {uid})
        check(f"... at 10:00 Berlin time on {visit_day}",
              uid in third_events and third_events[uid]["DTSTART"].astimezone(BERLIN) == dt.datetime(visit_day.year, visit_day.month, visit_day.day, 10, tzinfo=BERLIN))
        run.khal_import("brados", third)
        check("khal imports it: one file more", len(run.vdir("brados")) == len(updated) + 1)

        hostile(run, visit_day, check)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    check.finish()


def hostile(run, day, check):
    """A visit made of what breaks feeds: its text survives as text, in one event of one calendar."""
    place = "Hostile\nPlace, Inc; A\\B"
    notes = ("first line\r\nEND:VCALENDAR\rBEGIN:VEVENT\nUID:evil@example.com\r\r\ncomma, semicolon; backslash \\ "
             "and \\n that is no newline\ttab\x01\x1b[31mred\x7fdel\u0085nel\u2028ls é€😀 end")
    unit = "Straße 1, Flat 2; Back\\Door 😀 END:VCALENDAR — "
    address, tail = "", "\r\nEND:VCALENDAR\r\n"
    while len((address + unit + tail).encode()) <= 100 * 1024:
        address += unit
    address += tail + "x" * (100 * 1024 - len((address + tail).encode()))
    created = run.brados("visits", "add", "--place", place, "--at", f"{day}T12:00", "--notes", notes, "--address", address, "--json")
    visit = created["visit"]
    check(f"brados takes the hostile visit ({len(address.encode())} bytes of address; the place with its newline: "
          f"{'kept' if visit['place'] == place else repr(visit['place'])})", visit.get("notes") == notes and visit.get("address") == address)
    data, exported = run.calendar("hostile.ics", "--from", "2000-01-01")
    events = read_calendar(data, exported, check, "with the hostile visit")
    uid = f"visits-{visit['id']}@brados"
    said = next(event for event in exported["events"] if event["uid"] == uid)
    event = events.get(uid, {})
    check("... its DESCRIPTION is the notes as text, less the control characters brados drops",
          event.get("DESCRIPTION") == kept(said["description"]) and kept(notes) in event.get("DESCRIPTION", ""))
    check("... its SUMMARY is the place, the newline kept", event.get("SUMMARY") == kept(said["summary"]) == kept(visit["place"]))
    check("... its LOCATION is the 100 KB address", event.get("LOCATION") == kept(said["location"]) == kept(address))
    listed = run.brados("visits", "list", "--offline", "--json")["visits"]
    check(f"... every cached visit is there ({len(listed)})", {f"visits-{v['id']}@brados" for v in listed} <= set(events))
    run.khal_import("hostile", data)
    stored = run.vdir("hostile")
    check(f"khal imports it: one file an event ({len(stored)})", set(stored) == set(events))
    in_khal = event_of(stored.get(uid, ""))
    # Debian's python3-icalendar 4.0.3, which khal 0.10.5 parses with, unescapes `\n` before
    # `\\`: the typed backslash-n of the notes (`\\n` in the file) comes out a newline. Its bug,
    # fixed in later icalendar releases (the one above reads it right); taken, and said, here.
    description = in_khal.get("DESCRIPTION")
    misread = description != event.get("DESCRIPTION") and description == event.get("DESCRIPTION", "").replace("\\n", "\n")
    check("... the visit's file holds its text" + (" (but for its typed \\n, a newline to khal's icalendar 4.0.3)" if misread else ""),
          (description == event.get("DESCRIPTION") or misread)
          and in_khal.get("SUMMARY") == event.get("SUMMARY") and in_khal.get("LOCATION") == event.get("LOCATION"))


def kept(text):
    """What an iCalendar TEXT value keeps of `text`: a line break (CRLF, LF, a bare CR, U+2028 or
    U+2029) is a newline; other C0 controls, DEL and C1 controls are dropped."""
    text = re.sub("\r\n?|[\u2028\u2029]", "\n", text)
    return "".join(c for c in text if c == "\n" or not (ord(c) < 0x20 or ord(c) == 0x7F or 0x80 <= ord(c) <= 0x9F))


def read_calendar(data, exported, check, what, zone=None):
    """Parses an export with icalendar, checks it against `--json`, and returns its events by UID.
    Meals are floating, or in `zone`; visits and DTSTAMP are UTC."""
    import icalendar

    name = f"icalendar reads the export ({what})"
    try:
        text = data.decode("utf-8")
        calendars = icalendar.Calendar.from_ical(data, multiple=True)
    except Exception as error:  # noqa: BLE001 (a parser's error is the check's finding)
        check(f"{name}: {type(error).__name__}: {error}", False)
        return {}
    vevents = [component for calendar in calendars for component in calendar.walk("VEVENT")]
    errors = [error for calendar in calendars for component in calendar.walk() for error in component.errors]
    lines = text.split("\r\n")
    check(f"{name}: one VCALENDAR, {len(vevents)} VEVENTs, no error",
          len(calendars) == 1 and lines.count("BEGIN:VCALENDAR") == 1 and lines[-2:] == ["END:VCALENDAR", ""]
          and lines.count("BEGIN:VEVENT") == len(vevents) == len(exported["events"]) and not errors)
    check("... CRLF line ends, lines of at most 75 octets",
          "\r" not in "".join(lines) and "\n" not in "".join(lines) and all(len(line.encode()) <= 75 for line in lines))
    if not calendars:
        return {}
    calendar = calendars[0]
    check("... VERSION 2.0, PRODID, CALSCALE GREGORIAN",
          calendar.get("VERSION") == "2.0" and str(calendar.get("PRODID", "")).startswith("-//brados//") and calendar.get("CALSCALE") == "GREGORIAN")
    uids = [str(vevent.get("UID")) for vevent in vevents]
    check("... each VEVENT has UID, DTSTAMP, SEQUENCE; UIDs unique",
          all("UID" in v and "DTSTAMP" in v and "SEQUENCE" in v for v in vevents) and len(set(uids)) == len(uids))
    events = {str(vevent["UID"]): event_of(vevent) for vevent in vevents}

    def utc(vevent, key):
        prop = vevent.get(key)
        value = getattr(prop, "dt", None)
        return (isinstance(value, dt.datetime) and value.utcoffset() == dt.timedelta(0) and "TZID" not in prop.params
                and prop.to_ical().endswith(b"Z"))

    def local(vevent, key):
        prop = vevent.get(key)
        value = getattr(prop, "dt", None)
        if zone is None:  # floating: no zone, no Z
            return isinstance(value, dt.datetime) and value.tzinfo is None and "TZID" not in prop.params
        return isinstance(value, dt.datetime) and prop.params.get("TZID") == zone.key and value.utcoffset() == value.astimezone(zone).utcoffset()

    meals = [v for v in vevents if str(v.get("UID", "")).startswith("mealplan-")]
    others = [v for v in vevents if v not in meals]
    check("... DTSTAMP is UTC; visits' DTSTART, DTEND UTC; meals' " + ("floating" if zone is None else f"in {zone.key}"),
          all(utc(v, "DTSTAMP") for v in vevents) and all(utc(v, key) for v in others for key in ("DTSTART", "DTEND"))
          and all(local(v, key) for v in meals for key in ("DTSTART", "DTEND")))
    if zone is not None:
        timezones = [component for component in calendars[0].walk("VTIMEZONE")]
        check(f"... one VTIMEZONE, {zone.key}", len(timezones) == 1 and str(timezones[0].get("TZID")) == zone.key)

    def start(said, key):
        local_time = said.get("local")
        if not local_time:
            return moment(said[key])
        value = dt.datetime.fromisoformat(local_time[key])
        return value if zone is None else value.replace(tzinfo=zone)

    wrong = [said["uid"] for said in exported["events"] if said["uid"] not in events
             or events[said["uid"]]["DTSTART"] != start(said, "start") or events[said["uid"]]["DTEND"] != start(said, "end")
             or events[said["uid"]]["SEQUENCE"] != said["sequence"] or events[said["uid"]]["DTSTAMP"] != moment(said["lastModified"])]
    check(f"... every event of --json with its start, end, SEQUENCE and DTSTAMP{' (not: ' + ', '.join(wrong[:3]) + ')' if wrong else ''}", not wrong)
    return events


def event_of(source):
    """A VEVENT (or one .ics file's) as plain values."""
    import icalendar

    if isinstance(source, str):
        if not source:
            return {}
        found = icalendar.Calendar.from_ical(source).walk("VEVENT")
        if not found:
            return {}
        source = found[0]
    values = {key: getattr(source.get(key), "dt", None) for key in ("DTSTART", "DTEND", "DTSTAMP")}
    values["SEQUENCE"] = int(source.get("SEQUENCE", -1))
    values.update({key: str(source.get(key, "")) for key in ("SUMMARY", "DESCRIPTION", "LOCATION")})
    return values


def meal_times(meals, check, zone):
    """Each meal on its UID's day at its default time, for 30 minutes: floating (zone None), or in `zone`."""
    wrong = []
    for uid, event in meals.items():
        match = re.fullmatch(r"mealplan-(\d{4}-\d{2}-\d{2})-(breakfast|lunch|dinner)@brados", uid)
        if not match:
            wrong.append(uid)
            continue
        day = dt.date.fromisoformat(match[1])
        hour, minute = MEAL_TIMES[match[2]]
        start = dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
        if event["DTSTART"] != start or event["DTEND"] != start + dt.timedelta(minutes=30) or (event["DTSTART"].tzinfo is None) != (zone is None):
            wrong.append(uid)
    breakfasts = sorted(uid for uid in meals if uid.endswith("-breakfast@brados"))
    where = "floating (that hour wherever one is)" if zone is None else f"in {zone.key}"
    check(f"... each meal at its time, {where}, 30 min (e.g. {breakfasts[0] if breakfasts else '-'} at 08:00)"
          + (f" (not: {', '.join(wrong[:3])})" if wrong else ""), meals and not wrong)


def moment(iso):
    """brados's JSON timestamp, to the second (the .ics has no fractions)."""
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).replace(microsecond=0).astimezone(UTC)


class Run:
    """brados in a fresh profile (TZ=Europe/Berlin, the embedded reference server) and khal with a private configuration."""

    def __init__(self, binary, khal, scratch):
        self.binary, self.khal_binary, self.scratch = binary, khal, scratch
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("BRADOS_")}
        self.env.update(BRADOS_HOME=os.path.join(scratch, "home"), TZ="Europe/Berlin", BRADOS_CREDENTIALS_STORE="file", NO_COLOR="1")
        os.mkdir(self.env["BRADOS_HOME"])
        khal_home = os.path.join(scratch, "khal")
        self.khal_env = {key: value for key, value in self.env.items() if not key.startswith("PYTHON")}
        self.khal_env.update(XDG_CONFIG_HOME=khal_home, XDG_DATA_HOME=khal_home, XDG_CACHE_HOME=khal_home)
        self.config = os.path.join(khal_home, "khal.conf")
        calendars = ""
        for name in ("brados", "hostile"):
            os.makedirs(os.path.join(khal_home, "vdir", name))
            calendars += f"[[{name}]]\npath = {os.path.join(khal_home, 'vdir', name)}\ntype = calendar\n"
        with open(self.config, "w") as file:
            file.write(f"[calendars]\n{calendars}[locale]\ntimeformat=%H:%M\ndateformat=%Y-%m-%d\nlongdateformat=%Y-%m-%d\n"
                       "datetimeformat=%Y-%m-%d %H:%M\nlongdatetimeformat=%Y-%m-%d %H:%M\n"
                       "local_timezone=Europe/Berlin\ndefault_timezone=Europe/Berlin\n"
                       f"[default]\ndefault_calendar=brados\n[sqlite]\npath={os.path.join(khal_home, 'khal.db')}\n")
        self.khal_home = khal_home

    def brados(self, *arguments):
        """Runs brados; its --json answer, or its stdout."""
        done = subprocess.run([self.binary, *arguments], env=self.env, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"brados {' '.join(arguments)[:200]} exited {done.returncode}: {done.stderr.strip()}")
        return json.loads(done.stdout) if "--json" in arguments else done.stdout

    def calendar(self, name, *arguments):
        """`brados calendar -o <file> --json`: the file's bytes and the JSON, from one run."""
        path = os.path.join(self.scratch, name)
        said = self.brados("calendar", *arguments, "-o", path, "--json")
        with open(path, "rb") as file:
            return file.read(), said

    def calendar_bytes(self, name, *arguments):
        return self.calendar(name, *arguments)[0]

    def khal(self, *arguments):
        done = subprocess.run([self.khal_binary, "-c", self.config, *arguments], env=self.khal_env, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"khal {' '.join(arguments)} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def khal_import(self, calendar, data):
        path = os.path.join(self.scratch, f"import-{calendar}.ics")
        with open(path, "wb") as file:
            file.write(data)
        self.khal("import", "--batch", "-a", calendar, path)

    def vdir(self, calendar):
        """The calendar's .ics files in khal's vdir, by the UID each holds: {uid: text}."""
        import icalendar

        folder = os.path.join(self.khal_home, "vdir", calendar)
        files = {}
        for name in sorted(os.listdir(folder)):
            if name.endswith(".ics"):
                with open(os.path.join(folder, name), encoding="utf-8") as file:
                    text = file.read()
                uid = str(icalendar.Calendar.from_ical(text).walk("VEVENT")[0]["UID"])
                files[uid if uid not in files else f"{uid} (again, {name})"] = text
        return files


if __name__ == "__main__":
    main()
