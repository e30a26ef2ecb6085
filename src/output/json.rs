//! JSON output (`--format json`). The shapes are documented in `docs/json.md`; bump
//! [`SCHEMA_VERSION`] on any incompatible change.

use crate::analysis::check::CheckReport;
use crate::analysis::diff::{GroupDelta, StatsDelta, SymbolChanges, percent_change};
use crate::analysis::group::{Group, GroupStats};
use crate::analysis::report::{DiffReport, ImageSummary, PairReport, ScanReport};
use crate::analysis::verify::{
    Basis, Counts, RenamedBind, VerifyGroup, VerifyReport, VerifySymbol,
};
use serde::Serialize;
use std::io::{self, Write};

pub use crate::schema::SCHEMA_VERSION;

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ScanJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    #[schemars(with = "crate::analysis::group::GroupByName")]
    group_by: &'static str,
    images: Vec<&'a ImageSummary>,
    #[schemars(with = "Vec<ArchGroup<'static>>")]
    groups: ScanGroups<'a>,
    demangle_failures: usize,
    /// The same names by why: only the reasons that occurred; left out when none was kept raw.
    #[serde(skip_serializing_if = "crate::analysis::demangle::FailureReasons::is_empty")]
    demangle_failures_by_reason: crate::analysis::demangle::FailureReasons,
    /// `scan --compile-commands`: per image, its objects and their compile commands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    compile_commands: Vec<ArchVisibility<'a>>,
    /// `scan`: per image, what hiding each library's weak definitions would save, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fix_plan: Vec<ArchFixPlan<'a>>,
    /// `scan --importer`: each importer held against each image.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    importers: &'a [crate::analysis::imports::ImporterCheck],
    /// Files below the directories of importers that were not read, by reason.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    importers_skipped: &'a [crate::analysis::imports::SkippedImporters],
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchFixPlan<'a> {
    path: &'a str,
    arch: Option<&'a str>,
    candidates: &'a [crate::analysis::fix_plan::Candidate],
    /// Whether every definer of its weak symbols was read (else the figures are at most).
    definers: &'a crate::analysis::fix_plan::DefinersRead,
    /// Symbols several libraries define unhidden: hidden only by hiding them all together.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    shared: &'a [crate::analysis::fix_plan::Shared],
    /// The smallest set of libraries removing the most lookups, when it is more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    together: Option<&'a crate::analysis::fix_plan::Together>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchVisibility<'a> {
    path: &'a str,
    arch: Option<&'a str>,
    #[serde(flatten)]
    report: &'a crate::analysis::visibility::VisibilityReport,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchCompiledDifferently<'a> {
    path: &'a str,
    arch: Option<&'a str>,
    #[serde(flatten)]
    report: &'a crate::analysis::compiled_differently::CompiledDifferently,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchGroup<'a> {
    path: &'a str,
    image: &'a str,
    arch: Option<&'a str>,
    #[serde(flatten)]
    group: Group,
}

/// The groups of every image of a scan, each built as it is written (a JSON scan lists every
/// group: they are never all held at once).
struct ScanGroups<'a>(&'a ScanReport<'a>);

impl Serialize for ScanGroups<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let report = self.0;
        s.collect_seq(report.images.iter().flat_map(|i| {
            report.groups(i).map(move |g| ArchGroup {
                path: &i.summary.path,
                image: &i.summary.image,
                arch: i.summary.arch.as_deref(),
                group: g,
            })
        }))
    }
}

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct DiffJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    #[schemars(with = "crate::analysis::group::GroupByName")]
    group_by: &'static str,
    /// How every output names the two builds (`--label`, else their versions, else the
    /// shortest path suffix that tells them apart).
    labels: &'a crate::analysis::report::BuildLabels,
    old: Vec<&'a ImageSummary>,
    new: Vec<&'a ImageSummary>,
    arches_only_in_old: Vec<&'a str>,
    arches_only_in_new: Vec<&'a str>,
    totals: Vec<TotalsJson<'a>>,
    groups: Vec<ArchGroupDelta<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    symbols: Vec<ArchSymbols<'a>>,
    demangle_failures: usize,
    /// The same names by why: only the reasons that occurred; left out when none was kept raw.
    #[serde(skip_serializing_if = "crate::analysis::demangle::FailureReasons::is_empty")]
    demangle_failures_by_reason: crate::analysis::demangle::FailureReasons,
    /// `diff --compile-commands`: per image of the new build, its objects and their compile
    /// commands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    compile_commands: Vec<ArchVisibility<'a>>,
    /// `diff --old-compile-commands A --new-compile-commands B`: per image of the new build,
    /// its objects whose visibility options changed between A and B, by library.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    compiled_differently: Vec<ArchCompiledDifferently<'a>>,
    /// Per pair, the new build's fix plan (as `scan NEW` gives it), whose best candidate the
    /// `fix` lines name: the figures are at most unless `definers.exact`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fix_plan: Vec<ArchFixPlan<'a>>,
    /// `diff --importer`: per importer, the exports removed that it still imports.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    importers: &'a [crate::analysis::imports::ImporterNeeds],
    /// Files below the directories of importers that were not read, by reason.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    importers_skipped: &'a [crate::analysis::imports::SkippedImporters],
}

/// Which pair a diff entry belongs to: the arch (`null` when a log is involved) and the image
/// name.
#[derive(Serialize, schemars::JsonSchema)]
struct PairKey<'a> {
    arch: Option<&'a str>,
    image: &'a str,
}

impl<'a> PairKey<'a> {
    fn of(p: &'a PairReport) -> Self {
        PairKey {
            arch: p.old.arch.as_deref().filter(|_| p.old.arch == p.new.arch),
            image: &p.new.image,
        }
    }
}

#[derive(Serialize, schemars::JsonSchema)]
struct TotalsJson<'a> {
    #[serde(flatten)]
    pair: PairKey<'a>,
    old: GroupStats,
    new: GroupStats,
    delta: StatsDelta,
    /// Percent change of each figure (null when the old figure is 0 or unknown).
    percent: PercentJson,
}

#[derive(Serialize, schemars::JsonSchema)]
struct PercentJson {
    weak_bound_symbols: Option<f64>,
    lookups: Option<f64>,
    sites: Option<f64>,
    weak_def_exports: Option<f64>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchGroupDelta<'a> {
    #[serde(flatten)]
    pair: PairKey<'a>,
    #[serde(flatten)]
    group: &'a GroupDelta,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchSymbols<'a> {
    #[serde(flatten)]
    pair: PairKey<'a>,
    #[serde(flatten)]
    changes: &'a SymbolChanges,
}

fn round1(x: Option<f64>) -> Option<f64> {
    x.map(|v| (v * 10.0).round() / 10.0)
}

/// Renders a scan report as pretty JSON (with a trailing newline).
pub fn scan(out: &mut dyn Write, report: &ScanReport<'_>) -> io::Result<()> {
    to_writer(out, &scan_doc(report, "scan"))
}

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct CheckJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    #[serde(flatten)]
    report: &'a CheckReport,
    /// What to do: one line per kind of failure (empty when the check passed).
    fix: Vec<&'static str>,
}

fn scan_doc<'a>(report: &'a ScanReport<'a>, command: &'static str) -> ScanJson<'a> {
    ScanJson {
        schema_version: SCHEMA_VERSION,
        names_printed_by: crate::analysis::demangle::printer::printer(),
        command,
        group_by: report.group_by.as_str(),
        images: report.images.iter().map(|i| &i.summary).collect(),
        groups: ScanGroups(report),
        demangle_failures: report.demangle_failures,
        demangle_failures_by_reason: report.demangle_failures_by_reason,
        compile_commands: report
            .images
            .iter()
            .filter_map(|i| {
                Some(ArchVisibility {
                    path: &i.summary.path,
                    arch: i.summary.arch.as_deref(),
                    report: i.visibility.as_ref()?,
                })
            })
            .collect(),
        fix_plan: report
            .images
            .iter()
            .filter(|_| command == "scan")
            .map(|i| ArchFixPlan {
                path: &i.summary.path,
                arch: i.summary.arch.as_deref(),
                candidates: &i.fix_plan.candidates,
                definers: &i.fix_plan.definers,
                shared: &i.fix_plan.shared,
                together: i.fix_plan.together.as_ref(),
            })
            .collect(),
        importers: &report.importers,
        importers_skipped: &report.importers_skipped,
    }
}

/// Renders a diff report as pretty JSON (with a trailing newline).
pub fn diff(out: &mut dyn Write, report: &DiffReport) -> io::Result<()> {
    to_writer(out, &diff_doc(report))
}

/// The document of a diff report (`weakscan diff --format json`; also the `diff` of a
/// bisection's step).
pub(crate) fn diff_doc(report: &DiffReport) -> DiffJson<'_> {
    DiffJson {
        schema_version: SCHEMA_VERSION,
        names_printed_by: crate::analysis::demangle::printer::printer(),
        command: "diff",
        group_by: report.group_by.as_str(),
        labels: &report.labels,
        old: report
            .pairs
            .iter()
            .map(|p| &p.old)
            .chain(&report.only_old)
            .collect(),
        new: report
            .pairs
            .iter()
            .map(|p| &p.new)
            .chain(&report.only_new)
            .collect(),
        arches_only_in_old: report.only_old.iter().map(ImageSummary::label).collect(),
        arches_only_in_new: report.only_new.iter().map(ImageSummary::label).collect(),
        totals: report
            .pairs
            .iter()
            .map(|p| {
                let (o, n) = (p.old.stats(), p.new.stats());
                TotalsJson {
                    pair: PairKey::of(p),
                    old: o,
                    new: n,
                    delta: StatsDelta::between(&o, &n),
                    percent: PercentJson {
                        weak_bound_symbols: round1(percent_change(
                            o.weak_bound_symbols,
                            n.weak_bound_symbols,
                        )),
                        lookups: round1(percent_change(o.lookups, n.lookups)),
                        sites: round1(percent_change(o.sites, n.sites)),
                        weak_def_exports: round1(percent_change(
                            o.weak_def_exports,
                            n.weak_def_exports,
                        )),
                    },
                }
            })
            .collect(),
        groups: report
            .pairs
            .iter()
            .flat_map(|p| {
                p.groups.iter().map(move |g| ArchGroupDelta {
                    pair: PairKey::of(p),
                    group: g,
                })
            })
            .collect(),
        symbols: report
            .pairs
            .iter()
            .filter_map(|p| {
                p.symbols.as_ref().map(|c| ArchSymbols {
                    pair: PairKey::of(p),
                    changes: c,
                })
            })
            .collect(),
        demangle_failures: report.demangle_failures,
        demangle_failures_by_reason: report.demangle_failures_by_reason,
        compile_commands: report
            .pairs
            .iter()
            .filter_map(|p| {
                Some(ArchVisibility {
                    path: &p.new.path,
                    arch: p.new.arch.as_deref(),
                    report: p.visibility.as_ref()?,
                })
            })
            .collect(),
        compiled_differently: report
            .pairs
            .iter()
            .filter_map(|p| {
                Some(ArchCompiledDifferently {
                    path: &p.new.path,
                    arch: p.new.arch.as_deref(),
                    report: p.compiled_differently.as_ref()?,
                })
            })
            .collect(),
        fix_plan: report
            .pairs
            .iter()
            .filter(|p| !p.fix_plan.candidates.is_empty())
            .map(|p| ArchFixPlan {
                path: &p.new.path,
                arch: p.new.arch.as_deref(),
                candidates: &p.fix_plan.candidates,
                definers: &p.fix_plan.definers,
                shared: &p.fix_plan.shared,
                together: p.fix_plan.together.as_ref(),
            })
            .collect(),
        importers: &report.importers,
        importers_skipped: &report.importers_skipped,
    }
}

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct VerifyJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    #[schemars(with = "crate::analysis::group::GroupByName")]
    group_by: &'static str,
    binary: &'a ImageSummary,
    log: &'a ImageSummary,
    basis: Basis,
    notes: &'a [String],
    totals: Counts,
    tolerance: usize,
    agrees: bool,
    groups: &'a [VerifyGroup],
    symbols: &'a [VerifySymbol],
    /// Weak-bind targets the log prints under the name a renamed re-export led to, matched by
    /// their bind-target index, not counted as differences.
    renamed: &'a [RenamedBind],
    demangle_failures: usize,
    /// The same names by why: only the reasons that occurred; left out when none was kept raw.
    #[serde(skip_serializing_if = "crate::analysis::demangle::FailureReasons::is_empty")]
    demangle_failures_by_reason: crate::analysis::demangle::FailureReasons,
}

/// Renders a verify report as pretty JSON (with a trailing newline).
pub fn verify(out: &mut dyn Write, r: &VerifyReport) -> io::Result<()> {
    to_writer(
        out,
        &VerifyJson {
            schema_version: SCHEMA_VERSION,
            names_printed_by: crate::analysis::demangle::printer::printer(),
            command: "verify",
            group_by: r.group_by.as_str(),
            binary: &r.binary,
            log: &r.log,
            basis: r.basis,
            notes: &r.notes,
            totals: r.totals,
            tolerance: r.tolerance,
            agrees: r.agrees,
            groups: &r.groups,
            symbols: &r.symbols,
            renamed: &r.renamed,
            demangle_failures: r.demangle_failures,
            demangle_failures_by_reason: r.demangle_failures_by_reason,
        },
    )
}

/// Writes `doc` as pretty JSON and a newline. A serialization error (none is expected: every
/// document is plain data) is returned as an `InvalidData` I/O error.
pub(crate) fn to_writer(out: &mut dyn Write, doc: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// Renders a `weakscan check` report as pretty JSON (with a trailing newline): the report's
/// fields (see `docs/json.md`) and `fix`, what to do (empty when the check passed).
pub fn check(out: &mut dyn Write, report: &CheckReport) -> io::Result<()> {
    to_writer(
        out,
        &CheckJson {
            schema_version: SCHEMA_VERSION,
            names_printed_by: crate::analysis::demangle::printer::printer(),
            command: "check",
            report,
            fix: report.fix(),
        },
    )
}
