#!/usr/bin/env python3
"""Signals: SIGTERM and SIGHUP are handled like Ctrl-C (what the command started is undone,
exit 143 / 129), and a reader that goes away ends brados quietly by SIGPIPE.

- visits delete, interrupted while its DELETE is at the server (held there by the server's
  latency fault): exit 128+signal, and the outcome said to be unknown, never a rollback
  brados cannot know is true: the visit stays out of the cache (`visits list --offline`);
  the next refresh settles it (the server still has it: it is back, and the command says
  so), and no temporary file or `.staging` folder is left in the profile. The fault answers
  503 after its latency: the reference server runs a delayed handler even after the client
  has gone, so a plain latency would delete the visit there after brados was interrupted,
  which says nothing about brados.
- cache export -o FILE, interrupted at a random moment (zstd level 19 every other round, for
  a window of seconds; level 3 at moments spread evenly over its run, and --late-rounds more
  late in it, where the compressor drains and the file is synced): exit 128+signal and
  neither FILE nor any temporary file beside it or in the profile. Exit 0 with a FILE that
  verifies only when FILE had its name before the signal (its change time, set when the
  unnamed file is linked): an export that goes on after the signal and names FILE failed.
- cache import --merge ARCHIVE, interrupted at a random moment: the profile is exactly as
  before or exactly as imported, checked before any other brados command runs (no recovery
  by the next command needed), and nothing temporary is left.
- SIGPIPE: `coach show ID`, `visits list` (with enough visits added to outrun the pipe) and
  `library albums` into a real pipe whose reader takes one line and closes it: brados ends by
  signal 13 (returncode -13; 141 in a shell pipeline) with nothing at all on stderr.

A process killed by the signal itself (returncode -N, which a shell also reports as 128+N)
had not installed its handlers yet; that passes only if it left nothing behind, as the
checks above require anyway. What an uninterrupted export and import leave in the profile is
one failure of its own and not counted against the signals.

Figures: cases per signal, interrupted deletes settled, leftover files (goal 0), signals that landed
while the command ran, commands that went on after the signal, exit codes per case.

    python3 reliability/signals.py [--rounds 20] [--late-rounds 20] [--build-dir .build] [--configuration debug]
"""
import fcntl
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (suite_parser, Binaries, Profile, Server, Tally, biggest_conversation, corrupt_files,  # noqa: E402
                     kill_group, profile_digest, wait_for_request)

SIGNALS = [("SIGTERM", signal.SIGTERM), ("SIGHUP", signal.SIGHUP)]
CRASH_MARKERS = ("Fatal error", "Stack dump", "Backtrace", "Current stack trace", "SIGSEGV", "SIGILL", "panic")
PIPE_SIZE = 4096  # the smallest a Linux pipe gets: one page
# A command that exits 0 this soon after the signal had finished its work before it: its
# last steps (the rename into place, the summary) were under way.
FINISHING = 0.05


def leftovers(root):
    """Temporary files and staging folders a writer left (lock files are not temporary):
    dot-names that mention tmp/temp/staging, `*.tmp`, `*.partial`, `*.tmp-*`, and everything
    inside such a folder. Folders end with a slash."""
    found = set()
    for folder, folders, names in os.walk(root):
        relative = os.path.relpath(folder, root)
        inside = any(part.lower().startswith(".") and "staging" in part.lower() or part.lower().endswith(".tmp")
                     for part in relative.split(os.sep))
        for name in folders + names:
            lower = name.lower()
            if inside or (lower.startswith(".") and any(word in lower for word in ("tmp", "temp", "staging"))) \
                    or lower.endswith(".tmp") or lower.endswith(".partial") or ".tmp-" in lower:
                path = os.path.join(folder, name)
                found.add(os.path.relpath(path, root) + ("/" if os.path.isdir(path) and not os.path.islink(path) else ""))
    return found


def summary(paths):
    """The shortest of the paths (the folders that hold the rest), a few of them."""
    paths = sorted(paths)
    tops = [path for path in paths if not any(path != other and path.startswith(other) for other in paths)]
    return [f"{top} ({sum(p.startswith(top) for p in paths) - 1} entries inside)" if top.endswith("/") and
            sum(p.startswith(top) for p in paths) > 1 else top for top in tops[:4]]


def spawn(profile, *args, **popen):
    """`brados args` in a session of its own, output captured."""
    return subprocess.Popen([profile.binaries.brados, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=profile.env, start_new_session=True, text=True, **popen)


def signal_after(process, delay, number):
    """Sends `number` to `process` after `delay` seconds and waits for it. Returns whether it
    was still running when signalled, its exit code and stderr, and the seconds it took to end;
    the wall-clock time the signal was sent is kept as `process.signalled_at`."""
    time.sleep(delay)
    running = process.poll() is None
    process.signalled_at = time.time()
    process.send_signal(number)
    signalled = time.monotonic()
    returncode, _, stderr = finish(process)
    return running, returncode, stderr, time.monotonic() - signalled


def named_before(path, moment):
    """Whether the file at `path` got its name no later than `moment` (wall clock): an export's
    archive is an unnamed file until it is linked, which sets its change time. The kernel's
    file clock may lag by a tick, which can only excuse a file named within that tick."""
    try:
        return os.stat(path).st_ctime <= moment
    except OSError:
        return False


def finish(process, timeout=60):
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process)
        out, err = process.communicate()
        return None, out, err + "\n[killed: still running after the signal]"
    return process.returncode, out, err


def crashed(returncode, stderr, number=None):
    """A death by another signal than the one sent, or a crash report on stderr."""
    killed = returncode is not None and returncode < 0 and returncode != -(number or 0)
    return killed or any(marker in (stderr or "") for marker in CRASH_MARKERS)


def exit_problem(returncode, number):
    """128 + the signal (handled), 0 (it had finished, or completed before it saw the
    signal), or death by the signal's default action, which shells also report as
    128 + the signal: brados had not installed its handlers yet. The caller then checks that
    nothing was started (the profile as before, nothing left), as a handled signal would."""
    if returncode in (128 + number, 0, -number):
        return []
    return [f"exit {returncode}, expected {128 + number} (or 0 had it finished)"]


def visit_ids(profile, *flags):
    result = profile.must("visits", "list", "--json", *flags)
    return {visit["id"] for visit in json.loads(result.stdout)["visits"]}


def one_line_then_close(profile, args, pipe_size=PIPE_SIZE):
    """Runs `brados args` into a real pipe, reads its first line byte by byte and closes the
    reading end, as `| head -1` does. Returns (returncode, first line, stderr bytes)."""
    read_end, write_end = os.pipe()
    try:
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, pipe_size)
    except (OSError, AttributeError):
        pass  # the default size; the caller made the output big enough anyway
    stderr = tempfile.TemporaryFile()
    process = subprocess.Popen([profile.binaries.brados, *args], stdin=subprocess.DEVNULL, stdout=write_end,
                               stderr=stderr, env=profile.env, start_new_session=True)
    os.close(write_end)
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(read_end, 1)
        if not byte:
            break
        line += byte
    os.close(read_end)
    try:
        returncode = process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        kill_group(process)
        returncode = None
    stderr.seek(0)
    return returncode, line, stderr.read()


class Signals:
    """One run of the suite: a profile signed in to the server, its caches filled, and the
    counts the cases share. Each case is a method; `main` runs them in the docstring's order."""

    def __init__(self, options, binaries, tally, server, profile, outside):
        self.options = options
        self.binaries = binaries
        self.tally = tally
        self.server = server
        self.profile = profile
        self.outside = outside    # a scratch folder off the profile
        self.cases = {name: 0 for name, _ in SIGNALS}
        self.cases["SIGPIPE"] = 0
        self.restored = 0
        self.left = set()
        self.baseline = set()
        self.while_running = 0
        self.default_action = 0
        self.ignored = {"export": 0, "import": 0}
        self.forced = {"export": 0, "import": 0}
        self.exits = {}
        self.biggest = None       # the coach conversation with the most messages
        # The import case's archive, the profile before it (saved and digested), after it,
        # and how long an uninterrupted import takes (with a margin).
        self.archive = self.saved = self.state_before = self.state_after = None
        self.import_window = None
        self.torn = 0             # half-imported profiles

    def count_exit(self, case, returncode):
        codes = self.exits.setdefault(case, {})
        codes[str(returncode)] = codes.get(str(returncode), 0) + 1

    def note_leftovers(self, what, before):
        """What the case left that was not there before it (and is not the baseline)."""
        found = leftovers(self.profile.home) - before - self.baseline
        if found:
            self.left.update(found)
            return [f"{what} left {summary(found)}"]
        return []

    def fill_caches(self):
        """Signs in and caches every domain (enough artwork for a level-19 export of > 3 s)."""
        profile = self.profile
        profile.login(supabase_email="demo@example.com")
        profile.must("visits", "list", "--refresh")
        profile.must("library", "albums", "--refresh")
        profile.must("library", "prefetch", "--rows", "64")  # enough artwork for a level-19 export of > 3 s
        self.biggest = biggest_conversation(profile)
        profile.must("coach", "show", self.biggest)
        profile.must("plan")

    def measure_baseline(self):
        """What an uninterrupted export and import leave in the profile: a failure of its
        own, and not held against the signals below."""
        profile = self.profile
        baseline_archive = os.path.join(self.outside, "baseline.tar.zst")
        profile.must("cache", "export", "-o", baseline_archive)
        profile.must("cache", "import", "--merge", baseline_archive)
        os.remove(baseline_archive)
        self.baseline = leftovers(profile.home)
        if self.baseline:
            self.tally.fail(f"an uninterrupted `cache export` and `cache import --merge` leave {summary(self.baseline)}")

    def visits_delete(self):
        """1. visits delete, interrupted while the DELETE is at the server."""
        for name, number in SIGNALS:
            for round_index in range(self.options.rounds):
                self.delete_case(name, number, round_index)

    def delete_case(self, name, number, round_index):
        """One interrupted delete: exit 128+signal, the outcome said to be unknown, the visit
        kept out of the cache until the next refresh puts it back (the server still has it),
        nothing left behind."""
        profile, server, tally = self.profile, self.server, self.tally
        added = json.loads(profile.must("visits", "add", "--place", f"Signal {name} {round_index}",
                                        "--duration", "15", "--json").stdout)["visit"]["id"]
        if added not in visit_ids(profile, "--offline"):
            tally.fail(f"{name} delete round {round_index}: the added visit {added} is not in the cache")
            return
        server.clear_faults()
        server.admin("DELETE", "/_admin/stats")
        server.fault(match="DELETE /api/visits", latencyMs=4000, status=503)
        mark = leftovers(profile.home)
        process = spawn(profile, "visits", "delete", added)
        reached = wait_for_request(server, "DELETE /api/visits/{id}")
        time.sleep(random.uniform(0, 0.3))
        running = process.poll() is None
        self.while_running += running
        process.send_signal(number)
        returncode, _, stderr = finish(process)
        server.clear_faults()
        self.cases[name] += 1
        self.count_exit(f"delete {name}", returncode)
        problems = []
        if not reached:
            problems.append("the DELETE never reached the server")
        if returncode != 128 + number:
            problems.append(f"exit {returncode}, expected {128 + number}")
        if crashed(returncode, stderr):
            problems.append("crashed")
        if returncode == 128 + number and "not known yet" not in stderr:
            problems.append("did not say that the outcome is unknown")
        if added in visit_ids(profile, "--offline"):
            problems.append("put back in the cache, though the server may have deleted it")
        problems += self.note_leftovers("the interrupted delete", mark)
        problems += [f"{path}: {reason}" for path, reason in corrupt_files(profile.home)]
        refreshed = profile.must("visits", "list", "--json", "--refresh")
        if added not in {visit["id"] for visit in json.loads(refreshed.stdout)["visits"]}:
            problems.append("the server no longer has the visit")
        elif returncode == 128 + number and "was not deleted" not in refreshed.stderr:
            problems.append(f"the refresh did not say the delete did not happen: {refreshed.stderr.strip()[:200]!r}")
        else:
            self.restored += 1
        if problems:
            tally.fail(f"{name} during `visits delete {added}`: {problems}; stderr: {stderr.strip()[:300]!r}")
        else:
            tally.ok()

    def cache_export(self):
        """2. cache export -o FILE, interrupted at a random moment."""
        out_dir = os.path.join(self.outside, "exports")
        os.makedirs(out_dir)
        target = os.path.join(out_dir, "backup.tar.zst")
        moments = self.export_moments(target)
        for name, number in SIGNALS:
            for level, delay in moments:
                self.export_case(name, number, level, delay, out_dir, target)

    def export_moments(self, target):
        """The (level, delay) each signal lands at: level 19 at random (every other one early,
        with seconds of work left to undo); level 3 spread evenly over its whole run; and the
        late cases, spread over 40-90% of an uninterrupted level 3 export, where zstd's worker
        threads drain and the file is synced (a signal there was once ignored)."""
        rounds, late_rounds = self.options.rounds, self.options.late_rounds
        windows = {}
        for level in ("3", "19"):
            started = time.monotonic()
            self.profile.must("cache", "export", "-o", target, "--level", level, "--overwrite")
            windows[level] = (time.monotonic() - started) * 1.2
        os.remove(target)
        level3 = [index for index in range(rounds) if index % 2 == 0]
        moments = []
        for round_index in range(rounds):
            if round_index % 2:
                early = round_index % 4 == 1
                moments.append(("19", random.uniform(0.08, 0.3) if early else random.uniform(0.02, windows["19"])))
            else:
                spread = (level3.index(round_index) + 0.5) / len(level3)
                moments.append(("3", 0.02 + (windows["3"] - 0.02) * spread))
        took = windows["3"] / 1.2
        moments += [("3", took * (0.4 + 0.5 * (index + 0.5) / late_rounds)) for index in range(late_rounds)]
        return moments

    def export_case(self, name, number, level, delay, out_dir, target):
        """One interrupted export: exit 128+signal and neither FILE nor any temporary file;
        or exit 0 with a FILE that verifies and had its name before the signal."""
        profile = self.profile
        mark = leftovers(profile.home)
        process = spawn(profile, "cache", "export", "-o", target, "--level", level)
        running, returncode, stderr, after = signal_after(process, delay, number)
        self.while_running += running
        self.cases[name] += 1
        self.count_exit(f"export {name}", returncode)
        problems = []
        beside = sorted(entry for entry in os.listdir(out_dir) if entry != "backup.tar.zst")
        present = os.path.exists(target)
        verified = present and profile.run("cache", "verify", target).returncode == 0
        # Exit 0 is right only for an export whose archive had its name before the
        # signal (its last steps, the summary, were under way): one that names it
        # later went on after the signal.
        if returncode == 0 and (not running or named_before(target, process.signalled_at)):
            if not verified:
                problems.append(f"exit 0 and the archive {'does not verify' if present else 'is missing'}")
        elif returncode == 0:
            self.ignored["export"] += 1
            late = os.stat(target).st_ctime - process.signalled_at if present else None
            problems.append(f"the signal was ignored: the export went on for {after:.2f} s, exit 0, and "
                            f"{target} is there ({'verifies' if verified else 'does not verify'}"
                            + (f", named {late * 1000:.0f} ms after the signal)" if late is not None else ")"))
        elif returncode in (128 + number, -number):
            if returncode == -number:
                self.default_action += 1
            elif after > 2.5:
                self.forced["export"] += 1  # brados's forced exit, 3 s after a signal the command ignored
            if present:
                problems.append(f"exit {returncode} and {target} is there ({'verifies' if verified else 'does not verify'})")
        else:
            problems += exit_problem(returncode, number)
        if beside:
            problems.append(f"left beside the archive: {beside}")
        if crashed(returncode, stderr, number):
            problems.append("crashed")
        problems += self.note_leftovers("the interrupted export", mark)
        shutil.rmtree(out_dir)
        os.makedirs(out_dir)
        if problems:
            self.tally.fail(f"{name} {delay * 1000:.0f} ms into `cache export -o FILE --level {level}` "
                            f"({'running' if running else 'finished'}; exit {returncode} {after:.1f} s after the "
                            f"signal): {problems}; stderr: {stderr.strip()[:300]!r}")
        else:
            self.tally.ok()

    def cache_import(self):
        """3. cache import --merge ARCHIVE, interrupted: as before, or as imported."""
        self.prepare_import()
        for name, number in SIGNALS:
            for _ in range(self.options.rounds):
                self.import_case(name, number)
        self.tally.figures["half-imported profiles"] = self.torn
        self.restore()
        self.profile.must("visits", "list", "--refresh")
        self.profile.must("library", "albums", "--refresh")
        self.profile.must("coach", "show", self.biggest)

    def prepare_import(self):
        """The archive (state X: everything cached so far), the profile it is imported into
        (state Y: some of it gone, saved to start every case from), and the profile after an
        uninterrupted import, which must differ."""
        profile = self.profile
        self.archive = os.path.join(self.outside, "imported.tar.zst")
        profile.must("cache", "export", "-o", self.archive)          # state X: everything cached so far
        profile.must("cache", "clear", "library", "coach")           # state Y: some of it gone
        self.saved = {root: os.path.join(self.outside, "before-" + root) for root in ("cache", "data")}
        for root, copy in self.saved.items():
            shutil.copytree(os.path.join(profile.home, root), copy, symlinks=True)
        self.state_before = profile_digest(profile.home)
        started = time.monotonic()
        profile.must("cache", "import", "--merge", self.archive)
        self.import_window = (time.monotonic() - started) * 1.2
        self.state_after = profile_digest(profile.home)
        if self.state_after == self.state_before:
            self.tally.fail("setup: the merge import changed nothing; the import case would prove nothing")

    def restore(self):
        """The profile as saved before the import (state Y)."""
        for root, copy in self.saved.items():
            shutil.rmtree(os.path.join(self.profile.home, root))
            shutil.copytree(copy, os.path.join(self.profile.home, root), symlinks=True)

    def import_case(self, name, number):
        """One interrupted import: the profile exactly as before or exactly as imported,
        before any other brados runs, and nothing temporary left."""
        profile = self.profile
        self.restore()
        mark = leftovers(profile.home)
        process = spawn(profile, "cache", "import", "--merge", self.archive)
        delay = random.uniform(0.02, self.import_window)
        running, returncode, stderr, after = signal_after(process, delay, number)
        self.while_running += running
        self.cases[name] += 1
        self.count_exit(f"import {name}", returncode)
        if running and returncode == 0 and after > FINISHING:
            self.ignored["import"] += 1  # allowed: fully imported (checked below)
        elif returncode == 128 + number and after > 2.5:
            self.forced["import"] += 1
        state = profile_digest(profile.home)
        problems = []
        problems += exit_problem(returncode, number)
        self.default_action += returncode == -number
        if returncode == 0 and state != self.state_after:
            problems.append("exit 0 but the profile is not as imported")
        if state not in (self.state_before, self.state_after):
            self.torn += 1
            before = self.state_before
            changed = sorted({path for path, _ in set(state["cache"].items()) ^ set(before["cache"].items())}
                             | {path for path, _ in set(state["data"].items()) ^ set(before["data"].items())})
            profile.run("cache", "stats")  # would the next command recover it?
            healed = profile_digest(profile.home) in (self.state_before, self.state_after)
            problems.append(f"the profile is neither as before nor as imported ({changed[:4]}); "
                            f"{'the next command rolled it back' if healed else 'the next command did not fix it'}")
        if crashed(returncode, stderr, number):
            problems.append("crashed")
        problems += self.note_leftovers("the interrupted import", mark)
        problems += [f"{path}: {reason}" for path, reason in corrupt_files(profile.home)]
        if problems:
            self.tally.fail(f"{name} {delay * 1000:.0f} ms into `cache import --merge` "
                            f"({'running' if running else 'finished'}; exit {returncode} {after:.1f} s after the "
                            f"signal): {problems}; "
                            f"stderr: {stderr.strip()[:300]!r}")
        else:
            self.tally.ok()

    def sigpipe(self):
        """4. SIGPIPE: the reader takes one line and goes away."""
        pipe_mark = leftovers(self.profile.home)
        commands = self.pipe_commands()
        for _ in range(self.options.rounds):
            self.pipe_round(commands)
        problems = self.note_leftovers("the SIGPIPE cases", pipe_mark)
        if problems:
            self.tally.fail(str(problems))

    def output_size(self, args):
        return len(self.profile.must(*args).stdout.encode())

    def pipe_commands(self):
        """The commands piped into `head -1`, each made to print more than twice the pipe
        (visits added until `visits list` outruns it)."""
        profile = self.profile
        added = 0
        while self.output_size(["visits", "list", "--offline"]) < 4 * PIPE_SIZE and added < 400:
            for index in range(20):
                profile.must("visits", "add", "--place", f"Pipe filler {added + index} " + "x" * 40, "--duration", "20")
            added += 20
            profile.must("visits", "list", "--refresh")
        commands = {"coach show": ["coach", "show", self.biggest], "visits list": ["visits", "list"],
                    "library albums": ["library", "albums"]}
        for label, args in commands.items():
            size = self.output_size(args + ["--offline"])
            if size < 2 * PIPE_SIZE:
                self.tally.fail(f"setup: `{label}` prints only {size} bytes, less than twice the pipe ({PIPE_SIZE})")
        return commands

    def pipe_round(self, commands):
        """Each command into a pipe closed after one line: killed by SIGPIPE (-13), nothing
        on stderr; then `coach show | head -1` in bash: status 141, nothing on stderr."""
        tally = self.tally
        for label, args in commands.items():
            returncode, line, stderr = one_line_then_close(self.profile, args)
            self.cases["SIGPIPE"] += 1
            problems = []
            if returncode != -signal.SIGPIPE:
                problems.append(f"returncode {returncode}, expected {-signal.SIGPIPE} (killed by SIGPIPE)")
            if stderr:
                problems.append(f"stderr not empty: {stderr[:300]!r}")
            if not line.endswith(b"\n"):
                problems.append(f"no first line: {line[:80]!r}")
            if problems:
                tally.fail(f"SIGPIPE `{label} | head -1`: {problems}")
            else:
                tally.ok()
        # The same through a shell pipeline: bash reports 141 for brados.
        errors = os.path.join(self.outside, "stderr.txt")
        script = (f"{shlex.quote(self.binaries.brados)} coach show {shlex.quote(self.biggest)} 2>{shlex.quote(errors)} "
                  "| head -1 >/dev/null; echo ${PIPESTATUS[0]}")
        shell = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=self.profile.env, timeout=60)
        self.cases["SIGPIPE"] += 1
        with open(errors, "rb") as handle:
            said = handle.read()
        status = shell.stdout.strip()
        if status != "141" or said:
            tally.fail(f"SIGPIPE `brados coach show | head -1` in bash: status {status}, stderr {said[:300]!r}")
        else:
            tally.ok()

    def figures(self):
        """The suite's figures, into the tally."""
        figures = self.tally.figures
        figures["cases per signal"] = self.cases
        figures["interrupted deletes settled"] = self.restored
        figures["leftover files"] = len(self.left)
        figures["left without a signal"] = len(self.baseline)
        figures["signalled while running"] = self.while_running
        figures["killed before the handler was installed"] = self.default_action
        figures["went on after the signal, exit 0"] = self.ignored
        figures["forced exits 3 s after the signal"] = self.forced
        figures["exits"] = self.exits


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=20, help="rounds of each case, per signal")
    parser.add_argument("--late-rounds", type=int, default=20,
                        help="level 3 exports signalled late (40-90%% of their run: the compressor draining), per signal")
    parser.add_argument("--seed", type=int, default=13)
    options = parser.parse_args()
    random.seed(options.seed)
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("signals")

    with Server(binaries) as server:
        profile = Profile(binaries, server, extra_env={"BRADOS_NETWORK_TIMEOUT": "20s"})
        outside = tempfile.mkdtemp(prefix="brados-rel-signals-")
        suite = Signals(options, binaries, tally, server, profile, outside)
        try:
            suite.fill_caches()
            suite.measure_baseline()
            suite.visits_delete()
            suite.cache_export()
            suite.cache_import()
            suite.sigpipe()
        finally:
            server.clear_faults()
            profile.remove()
            shutil.rmtree(outside, ignore_errors=True)

    suite.figures()
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
