#!/usr/bin/env python3
"""Generate the dyld log fixtures in testdata/logs/ (DYLD_PRINT_BINDINGS output).

Python 3 standard library only. It reads the committed Mach-O fixtures in
testdata/bin/ (and the App.app bundle in testdata/process/) with llvm-objdump
from LLVM 22 (load commands, export tries, chained-fixup imports) and with
its own parser of the LC_DYLD_INFO opcode
streams (rebase, bind, lazy bind, weak bind), cross-checks the two, and then
replays what dyld would print at launch. It does not use weakscan.

    python3 testdata/logs/gen.py           # (re)write every file
    python3 testdata/logs/gen.py --check   # exit 1 if a committed file differs

Set LLVM_OBJDUMP to pick the llvm-objdump binary (default: llvm-objdump-22 on
PATH, else /usr/lib/llvm-22/bin/llvm-objdump). Output is byte-identical on
every run: there is no clock, randomness, or dependence on dict ordering.

What is replayed, and where each form comes from (Apple's dyld sources,
github.com/apple-oss-distributions/dyld, file:line at the tag named):

dyld4 (tags dyld-1122.1 = macOS 14, dyld-1231.3 = macOS 15, dyld-1323.3 = macOS 26)
  * Every line goes through RuntimeState::vlog, which writes "dyld[PID]: "
    and then the message (dyld/DyldRuntimeState.cpp:855 at dyld-1231.3; the
    syslog form "<13>progname[PID]: " is at :845).
  * Order: dyld/dyldMain.cpp:711-716 (dyld-1231.3) calls
    JustInTimeLoader::handleStrongWeakDefOverrides first, then applyFixups()
    for each loader in state.loaded (main executable first, then the
    dependents breadth-first, JustInTimeLoader::loadDependents).
  * handleStrongWeakDefOverrides (dyld/JustInTimeLoader.cpp:717-750 at
    dyld-1231.3): if the main executable has MH_WEAK_DEFINES it calls
    resolveSymbol(BIND_SPECIAL_DYLIB_WEAK_LOOKUP, weakImport=true) for each
    name of sTreatAsWeak (common/MachOFile.cpp:3548, 22 names from
    dyld-1122.1). No bind line is printed for these.
  * Loader::resolveSymbol, ordinal -3 (dyld/Loader.cpp:2547-2732 at
    dyld-1231.3): "looking for weak-def symbol '%s':" (:2600), "  using '%s'
    in %s" (:2655), "  using non-weak '%s' in %s" (:2662), "  found use of
    '%s' in cache, need to override: %s" (:2694). At dyld-1231.3 the cache
    patch block (:2678) sits inside the loop over {state.loaded,
    state.delayLoaded} (:2635-2701), so "found use ..." is printed twice per lookup (the second
    time for the empty delay-loaded list, with the same cacheResults). At
    dyld-1323.3 the block was moved after the loop and printed once
    (dyld/Loader.cpp:2984-3006; the loop now breaks after state.loaded once
    a definition is found, :2979-2981). At dyld-1122.1, verboseWeak is hard-coded
    false (dyld/Loader.cpp:2420), so no lookup line is printed at all.
  * The patcher JustInTimeLoader::cacheWeakDefFixup prints "cache patch: %p =
    0x%0lX" for each patchable use in the shared cache whose value changes
    (dyld/JustInTimeLoader.cpp:771 at dyld-1231.3, :728 at dyld-1122.1, :768
    at dyld-1323.3); it is printed under the same DYLD_PRINT_BINDINGS switch,
    including on macOS 14. The uses listed here are made up (two per
    overridden export).
  * JustInTimeLoader::applyFixups (dyld/JustInTimeLoader.cpp:777-851 at
    dyld-1231.3): regular bind targets "<%s/bind#%llu> -> %p (%s/%s)" (:815);
    opcode weak binds ("override" targets) restart at bind#0 and use the
    same form (:837), or "<%s/bind#%llu> -> missing-weak-bind (%s)" (:830).
    dyld-1323.3 prints regular targets as "<%s/bind#%llu> -> %p <%s/%s>)"
    (JustInTimeLoader.cpp:819) and keeps "(%s/%s)" for override targets.
    dyld-1122.1 uses %lu for the index (same text).
  * Bind targets: Fixups::forEachBindTarget_ChainedFixups
    (common/MachOLayout.cpp:483-515 at dyld-1231.3): one per import, then for
    a main executable with MH_WEAK_DEFINES the 22 treat-as-weak names with
    ordinal -3 and weakImport=false (:508). Opcodes:
    Fixups::forEachBindUnified_Opcodes (:806-865): regular binds start a new target when SET_SYMBOL or
    SET_ADDEND ran since the last bind, every lazy bind is a new target, weak
    binds start a new target when the symbol-name pointer (i.e. a new
    SET_SYMBOL) or the addend changed (:852); strong (NON_WEAK_DEFINITION)
    entries bind nothing.
  * Loader::applyFixupsGeneric (dyld/Loader.cpp:2130-2231 at dyld-1231.3):
    opcode images print every rebase ("fixup: *0x%012lX = 0x%012lX <rebase>"),
    then every regular and lazy bind location ("<%s/bind#%u>"), then every
    weak bind location ("<%s/weak-bind#%u>" or "(skipping missing weak
    bind)"). dyld-1323.3 uses "fixup: *0x%010lX = 0x%016lX".
    Chained images use page-in linking (pageInLinkingMode 2,
    dyld/DyldProcessConfig.cpp:448): Loader::setUpPageInLinking hands
    read-only segments and segments of more than one page to the kernel
    (dyld/Loader.cpp:2097) and only that call prints "Setting up kernel
    page-in linking for %s" and "%14s (%c%c%c) 0x%012llX->0x%012llX
    (fileOffset=0x%0llX, size=%lluKB)" (:2025-2027; "%14.*s" at dyld-1323.3).
    Single-page __DATA is fixed up in-process without a line.
  * A missing weak-def with weakImport=false is a launch error
    (dyld/Loader.cpp:2726-2729); for chained treat-as-weak targets that is
    fatal: applyFixups returns and dyldMain.cpp:716-718 calls halt(), which
    prints the Diagnostics text with console() ("dyld[PID]: " + message).
    Diagnostics::error appends (_simple_vsprintf), so two missing names give
    one concatenated message.

  * The App.app process (testdata/process, dyld4-macos15-process-app.log):
    the load order is replayed too (class Launch). dyldMain.cpp:652-666 calls
    JustInTimeLoader::loadDependents (dyld/JustInTimeLoader.cpp:469-570) on
    the main executable with the rpath stack {main}. It gets a loader for
    each LC_LOAD_DYLIB / LC_LOAD_WEAK_DYLIB in order (:478-540): an absolute
    path is first matched against state.loaded (:505-513), else
    Loader::getLoader runs with the stack {caller's stack, this image}
    (:516); a weak-linked dylib that is not found leaves a null dependent
    (canBeMissing, dyld/Loader.cpp:1116-1117). Then it recurses into each
    dependent ("breadth first recurse", :545-553). Loader::getLoader
    (dyld/Loader.cpp:741-1146): an @rpath path first matches a loaded image
    (:772-783; JustInTimeLoader::matchesPath compares the path and, for a
    dylib whose install name differs from its path, the install name,
    JustInTimeLoader.cpp:122-141 and :1022); then, for each possible path of
    Loader::forEachResolvedAtPathVar (:1240-1384: @loader_path is the
    requesting image's directory, not normalized, expandAtLoaderPath
    :1149-1181; @executable_path with its leading "/.." folded,
    expandAndNormalizeAtExecutablePath :1183-1220; @rpath through each
    LC_RPATH of the stack, newest image first, :1299), a loaded image with
    that path, a cached dylib, or a file on disk (makeDiskLoader, :1044).
    A loader's path is the file's real path (SyscallDelegate::mapFileReadOnly
    gets it with F_GETPATH, dyld/DyldDelegates.cpp:690), and
    JustInTimeLoader::make appends the image to state.loaded
    (JustInTimeLoader.cpp:1057). DYLD_* path variables and fallback paths are
    not modelled (none is set, and the made-up machine has no libmissing).
    An import from the missing weak-linked dylib has no target loader and,
    being a weak import, binds to 0 (Loader.cpp:2492-2494, :2748-2751):
    "<%s/bind#%llu> -> %p (%s/%s)" with "<none>" (JustInTimeLoader.cpp:814).
    A cached dylib handed out as a PrebuiltLoader (the cache's
    PrebuiltLoaderSet, RuntimeState::findPrebuiltLoader,
    dyld/DyldRuntimeState.cpp:2707) enters state.loaded only when
    PrebuiltLoader::map runs (PrebuiltLoader.cpp:378), from its own
    loadDependents (:381-410), which puts libSystem.B after libdeep; gen.py
    replays both readings and checks that the log is the same. The winners
    are checked against testdata/process/expected-winners.tsv and the
    on-disk load order against testdata/process/expected.md.

  * The shapes of logs people capture (inserted_world, dyld4_lazy, make_cache variants):
    DYLD_INSERT_LIBRARIES dylibs, moved ahead of the main executable in state.loaded
    (dyldMain.cpp:638 at dyld-1231.3, DyldRuntimeState.cpp:653 at dyld-1323.3), so fixed up and
    searched first; an image without bind targets, whose page-in lines are all it prints; a
    renamed re-export, after which a bind line prints the name found in the target image
    (Loader::hasExportedSymbol, Loader.cpp:3270-3302 at dyld-1378); a function-variant export,
    non-weak in coalescing (:3305-3323), printed "<%s/variant-table#%d('%s')>)"
    (JustInTimeLoader.cpp:814); and a lazy-load dylib (LC_LAZY_LOAD_DYLIB_INFO, dyld-1376.6),
    dlopen'ed on first use by _dyld_lazy_load (DyldAPIs.cpp:4301), after the launch, when
    page-in linking prints nothing (Loader.cpp:2129).

dyld2 (tag dyld-852.2 = macOS 11)
  * ImageLoaderMachO::bindLocation (src/ImageLoaderMachO.cpp:1970, formats at :1980 and :1985):
    "dyld: %sbind: %s:0x%08lX = %s:%s, *0x%08lX = 0x%08lX" with "" / "lazy " /
    "weak " and " + %ld" when the addend is not 0; the value printed is the
    symbol address without the addend.
  * ImageLoader::weakBind -> weakBindOld (src/ImageLoader.cpp:1018-1023,
    useNewWeakBind is false): at launch (linkingMainExecutable) the
    merge of the weak-bind streams of all images with MH_WEAK_DEFINES or
    MH_BINDS_TO_WEAK (src/ImageLoader.cpp:1418-1550, src/dyld2.cpp:4655;
    the iterator is ImageLoaderMachOCompressed::incrementCoalIterator /
    updateUsesCoalIterator, src/ImageLoaderMachOCompressed.cpp:1688/1793).
    A symbol is processed only when two streams are positioned on the same
    name; the streams are assumed sorted by name (ld64 sorts them, lld-22
    does not, see the README), so some uses are never rebound.
"""

import os
import re
import shutil
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.normpath(os.path.join(HERE, "..", "bin"))

PID = 4242
PID2 = 4243
SLIDE = 0x4000000  # main executables: 0x100000000 -> 0x104000000
APP_DIR = "/Users/ci/build"

# sTreatAsWeak, common/MachOFile.cpp:3548 at dyld-1231.3 (the last two were
# added in dyld-1122.1; dyld-852.2 has the first 20, src/ImageLoader.cpp:998).
TREAT_AS_WEAK = [
    "__Znwm", "__ZnwmRKSt9nothrow_t",
    "__Znam", "__ZnamRKSt9nothrow_t",
    "__ZdlPv", "__ZdlPvRKSt9nothrow_t", "__ZdlPvm",
    "__ZdaPv", "__ZdaPvRKSt9nothrow_t", "__ZdaPvm",
    "__ZnwmSt11align_val_t", "__ZnwmSt11align_val_tRKSt9nothrow_t",
    "__ZnamSt11align_val_t", "__ZnamSt11align_val_tRKSt9nothrow_t",
    "__ZdlPvSt11align_val_t", "__ZdlPvSt11align_val_tRKSt9nothrow_t", "__ZdlPvmSt11align_val_t",
    "__ZdaPvSt11align_val_t", "__ZdaPvSt11align_val_tRKSt9nothrow_t", "__ZdaPvmSt11align_val_t",
    "__ZnwmSt19__type_descriptor_t", "__ZnamSt19__type_descriptor_t",
]
TREAT_AS_WEAK_20 = TREAT_AS_WEAK[:20]

M64 = (1 << 64) - 1


# --------------------------------------------------------------------------
# llvm-objdump


def objdump_path():
    env = os.environ.get("LLVM_OBJDUMP")
    if env:
        return env
    for cand in ("llvm-objdump-22",):
        p = shutil.which(cand)
        if p:
            return p
    p = "/usr/lib/llvm-22/bin/llvm-objdump"
    if os.path.exists(p):
        return p
    sys.exit("gen.py: llvm-objdump from LLVM 22 not found (set LLVM_OBJDUMP)")


def objdump(path, *opts):
    out = subprocess.run([objdump_path(), "--macho"] + list(opts) + [path],
                         check=True, stdout=subprocess.PIPE, env=dict(os.environ, LC_ALL="C"))
    return out.stdout.decode("utf-8")


def parse_private_headers(path):
    """Load commands as a list of dicts (Section blocks become sub-lists)."""
    text = objdump(path, "--private-headers")
    lines = text.splitlines()
    hdr_flags = None
    filetype = None
    for i, ln in enumerate(lines):
        if ln.strip().startswith("magic cputype"):
            parts = lines[i + 1].split()
            filetype = parts[4]
            hdr_flags = parts[7:]
            break
    cmds = []
    cur = None
    cursect = None
    for ln in lines:
        s = ln.strip()
        if s.startswith("Load command"):
            cur = {"sections": []}
            cmds.append(cur)
            cursect = None
            continue
        if cur is None:
            continue
        if s == "Section":
            cursect = {}
            cur["sections"].append(cursect)
            continue
        kv = s.split(None, 1)
        if len(kv) != 2:
            continue
        k, v = kv
        target = cursect if (cursect is not None and k in ("sectname", "segname", "addr", "size")) else cur
        if k not in target:
            target[k] = v
    return filetype, hdr_flags, cmds


class MachO:
    """What dyld needs from one fixture, read with llvm-objdump + raw bytes."""

    def __init__(self, name, path=None):
        self.name = name
        self.path = path or os.path.join(BIN, name)
        with open(self.path, "rb") as f:
            self.data = f.read()
        self.filetype, self.flags, cmds = parse_private_headers(self.path)
        self.segments = []
        self.dylibs = []
        self.dylib_cmds = []  # (load command, path), in order
        self.rpaths = []
        self.uuid = None
        self.dyld_info = None
        self.chained = False
        self.install_name = None
        for c in cmds:
            cmd = c.get("cmd")
            if cmd == "LC_SEGMENT_64":
                self.segments.append({
                    "name": c["segname"], "vmaddr": int(c["vmaddr"], 16), "vmsize": int(c["vmsize"], 16),
                    "fileoff": int(c["fileoff"]), "filesize": int(c["filesize"]),
                    "initprot": c["initprot"], "flags": c.get("flags", "(none)"),
                })
            elif cmd in ("LC_DYLD_INFO", "LC_DYLD_INFO_ONLY"):
                self.dyld_info = {k: int(c[k]) for k in (
                    "rebase_off", "rebase_size", "bind_off", "bind_size", "weak_bind_off",
                    "weak_bind_size", "lazy_bind_off", "lazy_bind_size")}
            elif cmd == "LC_DYLD_CHAINED_FIXUPS":
                self.chained = True
            elif cmd == "LC_UUID":
                self.uuid = c["uuid"]
            elif cmd in ("LC_LOAD_DYLIB", "LC_LOAD_WEAK_DYLIB", "LC_REEXPORT_DYLIB"):
                self.dylibs.append(c["name"].split(" (offset")[0])
                self.dylib_cmds.append((cmd, self.dylibs[-1]))
            elif cmd == "LC_RPATH":
                self.rpaths.append(c["path"].split(" (offset")[0])
            elif cmd == "LC_ID_DYLIB":
                self.install_name = c["name"].split(" (offset")[0]
        self.is_exec = self.filetype == "EXECUTE"
        self.weak_defines = "WEAK_DEFINES" in self.flags
        self.base = [s for s in self.segments if s["name"] == "__TEXT"][0]["vmaddr"]
        self.exports = self._exports()
        if self.chained:
            self.imports, self.chain_segs = self._chained_imports()
            self.chained_sites = self._chained_sites()
        else:
            self.rebases = self._rebase_opcodes()
            self.binds = self._bind_opcodes("bind")
            self.lazy_binds = self._bind_opcodes("lazy")
            self.weak_ops = self._weak_opcodes()
            self._crosscheck_opcodes()

    # -- helpers
    def seg_addr(self, idx):
        return self.segments[idx]["vmaddr"]

    def read_ptr(self, vmaddr):
        for s in self.segments:
            if s["vmaddr"] <= vmaddr < s["vmaddr"] + s["filesize"]:
                off = s["fileoff"] + vmaddr - s["vmaddr"]
                return int.from_bytes(self.data[off:off + 8], "little")
        raise ValueError("no file content at 0x%x in %s" % (vmaddr, self.name))

    def _exports(self):
        out = {}
        for ln in objdump(self.path, "--exports-trie").splitlines():
            m = re.match(r"^(0x[0-9A-Fa-f]+)\s+(\S+)(?:\s+\[(.*)\])?$", ln.strip())
            if not m:
                continue
            flags = [f.strip() for f in (m.group(3) or "").split(",") if f.strip()]
            out[m.group(2)] = {"addr": int(m.group(1), 16), "weak": "weak_def" in flags,
                               "tls": "per-thread" in flags}
        return out

    def _chained_imports(self):
        text = objdump(self.path, "--chained-fixups")
        imports = []
        segs = {}
        cur_seg = None
        for ln in text.splitlines():
            s = ln.strip()
            m = re.match(r"dyld chained import\[(\d+)\]", s)
            if m:
                assert int(m.group(1)) == len(imports)
                imports.append({})
                cur_seg = None
                continue
            m = re.match(r"chained starts in segment (\d+) \((\S+)\)", s)
            if m:
                cur_seg = {"index": int(m.group(1)), "name": m.group(2)}
                segs[cur_seg["index"]] = cur_seg
                continue
            kv = [x.strip() for x in s.split("=", 1)]
            if len(kv) != 2:
                continue
            k, v = kv
            if imports and cur_seg is None:
                if k == "lib_ordinal":
                    imports[-1]["ordinal"] = int(v.split()[0])
                elif k == "weak_import":
                    imports[-1]["weak_import"] = int(v) != 0
                elif k == "name_offset":
                    imports[-1]["name"] = re.match(r"\d+ \((.*)\)$", v).group(1)
            elif cur_seg is not None and k in ("page_size", "page_count", "segment_offset", "pointer_format"):
                cur_seg[k] = int(v.split()[0], 0)
        return imports, segs

    def _chained_sites(self):
        """--dyld-info rows: (address, kind, dylib, symbol)."""
        rows = []
        for ln in objdump(self.path, "--dyld-info").splitlines()[3:]:
            p = ln.split()
            if len(p) >= 8 and p[4] == "bind":
                rows.append((int(p[2], 16), p[6], p[7]))
        return rows

    # -- LC_DYLD_INFO opcode streams (same decoding as dyld's MachOLayout.cpp)
    def _stream(self, which):
        off = self.dyld_info[which + "_off"]
        return self.data[off:off + self.dyld_info[which + "_size"]]

    @staticmethod
    def _uleb(buf, p):
        r = s = 0
        while True:
            b = buf[p]
            p += 1
            r |= (b & 0x7F) << s
            s += 7
            if not b & 0x80:
                return r & M64, p

    @staticmethod
    def _sleb(buf, p):
        r = s = 0
        while True:
            b = buf[p]
            p += 1
            r |= (b & 0x7F) << s
            s += 7
            if not b & 0x80:
                if b & 0x40:
                    r -= 1 << s
                return r, p

    def _rebase_opcodes(self):
        buf = self._stream("rebase")
        p, out, seg, addr = 0, [], 0, 0
        while p < len(buf):
            b = buf[p]
            p += 1
            op, imm = b & 0xF0, b & 0x0F
            if op == 0x00:
                break
            elif op == 0x10:  # SET_TYPE_IMM
                pass
            elif op == 0x20:  # SET_SEGMENT_AND_OFFSET_ULEB
                off, p = self._uleb(buf, p)
                addr = self.seg_addr(imm) + off
            elif op == 0x30:  # ADD_ADDR_ULEB
                v, p = self._uleb(buf, p)
                addr = (addr + v) & M64
            elif op == 0x40:  # ADD_ADDR_IMM_SCALED
                addr += imm * 8
            elif op == 0x50:  # DO_REBASE_IMM_TIMES
                for _ in range(imm):
                    out.append(addr)
                    addr += 8
            elif op == 0x60:  # DO_REBASE_ULEB_TIMES
                n, p = self._uleb(buf, p)
                for _ in range(n):
                    out.append(addr)
                    addr += 8
            elif op == 0x70:  # DO_REBASE_ADD_ADDR_ULEB
                v, p = self._uleb(buf, p)
                out.append(addr)
                addr = (addr + v + 8) & M64
            elif op == 0x80:  # DO_REBASE_ULEB_TIMES_SKIPPING_ULEB
                n, p = self._uleb(buf, p)
                skip, p = self._uleb(buf, p)
                for _ in range(n):
                    out.append(addr)
                    addr = (addr + skip + 8) & M64
            else:
                raise ValueError("rebase opcode 0x%02x" % b)
        return out

    def _bind_opcodes(self, which):
        """Regular or lazy binds: dicts with addr, name, ordinal, addend, new_target.

        new_target follows Fixups::forEachBind_OpcodesRegular (SET_SYMBOL or
        SET_ADDEND since the last bind) and forEachBind_OpcodesLazy (always)."""
        buf = self._stream("lazy_bind" if which == "lazy" else "bind")
        p, out = 0, []
        seg_addr = ordinal = addend = 0
        name = None
        changed = False
        while p < len(buf):
            b = buf[p]
            p += 1
            op, imm = b & 0xF0, b & 0x0F
            if op == 0x00:
                if which == "lazy":
                    continue
                break
            elif op == 0x10:
                ordinal = imm
            elif op == 0x20:
                ordinal, p = self._uleb(buf, p)
            elif op == 0x30:
                ordinal = 0 if imm == 0 else (imm | 0xF0) - 0x100
            elif op == 0x40:
                e = buf.index(b"\0", p)
                name = buf[p:e].decode("ascii")
                p = e + 1
                changed = True
            elif op == 0x50:
                pass
            elif op == 0x60:
                addend, p = self._sleb(buf, p)
                changed = True
            elif op == 0x70:
                off, p = self._uleb(buf, p)
                seg_addr = self.seg_addr(imm) + off
            elif op == 0x80:
                v, p = self._uleb(buf, p)
                seg_addr = (seg_addr + v) & M64
            elif op in (0x90, 0xA0, 0xB0, 0xC0):
                count, skip = 1, 0
                if op == 0xA0:
                    skip, p = self._uleb(buf, p)
                elif op == 0xB0:
                    skip = imm * 8
                elif op == 0xC0:
                    count, p = self._uleb(buf, p)
                    skip, p = self._uleb(buf, p)
                for _ in range(count):
                    out.append({"addr": seg_addr, "name": name, "ordinal": ordinal, "addend": addend,
                                "new_target": True if which == "lazy" else changed})
                    changed = False
                    seg_addr = (seg_addr + 8 + skip) & M64
            else:
                raise ValueError("bind opcode 0x%02x" % b)
        return out

    def _weak_opcodes(self):
        """The weak_bind stream as a list of ops, kept close to the bytes so that
        both dyld4's target rule and dyld2's coalescing iterator can be replayed.
        Each op: (kind, value) with kind in SYM (name, name_offset, strong),
        TYPE, ADDEND, SEG (absolute address), ADD (delta), BIND (skip after),
        TIMES (count, skip), DONE."""
        buf = self._stream("weak_bind")
        p, ops = 0, []
        while p < len(buf):
            b = buf[p]
            p += 1
            op, imm = b & 0xF0, b & 0x0F
            if op == 0x00:
                ops.append(("DONE", None))
                break
            elif op == 0x40:
                e = buf.index(b"\0", p)
                ops.append(("SYM", (buf[p:e].decode("ascii"), p, bool(imm & 0x8))))
                p = e + 1
            elif op == 0x50:
                ops.append(("TYPE", imm))
            elif op == 0x60:
                v, p = self._sleb(buf, p)
                ops.append(("ADDEND", v))
            elif op == 0x70:
                off, p = self._uleb(buf, p)
                ops.append(("SEG", self.seg_addr(imm) + off))
            elif op == 0x80:
                v, p = self._uleb(buf, p)
                ops.append(("ADD", v))
            elif op == 0x90:
                ops.append(("BIND", 0))
            elif op == 0xA0:
                v, p = self._uleb(buf, p)
                ops.append(("BIND", v))
            elif op == 0xB0:
                ops.append(("BIND", imm * 8))
            elif op == 0xC0:
                n, p = self._uleb(buf, p)
                skip, p = self._uleb(buf, p)
                ops.append(("TIMES", (n, skip)))
            else:
                raise ValueError("weak bind opcode 0x%02x in %s" % (b, self.name))
        return ops

    def weak_sites(self):
        """(addr, name, name_offset, addend) for every weak bind location, in
        stream order, plus the strong names."""
        sites, strong = [], []
        name = name_off = None
        addend = addr = 0
        for kind, v in self.weak_ops:
            if kind == "DONE":
                break
            if kind == "SYM":
                name, name_off, is_strong = v
                if is_strong:
                    strong.append(name)
            elif kind == "ADDEND":
                addend = v
            elif kind == "SEG":
                addr = v
            elif kind == "ADD":
                addr = (addr + v) & M64
            elif kind == "BIND":
                sites.append((addr, name, name_off, addend))
                addr = (addr + 8 + v) & M64
            elif kind == "TIMES":
                n, skip = v
                for _ in range(n):
                    sites.append((addr, name, name_off, addend))
                    addr = (addr + 8 + skip) & M64
        return sites, strong

    def weak_targets(self):
        """Fixups::forEachBindUnified_Opcodes weak rule (common/MachOLayout.cpp:852
        at dyld-1231.3): a new target when the name pointer or the addend differs
        from the current target's, looked at only when a bind runs."""
        sites, _ = self.weak_sites()
        targets, site_target = [], []
        cur = None
        for addr, name, name_off, addend in sites:
            if cur is None or cur[1] != name_off or cur[2] != addend:
                cur = (name, name_off, addend)
                targets.append({"name": name, "addend": addend})
            site_target.append(len(targets) - 1)
        return targets, [(s[0], t) for s, t in zip(sites, site_target)]

    def _crosscheck_opcodes(self):
        """Compare the raw decoding with llvm-objdump's tables (same rows, same order)."""
        def table(opt, ncols_min):
            rows = []
            for ln in objdump(self.path, opt).splitlines():
                p = ln.split()
                if len(p) >= ncols_min and p[0].startswith("__") and p[2].startswith("0x"):
                    rows.append(p)
            return rows
        reb = [int(r[2], 16) for r in table("--rebase", 4)]
        assert reb == self.rebases, "rebase mismatch in " + self.name
        bnd = [(int(r[2], 16), r[-1], int(r[4])) for r in table("--bind", 7)]
        assert bnd == [(b["addr"], b["name"], b["addend"]) for b in self.binds], "bind mismatch " + self.name
        lz = [(int(r[2], 16), r[-1]) for r in table("--lazy-bind", 5)]
        assert lz == [(b["addr"], b["name"]) for b in self.lazy_binds], "lazy mismatch " + self.name
        wk = []
        strong_od = []
        for ln in objdump(self.path, "--weak-bind").splitlines():
            p = ln.split()
            if len(p) == 2 and p[0] == "strong":
                strong_od.append(p[1])
            elif len(p) >= 6 and p[2].startswith("0x"):
                wk.append((int(p[2], 16), p[5], int(p[4])))
        sites, strong = self.weak_sites()
        assert wk == [(a, n, ad) for a, n, _, ad in sites], "weak-bind mismatch " + self.name
        assert strong_od == strong, "strong mismatch " + self.name


# --------------------------------------------------------------------------
# The simulated process: images, the made-up shared cache


def cache_addr(base, name):
    return base + 0x1000 + (zlib.crc32(name.encode()) % 0x3F000) // 16 * 16


class Image:
    def __init__(self, path, in_cache, weak_defines, base, exports, macho=None, deps=(), reexports=()):
        self.path = path
        self.leaf = path.rsplit("/", 1)[-1]
        self.in_cache = in_cache
        self.weak_defines = weak_defines
        self.base = base
        self.exports = exports  # name -> (runtime address, is_weak)
        self.macho = macho
        self.deps = list(deps)  # images, in LC_LOAD_DYLIB order
        self.reexports = list(reexports)
        self.patch_uses = {}  # export name -> [cache locations using it]
        # renamed re-exports of the export trie: name -> (image, name there)
        self.renamed = {}
        # function-variant exports (EXPORT_SYMBOL_FLAGS_FUNCTION_VARIANT): name -> table index;
        # their `exports` entry is (default implementation's address, False): dyld-1284.13+
        # Loader::hasExportedSymbol returns isWeakDef = false for them (Loader.cpp:3305-3323 at
        # dyld-1378)
        self.variants = {}

    def is_opcodes(self):
        return self.macho is not None and not self.macho.chained


def image_from_macho(m, path, base):
    exports = {}
    for name, e in m.exports.items():
        exports[name] = (e["addr"] - m.base + base, e["weak"])
    return Image(path, False, m.weak_defines, base, exports, macho=m)


def make_cache(os_name, variant=None):
    """A made-up shared cache. Only the images that matter are modelled:
    libSystem.B.dylib re-exports the others (so that binds to libSystem
    resolve, as in the fixtures' hand-written libSystem.tbd); libc++abi.dylib
    has MH_WEAK_DEFINES and exports operator new/delete as weak definitions,
    like the real one (libc++abi's new.cpp marks them _LIBCPP_WEAK)."""
    if os_name == "macos11":
        bump = 0x7FFF2A000000 - 0x7FF81A000000
        typed = False
    else:
        bump = {"macos14": 0x0, "macos15": 0x1240000, "macos26": 0x2480000}[os_name]
        typed = True
    b = lambda x: x + bump  # noqa: E731
    c = {}
    abi_base = b(0x7FF81A5D8000)
    abi_names = list(TREAT_AS_WEAK if typed else TREAT_AS_WEAK_20)
    if variant == "no-typed-new":
        abi_names = TREAT_AS_WEAK_20
    abi_weak = variant != "strong-new"
    abi_exports = {n: (cache_addr(abi_base, n), abi_weak) for n in abi_names}
    for n in ("___cxa_guard_acquire", "___cxa_guard_release"):
        abi_exports[n] = (cache_addr(abi_base, n), False)
    c["abi"] = Image("/usr/lib/libc++abi.dylib", True, True, abi_base, abi_exports)
    cxx_base = b(0x7FF81A552000)
    c["cxx"] = Image("/usr/lib/libc++.1.dylib", True, True, cxx_base, {
        "__ZNSt3__16vectorIcNS_9allocatorIcEEE20__throw_length_errorB8ne180100Ev":
            (cache_addr(cxx_base, "vector"), True)})
    dyld_base = b(0x7FF81A3EE000)
    c["libdyld"] = Image("/usr/lib/system/libdyld.dylib", True, False, dyld_base, {
        n: (cache_addr(dyld_base, n), False) for n in ("dyld_stub_binder", "__tlv_bootstrap")})
    libc_base = b(0x7FF81A0FF000)
    c["libc"] = Image("/usr/lib/system/libsystem_c.dylib", True, False, libc_base,
                      {"_puts": (cache_addr(libc_base, "_puts"), False)})
    kern_base = b(0x7FF81A2D5000)
    c["kernel"] = Image("/usr/lib/system/libsystem_kernel.dylib", True, False, kern_base,
                        {"_write": (cache_addr(kern_base, "_write"), False)})
    c["system"] = Image("/usr/lib/libSystem.B.dylib", True, False, b(0x7FF8245A1000), {},
                        reexports=[c["libc"], c["kernel"], c["libdyld"], c["abi"]])
    if variant == "renamed":
        # Sized delete forwarded to unsized delete: libc++abi does not export __ZdlPvm, and
        # libc++'s export trie has it as a re-export of libc++abi's __ZdlPv (an
        # EXPORT_SYMBOL_FLAGS_REEXPORT entry with an import name). Made up, like the rest.
        # libSystem re-exports libc++ too here, so that the two-level binds of __ZdlPvm to
        # libSystem resolve (through the same renamed entry).
        del c["abi"].exports["__ZdlPvm"]
        c["cxx"].renamed["__ZdlPvm"] = (c["abi"], "__ZdlPv")
        c["system"].reexports.append(c["cxx"])
    if variant == "fvariant":
        # libc++ exports operator new as a function variant (non-weak, variant table 0): made
        # up. libc++abi's weak definition is found first; the variant, later in the search,
        # replaces it for a chained requester ("non-weak wins over previous weak-def",
        # Loader.cpp:3025-3031 at dyld-1378); an opcode requester skips it, a non-weak
        # definition in the shared cache (rdar://75956202, :3010-3013).
        c["cxx"].exports["__Znwm"] = (cache_addr(c["cxx"].base, "__Znwm"), False)
        c["cxx"].variants["__Znwm"] = 0
    # Patchable uses in the cache (made up): libc++ and libc++abi each use
    # every operator new/delete once through their GOT.
    data_base = b(0x7FF84A0C0000)
    for i, n in enumerate(abi_names):
        c["abi"].patch_uses[n] = [data_base + 0x3110 + 8 * i, data_base + 0x19A48 + 8 * i]
    return c


def resolve_in(img, name):
    """Two-level namespace lookup in a dylib and what it re-exports. Returns (image, address),
    and the name there when a renamed re-export led to it."""
    if name in img.exports:
        return img, img.exports[name][0]
    if name in img.renamed:
        tgt, tname = img.renamed[name]
        got = resolve_in(tgt, tname)
        return got and (got[0], got[1], got[2] if len(got) > 2 else tname)
    for r in img.reexports:
        got = resolve_in(r, name)
        if got:
            return got
    return None


# --------------------------------------------------------------------------
# dyld4


class Dyld4:
    def __init__(self, version, pid, loaded, main=None, inserted=()):
        assert version in ("1122", "1231", "1323", "1376")
        self.version = version
        # dyld-1376.6 (macOS 26.4) prints what dyld-1323.3 prints
        self.v1323 = version in ("1323", "1376")
        self.pid = pid
        self.loaded = loaded
        # inserted dylibs come before the main executable in state.loaded
        self.main = main or loaded[0]
        self.inserted = list(inserted)
        self.launched = False
        self.out = []  # (kind, text, info)
        self.fixed_up = set()
        self.cache_mem = {}
        self.error = None

    def log(self, text, kind="other", **info):
        self.out.append((kind, text, info))

    # Loader::resolveSymbol, BIND_SPECIAL_DYLIB_WEAK_LOOKUP
    def weak_lookup(self, requester, name, weak_import, role):
        verbose = self.version != "1122"
        if verbose:
            self.log("looking for weak-def symbol '%s':" % name, "lookup", name=name, image=requester, role=role)
        opcode_client = (not requester.in_cache) and requester.is_opcodes()
        found = None  # (image, addr, weak, name in that image)
        cache_results = []

        def patch_block():
            if found and cache_results and not found[0].in_cache:
                patched = None
                for cimg, caddr in cache_results:
                    if caddr != patched:
                        if verbose:
                            self.log("  found use of '%s' in cache, need to override: %s" % (name, cimg.path),
                                     "found_use", name=name)
                        self.cache_patch(cimg, name, found[1])
                        patched = caddr

        lists = [self.loaded] if self.version == "1122" else [self.loaded, []]
        for lst in lists:
            for ldr in lst:
                if not ldr.weak_defines:
                    continue
                # Loader::hasExportedSymbol: a renamed re-export is followed (the search is
                # promoted to a static link), and the result names the image and the name there
                # (dyld/Loader.cpp:3270-3302 at dyld-1378)
                if name in ldr.exports:
                    tgt, tname = ldr, name
                elif name in ldr.renamed:
                    tgt, tname = ldr.renamed[name]
                    if tname not in tgt.exports:
                        continue
                else:
                    continue
                addr, weak = tgt.exports[tname]
                if opcode_client and not weak and ldr.in_cache:
                    continue  # rdar://75956202
                if tgt.in_cache and ldr not in self.fixed_up:
                    cache_results.append((tgt, addr))
                if found is None:
                    found = (tgt, addr, weak, tname, tgt.variants.get(tname))
                    if verbose:
                        self.log("  using '%s' in %s" % (name, tgt.path), "using", name=name, supplier=tgt)
                if not weak and found[2]:
                    found = (tgt, addr, weak, tname, tgt.variants.get(tname))
                    if verbose:
                        self.log("  using non-weak '%s' in %s" % (name, tgt.path), "using", name=name, supplier=tgt)
            if self.v1323:
                if found:
                    break
            else:
                patch_block()  # inside the list loop up to dyld-1231.3
        if self.v1323:
            patch_block()
        if found:
            return found
        if not weak_import:
            return "error"
        return None

    def cache_patch(self, cimg, name, new_impl):
        for loc in cimg.patch_uses.get(name, []):
            if self.cache_mem.get(loc) != new_impl:
                self.log("cache patch: 0x%x = 0x%X" % (loc, new_impl), "cache_patch")
                self.cache_mem[loc] = new_impl

    def handle_strong_weak_def_overrides(self):
        ldr = self.main if self.main.weak_defines else None
        if ldr is None:
            for l in self.loaded:
                if not l.in_cache and l.weak_defines and l.is_opcodes():
                    ldr = l
                    break
        if ldr is not None:
            for n in TREAT_AS_WEAK:
                self.weak_lookup(ldr, n, True, "override")

    def bind_line(self, img, idx, addr, tgt, name, override, appended=False, looked_up=None, variant=None):
        """`name` is the target's name in the image bound to (target.targetSymbolName, which a
        renamed re-export changes); `looked_up`, when given, the name the image binds;
        `variant`, the function-variant table index of a target that is one."""
        if self.v1323 and not override and variant is not None:
            # JustInTimeLoader.cpp:814 at dyld-1378 (dyld-1323.3+)
            text = "<%s/bind#%d> -> 0x%x <%s/variant-table#%d('%s')>)" % (
                img.leaf, idx, addr, tgt.leaf, variant, name)
        elif self.v1323 and not override:
            text = "<%s/bind#%d> -> 0x%x <%s/%s>)" % (img.leaf, idx, addr, tgt.leaf if tgt else "<none>", name)
        else:
            text = "<%s/bind#%d> -> 0x%x (%s/%s)" % (img.leaf, idx, addr, tgt.leaf if tgt else "<none>", name)
        self.log(text, "bind",
                 image=img, index=idx, name=looked_up or name, printed=name, override=override, addr=addr,
                 target=tgt, appended=appended)

    def fixup(self, loc, value, suffix):
        if self.v1323:
            return "fixup: *0x%010X = 0x%016X%s" % (loc, value, suffix)
        return "fixup: *0x%012X = 0x%012X%s" % (loc, value, suffix)

    def resolve_ordinal(self, img, ordinal, name, weak_import=False):
        dep = img.deps[ordinal - 1]
        if dep is None:
            # a weak-linked dylib that is missing: no target loader, and a weak
            # import binds to 0 (Loader::resolveSymbol, dyld/Loader.cpp:2492-2494,
            # :2748-2751 at dyld-1231.3); printed as "<none>" (JustInTimeLoader.cpp:814)
            assert weak_import, (img.path, name)
            return None, 0, name
        got = resolve_in(dep, name)
        assert got, (img.path, name)
        # the bind line prints the name in the image bound to (a renamed re-export's)
        return got[0], got[1], got[2] if len(got) > 2 else name

    def apply_fixups(self, img):
        if img.in_cache:
            self.fixed_up.add(img)
            return True
        m = img.macho
        slide = img.base - m.base
        if m.chained:
            idx = 0
            errors = []
            targets = [(imp["ordinal"], imp["name"], imp["weak_import"]) for imp in m.imports]
            if m.is_exec and m.weak_defines:
                targets += [(-3, n, False) for n in TREAT_AS_WEAK]
            for ordinal, name, weak_import in targets:
                appended = idx >= len(m.imports)
                if ordinal == -3:
                    r = self.weak_lookup(img, name, weak_import, "bind")
                    if r in (None, "error"):
                        if r == "error":
                            errors.append(name)
                        self.bind_line(img, idx, 0, None, name, False, appended)
                    else:
                        self.bind_line(img, idx, r[1], r[0], r[3], False, appended, looked_up=name, variant=r[4])
                else:
                    tgt, addr, printed = self.resolve_ordinal(img, ordinal, name, weak_import)
                    self.bind_line(img, idx, addr, tgt, printed, False, looked_up=name)
                idx += 1
            if errors:
                msg = ""
                for name in errors:
                    msg += ("Symbol not found: %s\n  Referenced from: <%s> %s\n"
                            "  Expected as weak-def export from some loaded dylib" % (name, m.uuid, img.path))
                self.error = msg
                return False
            # Loader::setUpPageInLinking: kernel regions only
            kernel = []
            for si, seg in enumerate(m.segments):
                cs = m.chain_segs.get(si)
                if cs is None:
                    continue
                ro = "SG_READ_ONLY" in seg["flags"]
                if (ro or cs["page_count"] > 1) and len(kernel) < 5:
                    kernel.append((seg, cs))
            # After the launch (libSystem initialized: a dlopen'ed image) every region goes to
            # dyld_map_with_linking_np, which prints nothing (Loader.cpp:2055 at dyld-1231.3,
            # :2129 and :2091-2105 at dyld-1378).
            if kernel and not self.launched:
                self.log("Setting up kernel page-in linking for %s" % img.path, "pagein")
                for seg, cs in kernel:
                    prot = seg["initprot"]
                    size = cs["page_size"] * cs["page_count"]
                    start = seg["vmaddr"] + slide
                    self.log("%14s (%s) 0x%012X->0x%012X (fileOffset=0x%X, size=%dKB)" % (
                        seg["name"], prot.replace("-", "."), start, start + size, seg["fileoff"], size // 1024),
                        "pagein")
            self.fixed_up.add(img)
            return True
        # opcode image
        reg_targets = []
        for b in m.binds:
            if b["new_target"]:
                reg_targets.append(b)
            b["target"] = len(reg_targets) - 1
        for b in m.lazy_binds:
            reg_targets.append(b)
            b["target"] = len(reg_targets) - 1
        reg_addrs = []
        for i, b in enumerate(reg_targets):
            tgt, addr, printed = self.resolve_ordinal(img, b["ordinal"], b["name"])
            addr += b["addend"]
            reg_addrs.append(addr)
            self.bind_line(img, i, addr, tgt, printed, False, looked_up=b["name"])
        wtargets, wsites = m.weak_targets()
        w_addrs = []
        for i, t in enumerate(wtargets):
            r = self.weak_lookup(img, t["name"], False, "bind")
            if r in (None, "error"):
                self.log("<%s/bind#%d> -> missing-weak-bind (%s)" % (img.leaf, i, t["name"]), "bind",
                         image=img, index=i, name=t["name"], override=True, addr=None, target=None)
                w_addrs.append(None)
            else:
                addr = r[1] + t["addend"]
                w_addrs.append(addr)
                self.bind_line(img, i, addr, r[0], r[3], True, looked_up=t["name"])
        for loc in m.rebases:
            self.log(self.fixup(loc + slide, m.read_ptr(loc) + slide, " <rebase>"), "fixup")
        for b in m.binds + m.lazy_binds:
            self.log(self.fixup(b["addr"] + slide, reg_addrs[b["target"]],
                                " <%s/bind#%d>" % (img.leaf, b["target"])), "fixup")
        for loc, ti in wsites:
            if w_addrs[ti] is None:
                fmt = "fixup: *0x%010X" if self.v1323 else "fixup: *0x%012X"
                self.log((fmt % (loc + slide)) + " (skipping missing weak bind) <%s/weak-bind#%d>" % (img.leaf, ti),
                         "weak_fixup", image=img)
            else:
                self.log(self.fixup(loc + slide, w_addrs[ti], " <%s/weak-bind#%d>" % (img.leaf, ti)),
                         "weak_fixup", image=img)
        self.fixed_up.add(img)
        return True

    def run(self):
        self.handle_strong_weak_def_overrides()
        for ldr in self.loaded:
            if not self.apply_fixups(ldr):
                # halt() -> console("%s\n", message)
                self.log(self.error, "halt")
                break
        self.launched = True
        return self

    def text_lines(self):
        """One string per printed line (a multi-line message continues unprefixed)."""
        lines = []
        for kind, text, info in self.out:
            parts = text.split("\n")
            lines.append("dyld[%d]: %s" % (self.pid, parts[0]))
            lines.extend(parts[1:])
        return lines


# --------------------------------------------------------------------------
# dyld2 (dyld-852.2)


class CoalIter:
    def __init__(self, img, ops, weak_bound=False):
        self.img = img
        self.ops = ops
        self.name = " "
        self.weak = False
        self.matches = False
        self.done = False
        self.cur = 0
        self.address = 0
        self.type = 0
        self.addend = 0
        self.weak_bound = weak_bound


def cstr_cmp(a, b):
    a, b = a.encode(), b.encode()
    return (a > b) - (a < b)


class Dyld2:
    """ImageLoader::weakBindOld launch path + bindLocation, dyld-852.2."""

    def __init__(self, main, participants, streams):
        self.main = main
        self.participants = participants  # load order
        self.streams = streams  # image -> ops
        self.out = []

    def log(self, text, kind="other", **info):
        self.out.append((kind, text, info))

    def bind_location(self, msg, img, loc, value, tgt, name, addend):
        if addend:
            text = "dyld: %sbind: %s:0x%08X = %s:%s, *0x%08X = 0x%08X + %d" % (
                msg, img.leaf, loc, tgt.leaf if tgt else "<missing weak_import>", name, loc, value, addend)
        else:
            text = "dyld: %sbind: %s:0x%08X = %s:%s, *0x%08X = 0x%08X" % (
                msg, img.leaf, loc, tgt.leaf if tgt else "<missing weak_import>", name, loc, value)
        self.log(text, msg.strip() + "bind" if msg else "bind", image=img, name=name, target=tgt)

    # ImageLoaderMachOCompressed::incrementCoalIterator
    def increment(self, it):
        if it.done:
            return False
        ops = it.ops
        i = it.cur
        while i < len(ops):
            kind, v = ops[i]
            i += 1
            if kind == "DONE":
                it.done = True
                it.cur = i
                it.name = "~~~"
                return True
            if kind == "SYM":
                it.name = v[0]
                it.weak = not v[2]
                it.matches = False
                it.cur = i
                return False
            if kind == "TYPE":
                it.type = v
            elif kind == "ADDEND":
                it.addend = v
            elif kind == "SEG":
                it.address = v
            elif kind == "ADD":
                it.address = (it.address + v) & M64
            elif kind == "BIND":
                it.address = (it.address + v + 8) & M64
            elif kind == "TIMES":
                it.address = (it.address + v[0] * (v[1] + 8)) & M64
        it.done = True
        it.name = "~~~"
        return True

    # ImageLoaderMachOCompressed::updateUsesCoalIterator
    def update_uses(self, it, value, tgt):
        address, addend = it.address, it.addend
        for kind, v in it.ops[it.cur:]:
            if kind in ("DONE", "SYM"):
                break
            if kind == "ADDEND":
                addend = v
            elif kind == "SEG":
                address = v
            elif kind == "ADD":
                address = (address + v) & M64
            elif kind == "BIND":
                self.bind_location("weak ", it.img, address, value, tgt, it.name, addend)
                address = (address + v + 8) & M64
            elif kind == "TIMES":
                for _ in range(v[0]):
                    self.bind_location("weak ", it.img, address, value, tgt, it.name, addend)
                    address = (address + v[1] + 8) & M64

    def get_address(self, it):
        e = it.img.exports.get(it.name)
        return e[0] if e else 0

    def weak_bind(self):
        self.log("dyld: weak bind start:")
        its = [CoalIter(img, self.streams[img]) for img in self.participants]
        n = len(its)
        for i, it in enumerate(its):
            self.log("dyld: weak bind load order %d/%d for %s" % (i, n, it.img.path))
        srt = list(its)
        done = 0
        while done != n:
            if self.increment(srt[0]):
                done += 1
            for i in range(1, n):
                r = cstr_cmp(srt[i - 1].name, srt[i].name)
                if r == 0:
                    srt[i - 1].matches = True
                if r > 0:
                    srt[i - 1], srt[i] = srt[i], srt[i - 1]
                if r < 0:
                    break
            if srt[0].matches and not srt[0].done:
                name = srt[0].name
                taddr, timg = 0, None
                for it in its:
                    if it.name == name:
                        self.log("dyld: weak bind, found %s weak=%d in %s " % (name, 1 if it.weak else 0, it.img.path))
                        if it.weak:
                            if taddr == 0:
                                a = self.get_address(it)
                                if a:
                                    taddr, timg = a, it.img
                        else:
                            a = self.get_address(it)
                            if a:
                                taddr, timg = a, it.img
                                break
                if taddr:
                    self.log("dyld: weak binding all uses of %s to copy from %s" % (name, timg.leaf))
                    for it in its:
                        if it.name == name:
                            self.log("dyld: weak bind, setting all uses of %s in %s to 0x%X from %s" % (
                                name, it.img.leaf, taddr, timg.leaf))
                            if not it.weak_bound:
                                self.update_uses(it, taddr, timg)
                            it.matches = False
        self.log("dyld: weak bind end")


# --------------------------------------------------------------------------
# Building the processes


def app_image(m):
    return image_from_macho(m, "%s/%s" % (APP_DIR, m.name), m.base + SLIDE)


def world(app_macho, os_name, variant=None, libweak_macho=None):
    c = make_cache(os_name, variant)
    app = app_image(app_macho)
    deps = {"/usr/lib/libSystem.B.dylib": c["system"]}
    loaded = [app, c["system"]]
    if libweak_macho is not None:
        lw = image_from_macho(libweak_macho, "%s/libweak.dylib" % APP_DIR, 0x104010000)
        lw.deps = [c["system"]]
        deps["@rpath/libweak.dylib"] = lw
        loaded.append(lw)
    app.deps = [deps[d] for d in app_macho.dylibs]
    # libSystem's own dependents come after the main executable's direct ones
    # (JustInTimeLoader::loadDependents is breadth-first).
    loaded += [c["libc"], c["kernel"], c["libdyld"], c["abi"], c["cxx"]]
    return app, loaded, c


def dyld4_process(version, os_name, app_name, variant=None, libweak=None, pid=PID):
    app_m = MACHO[app_name]
    lw_m = MACHO[libweak] if libweak else None
    app, loaded, c = world(app_m, os_name, variant, lw_m)
    return Dyld4(version, pid, loaded).run()


IMP_DIR = os.path.normpath(os.path.join(HERE, "..", "importers"))
INSERTED = "%s/libweak.dylib:%s/client.dylib" % (APP_DIR, APP_DIR)


def inserted_world(app_macho, os_name, variant=None):
    """DYLD_INSERT_LIBRARIES=/Users/ci/build/libweak.dylib:/Users/ci/build/client.dylib and
    DYLD_LIBRARY_PATH=/Users/ci/build/lib, where client.dylib's @rpath/libapi.dylib is found by
    its leaf name (neither client.dylib nor the app has an LC_RPATH). The inserted dylibs are
    testdata/bin/libweak-chained-x86_64.dylib (chained, weak definitions and weak binds) and
    testdata/importers/client.dylib (opcodes, 3 bind targets, none weak); libapi.dylib is
    testdata/importers/libapi.dylib (no binds, no rebases: it prints nothing).

    state.loaded (dyld-1231.3 dyldMain.cpp:600-641; RuntimeState::loadInsertedLibraries,
    DyldRuntimeState.cpp:653-657 at dyld-1323.3): getLoader of each inserted path appends it
    after the main executable, then "move inserted libraries ahead of main executable in
    state.loaded, for correct flat namespace lookups" erases the main executable from the
    front and appends it. Then loadDependents runs for the main executable and for each
    inserted dylib in that order (dyldMain.cpp:660-676): libSystem and its cached dependents,
    then libapi (client.dylib's)."""
    c = make_cache(os_name, variant)
    app = app_image(app_macho)
    lw = image_from_macho(MACHO["libweak-chained-x86_64.dylib"], "%s/libweak.dylib" % APP_DIR, 0x104100000)
    cl = image_from_macho(MACHO["importers/client.dylib"], "%s/client.dylib" % APP_DIR, 0x104110000)
    api = image_from_macho(MACHO["importers/libapi.dylib"], "%s/lib/libapi.dylib" % APP_DIR, 0x104120000)
    by_name = {"/usr/lib/libSystem.B.dylib": c["system"], "@rpath/libapi.dylib": api}
    for img in (app, lw, cl, api):
        img.deps = [by_name[d] for d in img.macho.dylibs]
    loaded = [lw, cl, app, c["system"], c["libc"], c["kernel"], c["libdyld"], c["abi"], c["cxx"], api]
    return app, [lw, cl], loaded


def dyld4_inserted(version, os_name, app_name, variant=None):
    app, inserted, loaded = inserted_world(MACHO[app_name], os_name, variant)
    return Dyld4(version, PID, loaded, main=app, inserted=inserted).run()


LAZY_DIR = os.path.normpath(os.path.join(HERE, "..", "process", "Lazy"))
LAZY_ROOT = "/Users/ci/build/Lazy"  # where the made-up machine has testdata/process/Lazy


def dyld4_lazy(version, os_name, first_use):
    """testdata/process/Lazy launched: main imports nothing and has no weak definitions, so
    its fixups are its chained rebases, which page-in linking hands to the kernel: the two
    page-in lines are all dyld prints for it (no handleStrongWeakDefOverrides lookups: no image
    has MH_WEAK_DEFINES and opcode fixups). Its LC_LAZY_LOAD_DYLIB_INFO names
    @rpath/liblazy.dylib, which is not loaded at launch (forEachLinkedDylib does not return it).
    first_use: the program then calls LazyRun, whose stub calls _dyld_lazy_load
    (dyld/DyldAPIs.cpp:4301 at dyld-1378), which dlopen_from()s liblazy (found through main's
    LC_RPATH @executable_path): it is appended to state.loaded and fixed up like any dlopen'ed
    image, its weak-bind targets resolved by weak-def lookups that now search it too."""
    c = make_cache(os_name)
    m = MACHO["process/Lazy/main"]
    main = image_from_macho(m, LAZY_ROOT + "/main", m.base + SLIDE)
    main.deps = [c["system"]]
    loaded = [main, c["system"], c["libc"], c["kernel"], c["libdyld"], c["abi"], c["cxx"]]
    p = Dyld4(version, PID, loaded, main=main).run()
    assert p.error is None
    if first_use:
        lz = image_from_macho(MACHO["process/Lazy/liblazy.dylib"], LAZY_ROOT + "/liblazy.dylib", 0x104010000)
        lz.deps = [c["system"]]
        p.loaded.append(lz)
        assert p.apply_fixups(lz)
    return p


def lazy_header(title, version, os_name, p, figs, extra):
    tag = {"1231": "dyld-1231.3", "1376": "dyld-1376.6"}[version]
    osv = {"macos15": "macOS 15", "macos26": "macOS 26.4"}[os_name]
    h = [title, "", "Replays %s (%s), dyld4 JustInTimeLoader path, DYLD_PRINT_BINDINGS=1, stderr only." % (tag, osv),
         "Program: %s/main (testdata/process/Lazy/main), pid %d, slide 0x%X." % (LAZY_ROOT, PID, SLIDE), "",
         "Generated by testdata/logs/gen.py from the fixtures in testdata/process/Lazy (do not edit by hand)."]
    h += COMMON_HDR[1:] + [""] + extra + [""]
    h += describe_dyld4(None, p, figs, None)
    return header(h + [""])


def dyld2_process(app_name):
    m = MACHO[app_name]
    app, loaded, c = world(m, "macos11")
    d = Dyld2(app, [app, c["abi"], c["cxx"]], {})
    # Made-up weak-bind streams of the two cache dylibs (ld64 output, sorted by
    # name): libc++abi uses its own operator new/delete, libc++ uses new,
    # new[], delete and delete[] through its GOT.
    def stream(base, names):
        ops = []
        for i, n in enumerate(names):
            ops += [("SYM", (n, i, False)), ("TYPE", 1), ("SEG", base + 8 * i), ("BIND", 0)]
        return ops + [("DONE", None)]
    slide = app.base - m.base
    d.streams[app] = [("SEG", v + slide) if k == "SEG" else (k, v) for k, v in m.weak_ops]
    d.streams[c["abi"]] = stream(0x7FFF8A3B2110, ["__ZdlPv", "__Znwm"])
    d.streams[c["cxx"]] = stream(0x7FFF8A39C2A0, ["__ZdaPv", "__ZdlPv", "__Znam", "__Znwm"])
    # dyld2.cpp:7316 recursiveBind: regular binds of the main executable (the
    # cache images are prebound and print nothing)
    for b in m.binds:
        tgt, addr = resolve_in(app.deps[b["ordinal"] - 1], b["name"])[:2]
        d.bind_location("", app, b["addr"] + slide, addr, tgt, b["name"], b["addend"])
    # dyld2.cpp:7330 weakBind, still with linkingMainExecutable set
    d.weak_bind()
    # lazy binds happen when the program first calls the stub: the guard of a
    # function-local static (Initialize), then write() (weakscan_print), then
    # puts() at the end of main().
    order = ["___cxa_guard_acquire", "___cxa_guard_release", "_write", "_puts"]
    for name in order:
        b = [x for x in m.lazy_binds if x["name"] == name][0]
        tgt, addr = resolve_in(app.deps[b["ordinal"] - 1], b["name"])[:2]
        d.bind_location("lazy ", app, b["addr"] + slide, addr, tgt, b["name"], 0)
    return d


# --------------------------------------------------------------------------
# The App.app process (testdata/process): JustInTimeLoader::loadDependents


PROC_DIR = os.path.normpath(os.path.join(HERE, "..", "process"))
PROC_LOG = "dyld4-macos15-process-app.log"
PROC_PID = 4244
PROC_BUNDLE = "/Applications/App.app"  # where the made-up machine has testdata/process/App.app
PROC_MAIN = PROC_BUNDLE + "/Contents/MacOS/App"
PROC_DYLIB_BASE = 0x104010000  # made up: the bundle's dylibs, 64 KiB apart, in the order they are mapped
PROC_DYLIB_STEP = 0x10000

# The made-up cache's libSystem.B.dylib brings in these cached dylibs (its dependents, in this
# order): the order every log here lists them in.
CACHE_DEPS = {"system": ["libc", "kernel", "libdyld", "abi", "cxx"]}


class Launch:
    """The load order: JustInTimeLoader::loadDependents and Loader::getLoader (dyld-1231.3).

    files: a made-up file system, runtime path -> file in the repository (or a
    MachO), consulted through exists() and realpath(). bases: load address of
    each on-disk dylib by runtime path (else PROC_DYLIB_BASE onwards).
    cache_loaders: "jit" (a cached dylib enters state.loaded when getLoader
    makes its loader, JustInTimeLoader.cpp:1057; the model of every log here)
    or "prebuilt" (it enters state.loaded only when PrebuiltLoader::map runs,
    from its own loadDependents, PrebuiltLoader.cpp:378/:386)."""

    def __init__(self, cache, files, main_path, main_macho, bases=None, cache_loaders="jit"):
        self.cache = cache
        self.files = files
        self.bases = bases or {}
        self.cache_loaders = cache_loaders
        self.cache_by_path = {img.path: img for img in cache.values()}
        self.cache_key = {id(img): k for k, img in cache.items()}
        self.loaded = []
        self.how = []  # (requester, load command, load path, image or None, how): for the header
        self.next_base = PROC_DYLIB_BASE
        self.main = self.make_disk(main_path, main_macho, main_macho.base + SLIDE)
        self.main.main = True
        # dyldMain.cpp:653-666: loadDependents of the main executable, rpath stack {main}
        self.load_dependents(self.main, [self.main])

    # -- images
    def make_disk(self, path, m, base=None):
        if base is None:
            base = self.bases.get(path)
            if base is None:
                base = self.next_base
                self.next_base += PROC_DYLIB_STEP
        img = image_from_macho(m, path, base)
        img.install_name = m.install_name
        img.dylib_cmds = m.dylib_cmds
        img.rpaths = m.rpaths
        img.deps_set = False
        img.mapped = True
        img.main = False
        self.loaded.append(img)  # JustInTimeLoader::make -> state.add (JustInTimeLoader.cpp:1057)
        return img

    def add_cached(self, img):
        if img not in self.loaded:
            self.loaded.append(img)

    @staticmethod
    def matches_path(ldr, path):
        # JustInTimeLoader::matchesPath (JustInTimeLoader.cpp:122-141): the path, or the
        # install name when it differs from the path (altInstallName, :1022)
        if path == ldr.path:
            return True
        inst = getattr(ldr, "install_name", None)
        return bool(inst) and inst != ldr.path and path == inst

    # -- the made-up file system
    def lookup_file(self, path):
        """(MachO, real path) if `path` names a file on disk, else None. The real path
        is what SyscallDelegate::mapFileReadOnly gets with F_GETPATH
        (dyld/DyldDelegates.cpp:690) and what the loader keeps as its path."""
        for prefix, repo_dir in self.files.get("dirs", []):
            if path.startswith(prefix + "/"):
                local = repo_dir + path[len(prefix):]
                if not os.path.isfile(local):
                    return None
                real_root = os.path.realpath(repo_dir)
                rel = os.path.relpath(os.path.realpath(local), real_root)
                if rel.startswith(".."):
                    return None  # outside the bundle: nothing there on the made-up machine
                real = prefix + "/" + rel.replace(os.sep, "/")
                return self.files["macho"](real), real
        m = self.files.get("paths", {}).get(path)
        return (m, path) if m else None

    # -- Loader::forEachResolvedAtPathVar (dyld/Loader.cpp:1240-1384 at dyld-1231.3)
    @staticmethod
    def expand_loader_path(path, ldr):
        # Loader::expandAtLoaderPath (Loader.cpp:1149-1181): the loader's directory, no normalization
        if path == "@loader_path" or path.startswith("@loader_path/"):
            return ldr.path.rsplit("/", 1)[0] + path[len("@loader_path"):]
        return None

    def expand_executable_path(self, path):
        # Loader::expandAndNormalizeAtExecutablePath (Loader.cpp:1183-1220): leading "/.." are folded
        if not (path == "@executable_path" or path.startswith("@executable_path/")):
            return None
        tail = path[len("@executable_path"):]
        d = self.main.path.rsplit("/", 1)[0]
        while tail.startswith("/..") and "/" in d.strip("/"):
            d = d.rsplit("/", 1)[0]
            tail = tail[3:]
        return d + tail

    def possible_paths(self, load_path, chain):
        p = self.expand_loader_path(load_path, chain[-1])
        if p is not None:
            yield p, "@loader_path of %s" % chain[-1].leaf
            return
        p = self.expand_executable_path(load_path)
        if p is not None:
            yield p, "@executable_path"
            return
        if load_path.startswith("@rpath/"):
            # the rpath stack, newest link first (:1299)
            for link in reversed(chain):
                for rp in link.rpaths:
                    e = self.expand_loader_path(rp, link)
                    if e is None:
                        e = self.expand_executable_path(rp)
                    if e is None and rp.startswith("/"):
                        e = rp
                    if e is not None:
                        yield e + load_path[len("@rpath"):], "LC_RPATH %s of %s" % (rp, link.leaf)
            return
        yield load_path, None

    # -- Loader::getLoader (dyld/Loader.cpp:741-1146 at dyld-1231.3), launch case
    def get_loader(self, load_path, chain, can_be_missing):
        if load_path.startswith("@rpath/"):
            for ldr in self.loaded:  # :772-783, already loaded as rpath
                if self.matches_path(ldr, load_path):
                    return ldr, "matches the install name of the loaded %s" % ldr.leaf
        tried = []
        for possible, via in self.possible_paths(load_path, chain):
            for ldr in self.loaded:  # :830-845, a loaded image with this path
                if self.matches_path(ldr, possible):
                    return ldr, "already loaded"
            cimg = self.cache_by_path.get(possible)
            if cimg is not None:  # :856-870 (a loaded cached dylib), else makeDyldCacheLoader (:1050-1054)
                if self.cache_loaders == "jit":
                    self.add_cached(cimg)
                return cimg, "in the shared cache"
            got = self.lookup_file(possible)
            if got is None:
                if possible not in tried:
                    tried.append(possible)
                continue  # :996-1026, "tried: ..." and the next possible path
            m, real = got
            for ldr in self.loaded:  # the same file already loaded (inode check, :943-960)
                if ldr.path == real:
                    return ldr, "already loaded"
            img = self.make_disk(real, m)  # makeDiskLoader (:1044)
            return img, "via " + via if via else "on disk"
        if can_be_missing:  # :1116-1117
            return None, "not found (no file at %s); skipped, no error" % ", ".join(tried)
        raise SystemExit("gen.py: Library not loaded: %s (from %s)" % (load_path, chain[-1].path))

    # -- JustInTimeLoader::loadDependents (dyld/JustInTimeLoader.cpp:469-570 at dyld-1231.3)
    def load_dependents(self, img, chain):
        if img.in_cache:
            self.cache_load_dependents(img)
            return
        if img.deps_set:
            return
        deps = []
        for cmd, load_path in img.dylib_cmds:  # forEachLinkedDylib, :478-540
            dep = None
            if load_path.startswith("/"):  # quick check of absolute paths, :505-513
                for ldr in self.loaded:
                    if self.matches_path(ldr, load_path):
                        dep = ldr
                        break
            if dep is None:
                # LoadChain nextChain { options.rpathStack, this } (:516)
                dep, how = self.get_loader(load_path, chain + [img], cmd == "LC_LOAD_WEAK_DYLIB")
                if dep is None or not dep.in_cache:
                    self.how.append((img, cmd, load_path, dep, how))
            deps.append(dep)
        img.deps = deps
        img.deps_set = True  # :541
        for dep in deps:  # "breadth first recurse", :545-553
            if dep is not None:
                self.load_dependents(dep, chain + [img])

    def cache_load_dependents(self, img):
        # PrebuiltLoader::loadDependents (dyld/PrebuiltLoader.cpp:381-410): map itself
        # (state.add, :378), map every dependent, then recurse. A JIT loader of a cached
        # dylib does the same as loadDependents above.
        if getattr(img, "deps_set", False):
            self.add_cached(img)
            return
        self.add_cached(img)
        img.deps_set = True
        kids = [self.cache[k] for k in CACHE_DEPS.get(self.cache_key[id(img)], [])]
        for k in kids:
            self.add_cached(k)
        for k in kids:
            self.cache_load_dependents(k)


def process_world(cache_loaders="jit"):
    """The App.app launch: the made-up cache plus testdata/process/App.app as
    /Applications/App.app."""
    c = make_cache("macos15")
    for img in c.values():
        img.deps_set = False

    def macho(real):
        rel = real[len(PROC_BUNDLE) + 1:]
        key = "process/App.app/" + rel
        if key not in MACHO:
            MACHO[key] = MachO(key, os.path.join(PROC_DIR, "App.app", rel))
        return MACHO[key]
    files = {"dirs": [(PROC_BUNDLE, os.path.join(PROC_DIR, "App.app"))], "macho": macho}
    main_m = macho(PROC_MAIN)
    return Launch(c, files, PROC_MAIN, main_m, cache_loaders=cache_loaders), c


def launch_order_check():
    """The generic loader gives the load order world() uses for the other logs."""
    for app_name, lw_name in (("app-default-chained-x86_64", None), ("app-default-opcodes-x86_64", None),
                              ("app-uselib-default-chained-x86_64", "libweak-chained-x86_64.dylib")):
        _, loaded, c = world(MACHO[app_name], "macos15", None, MACHO[lw_name] if lw_name else None)
        c2 = make_cache("macos15")
        for img in c2.values():
            img.deps_set = False
        paths = {}
        if lw_name:
            paths["%s/libweak.dylib" % APP_DIR] = MACHO[lw_name]
        ln = Launch(c2, {"paths": paths}, "%s/%s" % (APP_DIR, app_name), MACHO[app_name])
        assert [i.path for i in ln.loaded] == [i.path for i in loaded], (app_name, [i.path for i in ln.loaded])


def read_expected_winners():
    rows = []
    with open(os.path.join(PROC_DIR, "expected-winners.tsv")) as f:
        lines = f.read().splitlines()
    assert lines[0].split("\t") == ["requester", "symbol", "winner"], lines[0]
    for ln in lines[1:]:
        if ln:
            rows.append(tuple(ln.split("\t")))
    return rows


def read_expected_md_order():
    """The on-disk load order table of testdata/process/expected.md: [(leaf, bundle path)]."""
    out = []
    with open(os.path.join(PROC_DIR, "expected.md")) as f:
        for ln in f:
            m = re.match(r"^\| (\d+) \| (\S+) \| `App\.app/(\S+)` \|$", ln.strip())
            if m:
                assert int(m.group(1)) == len(out), ln
                out.append((m.group(2), PROC_BUNDLE + "/" + m.group(3)))
    return out


def lookups_of(proc):
    """Every lookup block in order: dict(requester, name, role, appended, supplier)."""
    out = []
    cur = None
    for kind, text, info in proc.out:
        if kind == "lookup":
            cur = {"requester": info["image"], "name": info["name"], "role": info["role"], "appended": False,
                   "supplier": None}
            out.append(cur)
        elif kind == "using":
            cur["supplier"] = info["supplier"]
        elif kind == "bind":
            if cur is not None and cur["role"] == "bind" and cur["name"] == info["name"] and "bound" not in cur:
                cur["bound"] = True
                cur["appended"] = bool(info.get("appended"))
            cur = None
    return out


def check_process(proc, launch):
    """Fail unless the replay agrees with testdata/process/expected.md and expected-winners.tsv."""
    def winner(sup):
        return "-" if sup is None or sup.in_cache else sup.leaf
    disk = [i for i in launch.loaded if not i.in_cache]
    order = read_expected_md_order()
    got = [(i.leaf, i.path) for i in disk]
    if got != order:
        sys.exit("gen.py: App.app load order %s, testdata/process/expected.md has %s" % (got, order))
    lk = lookups_of(proc)
    imports = [(l["requester"].leaf, l["name"], winner(l["supplier"])) for l in lk
               if l["role"] == "bind" and not l["appended"]]
    want = read_expected_winners()
    if imports != want:
        diff = [(a, b) for a, b in zip(imports, want) if a != b]
        sys.exit("gen.py: App.app winners differ from testdata/process/expected-winners.tsv "
                 "(%d replayed, %d expected; first differences %s)" % (len(imports), len(want), diff[:5]))
    # expected.md, "Treat-as-weak lookups of the main executable": 22 + 22, __Znam won by App
    for role, appended in (("override", False), ("bind", True)):
        tw = [(l["name"], winner(l["supplier"])) for l in lk if l["role"] == role and l["appended"] == appended]
        assert [n for n, _ in tw] == TREAT_AS_WEAK, role
        assert all(w == ("App" if n == "__Znam" else "-") for n, w in tw), (role, tw)
        assert all(l["requester"] is proc.main for l in lk if l["role"] == role and l["appended"] == appended)
    return imports


def dyld4_process_app():
    launch, c = process_world("jit")
    proc = Dyld4("1231", PROC_PID, launch.loaded).run()
    assert proc.error is None
    # The other reading of the load order (cached dylibs from the cache's PrebuiltLoaderSet)
    # moves libSystem.B after libdeep; nothing it prints changes.
    launch_pb, _ = process_world("prebuilt")
    proc_pb = Dyld4("1231", PROC_PID, launch_pb.loaded).run()
    assert proc_pb.text_lines() == proc.text_lines()
    check_process(proc, launch)
    return proc, launch, launch_pb


# --------------------------------------------------------------------------
# Figures (computed from the simulation, i.e. ground truth for the tests)


def dyld4_figures(proc, upto=None):
    """Per image outside the cache: what a parser of this log should find.

    A lookup block belongs to the image whose bind line follows it; the
    override checks (no bind line) belong to the main executable. A bind line
    is a weak target when it is an opcode override target (second sequence) or
    when the lookup block just before it is for the same symbol, except the 22
    treat-as-weak targets appended after a chained main executable's imports
    (bind# >= import count): their lookups count, but they are not the image's
    own weak binds (weakscan's rule too, src/log/record/). Suppliers are
    named as the log prints them: the full path of the last 'using' line, or,
    on macOS 14 where there is none, the leaf name in the bind line.
    upto: only the first `upto` entries of proc.out (noisy.log's cut)."""
    out = proc.out if upto is None else proc.out[:upto]
    figs = {}

    def fig(img):
        if img.path not in figs:
            figs[img.path] = {"image": img, "lookups": 0, "override": 0, "bound_lookups": 0, "appended": 0,
                              "weak_targets": 0, "weak_target_syms": {}, "missing_weak": 0,
                              "sites": 0, "suppliers_lookups": {}, "bind_lines": 0}
        return figs[img.path]

    def bump(d, k):
        d[k] = d.get(k, 0) + 1
    fig(proc.main)
    pending = None

    def flush_override():
        # a block with no bind line after it: an override check
        assert pending["role"] == "override"
        f = fig(proc.main)
        f["lookups"] += 1
        f["override"] += 1
        bump(f["suppliers_lookups"], pending["supplier"])
    for kind, text, info in out:
        if kind == "lookup":
            if pending is not None:
                flush_override()
            pending = {"name": info["name"], "supplier": "none", "role": info["role"]}
        elif kind == "using":
            pending["supplier"] = info["supplier"].path
        elif kind == "bind":
            if pending is not None and pending["role"] == "override":
                flush_override()
                pending = None
            f = fig(info["image"])
            f["bind_lines"] += 1
            sup = None
            if pending is not None and pending["name"] == info["name"]:
                assert pending["role"] == "bind"
                f["lookups"] += 1
                f["bound_lookups"] += 1
                bump(f["suppliers_lookups"], pending["supplier"])
                sup = pending["supplier"]
                if info.get("appended"):
                    # a treat-as-weak target appended to a chained main executable's
                    # imports: a lookup, not one of the image's own weak binds
                    f["appended"] += 1
                    sup = None
            elif info["override"]:
                assert proc.version == "1122"
                sup = info["target"].leaf if info["target"] else "none"
            else:
                assert pending is None
            pending = None
            if sup is not None:
                f["weak_targets"] += 1
                # Without lookup lines the log shows only the name the bind line prints (a
                # renamed re-export's target name); with them, the name looked up.
                key = info.get("printed", info["name"]) if proc.version == "1122" else info["name"]
                f["weak_target_syms"].setdefault(key, sup)
                if info["target"] is None:
                    f["missing_weak"] += 1
        elif kind == "weak_fixup":
            fig(info["image"])["sites"] += 1
        elif kind not in ("found_use", "cache_patch"):
            if pending is not None:
                flush_override()
                pending = None
    if pending is not None:
        flush_override()
    for f in figs.values():
        f["suppliers_targets"] = {}
        for sup in f["weak_target_syms"].values():
            bump(f["suppliers_targets"], sup)
    return figs


def fmt_sup(d, main_path):
    def key(k):
        return (0 if k == main_path else 1, k)
    return ",".join("%s=%d" % (k, d[k]) for k in sorted(d, key=key)) if d else "-"


# --------------------------------------------------------------------------
# Writing


# Header lines must not look like anything a log reader matches, even
# unanchored: no dyld prefix, no phrase of a dyld format string.
HEADER_FORBIDDEN = ["dyld[", "dyld: ", "<13>", "looking for weak-def", "bind#", "fixup:", "using '",
                    "using non-weak", "found use of", "cache patch", "missing-weak-bind", "Setting up kernel",
                    "weak bind", "lazy bind", "Symbol not found", "]: "]


def header(lines):
    for ln in lines:
        for bad in HEADER_FORBIDDEN:
            assert bad not in ln, (bad, ln)
    return "".join("# %s\n" % ln if ln else "#\n" for ln in lines)


COMMON_HDR = [
    "Generated by testdata/logs/gen.py from the fixtures in testdata/bin (do not edit by hand).",
    "A replay of what dyld prints, not a capture from a Mac: paths, cache addresses and the",
    "shared-cache contents are made up (see testdata/logs/README.md); the bind targets, sites,",
    "imports and exports come from the fixture itself.",
]


def dyld4_header(title, version, os_name, app, extra):
    tag = {"1122": "dyld-1122.1", "1231": "dyld-1231.3", "1323": "dyld-1323.3", "1376": "dyld-1376.6"}[version]
    osv = {"macos14": "macOS 14", "macos15": "macOS 15", "macos26": "macOS 26"}[os_name]
    h = [title, "", "Replays %s (%s), dyld4 JustInTimeLoader path, DYLD_PRINT_BINDINGS=1, stderr only." % (tag, osv),
         "Program: %s/%s (testdata/bin/%s), pid %d, slide 0x%X." % (APP_DIR, app, app, PID, SLIDE), ""]
    h += COMMON_HDR + [""]
    h += ["Follows (the format strings are quoted, with file:line, in gen.py and README.md):",
          "  dyldMain.cpp: handleStrongWeakDefOverrides, then applyFixups for each image in load order;",
          "  JustInTimeLoader::handleStrongWeakDefOverrides: 22 sTreatAsWeak lookups, no bind-target line;",
          "  Loader::resolveSymbol, ordinal -3: " +
          ("prints nothing (verboseWeak is hard-coded false);" if version == "1122" else
           "a lookup block (header line, result lines)" +
           ("; the cache-override notice comes twice (loaded, delayLoaded lists);" if version == "1231" else ";")),
          "  JustInTimeLoader::applyFixups: bind-target lines" +
          (", regular targets in the new '<leaf/symbol>)' form, opcode weak targets in '(leaf/symbol)';"
           if version in ("1323", "1376") else " in the '(leaf/symbol)' form;"),
          "  JustInTimeLoader::cacheWeakDefFixup: cache-patch lines;",
          "  Loader::applyFixupsGeneric: opcode images print per-location fixups" +
          (" (10- and 16-digit addresses)" if version in ("1323", "1376") else " (12-digit addresses)") +
          "; chained images go through Loader::setUpPageInLinking (kernel page-in linking: 2 lines per image here)."]
    return header(h + [""] + extra)


def write(path, data, written):
    written[path] = data if isinstance(data, bytes) else data.encode("utf-8")


def figure_rows(log, proc, figs, note=""):
    rows = []
    for path, f in figs.items():
        rows.append(figure_row(log, proc, path, f, note))
    return rows


def figure_row(log, proc, path, f, note):
    """'-' where the log cannot give the figure (weakscan reports null there):
    lookups on macOS 14, weak targets of chained images on macOS 14, sites of
    chained images."""
    # A log with no lookup line cannot give the lookup count (it may be a macOS 14 log).
    no_lookups = proc.version == "1122" or not any(k == "lookup" for k, _, _ in proc.out)
    no_binds = f["bind_lines"] == 0  # no bind target: no weak bind, no site
    no_targets = no_lookups and not f["image"].is_opcodes() and not no_binds
    d = "-"
    return ({
        "log": log, "pid": proc.pid, "image": path,
        "role": "main" if f["image"] is proc.main else "inserted" if f["image"] in proc.inserted else "dylib",
        "lookups": d if no_lookups else f["lookups"],
        "override_checks": d if no_lookups else f["override"],
        "bound_lookups": d if no_lookups else f["bound_lookups"],
        "appended_lookups": d if no_lookups else f["appended"],
        "weak_targets": d if no_targets else f["weak_targets"],
        "weak_target_symbols": d if no_targets else len(f["weak_target_syms"]),
        "missing_weak": d if no_targets else f["missing_weak"],
        "weak_bind_sites": f["sites"] if f["image"].is_opcodes() or no_binds else d,
        "suppliers_lookups": d if no_lookups else fmt_sup(f["suppliers_lookups"], path),
        "suppliers_targets": d if no_targets else fmt_sup(f["suppliers_targets"], path), "note": note})


def main():
    check = "--check" in sys.argv[1:]
    global MACHO
    MACHO = {n: MachO(n) for n in ("app-default-chained-x86_64", "app-default-opcodes-x86_64",
                                   "app-uselib-default-chained-x86_64", "libweak-chained-x86_64.dylib",
                                   "app-nooverride-hidden-opcodes-x86_64")}
    for n in ("client.dylib", "libapi.dylib"):
        MACHO["importers/" + n] = MachO("importers/" + n, os.path.join(IMP_DIR, n))
    for n in ("main", "liblazy.dylib"):
        MACHO["process/Lazy/" + n] = MachO("process/Lazy/" + n, os.path.join(LAZY_DIR, n))
    # Sanity checks against the figures weakscan reports for the fixtures.
    ch = MACHO["app-default-chained-x86_64"]
    assert sum(1 for i in ch.imports if i["ordinal"] == -3) == 39
    assert sum(1 for r in ch.chained_sites if r[1] == "weak") == 44
    op = MACHO["app-default-opcodes-x86_64"]
    assert len(op.weak_targets()[0]) == 40 and len(op.weak_sites()[0]) == 44

    written = {}
    rows = []

    specs = [
        ("dyld4-macos15-chained.log", "1231", "macos15", "app-default-chained-x86_64", None, None),
        ("dyld4-macos15-opcodes.log", "1231", "macos15", "app-default-opcodes-x86_64", None, None),
        ("dyld4-macos26-chained.log", "1323", "macos26", "app-default-chained-x86_64", None, None),
        ("dyld4-macos26-opcodes.log", "1323", "macos26", "app-default-opcodes-x86_64", None, None),
        ("dyld4-macos14-opcodes.log", "1122", "macos14", "app-default-opcodes-x86_64", None, None),
        ("dyld4-macos14-chained.log", "1122", "macos14", "app-default-chained-x86_64", None, None),
        ("dyld4-macos15-uselib.log", "1231", "macos15", "app-uselib-default-chained-x86_64", None,
         "libweak-chained-x86_64.dylib"),
        ("dyld4-macos15-chained-missing.log", "1231", "macos15", "app-default-chained-x86_64", "no-typed-new", None),
        ("dyld4-macos15-opcodes-missing.log", "1231", "macos15", "app-default-opcodes-x86_64", "strong-new", None),
    ]
    procs = {}
    for log, ver, osn, app, variant, lw in specs:
        p = dyld4_process(ver, osn, app, variant, lw)
        procs[log] = p
        figs = dyld4_figures(p)
        extra = describe_dyld4(log, p, figs, variant)
        body = "\n".join(p.text_lines()) + "\n"
        title = TITLES[log]
        write(os.path.join(HERE, log), dyld4_header(title, ver, osn, app, extra) + body, written)
        rows += figure_rows(log, p, figs, NOTES.get(log, ""))

    # DYLD_INSERT_LIBRARIES: the inserted dylibs are fixed up before the main executable
    inserted_specs = [
        ("dyld4-macos15-inserted.log", "1231", "macos15", "app-default-chained-x86_64"),
        ("dyld4-macos26-inserted-opcodes.log", "1323", "macos26", "app-default-opcodes-x86_64"),
    ]
    for log, ver, osn, app in inserted_specs:
        p = dyld4_inserted(ver, osn, app)
        procs[log] = p
        figs = dyld4_figures(p)
        extra = ["Environment: DYLD_INSERT_LIBRARIES=%s DYLD_LIBRARY_PATH=%s/lib DYLD_PRINT_BINDINGS=1."
                 % (INSERTED, APP_DIR),
                 "The inserted dylibs come first in state.loaded, ahead of the main executable: they are fixed",
                 "up first and searched first for weak definitions. client.dylib binds nothing weak: 3 regular",
                 "targets. libapi.dylib (loaded for client.dylib) has neither binds nor rebases: no line.", ""]
        extra += describe_dyld4(log, p, figs, None)
        body = "\n".join(p.text_lines()) + "\n"
        write(os.path.join(HERE, log), dyld4_header(TITLES[log], ver, osn, app, extra) + body, written)
        rows += figure_rows(log, p, figs, NOTES.get(log, ""))

    # renamed re-exports: the bind line names what the re-export led to
    for log, ver, osn, app in (("dyld4-macos15-renamed.log", "1231", "macos15", "app-default-chained-x86_64"),
                               ("dyld4-macos14-renamed-opcodes.log", "1122", "macos14",
                                "app-default-opcodes-x86_64")):
        p = dyld4_process(ver, osn, app, "renamed")
        procs[log] = p
        figs = dyld4_figures(p)
        renamed = sum(1 for k, _, i in p.out if k == "bind" and i.get("printed") != i["name"])
        extra = describe_dyld4(log, p, figs, "renamed")
        extra.insert(-1, "  bind-target lines naming another symbol than the one bound (renamed re-export): %d" % renamed)
        body = "\n".join(p.text_lines()) + "\n"
        write(os.path.join(HERE, log), dyld4_header(TITLES[log], ver, osn, app, extra) + body, written)
        rows += figure_rows(log, p, figs, NOTES.get(log, ""))

    # function variants: a non-weak definition in coalescing
    for log, app in (("dyld4-macos26-variants-chained.log", "app-default-chained-x86_64"),
                     ("dyld4-macos26-variants-opcodes.log", "app-default-opcodes-x86_64")):
        p = dyld4_process("1323", "macos26", app, "fvariant")
        procs[log] = p
        figs = dyld4_figures(p)
        extra = describe_dyld4(log, p, figs, "fvariant")
        body = "\n".join(p.text_lines()) + "\n"
        write(os.path.join(HERE, log), dyld4_header(TITLES[log], "1323", "macos26", app, extra) + body, written)
        rows += figure_rows(log, p, figs, NOTES.get(log, ""))

    # testdata/process/Lazy: a main executable with page-in lines only, and a lazy-load dylib
    for log, ver, osn, first_use in (("dyld4-macos15-pagein-only.log", "1231", "macos15", False),
                                     ("dyld4-macos26-lazy-load.log", "1376", "macos26", True)):
        p = dyld4_lazy(ver, osn, first_use)
        procs[log] = p
        figs = dyld4_figures(p)
        extra = ["main imports nothing and has no weak definitions: its only fixups are chained rebases in",
                 "__DATA_CONST, which page-in linking hands to the kernel, so its page-in lines are all dyld",
                 "prints for it. Its LC_LAZY_LOAD_DYLIB_INFO (written by testdata/add-lazy-load.py) names",
                 "@rpath/liblazy.dylib: not loaded at launch, so not searched for weak definitions then."]
        if first_use:
            extra += ["The program then calls LazyRun: _dyld_lazy_load dlopens liblazy.dylib, whose fixups follow",
                      "(its two weak-bind targets, each after its lookup; no page-in line: after the launch dyld",
                 "does the page-in linking itself, silently)."]
        else:
            extra += ["The program exits before calling into liblazy.dylib: it is never loaded."]
        write(os.path.join(HERE, log), lazy_header(TITLES[log], ver, osn, p, figs, extra)
              + "\n".join(p.text_lines()) + "\n", written)
        rows += figure_rows(log, p, figs, NOTES.get(log, ""))

    # dyld2
    d2 = dyld2_process("app-default-opcodes-x86_64")
    d2_body = "\n".join(t for _, t, _ in d2.out) + "\n"
    d2_rows, d2_extra = dyld2_figures(d2)
    write(os.path.join(HERE, "dyld2-macos11.log"), dyld2_header(d2_extra) + d2_body, written)
    rows += d2_rows

    # noisy.log
    noisy_bytes, noisy_rows = build_noisy(procs["dyld4-macos15-chained.log"])
    write(os.path.join(HERE, "noisy.log"), noisy_bytes, written)
    rows += noisy_rows

    # the App.app process (testdata/process)
    launch_order_check()
    pa, launch, launch_pb = dyld4_process_app()
    pa_figs = dyld4_figures(pa)
    write(os.path.join(HERE, PROC_LOG), process_header(pa, launch, launch_pb, pa_figs)
          + "\n".join(pa.text_lines()) + "\n", written)
    rows += figure_rows(PROC_LOG, pa, pa_figs, NOTES[PROC_LOG])

    write(os.path.join(HERE, "expected.tsv"), expected_tsv(rows), written)
    write(os.path.join(HERE, "README.md"), readme(rows), written)

    bad = 0
    for path in sorted(written):
        data = written[path]
        if check:
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except FileNotFoundError:
                same = False
            if not same:
                print("differs: %s" % os.path.relpath(path, HERE))
                bad += 1
        else:
            with open(path, "wb") as f:
                f.write(data)
    if check:
        sys.exit(1 if bad else 0)


MACHO = {}

TITLES = {
    "dyld4-macos15-chained.log": "app-default-chained-x86_64 on macOS 15 (chained fixups, kernel page-in linking).",
    "dyld4-macos15-opcodes.log": "app-default-opcodes-x86_64 on macOS 15 (LC_DYLD_INFO opcodes, with per-location fixups).",
    "dyld4-macos26-chained.log": "app-default-chained-x86_64 on macOS 26 (dyld-1323.3 forms).",
    "dyld4-macos26-opcodes.log": "app-default-opcodes-x86_64 on macOS 26 (dyld-1323.3 forms).",
    "dyld4-macos14-opcodes.log": "app-default-opcodes-x86_64 on macOS 14: no weak-def lookup lines.",
    "dyld4-macos14-chained.log": "app-default-chained-x86_64 on macOS 14: no weak-def lookup lines.",
    "dyld4-macos15-uselib.log": "app-uselib-default-chained-x86_64 + @rpath/libweak.dylib on macOS 15 "
                                "(two images outside the shared cache).",
    "dyld4-macos15-chained-missing.log": "app-default-chained-x86_64 on macOS 15 with a libc++abi that lacks the "
                                         "typed operator new: the launch FAILS.",
    "dyld4-macos15-opcodes-missing.log": "app-default-opcodes-x86_64 on macOS 15 with a libc++abi whose operator "
                                         "new/delete are NOT weak: unresolved weak targets.",
    "dyld4-macos26-variants-chained.log": "app-default-chained-x86_64 on macOS 26: libc++'s function-variant "
                                          "__Znwm replaces libc++abi's weak one.",
    "dyld4-macos26-variants-opcodes.log": "app-default-opcodes-x86_64 on macOS 26: an opcode requester skips "
                                          "libc++'s function-variant __Znwm (in the shared cache).",
    "dyld4-macos15-renamed.log": "app-default-chained-x86_64 on macOS 15: __ZdlPvm found through a renamed "
                                 "re-export, bound as __ZdlPv.",
    "dyld4-macos14-renamed-opcodes.log": "app-default-opcodes-x86_64 on macOS 14: __ZdlPvm found through a renamed "
                                         "re-export, bound as __ZdlPv.",
    "dyld4-macos15-pagein-only.log": "testdata/process/Lazy on macOS 15: a main executable whose only lines are "
                                     "its page-in lines.",
    "dyld4-macos26-lazy-load.log": "testdata/process/Lazy on macOS 26.4: liblazy.dylib, lazy-loaded, fixed up on "
                                   "first use, after the launch.",
    "dyld4-macos15-inserted.log": "app-default-chained-x86_64 on macOS 15 with two inserted dylibs "
                                  "(DYLD_INSERT_LIBRARIES), fixed up before it.",
    "dyld4-macos26-inserted-opcodes.log": "app-default-opcodes-x86_64 on macOS 26 with two inserted dylibs "
                                          "(DYLD_INSERT_LIBRARIES), fixed up before it (dyld-1323.3 forms).",
}

NOTES = {
    "dyld4-macos26-variants-chained.log": "libc++ exports __Znwm as a function variant: non-weak, it wins",
    "dyld4-macos26-variants-opcodes.log": "libc++ exports __Znwm as a function variant: opcode requesters skip it",
    "dyld4-macos15-renamed.log": "libc++'s trie re-exports __ZdlPvm as libc++abi's __ZdlPv: bind lines print __ZdlPv",
    "dyld4-macos14-renamed-opcodes.log": "libc++'s trie re-exports __ZdlPvm as libc++abi's __ZdlPv: bind lines "
                                         "print __ZdlPv",
    "dyld4-macos15-pagein-only.log": "no bind target: the page-in lines name the image",
    "dyld4-macos26-lazy-load.log": "liblazy.dylib: LC_LAZY_LOAD_DYLIB_INFO, loaded on first use (dlopen)",
    "dyld4-macos15-inserted.log": "DYLD_INSERT_LIBRARIES: libweak.dylib and client.dylib are fixed up first",
    "dyld4-macos26-inserted-opcodes.log": "DYLD_INSERT_LIBRARIES: libweak.dylib and client.dylib are fixed up first",
    "dyld4-macos14-chained.log": "no lookup lines; chained weak targets look like regular ones (39 in fact)",
    "dyld4-macos14-opcodes.log": "no lookup lines; the weak targets are the run that restarts at bind#0",
    "dyld4-macos15-chained-missing.log": "launch fails at the typed operator new (halt)",
    "dyld4-macos15-opcodes-missing.log": "hypothetical cache: libc++abi operator new/delete non-weak",
    "dyld4-macos15-process-app.log": "testdata/process/App.app: 4 images outside the cache; @rpath/libmissing.dylib "
                                     "(weak) missing",
}


def count_kinds(p, kind):
    return sum(1 for k, _, _ in p.out if k == kind)


def describe_dyld4(log, p, figs, variant):
    strong = sorted(n for n in TREAT_AS_WEAK if n in p.main.exports and not p.main.exports[n][1])
    abi = {None: "the 22 sTreatAsWeak names (operator new/delete) as weak definitions",
           "no-typed-new": "the 20 classic operator new/delete names (weak) but NOT the two "
                           "__type_descriptor_t ones (as if it predated typed operator new)",
           "strong-new": "the 22 operator new/delete names as NON-weak definitions (hypothetical)",
           "renamed": "the sTreatAsWeak names as weak definitions but __ZdlPvm, which libc++.1.dylib's trie "
                      "re-exports from it renamed, as __ZdlPv (made up)",
           "fvariant": "the 22 sTreatAsWeak names as weak definitions; libc++.1.dylib (searched after it) "
                       "exports __Znwm as a function variant, a non-weak definition (made up)"}[variant]
    lines = ["Load order (state.loaded): " + ", ".join(i.leaf + ("" if i.in_cache else " (not in cache)")
                                                      for i in p.loaded) + ".",
             "libc++abi.dylib (shared cache, MH_WEAK_DEFINES) exports " + abi + "."]
    if strong:
        lines.append("The main executable exports strong (non-weak) %s, which override libc++abi's."
                     % " and ".join(strong))
    lines.append("")
    lines.append("Figures a parser should report (expected.tsv has them per image):")
    for path, f in figs.items():
        if p.version == "1122":
            lines.append("  %s: no weak-def lookup lines (macOS 14); the log cannot give the lookup count;"
                         % f["image"].leaf)
        else:
            lines.append("  %s: %d weak-def lookups: %d override checks without bind line, %d followed by a bind line"
                         % (f["image"].leaf, f["lookups"], f["override"], f["bound_lookups"]))
            lines.append("    (%d of them the appended treat-as-weak targets after the imports);" % f["appended"])
        if p.version == "1122" and not f["image"].is_opcodes():
            lines.append("    weak targets: not identifiable (chained weak and regular imports look alike; 39 in fact,")
            lines.append("    plus the 22 appended treat-as-weak targets);")
        else:
            lines.append("    %d weak targets (%d distinct symbols, %d unresolved); weak-bind sites (per-location): %s"
                         % (f["weak_targets"], len(f["weak_target_syms"]), f["missing_weak"],
                            f["sites"] if f["image"].is_opcodes() else "none (page-in linking)"))
        if p.version != "1122":
            lines.append("    suppliers per lookup: %s" % fmt_sup(f["suppliers_lookups"], path))
        if not (p.version == "1122" and not f["image"].is_opcodes()):
            lines.append("    suppliers per distinct weak-target symbol: %s" % fmt_sup(f["suppliers_targets"], path))
    lines.append("  lines: %d, of which %d cache-override notices, %d cache-patch lines, %d bind-target lines"
                 % (len(p.text_lines()), count_kinds(p, "found_use"), count_kinds(p, "cache_patch"),
                    count_kinds(p, "bind")))
    if p.error:
        lines.append("  The launch halts after the bind-target lines of the main executable: the last %d lines are"
                     % (p.error.count("\n") + 1))
        lines.append("  the halt() message (Diagnostics::error appends, so the two errors run together).")
    return lines


def process_header(p, launch, launch_pb, figs):
    """The header of dyld4-macos15-process-app.log."""
    dylibs = [i for i in launch.loaded if not i.in_cache and i is not p.main]
    h = ["App.app (testdata/process) on macOS 15: a main executable and three dylibs outside the shared cache,",
         "one weak-linked dylib missing.", "",
         "Replays dyld-1231.3 (macOS 15), dyld4 JustInTimeLoader path, DYLD_PRINT_BINDINGS=1, stderr only.",
         "Program: %s (testdata/process/App.app/Contents/MacOS/App), pid %d, slide 0x%X."
         % (PROC_MAIN, PROC_PID, SLIDE),
         "The bundle testdata/process/App.app is installed as %s; its dylibs are mapped at made-up" % PROC_BUNDLE,
         "addresses: " + ", ".join("%s 0x%X" % (i.leaf, i.base) for i in dylibs) + ".", "",
         "Generated by testdata/logs/gen.py from the fixtures in testdata/process (do not edit by hand)."]
    h += COMMON_HDR[1:] + [""]
    h += ["Follows (the format strings are quoted, with file:line, in gen.py and README.md):",
          "  JustInTimeLoader::loadDependents and Loader::getLoader: the load order below (LC_RPATH stack,",
          "    @loader_path, @executable_path, install-name match of loaded images);",
          "  dyldMain.cpp: handleStrongWeakDefOverrides, then applyFixups for each image in load order;",
          "  JustInTimeLoader::handleStrongWeakDefOverrides: 22 sTreatAsWeak lookups, no bind-target line;",
          "  Loader::resolveSymbol, ordinal -3: a lookup block (header line, result lines). The search walks",
          "    every loaded image with MH_WEAK_DEFINES in load order and does not stop at the first definition,",
          "    but only two kinds of result line are printed: the first definition found, and a later non-weak",
          "    one that replaces a weak one (once). Later weak copies print nothing. The cache-override notice",
          "    comes twice (loaded, delayLoaded lists);",
          "  JustInTimeLoader::applyFixups: bind-target lines in the '(leaf/symbol)' form, per image in load order",
          "    (an import from the missing weak-linked dylib has no target image: 0x0 and '<none>');",
          "  JustInTimeLoader::cacheWeakDefFixup: cache-patch lines;",
          "  Loader::setUpPageInLinking: all four images have chained fixups (kernel page-in linking: 2 lines",
          "    per image, no per-location fixups).", ""]
    order = [i.leaf + (" (cache)" if i.in_cache else "") for i in launch.loaded]
    h.append("Load order (state.loaded): " + ", ".join(order) + ".")
    for req, cmd, load_path, dep, how in launch.how:
        kind = {"LC_LOAD_DYLIB": "", "LC_LOAD_WEAK_DYLIB": " (weak-linked)"}[cmd]
        if dep is None:
            h.append("  %s of %s%s: %s." % (load_path, req.leaf, kind, how))
        else:
            h.append("  %s of %s%s: %s; %s." % (load_path, req.leaf, kind, dep.path, how))
    pb = [i.leaf for i in launch_pb.loaded]
    h += ["  libSystem.B.dylib and the other cached dylibs come from the made-up cache (as in every log here).",
          "  If the cached dylibs are PrebuiltLoaders (the cache's PrebuiltLoaderSet), libSystem.B enters",
          "  state.loaded only when it is mapped, from its own loadDependents (PrebuiltLoader.cpp:378), i.e.",
          "  after %s: %s." % (pb[pb.index("libSystem.B.dylib") - 1], ", ".join(pb)),
          "  No line below changes (libSystem.B has no weak definitions and prints nothing); gen.py checks that."]
    h.append("libc++abi.dylib (shared cache, MH_WEAK_DEFINES) exports the 22 sTreatAsWeak names (operator "
             "new/delete) as weak definitions.")
    strong = sorted(n for n in TREAT_AS_WEAK if n in p.main.exports and not p.main.exports[n][1])
    h.append("The main executable exports strong (non-weak) %s, which overrides libc++abi's." % " and ".join(strong))
    h.append("Winners: as in testdata/process/expected-winners.tsv (gen.py checks every one; '-' there is the")
    h.append("shared cache, here libc++abi.dylib).")
    h.append("")
    h.append("Figures a parser should report (expected.tsv has them per image):")
    total = 0
    for path, f in figs.items():
        total += f["lookups"]
        h.append("  %s: %d weak-def lookups: %d override checks without bind line, %d followed by a bind line"
                 % (f["image"].leaf, f["lookups"], f["override"], f["bound_lookups"]))
        h.append("    (%d of them the appended treat-as-weak targets after the imports);" % f["appended"])
        h.append("    %d weak targets (%d distinct symbols, %d unresolved); weak-bind sites (per-location): "
                 "none (page-in linking)" % (f["weak_targets"], len(f["weak_target_syms"]), f["missing_weak"]))
        h.append("    suppliers per lookup: %s" % fmt_sup(f["suppliers_lookups"], path))
        h.append("    suppliers per distinct weak-target symbol: %s" % fmt_sup(f["suppliers_targets"], path))
    h.append("  total: %d weak-def lookups (%s)." % (
        total, ", ".join("%s %d" % (f["image"].leaf, f["lookups"]) for f in figs.values())))
    h.append("  lines: %d, of which %d cache-override notices, %d cache-patch lines, %d bind-target lines"
             % (len(p.text_lines()), count_kinds(p, "found_use"), count_kinds(p, "cache_patch"),
                count_kinds(p, "bind")))
    return header(h + [""])


def dyld2_header(extra):
    h = ["app-default-opcodes-x86_64 on macOS 11 under dyld2.", "",
         "Replays dyld-852.2 (macOS 11), dyld2 (ImageLoader), DYLD_PRINT_BINDINGS=1 DYLD_PRINT_WEAK_BINDINGS=1,",
         "stderr only. dyld2 lines start with 'dyld', a colon and a space, and carry no pid. Program: %s/app-default-opcodes-x86_64, slide 0x%X."
         % (APP_DIR, SLIDE), ""]
    h += COMMON_HDR + [""]
    h += ["Follows (the format strings are quoted, with file:line, in gen.py and README.md):",
          "  dyld2.cpp _main: recursiveBind (regular binds), then weakBind at launch, then the program runs;",
          "  ImageLoaderMachO::bindLocation prints every bound location (regular, weak, lazy);",
          "  ImageLoader::weakBindOld (useNewWeakBind is false), launch branch: the merge of the weak-bind",
          "    streams of every image with MH_WEAK_DEFINES|MH_BINDS_TO_WEAK, between a start and an end line;",
          "  lazily bound symbols are printed when the program first calls each stub (doBindFastLazySymbol).",
          "",
          "dyld2 prints no weak-def lookup lines: it only rebinds a symbol when the weak-bind streams",
          "of two images are positioned on the same name. The merge assumes every stream is sorted by name",
          "(ld64 sorts them); lld-22 emits this fixture's stream unsorted, so most of its 44 weak-bind sites",
          "are never visited. Made-up cache streams: libc++abi.dylib [__ZdlPv, __Znwm],",
          "libc++.1.dylib [__ZdaPv, __ZdlPv, __Znam, __Znwm], one GOT use each.", ""]
    return header(h + extra)


def dyld2_figures(d2):
    main = d2.main
    per_img = {}
    for kind, text, info in d2.out:
        if kind == "weakbind":
            img = info["image"]
            f = per_img.setdefault(img.path, {"image": img, "sites": 0, "syms": {}, })
            f["sites"] += 1
            f["syms"].setdefault(info["name"], info["target"].leaf)
    rows = []
    extra = ["Figures a parser should report:"]
    for path in [main.path] + sorted(p for p in per_img if p != main.path):
        f = per_img.get(path, {"image": main, "sites": 0, "syms": {}})
        sup = {}
        for s in f["syms"].values():
            sup[s] = sup.get(s, 0) + 1
        rows.append({"log": "dyld2-macos11.log", "pid": "-", "image": path,
                     "role": "main" if path == main.path else "cache-dylib",
                     "lookups": "-", "override_checks": "-", "bound_lookups": "-", "appended_lookups": "-",
                     "weak_targets": len(f["syms"]), "weak_target_symbols": len(f["syms"]),
                     "missing_weak": 0, "weak_bind_sites": f["sites"],
                     "suppliers_lookups": "-", "suppliers_targets": fmt_sup(sup, path),
                     "note": "dyld2: targets = symbols with 'weak bind:' lines"})
        extra.append("  %s: %d weak-binding lines, %d distinct symbols (%s)" % (
            f["image"].leaf, f["sites"], len(f["syms"]), fmt_sup(sup, path)))
    nb = sum(1 for k, _, _ in d2.out if k == "bind")
    nl = sum(1 for k, _, _ in d2.out if k == "lazybind")
    extra.append("  regular-bind lines: %d, lazy-bind lines: %d, weak-def lookups: 0, lines: %d"
                 % (nb, nl, len(d2.out)))
    return rows, extra + [""]


# --------------------------------------------------------------------------
# noisy.log


def build_noisy(p1):
    """Log 1 (pid 4242) mixed with a second process, program output and damage.
    Returns the bytes and the expected rows; every count in the header is
    computed from what was put in."""
    p2 = dyld4_process("1231", "macos15", "app-nooverride-hidden-opcodes-x86_64", pid=PID2)
    l1 = p1.text_lines()
    l2 = p2.text_lines()
    prog = "app-default-chained-x86_64"
    pre1 = "dyld[%d]: " % PID
    CUT2 = 40  # pid 4243: this many complete lines, then half of the next one
    assert len(l2) > CUT2 + 1
    tail = l2[CUT2][:24]
    recs = []

    def add(text, cat, pid=None, eol="\n", what=""):
        recs.append({"text": text, "cat": cat, "pid": pid, "eol": eol, "what": what})

    add("[harness] launching %s and app-nooverride-hidden-opcodes-x86_64" % prog, "noise", what="harness")
    i1 = 0
    for _ in range(12):
        add(l1[i1], "dyld", PID)
        i1 += 1
    add("hello world" + l1[i1], "noise+dyld", PID, what="hello")
    i1 += 1
    add(l1[i1], "dyld", PID)
    i1 += 1
    add(pre1 + "something else", "dyld-unknown", PID, what="unknown")
    for _ in range(10):
        add("<13>%s[%d]: %s" % (prog, PID, l1[i1][len(pre1):]), "dyld-syslog", PID, what="syslog")
        i1 += 1
    add(pre1 + "symbol '__ZNSt3__16__sortIRNS_6__lessIiiEEPiEEvT0_S5_T_' missing from root that overrides "
        "/usr/lib/libc++.1.dylib. Use of that symbol in /usr/lib/libc++abi.dylib is being set to 0xBAD4007.",
        "dyld-unknown", PID, what="root")
    for j in range(CUT2):
        for _ in range(3):
            add(l1[i1], "dyld", PID)
            i1 += 1
        add(l2[j], "dyld", PID2, eol="\r\n" if j % 3 == 0 else "\n", what="crlf" if j % 3 == 0 else "")
        if j == 10:
            add("dyld[%d]: Using mapping in dyld cache for /usr/lib/libSystem.B.dylib" % PID2, "dyld-unknown", PID2,
                what="unknown")
            add(b"[harness] r\xe9sum\xe9: 2 processes running", "noise", what="utf8")
    while i1 < len(l1):
        add(l1[i1], "dyld", PID)
        i1 += 1
    add("descriptors=7", "noise", what="prog")
    add("total=1843", "noise", what="prog")
    add("weakscan fixture", "noise", eol="\r\n", what="prog crlf")

    # ---- the counts (two passes: the header's length shifts the line numbers)
    def render(hdr_len):
        body = bytearray()
        for k, r in enumerate(recs):
            r["line"] = hdr_len + 1 + k
            body += r["text"] if isinstance(r["text"], bytes) else r["text"].encode("utf-8")
            body += r["eol"].encode()
        body += tail.encode("utf-8")

        def lines_of(pred):
            return [r["line"] for r in recs if pred(r)]

        def rng(ls):
            return "%d-%d" % (ls[0], ls[-1]) if len(ls) > 1 and ls[-1] - ls[0] == len(ls) - 1 else ",".join(map(str, ls))
        n_complete = len(recs)
        crlf = lines_of(lambda r: r["eol"] == "\r\n")
        per = {}
        for pid in (PID, PID2):
            per[pid] = {c: len(lines_of(lambda r, c=c: r["pid"] == pid and r["cat"] == c))
                        for c in ("dyld", "dyld-syslog", "noise+dyld", "dyld-unknown")}
            per[pid]["all"] = sum(per[pid].values())
        noise = lines_of(lambda r: r["cat"] == "noise")
        # figures of the two processes, up to the cut for pid 4243
        figs1 = dyld4_figures(p1)
        n = 0
        upto2 = None
        for k, (kind, text, info) in enumerate(p2.out):
            n += text.count("\n") + 1
            if n > CUT2:
                upto2 = k
                break
        figs2 = dyld4_figures(p2, upto=upto2)
        f1 = figs1[p1.main.path]
        f2 = figs2[p2.main.path]
        h = [
            "noisy.log: dyld4-macos15-chained.log (pid %d) mixed with a second process, other output and damage."
            % PID,
            "",
            "A constructed fixture (gen.py), not a capture. Line numbers are 1-based lines of this file, split",
            "on LF only (a CRLF line counts once). Lines 1-%d are this header (each is '#' or starts with '# ')."
            % hdr_len,
            "The body is %d LF-terminated lines (%d-%d), then a truncated last line of %d bytes with no newline:"
            % (n_complete, hdr_len + 1, hdr_len + n_complete, len(tail)),
            "the first %d bytes of pid %d's line %d (its dyld prefix and the start of a rebase fixup); pid %d"
            % (len(tail), PID2, CUT2 + 1, PID2),
            "was still running when the capture ended. %d body lines end in CRLF: %s."
            % (len(crlf), rng(crlf)),
            "",
            "pid %d (app-default-chained-x86_64, same replay as dyld4-macos15-chained.log): the %d lines"
            % (PID, len(l1)),
            "of that log, all of them, in order:",
            "  %d with the usual dyld prefix of pid %d at the start of the line;" % (per[PID]["dyld"], PID),
            "  %d in the syslog form (prefix: '<' 13 '>', the program name, the pid in brackets, colon,"
            % per[PID]["dyld-syslog"],
            "    space), lines %s;" % rng(lines_of(lambda r: r["what"] == "syslog")),
            "  1 after the text 'hello world', which the harness printed without a newline, so that the dyld",
            "    prefix starts at column 12 (line %s)." % rng(lines_of(lambda r: r["what"] == "hello")),
            "  pid %d also has %d dyld lines a parser does not know (not among the %d): 'something else'"
            % (PID, per[PID]["dyld-unknown"], len(l1)),
            "  (line %s) and a 'symbol ... missing from root that overrides ...' warning (line %s; format at"
            % (rng(lines_of(lambda r: r["what"] == "unknown" and r["pid"] == PID)),
               rng(lines_of(lambda r: r["what"] == "root"))),
            "  Loader.cpp:3251 at dyld-1231.3, printed without any switch). Lines with pid %d in all: %d."
            % (PID, per[PID]["all"]),
            "pid %d (app-nooverride-hidden-opcodes-x86_64, macOS 15, no MH_WEAK_DEFINES: no override checks):"
            % PID2,
            "  its first %d lines, complete, with the usual dyld prefix (every third one with CRLF), plus 1"
            % CUT2,
            "  unknown 'Using mapping in dyld cache for ...' line (line %s), plus the truncated tail."
            % rng(lines_of(lambda r: r["what"] == "unknown" and r["pid"] == PID2)),
            "  Complete lines with pid %d: %d." % (PID2, per[PID2]["all"]),
            "%d noise lines with no dyld prefix: lines %s. Line %s is a harness line with the invalid UTF-8"
            % (len(noise), rng(noise), rng(lines_of(lambda r: r["what"] == "utf8"))),
            "  byte 0xE9 twice ('r\\xe9sum\\xe9', Latin-1); the last 3 are pid %d's program output (illustrative)."
            % PID,
            "",
            "Expected after parsing (complete lines only; the tail is not a line):",
            "  pid %d: %d weak-def lookups (%d override checks without a bind-target line), %d bind-target lines,"
            % (PID, f1["lookups"], f1["override"], f1["bind_lines"]),
            "    %d weak targets (%d distinct symbols); suppliers per lookup: %s"
            % (f1["weak_targets"], len(f1["weak_target_syms"]), fmt_sup(f1["suppliers_lookups"], p1.main.path)),
            "  pid %d: %d weak-def lookups (0 override checks), %d bind-target lines (10 regular targets, then"
            % (PID2, f2["lookups"], f2["bind_lines"]),
            "    %d weak targets numbered from 0 again), %d weak-bind sites (the cut falls in its rebase"
            % (f2["weak_targets"], f2["sites"]),
            "    fixups); suppliers: %s" % fmt_sup(f2["suppliers_lookups"], p2.main.path),
            "",
        ]
        return h, body, figs1, figs2

    hdr_len = 0
    while True:
        h, body, figs1, figs2 = render(hdr_len)
        if len(h) == hdr_len:
            break
        hdr_len = len(h)
    hdr = header(h)
    rows = figure_rows("noisy.log", p1, figs1, "pid %d: same as dyld4-macos15-chained.log" % PID)
    rows += figure_rows("noisy.log", p2, figs2, "pid %d: cut after %d complete lines" % (PID2, CUT2))
    return hdr.encode("utf-8") + bytes(body), rows


# --------------------------------------------------------------------------
# expected.tsv and README.md

COLS = ["log", "pid", "image", "role", "lookups", "override_checks", "bound_lookups", "appended_lookups",
        "weak_targets",
        "weak_target_symbols", "missing_weak", "weak_bind_sites", "suppliers_lookups", "suppliers_targets", "note"]


def expected_tsv(rows):
    out = "\t".join(COLS) + "\n"
    for r in rows:
        out += "\t".join(str(r[c]) if r[c] != "" else "-" for c in COLS) + "\n"
    return out


def readme(rows):
    op = MACHO["app-default-opcodes-x86_64"]
    ch = MACHO["app-default-chained-x86_64"]
    nreg = sum(1 for b in op.binds if b["new_target"]) + len(op.lazy_binds)
    subs = {
        "@TABLE@": readme_table(rows),
        "@NIMP@": str(len(ch.imports)),
        "@XLAST@": str(len(ch.imports) + len(TREAT_AS_WEAK) - 1),
        "@NREG@": str(nreg - 1),
        "@NREGB@": str(sum(1 for b in op.binds if b["new_target"])),
        "@NLAZY@": str(len(op.lazy_binds)),
        "@NWT@": str(len(op.weak_targets()[0])),
        "@NREB@": str(len(op.rebases)),
        "@NBL@": str(len(op.binds) + len(op.lazy_binds)),
        "@NWS@": str(len(op.weak_sites()[0])),
        "@D2SITES@": str([r for r in rows if r["log"] == "dyld2-macos11.log"][0]["weak_bind_sites"]),
    }
    out = README_TEMPLATE
    for k, v in subs.items():
        out = out.replace(k, v)
    return out


def short(path):
    return path.rsplit("/", 1)[-1]


def readme_table(rows):
    out = ["| log | image | lookups (override checks) | weak targets (distinct symbols) | weak-bind sites | "
           "suppliers per distinct weak-target symbol |", "|---|---|---|---|---|---|"]
    for r in rows:
        sup = r["suppliers_targets"]
        if sup != "-":
            sup = ", ".join("%s %s" % (v, short(k)) for k, v in (x.rsplit("=", 1) for x in sup.split(",")))
        out.append("| `%s`%s | %s | %s (%s) | %s (%s) | %s | %s |" % (
            r["log"], "" if r["pid"] in (PID, "-") else " pid %s" % r["pid"], short(r["image"]),
            r["lookups"], r["override_checks"], r["weak_targets"], r["weak_target_symbols"],
            r["weak_bind_sites"], sup))
    return "\n".join(out)


README_TEMPLATE = """# dyld log fixtures

Replays of what dyld prints with `DYLD_PRINT_BINDINGS=1` when it launches the
fixtures in `../bin/` (and the `../process/App.app` bundle), for testing
weakscan's log reader. They are generated, not captured on a Mac:

    python3 testdata/logs/gen.py          # rewrite everything here
    python3 testdata/logs/gen.py --check  # fail if a file here is stale

`gen.py` (Python 3 standard library, plus `llvm-objdump` from LLVM 22) reads
the fixtures itself: load commands, export tries and chained-fixup imports
through `llvm-objdump --macho`, and the rebase / bind / lazy-bind / weak-bind
opcode streams with its own decoder (cross-checked row by row against
`--rebase`, `--bind`, `--lazy-bind`, `--weak-bind`). It then replays dyld's
code paths; the docstring of `gen.py` names every function and format string
with its file:line in apple-oss-distributions/dyld. It does not call weakscan.
Output is byte-identical on every run.

Made up: the paths (`/Users/ci/build/...`; `/Applications/App.app/...` for
the bundle), the slide (0x4000000), the load addresses of the dylibs outside
the cache, the shared cache (its addresses, which dylibs it has, the patchable
uses behind `cache patch:` lines) and the program output in `noisy.log`.
Taken from the fixtures: every bind target, site, import, export, address
inside the app and the on-disk pointer values behind `<rebase>` fixups.

The made-up shared cache: `/usr/lib/libSystem.B.dylib` re-exports
`libsystem_c`, `libsystem_kernel`, `libdyld` and `/usr/lib/libc++abi.dylib`
(so that the fixtures' binds to libSystem resolve, as in their hand-written
`libSystem.tbd`). `libc++abi.dylib` has MH_WEAK_DEFINES and exports the
operator new/delete family (the 22 `sTreatAsWeak` names; 20 on macOS 11) as
weak definitions, like the real one. Load order: the main executable, its
direct dependents (`libweak.dylib` for the uselib app), then libSystem's.
For `App.app` gen.py replays `JustInTimeLoader::loadDependents` and
`Loader::getLoader` (LC_RPATH stack, `@loader_path`, `@executable_path`,
install-name match): App, libshared_a, libshared_b (libmissing, weak-linked,
is not found and skipped), libSystem, libdeep (through libshared_a's
`@loader_path/deps`; libshared_b's `@rpath/libdeep.dylib` matches its install
name), then libSystem's dependents. It checks the on-disk order against
`../process/expected.md` and every winner against
`../process/expected-winners.tsv`.

## Files

| file | what | dyld |
|---|---|---|
| `dyld4-macos15-chained.log` | app-default-chained-x86_64; kernel page-in linking, so no per-location fixups | dyld-1231.3 |
| `dyld4-macos15-opcodes.log` | app-default-opcodes-x86_64, with `fixup:` lines (`<rebase>`, `bind#`, `weak-bind#`) | dyld-1231.3 |
| `dyld4-macos26-chained.log` | as above, dyld-1323.3 forms: regular bind targets `<%s/bind#%llu> -> %p <%s/%s>)` | dyld-1323.3 |
| `dyld4-macos26-opcodes.log` | as above; override targets keep `(%s/%s)`; `fixup: *0x%010lX = 0x%016lX` | dyld-1323.3 |
| `dyld4-macos14-opcodes.log` | no `looking for weak-def symbol` lines (`verboseWeak = false`, Loader.cpp:2420) | dyld-1122.1 |
| `dyld4-macos14-chained.log` | same; the weak targets cannot be told apart from the other bind lines | dyld-1122.1 |
| `dyld2-macos11.log` | app-default-opcodes-x86_64 under dyld2: `dyld: bind:`, the `weak bind start:` ... `weak bind end` block with `dyld: weak bind:` lines, `dyld: lazy bind:` | dyld-852.2 |
| `dyld4-macos15-uselib.log` | app-uselib-default-chained-x86_64 + `@rpath/libweak.dylib` (testdata/bin/libweak-chained-x86_64.dylib), both outside the cache | dyld-1231.3 |
| `noisy.log` | log 1 mixed with a second process (pid 4243), program output, a syslog stretch, CRLF, invalid UTF-8, unknown dyld lines, a truncated tail; its header lists exact counts | dyld-1231.3 |
| `dyld4-macos15-chained-missing.log` | extra: libc++abi without the two `__type_descriptor_t` names. Lookup blocks with no result line, bind lines `-> 0x0 (<none>/...)`, then the launch fails (halt message) | dyld-1231.3 |
| `dyld4-macos15-opcodes-missing.log` | extra, hypothetical cache: libc++abi's operator new/delete non-weak. An opcode client ignores non-weak cache definitions (rdar://75956202), so: blocks with no result line, `missing-weak-bind (%s)`, `fixup: ... (skipping missing weak bind)` | dyld-1231.3 |
| `dyld4-macos15-process-app.log` | `../process/App.app` as `/Applications/App.app`, pid 4244: App + `libshared_a`, `libshared_b`, `deps/libdeep` (four images outside the cache, each with its own lookup blocks and bind lines); the weak-linked `@rpath/libmissing.dylib` is missing, so App's import from it is `-> 0x0 (<none>/...)` without a lookup block | dyld-1231.3 |
| `dyld4-macos15-inserted.log` | app-default-chained-x86_64 with `DYLD_INSERT_LIBRARIES` = libweak.dylib (testdata/bin/libweak-chained-x86_64.dylib) and client.dylib (testdata/importers/client.dylib, 3 regular bind targets, none weak): both are fixed up, and searched, before the main executable | dyld-1231.3 |
| `dyld4-macos26-inserted-opcodes.log` | the same with app-default-opcodes-x86_64 under dyld-1323.3: chained and regular targets in `<…/…>)`, the app's opcode weak-bind targets in `(…/…)` | dyld-1323.3 |
| `dyld4-macos15-renamed.log` | app-default-chained-x86_64 with a cache whose libc++ trie re-exports `__ZdlPvm` as libc++abi's `__ZdlPv` (a renamed re-export): the lookups name `__ZdlPvm`, the bind lines print `(libc++abi.dylib/__ZdlPv)` | dyld-1231.3 |
| `dyld4-macos14-renamed-opcodes.log` | the same cache, app-default-opcodes-x86_64 on macOS 14: no lookup lines, so the weak-bind target prints only `__ZdlPv` | dyld-1122.1 |
| `dyld4-macos26-variants-chained.log` | app-default-chained-x86_64 with a cache whose libc++ exports `__Znwm` as a function variant (made up): a non-weak definition, it replaces libc++abi's weak one found first (`  using non-weak …`), and the bind lines print `<libc++.1.dylib/variant-table#0('__Znwm')>)` | dyld-1323.3 |
| `dyld4-macos26-variants-opcodes.log` | the same cache, app-default-opcodes-x86_64: an opcode requester skips a non-weak definition in the shared cache (rdar://75956202), so libc++abi's weak one stays | dyld-1323.3 |
| `dyld4-macos15-pagein-only.log` | `../process/Lazy`: a main executable with no bind target; its two page-in lines are the whole log | dyld-1231.3 |
| `dyld4-macos26-lazy-load.log` | the same process on macOS 26.4; the program then calls into `liblazy.dylib`, which its `LC_LAZY_LOAD_DYLIB_INFO` names: `_dyld_lazy_load` dlopens it, and its lookups and bind lines follow the launch (no page-in line: after the launch dyld links pages in itself, silently) | dyld-1376.6 |
| `expected.tsv` | the figures below, one row per (log, pid, image) | |

Each log starts with header lines that begin with `#` (`# text`, or `#` alone;
never a `dyld[` prefix) naming the dyld version, the functions and format
strings followed and the figures a parser should report. The header lines
quote format strings such as `looking for weak-def symbol '%s':`, so a parser
(or a grep) must skip lines starting with `#`.

## What is in a dyld4 log (macOS 15), in order

1. The 22 override checks of `handleStrongWeakDefOverrides` (main executable
   has MH_WEAK_DEFINES): a lookup block each, no bind line. For `__Znam` and
   `__ZdaPv` the app's strong definition wins, so the block also has
   `found use of ... in cache, need to override: /usr/lib/libc++abi.dylib`
   (twice on dyld-1231.3, once on dyld-1323.3) and the first time
   `cache patch:` lines.
2. The main executable's `applyFixups`:
   - chained: a bind line per import, in import order, each weak one (ordinal
     -3) preceded by its lookup block; then the 22 treat-as-weak targets,
     bind#@NIMP@..@XLAST@, each with its lookup block; then `Setting up kernel page-in
     linking for /path` and one range line for `__DATA_CONST` (single-page
     `__DATA` is fixed up in-process without a line).
   - opcodes: the regular targets bind#0..@NREG@ (@NREGB@ regular, @NLAZY@ lazy), the @NWT@ weak
     targets restarting at bind#0 (each after its lookup block), then the
     `fixup:` lines: @NREB@ `<rebase>`, @NBL@ `<app/bind#N>`, @NWS@ `<app/weak-bind#N>`.
3. The other images outside the cache in load order (libweak in the uselib
   log; libshared_a, libshared_b, libdeep in the process log), each with its
   bind lines (each weak one after its lookup block) and its page-in lines.
   Cache images print nothing.

## Figures (main executable unless named; every dyld4 log uses pid 4242, except the process log: 4244)

"lookups" counts `looking for weak-def symbol` blocks attributed to the image
(override checks go to the main executable). "weak targets" are bind lines a
parser can tell are the image's own weak binds: opcode override targets (the
second sequence, from bind#0 again, including `missing-weak-bind`) and chained
bind lines preceded by a lookup block of the same symbol, except the 22
treat-as-weak targets dyld appends after a chained main executable's imports
(counted as `appended_lookups`: lookups, not weak binds, as weakscan counts
them); for dyld2, the symbols with `dyld: weak bind:` lines. "weak-bind sites" are `fixup: ... <image/weak-bind#N>` lines
(opcodes) or `dyld: weak bind:` lines (dyld2); chained logs show none.
"suppliers" count, per distinct weak-target symbol, the image that supplied
its definition, named as the log names it: the full path in the last `using`
(or `using non-weak`) line of its lookup block; on macOS 14, which has no
lookup lines, and in dyld2, the leaf name in the bind line; `none` when the
block has no result line. The `image` column of `expected.tsv` is always the
full path. Everything is computed by `gen.py` from its replay.

@TABLE@

`expected.tsv` columns (tab-separated). `-` means the log cannot give the
figure (weakscan reports `null` / `n/a` there): lookups on macOS 14 and in
dyld2, the weak targets of a chained image on macOS 14 (weak and regular
imports look alike; the true number is 39), the sites of a chained image
(page-in linking prints no locations).

| column | meaning |
|---|---|
| `log`, `pid` | the file and the process (`-` for dyld2, which prints no pid) |
| `image`, `role` | full path of the image the figures belong to; `main`, `inserted` (`DYLD_INSERT_LIBRARIES`: fixed up before the main executable), `dylib`, or `cache-dylib` (dyld2 only) |
| `lookups` | lookup blocks (`looking for weak-def symbol '%s':` lines) attributed to the image |
| `override_checks` | of those, the ones with no bind-target line after them (handleStrongWeakDefOverrides) |
| `bound_lookups` | of those, the ones followed by the bind-target line of the same symbol |
| `appended_lookups` | of those, the ones of the 22 treat-as-weak targets dyld appends after a chained main executable's imports (bind# >= import count); they are lookups, not the image's weak binds |
| `weak_targets`, `weak_target_symbols` | the image's own weak bind targets the log identifies (appended treat-as-weak targets excluded), and their distinct symbols |
| `missing_weak` | of those, unresolved: `missing-weak-bind (%s)` or a chained `-> 0x0 (<none>/%s)` |
| `weak_bind_sites` | `fixup: ... <image/weak-bind#N>` lines (opcodes, incl. `skipping missing weak bind`), `dyld: weak bind:` lines (dyld2); `-` for chained images |
| `suppliers_lookups` | per lookup block: supplier path (last `using` line) `=count`; `none` = no result line |
| `suppliers_targets` | per distinct weak-target symbol, as defined above |
| `note` | free text |

## dyld behaviour worth knowing (checked in the source)

- dyld-1231.3 prints `found use of '%s' in cache, need to override` twice per
  lookup: the cache patch block is inside the loop over `state.loaded` and
  `state.delayLoaded` (Loader.cpp:2635-2701, block at :2678); the second
  pass, over the empty delay-loaded list, repeats it with the same
  `cacheResults`. dyld-1323.3
  moved it after the loop (Loader.cpp:2984-3006) and stops after
  `state.loaded` once a definition is found. Otherwise the lookups are the
  same in dyld-1323.3 and dyld-1231.3 (handleStrongWeakDefOverrides,
  `Fixups::forEachBindTarget_ChainedFixups` and the weak opcode rule are
  identical).
- `cache patch: %p = 0x%0lX` lines come with DYLD_PRINT_BINDINGS too, on
  macOS 14 as well (it has no lookup lines but still patches).
- A lookup block does not list every image that exports the name: the search
  walks all loaded images with MH_WEAK_DEFINES in load order without stopping,
  but prints only the first definition (`using`) and a later non-weak one that
  replaces a weak one (`using non-weak`, at most once). In the process log,
  `proc::Registry<int>::Instance()` is exported weak by App, libshared_a and
  libshared_b, and its blocks have one `using` line (App);
  `proc::Counter<long>()` has two (App, then libshared_b's strong definition).
- An import from a missing weak-linked dylib (LC_LOAD_WEAK_DYLIB not found)
  has no target image: `<App/bind#9> -> 0x0 (<none>/__Z14MissingFeaturev)`,
  with no lookup block (it is not ordinal -3).
- The path in `using '%s' in %s` is the loader's real path (F_GETPATH), not the
  load path: libshared_b, loaded as `@loader_path/../Frameworks/libshared_b.dylib`,
  is printed as `/Applications/App.app/Contents/Frameworks/libshared_b.dylib`.
- If the shared cache hands out its dylibs as PrebuiltLoaders (its
  PrebuiltLoaderSet), libSystem enters `state.loaded` only when it is mapped,
  from its own `loadDependents` (PrebuiltLoader.cpp:378): in the process that
  is after libdeep. libSystem has no weak definitions and prints nothing, so
  no line changes; gen.py replays both orders and checks that.
- A chained main executable gets the 22 treat-as-weak names as bind targets
  with `weakImport = false` (MachOLayout.cpp:508 at dyld-1231.3): if nobody
  exports one, the launch fails with `Symbol not found: ... Expected as
  weak-def export from some loaded dylib`. Only the override checks
  (`weakImport = true`) can end without a result line harmlessly. So in a
  successful launch no chained target is null; see
  `dyld4-macos15-chained-missing.log`. An opcode weak target that is not found
  prints `missing-weak-bind (%s)` and its sites `(skipping missing weak bind)`.
- A new opcode weak target starts on a new SET_SYMBOL (the name pointer is
  compared, MachOLayout.cpp:852) or a new addend, not only on a new name.
- dyld2 only rebinds a weak symbol when two images' weak-bind streams meet on
  it, and its merge assumes streams sorted by name. lld-22 does not sort the
  weak-bind stream (it orders the symbols by the address of their first use;
  `--weak-bind` lists the stream in order), so dyld2 rebinds only @D2SITES@ of
  this fixture's @NWS@ sites; `dyld: weak bind:` lines also appear
  for cache dylibs (libc++, libc++abi) that use the same names.
- The `symbol '%s' missing from root that overrides %s ...` warning is already
  in dyld-1231.3 (Loader.cpp:3251), printed with `state.log` and no switch.
- `cache patch: %p = 0x%0lX` is already in dyld-1122.1
  (JustInTimeLoader.cpp:728), so macOS 14 logs have it although they have no
  lookup lines.
- dyld2 at launch (`linkingMainExecutable`, dyld2.cpp:7330) takes the merge
  branch of `weakBindOld`: it prints `dyld: weak bind load order %d/%d for %s`
  (ImageLoader.cpp:1425), `dyld: weak bind, found %s weak=%d in %s ` (with a
  trailing space), `dyld: weak binding all uses of %s to copy from %s` and
  `dyld: weak bind, setting all uses of %s in %s to 0x%lX from %s`, each
  followed by the `dyld: weak bind: ...` lines of that image. `checking for
  weak symbols in %s`, `  found weak %s at 0x%lX in %s`, `  found strong ...`
  and `    adjusting uses ...` come only from the dlopen branch (:1355-1412).
"""


if __name__ == "__main__":
    main()
