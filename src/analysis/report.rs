//! The data that every output format renders: a scan report and a diff report.

use super::demangle::{Demangled, demangle_all};
use super::diff::{GroupDelta, SymbolChanges, diff_groups, symbol_changes};
use super::group::{Group, GroupBy, GroupStats, group_image};
use crate::model::Image;
use serde::Serialize;

/// Image-level facts and the four figures, as printed in summaries and JSON `images`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageSummary {
    /// The input file.
    pub path: String,
    /// `x86_64`, `arm64`, `arm64e`, …
    pub arch: String,
    /// `MH_EXECUTE`, `MH_DYLIB`, …
    pub filetype: String,
    /// Set header flags by name.
    pub flags: Vec<String>,
    /// `opcodes`, `chained` or `none`.
    pub fixup_format: &'static str,
    /// Export-trie terminals with `WEAK_DEFINITION`.
    pub weak_def_exports: usize,
    /// Locations bound by weak binds.
    pub weak_bind_sites: usize,
    /// Distinct weak-bound symbols.
    pub weak_bind_symbols: usize,
    /// Predicted "looking for weak-def symbol" lines (dyld4, macOS 15) as main executable.
    pub predicted_weak_lookups: usize,
    /// Weak-bound symbols that the image itself exports as weak definitions.
    pub defined_here_symbols: usize,
    /// Weak-bound symbols defined elsewhere (e.g. operator new in libc++).
    pub defined_elsewhere_symbols: usize,
    /// Weak-bind targets (dyld's count; differs from symbols when addends differ).
    pub weak_bind_targets: usize,
    /// Thread-local weak definitions (included in `weak_def_exports`).
    pub thread_local_weak_defs: usize,
    /// Strong overrides announced in the opcode weak-bind stream.
    pub strong_overrides: usize,
}

impl ImageSummary {
    /// The summary of `image`.
    pub fn of(image: &Image) -> Self {
        let here = image.defined_here_symbols();
        ImageSummary {
            path: image.path.clone(),
            arch: image.arch.clone(),
            filetype: image.filetype_name(),
            flags: image.flag_names(),
            fixup_format: image.fixup_format.as_str(),
            weak_def_exports: image.weak_def_exports(),
            weak_bind_sites: image.weak_bind_sites(),
            weak_bind_symbols: image.weak_bind_symbols(),
            predicted_weak_lookups: image.predicted_weak_lookups(),
            defined_here_symbols: here,
            defined_elsewhere_symbols: image.weak_bind_symbols() - here,
            weak_bind_targets: image.bind_targets.len(),
            thread_local_weak_defs: image
                .weak_definitions
                .iter()
                .filter(|w| w.thread_local)
                .count(),
            strong_overrides: image.strong_overrides.len(),
        }
    }

    /// The four figures as [`GroupStats`].
    pub fn stats(&self) -> GroupStats {
        GroupStats {
            weak_bound_symbols: self.weak_bind_symbols,
            lookups: self.predicted_weak_lookups,
            sites: self.weak_bind_sites,
            weak_def_exports: self.weak_def_exports,
        }
    }
}

/// One image of a scan with its groups.
#[derive(Debug, Clone)]
pub struct ImageReport {
    /// Summary.
    pub summary: ImageSummary,
    /// Groups, sorted, cut to `--top`.
    pub groups: Vec<Group>,
    /// Number of groups before the cut.
    pub groups_total: usize,
}

/// `weakscan scan`.
#[derive(Debug, Clone)]
pub struct ScanReport {
    /// The grouping used.
    pub group_by: GroupBy,
    /// One entry per image (slice).
    pub images: Vec<ImageReport>,
    /// `_Z` names cpp_demangle could not read (kept raw).
    pub demangle_failures: usize,
}

fn names_of<'a>(images: impl IntoIterator<Item = &'a Image>) -> Demangled<'a> {
    let mut all: Vec<&str> = Vec::new();
    for i in images {
        all.extend(i.bind_targets.iter().map(|t| t.symbol.as_str()));
        all.extend(i.weak_definitions.iter().map(|w| w.name.as_str()));
        all.extend(i.lookups.iter().map(|l| l.symbol.as_str()));
    }
    demangle_all(all)
}

/// Builds the scan report of `images`, keeping at most `top` groups per image.
pub fn scan_report(images: &[Image], by: GroupBy, top: Option<usize>) -> ScanReport {
    let names = names_of(images);
    let images = images
        .iter()
        .map(|image| {
            let mut groups = group_image(image, &names, by);
            let groups_total = groups.len();
            if let Some(n) = top {
                groups.truncate(n);
            }
            ImageReport {
                summary: ImageSummary::of(image),
                groups,
                groups_total,
            }
        })
        .collect();
    ScanReport {
        group_by: by,
        images,
        demangle_failures: names.failures,
    }
}

/// One arch present in both builds.
#[derive(Debug, Clone)]
pub struct PairReport {
    /// The arch.
    pub arch: String,
    /// Old image.
    pub old: ImageSummary,
    /// New image.
    pub new: ImageSummary,
    /// Groups of both, sorted by |Δ|, cut to `--top` (unchanged ones dropped when cut).
    pub groups: Vec<GroupDelta>,
    /// Groups whose figures changed.
    pub groups_changed: usize,
    /// Weak-bound symbols added and removed (with `--symbols`).
    pub symbols: Option<SymbolChanges>,
}

/// `weakscan diff`.
#[derive(Debug, Clone)]
pub struct DiffReport {
    /// The grouping used.
    pub group_by: GroupBy,
    /// Arches in both builds, in the new build's order.
    pub pairs: Vec<PairReport>,
    /// Images whose arch is only in the old build.
    pub only_old: Vec<ImageSummary>,
    /// Images whose arch is only in the new build.
    pub only_new: Vec<ImageSummary>,
    /// `_Z` names cpp_demangle could not read (kept raw).
    pub demangle_failures: usize,
}

/// Builds the diff report; images are paired by arch.
pub fn diff_report(
    old: &[Image],
    new: &[Image],
    by: GroupBy,
    top: Option<usize>,
    with_symbols: bool,
) -> DiffReport {
    let names = names_of(old.iter().chain(new));
    let mut pairs = Vec::new();
    for n in new {
        let Some(o) = old.iter().find(|o| o.arch == n.arch) else {
            continue;
        };
        let all = diff_groups(&group_image(o, &names, by), &group_image(n, &names, by));
        let groups_changed = all.iter().filter(|g| !g.delta.is_zero()).count();
        let groups = match top {
            Some(k) => all
                .into_iter()
                .filter(|g| !g.delta.is_zero())
                .take(k)
                .collect(),
            None => all,
        };
        pairs.push(PairReport {
            arch: n.arch.clone(),
            old: ImageSummary::of(o),
            new: ImageSummary::of(n),
            groups,
            groups_changed,
            symbols: with_symbols.then(|| symbol_changes(o, n, &names)),
        });
    }
    let only = |a: &[Image], b: &[Image]| -> Vec<ImageSummary> {
        a.iter()
            .filter(|i| !b.iter().any(|j| j.arch == i.arch))
            .map(ImageSummary::of)
            .collect()
    };
    DiffReport {
        group_by: by,
        pairs,
        only_old: only(old, new),
        only_new: only(new, old),
        demangle_failures: names.failures,
    }
}
