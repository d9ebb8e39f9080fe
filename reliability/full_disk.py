#!/usr/bin/env python3
"""Full disk: every domain's read, refresh, add/delete, `plan weight`, export and import with
BRADOS_HOME on a nearly full and on a full file system (a small tmpfs, filled with a filler
file). Each case must give the documented exit code (0 when the command answers from its cache
without writing; 10, "the disk is full", when a write could not be made), say on stderr that
the disk is full and which path (never advising `cache clear`), lose 0 cached bytes (a failed
case leaves every cached file exactly as it was; a case that succeeded leaves only whole,
valid files) and leave 0 partial files (no temporary, staging, journal or half-written archive
file that was not there before).

Figures: cached bytes lost and partial files left (goal 0 for both).

Needs root (it mounts a tmpfs): without it the suite fails and says why.

    python3 reliability/full_disk.py [--size-mb 16] [--leave-kb 32] [--build-dir .build] [--configuration debug]
"""
import errno
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally, corrupt_files, files_under, profile_digest  # noqa: E402

FILLER = "filler"
CRASH_MARKERS = ("Fatal error", "Stack dump", "Backtrace", "Current stack trace", "SIGSEGV", "SIGBUS", "SIGILL", "panic")
# Names of files a writer keeps to itself while it works: never to be left behind.
TEMPORARY_MARKS = (".tmp", ".partial", ".staging", "staging", "-journal", "export-", ".spare", ".rebuilt")
DISK_FULL = 10

# How a case may end (expected codes on the nearly full level, then on the full one), as the
# docs/caching.md's "A full disk" documents it:
#   read     answers from the cache without writing: 0 at both levels.
#   dbread   answers from an SQLite cache (coach, artwork): SQLite needs room for the
#            database's -wal and -shm files to open it, so with less than that left the
#            command says the disk is full (10), naming the database; 0 when it fits.
#   shown    fetches a live answer and shows it; when the answer cannot be stored it still
#            exits 0 with a warning on stderr that says the disk is full, and the copy
#            cached before is kept (a refresh, a read that caches, a server-side change
#            whose local mirror cannot be written).
#   write    must store something new locally (a queued change, a local removal): 10 when it
#            cannot; on the nearly full level 0 if it fitted, and an exit 0 must have stored it.
#   big      needs far more room than the nearly full level leaves: 10 at both levels.
#   either   0 (with every file whole) or 10.
# Outside "shown", a command that says on stderr that the disk is full must exit 10, not 0.
EXPECTED = {
    "read": ({0}, {0}),
    "dbread": ({0, DISK_FULL}, {0, DISK_FULL}),
    "shown": ({0}, {0}),
    "refresh": ({0, DISK_FULL}, {DISK_FULL}),
    "write": ({0, DISK_FULL}, {DISK_FULL}),
    "big": ({DISK_FULL}, {DISK_FULL}),
    "either": ({0, DISK_FULL}, {0, DISK_FULL}),
}
# Files written whole by design, not left by an interrupted writer.
COMPLETE_BY_DESIGN = (".refresh-stamp",)


class Case:
    def __init__(self, name, args, kind, env=None, verify=None, partial_ok=False, may_remove=False,
                 destination=None, before=None, after=None, note=None):
        self.name = name
        self.args = args                  # list, or a function of the level index
        self.kind = kind
        self.env = env or {}
        self.verify = verify              # (ctx, result, level) -> [problems]
        self.partial_ok = partial_ok      # several independent writes: some may succeed before one fails
        self.may_remove = may_remove      # a successful run may remove cached files (an import --replace)
        self.destination = destination    # an output file on the tmpfs: absent unless the case succeeded
        self.before = before              # (ctx, level) -> None, run with space before the fill
        self.after = after                # (ctx, level) -> None, run once the space is freed again
        self.note = note


def mount_tmpfs(path, size_mb):
    """Mounts a tmpfs of size_mb at path; returns None, or why it could not."""
    if os.geteuid() != 0:
        return f"not root (euid {os.geteuid()}): mounting a tmpfs needs root"
    try:
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0700", "tmpfs", path],
                                capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"mount could not run: {error}"
    if result.returncode != 0:
        return f"mount -t tmpfs refused (exit {result.returncode}): {result.stderr.strip()}"
    with open("/proc/self/mounts") as handle:
        if not any(line.split()[1] == path and line.split()[2] == "tmpfs" for line in handle):
            return "mount reported success but no tmpfs is mounted there"
    return None


def unmount(path):
    if subprocess.run(["umount", path], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", path], capture_output=True)


def free_bytes(path):
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize


def fill(mount, leave):
    """Fills the tmpfs with the filler file until ENOSPC, then gives back `leave` bytes.
    Returns the bytes left free."""
    path = os.path.join(mount, FILLER)
    if os.path.exists(path):
        os.remove(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 20, 1 << 16, 4096, 512, 1):
            block = bytes(size)
            while True:
                try:
                    if os.write(fd, block) < size:
                        break
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
        if leave:
            os.ftruncate(fd, max(0, os.fstat(fd).st_size - leave))
    finally:
        os.close(fd)
    return free_bytes(mount)


def unfill(mount):
    path = os.path.join(mount, FILLER)
    if os.path.exists(path):
        os.remove(path)


def listing(root, skip):
    """Every file and folder under root (hidden ones included), skip aside: {path: size or None}."""
    found = {}
    for folder, folders, names in os.walk(root):
        for name in folders:
            found[os.path.join(folder, name)] = None
        for name in names:
            path = os.path.join(folder, name)
            if path == skip:
                continue
            try:
                found[path] = os.lstat(path).st_size
            except FileNotFoundError:
                pass
    return found


def brados_processes(binary, home):
    """Pids of brados processes on this home (detached background refreshes included)."""
    target = os.path.realpath(binary)
    marker = b"BRADOS_HOME=" + home.encode() + b"\0"
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.path.realpath(f"/proc/{entry}/exe") != target:
                continue
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker in handle.read():
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


def settle(binaries, home, timeout=30):
    """Waits for background brados processes on home to end; kills (by pid) any that outlive
    timeout and returns their pids."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = brados_processes(binaries.brados, home)
        if not pids:
            return []
        time.sleep(0.1)
    pids = brados_processes(binaries.brados, home)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return pids


def artwork_problems(copy, home):
    """Rows of the artwork index (read from the copy) whose file in home is missing or of
    another size; a total that does not match the rows."""
    relative = os.path.join("cache", "users", "default", "library", "artwork")
    index = os.path.join(copy, relative, "index.sqlite")
    if not os.path.exists(index):
        return []
    connection = sqlite3.connect(index, timeout=10)
    try:
        if not connection.execute("PRAGMA table_info(blob)").fetchall():
            return []
        rows = connection.execute("SELECT bucket, name, size FROM blob").fetchall()
        total = connection.execute("SELECT bytes, entries FROM total").fetchone()
    finally:
        connection.close()
    problems = []
    for bucket, name, size in rows:
        path = os.path.join(home, relative, bucket, name[:2], name)
        if not os.path.isfile(path):
            problems.append(f"the artwork index names {bucket}/{name}, which is missing")
        elif os.path.getsize(path) != size:
            problems.append(f"artwork {bucket}/{name}: {os.path.getsize(path)} bytes, the index says {size}")
    if total and (total[0] != sum(row[2] for row in rows) or total[1] != len(rows)):
        problems.append(f"the artwork index total {total} does not match its {len(rows)} rows")
    return problems


SQLITE_OWN = ("-wal", "-shm")


def sqlite_content(path):
    """A database's content, table by table ({table: sha256}), read from a copy together with
    its -wal: what is stored, however SQLite spreads it over the file and the WAL."""
    try:
        connection = sqlite3.connect(path, timeout=10)
        try:
            tables = [row[0] for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            content = {}
            for table in tables:
                rows = sorted(connection.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
                content[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
            return content
        finally:
            connection.close()
    except sqlite3.Error as error:
        return {"(unreadable)": str(error)}


def snapshot(home, scratch, tag):
    """What is stored under home: profile_digest, with each SQLite database compared by its
    content ({relative: {table: sha256}}) rather than its bytes, its -wal and -shm folded in;
    and the problems of a copy made off the tmpfs (opening a database writes beside it, which
    must neither happen on the full file system nor change what is checked): torn JSON or
    SQLite (corrupt_files), config files that do not parse, artwork the index misdescribes."""
    digest = profile_digest(home)
    copy = os.path.join(scratch, "copy-" + tag)
    shutil.rmtree(copy, ignore_errors=True)
    for root in ("cache", "data", "config"):
        for path in files_under(os.path.join(home, root)):
            if path.endswith((".json", ".sqlite", ".sqlite-wal")):
                target = os.path.join(copy, os.path.relpath(path, home))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(path, target)
    try:
        for root in digest:
            for relative in list(digest[root]):
                if relative.endswith(SQLITE_OWN):
                    del digest[root][relative]
                elif relative.endswith(".sqlite"):
                    digest[root][relative] = sqlite_content(os.path.join(copy, root, relative))
        problems = [f"{os.path.relpath(path, copy)}: {reason}" for path, reason in corrupt_files(copy)]
        problems += artwork_problems(copy, home)
        return digest, problems
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def close_databases(home):
    """Checkpoints and closes every database under home that was left open-looking (a -wal or
    -shm beside it), as a clean exit of the last brados using it does: SQLite folds the WAL
    into the database and removes both files. Run with room to spare, so that each case starts
    from the same state: a closed database, which needs room for its -wal and -shm to open."""
    for path in list(files_under(home)):
        if path.endswith(".sqlite") and any(os.path.exists(path + suffix) for suffix in SQLITE_OWN):
            connection = sqlite3.connect(path, timeout=10)
            try:
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                connection.close()


def config_files(home):
    return {path for path in files_under(os.path.join(home, "config")) if not path.endswith(".lock")}


def sizes(home, digest):
    return {(root, relative): os.path.getsize(os.path.join(home, root, relative))
            for root in digest for relative in digest[root] if os.path.exists(os.path.join(home, root, relative))}


def looks_temporary(path):
    name = os.path.basename(path)
    if name in COMPLETE_BY_DESIGN:
        return False
    return any(mark in name for mark in TEMPORARY_MARKS) or (name.startswith(".") and not name.endswith(".lock"))


def json_out(profile, *args):
    result = profile.run(*args, "--json", timeout=60)
    if result.returncode != 0:
        return None
    try:
        return json.loads(result.stdout)
    except ValueError:
        return None


def cached_visit_ids(profile):
    listing_ = json_out(profile, "visits", "list", "--offline")
    return {visit["id"] for visit in (listing_ or {}).get("visits", [])}


def pending_count(profile):
    pending = json_out(profile, "plan", "pending")
    return len((pending or {}).get("pending", []))


class Seen:
    """What one case did: its exit code and stderr, and the profile and the tmpfs before and
    after it (snapshots, sizes, listings, config files)."""

    def __init__(self, result, before, after, invalid, before_sizes, before_files, after_files, before_config,
                 stray):
        self.code = result.returncode
        self.stderr = result.stderr.strip()
        self.says_full = "disk is full" in self.stderr.lower()
        self.before, self.after = before, after
        self.invalid = invalid
        self.before_sizes = before_sizes
        self.before_files, self.after_files = before_files, after_files
        self.before_config = before_config
        self.stray = stray
        self.changed = sum(1 for root in before for relative in before[root]
                           if after[root].get(relative) not in (None, before[root][relative]))


class FullDisk:
    """One run of the suite: the tmpfs and the profile on it, the cases, and the figures the
    cases add to. `main` mounts the tmpfs, then `run` seeds the profile and runs every case
    on each level."""

    def __init__(self, options, binaries, tally):
        self.options = options
        self.binaries = binaries
        self.tally = tally
        self.levels = [("nearly full", options.leave_kb * 1024), ("full", 0)]
        self.lost_bytes = 0
        self.partial_files = 0
        self.unpredicted = []
        self.cases_run = 0
        self.scratch = tempfile.mkdtemp(prefix="brados-full-disk-")
        self.mount = os.path.join(self.scratch, "tmpfs")
        self.home = os.path.join(self.mount, "home")
        self.exports = os.path.join(self.mount, "exports")
        self.filler = os.path.join(self.mount, FILLER)
        self.server_data = os.path.join(self.scratch, "server")
        self.archive = os.path.join(self.scratch, "backup.tar.zst")
        self.outside_export = os.path.join(self.scratch, "outside.tar.zst")
        self.outside_cover = os.path.join(self.scratch, "cover.png")
        self.server = self.profile = None
        self.other = None        # another profile, off the tmpfs, that makes the server's plan bigger
        # What the cases act on, picked by `seed`: conversations (one cached, messages and all;
        # one to delete and one never opened per level), visits (one to delete per level, one
        # that stays), an album with its artwork cached, albums without.
        self.shown = self.cached_key = self.any_visit = None
        self.to_delete, self.uncached_big, self.delete_ids, self.uncached = [], [], [], []

    def mount_filesystem(self):
        """Mounts the tmpfs; returns None, or why it could not (the scratch folder removed)."""
        os.makedirs(self.mount)
        refused = mount_tmpfs(self.mount, self.options.size_mb)
        if refused:
            shutil.rmtree(self.scratch, ignore_errors=True)
        return refused

    def run(self):
        """Seeds the profile, then runs every case on each level; a setup error is one failure.
        Unmounts the tmpfs and removes the scratch folder in the end."""
        try:
            for folder in (self.home, self.exports, self.server_data):
                os.makedirs(folder, mode=0o700)
            with Server(self.binaries, data=self.server_data) as server:
                self.server = server
                self.profile = Profile(self.binaries, server, home=self.home)
                self.seed()
                cases = self.cases()
                for level_index, (level_name, leave) in enumerate(self.levels):
                    self.run_level(cases, level_index, level_name, leave)
        except (RuntimeError, KeyError, ValueError, OSError) as error:
            self.tally.fail(f"setup: {error}")
        finally:
            try:
                settle(self.binaries, self.home, timeout=10)
            finally:
                unmount(self.mount)
                shutil.rmtree(self.scratch, ignore_errors=True)

    def sign_in(self):
        self.profile.login(supabase_email="demo@example.com")

    def seed(self):
        """Every domain, online, with room to spare; picks what the cases act on (conversations,
        visits to delete, artwork cached and not), signs in another profile (off the tmpfs)
        and exports the archive the imports use."""
        profile, levels = self.profile, self.levels
        self.sign_in()
        conversations = json.loads(profile.must("coach", "list", "--json").stdout)["conversations"]
        by_size = sorted(conversations, key=lambda c: c.get("messageCount", 0))
        if len(by_size) < 6:
            raise RuntimeError(f"the seed has {len(by_size)} conversations; the suite needs 6")
        self.shown = by_size[2]["id"]                               # cached, messages and all
        self.to_delete = [by_size[0]["id"], by_size[1]["id"]]       # one per level
        self.uncached_big = [by_size[-1]["id"], by_size[-2]["id"]]  # never opened: hundreds of messages
        for command in (["mealplan", "show"], ["visits", "list"], ["library", "albums"],
                        ["library", "prefetch", "--rows", "6"], ["coach", "show", self.shown], ["coach", "context"],
                        ["plan", "show"], ["plan", "targets"], ["sync"]):
            profile.must(*command)
        self.delete_ids = []
        for index in range(len(levels)):
            added = json.loads(profile.must("visits", "add", "--place", f"Full disk delete {index}",
                                            "--duration", "20", "--json").stdout)
            self.delete_ids.append(added["visit"]["id"])
        settle(self.binaries, self.home)
        albums = json.loads(profile.must("library", "albums", "--offline", "--json").stdout)["albums"]
        keys = [album["ratingKey"] for album in albums]
        self.cached_key = keys[0]
        self.uncached = []  # artwork never fetched: the last albums of the list
        for key in reversed(keys):
            if len(self.uncached) == 3 * len(levels):
                break
            if profile.run("library", "artwork", key, "--offline").returncode != 0:
                self.uncached.append(key)
        if len(self.uncached) < 3 * len(levels):
            raise RuntimeError("too few albums without cached artwork to fetch")
        self.any_visit = sorted(v for v in cached_visit_ids(profile) if v not in self.delete_ids)[0]
        # Another profile (off the tmpfs) finalizes plans, so the server's latest plan is
        # bigger than the one cached here: a refresh must replace it, not drop it first.
        self.other = Profile(self.binaries, self.server, home=os.path.join(self.scratch, "other"))
        self.other.login()
        profile.must("cache", "export", "-o", self.archive)
        settle(self.binaries, self.home)
        self.tally.figures["cached bytes"] = sum(os.path.getsize(p) for p in files_under(self.home))

    # --- What some cases check beyond the four rules (run once there is room again). ----------

    def visit_added(self, ctx, result, level):
        """An added visit is cached, or the warning said it could not be."""
        if result.returncode != 0:
            return []
        try:
            visit_id = json.loads(result.stdout)["visit"]["id"]
        except (ValueError, KeyError, TypeError):
            return ["exit 0 without the added visit on stdout"]
        if visit_id in cached_visit_ids(self.profile) or "disk is full" in result.stderr:
            return []  # cached, or the warning said it could not be
        return [f"exit 0, but visit {visit_id} is not cached and nothing said so"]

    def visit_deleted(self, ctx, result, level):
        """A deleted visit left the cache on exit 0 and stayed there otherwise."""
        delete_ids = self.delete_ids
        present = delete_ids[level] in cached_visit_ids(self.profile)
        if result.returncode == 0 and present:
            return [f"exit 0, but visit {delete_ids[level]} is still cached"]
        if result.returncode != 0 and not present:
            return [f"exit {result.returncode}, but visit {delete_ids[level]} left the cache (not restored)"]
        return []

    def conversation_deleted(self, ctx, result, level):
        """A deleted conversation left the cache, or the warning said it could not."""
        listing_ = json_out(self.profile, "coach", "list", "--offline") or {}
        present = self.to_delete[level] in {c["id"] for c in listing_.get("conversations", [])}
        if result.returncode == 0 and present and "disk is full" not in result.stderr:
            return [f"exit 0, but conversation {self.to_delete[level]} is still cached and nothing said so"]
        return []

    def count_pending(self, ctx, level):
        ctx["pending"] = pending_count(self.profile)

    def queued(self, ctx, result, level):
        """An offline change is queued on exit 0, and only then."""
        now = pending_count(self.profile)
        if result.returncode == 0 and now != ctx["pending"] + 1:
            return [f"exit 0, but the queue holds {now} changes (was {ctx['pending']}): the change is lost"]
        if result.returncode != 0 and now != ctx["pending"]:
            return [f"exit {result.returncode}, but the queue went from {ctx['pending']} to {now}"]
        return []

    def archive_whole(self, path):
        """A check that the export at `path` verifies on exit 0 and is absent otherwise (it
        removes the file)."""
        def verify(ctx, result, level):
            problems = []
            if result.returncode == 0:
                verified = self.profile.run("cache", "verify", path, timeout=60)
                if verified.returncode != 0:
                    problems.append(f"exit 0, but {path} does not verify: {verified.stderr.strip()[:200]}")
            elif os.path.exists(path):
                problems.append(f"exit {result.returncode}, but {path} was left")
            if os.path.exists(path):
                os.remove(path)
            return problems
        return verify

    def expire_tokens(self, ctx, level):
        self.server.admin("POST", "/_admin/expire-tokens")

    def signed_in_again(self, ctx, level):
        self.sign_in()

    def bigger_plan(self, ctx, level):
        # n critiques of ~2 kB each: 2 on the nearly full level, 4 on the full one, so
        # each level's plan needs more pages than the one cached before it.
        other = self.other
        other.must("mealplan", "new")
        for index in range(2 * (level + 1)):
            other.must("mealplan", "critique", f"critique {index}: " + "less salt please " * 110)
        other.must("mealplan", "finalize")

    def tmpfs(self, name):
        return os.path.join(self.exports, name)

    def cases(self):
        """Every case, in the order they run on each level."""
        cover = self.outside_cover
        return [
            # Reads: answered from the cache, nothing to write.
            Case("mealplan show", ["mealplan", "show"], "read"),
            Case("mealplan show --offline", ["mealplan", "show", "--offline"], "read"),
            Case("mealplan status", ["mealplan", "status"], "read"),
            Case("visits list --offline", ["visits", "list", "--offline"], "read"),
            Case("visits list", ["visits", "list"], "read",
                 note="may revalidate in a detached process, which must leave no partial file"),
            Case("visits show --offline", ["visits", "show", self.any_visit, "--offline"], "read"),
            Case("library albums --offline", ["library", "albums", "--offline"], "read"),
            Case("library albums", ["library", "albums"], "read",
                 note="refreshes in a detached process, which must leave no partial file"),
            Case("library artwork (cached)", ["library", "artwork", self.cached_key], "dbread"),
            Case("coach list --offline", ["coach", "list", "--offline"], "dbread"),
            Case("coach show --offline", ["coach", "show", self.shown, "--offline"], "dbread"),
            Case("coach context", ["coach", "context"], "shown"),
            Case("plan show --offline", ["plan", "show", "--offline"], "read"),
            Case("plan show", ["plan", "show"], "read"),
            Case("plan targets", ["plan", "targets"], "read"),
            Case("plan pending", ["plan", "pending"], "read"),
            Case("cache stats", ["cache", "stats"], "read"),
            Case("cache verify (archive off the tmpfs)", ["cache", "verify", self.archive], "read"),
            # Refreshes: ask the server, cache the answer.
            Case("visits list --refresh", ["visits", "list", "--refresh"], "shown"),
            Case("mealplan refresh", ["mealplan", "refresh"], "shown"),
            Case("mealplan refresh (a bigger plan on the server)", ["mealplan", "refresh"], "shown",
                 before=self.bigger_plan, note="the cached plan must stay until the new one is stored"),
            Case("library albums --refresh", ["library", "albums", "--refresh"], "shown"),
            Case("coach list", ["coach", "list"], "shown"),
            Case("coach show (cached, online)", ["coach", "show", self.shown], "shown"),
            Case("plan refresh", ["plan", "refresh"], "shown"),
            Case("plan recompute", ["plan", "recompute"], "shown"),
            Case("sync", ["sync"], "refresh", partial_ok=True,
                 note="several domains: one may store its refresh before another fails"),
            # Imports (before `plan weight`: --replace refuses a profile with queued changes).
            Case("cache import --merge --domains visits",
                 ["cache", "import", self.archive, "--merge", "--domains", "visits"], "write"),
            Case("cache import --merge", ["cache", "import", self.archive, "--merge"], "big"),
            Case("cache import --replace", ["cache", "import", self.archive, "--replace"], "big", may_remove=True),
            # Exports.
            Case("cache export -o (tmpfs)", ["cache", "export", "-o", self.tmpfs("all.tar.zst")], "big",
                 destination=self.tmpfs("all.tar.zst"), verify=self.archive_whole(self.tmpfs("all.tar.zst"))),
            Case("cache export --domains plan -o (tmpfs)",
                 ["cache", "export", "--domains", "plan", "-o", self.tmpfs("plan.tar.zst")], "write",
                 destination=self.tmpfs("plan.tar.zst"), verify=self.archive_whole(self.tmpfs("plan.tar.zst"))),
            Case("cache export -o (off the tmpfs)", ["cache", "export", "-o", self.outside_export], "either",
                 verify=self.archive_whole(self.outside_export),
                 note="only the home is full; whether an export may stage its files there is not documented"),
            # Adds and deletes.
            Case("visits add", ["visits", "add", "--place", "Full disk add", "--json"], "shown", verify=self.visit_added),
            Case("visits delete", lambda level: ["visits", "delete", self.delete_ids[level]], "write",
                 verify=self.visit_deleted),
            Case("coach delete --yes", lambda level: ["coach", "delete", self.to_delete[level], "--yes"], "shown",
                 verify=self.conversation_deleted,
                 note="deleted on the server first; the cached copy stays whole when it cannot go"),
            Case("plan weight", ["plan", "weight", "84.5"], "write"),
            Case("plan weight --offline", ["plan", "weight", "84", "--offline"], "write", before=self.count_pending,
                 verify=self.queued),
            # Artwork and messages not cached yet: far more than the room left.
            Case("library artwork (not cached)", lambda level: ["library", "artwork", self.uncached[level]], "big"),
            Case("library artwork -o (off the tmpfs, not cached)",
                 lambda level: ["library", "artwork", self.uncached[2 + level], "-o", cover], "either",
                 verify=lambda ctx, result, level: os.path.exists(cover) and os.remove(cover) and [],
                 note="the image goes to a file off the tmpfs; whether it must be cached first is not documented"),
            Case("library show (2048 px not cached)", lambda level: ["library", "show", self.uncached[4 + level]], "shown",
                 note="the detail is shown without its artwork, with a line that says the disk is full"),
            Case("library prefetch --rows 40", ["library", "prefetch", "--rows", "40"], "big"),
            Case("coach show (not cached)", lambda level: ["coach", "show", self.uncached_big[level]], "shown"),
            # Last: expired tokens are renewed, and must be stored (refresh tokens are
            # single-use); both sessions are signed in again afterwards.
            Case("token renewal, BradOS (visits list --refresh)", ["visits", "list", "--refresh"], "refresh",
                 before=self.expire_tokens, after=self.signed_in_again),
            Case("token renewal, Supabase (coach list)", ["coach", "list"], "refresh",
                 before=self.expire_tokens, after=self.signed_in_again),
        ]

    # --- Running the cases. ----------------------------------------------------------------------

    def run_level(self, cases, level_index, level_name, leave):
        """Every case with `leave` bytes left on the tmpfs; then, with room, sends what the
        level queued."""
        print(f"full disk: {level_name} ({leave} bytes left)…", flush=True)
        for case in cases:
            self.run_case(case, level_index, level_name, leave)
        # Between levels, with room: send what the nearly full level queued.
        unfill(self.mount)
        if pending_count(self.profile):
            self.profile.run("plan", "sync", timeout=60)
        settle(self.binaries, self.home)

    def run_case(self, case, level_index, level_name, leave):
        """Runs one case on a tmpfs filled to leave `leave` bytes, checks the four rules, then
        (with room again) the case's own checks and that the session is still there."""
        home, mount, tally = self.home, self.mount, self.tally
        label = f"{level_name}: {case.name}"
        args = case.args(level_index) if callable(case.args) else case.args
        ctx = {}
        if case.before:
            case.before(ctx, level_index)
        settle(self.binaries, home)
        close_databases(home)
        left = fill(mount, leave)
        if leave == 0 and left != 0:
            tally.fail(f"{label}: the filler left {left} bytes free")
        before, _ = snapshot(home, self.scratch, "before")
        before_sizes = sizes(home, before)
        before_files = listing(mount, self.filler)
        before_config = config_files(home)
        self.cases_run += 1
        try:
            result = self.profile.run(*args, env=case.env, timeout=90)
        except subprocess.TimeoutExpired:
            settle(self.binaries, home, timeout=0)
            unfill(mount)
            tally.fail(f"{label}: `brados {' '.join(args)}` still running after 90 s")
            return
        stray = settle(self.binaries, home)
        after, invalid = snapshot(home, self.scratch, "after")
        seen = Seen(result, before=before, after=after, invalid=invalid, before_sizes=before_sizes,
                    before_files=before_files, after_files=listing(mount, self.filler), before_config=before_config,
                    stray=stray)
        problems = self.exit_problems(case, level_index, label, seen)
        problems += self.message_problems(case, seen)
        problems += self.lost_problems(case, seen)
        problems += self.partial_problems(case, label, seen)

        # With room again: the case's own checks, and the session still there.
        unfill(mount)
        if case.verify:
            problems += case.verify(ctx, result, level_index) or []
        for name in os.listdir(self.exports):
            path = os.path.join(self.exports, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        problems += self.session_problems()
        if case.after:
            case.after(ctx, level_index)
        settle(self.binaries, home)

        if case.kind == "either":
            self.unpredicted.append(f"{label}: exit {seen.code} ({case.note})")
        if problems:
            tally.fail(f"{label}: `brados {' '.join(args)}`: {'; '.join(problems)}"
                       + (f" — stderr: {seen.stderr[:400]!r}" if seen.stderr else ""))
        else:
            tally.ok()
            print(f"  ok {label}: exit {seen.code}" + (f", {seen.changed} files changed" if seen.changed else ""),
                  flush=True)

    def exit_problems(self, case, level_index, label, seen):
        """1. The documented exit code; no crash report; no background brados left running."""
        code, problems = seen.code, []
        expected = EXPECTED[case.kind][level_index]
        if code < 0:
            problems.append(f"killed by signal {-code}")
        elif code == 0 and seen.says_full and case.kind != "shown":
            problems.append(f"exit 0, but stderr says a write failed for a full disk (expected {DISK_FULL})")
        elif code == 0 and code not in expected and case.kind in ("refresh", "write") and seen.changed:
            # Stored even so (a refresh that drops the old file first has its pages).
            print(f"  note {label}: exit 0 on the full file system, {seen.changed} files changed", flush=True)
        elif code not in expected:
            problems.append(f"exit {code}, expected {' or '.join(map(str, sorted(expected)))}")
        if any(marker in seen.stderr for marker in CRASH_MARKERS):
            problems.append("a crash report on stderr")
        if seen.stray:
            problems.append(f"a background brados still ran 30 s later (pids {seen.stray}, killed)")
        return problems

    def message_problems(self, case, seen):
        """2. What the error says: that the disk is full, which path, never `cache clear`."""
        problems = []
        if seen.code != 0 or (case.kind == "shown" and seen.says_full):
            if not seen.says_full:
                problems.append("stderr does not say the disk is full")
            if self.mount not in seen.stderr:
                problems.append("stderr names no path on the full file system")
        if "cache clear" in seen.stderr:
            problems.append("stderr advises `cache clear`")
        return problems

    def lost_problems(self, case, seen):
        """3. 0 cached bytes lost: every cached file still there (unless a successful case may
        remove some) and unchanged by a failed command; no torn file; no config file lost."""
        before, after, code, problems = seen.before, seen.after, seen.code, []
        lost = []
        for root in before:
            for relative, digest in before[root].items():
                now = after[root].get(relative)
                if now is None:
                    if not (code == 0 and case.may_remove):
                        lost.append((root, relative, "missing"))
                elif now != digest and code != 0 and not case.partial_ok:
                    if isinstance(digest, dict) and isinstance(now, dict):
                        tables = sorted(t for t in set(digest) | set(now) if digest.get(t) != now.get(t))
                        lost.append((root, relative, f"tables {', '.join(tables)} changed by a failed command"))
                    else:
                        lost.append((root, relative, "changed by a failed command"))
        if lost:
            self.lost_bytes += sum(seen.before_sizes.get((root, relative), 0) for root, relative, _ in lost)
            problems.append(f"{len(lost)} cached files lost or changed: "
                            + ", ".join(f"{root}/{relative} ({why})" for root, relative, why in lost[:3]))
        if seen.invalid:
            problems.append(f"torn files: {seen.invalid[:3]}")
        gone_config = seen.before_config - config_files(self.home)
        if gone_config:
            problems.append(f"config files lost: {sorted(os.path.relpath(p, self.home) for p in gone_config)}")
        return problems

    def partial_problems(self, case, label, seen):
        """4. 0 partial files: nothing new after a failure (lock files and SQLite's own -wal
        and -shm aside), nothing temporary after a success; an export's destination only
        after a success. New folders are noted, not failed."""
        before_files, after_files, code, problems = seen.before_files, seen.after_files, seen.code, []
        new = sorted(path for path, size in after_files.items()
                     if path not in before_files and size is not None
                     and not path.endswith(".lock") and not path.endswith(SQLITE_OWN))
        leftovers = new if code != 0 else [path for path in new if looks_temporary(path)]
        if case.destination:
            leftovers += [path for path in after_files if os.path.dirname(path) == self.exports
                          and (code != 0 or path != case.destination)]
        leftovers = sorted(set(leftovers))
        if leftovers:
            self.partial_files += len(leftovers)
            problems.append("partial files left: " + ", ".join(
                f"{os.path.relpath(p, self.mount)} ({after_files.get(p) or 0} B)" for p in leftovers[:4]))
        new_folders = sorted(path for path, size in after_files.items()
                             if path not in before_files and size is None)
        if new_folders:
            print(f"  note {label}: new empty or leftover folders "
                  f"{[os.path.relpath(p, self.mount) for p in new_folders][:4]}", flush=True)
        return problems

    def session_problems(self):
        """Both sessions (BradOS and Supabase) survived the case; signs in again if not."""
        lost_sessions = []
        for service, check in (("BradOS", ["auth", "status", "--check"]), ("Supabase", ["coach", "list"])):
            checked = self.profile.run(*check, timeout=60)
            if checked.returncode == 4:
                lost_sessions.append(f"{service} (`brados {' '.join(check)}` then exits 4: "
                                     f"{checked.stderr.strip().splitlines()[0][:100]})")
        if lost_sessions:
            self.sign_in()
            return ["the session was lost: " + "; ".join(lost_sessions)]
        return []

    def figures(self):
        """The suite's figures, into the tally; notes the exit codes the docs leave open."""
        figures = self.tally.figures
        figures["levels"] = len(self.levels)
        figures["cases"] = self.cases_run
        figures["cached bytes lost"] = self.lost_bytes
        figures["partial files"] = self.partial_files
        figures["cases where 0 or 10 is right"] = len(self.unpredicted)
        if self.unpredicted:
            print("  codes docs/caching.md does not pin down: " + "; ".join(self.unpredicted), flush=True)


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--size-mb", type=int, default=16, help="size of the tmpfs BRADOS_HOME lives on")
    parser.add_argument("--leave-kb", type=int, default=32, help="room the nearly full level leaves")
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("full disk")
    suite = FullDisk(options, binaries, tally)

    refused = suite.mount_filesystem()
    if refused:
        print(f"full disk: cannot mount a tmpfs at {suite.mount}: {refused}", flush=True)
        tally.fail(f"no tmpfs to fill, so nothing was tested: {refused}")
        print(json.dumps(tally.report()))
        sys.exit(1)

    suite.run()
    suite.figures()
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
