//! The export trie: every exported symbol of an image, with its flags.
//!
//! Found at `export_off/export_size` of `LC_DYLD_INFO(_ONLY)` or in the `LC_DYLD_EXPORTS_TRIE`
//! blob. Layout (`<mach-o/loader.h>`, dyld `MachOLoaded::trieWalk` and
//! `MachOAnalyzer::forEachExportedSymbol`):
//!
//! ```text
//! struct Node {
//!     terminal_size: uleb128,          // 0 if no symbol ends here
//!     // when terminal_size > 0, exactly terminal_size bytes of:
//!     flags: uleb128,                  // EXPORT_SYMBOL_FLAGS_*
//!     if flags & REEXPORT          { ordinal: uleb128, import_name: cstring }
//!     else {
//!         address: uleb128,            // offset from the mach header
//!         if flags & STUB_AND_RESOLVER { resolver: uleb128 }
//!     }
//!     child_count: u8,
//!     children: [ { edge_label: cstring, child_node_offset: uleb128 }; child_count ],
//! }
//! ```
//!
//! The symbol name of a terminal is the concatenation of the edge labels on the path from the
//! root (offset 0). The walk here is iterative (no recursion, so a deep trie cannot overflow
//! the stack), checks every offset against the trie's size, and refuses a trie in which a node
//! is reached twice (a loop, or a shared node that would make dyld report a symbol twice).

use super::cursor::{Cursor, symbol_name};
use crate::error::ParseError;

mod split;
pub use split::{Split, walk_export_trie_split};

/// `EXPORT_SYMBOL_FLAGS_KIND_MASK`: the low two bits give the kind.
pub const EXPORT_SYMBOL_FLAGS_KIND_MASK: u64 = 0x03;
/// `EXPORT_SYMBOL_FLAGS_KIND_REGULAR`.
pub const EXPORT_SYMBOL_FLAGS_KIND_REGULAR: u64 = 0x00;
/// `EXPORT_SYMBOL_FLAGS_KIND_THREAD_LOCAL`.
pub const EXPORT_SYMBOL_FLAGS_KIND_THREAD_LOCAL: u64 = 0x01;
/// `EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE`.
pub const EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE: u64 = 0x02;
/// `EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION`: a weak definition, coalesced by dyld.
pub const EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION: u64 = 0x04;
/// `EXPORT_SYMBOL_FLAGS_REEXPORT`: the symbol is re-exported from another dylib.
pub const EXPORT_SYMBOL_FLAGS_REEXPORT: u64 = 0x08;
/// `EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER`: a stub plus a resolver function follow.
pub const EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER: u64 = 0x10;
/// `EXPORT_SYMBOL_FLAGS_FUNCTION_VARIANT` (dyld-1378 mach_o/UnsafeHeader.h:62-63; older
/// `<mach-o/loader.h>` named 0x20 `EXPORT_SYMBOL_FLAGS_STATIC_RESOLVER`): the address is the
/// default implementation, a function-variant table index follows it. dyld-1284.13+
/// `Loader::hasExportedSymbol` takes such an export for a non-weak definition whatever its weak
/// bit ([`Export::is_weak_definition`]).
pub const EXPORT_SYMBOL_FLAGS_FUNCTION_VARIANT: u64 = 0x20;

/// What a terminal of the trie points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportTarget {
    /// A definition in this image at `address` (offset from the mach header; for
    /// `KIND_ABSOLUTE`, the absolute value).
    Address(u64),
    /// `EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER`: the stub at `stub`, its resolver at `resolver`.
    StubAndResolver {
        /// Offset of the stub from the mach header.
        stub: u64,
        /// Offset of the resolver function from the mach header.
        resolver: u64,
    },
    /// `EXPORT_SYMBOL_FLAGS_REEXPORT`: re-exported from the dylib with `library_ordinal`
    /// (1-based, into the image's dylib load commands), under `import_name` (empty: same name).
    Reexport {
        /// 1-based index of the dylib load command.
        library_ordinal: u64,
        /// The name in that dylib, or empty if it is the same name.
        import_name: String,
    },
}

/// One terminal of the export trie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// Symbol name as stored (Mach-O C++ names keep their extra leading `_`: `__ZN2v8…`).
    pub name: String,
    /// Raw `EXPORT_SYMBOL_FLAGS_*` value.
    pub flags: u64,
    /// What the symbol resolves to.
    pub target: ExportTarget,
}

/// Whether a terminal with `flags` is a weak definition in dyld's coalescing:
/// `EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION` set, and not a re-export (whose definition is another
/// image's) nor a function variant (dyld-1378 Loader.cpp:3305-3323 `Loader::hasExportedSymbol`
/// returns `isWeakDef = false` for one: it replaces an earlier weak definition, :3025-3031, and
/// an opcode-fixup requester skips one in the shared cache, :3010-3013).
pub fn weak_definition_flags(flags: u64) -> bool {
    flags & EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION != 0
        && flags & (EXPORT_SYMBOL_FLAGS_REEXPORT | EXPORT_SYMBOL_FLAGS_FUNCTION_VARIANT) == 0
}

impl Export {
    /// `EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION` is set (the file's flag: what llvm-objdump prints
    /// `[weak_def]` for; coalescing asks [`weak_definition_flags`]).
    pub fn is_weak_definition(&self) -> bool {
        self.flags & EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION != 0
    }
    /// The kind is `EXPORT_SYMBOL_FLAGS_KIND_THREAD_LOCAL`.
    pub fn is_thread_local(&self) -> bool {
        self.flags & EXPORT_SYMBOL_FLAGS_KIND_MASK == EXPORT_SYMBOL_FLAGS_KIND_THREAD_LOCAL
    }
    /// `EXPORT_SYMBOL_FLAGS_REEXPORT` is set.
    pub fn is_reexport(&self) -> bool {
        self.flags & EXPORT_SYMBOL_FLAGS_REEXPORT != 0
    }
}

/// Budget for the total length of terminal names, per byte of trie (plus 1 MiB). Names share
/// prefixes, so a chain of one-letter edges, each a terminal, would otherwise make n names of
/// total length n²/2 from a trie of n nodes. Real names total 1.1–1.3 × their trie's size
/// (Node.js 20.11.0: 1.23, 22.11.0: 1.16, 24.11.1: 1.12), so 4 leaves three times that as
/// headroom while holding a hostile trie's memory to 4 × its size.
pub const MAX_NAME_BYTES_PER_TRIE_BYTE: usize = 4;
/// The fixed part of the name budget, in bytes: names may total
/// [`MAX_NAME_BYTES_PER_TRIE_BYTE`] × the trie's size plus this much.
pub const MAX_NAME_EXTRA_BYTES: usize = 1 << 20;

struct Frame {
    /// Offset of the next unread child entry.
    next_child: usize,
    /// Children still to read.
    remaining: u8,
    /// Length of the name prefix that belongs to this node.
    name_len: usize,
}

/// Walks the whole trie in `data` (the bytes of `export_off/export_size`, or of the
/// `LC_DYLD_EXPORTS_TRIE` blob) and returns every terminal in depth-first, edge order — the
/// order of dyld's `forEachExportedSymbol`.
///
/// An empty `data` is an empty trie. Errors: any offset or string running past the end, a
/// terminal whose contents do not fit its `terminal_size`, a child offset of 0 or past the end,
/// a node reached twice, a ULEB over 64 bits, terminal names longer in total than
/// [`MAX_NAME_BYTES_PER_TRIE_BYTE`] × `data.len()` + 1 MiB. The walk visits each node once, so
/// its time is linear in `data.len()` plus the names' length, and so is the memory of the result.
pub fn parse_export_trie(data: &[u8]) -> Result<Vec<Export>, ParseError> {
    let mut exports = Vec::new();
    walk_export_trie(data, |name, flags, target| {
        exports.push(Export {
            name: symbol_name(name),
            flags,
            target,
        })
    })?;
    Ok(exports)
}

/// Like [`parse_export_trie`], but hands each terminal's name bytes, flags and target to
/// `visit` instead of collecting them, so a caller allocates only for the terminals it keeps
/// (weakscan keeps the weak definitions).
pub fn walk_export_trie(
    data: &[u8],
    mut visit: impl FnMut(&[u8], u64, ExportTarget),
) -> Result<(), ParseError> {
    if data.is_empty() {
        return Ok(());
    }
    let mut w = Walker::new(
        data,
        Local {
            visited: crate::memory::zeroed_words(data.len().div_ceil(64)),
            budget: name_budget(data),
        },
    );
    w.enter(0, &mut visit)?;
    while w.step(&mut visit)? {}
    Ok(())
}

/// The name budget of a trie of `data.len()` bytes (see [`MAX_NAME_BYTES_PER_TRIE_BYTE`]).
fn name_budget(data: &[u8]) -> usize {
    data.len()
        .saturating_mul(MAX_NAME_BYTES_PER_TRIE_BYTE)
        .saturating_add(MAX_NAME_EXTRA_BYTES)
}

/// What a walk keeps of the nodes it entered and of the name bytes it handed out: one walk's
/// own ([`Local`]), or shared by the parts of a split walk ([`split`]).
trait Ledger {
    /// Marks the node at `offset` entered; `false` when it already was.
    fn enter(&mut self, offset: usize) -> bool;
    /// Takes `n` name bytes from the budget; `false` when they are not left.
    fn spend(&mut self, n: usize) -> bool;
}

/// The ledger of a walk on one thread: one bit per trie byte, and the bytes left.
struct Local {
    visited: Vec<u64>,
    budget: usize,
}

impl Ledger for Local {
    fn enter(&mut self, offset: usize) -> bool {
        let (word, bit) = (offset / 64, 1u64 << (offset % 64));
        let seen = self.visited[word] & bit != 0;
        self.visited[word] |= bit;
        !seen
    }
    fn spend(&mut self, n: usize) -> bool {
        self.budget
            .checked_sub(n)
            .map(|left| self.budget = left)
            .is_some()
    }
}

/// The state of one walk: the name of the current path, the open nodes, what was seen.
struct Walker<'a, L> {
    data: &'a [u8],
    /// The nodes entered and the name budget left.
    ledger: L,
    /// Concatenated edge labels from the root to the current node.
    name: Vec<u8>,
    /// Open nodes, innermost last.
    stack: Vec<Frame>,
}

impl<'a, L: Ledger> Walker<'a, L> {
    fn new(data: &'a [u8], ledger: L) -> Self {
        Walker {
            data,
            ledger,
            name: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// Enters the next child of the innermost open node, closing the nodes with no child left;
    /// `false` when no node is open (the walk is over).
    fn step(
        &mut self,
        visit: &mut impl FnMut(&[u8], u64, ExportTarget),
    ) -> Result<bool, ParseError> {
        let data = self.data;
        let Some(frame) = self.stack.last_mut() else {
            return Ok(false);
        };
        if frame.remaining == 0 {
            self.stack.pop();
            return Ok(true);
        }
        frame.remaining -= 1;
        let label_pos = frame.next_child;
        let (label, child, next) = child_entry(data, label_pos)?;
        frame.next_child = next;
        let name_len = frame.name_len;
        self.name.truncate(name_len);
        self.name.extend_from_slice(label);
        self.enter(child, visit)?;
        Ok(true)
    }

    /// Enters the node at `offset`: reports its terminal, if any, and pushes its children.
    fn enter(
        &mut self,
        offset: usize,
        visit: &mut impl FnMut(&[u8], u64, ExportTarget),
    ) -> Result<(), ParseError> {
        let data = self.data;
        if !self.ledger.enter(offset) {
            return Err(ParseError::new(
                "node reached twice (loop in trie)",
                offset as u64,
            ));
        }
        let mut c = Cursor::new(data, offset);
        let terminal_size = c.uleb()?;
        let info_start = c.pos();
        let info_end = (info_start as u64)
            .checked_add(terminal_size)
            .filter(|&end| end < data.len() as u64)
            .ok_or_else(|| {
                ParseError::new("terminal size past the end of the trie", offset as u64)
            })? as usize;
        if terminal_size > 0 {
            let mut t = Cursor::new(&data[..info_end], info_start);
            let flags = t.uleb()?;
            let target = if flags & EXPORT_SYMBOL_FLAGS_REEXPORT != 0 {
                let library_ordinal = t.uleb()?;
                let import_name = t.cstr()?;
                ExportTarget::Reexport {
                    library_ordinal,
                    import_name: symbol_name(import_name),
                }
            } else {
                let address = t.uleb()?;
                if flags & EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER != 0 {
                    ExportTarget::StubAndResolver {
                        stub: address,
                        resolver: t.uleb()?,
                    }
                } else {
                    ExportTarget::Address(address)
                }
            };
            if !self.ledger.spend(self.name.len()) {
                return Err(ParseError::new(
                    "terminal names exceed 4 bytes per trie byte (a trie built to blow up)",
                    offset as u64,
                ));
            }
            visit(&self.name, flags, target);
        }
        self.stack.push(Frame {
            next_child: info_end + 1,
            remaining: data[info_end],
            name_len: self.name.len(),
        });
        Ok(())
    }
}

/// The child entry at `pos`: its edge label, the child's offset (checked to be inside the
/// trie and not the root) and the offset of the next entry.
fn child_entry(data: &[u8], pos: usize) -> Result<(&[u8], usize, usize), ParseError> {
    let mut c = Cursor::new(data, pos);
    let label = c
        .cstr()
        .map_err(|e| ParseError::new("truncated edge label", e.offset))?;
    let child = c.uleb()?;
    if child == 0 || child >= data.len() as u64 {
        return Err(ParseError::new(
            "child node offset out of range",
            pos as u64,
        ));
    }
    Ok((label, child as usize, c.pos()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Root with two children "_a" (regular) and "_b" (weak), hand-assembled.
    pub(crate) fn two_symbol_trie() -> Vec<u8> {
        vec![
            0x00, 0x02, // root: no terminal, 2 children
            b'_', b'a', 0x00, 0x0c, // edge "_a" -> node 12
            b'_', b'b', 0x00, 0x10, // edge "_b" -> node 16
            0x00, 0x00, // padding (unreferenced)
            0x02, 0x00, 0x10, 0x00, // node 12: size 2, flags 0, addr 0x10, 0 children
            0x02, 0x04, 0x20, 0x00, // node 16: size 2, flags WEAK, addr 0x20, 0 children
        ]
    }

    #[test]
    fn walks_terminals_in_edge_order() {
        let e = parse_export_trie(&two_symbol_trie()).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "_a");
        assert_eq!(e[0].target, ExportTarget::Address(0x10));
        assert!(!e[0].is_weak_definition());
        assert_eq!(e[1].name, "_b");
        assert!(e[1].is_weak_definition());
    }

    #[test]
    fn empty_trie_has_no_exports() {
        assert!(parse_export_trie(&[]).unwrap().is_empty());
        assert!(parse_export_trie(&[0, 0]).unwrap().is_empty());
    }

    #[test]
    fn reexport_resolver_and_thread_local() {
        let t = vec![
            0x00, 0x03, // root
            b'r', 0, 13, // -> 13
            b's', 0, 19, // -> 19
            b't', 0, 25, // -> 25
            0, 0, // pad to 13
            0x04, 0x08, 0x02, b'x', 0, 0x00, // 13: reexport ordinal 2 "x"
            0x04, 0x10, 0x30, 0x40, 0x00, // 19: stub 0x30 resolver 0x40
            0x00, // pad to 25
            0x02, 0x05, 0x50, 0x00, // 25: weak + thread-local at 0x50
        ];
        let e = parse_export_trie(&t).unwrap();
        assert_eq!(
            e[0].target,
            ExportTarget::Reexport {
                library_ordinal: 2,
                import_name: "x".into()
            }
        );
        assert!(e[0].is_reexport());
        assert_eq!(
            e[1].target,
            ExportTarget::StubAndResolver {
                stub: 0x30,
                resolver: 0x40
            }
        );
        assert!(e[2].is_thread_local() && e[2].is_weak_definition());
    }

    #[test]
    fn loop_is_detected() {
        // root -> node 5 -> root
        let t = vec![0x00, 0x01, b'a', 0, 5, 0x00, 0x01, b'b', 0, 0];
        let err = parse_export_trie(&t).unwrap_err();
        assert_eq!(err.message, "child node offset out of range");
        let t = vec![0x00, 0x01, b'a', 0, 5, 0x00, 0x01, b'b', 0, 5];
        assert_eq!(
            parse_export_trie(&t).unwrap_err(),
            ParseError::new("node reached twice (loop in trie)", 5)
        );
    }

    #[test]
    fn truncation_is_an_error_everywhere() {
        let full = two_symbol_trie();
        for len in 1..full.len() - 1 {
            // Every strict prefix that cuts a referenced node must fail, never panic.
            let _ = parse_export_trie(&full[..len]);
        }
        assert!(parse_export_trie(&full[..19]).is_err());
        assert_eq!(
            parse_export_trie(&[0x05, 0x00]).unwrap_err().message,
            "terminal size past the end of the trie"
        );
        assert_eq!(
            parse_export_trie(&[0x00, 0x01, b'a']).unwrap_err().message,
            "truncated edge label"
        );
    }

    #[test]
    fn names_quadratic_in_the_trie_are_refused() {
        // 300_000 nodes in a chain, each a terminal: names of length 1..n, n²/2 bytes in total.
        let n = 300_000usize;
        let node_size = 12; // 02 04 00 | 01 'a' 00 uleb(3 bytes) | pad 3
        let mut t = Vec::new();
        for i in 0..n {
            let next = (i + 1) * node_size;
            t.extend_from_slice(&[0x02, 0x04, 0x00, 0x01, b'a', 0x00]);
            t.extend_from_slice(&[
                (next as u8 & 0x7f) | 0x80,
                ((next >> 7) as u8 & 0x7f) | 0x80,
                (next >> 14) as u8,
            ]);
            t.extend_from_slice(&[0, 0, 0]);
        }
        t.extend_from_slice(&[0x02, 0x04, 0x00, 0x00]);
        let e = parse_export_trie(&t).unwrap_err();
        assert!(e.message.starts_with("terminal names exceed"), "{e}");
    }

    #[test]
    fn very_deep_trie_does_not_overflow_the_stack() {
        // A chain of 200_000 nodes, each with one 1-byte edge to the next, ending in a terminal.
        let n = 200_000usize;
        let mut t = Vec::new();
        let node_size = 8; // 00 01 'a' 00 uleb(3 bytes) pad
        for i in 0..n {
            let next = (i + 1) * node_size;
            t.extend_from_slice(&[0x00, 0x01, b'a', 0x00]);
            t.extend_from_slice(&[
                (next as u8 & 0x7f) | 0x80,
                ((next >> 7) as u8 & 0x7f) | 0x80,
                (next >> 14) as u8,
                0,
            ]);
        }
        t.extend_from_slice(&[0x02, 0x04, 0x01, 0x00]);
        let e = parse_export_trie(&t).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].name.len(), n);
    }
}
