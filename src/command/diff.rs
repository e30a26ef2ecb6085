//! `weakscan diff OLD NEW`: two builds (binaries or logs, in any pair) compared.

use super::builds::read_builds;
use super::{emit_report, one_stdin};
use crate::analysis::compiled_differently::{compiled_differently, with_weak_defines};
use crate::analysis::group::GroupBy;
use crate::analysis::labels::build_labels;
use crate::analysis::process_diff::{Side, diff_processes};
use crate::analysis::report::{BuildLabels, DiffOptions, diff_report_with, pair_images_with};
use crate::analysis::visibility::visibility_report;
use crate::error::{Error, ErrorKind, Result};
use crate::input::ReadOptions;
use crate::model::Image;
use crate::origin::attach::{OriginFiles, attach};
use crate::output::{Format, RenderOptions};
use crate::process::load::LoadOptions;
use std::path::PathBuf;
use std::sync::OnceLock;

/// What `weakscan diff` was asked to do.
#[derive(Debug, Clone)]
pub struct DiffRequest {
    /// The old build (`-` is stdin).
    pub old: PathBuf,
    /// The new build.
    pub new: PathBuf,
    /// Also list the weak-bound symbols added and removed.
    pub symbols: bool,
    /// `--old-map`/`--old-dsym` and `--new-map`/`--new-dsym`: each side's attribution (for
    /// stripped builds), attached as `scan --map`/`--dsym` attaches one; the new side's
    /// `objects` are `--objects`, where its definers are read from (its fix plan's).
    pub origin: [OriginFiles; 2],
    /// `--new-compile-commands` (`--compile-commands`): the new build's compile database
    /// (JSON or a command dump), joined to its attributed objects for the fix.
    pub compile_commands: Option<PathBuf>,
    /// `--old-compile-commands`: the old build's, compared with the new one's for the section
    /// "compiled differently" ([`crate::analysis::compiled_differently`]).
    pub old_compile_commands: Option<PathBuf>,
    /// `--report-url`: the HTML report the Markdown and the github summary link.
    pub report_url: Option<String>,
    /// How to read them.
    pub read: ReadOptions,
    /// Grouping.
    pub group_by: GroupBy,
    /// Groups shown per pair (`None`: all).
    pub top: Option<usize>,
    /// Output format.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
    /// `--pair-arch OLD=NEW`: compare the OLD slice of the old build with the NEW slice of the
    /// new one (builds that share no arch are an error without it).
    pub pair_arch: Option<(String, String)>,
    /// Read both as whole processes (`--process`, or a directory or bundle given), loaded so.
    pub process: Option<LoadOptions>,
    /// `--importer`: files or directories of importers; the exports removed that they import.
    pub importers: Vec<PathBuf>,
    /// `--label`: the builds' names, old then new (empty: from their paths,
    /// [`crate::analysis::labels`]).
    pub labels: Vec<String>,
}

/// Runs `weakscan diff`: exit 0 on success.
pub fn run(req: &DiffRequest, opts: &RenderOptions) -> Result<u8> {
    let dbs = [&req.old_compile_commands, &req.compile_commands];
    let mut inputs: Vec<&std::path::Path> = vec![&req.old, &req.new];
    inputs.extend(dbs.iter().filter_map(|p| p.as_deref()));
    one_stdin(&inputs)?;
    if let Some(load) = &req.process {
        if req.origin.iter().any(|o| !o.is_empty())
            || req.compile_commands.is_some()
            || req.old_compile_commands.is_some()
        {
            return Err(Error::usage(
                "--old-/--new-dsym, --old-/--new-map and --old-/--new-compile-commands describe one binary per side, not a whole process",
            ));
        }
        if !req.labels.is_empty() {
            return Err(Error::usage(
                "--label names two builds' images: a diff of whole processes names each image",
            ));
        }
        if !req.importers.is_empty() {
            return Err(Error::usage(
                "--importer holds importers against one binary: diff the main executables or dylibs themselves, not whole processes",
            ));
        }
        return run_processes(req, load, opts);
    }
    // The two inputs are independent: read at the same time, names demangled while their
    // debug maps are read.
    let store = OnceLock::new();
    let builds = read_builds(
        &[&req.old, &req.new],
        &req.read,
        req.group_by,
        opts.names,
        2,
        &store,
    )?;
    let names = builds.names;
    let [mut old_images, mut new_images]: [Vec<Image>; 2] = builds
        .images
        .try_into()
        .map_err(|_| Error::usage("internal: a diff reads two builds").with_kind(ErrorKind::Io))?;
    attach(&mut old_images, &req.origin[0])?;
    attach(&mut new_images, &req.origin[1])?;
    let compile_db = match &req.compile_commands {
        Some(path) => Some(super::builds::join_commands(
            read_database(path)?,
            &mut new_images,
        )),
        None => None,
    };
    let old_db = match &req.old_compile_commands {
        Some(path) => Some(read_database(path)?),
        None => None,
    };
    let pair = req
        .pair_arch
        .as_ref()
        .map(|(a, b)| (a.as_str(), b.as_str()));
    let options = DiffOptions {
        by: req.group_by,
        top: req.top,
        with_symbols: req.symbols,
        pair,
        style: opts.names,
    };
    let mut report = diff_report_with(&old_images, &new_images, options, &names)?;
    report.demangle_failures = names.failures;
    report.demangle_failures_by_reason = names.reasons;
    if !req.labels.is_empty() {
        let paths = [&req.old, &req.new].map(|p| crate::text::escape_path(p));
        let [old, new]: [String; 2] = build_labels(&[&paths[0], &paths[1]], &req.labels)?
            .try_into()
            .map_err(|_| Error::usage("--label: two labels, old then new"))?;
        report.labels = BuildLabels { old, new };
    }
    if let Some((commands, index)) = &compile_db {
        for p in &mut report.pairs {
            let image = new_images
                .iter()
                .find(|i| i.attribution.is_some() && i.path == p.new.path && i.arch == p.new.arch);
            if let Some(image) = image {
                p.visibility = Some(visibility_report(image, commands, index));
                if let Some(old) = &old_db {
                    let mut c = compiled_differently(image, old, commands, index);
                    with_weak_defines(&mut c, p.old.flags.as_deref(), &p.fix_plan);
                    c.since = report.labels.new.clone();
                    p.compiled_differently = Some(c);
                }
            }
        }
    }
    if let Some(mut imp) = super::importers::Importers::find(&req.importers)? {
        for (old, new) in pair_images_with(&old_images, &new_images, pair)? {
            report.importers.extend(super::importers::removed_needed(
                &mut imp,
                (old, &req.old),
                (new, &req.new),
            )?);
        }
        report.importers_skipped = imp.skipped();
    }
    emit_report(req.output.as_ref(), req.format, &report, opts)?;
    crate::memory::discard(report);
    crate::memory::discard((old_images, new_images, names));
    crate::memory::discard(store);
    Ok(0)
}

/// A build's compile database for `diff` ([`super::flags::read_compile_input`]: JSON or a
/// command dump). A text with lines but no compile command is refused rather than read as an
/// empty build, which would leave every object unmatched.
///
/// Errors: those of [`super::flags::read_compile_input`]; a dump with no compile command
/// (`Malformed`, naming the file and its line count).
fn read_database(path: &std::path::Path) -> Result<Vec<crate::origin::compile_db::CompileCommand>> {
    let (commands, other_lines) = super::flags::read_compile_input(path)?;
    if commands.is_empty() && other_lines > 0 {
        return Err(Error::new(
            ErrorKind::Malformed,
            path,
            format!(
                "no compile command (not JSON, and none of its {} is a compiler given -c)",
                crate::text::count(other_lines, "line", "lines")
            ),
        ));
    }
    Ok(commands)
}

/// `weakscan diff` of two processes: each loaded and coalesced (in parallel), images paired as
/// [`crate::analysis::process_diff`] says.
fn run_processes(req: &DiffRequest, load: &LoadOptions, opts: &RenderOptions) -> Result<u8> {
    if req.symbols {
        return Err(Error::usage(
            "--symbols lists the symbols of two images: diff the two images themselves",
        ));
    }
    // The new side's fix plan: what still leaks, or what to change; its every definer read, as
    // `scan NEW.app` reads them.
    let read = |p: &PathBuf, plan: bool| -> Result<_> {
        let processes = if plan {
            super::process::load_planned(p, load, &req.origin[1].objects)?
        } else {
            super::process::load_processes(p, load)?
        };
        let reports = processes
            .iter()
            .map(|p| crate::analysis::coalesce::coalesce_with(p, opts.names, plan))
            .collect::<Result<Vec<_>>>()?;
        Ok((processes, reports))
    };
    // On the pool: both sides' reads share its threads (none waits for a thread of its own).
    let (old, new) = crate::pool::join(|| read(&req.old, false), || read(&req.new, true));
    let ((old_p, old_c), (new_p, new_c)) = (old?, new?);
    fn sides<'a>(
        p: &'a [crate::process::Process],
        c: &'a [crate::analysis::coalesce::Coalescing],
    ) -> Vec<Side<'a>> {
        p.iter()
            .zip(c)
            .map(|(process, coalescing)| Side {
                process,
                coalescing,
            })
            .collect()
    }
    let pair = req
        .pair_arch
        .as_ref()
        .map(|(a, b)| (a.as_str(), b.as_str()));
    let report = diff_processes(
        &sides(&old_p, &old_c),
        &sides(&new_p, &new_c),
        req.group_by,
        req.top,
        pair,
        opts.names,
    )?;
    emit_report(req.output.as_ref(), req.format, &report, opts)?;
    Ok(0)
}
