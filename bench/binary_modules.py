#!/usr/bin/env python3
"""Where the release binary's bytes go, by module (issue 69's size question).

Reads the unstripped release binary's symbol table (`nm --print-size`) and gives each sized
symbol of the code and read-only data to the module its name says: a Swift symbol's mangled
module (`$s` + length + name; the standard library's `$ss`, `$sS…` and `$sSo` kinds as Swift),
ICU's C++ namespace and data (`icu_76::`, `icudt76_dat`), BoringSSL, SQLite, NIO's and
llhttp's C, and the Swift runtime's C++ (`swift::`, `__swift`). What no rule names is "other C
and C++". The stripped size (what ships) is the sections' sum, shown with the table.

    python3 bench/binary_modules.py [--binary .build/release/brados] [--top 30]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = ("t", "T", "r", "R", "d", "D", "b", "B")
# (pattern over the raw symbol, module), first match wins, for what is not a Swift symbol.
C_RULES = [
    (r"^icudt\d+_dat$", "ICU data (icudt)"),
    (r"^_ZN(?:K)?\d*icu_\d+|^_ZN\d+icu_\d+|icu_\d+|^u_|^ucal_|^udat_|^unum_|^ucol_|^ubrk_|^uloc_|^ures_|^ucnv_|^utrans_|^ulist_|^uset_", "ICU code"),
    (r"^CCryptoBoringSSL|^CNIOBoringSSL|boringssl|^BORINGSSL", "BoringSSL (swift-crypto, swift-nio-ssl)"),
    (r"^sqlite3", "SQLite"),
    (r"^c_nio|^CNIO|llhttp", "NIO's C"),
    (r"^_ZN5swift|^_ZNK5swift|^swift_|^_swift|^__swift|^\$ss|swift::", "Swift runtime (C++)"),
    (r"^_dispatch|^dispatch_|^_os_", "Dispatch"),
    (r"^_CF|^CF|^__CF", "CoreFoundation"),
    (r"^brados_|^CArchive|^archive_", "brados's C"),
]


def swift_module(symbol):
    """The module of a mangled Swift symbol, or None."""
    for prefix in ("$s", "_$s"):
        if symbol.startswith(prefix):
            rest = symbol[len(prefix):]
            break
    else:
        return None
    if rest.startswith("s") or rest.startswith("S"):
        # $ss… is the standard library; $sS<letter> are its standard substitutions (Array, Int…),
        # $sSo an imported C or Objective-C type: all Swift's own code and metadata.
        return "Swift (standard library)"
    match = re.match(r"(\d+)", rest)
    if not match:
        return None
    length = int(match.group(1))
    name = rest[len(match.group(1)):len(match.group(1)) + length]
    return name or None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "brados"))
    parser.add_argument("--top", type=int, default=30)
    options = parser.parse_args()
    if not os.path.exists(options.binary):
        sys.exit(f"binary_modules.py: no {options.binary}: make release first")
    listing = subprocess.run(["nm", "--print-size", "--size-sort", options.binary], capture_output=True, text=True, check=True).stdout
    sizes = collections.Counter()
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in SECTIONS:
            continue
        size, kind, symbol = int(parts[1], 16), parts[2], parts[3]
        module = swift_module(symbol)
        if module is None:
            module = next((name for pattern, name in C_RULES if re.search(pattern, symbol)), "other C and C++")
        sizes[module] += size
    sections = subprocess.run(["size", "-A", options.binary], capture_output=True, text=True, check=True).stdout
    allocated = 0
    for line in sections.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith(".") and not parts[0].startswith((".debug", ".comment", ".symtab", ".strtab")) and int(parts[2]) > 0:
            allocated += int(parts[1])
    total = sum(sizes.values())
    print(f"# the release binary by module ({os.path.relpath(options.binary, ROOT)}; sized symbols {total / 1e6:.1f} MB "
          f"of {allocated / 1e6:.1f} MB in its loaded sections)\n")
    print("| module | MB | share |")
    print("|---|---|---|")
    for module, size in sizes.most_common(options.top):
        print(f"| {module} | {size / 1e6:.2f} | {100 * size / total:.1f} % |")
    rest = total - sum(size for _, size in sizes.most_common(options.top))
    if rest:
        print(f"| the other {len(sizes) - options.top} modules | {rest / 1e6:.2f} | {100 * rest / total:.1f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
