//! Diffing two versions of a whole process (`weakscan diff OLD.app NEW.app`): the process
//! figures old → new, each image paired with its counterpart and what it costs, the groups that
//! moved inside each changed image, and the cross-image duplicates gained and lost.
//!
//! Images are paired, in this order of preference:
//!
//! ```text
//! main            the main executables (first image of each process)
//! install_name    equal LC_ID_DYLIB (or, for an image outside, equal install name)
//! path            equal path inside the bundle / directory
//! unversioned     equal leaf name once digits are dropped (libvips-cpp.8.16.0.dylib and
//!                 libvips-cpp.8.17.3.dylib), each name used once
//! ```
//!
//! Anything left is `added` or `removed`. Processes (one per arch) are paired by arch, or by
//! `--pair-arch OLD=NEW`.

use super::coalesce::Coalescing;
use super::demangle::{Demangled, NameStyle, needs_demangling};
use super::diff::GroupDelta;
use super::group::GroupBy;
use super::report::{
    DEMANGLE_BATCH, DiffOptions, diff_report_paired, diff_report_with, failures_among,
};
use crate::error::{Error, Result};
use crate::process::Process;
use serde::Serialize;
use std::collections::BTreeMap;

/// A figure in both versions: `null` where a side does not have it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Change {
    /// In the old version.
    pub old: Option<usize>,
    /// In the new version.
    pub new: Option<usize>,
    /// `new − old` (`null` unless both are known).
    pub change: Option<i64>,
}

impl Change {
    /// The change from `old` to `new`.
    pub fn of(old: Option<usize>, new: Option<usize>) -> Self {
        Change {
            old,
            new,
            change: match (old, new) {
                (Some(a), Some(b)) => Some(b as i64 - a as i64),
                _ => None,
            },
        }
    }

    /// The absolute change, 0 when unknown.
    pub fn magnitude(&self) -> u64 {
        self.change.map_or(0, i64::unsigned_abs)
    }
}

/// How an image was paired with its counterpart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PairedBy {
    /// The main executables.
    Main,
    /// The same install name.
    InstallName,
    /// The same path in the bundle or directory.
    Path,
    /// The same leaf name without its version digits.
    Unversioned,
}

/// What became of an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImageStatus {
    /// Only in the new version.
    Added,
    /// Only in the old version.
    Removed,
    /// In both, with a figure changed or under another name.
    Changed,
    /// In both, same figures.
    Unchanged,
}

/// One image of either version and its figures old → new.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImageDelta {
    /// The image as shown in the new version (the old one's when removed).
    pub image: String,
    /// The old version's name, when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_image: Option<String>,
    /// Added, removed, changed or unchanged.
    pub status: ImageStatus,
    /// How it was paired (`null` when added or removed).
    pub paired_by: Option<PairedBy>,
    /// Position in the new load order (the old one's when removed).
    pub index: usize,
    /// On disk in the new version (the old one's when removed).
    pub on_disk: bool,
    /// Weak-def lookups it requests.
    pub lookups: Change,
    /// Trie probes its lookups cost.
    pub trie_probes: Change,
    /// Weak definitions it exports (`null`: outside).
    pub weak_definitions: Change,
    /// Looked-up names whose winning definition is its own.
    pub wins: Change,
    /// Weak definitions no image looks up.
    pub unused_weak_definitions: Change,
    /// Probes saved process-wide if it were built with hidden visibility.
    pub saved_probes_if_hidden: Change,
    /// Its groups that changed (by the diff's grouping), largest |Δ lookups| first, cut to
    /// `--top`; empty unless both versions are on disk.
    pub groups: Vec<GroupDelta>,
    /// Its groups whose figures changed (before the cut).
    pub groups_changed: usize,
}

/// A cross-image duplicate group in either version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DuplicateGroupDelta {
    /// The template key.
    pub template: String,
    /// Distinct duplicated symbols.
    pub symbols: Change,
    /// Lookups of them.
    pub lookups: Change,
    /// The images defining them in the new version (the old one's when gone).
    pub images: Vec<String>,
    /// The images that defined them in the old version, when those differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_images: Option<Vec<String>>,
}

/// The process figures old → new.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TotalsDelta {
    /// Images in the load order.
    pub images: Change,
    /// Images on disk.
    pub images_on_disk: Change,
    /// Images searched on every lookup.
    pub images_searched: Change,
    /// Weak-def lookups.
    pub lookups: Change,
    /// Export-trie probes.
    pub trie_probes: Change,
    /// Distinct names looked up.
    pub distinct_names: Change,
    /// Distinct names defined by several images on disk.
    pub duplicated_names: Change,
    /// Distinct names no image on disk defines.
    pub defined_outside: Change,
    /// Estimated time of the probes, ms (low, high), old.
    pub estimated_ms_old: (f64, f64),
    /// Estimated time of the probes, ms (low, high), new.
    pub estimated_ms_new: (f64, f64),
}

/// Two versions of one process (one arch of each).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProcessDiff {
    /// The old process's arch.
    pub old_arch: String,
    /// The new process's arch.
    pub new_arch: String,
    /// The old main executable (its path).
    pub old_main: String,
    /// The new main executable (its path).
    pub new_main: String,
    /// The process figures.
    pub totals: TotalsDelta,
    /// Every image: the new load order, then the removed ones in the old order.
    pub images: Vec<ImageDelta>,
    /// Duplicate groups whose figures changed, largest |Δ lookups| first (cut to `--top`).
    pub duplicate_groups: Vec<DuplicateGroupDelta>,
    /// Problems met loading the old version.
    pub old_problems: Vec<String>,
    /// Problems met loading the new version.
    pub new_problems: Vec<String>,
    /// The new version's fix plan, best first ([`super::process_fix_plan`]).
    pub fix_plan: Vec<super::process_fix_plan::ProcessCandidate>,
}

/// `weakscan diff` of two processes.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ProcessDiffReport {
    /// The grouping of the per-image groups (written as its name by the JSON output).
    #[serde(skip)]
    #[schemars(skip)]
    pub group_by: GroupBy,
    /// One per pair of arches.
    pub processes: Vec<ProcessDiff>,
    /// `_Z` names that could not be demangled.
    pub demangle_failures: usize,
}

/// One side of a process diff: the loaded process and its analysis.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The process as loaded.
    pub process: &'a Process,
    /// Its coalescing.
    pub coalescing: &'a Coalescing,
}

/// Pairs the processes of two versions by arch (or `pair` = `(old arch, new arch)`) and diffs
/// each pair, names shown in `style`.
///
/// Errors (usage): no arch in common and no `pair`, or a `pair` arch a side lacks; demangling
/// failures of the per-image diffs.
pub fn diff_processes(
    old: &[Side<'_>],
    new: &[Side<'_>],
    by: GroupBy,
    top: Option<usize>,
    pair: Option<(&str, &str)>,
    style: NameStyle,
) -> Result<ProcessDiffReport> {
    let arches = |s: &[Side<'_>]| {
        s.iter()
            .map(|x| x.process.arch.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let pairs: Vec<(Side<'_>, Side<'_>)> = match pair {
        Some((a, b)) => {
            fn find<'s>(s: &[Side<'s>], arch: &str) -> Result<Side<'s>> {
                s.iter()
                    .copied()
                    .find(|x| x.process.arch == arch)
                    .ok_or_else(|| {
                        Error::usage(format!(
                            "--pair-arch: a process has no {arch} slice (it has {})",
                            s.iter()
                                .map(|x| x.process.arch.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })
            }
            vec![(find(old, a)?, find(new, b)?)]
        }
        None => new
            .iter()
            .filter_map(|n| {
                old.iter()
                    .find(|o| o.process.arch == n.process.arch)
                    .map(|o| (*o, *n))
            })
            .collect(),
    };
    if pairs.is_empty() {
        return Err(Error::usage(format!(
            "no architecture in common: the old process is {}, the new one {}; compare two with --pair-arch OLD=NEW",
            arches(old),
            arches(new)
        )));
    }
    let mut processes = Vec::new();
    let mut demangle_failures = 0;
    for (o, n) in pairs {
        let (d, failures) = diff_pair(o, n, by, top, style)?;
        demangle_failures += failures;
        processes.push(d);
    }
    Ok(ProcessDiffReport {
        group_by: by,
        processes,
        demangle_failures,
    })
}

/// The key of each pairing rule for image `i` of `side` (`None` where a rule does not apply).
fn keys(side: Side<'_>, i: usize) -> [Option<String>; 4] {
    let cost = &side.coalescing.images[i];
    let main = (i == 0).then(String::new);
    let install = cost.install_name.clone().or_else(|| {
        // An image outside is named by its install name.
        (!cost.on_disk).then(|| cost.image.clone())
    });
    let path = cost.on_disk.then(|| cost.image.clone());
    let leaf = cost.image.rsplit('/').next().unwrap_or(&cost.image);
    [main, install, path, Some(unversioned(leaf))]
}

/// `leaf` without ASCII digits, and with each run of `.`, `-` or `_` left by them collapsed to
/// its first character: `libvips-cpp.8.17.3.dylib` → `libvips-cpp.dylib`, `libicu74.dylib` →
/// `libicu.dylib`.
pub fn unversioned(leaf: &str) -> String {
    let mut out = String::with_capacity(leaf.len());
    let mut dropped = false;
    for c in leaf.chars() {
        if c.is_ascii_digit() {
            dropped = true;
            continue;
        }
        if dropped && matches!(c, '.' | '-' | '_') && out.ends_with(['.', '-', '_']) {
            continue;
        }
        dropped = false;
        out.push(c);
    }
    out
}

/// Pairs the images of two processes: `(old index, new index, rule)`, in no particular order.
fn pair_images(o: Side<'_>, n: Side<'_>) -> Vec<(usize, usize, PairedBy)> {
    const RULES: [PairedBy; 4] = [
        PairedBy::Main,
        PairedBy::InstallName,
        PairedBy::Path,
        PairedBy::Unversioned,
    ];
    let (no, nn) = (o.coalescing.images.len(), n.coalescing.images.len());
    let old_keys: Vec<_> = (0..no).map(|i| keys(o, i)).collect();
    let new_keys: Vec<_> = (0..nn).map(|i| keys(n, i)).collect();
    let mut old_used = vec![false; no];
    let mut new_used = vec![false; nn];
    let mut out = Vec::new();
    for (r, rule) in RULES.iter().enumerate() {
        // Keys of this rule that occur once on each side (an ambiguous key pairs nothing).
        fn index<'k>(
            ks: &'k [[Option<String>; 4]],
            used: &[bool],
            r: usize,
        ) -> BTreeMap<&'k str, Option<usize>> {
            let mut m: BTreeMap<&str, Option<usize>> = BTreeMap::new();
            for (i, k) in ks.iter().enumerate() {
                if let (Some(k), false) = (&k[r], used[i]) {
                    m.entry(k.as_str())
                        .and_modify(|v| *v = None)
                        .or_insert(Some(i));
                }
            }
            m
        }
        let (om, nm) = (
            index(&old_keys, &old_used, r),
            index(&new_keys, &new_used, r),
        );
        for (k, oi) in om {
            if let (Some(oi), Some(Some(ni))) = (oi, nm.get(k)) {
                old_used[oi] = true;
                new_used[*ni] = true;
                out.push((oi, *ni, *rule));
            }
        }
    }
    out
}

fn diff_pair(
    o: Side<'_>,
    n: Side<'_>,
    by: GroupBy,
    top: Option<usize>,
    style: NameStyle,
) -> Result<(ProcessDiff, usize)> {
    let (oc, nc) = (o.coalescing, n.coalescing);
    let pairs = pair_images(o, n);
    let mut by_new: BTreeMap<usize, (usize, PairedBy)> = BTreeMap::new();
    let mut paired_old = vec![false; oc.images.len()];
    for &(oi, ni, rule) in &pairs {
        by_new.insert(ni, (oi, rule));
        paired_old[oi] = true;
    }
    // One name table for every pair (the images of a process share their templates: a table per
    // pair demangled the same names once per pair), except `--by namespace`, whose keys depend
    // on the names read together (see `diff_report_with`).
    let both = |(oi, ni, _): &(usize, usize, PairedBy)| {
        [&o.process.images[*oi].image, &n.process.images[*ni].image]
            .into_iter()
            .flatten()
    };
    let shared = if matches!(by, GroupBy::Namespace(_)) {
        None
    } else {
        // Distinct names through a set first: 40 images of 120k names share 40k (a list of
        // every name, sorted, held 4.8M entries).
        let mut distinct: foldhash::HashSet<&str> = Default::default();
        for im in pairs.iter().flat_map(both) {
            distinct.extend(im.symbol_names().filter(|n| needs_demangling(n)));
        }
        let mut sorted: Vec<&str> = distinct.into_iter().collect();
        sorted.sort_unstable();
        Some(Demangled::of_sorted(
            sorted,
            DEMANGLE_BATCH,
            by.keys(),
            style,
        )?)
    };
    let mut failures = 0;
    let mut images = Vec::new();
    for (ni, ncost) in nc.images.iter().enumerate() {
        let paired = by_new.get(&ni).copied();
        let ocost = paired.map(|(oi, _)| &oc.images[oi]);
        let (groups, groups_changed) = match paired {
            Some((oi, _)) => {
                let (a, b) = (&o.process.images[oi].image, &n.process.images[ni].image);
                match (a, b) {
                    (Some(a), Some(b)) => {
                        let (a, b) = (std::slice::from_ref(a), std::slice::from_ref(b));
                        let options = DiffOptions {
                            by,
                            top: Some(top.unwrap_or(usize::MAX)),
                            with_symbols: false,
                            pair: Some((a[0].label(), b[0].label())),
                            style,
                        };
                        let r = match &shared {
                            Some(names) => {
                                failures += failures_among(a.iter().chain(b), names);
                                diff_report_with(a, b, options, names)?
                            }
                            None => {
                                let r = diff_report_paired(a, b, options)?;
                                failures += r.demangle_failures;
                                r
                            }
                        };
                        let p = r.pairs.into_iter().next();
                        p.map_or((Vec::new(), 0), |p| (p.groups, p.groups_changed))
                    }
                    _ => (Vec::new(), 0),
                }
            }
            None => (Vec::new(), 0),
        };
        let mut d = image_delta(ocost, Some(ncost), groups, groups_changed);
        d.paired_by = paired.map(|(_, r)| r);
        if let Some(oc) = ocost.filter(|c| c.image != ncost.image) {
            d.old_image = Some(oc.image.clone());
            d.status = ImageStatus::Changed;
        }
        images.push(d);
    }
    for (oi, ocost) in oc.images.iter().enumerate() {
        if !paired_old[oi] {
            images.push(image_delta(Some(ocost), None, Vec::new(), 0));
        }
    }

    // Duplicate groups by template key.
    let mut dups: BTreeMap<&str, (Option<&_>, Option<&_>)> = BTreeMap::new();
    for g in &oc.duplicate_groups {
        dups.entry(g.template.as_str()).or_default().0 = Some(g);
    }
    for g in &nc.duplicate_groups {
        dups.entry(g.template.as_str()).or_default().1 = Some(g);
    }
    let mut duplicate_groups: Vec<DuplicateGroupDelta> = dups
        .into_iter()
        .map(
            |(k, (a, b)): (&str, (Option<&super::coalesce::DuplicateGroup>, _))| {
                let figure =
                    |g: Option<&super::coalesce::DuplicateGroup>,
                     f: fn(&super::coalesce::DuplicateGroup) -> usize| {
                        Some(g.map_or(0, f))
                    };
                DuplicateGroupDelta {
                    template: k.to_string(),
                    symbols: Change::of(figure(a, |g| g.symbols), figure(b, |g| g.symbols)),
                    lookups: Change::of(figure(a, |g| g.lookups), figure(b, |g| g.lookups)),
                    images: b.or(a).map(|g| g.images.clone()).unwrap_or_default(),
                    old_images: match (a, b) {
                        (Some(a), Some(b)) if a.images != b.images => Some(a.images.clone()),
                        _ => None,
                    },
                }
            },
        )
        .filter(|d| d.symbols.magnitude() + d.lookups.magnitude() > 0 || d.old_images.is_some())
        .collect();
    duplicate_groups.sort_by(|a, b| {
        (b.lookups.magnitude(), b.symbols.magnitude())
            .cmp(&(a.lookups.magnitude(), a.symbols.magnitude()))
            .then_with(|| a.template.cmp(&b.template))
    });
    if let Some(k) = top {
        duplicate_groups.truncate(k);
    }

    let c = |f: fn(&Coalescing) -> usize| Change::of(Some(f(oc)), Some(f(nc)));
    let totals = TotalsDelta {
        images: c(|p| p.images.len()),
        images_on_disk: c(|p| p.images_on_disk),
        images_searched: c(|p| p.images_searched),
        lookups: c(|p| p.lookups),
        trie_probes: c(|p| p.trie_probes),
        distinct_names: c(|p| p.distinct_names),
        duplicated_names: c(|p| p.duplicated_names),
        defined_outside: c(|p| p.defined_outside),
        estimated_ms_old: oc.estimated_ms,
        estimated_ms_new: nc.estimated_ms,
    };
    // The main executable as given (its path), else as shown.
    let main_of = |s: Side<'_>| {
        s.process.images.first().map_or(String::new(), |m| {
            m.path
                .as_ref()
                .map_or_else(|| m.name.clone(), |p| crate::text::escape_path(p))
        })
    };
    Ok((
        ProcessDiff {
            old_arch: oc.arch.clone(),
            new_arch: nc.arch.clone(),
            old_main: main_of(o),
            new_main: main_of(n),
            totals,
            images,
            duplicate_groups,
            old_problems: oc.problems.clone(),
            new_problems: nc.problems.clone(),
            fix_plan: nc.fix_plan.clone(),
        },
        failures,
    ))
}

fn image_delta(
    old: Option<&super::coalesce::ImageCost>,
    new: Option<&super::coalesce::ImageCost>,
    groups: Vec<GroupDelta>,
    groups_changed: usize,
) -> ImageDelta {
    let shown = new.or(old).expect("one side exists");
    let f = |g: fn(&super::coalesce::ImageCost) -> Option<usize>| {
        Change::of(old.and_then(g), new.and_then(g))
    };
    let mut d = ImageDelta {
        image: shown.image.clone(),
        old_image: None,
        status: ImageStatus::Unchanged,
        paired_by: None,
        index: shown.index,
        on_disk: shown.on_disk,
        lookups: f(|c| Some(c.lookups)),
        trie_probes: f(|c| Some(c.trie_probes)),
        weak_definitions: f(|c| c.weak_definitions),
        wins: f(|c| Some(c.wins)),
        unused_weak_definitions: f(|c| c.unused_weak_definitions),
        saved_probes_if_hidden: f(|c| Some(c.saved_probes_if_hidden)),
        groups,
        groups_changed,
    };
    d.status = match (old, new) {
        (None, _) => ImageStatus::Added,
        (_, None) => ImageStatus::Removed,
        _ => {
            let moved = [
                d.lookups,
                d.trie_probes,
                d.weak_definitions,
                d.wins,
                d.unused_weak_definitions,
                d.saved_probes_if_hidden,
            ]
            .iter()
            .any(|c| c.magnitude() > 0 || (c.old.is_some() != c.new.is_some()));
            if moved || d.groups_changed > 0 {
                ImageStatus::Changed
            } else {
                ImageStatus::Unchanged
            }
        }
    };
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unversioned_drops_version_digits() {
        assert_eq!(unversioned("libvips-cpp.8.17.3.dylib"), "libvips-cpp.dylib");
        assert_eq!(unversioned("libvips-cpp.8.16.0.dylib"), "libvips-cpp.dylib");
        assert_eq!(unversioned("libicu74.dylib"), "libicu.dylib");
        assert_eq!(
            unversioned("libfoo_2_1.dylib"),
            unversioned("libfoo_3_0.dylib")
        );
        assert_eq!(unversioned("App"), "App");
    }

    #[test]
    fn change_of_unknown_side_has_no_change() {
        assert_eq!(Change::of(Some(3), None).change, None);
        assert_eq!(Change::of(Some(3), Some(1)).change, Some(-2));
        assert_eq!(Change::of(Some(3), Some(1)).magnitude(), 2);
    }
}
