//! One name looked up in an export trie, the way dyld looks it up: dyld-1378
//! common/MachOFile.cpp `MachOFile::trieWalk`, called by dyld/Loader.cpp
//! `Loader::hasExportedSymbol` for every image a weak-def lookup probes and for every image a
//! re-export leads to.
//!
//! ```text
//! node = root (offset 0); rest = name
//! loop:
//!     terminal_size = uleb128
//!     if rest is empty and terminal_size > 0: found, the terminal follows
//!     child_count = the byte after the terminal
//!     take the FIRST child whose edge label is a prefix of rest (labels are NUL-terminated)
//!     none: not found;  else rest = rest - label, node = that child (a node entered twice: loop)
//! terminal = flags: uleb128,
//!            if flags & EXPORT_SYMBOL_FLAGS_REEXPORT: library ordinal: uleb128, import name: cstring
//! ```
//!
//! The whole-trie walker ([`super::export_trie`]) reports every terminal; this reads only the
//! nodes on one path, so following a re-export into a large dylib costs the length of the name,
//! not the size of its trie. Every offset is bounds-checked; each node is entered at most once,
//! found so in O(1) a step ([`Visited`]; dyld searches the list of nodes entered: quadratic
//! in the depth);
//! and the bytes a lookup walks may not pass the trie's size, which only overlapping nodes
//! could do. So a lookup ends in time linear in the trie's size, whatever its depth. A run of
//! many lookups counts what they did ([`lookup_counting`]) against a
//! [`super::lookup_budget::LookupBudget`].

use super::cursor::Cursor;
use super::export_trie::{EXPORT_SYMBOL_FLAGS_REEXPORT, weak_definition_flags};
use super::file::{MachOFile, SliceLocation};
use super::load_commands::read_load_commands;
use crate::error::{ParseError, Result};

/// What a looked-up name's terminal says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Terminal<'a> {
    /// A definition in this image: its `EXPORT_SYMBOL_FLAGS_*`.
    Definition {
        /// The raw flags.
        flags: u64,
    },
    /// `EXPORT_SYMBOL_FLAGS_REEXPORT`: defined by the image's dependency `library_ordinal`
    /// (1-based, into its dylib load commands), under `import_name` (the raw bytes; empty:
    /// the same name).
    Reexport {
        /// The raw flags (`EXPORT_SYMBOL_FLAGS_REEXPORT` set).
        flags: u64,
        /// 1-based index into the image's dylib load commands (not checked here).
        library_ordinal: u64,
        /// The name in that dylib, raw; empty when it is the same name.
        import_name: &'a [u8],
    },
}

impl Terminal<'_> {
    /// The terminal's `EXPORT_SYMBOL_FLAGS_*`.
    pub fn flags(&self) -> u64 {
        match *self {
            Terminal::Definition { flags } | Terminal::Reexport { flags, .. } => flags,
        }
    }

    /// A weak definition as dyld's coalescing takes it (not a re-export, not a function
    /// variant: [`weak_definition_flags`]).
    pub fn is_weak_definition(&self) -> bool {
        matches!(self, Terminal::Definition { flags } if weak_definition_flags(*flags))
    }
}

/// What lookups did: trie nodes entered and bytes walked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Walked {
    /// Trie nodes entered (the root included).
    pub nodes: u64,
    /// Bytes walked: each node's from its start to the end of the last edge read (to the end
    /// of its terminal when the name ends there); callers add the names they copy or compare.
    pub bytes: u64,
}

/// Looks `name` (raw bytes, as stored: `__ZN…`) up in `trie` (the bytes of
/// `LC_DYLD_EXPORTS_TRIE` or of `LC_DYLD_INFO`'s export range). `Ok(None)`: not exported.
/// Errors: those of [`lookup_counting`].
pub fn lookup<'a>(
    trie: &'a [u8],
    name: &[u8],
) -> std::result::Result<Option<Terminal<'a>>, ParseError> {
    lookup_counting(trie, name, &mut Walked::default(), &mut Visited::default())
}

/// [`lookup`], adding to `walked` the nodes it entered and the bytes it walked (each node's,
/// from its start to the end of the last edge read, or of its terminal when the name ends
/// there). Those are at most the trie's bytes: its nodes, entered once each, hold them apart.
/// `visited` is scratch space a run's lookups may share (it keeps its memory).
///
/// Errors: an offset or string past the end, a ULEB over 64 bits, a child offset of 0 or past
/// the end, a node entered twice (dyld: "malformed trie child, cycle to nodeOffset"), a
/// terminal whose contents do not fit its size, and nodes that overlap: a lookup that walked
/// more bytes than the trie holds (dyld walks them; no linker writes them).
pub fn lookup_counting<'a>(
    trie: &'a [u8],
    name: &[u8],
    walked: &mut Walked,
    visited: &mut Visited,
) -> std::result::Result<Option<Terminal<'a>>, ParseError> {
    if trie.is_empty() {
        return Ok(None);
    }
    visited.clear();
    let mut node = 0usize;
    let mut rest = name;
    let mut bytes = 0usize;
    loop {
        walked.nodes += 1;
        let mut c = Cursor::new(trie, node);
        let terminal_size = c.uleb()?;
        let info = c.pos();
        let children = (info as u64)
            .checked_add(terminal_size)
            .filter(|&end| end < trie.len() as u64)
            .ok_or_else(|| ParseError::new("terminal size past the end of the trie", node as u64))?
            as usize;
        let found = rest.is_empty() && terminal_size > 0;
        let (child, end) = if found {
            (None, children)
        } else {
            matching_child(trie, children, &mut rest)?
        };
        walked.bytes += (end - node) as u64;
        bytes += end - node;
        if bytes > trie.len() {
            return Err(ParseError::new(
                "nodes overlap (a lookup walked more bytes than the trie holds)",
                node as u64,
            ));
        }
        if found {
            return terminal(&trie[..children], info).map(Some);
        }
        let Some(child) = child else {
            return Ok(None);
        };
        if !visited.insert(child, trie.len()) {
            return Err(ParseError::new(
                "node reached twice (loop in trie)",
                child as u64,
            ));
        }
        node = child;
    }
}

/// The nodes one lookup entered, to refuse a node entered twice. dyld keeps them in a list it
/// searches at every step, which makes a chain of nodes joined by empty edge labels cost its
/// depth squared; the list has no limit (dyld-1231.3 to dyld-1378 common/MachOFile.cpp
/// `MachOFile::trieWalk`: `STACK_ALLOC_OVERFLOW_SAFE_ARRAY(uint32_t, visitedNodeOffsets, 128)`,
/// 128 on the stack, then common/Array.h `OverflowSafeArray::growTo` doubles it with
/// `vm_allocate`), so no depth is refused here either. Here the first 32 are in a list (real
/// lookups enter at most 30: the deepest name of Node.js); past them, every node is a bit of a
/// bitmap of the trie's offsets, so a step costs O(1) and a lookup O(depth). The bitmap is
/// kept from lookup to lookup (only the words a lookup set are cleared), so lookups that share
/// a `Visited` allocate it once.
#[derive(Debug, Default)]
pub struct Visited {
    list: [usize; Visited::LIST],
    len: usize,
    /// In bitmap mode: the bitmap (1 bit per trie offset) and the offsets set in it.
    bits: Vec<u64>,
    set: Vec<usize>,
    deep: bool,
}

impl Visited {
    /// Nodes kept in the list before the bitmap is used.
    const LIST: usize = 32;

    /// Forgets the nodes of the last lookup.
    fn clear(&mut self) {
        for &n in &self.set {
            self.bits[n / 64] = 0;
        }
        self.set.clear();
        self.len = 0;
        self.deep = false;
    }

    /// Adds `node`, an offset below `size` (the root is always in); `false` if it was in.
    fn insert(&mut self, node: usize, size: usize) -> bool {
        if node == 0 {
            return false;
        }
        if !self.deep {
            if self.list[..self.len].contains(&node) {
                return false;
            }
            if self.len < Visited::LIST {
                self.list[self.len] = node;
                self.len += 1;
                return true;
            }
            self.deep = true;
            if self.bits.len() < size.div_ceil(64) {
                self.bits.resize(size.div_ceil(64), 0);
            }
            for k in 0..self.len {
                let n = self.list[k];
                self.set_bit(n);
            }
        }
        let (word, bit) = (node / 64, 1u64 << (node % 64));
        if self.bits[word] & bit != 0 {
            return false;
        }
        self.set_bit(node);
        true
    }

    fn set_bit(&mut self, n: usize) {
        self.bits[n / 64] |= 1u64 << (n % 64);
        self.set.push(n);
    }
}

/// The child of the node whose child list starts at `at` (its count byte) that `rest` goes on
/// to: the first whose edge label is a prefix of `rest`, which loses the label; `None`: no such
/// child. With it, the offset just past the last edge read.
fn matching_child(
    trie: &[u8],
    at: usize,
    rest: &mut &[u8],
) -> std::result::Result<(Option<usize>, usize), ParseError> {
    let mut c = Cursor::new(trie, at);
    let count = c.u8()?;
    for _ in 0..count {
        let pos = c.pos();
        let label = c
            .cstr()
            .map_err(|e| ParseError::new("truncated edge label", e.offset))?;
        let child = c.uleb()?;
        if rest.starts_with(label) {
            if child == 0 || child >= trie.len() as u64 {
                return Err(ParseError::new(
                    "child node offset out of range",
                    pos as u64,
                ));
            }
            *rest = &rest[label.len()..];
            return Ok((Some(child as usize), c.pos()));
        }
    }
    Ok((None, c.pos()))
}

/// The terminal whose contents start at `at` in `info` (the trie up to the terminal's end).
fn terminal(info: &[u8], at: usize) -> std::result::Result<Terminal<'_>, ParseError> {
    let mut t = Cursor::new(info, at);
    let flags = t.uleb()?;
    if flags & EXPORT_SYMBOL_FLAGS_REEXPORT == 0 {
        return Ok(Terminal::Definition { flags });
    }
    let library_ordinal = t.uleb()?;
    let import_name = t.cstr()?;
    Ok(Terminal::Reexport {
        flags,
        library_ordinal,
        import_name,
    })
}

/// The `EXPORT_SYMBOL_FLAGS_*` of `name` in `trie` ([`lookup`]), `None` when it is not
/// exported. Errors: those of [`lookup`].
pub fn find_export(trie: &[u8], name: &[u8]) -> std::result::Result<Option<u64>, ParseError> {
    Ok(lookup(trie, name)?.map(|t| t.flags()))
}

/// The export trie of slice `loc` of `file`: `LC_DYLD_EXPORTS_TRIE`, else `LC_DYLD_INFO`'s
/// export range; empty when it has neither. Errors: those of the load commands
/// ([`read_load_commands`]) and of reading the range.
pub fn read_export_trie(file: &MachOFile, loc: &SliceLocation) -> Result<Vec<u8>> {
    let lc = read_load_commands(file, loc)?;
    let Some(r) = lc.exports_trie.or(lc.dyld_info_exports) else {
        return Ok(Vec::new());
    };
    file.read_range(
        loc.offset + u64::from(r.offset),
        u64::from(r.size),
        "export trie",
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::macho::export_trie::tests::two_symbol_trie;
    use crate::macho::export_trie::{EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION, parse_export_trie};

    #[test]
    fn regression_a_function_variant_terminal_was_a_weak_definition() {
        // Root with one edge "_f" to a terminal: flags FUNCTION_VARIANT | WEAK_DEFINITION,
        // address 0x10, variant table 0 (dyld-1284.13+: a non-weak definition).
        let t = [0u8, 1, b'_', b'f', 0, 6, 3, 0x24, 0x10, 0x00, 0];
        let term = lookup(&t, b"_f").unwrap().unwrap();
        assert_eq!(term.flags(), 0x24);
        assert!(!term.is_weak_definition());
        let plain = [0u8, 1, b'_', b'f', 0, 6, 2, 0x04, 0x10, 0];
        assert!(lookup(&plain, b"_f").unwrap().unwrap().is_weak_definition());
    }

    #[test]
    fn find_export_follows_the_path_of_the_name() {
        let t = two_symbol_trie();
        let all = parse_export_trie(&t).unwrap();
        for e in &all {
            assert_eq!(find_export(&t, e.name.as_bytes()).unwrap(), Some(e.flags));
        }
        for absent in [&b"_"[..], b"_c", b"_ab", b"", b"_a\0"] {
            assert_eq!(find_export(&t, absent).unwrap(), None, "{absent:?}");
        }
        assert_eq!(find_export(&[], b"_a").unwrap(), None);
        // The name ends on a node without a terminal; an empty edge leads on to it.
        let empty_edge = vec![
            0x00, 0x01, b'_', b'a', 0x00, 0x06, // root: "_a" -> 6
            0x00, 0x02, b'b', 0x00, 0x0d, 0x00, 0x11, // 6: no terminal; "b" -> 13, "" -> 17
            0x02, 0x00, 0x10, 0x00, // 13: "_ab", flags 0
            0x02, 0x04, 0x20, 0x00, // 17: "_a", flags WEAK
        ];
        let names: Vec<String> = parse_export_trie(&empty_edge)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["_ab", "_a"]);
        assert_eq!(
            find_export(&empty_edge, b"_a").unwrap(),
            Some(EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION)
        );
        assert_eq!(find_export(&empty_edge, b"_ab").unwrap(), Some(0));
        // An empty edge label back to the root: a loop on the path of any name.
        let looped = vec![0x00, 0x01, 0x00, 0x00];
        let e = find_export(&[0x00, 0x01, 0x00, 0x04, 0x00, 0x01, 0x00, 0x04], b"_x").unwrap_err();
        assert_eq!(e.message, "node reached twice (loop in trie)");
        let e = find_export(&looped, b"_x").unwrap_err();
        assert_eq!(e.message, "child node offset out of range");
    }

    /// Root: no terminal, children "_a" → A and "_ab" → B (in that order), where A has a child
    /// "c" → C. A: weak definition; B: regular; C: re-export of ordinal 2 as "_x".
    fn trie() -> Vec<u8> {
        let mut t = vec![
            0x00, 0x02, // 0: root, 2 children
            b'_', b'a', 0x00, 14, // 2: "_a" -> 14
            b'_', b'a', b'b', 0x00, 22, // 6: "_ab" -> 22
            0x00, 0x00, 0x00, // 11: padding, never read
        ];
        // 14: A, terminal of 2 bytes (weak, address 0), one child "c" -> 26
        t.extend_from_slice(&[0x02, 0x04, 0x00, 0x01, b'c', 0x00, 26, 0x00]);
        // 22: B, regular at 0x10, no children
        t.extend_from_slice(&[0x02, 0x00, 0x10, 0x00]);
        // 26: C, re-export ordinal 2 "_x", no children
        t.extend_from_slice(&[0x05, 0x08, 0x02, b'_', b'x', 0x00, 0x00]);
        t
    }

    #[test]
    fn names_are_found_on_their_path_only() {
        let t = trie();
        assert_eq!(
            lookup(&t, b"_a").unwrap(),
            Some(Terminal::Definition { flags: 0x04 })
        );
        assert!(lookup(&t, b"_a").unwrap().unwrap().is_weak_definition());
        assert_eq!(
            lookup(&t, b"_ac").unwrap(),
            Some(Terminal::Reexport {
                flags: EXPORT_SYMBOL_FLAGS_REEXPORT,
                library_ordinal: 2,
                import_name: b"_x"
            })
        );
        // dyld takes the first edge that is a prefix: "_ab" goes down "_a", where "b" has no
        // child, so it is not found, as in dyld (a real trie never has such sibling edges).
        assert_eq!(lookup(&t, b"_ab").unwrap(), None);
        assert_eq!(lookup(&t, b"_").unwrap(), None);
        assert_eq!(lookup(&t, b"").unwrap(), None, "the root has no terminal");
        assert_eq!(lookup(&t, b"_acd").unwrap(), None);
        assert_eq!(lookup(&[], b"_a").unwrap(), None, "an empty trie");
    }

    #[test]
    fn malformed_paths_are_errors_not_panics() {
        // A child pointing back at its parent through an empty edge: a loop.
        let looped = [0x00, 0x01, 0x00, 0x04, 0x00, 0x01, 0x00, 0x04];
        let e = lookup(&looped, b"_x").unwrap_err();
        assert!(e.message.contains("loop"), "{e}");
        // A child offset past the end, and one of 0.
        let far = [0x00, 0x01, b'_', 0x00, 0x7f];
        assert!(lookup(&far, b"_x").is_err());
        let zero = [0x00, 0x01, b'_', 0x00, 0x00];
        assert!(lookup(&zero, b"_x").is_err());
        // A terminal size past the end.
        assert!(lookup(&[0x7f, 0x00], b"").is_err());
        // A re-export whose import name runs past its terminal.
        let cut = [
            0x00, 0x01, b'_', 0x00, 0x05, 0x03, 0x08, 0x01, b'y', 0x00, 0x00,
        ];
        assert!(lookup(&cut, b"_").is_err());
        // Truncated child lists.
        assert!(lookup(&[0x00], b"_").is_err());
        assert!(lookup(&[0x00, 0x02, b'_'], b"_").is_err());
    }

    /// A chain of `depth` nodes joined by empty edge labels (6 bytes each: no terminal, one
    /// child, "", a 3-byte offset); the last has no children, or an empty edge back to node
    /// `back_to`. Every name walks the whole chain.
    pub(crate) fn chain(depth: usize, back_to: Option<usize>) -> Vec<u8> {
        let edge = |to: usize| {
            [
                0,
                1,
                0,
                0x80 | (to & 0x7f) as u8,
                0x80 | (to >> 7 & 0x7f) as u8,
                (to >> 14) as u8,
            ]
        };
        let mut t: Vec<u8> = (1..depth).flat_map(|k| edge(6 * k)).collect();
        match back_to {
            Some(k) => t.extend_from_slice(&edge(6 * k)),
            None => t.extend_from_slice(&[0, 0]),
        }
        t
    }

    #[test]
    fn a_lookup_enters_each_node_once_and_walks_at_most_the_trie() {
        // 8,000 deep: dyld's list of nodes entered makes it 32 M comparisons a name; here one
        // step a node, each counted, and the nodes' bytes walked once.
        let t = chain(8000, None);
        let (mut walked, mut visited) = (Walked::default(), Visited::default());
        for name in [&b"_a"[..], b"", b"__ZN2v88internal"] {
            assert_eq!(
                lookup_counting(&t, name, &mut walked, &mut visited),
                Ok(None)
            );
        }
        let bytes = 3 * t.len() as u64;
        assert_eq!(
            walked,
            Walked {
                nodes: 3 * 8000,
                bytes
            }
        );
        // A loop past the first 32 nodes (in the bitmap), and one among them (in the list).
        for back_to in [40, 7] {
            let looped = chain(8000, Some(back_to));
            let e = lookup_counting(&looped, b"_a", &mut walked, &mut visited).unwrap_err();
            assert_eq!(
                e,
                ParseError::new("node reached twice (loop in trie)", 6 * back_to as u64)
            );
        }
        // The scratch space shared by lookups keeps no node of the last one.
        assert_eq!(
            lookup_counting(&t, b"_a", &mut walked, &mut visited),
            Ok(None)
        );
        assert_eq!(lookup(&chain(33, None), b"_a"), Ok(None));
    }

    #[test]
    fn overlapping_nodes_are_refused_once_a_lookup_walked_more_than_the_trie() {
        // Nodes 0..9 are one byte each, a terminal size that puts all their child lists at 10:
        // a junk edge of 100 bytes, then "A" → node 1, "B" → node 2, … "I" → node 9. dyld walks
        // "ABCDEFGHI" through all ten, reading the junk edge each time.
        let mut t: Vec<u8> = (0..10u8).map(|i| 9 - i).collect();
        t.push(10);
        t.extend(std::iter::repeat_n(1, 100));
        t.extend_from_slice(&[0, 1]);
        for (k, letter) in (b'A'..=b'I').enumerate() {
            t.extend_from_slice(&[letter, 0, k as u8 + 1]);
        }
        let e = lookup(&t, b"ABCDEFGHI").unwrap_err();
        assert_eq!(
            e,
            ParseError::new(
                "nodes overlap (a lookup walked more bytes than the trie holds)",
                1
            )
        );
        // One step alone walks less than the trie.
        assert_eq!(lookup(&t, b"Z"), Ok(None));
    }
}
