#!/usr/bin/env python3
"""A 1024 px cover drawn in symbols at 80x40 cells: `brados library show` vs the `chafa` CLI
on the same file and size.

Starts a `brados-server` on loopback (demo seed; it stops with this process), signs a fresh profile in,
caches the library snapshot, album 1001's 1024 px cover (`library artwork`) and its details
(`library show`). Then, alternating which goes first each round, times whole processes:

- `brados --offline library show 1001 --art symbols` on an 80-column, 44-line screen
  (COLUMNS/LINES), from the caches as chafa reads its file (no request):
  the cover goes above the details at 80x40 cells, from the cached 1024 px cover (a JPEG, as Plex sends), truecolor
  (CLICOLOR_FORCE=1 COLORTERM=truecolor, as on a terminal);
- `brados --offline library show 1001 --art none`, the same command without the picture (so the
  drawing's own cost is the difference);
- `chafa --format symbols --size 80x40 --colors full --symbols block+border+space` on the
  same cached file (Debian's chafa, the same library and the same work factor).

Reports medians, min-max and ratios. Goal: drawing <= 30 ms (the whole `library show` with
the picture), and the ratio to chafa.

    python3 bench/covers.py [--runs 30] [--warmup 3] [--no-build] [--configuration release] [--build-dir .build]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from common import Server, require, timed  # bench/common.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def image_size(path):
    """("JPEG" or "PNG", (width, height)) of an image file, from its header."""
    data = open(path, "rb").read()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG", (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))
    position = 2
    while data[:2] == b"\xff\xd8" and position + 9 < len(data):
        marker, length = data[position + 1], int.from_bytes(data[position + 2:position + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return "JPEG", (int.from_bytes(data[position + 7:position + 9], "big"), int.from_bytes(data[position + 5:position + 7], "big"))
        position += 2 + length
    return "unknown", None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build", help="SwiftPM scratch path (default .build)")
    options = parser.parse_args()

    chafa = require("chafa")
    if not options.no_build:
        for product in ("brados", "brados-server"):
            subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", f"PRODUCT={product}"], cwd=ROOT, check=True)
    bin_dir = os.path.join(ROOT, options.build_dir, options.configuration)
    brados = os.path.join(bin_dir, "brados")
    server = Server(os.path.join(bin_dir, "brados-server"), [])
    url = server.url
    home = tempfile.mkdtemp(prefix="brados-bench-")
    server.homes.append(home)
    try:
        # BRADOS_LIBRARY_PREFETCH: no background prefetch after the first load (a cold cover run would find them cached).
        # 80x60: the cover is as wide as the terminal (40 rows) and the details still fit under it, as chafa's 80x40.
        env = {"PATH": os.environ.get("PATH", ""), "BRADOS_HOME": home, "BRADOS_SERVER": url, "HOME": home, "BRADOS_LIBRARY_PREFETCH": "false",
               "TERM": "xterm-256color", "COLORTERM": "truecolor", "CLICOLOR_FORCE": "1", "COLUMNS": "80", "LINES": "60"}
        subprocess.run([brados, "auth", "login", "--user", "demo", "--password-stdin"], input=b"demo", env=env, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([brados, "library", "albums", "--limit", "1"], env=env, check=True, stdout=subprocess.DEVNULL)
        cover = subprocess.run([brados, "library", "artwork", "1001"], env=env, check=True, capture_output=True, text=True).stdout.strip()
        subprocess.run([brados, "library", "show", "1001"], env=env, check=True, stdout=subprocess.DEVNULL)
        kind, size = image_size(cover)
        if size != (1024, 1024):
            sys.exit(f"the cached cover is not a 1024 px image ({kind} {size}): {cover}")
        drawn = subprocess.run([brados, "--offline", "library", "show", "1001", "--art", "symbols"], env=env, check=True, capture_output=True,
                               text=True).stdout.split("\n")
        if len(drawn) < 41 or not all("\x1b[" in row for row in drawn[:40]) or "title" in "".join(drawn[:40]):
            sys.exit("brados did not draw a 40-row truecolor cover above the details")

        commands = {
            "brados library show --art symbols": [brados, "--offline", "library", "show", "1001", "--art", "symbols"],
            "brados library show --art none": [brados, "--offline", "library", "show", "1001", "--art", "none"],
            "chafa -f symbols -s 80x40": [chafa, "--format", "symbols", "--size", "80x40", "--colors", "full",
                                          "--symbols", "block+border+space", "--work", "5", "--animate", "off", cover],
        }
        samples = {name: [] for name in commands}
        for round_index in range(options.warmup + options.runs):
            names = list(commands)
            order = names[round_index % len(names):] + names[:round_index % len(names)]
            for name in order:
                elapsed = timed(commands[name], env)
                if round_index >= options.warmup:
                    samples[name].append(elapsed)
    finally:
        server.stop()

    med = {name: statistics.median(values) for name, values in samples.items()}
    show, none, peer = med["brados library show --art symbols"], med["brados library show --art none"], med["chafa -f symbols -s 80x40"]
    print(f"# covers: a 1024 px cover in symbols at 80x40 cells ({options.configuration}, {options.runs} rounds after "
          f"{options.warmup}, order rotated, {os.cpu_count()} cores)\n")
    print("| case | median | min – max |")
    print("|---|---|---|")
    for name, values in samples.items():
        print(f"| {name} | {med[name] * 1000:.1f} ms | {min(values) * 1000:.1f} – {max(values) * 1000:.1f} ms |")
    print()
    print(f"- the whole `library show` with the cover: {show * 1000:.1f} ms (goal <= 30 ms): {'met' if show <= 0.030 else 'NOT met'}")
    print(f"- the drawing itself (with the picture minus without): {(show - none) * 1000:.1f} ms")
    print(f"- brados library show / chafa: {show / peer:.2f}x (the whole command, its caches and details included)")
    print(f"- brados's drawing / chafa's whole process: {(show - none) / peer:.2f}x")


if __name__ == "__main__":
    main()
