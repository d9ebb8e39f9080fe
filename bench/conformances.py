#!/usr/bin/env python3
"""The Swift runtime's protocol-conformance lookups a brados command makes (issue 69).

Every first lookup of a (type, protocol) pair scans all conformance records of the binary
(~12,800 in a release brados); later ones hit the runtime's cache. This runs each command
under gdb with a breakpoint on the runtime's three entry points (swift_conformsToProtocol,
…Common, …WithExecutionContext), reads each call's type (its nominal type's name; generic
arguments left out) and protocol from the metadata, and reports the calls, the distinct pairs
(about the scans) and the pairs by protocol. The breakpoints make the run slow; the counts
are exact.

    python3 bench/conformances.py [--build-dir .build] [--configuration release] [--home DIR] [--list [--stacks]] [-- COMMAND ...]

COMMAND is a quoted command line (default: "--version", "exit-codes", "mealplan show").
"""
import argparse
import collections
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GDB_SCRIPT = r'''
import gdb
seen = []
firsts = set()
def rd(addr, n, signed=False):
    return int.from_bytes(gdb.selected_inferior().read_memory(addr, n).tobytes(), "little", signed=signed)
def cstr(addr):
    return gdb.parse_and_eval(f"(char*){addr}").string()
def relname(desc):
    return cstr(desc + 8 + rd(desc + 8, 4, True))
KINDS = {0x300: "opaque", 0x301: "tuple", 0x302: "function", 0x303: "existential", 0x304: "metatype",
         0x305: "existential metatype", 0x306: "extended existential"}
def typename(md):
    kind = rd(md, 8)
    if kind in (0x200, 0x201, 0x202):
        return relname(rd(md + 8, 8))
    if kind > 0x7FF or kind == 0:
        return relname(rd(md + 40, 8))
    return "(" + KINDS.get(kind, hex(kind)) + ")"
class Lookup(gdb.Breakpoint):
    def stop(self):
        try:
            md, pd = int(gdb.parse_and_eval("$rdi")), int(gdb.parse_and_eval("$rsi"))
            frames = []
            if (md, pd) not in firsts:
                firsts.add((md, pd))
                frame = gdb.newest_frame().older()
                while frame is not None and len(frames) < 40:
                    frames.append(frame.name() or "?")
                    frame = frame.older()
            seen.append(f"{typename(md)}\t{relname(pd)}\t{md:x}\t" + " | ".join(frames))
        except Exception:
            seen.append("?\t?\t?\t")
        return False
gdb.execute("break main")
gdb.execute("run")
for name in ["swift_conformsToProtocolWithExecutionContext", "swift_conformsToProtocolCommon", "swift_conformsToProtocol"]:
    Lookup("*" + name)
gdb.execute("continue")
with open(OUT, "w") as handle:
    handle.write("\n".join(seen))
'''


def lookups(binary, arguments, env):
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "lookups.tsv")
        script = os.path.join(scratch, "lookups.py")
        with open(script, "w") as handle:
            handle.write(f"OUT = {out!r}\n" + GDB_SCRIPT)
        subprocess.run(["gdb", "-q", "-batch", "-x", script, "--args", binary, *arguments], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        with open(out) as handle:
            return [tuple(line.split("\t")) for line in handle.read().splitlines() if line]


# Frames of the runtime and of the casts themselves, skipped to name the Swift code that asked.
RUNTIME_FRAME = re.compile(r"^(swift::|swift_|\(anonymous|tryCast|__swift|std::|_swift|dynamic_cast|type metadata|__|getSuperclass|"
                           r"_gather|_check|\?|outlined|partial apply|thunk|specialized thunk|lazy protocol witness|protocol witness for)")


def callers(stack, depth=3):
    """The first `depth` frames of `stack` (as gdb names them, mangled) outside the runtime, demangled."""
    names = [name for name in stack.split(" | ") if name]
    if not names:
        return ""
    plain = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
    frames = [re.sub(r"^specialized ", "", name) for name in plain if name and not RUNTIME_FRAME.match(name)]
    return " <- ".join(frame[:80] for frame in frames[:depth])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--configuration", default="release")
    parser.add_argument("--home", help="a BRADOS_HOME with warm caches (default: a new one, filled by the demo backend)")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--list", action="store_true", help="also list every distinct pair, in the order first looked up")
    parser.add_argument("--stacks", action="store_true", help="with --list: each first lookup's nearest Swift callers (what to change)")
    parser.add_argument("commands", nargs="*", default=["--version", "exit-codes", "mealplan show"])
    options = parser.parse_args()
    binary = os.path.join(ROOT, options.build_dir, options.configuration, "brados")
    home = options.home or tempfile.mkdtemp(prefix="brados-conformances-")
    env = {"HOME": home, "BRADOS_HOME": home, "PATH": "/usr/bin:/bin", "BRADOS_CREDENTIALS_STORE": "file"}
    if not options.home:
        subprocess.run([binary, "mealplan", "show"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    print("# conformance lookups by command (gdb on the runtime's entry points)\n")
    print("| command | lookups | distinct (type, protocol) pairs: first lookups, each a scan | by protocol (distinct pairs) |")
    print("|---|---|---|---|")
    listed = []
    for command in options.commands:
        # A pair is a type's metadata and a protocol, as the runtime caches it (two
        # instantiations of one generic type are two pairs, shown under one name).
        rows = lookups(binary, shlex.split(command), env)
        calls = [row[:3] for row in rows]
        stacks = {row[:3]: row[3] for row in rows if len(row) > 3 and row[3]}
        pairs = set(calls)
        by_protocol = collections.Counter(protocol for _, protocol, _ in pairs)
        top = ", ".join(f"{name} {count}" for name, count in by_protocol.most_common(options.top))
        print(f"| `brados {command}` | {len(calls)} | {len(pairs)} | {top} |")
        if options.list:
            ordered = list(dict.fromkeys(calls))
            if options.stacks:
                listed.append(f"\n`brados {command}`:\n" + "\n".join(
                    f"- {kind}: {protocol} ({callers(stacks.get((kind, protocol, md), ''))})" for kind, protocol, md in ordered))
            else:
                listed.append(f"\n`brados {command}`: " + "; ".join(f"{kind}: {protocol}" for kind, protocol, _ in ordered))
    for line in listed:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
