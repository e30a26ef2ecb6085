//! Static library archives (`.a`) as macOS toolchains write them: the list of members, so that
//! the Mach-O object file inside each can be read by byte range.
//!
//! Layout (`<ar.h>` of Apple's cctools, the same as 4.4BSD's; ld64
//! `src/ld/parsers/archive_file.cpp`; LLVM `llvm/lib/Object/Archive.cpp`):
//!
//! ```text
//! magic: [u8; 8] = "!<arch>\n"        // ARMAG; "!<thin>\n" is a GNU thin archive (unsupported)
//! repeated until the end of the archive:
//! struct ar_hdr {                      // 60 bytes of ASCII, each field padded with spaces
//!     ar_name: [u8; 16],  // see below
//!     ar_date: [u8; 12],  // decimal seconds       (not checked: no reader needs it)
//!     ar_uid:  [u8; 6],   // decimal               (not checked)
//!     ar_gid:  [u8; 6],   // decimal               (not checked)
//!     ar_mode: [u8; 8],   // octal                 (not checked)
//!     ar_size: [u8; 10],  // decimal byte count of what follows, BSD long name included
//!     ar_fmag: [u8; 2],   // ARFMAG "`\n"
//! }
//! data: [u8; ar_size]     // for "#1/N": name: [u8; N] (NUL padded), then the member's bytes
//! pad:  [u8; ar_size & 1] // "\n": the next header starts at an even offset
//! ```
//!
//! `ar_name` is one of:
//!
//! * `name` padded with spaces — a BSD short name (up to 16 bytes, no space in it);
//! * `name/` padded with spaces — a GNU short name (up to 15 bytes);
//! * `#1/N` — a BSD long name (`AR_EFMT1`): the first `N` bytes of the data, NUL padded, are the
//!   name, and are counted in `ar_size`;
//! * `/N` — a GNU long name: `N` is a decimal offset into the GNU name table, where the name
//!   ends with `/\n`;
//! * `//` — the GNU name table itself;
//! * `/` or `/SYM64/` — the GNU symbol table; `__.SYMDEF`, `__.SYMDEF SORTED`, `__.SYMDEF_64`,
//!   `__.SYMDEF_64 SORTED` (short, or as a `#1/N` long name, as llvm-ar writes it) — the BSD
//!   and Darwin symbol tables (`<mach-o/ranlib.h>`).
//!
//! Symbol tables are skipped (only counted, never read, whatever counts they claim); the name
//! table is read once and is not a member. Every other member is listed, whatever it holds
//! (Mach-O, LLVM bitcode, anything): the caller decides what to do with its bytes.
//!
//! **Padding.** Writers differ, readers agree. `llvm-ar --format=darwin` pads every member with
//! `\n` to a multiple of 8 bytes and pads each `#1/N` name with NULs so that the member's bytes
//! start 8-aligned; both paddings are counted in `ar_size` (LLVM `ArchiveWriter.cpp`: "ld64
//! expects the members to be 8-byte aligned for 64-bit content … This matches the behaviour with
//! cctools"). GNU `ar` and `llvm-ar --format=gnu` pad only to an even offset, outside `ar_size`.
//! Readers take `ar_size` bytes and round up to 2: LLVM `getNextChildLoc` (`alignTo(Size, 2)`),
//! cctools `get_toc_byte_sex` (`rnd(ar_size, sizeof(short))`), the object crate. ld64's
//! `Entry::next` rounds to 4 instead; on the output of Darwin writers, whose members end
//! 8-aligned, the two agree. This reader follows LLVM, with two tolerances: the even-offset pad
//! byte after the last member may be missing (as the object crate accepts), and fewer than 4
//! bytes of `\n` or NUL may follow the last member (what ld64's rounding to 4 passes over). So
//! a member's data, as listed, includes the writer's padding inside `ar_size` (exactly what
//! `llvm-ar p` prints); a Mach-O reader ignores those trailing bytes.
//!
//! **Hardening.** Only the magic, the 60-byte headers, `#1/N` names and the GNU name table are
//! read, each after its range has been checked against the archive's length; a member's bytes
//! are never read here. Every header consumes at least 60 bytes of the archive, so the list
//! grows with the bytes present, never with a number the file claims; names are at most
//! [`MAX_NAME_LEN`] bytes each and [`MAX_NAME_EXTRA_BYTES`] plus the archive's size in total
//! (GNU `/N` names may share bytes of the name table). Duplicate member names are kept (ld64
//! loads members by offset, not by name).

use super::cursor::symbol_name;
use super::file::MachOFile;
use crate::error::{Error, ErrorKind, ParseError};
use std::fmt;

/// `ARMAG`: the first 8 bytes of an archive.
pub const AR_MAGIC: &[u8; 8] = b"!<arch>\n";
/// The first 8 bytes of a GNU thin archive, whose members live in other files (unsupported).
pub const THIN_MAGIC: &[u8; 8] = b"!<thin>\n";
/// `sizeof(struct ar_hdr)`.
pub const SIZEOF_AR_HDR: u64 = 60;
/// `ARFMAG`: the last two bytes of every member header.
pub const AR_FMAG: &[u8; 2] = b"`\n";
/// `AR_EFMT1`: the prefix of a BSD long name, `#1/N`.
pub const AR_EFMT1: &[u8; 3] = b"#1/";
/// Longest member name accepted, in bytes (a `#1/N` length or a GNU `/N` name): four times
/// macOS's `PATH_MAX`; ld64 copies names into a 256-byte buffer.
pub const MAX_NAME_LEN: u64 = 4096;
/// Member names may total the archive's size plus this many bytes.
pub const MAX_NAME_EXTRA_BYTES: u64 = 1 << 20;
/// Names of the BSD/Darwin symbol-table members (`<mach-o/ranlib.h>` `SYMDEF`,
/// `SYMDEF_SORTED`, `SYMDEF_64`, `SYMDEF_64_SORTED`).
pub const BSD_SYMBOL_TABLE_NAMES: [&[u8]; 4] = [
    b"__.SYMDEF",
    b"__.SYMDEF SORTED",
    b"__.SYMDEF_64",
    b"__.SYMDEF_64 SORTED",
];

/// One member of an archive: a named byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member's file name as one line of text ([`crate::text::escape_bytes`]): the short
    /// name without its `/` or padding, the `#1/N` name up to its first NUL, or the GNU `/N`
    /// name without its `/\n`.
    pub name: String,
    /// Offset of the member's first byte (after a BSD long name): from the start of the
    /// archive for [`read_members`], from the start of the file for [`read_members_in`].
    pub offset: u64,
    /// The member's size in bytes: `ar_size` less a BSD long name, padding inside `ar_size`
    /// included.
    pub size: u64,
}

/// Every member of an archive, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Members {
    /// The members, symbol tables and the GNU name table left out; duplicate names are kept.
    pub members: Vec<Member>,
    /// How many symbol-table members (`__.SYMDEF…`, `/`, `/SYM64/`) were skipped.
    pub symbol_tables: usize,
}

/// Why [`read_members`] failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveError {
    /// The archive is malformed, or a thin archive (then of kind `Unsupported`). The offset is from the start of the
    /// archive.
    Parse(ParseError),
    /// The `read` function failed (an I/O error, already naming the file).
    Io(Error),
}

impl From<ParseError> for ArchiveError {
    fn from(e: ParseError) -> Self {
        ArchiveError::Parse(e)
    }
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveError::Parse(e) => e.fmt(f),
            ArchiveError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ArchiveError {}

/// True when `head` starts with [`AR_MAGIC`] (or [`THIN_MAGIC`], which [`read_members`]
/// refuses as unsupported): the test for "this file, or this universal slice, is an archive".
pub fn is_archive(head: &[u8]) -> bool {
    head.starts_with(AR_MAGIC) || head.starts_with(THIN_MAGIC)
}

/// Lists the members of the archive of `len` bytes that `read` reads.
///
/// `read(offset, len, what)` returns `len` bytes at `offset` from the start of the archive;
/// `what` names the structure for its error message. It is only asked for ranges inside
/// `0..len`, each at most [`SIZEOF_AR_HDR`], [`MAX_NAME_LEN`] or the GNU name table's size, so
/// a caller can back it with [`MachOFile::read_range`] and never hold the whole archive.
///
/// Errors ([`ArchiveError::Parse`], offsets from the start of the archive): no `!<arch>` magic;
/// a thin archive (not supported); a header cut short by the end of the archive; an `ar_fmag`
/// other than `` `\n ``; an `ar_size` or `#1/N` length that is not a decimal number; a member
/// running past the end; a `#1/N` name longer than its member; a GNU `/N` name without a name
/// table, past its end, or not ending in `/\n`; a second name table; an unknown `/…` name; an
/// empty name; names over [`MAX_NAME_LEN`] bytes or over the total budget; `read` returning
/// fewer bytes than asked. [`ArchiveError::Io`] passes on an error of `read`.
///
/// Time and memory are linear in `len` (one read per 60-byte header at least).
pub fn read_members(
    len: u64,
    mut read: impl FnMut(u64, u64, &str) -> Result<Vec<u8>, Error>,
) -> Result<Members, ArchiveError> {
    let mut fetch = |offset: u64, n: u64, what: &str| -> Result<Vec<u8>, ArchiveError> {
        let bytes = read(offset, n, what).map_err(ArchiveError::Io)?;
        if bytes.len() as u64 != n {
            return Err(ParseError::new(
                "the archive reader returned fewer bytes than asked",
                offset,
            )
            .into());
        }
        Ok(bytes)
    };
    let magic_len = AR_MAGIC.len() as u64;
    if len < magic_len {
        return Err(ParseError::new("not an archive (shorter than the !<arch> magic)", 0).into());
    }
    let magic = fetch(0, magic_len, "archive magic")?;
    if magic == THIN_MAGIC {
        return Err(ParseError::unsupported("thin archives (!<thin>) are not supported", 0).into());
    }
    if magic != AR_MAGIC {
        return Err(ParseError::new("not an archive (no !<arch> magic)", 0).into());
    }

    let name_budget = len.saturating_add(MAX_NAME_EXTRA_BYTES);
    let mut name_bytes: u64 = 0;
    let mut gnu_names: Option<Vec<u8>> = None;
    let mut out = Members::default();
    let mut pos = magic_len;
    // `pos` grows by at least SIZEOF_AR_HDR a turn, so the loop ends after len / 60 turns.
    while pos < len {
        let left = len - pos;
        if left < SIZEOF_AR_HDR {
            let tail = fetch(pos, left, "end of the archive")?;
            if left < 4 && tail.iter().all(|&b| b == b'\n' || b == 0) {
                break;
            }
            return Err(
                ParseError::new("truncated member header at the end of the archive", pos).into(),
            );
        }
        let hdr = fetch(pos, SIZEOF_AR_HDR, "archive member header")?;
        if hdr[58..60] != AR_FMAG[..] {
            return Err(ParseError::new(
                "bad ar_fmag (member header does not end in \"`\\n\")",
                pos + 58,
            )
            .into());
        }
        let size = decimal(&hdr[48..58])
            .ok_or_else(|| ParseError::new("ar_size is not a decimal number", pos + 48))?;
        let data = pos + SIZEOF_AR_HDR;
        let end = data
            .checked_add(size)
            .filter(|&e| e <= len)
            .ok_or_else(|| {
                ParseError::new(
                    "member runs past the end of the archive (ar_size too large)",
                    pos + 48,
                )
            })?;
        // The pad byte after an odd-sized last member may be missing: `pos` is then len + 1.
        let next = end + (end & 1);

        let mut field = [0u8; 16];
        field.copy_from_slice(&hdr[..16]);
        let (name, offset, size): (Vec<u8>, u64, u64) =
            match classify(&field).map_err(|m| ParseError::new(m, pos))? {
                RawName::SymbolTable => {
                    out.symbol_tables += 1;
                    pos = next;
                    continue;
                }
                RawName::GnuNameTable => {
                    if gnu_names.is_some() {
                        return Err(ParseError::new("a second GNU name table (//)", pos).into());
                    }
                    gnu_names = Some(fetch(data, size, "GNU name table (//)")?);
                    pos = next;
                    continue;
                }
                RawName::Short(n) => (n.to_vec(), data, size),
                RawName::Bsd(n) => {
                    if n > size {
                        return Err(ParseError::new(
                            "BSD long name (#1/N) is longer than its member",
                            pos + 3,
                        )
                        .into());
                    }
                    if n > MAX_NAME_LEN {
                        return Err(
                            ParseError::new("member name longer than 4096 bytes", pos + 3).into(),
                        );
                    }
                    let mut raw = fetch(data, n, "BSD long member name")?;
                    if let Some(nul) = raw.iter().position(|&b| b == 0) {
                        raw.truncate(nul);
                    }
                    (raw, data + n, size - n)
                }
                RawName::GnuOffset(at) => {
                    let table = gnu_names.as_deref().ok_or_else(|| {
                        ParseError::new(
                            "GNU long name (/N) but no name table (//) before it",
                            pos + 1,
                        )
                    })?;
                    (
                        gnu_name(table, at)
                            .map_err(|m| ParseError::new(m, pos + 1))?
                            .to_vec(),
                        data,
                        size,
                    )
                }
            };
        if BSD_SYMBOL_TABLE_NAMES.contains(&name.as_slice()) {
            out.symbol_tables += 1;
            pos = next;
            continue;
        }
        if name.is_empty() {
            return Err(ParseError::new("empty member name", pos).into());
        }
        name_bytes += name.len() as u64;
        if name_bytes > name_budget {
            return Err(ParseError::new(
                "member names total more than the archive's size plus 1 MiB",
                pos,
            )
            .into());
        }
        out.members.push(Member {
            name: symbol_name(&name),
            offset,
            size,
        });
        pos = next;
    }
    Ok(out)
}

/// Lists the members of the archive at `offset`, `len` bytes, in `file` (the whole file, or a
/// universal file's slice), reading only headers and names by range. The members' offsets are
/// file offsets, ready for [`MachOFile::read_range`].
///
/// Errors: the range is not inside the file; every error of [`read_members`], as a one-line
/// [`Error`] naming the file (`Unsupported` for a thin archive, else `Malformed`; I/O errors as
/// they come).
pub fn read_members_in(file: &MachOFile, offset: u64, len: u64) -> crate::Result<Members> {
    if offset.checked_add(len).is_none_or(|end| end > file.len()) {
        return Err(file.error(
            ErrorKind::Malformed,
            format!(
                "truncated: archive (file offset {offset:#x}, {len} bytes) runs past the end of the file ({} bytes)",
                file.len()
            ),
        ));
    }
    let mut members = read_members(len, |at, n, what| file.read_range(offset + at, n, what))
        .map_err(|e| match e {
            ArchiveError::Io(e) => e,
            ArchiveError::Parse(p) if offset == 0 => file.error(p.kind, format!("archive: {p}")),
            ArchiveError::Parse(p) => {
                file.error(p.kind, format!("archive at file offset {offset:#x}: {p}"))
            }
        })?;
    for m in &mut members.members {
        m.offset += offset;
    }
    Ok(members)
}

/// [`read_members`] over an archive in memory (a test, a fuzz input); offsets are from the
/// start of `bytes`. It never returns [`ArchiveError::Io`].
pub fn read_members_bytes(bytes: &[u8]) -> Result<Members, ArchiveError> {
    read_members(bytes.len() as u64, |offset, len, what| {
        usize::try_from(offset)
            .ok()
            .zip(usize::try_from(len).ok())
            .and_then(|(o, n)| bytes.get(o..o.checked_add(n)?))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| Error {
                kind: ErrorKind::Malformed,
                message: format!("{what} (offset {offset:#x}, {len} bytes) is outside the input"),
            })
    })
}

/// What an `ar_name` field says.
enum RawName<'a> {
    /// `/`, `/SYM64/`, or a short `__.SYMDEF…` name.
    SymbolTable,
    /// `//`.
    GnuNameTable,
    /// A short name, without its `/` and padding.
    Short(&'a [u8]),
    /// `#1/N`: the name is the first N bytes of the data.
    Bsd(u64),
    /// `/N`: the name is at offset N of the GNU name table.
    GnuOffset(u64),
}

fn classify(field: &[u8; 16]) -> Result<RawName<'_>, &'static str> {
    let trimmed = trim_spaces(field);
    if let Some(digits) = field.strip_prefix(AR_EFMT1) {
        return decimal(digits)
            .map(RawName::Bsd)
            .ok_or("BSD long name length (#1/N) is not a decimal number");
    }
    if field[0] == b'/' {
        return match trimmed {
            b"/" | b"/SYM64/" => Ok(RawName::SymbolTable),
            b"//" => Ok(RawName::GnuNameTable),
            _ => decimal(&field[1..]).map(RawName::GnuOffset).ok_or(
                "member name starts with '/' but is no symbol table, name table or /N offset",
            ),
        };
    }
    // A 16-byte "__.SYMDEF SORTED" has a space in it.
    if BSD_SYMBOL_TABLE_NAMES.contains(&trimmed) {
        return Ok(RawName::SymbolTable);
    }
    // GNU names end at '/' (and may hold spaces); BSD names end at the first space (LLVM
    // `getRawName`, ld64 `Entry::getName`).
    let end = field
        .iter()
        .position(|&b| b == b'/')
        .or_else(|| field.iter().position(|&b| b == b' '))
        .unwrap_or(field.len());
    Ok(RawName::Short(&field[..end]))
}

/// The GNU long name at `at` in the name table: the bytes before the next `/\n`.
fn gnu_name(table: &[u8], at: u64) -> Result<&[u8], &'static str> {
    let start = usize::try_from(at)
        .ok()
        .filter(|&s| s < table.len())
        .ok_or("GNU long name offset (/N) is past the end of the name table")?;
    // Looking no further than a name can be long keeps every lookup short.
    let window = &table[start..table.len().min(start + MAX_NAME_LEN as usize + 2)];
    match window.iter().position(|&b| b == b'\n') {
        Some(nl) if nl > 0 && window[nl - 1] == b'/' => Ok(&window[..nl - 1]),
        Some(_) => Err("GNU long name does not end in \"/\\n\""),
        None if window.len() > MAX_NAME_LEN as usize => Err("member name longer than 4096 bytes"),
        None => Err("GNU long name does not end in \"/\\n\""),
    }
}

/// An ASCII decimal number followed only by spaces (`ar_size`, `#1/N`, `/N`); `None` for no
/// digit, a leading space, any other byte, or a value over `u64`.
fn decimal(field: &[u8]) -> Option<u64> {
    let digits = trim_spaces(field);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    digits.iter().try_fold(0u64, |v, &d| {
        v.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

fn trim_spaces(field: &[u8]) -> &[u8] {
    let end = field.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
    &field[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// A 60-byte member header: each field left-aligned and padded with spaces.
    fn hdr(name: &str, size: &str) -> Vec<u8> {
        let mut h = Vec::new();
        for (field, width) in [
            (name, 16),
            ("0", 12),
            ("0", 6),
            ("0", 6),
            ("644", 8),
            (size, 10),
        ] {
            assert!(field.len() <= width);
            h.extend(field.as_bytes());
            h.resize(h.len() + width - field.len(), b' ');
        }
        h.extend(AR_FMAG);
        h
    }

    /// An archive of `(ar_name, data)` members, each padded to an even offset with `\n`.
    fn archive(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut a = AR_MAGIC.to_vec();
        for (name, data) in members {
            a.extend(hdr(name, &data.len().to_string()));
            a.extend(*data);
            if a.len() % 2 == 1 {
                a.push(b'\n');
            }
        }
        a
    }

    fn names(m: &Members) -> Vec<&str> {
        m.members.iter().map(|m| m.name.as_str()).collect()
    }

    fn parse_err(bytes: &[u8]) -> ParseError {
        match read_members_bytes(bytes) {
            Err(ArchiveError::Parse(e)) => e,
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    fn data<'a>(bytes: &'a [u8], m: &Member) -> &'a [u8] {
        &bytes[m.offset as usize..(m.offset + m.size) as usize]
    }

    fn testdata(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/archive")
            .join(name)
    }

    const OBJECTS: [&str; 2] = ["weak_inline_definitions.o", "second_translation_unit.o"];

    /// The committed llvm-ar archives: names and bytes are the object files put in.
    #[test]
    fn llvm_ar_darwin_and_gnu_archives() {
        for archive_name in ["libweak-darwin.a", "libweak-gnu.a"] {
            let bytes = std::fs::read(testdata(archive_name)).unwrap();
            let m = read_members_bytes(&bytes).unwrap();
            assert_eq!(names(&m), OBJECTS, "{archive_name}");
            assert_eq!(m.symbol_tables, 1, "{archive_name}");
            for (member, object) in m.members.iter().zip(OBJECTS) {
                assert_eq!(
                    data(&bytes, member),
                    std::fs::read(testdata(object)).unwrap()
                );
                if archive_name.contains("darwin") {
                    // llvm-ar's Darwin format starts every member 8-aligned.
                    assert_eq!(member.offset % 8, 0, "{member:?}");
                }
            }
        }
    }

    /// The same archives against `llvm-ar-22 t` and `llvm-ar-22 p`, when the tool is here.
    #[test]
    fn llvm_ar_agrees_when_installed() {
        use std::process::Command;
        let run = |args: &[&str]| Command::new("llvm-ar-22").args(args).output().ok();
        if run(&["--version"]).is_none_or(|o| !o.status.success()) {
            eprintln!("llvm-ar-22 not installed: skipped");
            return;
        }
        for archive_name in ["libweak-darwin.a", "libweak-gnu.a"] {
            let path = testdata(archive_name);
            let path = path.to_str().unwrap();
            let bytes = std::fs::read(path).unwrap();
            let m = read_members_bytes(&bytes).unwrap();
            let listed = run(&["t", path]).unwrap();
            let listed = String::from_utf8(listed.stdout).unwrap();
            assert_eq!(listed.lines().collect::<Vec<_>>(), names(&m));
            for member in &m.members {
                let printed = run(&["p", path, &member.name]).unwrap();
                assert_eq!(printed.stdout, data(&bytes, member), "{}", member.name);
            }
        }
    }

    /// Differential: the object crate's archive reader lists the same names and byte ranges.
    #[test]
    fn object_crate_agrees() {
        use object::read::archive::ArchiveFile;
        for archive_name in ["libweak-darwin.a", "libweak-gnu.a"] {
            let bytes = std::fs::read(testdata(archive_name)).unwrap();
            let ours = read_members_bytes(&bytes).unwrap();
            let theirs: Vec<Member> = ArchiveFile::parse(&*bytes)
                .unwrap()
                .members()
                .map(|m| {
                    let m = m.unwrap();
                    let (offset, size) = m.file_range();
                    Member {
                        name: symbol_name(m.name()),
                        offset,
                        size,
                    }
                })
                .collect();
            assert_eq!(ours.members, theirs, "{archive_name}");
        }
    }

    /// The convenience over a MachOFile: an archive inside a larger file (as in a universal
    /// slice) gives file offsets; errors name the file and the archive's offset.
    #[test]
    fn read_members_in_a_file_at_an_offset() {
        let ar = std::fs::read(testdata("libweak-darwin.a")).unwrap();
        let mut bytes = vec![0u8; 0x1000];
        bytes.extend(&ar);
        let file = MachOFile::from_bytes(Path::new("fat"), bytes.clone());
        let m = read_members_in(&file, 0x1000, ar.len() as u64).unwrap();
        assert_eq!(names(&m), OBJECTS);
        for (member, object) in m.members.iter().zip(OBJECTS) {
            let read = file
                .read_range(member.offset, member.size, "member")
                .unwrap();
            assert_eq!(read, std::fs::read(testdata(object)).unwrap());
        }
        let e = read_members_in(&file, 0x1000, ar.len() as u64 + 1).unwrap_err();
        assert!(e.message.contains("runs past the end of the file"), "{e}");
        let e = read_members_in(&file, 0, 0x1000).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
        assert_eq!(
            e.message,
            "fat: archive: not an archive (no !<arch> magic) (at offset 0x0)"
        );
        let e = read_members_in(&file, 0x1008, 0x100).unwrap_err();
        assert!(
            e.message
                .starts_with("fat: archive at file offset 0x1008: not an archive"),
            "{e}"
        );
        let thin = MachOFile::from_bytes(Path::new("t.a"), b"!<thin>\n".to_vec());
        let e = read_members_in(&thin, 0, 8).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported);
        assert_eq!(
            e.message,
            "t.a: archive: thin archives (!<thin>) are not supported (at offset 0x0)"
        );
    }

    #[test]
    fn magic_and_empty_archive() {
        assert_eq!(read_members_bytes(AR_MAGIC).unwrap(), Members::default());
        assert_eq!(
            parse_err(b"!<arch>").message,
            "not an archive (shorter than the !<arch> magic)"
        );
        assert_eq!(
            parse_err(b"\xcf\xfa\xed\xfe\x07\0\0\x01").message,
            "not an archive (no !<arch> magic)"
        );
        assert!(is_archive(b"!<arch>\nxyz") && is_archive(THIN_MAGIC) && !is_archive(b"!<arch"));
    }

    #[test]
    fn bsd_and_gnu_short_names() {
        let a = archive(&[
            ("a.o", b"1234"),
            ("b c.o/", b"x"), // GNU: ends at '/', may hold a space
            ("exactly16bytes.o", b""),
        ]);
        let m = read_members_bytes(&a).unwrap();
        assert_eq!(names(&m), ["a.o", "b c.o", "exactly16bytes.o"]);
        assert_eq!((m.members[0].offset, m.members[0].size), (68, 4));
        assert_eq!(data(&a, &m.members[1]), b"x");
        assert_eq!(m.members[2].size, 0);
    }

    #[test]
    fn bsd_long_names() {
        let a = archive(&[
            ("#1/20", b"a_rather_long_name.o\0\0\0\0MACHO"[..20].as_ref()),
            ("#1/24", b"a_rather_long_name.o\0\0\0\0MACHO"),
            ("#1/5", b"x.o\0\0"), // zero bytes of data
        ]);
        let m = read_members_bytes(&a).unwrap();
        let long = "a_rather_long_name.o";
        assert_eq!(names(&m), [long, long, "x.o"]);
        assert_eq!(m.members[0].size, 0);
        assert_eq!(data(&a, &m.members[1]), b"MACHO");
        assert_eq!(m.members[1].offset, 8 + 60 + 20 + 60 + 24);
        assert_eq!(m.members[2].size, 0);
    }

    #[test]
    fn gnu_long_names() {
        let table = b"first_long_member_name.o/\nsecond_long_member_name.o/\n";
        let a = archive(&[
            ("/", b"\0\0\0\0"),
            ("//", table),
            ("/0", b"one"),
            ("/26", b"two"),
            ("/0", b"dup"),
        ]);
        let m = read_members_bytes(&a).unwrap();
        assert_eq!(
            names(&m),
            [
                "first_long_member_name.o",
                "second_long_member_name.o",
                "first_long_member_name.o"
            ]
        );
        assert_eq!(m.symbol_tables, 1);
        assert_eq!(data(&a, &m.members[1]), b"two");
    }

    #[test]
    fn every_symbol_table_name_is_skipped() {
        let a = archive(&[
            ("__.SYMDEF", b"\x08\0\0\0"),
            ("__.SYMDEF SORTED", b""),
            ("#1/12", b"__.SYMDEF_64"),
            ("#1/20", b"__.SYMDEF_64 SORTED\0"),
            ("#1/16", b"__.SYMDEF\0\0\0\0\0\0\0"),
            ("/", b""),
            ("/SYM64/", b""),
            ("m.o", b"m"),
        ]);
        let m = read_members_bytes(&a).unwrap();
        assert_eq!(m.symbol_tables, 7);
        assert_eq!(names(&m), ["m.o"]);
    }

    /// Duplicate names are kept, as ld64 loads members by offset.
    #[test]
    fn duplicate_names_are_kept() {
        let a = archive(&[("same.o", b"1"), ("same.o", b"22"), ("#1/6", b"same.o333")]);
        let m = read_members_bytes(&a).unwrap();
        assert_eq!(names(&m), ["same.o"; 3]);
        let bytes: Vec<&[u8]> = m.members.iter().map(|x| data(&a, x)).collect();
        assert_eq!(bytes, [&b"1"[..], b"22", b"333"]);
    }

    #[test]
    fn names_are_escaped_to_one_line() {
        let a = archive(&[("#1/8", b"a\nb\x1b\xff\0\0\0")]);
        assert_eq!(
            names(&read_members_bytes(&a).unwrap()),
            ["a\\x0ab\\x1b\\xff"]
        );
    }

    #[test]
    fn padding_odd_sizes_and_tolerated_tails() {
        // An odd member is followed by one '\n'.
        let a = archive(&[("a.o", b"abc"), ("b.o", b"d")]);
        assert_eq!(a.len(), 8 + 60 + 4 + 60 + 2);
        let m = read_members_bytes(&a).unwrap();
        assert_eq!(data(&a, &m.members[1]), b"d");
        // The pad byte after the last member may be missing.
        let m = read_members_bytes(&a[..a.len() - 1]).unwrap();
        assert_eq!(names(&m), ["a.o", "b.o"]);
        // Up to 3 bytes of '\n' or NUL after the last member (ld64 rounds to 4).
        for tail in [&b"\n\n"[..], b"\0", b"\0\n\0"] {
            let mut t = a.clone();
            t.extend(tail);
            assert_eq!(read_members_bytes(&t).unwrap().members.len(), 2);
        }
        // Anything else, or 4 bytes and more, is a truncated header.
        for tail in [&b"x"[..], b"\n\n\n\n", b"a.o  "] {
            let mut t = a.clone();
            t.extend(tail);
            let e = parse_err(&t);
            assert_eq!(
                e,
                ParseError::new(
                    "truncated member header at the end of the archive",
                    a.len() as u64
                )
            );
        }
    }

    #[test]
    fn truncated_header_at_the_end() {
        let a = archive(&[("a.o", b"ab")]);
        let mut t = a.clone();
        t.extend(&hdr("b.o", "0")[..59]);
        assert_eq!(parse_err(&t).offset, a.len() as u64);
        assert_eq!(
            parse_err(&t).message,
            "truncated member header at the end of the archive"
        );
    }

    #[test]
    fn a_size_past_the_end() {
        let mut a = archive(&[("a.o", b"abcd")]);
        a[8 + 48..8 + 58].copy_from_slice(b"5         ");
        let e = parse_err(&a);
        assert_eq!(
            e,
            ParseError::new(
                "member runs past the end of the archive (ar_size too large)",
                8 + 48
            )
        );
        a[8 + 48..8 + 58].copy_from_slice(b"9999999999");
        assert_eq!(parse_err(&a).offset, 56);
        // The even-offset pad of an odd member does not hide an overrun.
        let a = archive(&[("a.o", b"abc")]);
        let mut t = a[..a.len() - 2].to_vec();
        t.push(b'c');
        assert_eq!(read_members_bytes(&t).unwrap().members[0].size, 3);
        assert!(read_members_bytes(&a[..a.len() - 2]).is_err());
    }

    #[test]
    fn a_size_that_is_not_decimal() {
        for size in [
            &b"          "[..],
            b" 4        ",
            b"4x        ",
            b"-4        ",
            b"0x4       ",
            b"4 4       ",
            b"\x004        ",
        ] {
            let mut a = archive(&[("a.o", b"abcd")]);
            a[56..66].copy_from_slice(&size[..10]);
            assert_eq!(
                parse_err(&a),
                ParseError::new("ar_size is not a decimal number", 56),
                "{size:?}"
            );
        }
        // Leading zeros are decimal.
        let mut a = archive(&[("a.o", b"abcd")]);
        a[56..66].copy_from_slice(b"0000000004");
        assert_eq!(read_members_bytes(&a).unwrap().members[0].size, 4);
    }

    #[test]
    fn a_bad_ar_fmag() {
        let mut a = archive(&[("a.o", b"abcd")]);
        a[8 + 59] = b'\r';
        assert_eq!(
            parse_err(&a),
            ParseError::new(
                "bad ar_fmag (member header does not end in \"`\\n\")",
                8 + 58
            )
        );
    }

    #[test]
    fn a_bsd_name_longer_than_its_member() {
        let a = archive(&[("#1/9", b"name.o\0\0")]);
        assert_eq!(
            parse_err(&a),
            ParseError::new("BSD long name (#1/N) is longer than its member", 11)
        );
        let a = archive(&[("#1/x", b"name.o\0\0")]);
        assert_eq!(
            parse_err(&a).message,
            "BSD long name length (#1/N) is not a decimal number"
        );
        let a = archive(&[("#1/", b"")]);
        assert_eq!(
            parse_err(&a).message,
            "BSD long name length (#1/N) is not a decimal number"
        );
        let long = vec![b'n'; 4097];
        let a = archive(&[("#1/4097", &long)]);
        assert_eq!(parse_err(&a).message, "member name longer than 4096 bytes");
        let a = archive(&[("#1/4", b"\0\0\0\0data")]);
        assert_eq!(parse_err(&a), ParseError::new("empty member name", 8));
    }

    #[test]
    fn a_gnu_name_offset_past_the_table_or_without_one() {
        let a = archive(&[("/0", b"x")]);
        assert_eq!(
            parse_err(&a),
            ParseError::new("GNU long name (/N) but no name table (//) before it", 9)
        );
        let a = archive(&[("//", b"n.o/\n"), ("/5", b"x")]);
        assert_eq!(
            parse_err(&a).message,
            "GNU long name offset (/N) is past the end of the name table"
        );
        let a = archive(&[("//", b"n.o/\n"), ("/99999999999999", b"x")]);
        assert_eq!(
            parse_err(&a).message,
            "GNU long name offset (/N) is past the end of the name table"
        );
        for table in [&b"n.o\n"[..], b"n.o/", b"\n", b"/\nx"] {
            let a = archive(&[("//", table), ("/0", b"x")]);
            let e = parse_err(&a);
            assert!(
                e.message.contains("does not end in") || e.message == "empty member name",
                "{table:?}: {e}"
            );
        }
        let a = archive(&[("//", b"/\n"), ("/0", b"x")]);
        assert_eq!(parse_err(&a).message, "empty member name");
        let mut table = vec![b'n'; 5000];
        table.extend(b"/\n");
        let a = archive(&[("//", &table), ("/0", b"x")]);
        assert_eq!(parse_err(&a).message, "member name longer than 4096 bytes");
        let a = archive(&[("//", b"a/\n"), ("//", b"b/\n")]);
        assert_eq!(parse_err(&a).message, "a second GNU name table (//)");
        let a = archive(&[("/<ECSYMBOLS>/", b"")]);
        assert!(
            parse_err(&a)
                .message
                .starts_with("member name starts with '/'")
        );
        let a = archive(&[("/1x", b"")]);
        assert!(
            parse_err(&a)
                .message
                .starts_with("member name starts with '/'")
        );
        let a = archive(&[("", b"")]);
        assert_eq!(parse_err(&a).message, "empty member name");
    }

    /// Many GNU names sharing the name table's bytes stay within the name budget.
    #[test]
    fn shared_gnu_names_are_budgeted() {
        let mut table = vec![b'n'; 4096];
        table.extend(b"/\n");
        let mut a = archive(&[("//", &table)]);
        // 300 headers of 60 bytes each name 4096 bytes: 1.2 MB of names from 22 KB.
        for _ in 0..300 {
            a.extend(hdr("/0", "0"));
        }
        assert_eq!(
            parse_err(&a).message,
            "member names total more than the archive's size plus 1 MiB"
        );
        a.truncate(a.len() - 60 * 100);
        assert_eq!(read_members_bytes(&a).unwrap().members.len(), 200);
    }

    /// Symbol tables claiming millions of entries are never read; a file of many zero-size
    /// members lists them all, reading no more bytes than the file has.
    #[test]
    fn claimed_counts_allocate_nothing() {
        let mut symdef = 0xffff_fff8u32.to_le_bytes().to_vec(); // ranlib bytes: 536 million entries
        symdef.resize(64, 0);
        let mut gnu_symtab = u32::MAX.to_be_bytes().to_vec(); // 4 billion symbols
        gnu_symtab.resize(64, 0);
        let mut a = archive(&[("__.SYMDEF", &symdef), ("/", &gnu_symtab)]);
        for _ in 0..20_000 {
            a.extend(hdr("z.o", "0"));
        }
        let mut read_total = 0u64;
        let m = read_members(a.len() as u64, |o, n, _| {
            read_total += n;
            Ok(a[o as usize..(o + n) as usize].to_vec())
        })
        .unwrap();
        assert_eq!((m.symbol_tables, m.members.len()), (2, 20_000));
        assert!(m.members.iter().all(|x| x.size == 0 && x.name == "z.o"));
        assert!(read_total <= a.len() as u64 - 128, "{read_total}");
        assert!(m.members.capacity() <= 2 * m.members.len());
    }

    #[test]
    fn reader_errors_and_short_reads() {
        let a = archive(&[("a.o", b"ab")]);
        let io = Error {
            kind: ErrorKind::Io,
            message: "x: boom".into(),
        };
        let e = read_members(a.len() as u64, |o, _, _| {
            if o == 8 {
                Err(io.clone())
            } else {
                Ok(AR_MAGIC.to_vec())
            }
        })
        .unwrap_err();
        assert_eq!(e, ArchiveError::Io(io));
        let e = read_members(a.len() as u64, |_, _, _| Ok(AR_MAGIC[..4].to_vec())).unwrap_err();
        assert_eq!(
            e,
            ArchiveError::Parse(ParseError::new(
                "the archive reader returned fewer bytes than asked",
                0
            ))
        );
    }
}
