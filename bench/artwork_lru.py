#!/usr/bin/env python3
"""The artwork cache (core BlobStore) vs python diskcache on the same workload (issue 5).

Workload: 5,000 blobs of 40-400 KB (uniform), put once each, then zipf-distributed reads
(s = 1.1) where a miss puts the blob again, as an artwork fetch would; 250 MB cap.
diskcache: Cache(size_limit=250 MB, eviction_policy='least-recently-used').
Figures: put and get operations per second, hit rate, peak disk use, cap violations.
The Swift side runs twice: as the product runs (64 MB memory tier) and disk only.

    python3 bench/artwork_lru.py [--blobs 5000] [--reads 20000] [--cap-mb 250] [--no-build]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def disk_bytes(path):
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:
                pass
    return total


def workload(blobs, reads, seed=42):
    rng = random.Random(seed)
    sizes = [rng.randint(40_000, 400_000) for _ in range(blobs)]
    weights = [1.0 / (rank ** 1.1) for rank in range(1, blobs + 1)]
    order = list(range(blobs))
    rng.shuffle(order)  # popularity is not correlated with insertion order
    reads_keys = rng.choices(order, weights=weights, k=reads)
    lines = [f"put {key} {sizes[key]}" for key in range(blobs)] + [f"get {key} {sizes[key]}" for key in reads_keys]
    return sizes, lines


def run_diskcache(directory, lines, cap):
    import diskcache
    pool = os.urandom(401_000)
    signature = b"\x89PNG\r\n\x1a\n"
    cache = diskcache.Cache(directory, size_limit=cap, eviction_policy="least-recently-used")
    put_seconds = get_seconds = 0.0
    puts = gets = hits = over = 0
    peak = 0
    for index, line in enumerate(lines):
        op, key, size = line.split()
        key, size = int(key), int(size)
        if op == "put":
            data = signature + pool[key % 1000: key % 1000 + size - 8]
            start = time.perf_counter()
            cache.set(key, data)
            put_seconds += time.perf_counter() - start
            puts += 1
        else:
            start = time.perf_counter()
            value = cache.get(key)
            get_seconds += time.perf_counter() - start
            gets += 1
            if value is not None:
                hits += 1
            else:
                data = signature + pool[key % 1000: key % 1000 + size - 8]
                start = time.perf_counter()
                cache.set(key, data)
                put_seconds += time.perf_counter() - start
                puts += 1
        if index % 100 == 0:
            used = disk_bytes(directory)
            peak = max(peak, used)
            if cache.volume() > cap:
                over += 1
    cache.close()
    return {"puts": puts, "putSeconds": put_seconds, "gets": gets, "getSeconds": get_seconds, "hits": hits,
            "peakBytes": peak, "checkpointsOverCap": over}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blobs", type=int, default=5000)
    parser.add_argument("--reads", type=int, default=20000)
    parser.add_argument("--cap-mb", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds (A B C, B C A, ...); medians reported")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build", help="SwiftPM scratch path (default .build)")
    options = parser.parse_args()
    try:
        import diskcache  # noqa: F401
    except ImportError:
        sys.exit("diskcache is not installed: scripts/ensure-deps.sh bench installs it (pip)")
    if not options.no_build:
        subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", "PRODUCT=brados-bench"], cwd=ROOT, check=True)
    bench = os.path.join(ROOT, options.build_dir, options.configuration, "brados-bench")
    cap = options.cap_mb * 1_000_000
    _, lines = workload(options.blobs, options.reads)
    work = tempfile.mkdtemp(prefix="brados-lru-")
    try:
        workload_file = os.path.join(work, "workload.txt")
        with open(workload_file, "w") as handle:
            handle.write("\n".join(lines))
        cases = [("brados BlobStore (64 MB memory + disk)", 64 << 20), ("brados BlobStore (disk only)", 0), ("python diskcache (LRU)", None)]
        runs = {name: [] for name, _ in cases}
        for round_index in range(options.rounds):
            order = cases[round_index % 3:] + cases[:round_index % 3]
            for name, memory in order:
                directory = os.path.join(work, f"round{round_index}-{len(runs[name])}-{name.split()[0]}")
                if memory is None:
                    result = run_diskcache(directory, lines, cap)
                else:
                    out = subprocess.run([bench, "blobcache", directory, workload_file, str(cap), str(memory)],
                                         check=True, capture_output=True, text=True).stdout
                    result = json.loads(out)
                runs[name].append(result)
                shutil.rmtree(directory, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    import statistics

    def rate(result, kind):
        return result[kind + "s"] / result[kind + "Seconds"]

    def median_rate(name, kind):
        return statistics.median(rate(r, kind) for r in runs[name])

    peer = "python diskcache (LRU)"
    print(f"# artwork LRU: {options.blobs} blobs of 40-400 KB, {options.reads} zipf reads, {options.cap_mb} MB cap, "
          f"{options.rounds} alternated rounds, {os.cpu_count()} cores\n")
    print("| cache | put ops/s median (min-max) | get ops/s median (min-max) | hit rate | peak indexed | checkpoints over cap | put ratio | get ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name, results in runs.items():
        puts = [rate(r, "put") for r in results]
        gets = [rate(r, "get") for r in results]
        print(f"| {name} | {statistics.median(puts):,.0f} ({min(puts):,.0f}-{max(puts):,.0f}) | "
              f"{statistics.median(gets):,.0f} ({min(gets):,.0f}-{max(gets):,.0f}) | "
              f"{results[0]['hits'] / max(1, results[0]['gets']):.1%} | {max(r['peakBytes'] for r in results) / 1e6:.1f} MB | "
              f"{sum(r['checkpointsOverCap'] for r in results)} | {median_rate(name, 'put') / median_rate(peer, 'put'):.2f}x | "
              f"{median_rate(name, 'get') / median_rate(peer, 'get'):.2f}x |")
    for name, results in runs.items():
        if "indexMatchesDisk" in results[0]:
            print(f"\n- {name}: index matched the files on disk in every round: {all(r['indexMatchesDisk'] for r in results)}")


if __name__ == "__main__":
    main()
