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
//!
//! It also neutralises the two forms of a GitHub Actions workflow command, so that no text from
//! an input can raise an annotation, mask a value or stop the commands of a CI log that prints
//! it (actions/runner `ActionCommand.TryParseV2` takes `::` at the start of a line after leading
//! white space; the legacy `ActionCommand.TryParse` takes `##[` anywhere in a line):
//!
//! * every `##[` becomes `#\#[`;
//! * a text whose first non-blank characters are `::` has its first `:` written `\x3a`.
//!
//! [`fold`] shortens a printed C++ name without cutting an identifier.

pub mod fold;

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

/// Whether `bytes` hold `a` or `b`, checked 16 bytes at a time with no early exit inside a
/// block, as [`printable_ascii`] is: for short texts (symbol names) this costs less than a
/// `memchr` call.
#[inline]
pub fn holds_either(bytes: &[u8], a: u8, b: u8) -> bool {
    let hit = |x: u8| u8::from(x == a) | u8::from(x == b);
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        if block.iter().fold(0u8, |any, &x| any | hit(x)) != 0 {
            return true;
        }
    }
    blocks.remainder().iter().fold(0u8, |any, &x| any | hit(x)) != 0
}

/// Printable ASCII that [`escape`] keeps as it is: no workflow command either. One pass finds
/// printable ASCII without `#` (every mangled name but a hostile one).
fn plain_ascii(bytes: &[u8]) -> bool {
    let plain = |b: u8| u8::from((0x20..0x7f).contains(&b) & (b != b'#'));
    let mut blocks = bytes.chunks_exact(16);
    let mut no_hash = true;
    for block in &mut blocks {
        if block.iter().fold(1u8, |all, &b| all & plain(b)) == 0 {
            no_hash = false;
            break;
        }
    }
    if no_hash && blocks.remainder().iter().all(|&b| plain(b) == 1) {
        return !leading_colons(bytes);
    }
    printable_ascii(bytes) && !has_workflow_command(bytes)
}

/// The legacy workflow-command opener that GitHub's runner finds anywhere in a line.
const LEGACY_COMMAND: &str = "##[";
/// How [`escape`] writes [`LEGACY_COMMAND`].
const LEGACY_COMMAND_SHOWN: &str = "#\\#[";

/// Whether `bytes` would be read as a GitHub Actions workflow command when printed: `##[`
/// anywhere, or `::` after leading blanks (see the module docs). `#` is rare in symbol names,
/// so the usual answer costs one pass of [`holds_either`].
pub fn has_workflow_command(bytes: &[u8]) -> bool {
    leading_colons(bytes)
        || (holds_either(bytes, b'#', b'#')
            && memchr::memchr_iter(b'#', bytes)
                .any(|i| bytes.get(i..i + 3) == Some(LEGACY_COMMAND.as_bytes())))
}

/// Whether `bytes` start with `::` after white space (Unicode's, as .NET's `TrimStart` takes
/// it: a no-break or em space counts too), the workflow command GitHub's runner reads at the
/// start of a line. Only a text that starts with a blank, a non-ASCII byte or `:` is looked at
/// further. For a text cut from an escaped one (a C name without its Mach-O `_`), which may
/// start so although the whole did not.
#[inline]
pub fn leading_colons(bytes: &[u8]) -> bool {
    match bytes.first() {
        Some(b':') => bytes.starts_with(b"::"),
        Some(&b) if b.is_ascii_whitespace() || b == 0x0b || b >= 0x80 => {
            String::from_utf8_lossy(bytes)
                .trim_start()
                .starts_with("::")
        }
        _ => false,
    }
}

/// `s` with every character of [`needs_escape`] escaped and workflow commands neutralised (see
/// the module docs); borrowed when there is nothing to change.
pub fn escape(s: &str) -> Cow<'_, str> {
    // Fast path: printable ASCII (every mangled name) needs nothing.
    if plain_ascii(s.as_bytes())
        || (!s.chars().any(needs_escape) && !has_workflow_command(s.as_bytes()))
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    push_escaped(&mut out, s);
    Cow::Owned(neutralise_commands(out))
}

/// `s` (already escaped) with its workflow commands neutralised: every `##[` written
/// `#\#[`, and a leading `::` (after blanks) written `\x3a:`. Neither replacement can form a
/// new command, so the result has none ([`has_workflow_command`] is false).
fn neutralise_commands(s: String) -> String {
    let mut s = if s.contains(LEGACY_COMMAND) {
        s.replace(LEGACY_COMMAND, LEGACY_COMMAND_SHOWN)
    } else {
        s
    };
    let blanks = s.len() - s.trim_start().len();
    if s[blanks..].starts_with("::") {
        s.replace_range(blanks..blanks + 1, "\\x3a");
    }
    s
}

/// Bytes from the input (a symbol, segment or section name, a log line) as one line of text:
/// invalid UTF-8 bytes become `\xNN`, the rest as [`escape`].
pub fn escape_bytes(bytes: &[u8]) -> String {
    escape_bytes_cow(bytes).into_owned()
}

/// [`escape_bytes`], borrowed when nothing needs escaping: a lookup by name (an interning
/// table) then allocates nothing for the names already in it.
pub fn escape_bytes_cow(bytes: &[u8]) -> Cow<'_, str> {
    if plain_ascii(bytes) {
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
            Cow::Owned(neutralise_commands(out))
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

/// `s` cut to at most `width` characters by replacing its middle with `…`, so that long names
/// sharing a prefix still show where they differ.
pub fn clip_middle(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width || width < 3 {
        return s.to_string();
    }
    let head = (width - 1) * 3 / 5;
    let tail = width - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// The most characters of a name a page keeps, but for `SymbolRow::mangled` (analysis/page.rs) (whole): group
/// keys, examples, printed symbols and templates, tree labels. Longer ones are cut in the
/// middle with `…` ([`clip_middle`]), so a page of long names holds each whole once.
pub const NAME_LIMIT: usize = 512;

/// `s` cut to [`NAME_LIMIT`] characters in the middle; borrowed when it fits. Clipping a
/// clipped name gives it back unchanged.
pub fn clip_name(s: &str) -> Cow<'_, str> {
    // A string of at most NAME_LIMIT bytes has at most NAME_LIMIT characters.
    if s.len() <= NAME_LIMIT {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(clip_middle(s, NAME_LIMIT))
    }
}

/// `n` with the noun that agrees with it: `count(1, "object", "objects")` is `1 object`;
/// 0, 2 and every other count take the plural. Every count printed with a noun goes through
/// it, so no message says "1 objects".
pub fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let word = if n == N::from(1) { one } else { many };
    format!("{n} {word}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(count(1usize, "object", "objects"), "1 object");
        assert_eq!(count(0usize, "object", "objects"), "0 objects");
        assert_eq!(count(2u64, "process", "processes"), "2 processes");
        assert_eq!(count(1u32, "library", "libraries"), "1 library");
    }
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
    fn workflow_commands_are_neutralised_wherever_they_would_be_read() {
        assert_eq!(escape("c##[error]x"), "c#\\#[error]x");
        assert_eq!(escape("##[add-mask]s ##[x"), "#\\#[add-mask]s #\\#[x");
        assert_eq!(escape("###[a"), "##\\#[a");
        assert_eq!(escape("::error::x"), "\\x3a:error::x");
        assert_eq!(escape("  ::warning::x"), "  \\x3a:warning::x");
        assert_eq!(
            escape_bytes(b"\xff##[stop-commands]t"),
            "\\xff#\\#[stop-commands]t"
        );
        assert_eq!(escape_bytes(b"::\n"), "\\x3a:\\x0a");
        // Left alone: `::` inside a name, one `#`, `#[`.
        for s in ["v8::internal::X", "a #1}", "#[x", "a::", "x ::y"] {
            assert!(matches!(escape(s), Cow::Borrowed(_)), "{s}");
        }
        assert_eq!(escape("\u{a0}\u{2003}::x"), "\u{a0}\u{2003}\\x3a:x");
        for s in [
            "c##[error]x",
            "::a",
            " \t::b",
            "###[##[",
            "\u{202e}##[",
            "\u{3000}::x",
        ] {
            let e = escape(s);
            assert!(!has_workflow_command(e.as_bytes()), "{s} -> {e}");
            assert_eq!(escape(&e), e, "idempotent: {s}");
        }
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
