#!/usr/bin/env python3
"""Adds an LC_LAZY_LOAD_DYLIB_INFO load command to a thin x86_64 or arm64 Mach-O file, in place.

    python3 testdata/add-lazy-load.py FILE LOAD_PATH [--weak] SYMBOL...

ld64.lld-22 does not write this command (Apple's linker does, for macOS 26.4 and later, when a
dylib is linked to be loaded on first use), so testdata/build.sh links the fixture and then runs
this script on it: the fixture is generated, not edited by hand. Python 3 standard library only.

The command and its data, from apple-oss-distributions/dyld (dyld-1378):
  * mach_o/UnsafeHeader.h:57-58: `#define LC_LAZY_LOAD_DYLIB_INFO 0x3A`, a
    `linkedit_data_command` (cmd, cmdsize 16, dataoff, datasize) whose data lies in __LINKEDIT
    (UnsafeHeader::forEachLazyLoadDylib, mach_o/UnsafeHeader.cpp:1424-1431).
  * mach_o/LazyLoadDylib.h:63-75, the data (`LazyLoadDylibLinkEdit`, little-endian):
        uint32_t loadPathOffset;          // path of dylib to load
        uint32_t flagImageOffset;         // image offset to flags global
        uint16_t flags;                   // weak linked or not (bit 0)
        uint16_t pointerFormat;           // e.g. DYLD_CHAINED_PTR_ARM64E_USERLAND
        uint32_t chainStartImageOffset;   // image offset to fixup chain start
        uint32_t symbolsCount;            // how many symbol names to bind
        uint32_t symbolStringArrayOffset; // offset of each symbol name within blob
    then symbolsCount uint32 offsets (within the blob) of the symbol names, the load path and
    the names, NUL-terminated, the whole padded to 8 bytes: the layout of
    mach_o_writer/LazyLoadDylibWriter.cpp:41-77. The flag global and the fixup chain are left
    at offset 0 (no chain): dyld reads them only when the program first calls into the dylib
    (_dyld_lazy_load, dyld/DyldAPIs.cpp:4301).

The data is appended at the end of __LINKEDIT (the end of the file), whose sizes grow to hold
it; the command goes after the last load command, into the header's padding. Refused: a file
with a code signature (it must stay last in __LINKEDIT), __LINKEDIT not ending the file, or no
room for the command before the first section.
"""

import struct
import sys

LC_SEGMENT_64 = 0x19
LC_CODE_SIGNATURE = 0x1D
LC_LAZY_LOAD_DYLIB_INFO = 0x3A
MH_MAGIC_64 = 0xFEEDFACF


def blob(load_path, symbols, weak):
    """The LazyLoadDylibLinkEdit data, as LazyLoadDylibWriter lays it out."""
    header = 24
    strings_at = header + 4 * len(symbols)
    path = load_path.encode() + b"\0"
    names = [s.encode() + b"\0" for s in symbols]
    offsets = []
    at = strings_at + len(path)
    for n in names:
        offsets.append(at)
        at += len(n)
    data = struct.pack("<IIHHIII", strings_at, 0, 1 if weak else 0, 0, 0, len(symbols), header)
    data += b"".join(struct.pack("<I", o) for o in offsets) + path + b"".join(names)
    return data + b"\0" * (-len(data) % 8)


def main():
    args = sys.argv[1:]
    weak = "--weak" in args
    args = [a for a in args if a != "--weak"]
    if len(args) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    path, load_path, symbols = args[0], args[1], args[2:]
    with open(path, "rb") as f:
        data = bytearray(f.read())
    magic, _, _, _, ncmds, sizeofcmds, _, _ = struct.unpack_from("<IiiIIIII", data, 0)
    if magic != MH_MAGIC_64:
        sys.exit("%s: not a thin 64-bit little-endian Mach-O file" % path)
    at, linkedit, first_section = 32, None, len(data)
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, at)
        if cmd == LC_CODE_SIGNATURE:
            sys.exit("%s: has a code signature, which must stay last in __LINKEDIT" % path)
        if cmd == LC_SEGMENT_64:
            name = data[at + 8:at + 24].rstrip(b"\0")
            fileoff, filesize = struct.unpack_from("<QQ", data, at + 40)
            nsects = struct.unpack_from("<I", data, at + 64)[0]
            if name == b"__LINKEDIT":
                linkedit = at
            for s in range(nsects):
                sect = at + 72 + 80 * s
                offset, size = struct.unpack_from("<IQ", data, sect + 48)[0], struct.unpack_from("<Q", data, sect + 40)[0]
                if offset and size:
                    first_section = min(first_section, offset)
        at += cmdsize
    if linkedit is None:
        sys.exit("%s: no __LINKEDIT segment" % path)
    vmsize, fileoff, filesize = struct.unpack_from("<QQQ", data, linkedit + 32)
    if fileoff + filesize != len(data):
        sys.exit("%s: __LINKEDIT does not end the file" % path)
    if 32 + sizeofcmds + 16 > first_section:
        sys.exit("%s: no room for one more load command before the first section" % path)
    dataoff = len(data) + (-len(data) % 8)
    payload = blob(load_path, symbols, weak)
    data += b"\0" * (dataoff - len(data)) + payload
    filesize = len(data) - fileoff
    vmsize = max(vmsize, (filesize + 0xFFF) & ~0xFFF)
    struct.pack_into("<QQQ", data, linkedit + 32, vmsize, fileoff, filesize)
    struct.pack_into("<IIII", data, 32 + sizeofcmds, LC_LAZY_LOAD_DYLIB_INFO, 16, dataoff, len(payload))
    struct.pack_into("<II", data, 16, ncmds + 1, sizeofcmds + 16)
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
