#!/usr/bin/env python3
"""Merge (issue 54): `cache import --merge` never rolls newer data back. Each round, on a real
reference server:

1. export an archive of profile A (the older copy);
2. random changes on A after it: new plans (`plan weight`, each a kept plan), visits added,
   weights queued offline; on the server, a conversation renamed and one started, an album
   retitled (sometimes a conversation deleted here), each read again by A;
3. a second profile B imports the newer state (an export of A after the changes) in the
   first round, then each round merges A's older archive into A and the newer one into B.

After each merge, item by item: every kept plan of the profile stays with its id (a union:
the archive's plans it did not hold are added), the current plan is the newer of the two
(the profile's when it was newer, the archive's when that was), the cached visits are the
newer copy (a visit added after the older export is still listed), the conversations are
the newer of each (renamed and started ones stay, deleted ones stay deleted, both ways), the
album list is the newer copy, and every queued change stays queued. A dry run before each merge changes nothing and names each domain's choice.

Figures: rounds, merges checked, kept plans and visits that would have been rolled back by a
file-by-file merge (what the newer side had that the older archive did not).

    python3 reliability/merge.py [--rounds 10] [--build-dir .build] [--configuration debug]
"""
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally  # noqa: E402


def document(result):
    return json.loads(result.stdout)


class Merge:
    def __init__(self, options, tally, server, profile, other):
        self.options, self.tally, self.profile, self.other = options, tally, profile, other
        self.random = random.Random(options.seed)
        self.guarded = {"kept plans": 0, "visits": 0, "conversations": 0, "albums": 0}
        self.server = server
        self.clock = time.time()
        self.started = 0
        self.merges = 0
        self.newer_is_profile = True

    def state(self, profile):
        """What a merge must not roll back: kept plan ids with their dates, the current plan's
        targets and when it came, the cached visit ids, the queued change ids."""
        plans = document(profile.must("--offline", "plan", "history", "--plans", "--json"))["plans"]
        current = document(profile.must("--offline", "plan", "--json"))
        visits = document(profile.must("--offline", "visits", "list", "--json"))["visits"]
        pending = document(profile.must("--offline", "plan", "pending", "--json"))["pending"]
        conversations = document(profile.must("--offline", "coach", "conversations", "--json"))["conversations"]
        albums = document(profile.must("--offline", "library", "albums", "--json"))["albums"]
        return {"plans": {plan["id"]: plan["receivedAt"] for plan in plans},
                "conversations": sorted(f"{c['id']} {c['title']}" for c in conversations),
                "albums": sorted(f"{a['ratingKey']} {a['title']}" for a in albums),
                "planContents": sorted(json.dumps(plan["plan"], sort_keys=True) for plan in plans),
                "current": json.dumps(current["plan"], sort_keys=True),
                "visits": sorted(visit["id"] for visit in visits),
                "pending": sorted(change["id"] for change in pending)}

    def change(self, profile):
        for _ in range(self.random.randint(1, 2)):
            profile.must("plan", "weight", f"{self.random.uniform(70, 90):.1f}", "--yes")
        for _ in range(self.random.randint(0, 2)):
            profile.must("visits", "add", "--place", f"Place {self.random.randrange(10**6)}")
        profile.must("visits", "list")
        if self.random.random() < 0.5:
            profile.must("--offline", "plan", "weight", f"{self.random.uniform(70, 90):.1f}", "--yes")
        # The coach: a conversation renamed and one started on the server, sometimes one deleted
        # here; the library: an album retitled on the server. Each read waits for its refresh.
        self.clock += 10
        mine = sorted(c["id"] for c in document(profile.must("--offline", "coach", "conversations", "--json"))["conversations"])
        target = self.random.choice(mine)
        user = self.server.admin("POST", "/_admin/sql", {"sql": "SELECT user_id FROM conversations WHERE id = ?", "arguments": [target]})["rows"][0][0]
        self.server.admin("POST", "/_admin/sql", {"sql": "UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?",
                                                  "arguments": [f"Renamed {self.random.randrange(10**6)}", str(self.clock), target]})
        self.started += 1
        self.server.admin("POST", "/_admin/sql", {"sql": """
            INSERT INTO conversations (id, user_id, title, domain, last_message_at, message_count, created_at, updated_at)
            VALUES (?, ?, ?, 'general', NULL, 0, ?, ?)""", "arguments": [
            f"00000000-0000-4000-8000-{self.started:012d}", user, f"Started {self.started}", str(self.clock), str(self.clock)]})
        if self.random.random() < 0.5 and len(mine) > 3:
            victim = self.random.choice([id for id in mine if id != target])
            profile.must("coach", "delete", victim, "--yes")
        profile.must("coach", "conversations", env={"BRADOS_REFRESH_WAIT": "60s"})
        albums = document(profile.must("--offline", "library", "albums", "--json"))["albums"]
        album = self.random.choice(albums)["ratingKey"]
        self.server.admin("POST", "/_admin/plex", {"at": int(self.clock), "retitle": {album: f"Retitled {self.random.randrange(10**6)}"}})
        profile.must("library", "albums", "--refresh")

    def export(self, profile, name):
        path = os.path.join(profile.home, name)
        if os.path.exists(path):
            os.remove(path)
        profile.must("cache", "export", "-o", path)
        return path

    def merge(self, profile, archive, archive_state, label):
        before = self.state(profile)
        dry = profile.run("cache", "import", archive, "--merge", "--dry-run")
        if dry.returncode != 0 or any(f"{domain}:" not in dry.stdout for domain in ("plan", "visits", "mealplan", "coach", "library")):
            return self.tally.fail(f"{label}: the dry run ({dry.returncode}) did not say each domain's merge: {dry.stdout[-300:]} {dry.stderr[-300:]}")
        if self.state(profile) != before:
            return self.tally.fail(f"{label}: a dry run changed the profile")
        result = profile.run("cache", "import", archive, "--merge")
        if result.returncode != 0:
            return self.tally.fail(f"{label}: the merge failed ({result.returncode}): {result.stderr[-300:]}")
        after = self.state(profile)
        self.merges += 1
        problems = []
        lost = {plan_id: received for plan_id, received in before["plans"].items() if after["plans"].get(plan_id) != received}
        if lost:
            problems.append(f"kept plans lost or renumbered: {sorted(lost)}")
        missing = set(archive_state["planContents"]) - set(after["planContents"])
        if missing:
            problems.append(f"{len(missing)} of the archive's kept plans were not added")
        newer_current = before["current"] if self.newer_is_profile else archive_state["current"]
        if after["current"] != newer_current:
            problems.append("the current plan is not the newer one")
        expected_visits = before["visits"] if self.newer_is_profile else archive_state["visits"]
        if after["visits"] != expected_visits:
            problems.append(f"the visits are not the newer copy ({len(after['visits'])} listed, {len(expected_visits)} expected)")
        for key, what in (("conversations", "conversations"), ("albums", "albums")):
            newer = before[key] if self.newer_is_profile else archive_state[key]
            if after[key] != newer:
                gone, back = sorted(set(newer) - set(after[key])), sorted(set(after[key]) - set(newer))
                problems.append(f"the {what} are not the newer ones (missing {gone[:3]}, rolled back or revived {back[:3]})")
        if not set(before["pending"]) <= set(after["pending"]):
            problems.append("a queued change was dropped")
        if problems:
            return self.tally.fail(f"{label}: " + "; ".join(problems))
        self.tally.ok()
        if self.newer_is_profile:
            self.guarded["kept plans"] += len(set(before["plans"]) - set(archive_state["plans"]))
            self.guarded["visits"] += len(set(before["visits"]) - set(archive_state["visits"]))
            self.guarded["conversations"] += len(set(before["conversations"]) - set(archive_state["conversations"]))
            self.guarded["albums"] += len(set(before["albums"]) - set(archive_state["albums"]))

    def round(self, index):
        older = self.export(self.profile, "older.tar.zst")
        older_state = self.state(self.profile)
        self.change(self.profile)
        newer = self.export(self.profile, "newer.tar.zst")
        newer_state = self.state(self.profile)
        # The profile is newer than the archive: nothing of it goes back.
        self.newer_is_profile = True
        self.merge(self.profile, older, older_state, f"round {index}, older archive into the newer profile")
        # The archive is newer than the profile (B holds the state of an earlier round, or none).
        if index == 0:
            self.other.must("cache", "import", older, "--as", "default")
        self.newer_is_profile = False
        self.merge(self.other, newer, newer_state, f"round {index}, newer archive into an older profile")


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=54)
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("merge")
    with Server(binaries) as server:
        profile = Profile(binaries, server)
        other = Profile(binaries, server)
        suite = Merge(options, tally, server, profile, other)
        try:
            profile.login(supabase_email="demo@example.com")
            other.login(supabase_email="demo@example.com")
            for command in (["plan"], ["mealplan", "show"], ["visits", "list"], ["coach", "conversations"], ["library", "albums"]):
                profile.must(*command)
            for index in range(options.rounds):
                suite.round(index)
        finally:
            profile.remove()
            other.remove()
    tally.figures["rounds"] = options.rounds
    tally.figures["merges checked"] = suite.merges
    tally.figures["what a file-by-file merge would have rolled back"] = \
        ", ".join(f"{count} {what}" for what, count in suite.guarded.items())
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
