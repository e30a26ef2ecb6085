//! A slice's mach header and the load commands weakscan needs, read with goblin.
//!
//! ```text
//! struct mach_header_64 { magic: u32 /* 0xfeedfacf */, cputype: i32, cpusubtype: i32,
//!                         filetype: u32, ncmds: u32, sizeofcmds: u32, flags: u32, reserved: u32 }
//! // followed by ncmds load commands, each { cmd: u32, cmdsize: u32, … }, in sizeofcmds bytes
//! ```
//!
//! Every command must have `cmdsize` ≥ 8, a multiple of 8, inside `sizeofcmds`; segments'
//! sections must fit their command; LINKEDIT ranges must lie inside the slice. Duplicate
//! `LC_DYLD_INFO(_ONLY)`, `LC_DYLD_EXPORTS_TRIE` or `LC_DYLD_CHAINED_FIXUPS` are refused, as
//! dyld does (`MachOAnalyzer::validLinkedit`). `LC_LAZY_LOAD_DYLIB_INFO` (0x3A, which goblin
//! does not know) is read by `lazy_load.rs`, once its data is known to lie in LINKEDIT apart
//! from the other blobs.

use super::cursor::symbol_name;
use super::file::{MachOFile, SliceLocation};
use super::lazy_load::{LC_LAZY_LOAD_DYLIB_INFO, parse_lazy_load_dylib};
use crate::error::{ErrorKind, Result};
use crate::model::{DylibAttributes, DylibLink, Linkage, LinkedDylib};
use goblin::mach::header::{Header64, SIZEOF_HEADER_64};
use goblin::mach::load_command::{
    CommandVariant, LoadCommand, SIZEOF_SEGMENT_COMMAND_64, Section64,
};
use scroll::{LE, Pread};

/// Size of a `section_64` record.
pub const SIZEOF_SECTION_64: usize = 80;
/// `VM_PROT_WRITE`.
pub const VM_PROT_WRITE: u32 = 0x2;

/// One section of a segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// `sectname`, e.g. `__got`.
    pub name: String,
    /// `addr` (unslid vm address).
    pub addr: u64,
    /// `size` in bytes.
    pub size: u64,
}

/// One `LC_SEGMENT_64`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// `segname`, e.g. `__DATA_CONST`.
    pub name: String,
    /// Unslid vm address.
    pub vmaddr: u64,
    /// Size in memory.
    pub vmsize: u64,
    /// Offset of its bytes from the start of the slice.
    pub fileoff: u64,
    /// Number of bytes in the file.
    pub filesize: u64,
    /// `initprot` (`VM_PROT_*`).
    pub initprot: u32,
    /// Its sections.
    pub sections: Vec<Section>,
}

/// An offset/size pair into the slice (from a `linkedit_data_command` or `dyld_info_command`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkeditRange {
    /// Offset from the start of the slice.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// The facts of one slice that weakscan uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadCommands {
    /// `filetype` (`MH_EXECUTE` = 2, `MH_DYLIB` = 6, `MH_BUNDLE` = 8, …).
    pub filetype: u32,
    /// Header `flags` (`MH_WEAK_DEFINES` 0x8000, `MH_BINDS_TO_WEAK` 0x10000, …).
    pub flags: u32,
    /// `LC_SEGMENT_64` commands in order (the index used by bind opcodes and chain starts).
    pub segments: Vec<Segment>,
    /// `export_off/size` of `LC_DYLD_INFO(_ONLY)`, when present.
    pub dyld_info_exports: Option<LinkeditRange>,
    /// `weak_bind_off/size` of `LC_DYLD_INFO(_ONLY)`, when present.
    pub dyld_info_weak_bind: Option<LinkeditRange>,
    /// `bind_off/size` of `LC_DYLD_INFO(_ONLY)`, when present.
    pub dyld_info_bind: Option<LinkeditRange>,
    /// `lazy_bind_off/size` of `LC_DYLD_INFO(_ONLY)`, when present.
    pub dyld_info_lazy_bind: Option<LinkeditRange>,
    /// `LC_DYLD_EXPORTS_TRIE`.
    pub exports_trie: Option<LinkeditRange>,
    /// `LC_DYLD_CHAINED_FIXUPS`.
    pub chained_fixups: Option<LinkeditRange>,
    /// Number of `LC_LOAD_DYLIB`, `LC_LOAD_WEAK_DYLIB`, `LC_REEXPORT_DYLIB` and
    /// `LC_LOAD_UPWARD_DYLIB` commands: the range of library ordinals (dyld
    /// `MachOFile::dependentDylibCount`).
    pub dylib_count: u32,
    /// `LC_SYMTAB`: the symbol table and string table, when present.
    pub symtab: Option<SymtabRange>,
    /// `LC_UUID`, when present.
    pub uuid: Option<[u8; 16]>,
    /// `LC_ID_DYLIB`, the dylib commands and `LC_RPATH`s.
    pub linkage: Linkage,
}

impl LoadCommands {
    /// Each segment's bounds, in load-command order, as the bind interpreters check fixup
    /// sites against them ([`super::bind_opcodes::SegmentBounds`]).
    pub fn segment_bounds(&self) -> Vec<super::bind_opcodes::SegmentBounds> {
        self.segments
            .iter()
            .map(|s| super::bind_opcodes::SegmentBounds {
                vm_size: s.vmsize,
                writable: s.initprot & VM_PROT_WRITE != 0,
                is_linkedit: s.name == "__LINKEDIT",
            })
            .collect()
    }
}

/// `struct symtab_command` (`<mach-o/loader.h>`): where the nlist_64 entries and the string
/// table are, as offsets from the start of the slice. Both ranges are checked to lie inside
/// the slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymtabRange {
    /// `symoff`: offset of the first `nlist_64`.
    pub symoff: u32,
    /// `nsyms`: number of 16-byte `nlist_64` entries.
    pub nsyms: u32,
    /// `stroff`: offset of the string table.
    pub stroff: u32,
    /// `strsize`: size of the string table in bytes.
    pub strsize: u32,
}

/// A `segname`/`sectname` (16 bytes, NUL-padded) as one line of text (see [`symbol_name`]).
fn fixed_name(raw: &[u8; 16]) -> String {
    let len = raw.iter().position(|&b| b == 0).unwrap_or(16);
    symbol_name(&raw[..len])
}

/// The `lc_str` whose offset (from the start of the command) is at `at` in `cmd`: a
/// NUL-terminated string inside the command (`union lc_str` in `<mach-o/loader.h>`; dyld's
/// `MachOFile::forEachDependentDylib` requires the same). Errors: an offset outside the
/// command, or no NUL before its end.
fn lc_str(cmd: &[u8], at: usize) -> std::result::Result<String, String> {
    let off = super::cursor::le_u32(cmd, at).ok_or("truncated lc_str")? as usize;
    if off < at + 4 || off >= cmd.len() {
        return Err(format!(
            "string offset {off} is outside the command ({} bytes)",
            cmd.len()
        ));
    }
    let tail = &cmd[off..];
    let len = tail
        .iter()
        .position(|&b| b == 0)
        .ok_or("string is not NUL-terminated inside the command")?;
    Ok(symbol_name(&tail[..len]))
}

/// `dylib_use_command.marker` (dyld-1378 mach_o/UnsafeHeader.h): where a `dylib_command` has
/// its `timestamp`, this value says the command is a `dylib_use_command`.
pub const DYLIB_USE_MARKER: u32 = 0x1a74_1800;
/// `sizeof(struct dylib_use_command)`: `cmd`, `cmdsize`, `nameoff`, `marker`,
/// `current_version`, `compat_version`, `flags`, each a `u32`.
pub const SIZEOF_DYLIB_USE_COMMAND: u32 = 28;

/// The `flags` of a dylib load command written as a `struct dylib_use_command`, or `None` for a
/// classic `struct dylib_command`.
///
/// ```text
/// struct dylib_use_command {            // mach_o/UnsafeHeader.h, dyld-1378
///     uint32_t cmd;                     // LC_LOAD_DYLIB or LC_LOAD_WEAK_DYLIB
///     uint32_t cmdsize;
///     uint32_t nameoff;                 // == 28
///     uint32_t marker;                  // == 0x1a741800
///     uint32_t current_version;
///     uint32_t compat_version;          // == 0x00010000
///     uint32_t flags;                   // DYLIB_USE_WEAK_LINK 0x01, _REEXPORT 0x02,
/// };                                    // _UPWARD 0x04, _DELAYED_INIT 0x08
/// ```
///
/// dyld takes the new form when `marker` and `nameoff` both match, whatever the command
/// (`UnsafeHeader::loadCommandToDylibKind`), and then reads only `flags`, as one byte. A
/// command too short to hold `flags` is a classic one (its name check fails first when its
/// `nameoff` is 28). `cmd` is the whole command, `cmdsize` bytes.
pub fn dylib_use_flags(cmd: &[u8]) -> Option<u32> {
    let u32_at = |at: usize| super::cursor::le_u32(cmd, at);
    (u32_at(8)? == SIZEOF_DYLIB_USE_COMMAND && u32_at(12)? == DYLIB_USE_MARKER)
        .then(|| u32_at(24))
        .flatten()
}

/// Reads and checks the mach header and load commands of the slice at `loc`.
pub fn read_load_commands(file: &MachOFile, loc: &SliceLocation) -> Result<LoadCommands> {
    let arch = &loc.arch;
    let bad = |what: String| file.error(ErrorKind::Malformed, format!("{arch}: {what}"));
    if loc.size < SIZEOF_HEADER_64 as u64 {
        return Err(bad("truncated mach header".into()));
    }
    let hbytes = file.read_range(loc.offset, SIZEOF_HEADER_64 as u64, "mach header")?;
    let header: Header64 = hbytes
        .pread_with(0, LE)
        .map_err(|e| bad(format!("mach header: {e}")))?;
    match header.magic {
        goblin::mach::header::MH_MAGIC_64 => {}
        goblin::mach::header::MH_MAGIC => {
            return Err(file.error(
                ErrorKind::Unsupported,
                format!("{arch}: 32-bit Mach-O images are not supported"),
            ));
        }
        m => {
            return Err(bad(format!(
                "slice is not a 64-bit little-endian Mach-O image (magic {m:#010x})"
            )));
        }
    }
    if u64::from(header.sizeofcmds) > loc.size - SIZEOF_HEADER_64 as u64 {
        return Err(bad(format!(
            "truncated: load commands (sizeofcmds {}) end at {:#x}, past the end of the slice ({} bytes)",
            header.sizeofcmds,
            SIZEOF_HEADER_64 as u64 + u64::from(header.sizeofcmds),
            loc.size
        )));
    }
    let cmds = file.read_range(
        loc.offset + SIZEOF_HEADER_64 as u64,
        u64::from(header.sizeofcmds),
        "load commands",
    )?;
    let mut out = LoadCommands {
        filetype: header.filetype,
        flags: header.flags,
        segments: Vec::new(),
        dyld_info_exports: None,
        dyld_info_weak_bind: None,
        dyld_info_bind: None,
        dyld_info_lazy_bind: None,
        exports_trie: None,
        chained_fixups: None,
        dylib_count: 0,
        symtab: None,
        uuid: None,
        linkage: Linkage::default(),
    };
    // Every LINKEDIT blob any load command points at, for the layout check below.
    let mut blobs: Vec<LinkeditBlob> = Vec::new();
    let mut blob = |name: &'static str, offset: u32, size: u64| {
        if size != 0 {
            blobs.push(LinkeditBlob {
                name,
                offset: u64::from(offset),
                size,
            });
        }
    };
    // LC_LAZY_LOAD_DYLIB_INFO data, read once the blobs are known not to overlap.
    let mut lazy: Vec<LinkeditRange> = Vec::new();
    let mut off = 0usize;
    for i in 0..header.ncmds {
        let size = cmds
            .get(off + 4..off + 8)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap_or_default()) as usize)
            .ok_or_else(|| {
                bad(format!(
                    "load command {i} at offset {:#x} runs past sizeofcmds",
                    off + 32
                ))
            })?;
        if size < 8 || size % 8 != 0 || off + size > cmds.len() {
            return Err(bad(format!("load command {i} has invalid cmdsize {size}")));
        }
        let bytes = &cmds[off..off + size];
        if super::cursor::le_u32(bytes, 0) == Some(LC_LAZY_LOAD_DYLIB_INFO) {
            let field = |at: usize| super::cursor::le_u32(bytes, at);
            let (Some(dataoff), Some(datasize)) = (field(8), field(12)) else {
                return Err(bad(format!(
                    "LC_LAZY_LOAD_DYLIB_INFO: cmdsize {size} is too small for a linkedit_data_command"
                )));
            };
            if u64::from(dataoff) + u64::from(datasize) > loc.size {
                return Err(bad(format!(
                    "truncated: LC_LAZY_LOAD_DYLIB_INFO (offset {dataoff:#x}, {datasize} bytes) ends past the end of the slice ({} bytes)",
                    loc.size
                )));
            }
            blob("lazy-load dylib info", dataoff, datasize.into());
            lazy.push(LinkeditRange {
                offset: dataoff,
                size: datasize,
            });
            off += size;
            continue;
        }
        let mut at = 0usize;
        let lc = LoadCommand::parse(bytes, &mut at, LE)
            .map_err(|e| bad(format!("load command {i}: {e}")))?;
        let range_in_slice = |what: &str, offset: u32, len: u32| -> Result<Option<LinkeditRange>> {
            if u64::from(offset) + u64::from(len) > loc.size {
                return Err(bad(format!(
                    "truncated: {what} (offset {offset:#x}, {len} bytes) ends at {:#x}, past the end of the slice ({} bytes)",
                    u64::from(offset) + u64::from(len),
                    loc.size
                )));
            }
            Ok(Some(LinkeditRange { offset, size: len }))
        };
        match lc.command {
            CommandVariant::Segment64(seg) => {
                let nsects = seg.nsects as usize;
                if nsects
                    .saturating_mul(SIZEOF_SECTION_64)
                    .saturating_add(SIZEOF_SEGMENT_COMMAND_64)
                    > size
                {
                    return Err(bad(format!(
                        "segment {} has {nsects} sections that do not fit its load command",
                        fixed_name(&seg.segname)
                    )));
                }
                let mut sections = Vec::with_capacity(nsects);
                for s in 0..nsects {
                    let sect: Section64 = bytes
                        .pread_with(SIZEOF_SEGMENT_COMMAND_64 + s * SIZEOF_SECTION_64, LE)
                        .map_err(|e| bad(format!("section {s}: {e}")))?;
                    sections.push(Section {
                        name: fixed_name(&sect.sectname),
                        addr: sect.addr,
                        size: sect.size,
                    });
                }
                match seg.fileoff.checked_add(seg.filesize) {
                    None => {
                        return Err(bad(format!(
                            "segment {} file range (fileoff {:#x}, filesize {:#x}) overflows 64 bits",
                            fixed_name(&seg.segname),
                            seg.fileoff,
                            seg.filesize
                        )));
                    }
                    Some(end) if end > loc.size => {
                        return Err(bad(format!(
                            "truncated: segment {} file range ends at {end:#x}, past the end of the slice ({} bytes)",
                            fixed_name(&seg.segname),
                            loc.size
                        )));
                    }
                    Some(_) => {}
                }
                out.segments.push(Segment {
                    name: fixed_name(&seg.segname),
                    vmaddr: seg.vmaddr,
                    vmsize: seg.vmsize,
                    fileoff: seg.fileoff,
                    filesize: seg.filesize,
                    initprot: seg.initprot,
                    sections,
                });
            }
            CommandVariant::Segment32(_) => {
                return Err(bad("LC_SEGMENT (32-bit) in a 64-bit image".into()));
            }
            CommandVariant::DyldInfo(d) | CommandVariant::DyldInfoOnly(d) => {
                if out.dyld_info_exports.is_some() {
                    return Err(bad("more than one LC_DYLD_INFO(_ONLY)".into()));
                }
                blob("rebase opcodes", d.rebase_off, d.rebase_size.into());
                blob("bind opcodes", d.bind_off, d.bind_size.into());
                blob(
                    "weak-bind opcodes",
                    d.weak_bind_off,
                    d.weak_bind_size.into(),
                );
                blob(
                    "lazy-bind opcodes",
                    d.lazy_bind_off,
                    d.lazy_bind_size.into(),
                );
                blob("export trie", d.export_off, d.export_size.into());
                out.dyld_info_exports = range_in_slice("export trie", d.export_off, d.export_size)?;
                out.dyld_info_weak_bind =
                    range_in_slice("weak-bind stream", d.weak_bind_off, d.weak_bind_size)?;
                out.dyld_info_bind = range_in_slice("bind stream", d.bind_off, d.bind_size)?;
                out.dyld_info_lazy_bind =
                    range_in_slice("lazy-bind stream", d.lazy_bind_off, d.lazy_bind_size)?;
            }
            CommandVariant::DyldExportsTrie(d) => {
                if out.exports_trie.is_some() {
                    return Err(bad("more than one LC_DYLD_EXPORTS_TRIE".into()));
                }
                blob("LC_DYLD_EXPORTS_TRIE", d.dataoff, d.datasize.into());
                out.exports_trie = range_in_slice("LC_DYLD_EXPORTS_TRIE", d.dataoff, d.datasize)?;
            }
            CommandVariant::DyldChainedFixups(d) => {
                if out.chained_fixups.is_some() {
                    return Err(bad("more than one LC_DYLD_CHAINED_FIXUPS".into()));
                }
                blob("LC_DYLD_CHAINED_FIXUPS", d.dataoff, d.datasize.into());
                out.chained_fixups =
                    range_in_slice("LC_DYLD_CHAINED_FIXUPS", d.dataoff, d.datasize)?;
            }
            CommandVariant::Symtab(st) => {
                if out.symtab.is_some() {
                    return Err(bad("more than one LC_SYMTAB".into()));
                }
                blob("symbol table", st.symoff, u64::from(st.nsyms) * 16);
                blob("string table", st.stroff, st.strsize.into());
                let end = |off: u32, len: u64| u64::from(off).checked_add(len);
                if end(st.symoff, u64::from(st.nsyms) * 16).is_none_or(|e| e > loc.size) {
                    return Err(bad(format!(
                        "truncated: symbol table ({} entries at offset {:#x}) runs past the end of the slice ({} bytes)",
                        st.nsyms, st.symoff, loc.size
                    )));
                }
                if end(st.stroff, st.strsize.into()).is_none_or(|e| e > loc.size) {
                    return Err(bad(format!(
                        "truncated: string table ({} bytes at offset {:#x}) runs past the end of the slice ({} bytes)",
                        st.strsize, st.stroff, loc.size
                    )));
                }
                out.symtab = Some(SymtabRange {
                    symoff: st.symoff,
                    nsyms: st.nsyms,
                    stroff: st.stroff,
                    strsize: st.strsize,
                });
            }
            CommandVariant::Uuid(u) => {
                if out.uuid.is_some() {
                    return Err(bad("more than one LC_UUID".into()));
                }
                out.uuid = Some(u.uuid);
            }
            CommandVariant::Dysymtab(d) => {
                blob("local relocations", d.locreloff, u64::from(d.nlocrel) * 8);
                blob(
                    "external relocations",
                    d.extreloff,
                    u64::from(d.nextrel) * 8,
                );
                blob(
                    "indirect symbol table",
                    d.indirectsymoff,
                    u64::from(d.nindirectsyms) * 4,
                );
            }
            CommandVariant::FunctionStarts(d) => {
                blob("function starts", d.dataoff, d.datasize.into())
            }
            CommandVariant::DataInCode(d) => blob("data in code", d.dataoff, d.datasize.into()),
            CommandVariant::CodeSignature(d) => {
                blob("code signature", d.dataoff, d.datasize.into())
            }
            CommandVariant::SegmentSplitInfo(d) => {
                blob("split-seg info", d.dataoff, d.datasize.into());
            }
            CommandVariant::LoadDylib(_)
            | CommandVariant::LoadWeakDylib(_)
            | CommandVariant::ReexportDylib(_)
            | CommandVariant::LoadUpwardDylib(_) => {
                out.dylib_count += 1;
                let link = match lc.command {
                    CommandVariant::LoadWeakDylib(_) => DylibLink::Weak,
                    CommandVariant::ReexportDylib(_) => DylibLink::Reexport,
                    CommandVariant::LoadUpwardDylib(_) => DylibLink::Upward,
                    _ => DylibLink::Regular,
                };
                let install_name =
                    lc_str(bytes, 8).map_err(|e| bad(format!("load command {i}: {e}")))?;
                let use_flags = dylib_use_flags(bytes);
                out.linkage.dylibs.push(LinkedDylib {
                    install_name,
                    link,
                    use_command: use_flags.is_some(),
                    attributes: use_flags
                        .map_or_else(|| link.attributes(), DylibAttributes::from_flags),
                });
            }
            CommandVariant::IdDylib(_) => {
                if out.linkage.install_name.is_some() {
                    return Err(bad("more than one LC_ID_DYLIB".into()));
                }
                let name = lc_str(bytes, 8).map_err(|e| bad(format!("LC_ID_DYLIB: {e}")))?;
                out.linkage.install_name = Some(name);
            }
            CommandVariant::Rpath(_) => {
                let path = lc_str(bytes, 8).map_err(|e| bad(format!("LC_RPATH: {e}")))?;
                out.linkage.rpaths.push(path);
            }
            _ => {}
        }
        off += size;
    }
    if out.dyld_info_exports.is_some() && out.chained_fixups.is_some() {
        return Err(bad(
            "both LC_DYLD_INFO and LC_DYLD_CHAINED_FIXUPS are present".into(),
        ));
    }
    check_segment_overlap(&out.segments).map_err(bad)?;
    check_linkedit_layout(&out.segments, blobs).map_err(bad)?;
    // The blobs do not overlap: all of them together are at most the slice.
    for r in lazy {
        let data = file.read_range(
            loc.offset + u64::from(r.offset),
            u64::from(r.size),
            "lazy-load dylib info",
        )?;
        let dylib = parse_lazy_load_dylib(&data)
            .map_err(|e| bad(format!("LC_LAZY_LOAD_DYLIB_INFO at {:#x}: {e}", r.offset)))?;
        out.linkage.lazy_dylibs.push(dylib);
    }
    Ok(out)
}

/// dyld's segment rule (`mach_o::Header::validSegments`, dyld-1231.3): no two segments overlap
/// in memory, and no two with file bytes overlap in the file. (Overlapping file ranges would also
/// make weakscan read and walk the same fixup pages once per segment.) O(n log n) in segments.
fn check_segment_overlap(segments: &[Segment]) -> std::result::Result<(), String> {
    let overlap = |what: &str, mut ranges: Vec<(u64, u64, &str)>| {
        ranges.sort_unstable();
        for w in ranges.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(format!(
                    "{what} range of segment {} overlaps segment {}",
                    w[1].2, w[0].2
                ));
            }
        }
        Ok(())
    };
    let mut vm = Vec::with_capacity(segments.len());
    for s in segments.iter().filter(|s| s.vmsize > 0) {
        let end = s
            .vmaddr
            .checked_add(s.vmsize)
            .ok_or_else(|| format!("segment {} vm range wraps around the address space", s.name))?;
        vm.push((s.vmaddr, end, s.name.as_str()));
    }
    overlap("vm", vm)?;
    // fileoff + filesize was checked against the slice when each segment was read.
    let file = segments
        .iter()
        .filter(|s| s.filesize > 0)
        .map(|s| (s.fileoff, s.fileoff + s.filesize, s.name.as_str()))
        .collect();
    overlap("file", file)
}

/// One LINKEDIT structure a load command points at: offset and size in the slice.
#[derive(Debug, Clone, Copy)]
struct LinkeditBlob {
    name: &'static str,
    offset: u64,
    size: u64,
}

/// The LINKEDIT layout rule of dyld's `mach_o::Image::validStructureLinkedit` (dyld-1231.3):
/// every non-empty blob lies inside the `__LINKEDIT` segment's file range, and, sorted by file
/// offset, no blob overlaps the next. Its errors, in dyld's words: `LINKEDIT overlap of A and
/// B`, `LINKEDIT content 'A' extends beyond end of segment`, and no `__LINKEDIT` segment for
/// blobs to live in. (dyld's alignment rules depend on the platform policy and are not
/// checked.) Linear after an O(n log n) sort of at most one blob per 8 bytes of load commands.
fn check_linkedit_layout(
    segments: &[Segment],
    mut blobs: Vec<LinkeditBlob>,
) -> std::result::Result<(), String> {
    if blobs.is_empty() {
        return Ok(());
    }
    let Some(linkedit) = segments.iter().find(|s| s.name == "__LINKEDIT") else {
        return Err(format!(
            "{} is outside any __LINKEDIT segment (there is none)",
            blobs[0].name
        ));
    };
    // fileoff + filesize was checked against the slice when the segment was read.
    let (start, end) = (linkedit.fileoff, linkedit.fileoff + linkedit.filesize);
    blobs.sort_by_key(|b| (b.offset, b.size));
    let mut prev = ("", start);
    for b in &blobs {
        if b.offset < start {
            return Err(format!(
                "LINKEDIT content '{}' (offset {:#x}) starts before __LINKEDIT ({start:#x})",
                b.name, b.offset
            ));
        }
        if b.offset < prev.1 {
            return Err(format!(
                "LINKEDIT overlap of {} and {} (file offset {:#x})",
                prev.0, b.name, b.offset
            ));
        }
        let b_end = b.offset + b.size; // both below 2^33
        if b_end > end {
            return Err(format!(
                "LINKEDIT content '{}' (offset {:#x}, {} bytes) extends beyond the end of __LINKEDIT ({end:#x})",
                b.name, b.offset, b.size
            ));
        }
        prev = (b.name, b_end);
    }
    Ok(())
}

impl LoadCommands {
    /// The segment and section names that contain vm address `addr`, or `("?", "?")`.
    pub fn section_of(&self, addr: u64) -> (&str, &str) {
        for seg in &self.segments {
            if addr >= seg.vmaddr && addr - seg.vmaddr < seg.vmsize {
                let sect = seg
                    .sections
                    .iter()
                    .find(|s| addr >= s.addr && addr - s.addr < s.size)
                    .map_or("?", |s| s.name.as_str());
                return (seg.name.as_str(), sect);
            }
        }
        ("?", "?")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dylib load command of `cmd` naming `name`: classic (`dylib_command`, name at 24,
    /// timestamp 2 as ld64 writes it), or with `use_flags` a `dylib_use_command` (name at 28).
    fn dylib_cmd(cmd: u32, name: &str, use_flags: Option<u32>) -> Vec<u8> {
        let at = if use_flags.is_some() { 28 } else { 24 };
        let size = (at + name.len() + 1).div_ceil(8) * 8;
        let mut b = Vec::new();
        for v in [cmd, size as u32, at as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        match use_flags {
            Some(flags) => {
                for v in [DYLIB_USE_MARKER, 0x0001_0000, 0x0001_0000, flags] {
                    b.extend_from_slice(&v.to_le_bytes());
                }
            }
            None => {
                for v in [2u32, 0x0001_0000, 0x0001_0000] {
                    b.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        b.extend_from_slice(name.as_bytes());
        b.resize(size, 0);
        b
    }

    #[test]
    fn dylib_use_commands_are_told_by_marker_and_name_offset() {
        let classic = dylib_cmd(0x8000_0018, "@rpath/libx.dylib", None);
        assert_eq!(dylib_use_flags(&classic), None);
        assert_eq!(lc_str(&classic, 8).unwrap(), "@rpath/libx.dylib");
        // LC_LOAD_DYLIB with DYLIB_USE_WEAK_LINK | DYLIB_USE_DELAYED_INIT.
        let new = dylib_cmd(0xc, "@rpath/libx.dylib", Some(0x09));
        assert_eq!(dylib_use_flags(&new), Some(0x09));
        assert_eq!(lc_str(&new, 8).unwrap(), "@rpath/libx.dylib");
        let a = DylibAttributes::from_flags(0x09);
        assert!(a.weak_link() && a.delay_init() && !a.reexport() && !a.upward());
        assert_eq!(a.names(), ["weak_link", "delay_init"]);
        // The marker alone is not enough: dyld also wants nameoff == 28.
        let mut odd = new.clone();
        odd[8..12].copy_from_slice(&32u32.to_le_bytes());
        assert_eq!(dylib_use_flags(&odd), None);
        // Bits past the four known ones are dropped (dyld reads the flags as one byte whose
        // high half is padding); a re-export is never weak-linked nor delay-init.
        assert_eq!(
            DylibAttributes::from_flags(0xffff_fff2).names(),
            ["reexport"]
        );
        let all = DylibAttributes::from_flags(0x0f);
        assert_eq!(all.effective().names(), ["reexport", "upward"]);
        assert_eq!(DylibLink::Weak.attributes().names(), ["weak_link"]);
        // Too short to hold the flags: not the new form.
        assert_eq!(dylib_use_flags(&new[..20]), None);
    }
}
