#!/usr/bin/env python3
"""Profile lock: one lock per profile (`$BRADOS_HOME/data/locks/<profile>.lock`, never
deleted). Commands that read or write the profile hold it shared; `cache import`, `cache
clear` and `auth logout` hold it alone (the holder writes "<pid> <activity>" into the file).
A waiter waits up to `profile.lock-timeout` (BRADOS_PROFILE_LOCK_TIMEOUT, 60 s), then exits
11 naming the other brados's pid; on a terminal it says "waiting for another brados (pid N)
to finish importing…".

Each round takes a fresh profile signed in to a loopback server, its caches filled, one plan
change queued, and archives exported beforehand (FULL: every domain, the queue included; A:
visits, library and coach; B: the same after one more visit), then:

1. lock timeout: the lock held exclusively from Python ("<pid> importing"): `visits list
   --offline` with a 1 s timeout exits 11 within 1-3.5 s naming the pid (and, on a terminal,
   shows the waiting line); held shared: `visits list --offline` runs at once, `cache clear
   visits` exits 11 and clears nothing.
2. import vs writes: `cache import --merge FULL` while `plan weight KG --offline` and `visits
   add` run alongside: every `plan weight` that exited 0 is in `plan pending` afterwards (a
   merge never drops queued changes); every store passes the corruption checks.
3. two imports at once (`--merge` A and B): both exit 0 and the profile is exactly what one
   of the two serial orders gives (computed by running both orders from the same start).
4. mixed: import (FULL), sync, visits/library revalidation, logout and visits add, in random
   order with random small delays: no crash, no unexplained exit, nothing corrupt; if logout
   succeeded and the import (which needs no account) did not end after it, nothing of the
   account is left (a key-value store holding only the install's library.clientIdentifier,
   which a signed-out `sync` or `library revalidate` creates, is counted apart).
5. logout vs background revalidation: `visits revalidate` (and `library revalidate`) held at
   the server by a latency fault (on the last request before the revalidation saves), then
   `auth logout`: once both have ended, 0 bytes remain under cache/users/<profile> and
   data/users/<profile>.

Figures: rounds, lost writes (goal 0), corrupt stores (goal 0), bytes left after logout.

    python3 reliability/profile_lock.py [--rounds 20] [--build-dir .build] [--configuration debug]
"""
import fcntl
import json
import os
import pty
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (suite_parser, Binaries, Profile, Server, Tally, biggest_conversation, corrupt_files,  # noqa: E402
                     files_under, kill_group, profile_digest, wait_for_request)

PROFILE = "default"
BUSY = 11
CRASH_MARKERS = ("Fatal error", "Stack dump", "Backtrace", "Current stack trace", "SIGSEGV", "SIGILL", "panic")
# Exit codes a command of the mixed case may give: ok, not found, sign in (after the
# logout), needs network, server failure, busy (a 60 s wait is not expected, but documented).
MIXED_EXITS = {0, 3, 4, 5, 6, BUSY}
DEVICE_KEYS = {"library.clientIdentifier"}
device_only = set()  # key-value stores left with device settings only (a figure)


def lock_path(profile):
    return os.path.join(profile.home, "data", "locks", f"{PROFILE}.lock")


def profile_bytes(profile):
    """(bytes, files) under cache/users/<profile> and data/users/<profile>."""
    total, names = 0, []
    for root in ("cache", "data"):
        for path in files_under(os.path.join(profile.home, root, "users", PROFILE)):
            if os.path.isfile(path) and not os.path.islink(path):
                total += os.path.getsize(path)
                names.append(os.path.relpath(path, profile.home))
    return total, sorted(names)


def account_data(profile):
    """(bytes, files) of the account's data left in the profile: every file with content,
    except a key-value store that holds only device settings (a signed-out `sync` or `library
    revalidate` creates `library.clientIdentifier`; it identifies the install, not the user)."""
    total, names = 0, []
    for name in profile_bytes(profile)[1]:
        path = os.path.join(profile.home, name)
        size = os.path.getsize(path)
        if not size:
            continue
        if os.path.basename(name) == "defaults.json":
            try:
                with open(path) as handle:
                    keys = set(json.load(handle))
            except ValueError:
                keys = {"(does not parse)"}
            if keys <= DEVICE_KEYS:
                device_only.add(name)
                continue
            name += f" (keys {sorted(keys - DEVICE_KEYS)[:4]})"
        total += size
        names.append(name)
    return total, names


def spawn(profile, *args, env=None):
    merged = dict(profile.env, **(env or {}))
    return subprocess.Popen([profile.binaries.brados, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=merged, start_new_session=True, text=True)


class Job:
    """A brados started after `delay` seconds on a thread of its own: exit code, output and
    the monotonic times it started and ended."""

    def __init__(self, profile, label, args, delay=0.0, env=None, timeout=180):
        self.label, self.args = label, args
        self.returncode, self.stdout, self.stderr = None, "", ""
        self.started = self.ended = None
        def run():
            time.sleep(delay)
            self.started = time.monotonic()
            process = spawn(profile, *args, env=env)
            try:
                self.stdout, self.stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                kill_group(process)
                self.stdout, self.stderr = process.communicate()
                self.stderr += f"\n[killed after {timeout} s]"
            self.ended = time.monotonic()
            self.returncode = process.returncode
        self.thread = threading.Thread(target=run)
        self.thread.start()

    def join(self):
        self.thread.join()
        return self

    @property
    def crashed(self):
        return (self.returncode is not None and self.returncode < 0) or any(m in self.stderr for m in CRASH_MARKERS)

    def describe(self):
        return f"`{' '.join(self.args)}` exit {self.returncode}: {self.stderr.strip()[:200]!r}"


def visit_ids(profile):
    result = profile.run("visits", "list", "--offline", "--json")
    if result.returncode != 0:
        return None
    return {visit["id"] for visit in json.loads(result.stdout)["visits"]}


def pending_weights(profile):
    result = profile.run("plan", "pending", "--offline", "--json")
    if result.returncode != 0:
        return None
    return [round(float(change.get("weightKg", 0)), 1) for change in json.loads(result.stdout)["pending"]]


class Snapshot:
    """A copy of the profile's cache and data folders, to start several runs from one state."""

    def __init__(self, profile, folder):
        self.profile = profile
        self.copies = {root: os.path.join(folder, root) for root in ("cache", "data")}
        for root, copy in self.copies.items():
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(os.path.join(profile.home, root), copy, symlinks=True)

    def restore(self):
        for root, copy in self.copies.items():
            shutil.rmtree(os.path.join(self.profile.home, root), ignore_errors=True)
            shutil.copytree(copy, os.path.join(self.profile.home, root), symlinks=True)


def strip_terminal(text):
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "\n", text)


def on_terminal(profile, args, env, timeout=30):
    """Runs brados with stderr on a pseudo-terminal (stdout piped); returns (exit code,
    what the terminal showed)."""
    master, slave = pty.openpty()
    process = subprocess.Popen([profile.binaries.brados, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=slave, env=dict(profile.env, **env, TERM="xterm"), start_new_session=True)
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        elif process.poll() is not None:
            break
    os.close(master)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        kill_group(process)
    return process.returncode, strip_terminal(shown.decode("utf-8", "replace"))


class Round:
    """One round's profile and the archives exported from it beforehand: FULL (every domain,
    the queue included), A (visits, library and coach) and B (the same after one more visit,
    `b_visit`)."""

    def __init__(self, index, profile, work):
        self.index = index
        self.profile = profile
        self.archive = os.path.join(work, f"all-{index}.tar.zst")
        self.archive_a = os.path.join(work, f"a-{index}.tar.zst")
        self.archive_b = os.path.join(work, f"b-{index}.tar.zst")
        self.b_visit = None


class ProfileLock:
    """One run of the suite: the server, the tally and the counts every round adds to. Each
    case of the docstring is a method taking the round; `run_round` runs them in order."""

    def __init__(self, options, binaries, tally, server, work):
        self.options = options
        self.binaries = binaries
        self.tally = tally
        self.server = server
        self.work = work          # the rounds' archives and snapshots
        self.lost_writes = 0
        self.corrupt_stores = 0
        self.bytes_left = 0
        self.recreated = set()
        self.orders = {"A then B": 0, "B then A": 0, "neither": 0, "not computable": 0}
        self.timeout_exits = {}
        self.mixed_exits = {}
        self.weight_counter = 0
        self.window = 0.8  # seconds the writers of an import are spread over
        self.logout_checked = 0

    def next_weight(self):
        self.weight_counter += 1
        return round(40.0 + self.weight_counter / 10, 1)  # 40.1, 40.2, … unique across the run

    def check_corrupt(self, profile, what):
        """Fails (and counts) the stores under the profile that do not pass the corruption checks."""
        problems = corrupt_files(profile.home)
        if problems:
            self.corrupt_stores += len(problems)
            self.tally.fail(f"{what}: {[f'{path}: {reason}' for path, reason in problems][:3]}")
            return False
        return True

    def run_round(self, round_index):
        """A fresh profile, prepared, then the five cases; a setup error fails the round."""
        self.server.clear_faults()
        profile = Profile(self.binaries, self.server, extra_env={"BRADOS_NETWORK_TIMEOUT": "20s"})
        try:
            current = self.prepare(Round(round_index, profile, self.work))
            self.lock_timeout(current)
            self.import_vs_writes(current)
            self.two_imports(current)
            self.mixed(current)
            self.logout_vs_revalidation(current)
        except RuntimeError as error:
            self.tally.fail(f"round {round_index}: setup: {error}")
        finally:
            self.server.clear_faults()
            profile.remove()
            for name in os.listdir(self.work):
                target = os.path.join(self.work, name)
                shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)

    def prepare(self, current):
        """Signs in, fills the caches, queues one plan change and exports FULL, A and B."""
        profile, round_index = current.profile, current.index
        profile.login(supabase_email="demo@example.com")
        profile.must("visits", "list", "--refresh")
        profile.must("library", "albums", "--refresh")
        profile.must("library", "prefetch", "--rows", "12")
        profile.must("coach", "show", biggest_conversation(profile))
        profile.must("plan")
        # A queued change, so that A holds a queue: a merge import then rebuilds the
        # profile's queue (its own changes, then A's, paused) and swaps it in.
        profile.must("plan", "weight", f"{self.next_weight()}", "--offline", "--yes")
        profile.must("cache", "export", "-o", current.archive)
        # A and B: no queue (an imported change is stamped with the time of the
        # import, and two runs of one order would differ), B with one more visit.
        profile.must("cache", "export", "-o", current.archive_a, "--domains", "visits,library,coach")
        current.b_visit = json.loads(profile.must("visits", "add", "--place", f"Only in B {round_index}",
                                                  "--json").stdout)["visit"]["id"]
        profile.must("visits", "list", "--refresh")
        profile.must("cache", "export", "-o", current.archive_b, "--domains", "visits,library,coach")
        return current

    def lock_timeout(self, current):
        """1. Lock timeout, the lock held by this process: exclusively, then shared."""
        profile = current.profile
        path = lock_path(profile)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            me = os.getpid()
            self.held_exclusively(current, descriptor, me)
            before, after = self.held_shared(current, descriptor, me)
        finally:
            os.close(descriptor)
        if not (before and after == before):
            profile.must("visits", "list", "--refresh")

    def held_exclusively(self, current, descriptor, me):
        """The lock held exclusively ("<pid> importing"): `visits list --offline` with a 1 s
        timeout exits 11 within 1-3.5 s naming the pid and what it does; in the first round,
        on a terminal, it shows the waiting line."""
        profile, round_index, tally = current.profile, current.index, self.tally
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{me} importing\n".encode(), 0)
        started = time.monotonic()
        waited = profile.run("visits", "list", "--offline", env={"BRADOS_PROFILE_LOCK_TIMEOUT": "1s"}, timeout=60)
        seconds = time.monotonic() - started
        self.timeout_exits[str(waited.returncode)] = self.timeout_exits.get(str(waited.returncode), 0) + 1
        problems = []
        if waited.returncode != BUSY:
            problems.append(f"exit {waited.returncode}, expected {BUSY}")
        if not 0.9 <= seconds <= 3.5:
            problems.append(f"gave up after {seconds:.1f} s, expected 1-3 s")
        if f"pid {me}" not in waited.stderr or "importing" not in waited.stderr:
            problems.append("the message does not name the pid and what it does")
        if problems:
            tally.fail(f"round {round_index}: `visits list --offline` while the lock is held exclusively "
                       f"({me} importing): {problems}; stderr {waited.stderr.strip()[:200]!r}")
        else:
            tally.ok()
        if round_index == 0:
            code, shown = on_terminal(profile, ["visits", "list", "--offline"],
                                      {"BRADOS_PROFILE_LOCK_TIMEOUT": "2s"})
            expected = f"waiting for another brados (pid {me}) to finish importing"
            if code != BUSY or expected not in shown:
                tally.fail(f"on a terminal: exit {code}, expected {BUSY} and {expected!r}…; "
                           f"the terminal showed {shown.strip()[:200]!r}")
            else:
                tally.ok()
        os.ftruncate(descriptor, 0)
        fcntl.flock(descriptor, fcntl.LOCK_UN)

    def held_shared(self, current, descriptor, me):
        """The lock held shared: `visits list --offline` runs at once; `cache clear visits`
        exits 11 naming the pid and clears nothing. Returns the cached visits before and after."""
        profile, round_index, tally = current.profile, current.index, self.tally
        fcntl.flock(descriptor, fcntl.LOCK_SH)
        before = visit_ids(profile)
        started = time.monotonic()
        shared = profile.run("visits", "list", "--offline", env={"BRADOS_PROFILE_LOCK_TIMEOUT": "5s"})
        seconds = time.monotonic() - started
        if shared.returncode != 0 or seconds > 2.5:
            tally.fail(f"round {round_index}: `visits list --offline` beside a shared holder: exit "
                       f"{shared.returncode} after {seconds:.1f} s (expected 0 at once); "
                       f"{shared.stderr.strip()[:200]!r}")
        else:
            tally.ok()
        started = time.monotonic()
        cleared = profile.run("cache", "clear", "visits", env={"BRADOS_PROFILE_LOCK_TIMEOUT": "1s"})
        seconds = time.monotonic() - started
        after = visit_ids(profile)
        problems = []
        if cleared.returncode != BUSY:
            problems.append(f"exit {cleared.returncode} after {seconds:.1f} s, expected {BUSY}")
        elif f"pid {me}" not in cleared.stderr:
            problems.append("the message does not name the holder's pid")
        if before and after != before:
            problems.append(f"the visits cache was cleared under a shared holder "
                            f"({len(before)} visits before, {len(after or [])} after)")
        if problems:
            tally.fail(f"round {round_index}: `cache clear visits` while the lock is held shared: "
                       f"{problems}; stderr {cleared.stderr.strip()[:200]!r}")
        else:
            tally.ok()
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return before, after

    def import_vs_writes(self, current):
        """2. Import vs writes: a merge import never drops a queued change. Every `plan
        weight` that exited 0 is in `plan pending` afterwards; every store is whole."""
        profile, round_index = current.profile, current.index
        importing = Job(profile, "import", ["cache", "import", "--merge", current.archive])
        writers = []
        for index in range(self.options.writers):
            weight = self.next_weight()
            writers.append((weight, Job(profile, "weight", ["plan", "weight", f"{weight}", "--offline", "--yes"],
                                        delay=random.uniform(0, self.window))))
        adders = [Job(profile, "add", ["visits", "add", "--place", f"Racing the import {round_index}.{index}"],
                      delay=random.uniform(0, self.window)) for index in range(2)]
        importing.join()
        # The next round spreads its writers over this import's time.
        self.window = max(0.3, (importing.ended - importing.started) * 1.1)
        for _, job in writers:
            job.join()
        for job in adders:
            job.join()
        problems = []
        for job in [importing] + [job for _, job in writers] + adders:
            if job.returncode != 0:
                problems.append(job.describe())
        queued = pending_weights(profile)
        if queued is None:
            problems.append("`plan pending` fails after the race")
            queued = []
        lost = [weight for weight, job in writers if job.returncode == 0 and weight not in queued]
        self.lost_writes += len(lost)
        if lost:
            problems.append(f"{len(lost)} of {sum(job.returncode == 0 for _, job in writers)} queued weights "
                            f"that exited 0 are gone from `plan pending`: {lost}")
        if problems:
            self.tally.fail(f"round {round_index}: import vs writes: {problems}")
        else:
            self.tally.ok()
        self.check_corrupt(profile, f"round {round_index}: after import vs writes")

    def serial(self, current, snapshot, visits_after, first, second):
        """The profile (digested) after importing `first` then `second`, one after the other,
        from the snapshot; the cached visits go into visits_after."""
        profile = current.profile
        snapshot.restore()
        profile.must("cache", "import", "--merge", first)
        profile.must("cache", "import", "--merge", second)
        visits_after[(first, second)] = visit_ids(profile)
        return profile_digest(profile.home)

    def two_imports(self, current):
        """3. Two imports at once (--merge A and B): both exit 0 and the profile is exactly
        what one of the two serial orders gives."""
        profile, round_index, orders = current.profile, current.index, self.orders
        archive_a, archive_b = current.archive_a, current.archive_b
        snapshot = Snapshot(profile, os.path.join(self.work, "snapshot"))
        visits_after = {}
        a_then_b = self.serial(current, snapshot, visits_after, archive_a, archive_b)
        b_then_a = self.serial(current, snapshot, visits_after, archive_b, archive_a)
        computable = (self.serial(current, snapshot, visits_after, archive_a, archive_b) == a_then_b
                      and self.serial(current, snapshot, visits_after, archive_b, archive_a) == b_then_a)
        snapshot.restore()
        first = Job(profile, "import A", ["cache", "import", "--merge", archive_a])
        second = Job(profile, "import B", ["cache", "import", "--merge", archive_b], delay=random.uniform(0, 0.05))
        first.join()
        second.join()
        state = profile_digest(profile.home)
        problems = [job.describe() for job in (first, second) if job.returncode != 0]
        if not computable:
            orders["not computable"] += 1
            # Runs of one order differ (times in the files): the visits, at least, are one order's.
            if visit_ids(profile) not in visits_after.values():
                present = current.b_visit in (visit_ids(profile) or ())
                problems.append(f"the cached visits are neither A-then-B's nor B-then-A's "
                                f"(B's own visit {current.b_visit} {'present' if present else 'absent'})")
        elif state == a_then_b:
            orders["A then B"] += 1
        elif state == b_then_a:
            orders["B then A"] += 1
        else:
            orders["neither"] += 1
            differs = sorted({path for root in ("cache", "data")
                              for path, _ in set(state[root].items()) ^ set(a_then_b[root].items())})
            problems.append(f"the profile is neither A-then-B nor B-then-A (differs from A-then-B in {differs[:4]})")
        if problems:
            self.tally.fail(f"round {round_index}: two imports at once: {problems}")
        else:
            self.tally.ok()
        self.check_corrupt(profile, f"round {round_index}: after two imports")

    def mixed(self, current):
        """4. Mixed: import, sync, revalidations, logout, writes, in random order with random
        small delays: no crash, no unexplained exit, nothing corrupt, the lock file kept; and
        unless the import ended after the logout, nothing of the account is left."""
        profile, round_index, server = current.profile, current.index, self.server
        lock_existed = os.path.exists(lock_path(profile))
        server.fault(match="GET /api/visits", latencyMs=random.choice([100, 300, 600]))
        server.fault(match="GET /library/sections/1/collections", latencyMs=random.choice([100, 300, 600]))
        commands = [
            ("import", ["cache", "import", "--merge", current.archive]),
            ("sync", ["sync"]),
            ("visits revalidate", ["visits", "revalidate"]),
            ("library revalidate", ["library", "revalidate"]),
            # The imported archive carries a queued change: a sign-out that erases everything says so.
            ("logout", ["auth", "logout", "--discard-pending"]),
            ("visits add", ["visits", "add", "--place", f"Mixed {round_index}"]),
        ]
        random.shuffle(commands)
        delay = 0.0
        jobs = []
        for label, args in commands:
            jobs.append(Job(profile, label, args, delay=delay))
            delay += random.uniform(0, 0.25)
        for job in jobs:
            job.join()
        server.clear_faults()
        problems = []
        for job in jobs:
            self.mixed_exits.setdefault(job.label, {})
            self.mixed_exits[job.label][job.returncode] = self.mixed_exits[job.label].get(job.returncode, 0) + 1
            if job.crashed:
                problems.append(f"crashed: {job.describe()}")
            elif job.returncode not in MIXED_EXITS:
                problems.append(f"unexpected exit: {job.describe()}")
        logout = next(job for job in jobs if job.label == "logout")
        order = " < ".join(job.label for job in sorted(jobs, key=lambda job: job.ended))
        # What ends after the logout runs signed out: a revalidation, a sync, a visits add
        # need the account and must write nothing; an import is local and may. Unless
        # the import ended after it, the logout leaves nothing.
        local_after = [job for job in jobs if job.label == "import" and job.ended >= logout.ended]
        if logout.returncode == 0 and not local_after:
            self.logout_checked += 1
            left, names = account_data(profile)
            self.bytes_left += left
            if left:
                problems.append(f"{left} bytes of the account remain after the logout: {names[:4]}")
        if lock_existed and not os.path.exists(lock_path(profile)):
            problems.append("the lock file was deleted")
        if problems:
            self.tally.fail(f"round {round_index}: mixed (ended: {order}): {problems}")
        else:
            self.tally.ok()
        self.check_corrupt(profile, f"round {round_index}: after the mixed race ({order})")

    def logout_vs_revalidation(self, current):
        """5. Logout vs background revalidation, visits then library: nothing is written back."""
        for domain, key, fault in (
                ("visits", "GET /api/visits", "GET /api/visits"),
                # The library's first request: an unchanged library makes no other (delta refresh).
                ("library", "GET /library/sections", "GET /library/sections")):
            self.logout_during(current, domain, key, fault)

    def logout_during(self, current, domain, key, fault):
        """`<domain> revalidate` held at the server by a latency fault on `fault`, then `auth
        logout`: once both have ended, 0 bytes remain under the profile's users folders."""
        profile, round_index, server = current.profile, current.index, self.server
        profile.login(supabase_email="demo@example.com")
        profile.must("visits", "list", "--refresh")
        profile.must("library", "albums", "--refresh")
        lock_existed = os.path.exists(lock_path(profile))
        server.clear_faults()
        server.admin("DELETE", "/_admin/stats")
        server.fault(match=fault, latencyMs=1500, count=1)
        revalidation = Job(profile, "revalidate", [domain, "revalidate"])
        reached = wait_for_request(server, key)
        signed_out = Job(profile, "logout", ["auth", "logout", "--discard-pending"]).join()
        revalidation.join()
        server.clear_faults()
        left, names = profile_bytes(profile)
        self.bytes_left += left
        self.recreated.update(name for name in names if os.path.getsize(os.path.join(profile.home, name)) == 0)
        problems = []
        if not reached:
            problems.append("the revalidation never reached the server")
        if signed_out.returncode != 0:
            problems.append(f"logout: {signed_out.describe()}")
        if revalidation.crashed or revalidation.returncode not in (0, 4, BUSY):
            problems.append(f"revalidation: {revalidation.describe()}")
        if left:
            wrote = [name for name in names if os.path.getsize(os.path.join(profile.home, name))]
            problems.append(f"{left} bytes remain after logout: {wrote[:4]}")
        if lock_existed and not os.path.exists(lock_path(profile)):
            problems.append("the lock file was deleted")
        if problems:
            self.tally.fail(f"round {round_index}: logout during `{domain} revalidate` "
                            f"(revalidation exit {revalidation.returncode}): {problems}")
        else:
            self.tally.ok()
        self.check_corrupt(profile, f"round {round_index}: after logout vs {domain} revalidate")

    def figures(self):
        """The suite's figures, into the tally."""
        figures = self.tally.figures
        figures["rounds"] = self.options.rounds
        figures["lost writes"] = self.lost_writes
        figures["corrupt stores"] = self.corrupt_stores
        figures["bytes left after logout"] = self.bytes_left
        figures["empty files re-created after logout"] = sorted(self.recreated)
        figures["two imports"] = self.orders
        figures["lock-timeout exits"] = self.timeout_exits
        figures["mixed rounds checked for a clean logout"] = self.logout_checked
        figures["left with device settings only"] = len(device_only)
        figures["mixed exits"] = {label: {str(code): count for code, count in codes.items()}
                                  for label, codes in sorted(self.mixed_exits.items())}


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--writers", type=int, default=6, help="`plan weight` commands racing each import")
    parser.add_argument("--seed", type=int, default=17)
    options = parser.parse_args()
    random.seed(options.seed)
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("profile lock")

    with Server(binaries) as server:
        work = tempfile.mkdtemp(prefix="brados-rel-lock-")
        suite = ProfileLock(options, binaries, tally, server, work)
        try:
            for round_index in range(options.rounds):
                suite.run_round(round_index)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    suite.figures()
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
