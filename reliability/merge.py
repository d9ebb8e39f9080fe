#!/usr/bin/env python3
"""Merge (issue 54): `cache import --merge` never rolls newer data back. Each round, on a real
reference server:

1. export an archive of profile A (the older copy);
2. random changes on A after it: new plans (`plan weight`, each a kept plan), visits added,
   weights queued offline;
3. a second profile B imports the newer state (an export of A after the changes) in the
   first round, then each round merges A's older archive into A and the newer one into B.

After each merge, item by item: every kept plan of the profile stays with its id (a union:
the archive's plans it did not hold are added), the current plan is the newer of the two
(the profile's when it was newer, the archive's when that was), the cached visits are the
newer copy (a visit added after the older export is still listed), and every queued change
stays queued. A dry run before each merge changes nothing and names each domain's choice.

Figures: rounds, merges checked, kept plans and visits that would have been rolled back by a
file-by-file merge (what the newer side had that the older archive did not).

    python3 reliability/merge.py [--rounds 10] [--build-dir .build] [--configuration debug]
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally  # noqa: E402


def document(result):
    return json.loads(result.stdout)


class Merge:
    def __init__(self, options, tally, profile, other):
        self.options, self.tally, self.profile, self.other = options, tally, profile, other
        self.random = random.Random(options.seed)
        self.guarded = {"kept plans": 0, "visits": 0}
        self.merges = 0
        self.newer_is_profile = True

    def state(self, profile):
        """What a merge must not roll back: kept plan ids with their dates, the current plan's
        targets and when it came, the cached visit ids, the queued change ids."""
        plans = document(profile.must("--offline", "plan", "history", "--plans", "--json"))["plans"]
        current = document(profile.must("--offline", "plan", "--json"))
        visits = document(profile.must("--offline", "visits", "list", "--json"))["visits"]
        pending = document(profile.must("--offline", "plan", "pending", "--json"))["pending"]
        return {"plans": {plan["id"]: plan["receivedAt"] for plan in plans},
                "planContents": sorted(json.dumps(plan["plan"], sort_keys=True) for plan in plans),
                "current": json.dumps(current["plan"], sort_keys=True),
                "visits": sorted(visit["id"] for visit in visits),
                "pending": sorted(change["id"] for change in pending)}

    def change(self, profile):
        for _ in range(self.random.randint(1, 2)):
            profile.must("plan", "weight", f"{self.random.uniform(70, 90):.1f}")
        for _ in range(self.random.randint(0, 2)):
            profile.must("visits", "add", "--place", f"Place {self.random.randrange(10**6)}")
        profile.must("visits", "list")
        if self.random.random() < 0.5:
            profile.must("--offline", "plan", "weight", f"{self.random.uniform(70, 90):.1f}")

    def export(self, profile, name):
        path = os.path.join(profile.home, name)
        if os.path.exists(path):
            os.remove(path)
        profile.must("cache", "export", "-o", path)
        return path

    def merge(self, profile, archive, archive_state, label):
        before = self.state(profile)
        dry = profile.run("cache", "import", archive, "--merge", "--dry-run")
        if dry.returncode != 0 or "plan:" not in dry.stdout or "visits:" not in dry.stdout:
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
        if not set(before["pending"]) <= set(after["pending"]):
            problems.append("a queued change was dropped")
        if problems:
            return self.tally.fail(f"{label}: " + "; ".join(problems))
        self.tally.ok()
        if self.newer_is_profile:
            self.guarded["kept plans"] += len(set(before["plans"]) - set(archive_state["plans"]))
            self.guarded["visits"] += len(set(before["visits"]) - set(archive_state["visits"]))

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
        suite = Merge(options, tally, profile, other)
        try:
            profile.login()
            other.login()
            for command in (["plan"], ["mealplan", "show"], ["visits", "list"]):
                profile.must(*command)
            for index in range(options.rounds):
                suite.round(index)
        finally:
            profile.remove()
            other.remove()
    tally.figures["rounds"] = options.rounds
    tally.figures["merges checked"] = suite.merges
    tally.figures["kept plans and visits a file-by-file merge would have rolled back"] = \
        f"{suite.guarded['kept plans']} and {suite.guarded['visits']}"
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
