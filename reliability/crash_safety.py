#!/usr/bin/env python3
"""Crash safety (issue 11, suite 1): SIGKILL `brados` at random moments during
`mealplan finalize`, `library prefetch`, `coach show` (database writes), `cache export` and
`cache import`, then check that nothing is torn: every JSON file parses, every SQLite
database passes integrity_check, the artwork index matches the files (size and SHA-256),
an export is either absent or verifies, an import left the profile exactly as before or
exactly as imported, and the next command of the domain succeeds.

Figure: corrupt states found (goal 0).

    python3 reliability/crash_safety.py [--runs 200] [--build-dir .build] [--configuration debug]
"""
import json
import os
import random
import shutil
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (suite_parser, Binaries, Profile, Server, Tally, biggest_conversation, corrupt_files,  # noqa: E402
                     files_under, kill_group, profile_digest)


def xxh64(data):
    """The artwork index's checksum (`xxh64:` + 16 hex digits)."""
    try:
        import xxhash
    except ImportError:
        sys.exit("xxhash is not installed: scripts/ensure-deps.sh reliability installs it (pip)")
    return "xxh64:" + xxhash.xxh64(data).hexdigest()


def artwork_problems(profile):
    """Index rows whose file is missing, of another size or checksum; a wrong total."""
    root = os.path.join(profile.home, "cache", "users", "default", "library", "artwork")
    index = os.path.join(root, "index.sqlite")
    if not os.path.exists(index):
        return []
    problems = []
    connection = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=10)
    try:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(blob)")]
        if not columns:
            return []  # killed before the first migration committed: an empty index, migrated on the next open
        # A process killed between the index's first two migrations leaves the first schema
        # (SHA-256 checksums); the next open migrates it. Sizes still have to match.
        checksum = "checksum" if "checksum" in columns else "NULL"
        rows = connection.execute(f"SELECT bucket, name, size, {checksum} FROM blob").fetchall()
        total = connection.execute("SELECT bytes, entries FROM total").fetchone()
    finally:
        connection.close()
    for bucket, name, size, checksum in rows:
        path = os.path.join(root, bucket, name[:2], name)
        if not os.path.isfile(path):
            problems.append(f"index names {bucket}/{name}, which is missing")
            continue
        with open(path, "rb") as handle:
            data = handle.read()
        if len(data) != size or (checksum is not None and xxh64(data) != checksum):
            problems.append(f"{bucket}/{name}: {len(data)} bytes on disk, index says {size}, or the checksum differs")
    if total and (total[0] != sum(r[2] for r in rows) or total[1] != len(rows)):
        problems.append(f"total row {total} does not match the {len(rows)} rows")
    return problems


def profile_state(profile):
    """What an import may change (see harness.profile_digest)."""
    return profile_digest(profile.home)


leftover_temps = 0


def killed(profile, args, window):
    """Starts `brados args`, SIGKILLs it after a random delay within window seconds.
    Returns whether it was still running when killed."""
    process = profile.spawn(*args)
    time.sleep(random.uniform(0, window))
    running = process.poll() is None
    kill_group(process)
    return running


def duration(profile, args, before=None):
    samples = []
    for _ in range(2):
        if before:
            before()
        start = time.monotonic()
        profile.must(*args, timeout=300)
        samples.append(time.monotonic() - start)
    return max(samples) * 1.2


def temp_files(profile):
    """Temporary files a killed writer left in the profile (garbage, not corruption)."""
    return [path for path in files_under(profile.home)
            if os.path.basename(path).endswith(".partial") or ".tmp-" in os.path.basename(path)]


def check(tally, profile, what, extra=()):
    global leftover_temps
    temps = temp_files(profile)
    if len(temps) > leftover_temps:
        print(f"  note: {what} left {[os.path.relpath(t, profile.home) for t in temps][:3]}", flush=True)
    leftover_temps = max(leftover_temps, len(temps))
    problems = [f"{path}: {reason}" for path, reason in corrupt_files(profile.home)] + list(extra)
    if problems:
        tally.fail(f"{what}: {problems[:3]}")
        return False
    return True


class CrashSafety:
    """One run of the suite: the signed-in profile, the tally and the counts the five
    operations share. Each operation is a method, run in the order of the docstring."""

    def __init__(self, tally, profile, per_operation):
        self.tally = tally
        self.profile = profile
        self.per_operation = per_operation
        self.killed_running = 0
        self.out_dir = None  # where exports go (made by the export case, used by the import case)

    def kill(self, args, window):
        """`killed`, counting a kill that landed while the command ran."""
        self.killed_running += killed(self.profile, args, window)

    def mealplan_finalize(self):
        """1. mealplan finalize: the cached plan is the old one or the new one, never torn."""
        profile, tally = self.profile, self.tally

        def draft():
            profile.must("mealplan", "new")
            profile.must("mealplan", "critique", "more fish")
        window = duration(profile, ["mealplan", "finalize"], before=draft)
        for _ in range(self.per_operation):
            draft()
            self.kill(["mealplan", "finalize"], window)
            if check(tally, profile, "mealplan finalize"):
                shown = profile.run("mealplan", "show")
                if shown.returncode != 0:
                    tally.fail(f"mealplan show after a killed finalize: {shown.stderr.strip()}")
                else:
                    tally.ok()

    def library_prefetch(self):
        """2. library prefetch: the artwork index matches the files after every kill."""
        profile, tally = self.profile, self.tally

        def clear_artwork():
            profile.must("cache", "clear", "library")
        window = duration(profile, ["library", "prefetch", "--rows", "40"], before=clear_artwork)
        for index in range(self.per_operation):
            if index % 3 == 0:
                clear_artwork()
            self.kill(["library", "prefetch", "--rows", "40"], window)
            if check(tally, profile, "library prefetch", artwork_problems(profile)):
                again = profile.run("library", "prefetch", "--rows", "40")
                if again.returncode != 0 or artwork_problems(profile):
                    tally.fail(f"library prefetch after a kill: {again.stderr.strip()} {artwork_problems(profile)[:2]}")
                else:
                    tally.ok()

    def coach_show(self):
        """3. coach show: the database is intact and the next show succeeds."""
        profile, tally = self.profile, self.tally
        biggest = biggest_conversation(profile)

        def clear_coach():
            profile.must("cache", "clear", "coach")
        window = duration(profile, ["coach", "show", biggest], before=clear_coach)
        for index in range(self.per_operation):
            if index % 2 == 0:
                clear_coach()
            self.kill(["coach", "show", biggest], window)
            if check(tally, profile, "coach show"):
                again = profile.run("coach", "show", biggest)
                if again.returncode != 0:
                    tally.fail(f"coach show after a kill: {again.stderr.strip()}")
                else:
                    tally.ok()

    def cache_export(self):
        """4. cache export: the archive is absent or whole (it verifies)."""
        profile, tally = self.profile, self.tally
        self.out_dir = os.path.join(profile.home, "exports")
        os.makedirs(self.out_dir)
        target = os.path.join(self.out_dir, "backup.tar.zst")

        def remove_target():
            if os.path.exists(target):
                os.remove(target)
        window = duration(profile, ["cache", "export", "-o", target], before=remove_target)
        leftovers = 0
        for _ in range(self.per_operation):
            remove_target()
            self.kill(["cache", "export", "-o", target], window)
            extra = []
            if os.path.exists(target):
                verified = profile.run("cache", "verify", target)
                if verified.returncode != 0:
                    extra.append(f"a killed export left {target}, which does not verify: {verified.stderr.strip()}")
            leftovers += len([name for name in os.listdir(self.out_dir) if name != "backup.tar.zst"])
            if check(tally, profile, "cache export", extra):
                tally.ok()
        tally.figures["export temp files left"] = leftovers

    def cache_import(self):
        """5. cache import: the profile is exactly as before, or exactly as imported."""
        profile, tally = self.profile, self.tally
        archive = os.path.join(self.out_dir, "imported.tar.zst")
        profile.must("cache", "export", "-o", archive)              # state X: everything cached so far
        profile.must("cache", "clear", "mealplan", "library")       # state Y: some of it gone
        before_home = os.path.join(profile.home, "..", os.path.basename(profile.home) + "-before")
        saved = {root: os.path.join(before_home, root) for root in ("cache", "data")}
        for root, copy in saved.items():
            shutil.copytree(os.path.join(profile.home, root), copy, symlinks=True)
        state_before = profile_state(profile)
        profile.must("cache", "import", archive, "--replace")
        state_after = profile_state(profile)

        def restore():
            for root, copy in saved.items():
                shutil.rmtree(os.path.join(profile.home, root))
                shutil.copytree(copy, os.path.join(profile.home, root), symlinks=True)
        window = duration(profile, ["cache", "import", archive, "--replace"], before=restore)
        torn_imports = 0
        for _ in range(self.per_operation):
            restore()
            self.kill(["cache", "import", archive, "--replace"], window)
            recovered = profile.run("cache", "stats")  # the next command recovers an interrupted swap
            state = profile_state(profile)
            extra = []
            if recovered.returncode != 0:
                extra.append(f"cache stats after a killed import: {recovered.stderr.strip()}")
            if state not in (state_before, state_after):
                torn_imports += 1
                changed = sorted(set(state["cache"].items()) ^ set(state_before["cache"].items()))[:3]
                extra.append(f"the profile is neither as before nor as imported: {changed}")
            if check(tally, profile, "cache import", extra):
                tally.ok()
        tally.figures["half-imported profiles"] = torn_imports
        shutil.rmtree(before_home, ignore_errors=True)


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--runs", type=int, default=200, help="kills in all, spread over the five operations")
    parser.add_argument("--seed", type=int, default=11)
    options = parser.parse_args()
    random.seed(options.seed)
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("crash safety")

    with Server(binaries) as server:
        profile = Profile(binaries, server)
        suite = CrashSafety(tally, profile, per_operation=max(1, options.runs // 5))
        try:
            profile.login(supabase_email="demo@example.com")
            suite.mealplan_finalize()
            suite.library_prefetch()
            suite.coach_show()
            suite.cache_export()
            suite.cache_import()
        finally:
            profile.remove()

    tally.figures["kills while running"] = suite.killed_running
    tally.figures["temp files left in the profile"] = leftover_temps
    tally.figures["corrupt states"] = len(tally.failures)
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
