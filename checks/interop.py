"""What the interop checks (check-plexapi.py, check-supabase.py, check-age-pq.py) share: their
options, the "not installed" exit, and the ok/FAIL lines with their total and exit status."""
import argparse
import sys


def options(doc):
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--configuration", default="debug")
    return parser.parse_args()


def not_installed(name, source="pip"):
    sys.exit(f"{name} is not installed: scripts/ensure-deps.sh all installs it ({source})")


class Checks:
    """Call it with a name and a condition: prints ok or FAIL; finish() prints the total and exits."""

    def __init__(self):
        self.results = []

    def __call__(self, name, condition):
        self.results.append((name, bool(condition)))
        print(("ok   " if condition else "FAIL ") + name)

    def finish(self):
        failed = [name for name, passed in self.results if not passed]
        print(f"{len(self.results) - len(failed)} passed, {len(failed)} failed")
        sys.exit(1 if failed else 0)
