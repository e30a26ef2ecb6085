//! The byte scanning the message parsers share: separators found with `memchr`, quoted
//! symbols, decimal and hex numbers without overflow, and a name's text.

use crate::macho::cursor::symbol_name;

/// `'SYM` + `quoted_sep` + rest, or (older dylds) `SYM` + `quoted_sep` without its leading
/// `'` + rest. `quoted_sep` starts with `'` (`b"' in "`).
pub(super) fn quoted_then<'a>(s: &'a [u8], quoted_sep: &[u8]) -> Option<(&'a [u8], &'a [u8])> {
    debug_assert_eq!(quoted_sep.first(), Some(&b'\''));
    let (symbol, rest) = match s.strip_prefix(b"'") {
        Some(q) => split_once(q, quoted_sep)?,
        None => split_once(s, &quoted_sep[1..])?,
    };
    Some((non_empty(symbol)?, non_empty(rest)?))
}

pub(super) fn non_empty(s: &[u8]) -> Option<&[u8]> {
    (!s.is_empty()).then_some(s)
}

/// The first `needle` (not empty) in `hay`. The needles are short separators whose first byte
/// is rare in a line (`'`, ` `, `/`, `>`), so the candidates are found with `memchr`: faster
/// on lines of ~200 bytes than setting up a substring searcher at each call.
pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memchr_iter(needle[0], hay).find(|&at| hay[at..].starts_with(needle))
}

/// The last `needle` (not empty) in `hay`, as [`find`].
pub(super) fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memrchr_iter(needle[0], hay).find(|&at| hay[at..].starts_with(needle))
}

pub(super) fn split_once<'a>(s: &'a [u8], sep: &[u8]) -> Option<(&'a [u8], &'a [u8])> {
    let at = find(s, sep)?;
    Some((&s[..at], &s[at + sep.len()..]))
}

/// Leading decimal digits (at least one, no overflow) and the rest.
pub(super) fn decimal_u64(s: &[u8]) -> Option<(u64, &[u8])> {
    // One pass: this reads the PID of every line of the log.
    let mut v: u64 = 0;
    let mut n = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            break;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        n += 1;
    }
    (n > 0).then(|| (v, &s[n..]))
}

pub(super) fn decimal_u32(s: &[u8]) -> Option<(u32, &[u8])> {
    let (v, rest) = decimal_u64(s)?;
    Some((u32::try_from(v).ok()?, rest))
}

/// Leading hex digits (at least one, at most 16 significant) and the rest.
pub(super) fn hex_u64(s: &[u8]) -> Option<(u64, &[u8])> {
    // One pass: this reads every address of the process read.
    let mut v: u64 = 0;
    let mut n = 0;
    for &b in s {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => break,
        };
        v = v.checked_mul(16)?.checked_add(u64::from(d))?;
        n += 1;
    }
    (n > 0).then(|| (v, &s[n..]))
}

/// A symbol or path from the log as a `String` (invalid UTF-8 as `\xNN`).
pub fn text(bytes: &[u8]) -> String {
    symbol_name(bytes)
}

#[cfg(test)]
mod tests {
    use super::super::parse_line;
    use super::*;

    #[test]
    fn numbers_do_not_overflow() {
        assert!(parse_line(b"dyld[1]: <a/bind#99999999999999999999999> -> 0x1 (a/_x)").is_none());
        assert!(parse_line(b"dyld[1]: fixup: *0x11112222333344445 = 0x1").is_none());
    }

    proptest::proptest! {
        /// `find` and `rfind` (memchr on the needle's first byte) give the first and last
        /// match of a plain window search.
        #[test]
        fn find_is_a_substring_search(
            hay in proptest::collection::vec(proptest::sample::select(b"' in".to_vec()), 0..40),
            needle in proptest::collection::vec(proptest::sample::select(b"' in".to_vec()), 1..4),
        ) {
            let naive = || hay.windows(needle.len());
            proptest::prop_assert_eq!(find(&hay, &needle), naive().position(|w| w == needle));
            proptest::prop_assert_eq!(rfind(&hay, &needle), naive().rposition(|w| w == needle));
        }
    }
}
