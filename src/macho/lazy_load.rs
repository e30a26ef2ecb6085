//! `LC_LAZY_LOAD_DYLIB_INFO` (0x3A, dyld-1376.6+, macOS 26.4+): a dylib the image loads on
//! first use, not at launch. The command is a `linkedit_data_command` (`cmd`, `cmdsize` 16,
//! `dataoff`, `datasize`: dyld-1378 mach_o/UnsafeHeader.h:57-58 and
//! `UnsafeHeader::forEachLazyLoadDylib`, UnsafeHeader.cpp:1424-1431) whose data lies in
//! `__LINKEDIT`:
//!
//! ```text
//! struct LazyLoadDylibLinkEdit {          // mach_o/LazyLoadDylib.h:63-75, little-endian
//!     uint32_t loadPathOffset;            // path of dylib to load (in the blob)
//!     uint32_t flagImageOffset;           // image offset to flags global
//!     uint16_t flags;                     // bit 0: weak linked
//!     uint16_t pointerFormat;             // e.g. DYLD_CHAINED_PTR_ARM64E_USERLAND
//!     uint32_t chainStartImageOffset;     // image offset to fixup chain start
//!     uint32_t symbolsCount;              // how many symbol names to bind
//!     uint32_t symbolStringArrayOffset;   // offset (in the blob) of symbolsCount uint32
//! };                                      // offsets (in the blob) of the symbol names
//! ```
//!
//! Read here as `LazyLoadDylib::valid` checks it (mach_o/LazyLoadDylib.cpp): the header fits,
//! the load path starts inside the blob and ends with a NUL before its last byte, the offset
//! array fits, and each symbol's offset is inside the blob. The image offsets and the chain are
//! what dyld follows on first use; weakscan does not.

use super::cursor::{le_u32, symbol_name};
use crate::model::LazyLoadDylib;

/// `LC_LAZY_LOAD_DYLIB_INFO`.
pub const LC_LAZY_LOAD_DYLIB_INFO: u32 = 0x3A;
/// `sizeof(LazyLoadDylibLinkEdit)`.
pub const SIZEOF_LAZY_LOAD_DYLIB_LINKEDIT: usize = 24;

/// The lazy-load dylib the blob `data` (the command's `dataoff`/`datasize` bytes) describes.
/// Errors, one line each: what `LazyLoadDylib::valid` refuses.
pub fn parse_lazy_load_dylib(data: &[u8]) -> Result<LazyLoadDylib, String> {
    if data.len() < SIZEOF_LAZY_LOAD_DYLIB_LINKEDIT {
        return Err(format!(
            "info size ({}) too small (the header is {SIZEOF_LAZY_LOAD_DYLIB_LINKEDIT} bytes)",
            data.len()
        ));
    }
    let u32_at = |at: usize| le_u32(data, at).unwrap_or_default();
    let path_at = u32_at(0) as usize;
    let flags = u16::from_le_bytes([data[8], data[9]]);
    let count = u32_at(16);
    let array_at = u32_at(20) as usize;
    if path_at > data.len() {
        return Err(format!(
            "load path offset ({path_at}) out of range (max {})",
            data.len()
        ));
    }
    // dyld: the path's NUL must come before the blob's last byte (`while (p < &_bytes.back())`).
    let tail = data.get(path_at..data.len() - 1).unwrap_or_default();
    let path = &tail[..tail
        .iter()
        .position(|&b| b == 0)
        .ok_or("load path is not NUL-terminated")?];
    let array_end = (count as u64)
        .checked_mul(4)
        .and_then(|n| n.checked_add(array_at as u64))
        .filter(|&end| end <= data.len() as u64)
        .ok_or_else(|| {
            format!(
                "symbols count ({count}) too large to fit in size ({})",
                data.len()
            )
        })? as usize;
    for (i, at) in (array_at..array_end).step_by(4).enumerate() {
        let offset = u32_at(at);
        if offset as usize > data.len() {
            return Err(format!(
                "symbol {i}'s offset ({offset}) too large to fit in size ({})",
                data.len()
            ));
        }
    }
    Ok(LazyLoadDylib {
        load_path: symbol_name(path),
        weak_link: flags & 1 != 0,
        symbols: count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blob `LazyLoadDylibWriter` (mach_o_writer/LazyLoadDylibWriter.cpp) writes for
    /// `path` and `symbols`.
    fn blob(path: &str, symbols: &[&str], weak: bool) -> Vec<u8> {
        let strings = 24 + 4 * symbols.len();
        let mut b = Vec::new();
        for v in [strings as u32, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&u16::from(weak).to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        for v in [0u32, symbols.len() as u32, 24] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let mut at = strings + path.len() + 1;
        for s in symbols {
            b.extend_from_slice(&(at as u32).to_le_bytes());
            at += s.len() + 1;
        }
        for s in std::iter::once(&path).chain(symbols) {
            b.extend_from_slice(s.as_bytes());
            b.push(0);
        }
        b.resize(b.len().div_ceil(8) * 8, 0);
        b
    }

    #[test]
    fn a_blob_as_dyld_writes_it() {
        let d = parse_lazy_load_dylib(&blob("@rpath/liblazy.dylib", &["_f", "_g"], true)).unwrap();
        assert_eq!(
            d,
            LazyLoadDylib {
                load_path: "@rpath/liblazy.dylib".into(),
                weak_link: true,
                symbols: 2
            }
        );
    }

    #[test]
    fn what_dyld_calls_invalid_is_refused() {
        let good = blob("@rpath/l.dylib", &["_f"], false);
        let err = |b: &[u8]| parse_lazy_load_dylib(b).unwrap_err();
        assert!(err(&good[..20]).contains("too small"));
        let mut b = good.clone();
        b[0..4].copy_from_slice(&1000u32.to_le_bytes());
        assert!(
            err(&b).contains("load path offset (1000) out of range"),
            "{}",
            err(&b)
        );
        // No NUL before the last byte.
        let mut b = good.clone();
        let path_at = 28;
        b.truncate(path_at + 3);
        b.iter_mut().skip(path_at).for_each(|x| *x = b'a');
        assert!(err(&b).contains("not NUL-terminated"), "{}", err(&b));
        let mut b = good.clone();
        b[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(err(&b).contains("too large to fit"), "{}", err(&b));
        let mut b = good.clone();
        b[24..28].copy_from_slice(&9999u32.to_le_bytes());
        assert!(err(&b).contains("symbol 0's offset (9999)"), "{}", err(&b));
    }
}
