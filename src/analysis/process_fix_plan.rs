//! The fix plan of a whole process: for each image dyld searches for weak definitions, and each
//! library of it the attribution names (a dylib, read without its debug map: the image whole),
//! what hiding its weak definitions would save across the process — the lookups dyld would no
//! longer make and the export-trie probes — best first.
//!
//! ```text
//! ProcessCandidate { image, index, library, flag, kinds, objects,
//!                    hidden:         ProcessSavings { weak_bound_symbols, lookups,
//!                                                     trie_probes, weak_def_exports,
//!                                                     estimated_ms },
//!                    inlines_hidden: ProcessSavings, inlines_hidden_at_least,
//!                    leaves_search, supplied_to_others, defined_nowhere_else,
//!                    supplied_examples, definers: DefinersRead }
//! ```
//!
//! The probes are replayed, not estimated: the launch's lookups in dyld's order ([`Step`]),
//! less the image's weak-bind lookups of the definitions the change hides (they become direct
//! binds), go through a fresh weakDefMap ([`WeakDefMap`]); each lookup that probes costs one
//! probe per image searched, plus the probes its name's re-exports cost. An image left with no
//! exported weak definition leaves the search: ld64 sets `MH_WEAK_DEFINES` only when
//! `_state.hasWeakExternalSymbols || _writer.overridesWeakExternalSymbols`
//! (HeaderAndLoadCommands.hpp `flags()`), and dyld probes only images with the flag. An image
//! whose non-weak definition replaces another image's weak one (`overridesWeakExternalSymbols`,
//! OutputFile.cpp), or that exports operator new or delete, stays; an override of a weak
//! definition of an image outside (the shared cache) is not seen. With the flag go the
//! lookups it brings: a chained main executable's 22 treat-as-weak targets, and the 22
//! `handleStrongWeakDefOverrides` checks unless another image then requests them. The saving is the
//! process's probes less the replay's: exact for the process as weakscan models it. It is less
//! than the lookups removed × the images searched when dyld then makes its weakDefMap later
//! (after [`crate::analysis::coalesce::WEAK_DEF_MAP_AFTER`] lookups) and answers fewer lookups
//! from it, and, in the rare case where the lookups that probe instead have more re-exports to
//! follow, negative.
//!
//! A symbol several libraries of an image define unhidden (every definer is read, as for the
//! plan of one image: [`crate::origin::definers`]) is hidden by no single candidate; each such
//! set of libraries is listed with what hiding its symbols saves ([`ProcessShared`]). When
//! some object the image's debug map names could not be read, its candidates' figures are at
//! most ([`ProcessCandidate::definers`]): another library may define some of their symbols too.
//!
//! Hiding a definition that another image's lookup wins from this image moves that lookup to
//! the next definition ([`ProcessCandidate::supplied_to_others`]); when no other image on disk
//! defines it, the lookup finds it only in the shared cache, or not at all, and the launch
//! stops ([`ProcessCandidate::defined_nowhere_else`]).

use super::attribute::Origins;
use super::demangle::{Entity, InlinesHidden, kinds_of_raw};
use super::estimate::US_PER_PROBE;
use super::fix_plan::{
    DefinersRead, EntityOf, Flag, Hideable, Kinds, PlanObject, Savings, Shared, fix_plan_of,
    hideable, shared_names,
};
use super::weak_def_map::WeakDefMap;
use super::weak_defines::lookup_goes;
use crate::model::{Image, LookupReason};
use foldhash::HashMap;
use serde::Serialize;

/// Names of other images' lookups a candidate supplies, given per candidate.
pub const SUPPLIED_EXAMPLES: usize = 3;

/// One weak-def lookup of the launch, in dyld's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The requesting image (index in the load order).
    pub requester: u32,
    /// The name looked up (a dense id per distinct name).
    pub name: u32,
    /// Why it is made: a weak-bind target of the requester (hiding its definition removes it),
    /// or a treat-as-weak check or target (they go with the `MH_WEAK_DEFINES` of the image
    /// that makes them).
    pub reason: LookupReason,
}

/// What the replay needs of a coalesced launch.
pub struct Launch<'a, 'p> {
    /// The lookups, in dyld's order.
    pub steps: &'a [Step],
    /// How many images are searched on every lookup.
    pub searched: usize,
    /// The probes of the launch (lookups' and re-exports').
    pub probes: usize,
    /// Trie probes a lookup of a name id that probes pays for its re-exports.
    pub reexport_probes: &'a HashMap<u32, usize>,
    /// The id of each looked-up raw name.
    pub id_of: &'a HashMap<&'p str, u32>,
    /// Raw name of each id.
    pub text: &'a [&'p str],
    /// Requesting images of each name id, sorted.
    pub requesters: &'a [Vec<u32>],
    /// The winner of each name id (`None`: no image on disk defines it).
    pub winner: &'a [Option<usize>],
    /// `(name id, image)`: an image on disk other than `image` defines the name.
    pub defined_elsewhere: Box<dyn Fn(usize, usize) -> bool + Sync + 'a>,
    /// `image`: one of its non-weak definitions replaces another image's weak one, which keeps
    /// `MH_WEAK_DEFINES` set without weak definitions of its own.
    pub overrides: Box<dyn Fn(usize) -> bool + Sync + 'a>,
    /// `image`: `handleStrongWeakDefOverrides`' treat-as-weak checks are still made when it
    /// has no `MH_WEAK_DEFINES` (another image requests them, or it never did).
    pub checks_remain: Box<dyn Fn(usize) -> bool + Sync + 'a>,
}

/// What a change saves across the process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProcessSavings {
    /// Weak-bound symbols the image no longer binds weakly.
    pub weak_bound_symbols: usize,
    /// Weak-def lookups dyld no longer makes at launch.
    pub lookups: usize,
    /// Export-trie probes saved (negative: the change costs probes, see the module docs).
    pub trie_probes: i64,
    /// Weak definitions the image no longer exports.
    pub weak_def_exports: usize,
    /// Estimated launch time saved, milliseconds (low, high): [`Self::trie_probes`] ×
    /// [`US_PER_PROBE`], an estimate.
    pub estimated_ms: (f64, f64),
}

/// One candidate change of a process: hide the weak definitions of one library of one image.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProcessCandidate {
    /// The image (as the process shows it).
    pub image: String,
    /// Its position in the load order.
    pub index: usize,
    /// The library key ([`super::fix_plan::Candidate::library`]); `(no attribution)` for an
    /// image read without its debug map (a dylib): the image whole.
    pub library: String,
    /// The flag proposed ([`Flag`]).
    pub flag: Flag,
    /// Saved by `-fvisibility=hidden` on the library.
    pub hidden: ProcessSavings,
    /// Saved by `-fvisibility-inlines-hidden` hiding what it hides or may hide
    /// ([`super::demangle::InlinesHidden::at_most`]): at most.
    pub inlines_hidden: ProcessSavings,
    /// Saved by `-fvisibility-inlines-hidden` hiding what it hides for sure
    /// ([`super::demangle::InlinesHidden::surely`]): at least, unless hiding fewer definitions
    /// makes dyld's weakDefMap answer fewer lookups (module docs).
    pub inlines_hidden_at_least: ProcessSavings,
    /// Its weak-bound symbols by kind.
    pub kinds: Kinds,
    /// Its objects with the most lookups (as [`super::fix_plan::Candidate::objects`]).
    pub objects: Vec<PlanObject>,
    /// With `-fvisibility=hidden`, the image would export no weak definition: dyld would no
    /// longer probe its trie on any lookup.
    pub leaves_search: bool,
    /// Names it would hide that another image's lookup wins from it: those lookups would bind
    /// to the next definition.
    pub supplied_to_others: usize,
    /// Of those, names no other image on disk defines: found only in the shared cache, or the
    /// launch stops (`Symbol not found`).
    pub defined_nowhere_else: usize,
    /// Up to [`SUPPLIED_EXAMPLES`] of the names supplied to others, raw, in lookup order.
    pub supplied_examples: Vec<String>,
    /// Whether every definer of its image's weak symbols was read, as the plan of that image
    /// alone says it ([`super::fix_plan::FixPlan::definers`]). When not (`exact` false), the
    /// savings, `supplied_to_others` and `defined_nowhere_else` are at most, and
    /// `leaves_search` a possibility: another library of the image may define some of the
    /// candidate's symbols unhidden and keep them exported.
    pub definers: DefinersRead,
}

/// Symbols of one image that several of its libraries define unhidden: hiding all of those
/// libraries together hides them, hiding one saves nothing of them (as
/// [`super::fix_plan::Shared`], replayed across the process).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProcessShared {
    /// The image (as the process shows it).
    pub image: String,
    /// Its position in the load order.
    pub index: usize,
    /// The libraries (candidate keys), sorted: all of them must be hidden together.
    pub libraries: Vec<String>,
    /// What hiding these symbols saves across the process (their libraries' other symbols not
    /// included).
    pub hidden: ProcessSavings,
    /// Up to [`super::fix_plan::SHARED_EXAMPLES`] of the symbols, raw, sorted.
    pub examples: Vec<String>,
}

/// The replay of the launch with `removed(step)` lookups gone and `searched` images probed on
/// each lookup: `(lookups removed, probes)`.
pub fn replay(
    launch: &Launch<'_, '_>,
    searched: usize,
    removed: impl Fn(&Step) -> bool,
) -> (usize, usize) {
    let mut map = WeakDefMap::for_names(launch.text.len());
    let (mut gone, mut probes) = (0, 0);
    for s in launch.steps {
        if removed(s) {
            gone += 1;
        } else if map.probes(s.name as usize) {
            probes += searched;
            if !launch.reexport_probes.is_empty() {
                probes += launch.reexport_probes.get(&s.name).copied().unwrap_or(0);
            }
        }
    }
    (gone, probes)
}

/// The replay of hiding `hidden` (name ids, by id; `any`: some is set) of image `i`, which
/// would then export `left` weak definitions: `(lookups saved, probes saved)`.
fn saving(
    launch: &Launch<'_, '_>,
    i: usize,
    (hidden, any): (&[bool], bool),
    left: usize,
) -> (usize, i64) {
    let leaves = left == 0 && !(launch.overrides)(i);
    if !any && !leaves {
        // Nothing looked up is hidden and the image stays searched: the launch is unchanged.
        return (0, 0);
    }
    let searched = launch.searched - usize::from(leaves);
    let checks_go = leaves && !(launch.checks_remain)(i);
    let (gone, probes) = replay(launch, searched, |s| {
        let own = s.requester as usize == i;
        lookup_goes(
            s.reason,
            own && hidden[s.name as usize],
            own && leaves,
            checks_go,
        )
    });
    (gone, launch.probes as i64 - probes as i64)
}

/// The probes saved if image `i` hid every weak definition it exports (its `-fvisibility=hidden`
/// whole, or an export list without them).
/// `(lookups saved, probes saved)`.
pub fn whole_image_saving(launch: &Launch<'_, '_>, i: usize, image: &Image) -> (usize, i64) {
    let mut hidden = vec![false; launch.text.len()];
    let mut any = false;
    for w in &image.weak_definitions {
        if let Some(&id) = launch.id_of.get(w.name.as_str()) {
            hidden[id as usize] = true;
            any = true;
        }
    }
    saving(launch, i, (&hidden, any), 0)
}

/// The entity of each name of a process's images, found by the address of its text: a
/// process's names are interned (one copy of each text, [`crate::process::load`]), so each is
/// read once ([`kinds_of_raw`], on the pool), then found by address in every image that has
/// it.
pub struct EntityIndex {
    by_address: HashMap<(usize, usize), (Entity, InlinesHidden)>,
}

impl EntityIndex {
    /// The index of every name of `images` that [`fix_plan_of`] reads (bind targets, lookups,
    /// weak definitions).
    pub fn of<'i>(images: impl IntoIterator<Item = &'i Image>) -> Self {
        let mut distinct: HashMap<(usize, usize), &str> = HashMap::default();
        for im in images {
            let all = im
                .bind_targets
                .iter()
                .map(|t| t.symbol.as_str())
                .chain(im.lookups.iter().map(|l| l.symbol.as_str()))
                .chain(im.weak_definitions.iter().map(|w| w.name.as_str()));
            for raw in all {
                distinct
                    .entry((raw.as_ptr() as usize, raw.len()))
                    .or_insert(raw);
            }
        }
        let names: Vec<((usize, usize), &str)> = distinct.into_iter().collect();
        let entities = crate::pool::map(&names, |(_, raw)| kinds_of_raw(raw));
        let by_address = names.iter().map(|(k, _)| *k).zip(entities).collect();
        EntityIndex { by_address }
    }
}

impl EntityIndex {
    fn kinds(&self, raw: &str) -> (Entity, InlinesHidden) {
        match self.by_address.get(&(raw.as_ptr() as usize, raw.len())) {
            Some(&k) => k,
            None => kinds_of_raw(raw),
        }
    }
}

impl EntityOf for EntityIndex {
    fn entity_of(&self, raw: &str) -> Entity {
        self.kinds(raw).0
    }

    fn inlines_hidden_of(&self, raw: &str) -> InlinesHidden {
        self.kinds(raw).1
    }

    fn kinds_of(&self, raw: &str) -> (Entity, InlinesHidden) {
        self.kinds(raw)
    }
}

/// The candidates of image `i` (`image`, whose names' entities `names` holds; `whole`: its
/// [`whole_image_saving`]), unsorted, and its shared symbols ([`ProcessShared`]).
pub fn image_candidates(
    launch: &Launch<'_, '_>,
    (i, image, whole): (usize, &Image, (usize, i64)),
    shown: &str,
    names: &EntityIndex,
) -> (Vec<ProcessCandidate>, Vec<ProcessShared>) {
    let origins = Origins::of(image);
    let mut by_library: HashMap<&str, Vec<Hideable<'_>>> = HashMap::default();
    for d in hideable(image, &origins, names) {
        by_library.entry(d.library).or_default().push(d);
    }
    let plan = fix_plan_of(image, &origins, names);
    let shared = image_shared(launch, (i, image), shown, &origins, &plan.shared);
    let definers = plan.definers;
    let candidates = plan
        .candidates
        .into_iter()
        .map(|c| {
            let defs: &[Hideable<'_>] = by_library
                .get(c.library.as_str())
                .map_or(&[], Vec::as_slice);
            let mine = || defs.iter();
            // Per change (which definitions it hides): the ids hidden, whether any is, and the
            // weak definitions left.
            let ids = |hides: fn(&Hideable<'_>) -> bool| {
                let mut hidden = vec![false; launch.text.len()];
                let (mut n, mut any) = (0, false);
                for d in mine().filter(|d| hides(d)) {
                    n += 1;
                    if let Some(&id) = launch.id_of.get(d.name) {
                        hidden[id as usize] = true;
                        any = true;
                    }
                }
                (hidden, any, image.weak_definitions.len() - n)
            };
            let (all, any, left) = ids(|_| true);
            let hidden_saving = if left == 0 {
                // The candidate is the whole image.
                whole
            } else {
                saving(launch, i, (&all, any), left)
            };
            // -fvisibility-inlines-hidden: what it may hide, and what it hides for sure.
            let inlines = |hides: fn(&Hideable<'_>) -> bool| {
                if mine().all(hides) {
                    // The flags hide the same definitions.
                    hidden_saving
                } else {
                    let (ids, any, left) = ids(hides);
                    saving(launch, i, (&ids, any), left)
                }
            };
            let at_most = inlines(|d| d.inlines.at_most());
            let at_least = if mine().all(|d| d.inlines.surely() == d.inlines.at_most()) {
                at_most
            } else {
                inlines(|d| d.inlines.surely())
            };
            let hidden = savings(&c.hidden, hidden_saving);
            let inlines_at_least = savings(&c.inlines_hidden_at_least, at_least);
            let inlines = savings(&c.inlines_hidden, at_most);
            let supplied = supplied(launch, i, &all);
            ProcessCandidate {
                image: shown.to_string(),
                index: i,
                library: c.library,
                flag: c.flag,
                hidden,
                inlines_hidden: inlines,
                inlines_hidden_at_least: inlines_at_least,
                kinds: c.kinds,
                objects: c.objects,
                leaves_search: left == 0 && !(launch.overrides)(i),
                supplied_to_others: supplied.0,
                defined_nowhere_else: supplied.1,
                supplied_examples: supplied.2,
                definers: definers.clone(),
            }
        })
        .collect();
    (candidates, shared)
}

/// The shared symbols of image `i`: each set of its plan (`plan`, its
/// [`super::fix_plan::FixPlan::shared`], at most [`super::fix_plan::SHARED_SETS`]) replayed
/// hidden alone; the weak-bound symbols and exports are the plan's.
fn image_shared(
    launch: &Launch<'_, '_>,
    (i, image): (usize, &Image),
    shown: &str,
    origins: &Origins<'_>,
    plan: &[Shared],
) -> Vec<ProcessShared> {
    if plan.is_empty() {
        return Vec::new();
    }
    let sets: HashMap<Vec<&str>, Vec<&str>> = shared_names(origins).into_iter().collect();
    let weak: std::collections::HashSet<&str> = image
        .weak_definitions
        .iter()
        .map(|w| w.name.as_str())
        .collect();
    // Each set's symbols hidden alone: the image keeps the weak definitions it does not name.
    plan.iter()
        .map(|sh| {
            let key: Vec<&str> = sh.libraries.iter().map(String::as_str).collect();
            let symbols = sets.get(&key).map_or(&[][..], Vec::as_slice);
            let mut hidden = vec![false; launch.text.len()];
            let mut any = false;
            for id in symbols.iter().filter_map(|n| launch.id_of.get(n)) {
                hidden[*id as usize] = true;
                any = true;
            }
            let exported = symbols.iter().filter(|n| weak.contains(*n)).count();
            let left = image.weak_definitions.len().saturating_sub(exported);
            let saved = saving(launch, i, (&hidden, any), left);
            ProcessShared {
                image: shown.to_string(),
                index: i,
                libraries: sh.libraries.clone(),
                hidden: savings(&sh.hidden, saved),
                examples: sh.examples.clone(),
            }
        })
        .collect()
}

/// Sorts shared sets most trie probes saved first, then lookups, then load order and libraries.
pub fn rank_shared(shared: &mut [ProcessShared]) {
    shared.sort_by(|a, b| {
        (b.hidden.trie_probes, b.hidden.lookups)
            .cmp(&(a.hidden.trie_probes, a.hidden.lookups))
            .then_with(|| a.index.cmp(&b.index))
            .then_with(|| a.libraries.cmp(&b.libraries))
    });
}

/// A process saving from the image's plan figures and the replay's `(lookups, probes)`.
fn savings(image: &Savings, (lookups, probes): (usize, i64)) -> ProcessSavings {
    ProcessSavings {
        weak_bound_symbols: image.weak_bound_symbols,
        lookups,
        trie_probes: probes,
        weak_def_exports: image.weak_def_exports,
        estimated_ms: estimate(probes),
    }
}

/// Milliseconds (low, high) of `probes` trie probes, rounded to the microsecond.
fn estimate(probes: i64) -> (f64, f64) {
    let ms = |us: f64| (probes as f64 * us).round() / 1000.0;
    (ms(US_PER_PROBE.0), ms(US_PER_PROBE.1))
}

/// Names hidden (`hidden`, by id) that image `i` wins for another image's lookup: how many, how
/// many of them no other image defines, and the first few (in lookup order).
fn supplied(launch: &Launch<'_, '_>, i: usize, hidden: &[bool]) -> (usize, usize, Vec<String>) {
    let (mut n, mut nowhere, mut examples) = (0, 0, Vec::new());
    for id in (0..hidden.len()).filter(|&id| hidden[id]) {
        let for_others =
            launch.winner[id] == Some(i) && launch.requesters[id].iter().any(|&r| r as usize != i);
        if !for_others {
            continue;
        }
        n += 1;
        if !(launch.defined_elsewhere)(id, i) {
            nowhere += 1;
        }
        if examples.len() < SUPPLIED_EXAMPLES {
            examples.push(launch.text[id].to_string());
        }
    }
    (n, nowhere, examples)
}

/// Sorts `candidates` best first: probes saved (descending), then the safer change (fewer
/// names no other image defines, then fewer names other images' lookups lose), then lookups
/// and weak-bound symbols saved (descending), then load order and library key.
pub fn rank(candidates: &mut [ProcessCandidate]) {
    let key = |c: &ProcessCandidate| {
        (
            std::cmp::Reverse(c.hidden.trie_probes),
            c.defined_nowhere_else,
            c.supplied_to_others,
            std::cmp::Reverse(c.hidden.lookups),
            std::cmp::Reverse(c.hidden.weak_bound_symbols),
            c.index,
        )
    };
    candidates.sort_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.library.cmp(&b.library)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch<'a>(
        steps: &'a [Step],
        reexports: &'a HashMap<u32, usize>,
        searched: usize,
    ) -> Launch<'a, 'static> {
        static NONE: std::sync::LazyLock<HashMap<&'static str, u32>> =
            std::sync::LazyLock::new(HashMap::default);
        Launch {
            steps,
            searched,
            probes: 0,
            reexport_probes: reexports,
            id_of: &NONE,
            text: &[],
            requesters: &[],
            winner: &[],
            defined_elsewhere: Box::new(|_, _| false),
            overrides: Box::new(|_| false),
            checks_remain: Box::new(|_| true),
        }
    }

    fn step(requester: u32, name: u32) -> Step {
        Step {
            requester,
            name,
            reason: LookupReason::BindTarget,
        }
    }

    #[test]
    fn a_replay_of_nothing_removed_costs_each_lookup_the_images_searched_and_its_reexports() {
        let steps = [step(0, 0), step(1, 1), step(1, 0)];
        let reexports: HashMap<u32, usize> = [(1, 2)].into_iter().collect();
        let l = launch(&steps, &reexports, 3);
        assert_eq!(replay(&l, 3, |_| false), (0, 3 + 5 + 3));
        assert_eq!(replay(&l, 2, |s| s.requester == 1), (2, 2));
    }

    #[test]
    fn a_lookup_removed_before_the_weak_def_map_is_made_can_save_no_probe() {
        // 5001 lookups of one name, then 10 more by another image: the 5001st makes the map,
        // the 10 are answered by it. Without the first lookup the map is made one lookup
        // later, so the first of the 10 probes: the lookup removed saves nothing.
        let mut steps: Vec<Step> = (0..5001).map(|_| step(0, 0)).collect();
        steps.extend((0..10).map(|_| step(1, 0)));
        let reexports = HashMap::default();
        let l = launch(&steps, &reexports, 1);
        assert_eq!(replay(&l, 1, |_| false), (0, 5001));
        let first = |s: &Step| std::ptr::eq(s, &steps[0]);
        assert_eq!(replay(&l, 1, first), (1, 5001));
        // A lookup removed after the map was made saved nothing either: the map answered it.
        let last = |s: &Step| std::ptr::eq(s, &steps[steps.len() - 1]);
        assert_eq!(replay(&l, 1, last), (1, 5001));
    }
}
