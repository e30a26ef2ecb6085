//! The hierarchy of a report's treemap: where the weak symbols of one image (or of two
//! versions of it) come from, with their figures at every level.
//!
//! ```text
//! with attribution (a debug map, --map, --dsym):  library → object → template → symbol
//! without:                                        namespace → template → symbol
//! Node { label, mangled (symbols only), old: Figures, new: Figures, children }
//! Figures { lookups, sites, exports }      // summed over the symbols below
//! ```
//!
//! A scan has no old side (all zero). Keys are those of `--by library|object|template|namespace`
//! ([`GroupBy::key`]), so a rectangle and a table row of the same group agree.

use super::attribute::OriginLevel;
use super::demangle::Demangled;
use super::group::GroupBy;
use super::tally::{SymbolEntry, tally};
use crate::model::Image;
use crate::text::clip_name;
use serde::Serialize;
use std::collections::BTreeMap;

/// The figures a treemap can size its rectangles by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Figures {
    /// Predicted (or, from a log, seen) weak-def lookups.
    pub lookups: usize,
    /// Weak-bind sites.
    pub sites: usize,
    /// Weak-def exports.
    pub exports: usize,
}

impl Figures {
    fn of(e: &SymbolEntry) -> Self {
        Figures {
            lookups: e.lookups,
            sites: e.sites,
            exports: e.weak_defs,
        }
    }

    fn add(&mut self, o: &Figures) {
        self.lookups += o.lookups;
        self.sites += o.sites;
        self.exports += o.exports;
    }

    /// The figure `metric` names.
    pub fn get(&self, metric: Metric) -> usize {
        match metric {
            Metric::Lookups => self.lookups,
            Metric::Sites => self.sites,
            Metric::Exports => self.exports,
        }
    }
}

/// What a rectangle's area stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Weak-def lookups.
    Lookups,
    /// Weak-bind sites.
    Sites,
    /// Weak-def exports.
    Exports,
}

impl Metric {
    /// Every metric, the default first.
    pub const ALL: [Metric; 3] = [Metric::Lookups, Metric::Sites, Metric::Exports];

    /// Its name in the report (`lookups`, `sites`, `exports`).
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Lookups => "lookups",
            Metric::Sites => "sites",
            Metric::Exports => "exports",
        }
    }
}

/// One level of the hierarchy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    /// The group key, or for a symbol its name as c++filt prints it; clipped to
    /// [`crate::text::NAME_LIMIT`] characters.
    pub label: String,
    /// A symbol's raw name (`None` above the symbols).
    pub mangled: Option<String>,
    /// The old version's figures (zero in a scan).
    pub old: Figures,
    /// The (new) figures.
    pub new: Figures,
    /// The level below, sorted by label.
    pub children: Vec<Node>,
}

impl Node {
    /// Leaves (symbols) under this node.
    pub fn leaves(&self) -> usize {
        if self.children.is_empty() {
            1
        } else {
            self.children.iter().map(Node::leaves).sum()
        }
    }
}

/// The level names, top first, of a tree built from images with or without attribution.
pub fn levels(attributed: bool) -> &'static [&'static str] {
    if attributed {
        &["library", "object", "template", "symbol"]
    } else {
        &["namespace", "template", "symbol"]
    }
}

/// The tree of `new` (and of `old`, in a diff). `names` must hold every raw name of both (see
/// [`crate::analysis::demangle::demangle_all`]). The root's label is `root`.
pub fn tree(old: Option<&Image>, new: &Image, names: &Demangled<'_>) -> (Node, bool) {
    let attributed = new.attribution.is_some() || old.is_some_and(|o| o.attribution.is_some());
    let groupings: Vec<GroupBy> = if attributed {
        vec![
            GroupBy::Origin(OriginLevel::Library),
            GroupBy::Origin(OriginLevel::Object),
            GroupBy::Template,
        ]
    } else {
        vec![GroupBy::Namespace(2), GroupBy::Template]
    };
    // path of keys → (old, new), leaves by raw name.
    #[derive(Default)]
    struct Acc {
        old: Figures,
        new: Figures,
        children: BTreeMap<String, Acc>,
        mangled: Option<String>,
    }
    let mut root = Acc::default();
    let mut put = |entries: &[SymbolEntry], is_new: bool| {
        for e in entries {
            let f = Figures::of(e);
            if f == Figures::default() && !e.weak_bound {
                continue;
            }
            let name = names.lookup(&e.raw);
            let mut node = &mut root;
            let mut path: Vec<String> = groupings
                .iter()
                .map(|g| g.key(&e.raw, &name, &e.origin).into_owned())
                .collect();
            path.push(format!("{}\u{0}{}", name.demangled(&e.raw), e.raw));
            for (depth, key) in path.into_iter().enumerate() {
                let side = if is_new { &mut node.new } else { &mut node.old };
                side.add(&f);
                node = node.children.entry(key).or_default();
                if depth == groupings.len() {
                    node.mangled = Some(e.raw.clone());
                }
            }
            let side = if is_new { &mut node.new } else { &mut node.old };
            side.add(&f);
        }
    };
    if let Some(o) = old {
        put(&tally(o), false);
    }
    put(&tally(new), true);
    fn finish(label: String, a: Acc) -> Node {
        // Children stay in the order of their whole keys; the labels are clipped.
        let label = match a.mangled {
            Some(_) => label.split('\u{0}').next().unwrap_or_default(),
            None => label.as_str(),
        };
        let label = clip_name(label).into_owned();
        Node {
            label,
            mangled: a.mangled,
            old: a.old,
            new: a.new,
            children: a.children.into_iter().map(|(k, v)| finish(k, v)).collect(),
        }
    }
    (finish("root".into(), root), attributed)
}
