#!/usr/bin/env python3
"""`brados cache export|import` vs tar on the same generated cache (issue 8).

The cache (~250 MB) is made by brados's own code: an artwork cache of incompressible
40-400 KB blobs filled to its 250 MB cap (brados-bench blobcache), a coach database of
100,000 messages (brados-bench coach-list), and some JSON documents. Cases, alternated
over rounds after a warm-up:

  export gzip   `brados cache export --format tar.gz`  vs `tar -czf` of the profile's folders
  export zstd   `brados cache export` (the default)     vs `tar -czf` and `tar --zstd -cf`
  import        `brados cache import --as P` (full verification) vs `tar -xf` of tar's archive
  age export    `brados cache export --recipient age1…` vs the same unencrypted, and vs the
                pipeline `tar --zstd -cf - … | age -r age1…` (issue 20); also a first export,
                with no hash cache (every file read twice: hashed for the manifest, then written)
  age import    `brados cache import` of that archive (the profile's key) vs the unencrypted
                import; `age -d -i KEY | tar --zstd -xf -` for reference
  post-quantum  the same export and import to and from a post-quantum key (`keys generate
                --post-quantum`, issue 46) vs the X25519 ones

Goals: gzip export <= 1.0x tar -czf; zstd export <= 0.3x tar -czf; import <= 1.2x tar -xf;
encrypted export and import <= 1.15x unencrypted, encrypted export <= 1.0x the age pipeline;
post-quantum export and import <= 1.02x X25519's (the key exchange happens once per file).

    python3 bench/cache_archive.py [--rounds 5] [--no-build] [--build-dir DIR]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from common import require  # bench/common.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(args, **kwargs):
    # Untimed: what the previous case left dirty is written back now, so it does not land in
    # this case's time (brados fsyncs what it imports, and on ext4 an fsync also commits other
    # files' pending data: tar's extraction, just before, made the ratio swing 0.9x-1.5x).
    os.sync()
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cap-mb", type=int, default=250)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build")
    options = parser.parse_args()
    for tool in ("zstd", "age"):
        require(tool)
    if not options.no_build:
        for product in ("brados", "brados-bench"):
            subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", f"PRODUCT={product}"], cwd=ROOT, check=True)
    release = os.path.join(ROOT, options.build_dir, options.configuration)
    brados, bench = os.path.join(release, "brados"), os.path.join(release, "brados-bench")
    work = tempfile.mkdtemp(prefix="brados-archive-bench-")
    try:
        home = os.path.join(work, "home")
        env = dict(os.environ, BRADOS_HOME=home, BRADOS_OFFLINE="1", NO_COLOR="1")
        profile_cache = os.path.join(home, "cache", "users", "default")
        profile_data = os.path.join(home, "data", "users", "default")
        # The cache, made by brados's own code.
        workload = os.path.join(work, "puts.txt")
        import random
        rng = random.Random(7)
        with open(workload, "w") as handle:
            handle.write("\n".join(f"put {key} {rng.randint(40_000, 400_000)}" for key in range(1400)))
        subprocess.run([bench, "blobcache", os.path.join(profile_cache, "library", "artwork"), workload,
                        str(options.cap_mb * 1_000_000), "0"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([bench, "coach-list", os.path.join(profile_data, "coach", "coach.sqlite"), "50", "2000"], check=True,
                       stdout=subprocess.DEVNULL)
        for index in range(20):
            path = os.path.join(profile_cache, "mealplan", f"doc-{index}.json")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write('{"meals": [' + ",".join(f'{{"day": {d}, "name": "meal {d} of {index}"}}' for d in range(400)) + "]}")
        size = sum(os.path.getsize(os.path.join(folder, name)) for base in (profile_cache, profile_data)
                   for folder, _, names in os.walk(base) for name in names)
        tar_sources = ["-C", home, "cache/users/default", "data/users/default"]

        # The profile's age key: the encrypted export goes to it, the import opens with it.
        recipient = subprocess.run([brados, "keys", "generate"], env=env, check=True, capture_output=True, text=True).stdout.strip()
        key_file = os.path.join(home, "config", "keys", "default.txt")
        # A post-quantum key of another home: exported to with --recipient, imported with --identity.
        pq_home = os.path.join(work, "pq-home")
        pq_recipient = subprocess.run([brados, "keys", "generate", "--post-quantum"], env=dict(env, BRADOS_HOME=pq_home, HOME=pq_home),
                                      check=True, capture_output=True, text=True).stdout.strip()
        pq_key_file = os.path.join(pq_home, "config", "keys", "default.txt")
        results = {name: [] for name in ("brados export tar.gz", "tar -czf", "brados export tar.zst", "tar --zstd -cf",
                                         "brados import (verified)", "tar -xf", "brados export tar.zst.age",
                                         "tar --zstd -cf - | age -r", "brados import tar.zst.age (verified)",
                                         "brados export tar.zst.age, first (no hash cache)",
                                         "age -d | tar --zstd -xf -", "brados export tar.zst.age (post-quantum)",
                                         "brados import tar.zst.age (post-quantum, verified)")}
        tar_list = " ".join(tar_sources)
        # An export keeps the SHA-256 of files that have not changed since (like borg's files
        # cache); the "first" case removes it, as for a cache never exported before.
        hashes = os.path.join(profile_cache, ".export-hashes.json")

        def forget_hashes():
            if os.path.exists(hashes):
                os.remove(hashes)
        for round_index in range(options.rounds + 1):
            out = os.path.join(work, f"r{round_index}")
            os.makedirs(out)
            cases = [
                ("brados export tar.gz", lambda: timed([brados, "cache", "export", "-o", f"{out}/b.tar.gz", "--format", "tar.gz"], env=env)),
                ("tar -czf", lambda: timed(["tar", "-czf", f"{out}/t.tar.gz"] + tar_sources)),
                ("brados export tar.zst", lambda: timed([brados, "cache", "export", "-o", f"{out}/b.tar.zst"], env=env)),
                ("tar --zstd -cf", lambda: timed(["tar", "--zstd", "-cf", f"{out}/t.tar.zst"] + tar_sources)),
                ("brados export tar.zst.age", lambda: timed([brados, "cache", "export", "-o", f"{out}/b.tar.zst.age", "--recipient", recipient], env=env)),
                ("brados export tar.zst.age, first (no hash cache)", lambda: forget_hashes() or timed(
                    [brados, "cache", "export", "-o", f"{out}/c.tar.zst.age", "--recipient", recipient], env=env)),
                ("tar --zstd -cf - | age -r", lambda: timed(["bash", "-o", "pipefail", "-c", f"tar --zstd -cf - {tar_list} | age -r {recipient} -o {out}/t.tar.zst.age"])),
                ("brados export tar.zst.age (post-quantum)", lambda: timed(
                    [brados, "cache", "export", "-o", f"{out}/pq.tar.zst.age", "--recipient", pq_recipient], env=env)),
            ]
            if round_index % 2:
                cases.reverse()
            timings = {name: run() for name, run in cases}
            imports = [
                ("brados import (verified)", lambda: timed([brados, "cache", "import", f"{out}/b.tar.zst", "--as", f"copy{round_index}"], env=env)),
                ("tar -xf", lambda: timed(["tar", "-xf", f"{out}/t.tar.zst", "-C", os.makedirs(f"{out}/x") or f"{out}/x"])),
                ("brados import tar.zst.age (verified)", lambda: timed([brados, "cache", "import", f"{out}/b.tar.zst.age", "--as", f"copyage{round_index}"], env=env)),
                ("age -d | tar --zstd -xf -", lambda: timed(["bash", "-o", "pipefail", "-c", f"age -d -i {key_file} {out}/t.tar.zst.age | tar --zstd -xf - -C " + (os.makedirs(f"{out}/y") or f"{out}/y")])),
                ("brados import tar.zst.age (post-quantum, verified)", lambda: timed(
                    [brados, "cache", "import", f"{out}/pq.tar.zst.age", "--as", f"copypq{round_index}", "--identity", pq_key_file], env=env)),
            ]
            if round_index % 2:
                imports.reverse()
            timings.update({name: run() for name, run in imports})
            if round_index > 0:
                for name, seconds in timings.items():
                    results[name].append(seconds)
            shutil.rmtree(out)
            for folder in ("cache", "data"):
                for copy in (f"copy{round_index}", f"copyage{round_index}", f"copypq{round_index}"):
                    shutil.rmtree(os.path.join(home, folder, "users", copy), ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    med = {name: statistics.median(samples) for name, samples in results.items()}
    print(f"# cache archive: {size / 1e6:.0f} MB cache (artwork, coach database, JSON), {options.rounds} alternated rounds "
          f"after a warm-up, {os.cpu_count()} cores\n")
    print("| case | median s (min-max) | ratio | goal |")
    print("|---|---|---|---|")
    rows = [
        ("brados export tar.gz", med["brados export tar.gz"] / med["tar -czf"], "<= 1.0x tar -czf"),
        ("tar -czf", 1.0, ""),
        ("brados export tar.zst", med["brados export tar.zst"] / med["tar -czf"], "<= 0.3x tar -czf"),
        ("tar --zstd -cf", med["tar --zstd -cf"] / med["tar -czf"], ""),
        ("brados import (verified)", med["brados import (verified)"] / med["tar -xf"], "<= 1.2x tar -xf"),
        ("tar -xf", 1.0, ""),
    ]
    for name, ratio, goal in rows:
        samples = results[name]
        print(f"| {name} | {med[name]:.2f} ({min(samples):.2f}-{max(samples):.2f}) | {ratio:.2f}x | {goal} |")

    print("\nage encryption (issue 20), the same cache and rounds:\n")
    print("| case | median s (min-max) | ratio | goal |")
    print("|---|---|---|---|")
    rows = [
        ("brados export tar.zst.age", med["brados export tar.zst.age"] / med["brados export tar.zst"], "<= 1.15x brados export tar.zst"),
        ("brados export tar.zst.age", med["brados export tar.zst.age"] / med["tar --zstd -cf - | age -r"], "<= 1.0x tar --zstd -cf - | age -r"),
        ("brados export tar.zst.age, first (no hash cache)", med["brados export tar.zst.age, first (no hash cache)"] / med["tar --zstd -cf - | age -r"],
         "(every file hashed: no earlier export)"),
        ("tar --zstd -cf - | age -r", 1.0, ""),
        ("brados import tar.zst.age (verified)", med["brados import tar.zst.age (verified)"] / med["brados import (verified)"],
         "<= 1.15x brados import (verified)"),
        ("age -d | tar --zstd -xf -", med["age -d | tar --zstd -xf -"] / med["brados import (verified)"], "(reference: no verification)"),
        ("brados export tar.zst.age (post-quantum)", med["brados export tar.zst.age (post-quantum)"] / med["brados export tar.zst.age"],
         "<= 1.02x brados export tar.zst.age (X25519)"),
        ("brados import tar.zst.age (post-quantum, verified)",
         med["brados import tar.zst.age (post-quantum, verified)"] / med["brados import tar.zst.age (verified)"],
         "<= 1.02x brados import tar.zst.age (X25519)"),
    ]
    for name, ratio, goal in rows:
        samples = results[name]
        print(f"| {name} | {med[name]:.2f} ({min(samples):.2f}-{max(samples):.2f}) | {ratio:.2f}x | {goal} |")


if __name__ == "__main__":
    main()
