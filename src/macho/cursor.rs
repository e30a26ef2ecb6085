//! A bounds-checked reader over one LINKEDIT structure: LEB128 numbers, C strings, fixed-size
//! little-endian integers.
//!
//! LEB128 is the variable-length encoding of the export trie and the bind opcode streams
//! (`<mach-o/loader.h>`, dyld `read_uleb128`/`read_sleb128`): 7 value bits per byte, low group
//! first, high bit set on every byte but the last; SLEB128 sign-extends from bit 6 of the last
//! byte. dyld's `read_uleb128` errors on an 11th byte ("uleb128 too big") but silently drops the
//! bits of a 10th byte past bit 63; here both are errors.

use crate::error::ParseError;

/// A position in a byte slice; every read checks bounds and reports the offset it failed at.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos` in `data` (a `pos` past the end makes every read fail).
    pub fn new(data: &'a [u8], pos: usize) -> Self {
        Cursor { data, pos }
    }

    /// Current byte offset from the start of `data`.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// True when no byte is left.
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn err(&self, message: &'static str) -> ParseError {
        ParseError::new(message, self.pos as u64)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, ParseError> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| self.err("unexpected end of data"))?;
        self.pos += 1;
        Ok(b)
    }

    /// An unsigned LEB128 number; errors on truncation and on values over 64 bits.
    ///
    /// Inlined with a one-byte fast path: most numbers of an export trie (terminal sizes,
    /// flags, child counts) and of a bind stream are below 128, and the trie of a Node.js build
    /// decodes ~400k of them.
    #[inline]
    pub fn uleb(&mut self) -> Result<u64, ParseError> {
        match self.data.get(self.pos) {
            Some(&byte) if byte < 0x80 => {
                self.pos += 1;
                Ok(u64::from(byte))
            }
            _ => self.uleb_long(),
        }
    }

    /// [`Cursor::uleb`] of more than one byte (or none).
    fn uleb_long(&mut self) -> Result<u64, ParseError> {
        let start = self.pos;
        let mut value: u64 = 0;
        let mut shift = 0u32;
        loop {
            let byte = *self
                .data
                .get(self.pos)
                .ok_or_else(|| ParseError::new("truncated ULEB128", start as u64))?;
            self.pos += 1;
            let bits = u64::from(byte & 0x7f);
            if shift >= 64 || (shift == 63 && bits > 1) {
                return Err(ParseError::new("ULEB128 overflows 64 bits", start as u64));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift = shift.saturating_add(7);
        }
    }

    /// A signed LEB128 number; errors on truncation and on values over 64 bits.
    pub fn sleb(&mut self) -> Result<i64, ParseError> {
        let start = self.pos;
        let mut value: i64 = 0;
        let mut shift = 0u32;
        loop {
            let byte = *self
                .data
                .get(self.pos)
                .ok_or_else(|| ParseError::new("truncated SLEB128", start as u64))?;
            self.pos += 1;
            let bits = i64::from(byte & 0x7f);
            if shift >= 64 {
                return Err(ParseError::new("SLEB128 overflows 64 bits", start as u64));
            }
            value |= bits << shift;
            shift = shift.saturating_add(7);
            if byte & 0x80 == 0 {
                if shift < 64 && byte & 0x40 != 0 {
                    value |= -1i64 << shift;
                }
                return Ok(value);
            }
        }
    }

    /// A NUL-terminated string; returns the bytes without the NUL.
    pub fn cstr(&mut self) -> Result<&'a [u8], ParseError> {
        let rest = self
            .data
            .get(self.pos..)
            .ok_or_else(|| self.err("string starts past the end of data"))?;
        let len = memchr::memchr(0, rest).ok_or_else(|| self.err("unterminated string"))?;
        self.pos += len + 1;
        Ok(&rest[..len])
    }
}

/// A name from the input (symbol, segment, section, log path) as one line of text: see
/// [`crate::text`], the one escaping function.
pub fn symbol_name(bytes: &[u8]) -> String {
    crate::text::escape_bytes(bytes)
}

/// Little-endian `u16` at `off`, if in bounds.
pub fn le_u16(data: &[u8], off: usize) -> Option<u16> {
    let b = data.get(off..off.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

/// Little-endian `u32` at `off`, if in bounds.
pub fn le_u32(data: &[u8], off: usize) -> Option<u32> {
    let b = data.get(off..off.checked_add(4)?)?;
    Some(u32::from_le_bytes(b.try_into().ok()?))
}

/// Little-endian `u64` at `off`, if in bounds.
pub fn le_u64(data: &[u8], off: usize) -> Option<u64> {
    let b = data.get(off..off.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

/// A NUL-terminated string starting at `off`, if it starts and ends inside `data`.
pub fn cstr_at(data: &[u8], off: usize) -> Option<&[u8]> {
    let rest = data.get(off..)?;
    let len = memchr::memchr(0, rest)?;
    Some(&rest[..len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uleb_values() {
        let mut c = Cursor::new(&[0xe5, 0x8e, 0x26, 0x7f, 0x80, 0x01], 0);
        assert_eq!(c.uleb().unwrap(), 624_485);
        assert_eq!(c.uleb().unwrap(), 127);
        assert_eq!(c.uleb().unwrap(), 128);
        assert!(c.at_end());
    }

    #[test]
    fn uleb_max_and_overflow() {
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(Cursor::new(&max, 0).uleb().unwrap(), u64::MAX);
        let over = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(
            Cursor::new(&over, 0).uleb().unwrap_err().message,
            "ULEB128 overflows 64 bits"
        );
        // An 11th byte is an error even if it adds nothing (dyld: "uleb128 too big").
        let padded = [
            0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
        ];
        assert!(Cursor::new(&padded, 0).uleb().is_err());
    }

    #[test]
    fn uleb_truncated() {
        let e = Cursor::new(&[0x80, 0x80], 0).uleb().unwrap_err();
        assert_eq!(e, ParseError::new("truncated ULEB128", 0));
    }

    #[test]
    fn sleb_values() {
        let mut c = Cursor::new(&[0x7f, 0x80, 0x7f, 0x3f, 0xc0, 0xbb, 0x78], 0);
        assert_eq!(c.sleb().unwrap(), -1);
        assert_eq!(c.sleb().unwrap(), -128);
        assert_eq!(c.sleb().unwrap(), 63);
        assert_eq!(c.sleb().unwrap(), -123_456);
        let min = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f];
        assert_eq!(Cursor::new(&min, 0).sleb().unwrap(), i64::MIN);
    }

    #[test]
    fn symbol_names_stay_distinct() {
        assert_eq!(symbol_name(b"__Znwm"), "__Znwm");
        assert_eq!(symbol_name(b"_\xff"), "_\\xff");
        assert_ne!(symbol_name(b"_\xff"), symbol_name(b"_\xfe"));
    }

    /// Fuzz finding (macho): a segment name with a newline split a "one line" error in two.
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(symbol_name(b"__DA\nTA"), "__DA\\x0aTA");
        assert_eq!(symbol_name(b"\x1b[31m\r\x7f"), "\\x1b[31m\\x0d\\x7f");
        assert_eq!(symbol_name("a\u{85}b".as_bytes()), "a\\x85b");
        assert_eq!(symbol_name("v8::\u{e9}".as_bytes()), "v8::\u{e9}");
        assert!(!symbol_name(b"\n\xff\r").contains(['\n', '\r']));
        // Fuzz-audit finding: a right-to-left override made a name display reversed.
        assert_eq!(
            symbol_name("a\u{202e}b\u{2066}".as_bytes()),
            "a\\u{202e}b\\u{2066}"
        );
    }

    #[test]
    fn cstr_bounds() {
        let mut c = Cursor::new(b"ab\0c", 0);
        assert_eq!(c.cstr().unwrap(), b"ab");
        assert_eq!(c.cstr().unwrap_err().message, "unterminated string");
        assert_eq!(cstr_at(b"x\0", 5), None);
        assert_eq!(le_u32(&[1, 0, 0], 0), None);
        assert_eq!(le_u64(&[1, 0, 0, 0, 0, 0, 0, 0], 0), Some(1));
    }
}
