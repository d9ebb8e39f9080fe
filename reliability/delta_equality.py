#!/usr/bin/env python3
"""Delta equality: the coach's and the library's delta refreshes keep a copy equal to the server's.

Runs the randomized end-to-end tests with --rounds rounds each:
- Tests/EndToEndTests/CoachDeltaEndToEndTests.swift: each round makes 0-5 random changes on a
  brados-server process through /_admin/sql (new conversations, renames, deleted
  conversations, new messages, messages that arrive late with an older created_at, deleted
  messages), then runs the built brados's `coach conversations` and `coach show` on three
  conversations and compares each with the server's rows (ids, titles or contents, order);
- Tests/EndToEndTests/LibraryDeltaEndToEndTests.swift: 0-4 random adds, retitles, deletes
  and no-op touches through /_admin/plex, then `library albums --refresh` against the
  server's listing (rating keys, titles, order).
`make test` runs 25 rounds of each; the full run 200.

Figures: rounds, and the expectations that failed (goal 0).

    python3 reliability/delta_equality.py [--rounds 200] [--build-dir .build]
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ROOT, suite_parser, Tally  # noqa: E402


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=200)
    options = parser.parse_args()
    tally = Tally("delta_equality")
    # The test target is built in debug by `swift build --build-tests` (make test), whatever
    # configuration the other suites use.
    environment = dict(os.environ, BRADOS_DELTA_ROUNDS=str(options.rounds))
    result = subprocess.run(["swift", "test", "--skip-build", "--scratch-path", options.build_dir, "--filter", "CoachDeltaEndToEndTests/randomized|LibraryDeltaEndToEndTests/randomized"],
                            cwd=ROOT, env=environment, capture_output=True, text=True)
    output = result.stdout + result.stderr
    failed = [line.strip() for line in output.splitlines() if "Expectation failed" in line or "recorded an issue" in line]
    passed = re.search(r"Test run with 2 tests .* passed", output) is not None
    if result.returncode != 0 and not failed:
        failed = [f"swift test exited {result.returncode}: {output[-400:]}"]
    tally.runs = 2 * options.rounds
    for failure in failed:
        tally.failures.append(failure[:300])
    if not passed and not failed:
        tally.failures.append("the test did not run (build with `make test` first)")
    tally.figures["rounds"] = options.rounds
    print(json.dumps(tally.report()))


if __name__ == "__main__":
    main()
