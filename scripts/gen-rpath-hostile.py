#!/usr/bin/env python3
"""Writes the hostile processes of the dependency-search bound (docs/process.md): minimal x86_64
Mach-O files (<mach-o/loader.h>: mach_header_64, one __TEXT segment_command_64, rpath_command,
dylib_command), no symbols.

Usage:
  gen-rpath-hostile.py wide OUTDIR RPATHS DEPS
      OUTDIR/main: an MH_EXECUTE with RPATHS LC_RPATHs to missing directories
      (@executable_path/missing-K) and DEPS LC_LOAD_DYLIBs @rpath/libK.dylib, none of which exists.
  gen-rpath-hostile.py chain OUTDIR DEPTH
      OUTDIR/main (LC_RPATH @executable_path/lib, loads @rpath/lib0.dylib) and
      OUTDIR/lib/libK.dylib, K = 0..DEPTH-1, each an 8 KiB MH_DYLIB with its own LC_RPATH to a
      missing directory (@loader_path/missing-K) that loads @rpath/lib(K+1).dylib: a chain whose
      rpath stack grows by one missing directory per level.
Deterministic; overwrites OUTDIR's files.
"""
import os
import struct
import sys

LC_SEGMENT_64, LC_LOAD_DYLIB, LC_ID_DYLIB, LC_RPATH = 0x19, 0xC, 0xD, 0x8000001C
MH_EXECUTE, MH_DYLIB = 2, 6


def padded(head, b):
    """`b` NUL-terminated and padded so that `head` bytes plus it fill whole 8-byte words."""
    b += b"\0"
    return b + b"\0" * (-(head + len(b)) % 8)


def dylib_command(cmd, name):
    s = padded(24, name.encode())
    return struct.pack("<IIIIII", cmd, 24 + len(s), 24, 2, 0x10000, 0x10000) + s


def rpath_command(path):
    s = padded(12, path.encode())
    return struct.pack("<III", LC_RPATH, 12 + len(s), 12) + s


def macho(filetype, cmds, size=0):
    body = b"".join(cmds)
    total = max(32 + 72 + len(body), size)
    head = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x01000007, 3, filetype, len(cmds) + 1,
                       72 + len(body), 0x85, 0)
    seg = struct.pack("<II16sQQQQiiII", LC_SEGMENT_64, 72, b"__TEXT", 0, 0x1000 + total, 0,
                      total, 5, 5, 0, 0)
    out = head + seg + body
    return out + b"\0" * (total - len(out))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("wide", "chain"):
        sys.exit(__doc__)
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "wide":
        rpaths, deps = int(sys.argv[3]), int(sys.argv[4])
        cmds = [rpath_command(f"@executable_path/missing-{k}") for k in range(rpaths)]
        cmds += [dylib_command(LC_LOAD_DYLIB, f"@rpath/lib{k}.dylib") for k in range(deps)]
        write(os.path.join(out, "main"), macho(MH_EXECUTE, cmds))
        return
    depth = int(sys.argv[3])
    write(os.path.join(out, "main"), macho(MH_EXECUTE, [
        rpath_command("@executable_path/lib"), dylib_command(LC_LOAD_DYLIB, "@rpath/lib0.dylib")]))
    for k in range(depth):
        cmds = [dylib_command(LC_ID_DYLIB, f"@rpath/lib{k}.dylib"),
                rpath_command(f"@loader_path/missing-{k}")]
        if k + 1 < depth:
            cmds.append(dylib_command(LC_LOAD_DYLIB, f"@rpath/lib{k + 1}.dylib"))
        write(os.path.join(out, "lib", f"lib{k}.dylib"), macho(MH_DYLIB, cmds, 8192))


if __name__ == "__main__":
    main()
