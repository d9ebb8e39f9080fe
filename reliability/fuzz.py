#!/usr/bin/env python3
"""Fuzzing (issue 11, suite 6): libFuzzer (`-sanitize=fuzzer`) on the parsers brados runs on
bytes it did not write: every domain's JSON cache decoder (mealplan, library, plan, and the
visits key-value store), the archive manifest parser, the archive reader, the reference
server's query and header parsing (`server`: PostgREST filters, order, select, Range), and the
response headers brados reads (`headers`: Retry-After), and the terminal filter every server
string goes through (`text`: SafeText).

Builds `brados-fuzz` with BRADOS_FUZZ=1 into its own scratch folder (.build-fuzz: the fuzzed
modules are compiled with coverage instrumentation; `--fuzz-build-dir .build`, as the CI
subset does, shares the dependencies already built there, so only brados's own modules are
compiled again, instrumented, and the next plain build compiles them again), seeds each target with real files
(a profile filled from brados-server, and an export of it), runs libFuzzer, and reports the
iterations run and the crashes found. Crash inputs are kept in reliability/fuzz-crashes/.

    python3 reliability/fuzz.py [--runs 1000000] [--targets manifest,archive,...] [--build-dir .build]
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, ROOT, Binaries, Profile, Server, Tally  # noqa: E402

TARGETS = ["manifest", "archive", "mealplan", "library", "plan", "visits", "server", "headers", "text", "age"]
# The age target's key, compiled into brados-fuzz (C2SP's test-vector identity).
AGE_IDENTITY = "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0"
# The post-quantum key BradosFuzz.swift decrypts with too (C2SP's hybrid vectors' identity).
AGE_PQ_IDENTITY = "AGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG"

# Requests as Supabase's clients send them (target line, then headers), and header values.
SERVER_SEEDS = [
    "/rest/v1/conversations?select=id,title,updated_at&user_id=eq.8f5c2a64-0d7e-4a53-9d51-3f0c8d0b7a11&order=updated_at.desc.nullslast\nRange: 0-99\nPrefer: count=exact",
    "/rest/v1/messages?conversation_id=in.(a,b)&created_at=gte.2026-11-01T00:00:00Z&limit=50&offset=10\nRange-Unit: items",
    "/rest/v1/context_profiles?title=not.ilike.*x*&message_count=lt.5\nRange: 0-9223372036854775807",
]
HEADER_SEEDS = ["120", "0.5", "1e20", "inf", "99999999999999999999"]
TEXT_SEEDS = ["Riverside Dental", "\x1b[1mbold\x1b[0m", "\x1b]52;c;b3duZWQ=\x07", "\x9b31m\u202e", "\x1bm"]


def seeds(binaries, corpus):
    """Real inputs for every target, from a profile filled by brados-server and exported."""
    with Server(binaries) as server:
        profile = Profile(binaries, server)
        try:
            profile.login()
            for command in (["mealplan", "show"], ["library", "albums"], ["plan", "show"], ["visits", "list"]):
                profile.must(*command)
            cache = os.path.join(profile.home, "cache", "users", "default")
            data = os.path.join(profile.home, "data", "users", "default")
            copies = {
                "mealplan": glob.glob(os.path.join(cache, "mealplan", "*.json")),
                "plan": glob.glob(os.path.join(cache, "plan", "*.json")),
                "library": glob.glob(os.path.join(data, "library", "*.json")) + glob.glob(os.path.join(cache, "library", "*.json")),
                "visits": [os.path.join(data, "visits", "visits.json")],
            }
            archives = []
            for compression in ("tar.gz", "tar.zst"):
                path = os.path.join(profile.home, f"seed.{compression}")
                profile.must("cache", "export", "--format", compression, "--domains", "mealplan,plan,visits", "-o", path)
                archives.append(path)
            copies["archive"] = archives
            # Encrypted to the fuzz key (binary and armored) and with the passphrase "fuzz".
            key = os.path.join(profile.home, "fuzz-key.txt")
            with open(key, "w") as handle:
                handle.write(AGE_IDENTITY + "\n")
            recipient = subprocess.run(["age-keygen", "-y", key], check=True, capture_output=True, text=True).stdout.strip()
            # The post-quantum key's recipient, as brados derives it (keys show of a home holding it).
            pq_home = os.path.join(profile.home, "pq-key-home")
            os.makedirs(os.path.join(pq_home, "config", "keys"))
            with open(os.path.join(pq_home, "config", "keys", "default.txt"), "w") as handle:
                handle.write(AGE_PQ_IDENTITY + "\n")
            pq_recipient = subprocess.run([binaries.brados, "keys", "show"], check=True, capture_output=True, text=True,
                                          env=dict(profile.env, BRADOS_HOME=pq_home, HOME=pq_home)).stdout.strip()
            encrypted = []
            for index, flags in enumerate((["--recipient", recipient], ["--recipient", recipient, "--armor"], ["--passphrase-stdin"],
                                           ["--recipient", pq_recipient])):
                path = os.path.join(profile.home, f"seed-{index}.age")
                subprocess.run([binaries.brados, "cache", "export", "--domains", "mealplan", "-o", path] + flags, check=True,
                               input="fuzz\n", text=True, capture_output=True,
                               env=dict(profile.env, BRADOS_ARCHIVE_SCRYPT_WORK_FACTOR="10"))
                encrypted.append(path)
            copies["age"] = encrypted
            with tarfile.open(archives[0], "r:gz") as tar:
                manifest = tar.extractfile("manifest.json").read()
            for target, files in copies.items():
                os.makedirs(os.path.join(corpus, target), exist_ok=True)
                for index, path in enumerate(files):
                    if os.path.isfile(path):
                        shutil.copy(path, os.path.join(corpus, target, f"seed-{index}"))
            for target, texts in (("server", SERVER_SEEDS), ("headers", HEADER_SEEDS), ("text", TEXT_SEEDS)):
                os.makedirs(os.path.join(corpus, target), exist_ok=True)
                for index, text in enumerate(texts):
                    with open(os.path.join(corpus, target, f"seed-{index}"), "w") as handle:
                        handle.write(text)
            os.makedirs(os.path.join(corpus, "manifest"), exist_ok=True)
            with open(os.path.join(corpus, "manifest", "seed-0"), "wb") as handle:
                handle.write(manifest)
        finally:
            profile.remove()


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--runs", type=int, default=1_000_000, help="iterations per target")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--fuzz-build-dir", default=".build-fuzz")
    parser.add_argument("--no-build", action="store_true")
    options = parser.parse_args()
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("fuzz")
    if not options.no_build:
        started = time.monotonic()
        subprocess.run(["swift", "build", "--product", "brados-fuzz", "--scratch-path", options.fuzz_build_dir],
                       cwd=ROOT, check=True, env=dict(os.environ, BRADOS_FUZZ="1"), stdout=subprocess.DEVNULL)
        tally.figures["build s"] = round(time.monotonic() - started)
    fuzzer = os.path.join(ROOT, options.fuzz_build_dir, "debug", "brados-fuzz")
    crashes_dir = os.path.join(ROOT, "reliability", "fuzz-crashes")
    work = tempfile.mkdtemp(prefix="brados-fuzz-")
    iterations = {}
    try:
        corpus = os.path.join(work, "corpus")
        seeds(binaries, corpus)
        for target in options.targets.split(","):
            artifacts = os.path.join(work, "artifacts", target) + "/"
            os.makedirs(artifacts)
            folder = os.path.join(corpus, target)
            os.makedirs(folder, exist_ok=True)
            result = subprocess.run([fuzzer, target, f"-runs={options.runs}", "-max_len=262144", "-timeout=20",
                                     "-rss_limit_mb=4096", "-print_final_stats=1", f"-artifact_prefix={artifacts}", folder],
                                    capture_output=True, text=True)
            log = result.stderr
            done = re.search(r"Done (\d+) runs in (\d+) second", log)
            executed = re.search(r"stat::number_of_executed_units:\s*(\d+)", log)
            count = int(done.group(1)) if done else int(executed.group(1)) if executed else 0
            iterations[target] = count
            found = os.listdir(artifacts)
            if result.returncode != 0 or found:
                os.makedirs(crashes_dir, exist_ok=True)
                for name in found:
                    shutil.copy(os.path.join(artifacts, name), os.path.join(crashes_dir, f"{target}-{name}"))
                summary = next((line for line in log.splitlines() if "ERROR" in line or "Fatal error" in line or "crashed" in line), log[-300:])
                tally.fail(f"{target}: exit {result.returncode} after {count} runs: {summary.strip()[:300]} (inputs in reliability/fuzz-crashes/)")
            else:
                tally.ok()
            print(f"  {target}: {count} runs, exit {result.returncode}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tally.figures["iterations"] = iterations
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
