//! The work export-trie lookups by name may do together: those of one process walk (the
//! re-exports followed, [`crate::process::reexport`]) or of one importer check (every import of
//! every importer looked up in one image's trie, [`super::imports::ExportTrie::find`]).
//!
//! One lookup ([`lookup_counting`]) enters each node at most once and walks at most as many
//! bytes as its trie holds, so it is linear in the trie; but a run makes many: a name per
//! import, a probe per image a re-export search reaches. The budget counts what they did —
//! trie nodes entered, and bytes walked (each node's bytes from its start to the end of the
//! last edge read, and the names a re-export search copies and compares) — never lookups or
//! probes, which may each cost a whole trie. Past either limit the run stops: one line, exit
//! 2. It is checked after each lookup, so a run stops at most one lookup (one trie's nodes and
//! bytes) past the limit. Real inputs are far below both (the figures are at the constants).

use super::trie_lookup::{Terminal, Visited, Walked, lookup_counting};
use crate::error::ParseError;
use std::fmt;

/// Trie nodes the lookups of one process walk or one importer check may enter: 2²⁴. Looking
/// up every export of Node.js 22.11.0 once (62,894 names) enters 862,551 nodes; holding
/// `@parcel/watcher`'s addon against it, 338; following the re-exports of the sharp process,
/// none. It is of the order of [`crate::process::reexport::MAX_PROBES_PER_PROCESS`] probes
/// of real tries (≤ 30 nodes each).
pub const MAX_LOOKUP_NODES: u64 = 1 << 24;
/// Bytes the lookups of one process walk or one importer check may walk: 2³² (trie bytes,
/// and the names a re-export search copies and compares). Every export of Node.js 22.11.0
/// looked up once walks 46.2 MB (54 bytes a node; a lookup at most 2,822); bytes are scanned
/// far faster than nodes are entered, so this limit leaves 256 a node.
pub const MAX_LOOKUP_BYTES: u64 = 1 << 32;

/// Trie nodes an importer's own-definition lookups may enter, a byte of its file: a real
/// lookup enters at most one node a byte of the name looked up, and the names are in the file.
pub const OWN_NODES_PER_BYTE: u64 = 2;
/// Bytes those lookups may walk, a byte of the file (a real lookup walks ≤ 3 KB).
pub const OWN_BYTES_PER_BYTE: u64 = 64;
/// Nodes and bytes every importer's own-definition lookups may use whatever its size.
pub const OWN_BASE: u64 = 1 << 16;

/// The work of one process walk or one importer check: what its lookups did, against the
/// limits ([`MAX_LOOKUP_NODES`], [`MAX_LOOKUP_BYTES`] unless made with others).
#[derive(Debug)]
pub struct LookupBudget {
    /// What the lookups did so far.
    pub walked: Walked,
    limit: Walked,
    visited: Visited,
}

/// Which limit a run went past; its `Display` is the error's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exhausted {
    /// More than this many trie nodes entered.
    Nodes(u64),
    /// More than this many bytes walked.
    Bytes(u64),
}

impl fmt::Display for Exhausted {
    /// `entered more than N trie nodes`, `walked more than N bytes`: the caller says whose
    /// lookups.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exhausted::Nodes(n) => write!(f, "entered more than {n} trie nodes"),
            Exhausted::Bytes(n) => write!(f, "walked more than {n} bytes"),
        }
    }
}

impl Default for LookupBudget {
    fn default() -> Self {
        LookupBudget::with_limits(MAX_LOOKUP_NODES, MAX_LOOKUP_BYTES)
    }
}

impl LookupBudget {
    /// A budget of `nodes` trie nodes and `bytes` bytes (tests; runs use
    /// [`LookupBudget::default`]).
    pub fn with_limits(nodes: u64, bytes: u64) -> Self {
        LookupBudget {
            walked: Walked::default(),
            limit: Walked { nodes, bytes },
            visited: Visited::default(),
        }
    }

    /// The budget of looking an importer's weak-lookup imports up in its own export trie
    /// ([`super::imports::ImporterSlice::defines_itself`]), for a file of `file_bytes` bytes:
    /// [`OWN_NODES_PER_BYTE`] nodes and [`OWN_BYTES_PER_BYTE`] bytes walked a byte of the file,
    /// plus [`OWN_BASE`] of each (never more than the defaults). Importers are read apart (in
    /// parallel, once per arch checked), so each has its own budget; one linear in its size
    /// makes the reading of all of them linear in what they hold.
    pub fn for_importer(file_bytes: u64) -> Self {
        let scaled = |per_byte: u64, max: u64| {
            file_bytes
                .saturating_mul(per_byte)
                .saturating_add(OWN_BASE)
                .min(max)
        };
        LookupBudget::with_limits(
            scaled(OWN_NODES_PER_BYTE, MAX_LOOKUP_NODES),
            scaled(OWN_BYTES_PER_BYTE, MAX_LOOKUP_BYTES),
        )
    }

    /// Looks `name` up in `trie` ([`lookup_counting`]), counting its work; the caller then
    /// [`Self::check`]s. Errors: those of [`lookup_counting`].
    pub fn lookup<'a>(
        &mut self,
        trie: &'a [u8],
        name: &[u8],
    ) -> Result<Option<Terminal<'a>>, ParseError> {
        lookup_counting(trie, name, &mut self.walked, &mut self.visited)
    }

    /// Errors once the lookups went past a limit (nodes checked first).
    pub fn check(&self) -> Result<(), Exhausted> {
        if self.walked.nodes > self.limit.nodes {
            Err(Exhausted::Nodes(self.limit.nodes))
        } else if self.walked.bytes > self.limit.bytes {
            Err(Exhausted::Bytes(self.limit.bytes))
        } else {
            Ok(())
        }
    }

    /// Adds `bytes` walked outside a trie (names copied or compared), then [`Self::check`].
    pub fn charge_bytes(&mut self, bytes: usize) -> Result<(), Exhausted> {
        self.walked.bytes = self.walked.bytes.saturating_add(bytes as u64);
        self.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_is_named_once_passed() {
        let mut b = LookupBudget::with_limits(2, 10);
        b.walked.nodes = 2;
        assert_eq!(b.charge_bytes(10), Ok(()));
        assert_eq!(b.charge_bytes(1), Err(Exhausted::Bytes(10)));
        b.walked.nodes = 3;
        assert_eq!(b.check(), Err(Exhausted::Nodes(2)));
        assert_eq!(
            Exhausted::Nodes(2).to_string(),
            "entered more than 2 trie nodes"
        );
        assert_eq!(LookupBudget::default().limit.nodes, MAX_LOOKUP_NODES);
    }
}
