//! The dSYM fixture the unit tests read (`testdata/origin`, built by `testdata/build.sh`): a
//! stripped dylib of two units, `a.cc` (DWARF 4) and `b.cc` (DWARF 5), and its dSYM.

use super::{DsymIndex, read_dsym};
use object::{Object, ObjectSection};
use std::path::{Path, PathBuf};

pub(super) const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/origin");
pub(super) const A: &str = "../src/a.cc";
pub(super) const B: &str = "../src/b.cc";

/// Every external definition of the fixture: (Mach-O name, address, defining unit), as
/// `llvm-nm-22 -m testdata/origin/liba.dylib` prints them; the first 8 are weak.
pub(super) const DEFINITIONS: [(&str, u64, &str); 12] = [
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

pub(super) fn fixture(name: &str) -> PathBuf {
    Path::new(FIXTURE).join(name)
}

pub(super) fn dwarf_path() -> PathBuf {
    fixture("liba.dylib.dSYM/Contents/Resources/DWARF/liba.dylib")
}

pub(super) fn dwarf_bytes() -> Vec<u8> {
    std::fs::read(dwarf_path()).unwrap()
}

/// The stripped binary's LC_UUID, read with the object crate.
pub(super) fn binary_uuid() -> [u8; 16] {
    let data = std::fs::read(fixture("liba.dylib")).unwrap();
    object::File::parse(&*data)
        .unwrap()
        .mach_uuid()
        .unwrap()
        .unwrap()
}

pub(super) fn index() -> DsymIndex {
    read_dsym(&fixture("liba.dylib.dSYM"), "x86_64", binary_uuid()).unwrap()
}

pub(super) fn unit_name(index: &DsymIndex, unit: Option<usize>) -> Option<&str> {
    unit.map(|u| index.units()[u].name.as_str())
}

pub(super) fn find(bytes: &[u8], needle: &[u8]) -> usize {
    bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap()
}

/// File offset and size of a section of the fixture's DWARF file.
pub(super) fn section_range(bytes: &[u8], name: &str) -> (usize, usize) {
    let file = object::File::parse(bytes).unwrap();
    let (offset, size) = file.section_by_name(name).unwrap().file_range().unwrap();
    (offset as usize, size as usize)
}
