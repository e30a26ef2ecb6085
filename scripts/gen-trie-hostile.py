#!/usr/bin/env python3
"""Writes the hostile inputs of the export-trie lookup bounds (docs/process.md, "Bounds"):
deep tries looked up by name through re-exports and through --importer. Minimal x86_64 Mach-O
files (<mach-o/loader.h>: mach_header_64, segment_command_64, dylib_command,
linkedit_data_command), as scripts/gen-rpath-hostile.py writes them, with a __LINKEDIT segment
holding an export trie (LC_DYLD_EXPORTS_TRIE).

A deep trie is a chain of DEPTH nodes joined by empty edge labels (<mach-o/loader.h> export trie;
dyld-1378 MachOFile::trieWalk takes an empty label as a prefix of every name): every name looked
up walks the whole chain and is not found at its end.

Usage:
  gen-trie-hostile.py reexport OUTDIR [DYLIBS [DEPTH]]     (default 14 8000)
      OUTDIR/main: an MH_EXECUTE with MH_WEAK_DEFINES (so it looks up dyld's 22 treat-as-weak
      names) loading @executable_path/lib1.dylib; lib1.dylib (MH_WEAK_DEFINES, searched) whose
      trie re-exports each of the 22 names from its first dependency, lib2.dylib, renamed _impl
      (a renamed re-export: dyld's search goes on in staticLink mode); libK.dylib, K = 2..DYLIBS,
      each with a deep trie and two LC_REEXPORT_DYLIBs of lib(K+1).dylib: one search fans out to
      2^(DYLIBS-1) probes.
  gen-trie-hostile.py importer OUTDIR [IMPORTS [DEPTH]]    (default 200 49000)
      OUTDIR/libdeep.dylib: an MH_DYLIB with a deep trie; OUTDIR/addon.node: an MH_BUNDLE whose
      chained-fixups imports table holds IMPORTS flat-lookup (ordinal -2) imports _f0, _f1, …,
      each resolved against any image: weakscan check libdeep.dylib --importer addon.node looks
      each one up in the deep trie.
Deterministic; overwrites OUTDIR's files.
"""
import os
import struct
import sys

LC_SEGMENT_64, LC_LOAD_DYLIB, LC_ID_DYLIB = 0x19, 0xC, 0xD
LC_REEXPORT_DYLIB = 0x8000001F
LC_DYLD_EXPORTS_TRIE, LC_DYLD_CHAINED_FIXUPS = 0x80000033, 0x80000034
MH_EXECUTE, MH_DYLIB, MH_BUNDLE = 2, 6, 8
# MH_NOUNDEFS | MH_DYLDLINK | MH_TWOLEVEL, and MH_WEAK_DEFINES.
FLAGS, MH_WEAK_DEFINES = 0x85, 0x8000
# model.rs TREAT_AS_WEAK (dyld-1378 JustInTimeLoader.cpp handleStrongWeakDefOverrides).
TREAT_AS_WEAK = [
    "__Znwm", "__ZnwmRKSt9nothrow_t", "__Znam", "__ZnamRKSt9nothrow_t", "__ZdlPv",
    "__ZdlPvRKSt9nothrow_t", "__ZdlPvm", "__ZdaPv", "__ZdaPvRKSt9nothrow_t", "__ZdaPvm",
    "__ZnwmSt11align_val_t", "__ZnwmSt11align_val_tRKSt9nothrow_t", "__ZnamSt11align_val_t",
    "__ZnamSt11align_val_tRKSt9nothrow_t", "__ZdlPvSt11align_val_t",
    "__ZdlPvSt11align_val_tRKSt9nothrow_t", "__ZdlPvmSt11align_val_t", "__ZdaPvSt11align_val_t",
    "__ZdaPvSt11align_val_tRKSt9nothrow_t", "__ZdaPvmSt11align_val_t",
    "__ZnwmSt19__type_descriptor_t", "__ZnamSt19__type_descriptor_t",
]


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def uleb3(v):
    """ULEB128 padded to 3 bytes (offsets known before the layout is; dyld reads any)."""
    assert v < 1 << 21
    return bytes([0x80 | (v & 0x7F), 0x80 | (v >> 7 & 0x7F), v >> 14])


def deep_trie(depth):
    """A chain of `depth` nodes, each without a terminal and with one empty edge to the next; the
    last has no children."""
    out = bytearray()
    for k in range(depth - 1):
        out += b"\0\x01\0" + uleb3(6 * (k + 1))
    return bytes(out + b"\0\0")


def flat_trie(entries):
    """The root's edges are the whole names, longest first (dyld takes the first edge that is a
    prefix of the name), each to a node holding `terminal`."""
    entries = sorted(entries, key=lambda e: e[0], reverse=True)
    edges = sum(len(n) + 1 + 3 for n, _ in entries)
    root = bytearray([0, len(entries)])
    nodes = bytearray()
    for name, terminal in entries:
        root += name.encode() + b"\0" + uleb3(2 + edges + len(nodes))
        nodes += uleb(len(terminal)) + terminal + b"\0"
    return bytes(root + nodes)


def reexport_terminal(ordinal, name):
    return uleb(0x08) + uleb(ordinal) + name.encode() + b"\0"


def padded(head, b):
    b += b"\0"
    return b + b"\0" * (-(head + len(b)) % 8)


def dylib_command(cmd, name):
    s = padded(24, name.encode())
    return struct.pack("<IIIIII", cmd, 24 + len(s), 24, 2, 0x10000, 0x10000) + s


def segment(name, vmaddr, fileoff, size, prot):
    return struct.pack("<II16sQQQQiiII", LC_SEGMENT_64, 72, name, vmaddr, size, fileoff, size,
                       prot, prot, 0, 0)


def macho(filetype, flags, cmds, trie=b"", fixups=b""):
    """Header, __TEXT (the header and commands), __LINKEDIT (the trie and the chained-fixups
    blob, each 8-aligned), the commands, LC_DYLD_EXPORTS_TRIE and LC_DYLD_CHAINED_FIXUPS."""
    ncmds = len(cmds) + 2 + (1 if trie else 0) + (1 if fixups else 0)
    sizeofcmds = sum(len(c) for c in cmds) + 144 + (16 if trie else 0) + (16 if fixups else 0)
    text = (32 + sizeofcmds + 0xFFF) & ~0xFFF
    trie_off = text
    fixups_off = (trie_off + len(trie) + 7) & ~7
    end = (fixups_off + len(fixups) + 7) & ~7
    head = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x01000007, 3, filetype, ncmds, sizeofcmds,
                       flags, 0)
    body = segment(b"__TEXT", 0, 0, text, 5)
    body += segment(b"__LINKEDIT", text, text, end - text, 1)
    body += b"".join(cmds)
    if trie:
        body += struct.pack("<IIII", LC_DYLD_EXPORTS_TRIE, 16, trie_off, len(trie))
    if fixups:
        body += struct.pack("<IIII", LC_DYLD_CHAINED_FIXUPS, 16, fixups_off, len(fixups))
    out = bytearray(head + body)
    out += b"\0" * (trie_off - len(out)) + trie
    out += b"\0" * (fixups_off - len(out)) + fixups
    return bytes(out + b"\0" * (end - len(out)))


def flat_imports(names):
    """A chained-fixups blob (<mach-o/fixup-chains.h>) with no chain starts for its two
    segments and one DYLD_CHAINED_IMPORT per name: lib_ordinal 0xFE (-2, flat lookup)."""
    starts = struct.pack("<III", 2, 0, 0)  # dyld_chained_starts_in_image: seg_count, offsets
    pool = bytearray(b"\0")
    table = bytearray()
    for n in names:
        table += struct.pack("<I", 0xFE | len(pool) << 9)
        pool += n.encode() + b"\0"
    s_off = 32
    i_off = s_off + len(starts)
    p_off = i_off + len(table)
    header = struct.pack("<7I", 0, s_off, i_off, p_off, len(names), 1, 0)
    return header + b"\0" * (s_off - len(header)) + starts + table + pool


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def reexport(out, dylibs, depth):
    write(os.path.join(out, "main"), macho(MH_EXECUTE, FLAGS | MH_WEAK_DEFINES, [
        dylib_command(LC_LOAD_DYLIB, "@executable_path/lib1.dylib")]))
    entries = [(n, reexport_terminal(1, "_impl")) for n in TREAT_AS_WEAK]
    write(os.path.join(out, "lib1.dylib"), macho(MH_DYLIB, FLAGS | MH_WEAK_DEFINES, [
        dylib_command(LC_ID_DYLIB, "@loader_path/lib1.dylib"),
        dylib_command(LC_LOAD_DYLIB, "@loader_path/lib2.dylib")], flat_trie(entries)))
    for k in range(2, dylibs + 1):
        cmds = [dylib_command(LC_ID_DYLIB, f"@loader_path/lib{k}.dylib")]
        if k < dylibs:
            cmds += [dylib_command(LC_REEXPORT_DYLIB, f"@loader_path/lib{k + 1}.dylib")] * 2
        write(os.path.join(out, f"lib{k}.dylib"), macho(MH_DYLIB, FLAGS, cmds, deep_trie(depth)))


def importer(out, imports, depth):
    write(os.path.join(out, "libdeep.dylib"), macho(MH_DYLIB, FLAGS, [
        dylib_command(LC_ID_DYLIB, "@rpath/libdeep.dylib")], deep_trie(depth)))
    names = [f"_f{k}" for k in range(imports)]
    write(os.path.join(out, "addon.node"), macho(MH_BUNDLE, FLAGS, [], b"",
                                                 flat_imports(names)))


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("reexport", "importer"):
        sys.exit(__doc__)
    mode, out, rest = sys.argv[1], sys.argv[2], [int(a) for a in sys.argv[3:]]
    if mode == "reexport":
        reexport(out, *(rest + [14, 8000][len(rest):]))
    else:
        importer(out, *(rest + [200, 49000][len(rest):]))


if __name__ == "__main__":
    main()
