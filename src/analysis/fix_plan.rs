//! The fix plan: for each library an image's weak definitions come from, what compiling it
//! with hidden visibility would save, best first.
//!
//! A weak definition that is hidden is no longer exported, so the image no longer weak-binds
//! its own uses of it and dyld no longer looks it up at launch. Hiding one library's weak
//! definitions (`-fvisibility=hidden` on its translation units) therefore saves exactly its
//! row of `scan --by library`: its weak-bound symbols, their lookups and fixup sites, and its
//! weak-def exports. What `-fvisibility-inlines-hidden` saves is a range
//! ([`Candidate::inlines_hidden_at_least`] to [`Candidate::inlines_hidden`]): on Darwin it
//! hides inline functions and the function-local statics and guard variables of the functions
//! it hides, and keeps variables, explicit instantiations and non-inline templates; the name
//! tells which for some symbols only ([`InlinesHidden`]).
//!
//! A candidate that leaves the image with no exported weak definition takes `MH_WEAK_DEFINES`
//! away, and with it a main executable's treat-as-weak lookups of operator new and delete (22
//! with opcode fixups, 44 with chained fixups): they are counted in its lookups
//! ([`Savings::weak_defines_lookups`], [`super::weak_defines`]).
//!
//! The launch time saved is an estimate, milliseconds (low, high): each lookup costs between
//! one trie probe at [`US_PER_PROBE`]`.0` and the measured [`US_PER_PROBE`]`.1` (nodejs/node#56275,
//! docs/process.md; [`super::estimate`]). In a whole process, where the probes are known, `weakscan process`'s
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
use super::demangle::{Demangled, Entity, InlinesHidden, NameRef};
use super::estimate::US_PER_PROBE;
use crate::model::{CompiledAs, Image, LookupReason};
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
    /// Estimated launch time saved, milliseconds (low, high): the lookups saved at 0.99 and at
    /// 2.97 µs each ([`US_PER_PROBE`]), the cost per lookup measured on Node.js for macOS
    /// (nodejs/node#56275: 5562 fewer lookups, 16.5 ms faster), from one trie probe per lookup
    /// (low) to three (high). An estimate.
    pub estimated_ms: (f64, f64),
    /// Of [`Self::lookups`], those that go with `MH_WEAK_DEFINES` because the change leaves
    /// the image with no exported weak definition: a main executable's treat-as-weak lookups
    /// of operator new and delete (22 with opcode fixups, 44 with chained fixups).
    pub weak_defines_lookups: usize,
}

impl Savings {
    fn add(&mut self, t: &Tally) {
        self.weak_bound_symbols += t.weak_bound;
        self.lookups += t.lookups;
        self.sites += t.sites;
        self.weak_def_exports += t.exports;
    }

    /// What the plan ranks by, larger first: lookups, then weak-bound symbols, then weak-def
    /// exports.
    fn rank(&self) -> (usize, usize, usize) {
        (self.lookups, self.weak_bound_symbols, self.weak_def_exports)
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
    /// Functions.
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
    /// `-fvisibility=hidden`: `-fvisibility-inlines-hidden` would keep some of its symbols
    /// exported, or may.
    VisibilityHidden,
    /// `-fvisibility-inlines-hidden`: it hides every one of its symbols for sure (its lower
    /// bound saves all that `-fvisibility=hidden` would).
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
    /// Saved by `-fvisibility-inlines-hidden` at most: the symbols it hides or may hide
    /// ([`InlinesHidden::at_most`]), an upper bound.
    pub inlines_hidden: Savings,
    /// Saved by `-fvisibility-inlines-hidden` at least: the symbols it hides for sure
    /// ([`InlinesHidden::surely`]), a lower bound.
    pub inlines_hidden_at_least: Savings,
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
    /// Its weak symbols exported by objects that already compile with `-fvisibility=hidden`
    /// (known from `--compile-commands`, [`crate::model::Attribution::compiled`]): marked
    /// `visibility("default")` in their source, so `-fvisibility=hidden` keeps them (not in
    /// [`Self::hidden`]); `-fvisibility-inlines-hidden` may hide the inline members of a class
    /// so marked (counted in its upper bound only). All zero without a compile database.
    pub marked_default: Savings,
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
    let sharing = Sharing::of(&origins);
    let mut hidden: std::collections::HashSet<std::borrow::Cow<'i, str>> = image
        .weak_definitions
        .iter()
        .map(|w| w.name.as_str())
        .filter(|n| match sharing.names.get(n) {
            Some(&i) => sharing.sets[i as usize] == [library],
            None => true,
        })
        .filter(|n| {
            // Marked `visibility("default")`: compiled hidden, yet exported.
            let marked = || {
                origins
                    .object_of(n)
                    .and_then(|o| origins.compiled(o))
                    .is_some_and(|c| c.hidden)
            };
            sharing.names.contains_key(n)
                || !marked()
                    && match origins.origin(n) {
                        Origin::Object(o) => o.library == library,
                        Origin::NoDebugInfo => library == NO_DEBUG_INFO,
                        Origin::Unattributed => library == NO_ATTRIBUTION,
                        Origin::AnotherImage => false,
                    }
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
    /// Whether every definer of the image's weak symbols was read ([`DefinersRead`]).
    pub definers: DefinersRead,
    /// Symbols that more than one library defines without hiding them: hiding all of those
    /// libraries together hides them, hiding one saves nothing of them. Most lookups first.
    pub shared: Vec<Shared>,
    /// The smallest set of libraries whose hiding removes the most lookups, when it takes
    /// more than one library (shared symbols) and saves more than the best candidate alone:
    /// every library that defines a looked-up symbol without hiding it (leaving one out keeps
    /// that symbol exported), so the choice is exact, not greedy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub together: Option<Together>,
}

/// Whether the plan knows every definition of the image's weak symbols
/// ([`crate::origin::definers`]). When not, a candidate's figures are upper bounds ("at
/// most"): another library may define some of its symbols too, and keep them exported.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DefinersRead {
    /// Every object the attribution names was read (or the image has no attribution: the
    /// whole image is one candidate): the figures are exact.
    pub exact: bool,
    /// Objects the attribution names.
    pub objects: usize,
    /// Of those, the ones read.
    pub read: usize,
    /// Of those, the ones found neither at their path nor among `--objects`.
    pub not_on_disk: usize,
    /// Of those, the ones found but not readable as objects of the image's arch.
    pub unreadable: usize,
    /// The first object not read, as the attribution names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_missing: Option<String>,
}

impl DefinersRead {
    fn of(origins: &Origins<'_>) -> Self {
        let Some(a) = origins.attribution() else {
            return DefinersRead {
                exact: true,
                ..Default::default()
            };
        };
        match a.definers.as_deref() {
            Some(d) => DefinersRead {
                exact: d.complete(),
                objects: d.objects,
                read: d.read,
                not_on_disk: d.not_on_disk,
                unreadable: d.unreadable,
                first_missing: d.first_missing.clone(),
            },
            None => DefinersRead {
                objects: a.objects.len(),
                not_on_disk: a.objects.len(),
                first_missing: a.objects.first().map(|o| o.path.to_string()),
                ..Default::default()
            },
        }
    }
}

/// Symbols that a set of libraries all define without hiding them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Shared {
    /// The libraries (candidate keys), sorted: all of them must be hidden together.
    pub libraries: Vec<String>,
    /// What hiding them saves of these symbols (the last leaker's lookups not included).
    pub hidden: Savings,
    /// Up to [`SHARED_EXAMPLES`] of the symbols, raw, sorted.
    pub examples: Vec<String>,
}

/// Examples named per set of libraries that share symbols.
pub const SHARED_EXAMPLES: usize = 3;

/// Sets of libraries sharing symbols listed at most.
pub const SHARED_SETS: usize = 64;

/// Hiding several libraries at once.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Together {
    /// The libraries, sorted.
    pub libraries: Vec<String>,
    /// What hiding all of them saves (with the last leaker's lookups when it is one).
    pub hidden: Savings,
}

/// One object's (or one unattributed group's) figures while the plan is summed.
#[derive(Default)]
struct Tally {
    weak_bound: usize,
    lookups: usize,
    sites: usize,
    exports: usize,
    kinds: Kinds,
    /// What `-fvisibility-inlines-hidden` saves at most, and at least.
    inlines: (Savings, Savings),
    /// The symbols `-fvisibility=hidden` keeps: marked `visibility("default")`.
    marked: Savings,
}

impl Tally {
    /// Counts a symbol's `figures` (weak-bound symbols, lookups, sites, exports): as
    /// `-fvisibility=hidden` saves them unless `marked` (then as kept), and as
    /// `-fvisibility-inlines-hidden` saves them by its `fate`.
    fn count(&mut self, marked: bool, fate: InlinesHidden, f: impl Fn(&mut Savings)) {
        if marked {
            f(&mut self.marked);
        } else {
            let mut s = Savings::default();
            f(&mut s);
            self.weak_bound += s.weak_bound_symbols;
            self.lookups += s.lookups;
            self.sites += s.sites;
            self.exports += s.weak_def_exports;
        }
        if fate.at_most() {
            f(&mut self.inlines.0);
        }
        if fate.surely() {
            f(&mut self.inlines.1);
        }
    }
}

/// Whose change a symbol is: an object of the attribution, or a group of unnamed symbols.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Owner {
    Object(u32),
    Unnamed(&'static str),
    /// A symbol more than one library defines unhidden: the set of libraries (an index of
    /// [`Sharing::sets`]).
    Shared(u32),
}

/// The image's symbols whose unhidden definers are not just the kept copy's library (from the
/// attribution's [`crate::model::Definers`]): each with the set of the libraries that define it
/// unhidden. A set of one library (the kept copy was hidden, another library's is not) is that
/// library's to hide; a larger set needs all of them.
#[derive(Default)]
struct Sharing<'o> {
    /// Each set of libraries, sorted.
    sets: Vec<Vec<&'o str>>,
    /// Raw name → its set.
    names: HashMap<&'o str, u32>,
}

impl<'o> Sharing<'o> {
    fn of(origins: &'o Origins<'_>) -> Self {
        let mut sharing = Sharing::default();
        let Some(d) = origins.attribution().and_then(|a| a.definers.as_deref()) else {
            return sharing;
        };
        let mut index: HashMap<Vec<&'o str>, u32> = HashMap::new();
        let read: std::collections::HashSet<&str> =
            d.libraries.iter().map(String::as_str).collect();
        let mut names: Vec<(&'o str, &Vec<u32>)> =
            d.symbols.iter().map(|(n, l)| (n.as_str(), l)).collect();
        names.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (raw, libs) in names {
            let Some(Owner::Object(o)) = owner_of(origins, raw) else {
                continue;
            };
            let kept = origins.objects()[o as usize].library.as_str();
            let mut set: Vec<&'o str> = libs
                .iter()
                .map(|&l| d.libraries[l as usize].as_str())
                .collect();
            // The kept copy's library, when none of its objects was read, may define it
            // unhidden; when read, it is in the set only if it does (lld keeps the first
            // copy's contents, hidden or not, and exports it if any definition is unhidden).
            if !read.contains(kept) {
                set.push(kept);
            }
            set.sort_unstable();
            set.dedup();
            if set.is_empty() || set == [kept] {
                continue;
            }
            let next = sharing.sets.len() as u32;
            let i = *index.entry(set.clone()).or_insert_with(|| {
                sharing.sets.push(set);
                next
            });
            sharing.names.insert(raw, i);
        }
        sharing
    }

    /// `owner`, or the shared set of `raw` when it has one.
    fn route(&self, owner: Owner, raw: &str) -> Owner {
        match self.names.get(raw) {
            Some(&i) => Owner::Shared(i),
            None => owner,
        }
    }
}

/// What kind of entity each raw name names ([`Entity`]) and what `-fvisibility-inlines-hidden`
/// does to it ([`InlinesHidden`]): a scan's [`Demangled`] names, or an index of them (a
/// process: [`super::process_fix_plan::EntityIndex`]).
pub trait EntityOf {
    /// The entity `raw` names ([`Entity::Other`] for a name that is not C++).
    fn entity_of(&self, raw: &str) -> Entity;
    /// What `-fvisibility-inlines-hidden` does to `raw` ([`InlinesHidden::Stays`] for a C name).
    fn inlines_hidden_of(&self, raw: &str) -> InlinesHidden;
    /// Both, with one look-up where the implementation can.
    fn kinds_of(&self, raw: &str) -> (Entity, InlinesHidden) {
        (self.entity_of(raw), self.inlines_hidden_of(raw))
    }
}

impl EntityOf for Demangled<'_> {
    fn entity_of(&self, raw: &str) -> Entity {
        match self.get(raw) {
            NameRef::Cxx(_, n) => n.entity(),
            NameRef::Plain(_) => Entity::Other,
        }
    }

    fn inlines_hidden_of(&self, raw: &str) -> InlinesHidden {
        match self.get(raw) {
            NameRef::Cxx(_, n) => n.inlines_hidden(),
            NameRef::Plain(_) => InlinesHidden::Stays,
        }
    }

    /// By the hashed index of the names ([`Demangled::position`], which the grouping builds
    /// too): one hash of the name instead of a binary search comparing long shared prefixes.
    fn kinds_of(&self, raw: &str) -> (Entity, InlinesHidden) {
        match self.position(raw) {
            Some(p) => {
                let n = self.at(p);
                (n.entity(), n.inlines_hidden())
            }
            None => (Entity::Other, InlinesHidden::Stays),
        }
    }
}

/// A library's summed figures: `-fvisibility=hidden`, `-fvisibility-inlines-hidden` (at most,
/// at least), kinds, objects, and the symbols marked `visibility("default")`.
type Sums = (Savings, (Savings, Savings), Kinds, Vec<PlanObject>, Savings);

/// The fix plan of `image`, whose names `names` holds (as a scan demangles them).
pub fn fix_plan(image: &Image, names: &Demangled<'_>) -> FixPlan {
    names.index_positions();
    fix_plan_of(image, &Origins::of(image), names)
}

/// [`fix_plan`], given `Origins::of(image)` and the entities of its names.
pub fn fix_plan_of(
    image: &Image,
    origins: &Origins<'_>,
    names: &(impl EntityOf + ?Sized),
) -> FixPlan {
    let sharing = Sharing::of(origins);
    let tallies = tally_owners(image, names, origins, &sharing);
    let mut libraries: HashMap<&str, Sums> = HashMap::new();
    let mut shared: Vec<Shared> = Vec::new();
    for (owner, t) in &tallies {
        let (library, object) = match *owner {
            Owner::Shared(i) if sharing.sets[i as usize].len() == 1 => {
                let entry = libraries.entry(sharing.sets[i as usize][0]).or_default();
                entry.0.add(t);
                add_savings(&mut entry.1.0, &t.inlines.0);
                add_savings(&mut entry.1.1, &t.inlines.1);
                add_kinds(&mut entry.2, &t.kinds);
                add_savings(&mut entry.4, &t.marked);
                continue;
            }
            Owner::Shared(i) => {
                let mut hidden = Savings::default();
                hidden.add(t);
                shared.push(Shared {
                    libraries: sharing.sets[i as usize]
                        .iter()
                        .map(|l| l.to_string())
                        .collect(),
                    hidden,
                    examples: Vec::new(),
                });
                continue;
            }
            Owner::Unnamed(key) => (key, None),
            Owner::Object(o) => {
                let keys = &origins.objects()[o as usize];
                let object = PlanObject {
                    object: keys.object.clone(),
                    source: keys.source.clone(),
                    lookups: t.lookups + t.marked.lookups,
                    weak_bound_symbols: t.weak_bound + t.marked.weak_bound_symbols,
                };
                (keys.library.as_str(), Some(object))
            }
        };
        let entry = libraries.entry(library).or_default();
        entry.0.add(t);
        add_savings(&mut entry.1.0, &t.inlines.0);
        add_savings(&mut entry.1.1, &t.inlines.1);
        add_kinds(&mut entry.2, &t.kinds);
        entry.3.extend(object);
        add_savings(&mut entry.4, &t.marked);
    }
    let mut others = other_exports_by_library(image, origins);
    let last = LastLeaker::of(image, origins);
    let definers = DefinersRead::of(origins);
    let together = together(&libraries, &shared, &last, definers.exact);
    let shared = shared_list(shared, &sharing);
    let mut candidates: Vec<Candidate> = libraries
        .into_iter()
        .map(
            |(library, (hidden, (at_most, at_least), kinds, objects, marked))| {
                let [hidden, at_most, at_least] =
                    [hidden, at_most, at_least].map(|s| last.apply(s));
                let mut c = candidate(library, hidden, (at_most, at_least), kinds, objects);
                c.marked_default = marked.with_estimate();
                if let Some((n, examples)) = others.remove(library) {
                    c.other_exports = n;
                    c.other_export_examples = examples
                        .into_iter()
                        .map(|i| image.other_exports.name(i).into_owned())
                        .collect();
                }
                c
            },
        )
        .collect();
    candidates.sort_by(|a, b| {
        b.hidden
            .rank()
            .cmp(&a.hidden.rank())
            .then_with(|| a.library.cmp(&b.library))
    });
    let together = together.filter(|t| {
        t.libraries.len() > 1
            && candidates
                .first()
                .is_none_or(|c| t.hidden.lookups > c.hidden.lookups)
    });
    FixPlan {
        candidates,
        definers,
        shared,
        together,
    }
}

/// The shared sets, most lookups first (then by libraries), at most [`SHARED_SETS`], each with
/// its first [`SHARED_EXAMPLES`] names.
fn shared_list(mut shared: Vec<Shared>, sharing: &Sharing<'_>) -> Vec<Shared> {
    let mut examples: Vec<Vec<&str>> = vec![Vec::new(); sharing.sets.len()];
    for (&raw, &i) in &sharing.names {
        examples[i as usize].push(raw);
    }
    let index: HashMap<Vec<&str>, usize> = sharing
        .sets
        .iter()
        .enumerate()
        .map(|(i, s)| (s.clone(), i))
        .collect();
    for sh in &mut shared {
        let key: Vec<&str> = sh.libraries.iter().map(String::as_str).collect();
        if let Some(&i) = index.get(&key) {
            let e = &mut examples[i];
            e.sort_unstable();
            sh.examples = e
                .iter()
                .take(SHARED_EXAMPLES)
                .map(|n| n.to_string())
                .collect();
        }
        sh.hidden = sh.hidden.with_estimate();
    }
    shared.sort_by(|a, b| {
        b.hidden
            .rank()
            .cmp(&a.hidden.rank())
            .then_with(|| a.libraries.cmp(&b.libraries))
    });
    shared.truncate(SHARED_SETS);
    shared
}

/// Every library that defines a looked-up symbol unhidden (a candidate's own or a shared
/// one), hidden together, when the definers are all known: no smaller set removes as many
/// lookups, since leaving any of them out keeps one of its symbols exported.
fn together(
    libraries: &HashMap<&str, Sums>,
    shared: &[Shared],
    last: &LastLeaker,
    exact: bool,
) -> Option<Together> {
    if !exact || shared.is_empty() {
        return None;
    }
    let mut set: Vec<String> = Vec::new();
    let mut hidden = Savings::default();
    for (library, (h, ..)) in libraries {
        if h.lookups > 0 && ![NO_DEBUG_INFO, NO_ATTRIBUTION].contains(library) {
            set.push(library.to_string());
            add_savings(&mut hidden, h);
        }
    }
    for sh in shared.iter().filter(|sh| sh.hidden.lookups > 0) {
        set.extend(sh.libraries.iter().cloned());
        add_savings(&mut hidden, &sh.hidden);
    }
    set.sort_unstable();
    set.dedup();
    Some(Together {
        libraries: set,
        hidden: last.apply(hidden).with_estimate(),
    })
}

/// One candidate from its summed figures.
fn candidate(
    library: &str,
    hidden: Savings,
    (at_most, at_least): (Savings, Savings),
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
    let same = |s: &Savings| {
        (s.weak_bound_symbols, s.lookups, s.weak_def_exports)
            == (
                hidden.weak_bound_symbols,
                hidden.lookups,
                hidden.weak_def_exports,
            )
    };
    Candidate {
        library: library.to_string(),
        flag: if hidden.weak_bound_symbols > 0 && same(&at_least) {
            Flag::VisibilityInlinesHidden
        } else {
            Flag::VisibilityHidden
        },
        hidden: hidden.with_estimate(),
        inlines_hidden: at_most.with_estimate(),
        inlines_hidden_at_least: at_least.with_estimate(),
        kinds,
        objects,
        objects_total,
        other_exports: 0,
        other_export_examples: Vec::new(),
        marked_default: Savings::default(),
        imported_by: Vec::new(),
    }
}

/// Each owner's figures: its weak-bound symbols (each name once, defined here), their lookups
/// and sites, and its weak-def exports.
fn tally_owners(
    image: &Image,
    names: &(impl EntityOf + ?Sized),
    origins: &Origins<'_>,
    sharing: &Sharing<'_>,
) -> Vec<(Owner, Tally)> {
    let fate_and_entity = |raw: &str| -> Option<(Fate, Entity)> {
        let owner = sharing.route(owner_of(origins, raw)?, raw);
        let compiled = match owner {
            Owner::Object(o) => origins.compiled(o),
            _ => None,
        };
        let (entity, fate) = names.kinds_of(raw);
        let (marked, inlines) = as_compiled(compiled, raw, entity, fate);
        Some(((owner, inlines, marked), entity))
    };
    let fate = |raw: &str| fate_and_entity(raw).map(|(f, _)| f);
    let mut tallies: HashMap<Owner, Tally> = HashMap::new();
    // Per bound name defined here: its owner and what each flag does to it. Sized once: a map
    // that doubles holds its old table beside the new one at each growth (a log of 515k
    // distinct names: the run's peak).
    let mut bound: HashMap<&str, Fate> =
        HashMap::with_capacity(image.bind_targets.iter().filter(|t| t.defined_here).count());
    for t in image.bind_targets.iter().filter(|t| t.defined_here) {
        let Some(((owner, f, marked), entity)) = fate_and_entity(&t.symbol) else {
            continue;
        };
        let tally = tallies.entry(owner).or_default();
        let sites = t.sites.len();
        tally.count(marked, f, |s| s.sites += sites);
        if bound
            .insert(t.symbol.as_str(), (owner, f, marked))
            .is_none()
        {
            tally.kinds.add(entity);
            tally.count(marked, f, |s| s.weak_bound_symbols += 1);
        }
    }
    let known = |raw: &str| match bound.get(raw) {
        Some(&known) => Some(known),
        None => fate(raw),
    };
    // Lookups by their symbol's owner, as `--by library` counts them.
    for l in &image.lookups {
        if let Some((owner, f, marked)) = known(&l.symbol) {
            let tally = tallies.entry(owner).or_default();
            tally.count(marked, f, |s| s.lookups += 1);
        }
    }
    for w in &image.weak_definitions {
        if let Some((owner, f, marked)) = known(&w.name) {
            let tally = tallies.entry(owner).or_default();
            tally.count(marked, f, |s| s.weak_def_exports += 1);
        }
    }
    tallies.into_iter().collect()
}

/// A symbol's owner, what `-fvisibility-inlines-hidden` does to it, and whether it is marked
/// `visibility("default")` (so `-fvisibility=hidden` keeps it).
type Fate = (Owner, InlinesHidden, bool);

/// What the flags do to `raw` (naming `entity`, whose fate under `-fvisibility-inlines-hidden`
/// is `fate` as its name shows it), whose kept copy's object was compiled as `compiled` (`None`:
/// not known, taken as compiled with neither flag): whether it is marked
/// `visibility("default")`, and its fate under `-fvisibility-inlines-hidden`.
///
/// * An object compiled with `-fvisibility=hidden` that exports a weak definition marks it
///   `visibility("default")`: `-fvisibility=hidden` keeps it, and `-fvisibility-inlines-hidden`
///   hides it only if the mark is its class's (clang/lib/AST/Decl.cpp `getLVForClassMember`
///   applies `useInlineVisibilityHidden` before merging the class's visibility; a function's
///   own or its namespace's mark keeps it): at most.
/// * An object compiled with `-fvisibility-inlines-hidden` already: adding it hides nothing.
/// * With `-fno-visibility-inlines-hidden-static-local-var` a function-local static (and its
///   guard variable) of an inline function hidden by the flag keeps the global visibility
///   (`getLVForLocalDecl`); it is hidden only when its function is hidden for another reason,
///   a local type among its template arguments, which a nested local name (`Z`) shows: at most.
fn as_compiled(
    compiled: Option<CompiledAs>,
    raw: &str,
    entity: Entity,
    fate: InlinesHidden,
) -> (bool, InlinesHidden) {
    let Some(c) = compiled else {
        return (false, fate);
    };
    if c.inlines_hidden {
        return (c.hidden, InlinesHidden::Stays);
    }
    if c.hidden {
        return (true, fate.max(InlinesHidden::AtMost));
    }
    let local_static = matches!(entity, Entity::LocalStatic | Entity::GuardVariable);
    let plain = raw.strip_prefix('_').unwrap_or(raw);
    let in_function = plain.starts_with("_ZZ") || plain.starts_with("_ZGVZ");
    if !c.static_local_var && local_static && in_function && fate != InlinesHidden::Stays {
        let rest = plain.trim_start_matches("_ZGV").trim_start_matches("_ZZ");
        let nested_local = rest.trim_start_matches('Z').contains('Z');
        let fate = if nested_local {
            InlinesHidden::AtMost
        } else {
            InlinesHidden::Stays
        };
        return (false, fate);
    }
    (false, fate)
}

/// Whose change the symbol `raw` is, if the image defines it.
///
/// As [`Origins::origin`] decides it, with one look-up of the name in the attribution: an
/// object's ([`Origin::Object`]), else unnamed when the image defines it ([`Origin::NoDebugInfo`],
/// or without attribution [`Origin::Unattributed`]), else none ([`Origin::AnotherImage`]).
fn owner_of(origins: &Origins<'_>, raw: &str) -> Option<Owner> {
    if origins.is_empty() {
        return origins
            .defines(raw)
            .then_some(Owner::Unnamed(NO_ATTRIBUTION));
    }
    match origins.object_of(raw) {
        Some(o) => Some(Owner::Object(o)),
        None => origins
            .defines(raw)
            .then_some(Owner::Unnamed(NO_DEBUG_INFO)),
    }
}

/// One weak definition of an image, with the candidate that would hide it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hideable<'i> {
    /// Its raw name.
    pub name: &'i str,
    /// Its candidate's key ([`Candidate::library`]).
    pub library: &'i str,
    /// What `-fvisibility-inlines-hidden` does to it ([`InlinesHidden`]).
    pub inlines: InlinesHidden,
}

/// Each weak definition of `image` (its export trie's, in order) with the candidate of
/// [`fix_plan`] that would hide it; `origins` is `Origins::of(image)`, `names` holds its names.
pub fn hideable<'i>(
    image: &'i Image,
    origins: &'i Origins<'i>,
    names: &(impl EntityOf + ?Sized),
) -> Vec<Hideable<'i>> {
    let sharing = Sharing::of(origins);
    image
        .weak_definitions
        .iter()
        .filter_map(|w| {
            let owner = owner_of(origins, &w.name)?;
            let library = match sharing.route(owner, &w.name) {
                Owner::Object(o) => origins.objects()[o as usize].library.as_str(),
                Owner::Unnamed(key) => key,
                Owner::Shared(i) => match sharing.sets[i as usize].as_slice() {
                    [library] => library,
                    _ => return None,
                },
            };
            Some(Hideable {
                name: w.name.as_str(),
                library,
                inlines: names.inlines_hidden_of(&w.name),
            })
        })
        .collect()
}

/// The symbols of `image` that more than one library defines unhidden (the plan's
/// [`FixPlan::shared`], not truncated): each set of libraries (sorted) with its symbols' raw
/// names (sorted), sets in no particular order. `origins` is `Origins::of(image)`.
pub fn shared_names<'o>(origins: &'o Origins<'_>) -> Vec<(Vec<&'o str>, Vec<&'o str>)> {
    let sharing = Sharing::of(origins);
    let mut names: Vec<Vec<&'o str>> = vec![Vec::new(); sharing.sets.len()];
    for (&raw, &i) in &sharing.names {
        names[i as usize].push(raw);
    }
    sharing
        .sets
        .into_iter()
        .zip(names)
        .filter(|(set, _)| set.len() > 1)
        .map(|(set, mut n)| {
            n.sort_unstable();
            (set, n)
        })
        .collect()
}

/// What hiding exactly the weak definitions named in `hidden` saves in `image`, whichever
/// objects define them: a link-time symbol list (`-unexported_symbols_list`) hides a name in
/// the output whatever its definers' visibility (ld64-956.6 `Options::shouldExport`; lld
/// Driver.cpp `handleExplicitExports` makes the symbol `privateExtern`). Counted as the plan
/// counts a candidate ([`tally_owners`]): the weak-bound symbols defined here and their sites,
/// their lookups, the weak-def exports, and, when `hidden` holds every weak definition, the
/// lookups that go with `MH_WEAK_DEFINES` ([`Savings::weak_defines_lookups`]); milliseconds
/// as [`Candidate::hidden`]'s. Names in `hidden` that are not weak definitions of the image
/// count nothing.
pub fn savings_of_hiding(image: &Image, hidden: &std::collections::HashSet<&str>) -> Savings {
    let mut s = Savings::default();
    let mut bound: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for t in image
        .bind_targets
        .iter()
        .filter(|t| t.defined_here && hidden.contains(t.symbol.as_str()))
    {
        s.sites += t.sites.len();
        if bound.insert(t.symbol.as_str()) {
            s.weak_bound_symbols += 1;
        }
    }
    s.lookups = image
        .lookups
        .iter()
        .filter(|l| hidden.contains(l.symbol.as_str()))
        .count();
    s.weak_def_exports = image
        .weak_definitions
        .iter()
        .filter(|w| hidden.contains(w.name.as_str()))
        .count();
    LastLeaker::of(image, &Origins::of(image))
        .apply(s)
        .with_estimate()
}

/// What a change that leaves the image with no exported weak definition also saves: its
/// lookups that go with `MH_WEAK_DEFINES` ([`super::weak_defines`]).
struct LastLeaker {
    /// The image's weak definitions that a candidate must hide to be the last leaker.
    weak_definitions: usize,
    /// The lookups that then go (0: the image keeps the flag, or makes none).
    lookups: usize,
}

impl LastLeaker {
    fn of(image: &Image, origins: &Origins<'_>) -> Self {
        use super::weak_defines::{lookup_goes, overrides_weak_definitions};
        let keeps = overrides_weak_definitions(image);
        // A single image is the only one requesting its treat-as-weak checks: they go too.
        // Lookups of a name the image defines are its owner's already.
        let lookups = image
            .lookups
            .iter()
            .filter(|l| l.reason != LookupReason::BindTarget)
            .filter(|l| lookup_goes(l.reason, false, !keeps, !keeps))
            .filter(|l| owner_of(origins, &l.symbol).is_none())
            .count();
        LastLeaker {
            weak_definitions: image.weak_definitions.len(),
            lookups,
        }
    }

    /// `s` with the lookups that go with the flag, if it hides every weak definition.
    fn apply(&self, mut s: Savings) -> Savings {
        if self.weak_definitions > 0 && s.weak_def_exports == self.weak_definitions {
            s.lookups += self.lookups;
            s.weak_defines_lookups = self.lookups;
        }
        s
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::demangle::{NameStyle, demangle_all};
    use crate::model::{
        BindTarget, FixupFormat, MH_EXECUTE, MH_WEAK_DEFINES, Name, Site, predict_lookups,
    };

    /// A main executable whose objects (`libX.a(x.o)`, one per library) define and weak-bind
    /// `defs` (name, object); `flags` besides `MH_WEAK_DEFINES`.
    fn image(defs: &[(&str, u32)], objects: &[&str], fixups: FixupFormat) -> Image {
        let bind_targets: Vec<BindTarget> = defs
            .iter()
            .map(|&(d, _)| BindTarget {
                symbol: Name::from(d),
                addend: 0,
                sites: vec![Site {
                    address: 0x1000,
                    segment_index: None,
                }],
                defined_here: true,
                supplier: None,
            })
            .collect();
        let flags = MH_WEAK_DEFINES;
        let names: Vec<&str> = defs.iter().map(|&(d, _)| d).collect();
        Image {
            filetype: Some(MH_EXECUTE),
            flags: Some(flags),
            fixup_format: Some(fixups),
            lookups: predict_lookups(MH_EXECUTE, flags, fixups, &bind_targets),
            bind_targets,
            ..crate::analysis::group::tests::image(&names, objects, defs)
        }
    }

    fn plan(image: &Image) -> FixPlan {
        let names = demangle_all(
            image.weak_definitions.iter().map(|w| w.name.as_str()),
            NameStyle::Demangled,
        )
        .unwrap();
        fix_plan(image, &names)
    }

    #[test]
    fn regression_the_last_leaker_did_not_count_the_lookups_that_go_with_mh_weak_defines() {
        let defs = [("__Z3onev", 0), ("__ZZ3onevE1s", 0), ("__Z3twov", 1)];
        let objects = ["/b/liba.a(a.o)", "/b/libb.a(b.o)"];
        for (fixups, extra) in [(FixupFormat::Opcodes, 22), (FixupFormat::Chained, 44)] {
            // Two leakers: hiding either leaves the other, and the flag.
            let p = plan(&image(&defs, &objects, fixups));
            let a = p
                .candidates
                .iter()
                .find(|c| c.library.contains("liba"))
                .unwrap_or_else(|| panic!("{:?}", p.candidates));
            assert_eq!((a.hidden.lookups, a.hidden.weak_defines_lookups), (2, 0));
            // The last leaker: its hiding takes MH_WEAK_DEFINES and the operator new/delete
            // lookups with it, with either flag (its symbols are inline functions and their
            // statics, which -fvisibility-inlines-hidden hides on Darwin).
            let p = plan(&image(&defs[..2], &objects[..1], fixups));
            let a = &p.candidates[0];
            assert_eq!(a.hidden.lookups, 2 + extra, "{fixups:?}");
            assert_eq!(a.hidden.weak_defines_lookups, extra);
            assert_eq!(a.inlines_hidden_at_least, a.hidden);
            assert_eq!(a.inlines_hidden, a.hidden);
            assert_eq!(a.flag, Flag::VisibilityInlinesHidden);
        }
    }

    /// `image` with the definers read: `shared` names are also defined, unhidden, by libb.a.
    fn with_definers(mut im: Image, shared: &[&str], complete: bool) -> Image {
        let a = im.attribution.as_deref_mut().unwrap();
        let mut symbols: foldhash::HashMap<Name, Vec<u32>> = Default::default();
        for s in shared {
            symbols.insert(Name::from(*s), vec![0, 1]);
        }
        a.definers = Some(Box::new(crate::model::Definers {
            libraries: vec!["liba.a".into(), "libb.a".into()],
            symbols,
            objects: a.objects.len(),
            read: if complete { a.objects.len() } else { 0 },
            not_on_disk: if complete { 0 } else { a.objects.len() },
            unreadable: 0,
            first_missing: None,
        }));
        im
    }

    #[test]
    fn regression_a_symbol_another_library_defines_was_counted_as_saved_by_hiding_the_kept_copy() {
        // liba.a's copy of __Z6sharedv was kept; libb.a defines it too, unhidden: hiding liba.a
        // alone leaves it exported (ld64 pickBetweenRegularAtoms, lld addDefined).
        let defs = [("__Z3onev", 0), ("__Z6sharedv", 0), ("__Z3twov", 1)];
        let objects = ["/b/liba.a(a.o)", "/b/libb.a(b.o)"];
        let im = with_definers(
            image(&defs, &objects, FixupFormat::Opcodes),
            &["__Z6sharedv"],
            true,
        );
        let p = plan(&im);
        assert!(p.definers.exact);
        let a = p.candidates.iter().find(|c| c.library == "liba.a").unwrap();
        assert_eq!((a.hidden.lookups, a.hidden.weak_def_exports), (1, 1));
        assert_eq!(p.shared.len(), 1);
        assert_eq!(p.shared[0].libraries, ["liba.a", "libb.a"]);
        assert_eq!(p.shared[0].examples, ["__Z6sharedv"]);
        assert_eq!(p.shared[0].hidden.lookups, 1);
        // Both together hide everything: the last leaker's 22 go too.
        let t = p.together.as_ref().unwrap();
        assert_eq!(t.libraries, ["liba.a", "libb.a"]);
        assert_eq!(t.hidden.lookups, 3 + 22);
        // The objects not read: nothing is known to be shared, the figures are at most.
        let im = with_definers(image(&defs, &objects, FixupFormat::Opcodes), &[], false);
        let p = plan(&im);
        assert!(!p.definers.exact);
        assert!(p.shared.is_empty() && p.together.is_none());
    }

    #[test]
    fn a_symbol_whose_kept_copy_is_hidden_is_the_other_definers_to_hide() {
        // lld kept liba.a's copy (first in link order), compiled hidden; libb.a's unhidden
        // copy keeps it exported: hiding libb.a hides it, hiding liba.a does nothing to it.
        let defs = [("__Z3onev", 0), ("__Z6sharedv", 0), ("__Z3twov", 1)];
        let objects = ["/b/liba.a(a.o)", "/b/libb.a(b.o)"];
        let mut im = with_definers(image(&defs, &objects, FixupFormat::Opcodes), &[], true);
        let d = im
            .attribution
            .as_deref_mut()
            .unwrap()
            .definers
            .as_deref_mut()
            .unwrap();
        d.symbols.insert(Name::from("__Z3onev"), vec![0]);
        d.symbols.insert(Name::from("__Z6sharedv"), vec![1]);
        d.symbols.insert(Name::from("__Z3twov"), vec![1]);
        let p = plan(&im);
        let lib = |k: &str| p.candidates.iter().find(|c| c.library == k).unwrap();
        assert_eq!(lib("liba.a").hidden.lookups, 1);
        assert_eq!(lib("libb.a").hidden.lookups, 2);
        assert!(p.shared.is_empty() && p.together.is_none());
        let origins = Origins::of(&im);
        let h = hideable(
            &im,
            &origins,
            &demangle_all(
                im.weak_definitions.iter().map(|w| w.name.as_str()),
                NameStyle::Demangled,
            )
            .unwrap(),
        );
        assert_eq!(h[1].name, "__Z6sharedv");
        assert_eq!(h[1].library, "libb.a");
        let hidden = hidden_by(&im, "libb.a");
        assert!(
            hidden.contains("__Z6sharedv") && !hidden_by(&im, "liba.a").contains("__Z6sharedv")
        );
    }

    #[test]
    fn an_image_that_overrides_operator_new_keeps_mh_weak_defines() {
        let mut im = image(
            &[("__Z3onev", 0)],
            &["/b/liba.a(a.o)"],
            FixupFormat::Opcodes,
        );
        im.strong_overrides = vec![Name::from("__Znwm")];
        let c = &plan(&im).candidates[0];
        assert_eq!((c.hidden.lookups, c.hidden.weak_defines_lookups), (1, 0));
    }

    #[test]
    fn regression_inlines_hidden_upper_bound_left_out_the_local_statics_darwin_hides() {
        // clang's Darwin driver adds -fvisibility-inlines-hidden-static-local-var: an inline
        // function's local static and guard go with it (a real rebuild exceeded the old "upper
        // bound", functions only).
        let defs = [("__Z3onev", 0), ("__ZZ3onevE1s", 0), ("__ZGVZ3onevE1s", 0)];
        let p = plan(&image(&defs, &["/b/liba.a(a.o)"], FixupFormat::Chained));
        let c = &p.candidates[0];
        assert_eq!(c.inlines_hidden.weak_bound_symbols, 3);
        assert_eq!(c.inlines_hidden_at_least.weak_bound_symbols, 3);
    }

    #[test]
    fn inlines_hidden_is_a_range_from_what_the_name_proves() {
        // A template's member may be inline or not: counted at most; a data member stays.
        let defs = [
            ("__Z3onev", 0),
            ("__ZN3BoxIiE3getEv", 0),
            ("__ZN3BoxIiE3sdmE", 0),
        ];
        let p = plan(&image(&defs, &["/b/liba.a(a.o)"], FixupFormat::Chained));
        let c = &p.candidates[0];
        assert_eq!(c.hidden.weak_bound_symbols, 3);
        assert_eq!(c.inlines_hidden.weak_bound_symbols, 2);
        assert_eq!(c.inlines_hidden_at_least.weak_bound_symbols, 1);
        assert_eq!(c.flag, Flag::VisibilityHidden);
    }
}
