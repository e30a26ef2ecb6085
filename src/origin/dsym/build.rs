//! The DWARF sections of one slice to a [`DsymIndex`]: gimli's view of them, a bound on the
//! address ranges kept, every unit read ([`super::units`]) and walked ([`super::walk`]), and a
//! failure turned into one line naming the unit it was met in.

use super::index::{DsymIndex, Unit};
use super::slice::Sections;
use super::units::read_units;
use super::walk::Builder;
use super::{BuildError, Failure, Slice};
use crate::error::{Error, ErrorKind, Result};
use gimli::{EndianSlice, RunTimeEndian, SectionId};
use std::path::Path;

/// Indexes the DWARF sections of the slice `arch` of the file at `path` (named in errors).
pub(super) fn index_sections(
    path: &Path,
    arch: &str,
    sections: &Sections<'_>,
) -> Result<DsymIndex> {
    let malformed =
        |what: String| Error::new(ErrorKind::Malformed, path, format!("{arch}: {what}"));
    let endian = sections.endian;
    let dwarf =
        gimli::Dwarf::load(|id| Ok::<_, gimli::Error>(EndianSlice::new(sections.get(id), endian)))
            .map_err(|e| malformed(format!("DWARF: {e}")))?;
    let budget = [
        SectionId::DebugInfo,
        SectionId::DebugRanges,
        SectionId::DebugRngLists,
    ]
    .iter()
    .map(|id| sections.get(*id).len())
    .sum::<usize>()
    .saturating_add(64);
    build(&dwarf, sections.get(SectionId::DebugAbbrev), endian, budget).map_err(|(at, e)| {
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

/// Reads every unit of `dwarf` into a [`DsymIndex`]. `abbrev` is the `__debug_abbrev` section;
/// `budget` caps the number of address ranges.
fn build(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    abbrev: &[u8],
    endian: RunTimeEndian,
    budget: usize,
) -> std::result::Result<DsymIndex, BuildError> {
    let (units, starts) = read_units(dwarf, abbrev, endian)?;
    let mut builder = Builder::new(dwarf, &units, &starts, budget);
    for (i, &start) in starts.iter().enumerate() {
        builder.walk(i).map_err(|e| (Some(start), e))?;
    }
    let (precise, coarse, names) = builder.into_parts();

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
    Ok(DsymIndex::new(index_units, precise, coarse, names))
}

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use super::super::read_dsym_bytes;
    use crate::error::ErrorKind;
    use std::path::Path;

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
}
