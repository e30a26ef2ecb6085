//! The one escaping function for everything that reaches an error line or a terminal: paths,
//! symbol and segment names, values read from policy, baseline and log files.
//!
//! Valid UTF-8 is kept as is; every byte that is not, every control character (C0, DEL, C1:
//! newline, carriage return, escape, …) and every character that reorders or breaks text (the
//! bidi embeddings, overrides, isolates and marks U+061C, U+200E/F, U+202A–E, U+2066–9, and
//! U+2028/U+2029) becomes `\xNN` (code points up to 0xFF and invalid bytes) or `\u{NNNN}`. So a
//! hostile name can neither break a one-line error, a table row or an annotation, nor drive a
//! terminal or display in a misleading order; escaping is idempotent (its output has nothing left
//! to escape), and distinct byte strings stay distinct (unless one spells an escape itself).

use std::borrow::Cow;
use std::fmt::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Characters [`escape`] replaces.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Every byte is printable ASCII (0x20–0x7e): such bytes are UTF-8 that [`escape`] keeps.
///
/// Checked 16 bytes at a time with no early exit inside a block, which the compiler turns into
/// vector compares: every symbol name read passes here (a diff of two Node.js builds, ~3 MB
/// of names), and `Iterator::all`'s byte-by-byte exit cost 1 ns a byte.
pub fn printable_ascii(bytes: &[u8]) -> bool {
    let printable = |b: &u8| (0x20..0x7f).contains(b);
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        if !block.iter().fold(true, |all, b| all & printable(b)) {
            return false;
        }
    }
    blocks.remainder().iter().all(printable)
}

/// `s` with every character of [`needs_escape`] escaped; borrowed when there is none.
pub fn escape(s: &str) -> Cow<'_, str> {
    // Fast path: printable ASCII (every mangled name) needs nothing.
    if printable_ascii(s.as_bytes()) {
        return Cow::Borrowed(s);
    }
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    push_escaped(&mut out, s);
    Cow::Owned(out)
}

/// Bytes from the input (a symbol, segment or section name, a log line) as one line of text:
/// invalid UTF-8 bytes become `\xNN`, the rest as [`escape`].
pub fn escape_bytes(bytes: &[u8]) -> String {
    escape_bytes_cow(bytes).into_owned()
}

/// [`escape_bytes`], borrowed when nothing needs escaping: a lookup by name (an interning
/// table) then allocates nothing for the names already in it.
pub fn escape_bytes_cow(bytes: &[u8]) -> Cow<'_, str> {
    if printable_ascii(bytes) {
        // SAFETY: bytes below 0x80 are each a UTF-8 character.
        return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => escape(s),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + 8);
            for chunk in bytes.utf8_chunks() {
                push_escaped(&mut out, chunk.valid());
                for b in chunk.invalid() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            Cow::Owned(out)
        }
    }
}

/// A path as one line of text: its bytes through [`escape_bytes`].
pub fn escape_path(path: &Path) -> String {
    escape_bytes(path.as_os_str().as_bytes())
}

fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        if !needs_escape(c) {
            out.push(c);
        } else if u32::from(c) <= 0xff {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn controls_bidi_and_bad_bytes() {
        assert_eq!(escape("plain ok"), "plain ok");
        assert_eq!(escape("a\nb\r\t\x1b[31m"), "a\\x0ab\\x0d\\x09\\x1b[31m");
        assert_eq!(
            escape("x\u{202e}y\u{2066}z\u{85}"),
            "x\\u{202e}y\\u{2066}z\\x85"
        );
        assert_eq!(escape_bytes(b"a\xffb\n"), "a\\xffb\\x0a");
        let p = Path::new(OsStr::from_bytes(b"/tmp/a\nb\xfe"));
        assert_eq!(escape_path(p), "/tmp/a\\x0ab\\xfe");
    }

    #[test]
    fn printable_ascii_agrees_with_the_byte_test_at_every_position_and_length() {
        let reference = |b: &[u8]| b.iter().all(|&x| (0x20..0x7f).contains(&x));
        for len in 0..50 {
            let mut bytes = vec![b'a'; len];
            assert!(printable_ascii(&bytes));
            for at in 0..len {
                for bad in [0x00, 0x1f, 0x7f, 0x80, 0xff] {
                    bytes[at] = bad;
                    assert_eq!(
                        printable_ascii(&bytes),
                        reference(&bytes),
                        "{len} {at} {bad}"
                    );
                    assert!(!printable_ascii(&bytes));
                    let escaped = escape_bytes(&bytes);
                    assert!(escaped.contains(&format!("\\x{bad:02x}")), "{escaped}");
                }
                for edge in [0x20, 0x7e] {
                    bytes[at] = edge;
                    assert!(printable_ascii(&bytes));
                    assert!(matches!(escape_bytes_cow(&bytes), Cow::Borrowed(_)));
                }
                bytes[at] = b'a';
            }
        }
    }
}
