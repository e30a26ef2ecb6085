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

/// The four figures of a group (or of a whole image); `None` where the input cannot give the
/// figure (see [`Image`]'s accessors: a log has no exports, and may lack sites or lookups).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GroupStats {
    /// Distinct weak-bound symbol names.
    pub weak_bound_symbols: Option<usize>,
    /// Weak-def lookups: predicted for a binary, seen for a log.
    pub lookups: Option<usize>,
    /// Weak-bind fixup sites.
    pub sites: Option<usize>,
    /// Weak definitions exported.
    pub weak_def_exports: Option<usize>,
}

impl GroupStats {
    /// All-zero figures for the ones `image` has, `None` for the others.
    pub fn zero_for(image: &Image) -> Self {
        GroupStats {
            weak_bound_symbols: image.weak_bind_symbols().map(|_| 0),
            lookups: image.weak_lookups().map(|_| 0),
            sites: image.weak_bind_sites().map(|_| 0),
            weak_def_exports: image.weak_def_exports().map(|_| 0),
        }
    }
}

/// How many of a group's symbols one image supplied (logs only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SupplierCount {
    /// The image dyld chose: its full path from a lookup's `using` line, or its leaf name
    /// from a bind line when the log has no lookup lines; `(none)` when nothing defined it.
    pub image: String,
    /// Distinct symbols it supplied.
    pub symbols: usize,
}

impl SupplierCount {
    /// Image → symbol count as a list, most symbols first, then by image.
    pub fn list(counts: HashMap<&str, usize>) -> Vec<SupplierCount> {
        let mut list: Vec<SupplierCount> = counts
            .into_iter()
            .map(|(image, symbols)| SupplierCount {
                image: image.to_string(),
                symbols,
            })
            .collect();
        list.sort_by(|a, b| b.symbols.cmp(&a.symbols).then(a.image.cmp(&b.image)));
        list
    }
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
    /// Log only: the images dyld chose for the group's symbols, most first (`None` for a
    /// binary).
    pub suppliers: Option<Vec<SupplierCount>>,
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
    let zero = GroupStats::zero_for(image);
    let supplier_of = suppliers(image);
    let mut supplied: HashMap<String, HashMap<&str, usize>> = HashMap::new();
    let mut supplied_seen: HashSet<&str> = HashSet::new();
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
                    stats: zero,
                    example: name.demangled.clone(),
                    suppliers: None,
                    example_is_bound: bound,
                }),
        };
        if (bound && !g.example_is_bound)
            || (bound == g.example_is_bound && name.demangled < g.example)
        {
            g.example.clone_from(&name.demangled);
            g.example_is_bound = bound;
        }
        let add_to = |f: &mut Option<usize>, n: usize| {
            if let Some(v) = f {
                *v += n;
            }
        };
        match add {
            Add::Bound(sites) => {
                add_to(&mut g.stats.sites, sites);
                if seen_symbol.insert(raw) {
                    add_to(&mut g.stats.weak_bound_symbols, 1);
                }
            }
            Add::Lookup => add_to(&mut g.stats.lookups, 1),
            Add::Export => add_to(&mut g.stats.weak_def_exports, 1),
        }
        if let Some(who) = supplier_of.as_ref().and_then(|m| m.get(raw))
            && supplied_seen.insert(raw)
        {
            *supplied
                .entry(g.key.clone())
                .or_default()
                .entry(who)
                .or_default() += 1;
        }
    }
    if supplier_of.is_some() {
        for g in groups.values_mut() {
            g.suppliers = Some(SupplierCount::list(
                supplied.remove(&g.key).unwrap_or_default(),
            ));
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

/// For a log: raw symbol → the image dyld chose for it. From the lookups' `using` lines when
/// the log has them, else from the bind lines. `None` for a binary.
pub fn suppliers(image: &Image) -> Option<HashMap<&str, &str>> {
    let log = image.log()?;
    let mut map = HashMap::new();
    if log.lookups_known {
        for l in &image.lookups {
            let who = l.supplier.as_deref().unwrap_or(NO_SUPPLIER);
            // A bind target's own lookup decides (it is the last one for its symbol).
            map.insert(l.symbol.as_str(), who);
        }
    } else {
        for t in &image.bind_targets {
            map.insert(
                t.symbol.as_str(),
                t.supplier.as_deref().unwrap_or(NO_SUPPLIER),
            );
        }
    }
    Some(map)
}

/// The supplier shown when no image defined a symbol.
pub const NO_SUPPLIER: &str = "(none)";

impl Group {
    /// A group with the given figures and example.
    pub fn new(key: String, stats: GroupStats, example: String) -> Self {
        Group {
            key,
            stats,
            example,
            suppliers: None,
            example_is_bound: true,
        }
    }
}
