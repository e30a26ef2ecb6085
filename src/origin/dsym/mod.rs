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
//!
//! The files, in the order a read goes through them: `bundle.rs` finds the DWARF file of a
//! bundle; `slice.rs` picks the slice, checks its `LC_UUID` and loads its DWARF sections;
//! `build.rs` turns them into the index, reading the unit headers with `units.rs` and each
//! unit's entries with `walk.rs`; `index.rs` holds the result and answers the lookups.

mod build;
mod bundle;
mod index;
mod slice;
mod units;
mod walk;

pub use index::{DsymIndex, Unit};
pub use slice::UuidDisplay;
pub use units::MAX_ATTRIBUTES_PER_ENTRY;
pub use walk::MAX_REFERENCE_HOPS;

use crate::error::{Error, ErrorKind, Result};
use build::index_sections;
use bundle::dwarf_file;
use gimli::{Attribute, EndianSlice, RunTimeEndian};
use object::read::ReadCache;
use slice::read_container;
use std::fs::File;
use std::path::Path;

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
    let sections = read_container(path, &cache, arch, uuid, |offset, size| {
        Some(cache.range(offset, size))
    })?;
    index_sections(path, arch, &sections)
}

/// Like [`read_dsym`] for the bytes of a DWARF file (not a bundle) already in memory; `path`
/// only names it in errors. The same checks and errors. This is the entry point for fuzzing.
pub fn read_dsym_bytes(path: &Path, bytes: &[u8], arch: &str, uuid: [u8; 16]) -> Result<DsymIndex> {
    let sections = read_container(path, bytes, arch, uuid, |offset, size| {
        let start = usize::try_from(offset).ok()?;
        let end = start.checked_add(usize::try_from(size).ok()?)?;
        bytes.get(start..end)
    })?;
    index_sections(path, arch, &sections)
}

/// A DWARF section as gimli reads it: its bytes, in the slice's byte order.
type Slice<'a> = EndianSlice<'a, RunTimeEndian>;
/// One unit of `__debug_info`, ready to walk (see `units.rs`).
type GimliUnit<'a> = gimli::Unit<Slice<'a>>;
/// One attribute of an entry.
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

#[cfg(test)]
mod fixture;

#[cfg(test)]
mod tests {
    use super::fixture::*;
    use super::*;

    #[test]
    fn bundle_file_and_bytes_give_the_same_index() {
        let uuid = binary_uuid();
        let index = index();
        assert_eq!(read_dsym(&dwarf_path(), "x86_64", uuid).unwrap(), index);
        let bytes = read_dsym_bytes(&dwarf_path(), &dwarf_bytes(), "x86_64", uuid).unwrap();
        assert_eq!(bytes, index);
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
}
