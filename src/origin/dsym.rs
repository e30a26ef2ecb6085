//! dSYM: which compile unit defined a symbol of a stripped macOS binary.
//!
//! A stripped binary keeps its export trie (the weak definitions weakscan reports) but loses the
//! debug map (the `N_OSO`/`N_FUN` stabs) that tied each symbol to an object file. `dsymutil`
//! links the objects' DWARF into a companion bundle (`dsymutil(1)`; LLVM's "dsymutil - manipulate
//! archived DWARF debug symbol files"):
//!
//! ```text
//! node.dSYM/Contents/Info.plist
//! node.dSYM/Contents/Resources/DWARF/node      // a Mach-O (MH_DSYM) or universal file:
//!     LC_UUID       = the binary's LC_UUID     // <mach-o/loader.h>: struct uuid_command
//!     __DWARF,__debug_info / __debug_abbrev / __debug_str / __debug_addr / __debug_str_offs /
//!             __debug_ranges / __debug_rnglists / __debug_line_str / …
//! ```
//!
//! Its addresses are the binary's unslid vm addresses (an image at `0x100000000` has
//! `__text` above that; a dylib usually starts at 0), so an export trie offset plus the image
//! base finds the unit directly. The container (slices, `LC_UUID`, sections) is read with the
//! object crate, through a [`object::read::ReadCache`] so that only the load commands and the
//! DWARF sections used are read; the DWARF is parsed with gimli. Nothing here decodes DWARF or
//! Mach-O by hand.
//!
//! What is kept (DWARF 5 section numbers; DWARF 4 is read the same way):
//!
//! * one [`Unit`] per unit of `__debug_info`: `DW_AT_name` and `DW_AT_comp_dir` of its root
//!   (§3.1.1);
//! * address ranges, in two tiers. Precise: every `DW_TAG_subprogram` with code
//!   (`DW_AT_low_pc`/`DW_AT_high_pc` or `DW_AT_ranges`, §2.17) and every `DW_TAG_variable`
//!   whose `DW_AT_location` is `DW_OP_addr`/`DW_OP_addrx` (optionally `+ DW_OP_plus_uconst`,
//!   §2.5.1) — one byte at that address, since weak data symbols (function-local statics such
//!   as `__ZZN…E9registers`, static data members of templates) are looked up by their start.
//!   Coarse: the root's own ranges, which only fill the gaps the precise tier leaves (a root's
//!   `DW_AT_low_pc`/`DW_AT_high_pc` is a bounding range that can span another unit's code).
//!   `.debug_aranges` (§6.1.2) is not read: dsymutil derives it from the same subprogram
//!   ranges, and gimli 0.34 parses each `(0, 0)` entry of it by recursion, so a hostile run of
//!   them could exhaust the stack;
//! * `DW_AT_linkage_name` (or `DW_AT_MIPS_linkage_name`, §2.22) of each of those defining
//!   entries, found on the entry or through `DW_AT_specification` (§2.13.2, a member function's
//!   or static member's declaration inside its class) and `DW_AT_abstract_origin` (§3.3.8.3),
//!   also across units (`DW_FORM_ref_addr`, §7.5.5: dsymutil's type uniquing points one unit's
//!   definitions at declarations in another). Declarations (`DW_AT_declaration`) and entries
//!   without code or address define nothing: dsymutil keeps a unit's copy of a coalesced
//!   inline function, with its linkage name but without code, when a call site refers to it.
//!
//! Memory: the unit list, one sorted `Vec` of disjoint `(start, end, unit)` ranges (adjacent
//! pieces of one unit merged) and a map from linkage name to unit. While reading, the DWARF
//! sections used are held in memory and one `gimli::Unit` (header, abbreviations, string and
//! address bases) per unit; `__debug_line`, the location lists and the accelerator tables are
//! never read.

use crate::error::{Error, ErrorKind, Result};
use crate::macho::file::arch_name;
use gimli::{
    Attribute, AttributeValue, DebugAbbrevOffset, DebugAddrBase, DebugInfoOffset,
    DebugLocListsBase, DebugRngListsBase, DebugStrOffsetsBase, DwarfFileType, EndianSlice,
    Operation, RunTimeEndian, SectionId, UnitOffset, constants,
};
use object::read::macho::{FatArch, MachHeader, MachOFatFile32, MachOFatFile64, MachOFile64};
use object::read::{ReadCache, ReadRef};
use object::{Endianness, FileKind, Object, ObjectSection};
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A DIE whose abbreviation declares more attributes than this is refused. Producers emit at
/// most a few dozen; the bound keeps the work per entry small on hostile input, where
/// zero-size forms (`DW_FORM_flag_present`, `DW_FORM_implicit_const`) would let one byte of
/// `__debug_info` stand for any number of attributes.
pub const MAX_ATTRIBUTES_PER_ENTRY: usize = 1024;

/// At most this many `DW_AT_specification`/`DW_AT_abstract_origin` references are followed from
/// a defining entry to the declaration that carries its linkage name (real chains have 1–2).
pub const MAX_REFERENCE_HOPS: usize = 8;

/// The gimli sections read; the others are left empty.
const SECTIONS: [SectionId; 8] = [
    SectionId::DebugAbbrev,
    SectionId::DebugAddr,
    SectionId::DebugInfo,
    SectionId::DebugLineStr,
    SectionId::DebugRanges,
    SectionId::DebugRngLists,
    SectionId::DebugStr,
    SectionId::DebugStrOffsets,
];

/// The unit index that marks a linkage name defined in several units.
const AMBIGUOUS: u32 = u32::MAX;

/// One unit of `__debug_info` (normally a `DW_TAG_compile_unit`, DWARF 5 §3.1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// `DW_AT_name` of the unit's root entry as written by the compiler, usually the source
    /// path relative to `comp_dir`, e.g. `../deps/v8/src/codegen/interface-descriptors.cc`;
    /// empty if absent. Invalid UTF-8 is replaced with U+FFFD.
    pub name: String,
    /// `DW_AT_comp_dir`: the compiler's working directory, e.g. `/Users/me/node/out/Release`.
    pub comp_dir: Option<String>,
}

/// One piece of the address map: `[start, end)` belongs to `units[unit]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AddressRange {
    start: u64,
    end: u64,
    unit: u32,
}

/// The compile units of one dSYM slice, with the address ranges and linkage names that they
/// define. Built by [`read_dsym`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DsymIndex {
    units: Vec<Unit>,
    /// Sorted by `start`, disjoint.
    ranges: Vec<AddressRange>,
    /// DWARF linkage name (`_ZN…`, without the Mach-O underscore) → unit, or [`AMBIGUOUS`].
    names: HashMap<Box<str>, u32>,
}

impl DsymIndex {
    /// Every unit of `__debug_info`, in section order; the `usize` results of the lookups index
    /// this slice.
    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    /// The unit defining `address`, an unslid vm address (the image base, e.g. `0x100000000`
    /// for an executable or 0 for a dylib, plus the export trie's offset).
    ///
    /// The address is matched against the code of each subprogram and the first byte of each
    /// variable with a static address first; failing those, against the units' own ranges.
    /// `None` for an address no unit covers: padding, stubs, linker-made data such as guard
    /// variables `__ZGVZ…` (no DWARF describes them), or a variable's interior.
    pub fn unit_of_address(&self, address: u64) -> Option<usize> {
        let i = self.ranges.partition_point(|r| r.start <= address);
        let r = self.ranges.get(i.checked_sub(1)?)?;
        (address < r.end).then_some(r.unit as usize)
    }

    /// The unit whose subprogram or variable, defined there with code or a static address,
    /// carries `DW_AT_linkage_name` (or `DW_AT_MIPS_linkage_name`) `name`.
    ///
    /// Takes the Mach-O symbol name, with its extra leading underscore (`__ZN2v88internal…`,
    /// `_$s…`), or the DWARF one (`_ZN2v88internal…`). `None` if no defining entry has that
    /// linkage name — C functions and function-local statics have none: use
    /// [`DsymIndex::unit_of_address`] — or if entries in two different units have it (a
    /// `static` function of the same name in two files).
    pub fn unit_of_name(&self, name: &str) -> Option<usize> {
        let found = name
            .strip_prefix('_')
            .and_then(|dwarf| self.names.get(dwarf))
            .or_else(|| self.names.get(name))?;
        (*found != AMBIGUOUS).then_some(*found as usize)
    }
}

/// Reads the dSYM at `path` for the slice `arch` and indexes its compile units.
///
/// `path` is a `.dSYM` bundle directory, whose DWARF file is the one file in
/// `Contents/Resources/DWARF/` (or, if there are several, the one named like the bundle without
/// `.dSYM`), or that DWARF file itself: a thin 64-bit Mach-O or a universal file. `arch` names
/// the slice as weakscan does (`x86_64`, `x86_64h`, `arm64`, `arm64e`); a thin file must be of
/// that arch. `uuid` is the binary's `LC_UUID` (`<mach-o/loader.h>`, `struct uuid_command`):
/// the slice's must be the same, or the DWARF would describe another build.
///
/// Errors, one line naming the DWARF file: I/O errors and a bundle without a DWARF file
/// ([`ErrorKind::Io`]); not a Mach-O file, a slice that is not a 64-bit Mach-O or not of its
/// arch, a malformed container, no `LC_UUID`, no `__DWARF,__debug_info`, DWARF that gimli
/// rejects (its message, with the unit's offset), or more address ranges than the sections can
/// describe ([`ErrorKind::Malformed`]); no slice for `arch` (the arches present are listed),
/// several DWARF files in the bundle and none named after it, or an `LC_UUID` that differs
/// from `uuid` (both printed as `dwarfdump --uuid` does) ([`ErrorKind::Usage`]).
///
/// Only the headers, load commands and the DWARF sections listed in the module docs are read,
/// each at most as large as the file; the time is linear in their size.
pub fn read_dsym(path: &Path, arch: &str, uuid: [u8; 16]) -> Result<DsymIndex> {
    let dwarf_path = dwarf_file(path)?;
    let path = dwarf_path.as_path();
    let file = File::open(path).map_err(|e| Error::io(path, &e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, &e))?;
    if meta.is_dir() {
        return Err(Error::new(ErrorKind::Io, path, "is a directory"));
    }
    let cache = ReadCache::new(file);
    read_container(path, &cache, arch, uuid, |offset, size| {
        Some(cache.range(offset, size))
    })
}

/// Like [`read_dsym`] for the bytes of a DWARF file (not a bundle) already in memory; `path`
/// only names it in errors. The same checks and errors. This is the entry point for fuzzing.
pub fn read_dsym_bytes(path: &Path, bytes: &[u8], arch: &str, uuid: [u8; 16]) -> Result<DsymIndex> {
    read_container(path, bytes, arch, uuid, |offset, size| {
        let start = usize::try_from(offset).ok()?;
        let end = start.checked_add(usize::try_from(size).ok()?)?;
        bytes.get(start..end)
    })
}

/// The DWARF file of a bundle, or `path` itself if it is not a directory.
fn dwarf_file(path: &Path) -> Result<PathBuf> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
    if !meta.is_dir() {
        return Ok(path.to_path_buf());
    }
    const DIR: &str = "Contents/Resources/DWARF";
    let dir = path.join(DIR);
    let no_file = |why: String| Error::new(ErrorKind::Io, path, format!("no DWARF file: {why}"));
    let entries = std::fs::read_dir(&dir).map_err(|e| no_file(format!("{DIR}: {e}")))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| no_file(format!("{DIR}: {e}")))?;
        let name = entry.file_name();
        let is_file = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file());
        if is_file && !name.to_string_lossy().starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    match names.len() {
        0 => Err(no_file(format!("{DIR} is empty"))),
        1 => Ok(dir.join(&names[0])),
        _ => {
            let bundle = path.file_name().unwrap_or_default().to_string_lossy();
            let stem = bundle.strip_suffix(".dSYM").unwrap_or(&bundle);
            match names.iter().find(|n| n.to_string_lossy() == stem) {
                Some(n) => Ok(dir.join(n)),
                None => {
                    let list: Vec<_> = names.iter().map(|n| n.to_string_lossy()).collect();
                    Err(Error::new(
                        ErrorKind::Usage,
                        path,
                        format!(
                            "{DIR} has several DWARF files ({}) and none is named {stem}",
                            list.join(", ")
                        ),
                    ))
                }
            }
        }
    }
}

/// Picks the slice for `arch` in `data` (thin or universal) and indexes it; `slice` gives the
/// bytes `(offset, size)` of a universal file's member, or `None` if they are out of range.
fn read_container<'data, R, S>(
    path: &Path,
    data: R,
    arch: &str,
    uuid: [u8; 16],
    slice: impl FnOnce(u64, u64) -> Option<S>,
) -> Result<DsymIndex>
where
    R: ReadRef<'data>,
    S: ReadRef<'data>,
{
    let malformed = |what: String| Error::new(ErrorKind::Malformed, path, what);
    let no_slice = |have: &[String]| {
        Error::new(
            ErrorKind::Usage,
            path,
            format!("no {arch} slice (the file has {})", have.join(", ")),
        )
    };
    let kind = FileKind::parse(data).map_err(|_| malformed("not a Mach-O file".into()))?;
    let (arches, fat_range) = match kind {
        FileKind::MachO64 => {
            let file = MachOFile64::<Endianness, R>::parse(data)
                .map_err(|e| malformed(format!("Mach-O: {e}")))?;
            let have = header_arch(&file);
            if have != arch {
                return Err(no_slice(&[have]));
            }
            return index_macho(path, &file, arch, uuid);
        }
        FileKind::MachO32 => {
            let header = object::macho::MachHeader32::<Endianness>::parse(data, 0)
                .map_err(|e| malformed(format!("Mach-O: {e}")))?;
            let endian = header
                .endian()
                .map_err(|e| malformed(format!("Mach-O: {e}")))?;
            let have = arch_name(header.cputype(endian).0, header.cpusubtype(endian).0);
            return Err(no_slice(&[have]));
        }
        FileKind::MachOFat32 => {
            let fat = MachOFatFile32::parse(data)
                .map_err(|e| malformed(format!("universal header: {e}")))?;
            fat_arches(fat.arches())
        }
        FileKind::MachOFat64 => {
            let fat = MachOFatFile64::parse(data)
                .map_err(|e| malformed(format!("universal header: {e}")))?;
            fat_arches(fat.arches())
        }
        _ => return Err(malformed("not a Mach-O file".into())),
    };
    let Some(i) = arches.iter().position(|a| a == arch) else {
        return Err(no_slice(&arches));
    };
    let (offset, size) = fat_range[i];
    let bytes = slice(offset, size)
        .ok_or_else(|| malformed(format!("{arch}: slice at {offset:#x} is out of range")))?;
    if !matches!(FileKind::parse(bytes), Ok(FileKind::MachO64)) {
        return Err(malformed(format!(
            "{arch}: the slice is not a 64-bit Mach-O file"
        )));
    }
    let file = MachOFile64::<Endianness, S>::parse(bytes)
        .map_err(|e| malformed(format!("{arch}: Mach-O: {e}")))?;
    let have = header_arch(&file);
    if have != arch {
        return Err(malformed(format!(
            "{arch}: the slice's mach header is for {have}"
        )));
    }
    index_macho(path, &file, arch, uuid)
}

/// Names and `(offset, size)` of a universal file's members.
fn fat_arches<F: FatArch>(arches: &[F]) -> (Vec<String>, Vec<(u64, u64)>) {
    arches
        .iter()
        .map(|a| (arch_name(a.cputype().0, a.cpusubtype().0), a.file_range()))
        .unzip()
}

fn header_arch<'data, R: ReadRef<'data>>(file: &MachOFile64<'data, Endianness, R>) -> String {
    let header = file.macho_header();
    arch_name(
        header.cputype(file.endian()).0,
        header.cpusubtype(file.endian()).0,
    )
}

/// A UUID as `dwarfdump --uuid` and `otool -l` print it: `4C4C44A8-5555-3144-A132-110CE9BB3B60`.
pub struct UuidDisplay(pub [u8; 16]);

impl fmt::Display for UuidDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02X}")?;
        }
        Ok(())
    }
}

/// Checks the UUID, loads the DWARF sections and builds the index of one slice.
fn index_macho<'data, R: ReadRef<'data>>(
    path: &Path,
    file: &MachOFile64<'data, Endianness, R>,
    arch: &str,
    uuid: [u8; 16],
) -> Result<DsymIndex> {
    let malformed =
        |what: String| Error::new(ErrorKind::Malformed, path, format!("{arch}: {what}"));
    let found = file
        .mach_uuid()
        .map_err(|e| malformed(format!("load commands: {e}")))?
        .ok_or_else(|| malformed("no LC_UUID, so it cannot be matched to the binary".into()))?;
    if found != uuid {
        return Err(Error::new(
            ErrorKind::Usage,
            path,
            format!(
                "{arch}: UUID {} does not match the binary's UUID {}",
                UuidDisplay(found),
                UuidDisplay(uuid)
            ),
        ));
    }

    let mut data: [&'data [u8]; SECTIONS.len()] = [&[]; SECTIONS.len()];
    for section in file.sections() {
        if !matches!(section.segment_name(), Ok(Some("__DWARF"))) {
            continue;
        }
        let Ok(name) = section.name_bytes() else {
            continue;
        };
        let Some(k) = SECTIONS.iter().position(|id| macho_name(*id) == name) else {
            continue;
        };
        data[k] = section
            .data()
            .map_err(|e| malformed(format!("__DWARF,{}: {e}", String::from_utf8_lossy(name))))?;
    }
    let section = |id: SectionId| {
        SECTIONS
            .iter()
            .position(|s| *s == id)
            .map_or(&[][..], |k| data[k])
    };
    if section(SectionId::DebugInfo).is_empty() {
        return Err(malformed("no __DWARF,__debug_info section".into()));
    }
    let endian = if file.is_little_endian() {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    };
    let dwarf =
        gimli::Dwarf::load(|id| Ok::<_, gimli::Error>(EndianSlice::new(section(id), endian)))
            .map_err(|e| malformed(format!("DWARF: {e}")))?;
    let budget = [
        SectionId::DebugInfo,
        SectionId::DebugRanges,
        SectionId::DebugRngLists,
    ]
    .iter()
    .map(|id| section(*id).len())
    .sum::<usize>()
    .saturating_add(64);
    build(&dwarf, section(SectionId::DebugAbbrev), endian, budget).map_err(|(at, e)| {
        let text = match e {
            Failure::Dwarf(e) => dwarf.format_error(e),
            Failure::Limit(s) => s.to_string(),
        };
        match at {
            Some(at) => malformed(format!("__debug_info: unit at {at:#x}: {text}")),
            None => malformed(format!("__debug_info: {text}")),
        }
    })
}

/// The Mach-O name of a DWARF section: `__debug_str_offsets` cut to 16 bytes,
/// `__debug_str_offs` (`<mach-o/loader.h>`: `char sectname[16]`).
fn macho_name(id: SectionId) -> &'static [u8] {
    match id {
        SectionId::DebugAbbrev => b"__debug_abbrev",
        SectionId::DebugAddr => b"__debug_addr",
        SectionId::DebugInfo => b"__debug_info",
        SectionId::DebugLineStr => b"__debug_line_str",
        SectionId::DebugRanges => b"__debug_ranges",
        SectionId::DebugRngLists => b"__debug_rnglists",
        SectionId::DebugStr => b"__debug_str",
        SectionId::DebugStrOffsets => b"__debug_str_offs",
        _ => b"",
    }
}

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;
type GimliUnit<'a> = gimli::Unit<Slice<'a>>;
type Attr<'a> = Attribute<Slice<'a>>;

/// Why building failed: gimli's error, or one of the limits here.
enum Failure {
    Dwarf(gimli::Error),
    Limit(&'static str),
}

impl From<gimli::Error> for Failure {
    fn from(e: gimli::Error) -> Self {
        Failure::Dwarf(e)
    }
}

/// A build error and the `__debug_info` offset of the unit being read.
type BuildError = (Option<usize>, Failure);

/// Which tier a range goes to (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tier {
    Precise,
    Coarse,
}

struct Builder<'a, 'd> {
    dwarf: &'d gimli::Dwarf<Slice<'a>>,
    units: &'d [GimliUnit<'a>],
    /// `__debug_info` offset of each unit's header, ascending.
    starts: &'d [usize],
    precise: Vec<AddressRange>,
    coarse: Vec<AddressRange>,
    names: HashMap<Box<str>, u32>,
    /// Ranges that may still be added.
    budget: usize,
    scratch: Vec<Attr<'a>>,
}

/// Reads every unit of `dwarf` into a [`DsymIndex`]. `abbrev` is the `__debug_abbrev` section;
/// `budget` caps the number of address ranges.
fn build(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    abbrev: &[u8],
    endian: RunTimeEndian,
    budget: usize,
) -> std::result::Result<DsymIndex, BuildError> {
    let mut headers = Vec::new();
    let mut iter = dwarf.units();
    loop {
        // The offset of the next header, for errors.
        let at = headers
            .last()
            .map_or(Some(0), |h: &gimli::UnitHeader<Slice<'_>>| {
                let start: usize = h.debug_info_offset()?.0;
                start.checked_add(h.length_including_self())
            });
        match iter.next() {
            Ok(Some(header)) => headers.push(header),
            Ok(None) => break,
            Err(e) => return Err((at, e.into())),
        }
    }
    if headers.len() >= AMBIGUOUS as usize {
        return Err((None, Failure::Limit("too many units")));
    }

    // Each abbreviation table is parsed once, from its offset up to the next table's, so
    // that units pointing into the middle of one long table cannot make the work quadratic.
    let mut offsets: Vec<usize> = headers.iter().map(|h| h.debug_abbrev_offset().0).collect();
    offsets.sort_unstable();
    offsets.dedup();
    let mut tables = Vec::with_capacity(offsets.len());
    for (k, &offset) in offsets.iter().enumerate() {
        let end = offsets
            .get(k + 1)
            .map_or(abbrev.len(), |&e| e.min(abbrev.len()));
        let section = gimli::DebugAbbrev::new(&abbrev[..end], endian);
        let table = section
            .abbreviations(DebugAbbrevOffset(offset))
            .map_err(|e| (None, Failure::Dwarf(e)))?;
        tables.push(Arc::new(table));
    }

    let mut units = Vec::with_capacity(headers.len());
    let mut starts = Vec::with_capacity(headers.len());
    for header in headers {
        let start = header.debug_info_offset().map_or(0, |o| o.0);
        let k = offsets.partition_point(|&o| o < header.debug_abbrev_offset().0);
        let Some(table) = tables.get(k) else {
            return Err((Some(start), Failure::Limit("no abbreviation table")));
        };
        let unit = make_unit(dwarf, header, Arc::clone(table)).map_err(|e| (Some(start), e))?;
        units.push(unit);
        starts.push(start);
    }

    let mut builder = Builder {
        dwarf,
        units: &units,
        starts: &starts,
        precise: Vec::new(),
        coarse: Vec::new(),
        names: HashMap::new(),
        budget,
        scratch: Vec::new(),
    };
    for (i, &start) in starts.iter().enumerate() {
        builder.walk(i).map_err(|e| (Some(start), e))?;
    }
    let Builder {
        precise,
        coarse,
        names,
        ..
    } = builder;

    let index_units = units
        .iter()
        .map(|u| Unit {
            name: u
                .name
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            comp_dir: u.comp_dir.map(|d| d.to_string_lossy().into_owned()),
        })
        .collect();
    Ok(DsymIndex {
        units: index_units,
        ranges: normalize(precise, coarse),
        names,
    })
}

/// A `gimli::Unit` without its line program (`__debug_line` is not read): the root's name,
/// directory, base address and the DWARF 5 bases of its string, address and list indexes,
/// as `gimli::Unit::new` sets them.
fn make_unit<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    header: gimli::UnitHeader<Slice<'a>>,
    abbreviations: Arc<gimli::Abbreviations>,
) -> std::result::Result<GimliUnit<'a>, Failure> {
    let encoding = header.encoding();
    let mut unit = gimli::Unit {
        header,
        abbreviations: Arc::clone(&abbreviations),
        name: None,
        comp_dir: None,
        low_pc: 0,
        str_offsets_base: DebugStrOffsetsBase::default_for_encoding_and_file(
            encoding,
            DwarfFileType::Main,
        ),
        addr_base: DebugAddrBase(0),
        loclists_base: DebugLocListsBase::default_for_encoding_and_file(
            encoding,
            DwarfFileType::Main,
        ),
        rnglists_base: DebugRngListsBase::default_for_encoding_and_file(
            encoding,
            DwarfFileType::Main,
        ),
        line_program: None,
        dwo_id: None,
    };
    let mut raw = unit.header.entries_raw(&abbreviations, None)?;
    let abbrev = raw
        .read_abbreviation()?
        .ok_or(Failure::Dwarf(gimli::Error::MissingUnitDie))?;
    check_attribute_count(abbrev)?;
    let mut attrs = Vec::new();
    raw.read_attributes(abbrev.attributes(), &mut attrs)?;
    let (mut name, mut comp_dir, mut low_pc) = (None, None, None);
    for attr in &attrs {
        match (attr.name(), attr.value()) {
            (constants::DW_AT_name, v) => name = Some(v),
            (constants::DW_AT_comp_dir, v) => comp_dir = Some(v),
            (constants::DW_AT_low_pc, v) => low_pc = Some(v),
            (constants::DW_AT_str_offsets_base, AttributeValue::DebugStrOffsetsBase(base)) => {
                unit.str_offsets_base = base;
            }
            (
                constants::DW_AT_addr_base | constants::DW_AT_GNU_addr_base,
                AttributeValue::DebugAddrBase(base),
            ) => unit.addr_base = base,
            (constants::DW_AT_loclists_base, AttributeValue::DebugLocListsBase(base)) => {
                unit.loclists_base = base;
            }
            (
                constants::DW_AT_rnglists_base | constants::DW_AT_GNU_ranges_base,
                AttributeValue::DebugRngListsBase(base),
            ) => unit.rnglists_base = base,
            _ => {}
        }
    }
    if let Some(v) = name {
        unit.name = Some(dwarf.attr_string(&unit, v)?);
    }
    if let Some(v) = comp_dir {
        unit.comp_dir = Some(dwarf.attr_string(&unit, v)?);
    }
    if let Some(v) = low_pc {
        unit.low_pc = dwarf.attr_address(&unit, v)?.unwrap_or(0);
    }
    Ok(unit)
}

fn check_attribute_count(abbrev: &gimli::Abbreviation) -> std::result::Result<(), Failure> {
    if abbrev.attributes().len() > MAX_ATTRIBUTES_PER_ENTRY {
        return Err(Failure::Limit(
            "an abbreviation declares more than 1024 attributes",
        ));
    }
    Ok(())
}

/// The first value of `name` among `attrs`.
fn value<'a>(attrs: &[Attr<'a>], name: constants::DwAt) -> Option<AttributeValue<Slice<'a>>> {
    attrs.iter().find(|a| a.name() == name).map(|a| a.value())
}

/// The linkage name among `attrs`, and the entry to look at if there is none.
fn name_or_reference<'a>(
    attrs: &[Attr<'a>],
) -> (
    Option<AttributeValue<Slice<'a>>>,
    Option<AttributeValue<Slice<'a>>>,
) {
    let name = value(attrs, constants::DW_AT_linkage_name)
        .or_else(|| value(attrs, constants::DW_AT_MIPS_linkage_name));
    let next = value(attrs, constants::DW_AT_specification)
        .or_else(|| value(attrs, constants::DW_AT_abstract_origin));
    (name, next)
}

impl<'a> Builder<'a, '_> {
    /// Reads the ranges of unit `i`'s root and every defining subprogram and variable in it.
    fn walk(&mut self, i: usize) -> std::result::Result<(), Failure> {
        let units = self.units;
        let unit = &units[i];
        let mut raw = unit.header.entries_raw(&unit.abbreviations, None)?;
        let mut attrs = Vec::new();
        let mut root = true;
        while !raw.is_empty() {
            let Some(abbrev) = raw.read_abbreviation()? else {
                continue;
            };
            check_attribute_count(abbrev)?;
            let tag = abbrev.tag();
            if !root && tag != constants::DW_TAG_subprogram && tag != constants::DW_TAG_variable {
                raw.skip_attributes(abbrev.attributes())?;
                continue;
            }
            raw.read_attributes(abbrev.attributes(), &mut attrs)?;
            if root {
                root = false;
                self.ranges(i, &attrs, Tier::Coarse)?;
                continue;
            }
            if let Some(AttributeValue::Flag(true)) = value(&attrs, constants::DW_AT_declaration) {
                continue;
            }
            let defines = if tag == constants::DW_TAG_subprogram {
                self.ranges(i, &attrs, Tier::Precise)?
            } else {
                match self.variable_address(unit, &attrs)? {
                    Some(address) => {
                        self.push(i, address, address.saturating_add(1), Tier::Precise)?
                    }
                    None => false,
                }
            };
            if defines {
                self.linkage_name(i, &attrs)?;
            }
        }
        Ok(())
    }

    /// Adds the ranges of an entry (`DW_AT_low_pc` with `DW_AT_high_pc`, or `DW_AT_ranges`,
    /// DWARF 5 §2.17); true if it has any.
    fn ranges(
        &mut self,
        i: usize,
        attrs: &[Attr<'a>],
        tier: Tier,
    ) -> std::result::Result<bool, Failure> {
        let units = self.units;
        let unit = &units[i];
        let (mut low, mut high, mut size) = (None, None, None);
        let mut any = false;
        for attr in attrs {
            match attr.name() {
                constants::DW_AT_low_pc => low = self.dwarf.attr_address(unit, attr.value())?,
                constants::DW_AT_high_pc => match attr.value() {
                    AttributeValue::Udata(n) => size = Some(n),
                    v => high = self.dwarf.attr_address(unit, v)?,
                },
                constants::DW_AT_ranges => {
                    if let Some(list) = self.dwarf.attr_ranges(unit, attr.value())? {
                        for range in list {
                            let range = range?;
                            any |= self.push(i, range.begin, range.end, tier)?;
                        }
                        return Ok(any);
                    }
                }
                _ => {}
            }
        }
        if let Some(low) = low {
            let end = match size {
                Some(size) => low.checked_add(size),
                None => high,
            };
            if let Some(end) = end {
                any = self.push(i, low, end, tier)?;
            }
        }
        Ok(any)
    }

    /// The static address of a variable: `DW_AT_location` is `DW_OP_addr a` or `DW_OP_addrx i`,
    /// optionally followed by `DW_OP_plus_uconst c` (DWARF 5 §2.5.1.1, §2.5.1.2). Other
    /// locations (registers, the stack, thread-local storage, location lists, expressions gimli
    /// cannot decode) have none.
    fn variable_address(
        &self,
        unit: &GimliUnit<'a>,
        attrs: &[Attr<'a>],
    ) -> std::result::Result<Option<u64>, Failure> {
        let Some(AttributeValue::Exprloc(expr)) = value(attrs, constants::DW_AT_location) else {
            return Ok(None);
        };
        let mut ops = expr.operations(unit.encoding());
        let address = match ops.next() {
            Ok(Some(Operation::Address { address })) => address,
            Ok(Some(Operation::AddressIndex { index })) => self.dwarf.address(unit, index)?,
            _ => return Ok(None),
        };
        Ok(match (ops.next(), ops.next()) {
            (Ok(None), _) => Some(address),
            (Ok(Some(Operation::PlusConstant { value })), Ok(None)) => address.checked_add(value),
            _ => None,
        })
    }

    /// Records `[start, end)` for unit `i`; false (nothing recorded) for an empty range, one at
    /// address 0 (no code or data of a linked image is there: the mach header is) or at a
    /// tombstone (-1, -2).
    fn push(
        &mut self,
        i: usize,
        start: u64,
        end: u64,
        tier: Tier,
    ) -> std::result::Result<bool, Failure> {
        if start >= end || start == 0 || self.units[i].header.is_tombstone_address(start) {
            return Ok(false);
        }
        if self.budget == 0 {
            return Err(Failure::Limit(
                "more address ranges than __debug_info and the range lists can describe \
                 (one range list used by many entries?)",
            ));
        }
        self.budget -= 1;
        let range = AddressRange {
            start,
            end,
            unit: i as u32,
        };
        match tier {
            Tier::Precise => self.precise.push(range),
            Tier::Coarse => self.coarse.push(range),
        }
        Ok(true)
    }

    /// Records the linkage name of a defining entry of unit `i`, following
    /// `DW_AT_specification`/`DW_AT_abstract_origin` up to [`MAX_REFERENCE_HOPS`] times.
    fn linkage_name(&mut self, i: usize, attrs: &[Attr<'a>]) -> std::result::Result<(), Failure> {
        let units = self.units;
        let (mut name, mut next) = name_or_reference(attrs);
        let mut u = i;
        let mut hops = 0;
        let name = loop {
            if let Some(name) = name {
                break self.dwarf.attr_string(&units[u], name)?;
            }
            let Some(reference) = next else {
                return Ok(());
            };
            if hops == MAX_REFERENCE_HOPS {
                return Ok(());
            }
            hops += 1;
            let (target, offset) = match reference {
                AttributeValue::UnitRef(offset) => (u, offset),
                AttributeValue::DebugInfoRef(offset) => self.locate(offset)?,
                _ => return Ok(()),
            };
            let unit = &units[target];
            let mut raw = unit.header.entries_raw(&unit.abbreviations, Some(offset))?;
            let abbrev = raw.read_abbreviation()?.ok_or(Failure::Dwarf(
                gimli::Error::NoEntryAtGivenOffset(offset.0 as u64),
            ))?;
            check_attribute_count(abbrev)?;
            raw.read_attributes(abbrev.attributes(), &mut self.scratch)?;
            (name, next) = name_or_reference(&self.scratch);
            u = target;
        };
        let name = name.to_string_lossy();
        let unit = i as u32;
        match self.names.get_mut(name.as_ref()) {
            Some(found) if *found != unit => *found = AMBIGUOUS,
            Some(_) => {}
            None => {
                self.names.insert(name.into(), unit);
            }
        }
        Ok(())
    }

    /// The unit holding `.debug_info` offset `offset`, and the offset inside it.
    fn locate(
        &self,
        offset: DebugInfoOffset<usize>,
    ) -> std::result::Result<(usize, UnitOffset<usize>), Failure> {
        let outside = Failure::Limit("a DW_FORM_ref_addr reference points outside every unit");
        let Some(u) = self
            .starts
            .partition_point(|&s| s <= offset.0)
            .checked_sub(1)
        else {
            return Err(outside);
        };
        match offset.to_unit_offset(&self.units[u].header) {
            Some(inside) => Ok((u, inside)),
            None => Err(outside),
        }
    }
}

/// Merges the two tiers into disjoint ranges sorted by start: precise ranges win (of two that
/// overlap, the earlier-starting, then the shorter); coarse ranges fill what is left. Adjacent
/// pieces of one unit are joined.
fn normalize(mut precise: Vec<AddressRange>, mut coarse: Vec<AddressRange>) -> Vec<AddressRange> {
    fn disjoint(ranges: &mut [AddressRange]) -> Vec<AddressRange> {
        ranges.sort_unstable_by_key(|r| (r.start, r.end, r.unit));
        let mut out: Vec<AddressRange> = Vec::with_capacity(ranges.len());
        let mut covered = 0;
        for r in ranges.iter() {
            let start = r.start.max(covered);
            if start < r.end {
                out.push(AddressRange { start, ..*r });
                covered = r.end;
            }
        }
        out
    }
    let mut out = disjoint(&mut precise);
    drop(precise);
    let coarse = disjoint(&mut coarse);
    // Each coarse range is disjoint from the others, so the walk over `fine` below visits each
    // precise range a bounded number of times.
    let fine_len = out.len();
    for c in coarse {
        let mut k = out[..fine_len].partition_point(|r| r.end <= c.start);
        let mut at = c.start;
        while k < fine_len && out[k].start < c.end {
            if out[k].start > at {
                let piece = AddressRange {
                    start: at,
                    end: out[k].start,
                    unit: c.unit,
                };
                out.push(piece);
            }
            at = at.max(out[k].end);
            k += 1;
        }
        if at < c.end {
            out.push(AddressRange { start: at, ..c });
        }
    }
    out.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<AddressRange> = Vec::with_capacity(out.len());
    for r in out {
        match merged.last_mut() {
            Some(last) if last.end == r.start && last.unit == r.unit => last.end = r.end,
            _ => merged.push(r),
        }
    }
    merged.shrink_to_fit();
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::{ObjectSymbol, ObjectSymbolTable};

    const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/origin");
    const A: &str = "../src/a.cc";
    const B: &str = "../src/b.cc";

    /// Every external definition of the fixture: (Mach-O name, address, defining unit), as
    /// `llvm-nm-22 -m testdata/origin/liba.dylib` prints them; the first 8 are weak.
    const DEFINITIONS: [(&str, u64, &str); 12] = [
        ("__ZN8RegistryIiE9registersEv", 0x530, A),
        ("__Z5twiceIiET_S0_", 0x540, A),
        ("__ZN8RegistryIiE5countE", 0x3020, A),
        ("__ZZN8RegistryIiE9registersEvE9registers", 0x3030, A),
        ("__ZN8RegistryIlE9registersEv", 0x5a0, B),
        ("__Z5twiceIlET_S0_", 0x5b0, B),
        ("__ZN8RegistryIlE5countE", 0x3040, B),
        ("__ZZN8RegistryIlE9registersEvE9registers", 0x3050, B),
        ("__Z7plain_ai", 0x500, A),
        ("__Z7plain_bl", 0x550, B),
        ("_used_a", 0x2020, A),
        ("_used_b", 0x2030, B),
    ];

    fn fixture(name: &str) -> PathBuf {
        Path::new(FIXTURE).join(name)
    }

    fn dwarf_path() -> PathBuf {
        fixture("liba.dylib.dSYM/Contents/Resources/DWARF/liba.dylib")
    }

    fn dwarf_bytes() -> Vec<u8> {
        std::fs::read(dwarf_path()).unwrap()
    }

    /// The stripped binary's LC_UUID, read with the object crate.
    fn binary_uuid() -> [u8; 16] {
        let data = std::fs::read(fixture("liba.dylib")).unwrap();
        object::File::parse(&*data)
            .unwrap()
            .mach_uuid()
            .unwrap()
            .unwrap()
    }

    fn index() -> DsymIndex {
        read_dsym(&fixture("liba.dylib.dSYM"), "x86_64", binary_uuid()).unwrap()
    }

    fn unit_name(index: &DsymIndex, unit: Option<usize>) -> Option<&str> {
        unit.map(|u| index.units()[u].name.as_str())
    }

    fn find(bytes: &[u8], needle: &[u8]) -> usize {
        bytes
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    }

    /// File offset and size of a section of the fixture's DWARF file.
    fn section_range(bytes: &[u8], name: &str) -> (usize, usize) {
        let file = object::File::parse(bytes).unwrap();
        let (offset, size) = file.section_by_name(name).unwrap().file_range().unwrap();
        (offset as usize, size as usize)
    }

    #[test]
    fn units_are_the_compile_units_in_order() {
        let index = index();
        let dir = Some("/build/out".to_string());
        assert_eq!(
            index.units(),
            [
                Unit {
                    name: A.into(),
                    comp_dir: dir.clone()
                },
                Unit {
                    name: B.into(),
                    comp_dir: dir
                }
            ]
        );
    }

    #[test]
    fn every_definition_address_maps_to_its_compile_unit() {
        let index = index();
        // The table matches the stripped binary's symbols (it kept its external ones).
        let data = std::fs::read(fixture("liba.dylib")).unwrap();
        let binary = object::File::parse(&*data).unwrap();
        let symbols = binary.symbol_table().unwrap();
        for (k, (name, address, unit)) in DEFINITIONS.iter().enumerate() {
            let symbol = symbols
                .symbols()
                .find(|s| s.name() == Ok(name))
                .unwrap_or_else(|| panic!("{name} not in the binary"));
            assert_eq!(symbol.address(), *address, "{name}");
            assert_eq!(symbol.is_weak(), k < 8, "{name}");
            assert_eq!(
                unit_name(&index, index.unit_of_address(*address)),
                Some(*unit),
                "{name} at {address:#x}"
            );
        }
    }

    #[test]
    fn addresses_outside_every_unit() {
        let index = index();
        // Between plain_a and Registry<int>::registers: only a.cc's low_pc/high_pc covers it.
        assert_eq!(unit_name(&index, index.unit_of_address(0x52a)), Some(A));
        assert_eq!(unit_name(&index, index.unit_of_address(0x5b9)), Some(B));
        for address in [
            0,
            0x4ff,
            0x549,
            0x54f,
            0x5ba,
            0x3021,
            0x3031,
            0x1000,
            u64::MAX,
        ] {
            assert_eq!(index.unit_of_address(address), None, "{address:#x}");
        }
    }

    #[test]
    fn linkage_names_map_to_the_defining_unit() {
        let index = index();
        let cases = [
            // DW_AT_specification to the declaration in the class (DWARF 4).
            ("__ZN8RegistryIiE9registersEv", Some(A)),
            ("_ZN8RegistryIiE9registersEv", Some(A)),
            // DW_FORM_ref_addr specification, DW_FORM_strx name (DWARF 5).
            ("__ZN8RegistryIlE9registersEv", Some(B)),
            // b.cc keeps a copy of twice<int> with the linkage name but no code.
            ("__Z5twiceIiET_S0_", Some(A)),
            ("__Z5twiceIlET_S0_", Some(B)),
            // Static data members: variables with DW_OP_addr (DWARF 4, then DWARF 5).
            ("__ZN8RegistryIiE5countE", Some(A)),
            ("__ZN8RegistryIlE5countE", Some(B)),
            ("__Z7plain_ai", Some(A)),
            ("_Z7plain_bl", Some(B)),
            // Function-local statics have no linkage name in DWARF: found by address only.
            ("__ZZN8RegistryIiE9registersEvE9registers", None),
            ("_used_a", None),
            ("__Z7plain_cv", None),
            ("_", None),
            ("", None),
        ];
        for (name, unit) in cases {
            assert_eq!(unit_name(&index, index.unit_of_name(name)), unit, "{name}");
        }
    }

    #[test]
    fn bundle_file_and_bytes_give_the_same_index() {
        let uuid = binary_uuid();
        let index = index();
        assert_eq!(read_dsym(&dwarf_path(), "x86_64", uuid).unwrap(), index);
        let bytes = read_dsym_bytes(&dwarf_path(), &dwarf_bytes(), "x86_64", uuid).unwrap();
        assert_eq!(bytes, index);
    }

    #[test]
    fn a_uuid_mismatch_names_both_uuids() {
        let mut other = binary_uuid();
        other[15] ^= 0xff;
        let e = read_dsym(&fixture("liba.dylib.dSYM"), "x86_64", other).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Usage);
        let ours = UuidDisplay(binary_uuid()).to_string();
        let theirs = UuidDisplay(other).to_string();
        assert_eq!(ours, "4C4C44A8-5555-3144-A132-110CE9BB3B60");
        assert_eq!(
            e.message,
            format!(
                "{}: x86_64: UUID {ours} does not match the binary's UUID {theirs}",
                dwarf_path().display()
            )
        );
    }

    #[test]
    fn a_dsym_without_lc_uuid_is_refused() {
        let uuid = binary_uuid();
        let mut bytes = dwarf_bytes();
        // uuid_command { cmd = LC_UUID (0x1b), cmdsize = 24, uuid }: make it an unknown command.
        let at = find(&bytes, &uuid) - 8;
        assert_eq!(bytes[at..at + 8], [0x1b, 0, 0, 0, 24, 0, 0, 0]);
        bytes[at] = 0x7f;
        let e = read_dsym_bytes(Path::new("d"), &bytes, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
        assert_eq!(
            e.message,
            "d: x86_64: no LC_UUID, so it cannot be matched to the binary"
        );
    }

    #[test]
    fn bundles_without_one_dwarf_file() {
        let uuid = binary_uuid();
        let tmp = tempfile::tempdir().unwrap();
        let bundle = tmp.path().join("liba.dylib.dSYM");
        // No Contents/Resources/DWARF at all, then an empty one.
        std::fs::create_dir(&bundle).unwrap();
        let e = read_dsym(&bundle, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Io);
        assert!(
            e.message
                .contains("no DWARF file: Contents/Resources/DWARF: "),
            "{e}"
        );
        let dir = bundle.join("Contents/Resources/DWARF");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".DS_Store"), b"x").unwrap();
        let e = read_dsym(&bundle, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Io);
        assert!(
            e.message
                .ends_with(": no DWARF file: Contents/Resources/DWARF is empty")
        );
        // Several: the one named like the bundle wins; without it, a usage error.
        std::fs::write(dir.join("other"), b"x").unwrap();
        std::fs::write(dir.join("zzz"), b"x").unwrap();
        let e = read_dsym(&bundle, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Usage);
        assert!(
            e.message.ends_with(
                ": Contents/Resources/DWARF has several DWARF files (other, zzz) and none is \
                 named liba.dylib"
            ),
            "{e}"
        );
        std::fs::copy(dwarf_path(), dir.join("liba.dylib")).unwrap();
        assert_eq!(read_dsym(&bundle, "x86_64", uuid).unwrap(), index());
        // A missing path.
        let e = read_dsym(&tmp.path().join("none.dSYM"), "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Io);
    }

    /// A universal file: a garbage `arm64` member, then the fixture as the `x86_64` one.
    fn universal(thin: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; 0x4000];
        let words: [u32; 12] = [
            0xcafe_babe,
            2,
            0x0100_000c, // CPU_TYPE_ARM64
            0,
            0x1000,
            0x100,
            12,
            0x0100_0007, // CPU_TYPE_X86_64
            3,
            0x4000,
            thin.len() as u32,
            12,
        ];
        for (k, w) in words.iter().enumerate() {
            out[k * 4..k * 4 + 4].copy_from_slice(&w.to_be_bytes());
        }
        out[0x1000..0x1100].fill(0xab);
        out.extend_from_slice(thin);
        out
    }

    #[test]
    fn slices_of_a_universal_dsym() {
        let uuid = binary_uuid();
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("fat");
        std::fs::write(&path, universal(&dwarf_bytes())).unwrap();
        assert_eq!(read_dsym(&path, "x86_64", uuid).unwrap(), index());

        let e = read_dsym(&path, "arm64e", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Usage);
        assert!(
            e.message
                .ends_with(": no arm64e slice (the file has arm64, x86_64)")
        );
        let e = read_dsym(&path, "arm64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
        assert!(
            e.message
                .ends_with(": arm64: the slice is not a 64-bit Mach-O file")
        );

        // A member past the end of the file.
        let mut short = universal(&dwarf_bytes());
        short.truncate(0x5000);
        let e = read_dsym_bytes(&path, &short, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
        assert!(
            e.message
                .contains("x86_64: slice at 0x4000 is out of range"),
            "{e}"
        );
        std::fs::write(&path, &short).unwrap();
        assert_eq!(
            read_dsym(&path, "x86_64", uuid).unwrap_err().kind,
            ErrorKind::Malformed
        );
    }

    #[test]
    fn a_thin_dsym_of_another_arch() {
        let e = read_dsym(&fixture("liba.dylib.dSYM"), "arm64", binary_uuid()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Usage);
        assert!(
            e.message
                .ends_with(": no arm64 slice (the file has x86_64)"),
            "{e}"
        );
    }

    #[test]
    fn not_mach_o_and_no_debug_info() {
        let uuid = binary_uuid();
        let e = read_dsym(&fixture("README.md"), "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
        assert!(e.message.ends_with("README.md: not a Mach-O file"), "{e}");
        assert!(read_dsym_bytes(Path::new("d"), b"", "x86_64", uuid).is_err());

        // The stripped binary itself: right UUID, no DWARF.
        let e = read_dsym(&fixture("liba.dylib"), "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
        assert!(
            e.message
                .ends_with(": x86_64: no __DWARF,__debug_info section"),
            "{e}"
        );

        let mut bytes = dwarf_bytes();
        let at = find(&bytes, b"__debug_info\0\0\0\0__DWARF");
        bytes[at + 11] = b'0';
        let e = read_dsym_bytes(Path::new("d"), &bytes, "x86_64", uuid).unwrap_err();
        assert_eq!(e.message, "d: x86_64: no __DWARF,__debug_info section");
    }

    #[test]
    fn dwarf_that_gimli_rejects_is_reported_with_its_message() {
        let uuid = binary_uuid();
        let mut bytes = dwarf_bytes();
        let (info, size) = section_range(&bytes, "__debug_info");
        // The second unit (at 0x160) claims DWARF version 9.
        bytes[info + 0x160 + 4] = 9;
        let e = read_dsym_bytes(Path::new("d"), &bytes, "x86_64", uuid).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
        assert_eq!(
            e.message,
            format!(
                "d: x86_64: __debug_info: unit at 0x160: {}",
                gimli::Error::UnknownVersion(9)
            )
        );
        // An abbreviation code that the table does not have, in the first unit.
        let mut bytes = dwarf_bytes();
        bytes[info + 11] = 0x7f;
        let e = read_dsym_bytes(Path::new("d"), &bytes, "x86_64", uuid).unwrap_err();
        assert!(
            e.message
                .starts_with("d: x86_64: __debug_info: unit at 0x0: "),
            "{e}"
        );
        // __debug_info cut short in the header's length field.
        let mut bytes = dwarf_bytes();
        bytes[info..info + 4].copy_from_slice(&(size as u32 * 2).to_le_bytes());
        assert!(read_dsym_bytes(Path::new("d"), &bytes, "x86_64", uuid).is_err());
    }

    #[test]
    fn truncated_files_are_errors_not_panics() {
        let uuid = binary_uuid();
        let bytes = dwarf_bytes();
        let (info, size) = section_range(&bytes, "__debug_info");
        for len in (0..bytes.len()).step_by(7) {
            let result = read_dsym_bytes(Path::new("d"), &bytes[..len], "x86_64", uuid);
            if len < info + size {
                assert!(result.is_err(), "truncated to {len}");
            }
        }
    }

    #[test]
    fn garbage_is_an_error_or_an_index_never_a_panic() {
        let uuid = binary_uuid();
        let original = dwarf_bytes();
        let (info, _) = section_range(&original, "__debug_line");
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut accepted = 0;
        for round in 0..3000 {
            let mut bytes = original.clone();
            // Mostly the DWARF sections; sometimes the header and load commands.
            let from = if round % 5 == 0 { 0 } else { info };
            for _ in 0..1 + next() % 4 {
                let at = from + (next() as usize) % (bytes.len() - from);
                bytes[at] = next() as u8;
            }
            if let Ok(index) = read_dsym_bytes(Path::new("d"), &bytes, "x86_64", uuid) {
                accepted += 1;
                let _ = index.unit_of_address(next() % 0x4000);
            }
        }
        assert!(accepted > 0);
    }

    #[test]
    fn normalize_prefers_precise_ranges_and_fills_gaps() {
        let r = |start, end, unit| AddressRange { start, end, unit };
        let precise = vec![r(10, 20, 0), r(15, 30, 1), r(15, 18, 2), r(40, 41, 0)];
        let coarse = vec![r(5, 100, 3), r(50, 200, 4), r(300, 301, 5)];
        assert_eq!(
            normalize(precise, coarse),
            [
                r(5, 10, 3),
                r(10, 20, 0),
                r(20, 30, 1),
                r(30, 40, 3),
                r(40, 41, 0),
                r(41, 100, 3),
                r(100, 200, 4),
                r(300, 301, 5),
            ]
        );
        let index = DsymIndex {
            units: Vec::new(),
            ranges: normalize(vec![r(10, 20, 0), r(20, 30, 0)], Vec::new()),
            names: HashMap::new(),
        };
        assert_eq!(index.ranges, [r(10, 30, 0)]);
        assert_eq!(index.unit_of_address(9), None);
        assert_eq!(index.unit_of_address(10), Some(0));
        assert_eq!(index.unit_of_address(29), Some(0));
        assert_eq!(index.unit_of_address(30), None);
    }

    #[test]
    fn uuids_print_like_dwarfdump() {
        let uuid = *b"\x4c\x4c\x44\xa8\x55\x55\x31\x44\xa1\x32\x11\x0c\xe9\xbb\x3b\x60";
        assert_eq!(
            UuidDisplay(uuid).to_string(),
            "4C4C44A8-5555-3144-A132-110CE9BB3B60"
        );
    }
}
