//! `LC_DYLD_CHAINED_FIXUPS`: imports and the per-segment chains of fixup sites.
//!
//! The load command points at a LINKEDIT blob (`<mach-o/fixup-chains.h>`):
//!
//! ```text
//! struct dyld_chained_fixups_header {   // at blob offset 0
//!     fixups_version: u32,              // 0
//!     starts_offset:  u32,              // -> dyld_chained_starts_in_image
//!     imports_offset: u32,              // -> imports[imports_count]
//!     symbols_offset: u32,              // -> NUL-terminated names
//!     imports_count:  u32,
//!     imports_format: u32,              // 1 IMPORT, 2 IMPORT_ADDEND, 3 IMPORT_ADDEND64
//!     symbols_format: u32,              // 0 plain (1 = zlib: unsupported)
//! }
//! DYLD_CHAINED_IMPORT         u32: lib_ordinal:8  weak_import:1 name_offset:23
//! DYLD_CHAINED_IMPORT_ADDEND  u32 as above, then addend: i32
//! DYLD_CHAINED_IMPORT_ADDEND64 u64: lib_ordinal:16 weak_import:1 reserved:15 name_offset:32,
//!                              then addend: u64
//! struct dyld_chained_starts_in_image { seg_count: u32, seg_info_offset: [u32; seg_count] }
//!                                      // offsets from this struct; 0 = no fixups in segment
//! struct dyld_chained_starts_in_segment {
//!     size: u32, page_size: u16, pointer_format: u16, segment_offset: u64,
//!     max_valid_pointer: u32, page_count: u16,
//!     page_start: [u16; page_count],    // offset of the first fixup in the page,
//!                                       // 0xFFFF none, 0x8000 bit: index into chain_starts
//! }
//! ```
//!
//! Library ordinals are stored unsigned and sign-extended as dyld's
//! `MachOFile::forEachChainedFixupTarget` does: in the 8-bit field a value above 0xF0 is
//! negative, in the 16-bit field one above 0xFFF0. Ordinal -3 (`BIND_SPECIAL_DYLIB_WEAK_LOOKUP`)
//! is a weak lookup: one weak-def bind target per such import.
//!
//! Each page's chain is a linked list of 64-bit fixups inside the segment's data; `next` counts
//! strides of 4 bytes (`DYLD_CHAINED_PTR_64`, `_64_OFFSET`) or 8 bytes (the arm64e formats).
//! Bit layouts of the user-space formats read here:
//!
//! ```text
//! DYLD_CHAINED_PTR_64 / _64_OFFSET (2, 6)
//!   bind:   ordinal:24 reserved:8 addend:8 reserved:19 next:12 bind:1
//!   rebase: target:36 high8:8 reserved:7 next:12 bind:1
//! DYLD_CHAINED_PTR_ARM64E / _ARM64E_USERLAND / _ARM64E_USERLAND24 (1, 9, 12)
//!   bind:        ordinal:16 (24 in USERLAND24) zero:16 (8) addend:19 next:11 bind:1 auth:1
//!   auth bind:   ordinal:16 (24) zero:16 (8) diversity:16 addrDiv:1 key:2 next:11 bind:1 auth:1
//!   rebase:      target:43 high8:8 next:11 bind:1 auth:1
//!   auth rebase: target:32 diversity:16 addrDiv:1 key:2 next:11 bind:1 auth:1
//! ```
//!
//! A chain can only move forward (`next` > 0 or end), so a walk terminates; every site is
//! checked to lie inside the data read for it, and a location reached twice (two chains that
//! overlap, or a start listed twice) is an error, as in dyld's `validChainedFixupsInfo`, so the
//! total work over all chains is linear in the data.

use super::bind_opcodes::TARGET_COST_BYTES;
use super::cursor::{cstr_at, le_u16, le_u32, le_u64, symbol_name};
use crate::error::ParseError;

/// `DYLD_CHAINED_IMPORT`.
pub const DYLD_CHAINED_IMPORT: u32 = 1;
/// `DYLD_CHAINED_IMPORT_ADDEND`.
pub const DYLD_CHAINED_IMPORT_ADDEND: u32 = 2;
/// `DYLD_CHAINED_IMPORT_ADDEND64`.
pub const DYLD_CHAINED_IMPORT_ADDEND64: u32 = 3;
/// `DYLD_CHAINED_PTR_ARM64E`.
pub const DYLD_CHAINED_PTR_ARM64E: u16 = 1;
/// `DYLD_CHAINED_PTR_64`.
pub const DYLD_CHAINED_PTR_64: u16 = 2;
/// `DYLD_CHAINED_PTR_64_OFFSET`.
pub const DYLD_CHAINED_PTR_64_OFFSET: u16 = 6;
/// `DYLD_CHAINED_PTR_ARM64E_USERLAND`.
pub const DYLD_CHAINED_PTR_ARM64E_USERLAND: u16 = 9;
/// `DYLD_CHAINED_PTR_ARM64E_USERLAND24`.
pub const DYLD_CHAINED_PTR_ARM64E_USERLAND24: u16 = 12;
/// `DYLD_CHAINED_PTR_START_NONE`: the page has no fixups.
pub const DYLD_CHAINED_PTR_START_NONE: u16 = 0xFFFF;
/// `DYLD_CHAINED_PTR_START_MULTI`: the page has several chains, listed in `chain_starts`.
pub const DYLD_CHAINED_PTR_START_MULTI: u16 = 0x8000;
/// `DYLD_CHAINED_PTR_START_LAST`: the last entry of a page's `chain_starts` list.
pub const DYLD_CHAINED_PTR_START_LAST: u16 = 0x8000;
/// Budget for the total length of import names, per byte of the chained-fixups blob (plus
/// 1 MiB). Linkers write each name once, so real names total less than the blob; imports that
/// all point at one long name would otherwise make memory quadratic in the blob's size.
pub const MAX_NAME_BYTES_PER_BLOB_BYTE: usize = 4;
/// `BIND_SPECIAL_DYLIB_WEAK_LOOKUP`: the library ordinal of a weak lookup.
pub const BIND_SPECIAL_DYLIB_WEAK_LOOKUP: i32 = -3;

/// The fixed header of the chained-fixups blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainedFixupsHeader {
    /// `fixups_version` (0).
    pub fixups_version: u32,
    /// Offset of `dyld_chained_starts_in_image` in the blob.
    pub starts_offset: u32,
    /// Offset of the imports table in the blob.
    pub imports_offset: u32,
    /// Offset of the symbol name pool in the blob.
    pub symbols_offset: u32,
    /// Number of imports.
    pub imports_count: u32,
    /// `DYLD_CHAINED_IMPORT*`.
    pub imports_format: u32,
    /// 0 = plain strings.
    pub symbols_format: u32,
}

/// One import (bind target) of the chained-fixups imports table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainedImport {
    /// Sign-extended library ordinal: ≥ 1 a dylib, 0 self, -1 main executable, -2 flat
    /// lookup, -3 weak lookup.
    pub library_ordinal: i32,
    /// The `weak_import` bit (missing symbol allowed), unrelated to weak definitions.
    pub weak_import: bool,
    /// Symbol name as stored (`__ZN…` for C++).
    pub name: String,
    /// Addend (0 for `DYLD_CHAINED_IMPORT`).
    pub addend: i64,
}

impl ChainedImport {
    /// The import is a weak-def lookup (ordinal -3).
    pub fn is_weak_lookup(&self) -> bool {
        self.library_ordinal == BIND_SPECIAL_DYLIB_WEAK_LOOKUP
    }
}

/// The chain starts of one segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentChainStarts {
    /// Index of the segment (into the image's `LC_SEGMENT_64` commands).
    pub segment_index: usize,
    /// Page size the starts are given in (0x1000 or 0x4000).
    pub page_size: u16,
    /// `DYLD_CHAINED_PTR_*`.
    pub pointer_format: u16,
    /// `segment_offset`: vm offset of the segment from the mach header.
    pub segment_offset: u64,
    /// For each page, the offsets (within the page) where a chain begins.
    pub page_chain_starts: Vec<Vec<u16>>,
}

/// The parsed chained-fixups blob (without the chains themselves, which live in segment data).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainedFixups {
    /// The header.
    pub header: ChainedFixupsHeader,
    /// Imports, indexed by the bind ordinal of a chained bind.
    pub imports: Vec<ChainedImport>,
    /// Chain starts of every segment that has fixups.
    pub segments: Vec<SegmentChainStarts>,
}

/// What one site of a chain does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainedFixup {
    /// A rebase (no symbol).
    Rebase,
    /// A bind to `imports[ordinal]`, plus the inline `addend`.
    Bind {
        /// Index into [`ChainedFixups::imports`].
        ordinal: u32,
        /// Inline addend of the pointer format.
        addend: i64,
    },
}

/// Parses the header, imports and chain starts of a chained-fixups blob.
///
/// `segment_count` is the number of `LC_SEGMENT_64` commands; `dylib_count` the number of
/// dylib load commands (to check library ordinals). Errors: anything out of the blob, an unknown
/// imports format, compressed symbols, a library ordinal below -3 or above `dylib_count`,
/// a `seg_count` above `segment_count`, a page size other than 0x1000 or 0x4000, segments with
/// different pointer formats, a page start past its page or `chain_starts` out of order, an
/// unknown or
/// unsupported pointer format.
pub fn parse_chained_fixups(
    blob: &[u8],
    segment_count: usize,
    dylib_count: u32,
) -> Result<ChainedFixups, ParseError> {
    let mut imports = Vec::new();
    let (header, segments) =
        parse_chained_fixups_with(blob, segment_count, dylib_count, |_, i| {
            imports.push(ChainedImport {
                library_ordinal: i.library_ordinal,
                weak_import: i.weak_import,
                name: symbol_name(i.name),
                addend: i.addend,
            });
        })?;
    Ok(ChainedFixups {
        header,
        imports,
        segments,
    })
}

fn parse_header(blob: &[u8]) -> Result<ChainedFixupsHeader, ParseError> {
    let word = |off: usize| {
        le_u32(blob, off).ok_or(ParseError::new(
            "truncated chained fixups header",
            off as u64,
        ))
    };
    let header = ChainedFixupsHeader {
        fixups_version: word(0)?,
        starts_offset: word(4)?,
        imports_offset: word(8)?,
        symbols_offset: word(12)?,
        imports_count: word(16)?,
        imports_format: word(20)?,
        symbols_format: word(24)?,
    };
    if header.fixups_version != 0 {
        return Err(ParseError::new("unknown chained fixups version", 0));
    }
    if header.symbols_format != 0 {
        return Err(ParseError::unsupported(
            "compressed chained fixups symbols are not supported",
            24,
        ));
    }
    Ok(header)
}

/// One import as [`parse_chained_fixups_with`] hands it out: the name is the raw bytes of the
/// blob's symbol pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportRef<'a> {
    /// See [`ChainedImport::library_ordinal`].
    pub library_ordinal: i32,
    /// See [`ChainedImport::weak_import`].
    pub weak_import: bool,
    /// The name's bytes in the pool (not escaped).
    pub name: &'a [u8],
    /// See [`ChainedImport::addend`].
    pub addend: i64,
}

/// [`parse_chained_fixups`] without collecting the imports: each is handed to `import` with
/// its index, so a caller keeps only the ones it needs (weakscan: the weak lookups). Returns
/// the header and the chain starts. The same checks and errors.
pub fn parse_chained_fixups_with<'a>(
    blob: &'a [u8],
    segment_count: usize,
    dylib_count: u32,
    import: impl FnMut(u32, ImportRef<'a>),
) -> Result<(ChainedFixupsHeader, Vec<SegmentChainStarts>), ParseError> {
    let header = parse_header(blob)?;
    for_each_import(blob, &header, dylib_count, import)?;
    let segments = parse_starts(blob, header.starts_offset as usize, segment_count)?;
    Ok((header, segments))
}

fn for_each_import<'a>(
    blob: &'a [u8],
    h: &ChainedFixupsHeader,
    dylib_count: u32,
    mut import: impl FnMut(u32, ImportRef<'a>),
) -> Result<(), ParseError> {
    let entry_size: usize = match h.imports_format {
        DYLD_CHAINED_IMPORT => 4,
        DYLD_CHAINED_IMPORT_ADDEND => 8,
        DYLD_CHAINED_IMPORT_ADDEND64 => 16,
        _ => return Err(ParseError::new("unknown imports format", 20)),
    };
    let start = h.imports_offset as usize;
    let table_end = (h.imports_count as usize)
        .checked_mul(entry_size)
        .and_then(|n| n.checked_add(start))
        .filter(|&end| end <= blob.len())
        .ok_or(ParseError::new("imports table past the end of the blob", 8))?;
    let pool = blob
        .get(h.symbols_offset as usize..)
        .ok_or(ParseError::new("symbol pool past the end of the blob", 12))?;
    // Imports may share a name; the names kept are budgeted like the export trie's, and each
    // weak-lookup import (a bind target and a lookup in the model) costs TARGET_COST_BYTES more.
    let mut name_bytes_left = blob
        .len()
        .saturating_mul(MAX_NAME_BYTES_PER_BLOB_BYTE)
        .saturating_add(1 << 20);
    for (index, off) in (start..table_end).step_by(entry_size).enumerate() {
        let (ordinal, weak_import, name_offset, addend) = match h.imports_format {
            DYLD_CHAINED_IMPORT | DYLD_CHAINED_IMPORT_ADDEND => {
                let raw = le_u32(blob, off).unwrap_or(0);
                let lib = (raw & 0xff) as u8;
                let ordinal = if lib > 0xF0 {
                    i32::from(lib as i8)
                } else {
                    i32::from(lib)
                };
                let addend = if h.imports_format == DYLD_CHAINED_IMPORT_ADDEND {
                    i64::from(le_u32(blob, off + 4).unwrap_or(0) as i32)
                } else {
                    0
                };
                (ordinal, raw & 0x100 != 0, raw >> 9, addend)
            }
            _ => {
                let raw = le_u64(blob, off).unwrap_or(0);
                let lib = (raw & 0xffff) as u16;
                let ordinal = if lib > 0xFFF0 {
                    i32::from(lib as i16)
                } else {
                    i32::from(lib)
                };
                let addend = le_u64(blob, off + 8).unwrap_or(0) as i64;
                (ordinal, raw & 0x1_0000 != 0, (raw >> 32) as u32, addend)
            }
        };
        if ordinal < BIND_SPECIAL_DYLIB_WEAK_LOOKUP || ordinal > dylib_count as i32 {
            return Err(ParseError::new(
                "import library ordinal out of range",
                off as u64,
            ));
        }
        let name = cstr_at(pool, name_offset as usize).ok_or(ParseError::new(
            "import name offset past the symbol pool",
            off as u64,
        ))?;
        let cost = if ordinal == BIND_SPECIAL_DYLIB_WEAK_LOOKUP {
            name.len() + TARGET_COST_BYTES
        } else {
            name.len()
        };
        name_bytes_left = name_bytes_left.checked_sub(cost).ok_or(ParseError::new(
            "import names exceed 4 bytes per blob byte (names shared to blow up)",
            off as u64,
        ))?;
        import(
            index as u32,
            ImportRef {
                library_ordinal: ordinal,
                weak_import,
                name,
                addend,
            },
        );
    }
    Ok(())
}

fn parse_starts(
    blob: &[u8],
    starts: usize,
    segment_count: usize,
) -> Result<Vec<SegmentChainStarts>, ParseError> {
    let seg_count = le_u32(blob, starts)
        .ok_or(ParseError::new("chain starts past the end of the blob", 4))?
        as usize;
    if seg_count > segment_count {
        return Err(ParseError::new(
            "chain starts seg_count exceeds the segment count",
            starts as u64,
        ));
    }
    let mut out = Vec::new();
    // Each start takes 2 bytes of the blob unless pages or segments share one list; shared
    // lists would multiply the starts (and the chain walks) without the blob growing.
    let mut starts_left = blob.len() / 2;
    for i in 0..seg_count {
        let at = starts + 4 + 4 * i;
        let info = le_u32(blob, at)
            .ok_or(ParseError::new("truncated seg_info_offset", at as u64))?
            as usize;
        if info == 0 {
            continue;
        }
        let s = starts.checked_add(info).ok_or(ParseError::new(
            "segment chain starts past the end of the blob",
            at as u64,
        ))?;
        let bad = || ParseError::new("segment chain starts past the end of the blob", s as u64);
        let size = le_u32(blob, s).ok_or_else(bad)? as usize;
        let page_size = le_u16(blob, s + 4).ok_or_else(bad)?;
        let pointer_format = le_u16(blob, s + 6).ok_or_else(bad)?;
        let segment_offset = le_u64(blob, s + 8).ok_or_else(bad)?;
        let page_count = le_u16(blob, s + 20).ok_or_else(bad)? as usize;
        let end = s
            .checked_add(size)
            .filter(|&e| e <= blob.len())
            .ok_or_else(bad)?;
        if 22 + 2 * page_count > size {
            return Err(ParseError::new(
                "page_count does not fit the segment chain starts",
                s as u64,
            ));
        }
        pointer_stride(pointer_format).map_err(|e| ParseError {
            offset: (s + 6) as u64,
            ..e
        })?;
        if page_size != 0x1000 && page_size != 0x4000 {
            return Err(ParseError::new(
                "chain starts page_size is not 0x1000 or 0x4000",
                (s + 4) as u64,
            ));
        }
        if out
            .first()
            .is_some_and(|f: &SegmentChainStarts| f.pointer_format != pointer_format)
        {
            return Err(ParseError::new(
                "segments use different chained pointer formats",
                (s + 6) as u64,
            ));
        }
        let region = &blob[s..end];
        let mut page_chain_starts = Vec::with_capacity(page_count);
        for p in 0..page_count {
            let v = le_u16(region, 22 + 2 * p).unwrap_or(DYLD_CHAINED_PTR_START_NONE);
            let mut starts_here = Vec::new();
            if v == DYLD_CHAINED_PTR_START_NONE {
            } else if v & DYLD_CHAINED_PTR_START_MULTI != 0 {
                let mut k = 22 + 2 * usize::from(v & !DYLD_CHAINED_PTR_START_MULTI);
                loop {
                    let e = le_u16(region, k).ok_or(ParseError::new(
                        "chain_starts list runs past its segment",
                        (s + k) as u64,
                    ))?;
                    let start = e & !DYLD_CHAINED_PTR_START_LAST;
                    if starts_here.last().is_some_and(|&prev| prev >= start) {
                        return Err(ParseError::new(
                            "chain_starts of a page are not in ascending order",
                            (s + k) as u64,
                        ));
                    }
                    starts_here.push(start);
                    if e & DYLD_CHAINED_PTR_START_LAST != 0 {
                        break;
                    }
                    k += 2;
                }
            } else {
                starts_here.push(v);
            }
            starts_left = starts_left.checked_sub(starts_here.len()).ok_or(ParseError::new(
                "more chain starts than the blob holds (lists shared between pages or segments)",
                (s + 22 + 2 * p) as u64,
            ))?;
            if starts_here.iter().any(|&o| o >= page_size) {
                return Err(ParseError::new(
                    "page start past the end of its page",
                    (s + 22 + 2 * p) as u64,
                ));
            }
            page_chain_starts.push(starts_here);
        }
        out.push(SegmentChainStarts {
            segment_index: i,
            page_size,
            pointer_format,
            segment_offset,
            page_chain_starts,
        });
    }
    Ok(out)
}

/// Bytes per `next` unit for a supported pointer format; errors (at offset 0) name
/// unsupported and unknown ones.
pub fn pointer_stride(pointer_format: u16) -> Result<u64, ParseError> {
    match pointer_format {
        DYLD_CHAINED_PTR_64 | DYLD_CHAINED_PTR_64_OFFSET => Ok(4),
        DYLD_CHAINED_PTR_ARM64E
        | DYLD_CHAINED_PTR_ARM64E_USERLAND
        | DYLD_CHAINED_PTR_ARM64E_USERLAND24 => Ok(8),
        3..=5 => Err(ParseError::unsupported(
            "32-bit chained pointer format is not supported",
            0,
        )),
        7 | 8 | 10 | 11 | 13 | 14 => Err(ParseError::unsupported(
            "kernel, firmware or shared-cache chained pointer format is not supported",
            0,
        )),
        _ => Err(ParseError::new("unknown chained pointer format", 0)),
    }
}

/// Decodes one 64-bit chained pointer: what it does and its `next` field (in strides).
pub fn decode_pointer(pointer_format: u16, raw: u64) -> (ChainedFixup, u64) {
    match pointer_format {
        DYLD_CHAINED_PTR_64 | DYLD_CHAINED_PTR_64_OFFSET => {
            let next = (raw >> 51) & 0xfff;
            if raw >> 63 != 0 {
                let ordinal = (raw & 0xff_ffff) as u32;
                let addend = ((raw >> 32) & 0xff) as i64;
                (ChainedFixup::Bind { ordinal, addend }, next)
            } else {
                (ChainedFixup::Rebase, next)
            }
        }
        _ => {
            // arm64e family
            let next = (raw >> 51) & 0x7ff;
            let auth = raw >> 63 != 0;
            let bind = (raw >> 62) & 1 != 0;
            if !bind {
                return (ChainedFixup::Rebase, next);
            }
            let ordinal = if pointer_format == DYLD_CHAINED_PTR_ARM64E_USERLAND24 {
                (raw & 0xff_ffff) as u32
            } else {
                (raw & 0xffff) as u32
            };
            let addend = if auth {
                0
            } else {
                // 19-bit signed
                let a = (raw >> 32) & 0x7_ffff;
                ((a << 45) as i64) >> 45
            };
            (ChainedFixup::Bind { ordinal, addend }, next)
        }
    }
}

/// The locations already visited in one segment's data: one bit per byte offset.
#[derive(Debug, Clone)]
pub struct Visited(Vec<u64>);

impl Visited {
    /// An empty set for `len` bytes of data.
    pub fn new(len: usize) -> Self {
        Visited(crate::memory::zeroed_words(len.div_ceil(64)))
    }

    /// Marks `offset`; false if it was already marked (or is out of range).
    fn insert(&mut self, offset: u64) -> bool {
        let (word, bit) = ((offset / 64) as usize, offset % 64);
        match self.0.get_mut(word) {
            Some(w) if *w & (1 << bit) == 0 => {
                *w |= 1 << bit;
                true
            }
            _ => false,
        }
    }
}

/// Walks one chain that starts at `start` (byte offset into `data`, the file bytes read for the
/// segment's pages that hold chains), calling `site(offset, fixup)` for every fixup site with
/// its offset into `data`. `visited` (made for `data.len()` bytes, shared by all chains of the
/// segment) refuses a location reached twice.
///
/// Errors (offsets into `data`): a site whose 8 bytes are not inside `data`, a location reached
/// twice, a bind ordinal ≥ `imports_count`. With `visited` shared, all chains of a segment
/// together visit at most `data.len()` sites.
pub fn walk_chain(
    data: &[u8],
    pointer_format: u16,
    start: u64,
    imports_count: u32,
    visited: &mut Visited,
    mut site: impl FnMut(u64, ChainedFixup),
) -> Result<(), ParseError> {
    let stride = pointer_stride(pointer_format).map_err(|e| ParseError { offset: start, ..e })?;
    let mut offset = start;
    loop {
        let raw = usize::try_from(offset)
            .ok()
            .and_then(|o| le_u64(data, o))
            .ok_or(ParseError::new(
                "chained fixup site past the end of segment data",
                offset,
            ))?;
        if !visited.insert(offset) {
            return Err(ParseError::new(
                "chained fixup location reached twice (overlapping chains)",
                offset,
            ));
        }
        let (fixup, next) = decode_pointer(pointer_format, raw);
        if let ChainedFixup::Bind { ordinal, .. } = fixup
            && ordinal >= imports_count
        {
            return Err(ParseError::new("chained bind ordinal out of range", offset));
        }
        site(offset, fixup);
        if next == 0 {
            return Ok(());
        }
        offset += next * stride;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob with 3 imports of `format`, one segment (index 1 of 2) with one page.
    fn blob(format: u32, ordinals: [u16; 3], page_start: u16) -> Vec<u8> {
        let names = b"_a\0__Znwm\0__Z1fv\0";
        let entry = match format {
            1 => 4,
            2 => 8,
            _ => 16,
        };
        let imports_offset = 28u32;
        let symbols_offset = imports_offset + 3 * entry;
        let starts_offset = symbols_offset + names.len() as u32;
        let starts_offset = (starts_offset + 7) & !7;
        let mut b = Vec::new();
        for v in [
            0,
            starts_offset,
            imports_offset,
            symbols_offset,
            3,
            format,
            0,
        ] {
            b.extend(v.to_le_bytes());
        }
        let name_offs = [0u32, 3, 10];
        for i in 0..3 {
            match format {
                1 | 2 => {
                    let raw = u32::from(ordinals[i] as u8) | (name_offs[i] << 9);
                    b.extend(raw.to_le_bytes());
                    if format == 2 {
                        b.extend((-5i32).to_le_bytes());
                    }
                }
                _ => {
                    let raw = u64::from(ordinals[i]) | (u64::from(name_offs[i]) << 32);
                    b.extend(raw.to_le_bytes());
                    b.extend(7u64.to_le_bytes());
                }
            }
        }
        b.extend(names);
        b.resize(starts_offset as usize, 0);
        // starts_in_image: 2 segments, first has none
        b.extend(2u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(12u32.to_le_bytes());
        // starts_in_segment
        b.extend(24u32.to_le_bytes()); // size
        b.extend(0x4000u16.to_le_bytes());
        b.extend(DYLD_CHAINED_PTR_64_OFFSET.to_le_bytes());
        b.extend(0x4000u64.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(1u16.to_le_bytes());
        b.extend(page_start.to_le_bytes());
        b
    }

    #[test]
    fn imports_in_all_three_formats_sign_extend_ordinals() {
        for (format, ords) in [
            (1, [1u16, 0xfd, 0xfe]),
            (2, [1, 0xfd, 0xfe]),
            (3, [1, 0xfffd, 0xfffe]),
        ] {
            let f = parse_chained_fixups(&blob(format, ords, 0), 2, 1).unwrap();
            let got: Vec<(i32, &str)> = f
                .imports
                .iter()
                .map(|i| (i.library_ordinal, i.name.as_str()))
                .collect();
            assert_eq!(
                got,
                [(1, "_a"), (-3, "__Znwm"), (-2, "__Z1fv")],
                "format {format}"
            );
            assert!(f.imports[1].is_weak_lookup());
            let addend = match format {
                1 => 0,
                2 => -5,
                _ => 7,
            };
            assert_eq!(f.imports[0].addend, addend);
            assert_eq!(f.segments.len(), 1);
            assert_eq!(f.segments[0].segment_index, 1);
            assert_eq!(f.segments[0].page_chain_starts, [vec![0]]);
        }
    }

    #[test]
    fn ordinal_out_of_range() {
        let e = parse_chained_fixups(&blob(1, [2, 0xfd, 0xfe], 0), 2, 1).unwrap_err();
        assert_eq!(e.message, "import library ordinal out of range");
        // 0xF0 is not sign-extended: ordinal 240.
        let e = parse_chained_fixups(&blob(1, [0xf0, 0xfd, 0xfe], 0), 2, 1).unwrap_err();
        assert_eq!(e.message, "import library ordinal out of range");
        let e = parse_chained_fixups(&blob(3, [1, 0xfff1, 0xfffe], 0), 2, 1).unwrap_err();
        assert_eq!(e.message, "import library ordinal out of range");
    }

    #[test]
    fn malformed_blobs() {
        let good = blob(1, [1, 0xfd, 0xfe], 0);
        for len in 0..good.len() {
            assert!(
                parse_chained_fixups(&good[..len], 2, 1).is_err(),
                "prefix {len}"
            );
        }
        assert_eq!(
            parse_chained_fixups(&good, 1, 1).unwrap_err().message,
            "chain starts seg_count exceeds the segment count"
        );
        assert_eq!(
            parse_chained_fixups(&blob(1, [1, 0xfd, 0xfe], 0x4000), 2, 1)
                .unwrap_err()
                .message,
            "page start past the end of its page"
        );
        let mut bad_format = good.clone();
        bad_format[20] = 9;
        assert_eq!(
            parse_chained_fixups(&bad_format, 2, 1).unwrap_err().message,
            "unknown imports format"
        );
        let mut bad_ptr = good.clone();
        let at = bad_ptr.len() - 2 - 2 - 4 - 8 - 2;
        bad_ptr[at] = 0x2a;
        assert_eq!(
            parse_chained_fixups(&bad_ptr, 2, 1).unwrap_err().message,
            "unknown chained pointer format"
        );
        bad_ptr[at] = 3;
        assert_eq!(
            parse_chained_fixups(&bad_ptr, 2, 1).unwrap_err().message,
            "32-bit chained pointer format is not supported"
        );
    }

    /// starts_in_segment with one page whose start is a MULTI list of `starts`.
    fn multi_blob(starts: &[u16]) -> Vec<u8> {
        let mut b = Vec::new();
        for v in [0u32, 28, 28, 28, 0, 1, 0] {
            b.extend(v.to_le_bytes());
        }
        b.extend(1u32.to_le_bytes()); // seg_count
        b.extend(8u32.to_le_bytes()); // seg_info_offset
        let size = 22 + 2 + 2 * starts.len();
        b.extend((size as u32).to_le_bytes());
        b.extend(0x1000u16.to_le_bytes());
        b.extend(DYLD_CHAINED_PTR_64.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(1u16.to_le_bytes()); // page_count
        b.extend((DYLD_CHAINED_PTR_START_MULTI | 1).to_le_bytes()); // list at index 1
        for (i, &s) in starts.iter().enumerate() {
            let last = if i + 1 == starts.len() {
                DYLD_CHAINED_PTR_START_LAST
            } else {
                0
            };
            b.extend((s | last).to_le_bytes());
        }
        b
    }

    #[test]
    fn multi_chain_starts_must_ascend() {
        let f = parse_chained_fixups(&multi_blob(&[0x10, 0x80]), 1, 0).unwrap();
        assert_eq!(f.segments[0].page_chain_starts, [vec![0x10, 0x80]]);
        // regression: a repeated start made every site count twice
        let e = parse_chained_fixups(&multi_blob(&[0x10, 0x10]), 1, 0).unwrap_err();
        assert_eq!(
            e.message,
            "chain_starts of a page are not in ascending order"
        );
    }

    #[test]
    fn walks_a_64_chain() {
        // bind(ordinal 1, next 2 strides = 8 bytes) ; rebase(next 0)
        let bind = (1u64 << 63) | (2u64 << 51) | 1;
        let rebase = 0x1000u64;
        let mut data = bind.to_le_bytes().to_vec();
        data.extend(rebase.to_le_bytes());
        let mut seen = Vec::new();
        let mut visited = Visited::new(data.len());
        walk_chain(&data, DYLD_CHAINED_PTR_64, 0, 3, &mut visited, |o, f| {
            seen.push((o, f))
        })
        .unwrap();
        // The same chain again: every location was visited.
        assert_eq!(
            walk_chain(&data, DYLD_CHAINED_PTR_64, 8, 3, &mut visited, |_, _| {})
                .unwrap_err()
                .message,
            "chained fixup location reached twice (overlapping chains)"
        );
        assert_eq!(
            seen,
            [
                (
                    0,
                    ChainedFixup::Bind {
                        ordinal: 1,
                        addend: 0
                    }
                ),
                (8, ChainedFixup::Rebase)
            ]
        );
        // ordinal past imports
        assert_eq!(
            walk_chain(
                &data,
                DYLD_CHAINED_PTR_64,
                0,
                1,
                &mut Visited::new(16),
                |_, _| {}
            )
            .unwrap_err()
            .message,
            "chained bind ordinal out of range"
        );
        // next runs off the data
        let runaway = (1u64 << 63) | (0xfffu64 << 51);
        assert_eq!(
            walk_chain(
                &runaway.to_le_bytes(),
                DYLD_CHAINED_PTR_64,
                0,
                1,
                &mut Visited::new(8),
                |_, _| {}
            )
            .unwrap_err()
            .message,
            "chained fixup site past the end of segment data"
        );
    }

    #[test]
    fn decodes_arm64e_forms() {
        // plain bind, ordinal 5, addend -1 (19-bit), next 1
        let raw = (1u64 << 62) | (1u64 << 51) | (0x7ffffu64 << 32) | 5;
        assert_eq!(
            decode_pointer(DYLD_CHAINED_PTR_ARM64E, raw),
            (
                ChainedFixup::Bind {
                    ordinal: 5,
                    addend: -1
                },
                1
            )
        );
        // auth bind, ordinal 0x1234
        let raw = (1u64 << 63) | (1u64 << 62) | 0x1234;
        assert_eq!(
            decode_pointer(DYLD_CHAINED_PTR_ARM64E_USERLAND, raw),
            (
                ChainedFixup::Bind {
                    ordinal: 0x1234,
                    addend: 0
                },
                0
            )
        );
        // 24-bit ordinal only in USERLAND24
        let raw = (1u64 << 62) | 0x12_3456;
        assert_eq!(
            decode_pointer(DYLD_CHAINED_PTR_ARM64E_USERLAND24, raw).0,
            ChainedFixup::Bind {
                ordinal: 0x12_3456,
                addend: 0
            }
        );
        assert_eq!(
            decode_pointer(DYLD_CHAINED_PTR_ARM64E, raw).0,
            ChainedFixup::Bind {
                ordinal: 0x3456,
                addend: 0
            }
        );
        // auth rebase, next 3
        let raw = (1u64 << 63) | (3u64 << 51) | 0x10;
        assert_eq!(
            decode_pointer(DYLD_CHAINED_PTR_ARM64E, raw),
            (ChainedFixup::Rebase, 3)
        );
        // 64 format: 8-bit inline addend
        let raw = (1u64 << 63) | (0x20u64 << 32) | 2;
        assert_eq!(
            decode_pointer(DYLD_CHAINED_PTR_64, raw).0,
            ChainedFixup::Bind {
                ordinal: 2,
                addend: 0x20
            }
        );
    }

    /// A blob with no imports and one segment of `pages` pages whose MULTI starts all point at
    /// one list of `list` starts.
    fn shared_multi_blob(pages: u16, list: u16) -> Vec<u8> {
        let mut b = Vec::new();
        for v in [0u32, 28, 28, 28, 0, 1, 0] {
            b.extend(v.to_le_bytes());
        }
        b.extend(1u32.to_le_bytes()); // seg_count
        b.extend(8u32.to_le_bytes()); // seg_info_offset
        let size = 22 + 2 * u32::from(pages) + 2 * u32::from(list);
        b.extend(size.to_le_bytes());
        b.extend(0x4000u16.to_le_bytes());
        b.extend(DYLD_CHAINED_PTR_64_OFFSET.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(pages.to_le_bytes());
        for _ in 0..pages {
            b.extend((DYLD_CHAINED_PTR_START_MULTI | pages).to_le_bytes());
        }
        for k in 0..list {
            let last = if k + 1 == list {
                DYLD_CHAINED_PTR_START_LAST
            } else {
                0
            };
            b.extend(((k * 8) | last).to_le_bytes());
        }
        b
    }

    /// Fuzz-audit finding: pages sharing one MULTI list turned a 98 KB blob into 536M starts.
    #[test]
    fn shared_chain_start_lists_are_refused() {
        let one = parse_chained_fixups(&shared_multi_blob(1, 200), 1, 0).unwrap();
        assert_eq!(one.segments[0].page_chain_starts[0].len(), 200);
        let e = parse_chained_fixups(&shared_multi_blob(300, 200), 1, 0).unwrap_err();
        assert_eq!(
            e.message,
            "more chain starts than the blob holds (lists shared between pages or segments)"
        );
    }

    /// Fuzz-audit finding: imports sharing one long name made memory quadratic in the blob.
    #[test]
    fn imports_sharing_a_long_name_are_refused() {
        let (count, name_len) = (4000u32, 2000usize);
        let mut b = Vec::new();
        let symbols = 28 + 4 * count;
        for v in [0u32, 0, 28, symbols, count, 1, 0] {
            b.extend(v.to_le_bytes());
        }
        for _ in 0..count {
            b.extend(0u32.to_le_bytes()); // ordinal 0, name offset 0
        }
        b.extend(std::iter::repeat_n(b'a', name_len));
        b.push(0);
        // starts_offset 0 would read the header as starts: point it at a seg_count of 0.
        let starts = b.len() as u32;
        b.extend(0u32.to_le_bytes());
        b[4..8].copy_from_slice(&starts.to_le_bytes());
        let e = parse_chained_fixups(&b, 1, 0).unwrap_err();
        assert_eq!(
            e.message,
            "import names exceed 4 bytes per blob byte (names shared to blow up)"
        );
        // The same table with a short name is fine.
        b.truncate(symbols as usize);
        b.extend(b"_x\0");
        let starts = b.len() as u32;
        b.extend(0u32.to_le_bytes());
        b[4..8].copy_from_slice(&starts.to_le_bytes());
        assert_eq!(parse_chained_fixups(&b, 1, 0).unwrap().imports.len(), 4000);
    }
}
