//! The index a dSYM gives: its compile units, a sorted map of disjoint address ranges to
//! them, and a map from linkage name to unit; the lookups weakscan makes in it, and the merge
//! of the two tiers of ranges (see the [module docs](super)) into that map.

use std::collections::HashMap;

/// The unit index that marks a linkage name defined in several units.
pub(super) const AMBIGUOUS: u32 = u32::MAX;

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
pub(super) struct AddressRange {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) unit: u32,
}

/// The compile units of one dSYM slice, with the address ranges and linkage names that they
/// define. Built by [`read_dsym`](super::read_dsym).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DsymIndex {
    units: Vec<Unit>,
    /// Sorted by `start`, disjoint.
    ranges: Vec<AddressRange>,
    /// DWARF linkage name (`_ZN…`, without the Mach-O underscore) → unit, or [`AMBIGUOUS`].
    names: HashMap<Box<str>, u32>,
}

impl DsymIndex {
    /// The index of `units`: `precise` and `coarse` are the two tiers of ranges, in any order
    /// and overlapping (merged by [`normalize`]); `names` maps each linkage name to its unit or
    /// [`AMBIGUOUS`].
    pub(super) fn new(
        units: Vec<Unit>,
        precise: Vec<AddressRange>,
        coarse: Vec<AddressRange>,
        names: HashMap<Box<str>, u32>,
    ) -> Self {
        DsymIndex {
            units,
            ranges: normalize(precise, coarse),
            names,
        }
    }

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
}
