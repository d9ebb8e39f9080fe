#!/usr/bin/env python3
"""Instructions a brados start-up executes, by phase (issue 69): exact counts from callgrind.

Each command runs once under `valgrind --tool=callgrind` (a copy of the binary without its
DWARF: valgrind 3.19 cannot read Swift 6's), in a home the built-in demo backend filled once,
as bench/startup.py does. A count is the same on every run and under any load, so a change is
measured by one run before and one after (`--before DIR`: another build folder). Phases, from
the call graph's inclusive counts:

- before main: the kernel's exec is not counted; the dynamic loader, relocations and static
  initialisers are (everything outside `__libc_start_main`'s call of main)
- argument parsing: `ParsableCommand.parseAsRoot` (swift-argument-parser: the command tree,
  its reflection, the decode)
- the command: `CommandRunner.execute` (the environment, the read, the output)
- the rest of main: the composition, quick answers (`--version`), the signal watcher, exit
- of which conformance scans: the runtime's scans of every protocol-conformance record (the
  self counts of `swift_conformsToProtocolMaybeInstantiateSuperclasses` and its lambdas),
  whichever phase asked

    python3 bench/startup_instructions.py [--build-dir .build] [--before DIR] [-- COMMAND ...]
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_COMMANDS = ["--version", "exit-codes", "mealplan show", "--offline visits list", "--offline today",
                    "--offline plan show", "--offline search breakfast"]
LINE = re.compile(r"^\s*([\d,]+) \([\s\d.]+%\)\s+(.*?)(?: \[[^\]]*\])?$")


def annotate(out, inclusive):
    """Symbol -> count (the largest entry when recursion lists a symbol more than once)."""
    text = subprocess.run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", out],
                          capture_output=True, text=True, check=True).stdout
    counts = {}
    total = 0
    for line in text.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
            continue
        match = LINE.match(line)
        if not match:
            continue
        count, name = int(match.group(1).replace(",", "")), match.group(2)
        name = name.split(":", 1)[1] if name.startswith("???:") or name.startswith("./") else name
        name = re.sub(r"'\d+$", "", name)
        if inclusive:
            counts[name] = max(counts.get(name, 0), count)
        else:
            counts[name] = counts.get(name, 0) + count
    return total, counts


def measure(binary, arguments, env):
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, *arguments], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=600)
        total, inclusive = annotate(out, True)
        _, exclusive = annotate(out, False)

    def find(pattern, table=inclusive):
        return max((count for name, count in table.items() if re.search(pattern, name)), default=0)

    main = find(r"^brados_main$")
    parsing = find(r"\$s14ArgumentParser15ParsableCommandPAAE11parseAsRootyAaB_pSaySSGSgKFZ$|^static ParsableCommand\.parseAsRoot|parseAsRoot")
    command = find(r"CommandRunner.*execute|13CommandRunnerO7execute")
    scans = sum(count for name, count in exclusive.items() if "conformsToProtocolMaybeInstantiateSuperclasses" in name)
    return {"total": total, "before main": total - main, "argument parsing": parsing, "the command": command,
            "the rest of main": max(0, main - parsing - command), "conformance scans": scans}


def stripped_copy(build_dir, scratch, label):
    binary = os.path.join(build_dir, "release", "brados")
    if not os.path.exists(binary):
        sys.exit(f"startup_instructions.py: no {binary}: make release first")
    copy = os.path.join(scratch, f"brados-{label}")
    subprocess.run(["strip", "-g", "-o", copy, os.path.realpath(binary)], check=True)
    return copy


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, ".build"))
    parser.add_argument("--before", help="a build folder of the binary before a change, measured beside it")
    parser.add_argument("commands", nargs="*", default=DEFAULT_COMMANDS)
    options = parser.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("startup_instructions.py: needs valgrind (scripts/ensure-deps.sh bench)")
    with tempfile.TemporaryDirectory() as scratch:
        builds = [("after", stripped_copy(options.build_dir, scratch, "after"))]
        if options.before:
            builds.insert(0, ("before", stripped_copy(options.before, scratch, "before")))
        home = os.path.join(scratch, "home")
        env = {"HOME": home, "BRADOS_HOME": home, "PATH": "/usr/bin:/bin", "BRADOS_CREDENTIALS_STORE": "file"}
        # The caches, filled once by the newer binary (the demo backend, no server configured).
        for warm in (["mealplan", "show"], ["visits", "list"], ["today"], ["plan", "show"], ["search", "breakfast"]):
            subprocess.run([os.path.join(options.build_dir, "release", "brados"), *warm], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        phases = ["total", "before main", "argument parsing", "the command", "the rest of main", "conformance scans"]
        print("# start-up instructions (callgrind, one run each: counts do not vary)\n")
        header = "| command | build | " + " | ".join(phases) + " |"
        print(header)
        print("|" + "---|" * (len(phases) + 2))
        version = {}
        for command in options.commands:
            for label, binary in builds:
                counts = measure(binary, shlex.split(command), env)
                if command == "--version":
                    version[label] = counts["total"]
                ratio = f" ({counts['total'] / version[label]:.2f}x)" if label in version and command != "--version" else ""
                cells = [f"{counts[phase] / 1e6:.2f} M" + (ratio if phase == "total" else "") for phase in phases]
                print(f"| `brados {command}` | {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
