//! The units of `__debug_info` (DWARF 5 §7.5.1): every unit header, each abbreviation table
//! (`__debug_abbrev`, §7.5.3) parsed once, and one `gimli::Unit` per unit, made from its root
//! entry without its line program.

use super::index::AMBIGUOUS;
use super::{BuildError, Failure, GimliUnit, Slice};
use gimli::{
    AttributeValue, DebugAbbrevOffset, DebugAddrBase, DebugLocListsBase, DebugRngListsBase,
    DebugStrOffsetsBase, DwarfFileType, RunTimeEndian, constants,
};
use std::sync::Arc;

/// A DIE whose abbreviation declares more attributes than this is refused. Producers emit at
/// most a few dozen; the bound keeps the work per entry small on hostile input, where
/// zero-size forms (`DW_FORM_flag_present`, `DW_FORM_implicit_const`) would let one byte of
/// `__debug_info` stand for any number of attributes.
pub const MAX_ATTRIBUTES_PER_ENTRY: usize = 1024;

/// A unit header of `__debug_info`.
type Header<'a> = gimli::UnitHeader<Slice<'a>>;

/// Every unit of `dwarf`, ready to walk, and the `__debug_info` offset of each one's header
/// (ascending). `abbrev` is the `__debug_abbrev` section.
pub(super) fn read_units<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    abbrev: &[u8],
    endian: RunTimeEndian,
) -> std::result::Result<(Vec<GimliUnit<'a>>, Vec<usize>), BuildError> {
    let headers = unit_headers(dwarf)?;
    if headers.len() >= AMBIGUOUS as usize {
        return Err((None, Failure::Limit("too many units")));
    }
    let (offsets, tables) = abbreviation_tables(&headers, abbrev, endian)?;
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
    Ok((units, starts))
}

/// Every unit header of `dwarf`, in section order; an error names the offset of the header
/// that could not be read.
fn unit_headers<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
) -> std::result::Result<Vec<Header<'a>>, BuildError> {
    let mut headers = Vec::new();
    let mut iter = dwarf.units();
    loop {
        // The offset of the next header, for errors.
        let at = headers.last().map_or(Some(0), |h: &Header<'a>| {
            let start: usize = h.debug_info_offset()?.0;
            start.checked_add(h.length_including_self())
        });
        match iter.next() {
            Ok(Some(header)) => headers.push(header),
            Ok(None) => break,
            Err(e) => return Err((at, e.into())),
        }
    }
    Ok(headers)
}

/// The abbreviation tables `headers` use: their offsets, sorted and distinct, and the tables in
/// that order. Each table is parsed once, from its offset up to the next table's, so that units
/// pointing into the middle of one long table cannot make the work quadratic.
fn abbreviation_tables(
    headers: &[Header<'_>],
    abbrev: &[u8],
    endian: RunTimeEndian,
) -> std::result::Result<(Vec<usize>, Vec<Arc<gimli::Abbreviations>>), BuildError> {
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
    Ok((offsets, tables))
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

/// Refuses an entry whose abbreviation declares more than [`MAX_ATTRIBUTES_PER_ENTRY`]
/// attributes.
pub(super) fn check_attribute_count(
    abbrev: &gimli::Abbreviation,
) -> std::result::Result<(), Failure> {
    if abbrev.attributes().len() > MAX_ATTRIBUTES_PER_ENTRY {
        return Err(Failure::Limit(
            "an abbreviation declares more than 1024 attributes",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use super::super::index::Unit;

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
}
