"""Shared helpers for the reliability suites: binaries, a loopback brados-server, profiles,
and the checks every suite makes (JSON files parse, SQLite databases pass integrity_check,
no file outside a root changed)."""
import argparse
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
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def require(command):
    """The path of `command`; exits saying how to install it when it is missing."""
    return shutil.which(command) or sys.exit(f"{command} is not installed: scripts/ensure-deps.sh reliability installs what the suites run")


def suite_parser(doc):
    """The command line every suite shares: where the built binaries are."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=".build", help="SwiftPM scratch path of the build to test")
    parser.add_argument("--configuration", default="debug", help="debug (the `make test` build) or release")
    return parser


class Binaries:
    def __init__(self, build_dir, configuration):
        self.dir = os.path.join(ROOT, build_dir, configuration)
        self.brados = os.path.join(self.dir, "brados")
        self.server = os.path.join(self.dir, "brados-server")
        for path in (self.brados, self.server):
            if not os.access(path, os.X_OK):
                raise SystemExit(f"{path} is missing: build first (make test, or make release)")


def build(build_dir, configuration):
    args = ["swift", "build", "--scratch-path", build_dir]
    if configuration == "release":  # the release flags are the Makefile's (one place)
        args = ["make", "-s", "release", f"SCRATCH={build_dir}", "PRODUCT="]
    subprocess.run(args, cwd=ROOT, check=True)


class Server:
    """A brados-server on 127.0.0.1 with the admin routes; stops on exit (and by itself)."""

    def __init__(self, binaries, data=None, arguments=()):
        self.binaries = binaries
        self.data = data
        self.arguments = list(arguments)  # more of brados-server's flags, e.g. --seed-messages N

    def __enter__(self):
        # It lives as long as this suite, however long that is: it exits when its stdin closes.
        # The plan service's rate limit (20 generations a minute) off: the suites run plan
        # commands back to back by design; the limit has its own end-to-end test.
        args = [self.binaries.server, "--port", "0", "--admin", "--until-stdin-closes", "--plan-rate-limit", "0"]
        if self.data:
            args += ["--data-dir", self.data]
        args += self.arguments
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        self.url = line.strip().split(" ")[-1]
        if not self.url.startswith("http://127.0.0.1:"):
            self.process.kill()
            raise SystemExit(f"brados-server did not start: {line!r}")
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def admin(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return json.loads(text) if text else None

    def fault(self, **rule):
        self.admin("POST", "/_admin/faults", rule)

    def clear_faults(self):
        self.admin("DELETE", "/_admin/faults")


class Profile:
    """A BRADOS_HOME of its own, optionally pointed at a server."""

    def __init__(self, binaries, server=None, home=None, extra_env=None):
        self.binaries = binaries
        self.home = home or tempfile.mkdtemp(prefix="brados-rel-")
        # No background prefetch after a library load: a detached process the suites do not
        # start would add requests and files to what they count.
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "BRADOS_HOME": self.home, "HOME": self.home,
                    "BRADOS_LIBRARY_PREFETCH": "false"}
        if server:
            self.env["BRADOS_SERVER"] = server.url
        self.env.update(extra_env or {})

    def run(self, *args, stdin=None, timeout=120, env=None):
        merged = dict(self.env, **(env or {}))
        return subprocess.run([self.binaries.brados, *args], input=stdin, capture_output=True, text=True,
                              env=merged, timeout=timeout)

    def must(self, *args, stdin=None, timeout=120, env=None):
        result = self.run(*args, stdin=stdin, timeout=timeout, env=env)
        if result.returncode != 0:
            raise RuntimeError(f"brados {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
        return result

    def spawn(self, *args):
        return subprocess.Popen([self.binaries.brados, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL, env=self.env, start_new_session=True)

    def login(self, user="demo", password="demo", supabase_email=None):
        """Signs in to the BradOS services and, given an email, to Supabase (the coach)."""
        self.must("auth", "login", "--user", user, "--password-stdin", stdin=password + "\n")
        if supabase_email:
            self.must("auth", "login", "--service", "supabase", "--user", supabase_email, "--password-stdin",
                      stdin=password + "\n")

    @property
    def cache_root(self):
        return os.path.join(self.home, "cache")

    def remove(self):
        shutil.rmtree(self.home, ignore_errors=True)


def biggest_conversation(profile):
    """The id of the coach conversation with the most messages (`coach list --json`)."""
    listing = json.loads(profile.must("coach", "list", "--json").stdout)
    conversations = listing if isinstance(listing, list) else listing.get("conversations", [])
    return max(conversations, key=lambda c: c.get("messageCount", 0))["id"]


def wait_for_request(server, key, count=1, timeout=15):
    """Until /_admin/stats has seen `count` requests for `key`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.admin("GET", "/_admin/stats")["byRoute"].get(key, 0) >= count:
            return True
        time.sleep(0.02)
    return False


def kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def files_under(root):
    for folder, _, names in os.walk(root):
        for name in names:
            yield os.path.join(folder, name)


def tree_digest(root, skip=lambda path: False):
    """{relative path: sha256} of every regular file under root."""
    digest = {}
    for path in files_under(root):
        relative = os.path.relpath(path, root)
        if skip(relative) or os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as handle:
            digest[relative] = hashlib.sha256(handle.read()).hexdigest()
    return digest


def corrupt_files(root):
    """Files under root that are torn: JSON that does not parse, SQLite that fails
    integrity_check. Returns a list of (path, reason)."""
    problems = []
    for path in files_under(root):
        name = os.path.basename(path)
        if name.startswith(".") or "/." in os.path.relpath(path, root):
            continue  # staging, spares, journals: private to the writer
        if name.endswith(".json"):
            try:
                with open(path, "rb") as handle:
                    json.loads(handle.read())
            except (ValueError, UnicodeDecodeError) as error:
                problems.append((path, f"JSON does not parse: {error}"))
        elif name.endswith(".sqlite"):
            problem = sqlite_problem(path)
            if problem:
                problems.append((path, problem))
    return problems


def sqlite_problem(path):
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            result = connection.execute("PRAGMA integrity_check").fetchall()
        finally:
            connection.close()
        if result != [("ok",)]:
            return f"integrity_check: {result[:3]}"
    except sqlite3.Error as error:
        return f"SQLite error: {error}"
    return None


def modes_problems(root):
    """Cache files must be 0600 and folders 0700."""
    problems = []
    for folder, folders, names in os.walk(root):
        mode = os.stat(folder).st_mode & 0o777
        if mode != 0o700:
            problems.append((folder, f"folder mode {oct(mode)}"))
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode & 0o777
            if mode != 0o600:
                problems.append((path, f"file mode {oct(mode)}"))
    return problems


class Tally:
    """Counts runs and failures for one suite and prints its figure."""

    def __init__(self, name):
        self.name = name
        self.runs = 0
        self.failures = []
        self.started = time.monotonic()
        self.figures = {}

    def ok(self, count=1):
        self.runs += count

    def fail(self, what):
        self.runs += 1
        self.failures.append(what)
        print(f"  FAIL {self.name}: {what}", flush=True)

    def report(self):
        seconds = time.monotonic() - self.started
        figures = "".join(f", {key} {value}" for key, value in self.figures.items())
        print(f"{self.name}: {self.runs} runs, {len(self.failures)} failures{figures} ({seconds:.0f} s)", flush=True)
        return {"suite": self.name, "runs": self.runs, "failures": len(self.failures), "examples": self.failures[:5],
                "figures": self.figures, "seconds": round(seconds)}


def profile_digest(home):
    """What an import may change, comparable across runs: every visible file under the cache
    and data roots, lock files aside, and the key-value store without its change counters
    (`*_generation` keys count saves, not data)."""
    def skip(relative):
        return relative.endswith(".lock") or any(part.startswith(".") for part in relative.split(os.sep))
    state = {}
    for root in ("cache", "data"):
        digest = tree_digest(os.path.join(home, root), skip)
        for relative in list(digest):
            if os.path.basename(relative) in ("defaults.json", "visits.json"):
                with open(os.path.join(home, root, relative), "rb") as handle:
                    try:
                        values = json.loads(handle.read())
                    except ValueError:
                        continue  # torn: left as its raw digest, so it shows
                values = {k: v for k, v in values.items() if not k.endswith("_generation")}
                digest[relative] = hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()
        state[root] = digest
    return state
