//! Symbol lists of the link: the files `-exported_symbols_list FILE` and
//! `-unexported_symbols_list FILE` give ld64 and ld64.lld, one symbol a line, by its
//! linker-level name (with its leading `_`).
//!
//! Read ([`SymbolList::parse`], `weakscan hide --keep FILE`) as ld64-956.6 reads them
//! (src/ld/Options.cpp `Options::loadExportFile`): a line's leading white space is skipped; a
//! line whose first other character is `#` is a comment; a symbol runs to the next `\n` or `\r`
//! and loses its trailing white space; the last line needs no line end. A symbol containing
//! `*`, `?` or `[` is a wildcard pattern (`SetWithWildcards::hasWildCards`), matched as
//! `SetWithWildcards::wildCardMatch` and `inCharRange` match ([`SymbolList::matches`]); any
//! other symbol is a literal. ld64's man page (doc/man/man1/ld-classic.1, `-exported_symbols_list`)
//! says the same: "Leading and trailing white space are not part of the symbol name. Lines
//! starting with # are ignored … The * matches zero or more characters. The ? matches one
//! character. \[abc\] matches one character which must be an 'a', 'b', or 'c'. \[a-z\] matches
//! any single lower case letter".
//!
//! ld64.lld reads the same files a little differently (lld/MachO/Driver.cpp
//! `parseSymbolPatternsFile`): it cuts each line at its first `#` anywhere, trims it, and takes
//! a line with any of `*?[]` as a glob (`SymbolPatterns::insert`, llvm `GlobPattern`, where
//! `\` escapes). So a name a list can carry to both linkers alike ([`unlistable`]) has no
//! white space, no `#`, none of `*?[]` and no `\` (weakscan also shows a control or invalid
//! byte of a name as a `\` escape, [`crate::text`], so such a name's bytes are not its text).
//! Mangled C++ names and C names have none of them.
//!
//! Matching is bounded in work, not time: a wildcard pattern is held against a name by its
//! literal head and tail, then by a table of (pattern item, name position) cells, each filled
//! once; every pair of a pattern and a name counts one step, every byte of head and tail one,
//! every cell one, and a list's matches together may take at most [`MATCH_CELLS`] steps; past
//! that the list is refused.

use crate::error::{Error, ErrorKind, Result};
use std::collections::HashSet;
use std::path::Path;

/// Most steps the wildcard matches of one list may take (2²⁸: pattern and name pairs, bytes of
/// their literal heads and tails, table cells): past it [`SymbolList::matches`] fails.
pub const MATCH_CELLS: u64 = 1 << 28;

/// Why a name cannot be a line of a symbol list ([`unlistable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unlistable {
    /// The empty name: a line without a symbol.
    Empty,
    /// White space: ld64 and ld64.lld trim it at the ends, and a line end ends the symbol.
    WhiteSpace,
    /// `#`: a comment to ld64.lld wherever it is, to ld64 at the start of a line.
    Comment,
    /// `*`, `?`, `[` or `]`: a wildcard pattern to the linkers, not the name.
    Wildcard,
    /// `\`: an escape to ld64.lld's glob, and how weakscan shows a control or invalid byte.
    Backslash,
}

impl Unlistable {
    /// What the reason is, in words.
    pub fn as_str(self) -> &'static str {
        match self {
            Unlistable::Empty => "empty name",
            Unlistable::WhiteSpace => "white space in the name",
            Unlistable::Comment => "# in the name",
            Unlistable::Wildcard => "a wildcard character (* ? [ ]) in the name",
            Unlistable::Backslash => "a \\ (or a byte shown escaped) in the name",
        }
    }
}

/// Why `name` cannot be written as a line that both ld64 and ld64.lld read back as exactly
/// that name, or `None` when it can.
pub fn unlistable(name: &str) -> Option<Unlistable> {
    if name.is_empty() {
        return Some(Unlistable::Empty);
    }
    // The first reason found, in the order of the enum's severity for a reader.
    let mut why = None;
    for b in name.bytes() {
        let r = match b {
            // C's isspace: what ld64 trims; lld's StringRef::trim takes " \t\n\v\f\r".
            b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' => Unlistable::WhiteSpace,
            b'#' => Unlistable::Comment,
            b'*' | b'?' | b'[' | b']' => Unlistable::Wildcard,
            b'\\' => Unlistable::Backslash,
            _ => continue,
        };
        why = Some(why.map_or(r, |w: Unlistable| w.min(r)));
    }
    why
}

/// A symbol list as ld64 reads it: literals and wildcard patterns.
#[derive(Debug, Clone, Default)]
pub struct SymbolList {
    literals: HashSet<Vec<u8>>,
    patterns: Vec<Compiled>,
}

impl SymbolList {
    /// Reads the list at `path` ([`SymbolList::parse`]). Errors: the file cannot be read.
    pub fn read(path: &Path) -> Result<SymbolList> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, &e))?;
        Ok(SymbolList::parse(&bytes))
    }

    /// The symbols of `text`, read as ld64's `Options::loadExportFile` reads a list.
    pub fn parse(text: &[u8]) -> SymbolList {
        let mut list = SymbolList::default();
        for line in text.split(|&b| b == b'\n' || b == b'\r') {
            let start = line.iter().position(|b| !is_space(*b));
            let Some(start) = start else { continue };
            if line[start] == b'#' {
                continue;
            }
            let end = line
                .iter()
                .rposition(|b| !is_space(*b))
                .map_or(0, |e| e + 1);
            let symbol = &line[start..end];
            if symbol.iter().any(|b| matches!(b, b'*' | b'?' | b'[')) {
                list.patterns.push(Compiled::of(symbol));
            } else {
                list.literals.insert(symbol.to_vec());
            }
        }
        list
    }

    /// The literal symbols and the wildcard patterns of the list.
    pub fn len(&self) -> (usize, usize) {
        (self.literals.len(), self.patterns.len())
    }

    /// Whether the list has no symbol.
    pub fn is_empty(&self) -> bool {
        self.literals.is_empty() && self.patterns.is_empty()
    }

    /// Whether the list names `symbol` (a literal, or a pattern that matches it as ld64's
    /// `SetWithWildcards::contains` does); `cells` counts the work of the wildcard matches.
    ///
    /// Errors (one line naming `path`): the matches of this list have filled more than
    /// [`MATCH_CELLS`] cells.
    pub fn matches(&self, symbol: &str, cells: &mut u64, path: &Path) -> Result<bool> {
        let s = symbol.as_bytes();
        if self.literals.contains(s) {
            return Ok(true);
        }
        for p in &self.patterns {
            if p.matches(s, cells) {
                return Ok(true);
            }
            if *cells > MATCH_CELLS {
                return Err(Error::new(
                    ErrorKind::Usage,
                    path,
                    format!(
                        "its wildcard patterns took more than {MATCH_CELLS} steps to match against the names: give fewer or shorter patterns"
                    ),
                ));
            }
        }
        Ok(false)
    }
}

/// C's `isspace` in the "C" locale, which ld64's `loadExportFile` calls.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A wildcard pattern, read once: its literal head (before the first wildcard), its items
/// after the head, and how many of them at the end are literal bytes (its tail).
#[derive(Debug, Clone)]
struct Compiled {
    head: Vec<u8>,
    items: Vec<Item>,
    tail: usize,
}

/// One item of a pattern.
#[derive(Debug, Clone)]
enum Item {
    Star,
    Any,
    /// `[…]`: the body between the brackets.
    Class(Box<[u8]>),
    /// A `[` with no `]` after it: ld64's `inCharRange` finds none and fails.
    Unclosed,
    Byte(u8),
}

impl Compiled {
    fn of(pattern: &[u8]) -> Compiled {
        let head = pattern
            .iter()
            .position(|b| matches!(b, b'*' | b'?' | b'['))
            .unwrap_or(pattern.len());
        let items = items(&pattern[head..]);
        let tail = items
            .iter()
            .rev()
            .take_while(|i| matches!(i, Item::Byte(_)))
            .count();
        Compiled {
            head: pattern[..head].to_vec(),
            items,
            tail,
        }
    }

    /// Whether the pattern matches `symbol` as ld64's `SetWithWildcards::wildCardMatch`
    /// decides it, counting the work in `cells`: one per pair, one per byte of the head and
    /// tail compared, and the table's cells.
    ///
    /// ld64 recurses, in time exponential in the `*`s; here the same answer comes from a table
    /// of `M(p, s)`, "pattern from `p` matches symbol from `s`", filled from the pattern's
    /// end, one row of `symbol.len() + 1` cells per item:
    ///
    /// * `M(end, s)` is `s == end`;
    /// * `*` last in the pattern matches the rest; any other `*` tries each `t` in `s..end`
    ///   (never the end itself: ld64's loop stops at the NUL), so `M(p, s) = s < end &&
    ///   (M(p+1, s) || M(p, s+1))`;
    /// * `?` needs a character; `[…]` needs one in the class ([`char_class`]; no closing `]`:
    ///   no match); any other character needs itself.
    ///
    /// The literal head and tail are compared first, without the table: a symbol that does not
    /// start with the head and end with the tail cannot match.
    fn matches(&self, symbol: &[u8], cells: &mut u64) -> bool {
        *cells += 1 + (self.head.len() + self.tail) as u64;
        if !symbol.starts_with(&self.head) {
            return false;
        }
        let symbol = &symbol[self.head.len()..];
        let tail = &self.items[self.items.len() - self.tail..];
        if symbol.len() < tail.len()
            || !symbol
                .iter()
                .rev()
                .zip(tail.iter().rev())
                .all(|(a, i)| matches!(i, Item::Byte(b) if b == a))
        {
            return false;
        }
        let items = &self.items;
        let n = symbol.len();
        let mut next: Vec<bool> = (0..=n).map(|s| s == n).collect();
        let mut row = vec![false; n + 1];
        for (k, item) in items.iter().enumerate().rev() {
            *cells += n as u64 + 1;
            match item {
                Item::Star if k + 1 == items.len() => row.iter_mut().for_each(|c| *c = true),
                Item::Star => {
                    row[n] = false;
                    for s in (0..n).rev() {
                        row[s] = next[s] || row[s + 1];
                    }
                }
                Item::Any => {
                    row[n] = false;
                    row[..n].copy_from_slice(&next[1..]);
                }
                Item::Class(body) => {
                    row[n] = false;
                    for s in 0..n {
                        row[s] = next[s + 1] && char_class(body, symbol[s]);
                    }
                }
                Item::Unclosed => row.iter_mut().for_each(|c| *c = false),
                Item::Byte(b) => {
                    row[n] = false;
                    for s in 0..n {
                        row[s] = next[s + 1] && symbol[s] == *b;
                    }
                }
            }
            std::mem::swap(&mut row, &mut next);
        }
        next[0]
    }
}

fn items(pattern: &[u8]) -> Vec<Item> {
    let mut out = Vec::with_capacity(pattern.len());
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'*' => out.push(Item::Star),
            b'?' => out.push(Item::Any),
            b'[' => match pattern[i + 1..].iter().position(|&b| b == b']') {
                Some(len) => {
                    out.push(Item::Class(pattern[i + 1..i + 1 + len].into()));
                    i += len + 1;
                }
                None => {
                    // inCharRange fails at the end; nothing after it is read.
                    out.push(Item::Unclosed);
                    break;
                }
            },
            b => out.push(Item::Byte(b)),
        }
        i += 1;
    }
    out
}

/// Whether `c` is in the class `body` (between `[` and `]`), as ld64's `inCharRange` reads it:
/// `x-y` is a range from the character before the `-` (NUL at the start) to the one after it,
/// and the character after a range's end is skipped; any other character is itself.
fn char_class(body: &[u8], c: u8) -> bool {
    let mut last = 0u8;
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'-' {
            // `next` is the `]` itself when the `-` ends the body.
            let next = body.get(i + 1).copied().unwrap_or(b']');
            if last <= c && c <= next {
                return true;
            }
            i += 3;
        } else {
            if body[i] == c {
                return true;
            }
            last = body[i];
            i += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, symbol: &str) -> bool {
        let mut cells = 0;
        Compiled::of(pattern.as_bytes()).matches(symbol.as_bytes(), &mut cells)
    }

    /// ld64's `wildCardMatch`, as written in Options.cpp, for comparison.
    fn ld64(p: &[u8], s: &[u8]) -> bool {
        let mut si = 0;
        let mut pi = 0;
        while pi < p.len() {
            match p[pi] {
                b'*' => {
                    if pi + 1 == p.len() {
                        return true;
                    }
                    return (si..s.len()).any(|t| ld64(&p[pi + 1..], &s[t..]));
                }
                b'?' => {
                    if si == s.len() {
                        return false;
                    }
                    si += 1;
                }
                b'[' => {
                    let Some(len) = p[pi + 1..].iter().position(|&b| b == b']') else {
                        return false;
                    };
                    if si == s.len() || !char_class(&p[pi + 1..pi + 1 + len], s[si]) {
                        return false;
                    }
                    pi += len + 1;
                    si += 1;
                }
                b => {
                    if si == s.len() || s[si] != b {
                        return false;
                    }
                    si += 1;
                }
            }
            pi += 1;
        }
        si == s.len()
    }

    #[test]
    fn wildcards_match_as_ld64_matches_them() {
        let patterns = [
            "*",
            "_Z*",
            "*E",
            "_Z*v",
            "a**",
            "**",
            "*a*",
            "?",
            "??",
            "a?c",
            "[abc]",
            "[a-c]x",
            "[-b]",
            "[a-]",
            "[]",
            "[ab",
            "a[",
            "*[a-c]*",
            "*?",
            "_ZN2v8*Ev",
            "x*y*z",
        ];
        let symbols = [
            "",
            "a",
            "ab",
            "abc",
            "x",
            "xyz",
            "xaybz",
            "_ZN2v81AEv",
            "-",
            "]",
            "b",
        ];
        for p in patterns {
            for s in symbols {
                assert_eq!(
                    m(p, s),
                    ld64(p.as_bytes(), s.as_bytes()),
                    "pattern {p:?} symbol {s:?}"
                );
            }
        }
        // ld64's `*` never tries the empty rest: `a**` does not match `a`.
        assert!(!m("a**", "a") && m("a*", "a") && m("a**", "ab"));
    }

    #[test]
    fn a_range_skips_the_character_after_it_as_ld64_does() {
        // `[a-cx]`: after the range a-c, ld64's inCharRange steps past the `x`.
        assert!(m("[a-cx]", "b") && !m("[a-cx]", "x"));
        assert!(m("[a-cxy]", "y"));
    }

    #[test]
    fn lists_are_read_as_ld64_reads_them() {
        let text = b"# a comment\n  __Z1fv  \r\n\t\n   # indented comment\n_x#y\n_Z*\n__Z1gv";
        let list = SymbolList::parse(text);
        assert_eq!(list.len(), (3, 1));
        let mut cells = 0;
        let p = Path::new("list");
        let has = |s: &str, c: &mut u64| list.matches(s, c, p).unwrap();
        assert!(has("__Z1fv", &mut cells) && has("_x#y", &mut cells) && has("__Z1gv", &mut cells));
        assert!(has("_Zanything", &mut cells) && !has("_y", &mut cells));
        assert!(!has("# a comment", &mut cells));
    }

    #[test]
    fn regression_a_name_with_a_line_end_or_comment_would_become_another_line() {
        // Written as a line, `__Z1fv\n_main` would hide `_main`; `__Z1f # x` would be read as
        // `__Z1f` by ld64.lld.
        for (name, why) in [
            ("__Z1fv\n_main", Unlistable::WhiteSpace),
            ("__Z1f #x", Unlistable::WhiteSpace),
            ("__Z1f#x", Unlistable::Comment),
            ("__Z1f*", Unlistable::Wildcard),
            ("__Z1f]", Unlistable::Wildcard),
            ("__Z1f\\x0a", Unlistable::Backslash),
            ("", Unlistable::Empty),
        ] {
            assert_eq!(unlistable(name), Some(why), "{name:?}");
        }
        assert_eq!(unlistable("__ZN2v88internal4Heap7CollectEv"), None);
        assert_eq!(unlistable("_main"), None);
    }

    #[test]
    fn regression_stars_in_a_pattern_matched_in_exponential_time() {
        // ld64's recursion tries every split for each `*`: 31 stars against a 3,000-character
        // name without a `b` would not finish. The table fills 63 rows of 3,001 cells (and the
        // pair counts one).
        let pattern = "*a".repeat(30) + "*b?";
        let name = "a".repeat(3000);
        let mut cells = 0;
        assert!(!Compiled::of(pattern.as_bytes()).matches(name.as_bytes(), &mut cells));
        assert_eq!(cells, 1 + 63 * 3001);
    }

    #[test]
    fn regression_each_pattern_and_name_pair_counted_no_work() {
        // 10,000 patterns whose tail no name has, against 10,000 names: each pair is rejected
        // without the table, but 10⁸ pairs are work all the same.
        let text: String = (0..10_000).map(|i| format!("*a*a*Q{i}\n")).collect();
        let list = SymbolList::parse(text.as_bytes());
        // The run so far has used all but a million steps of the bound.
        let mut cells = MATCH_CELLS - 1_000_000;
        let mut refused = None;
        for k in 0..10_000 {
            if let Err(e) = list.matches(&format!("__ZN2v8{k}Ev"), &mut cells, Path::new("k")) {
                refused = Some((k, e));
                break;
            }
        }
        let (k, e) = refused.expect("refused before the last name");
        assert!(
            k < 10_000 && e.message.contains("took more than"),
            "{k}: {}",
            e.message
        );
    }

    #[test]
    fn regression_matching_work_past_the_bound_is_an_error_not_a_hang() {
        let list = SymbolList::parse(b"*x*y*z*q\n");
        let name = "a".repeat(100_000) + "q";
        let mut cells = MATCH_CELLS - 10;
        let e = list
            .matches(&name, &mut cells, Path::new("keep.txt"))
            .unwrap_err();
        assert!(
            e.message
                .starts_with("keep.txt: its wildcard patterns took more than"),
            "{}",
            e.message
        );
    }
}
