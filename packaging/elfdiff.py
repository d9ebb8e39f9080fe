#!/usr/bin/env python3
"""Where two builds of one ELF binary differ: the bytes that differ in each section and, with
the unstripped binary's symbols, the functions of .text they fall in (make reproducible BINARY=1).

    packaging/elfdiff.py A B [--symbols UNSTRIPPED_A]
"""
import argparse
import bisect
import subprocess


def sections(path):
    out = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 6 and parts[0].startswith("[") and parts[0] != "[Nr]":
            try:
                found.append((parts[1], int(parts[3], 16), int(parts[4], 16), int(parts[5], 16)))
            except ValueError:
                pass
    return found  # name, address, offset, size


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--symbols", help="the unstripped binary A was made from, for function names")
    options = parser.parse_args()
    a, b = open(options.a, "rb").read(), open(options.b, "rb").read()
    if len(a) != len(b):
        print(f"sizes differ: {len(a)} and {len(b)} bytes")
    table = sections(options.a)
    counts, addresses = {}, []
    for index in (i for i in range(min(len(a), len(b))) if a[i] != b[i]):
        for name, address, offset, size in table:
            if offset <= index < offset + size:
                counts[name] = counts.get(name, 0) + 1
                if name == ".text":
                    addresses.append(address + index - offset)
                break
        else:
            counts["(headers)"] = counts.get("(headers)", 0) + 1
    sizes = {name: size for name, _, _, size in table}
    for name, count in sorted(counts.items(), key=lambda item: -item[1]):
        print(f"  {name}: {count} of {sizes.get(name, 0)} bytes differ")
    if addresses and options.symbols:
        out = subprocess.run(["nm", "--defined-only", "-n", "-C", options.symbols], capture_output=True, text=True).stdout
        symbols = [(int(line.split()[0], 16), line.split(None, 2)[2]) for line in out.splitlines() if len(line.split()) >= 3]
        starts = [address for address, _ in symbols]
        functions = {}
        for address in addresses:
            at = bisect.bisect_right(starts, address) - 1
            name = symbols[at][1] if at >= 0 else "?"
            functions[name] = functions.get(name, 0) + 1
        print(f"  .text differs in {len(functions)} function(s):")
        for name, count in sorted(functions.items(), key=lambda item: -item[1])[:20]:
            print(f"    {count:6} bytes  {name[:160]}")


if __name__ == "__main__":
    main()
