//! The link map `ld64 -map FILE` and `ld64.lld -map FILE` write, read as a stream.
//!
//! Both linkers write the same layout: ld64 in `OutputFile::writeMapFile`
//! (`src/ld/OutputFile.cpp`, apple-oss-distributions/ld64), LLD in `macho::writeMapFile`
//! (`lld/MachO/MapFile.cpp`, llvm/llvm-project). Fields are separated by tabs (two spaces
//! below; the parser takes any run of tabs and spaces between the numbers), numbers are
//! `0x%08llX` (at least 8 upper-case hex digits, more when the value needs them) and file
//! numbers `[%3u]` (right-aligned in 3 columns, wider past 999):
//!
//! ```text
//! # Path: /path/out
//! # Arch: x86_64
//! # Object files:
//! [  0] linker synthesized
//! [  1] /tmp/main.o
//! [  2] /path/libfoo.a(bar.o)
//! # Sections:
//! # Address  Size      Segment  Section
//! 0x100003F50  0x00000010  __TEXT  __text
//! # Symbols:
//! # Address  Size      File  Name
//! 0x100003F50  0x00000010  [  1] _main
//! 0x100004000  0x00000008  [  2] __ZN3fooIiE3getEv
//!
//! # Dead Stripped Symbols:
//! #          Size      File  Name
//! <<dead>>   0x00000008  [  2] _unused
//! ```
//!
//! What differs between the two, and what the parser makes of it:
//!
//! * the object list: `[  0] linker synthesized` first, then one line per file in file-number
//!   order. ld64 lists every file an atom came from (objects, archive members as
//!   `archive(member)`, dylibs its stubs point to, LTO inputs); LLD lists object and bitcode
//!   files that define a symbol or C string, and dylibs that are referenced. Numbers must run
//!   0, 1, 2, … here; [`LinkMapHeader::objects`] is indexed by them;
//! * the symbol names. Besides symbols (as in the symbol table, with the leading `_`), both
//!   write synthesized entries: `literal string: TEXT` for each C string (with `\n`, `\t`, `"`
//!   escaped, so the name may contain spaces; LLD escapes every non-printable byte as octal,
//!   ld64 writes other bytes raw and cuts the line at 4095 bytes), `non-lazy-pointer-to-local:
//!   NAME` (and ld64's `non-lazy-pointer-to: NAME`, `non-lazy-pointer`), `FDE for: NAME` and
//!   `CIE` (ld64), `compact unwind info`, `helper helper` (file `[  0]`). A stub or lazy pointer
//!   is written under the name of its target symbol, in `__stubs`/`__la_symbol_ptr`: a weak
//!   definition called through a stub appears twice, at its definition and at its stub (LLD
//!   attributes that stub to the defining object; an undefined target is `[  0]`). All of them
//!   are passed on as they are; the name is the whole rest of the line after `] `;
//! * the dead-stripped list, written only with `-dead_strip`: ld64 precedes it with an empty line
//!   and writes `<<dead>> \t` (a space before the tab), LLD `<<dead>>\t`;
//! * `# Path:` and `# Arch:` are the only header lines either writes today (ld64 has a `# UUID:`
//!   line commented out); other `#` lines are skipped as comments, and an unknown `# Title:`
//!   line (a `#` line ending in `:`) starts a section whose lines are skipped.
//!
//! The parser borrows every name from the input (no allocation per line, no regex) and hands it
//! to a callback; the `# Sections:` table is skipped unread. The object paths are copied into one
//! string ([`ObjectPaths`]), not one allocation each. Line ends may be `\n` or `\r\n`;
//! empty lines are skipped anywhere.
//!
//! Names that are not UTF-8 (ld64's raw C strings, or a string it cut in the middle of a
//! character) are passed lossily: each invalid sequence becomes U+FFFD. An error there would
//! reject real ld64 maps of programs with Latin-1 string literals, and symbol names proper are
//! ASCII (mangled) or UTF-8 (Swift, Objective-C); the conversion allocates only for such lines.
//! Object paths are read the same way.
//!
//! Errors name a 1-based line: no `# Object files:` section (line 0: the whole text), a line
//! before it that is not a `#` comment, a second object list, an object line that is not
//! `[  N] path` or whose `N` is out of sequence, a symbol section before the object list, a
//! symbol or dead-stripped line that is not `ADDRESS SIZE [  N] NAME` (`<<dead>>` in place of
//! the address), an address or size that is not hex or does not fit in 64 bits, a file number
//! not in the object list.

use memchr::memchr;
use std::borrow::Cow;
use std::fmt;

/// What a link map says besides its symbols.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkMapHeader {
    /// `# Path:` — the output file, as given to the linker.
    pub path: Option<String>,
    /// `# Arch:` — e.g. `x86_64`, `arm64`.
    pub arch: Option<String>,
    /// The object list: index `N` is the file of `[  N]`; `objects.get(0)` is `linker
    /// synthesized`. Archive members are written `archive(member)`: see [`split_object`].
    pub objects: ObjectPaths,
    /// Lines under `# Symbols:`, every one passed to the callback.
    pub symbols: usize,
    /// Lines under `# Dead Stripped Symbols:` (counted, not passed).
    pub dead_stripped: usize,
}

/// The paths of a link map's object list, in file-number order, kept in one string reserved
/// once: a map of a million objects costs its paths' bytes and 8 bytes an object, not an
/// allocation each (about 70 bytes more an object).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectPaths {
    /// Every path, one after the other.
    text: String,
    /// Where each path ends in `text`; path `i` starts where path `i - 1` ends.
    ends: Vec<usize>,
}

impl ObjectPaths {
    /// Appends a path.
    pub fn push(&mut self, path: &str) {
        self.text.push_str(path);
        self.ends.push(self.text.len());
    }

    /// How many paths.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No path.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Path `i` (the file of `[  i]`), `None` past the end.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.text[start..end])
    }

    /// The paths in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    /// Room for the object list of `text`, sized by a first look at it ([`object_list_size`]):
    /// growing by doubling would copy the paths several times and, at the last copy, hold
    /// them twice (the allocator keeps freed pages for a while).
    fn for_text(text: &[u8]) -> Self {
        let (lines, bytes) = object_list_size(text);
        ObjectPaths {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(lines),
        }
    }
}

/// The lines and bytes of the first `# Object files:` section of `text` (up to the next line
/// that starts with `#`): an upper bound of what its paths take, for reserving it once. Zero
/// when there is no such section; only a size hint, the parser checks the lines.
fn object_list_size(text: &[u8]) -> (usize, usize) {
    const TITLE: &[u8] = b"# Object files:";
    let Some(at) = memchr::memmem::find_iter(text, TITLE).find(|&i| i == 0 || text[i - 1] == b'\n')
    else {
        return (0, 0);
    };
    let body = &text[at..];
    let mut rest = match memchr(b'\n', body) {
        Some(i) => &body[i + 1..],
        None => return (0, 0),
    };
    let start = rest.len();
    let mut lines = 0usize;
    while !rest.is_empty() && rest[0] != b'#' {
        lines += 1;
        rest = match memchr(b'\n', rest) {
            Some(i) => &rest[i + 1..],
            None => &rest[rest.len()..],
        };
    }
    (lines, start - rest.len())
}

/// A link map that cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkMapError {
    /// 1-based line number; 0 when the error is about the whole text (no object list).
    pub line: usize,
    /// What is wrong.
    pub message: &'static str,
}

impl fmt::Display for LinkMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "link map: {}", self.message)
        } else {
            write!(f, "link map line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for LinkMapError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Before `# Object files:`: only `#` lines.
    Preamble,
    Objects,
    /// `# Sections:`, or a section this parser does not know: lines skipped.
    Skipped,
    Symbols,
    Dead,
}

/// Reads a link map, calling `on_symbol(name, file_number, address)` for each line under
/// `# Symbols:`, in file order. `name` is the name as written (`__ZN…`, `literal string: …`),
/// `file_number` indexes [`LinkMapHeader::objects`].
///
/// See the [module documentation](self) for the format and the errors.
pub fn parse_link_map(
    text: &[u8],
    mut on_symbol: impl FnMut(&str, u32, u64),
) -> Result<LinkMapHeader, LinkMapError> {
    let mut header = LinkMapHeader {
        objects: ObjectPaths::for_text(text),
        ..LinkMapHeader::default()
    };
    let mut section = Section::Preamble;
    let mut have_objects = false;
    let mut rest = text;
    let mut line_no = 0usize;
    while !rest.is_empty() {
        line_no += 1;
        let (mut line, next) = match memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        let err = |message| LinkMapError {
            line: line_no,
            message,
        };
        if line.is_empty() {
            continue;
        }
        if line[0] == b'#' {
            let title = trim_end(line);
            match title {
                b"# Object files:" => {
                    if have_objects {
                        return Err(err("a second `# Object files:` section"));
                    }
                    have_objects = true;
                    section = Section::Objects;
                }
                b"# Sections:" => section = Section::Skipped,
                b"# Symbols:" | b"# Dead Stripped Symbols:" => {
                    if !have_objects {
                        return Err(err("a symbol section before `# Object files:`"));
                    }
                    section = if title == b"# Symbols:" {
                        Section::Symbols
                    } else {
                        Section::Dead
                    };
                }
                _ => {
                    if let Some(v) = line.strip_prefix(b"# Path: ") {
                        header.path.get_or_insert_with(|| lossy(v).into_owned());
                    } else if let Some(v) = line.strip_prefix(b"# Arch: ") {
                        header.arch.get_or_insert_with(|| lossy(v).into_owned());
                    } else if title.ends_with(b":") && section != Section::Preamble {
                        // A section this parser does not know: skip its lines.
                        section = Section::Skipped;
                    }
                }
            }
            continue;
        }
        match section {
            Section::Preamble => {
                return Err(err(
                    "not a link map: a line before `# Object files:` that is not a `#` comment",
                ));
            }
            Section::Skipped => {}
            Section::Objects => {
                let (n, path) = file_number(line)
                    .ok_or_else(|| err("malformed object file line (expected `[  N] path`)"))?;
                if n as usize != header.objects.len() {
                    return Err(err("object file number out of sequence"));
                }
                header.objects.push(&lossy(path));
            }
            Section::Symbols => {
                let (address, after) = hex_field(line).map_err(err)?;
                let (_size, after) = hex_field(after).map_err(err)?;
                let (n, name) = file_number(after)
                    .ok_or_else(|| err("malformed symbol line (expected `[  N] name`)"))?;
                if n as usize >= header.objects.len() {
                    return Err(err("file number not in the object list"));
                }
                header.symbols += 1;
                on_symbol(&lossy(name), n, address);
            }
            Section::Dead => {
                let after = line
                    .strip_prefix(b"<<dead>>")
                    .filter(|a| matches!(a.first(), Some(b'\t' | b' ')))
                    .ok_or_else(|| err("malformed dead-stripped line (expected `<<dead>>`)"))?;
                let (_size, after) = hex_field(skip_blanks(after)).map_err(err)?;
                let (n, _name) = file_number(after)
                    .ok_or_else(|| err("malformed dead-stripped line (expected `[  N] name`)"))?;
                if n as usize >= header.objects.len() {
                    return Err(err("file number not in the object list"));
                }
                header.dead_stripped += 1;
            }
        }
    }
    if !have_objects {
        return Err(LinkMapError {
            line: 0,
            message: "no `# Object files:` section",
        });
    }
    Ok(header)
}

/// `bytes` as text; U+FFFD for invalid sequences. `from_utf8` first: its ASCII fast path is
/// several times faster than `from_utf8_lossy`'s.
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn trim_end(mut s: &[u8]) -> &[u8] {
    while let [head @ .., b' ' | b'\t'] = s {
        s = head;
    }
    s
}

fn skip_blanks(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', tail @ ..] = s {
        s = tail;
    }
    s
}

/// `0x` and 1 to 16 hex digits, then at least one tab or space; returns the value and what
/// follows the blanks.
fn hex_field(s: &[u8]) -> Result<(u64, &[u8]), &'static str> {
    let end = s
        .iter()
        .position(|&b| b == b'\t' || b == b' ')
        .ok_or("malformed symbol line (expected `ADDRESS SIZE [  N] name`)")?;
    let digits = s[..end]
        .strip_prefix(b"0x")
        .or_else(|| s[..end].strip_prefix(b"0X"))
        .filter(|d| !d.is_empty())
        .ok_or("address or size is not a hex number")?;
    let significant = &digits[digits
        .iter()
        .position(|&b| b != b'0')
        .unwrap_or(digits.len())..];
    if significant.len() > 16 {
        return if digits.iter().all(u8::is_ascii_hexdigit) {
            Err("address or size does not fit in 64 bits")
        } else {
            Err("address or size is not a hex number")
        };
    }
    let mut v = 0u64;
    for &b in significant {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return Err("address or size is not a hex number"),
        };
        v = (v << 4) | u64::from(d);
    }
    Ok((v, skip_blanks(&s[end..])))
}

/// `[`, blanks, decimal `N` (fits in `u32`), `]`, then one space and the rest of the line (the
/// name or path, possibly empty).
fn file_number(s: &[u8]) -> Option<(u32, &[u8])> {
    let s = skip_blanks(s.strip_prefix(b"[")?);
    let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 10 {
        return None;
    }
    let n = s[..digits].iter().try_fold(0u32, |n, &b| {
        n.checked_mul(10)?.checked_add(u32::from(b - b'0'))
    })?;
    let s = s[digits..].strip_prefix(b"]")?;
    match s {
        [] => Some((n, s)),
        [b' ', name @ ..] => Some((n, name)),
        _ => None,
    }
}

/// File-name endings of static archives whose members a map writes as `archive(member)`.
const ARCHIVE_SUFFIXES: [&str; 2] = [".a", ".rlib"];

/// Splits an object path of the object list into the archive (if any) and the member or loose
/// object path: `/p/libfoo.a(bar.o)` is `(Some("/p/libfoo.a"), "bar.o")`, `/tmp/main.o` is
/// `(None, "/tmp/main.o")`.
///
/// The rule: the path must end in `)`; the archive part is the text before the last `(` whose
/// prefix names an archive — its file name ends in `.a` or `.rlib`, or it is the binary of a
/// static framework (`X.framework/X`, `X.framework/Versions/V/X`) — and the member (not empty)
/// is what lies between that `(` and the final `)`. So parentheses in a member name
/// (`libb.a(c(1).o)`) or in a directory (`dir (1)/libb.a(b.o)`) are kept where they belong;
/// a path with no such `(` (`/tmp/x (copy).o`) is a loose object.
pub fn split_object(path: &str) -> (Option<&str>, &str) {
    let Some(inner) = path.strip_suffix(')') else {
        return (None, path);
    };
    for (i, _) in inner.match_indices('(').rev() {
        let (archive, member) = (&inner[..i], &inner[i + 1..]);
        if !member.is_empty() && is_archive_path(archive) {
            return (Some(archive), member);
        }
    }
    (None, path)
}

fn is_archive_path(path: &str) -> bool {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if name.is_empty() {
        return false;
    }
    if ARCHIVE_SUFFIXES
        .iter()
        .any(|s| name.len() > s.len() && name.ends_with(s))
    {
        return true;
    }
    // X.framework/X or X.framework/Versions/V/X
    let framework = format!("{name}.framework");
    let mut parts = dir.rsplit('/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(d), _, _) if d == framework => true,
        (Some(_), Some("Versions"), Some(d)) if d == framework => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Sym = (String, u32, u64);

    fn parse(text: &str) -> Result<(LinkMapHeader, Vec<Sym>), LinkMapError> {
        let mut syms = Vec::new();
        let h = parse_link_map(text.as_bytes(), |n, f, a| syms.push((n.to_owned(), f, a)))?;
        Ok((h, syms))
    }

    fn err(text: &str) -> LinkMapError {
        parse(text).unwrap_err()
    }

    const EXAMPLE: &str = "# Path: /path/out\n# Arch: x86_64\n# Object files:\n\
        [  0] linker synthesized\n[  1] /tmp/main.o\n[  2] /path/libfoo.a(bar.o)\n\
        # Sections:\n# Address\tSize    \tSegment\tSection\n\
        0x100003F50\t0x00000010\t__TEXT\t__text\n\
        # Symbols:\n# Address\tSize    \tFile  Name\n\
        0x100003F50\t0x00000010\t[  1] _main\n\
        0x100004000\t0x00000008\t[  2] __ZN3fooIiE3getEv\n\
        0x100004008\t0x0000000C\t[  2] literal string: a b\\tc\n\
        \n# Dead Stripped Symbols:\n#        \tSize    \tFile  Name\n\
        <<dead>> \t0x00000008\t[  2] _unused\n\
        <<dead>>\t0x00000004\t[  1] literal string: x y\n";

    #[test]
    fn example_of_the_module_docs() {
        let (h, syms) = parse(EXAMPLE).unwrap();
        assert_eq!(h.path.as_deref(), Some("/path/out"));
        assert_eq!(h.arch.as_deref(), Some("x86_64"));
        assert_eq!(
            h.objects.iter().collect::<Vec<_>>(),
            ["linker synthesized", "/tmp/main.o", "/path/libfoo.a(bar.o)"]
        );
        assert_eq!(h.objects.get(3), None);
        assert_eq!((h.symbols, h.dead_stripped), (3, 2));
        assert_eq!(
            syms,
            [
                ("_main".to_owned(), 1, 0x1_0000_3F50),
                ("__ZN3fooIiE3getEv".to_owned(), 2, 0x1_0000_4000),
                ("literal string: a b\\tc".to_owned(), 2, 0x1_0000_4008),
            ]
        );
    }

    #[test]
    fn the_object_list_is_reserved_once() {
        let lines = "[  0] linker synthesized\n[  1] /tmp/main.o\n[  2] /path/libfoo.a(bar.o)\n";
        assert_eq!(object_list_size(EXAMPLE.as_bytes()), (3, lines.len()));
        let (h, _) = parse(EXAMPLE).unwrap();
        // What was reserved held every path: no growth, no copy.
        assert_eq!(h.objects.ends.capacity(), 3);
        assert_eq!(h.objects.text.capacity(), lines.len());
        assert!(h.objects.text.len() <= lines.len());
        // A title not at a line start, or with nothing after it, reserves nothing.
        assert_eq!(object_list_size(b"x # Object files:\n[  0] a\n"), (0, 0));
        assert_eq!(object_list_size(b"# Object files:"), (0, 0));
        assert_eq!(object_list_size(b"# Object files:\n[  0] a"), (1, 7));
        assert_eq!(
            object_list_size(b"\n# Object files:\r\n[  0] a\r\n#"),
            (1, 9)
        );
        assert_eq!(ObjectPaths::default().get(0), None);
    }

    #[test]
    fn crlf_is_the_same_as_lf() {
        let crlf = EXAMPLE.replace('\n', "\r\n");
        assert_eq!(parse(&crlf).unwrap(), parse(EXAMPLE).unwrap());
        // No final line end.
        let cut = EXAMPLE.trim_end_matches('\n');
        assert_eq!(parse(cut).unwrap(), parse(EXAMPLE).unwrap());
    }

    #[test]
    fn names_keep_spaces_tabs_and_brackets() {
        let text = "# Object files:\n[  0] linker synthesized\n[  1] dir (1)/a b.o\n# Symbols:\n\
            0x10\t0x1\t[  1]  leading space\n0x11\t0x1\t[  1] tab\there ] [  2] x\n\
            0x12\t0x1\t[  0] \n0x13\t0x1\t[  0]\n";
        let (h, syms) = parse(text).unwrap();
        assert_eq!(h.objects.get(1), Some("dir (1)/a b.o"));
        let names: Vec<&str> = syms.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(names, [" leading space", "tab\there ] [  2] x", "", ""]);
    }

    #[test]
    fn wide_file_numbers_and_addresses() {
        let mut text = String::from("# Object files:\n");
        for i in 0..1200 {
            text.push_str(&format!("[{i:3}] /o/{i}.o\n"));
        }
        text.push_str("# Symbols:\n0xFFFFFFFFFFFFFFFF\t0x0000000000000000001\t[1199] _last\n");
        text.push_str("0x00000000000000000000abc\t0x1\t[  7] _lower\n");
        let (h, syms) = parse(&text).unwrap();
        assert_eq!(h.objects.len(), 1200);
        assert_eq!(syms[0], ("_last".to_owned(), 1199, u64::MAX));
        assert_eq!(syms[1], ("_lower".to_owned(), 7, 0xabc));
    }

    #[test]
    fn non_utf8_names_are_passed_lossily() {
        let mut text = b"# Object files:\n[  0] linker synthesized\n# Symbols:\n".to_vec();
        text.extend_from_slice(b"0x10\t0x4\t[  0] literal string: caf\xe9\n");
        let mut names = Vec::new();
        parse_link_map(&text, |n, _, _| names.push(n.to_owned())).unwrap();
        assert_eq!(names, ["literal string: caf\u{fffd}"]);
    }

    #[test]
    fn unknown_header_lines_and_sections_are_skipped() {
        let text = "# Path: a\n# UUID: 12 34\n# Object files:\n[  0] linker synthesized\n\
            # Stubs:\nanything at all\n# Sections:\n garbage\n# Symbols:\n# a comment\n\
            0x1\t0x1\t[  0] _a\n";
        let (h, syms) = parse(text).unwrap();
        assert_eq!(h.path.as_deref(), Some("a"));
        assert_eq!(syms.len(), 1);
        // Without `# Path:`/`# Arch:` and without any symbol section.
        let (h, syms) = parse("# Object files:\n").unwrap();
        assert_eq!(
            (h.path, h.arch, h.objects.len(), syms.len()),
            (None, None, 0, 0)
        );
    }

    #[test]
    fn hostile_input_is_an_error_with_its_line() {
        let head = "# Object files:\n[  0] linker synthesized\n[  1] a.o\n# Symbols:\n";
        let cases: &[(&str, usize, &str)] = &[
            ("", 0, "no `# Object files:`"),
            ("\n\r\n", 0, "no `# Object files:`"),
            ("# Path: x\n# Symbols:\n", 2, "before `# Object files:`"),
            ("# Dead Stripped Symbols:\n", 1, "before `# Object files:`"),
            ("\u{7f}ELF\0\0\0", 1, "not a link map"),
            ("# Object files:\n[ 1] a.o\n", 2, "out of sequence"),
            ("# Object files:\n[  0] x\n[  0] y\n", 3, "out of sequence"),
            (
                "# Object files:\n[99999999999] a.o\n",
                2,
                "malformed object",
            ),
            ("# Object files:\n[4294967296] a.o\n", 2, "malformed object"),
            ("# Object files:\n[ x] a.o\n", 2, "malformed object"),
            ("# Object files:\n[  0]a.o\n", 2, "malformed object"),
            ("# Object files:\n  [  0] a.o\n", 2, "malformed object"),
            ("# Object files:\n# Object files:\n", 2, "second"),
        ];
        for (text, line, what) in cases {
            let e = err(text);
            assert_eq!(e.line, *line, "{text:?}: {e}");
            assert!(e.message.contains(what), "{text:?}: {e}");
        }
        let symbol_cases: &[(&str, &str)] = &[
            ("0x10\t0x1\t[  2] _past", "not in the object list"),
            ("0x10\t0x1\t[4294967295] _past", "not in the object list"),
            (
                "0x10000000000000000\t0x1\t[  1] _big",
                "does not fit in 64 bits",
            ),
            (
                "0x10\t0x1FFFFFFFFFFFFFFFF\t[  1] _big",
                "does not fit in 64 bits",
            ),
            ("0x\t0x1\t[  1] _a", "not a hex number"),
            ("10\t0x1\t[  1] _a", "not a hex number"),
            ("0x1g\t0x1\t[  1] _a", "not a hex number"),
            ("0x-1\t0x1\t[  1] _a", "not a hex number"),
            ("0x10\t0x1\t_a", "malformed symbol line"),
            ("0x10\t0x1\t[  1]_a", "malformed symbol line"),
            ("0x10\t0x1", "malformed symbol line"),
            ("0x10", "malformed symbol line"),
            ("<<dead>>\t0x1\t[  1] _a", "not a hex number"),
        ];
        for (line, what) in symbol_cases {
            let e = err(&format!("{head}0x1\t0x1\t[  1] _ok\n{line}\n"));
            assert_eq!(e.line, 6, "{line:?}: {e}");
            assert!(e.message.contains(what), "{line:?}: {e}");
        }
        let dead = format!("{head}# Dead Stripped Symbols:\n");
        for (line, what) in [
            ("<<dead>>\t0x1\t[  9] _a", "not in the object list"),
            ("<<dead>>0x1\t[  1] _a", "expected `<<dead>>`"),
            ("0x10\t0x1\t[  1] _a", "expected `<<dead>>`"),
            ("<<dead>>\tzz\t[  1] _a", "not a hex number"),
            ("<<dead>>\t0x1\t_a", "malformed dead-stripped"),
        ] {
            let e = err(&format!("{dead}{line}\n"));
            assert_eq!(e.line, 6, "{line:?}: {e}");
            assert!(e.message.contains(what), "{line:?}: {e}");
        }
    }

    #[test]
    fn error_display() {
        assert_eq!(
            err("").to_string(),
            "link map: no `# Object files:` section"
        );
        assert_eq!(
            err("# Object files:\n[ 7] a\n").to_string(),
            "link map line 2: object file number out of sequence"
        );
    }

    #[test]
    fn split_object_rule() {
        let cases: &[(&str, Option<&str>, &str)] = &[
            ("/p/libfoo.a(bar.o)", Some("/p/libfoo.a"), "bar.o"),
            ("libfoo.a(bar.o)", Some("libfoo.a"), "bar.o"),
            ("/tmp/main.o", None, "/tmp/main.o"),
            ("dir (1)/libb.a(c(1).o)", Some("dir (1)/libb.a"), "c(1).o"),
            ("/p/lib.a(x).a(y.o)", Some("/p/lib.a(x).a"), "y.o"),
            (
                "/p/libstd-123.rlib(std-123.std.0.rcgu.o)",
                Some("/p/libstd-123.rlib"),
                "std-123.std.0.rcgu.o",
            ),
            (
                "/F/Foo.framework/Foo(a.o)",
                Some("/F/Foo.framework/Foo"),
                "a.o",
            ),
            (
                "/F/Foo.framework/Versions/A/Foo(a.o)",
                Some("/F/Foo.framework/Versions/A/Foo"),
                "a.o",
            ),
            (
                "/F/Bar.framework/Foo(a.o)",
                None,
                "/F/Bar.framework/Foo(a.o)",
            ),
            ("/tmp/x (copy).o", None, "/tmp/x (copy).o"),
            ("/tmp/x(copy)", None, "/tmp/x(copy)"),
            ("/p/libfoo.a()", None, "/p/libfoo.a()"),
            ("/p/.a(x.o)", None, "/p/.a(x.o)"),
            ("(x.o)", None, "(x.o)"),
            ("linker synthesized", None, "linker synthesized"),
            ("", None, ""),
            (")", None, ")"),
        ];
        for (path, archive, member) in cases {
            assert_eq!(split_object(path), (*archive, *member), "{path:?}");
        }
    }

    /// `testdata/origin/lld-x86_64.map`, written by `ld64.lld-22 -map` (LLD 22.1.8): see
    /// `testdata/origin/build-map.sh` for the sources and the commands (two objects, one of
    /// them in an archive in a directory `dir (1)`, a member `c(1).o`, `-dead_strip`).
    #[test]
    fn real_lld_map() {
        let text = include_bytes!("../../testdata/origin/lld-x86_64.map");
        let mut syms = Vec::new();
        let h = parse_link_map(text, |n, f, a| syms.push((n.to_owned(), f, a))).unwrap();
        assert_eq!(h.path.as_deref(), Some("libx.dylib"));
        assert_eq!(h.arch.as_deref(), Some("x86_64"));
        assert_eq!(
            h.objects.iter().collect::<Vec<_>>(),
            [
                "linker synthesized",
                "a.o",
                "dir (1)/libb.a(b.o)",
                "dir (1)/libb.a(c(1).o)"
            ]
        );
        assert_eq!(
            split_object(h.objects.get(3).unwrap()),
            (Some("dir (1)/libb.a"), "c(1).o")
        );
        assert_eq!((h.symbols, h.dead_stripped), (20, 2));
        let find = |name: &str| {
            syms.iter()
                .filter(|s| s.0 == name)
                .map(|s| (s.1, s.2))
                .collect::<Vec<_>>()
        };
        // Weak definitions: the template functions and their function-local statics.
        assert_eq!(find("__ZN3fooIiE3getEv"), [(1, 0x530)]);
        assert_eq!(find("__ZN3fooIlE3getEv"), [(2, 0x590)]);
        assert_eq!(find("__ZN3fooIcE3getEv"), [(3, 0x5D0)]);
        assert_eq!(find("__ZZN3fooIlE3getEvE1v"), [(2, 0x3010)]);
        // The undefined `ext(int)`: its stub and its lazy pointer, both linker-synthesized.
        assert_eq!(find("__Z3exti"), [(0, 0x5F0), (0, 0x3000)]);
        assert_eq!(find("literal string: hello a b\\tc"), [(1, 0x612)]);
        assert_eq!(
            find("literal string: literal with \\\"quotes\\\" and \\\\n"),
            [(2, 0x61E)]
        );
        assert_eq!(find("non-lazy-pointer-to-local: _ext_data"), [(0, 0x2000)]);
        assert_eq!(find("compact unwind info"), [(0, 0x63C)]);
        assert!(
            find("__Z8unused_av").is_empty(),
            "dead-stripped: counted, not passed"
        );
    }

    /// 500k symbol lines (48 MB: V8-like names of 20 to 150 bytes) parse whole: every symbol
    /// and object counted. Their speed is measured by `scripts/bench-malformed.sh`, not here.
    #[test]
    fn big_map_parses_whole() {
        let mut text = String::from("# Path: /out\n# Arch: arm64\n# Object files:\n");
        for i in 0..3000 {
            text.push_str(&format!("[{i:3}] /build/obj/lib{}.a(file{i}.o)\n", i % 40));
        }
        text.push_str("# Symbols:\n# Address\tSize    \tFile  Name\n");
        let names = [
            "__ZN2v88internal26StaticCallInterfaceDescriptorINS0_",
            "EE10InitializeEPNS0_28CallInterfaceDescriptorDataE",
            "__ZZN3ada24url_search_params_iterINSt3__117basic_string_viewIcNS1_11char_traitsIcEEEELNS_",
            "__ZN4node",
        ];
        for i in 0..500_000u64 {
            let (head, tail) = match i % 4 {
                0 => (names[0], names[1]),
                1 => (names[2], "E5EMPTYE"),
                2 => (names[3], "4mainEv"),
                _ => ("literal string: ", "some text with spaces"),
            };
            text.push_str(&format!(
                "0x{:08X}\t0x{:08X}\t[{:3}] {head}{i}{tail}\n",
                0x1_0000_0000 + i * 16,
                16,
                i % 3000
            ));
        }
        let mut total = 0u64;
        let h = parse_link_map(text.as_bytes(), |n, f, a| {
            total = total.wrapping_add(a ^ u64::from(f) ^ n.len() as u64)
        })
        .unwrap();
        assert_eq!((h.symbols, h.objects.len()), (500_000, 3000));
        assert_ne!(total, 0);
    }
}
