"""What the bench cases share: timing a whole process, the reference server and its admin API.

    from common import Server, admin, require, timed, build_options, binaries, server_with_home
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

DEVNULL = os.open(os.devnull, os.O_WRONLY)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_options(parser):
    """The options every case takes: --no-build, --configuration, --build-dir."""
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build", help="SwiftPM scratch path (default .build)")


def binaries(options, product=""):
    """The folder of the binaries the case runs, built first unless --no-build (release
    binaries link the Swift runtime statically, as they ship: ~30% faster start-up)."""
    if not options.no_build:
        subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", f"PRODUCT={product}"], cwd=ROOT, check=True)
    return os.path.join(ROOT, options.build_dir, options.configuration)


def server_with_home(bin_dir, prefix="brados-bench-"):
    """A reference server from `bin_dir` and a new profile home against it (removed with it)."""
    home = tempfile.mkdtemp(prefix=prefix)
    server = Server(os.path.join(bin_dir, "brados-server"), [])
    server.homes.append(home)
    return server, home


def require(command):
    """The path of `command`; exits saying how to install it when it is missing."""
    return shutil.which(command) or sys.exit(f"{command} is not installed: scripts/ensure-deps.sh bench installs what the benchmarks run")


def admin(url, method, path, body=None, timeout=10):
    """One request to a `brados-server --admin` route; its JSON answer (or None)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        text = response.read()
        return json.loads(text) if text else None


def timed(args, env, accept=(0,)):
    """Whole-process wall time: posix_spawn with output to /dev/null, then waitpid
    (no pipes, no shell: as little harness overhead as hyperfine -N). Exits when the
    command's status is not in `accept`."""
    actions = [(os.POSIX_SPAWN_DUP2, DEVNULL, 1), (os.POSIX_SPAWN_DUP2, DEVNULL, 2)]
    start = time.perf_counter()
    pid = os.posix_spawn(args[0], args, env, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in accept:
        sys.exit(f"{' '.join(args)} failed with {code}")
    return elapsed


class Server:
    """A `brados-server --admin` on loopback (it stops with this process: `--until-stdin-closes`), and the
    profiles made against it, removed with it by `stop()`."""

    def __init__(self, binary, arguments):
        self.process = subprocess.Popen([binary, "--port", "0", "--admin", "--until-stdin-closes"] + arguments,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"(http://\S+)", line)
        if not match:
            self.process.kill()
            raise SystemExit(f"brados-server did not start: {line!r}")
        self.url = match.group(1)
        self.homes = []  # profiles made against this server, removed with it

    def admin(self, method, path, body=None):
        return admin(self.url, method, path, body, timeout=60)

    def sql(self, statement, *arguments):
        return self.admin("POST", "/_admin/sql", {"sql": statement, "arguments": [None if a is None else str(a) for a in arguments]})["rows"]

    def reset(self):
        self.admin("DELETE", "/_admin/stats")

    def traffic(self):
        stats = self.admin("GET", "/_admin/stats")
        return stats["total"], stats["bytes"]

    def stop(self):
        self.process.kill()
        self.process.wait()
        for home in self.homes:
            shutil.rmtree(home, ignore_errors=True)


def background_pids(home):
    """The detached brados processes (background refreshes) of this profile's home."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                environ = handle.read().split(b"\0")
        except OSError:
            continue
        if f"BRADOS_HOME={home}".encode() in environ and b"BRADOS_BACKGROUND=1" in environ:
            found.append(int(pid))
    return found


def stop_background(home):
    """Stops them (before a home is removed: a background refresh still writing into it would
    make the removal fail)."""
    for pid in background_pids(home):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
