#!/usr/bin/env python3
"""Writes the hostile inputs of the memory benchmark (scripts/bench-malformed.sh).

Nothing here is committed output: the files are generated at benchmark time (into
target/tmp/hostile by default). Python 3 standard library only.

    gen-hostile.py OUTDIR [LOG_MIB]

writes into OUTDIR:

  log-dyld2.log       dyld2 `weak bind:` lines, one per distinct long symbol (LOG_MIB MiB)
  log-dyld4.log       dyld4 (macOS 15, opcode image) lookup block + bind line + weak-bind
                      fixup line per distinct long symbol (LOG_MIB MiB)
  trie-long           testdata/bin/app-default-opcodes-x86_64 with a ~10 MB export trie of
                      distinct V8-like mangled weak definitions, built as ld64 builds one
  trie-dense          the same base with a ~10 MB trie of ~1M short distinct weak
                      definitions (255-way nodes, every node a terminal): the most
                      definitions per trie byte
  binds-2e20          the same base whose weak-bind stream binds 2^20 targets (the
                      location cap), three stream bytes each (addend flipped before each bind)
  chained-imports     testdata/bin/app-default-chained-x86_64 with a chained-fixups blob of
                      2^18 weak-lookup (ordinal -3) imports of distinct long names
  report-names        the same base with 200 weak-lookup imports of distinct 100 KB mangled
                      names (`node::BigNNNkkk…NNN()`), for the size of `weakscan report`

The Mach-O files are made like tests/malformed.rs makes its inputs: the new blob is appended
after the file, the load command pointed at it, and __LINKEDIT grown to hold it. Line formats
are those of testdata/logs (dyld-852.2 for dyld2, dyld-1231.3 for dyld4).
"""
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OPCODES = os.path.join(ROOT, "testdata/bin/app-default-opcodes-x86_64")
CHAINED = os.path.join(ROOT, "testdata/bin/app-default-chained-x86_64")
LC_SEGMENT_64 = 0x19
LC_DYLD_INFO_ONLY = 0x80000022
LC_DYLD_CHAINED_FIXUPS = 0x80000034


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


def uleb_fixed(v, width=4):
    """ULEB128 padded to `width` bytes (so offsets are known before the layout is)."""
    out = bytearray()
    for k in range(width):
        b = (v >> (7 * k)) & 0x7F
        out.append(b | 0x80 if k < width - 1 else b)
    assert v < 1 << (7 * width)
    return bytes(out)


def name(i):
    """A distinct, long, V8-like mangled name (about 150 bytes)."""
    d = f"Desc{i}Descriptor"
    return (f"__ZZN2v88internal29StaticCallInterfaceDescriptorINS0_{len(d)}{d}EE"
            f"10InitializeEPNS0_27CallInterfaceDescriptorDataEE9registers")


# --- logs -----------------------------------------------------------------------------------

def write_log(path, mib, line_of):
    limit = mib << 20
    written = 0
    i = 0
    with open(path, "w", newline="\n") as f:
        while written < limit:
            chunk = "".join(line_of(k) for k in range(i, i + 1000))
            f.write(chunk)
            written += len(chunk)
            i += 1000


def dyld2_line(i):
    s = name(i)
    a = 0x100008000 + 8 * i
    return f"dyld: weak bind: app:0x{a:X} = app:{s}, *0x{a:X} = 0x{0x104000000 + 16 * i:X}\n"


def dyld4_lines(i):
    s = name(i)
    p = "dyld[4242]: "
    return (f"{p}looking for weak-def symbol '{s}':\n"
            f"{p}  using '{s}' in /Users/ci/build/app\n"
            f"{p}<app/bind#{i}> -> 0x{0x104000000 + 16 * i:x} (app/{s})\n"
            f"{p}fixup: *0x{0x108000000 + 8 * i:012X} = 0x{0x104000000 + 16 * i:012X} <app/weak-bind#{i}>\n")


# --- Mach-O ---------------------------------------------------------------------------------

def commands(b):
    n = struct.unpack_from("<I", b, 16)[0]
    off = 32
    for _ in range(n):
        cmd, size = struct.unpack_from("<II", b, off)
        yield cmd, off
        off += size


def command(b, want):
    return next(off for cmd, off in commands(b) if cmd == want)


def linkedit(b):
    return next(off for cmd, off in commands(b)
                if cmd == LC_SEGMENT_64 and b[off + 8:off + 24].rstrip(b"\0") == b"__LINKEDIT")


def append_blob(b, blob):
    """Appends `blob` (8-aligned) and grows __LINKEDIT over it; returns its file offset."""
    start = (len(b) + 7) & ~7
    b.extend(b"\0" * (start - len(b)))
    b.extend(blob)
    seg = linkedit(b)
    fileoff = struct.unpack_from("<Q", b, seg + 40)[0]
    size = len(b) - fileoff
    struct.pack_into("<Q", b, seg + 32, (size + 0xFFF) & ~0xFFF)  # vmsize
    struct.pack_into("<Q", b, seg + 48, size)  # filesize
    return start


def with_trie(trie):
    b = bytearray(open(OPCODES, "rb").read())
    start = append_blob(b, trie)
    lc = command(b, LC_DYLD_INFO_ONLY)
    struct.pack_into("<II", b, lc + 40, start, len(trie))
    return bytes(b)


def trie_of(names):
    """An export trie (every name a weak definition, address 0) as ld64 lays one out: a radix
    tree, nodes in preorder; child offsets are 4-byte ULEBs."""
    names = sorted(set(names))
    # Nodes: [terminal, [(label, child_index)]], built by splitting on common prefixes.
    nodes = []

    def build(lo, hi, depth):
        idx = len(nodes)
        node = [False, []]
        nodes.append(node)
        i = lo
        if i < hi and len(names[i]) == depth:
            node[0] = True
            i += 1
        while i < hi:
            c = names[i][depth]
            j = i
            while j < hi and names[j][depth] == c:
                j += 1
            # Longest common prefix of names[i:j] beyond depth.
            first, last = names[i], names[j - 1]
            k = depth
            while k < len(first) and k < len(last) and first[k] == last[k]:
                k += 1
            node[1].append([first[depth:k], None, i, j, k])
            i = j
        for edge in node[1]:
            _, _, a, z, k = edge
            edge[1] = build(a, z, k)
        return idx

    sys.setrecursionlimit(100000)
    build(0, len(names), 0)
    # Layout: node sizes are fixed (4-byte offsets), so offsets follow in one pass.
    sizes = []
    for term, edges in nodes:
        s = (3 if term else 1) + 1  # terminal_size, [flags, address] , child_count
        s += sum(len(label) + 1 + 4 for label, *_ in edges)
        sizes.append(s)
    offs = []
    o = 0
    for s in sizes:
        offs.append(o)
        o += s
    out = bytearray()
    for (term, edges), _ in zip(nodes, sizes):
        out += bytes([2, 4, 0]) if term else b"\0"
        out.append(len(edges))
        for label, child, *_ in edges:
            out += label.encode() + b"\0" + uleb_fixed(offs[child])
    return bytes(out)


def trie_long(target):
    n = target // 75
    return trie_of(name(i) for i in range(n))


def trie_dense(target):
    """Every node a weak terminal with up to 255 one-byte edges: breadth-first, so names are
    short and distinct."""
    per_child = 1 + 1 + 4  # label byte, NUL, offset
    node_size = 3 + 1
    total = target // (node_size + per_child)
    # Node k's children are 255k+1 … 255k+255 (a complete 255-ary tree in breadth-first order).
    out = bytearray()
    offs = [0] * total
    o = 0
    for k in range(total):
        first = 255 * k + 1
        nch = max(0, min(255, total - first))
        offs[k] = o
        o += node_size + nch * per_child
    for k in range(total):
        first = 255 * k + 1
        nch = max(0, min(255, total - first))
        out += bytes([2, 4, 0, nch])
        for c in range(nch):
            out += bytes([1 + c if 1 + c != 0 else 1, 0]) + uleb_fixed(offs[first + c])
    # The root's edges start every name with a byte 1..255; make them printable-ish C names.
    return bytes(out)


def binds_2e20():
    b = bytearray(open(OPCODES, "rb").read())
    segs = [off for cmd, off in commands(b) if cmd == LC_SEGMENT_64]
    data = next(i for i, off in enumerate(segs) if b[off + 8:off + 24].rstrip(b"\0") == b"__DATA")
    # __DATA must hold 2^20 pointers: grow its vmsize (zero-fill; the file is not touched).
    off = segs[data]
    struct.pack_into("<Q", b, off + 32, 8 << 20)
    # __LINKEDIT follows __DATA in memory: move it above the grown segment.
    le = linkedit(b)
    vmaddr = struct.unpack_from("<Q", b, off + 24)[0] + (8 << 20)
    struct.pack_into("<Q", b, le + 24, vmaddr)
    stream = bytearray()
    stream += bytes([0x40]) + b"__Znwm\0"  # SET_SYMBOL
    stream += bytes([0x51])  # SET_TYPE_IMM pointer
    stream += bytes([0x70 | data]) + uleb(0)  # SET_SEGMENT_AND_OFFSET_ULEB
    for i in range(1 << 20):
        stream += bytes([0x60, i & 1, 0x90])  # SET_ADDEND_SLEB (0/1), DO_BIND
    stream.append(0)
    start = append_blob(b, stream)
    lc = command(b, LC_DYLD_INFO_ONLY)
    struct.pack_into("<II", b, lc + 24, start, len(stream))
    return bytes(b)


def huge_name(i, size):
    """A distinct mangled name of `size` bytes: `node::BigNNNkkk…NNN()` once demangled."""
    ident = f"Big{i:03d}"
    ident += "k" * (size - len(ident) - 19) + f"{i:03d}"
    return f"__ZN4node{len(ident)}{ident}Ev"


def chained_imports(n, name=name):
    b = bytearray(open(CHAINED, "rb").read())
    lc = command(b, LC_DYLD_CHAINED_FIXUPS)
    old_off, old_size = struct.unpack_from("<II", b, lc + 8)
    old = bytes(b[old_off:old_off + old_size])
    _, starts_off, imports_off, _, _, _, _ = struct.unpack_from("<7I", old, 0)
    starts = old[starts_off:imports_off]
    pool = bytearray(b"\0")
    table = bytearray()
    for i in range(n):
        at = len(pool)
        pool += name(i).encode() + b"\0"
        # DYLD_CHAINED_IMPORT_ADDEND64: ordinal -3 (16 bits), name offset (high 32), addend.
        table += struct.pack("<QQ", 0xFFFD | (at << 32), 0)
    header_size = 28
    s_off = (header_size + 3) & ~3
    i_off = (s_off + len(starts) + 7) & ~7
    p_off = i_off + len(table)
    blob = bytearray(struct.pack("<7I", 0, s_off, i_off, p_off, n, 3, 0))
    blob += b"\0" * (s_off - len(blob)) + starts
    blob += b"\0" * (i_off - len(blob)) + table + pool
    start = append_blob(b, blob)
    struct.pack_into("<II", b, lc + 8, start, len(blob))
    return bytes(b)


def main():
    out = sys.argv[1]
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    os.makedirs(out, exist_ok=True)
    write_log(os.path.join(out, "log-dyld2.log"), mib, dyld2_line)
    write_log(os.path.join(out, "log-dyld4.log"), mib, dyld4_lines)
    for file, data in [
        ("trie-long", with_trie(trie_long(10 << 20))),
        ("trie-dense", with_trie(trie_dense(10 << 20))),
        ("binds-2e20", binds_2e20()),
        ("chained-imports", chained_imports(1 << 18)),
        ("report-names", chained_imports(200, lambda i: huge_name(i, 100_000))),
    ]:
        with open(os.path.join(out, file), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
