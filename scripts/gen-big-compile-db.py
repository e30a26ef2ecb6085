#!/usr/bin/env python3
"""Writes a large clang compilation database (compile_commands.json) for the memory benchmark
of `scan --compile-commands` (scripts/bench-malformed.sh).

Not committed output: it is generated at benchmark time. ENTRIES entries (default 1,000,000,
about 180 MB), shaped like the writers weakscan reads: three in four as ninja/CMake write them
(`command` and `output`, one target directory per 50 sources), one in four as Bear writes them
(`arguments`, no `output`); every source path is distinct, in 1000 directories, every fourth
translation unit compiled with -fvisibility=hidden.

usage: gen-big-compile-db.py OUT [ENTRIES]
"""
import json
import sys


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    with open(out, "w") as f:
        f.write("[\n")
        for i in range(n):
            src = f"../src/d{i % 1000}/f{i}.cc"
            obj = f"obj/t{i // 50}/f{i}.o"
            vis = " -fvisibility=hidden" if i % 4 == 0 else ""
            if i % 4 == 3:
                argv = ["c++", "-DNDEBUG", "-Iinc", "-O2", "-c", src, "-o", obj]
                e = {"directory": "/b/out", "file": src, "arguments": argv}
            else:
                cmd = f"c++ -DNDEBUG -Iinc -O2{vis} -c {src} -o {obj}"
                e = {"directory": "/b/out", "file": src, "output": obj, "command": cmd}
            f.write(json.dumps(e, separators=(",", ":")))
            f.write(",\n" if i + 1 < n else "\n")
        f.write("]\n")


if __name__ == "__main__":
    main()
