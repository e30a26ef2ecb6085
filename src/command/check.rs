//! `weakscan check FILE…`, the pre-release gate: inputs, policy discovery, evaluation,
//! rendering and the GitHub job summary.

use super::emit_report;
use crate::analysis::check::CheckReport;
use crate::analysis::demangle::demangle_all;
use crate::analysis::group::GroupBy;
use crate::analysis::report::ImageSummary;
use crate::analysis::tally::{SymbolEntry, tally};
use crate::error::{Error, ErrorKind, Result};
use crate::gate::baseline::{self, Baseline};
use crate::gate::budget::{Subject, evaluate};
use crate::gate::policy::{DEFAULT_POLICY_FILE, Flags, Policy};
use crate::input::read_binary;
use crate::macho::ArchFilter;
use crate::model::Image;
use crate::output::{Format, RenderOptions};
use crate::process::load::LoadOptions;
use std::path::{Path, PathBuf};

/// The environment variable GitHub Actions sets to the job summary file.
pub const STEP_SUMMARY_VAR: &str = "GITHUB_STEP_SUMMARY";

/// What `weakscan check` was asked to do, with the policy flags already collected.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// The files to check.
    pub files: Vec<PathBuf>,
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--no-config`.
    pub no_config: bool,
    /// The slices to read.
    pub arch: ArchFilter,
    /// `--depth` (applies to namespace grouping from the flag or the policy).
    pub depth: Option<usize>,
    /// Budgets, allowlist and overrides from flags.
    pub flags: Flags,
    /// Offending groups shown per failing image.
    pub top: usize,
    /// Output format (markdown and github also append the Markdown report to
    /// `$GITHUB_STEP_SUMMARY`).
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
    /// `--map` / `--dsym`.
    pub origin: crate::origin::attach::OriginFiles,
    /// Check a whole process (`--process`, or a directory or bundle given), loaded so.
    pub process: Option<LoadOptions>,
    /// `--report-url`: the HTML report the Markdown and the github summary link.
    pub report_url: Option<String>,
    /// `--importer`: files or directories of importers whose imports each image must export.
    pub importers: Vec<PathBuf>,
}

/// The policy `req` describes: the file (`--config`, else `weakscan.toml` in the working
/// directory unless `--no-config`) with the flags laid over it.
///
/// Errors: a bad policy file (`Policy`, with line and column), no budget at all, `--depth`
/// without namespace grouping, or an increase without a baseline (`Usage`).
pub fn resolve_policy(req: &CheckRequest) -> Result<Policy> {
    let mut policy = match (&req.config, req.no_config) {
        (Some(path), _) => Policy::load(path)?,
        (None, false) if Path::new(DEFAULT_POLICY_FILE).is_file() => {
            Policy::load(Path::new(DEFAULT_POLICY_FILE))?
        }
        (None, _) => Policy::default(),
    };
    let mut flags = req.flags.clone();
    if let (Some(GroupBy::Namespace(_)), None, GroupBy::Namespace(d)) =
        (flags.group_by, req.depth, policy.group_by)
    {
        // `--by namespace` keeps the policy's depth unless `--depth` says otherwise.
        flags.group_by = Some(GroupBy::Namespace(d));
    }
    if let Some(d) = req.depth {
        match flags.group_by.unwrap_or(policy.group_by) {
            GroupBy::Namespace(_) => flags.group_by = Some(GroupBy::Namespace(d)),
            _ => return Err(Error::usage("--depth applies only to --by namespace")),
        }
    }
    policy.apply(flags);
    if !policy.has_budgets() && req.importers.is_empty() {
        return Err(Error::usage(format!(
            "no budgets: give --baseline, a --max-… flag, --group or --importer, or write a policy file \
             ({DEFAULT_POLICY_FILE} or --config; see docs/ci.md)"
        )));
    }
    if policy.increase_without_baseline() {
        return Err(Error::usage(
            "a maximum increase needs a baseline: --baseline FILE or [baseline] file = … in the policy",
        ));
    }
    Ok(policy)
}

/// Runs `weakscan check`: exit 0 when every budget holds, 1 when one is exceeded.
///
/// Errors (exit 2): policy problems (see [`resolve_policy`]), unreadable or malformed inputs, a
/// baseline that cannot be used (other schema, other arch), a budgeted figure the input cannot
/// give.
pub fn run(req: &CheckRequest, opts: &RenderOptions) -> Result<u8> {
    let policy = resolve_policy(req)?;
    let base = match &policy.baseline {
        Some(path) => {
            if req.files.len() != 1 {
                return Err(Error::usage(
                    "a baseline is compared with one file: check the files one at a time",
                ));
            }
            Some(baseline::read(path)?)
        }
        None => None,
    };
    super::one_stdin(&req.files.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    // Each subject with the policy it is held to: a binary's slices the whole policy; a
    // process its figures (no group budgets), and each of its images its group budgets.
    let mut subjects: Vec<(Subject, Scope)> = Vec::new();
    // A binary's slices, in the order of their subjects: a failing one gets its fix plan.
    let mut images: Vec<Image> = Vec::new();
    let mut processes: Vec<crate::process::Process> = Vec::new();
    let mut importers = super::importers::Importers::find(&req.importers)?;
    let mut importer_checks = Vec::new();
    if let (Some(_), Some(_)) = (&req.process, &importers) {
        return Err(Error::usage(
            "--importer holds importers against one binary: check the main executable or dylib itself, not a whole process",
        ));
    }
    if let Some(load) = &req.process {
        let [file] = req.files.as_slice() else {
            return Err(Error::usage(
                "a process is checked from one main executable, bundle or directory: check one at a time",
            ));
        };
        if !req.origin.is_empty() {
            return Err(Error::usage(
                "--map and --dsym describe one binary, not a whole process",
            ));
        }
        processes = super::process::load_processes(file, load)?;
        let mut merged_images = Vec::new();
        for p in &processes {
            let c = crate::analysis::coalesce::coalesce(p, opts.names)?;
            let merged = crate::analysis::merge::merged(p).ok_or_else(|| {
                Error::new(
                    ErrorKind::Malformed,
                    file,
                    "the main executable was not read",
                )
            })?;
            let mut summary = ImageSummary::of(&merged);
            summary.input_kind = PROCESS_KIND;
            summary.trie_probes = Some(c.trie_probes);
            subjects.push((
                Subject {
                    summary,
                    path: merged.path.clone(),
                    arch: p.arch.clone(),
                    entries: tally(&merged),
                },
                Scope::Process,
            ));
            if policy.has_group_budgets() {
                for pi in &p.images {
                    let Some(im) = &pi.image else { continue };
                    subjects.push((
                        Subject {
                            summary: ImageSummary::of(im),
                            path: pi.name.clone(),
                            arch: p.arch.clone(),
                            entries: tally(im),
                        },
                        Scope::ImageOfProcess,
                    ));
                }
            }
            merged_images.push(merged);
        }
        if let Some(b) = &base {
            pair_arches(b, &merged_images, &req.arch, file)?;
        }
    } else {
        for f in &req.files {
            let read = read_binary(f, &req.arch)?;
            if let Some(imp) = importers.as_mut() {
                for image in &read {
                    importer_checks.extend(super::importers::check_image(imp, image, f)?);
                }
            }
            images.extend(read);
        }
        super::one_binary_for(&req.origin, req.files.len())?;
        crate::origin::attach::attach(&mut images, &req.origin)?;
        if let Some(b) = &base {
            pair_arches(b, &images, &req.arch, &req.files[0])?;
        }
        subjects.extend(images.iter().map(|image| {
            (
                Subject {
                    summary: ImageSummary::of(image),
                    path: image.path.clone(),
                    arch: arch_of(image).to_string(),
                    entries: tally(image),
                },
                Scope::Binary,
            )
        }));
    }
    if let Some(b) = &base {
        let process = req.process.is_some();
        if let Some(i) = b.images.iter().find(|i| i.process != process) {
            return Err(Error::new(
                ErrorKind::Policy,
                &i.source,
                if process {
                    "the baseline is of one binary, not a whole process: regenerate it with `weakscan baseline` of the bundle, directory or --process"
                } else {
                    "the baseline is of a whole process: check the bundle, directory or --process it was made from"
                },
            ));
        }
    }
    let (whole, groups) = (policy.without_groups(), policy.groups_only());
    let all_names = subjects
        .iter()
        .flat_map(|(s, _)| s.entries.iter())
        .chain(
            base.iter()
                .flat_map(|b| b.images.iter().flat_map(|i| i.entries.iter())),
        )
        .map(|e: &SymbolEntry| e.raw.as_str());
    let names = demangle_all(all_names, opts.names)?;
    let mut checks = Vec::new();
    let mut binaries = images.iter();
    let mut whole_processes = processes.iter_mut();
    // `--objects` of a process: the failing one's plan reads its definers there.
    let objects = match &req.process {
        Some(_) => crate::origin::definers::ObjectFiles::find(&req.origin.objects)?,
        None => crate::origin::definers::ObjectFiles::default(),
    };
    for (s, scope) in &subjects {
        let b = base.as_ref().and_then(|b| b.image(&s.arch));
        checks.push(match scope {
            Scope::Binary => {
                let mut c = evaluate(s, b, &policy, &names, req.top)?;
                let image = binaries.next();
                if !c.passed {
                    c.fix_plan = image.map(|i| crate::analysis::fix_plan::fix_plan(i, &names));
                }
                c
            }
            Scope::Process => {
                let mut c = evaluate(s, b, &whole, &names, req.top)?;
                let process = whole_processes.next();
                if let Some(p) = process.filter(|_| !c.passed) {
                    // The plan reads every weak definition's kind, and every definer of them
                    // (on disk, or below `--objects`): only for a failing process.
                    crate::origin::definers::attach_definers(
                        p.images.iter_mut().filter_map(|i| i.image.as_mut()),
                        &objects,
                    )?;
                    let planned = crate::analysis::coalesce::coalesce_with(p, opts.names, true)?;
                    c.process_fix_plan = Some((planned.fix_plan, planned.trie_probes));
                }
                c
            }
            Scope::ImageOfProcess => evaluate(s, None, &groups, &names, req.top)?,
        });
    }
    let report = CheckReport {
        passed: checks.iter().all(|c| c.passed) && importer_checks.iter().all(|c| c.passed),
        policy: policy.source.as_deref().map(crate::text::escape_path),
        baseline: base.as_ref().map(|b| crate::text::escape_path(&b.path)),
        group_by: policy.group_by,
        depth: match policy.group_by {
            GroupBy::Namespace(d) => Some(d),
            _ => None,
        },
        group_figure: policy.group_figure,
        images: checks,
        demangle_failures: names.failures,
        demangle_failures_by_reason: names.reasons,
        importers_skipped: importers.as_ref().map(|i| i.skipped()).unwrap_or_default(),
        importers: importer_checks,
    };
    emit_report(req.output.as_ref(), req.format, &report, opts)?;
    Ok(if report.passed { 0 } else { 1 })
}

/// `input_kind` of a whole process checked or recorded as one subject.
pub const PROCESS_KIND: crate::model::InputKind = crate::model::InputKind::Process;

/// What a subject of `check` is, and so which budgets hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// A binary's slice: every budget.
    Binary,
    /// A whole process: every budget but the group budgets.
    Process,
    /// One image of a process: the group budgets.
    ImageOfProcess,
}

/// The arch of an image (the one place the gate reads it).
fn arch_of(image: &Image) -> &str {
    image.label()
}

/// Refuses a baseline whose arches differ from the checked file's.
fn pair_arches(b: &Baseline, images: &[Image], filter: &ArchFilter, file: &Path) -> Result<()> {
    let have: Vec<&str> = b.arches();
    let refuse = |what: String| Error::new(ErrorKind::Policy, &b.path, what);
    for image in images {
        if b.image(arch_of(image)).is_none() {
            return Err(refuse(format!(
                "the baseline is for {} but {} is {}: a baseline is compared only with the same arch \
                 (regenerate it from this build, or pass --arch)",
                have.join(", "),
                file.display(),
                arch_of(image)
            )));
        }
    }
    if matches!(filter, ArchFilter::All) {
        for arch in &have {
            if !images.iter().any(|i| arch_of(i) == *arch) {
                return Err(refuse(format!(
                    "the baseline has {arch}, which {} does not have (pass --arch to check one slice)",
                    file.display()
                )));
            }
        }
    }
    Ok(())
}
