"""What the bench cases share: timing a whole process, and the reference server's admin API.

    from common import admin, timed
"""
import json
import os
import sys
import time
import urllib.request

DEVNULL = os.open(os.devnull, os.O_WRONLY)


def admin(url, method, path, body=None):
    """One request to a `brados-server --admin` route; its JSON answer (or None)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
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
