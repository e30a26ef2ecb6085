//! The entries of one unit: the address ranges its root and its defining subprograms and
//! variables cover, in two tiers, and the linkage names of those definitions, found on the
//! entry or through `DW_AT_specification`/`DW_AT_abstract_origin` (see the
//! [module docs](super) for the DWARF read).

use super::index::{AMBIGUOUS, AddressRange};
use super::units::check_attribute_count;
use super::{Attr, Failure, GimliUnit, Slice};
use gimli::{AttributeValue, DebugInfoOffset, Operation, UnitOffset, constants};
use std::collections::HashMap;

/// At most this many `DW_AT_specification`/`DW_AT_abstract_origin` references are followed from
/// a defining entry to the declaration that carries its linkage name (real chains have 1–2).
pub const MAX_REFERENCE_HOPS: usize = 8;

/// Which tier a range goes to (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tier {
    Precise,
    Coarse,
}

/// What the walk of the units has found so far: the ranges of each tier and the linkage names.
pub(super) struct Builder<'a, 'd> {
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

impl<'a, 'd> Builder<'a, 'd> {
    /// A builder over `units`, whose headers start at `starts` in `__debug_info`; at most
    /// `budget` ranges may be added.
    pub(super) fn new(
        dwarf: &'d gimli::Dwarf<Slice<'a>>,
        units: &'d [GimliUnit<'a>],
        starts: &'d [usize],
        budget: usize,
    ) -> Self {
        Builder {
            dwarf,
            units,
            starts,
            precise: Vec::new(),
            coarse: Vec::new(),
            names: HashMap::new(),
            budget,
            scratch: Vec::new(),
        }
    }

    /// What was found: the precise ranges, the coarse ones, and each linkage name's unit (or
    /// [`AMBIGUOUS`]).
    pub(super) fn into_parts(
        self,
    ) -> (Vec<AddressRange>, Vec<AddressRange>, HashMap<Box<str>, u32>) {
        (self.precise, self.coarse, self.names)
    }
}

impl<'a> Builder<'a, '_> {
    /// Reads the ranges of unit `i`'s root and every defining subprogram and variable in it.
    pub(super) fn walk(&mut self, i: usize) -> std::result::Result<(), Failure> {
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

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use object::{Object, ObjectSymbol, ObjectSymbolTable};

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
}
