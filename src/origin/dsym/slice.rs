//! The slice of a DWARF file: a thin 64-bit Mach-O (`MH_DSYM`) or a member of a universal file
//! (`<mach-o/fat.h>`: `fat_header`, then `fat_arch` or `fat_arch_64` entries), chosen by arch;
//! its `LC_UUID` (`<mach-o/loader.h>`: `struct uuid_command`) checked against the binary's; and
//! its `__DWARF` sections loaded. All of it read with the object crate.

use crate::error::{Error, ErrorKind, Result};
use crate::macho::file::arch_name;
use gimli::{RunTimeEndian, SectionId};
use object::read::ReadRef;
use object::read::macho::{FatArch, MachHeader, MachOFatFile32, MachOFatFile64, MachOFile64};
use object::{Endianness, FileKind, Object, ObjectSection};
use std::fmt;
use std::path::Path;

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

/// The `__DWARF` sections of one slice that are read ([`SECTIONS`]), borrowed from the file.
pub(super) struct Sections<'data> {
    data: [&'data [u8]; SECTIONS.len()],
    /// The slice's byte order.
    pub(super) endian: RunTimeEndian,
}

impl<'data> Sections<'data> {
    /// The bytes of section `id`; empty if the slice has none or it is not read.
    pub(super) fn get(&self, id: SectionId) -> &'data [u8] {
        SECTIONS
            .iter()
            .position(|s| *s == id)
            .map_or(&[][..], |k| self.data[k])
    }
}

/// Picks the slice for `arch` in `data` (thin or universal) and loads its DWARF sections;
/// `slice` gives the bytes `(offset, size)` of a universal file's member, or `None` if they are
/// out of range.
pub(super) fn read_container<'data, R, S>(
    path: &Path,
    data: R,
    arch: &str,
    uuid: [u8; 16],
    slice: impl FnOnce(u64, u64) -> Option<S>,
) -> Result<Sections<'data>>
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
            return dwarf_sections(path, &file, arch, uuid);
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
    dwarf_sections(path, &file, arch, uuid)
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

/// Checks the UUID of one slice and loads its DWARF sections; `__debug_info` must be there.
fn dwarf_sections<'data, R: ReadRef<'data>>(
    path: &Path,
    file: &MachOFile64<'data, Endianness, R>,
    arch: &str,
    uuid: [u8; 16],
) -> Result<Sections<'data>> {
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
    let sections = Sections {
        data,
        endian: if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        },
    };
    if sections.get(SectionId::DebugInfo).is_empty() {
        return Err(malformed("no __DWARF,__debug_info section".into()));
    }
    Ok(sections)
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

#[cfg(test)]
mod tests {
    use super::super::fixture::*;
    use super::super::{read_dsym, read_dsym_bytes};
    use super::*;

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
    fn uuids_print_like_dwarfdump() {
        let uuid = *b"\x4c\x4c\x44\xa8\x55\x55\x31\x44\xa1\x32\x11\x0c\xe9\xbb\x3b\x60";
        assert_eq!(
            UuidDisplay(uuid).to_string(),
            "4C4C44A8-5555-3144-A132-110CE9BB3B60"
        );
    }
}
