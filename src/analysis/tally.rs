//! Per-symbol figures of one image.
//!
//! A build and its baseline are both reduced to the same [`SymbolEntry`] list, so a symbol,
//! group or allowlist rule counts the same way on both sides of a comparison.

use super::attribute::{Origin, Origins};
use super::check::Figure;
use crate::model::Image;
use std::collections::BTreeMap;

/// What one symbol name adds to an image's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymbolEntry {
    /// Raw Mach-O symbol name.
    pub raw: String,
    /// It is a weak-bind target (adds 1 to `weak_bind_symbols`).
    pub weak_bound: bool,
    /// Weak-bound and exported weak by the same image.
    pub defined_here: bool,
    /// Weak-bind sites bound to it.
    pub sites: usize,
    /// Predicted weak-def lookups of it (bind targets and treat-as-weak lookups).
    pub lookups: usize,
    /// Weak-definition exports of it (0 or 1 in a well-formed export trie).
    pub weak_defs: usize,
    /// Its weak definition is thread-local.
    pub thread_local: bool,
    /// Where it was compiled (library, object, source), for `--by library|object|source`.
    pub origin: Origin,
}

impl SymbolEntry {
    /// What this symbol adds to `figure`.
    pub fn contribution(&self, figure: Figure) -> usize {
        match figure {
            Figure::PredictedWeakLookups => self.lookups,
            Figure::WeakDefExports => self.weak_defs,
            Figure::WeakBindSymbols => usize::from(self.weak_bound),
            // Probes belong to lookups, not to names: the allowlist does not reduce them.
            Figure::TrieProbes => 0,
        }
    }
}

/// One entry per distinct symbol name of `image` that is weak-bound, weak-defined or looked
/// up; sorted by raw name.
pub fn tally(image: &Image) -> Vec<SymbolEntry> {
    let mut by_name: BTreeMap<&str, SymbolEntry> = BTreeMap::new();
    for t in &image.bind_targets {
        let e = entry(&mut by_name, &t.symbol);
        e.weak_bound = true;
        e.defined_here |= t.defined_here;
        e.sites += t.sites.len();
    }
    for l in &image.lookups {
        entry(&mut by_name, &l.symbol).lookups += 1;
    }
    for w in &image.weak_definitions {
        let e = entry(&mut by_name, &w.name);
        e.weak_defs += 1;
        e.thread_local |= w.thread_local;
    }
    let origins = Origins::of(image);
    by_name
        .into_values()
        .map(|mut e| {
            e.origin = origins.origin(&e.raw);
            e
        })
        .collect()
}

/// The entry of `raw`, created empty on first use.
pub(crate) fn entry<'a, 'm>(
    map: &'m mut BTreeMap<&'a str, SymbolEntry>,
    raw: &'a str,
) -> &'m mut SymbolEntry {
    map.entry(raw).or_insert_with(|| SymbolEntry {
        raw: raw.to_string(),
        ..SymbolEntry::default()
    })
}
