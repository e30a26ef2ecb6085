//! The symbol table of `LC_SYMTAB`: `nlist_64` entries and the string table they name.
//!
//! Layout (`<mach-o/nlist.h>`, `<mach-o/loader.h>` `struct symtab_command`):
//!
//! ```text
//! struct symtab_command { cmd: u32 /* LC_SYMTAB = 0x2 */, cmdsize: u32,
//!                         symoff: u32, nsyms: u32, stroff: u32, strsize: u32 }
//! struct nlist_64 {                     // 16 bytes, nsyms of them at symoff
//!     n_strx:  u32,   // offset of the NUL-terminated name in the string table (0: no name)
//!     n_type:  u8,    // N_STAB bits (0xe0) set: a debugging entry (<mach-o/stab.h>);
//!                     // else N_PEXT 0x10 | N_TYPE 0x0e (N_UNDF 0, N_ABS 2, N_SECT 0xe,
//!                     // N_PBUD 0xc, N_INDR 0xa) | N_EXT 0x01
//!     n_sect:  u8,    // 1-based section ordinal, or NO_SECT 0
//!     n_desc:  u16,   // N_WEAK_REF 0x40, N_WEAK_DEF 0x80 (with N_WEAK_REF: auto-hide), …
//!     n_value: u64,   // address, size or other value
//! }
//! ```
//!
//! Tables are large (Node.js 22: 591,503 entries, 9.5 MB, and a 14 MB string table), so they
//! are read in windows: [`for_each_nlist`] hands out entries a window of 4,096 (64 KiB) at a time, and
//! [`for_each_string`] reads only the parts of the string table that hold the names asked for.
//! Nothing here keeps a `String` per entry.

use crate::error::ParseError;

/// Size of one `nlist_64`.
pub const NLIST_64_SIZE: u64 = 16;
/// `N_STAB`: any of these bits makes the entry a debugging (stab) entry.
pub const N_STAB: u8 = 0xe0;
/// `N_PEXT`: private external (was external, made hidden by the static linker).
pub const N_PEXT: u8 = 0x10;
/// `N_TYPE`: the type bits.
pub const N_TYPE: u8 = 0x0e;
/// `N_EXT`: external symbol.
pub const N_EXT: u8 = 0x01;
/// `N_UNDF`: undefined.
pub const N_UNDF: u8 = 0x0;
/// `N_SECT`: defined in section `n_sect`.
pub const N_SECT: u8 = 0xe;
/// `N_WEAK_REF` (`n_desc`): weak reference (on a defined symbol together with `N_WEAK_DEF`:
/// auto-hide, ld64's "weak def can be hidden").
pub const N_WEAK_REF: u16 = 0x0040;
/// `N_WEAK_DEF` (`n_desc`): a weak definition, coalesced by the static linker and by dyld.
pub const N_WEAK_DEF: u16 = 0x0080;

/// One `nlist_64`, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nlist {
    /// Index of the entry in the table.
    pub index: u32,
    /// `n_strx`.
    pub strx: u32,
    /// `n_type`.
    pub n_type: u8,
    /// `n_sect`.
    pub n_sect: u8,
    /// `n_desc`.
    pub n_desc: u16,
    /// `n_value`.
    pub n_value: u64,
}

impl Nlist {
    /// Decodes entry `index` from its 16 little-endian bytes.
    pub fn from_bytes(index: u32, b: &[u8; 16]) -> Nlist {
        Nlist {
            index,
            strx: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            n_type: b[4],
            n_sect: b[5],
            n_desc: u16::from_le_bytes([b[6], b[7]]),
            n_value: u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]),
        }
    }

    /// A stab (`n_type & N_STAB`), whose `n_type` is then the whole stab type (`N_SO`, …).
    pub fn is_stab(&self) -> bool {
        self.n_type & N_STAB != 0
    }
}

/// Entries read per window by [`for_each_nlist`] (64 KiB: larger buffers cost more in page
/// faults of fresh huge pages than the fewer `pread` calls save; measured on Node 22).
pub const NLIST_WINDOW: u32 = 4096;

/// A reader of one table: `read(offset, len, buf)` puts the `len` bytes at `offset` from the
/// start of the table into `buf` (replacing what it held, keeping its allocation).
pub trait ReadTable<E>: FnMut(u64, u64, &mut Vec<u8>) -> Result<(), E> {}
impl<E, F: FnMut(u64, u64, &mut Vec<u8>) -> Result<(), E>> ReadTable<E> for F {}

/// Calls `visit` on each of `nsyms` entries in order, reading them through `read` once per
/// window of [`NLIST_WINDOW`] entries into one buffer, so memory stays at one window whatever
/// `nsyms` claims.
pub fn for_each_nlist<E>(
    nsyms: u32,
    mut read: impl ReadTable<E>,
    mut visit: impl FnMut(Nlist) -> Result<(), E>,
) -> Result<(), E> {
    let mut first = 0u32;
    let mut bytes = Vec::new();
    while first < nsyms {
        let count = (nsyms - first).min(NLIST_WINDOW);
        read(
            u64::from(first) * NLIST_64_SIZE,
            u64::from(count) * NLIST_64_SIZE,
            &mut bytes,
        )?;
        for (i, chunk) in bytes.chunks_exact(16).enumerate() {
            let raw: &[u8; 16] = chunk.try_into().unwrap_or(&[0; 16]);
            visit(Nlist::from_bytes(first + i as u32, raw))?;
        }
        first += count;
    }
    Ok(())
}

/// Bytes of string table a window of [`for_each_string`] spans at most (64 KiB; more when a
/// name runs past it).
pub const STRING_WINDOW: u64 = 1 << 16;
/// Bytes read past a window's last offset, for its name (a longer name grows the window).
pub const NAME_ROOM: u64 = 4096;

/// Calls `visit(i, name)` for each offset `offsets[i]`, with the NUL-terminated name found
/// there in a string table of `strsize` bytes; `offsets` must be sorted ascending (repeats
/// allowed). Only the windows holding the offsets are read, through `read`, into one buffer.
///
/// Errors: an offset at or past `strsize` ("string offset past the string table"), a name
/// with no NUL before the end of the table ("unterminated string"); the error's offset is the
/// string's offset in the table.
pub fn for_each_string<E: From<ParseError>>(
    strsize: u64,
    offsets: &[u32],
    mut read: impl ReadTable<E>,
    mut visit: impl FnMut(usize, &[u8]) -> Result<(), E>,
) -> Result<(), E> {
    debug_assert!(
        offsets.windows(2).all(|w| w[0] <= w[1]),
        "offsets not sorted"
    );
    let mut i = 0usize;
    let mut window = Window {
        start: 0,
        len: 0,
        buf: Vec::new(),
    };
    while i < offsets.len() {
        let start = u64::from(offsets[i]);
        if start >= strsize {
            return Err(ParseError::new("string offset past the string table", start).into());
        }
        // Up to the last wanted offset within a window, plus room for its name: sparse
        // offsets (a few thousand names in a 14 MB table) read only around themselves.
        let rest = &offsets[i..];
        let last = rest[rest.partition_point(|&o| u64::from(o) < start + STRING_WINDOW) - 1];
        let len = (u64::from(last) - start + NAME_ROOM).min(strsize - start);
        read(start, len, &mut window.buf)?;
        (window.start, window.len) = (start, len);
        window.drain(&mut i, offsets, strsize, &mut read, &mut visit)?;
    }
    Ok(())
}

/// A window of the string table, grown while a name runs past it.
struct Window {
    start: u64,
    len: u64,
    buf: Vec<u8>,
}

impl Window {
    /// Visits the offsets inside the window, until the next offset is past it. A name that
    /// runs past the end is read again from its start: as far as the window reached, or twice
    /// as far when the name already started the window (it alone is longer). So the window
    /// moves on at its size over dense names and doubles only for a long one; its end grows on
    /// every read, up to `strsize`, where a name without NUL is an error.
    fn drain<E: From<ParseError>>(
        &mut self,
        i: &mut usize,
        offsets: &[u32],
        strsize: u64,
        read: &mut impl ReadTable<E>,
        visit: &mut impl FnMut(usize, &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        while *i < offsets.len() {
            let off = u64::from(offsets[*i]);
            if off >= self.start + self.len {
                return Ok(());
            }
            let at = (off - self.start) as usize;
            let Some(rest) = self.buf.get(at..) else {
                return Err(ParseError::new("string table read short", off).into());
            };
            match memchr::memchr(0, rest) {
                Some(n) => {
                    visit(*i, &rest[..n])?;
                    *i += 1;
                }
                None if self.start + self.len >= strsize => {
                    return Err(ParseError::new("unterminated string", off).into());
                }
                None => {
                    let more = if off == self.start {
                        self.len.saturating_mul(2)
                    } else {
                        self.len
                    };
                    let more = more.min(strsize - off);
                    read(off, more, &mut self.buf)?;
                    self.start = off;
                    self.len = more;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `table` through [`for_each_string`] at `offsets`: the names found, and the
    /// largest read asked for.
    fn strings_at(table: &[u8], offsets: &[u32]) -> (Vec<Vec<u8>>, u64) {
        let mut largest = 0;
        let mut names = Vec::new();
        let read = |off: u64, len: u64, buf: &mut Vec<u8>| -> Result<(), ParseError> {
            largest = largest.max(len);
            buf.clear();
            buf.extend_from_slice(&table[off as usize..(off + len) as usize]);
            Ok(())
        };
        for_each_string(table.len() as u64, offsets, read, |_, name| {
            names.push(name.to_vec());
            Ok(())
        })
        .unwrap();
        (names, largest)
    }

    /// Before: every name that ran past a window doubled the next read, so dense names (a
    /// Node.js debug map's N_GSYM run) grew the buffer to 556 KB, each size in fresh pages.
    #[test]
    fn regression_dense_names_keep_the_window_at_its_size() {
        let mut table = b" \0".to_vec();
        let mut offsets = Vec::new();
        for i in 0..20_000 {
            offsets.push(table.len() as u32);
            table.extend_from_slice(format!("__ZN2v88internal{i:0>80}E").as_bytes());
            table.push(0);
        }
        let (names, largest) = strings_at(&table, &offsets);
        assert_eq!(names.len(), offsets.len());
        assert!(names.iter().all(|n| n.len() == 97), "a name cut short");
        assert!(
            largest <= STRING_WINDOW + NAME_ROOM,
            "window grew to {largest} bytes"
        );
    }

    #[test]
    fn a_name_longer_than_the_window_doubles_it_until_it_fits() {
        let mut table = b" \0".to_vec();
        let long = vec![b'a'; 300_000];
        table.extend_from_slice(&long);
        table.push(0);
        let (names, largest) = strings_at(&table, &[2]);
        assert_eq!(names, vec![long]);
        assert!(largest > 300_000 && largest <= 4 * (STRING_WINDOW + NAME_ROOM) + 300_000);
    }
}
