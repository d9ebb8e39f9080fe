#!/usr/bin/env python3
"""Security (issue 16): what a hostile archive, server or local user supplies never runs code,
plants data or reads a profile. Every case runs the built `brados` (and `brados-server`).

  completion    3 shells x 3 id kinds: ids planted in the real caches, and a stand-in brados
                that prints $(...), backticks, ;, globs and newlines: no command ever runs
  databases     imported coach.sqlite / artwork index.sqlite with triggers, views, extra
                tables, a foreign schema, bad rows and -wal sidecars: refused (exit 8), the
                profile unchanged; a sound one arrives with exactly the migrations' schema
  embedded      the embedded backend: no TCP bind or listen (strace), a 0600 socket in a 0700
                folder, a random password, and another user cannot connect
  headers       Retry-After inf/-1/1e20/huge, a Range of 0-Int64.max, a redirect to another
                host: no crash, no token leaves its origin
  control       escape sequences in server data are shown, never written raw (human and JSON)
  queues        an imported plan queue arrives paused; sync never sends it; --replace never
                drops local changes silently
  loader        libarchive is loaded by its versioned soname only: with the system's hidden (a
                private mount namespace) and an unversioned libarchive.so planted on the library
                path, brados refuses with the loader's reason instead of loading the plant

    python3 reliability/security.py [--build-dir .build] [--configuration debug]
"""
import hashlib
import io
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ROOT, require, suite_parser, Binaries, Profile, Server, Tally, profile_digest  # noqa: E402

# BRADOS_COMPLETIONS_DIR: the scripts of another checkout (to show what an older build did).
COMPLETIONS = os.environ.get("BRADOS_COMPLETIONS_DIR", os.path.join(ROOT, "completions"))
KINDS = {"visit id": "brados visits show ", "rating key": "brados library artwork ", "conversation id": "brados coach show "}
SHELLS = ["bash", "zsh", "fish"]


def crashed(result):
    """A signal or a Swift trap (SIGILL/SIGTRAP show as 132/133 through a shell)."""
    return result.returncode < 0 or result.returncode in (132, 133, 134, 139)


# MARK: - completion

def complete(shell, line, env, cwd):
    """Runs the shell's real completion for `line`; returns what it offers."""
    if shell == "bash":
        script = f"""source '{COMPLETIONS}/brados.bash'
COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}
read -r -a COMP_WORDS <<< "$COMP_LINE"; COMP_WORDS+=('')
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
_brados brados '' "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
        args = ["bash", "-c", script]
    elif shell == "zsh":
        words = " ".join(f"'{w}'" for w in line.split())
        script = f"""compdef() {{ :; }}
source '{COMPLETIONS}/_brados'
_describe() {{ print -rl -- "${{(@P)3}}" }}
command_name=brados; command_line=({words} '')
__brados_custom_complete ---completion {line.split()[1]} {line.split()[2]} -- positional@0 3 0
"""
        args = ["zsh", "-f", "-c", script]
    else:
        args = ["fish", "--no-config", "-c", f"source '{COMPLETIONS}/brados.fish'; complete -C '{line}'"]
    result = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=60)
    return result.stdout


def plant(profile, marker):
    """Puts a hostile id of each kind into the profile's real caches."""
    defaults = os.path.join(profile.home, "data", "users", "default", "visits", "visits.json")
    with open(defaults) as handle:
        values = json.load(handle)
    values["cached_visits"][0]["id"] = f"$(touch {marker}-visit)"
    with open(defaults, "w") as handle:
        json.dump(values, handle)
    library = sqlite3.connect(os.path.join(profile.home, "data", "users", "default", "library", "library.sqlite"))
    library.execute("UPDATE album SET ratingKey = ? WHERE id = (SELECT id FROM album WHERE shown = 1 ORDER BY sortTitle, ratingKey LIMIT 1)",
                    (f"`touch {marker}-album`",))
    library.commit()
    library.close()
    database = sqlite3.connect(os.path.join(profile.home, "data", "users", "default", "coach", "coach.sqlite"))
    database.execute("UPDATE conversation SET remoteId = ? WHERE rowid = (SELECT MIN(rowid) FROM conversation)",
                     (f"x;touch {marker}-coach",))
    database.commit()
    database.close()


def completion(tally, binaries, server):
    for shell in SHELLS:
        require(shell)
    profile = Profile(binaries, server)
    try:
        profile.login(supabase_email="demo@example.com")
        for command in (["visits", "list"], ["library", "albums"], ["coach", "list"]):
            profile.must(*command)
        marker = os.path.join(profile.home, "pwned")
        plant(profile, marker)
        real_bin = os.path.join(profile.home, "real-bin")
        os.makedirs(real_bin)
        os.symlink(binaries.brados, os.path.join(real_bin, "brados"))
        fake_bin = os.path.join(profile.home, "fake-bin")
        os.makedirs(fake_bin)
        values = os.path.join(profile.home, "values")
        with open(values, "w") as handle:
            handle.write("\n".join([f"$(touch {marker}-dollar)", f"`touch {marker}-tick`", f"x;touch {marker}-semi",
                                    "*", "?[a]", "$HOME", "x", f"y\ntouch {marker}-newline", "good-id", "last-line"]) + "\n")
        with open(os.path.join(fake_bin, "brados"), "w") as handle:
            handle.write(f"#!/bin/sh\ncat '{values}'\n")
        os.chmod(os.path.join(fake_bin, "brados"), 0o755)
        for shell in SHELLS:
            for kind, line in KINDS.items():
                for label, folder in (("planted in the cache", real_bin), ("from a hostile brados", fake_bin)):
                    env = dict(profile.env, PATH=folder + ":/usr/bin:/bin")
                    offered = complete(shell, line, env, profile.home)
                    ran = [name for name in os.listdir(profile.home) if name.startswith("pwned")]
                    if ran:
                        tally.fail(f"{shell}, {kind}, {label}: a planted command ran ({ran})")
                        for name in ran:
                            os.remove(os.path.join(profile.home, name))
                    elif folder == real_bin and "touch" in offered:
                        tally.fail(f"{shell}, {kind}: a planted id was offered: {offered!r}")
                    elif folder == fake_bin and "good-id" not in offered:
                        tally.fail(f"{shell}, {kind}: the completion offered nothing ({offered!r})")
                    else:
                        tally.ok()
    finally:
        profile.remove()


# MARK: - databases

def repack(source_archive, out_path, change):
    """Extracts a brados tar archive, lets `change(folder)` alter it, and writes a tar.gz with a
    manifest that matches (sizes, SHA-256, counts): only the content is hostile."""
    work = tempfile.mkdtemp(prefix="brados-repack-")
    try:
        with tarfile.open(source_archive) as archive:
            archive.extractall(work, filter="data")
        change(work)
        with open(os.path.join(work, "manifest.json")) as handle:
            manifest = json.load(handle)
        files = []
        for top in ("cache", "data"):
            for folder, _, names in os.walk(os.path.join(work, top)):
                for name in sorted(names):
                    path = os.path.join(folder, name)
                    relative = os.path.relpath(path, work)
                    with open(path, "rb") as handle:
                        data = handle.read()
                    domain = relative.split(os.sep)[1]
                    files.append({"path": relative, "domain": domain, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                                  "mode": 0o600, "kind": "sqlite" if name.endswith(".sqlite") else "file"})
        manifest["files"] = files
        for domain in manifest["domains"]:
            mine = [f for f in files if f["domain"] == domain["name"]]
            domain["files"], domain["bytes"] = len(mine), sum(f["size"] for f in mine)
        manifest["compression"] = "tar.gz"
        with tarfile.open(out_path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
            data = json.dumps(manifest).encode()
            info = tarfile.TarInfo("manifest.json")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
            for entry in files:
                archive.add(os.path.join(work, entry["path"]), arcname=entry["path"], recursive=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def sql(path, statements):
    def change(work):
        database = sqlite3.connect(os.path.join(work, path))
        database.executescript(statements)
        database.commit()
        database.close()
    return change


def schema(path):
    database = sqlite3.connect(path)
    try:
        return sorted(database.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall())
    finally:
        database.close()


COACH = "data/coach/coach.sqlite"
ARTWORK = "cache/library/artwork/index.sqlite"
LIBRARY = "data/library/library.sqlite"


def hostile_legacy_snapshot(work):
    """A JSON snapshot as older brados wrote it, with a hostile rating key."""
    with open(os.path.join(work, "data/library/snapshot.json"), "w") as handle:
        json.dump({"formatVersion": 1, "savedAt": "2027-01-15T08:00:00Z", "sectionKey": "1", "sectionTitle": "Music",
                   "albums": [{"ratingKey": "$(touch /tmp/brados-owned)", "title": "A", "artist": "B"}], "collections": []}, handle)


HOSTILE_DATABASES = [
    ("library: a hostile rating key in the store", sql(LIBRARY, "UPDATE album SET ratingKey = '$(touch /tmp/brados-owned)' WHERE id = (SELECT MIN(id) FROM album);")),
    ("library: a trigger hiding new albums", sql(LIBRARY, "CREATE TRIGGER hide AFTER INSERT ON album BEGIN UPDATE album SET shown = 0; END;")),
    ("library: a hostile JSON snapshot of an older brados", hostile_legacy_snapshot),
    ("coach: a trigger rewriting every message", sql(COACH, "CREATE TRIGGER evil AFTER INSERT ON message BEGIN UPDATE message SET content = 'owned'; END;")),
    ("coach: a trigger ignoring deletes", sql(COACH, "CREATE TRIGGER keep BEFORE DELETE ON conversation BEGIN SELECT RAISE(IGNORE); END;")),
    ("coach: a view", sql(COACH, "CREATE VIEW peek AS SELECT * FROM message;")),
    ("coach: an extra table", sql(COACH, "CREATE TABLE stash (secret TEXT);")),
    ("coach: a foreign message table", sql(COACH, "DROP TABLE message; CREATE TABLE message (id INTEGER PRIMARY KEY, body BLOB);")),
    ("coach: a hostile conversation id", sql(COACH, "UPDATE conversation SET remoteId = '$(touch /tmp/brados-owned)' WHERE rowid = (SELECT MIN(rowid) FROM conversation);")),
    ("artwork: the size accounting dropped", sql(ARTWORK, "DROP TRIGGER blob_insert;")),
    ("artwork: a bucket climbing out", sql(ARTWORK, "UPDATE blob SET bucket = '../../..' WHERE name = (SELECT name FROM blob LIMIT 1);")),
    ("coach: a -wal sidecar", lambda work: open(os.path.join(work, COACH + "-wal"), "wb").write(b"\0" * 32)),
    ("artwork: a -journal sidecar", lambda work: open(os.path.join(work, ARTWORK + "-journal"), "wb").write(b"\0" * 32)),
]


def databases(tally, binaries, server):
    source = Profile(binaries, server)
    work = tempfile.mkdtemp(prefix="brados-db-")
    try:
        source.login(supabase_email="demo@example.com")
        for command in (["coach", "list"], ["library", "albums"], ["library", "prefetch", "--rows", "2"]):
            source.must(*command)
        conversations = json.loads(source.must("coach", "list", "--json").stdout).get("conversations", [])
        if conversations:
            source.run("coach", "show", conversations[0]["id"])
        original = os.path.join(work, "original.tar.gz")
        source.must("cache", "export", "--format", "tar.gz", "-o", original)
        for name, change in HOSTILE_DATABASES:
            target = Profile(binaries, server)
            try:
                target.login(supabase_email="demo@example.com")
                target.must("visits", "list")
                before = profile_digest(target.home)
                archive = os.path.join(work, "hostile.tar.gz")
                repack(original, archive, change)
                result = target.run("cache", "import", archive, "--replace")
                if crashed(result) or result.returncode != 8:
                    tally.fail(f"{name}: exit {result.returncode}, expected 8 ({result.stderr.strip()[:200]})")
                elif profile_digest(target.home) != before:
                    tally.fail(f"{name}: the profile changed")
                else:
                    tally.ok()
            finally:
                target.remove()
        # A sound archive (repacked unchanged) arrives with exactly the migrations' schema.
        target = Profile(binaries, server)
        try:
            target.login(supabase_email="demo@example.com")
            archive = os.path.join(work, "sound.tar.gz")
            repack(original, archive, lambda work: None)
            result = target.run("cache", "import", archive, "--replace")
            fresh = Profile(binaries, server)
            fresh.login(supabase_email="demo@example.com")
            fresh.must("coach", "list")
            fresh.must("library", "prefetch", "--rows", "1")
            paths = {"coach": COACH, "artwork": ARTWORK, "library": LIBRARY}
            for label, relative in paths.items():
                imported = os.path.join(target.home, relative.replace("data/", "data/users/default/", 1).replace("cache/", "cache/users/default/", 1))
                expected = os.path.join(fresh.home, relative.replace("data/", "data/users/default/", 1).replace("cache/", "cache/users/default/", 1))
                if result.returncode != 0:
                    tally.fail(f"sound archive: exit {result.returncode} ({result.stderr.strip()[:200]})")
                    break
                if schema(imported) != schema(expected):
                    tally.fail(f"sound archive: the imported {label} schema is not the migrations' one")
                else:
                    tally.ok()
            fresh.remove()
        finally:
            target.remove()
    finally:
        source.remove()
        shutil.rmtree(work, ignore_errors=True)


# MARK: - embedded

def embedded(tally, binaries):
    require("strace")
    profile = Profile(binaries)  # no server: the embedded backend
    try:
        trace = os.path.join(profile.home, "trace")
        result = subprocess.run(["strace", "-f", "-qq", "-e", "trace=bind,listen,chmod,fchmodat", "-o", trace, binaries.brados, "visits", "list"],
                                capture_output=True, text=True, env=profile.env, timeout=120)
        with open(trace) as handle:
            calls = handle.read()
        inet = [line for line in calls.splitlines() if "AF_INET" in line and "bind(" in line]
        if result.returncode != 0:
            tally.fail(f"visits list with the embedded backend failed: {result.stderr.strip()[:200]}")
        elif inet or "listen(" in calls and "AF_UNIX" not in calls:
            tally.fail(f"the embedded backend bound a TCP port: {inet[:2]}")
        else:
            tally.ok()
        folder = os.path.join(profile.home, "data", "users", "default", ".embedded")
        modes = {name: os.stat(os.path.join(folder, name)).st_mode & 0o777 for name in os.listdir(folder)}
        bound = [line for line in calls.splitlines() if "bind(" in line and "AF_UNIX" in line and folder in line]
        chmodded = [line for line in calls.splitlines() if "chmod" in line and ".sock" in line and "0600" in line]
        leftover = [name for name in modes if name.endswith(".sock")]
        if os.stat(folder).st_mode & 0o777 != 0o700 or modes.get("password") != 0o600:
            tally.fail(f"embedded folder modes: {oct(os.stat(folder).st_mode & 0o777)} {dict((k, oct(v)) for k, v in modes.items())}")
        elif not bound or not chmodded:
            tally.fail(f"the socket was not bound in the profile's folder and set 0600: {bound[:1]} {chmodded[:1]}")
        elif leftover:
            tally.fail(f"the socket outlived its process: {leftover}")
        else:
            tally.ok()
        with open(os.path.join(folder, "password")) as handle:
            password = handle.read()
        if password == "demo" or len(password) < 32:
            tally.fail("the embedded account's password is not a random secret")
        else:
            tally.ok()
        # Another user cannot even reach a socket path in the folder (it is 0700).
        probe = ("import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1]); print('connected')\n"
                 "except PermissionError: print('denied')\nexcept OSError as e: print('error', e.errno)")
        if os.geteuid() == 0 and shutil.which("setpriv"):
            other = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", probe,
                                    os.path.join(folder, "s-1.sock")], capture_output=True, text=True, timeout=30)
            if other.stdout.strip() != "denied":
                tally.fail(f"another user reaching the socket got: {other.stdout.strip() or other.stderr.strip()}")
            else:
                tally.ok()
    finally:
        profile.remove()


# MARK: - headers

class Capture:
    """A one-request HTTP server on 127.0.0.1 that records what it is sent."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.received = b""
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        self.listener.settimeout(60)
        try:
            while True:
                connection, _ = self.listener.accept()
                self.received += connection.recv(65536)
                connection.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                connection.close()
        except OSError:
            pass

    def close(self):
        self.listener.close()


def headers(tally, binaries, server):
    profile = Profile(binaries, server)
    try:
        profile.login()
        # A foreground fetch (plan refresh), so a crash cannot hide in a background revalidation.
        for value in ["inf", "-1", "1e20", "nan", "99999999999999999999999999999999", "abc", "1" * 300]:
            server.fault(match="POST /v1/plans/generate", status=429, headers={"Retry-After": value}, count=20)
            result = profile.run("plan", "refresh", "--json", timeout=120)
            server.clear_faults()
            if crashed(result) or result.returncode not in (6, 9):
                tally.fail(f"Retry-After {value[:20]}: exit {result.returncode} ({result.stderr.strip()[:160]})")
            else:
                tally.ok()
        # The server survives hostile Range and paging values.
        token = profile.must("auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin", stdin="demo\n")
        for header, query in [("0-9223372036854775807", ""), ("9223372036854775807-9223372036854775807", ""), ("", "offset=-1"),
                              ("", "limit=99999999999999999999"), ("-", "")]:
            request = urllib.request.Request(server.url + "/rest/v1/conversations" + ("?" + query if query else ""),
                                             headers={"apikey": "brados-reference-anon-key", **({"Range": header} if header else {})})
            try:
                urllib.request.urlopen(request, timeout=10).read()
            except urllib.error.HTTPError:
                pass
            except OSError as error:
                tally.fail(f"Range {header or query}: {error}")
                continue
            try:
                urllib.request.urlopen(server.url + "/health", timeout=10).read()
                tally.ok()
            except OSError as error:
                tally.fail(f"the server died after Range {header or query}: {error}")
        del token
        # A redirect to another origin gets no credential.
        capture = Capture()
        try:
            # Plex signs in at plex.tv (the reference server's emulation), then uses demo's own server.
            profile.env["BRADOS_PLEX_ACCOUNT_SERVER"] = server.url
            profile.must("auth", "login", "--service", "plex", "--user", "demo", "--password-stdin", stdin="demo\n")
            profile.must("library", "use", "brados reference")
            secrets = []
            folder = os.path.join(profile.home, "config", "credentials")
            for name in ("default.json", os.path.join("default.d", "plex.server.json")):
                with open(os.path.join(folder, name)) as handle:
                    for value in json.dumps(json.load(handle)).split('"'):
                        if len(value) >= 16:
                            secrets.append(value)
            server.fault(match="GET /library/sections", status=302, headers={"Location": f"http://127.0.0.1:{capture.port}/elsewhere"}, count=5)
            result = profile.run("library", "albums", "--refresh", timeout=60)
            server.clear_faults()
            sent = capture.received.decode(errors="replace")
            leaked = [s for s in secrets if s in sent]
            if crashed(result):
                tally.fail(f"redirect: brados crashed ({result.returncode})")
            elif "GET /elsewhere" not in sent:
                tally.fail(f"redirect: the redirect was not followed at all (exit {result.returncode}: {result.stderr.strip()[:160]})")
            elif leaked or "x-plex-token" in sent.lower() or "authorization" in sent.lower():
                tally.fail("redirect: a credential went to another origin")
            else:
                tally.ok()
        finally:
            capture.close()
    finally:
        profile.remove()


# MARK: - control characters

def control(tally, binaries, server):
    profile = Profile(binaries, server)
    try:
        profile.login()
        hostile = "Evil\x1b]52;c;b3duZWQ=\x07\x1b[2J\x9b31m\rX\u202e"
        profile.must("visits", "add", "--place", hostile, "--notes", "n\x1b[8mhidden")
        for args in (["visits", "list"], ["--offline", "visits", "list"], ["visits", "list", "--json"]):
            result = profile.run(*args)
            raw = [c for c in ("\x1b", "\x9b", "\x07", "\r", "\u202e") if c in result.stdout]
            if result.returncode != 0 or raw:
                tally.fail(f"{' '.join(args)}: exit {result.returncode}, raw control characters {[hex(ord(c)) for c in raw]}")
            else:
                tally.ok()
        result = profile.run("visits", "list", "--json")
        places = [v.get("place") for v in json.loads(result.stdout).get("visits", [])]
        if hostile not in places:
            tally.fail("--json does not give the place back exactly (escaped, same text)")
        else:
            tally.ok()
    finally:
        profile.remove()


# MARK: - imported queues

def queues(tally, binaries, server):
    old = Profile(binaries, server)
    new = Profile(binaries, server, home=old.home, extra_env={"BRADOS_PROFILE": "new"})
    try:
        old.login()
        new.login()
        old.must("--offline", "plan", "weight", "70", "--yes")
        archive = os.path.join(old.home, "old.tar.zst")
        old.must("cache", "export", "-o", archive)
        new.must("--offline", "plan", "weight", "90", "--yes")

        def pending():
            return json.loads(new.must("--offline", "plan", "pending", "--json").stdout)["pending"]

        checks = []
        replace = new.run("cache", "import", archive, "--replace")
        checks.append(("--replace refuses while local changes are queued", replace.returncode == 14 and len(pending()) == 1))
        merge = new.run("cache", "import", archive, "--merge")
        queue = pending()
        checks.append(("--merge keeps the local change and pauses the imported one",
                       merge.returncode == 0 and len(queue) == 2 and sum(1 for q in queue if q.get("importedAt")) == 1))
        new.run("sync", "--domains", "plan")
        checks.append(("brados sync sends only the local change", [q.get("weightKg") for q in pending()] == [70]))
        new.run("plan", "sync")
        checks.append(("plan sync without --include-imported keeps it", len(pending()) == 1))
        new.run("plan", "sync", "--include-imported")
        checks.append(("plan sync --include-imported sends it", pending() == []))
        for what, passed in checks:
            if passed:
                tally.ok()
            else:
                tally.fail(f"queues: {what}")
    finally:
        old.remove()


# MARK: - loader

def loader(tally, binaries):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        tally.fail("the loader case needs root and unshare (a private mount namespace hides the system libarchive)")
        return
    found = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    system = next((line.split("=>")[-1].strip() for line in found.splitlines() if "libarchive.so.13 " in line), None)
    if not system:
        tally.fail("libarchive.so.13 is not installed")
        return
    real = os.path.realpath(system)
    profile = Profile(binaries)
    try:
        plant = os.path.join(profile.home, "lib")
        os.makedirs(plant)
        shutil.copy(real, os.path.join(plant, "libarchive.so"))  # a working library, under the unversioned name
        output = os.path.join(profile.home, "out.tar.zst")
        script = f"mount --bind /dev/null '{real}' && exec '{binaries.brados}' cache export -o '{output}'"
        result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120,
                                env=dict(profile.env, LD_LIBRARY_PATH=plant))
        if result.returncode == 0 or os.path.exists(output):
            tally.fail("with libarchive.so.13 hidden, brados loaded an unversioned libarchive.so from the library path")
        elif "libarchive.so.13 could not be loaded" not in result.stderr or "too short" not in result.stderr:
            tally.fail(f"the loader's reason is not reported: {result.stderr.strip()[:200]}")
        else:
            tally.ok()
    finally:
        profile.remove()


def main():
    parser = suite_parser(__doc__)
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("security")
    with Server(binaries) as server:
        for name, case in [("completion", lambda: completion(tally, binaries, server)),
                           ("databases", lambda: databases(tally, binaries, server)),
                           ("embedded", lambda: embedded(tally, binaries)),
                           ("headers", lambda: headers(tally, binaries, server)),
                           ("control", lambda: control(tally, binaries, server)),
                           ("queues", lambda: queues(tally, binaries, server)),
                           ("loader", lambda: loader(tally, binaries))]:
            before = tally.runs
            try:
                case()
            except Exception as error:  # a case that cannot run is a failure, never a pass
                tally.fail(f"{name}: {type(error).__name__}: {error}")
            tally.figures[name] = f"{tally.runs - before} checks"
    report = tally.report()
    print(json.dumps(report))
    sys.exit(1 if report["failures"] else 0)


if __name__ == "__main__":
    main()
