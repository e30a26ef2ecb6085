//! Grouping an image's weak symbols by symbol, pattern, template or namespace.
//!
//! Keys come from [`SymbolName`], i.e. from cpp_demangle's structured output, never from a regex
//! on the printed name. Each group sums, over the symbols whose key it is:
//! weak-bound symbols (distinct names), predicted lookups, fixup sites, and weak-def exports.

use super::demangle::{Demangled, SymbolName};
use crate::model::Image;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// How symbols are grouped (`--by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// Each demangled symbol on its own.
    Symbol,
    /// Template-argument and parameter lists collapsed (`A<…>::f(…)::x`).
    Pattern,
    /// The outermost templated entity (`A<…>`), or the pattern if none.
    Template,
    /// The first N scope components (`v8::internal`), `(global)` for unscoped names.
    Namespace(usize),
}

impl GroupBy {
    /// The key of `name` under this grouping.
    pub fn key(self, name: &SymbolName) -> Cow<'_, str> {
        match self {
            GroupBy::Symbol => Cow::Borrowed(&name.demangled),
            GroupBy::Pattern => Cow::Borrowed(&name.pattern),
            GroupBy::Template => Cow::Borrowed(&name.template),
            GroupBy::Namespace(depth) => Cow::Owned(name.namespace(depth)),
        }
    }

    /// `symbol`, `pattern`, `template` or `namespace`.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Symbol => "symbol",
            GroupBy::Pattern => "pattern",
            GroupBy::Template => "template",
            GroupBy::Namespace(_) => "namespace",
        }
    }
}

/// The four figures of a group (or of a whole image).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GroupStats {
    /// Distinct weak-bound symbol names.
    pub weak_bound_symbols: usize,
    /// Predicted weak-def lookups.
    pub lookups: usize,
    /// Weak-bind fixup sites.
    pub sites: usize,
    /// Weak definitions exported.
    pub weak_def_exports: usize,
}

/// One group of one image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The grouping key.
    pub key: String,
    /// Its figures.
    #[serde(flatten)]
    pub stats: GroupStats,
    /// One demangled member: the first in sort order among the weak-bound ones, else among
    /// all members (so the same group shows the same example in every slice and build).
    pub example: String,
    /// `example` is a weak-bound symbol.
    #[serde(skip)]
    example_is_bound: bool,
}

/// Groups `image` by `by`; sorted by lookups, then weak-bound symbols, then exports (all
/// descending), then key.
pub fn group_image(image: &Image, names: &Demangled<'_>, by: GroupBy) -> Vec<Group> {
    /// Which figure a member adds to.
    enum Add {
        Bound(usize),
        Lookup,
        Export,
    }
    let mut groups: HashMap<String, Group> = HashMap::new();
    let mut seen_symbol: HashSet<&str> = HashSet::new();
    let members = image
        .bind_targets
        .iter()
        .map(|t| (t.symbol.as_str(), Add::Bound(t.sites.len())))
        .chain(
            image
                .lookups
                .iter()
                .map(|l| (l.symbol.as_str(), Add::Lookup)),
        )
        .chain(
            image
                .weak_definitions
                .iter()
                .map(|w| (w.name.as_str(), Add::Export)),
        );
    for (raw, add) in members {
        let name = names.lookup(raw);
        let name = name.as_ref();
        let key = by.key(name);
        let bound = matches!(add, Add::Bound(_));
        let g = match groups.get_mut(key.as_ref()) {
            Some(g) => g,
            None => groups
                .entry(key.into_owned())
                .or_insert_with_key(|k| Group {
                    key: k.clone(),
                    stats: GroupStats::default(),
                    example: name.demangled.clone(),
                    example_is_bound: bound,
                }),
        };
        if (bound && !g.example_is_bound)
            || (bound == g.example_is_bound && name.demangled < g.example)
        {
            g.example.clone_from(&name.demangled);
            g.example_is_bound = bound;
        }
        match add {
            Add::Bound(sites) => {
                g.stats.sites += sites;
                if seen_symbol.insert(raw) {
                    g.stats.weak_bound_symbols += 1;
                }
            }
            Add::Lookup => g.stats.lookups += 1,
            Add::Export => g.stats.weak_def_exports += 1,
        }
    }
    let mut out: Vec<Group> = groups.into_values().collect();
    out.sort_by(|a, b| {
        b.stats
            .lookups
            .cmp(&a.stats.lookups)
            .then(b.stats.weak_bound_symbols.cmp(&a.stats.weak_bound_symbols))
            .then(b.stats.weak_def_exports.cmp(&a.stats.weak_def_exports))
            .then(a.key.cmp(&b.key))
    });
    out
}

impl Group {
    /// A group with the given figures and example.
    pub fn new(key: String, stats: GroupStats, example: String) -> Self {
        Group {
            key,
            stats,
            example,
            example_is_bound: true,
        }
    }
}
