//! Grouping an image's weak symbols by symbol, pattern, template or namespace.
//!
//! Keys come from [`SymbolName`], i.e. from the name engine's parse (`demangle::itanium`), never from a regex
//! on the printed name. Each group sums, over the symbols whose key it is:
//! weak-bound symbols (distinct names), predicted lookups, fixup sites, and weak-def exports.

use super::attribute::{NO_ATTRIBUTION, ObjectNames, Origin, OriginLevel, Origins};
use super::demangle::{Demangled, GLOBAL, Keys, NameRef, SymbolName, plain_text};
use crate::model::{Image, Name};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashMap;

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
    /// Where the symbol was compiled: its static library, object file or source file (see
    /// [`super::attribute`]).
    Origin(OriginLevel),
}

/// The key of `name` under [`GroupBy::Template`], borrowed from it (that key is never printed).
pub fn template_key(name: NameRef<'_>) -> &str {
    match name {
        NameRef::Cxx(_, n) => n.template(),
        NameRef::Plain(text) => text,
    }
}

impl GroupBy {
    /// The keys of a name that grouping by this reads ([`Keys`]).
    pub fn keys(self) -> Keys {
        match self {
            GroupBy::Symbol | GroupBy::Origin(_) => Keys::None,
            GroupBy::Pattern => Keys::All,
            GroupBy::Template => Keys::TemplateOnly,
            GroupBy::Namespace(_) => Keys::Template,
        }
    }

    /// The key of a symbol `raw` (its entry `name`) that comes from `origin`.
    pub fn key<'n>(self, raw: &'n str, name: &'n SymbolName, origin: &'n Origin) -> Cow<'n, str> {
        match self {
            GroupBy::Origin(level) => Cow::Borrowed(origin.key(level)),
            _ => self.key_of(NameRef::Cxx(raw, name)),
        }
    }

    /// The origin level grouped by, if any.
    pub fn origin_level(self) -> Option<OriginLevel> {
        match self {
            GroupBy::Origin(level) => Some(level),
            _ => None,
        }
    }

    /// The key of `name` under a grouping by name, borrowed from it ([`NO_ATTRIBUTION`] for
    /// an origin grouping: use [`GroupBy::key`]).
    pub fn key_of<'n>(self, name: NameRef<'n>) -> Cow<'n, str> {
        if let NameRef::Cxx(_, n) = name {
            debug_assert!(n.keys().include(self.keys()), "key not kept");
        }
        Cow::Borrowed(match (name, self) {
            // Printed here if it was not as it was read (a name demangled with all its keys).
            (NameRef::Cxx(raw, n), GroupBy::Symbol) => return n.demangled(raw),
            (NameRef::Cxx(_, n), GroupBy::Pattern) => n.pattern(),
            (name, GroupBy::Template) => template_key(name),
            (NameRef::Cxx(_, n), GroupBy::Namespace(depth)) => n.namespace(depth),
            (NameRef::Plain(_), GroupBy::Namespace(_)) => GLOBAL,
            (_, GroupBy::Origin(_)) => NO_ATTRIBUTION,
            (NameRef::Plain(text), _) => text,
        })
    }

    /// `symbol`, `pattern`, `template` or `namespace`.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Symbol => "symbol",
            GroupBy::Pattern => "pattern",
            GroupBy::Template => "template",
            GroupBy::Namespace(_) => "namespace",
            GroupBy::Origin(OriginLevel::Library) => "library",
            GroupBy::Origin(OriginLevel::Object) => "object",
            GroupBy::Origin(OriginLevel::Source) => "source",
        }
    }
}

/// The `group_by` value of a JSON document, as [`GroupBy::as_str`] writes it (the namespace
/// depth is a separate field); also `--by` and the policy's `[grouping] by`. Each value's
/// meaning is its `--by` help (`#[value(help)]`, kept off the variants' docs so that the JSON
/// Schema lists the values as a plain string enum).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[schemars(
    description = "How symbols are grouped, as `--by` names it (the namespace depth is a separate field)."
)]
pub enum GroupByName {
    #[value(help = "Each symbol on its own")]
    Symbol,
    #[value(help = "Template-argument and parameter lists collapsed")]
    Pattern,
    #[value(help = "The outermost templated entity")]
    Template,
    #[value(help = "The leading namespace components (`--depth`)")]
    Namespace,
    #[value(
        help = "The static library (or loose object file) each symbol was linked from (debug map, `--map` or `--dsym`)"
    )]
    Library,
    #[value(help = "The object file (archive member) each symbol was linked from")]
    Object,
    #[value(help = "The source file each symbol was compiled from")]
    Source,
}

impl GroupByName {
    /// The grouping, with `depth` namespace components for [`GroupByName::Namespace`].
    pub fn with_depth(self, depth: usize) -> GroupBy {
        match self {
            GroupByName::Symbol => GroupBy::Symbol,
            GroupByName::Pattern => GroupBy::Pattern,
            GroupByName::Template => GroupBy::Template,
            GroupByName::Namespace => GroupBy::Namespace(depth),
            GroupByName::Library => GroupBy::Origin(OriginLevel::Library),
            GroupByName::Object => GroupBy::Origin(OriginLevel::Object),
            GroupByName::Source => GroupBy::Origin(OriginLevel::Source),
        }
    }
}

/// The four figures of a group (or of a whole image); `None` where the input cannot give the
/// figure (see [`Image`]'s accessors: a log has no exports, and may lack sites or lookups).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
        // Which figures exist, without counting them (distinct names would hash every one).
        GroupStats {
            weak_bound_symbols: image.targets_known().then_some(0),
            lookups: image.weak_lookups().map(|_| 0),
            sites: image.sites_known().then_some(0),
            weak_def_exports: image.weak_def_exports().map(|_| 0),
        }
    }
}

/// How many of a group's symbols one image supplied (logs only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

/// Where a group's symbols come from: its dominant object, and how many objects contribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GroupFrom {
    /// The object key ([`super::attribute::OriginLevel::Object`]) with the most of the
    /// group's distinct symbols (ties: the lower key); empty when none has an object.
    pub object: String,
    /// The group's distinct symbols from it.
    pub symbols: usize,
    /// Distinct objects the group's symbols come from.
    pub objects: usize,
    /// The group's distinct symbols with no object (another image, not attributed).
    pub unattributed: usize,
}

/// One group of one image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Group {
    /// The grouping key.
    pub key: String,
    /// Its figures.
    #[serde(flatten)]
    pub stats: GroupStats,
    /// One demangled member: the first in sort order among the weak-bound ones, else among
    /// all members (so the same group shows the same example in every slice and build).
    pub example: String,
    /// `example`'s raw Mach-O symbol name (with its leading `_`).
    pub example_mangled: String,
    /// `--by symbol` only: the key's raw Mach-O name (the example's; names that print alike
    /// share a group).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mangled: Option<String>,
    /// Log only: the images dyld chose for the group's symbols, most first (`None` for a
    /// binary).
    pub suppliers: Option<Vec<SupplierCount>>,
    /// Where the group's symbols were compiled, when the image has an attribution and the
    /// grouping is not by origin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<GroupFrom>,
    /// `example` is a weak-bound symbol.
    #[serde(skip)]
    example_is_bound: bool,
}

/// Groups `image` by `by`; sorted by lookups, then weak-bound symbols, then exports (all
/// descending), then key.
pub fn group_image(image: &Image, names: &Demangled<'_>, by: GroupBy) -> Vec<Group> {
    let table = GroupTable::new(image, names, by);
    // Built on the pool: a Node.js build has 800 groups, each a scan of its members.
    crate::pool::map(&table.groups, |g| table.build(image, names, g))
}

/// No entry in [`Demangled`]: the member's name is shown plain.
const PLAIN: u32 = u32::MAX;

/// The groups of one image, held compactly: at most 8 bytes per member (16 with attribution) and 20 per group, with
/// no text. A group's key, example, sites and suppliers are worked out when it is read
/// ([`GroupTable::groups`]), so only the groups shown cost their text, one at a time.
///
/// The members are the image's weak-bind targets, then its lookups, then its weak-def exports,
/// numbered in that order; each group is a run of them sorted by key.
#[derive(Debug, Clone)]
pub struct GroupTable {
    by: GroupBy,
    zero: GroupStats,
    /// Members sorted by key, raw name, then number.
    order: Vec<u32>,
    /// Per member: the position of its entry in the [`Demangled`] used, or [`PLAIN`]; empty
    /// when that holds no entry (every name plain).
    entry: Vec<u32>,
    /// For an origin grouping: the distinct keys, and per member the index of its key.
    origin_keys: Vec<String>,
    origin_of: Vec<u32>,
    /// For another grouping of an attributed image: how its objects are named, and per
    /// member its object ([`PLAIN`] for none), for [`Group::from`].
    object_names: ObjectNames,
    object_of: Vec<u32>,
    /// Groups, sorted as [`group_image`] says.
    groups: Vec<GroupRec>,
    /// Groups before [`GroupTable::truncate`].
    total: usize,
}

/// One group: the run of [`GroupTable::order`] of `len` members from `start` (those of one
/// key), and the figures it sorts by (counted only where the image has the figure).
#[derive(Debug, Clone, Copy, Default)]
struct GroupRec {
    start: u32,
    len: u32,
    bound: u32,
    lookups: u32,
    exports: u32,
}

/// Which figure a member adds to.
#[derive(Clone, Copy)]
enum Add {
    Bound(usize),
    Lookup,
    Export,
}

/// A member's raw name and what it adds.
fn member(image: &Image, m: u32) -> (&str, Add) {
    let (name, add) = member_name(image, m);
    (name.as_str(), add)
}

/// [`member`] with the member's name, not yet its text.
fn member_name(image: &Image, m: u32) -> (&Name, Add) {
    let m = m as usize;
    let (b, l) = (image.bind_targets.len(), image.lookups.len());
    if m < b {
        let t = &image.bind_targets[m];
        (&t.symbol, Add::Bound(t.sites.len()))
    } else if m < b + l {
        (&image.lookups[m - b].symbol, Add::Lookup)
    } else {
        (&image.weak_definitions[m - b - l].name, Add::Export)
    }
}

/// `a` and `b` are one copy of a text ([`Name::copy_id`]): equal without reading them.
fn same_copy(a: &Name, b: &Name) -> bool {
    a.copy_id() == b.copy_id()
}

/// The copies of the names of `image`'s `n` members ([`Name::copy_id`]; a Node.js
/// build: 23k members, 10k copies): per member the number of its copy, and per copy its raw
/// name, in order of first use. What depends only on the name is then worked out per copy.
fn copies_of(image: &Image, n: u32) -> (Vec<u32>, Vec<&str>) {
    // By [`Name::copy_id`]: a member's text is read only when its copy is seen first.
    let mut seen: foldhash::HashMap<usize, u32> =
        foldhash::HashMap::with_capacity_and_hasher(n as usize, Default::default());
    // At most one copy per member; capacity never used is never touched.
    let mut raws: Vec<&str> = Vec::with_capacity(n as usize);
    let copy = (0..n)
        .map(|m| {
            let name = member_name(image, m).0;
            *seen.entry(name.copy_id()).or_insert_with(|| {
                raws.push(name.as_str());
                (raws.len() - 1) as u32
            })
        })
        .collect();
    (copy, raws)
}

/// The rank of each of `raws` in text order (equal texts, equal ranks), where `entry[i]` is
/// the position of `raws[i]` in a [`Demangled`] (sorted by raw text) or [`PLAIN`]: two names
/// with positions compare as those, any other pair as text (what a sort of the texts gives).
fn raw_ranks(raws: &[&str], entry: &[u32]) -> Vec<u32> {
    let cmp = |a: usize, b: usize| match (entry.get(a), entry.get(b)) {
        (Some(&x), Some(&y)) if x != PLAIN && y != PLAIN => x.cmp(&y),
        _ => raws[a].cmp(raws[b]),
    };
    let mut sorted: Vec<usize> = (0..raws.len()).collect();
    crate::pool::sort_unstable_by(&mut sorted, |&a, &b| cmp(a, b));
    let mut rank = vec![0u32; raws.len()];
    let mut r = 0u32;
    for (i, w) in sorted.iter().enumerate() {
        if i > 0 && cmp(sorted[i - 1], *w) != std::cmp::Ordering::Equal {
            r += 1;
        }
        rank[*w] = r;
    }
    rank
}

/// The members `0..key.len()` ordered by key rank, then raw rank, then number, where `key[m]`
/// and `raw[m]` are member `m`'s ranks (each below the member count, as [`key_ranks`] and
/// [`raw_ranks`] give them). Two stable counting sorts, by raw rank and then by key rank, over
/// the members in number order: O(members + ranks), and no comparison, which on a Node.js
/// build's 16k members costs about half a comparison sort (most of it the page faults of its
/// four fresh lists).
fn order_by_ranks(key: &[u32], raw: &[u32]) -> Vec<u32> {
    debug_assert_eq!(key.len(), raw.len());
    /// `items` stably sorted by `rank[item]`.
    fn by(rank: &[u32], items: &[u32]) -> Vec<u32> {
        let buckets = items.iter().map(|&m| rank[m as usize] as usize + 1).max();
        let mut next = vec![0u32; buckets.unwrap_or(0) + 1];
        for &m in items {
            next[rank[m as usize] as usize + 1] += 1;
        }
        for b in 1..next.len() {
            next[b] += next[b - 1];
        }
        let mut out = vec![0u32; items.len()];
        for &m in items {
            let at = &mut next[rank[m as usize] as usize];
            out[*at as usize] = m;
            *at += 1;
        }
        out
    }
    let members: Vec<u32> = (0..key.len() as u32).collect();
    by(key, &by(raw, &members))
}

/// Groups [`GroupTable::groups`] builds at the same time: a batch's groups are held at once.
pub const GROUPS_BUILT_AT_ONCE: usize = 64;

impl GroupTable {
    /// Groups `image` by `by`, with `names` holding its demangled names.
    pub fn new(image: &Image, names: &Demangled<'_>, by: GroupBy) -> GroupTable {
        let n = image.bind_targets.len() + image.lookups.len() + image.weak_definitions.len();
        let n = u32::try_from(n).expect("fewer than 2^32 members: each costs a name");
        let zero = GroupStats::zero_for(image);
        let (origin_keys, origin_of) = match by.origin_level() {
            Some(level) => origin_keys(image, level, n),
            None => (Vec::new(), Vec::new()),
        };
        let attribution = image
            .attribution
            .as_deref()
            .filter(|_| by.origin_level().is_none());
        let object_names = attribution.map(ObjectNames::of).unwrap_or_default();
        // What depends only on the name, once per copy of it.
        let (copy, raws) = copies_of(image, n);
        let copy_entry: Vec<u32> = if names.is_empty() {
            Vec::new()
        } else {
            names.index_positions();
            crate::pool::map(&raws, |raw| names.position(raw).unwrap_or(PLAIN))
        };
        let per_member =
            |of: &[u32]| -> Vec<u32> { copy.iter().map(|&c| of[c as usize]).collect() };
        let origin_grouped = !origin_of.is_empty();
        // Each member's key ranked among the image's keys, and its raw name among its names,
        // both in text order: the sort compares integers, not the long texts (V8's keys share
        // their first 20 bytes), in the same order as the texts. A name's key is worked out
        // once per copy of it, except under an origin grouping (the key is the member's, below).
        // The key ranks, the raw ranks and the objects depend on the copies only: worked out at
        // the same time on the pool (a scan groups one image, so the pool's other thread is
        // free once the summary is counted).
        let key_of_copy = |c: usize| {
            let name = match copy_entry.get(c).copied().unwrap_or(PLAIN) {
                PLAIN => NameRef::Plain(plain_text(raws[c], names.style())),
                p => names.name_at(p),
            };
            by.key_of(name)
        };
        let (copy_key, (raw, object_of)) = crate::pool::join(
            || (!origin_grouped).then(|| per_member(&key_ranks((0..raws.len()).map(key_of_copy)))),
            || {
                crate::pool::join(
                    || per_member(&raw_ranks(&raws, &copy_entry)),
                    || match attribution {
                        Some(a) => per_member(
                            &raws
                                .iter()
                                .map(|raw| a.symbols.get(*raw).copied().unwrap_or(PLAIN))
                                .collect::<Vec<u32>>(),
                        ),
                        None => Vec::new(),
                    },
                )
            },
        );
        // Empty when unused (see the fields).
        let entry = if copy_entry.is_empty() {
            Vec::new()
        } else {
            per_member(&copy_entry)
        };
        let mut table = GroupTable {
            by,
            zero,
            order: Vec::new(),
            entry,
            origin_keys,
            origin_of,
            object_names,
            object_of,
            groups: Vec::new(),
            total: 0,
        };
        let key = match copy_key {
            Some(key) => key,
            None => key_ranks((0..n).map(|m| table.key(image, names, m))),
        };
        // Key, then raw name, then number.
        let order = order_by_ranks(&key, &raw);
        let key = |m: u32| key[m as usize];
        // Runs counted first, so the list is allocated once, at its size.
        let runs = 1 + order.windows(2).filter(|w| key(w[0]) != key(w[1])).count();
        let mut groups = Vec::with_capacity(if order.is_empty() { 0 } else { runs });
        let mut i = 0;
        while i < order.len() {
            let k = key(order[i]);
            let mut g = GroupRec {
                start: i as u32,
                ..GroupRec::default()
            };
            let mut last_bound: Option<u32> = None;
            while i < order.len() && key(order[i]) == k {
                let m = order[i];
                match member(image, m).1 {
                    Add::Bound(_) => {
                        // Members of one name (one raw rank) are adjacent, the bound ones
                        // first.
                        if last_bound != Some(raw[m as usize]) {
                            g.bound += 1;
                            last_bound = Some(raw[m as usize]);
                        }
                    }
                    Add::Lookup => g.lookups += 1,
                    Add::Export => g.exports += 1,
                }
                i += 1;
            }
            g.len = i as u32 - g.start;
            // Figures the image does not have are not counted (as `None` they sort equal).
            if zero.weak_bound_symbols.is_none() {
                g.bound = 0;
            }
            if zero.lookups.is_none() {
                g.lookups = 0;
            }
            if zero.weak_def_exports.is_none() {
                g.exports = 0;
            }
            groups.push(g);
        }
        groups.sort_unstable_by(|a, b| {
            b.lookups
                .cmp(&a.lookups)
                .then(b.bound.cmp(&a.bound))
                .then(b.exports.cmp(&a.exports))
                .then_with(|| key(order[a.start as usize]).cmp(&key(order[b.start as usize])))
        });
        table.total = groups.len();
        table.order = order;
        table.groups = groups;
        table
    }

    /// The key of member `m`.
    fn key<'n>(&'n self, image: &'n Image, names: &'n Demangled<'_>, m: u32) -> Cow<'n, str> {
        match self.origin_of.get(m as usize) {
            Some(&k) => Cow::Borrowed(&self.origin_keys[k as usize]),
            None => self.by.key_of(self.name(image, names, m)),
        }
    }

    /// The name of member `m`.
    fn name<'n>(&self, image: &'n Image, names: &'n Demangled<'_>, m: u32) -> NameRef<'n> {
        match self.entry.get(m as usize).copied().unwrap_or(PLAIN) {
            PLAIN => NameRef::Plain(plain_text(member(image, m).0, names.style())),
            p => names.name_at(p),
        }
    }

    /// Keeps the first `n` groups.
    pub fn truncate(&mut self, n: usize) {
        self.groups.truncate(n);
    }

    /// Groups kept.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// No group kept.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Groups before [`GroupTable::truncate`].
    pub fn total(&self) -> usize {
        self.total
    }

    /// The groups kept, in order, built [`GROUPS_BUILT_AT_ONCE`] at a time on the pool as they
    /// are read; `image` and `names` must be those the table was made from.
    pub fn groups<'r>(
        &'r self,
        image: &'r Image,
        names: &'r Demangled<'_>,
    ) -> impl Iterator<Item = Group> + 'r {
        // A group's example reads the printed names of all its members (Node.js 22's largest
        // group: 2k names): the table's 20 groups, 0.4 ms on one thread, are built on both.
        self.groups
            .chunks(GROUPS_BUILT_AT_ONCE)
            .flat_map(move |some| crate::pool::map(some, |g| self.build(image, names, g)))
    }

    /// Each group's key and figures, in the table's order (index `i` is the group
    /// [`GroupTable::example`] takes): what a diff pairs, without building the groups.
    pub fn key_stats<'r>(
        &'r self,
        image: &'r Image,
        names: &'r Demangled<'_>,
    ) -> Vec<(Cow<'r, str>, GroupStats)> {
        self.groups
            .iter()
            .map(|g| {
                let members = self.members(g);
                (self.key(image, names, members[0]), self.stats(image, g))
            })
            .collect()
    }

    /// The example of group `i` (of [`GroupTable::key_stats`]) and its raw name, as
    /// [`Group::example`] and [`Group::example_mangled`].
    ///
    /// Panics: `i` is not below the number of groups kept ([`GroupTable::len`]).
    pub fn example(&self, image: &Image, names: &Demangled<'_>, i: usize) -> (String, String) {
        let (_, example, mangled) = self.example_of(image, names, self.members(&self.groups[i]));
        (example.to_string(), mangled.to_string())
    }

    /// Where the symbols of group `i` (of [`GroupTable::key_stats`]) come from, as
    /// [`Group::from`].
    ///
    /// Panics: `i` is not below the number of groups kept ([`GroupTable::len`]).
    pub fn from_of(&self, image: &Image, i: usize) -> Option<GroupFrom> {
        self.from(image, self.members(&self.groups[i]))
    }

    /// The members of `g`.
    fn members(&self, g: &GroupRec) -> &[u32] {
        &self.order[g.start as usize..(g.start + g.len) as usize]
    }

    /// The figures of `g` (those the image has).
    fn stats(&self, image: &Image, g: &GroupRec) -> GroupStats {
        let sites: usize = self
            .members(g)
            .iter()
            .map(|&m| match member(image, m).1 {
                Add::Bound(n) => n,
                _ => 0,
            })
            .sum();
        let z = self.zero;
        GroupStats {
            weak_bound_symbols: z.weak_bound_symbols.map(|_| g.bound as usize),
            lookups: z.lookups.map(|_| g.lookups as usize),
            sites: z.sites.map(|_| sites),
            weak_def_exports: z.weak_def_exports.map(|_| g.exports as usize),
        }
    }

    /// The least raw name among the bound members, else among all: (bound, printed, raw), or
    /// empty texts for no member. Chosen by the raw name, which no printer changes (and only the
    /// one chosen is printed).
    fn example_of<'n>(
        &self,
        image: &'n Image,
        names: &'n Demangled<'_>,
        members: &[u32],
    ) -> (bool, Cow<'n, str>, &'n str) {
        let mut example: Option<(bool, &str, u32)> = None;
        let mut last: Option<&Name> = None;
        for &m in members {
            let (name, add) = member_name(image, m);
            // The members of one copy of a name are adjacent, the bound one first: the others
            // have the same text and are not bound, so never better (a Node.js build's largest
            // group: 2k names, each a bind target and a weak definition).
            if last.is_some_and(|l| same_copy(l, name)) {
                continue;
            }
            last = Some(name);
            let raw = name.as_str();
            let bound = matches!(add, Add::Bound(_));
            let better = match example {
                None => true,
                Some((was_bound, was_raw, _)) => {
                    (bound && !was_bound) || (bound == was_bound && raw < was_raw)
                }
            };
            if better {
                example = Some((bound, raw, m));
            }
        }
        match example {
            Some((bound, raw, m)) => (bound, self.name(image, names, m).demangled(), raw),
            None => (false, Cow::Borrowed(""), ""),
        }
    }

    fn build(&self, image: &Image, names: &Demangled<'_>, g: &GroupRec) -> Group {
        let members = self.members(g);
        let key = self.key(image, names, members[0]).to_string();
        let (example_is_bound, example, example_mangled) = self.example_of(image, names, members);
        Group {
            key,
            stats: self.stats(image, g),
            example: example.into_owned(),
            example_mangled: example_mangled.to_string(),
            mangled: (self.by == GroupBy::Symbol).then(|| example_mangled.to_string()),
            suppliers: image
                .log()
                .map(|log| group_suppliers(image, log.lookups_known, members)),
            from: self.from(image, members),
            example_is_bound,
        }
    }
}

impl GroupTable {
    /// The dominant object of `members` (adjacent by name), if the image is attributed.
    fn from(&self, image: &Image, members: &[u32]) -> Option<GroupFrom> {
        if self.object_of.is_empty() {
            return None;
        }
        let mut counts: foldhash::HashMap<u32, usize> = Default::default();
        let mut unattributed = 0usize;
        let mut last: Option<&Name> = None;
        for &m in members {
            let name = member_name(image, m).0;
            if last.is_some_and(|l| same_copy(l, name) || l == name) {
                continue;
            }
            last = Some(name);
            match self.object_of[m as usize] {
                PLAIN => unattributed += 1,
                o => *counts.entry(o).or_default() += 1,
            }
        }
        let objects = counts.len();
        // Most symbols, then the first name, then the first object: a total order, so the pick
        // never depends on the (seeded) map's order. Only the objects with the most symbols
        // are named.
        let symbols = counts.values().copied().max().unwrap_or(0);
        let name = |o: u32| match image.attribution.as_deref() {
            Some(a) => self.object_names.name(a, o as usize),
            None => String::new(),
        };
        let object = counts
            .iter()
            .filter(|&(_, &n)| n == symbols)
            .map(|(&o, _)| (name(o), o))
            .min()
            .map(|(name, _)| name)
            .unwrap_or_default();
        Some(GroupFrom {
            object,
            symbols,
            objects,
            unattributed,
        })
    }
}

/// The rank of each of `keys` among their distinct values in text order (equal texts, equal
/// ranks).
fn key_ranks<'k>(keys: impl Iterator<Item = Cow<'k, str>>) -> Vec<u32> {
    // Each key hashed once: numbered in order of first use, the distinct ones sorted, then
    // each number mapped to its rank (a Node.js build: 10k keys, 2.5k distinct).
    let mut number: foldhash::HashMap<Cow<'k, str>, u32> = Default::default();
    let numbers: Vec<u32> = keys
        .map(|k| {
            let next = number.len() as u32;
            *number.entry(k).or_insert(next)
        })
        .collect();
    let mut distinct: Vec<(Cow<'k, str>, u32)> = number.into_iter().collect();
    distinct.sort_unstable();
    let mut rank = vec![0u32; distinct.len()];
    for (r, (_, n)) in distinct.into_iter().enumerate() {
        rank[n as usize] = r as u32;
    }
    numbers.into_iter().map(|n| rank[n as usize]).collect()
}

/// For an origin grouping: the distinct keys of `image`'s `n` members at `level`, and per
/// member the index of its key.
fn origin_keys(image: &Image, level: OriginLevel, n: u32) -> (Vec<String>, Vec<u32>) {
    let origins = Origins::of(image);
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut keys = Vec::new();
    let of = (0..n)
        .map(|m| {
            let origin = origins.origin(member(image, m).0);
            let key = origin.key(level);
            match index.get(key) {
                Some(&k) => k,
                None => {
                    let k = keys.len() as u32;
                    keys.push(key.to_string());
                    index.insert(key.to_string(), k);
                    k
                }
            }
        })
        .collect();
    (keys, of)
}

/// How many of `members`' names each image supplied: per name, the image of its last lookup
/// when the log has lookup lines, else of its last bind target (see [`suppliers`]).
fn group_suppliers(image: &Image, lookups_known: bool, members: &[u32]) -> Vec<SupplierCount> {
    let b = image.bind_targets.len();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut i = 0;
    while i < members.len() {
        let name = member(image, members[i]).0;
        let mut who = None;
        while i < members.len() && member(image, members[i]).0 == name {
            let m = members[i] as usize;
            if lookups_known {
                if let Some(l) = m.checked_sub(b).and_then(|k| image.lookups.get(k)) {
                    who = Some(l.supplier.as_deref().unwrap_or(NO_SUPPLIER));
                }
            } else if let Some(t) = image.bind_targets.get(m) {
                who = Some(t.supplier.as_deref().unwrap_or(NO_SUPPLIER));
            }
            i += 1;
        }
        if let Some(who) = who {
            *counts.entry(who).or_default() += 1;
        }
    }
    SupplierCount::list(counts)
}

/// Per log image: how many of its names each image supplied (see [`suppliers`]); `None` for
/// a binary. Sorts member numbers rather than building a map of every name.
pub fn supplier_counts(image: &Image) -> Option<Vec<SupplierCount>> {
    let log = image.log()?;
    let n = image.bind_targets.len() + image.lookups.len();
    let n = u32::try_from(n).expect("fewer than 2^32 members: each costs a name");
    let mut members: Vec<u32> = (0..n).collect();
    members.sort_unstable_by(|&a, &b| member(image, a).0.cmp(member(image, b).0).then(a.cmp(&b)));
    Some(group_suppliers(image, log.lookups_known, &members))
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
    /// A group with the given figures and example (`example_mangled` its raw name).
    pub fn new(key: String, stats: GroupStats, example: String, example_mangled: String) -> Self {
        Group {
            key,
            stats,
            example,
            example_mangled,
            mangled: None,
            suppliers: None,
            from: None,
            example_is_bound: true,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{Attribution, AttributionSource, Name, ObjectOrigin, WeakDefinition};

    /// An image weak-defining `defs`, attributed by a debug map of `objects` (`symbols`: a
    /// name and its object's index). Also the fix plan's tests' image.
    pub(crate) fn image(defs: &[&str], objects: &[&str], symbols: &[(&str, u32)]) -> Image {
        Image {
            weak_definitions: defs
                .iter()
                .map(|d| WeakDefinition {
                    name: Name::from(*d),
                    thread_local: false,
                    address: None,
                })
                .collect(),
            attribution: Some(Box::new(Attribution {
                from: AttributionSource::DebugMap,
                objects: objects
                    .iter()
                    .map(|p| ObjectOrigin {
                        path: Name::from(*p),
                        source: None,
                    })
                    .collect(),
                symbols: symbols.iter().map(|&(s, o)| (Name::from(s), o)).collect(),
                other_exports: Vec::new(),
                unplaced: 0,
                definers: None,
                compiled: Vec::new(),
            })),
            ..Image::bare()
        }
    }

    /// The distinct `_Z` names of `texts`, sorted (what a [`Demangled`] of them holds).
    fn sorted_cxx<'a>(texts: &[&'a str]) -> Vec<&'a str> {
        let mut cxx: Vec<&str> = texts
            .iter()
            .copied()
            .filter(|t| t.starts_with("__Z"))
            .collect();
        cxx.sort_unstable();
        cxx.dedup();
        cxx
    }

    /// Each text's rank among the distinct texts, in text order.
    fn text_ranks(texts: &[&str]) -> Vec<u32> {
        let mut distinct = texts.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        texts
            .iter()
            .map(|t| distinct.binary_search(t).unwrap() as u32)
            .collect()
    }

    #[test]
    fn key_ranks_are_ranks_among_the_distinct_keys_in_text_order() {
        let keys = [
            "v8::b", "a", "v8::a", "a", "", "v8::b", "b", "", "z<…>", "a",
        ];
        assert_eq!(
            key_ranks(keys.iter().map(|&k| Cow::Borrowed(k))),
            text_ranks(&keys)
        );
        assert!(key_ranks(std::iter::empty()).is_empty());
    }

    #[test]
    fn members_are_ordered_by_key_rank_then_raw_rank_then_number() {
        // Pseudo-random ranks with many ties (few keys, fewer raw names than members), and the
        // edge cases: no member, one member, every rank equal.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |bound: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % u64::from(bound)) as u32
        };
        for (n, keys, raws) in [
            (0, 1, 1),
            (1, 1, 1),
            (50, 1, 1),
            (2000, 7, 300),
            (5000, 4000, 2),
        ] {
            let key: Vec<u32> = (0..n).map(|_| next(keys)).collect();
            let raw: Vec<u32> = (0..n).map(|_| next(raws)).collect();
            let mut want: Vec<u32> = (0..n).collect();
            want.sort_by_key(|&m| (key[m as usize], raw[m as usize], m));
            assert_eq!(order_by_ranks(&key, &raw), want, "{n} members");
        }
    }

    #[test]
    fn raw_ranks_are_text_order_whether_names_have_entries_or_not() {
        // Texts in a scrambled order, one text twice (two copies of one name); the `_Z` ones
        // have entries: their positions among the sorted `_Z` texts, as a `Demangled` gives.
        let raws = [
            "__Z1gv", "_b", "__Z1fv", "_a", "__Z1gv", "__Z", "_zz", "__Z1av", "__Y",
        ];
        let cxx = sorted_cxx(&raws);
        let entry: Vec<u32> = raws
            .iter()
            .map(|r| match cxx.binary_search(r) {
                Ok(p) => p as u32,
                Err(_) => PLAIN,
            })
            .collect();
        let want = text_ranks(&raws);
        assert_eq!(raw_ranks(&raws, &entry), want);
        // Without entries (no name demangled): the same.
        assert_eq!(raw_ranks(&raws, &[]), want);
        assert!(raw_ranks(&[], &[]).is_empty());
    }

    #[test]
    fn a_group_comes_from_its_object_with_most_symbols_ties_to_the_lower_name() {
        // Three instances of one template: two objects with one symbol each (the later object
        // has the lower name), then a third object with two.
        let defs = ["__Z1fIiEvv", "__Z1fIlEvv", "__Z1fIcEvv"];
        let names = Demangled::of_sorted(
            {
                let mut d = defs.to_vec();
                d.sort_unstable();
                d
            },
            64,
            GroupBy::Template.keys(),
            crate::analysis::demangle::NameStyle::Demangled,
        )
        .unwrap();
        let objects = ["/b/libz.a(z.o)", "/b/liba.a(a.o)", "/b/libm.a(m.o)"];
        let tie = image(&defs[..2], &objects, &[(defs[0], 0), (defs[1], 1)]);
        let groups = group_image(&tie, &names, GroupBy::Template);
        let from = groups[0].from.as_ref().unwrap();
        assert_eq!(
            (
                from.object.as_str(),
                from.symbols,
                from.objects,
                from.unattributed
            ),
            ("liba.a(a.o)", 1, 2, 0)
        );
        let most = image(&defs, &objects, &[(defs[0], 0), (defs[1], 2), (defs[2], 2)]);
        let groups = group_image(&most, &names, GroupBy::Template);
        let from = groups[0].from.as_ref().unwrap();
        assert_eq!(
            (from.object.as_str(), from.symbols, from.objects),
            ("libm.a(m.o)", 2, 2)
        );
        let none = image(&defs[..1], &objects, &[]);
        let groups = group_image(&none, &names, GroupBy::Template);
        let from = groups[0].from.as_ref().unwrap();
        assert_eq!(
            (from.object.as_str(), from.symbols, from.unattributed),
            ("", 0, 1)
        );
    }

    #[test]
    fn key_stats_and_examples_are_the_built_groups_own() {
        // Several templates, a name defined twice in one group, and a C name: the keys, figures
        // and examples a diff reads without building the groups are those of the groups built.
        let defs = [
            "__Z1fIiEvv",
            "__Z1fIlEvv",
            "__Z1gIcEvv",
            "__Z1fIcEvv",
            "_c_name",
            "__Z1hv",
        ];
        let cxx = sorted_cxx(&defs);
        for by in [GroupBy::Template, GroupBy::Symbol, GroupBy::Pattern] {
            let names = Demangled::of_sorted(
                cxx.clone(),
                64,
                by.keys(),
                crate::analysis::demangle::NameStyle::Demangled,
            )
            .unwrap();
            let img = image(&defs, &["/b/liba.a(a.o)"], &[(defs[0], 0), (defs[2], 0)]);
            let table = GroupTable::new(&img, &names, by);
            let built: Vec<Group> = table.groups(&img, &names).collect();
            let key_stats = table.key_stats(&img, &names);
            assert_eq!(key_stats.len(), built.len());
            for (i, g) in built.iter().enumerate() {
                assert_eq!(
                    key_stats[i],
                    (Cow::Borrowed(g.key.as_str()), g.stats),
                    "{by:?} {i}"
                );
                assert_eq!(
                    table.example(&img, &names, i),
                    (g.example.clone(), g.example_mangled.clone()),
                    "{by:?} {i}"
                );
            }
        }
    }
}
