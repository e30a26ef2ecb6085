//! The fix plan: for each library an image's weak definitions come from, what compiling it
//! with hidden visibility would save, best first.
//!
//! A weak definition that is hidden is no longer exported, so the image no longer weak-binds
//! its own uses of it and dyld no longer looks it up at launch. Hiding one library's weak
//! definitions (`-fvisibility=hidden` on its translation units) therefore saves exactly its
//! row of `scan --by library`: its weak-bound symbols, their lookups and fixup sites, and its
//! weak-def exports. `-fvisibility-inlines-hidden` saves only the functions among them
//! ([`Entity::hidden_by_inlines_hidden`], an upper bound: the binary cannot tell an inline
//! function from an out-of-line template instantiation); function-local statics, their guard
//! variables and static data members of class templates stay exported.
//!
//! The launch time saved is an estimate, milliseconds (low, high): each lookup costs between
//! one trie probe at [`US_PER_PROBE`]`.0` and the measured [`US_PER_PROBE`]`.1` (nodejs/node#56275,
//! docs/process.md). In a whole process, where the probes are known, `weakscan process`'s
//! figures are the finer ones.
//!
//! Hiding a library also takes away its other exports, those that are not weak definitions
//! ([`Candidate::other_exports`]): an upper bound, since the binary cannot show which of them
//! the source marks `visibility("default")` or an export list keeps. Those an importer binds
//! to break it at load time (`scan --importer`, [`hidden_by`]).
//!
//! Symbols the attribution does not name are one candidate under their group key
//! ([`NO_DEBUG_INFO`], [`NO_ATTRIBUTION`]); symbols defined in another image are nobody's
//! change here and are left out.

use super::attribute::{NO_ATTRIBUTION, NO_DEBUG_INFO, Origin, Origins};
use super::demangle::{Demangled, Entity, NameRef};
use super::estimate::US_PER_PROBE;
use crate::model::Image;
use foldhash::{HashMap, HashMapExt};
use serde::Serialize;

/// Objects named per candidate, most lookups first.
pub const OBJECTS_PER_CANDIDATE: usize = 3;

/// What hiding a set of weak definitions saves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Savings {
    /// Weak-bound symbols no longer bound.
    pub weak_bound_symbols: usize,
    /// Weak-def lookups dyld no longer makes at launch (predicted for a binary, seen in a log).
    pub lookups: usize,
    /// Weak-bind fixup sites bound directly instead.
    pub sites: usize,
    /// Weak definitions no longer exported.
    pub weak_def_exports: usize,
    /// Estimated launch time saved, milliseconds (low, high): an estimate (module docs).
    pub estimated_ms: (f64, f64),
}

impl Savings {
    fn add(&mut self, t: &Tally) {
        self.weak_bound_symbols += t.weak_bound;
        self.lookups += t.lookups;
        self.sites += t.sites;
        self.weak_def_exports += t.exports;
    }

    fn with_estimate(mut self) -> Self {
        // Rounded to the microsecond: the calibration has no more precision.
        let ms = |us_per_lookup: f64| (self.lookups as f64 * us_per_lookup).round() / 1000.0;
        self.estimated_ms = (ms(US_PER_PROBE.0), ms(US_PER_PROBE.1));
        self
    }
}

/// How many of a candidate's weak-bound symbols are of each kind ([`Entity`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Kinds {
    /// Functions (the only kind `-fvisibility-inlines-hidden` hides).
    pub functions: usize,
    /// Variables and static data members.
    pub data: usize,
    /// Function-local statics (`_ZZ…`).
    pub local_statics: usize,
    /// Guard variables (`_ZGV…`).
    pub guard_variables: usize,
    /// Vtables, typeinfo, C names and the rest.
    pub other: usize,
}

impl Kinds {
    fn add(&mut self, e: Entity) {
        *match e {
            Entity::Function => &mut self.functions,
            Entity::Data => &mut self.data,
            Entity::LocalStatic => &mut self.local_statics,
            Entity::GuardVariable => &mut self.guard_variables,
            Entity::Other => &mut self.other,
        } += 1;
    }
}

/// Which flag the plan proposes for a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    /// `-fvisibility=hidden`: data, local statics or guard variables leak too.
    VisibilityHidden,
    /// `-fvisibility-inlines-hidden`: only functions leak, and it saves them all.
    VisibilityInlinesHidden,
}

impl Flag {
    /// The compiler option.
    pub fn option(self) -> &'static str {
        match self {
            Flag::VisibilityHidden => "-fvisibility=hidden",
            Flag::VisibilityInlinesHidden => "-fvisibility-inlines-hidden",
        }
    }
}

/// One object of a candidate.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PlanObject {
    /// Its key (`libfoo.a(foo.o)`).
    pub object: String,
    /// Its source file key (the object key when the debug map names no source).
    pub source: String,
    /// Lookups its weak definitions cost.
    pub lookups: usize,
    /// Its weak-bound symbols.
    pub weak_bound_symbols: usize,
}

/// One candidate change: hide the weak definitions of one library.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Candidate {
    /// The library key (as `--by library` prints it), or a group key of symbols the
    /// attribution does not name.
    pub library: String,
    /// The flag proposed ([`Flag`]).
    pub flag: Flag,
    /// Saved by `-fvisibility=hidden` on the whole library.
    pub hidden: Savings,
    /// Saved by `-fvisibility-inlines-hidden` (its functions only; an upper bound).
    pub inlines_hidden: Savings,
    /// Its weak-bound symbols by kind.
    pub kinds: Kinds,
    /// Its objects with the most lookups, at most [`OBJECTS_PER_CANDIDATE`].
    pub objects: Vec<PlanObject>,
    /// Its objects with weak definitions.
    pub objects_total: usize,
    /// Exports that are not weak definitions that hiding the library would also take away,
    /// unless the source marks them `visibility("default")` or an export list keeps them (an
    /// upper bound: the binary cannot show which).
    pub other_exports: usize,
    /// Up to [`OTHER_EXPORT_EXAMPLES`] of them, raw, in export-trie order.
    pub other_export_examples: Vec<String>,
    /// `scan --importer`: the importers that import some of the weak definitions it would
    /// hide, in the order given (they would fail to bind at load time).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imported_by: Vec<ImportedBy>,
}

/// One importer of a candidate's weak definitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportedBy {
    /// The importer's path.
    pub importer: String,
    /// How many of the weak definitions it imports.
    pub symbols: usize,
    /// Up to [`IMPORTED_EXAMPLES`] of them, in bind order.
    pub examples: Vec<ImportedName>,
}

/// One name an importer imports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportedName {
    /// As stored in the binaries (`__ZN3api5writeEi`).
    pub symbol: String,
    /// As c++filt prints it (`api::write(int)`; a C name without its `_`).
    pub name: String,
}

/// Examples of other exports named per candidate.
pub const OTHER_EXPORT_EXAMPLES: usize = 3;

/// Examples named per importer of a candidate.
pub const IMPORTED_EXAMPLES: usize = 5;

/// The exports of `image` that the candidate keyed `library` would hide: the weak definitions
/// and other exports its objects define (or, for a group key, the image's exports in that
/// group).
pub fn hidden_by<'i>(
    image: &'i Image,
    library: &str,
) -> std::collections::HashSet<std::borrow::Cow<'i, str>> {
    let origins = Origins::of(image);
    let mut hidden: std::collections::HashSet<std::borrow::Cow<'i, str>> = image
        .weak_definitions
        .iter()
        .map(|w| w.name.as_str())
        .filter(|n| match origins.origin(n) {
            Origin::Object(o) => o.library == library,
            Origin::NoDebugInfo => library == NO_DEBUG_INFO,
            Origin::Unattributed => library == NO_ATTRIBUTION,
            Origin::AnotherImage => false,
        })
        .map(std::borrow::Cow::Borrowed)
        .collect();
    let e = &image.other_exports;
    hidden.extend(
        (0..e.len())
            .filter(|&i| other_export_library(&origins, i) == library)
            .map(|i| e.name(i)),
    );
    hidden
}

/// The candidate key of the image's other export `i`: its object's library, else the group
/// of the exports the attribution does not name.
fn other_export_library<'o>(origins: &'o Origins<'_>, i: usize) -> &'o str {
    let Some(a) = origins.attribution() else {
        return NO_ATTRIBUTION;
    };
    match a.other_export_object(i) {
        Some(o) => &origins.objects()[o as usize].library,
        None => NO_DEBUG_INFO,
    }
}

/// Per library key, the image's other exports: how many, and the first
/// [`OTHER_EXPORT_EXAMPLES`] (indices). Objects are resolved to their library once each.
fn other_exports_by_library<'o>(
    image: &Image,
    origins: &'o Origins<'_>,
) -> HashMap<&'o str, (usize, Vec<usize>)> {
    let mut by_object: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); origins.objects().len()];
    let mut unnamed: (usize, Vec<usize>) = (0, Vec::new());
    let attribution = origins.attribution();
    for i in 0..image.other_exports.len() {
        let slot = match attribution.and_then(|a| a.other_export_object(i)) {
            Some(o) => &mut by_object[o as usize],
            None => &mut unnamed,
        };
        slot.0 += 1;
        if slot.1.len() < OTHER_EXPORT_EXAMPLES {
            slot.1.push(i);
        }
    }
    let mut libraries: HashMap<&str, (usize, Vec<usize>)> = HashMap::new();
    let unnamed_key = if attribution.is_some() {
        NO_DEBUG_INFO
    } else {
        NO_ATTRIBUTION
    };
    let keyed = origins
        .objects()
        .iter()
        .map(|k| k.library.as_str())
        .zip(by_object)
        .chain([(unnamed_key, unnamed)]);
    for (library, (n, examples)) in keyed.filter(|(_, (n, _))| *n > 0) {
        let entry = libraries.entry(library).or_default();
        entry.0 += n;
        entry.1.extend(examples);
    }
    // Examples in export-trie order, whichever objects they came from.
    for (_, examples) in libraries.values_mut() {
        examples.sort_unstable();
        examples.truncate(OTHER_EXPORT_EXAMPLES);
    }
    libraries
}

/// The fix plan of one image: candidates, most lookups saved first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FixPlan {
    /// Best first: lookups saved, then weak-bound symbols, then exports (descending), then key.
    pub candidates: Vec<Candidate>,
}

/// One object's (or one unattributed group's) figures while the plan is summed.
#[derive(Default)]
struct Tally {
    weak_bound: usize,
    lookups: usize,
    sites: usize,
    exports: usize,
    kinds: Kinds,
    functions: Savings,
}

/// Whose change a symbol is: an object of the attribution, or a group of unnamed symbols.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Owner {
    Object(u32),
    Unnamed(&'static str),
}

/// What kind of entity each raw name names ([`Entity`]): a scan's [`Demangled`] names, or an
/// index of them (a process: [`super::process_fix_plan::EntityIndex`]).
pub trait EntityOf {
    /// The entity `raw` names ([`Entity::Other`] for a name that is not C++).
    fn entity_of(&self, raw: &str) -> Entity;
}

impl EntityOf for Demangled<'_> {
    fn entity_of(&self, raw: &str) -> Entity {
        match self.get(raw) {
            NameRef::Cxx(n) => n.entity(),
            NameRef::Plain(_) => Entity::Other,
        }
    }
}

/// The fix plan of `image`, whose names `names` holds (as a scan demangles them).
pub fn fix_plan(image: &Image, names: &Demangled<'_>) -> FixPlan {
    fix_plan_of(image, &Origins::of(image), names)
}

/// [`fix_plan`], given `Origins::of(image)` and the entities of its names.
pub fn fix_plan_of(
    image: &Image,
    origins: &Origins<'_>,
    names: &(impl EntityOf + ?Sized),
) -> FixPlan {
    let tallies = tally_owners(image, names, origins);
    let mut libraries: HashMap<&str, (Savings, Savings, Kinds, Vec<PlanObject>)> = HashMap::new();
    for (owner, t) in &tallies {
        let (library, object) = match *owner {
            Owner::Unnamed(key) => (key, None),
            Owner::Object(o) => {
                let keys = &origins.objects()[o as usize];
                let object = PlanObject {
                    object: keys.object.clone(),
                    source: keys.source.clone(),
                    lookups: t.lookups,
                    weak_bound_symbols: t.weak_bound,
                };
                (keys.library.as_str(), Some(object))
            }
        };
        let entry = libraries.entry(library).or_default();
        entry.0.add(t);
        add_savings(&mut entry.1, &t.functions);
        add_kinds(&mut entry.2, &t.kinds);
        entry.3.extend(object);
    }
    let mut others = other_exports_by_library(image, origins);
    let mut candidates: Vec<Candidate> = libraries
        .into_iter()
        .map(|(library, (hidden, inlines, kinds, objects))| {
            let mut c = candidate(library, hidden, inlines, kinds, objects);
            if let Some((n, examples)) = others.remove(library) {
                c.other_exports = n;
                c.other_export_examples = examples
                    .into_iter()
                    .map(|i| image.other_exports.name(i).into_owned())
                    .collect();
            }
            c
        })
        .collect();
    candidates.sort_by(|a, b| {
        (
            b.hidden.lookups,
            b.hidden.weak_bound_symbols,
            b.hidden.weak_def_exports,
        )
            .cmp(&(
                a.hidden.lookups,
                a.hidden.weak_bound_symbols,
                a.hidden.weak_def_exports,
            ))
            .then_with(|| a.library.cmp(&b.library))
    });
    FixPlan { candidates }
}

/// One candidate from its summed figures.
fn candidate(
    library: &str,
    hidden: Savings,
    inlines: Savings,
    kinds: Kinds,
    mut objects: Vec<PlanObject>,
) -> Candidate {
    let objects_total = objects.len();
    objects.sort_by(|a, b| {
        (b.lookups, b.weak_bound_symbols)
            .cmp(&(a.lookups, a.weak_bound_symbols))
            .then_with(|| a.object.cmp(&b.object))
    });
    objects.truncate(OBJECTS_PER_CANDIDATE);
    let only_functions = kinds.functions > 0
        && (
            kinds.data,
            kinds.local_statics,
            kinds.guard_variables,
            kinds.other,
        ) == (0, 0, 0, 0);
    Candidate {
        library: library.to_string(),
        flag: if only_functions {
            Flag::VisibilityInlinesHidden
        } else {
            Flag::VisibilityHidden
        },
        hidden: hidden.with_estimate(),
        inlines_hidden: inlines.with_estimate(),
        kinds,
        objects,
        objects_total,
        other_exports: 0,
        other_export_examples: Vec::new(),
        imported_by: Vec::new(),
    }
}

/// Each owner's figures: its weak-bound symbols (each name once, defined here), their lookups
/// and sites, and its weak-def exports.
fn tally_owners(
    image: &Image,
    names: &(impl EntityOf + ?Sized),
    origins: &Origins<'_>,
) -> Vec<(Owner, Tally)> {
    let owner_of = |raw: &str| owner_of(origins, raw);
    let entity = |raw: &str| names.entity_of(raw);
    let mut tallies: HashMap<Owner, Tally> = HashMap::new();
    // Per bound name defined here: its owner and whether it is a function.
    let mut bound: HashMap<&str, (Owner, bool)> = HashMap::new();
    for t in image.bind_targets.iter().filter(|t| t.defined_here) {
        let Some(owner) = owner_of(&t.symbol) else {
            continue;
        };
        let e = entity(&t.symbol);
        let function = e.hidden_by_inlines_hidden();
        let tally = tallies.entry(owner).or_default();
        tally.sites += t.sites.len();
        if function {
            tally.functions.sites += t.sites.len();
        }
        if bound.insert(t.symbol.as_str(), (owner, function)).is_none() {
            tally.weak_bound += 1;
            tally.kinds.add(e);
            if function {
                tally.functions.weak_bound_symbols += 1;
            }
        }
    }
    // Lookups by their symbol's owner, as `--by library` counts them.
    for l in &image.lookups {
        let (owner, function) = match bound.get(l.symbol.as_str()) {
            Some(&known) => known,
            None => match owner_of(&l.symbol) {
                Some(owner) => (owner, entity(&l.symbol).hidden_by_inlines_hidden()),
                None => continue,
            },
        };
        let tally = tallies.entry(owner).or_default();
        tally.lookups += 1;
        if function {
            tally.functions.lookups += 1;
        }
    }
    for w in &image.weak_definitions {
        let (owner, function) = match bound.get(w.name.as_str()) {
            Some(&known) => known,
            None => match owner_of(&w.name) {
                Some(owner) => (owner, entity(&w.name).hidden_by_inlines_hidden()),
                None => continue,
            },
        };
        let tally = tallies.entry(owner).or_default();
        tally.exports += 1;
        if function {
            tally.functions.weak_def_exports += 1;
        }
    }
    tallies.into_iter().collect()
}

/// Whose change the symbol `raw` is, if the image defines it.
fn owner_of(origins: &Origins<'_>, raw: &str) -> Option<Owner> {
    match origins.origin(raw) {
        Origin::Object(_) => origins.object_of(raw).map(Owner::Object),
        Origin::NoDebugInfo => Some(Owner::Unnamed(NO_DEBUG_INFO)),
        Origin::Unattributed if origins.defines(raw) => Some(Owner::Unnamed(NO_ATTRIBUTION)),
        Origin::Unattributed => None,
        Origin::AnotherImage => None,
    }
}

/// One weak definition of an image, with the candidate that would hide it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hideable<'i> {
    /// Its raw name.
    pub name: &'i str,
    /// Its candidate's key ([`Candidate::library`]).
    pub library: &'i str,
    /// `-fvisibility-inlines-hidden` hides it too ([`Entity::hidden_by_inlines_hidden`]).
    pub function: bool,
}

/// Each weak definition of `image` (its export trie's, in order) with the candidate of
/// [`fix_plan`] that would hide it; `origins` is `Origins::of(image)`, `names` holds its names.
pub fn hideable<'i>(
    image: &'i Image,
    origins: &'i Origins<'i>,
    names: &(impl EntityOf + ?Sized),
) -> Vec<Hideable<'i>> {
    image
        .weak_definitions
        .iter()
        .filter_map(|w| {
            let library = match owner_of(origins, &w.name)? {
                Owner::Object(o) => origins.objects()[o as usize].library.as_str(),
                Owner::Unnamed(key) => key,
            };
            Some(Hideable {
                name: w.name.as_str(),
                library,
                function: names.entity_of(&w.name).hidden_by_inlines_hidden(),
            })
        })
        .collect()
}

fn add_savings(to: &mut Savings, s: &Savings) {
    to.weak_bound_symbols += s.weak_bound_symbols;
    to.lookups += s.lookups;
    to.sites += s.sites;
    to.weak_def_exports += s.weak_def_exports;
}

fn add_kinds(to: &mut Kinds, k: &Kinds) {
    to.functions += k.functions;
    to.data += k.data;
    to.local_statics += k.local_statics;
    to.guard_variables += k.guard_variables;
    to.other += k.other;
}
