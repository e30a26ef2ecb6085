//! `diff --old-compile-commands A --new-compile-commands B`: the objects of the new build's
//! attribution whose visibility options changed between the two builds' compile databases,
//! grouped by library, with what their weak symbols cost in the new build.
//!
//! Each attributed object is matched to its entry of B as [`super::visibility`] matches it
//! ([`CompileDbIndex::find`]: by the source path the debug map records, else by the object
//! path; only a unique entry counts), then B's entry to A's as `weakscan flags` pairs them
//! ([`super::flags_diff::pair`]: by output, then by source). Both sides' options are read for
//! the image's arch ([`visibility_of`]) and compared by [`super::flags_diff::change`]. An
//! object with no unique entry in B, with no entry of A paired to it, or whose options cannot
//! be read on either side is counted (report-wide), never taken for unchanged silently.

use super::attribute::Origins;
use super::fix_plan::FixPlan;
use super::flags_diff::{Change, change, describe, pair};
use crate::model::Image;
use crate::origin::compile_db::{CompileCommand, CompileDbIndex, Match, visibility_of};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// The objects of one image of the new build compiled differently from the old build.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CompiledDifferently {
    /// Objects of the image's attribution.
    pub objects: usize,
    /// Of those, with no unique entry in the new database.
    pub not_in_new: usize,
    /// Of those, whose new entry no entry of the old database pairs with.
    pub not_in_old: usize,
    /// Of those, whose options cannot be read in one database at least.
    pub unknown: usize,
    /// Per library with changed objects, most lookups brought by objects that lost hidden
    /// visibility first ([`LibraryChange::brought`]).
    pub libraries: Vec<LibraryChange>,
    /// How the text names the new build (its label): set by the command, not serialized.
    #[serde(skip)]
    #[schemars(skip)]
    pub since: String,
}

/// One library's objects whose visibility options changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LibraryChange {
    /// The library key (the archive name, the image for loose objects).
    pub library: String,
    /// Objects no longer hidden by default (`-fvisibility=hidden` lost).
    pub lost_hidden: usize,
    /// Objects newly hidden by default.
    pub gained_hidden: usize,
    /// Objects whose other visibility options changed.
    pub other: usize,
    /// Distinct weak-bound symbols of the new build from the changed objects.
    pub weak_bound_symbols: usize,
    /// Weak-def lookups of the new build of the changed objects' symbols.
    pub lookups: usize,
    /// Of those, of the objects that lost hidden visibility.
    pub lookups_lost_hidden: usize,
    /// Lookups of operator new and delete that came with `MH_WEAK_DEFINES`, which the old
    /// build did not have and these objects brought: the new build's weak definitions are the
    /// library's alone ([`with_weak_defines`]); 0 otherwise. Not in [`Self::lookups`].
    pub weak_defines_lookups: usize,
    /// The changed object with the most lookups (its object key).
    pub first_object: String,
    /// Its options in the old build (`-fvisibility=hidden`, `(none)`).
    pub old_options: String,
    /// Its options in the new build.
    pub new_options: String,
    /// Every changed object of the library, most lookups first (the attribution's order
    /// between equals): `objects[0]` is `first_object`.
    pub objects: Vec<ObjectChange>,
}

/// One object of a library whose visibility options changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ObjectChange {
    /// The object key (`libfoo.a(foo.o)`, or the loose object's path).
    pub object: String,
    /// How its options changed.
    pub change: ObjectChangeKind,
    /// Distinct weak-bound symbols of the new build from it.
    pub weak_bound_symbols: usize,
    /// Weak-def lookups of the new build of its symbols.
    pub lookups: usize,
}

/// How one object's options changed ([`Change`] without `Same`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ObjectChangeKind {
    /// No longer hidden by default (`-fvisibility=hidden` lost).
    LostHidden,
    /// Newly hidden by default.
    GainedHidden,
    /// Other visibility options changed.
    Other,
}

impl LibraryChange {
    /// Objects whose options changed.
    pub fn changed(&self) -> usize {
        self.lost_hidden + self.gained_hidden + self.other
    }

    /// The lookups the objects that lost hidden visibility brought: their own, and those that
    /// came with `MH_WEAK_DEFINES` ([`Self::weak_defines_lookups`]).
    pub fn brought(&self) -> usize {
        self.lookups_lost_hidden + self.weak_defines_lookups
    }

    /// The objects that lost hidden visibility, most lookups first.
    pub fn lost_hidden_objects(&self) -> impl Iterator<Item = &ObjectChange> {
        self.objects
            .iter()
            .filter(|o| o.change == ObjectChangeKind::LostHidden)
    }
}

/// A compiled input of the attribution: not a link map's linker-synthesized entry, dylib or
/// text stub (an empty path, see the [module documentation](self)).
fn compiled_input(path: &str) -> bool {
    !path.is_empty()
}

/// Per object of the attribution: distinct weak-bound symbols and lookups.
fn costs(image: &Image, origins: &Origins) -> Vec<(usize, usize)> {
    let mut out = vec![(0, 0); origins.objects().len()];
    let mut seen: HashSet<(u32, &str)> = HashSet::new();
    for t in &image.bind_targets {
        if let Some(o) = origins.object_of(&t.symbol)
            && seen.insert((o, t.symbol.as_str()))
        {
            out[o as usize].0 += 1;
        }
    }
    for l in &image.lookups {
        if let Some(o) = origins.object_of(&l.symbol) {
            out[o as usize].1 += 1;
        }
    }
    out
}

/// The objects of `image` (the new build, attributed) whose options changed from `old` to
/// `new` (indexed as `new_index`); see the [module documentation](self). Empty without
/// attribution.
pub fn compiled_differently(
    image: &Image,
    old: &[CompileCommand],
    new: &[CompileCommand],
    new_index: &CompileDbIndex,
) -> CompiledDifferently {
    let origins = Origins::of(image);
    let Some(attribution) = origins.attribution() else {
        return CompiledDifferently::default();
    };
    let (pairs, _) = pair(old, new);
    let mut old_of: Vec<Option<usize>> = vec![None; new.len()];
    for (o, n) in pairs {
        old_of[n] = Some(o);
    }
    let arch = image.arch.as_deref();
    let cost = costs(image, &origins);
    let mut report = CompiledDifferently::default();
    // Per library: the entry, and the most lookups of a changed object so far.
    let mut libraries: BTreeMap<&str, (LibraryChange, Option<usize>)> = BTreeMap::new();
    for (i, (o, keys)) in attribution
        .objects
        .iter()
        .zip(origins.objects())
        .enumerate()
    {
        if !compiled_input(&o.path) {
            continue;
        }
        report.objects += 1;
        let Match::Unique(ni) = new_index.find(keys.source_path.as_deref(), Some(o.path.as_str()))
        else {
            report.not_in_new += 1;
            continue;
        };
        let Some(oi) = old_of[ni] else {
            report.not_in_old += 1;
            continue;
        };
        let (Ok(a), Ok(b)) = (visibility_of(&old[oi], arch), visibility_of(&new[ni], arch)) else {
            report.unknown += 1;
            continue;
        };
        let how = change(&a, &b);
        if how == Change::Same {
            continue;
        }
        let (bound, lookups) = cost.get(i).copied().unwrap_or((0, 0));
        let (l, best) = libraries.entry(keys.library.as_str()).or_insert_with(|| {
            (
                LibraryChange {
                    library: keys.library.clone(),
                    ..LibraryChange::default()
                },
                None,
            )
        });
        let kind = match how {
            Change::LostHidden => {
                l.lost_hidden += 1;
                l.lookups_lost_hidden += lookups;
                ObjectChangeKind::LostHidden
            }
            Change::GainedHidden => {
                l.gained_hidden += 1;
                ObjectChangeKind::GainedHidden
            }
            Change::Other | Change::Same => {
                l.other += 1;
                ObjectChangeKind::Other
            }
        };
        l.weak_bound_symbols += bound;
        l.lookups += lookups;
        l.objects.push(ObjectChange {
            object: keys.object.clone(),
            change: kind,
            weak_bound_symbols: bound,
            lookups,
        });
        if best.is_none_or(|b| lookups > b) {
            *best = Some(lookups);
            l.first_object = keys.object.clone();
            l.old_options = describe(&a);
            l.new_options = describe(&b);
        }
    }
    let mut libraries: Vec<LibraryChange> = libraries
        .into_values()
        .map(|(mut l, _)| {
            l.objects.sort_by_key(|o| std::cmp::Reverse(o.lookups));
            l
        })
        .collect();
    libraries.sort_by(|a, b| {
        (b.lookups_lost_hidden, b.lookups, b.changed())
            .cmp(&(a.lookups_lost_hidden, a.lookups, a.changed()))
            .then_with(|| a.library.cmp(&b.library))
    });
    report.libraries = libraries;
    report
}

/// Credits the lookups that come with `MH_WEAK_DEFINES` ([`FixPlan`]'s
/// [`crate::analysis::fix_plan::Savings::weak_defines_lookups`]) to the library whose objects
/// lost hidden visibility when the old build had no `MH_WEAK_DEFINES` (`old_flags`, its header
/// flags; `None`: not known, nothing credited) and hiding that library alone would leave the new
/// build without an exported weak definition (`plan`, the new build's fix plan): the flag, and
/// dyld's lookups of operator new and delete with it, came with that library's change
/// (docs/dyld-weak-binding.md, [`super::weak_defines`]).
pub fn with_weak_defines(
    c: &mut CompiledDifferently,
    old_flags: Option<&[String]>,
    plan: &FixPlan,
) {
    let Some(flags) = old_flags else {
        return;
    };
    if flags.iter().any(|f| f == "MH_WEAK_DEFINES") {
        return;
    }
    for l in c.libraries.iter_mut().filter(|l| l.lost_hidden > 0) {
        if let Some(candidate) = plan.candidates.iter().find(|k| k.library == l.library) {
            l.weak_defines_lookups = candidate.hidden.weak_defines_lookups;
        }
    }
    c.libraries.sort_by(|a, b| {
        (b.brought(), b.lookups, b.changed())
            .cmp(&(a.brought(), a.lookups, a.changed()))
            .then_with(|| a.library.cmp(&b.library))
    });
}
