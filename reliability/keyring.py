#!/usr/bin/env python3
"""Keyring: secrets survive every way a move between the system keyring and the file can stop.

A real Secret Service (GNOME Keyring on a private D-Bus session bus, its keyring in a folder
of its own), a profile signed in to two services (the account and Supabase). Each round:

- killed mid-migrate: `brados auth migrate --to keyring|file` (alternating) is SIGKILLed after
  a random 0-120 ms; then every secret still reads, unchanged, from one place or the other
  (`auth status --json` shows no unreadable one), and a second migrate finishes: after a
  migration to the keyring no token is left in any file, after one to files the keyring holds
  none of the profile's items;
- every 4th round, the keyring locked: a command that needs a secret exits 13, `auth logout`
  exits 13 and erases nothing, a migration exits 13 and moves nothing; unlocked, all is there;
- every 5th round, the keyring daemon killed (SIGKILL) at a random moment of a migration:
  started again (as a desktop session would), every secret is there, and a migration finishes.

Figures: rounds, kills that landed while migrate ran, secrets lost (goal 0), tokens left in a
file after a migration to the keyring (goal 0).

    python3 reliability/keyring.py [--rounds 100] [--build-dir .build] [--configuration debug]
"""
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Binaries, Profile, Server, Tally, require, suite_parser  # noqa: E402

PASSWORD = "keyring-password"
SLOTS = ["account", "supabase"]


class Session:
    """dbus-daemon and GNOME Keyring, in a folder of their own."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="brados-keyring-rel-")
        runtime, data = os.path.join(self.root, "run"), os.path.join(self.root, "data")
        os.makedirs(runtime, mode=0o700)
        os.makedirs(data)
        self.env = {"DBUS_SESSION_BUS_ADDRESS": f"unix:path={runtime}/bus", "XDG_RUNTIME_DIR": runtime, "XDG_DATA_HOME": data,
                    "HOME": self.root, "PATH": "/usr/bin:/bin"}
        self.bus = subprocess.Popen([require("dbus-daemon"), "--session", "--nofork", "--nopidfile", f"--address={self.env['DBUS_SESSION_BUS_ADDRESS']}"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
        for _ in range(200):
            if os.path.exists(f"{runtime}/bus"):
                break
            time.sleep(0.02)
        self.daemon = None
        self.start()

    def start(self):
        """GNOME Keyring in the foreground, replacing any (one the bus started on demand, locked,
        as after a crash in a desktop session), its login keyring unlocked."""
        self.stop_daemon()
        self.kill_activated()
        self.daemon = subprocess.Popen([require("gnome-keyring-daemon"), "--replace", "--foreground", "--unlock", "--components=secrets"],
                                       stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
        self.daemon.stdin.write(PASSWORD.encode())
        self.daemon.stdin.close()
        for _ in range(300):
            owner = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                    "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"], capture_output=True, text=True, env=self.env)
            if "boolean true" in owner.stdout:
                return
            time.sleep(0.05)
        raise SystemExit("gnome-keyring-daemon did not come up on the bus")

    def kill_activated(self):
        """Every gnome-keyring-daemon of this session (found by its runtime folder)."""
        mine = f"XDG_RUNTIME_DIR={self.env['XDG_RUNTIME_DIR']}".encode()
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if open(f"/proc/{pid}/comm").read().strip().startswith("gnome-keyring") and mine in open(f"/proc/{pid}/environ", "rb").read().split(b"\0"):
                    os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        for _ in range(100):
            owner = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                    "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"], capture_output=True, text=True, env=self.env)
            if "boolean true" not in owner.stdout:
                return
            time.sleep(0.05)

    def stop_daemon(self):
        if self.daemon and self.daemon.poll() is None:
            self.daemon.kill()
            self.daemon.wait()

    def lock(self):
        subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                        "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login"],
                       capture_output=True, env=self.env, check=True)

    def lookup(self, slot):
        result = subprocess.run([require("secret-tool"), "lookup", "application", "brados", "profile", "default", "service", slot],
                                capture_output=True, text=True, env=self.env)
        return result.stdout or None

    def items(self):
        result = subprocess.run([require("secret-tool"), "search", "--all", "application", "brados", "profile", "default"],
                                capture_output=True, text=True, env=self.env)
        return result.stdout.count("attribute.application") + result.stderr.count("attribute.application")

    def close(self):
        self.stop_daemon()
        self.bus.kill()
        self.bus.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def tokens(profile, session):
    """Each slot's access token, from the keyring or the file (None where it is in neither)."""
    path = os.path.join(profile.home, "config", "credentials", "default.json")
    try:
        stored = json.load(open(path))
    except (OSError, ValueError):
        stored = {}
    found = {}
    for slot in SLOTS:
        item = session.lookup(slot)
        entry = stored.get("account") if slot == "account" else stored.get("services", {}).get(slot)
        if item:
            found[slot] = json.loads(item)["accessToken"]
        elif entry:
            found[slot] = entry["accessToken"]
        else:
            found[slot] = None
    return found


def tokens_in_files(profile, expected):
    texts = "".join(open(path, errors="replace").read() for path in glob.glob(os.path.join(profile.home, "config", "credentials", "**"), recursive=True)
                    if os.path.isfile(path))
    return [slot for slot, token in expected.items() if token and token in texts]


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=100)
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("keyring")
    random.seed(45)
    session = Session()
    landed = lost = left = 0
    try:
        with Server(binaries) as server:
            profile = Profile(binaries, server, extra_env=dict(session.env, BRADOS_CREDENTIALS_STORE="auto", BRADOS_KEYRING_TIMEOUT="3s"))
            profile.env["HOME"] = profile.home
            profile.login(supabase_email="demo@example.com")
            expected = tokens(profile, session)
            if None in expected.values() or session.items() != 2:
                raise SystemExit(f"the sign-in did not put both secrets in the keyring: {expected}, {session.items()} items")
            for round_ in range(options.rounds):
                target = "file" if round_ % 2 == 0 else "keyring"
                killer = "daemon" if round_ % 5 == 4 else "brados"
                process = subprocess.Popen([binaries.brados, "auth", "migrate", "--to", target], env=profile.env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
                time.sleep(random.uniform(0, 0.12))
                if process.poll() is None:
                    landed += 1
                if killer == "brados":
                    try:
                        os.killpg(process.pid, signal.SIGKILL)
                    except ProcessLookupError:  # it had finished
                        pass
                else:
                    session.stop_daemon()
                process.wait()
                if killer == "daemon":
                    session.start()
                now = tokens(profile, session)
                if now != expected:
                    lost += 1
                    tally.fail(f"round {round_}: after a kill ({killer}) during migrate --to {target}: {now} != {expected}")
                    expected = {slot: token or expected[slot] for slot, token in now.items()}
                status = json.loads(profile.must("auth", "status", "--json").stdout)
                problems = [secret for secret in status["secrets"]["secrets"] if secret.get("problem")]
                if problems:
                    tally.fail(f"round {round_}: unreadable after the kill: {problems}")
                profile.must("auth", "migrate", "--to", target)
                if target == "keyring":
                    stray = tokens_in_files(profile, expected)
                    if stray:
                        left += 1
                        tally.fail(f"round {round_}: tokens of {stray} left in a file after migrate --to keyring")
                elif session.items():
                    tally.fail(f"round {round_}: {session.items()} items left in the keyring after migrate --to file")
                if tokens(profile, session) != expected:
                    lost += 1
                    tally.fail(f"round {round_}: a finished migrate --to {target} changed a secret")
                if round_ % 4 == 3:
                    profile.must("auth", "migrate", "--to", "keyring")
                    session.lock()
                    for args in (["auth", "status", "--check"], ["auth", "logout"], ["auth", "migrate", "--to", "file"]):
                        result = profile.run(*args)
                        if result.returncode != 13:
                            tally.fail(f"round {round_}: {' '.join(args)} with the keyring locked exited {result.returncode}: {result.stderr.strip()[:200]}")
                    session.start()
                    if tokens(profile, session) != expected:
                        lost += 1
                        tally.fail(f"round {round_}: a secret changed while the keyring was locked")
                tally.ok()
    finally:
        session.close()
    tally.figures = {"kills while migrate ran": landed, "secrets lost": lost, "tokens left in a file": left}
    print(json.dumps(tally.report()))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
