//! The data that every output format renders: a scan report and a diff report.

use super::demangle::{Demangled, NameStyle, needs_demangling};
use super::diff::{GroupDelta, Paired, SymbolChanges, pair_groups, symbol_changes};
use super::group::{Group, GroupBy, GroupStats, GroupTable, SupplierCount, supplier_counts};
use crate::error::{Error, Result};
use crate::model::{
    AttributionSource, FixupFormat, Image, ImageLines, LogFacts, LogFormat, LogRole, MainBy, Name,
};
use serde::Serialize;

/// Image-level facts and the figures, as printed in summaries and JSON `images`. A figure the
/// input cannot give is `None` (JSON `null`), never 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImageSummary {
    /// The input file.
    pub path: String,
    /// Leaf name of the image (file name, or the name dyld prints in a log).
    pub image: String,
    /// `binary`, `object`, `log` or `process`.
    #[schemars(with = "String")]
    pub input_kind: crate::model::InputKind,
    /// `x86_64`, `arm64`, `arm64e`, … (`null` for a log).
    pub arch: Option<String>,
    /// `MH_EXECUTE`, `MH_DYLIB`, … (`null` for a log).
    pub filetype: Option<String>,
    /// Set header flags by name (`null` for a log).
    pub flags: Option<Vec<String>>,
    /// `opcodes`, `chained` or `none` (`null` when a log does not tell).
    pub fixup_format: Option<&'static str>,
    /// Export-trie terminals with `WEAK_DEFINITION`.
    pub weak_def_exports: Option<usize>,
    /// Locations bound by weak binds.
    pub weak_bind_sites: Option<usize>,
    /// Distinct weak-bound symbols.
    pub weak_bind_symbols: Option<usize>,
    /// Predicted "looking for weak-def symbol" lines (dyld4, macOS 15) as main executable.
    pub predicted_weak_lookups: Option<usize>,
    /// Export-trie probes of the lookups (a whole process only, `input_kind: "process"`:
    /// `crate::analysis::coalesce`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trie_probes: Option<usize>,
    /// "looking for weak-def symbol" lines seen in a log for this image.
    pub seen_weak_lookups: Option<usize>,
    /// Weak-bound symbols that the image itself defines (a log: that dyld bound to it).
    pub defined_here_symbols: Option<usize>,
    /// Weak-bound symbols defined elsewhere (e.g. operator new in libc++).
    pub defined_elsewhere_symbols: Option<usize>,
    /// Weak-bind targets (dyld's count; differs from symbols when addends differ).
    pub weak_bind_targets: Option<usize>,
    /// Thread-local weak definitions (included in `weak_def_exports`).
    pub thread_local_weak_defs: Option<usize>,
    /// Strong overrides announced in the opcode weak-bind stream.
    pub strong_overrides: Option<usize>,
    /// Log only: the images dyld chose for this image's weak symbols, most first.
    pub suppliers: Option<Vec<SupplierCount>>,
    /// Log only: which dyld wrote it, the process read, and what the reader counted.
    pub log: Option<LogSummary>,
    /// Binary: where its symbols come from (`null` when nothing tells: a stripped binary, a
    /// log).
    pub attribution: Option<AttributionSummary>,
}

/// How much of an image [`crate::model::Attribution`] covers, in [`ImageSummary::attribution`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct AttributionSummary {
    /// `debug_map`, `link_map`, `dsym` or `object`.
    pub source: AttributionSource,
    /// Objects (or compile units) it names.
    pub objects: usize,
    /// Distinct weak-bound symbols it attributes to an object.
    pub weak_bound_attributed: usize,
    /// Weak definitions it attributes to an object.
    pub weak_defs_attributed: usize,
    /// Entries of the source that named no object (stray stabs, …).
    pub unplaced_entries: u64,
}

impl AttributionSummary {
    /// The summary of `image`'s attribution, if it has one; `weak_bound_attributed` is its
    /// count of distinct weak-bound symbols the attribution names (taken from
    /// [`Image::bound_symbol_counts`], the pass that counts them for [`ImageSummary`] too).
    pub fn of(image: &Image, weak_bound_attributed: usize) -> Option<Self> {
        let a = image.attribution.as_deref()?;
        Some(AttributionSummary {
            source: a.from,
            objects: a.objects.len(),
            weak_bound_attributed,
            weak_defs_attributed: image
                .weak_definitions
                .iter()
                .filter(|w| a.symbols.contains_key(w.name.as_str()))
                .count(),
            unplaced_entries: a.unplaced,
        })
    }
}

/// What a log says about itself, in [`ImageSummary::log`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LogSummary {
    /// `dyld2`, `dyld4_no_lookups`, `dyld4` or `dyld4_macos26`.
    pub format: LogFormat,
    /// The process read (`null` for dyld2).
    pub pid: Option<u32>,
    /// `main`, `inserted` (fixed up before the main executable: `DYLD_INSERT_LIBRARIES`) or
    /// `loaded`.
    pub role: LogRole,
    /// For the main executable, how it was told: `appended_treat_as_weak`, `not_a_library`,
    /// `first_fixed_up`, `named` (by `verify`) or `unnamed` (no image fixed up); `null` for the
    /// other images.
    pub main_by: Option<MainBy>,
    /// Position among the images the log fixes up (0: the first); `null` for an unnamed main
    /// executable.
    pub fixup_order: Option<u32>,
    /// The image's full path, when the log prints one (page-in line, `using … in PATH`).
    pub image_path: Option<String>,
    /// The image's own lines, by kind.
    pub image_lines: ImageLines,
    /// Bind lines that name the symbol found through a renamed re-export, not the one looked
    /// up.
    pub renamed_binds: u64,
    /// Line counts and the processes seen.
    #[serde(flatten)]
    pub facts: std::sync::Arc<LogFacts>,
}

impl ImageSummary {
    /// The summary of `image`.
    pub fn of(image: &Image) -> Self {
        let attribution = image.attribution.as_deref();
        let counts =
            image.bound_symbol_counts(|n| attribution.is_some_and(|a| a.symbols.contains_key(n)));
        let known = image.targets_known();
        let here = known.then_some(counts.defined_here);
        let bound = known.then_some(counts.all);
        let binary = !image.is_log();
        let suppliers = supplier_counts(image);
        ImageSummary {
            path: image.path.clone(),
            image: image.name.clone(),
            input_kind: image.input_kind(),
            arch: image.arch.clone(),
            filetype: image.filetype_name(),
            flags: image.flag_names(),
            fixup_format: image.fixup_format.map(FixupFormat::as_str),
            weak_def_exports: image.weak_def_exports(),
            weak_bind_sites: image.weak_bind_sites(),
            weak_bind_symbols: bound,
            predicted_weak_lookups: image.predicted_weak_lookups(),
            trie_probes: None,
            seen_weak_lookups: image.seen_weak_lookups(),
            defined_here_symbols: here,
            defined_elsewhere_symbols: bound.zip(here).map(|(all, here)| all - here),
            weak_bind_targets: image.weak_bind_targets(),
            thread_local_weak_defs: binary.then(|| {
                image
                    .weak_definitions
                    .iter()
                    .filter(|w| w.thread_local)
                    .count()
            }),
            strong_overrides: binary.then_some(image.strong_overrides.len()),
            suppliers,
            log: image.log().map(|l| LogSummary {
                format: l.format,
                pid: l.pid,
                role: l.role,
                main_by: l.main_by,
                fixup_order: l.fixup_order,
                image_path: l.image_path.as_ref().map(|p| p.to_string()),
                image_lines: l.lines,
                renamed_binds: l.renamed_binds,
                facts: l.facts.clone(),
            }),
            attribution: AttributionSummary::of(image, counts.counted),
        }
    }

    /// The four figures as [`GroupStats`] (lookups: predicted for a binary, seen for a log).
    pub fn stats(&self) -> GroupStats {
        GroupStats {
            weak_bound_symbols: self.weak_bind_symbols,
            lookups: self.predicted_weak_lookups.or(self.seen_weak_lookups),
            sites: self.weak_bind_sites,
            weak_def_exports: self.weak_def_exports,
        }
    }

    /// The arch, or for a log the image name: what `diff` pairs by.
    pub fn label(&self) -> &str {
        self.arch.as_deref().unwrap_or(&self.image)
    }
}

/// One image of a scan with its groups.
#[derive(Debug)]
pub struct ImageReport<'a> {
    /// Summary.
    pub summary: ImageSummary,
    /// The image.
    pub image: &'a Image,
    /// Groups, sorted, cut to `--top`; read them with [`ScanReport::groups`].
    pub groups: GroupTable,
    /// Number of groups before the cut.
    pub groups_total: usize,
    /// Its objects joined to a compile database (`scan --compile-commands`).
    pub visibility: Option<super::visibility::VisibilityReport>,
    /// What hiding each library's weak definitions would save, best first.
    pub fix_plan: super::fix_plan::FixPlan,
}

/// `weakscan scan`. Groups are held compactly and built as they are read
/// ([`ScanReport::groups`]), so a report of a million groups does not hold a million keys.
#[derive(Debug)]
pub struct ScanReport<'a> {
    /// The grouping used.
    pub group_by: GroupBy,
    /// One entry per image (slice).
    pub images: Vec<ImageReport<'a>>,
    /// `_Z` names kept raw (not read within the name engine's bounds, or refused by the printer).
    pub demangle_failures: usize,
    /// The same names by why: in JSON, only the reasons that occurred.
    pub demangle_failures_by_reason: crate::analysis::demangle::FailureReasons,
    /// The demangled names of the images.
    pub names: Demangled<'a>,
    /// `--importer`: each importer held against each image (how many of its imports the image
    /// exports, and which are missing).
    pub importers: Vec<super::imports::ImporterCheck>,
    /// Files below the directories of importers that were not read, by reason.
    pub importers_skipped: Vec<super::imports::SkippedImporters>,
}

impl<'a> ScanReport<'a> {
    /// The groups of `img` (one of [`ScanReport::images`]) kept, in order, each built as it is
    /// read.
    pub fn groups<'r>(&'r self, img: &'r ImageReport<'a>) -> impl Iterator<Item = Group> + 'r {
        img.groups.groups(img.image, &self.names)
    }
}

/// The demangled names of `images` (each distinct `_Z` name once), keeping the keys `by` reads,
/// shown in `style`.
///
/// Errors: the demangling threads cannot be started.
pub(crate) fn names_of<'a>(
    images: impl IntoIterator<Item = &'a Image>,
    by: GroupBy,
    style: NameStyle,
) -> Result<Demangled<'a>> {
    let all = distinct_cxx_names(images).into_iter().map(Name::as_str);
    Demangled::of_sorted(all.collect(), DEMANGLE_BATCH, by.keys(), style)
}

/// The names of `images` that `names_of` demangles, sorted, as copies of the images' shared
/// names: [`demangle_names`] reads them while the images change (a command attaches the debug
/// maps it reads meanwhile, [`crate::input::DeferredInput`]).
pub fn names_to_demangle<'a>(images: impl IntoIterator<Item = &'a Image>) -> Vec<Name> {
    distinct_cxx_names(images).into_iter().cloned().collect()
}

/// The union of `lists`, each sorted by text with each text once ([`names_to_demangle`]), in
/// the same form: merged two by two, in rounds, so n names of k lists cost n·log₂k steps.
pub fn union_of_sorted<'a>(lists: impl IntoIterator<Item = &'a [Name]>) -> Vec<Name> {
    fn merge(a: Vec<Name>, b: &[Name]) -> Vec<Name> {
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut a, mut b) = (a.into_iter().peekable(), b.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => match x.as_str().cmp(y.as_str()) {
                    std::cmp::Ordering::Less => a.next(),
                    std::cmp::Ordering::Greater => b.next().cloned(),
                    std::cmp::Ordering::Equal => {
                        b.next();
                        a.next()
                    }
                },
                (Some(_), None) => a.next(),
                (None, Some(_)) => b.next().cloned(),
                (None, None) => break,
            };
            out.extend(next);
        }
        out
    }
    let mut round: Vec<Vec<Name>> = lists.into_iter().map(<[Name]>::to_vec).collect();
    while round.len() > 1 {
        let mut pairs = round.into_iter();
        let mut next = Vec::with_capacity(pairs.len().div_ceil(2));
        while let Some(a) = pairs.next() {
            next.push(match pairs.next() {
                Some(b) => merge(a, &b),
                None => a,
            });
        }
        round = next;
    }
    round.pop().unwrap_or_default()
}

/// The demangled names (as `names_of` gives them) of the images whose [`names_to_demangle`]
/// `names` are, shown in `style`.
///
/// Errors: the demangling threads cannot be started.
pub fn demangle_names(names: &[Name], by: GroupBy, style: NameStyle) -> Result<Demangled<'_>> {
    let all = names.iter().map(Name::as_str).collect();
    Demangled::of_sorted(all, DEMANGLE_BATCH, by.keys(), style)
}

/// Each distinct `_Z` name of `images` once, sorted by text.
fn distinct_cxx_names<'a>(images: impl IntoIterator<Item = &'a Image>) -> Vec<&'a Name> {
    // Only `_Z` names are demangled: a C name's keys are the name itself, which
    // `Demangled::lookup` gives without storing anything. Distinct names only (interned names
    // of an image are counted once), demangled in batches so the threads' results never hold
    // more than one batch besides the map; of each name only the keys `by` reads are kept.
    // Each copy once ([`Name::copy_id`], a hash of its address, read without loading the
    // name's text: only a copy seen first is read, to see whether it is a `_Z` name), then
    // sorted, then equal texts (copies of one name in two images) dropped as neighbours: the
    // sort compares them anyway, where a set of texts would hash each one whole.
    // Each text is sorted beside its name: a comparison then reads the two texts, not first
    // the two names' shared boxes (two loads each, from all over the heap).
    let mut copies: foldhash::HashSet<usize> = Default::default();
    let mut all: Vec<(&str, &Name)> = Vec::new();
    for i in images {
        // Both sized for every name of the image: the list would otherwise grow by doubling
        // (a Node.js build: 372 KB of outgrown buffers); capacity never used is never touched.
        let names = i.bind_targets.len() + i.weak_definitions.len() + i.lookups.len();
        copies.reserve(names);
        all.reserve(names);
        all.extend(
            i.symbol_name_copies()
                .filter(|n| copies.insert(n.copy_id()) && needs_demangling(n))
                .map(|n| (n.as_str(), n)),
        );
    }
    drop(copies);
    // A stable sort (driftsort) finds the runs already in order and merges them: the export
    // trie gives its names in long sorted runs (edges in the order the linker added names),
    // which pdqsort would not use.
    all.sort_by(|a, b| a.0.cmp(b.0));
    all.dedup_by(|a, b| a.0 == b.0);
    all.into_iter().map(|(_, n)| n).collect()
}

/// Names demangled per [`demangle_all`](super::demangle::demangle_all) call.
pub(crate) const DEMANGLE_BATCH: usize = 1 << 15;

/// Builds the scan report of `images`, keeping at most `top` groups per image, names shown in
/// `style`.
///
/// Errors: the demangling threads cannot be started ([`demangle_all`](super::demangle::demangle_all)).
pub fn scan_report(
    images: &[Image],
    by: GroupBy,
    top: Option<usize>,
    style: NameStyle,
) -> Result<ScanReport<'_>> {
    Ok(scan_report_with(
        images,
        names_of(images, by, style)?,
        by,
        top,
    ))
}

/// [`scan_report`] with the names demangled by the caller: `names` holds at least every name
/// of `images` ([`names_to_demangle`], [`demangle_names`]) with the keys `by` reads.
pub fn scan_report_with<'a>(
    images: &'a [Image],
    names: Demangled<'a>,
    by: GroupBy,
    top: Option<usize>,
) -> ScanReport<'a> {
    let images = images
        .iter()
        .map(|image| {
            // The summary's distinct counts at the same time as the grouping's sorts.
            let (mut groups, (summary, fix_plan)) = crate::pool::join(
                || GroupTable::new(image, &names, by),
                || {
                    (
                        ImageSummary::of(image),
                        super::fix_plan::fix_plan(image, &names),
                    )
                },
            );
            let groups_total = groups.total();
            if let Some(n) = top {
                groups.truncate(n);
            }
            ImageReport {
                summary,
                image,
                groups,
                groups_total,
                visibility: None,
                fix_plan,
            }
        })
        .collect();
    ScanReport {
        group_by: by,
        images,
        demangle_failures: names.failures,
        demangle_failures_by_reason: names.reasons,
        names,
        importers: Vec::new(),
        importers_skipped: Vec::new(),
    }
}

/// One image present in both builds.
#[derive(Debug, Clone)]
pub struct PairReport {
    /// What the pair has in common: the arch, or for a log the image name.
    pub label: String,
    /// Old image.
    pub old: ImageSummary,
    /// New image.
    pub new: ImageSummary,
    /// Groups of both, sorted by |Δ|, cut to `--top` (unchanged ones dropped when cut).
    pub groups: Vec<GroupDelta>,
    /// Groups whose figures changed.
    pub groups_changed: usize,
    /// Weak-bound symbols added and removed (with `--symbols`, when both inputs tell them).
    pub symbols: Option<SymbolChanges>,
    /// The new image's fix plan ([`super::fix_plan`]).
    pub fix_plan: super::fix_plan::FixPlan,
    /// The new image's objects joined to its compile database (`diff --compile-commands`),
    /// which the fix reads; `None` without one.
    pub visibility: Option<super::visibility::VisibilityReport>,
    /// The new image's objects compiled differently from the old build
    /// (`diff --old-compile-commands A --new-compile-commands B`); `None` without both.
    pub compiled_differently: Option<super::compiled_differently::CompiledDifferently>,
}

/// How every output names the two builds of a diff ([`super::labels`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BuildLabels {
    /// The old build's label.
    pub old: String,
    /// The new build's label.
    pub new: String,
}

impl BuildLabels {
    /// The labels of the builds whose images are `old` and `new` (their first image's path;
    /// `--label` replaces them in the command).
    pub fn of(old: &[Image], new: &[Image]) -> Self {
        let path = |side: &[Image]| side.first().map_or(String::new(), |i| i.path.clone());
        let (o, n) = (path(old), path(new));
        let mut l = super::labels::distinguishing(&[&o, &n]).into_iter();
        BuildLabels {
            old: l.next().unwrap_or_default(),
            new: l.next().unwrap_or_default(),
        }
    }
}

/// `weakscan diff`.
#[derive(Debug, Clone)]
pub struct DiffReport {
    /// The grouping used.
    pub group_by: GroupBy,
    /// How every output names the two builds.
    pub labels: BuildLabels,
    /// Images in both builds, in the new build's order.
    pub pairs: Vec<PairReport>,
    /// Images only in the old build.
    pub only_old: Vec<ImageSummary>,
    /// Images only in the new build.
    pub only_new: Vec<ImageSummary>,
    /// `_Z` names kept raw (not read within the name engine's bounds, or refused by the printer).
    pub demangle_failures: usize,
    /// The same names by why: in JSON, only the reasons that occurred.
    pub demangle_failures_by_reason: crate::analysis::demangle::FailureReasons,
    /// `--importer`: per importer (and new image), the exports removed that it still imports.
    pub importers: Vec<super::imports::ImporterNeeds>,
    /// Files below the directories of importers that were not read, by reason.
    pub importers_skipped: Vec<super::imports::SkippedImporters>,
}

/// Pairs the images of two inputs: binaries by arch; when a log is involved, a single image on
/// each side with each other, else by image name.
///
/// Errors: a universal binary against a log (the log does not say its arch: `--arch` picks
/// the slice).
pub fn pair_images<'a>(old: &'a [Image], new: &'a [Image]) -> Result<Vec<(&'a Image, &'a Image)>> {
    pair_images_with(old, new, None)
}

/// [`pair_images`], or with `pair` = `(old arch, new arch)` (`--pair-arch`) the one slice of
/// each side of those arches.
///
/// Errors (usage, exit 2): two binaries that share no arch and no `pair` (a CI job comparing
/// an x86_64 build with an arm64 one would otherwise pass on two lines of "only in"); a `pair`
/// arch a side does not have; `pair` with a log.
pub fn pair_images_with<'a>(
    old: &'a [Image],
    new: &'a [Image],
    pair: Option<(&str, &str)>,
) -> Result<Vec<(&'a Image, &'a Image)>> {
    let any_log = old.iter().chain(new).any(Image::is_log);
    let arches =
        |side: &[Image]| -> String { side.iter().map(Image::label).collect::<Vec<_>>().join(", ") };
    if let Some((a, b)) = pair {
        if any_log {
            return Err(Error::usage(
                "--pair-arch pairs slices of two binaries; a log has no arch".to_string(),
            ));
        }
        let find = |side: &'a [Image], arch: &str| -> Result<&'a Image> {
            side.iter()
                .find(|i| i.arch.as_deref() == Some(arch))
                .ok_or_else(|| {
                    Error::usage(format!(
                        "--pair-arch: {} has no {arch} slice (it has {})",
                        side.first().map_or("", |i| i.path.as_str()),
                        arches(side)
                    ))
                })
        };
        return Ok(vec![(find(old, a)?, find(new, b)?)]);
    }
    if !any_log {
        let pairs: Vec<_> = new
            .iter()
            .filter_map(|n| old.iter().find(|o| o.arch == n.arch).map(|o| (o, n)))
            .collect();
        if pairs.is_empty() && !old.is_empty() && !new.is_empty() {
            return Err(Error::usage(format!(
                "no architecture in common: {} has {}, {} has {}; compare two slices with --pair-arch OLD=NEW (e.g. --pair-arch {}={})",
                old[0].path,
                arches(old),
                new[0].path,
                arches(new),
                old[0].label(),
                new[0].label()
            )));
        }
        return Ok(pairs);
    }
    for side in [old, new] {
        if side.len() > 1 && !side[0].is_log() {
            return Err(Error::usage(format!(
                "{}: {} slices ({}) against a log, which does not say its arch: pick one with --arch",
                side[0].path,
                side.len(),
                side.iter().map(Image::label).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    if old.len() == 1 && new.len() == 1 {
        return Ok(vec![(&old[0], &new[0])]);
    }
    // A binary against a log's main executable (listed first); logs by image name.
    if !old[0].is_log() {
        return Ok(vec![(&old[0], &new[0])]);
    }
    if !new[0].is_log() {
        return Ok(vec![(&old[0], &new[0])]);
    }
    Ok(new
        .iter()
        .filter_map(|n| old.iter().find(|o| o.name == n.name).map(|o| (o, n)))
        .collect())
}

/// How two builds are compared: what a diff report depends on besides the builds.
#[derive(Debug, Clone, Copy)]
pub struct DiffOptions<'a> {
    /// The grouping (`--by`).
    pub by: GroupBy,
    /// `Some(k)`: keep the first `k` groups that changed, in report order (`--top`); `None`:
    /// keep every group, changed or not.
    pub top: Option<usize>,
    /// Also list the weak-bound symbols added and removed (`--symbols`).
    pub with_symbols: bool,
    /// The arches to pair (`--pair-arch OLD=NEW`), as [`pair_images_with`] takes them.
    pub pair: Option<(&'a str, &'a str)>,
    /// How names are shown ([`NameStyle`]).
    pub style: NameStyle,
}

/// Builds the diff report (images paired by [`pair_images`]).
pub fn diff_report(
    old: &[Image],
    new: &[Image],
    by: GroupBy,
    top: Option<usize>,
    with_symbols: bool,
    style: NameStyle,
) -> Result<DiffReport> {
    let options = DiffOptions {
        by,
        top,
        with_symbols,
        pair: None,
        style,
    };
    diff_report_paired(old, new, options)
}

/// [`diff_report`] with every option, `pair` among them (`--pair-arch`).
pub fn diff_report_paired(
    old: &[Image],
    new: &[Image],
    options: DiffOptions<'_>,
) -> Result<DiffReport> {
    let names = names_of(old.iter().chain(new), options.by, options.style)?;
    let mut report = diff_report_with(old, new, options, &names)?;
    report.demangle_failures = names.failures;
    report.demangle_failures_by_reason = names.reasons;
    Ok(report)
}

/// [`diff_report_paired`] with the names demangled by the caller: `names` holds at least every
/// name of `old` and `new`, with the keys `options.by` reads ([`GroupBy::keys`]); one table can
/// serve many diffs (a process diff's image pairs), where `--by namespace` needs each pair's own
/// (a class one image shows would cut another image's namespaces). `demangle_failures` is left
/// 0 ([`failures_among`] counts them). Errors: as [`diff_report_paired`].
pub fn diff_report_with(
    old: &[Image],
    new: &[Image],
    options: DiffOptions<'_>,
    names: &Demangled<'_>,
) -> Result<DiffReport> {
    let DiffOptions {
        by,
        top,
        with_symbols,
        pair,
        style: _,
    } = options;
    let pairs_of = pair_images_with(old, new, pair)?;
    let mut pairs = Vec::new();
    for &(o, n) in &pairs_of {
        // The two sides are grouped and summed up at the same time (the pool's idle thread
        // takes whichever of the four is waiting: the old build is usually the larger).
        let side =
            |i: &Image| crate::pool::join(|| GroupTable::new(i, names, by), || ImageSummary::of(i));
        let ((old_table, old_summary), (new_table, new_summary)) =
            crate::pool::join(|| side(o), || side(n));
        let (old_keys, new_keys) = (old_table.key_stats(o, names), new_table.key_stats(n, names));
        let (old_keys, new_keys) = (borrowed_keys(&old_keys), borrowed_keys(&new_keys));
        let all = pair_groups(
            &old_keys,
            &new_keys,
            GroupStats::zero_for(o),
            GroupStats::zero_for(n),
        );
        let groups_changed = all.iter().filter(|g| !g.change.is_zero()).count();
        let kept: Vec<&Paired<'_>> = match top {
            Some(k) => all.iter().filter(|g| !g.change.is_zero()).take(k).collect(),
            None => all.iter().collect(),
        };
        // Only the kept groups' examples are read (from the new build when it has the group).
        let groups = crate::pool::map(&kept, |p| {
            let ((example, mangled), from) = match (p.new, p.old) {
                (Some(i), _) => (new_table.example(n, names, i), new_table.from_of(n, i)),
                (None, Some(i)) => (old_table.example(o, names, i), old_table.from_of(o, i)),
                (None, None) => Default::default(),
            };
            let mut d = p.delta(example, mangled);
            d.from = from;
            d
        });
        let label = if o.arch.is_some() && o.arch == n.arch {
            o.label().to_string()
        } else if o.is_log() || n.is_log() {
            n.name.clone()
        } else {
            n.label().to_string()
        };
        pairs.push(PairReport {
            label,
            old: old_summary,
            new: new_summary,
            groups,
            groups_changed,
            symbols: if with_symbols {
                symbol_changes(o, n, names)
            } else {
                None
            },
            fix_plan: super::fix_plan::fix_plan(n, names),
            visibility: None,
            compiled_differently: None,
        });
    }
    let only = |a: &[Image], paired: &dyn Fn(&Image) -> bool| -> Vec<ImageSummary> {
        a.iter()
            .filter(|i| !paired(i))
            .map(ImageSummary::of)
            .collect()
    };
    Ok(DiffReport {
        group_by: by,
        labels: BuildLabels::of(old, new),
        pairs,
        only_old: only(old, &|i| pairs_of.iter().any(|(o, _)| std::ptr::eq(*o, i))),
        only_new: only(new, &|i| pairs_of.iter().any(|(_, n)| std::ptr::eq(*n, i))),
        demangle_failures: 0,
        demangle_failures_by_reason: Default::default(),
        importers: Vec::new(),
        importers_skipped: Vec::new(),
    })
}

/// The distinct `_Z` names of `images` that `names` could not demangle (a table made by
/// `names_of` keeps only the names it demangled).
pub fn failures_among<'a>(
    images: impl IntoIterator<Item = &'a Image>,
    names: &Demangled<'_>,
) -> usize {
    let mut failed: Vec<&str> = images
        .into_iter()
        .flat_map(Image::symbol_names)
        .filter(|n| needs_demangling(n) && names.position(n).is_none())
        .collect();
    failed.sort_unstable();
    failed.dedup();
    failed.len()
}

/// `keys` with each key borrowed, as [`pair_groups`] takes them.
fn borrowed_keys<'k>(
    keys: &'k [(std::borrow::Cow<'_, str>, GroupStats)],
) -> Vec<(&'k str, GroupStats)> {
    keys.iter().map(|(key, s)| (key.as_ref(), *s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_of_sorted_lists_is_the_sorted_set_of_their_names() {
        let list = |names: &[&str]| -> Vec<Name> { names.iter().map(|&n| Name::from(n)).collect() };
        let text =
            |names: Vec<Name>| -> Vec<String> { names.into_iter().map(String::from).collect() };
        let a = list(&["__Z1a", "__Z1c", "__Z1e"]);
        let b = list(&["__Z1b", "__Z1c", "__Z1f", "__Z1g"]);
        let c = list(&["__Z1a", "__Z1z"]);
        assert_eq!(
            text(union_of_sorted([a.as_slice(), b.as_slice(), c.as_slice()])),
            [
                "__Z1a", "__Z1b", "__Z1c", "__Z1e", "__Z1f", "__Z1g", "__Z1z"
            ]
        );
        assert_eq!(text(union_of_sorted([b.as_slice(), &[]])), text(b.clone()));
        assert_eq!(
            text(union_of_sorted([&[][..], a.as_slice()])),
            text(a.clone())
        );
        assert!(union_of_sorted(std::iter::empty()).is_empty());
        // The same as one list of every name, sorted and deduplicated (what `names_of` builds).
        let mut all: Vec<String> = [&a, &b, &c]
            .into_iter()
            .flatten()
            .map(|n| n.to_string())
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(
            text(union_of_sorted([a.as_slice(), b.as_slice(), c.as_slice()])),
            all
        );
    }

    #[test]
    fn names_to_demangle_lists_each_cxx_text_once_sorted_whatever_its_copies() {
        use crate::model::WeakDefinition;
        let image = |names: &[Name]| Image {
            weak_definitions: names
                .iter()
                .map(|n| WeakDefinition {
                    name: n.clone(),
                    thread_local: false,
                    address: None,
                })
                .collect(),
            ..Image::bare()
        };
        // One shared copy twice in an image, the same texts as separate copies in another,
        // C names (not demangled), and names that sort apart only late in their text.
        let shared = Name::from("__ZN2v88internal4HeapC1Ev");
        let one = image(&[
            shared.clone(),
            Name::from("_main"),
            shared,
            Name::from("__ZN2v88internal4HeapD1Ev"),
        ]);
        let two = image(&[
            Name::from("__ZN2v88internal4HeapD1Ev"),
            Name::from("__ZN2v88internal4HeapC1Ev"),
            Name::from("__Z1fv"),
            Name::from("_strlen"),
        ]);
        let listed: Vec<String> = names_to_demangle([&one, &two])
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(
            listed,
            [
                "__Z1fv",
                "__ZN2v88internal4HeapC1Ev",
                "__ZN2v88internal4HeapD1Ev"
            ]
        );
        assert!(names_to_demangle(std::iter::empty::<&Image>()).is_empty());
    }
}
