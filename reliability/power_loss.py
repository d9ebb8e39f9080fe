#!/usr/bin/env python3
"""Power loss (issue 68): the profile on a file system that forgets what a power cut forgets
(reliability/lazyfs.py: file data since that file's last fsync, names since their folder's
last fsync), each write path run on it, a cut at every sync point in turn, then brados run
again on what the disk kept.

For each write path — a queued weight, `plan set`, kept plans, `visits add` and `delete`, `coach
delete`, the coach and library stores' refreshes, artwork, `cache import`, `cache export -o FILE`,
`calendar.file`, the credentials file, `config set`, `auth logout`, the search index — and at each
of its sync points (the states a disk can hold after a cut; the last one is the state after the
command's exit): every JSON file parses, every SQLite database passes integrity_check, every
archive at its own name verifies; what earlier commands acknowledged is there at every cut, and
what this command acknowledged (exit 0 and its message) is there at the cut after its exit; an
import leaves the old profile or the new one, never a mix; and the next brados command works.

Figure: cuts, acknowledged changes lost (goal 0), unreadable files (goal 0).

Needs root, /dev/fuse and Debian's python3-pyfuse3 (scripts/ensure-deps.sh reliability).

    python3 reliability/power_loss.py [--rounds 12] [--max-cuts 80] [--paths NAME,…] [--build-dir .build]
"""
import hashlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ROOT, suite_parser, Binaries, Profile, Server, Tally, biggest_conversation  # noqa: E402

FUSE_PYTHON = "/usr/bin/python3"  # python3-pyfuse3 is Debian's, for Debian's Python


class LazyMount:
    """reliability/lazyfs.py over `backing`, mounted at `mountpoint`."""

    def __init__(self, backing, mountpoint):
        self.backing, self.mountpoint = backing, mountpoint
        self.control = os.path.join(os.path.dirname(mountpoint), os.path.basename(mountpoint) + ".control")

    def __enter__(self):
        os.makedirs(self.mountpoint, exist_ok=True)
        self.process = subprocess.Popen([FUSE_PYTHON, os.path.join(ROOT, "reliability", "lazyfs.py"), self.backing, self.mountpoint,
                                         self.control], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if line.strip() != "ready":
            raise SystemExit(f"lazyfs did not mount: {line!r} {self.process.stderr.read()[-2000:]}")
        deadline = time.monotonic() + 10
        while not os.path.exists(self.control) and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def ask(self, request):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            try:
                connection.connect(self.control)
            except OSError as error:
                said = self.process.stderr.read()[-1500:] if self.process.poll() is not None else "(still running)"
                raise RuntimeError(f"lazyfs does not answer ({error}): {said}") from None
            connection.sendall(request.encode() + b"\n")
            answer = connection.makefile().readline().strip()
        if not answer.startswith("ok"):
            raise RuntimeError(f"lazyfs: {request}: {answer}")
        return answer[3:]

    def checkpoint(self):
        self.ask("checkpoint")

    def count(self):
        return int(self.ask("count"))

    def materialize(self, count, destination):
        os.makedirs(destination)
        self.ask(f"materialize {count} {destination}")

    def __exit__(self, *exc):
        try:
            self.ask("quit")
            self.process.wait(timeout=10)
        except (OSError, RuntimeError, subprocess.TimeoutExpired):
            subprocess.run(["umount", "-l", self.mountpoint], capture_output=True)
            self.process.kill()
            self.process.wait()
        try:
            os.unlink(self.control)
        except FileNotFoundError:
            pass


def wait_quiet(home, timeout=30):
    """Until no brados started with BRADOS_HOME=home runs (a detached refresh, a prefetch)."""
    mine = f"BRADOS_HOME={home}".encode()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running = False
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    if mine in handle.read().split(b"\0"):
                        running = True
                        break
            except OSError:
                continue
        if not running:
            return
        time.sleep(0.05)


def sqlite_damage(path):
    """integrity_check of the database at `path` (``on_copy``)."""
    try:
        result = on_copy(path, lambda connection: connection.execute("PRAGMA integrity_check").fetchall())
        return None if result == [("ok",)] else f"integrity_check: {result[:3]}"
    except sqlite3.Error as error:
        return f"SQLite: {error}"


def on_copy(path, body):
    """body(connection) on a copy of the database at `path` with its WAL or journal, opened as
    brados opens it (read-write: a WAL is replayed), so the disk's own files stay as they are."""
    scratch = tempfile.mkdtemp(prefix="brados-pl-db-")
    try:
        copy = os.path.join(scratch, "db.sqlite")
        for suffix in ("", "-wal", "-journal"):
            if os.path.exists(path + suffix):
                shutil.copyfile(path + suffix, copy + suffix)
        connection = sqlite3.connect(copy, timeout=5)
        try:
            return body(connection)
        finally:
            connection.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def unreadable(root, binaries):
    """Files under root that a cut left unreadable: JSON that does not parse, a database that
    fails integrity_check, an archive that does not verify. Staging and spare files (names
    starting with a dot) are the writer's own, cleaned up by the next command."""
    problems = []
    for folder, folders, names in os.walk(root):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in names:
            path = os.path.join(folder, name)
            if name.startswith(".") or os.path.islink(path):
                continue
            if name.endswith(".json"):
                try:
                    with open(path, "rb") as handle:
                        json.loads(handle.read())
                except (ValueError, UnicodeDecodeError) as error:
                    problems.append(f"{os.path.relpath(path, root)}: JSON does not parse ({error})")
            elif name.endswith(".sqlite"):
                problem = sqlite_damage(path)
                if problem:
                    problems.append(f"{os.path.relpath(path, root)}: {problem}")
            elif name.endswith((".tar.zst", ".tar.gz")):
                result = subprocess.run([binaries.brados, "cache", "verify", path], capture_output=True, text=True,
                                        env={"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": root, "HOME": root})
                if result.returncode != 0:
                    problems.append(f"{os.path.relpath(path, root)}: does not verify ({result.stderr.strip()[:200]})")
    return problems


def logical_digest(home):
    """What a profile holds, comparable however its databases were last checkpointed: each
    database by its rows (a copy with its WAL replayed, dumped), JSON by its values (without
    the save counters), other files by their bytes; sidecars, locks and dot-files left out."""
    state = {}
    for root in ("cache", "data"):
        digest = {}
        base = os.path.join(home, root)
        for folder, folders, names in os.walk(base):
            folders[:] = [name for name in folders if not name.startswith(".")]
            for name in names:
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, base)
                if name.startswith(".") or name.endswith((".lock", "-wal", "-shm", "-journal")) or os.path.islink(path):
                    continue
                if name.endswith(".sqlite"):
                    try:
                        text = on_copy(path, lambda connection: "\n".join(connection.iterdump()))
                    except sqlite3.Error as error:
                        text = f"unreadable: {error}"
                    digest[relative] = hashlib.sha256(text.encode()).hexdigest()
                    continue
                with open(path, "rb") as handle:
                    data = handle.read()
                if name.endswith(".json"):
                    try:
                        values = json.loads(data)
                        if isinstance(values, dict):
                            values = {k: v for k, v in values.items() if not k.endswith("_generation")}
                        data = json.dumps(values, sort_keys=True).encode()
                    except ValueError:
                        pass
                digest[relative] = hashlib.sha256(data).hexdigest()
        state[root] = digest
    return state


def json_of(profile, *args):
    result = profile.run(*args, "--json")
    if result.returncode != 0:
        return None, result
    try:
        return json.loads(result.stdout), result
    except ValueError:
        return None, result


# The write paths ----------------------------------------------------------------------------
#
# Each is (name, setup, act, check): setup runs on the mounted profile before the checkpoint
# (what it writes is on the disk at every cut), act is the command whose sync points are cut,
# and check(profile, state, acknowledged) returns what is wrong on a profile as the disk kept
# it: `acknowledged` is whether the cut came after act's exit 0.


def pending_weights(profile):
    document, _ = json_of(profile, "--offline", "plan", "pending")
    if document is None:
        return None
    return [round(change.get("weightKg") or 0, 1) for change in document.get("pending", []) if change.get("kind") == "updateWeight"]


def path_queued_weight(round_number):
    weight = 80.0 + round_number / 10

    def setup(profile, state):
        profile.must("--offline", "plan", "weight", "79.0", "--yes")
        state["earlier"] = 79.0

    def act(profile, state):
        return profile.run("--offline", "plan", "weight", f"{weight:.1f}", "--yes")

    def check(profile, state, acknowledged):
        weights = pending_weights(profile)
        if weights is None:
            return ["plan pending --json failed"]
        problems = []
        if state["earlier"] not in weights:
            problems.append(f"an earlier queued weight ({state['earlier']}) is gone: {weights}")
        if acknowledged and round(weight, 1) not in weights:
            problems.append(f"the acknowledged weight {weight:.1f} is not queued: {weights}")
        return problems

    return "queued weight", setup, act, check


def path_plan_set(round_number):
    goals = ["lose_weight", "maintain", "gain_muscle"]
    goal = goals[round_number % 3]

    def setup(profile, state):
        profile.must("plan", "show")

    def act(profile, state):
        return profile.run("--offline", "plan", "set", "goal", goal)

    def check(profile, state, acknowledged):
        document, result = json_of(profile, "--offline", "plan", "pending")
        if document is None:
            return [f"plan pending --json failed: {result.stderr.strip()[:200]}"]
        if acknowledged and goal not in json.dumps(document):
            return [f"the acknowledged goal {goal} is not queued"]
        return []

    return "plan set", setup, act, check


def path_kept_plans(round_number):
    def setup(profile, state):
        profile.must("plan", "show")
        document, _ = json_of(profile, "--offline", "plan", "history", "--plans")
        state["kept"] = len((document or {}).get("plans", []))

    def act(profile, state):
        return profile.run("plan", "weight", f"{83 + round_number % 5}.5", "--yes")

    def check(profile, state, acknowledged):
        document, result = json_of(profile, "--offline", "plan", "history", "--plans")
        if document is None:
            return [f"plan history --plans failed: {result.stderr.strip()[:200]}"]
        kept = len(document.get("plans", []))
        if kept < state["kept"]:
            return [f"kept plans went from {state['kept']} to {kept}"]
        if acknowledged and kept < state["kept"] + 1 and pending_weights(profile) == []:
            return [f"the plan the weight made is not kept ({kept} plans)"]
        return []

    return "kept plans", setup, act, check


def visit_ids(profile):
    document, _ = json_of(profile, "--offline", "visits", "list")
    return None if document is None else [visit["id"] for visit in document.get("visits", [])]


def refreshed_visit_ids(profile):
    """The server's visits, as the profile caches them after a refresh (another round's path
    may have deleted one since the base profile was made)."""
    profile.must("visits", "list", "--refresh")
    wait_quiet(profile.home)
    return visit_ids(profile)


def path_visits_add(round_number):
    place = f"Power cut clinic {round_number}"

    def setup(profile, state):
        state["before"] = refreshed_visit_ids(profile)

    def act(profile, state):
        return profile.run("visits", "add", "--place", place, "--at", "2026-11-30 10:00")

    def check(profile, state, acknowledged):
        document, result = json_of(profile, "--offline", "visits", "list")
        if document is None:
            return [f"visits list --json failed: {result.stderr.strip()[:200]}"]
        problems = [f"visit {id} is gone" for id in state["before"] if id not in [v["id"] for v in document["visits"]]]
        if acknowledged and place not in json.dumps(document, ensure_ascii=False):
            problems.append("the acknowledged visit is not in the list")
        return problems

    return "visits add", setup, act, check


def path_visits_delete(round_number):
    def setup(profile, state):
        ids = refreshed_visit_ids(profile) or []
        state["deleted"] = ids[round_number % len(ids)]
        state["others"] = [id for id in ids if id != state["deleted"]]

    def act(profile, state):
        return profile.run("visits", "delete", state["deleted"])

    def check(profile, state, acknowledged):
        ids = visit_ids(profile)
        if ids is None:
            return ["visits list --json failed"]
        problems = [f"visit {id}, not deleted, is gone" for id in state["others"] if id not in ids]
        if acknowledged and state["deleted"] in ids:
            problems.append(f"the deleted visit {state['deleted']} is back")
        return problems

    return "visits delete", setup, act, check


def conversation_ids(profile):
    document, _ = json_of(profile, "--offline", "coach", "conversations")
    return None if document is None else [c["id"] for c in document.get("conversations", [])]


def path_coach_delete(round_number):
    beside_watch = round_number % 2 == 1

    def setup(profile, state):
        profile.must("coach", "conversations", "--full")
        wait_quiet(profile.home)
        ids = conversation_ids(profile) or []
        state["deleted"] = ids[round_number % len(ids)]
        if beside_watch:
            # A running watch holds the coach store open: the deleting process's commit is not the
            # last connection's, so no checkpoint at its close makes it durable; only its own sync.
            state["watch"] = profile.spawn("sync", "--watch")
            time.sleep(3)

    def act(profile, state):
        result = profile.run("coach", "delete", state["deleted"], "--yes")
        if beside_watch:
            time.sleep(1)
            state["watch"].kill()  # the power goes with the watch still running
            state["watch"].wait()
        return result

    def check(profile, state, acknowledged):
        ids = conversation_ids(profile)
        if ids is None:
            return ["coach conversations --json failed"]
        if acknowledged and state["deleted"] in ids:
            return [f"the deleted conversation {state['deleted']} is back{' (beside sync --watch)' if beside_watch else ''}"]
        return []

    return "coach delete" + (" beside sync --watch" if beside_watch else ""), setup, act, check


def path_coach_refresh(round_number):
    def setup(profile, state):
        profile.must("coach", "conversations", "--full")  # the server's list: another path may have deleted one
        wait_quiet(profile.home)  # (refreshed behind the listing)
        state["conversation"] = biggest_conversation(profile)

    def act(profile, state):
        return profile.run("coach", "show", state["conversation"], "--full") if round_number % 2 else profile.run("coach", "show", state["conversation"])

    def check(profile, state, acknowledged):
        result = profile.run("--offline", "coach", "show", state["conversation"], "--json")
        if result.returncode != 0:
            return [f"coach show offline failed: {result.stderr.strip()[:200]}"]
        return []

    return "coach refresh", setup, act, check


def path_library_refresh(round_number):
    def setup(profile, state):
        pass

    def act(profile, state):
        refresh = ["--refresh", "--full"] if round_number % 2 else ["--refresh"]
        return profile.run("library", "albums", "--limit", "5", *refresh)

    def check(profile, state, acknowledged):
        document, result = json_of(profile, "--offline", "library", "albums", "--limit", "5")
        if acknowledged and (document is None or not document.get("albums")):
            return [f"library albums offline after the refresh: {result.stderr.strip()[:200]}"]
        return []

    return "library refresh", setup, act, check


def path_artwork(round_number):
    def setup(profile, state):
        document, _ = json_of(profile, "library", "albums", "--limit", "8")
        state["album"] = document["albums"][round_number % len(document["albums"])]["ratingKey"]
        online = Profile(profile.binaries, home=tempfile.mkdtemp(prefix="brados-pl-ref-"), extra_env={"BRADOS_SERVER": profile.env["BRADOS_SERVER"]})
        online.login()
        state["image"] = artwork_bytes(online, state["album"])
        online.remove()

    def act(profile, state):
        return profile.run("library", "artwork", state["album"])

    def check(profile, state, acknowledged):
        try:
            image = artwork_bytes(profile, state["album"])
        except RuntimeError as error:
            return [f"library artwork after the cut: {error}"]
        return [] if image == state["image"] else ["library artwork after the cut gives other bytes than the server's"]

    return "artwork", setup, act, check


def artwork_bytes(profile, album):
    """The 1024 px cover `library artwork ALBUM -o FOLDER` writes (the file it names)."""
    folder = tempfile.mkdtemp(prefix="brados-pl-art-")
    try:
        result = profile.run("library", "artwork", album, "-o", folder + "/")
        if result.returncode != 0:
            raise RuntimeError(result.stderr.strip()[:200])
        names = os.listdir(folder)
        with open(os.path.join(folder, names[0]), "rb") as handle:
            return handle.read()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def path_cache_import(round_number):
    def setup(profile, state):
        state["archive"] = os.path.join(profile.home, "backup.tar.zst")
        profile.must("cache", "export", "-o", state["archive"])
        profile.must("--offline", "plan", "weight", "77.7", "--yes")  # the profile now differs from the archive
        profile.must("visits", "add", "--place", f"After the backup {round_number}", "--at", "2026-11-29 10:00")
        state["old"] = logical_digest(profile.home)

    def act(profile, state):
        result = profile.run("cache", "import", state["archive"], "--replace", "--discard-pending")
        state["new"] = logical_digest(profile.home)  # what the import made, as the kernel has it
        return result

    def check(profile, state, acknowledged):
        profile.run("--offline", "cache", "stats")  # the next command recovers a cut import first
        digest = logical_digest(profile.home)

        def differences(other):
            return sorted({f"{root}/{path}" for root in ("cache", "data")
                           for path, _ in set(digest[root].items()) ^ set(other[root].items())})[:4]
        if acknowledged and digest != state["new"]:
            return [f"after the acknowledged import the profile is not the one it made: {differences(state['new'])}"]
        if digest not in (state["old"], state["new"]):
            return [f"the profile is neither the old one ({differences(state['old'])}) nor the imported one ({differences(state['new'])})"]
        return []

    return "cache import", setup, act, check


def path_cache_export(round_number):
    def setup(profile, state):
        state["archive"] = os.path.join(profile.home, f"export-{round_number}.tar.zst" if round_number % 2 else f"export-{round_number}.tar.gz")

    def act(profile, state):
        return profile.run("cache", "export", "-o", state["archive"])

    def check(profile, state, acknowledged):
        if acknowledged and not os.path.exists(state["archive"]):
            return ["the acknowledged archive is not there"]
        return []  # an archive at its name that does not verify is found by `unreadable`

    return "cache export", setup, act, check


def path_calendar_file(round_number):
    def setup(profile, state):
        state["file"] = os.path.join(profile.home, "calendar.ics")
        profile.must("config", "set", "calendar.file", state["file"])
        profile.must("sync")
        profile.must("visits", "add", "--place", f"Calendar clinic {round_number}", "--at", "2026-12-01 10:00")

    def act(profile, state):
        return profile.run("sync")

    def check(profile, state, acknowledged):
        if not os.path.exists(state["file"]):
            return ["calendar.file is gone"]
        with open(state["file"], "rb") as handle:
            raw = handle.read()
        if not (raw.startswith(b"BEGIN:VCALENDAR\r\n") and raw.endswith(b"END:VCALENDAR\r\n")):
            return ["calendar.file is not one whole VCALENDAR"]
        text = raw.decode("utf-8", "replace")
        if acknowledged and f"Calendar clinic {round_number}" not in text.replace("\r\n ", ""):
            return ["the acknowledged sync's visit is not in calendar.file"]
        return []

    return "calendar.file", setup, act, check


def signed_in(profile):
    document, _ = json_of(profile, "--offline", "auth", "status")
    return document is not None and json.dumps(document).count('"signedIn": true') > 0


def path_credentials(round_number):
    def setup(profile, state):
        profile.must("auth", "logout", "--discard-pending")

    def act(profile, state):
        return profile.run("auth", "login", "--user", "demo", "--password-stdin", stdin="demo\n")

    def check(profile, state, acknowledged):
        if acknowledged and not signed_in(profile):
            return ["signed out after an acknowledged sign-in"]
        return []

    return "credentials file", setup, act, check


def path_config_set(round_number):
    value = f"{5 + round_number}m"

    def setup(profile, state):
        profile.must("config", "set", "coach.context-ttl", "2h")

    def act(profile, state):
        return profile.run("config", "set", "visits.ttl", value)

    def check(profile, state, acknowledged):
        problems = []
        earlier = profile.run("config", "get", "coach.context-ttl")
        if earlier.returncode != 0 or "2h" not in earlier.stdout:
            problems.append(f"an earlier setting is gone: {earlier.stdout.strip()} {earlier.stderr.strip()[:200]}")
        now = profile.run("config", "get", "visits.ttl")
        if now.returncode != 0:
            problems.append(f"config get fails: {now.stderr.strip()[:200]}")
        elif acknowledged and value not in now.stdout:
            problems.append(f"the acknowledged visits.ttl {value} is not set: {now.stdout.strip()}")
        return problems

    return "config set", setup, act, check


def path_logout(round_number):
    def setup(profile, state):
        pass

    def act(profile, state):
        return profile.run("auth", "logout", "--discard-pending")

    def check(profile, state, acknowledged):
        if not acknowledged:
            return []
        problems = []
        if signed_in(profile):
            problems.append("still signed in after an acknowledged sign-out")
        users = os.path.join(profile.home, "cache", "users", "default")
        left = [os.path.relpath(os.path.join(folder, name), profile.home) for folder, _, names in os.walk(users) for name in names
                if not name.startswith(".") and not name.endswith(".lock")]
        if left:
            problems.append(f"the user's caches are left after an acknowledged sign-out: {left[:3]}")
        return problems

    return "auth logout", setup, act, check


def path_search_index(round_number):
    words = ["protein", "sleep", "run", "clinic"]
    word = words[round_number % len(words)]

    def setup(profile, state):
        if round_number % 2:
            profile.must("search", "the")  # an index to update, not to build
            profile.must("visits", "add", "--place", f"Search clinic {round_number}", "--at", "2026-11-28 10:00")
        reference = Profile(profile.binaries, home=tempfile.mkdtemp(prefix="brados-pl-search-"))
        shutil.rmtree(reference.home)
        shutil.copytree(profile.home, reference.home, symlinks=True)
        found, _ = json_of(reference, "--offline", "search", word)
        state["hits"] = sorted(json.dumps(hit, sort_keys=True) for hit in (found or {}).get("results", []))
        reference.remove()

    def act(profile, state):
        return profile.run("--offline", "search", word)

    def check(profile, state, acknowledged):
        found, result = json_of(profile, "--offline", "search", word)
        if found is None:
            return [f"search after the cut failed: {result.stderr.strip()[:200]}"]
        hits = sorted(json.dumps(hit, sort_keys=True) for hit in found.get("results", []))
        return [] if hits == state["hits"] else [f"search {word} after the cut gives {len(hits)} hits, not {len(state['hits'])}"]

    return "search index", setup, act, check


PATHS = [path_queued_weight, path_plan_set, path_kept_plans, path_visits_add, path_visits_delete, path_coach_delete,
         path_coach_refresh, path_library_refresh, path_artwork, path_cache_import, path_cache_export, path_calendar_file,
         path_credentials, path_config_set, path_logout, path_search_index]


def cut_points(count, most):
    """Every sync point when there are few; else `most` of them, evenly, the first and last among them."""
    points = list(range(count + 1))
    if len(points) <= most:
        return points
    step = count / (most - 1)
    return sorted({round(index * step) for index in range(most)})


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=12, help="each write path this many times, with other values")
    parser.add_argument("--max-cuts", type=int, default=80, help="at most this many cuts a run (every sync point when fewer)")
    parser.add_argument("--paths", help="comma-separated subset of the write paths (their names)")
    options = parser.parse_args()
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse"):
        sys.exit("power_loss needs root and /dev/fuse (a FUSE mount of its own)")
    if subprocess.run([FUSE_PYTHON, "-c", "import pyfuse3, trio"], capture_output=True).returncode != 0:
        sys.exit("python3-pyfuse3 is not installed: scripts/ensure-deps.sh reliability installs it")
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("power_loss")
    work = tempfile.mkdtemp(prefix="brados-power-")
    lost = unreadable_found = cuts = sync_points = 0
    wanted = set(options.paths.split(",")) if options.paths else None
    try:
        # Conversations enough for every round's two deletions.
        with Server(binaries, arguments=["--seed-conversations", str(4 * options.rounds + 8), "--seed-messages", "400"]) as server:
            base = Profile(binaries, server, home=os.path.join(work, "base"))
            base.login(supabase_email="demo@example.com")
            base.must("sync")
            base.must("library", "albums", "--limit", "20")
            for round_number in range(options.rounds):
                for make in PATHS:
                    name, setup, act, check = make(round_number)
                    if wanted and not any(name.startswith(path) for path in wanted):
                        continue
                    # Fresh sessions each time: a copy's commands spend the base's single-use refresh tokens.
                    base.login(supabase_email="demo@example.com")
                    backing = os.path.join(work, "backing")
                    shutil.rmtree(backing, ignore_errors=True)
                    shutil.copytree(base.home, backing, symlinks=True)
                    mountpoint = os.path.join(work, "mnt")
                    state = {}
                    with LazyMount(backing, mountpoint) as mount:
                        profile = Profile(binaries, server, home=mountpoint)
                        try:
                            setup(profile, state)
                            wait_quiet(mountpoint)
                            mount.checkpoint()
                            result = act(profile, state)
                            wait_quiet(mountpoint)
                        except Exception as error:  # a setup that fails is the suite's own failure
                            tally.fail(f"{name} round {round_number}: could not run: {error}")
                            continue
                        if result.returncode != 0:
                            tally.fail(f"{name} round {round_number}: the command failed ({result.returncode}): {result.stderr.strip()[:300]}")
                            continue
                        count = mount.count()
                        sync_points += count
                        points = cut_points(count, options.max_cuts)
                        disks = os.path.join(work, "cuts")
                        shutil.rmtree(disks, ignore_errors=True)
                        os.makedirs(disks)
                        for point in points:
                            mount.materialize(point, os.path.join(disks, str(point)))
                    # After each cut the disk as kept is the profile, at its own path, as after a reboot.
                    for point in points:
                        shutil.rmtree(mountpoint, ignore_errors=True)
                        os.rename(os.path.join(disks, str(point)), mountpoint)
                        after = Profile(binaries, server, home=mountpoint)
                        files = unreadable(mountpoint, binaries)
                        problems = check(after, state, acknowledged=point == count)
                        again = after.run("--offline", "today")
                        if again.returncode not in (0, 5):
                            problems.append(f"brados --offline today after the cut exits {again.returncode}: {again.stderr.strip()[:200]}")
                        files += [f"{problem} (after running brados)" for problem in unreadable(mountpoint, binaries) if problem not in files]
                        cuts += 1
                        lost += len(problems)
                        unreadable_found += len(files)
                        if problems or files:
                            tally.fail(f"{name} round {round_number}, cut {point} of {count}: {'; '.join(problems + files)[:600]}")
                        else:
                            tally.ok()
                        wait_quiet(mountpoint)
                    shutil.rmtree(mountpoint, ignore_errors=True)
            base.remove()
    finally:
        subprocess.run(["umount", "-l", os.path.join(work, "mnt")], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    tally.figures = {"cuts": cuts, "sync points": sync_points, "acknowledged changes lost": lost, "unreadable files": unreadable_found}
    print(json.dumps(tally.report()))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
