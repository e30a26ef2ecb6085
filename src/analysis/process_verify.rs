//! `weakscan verify APP LOG`: a whole process's predicted weak-def lookups, image by image,
//! against a DYLD_PRINT_BINDINGS log of its launch (every image the log shows).
//!
//! ```text
//! each image of the process, in load order:
//!   on disk, in the log (same leaf name)  → compared as `verify BINARY LOG --image NAME` does
//!                                           (super::verify: lookups as multisets of names)
//!   on disk, not in the log               → all its predicted lookups are "predicted, not seen"
//!   outside (shared cache), not read      → its seen lookups are listed, not compared
//! each image of the log that is not in the process:
//!   inserted before the main executable   → listed (DYLD_INSERT_LIBRARIES), not compared
//!   a lazy-load dylib of a process image  → listed (loaded after the launch), not compared
//!   a system path (/usr/lib, /System)     → listed (the shared cache), not compared
//!   any other                             → its seen lookups are "seen, not predicted": dyld
//!                                           loaded an image weakscan did not find
//! ```
//!
//! The process agrees when the differences summed over all images are within the tolerance.

use super::demangle::NameStyle;
use super::group::GroupBy;
use super::verify::{
    Basis, Counts, RenamedBind, VerifyGroup, VerifyReport, VerifySymbol, counted_differences,
    verify,
};
use crate::error::Result;
use crate::model::{Image, LogRole};
use crate::process::Process;
use crate::process::resolve::is_system;
use serde::Serialize;

/// How an image of the process was held against the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Match {
    /// Compared with the log's image of the same name.
    Compared,
    /// On disk but not in the log.
    NotInLog,
    /// Outside the roots (shared cache): not read, not compared.
    Outside,
}

/// One image of the process.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ImageVerify {
    /// The image as shown in the process.
    pub image: String,
    /// The log's image it was compared with.
    pub log_image: Option<String>,
    /// Compared, not in the log, or outside.
    pub status: Match,
    /// Predicted and seen lookups (or weak-bind targets, see `report.basis`).
    pub totals: Counts,
    /// Differences that count against the tolerance.
    pub differences: usize,
    /// What was compared (`null` unless compared).
    pub basis: Option<Basis>,
    /// Groups with a difference (by the grouping of the run), most differences first.
    pub groups: Vec<VerifyGroup>,
    /// Symbols with a difference.
    pub symbols: Vec<VerifySymbol>,
    /// Weak-bind targets the log prints under a renamed re-export's name, matched.
    pub renamed: Vec<RenamedBind>,
    /// Remarks of the comparison.
    pub notes: Vec<String>,
    /// The whole comparison, for a compared image (the table prints it for an image that
    /// differs).
    #[serde(skip)]
    #[schemars(skip)]
    pub report: Option<Box<VerifyReport>>,
}

/// An image of the log that is not in the process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LogOnly {
    /// Its name in the log.
    pub image: String,
    /// Lookups the log shows for it.
    pub seen_lookups: usize,
    /// Under `/usr/lib` or `/System` (the shared cache): listed, not counted.
    pub system: bool,
    /// Fixed up before the main executable: a `DYLD_INSERT_LIBRARIES` dylib, not part of the
    /// program: listed, not counted.
    pub inserted: bool,
    /// A lazy-load dylib of an image of the process (`LC_LAZY_LOAD_DYLIB_INFO`): loaded after
    /// the launch, on first use, so not in the launch's process: listed, not counted.
    pub lazy_load: bool,
}

/// `weakscan verify` of a process.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProcessVerifyReport {
    /// The arch of the process.
    pub arch: String,
    /// The main executable (its path).
    pub main: String,
    /// Every image of the process, in load order.
    pub images: Vec<ImageVerify>,
    /// Images of the log that are not in the process.
    pub log_only: Vec<LogOnly>,
    /// Summed over the images (compared, not in the log, and non-system log-only ones).
    pub totals: Counts,
    /// Differences that count against the tolerance, summed.
    pub differences: usize,
    /// Differences accepted.
    pub tolerance: usize,
    /// `differences <= tolerance`.
    pub agrees: bool,
    /// Remarks.
    pub notes: Vec<String>,
}

impl ImageVerify {
    fn without_report(image: String, status: Match, totals: Counts) -> Self {
        ImageVerify {
            image,
            log_image: None,
            status,
            differences: totals.differences(),
            totals,
            basis: None,
            groups: Vec::new(),
            symbols: Vec::new(),
            renamed: Vec::new(),
            notes: Vec::new(),
            report: None,
        }
    }
}

/// Holds `process` against the images of a log, names shown in `style`.
///
/// Errors: as [`verify`] (an image the log shows neither lookups nor weak binds for).
pub fn verify_process(
    process: &Process,
    log: &[Image],
    by: GroupBy,
    top: Option<usize>,
    tolerance: usize,
    style: NameStyle,
) -> Result<ProcessVerifyReport> {
    let mut used = vec![false; log.len()];
    let mut images = Vec::new();
    let mut totals = Counts::default();
    let mut differences = 0usize;
    for pi in &process.images {
        let Some(im) = &pi.image else {
            images.push(ImageVerify::without_report(
                pi.name.clone(),
                Match::Outside,
                Counts::default(),
            ));
            continue;
        };
        let found = log
            .iter()
            .enumerate()
            .find(|(i, l)| !used[*i] && l.name == im.name);
        let row = match found {
            Some((i, l)) => {
                used[i] = true;
                let r = verify(im, l, by, top, 0, Vec::new(), style)?;
                let d = counted_differences(r.basis, &r.totals);
                let differs = |c: &Counts| c.differences() > 0;
                ImageVerify {
                    image: pi.name.clone(),
                    log_image: Some(l.name.clone()),
                    status: Match::Compared,
                    totals: r.totals,
                    differences: d,
                    basis: Some(r.basis),
                    groups: r
                        .groups
                        .iter()
                        .filter(|g| differs(&g.counts))
                        .cloned()
                        .collect(),
                    symbols: r
                        .symbols
                        .iter()
                        .filter(|s| differs(&s.counts))
                        .cloned()
                        .collect(),
                    renamed: r.renamed.clone(),
                    notes: r.notes.clone(),
                    report: Some(Box::new(r)),
                }
            }
            None => ImageVerify::without_report(
                pi.name.clone(),
                Match::NotInLog,
                Counts::of(im.lookups.len(), 0),
            ),
        };
        totals.add(&row.totals);
        differences += row.differences;
        images.push(row);
    }
    // A log names an image by its leaf; its full path shows where it supplies a definition.
    // A log-only image is a system one when such a path is a system path, or when the
    // process has an outside image of that leaf name.
    let leaf = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
    let system_leaves: std::collections::BTreeSet<String> = log
        .iter()
        .flat_map(|l| l.lookups.iter().filter_map(|k| k.supplier.as_ref()))
        .map(|p| p.as_str())
        .filter(|p| is_system(p))
        .map(leaf)
        .chain(
            process
                .images
                .iter()
                .filter(|pi| pi.image.is_none())
                .map(|pi| leaf(&pi.name)),
        )
        .collect();
    let lazy_leaves: std::collections::BTreeSet<String> = process
        .images
        .iter()
        .filter_map(|pi| pi.image.as_ref()?.linkage.as_ref())
        .flat_map(|l| &l.lazy_dylibs)
        .map(|d| leaf(&d.load_path))
        .collect();
    let mut log_only = Vec::new();
    for (_, l) in log.iter().enumerate().filter(|(i, _)| !used[*i]) {
        let system = system_leaves.contains(&l.name);
        let inserted = l.log().is_some_and(|s| s.role == LogRole::Inserted);
        let lazy_load = !inserted && lazy_leaves.contains(&l.name);
        let seen = l.lookups.len();
        if !system && !inserted && !lazy_load {
            let c = Counts::of(0, seen);
            totals.add(&c);
            differences += c.differences();
        }
        log_only.push(LogOnly {
            image: l.name.clone(),
            seen_lookups: seen,
            system,
            inserted,
            lazy_load,
        });
    }
    let mut notes = Vec::new();
    let inserted_seen: usize = log_only
        .iter()
        .filter(|l| l.inserted && !l.system)
        .map(|l| l.seen_lookups)
        .sum();
    if log_only.iter().any(|l| l.inserted) {
        notes.push(format!(
            "{} in the log {} from dylibs inserted before the main executable (DYLD_INSERT_LIBRARIES), which are not part of the process: not compared",
            crate::text::count(inserted_seen, "lookup", "lookups"),
            if inserted_seen == 1 { "comes" } else { "come" }
        ));
    }
    let lazy_seen: usize = log_only
        .iter()
        .filter(|l| l.lazy_load && !l.system)
        .map(|l| l.seen_lookups)
        .sum();
    if log_only.iter().any(|l| l.lazy_load) {
        notes.push(format!(
            "{} in the log {} from lazy-load dylibs (LC_LAZY_LOAD_DYLIB_INFO), loaded after the launch on first use: not compared",
            crate::text::count(lazy_seen, "lookup", "lookups"),
            if lazy_seen == 1 { "comes" } else { "come" }
        ));
    }
    let outside_seen: usize = log_only
        .iter()
        .filter(|l| l.system && !l.inserted && !l.lazy_load)
        .map(|l| l.seen_lookups)
        .sum();
    if outside_seen > 0 {
        notes.push(format!(
            "{} in the log {} from system images (the shared cache), which are not read: not compared",
            crate::text::count(outside_seen, "lookup", "lookups"),
            if outside_seen == 1 { "comes" } else { "come" }
        ));
    }
    Ok(ProcessVerifyReport {
        arch: process.arch.clone(),
        main: process.main().path.as_ref().map_or_else(
            || process.main().name.clone(),
            |p| crate::text::escape_path(p),
        ),
        images,
        log_only,
        totals,
        differences,
        tolerance,
        agrees: differences <= tolerance,
        notes,
    })
}
