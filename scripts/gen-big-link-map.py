#!/usr/bin/env python3
"""Writes a big link map (ld64 `-map` layout) for the memory benchmark (scripts/bench-malformed.sh).

    gen-big-link-map.py OUT [OBJECTS [SYMBOLS [NAMES_FILE]]]

OBJECTS object files (default 1,000,000), every fourth a loose object under one build
directory and the others members of 400 static archives, then SYMBOLS `# Symbols:` lines
(default OBJECTS / 2) with V8-like mangled names, spread over the objects in turn, and one
dead-stripped line per 16 objects. NAMES_FILE (one raw symbol name a line, e.g. the
`mangled` fields of `weakscan scan --by symbol --format json BINARY`) adds a symbol line for
each name, spread evenly over the objects, so that the map attributes the binary's symbols. The layout is that of testdata/origin/lld-x86_64.map (see src/origin/link_map.rs):
`0x%08X` numbers, `[%3u]` file numbers, tabs between fields. The default is about 93 MB.
Python 3 standard library only; nothing generated is committed.
"""
import sys


def main():
    out = sys.argv[1]
    objects = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    symbols = int(sys.argv[3]) if len(sys.argv) > 3 else objects // 2
    with open(out, "w", buffering=1 << 20) as f:
        w = f.write
        w("# Path: /build/out/Release/app\n# Arch: x86_64\n# Object files:\n")
        w("[  0] linker synthesized\n")
        for i in range(1, objects):
            if i % 4 == 0:
                w(f"[{i:3}] /build/out/Release/obj/src/dir{i % 97}/file{i}.o\n")
            else:
                w(f"[{i:3}] /build/out/Release/obj/lib{i % 400}.a(unit{i}.o)\n")
        w("# Sections:\n# Address\tSize    \tSegment\tSection\n")
        w("0x100001000\t0x40000000\t__TEXT\t__text\n")
        w("# Symbols:\n# Address\tSize    \tFile  Name\n")
        addr = 0x100001000
        for k in range(symbols):
            i = k % objects
            w(f"0x{addr:08X}\t0x00000010\t[{i:3}] __ZN2v88internal4Unit{i}E{k}EvEPv\n")
            addr += 16
        if len(sys.argv) > 4:
            with open(sys.argv[4]) as f_names:
                names = [n for n in f_names.read().split("\n") if n]
            for k, name in enumerate(names):
                i = 1 + k * (objects - 1) // max(len(names), 1)
                w(f"0x{addr:08X}\t0x00000010\t[{i:3}] {name}\n")
                addr += 16
        w("\n# Dead Stripped Symbols:\n#        \tSize    \tFile  Name\n")
        for i in range(0, objects, 16):
            w(f"<<dead>> \t0x00000008\t[{i:3}] __ZN4dead{i}Ev\n")


if __name__ == "__main__":
    main()
