//! The command layer: one module per subcommand. Each takes a request that
//! [`crate::cli`] parsed, reads its inputs, runs the analysis and writes the report through a
//! [`Sink`] (stdout or `--output FILE`, see [`crate::output::sink`]). Nothing is written until
//! the report is complete, so an input error leaves stdout and the output file untouched.
//!
//! Exit codes: `Ok(0)` success; `Ok(1)` `check` found a budget exceeded, `verify` found
//! differences beyond the tolerance or `bisect` found no single step; `Err` (exit 2) bad input,
//! usage, policy or output.

pub mod baseline;
pub mod bisect;
pub mod builds;
pub mod check;
pub mod completions;
pub mod diff;
pub mod flags;
pub mod hide;
pub mod importers;
pub mod process;
pub mod report;
pub mod scan;
pub mod trend;
pub mod verify;

use crate::analysis::demangle::NameStyle;
use crate::error::{Error, Result};
use crate::output::sink::Sink;
use crate::output::{Format, Render, RenderOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A parsed command line.
#[derive(Debug, Clone)]
pub enum Request {
    /// `weakscan scan`.
    Scan(scan::ScanRequest),
    /// `weakscan diff`.
    Diff(diff::DiffRequest),
    /// `weakscan verify`.
    Verify(verify::VerifyRequest),
    /// `weakscan flags`.
    Flags(flags::FlagsRequest),
    /// `weakscan check`.
    Check(check::CheckRequest),
    /// `weakscan baseline`.
    Baseline(baseline::BaselineRequest),
    /// `weakscan trend`.
    Trend(trend::TrendRequest),
    /// `weakscan bisect`.
    Bisect(bisect::BisectRequest),
    /// `weakscan report`.
    Report(report::ReportRequest),
    /// `weakscan hide`.
    Hide(hide::HideRequest),
    /// `weakscan completions` and `weakscan man`.
    Generate(Box<completions::GenerateRequest>),
}

/// The flags every subcommand takes (`--width`, `--no-demangle`, `--markdown-limit`), as parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Globals {
    /// `--width N`: fit tables to N columns.
    pub width: Option<u16>,
    /// `--color`: `Some(true)` always, `Some(false)` never, `None` auto (a terminal on stdout,
    /// as anstream decides: NO_COLOR, CLICOLOR, CLICOLOR_FORCE, TERM).
    pub color: Option<bool>,
    /// `--no-demangle`: every symbol name shown raw.
    pub no_demangle: bool,
    /// `--markdown-limit BYTES`: what a Markdown report is fitted to.
    pub markdown_limit: Option<usize>,
}

impl Globals {
    /// How `req` renders: tables fitted to `--width` (0: no limit), else to the terminal when
    /// the report goes to stdout and that is one, else to `$COLUMNS`, else to
    /// [`crate::output::table::DEFAULT_WIDTH`]; names raw under `--no-demangle`.
    pub fn render_options(&self, req: &Request) -> RenderOptions {
        let width = match self.width {
            Some(0) => None,
            Some(w) => Some(w),
            None => Some(crate::output::table::default_width(req.output().is_none())),
        };
        let color = self.color.unwrap_or_else(|| {
            req.output().is_none()
                && anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        });
        RenderOptions {
            width,
            color,
            names: if self.no_demangle {
                NameStyle::Raw
            } else {
                NameStyle::Demangled
            },
            report_url: req.report_url().map(str::to_string),
            markdown_limit: self
                .markdown_limit
                .unwrap_or(crate::output::comment::COMMENT_BUDGET),
        }
    }
}

/// Appends a Markdown report to `$GITHUB_STEP_SUMMARY` when that is set; a failure to write it is
/// reported on stderr and does not change the outcome.
pub fn append_step_summary(render: impl FnOnce(&mut dyn Write) -> io::Result<()>) {
    let Some(path) = std::env::var_os(check::STEP_SUMMARY_VAR).filter(|p| !p.is_empty()) else {
        return;
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            render(&mut w)?;
            w.flush()
        });
    if let Err(e) = written {
        eprintln!(
            "weakscan: warning: cannot append to ${} ({}): {e}",
            check::STEP_SUMMARY_VAR,
            crate::text::escape(&Path::new(&path).display().to_string())
        );
    }
}

impl Request {
    /// Where the report goes: `--output`, `None` for stdout.
    pub fn output(&self) -> Option<&PathBuf> {
        match self {
            Request::Scan(r) => r.output.as_ref(),
            Request::Diff(r) => r.output.as_ref(),
            Request::Verify(r) => r.output.as_ref(),
            Request::Flags(r) => r.output.as_ref(),
            Request::Check(r) => r.output.as_ref(),
            Request::Baseline(r) => r.output.as_ref(),
            Request::Trend(r) => r.output.as_ref(),
            Request::Bisect(r) => r.output.as_ref(),
            Request::Report(r) => r.output.as_ref(),
            Request::Hide(r) => r.output.as_ref(),
            Request::Generate(r) => r.output.as_ref(),
        }
        .filter(|p| p.as_os_str() != "-")
    }
}

impl Request {
    /// `--report-url` of `diff` and `check`.
    pub fn report_url(&self) -> Option<&str> {
        match self {
            Request::Diff(r) => r.report_url.as_deref(),
            Request::Check(r) => r.report_url.as_deref(),
            _ => None,
        }
    }

    /// The files the request names as inputs (builds, logs, `--map`, `--dsym`, `--config`,
    /// `--baseline`, `--compile-commands`; not `-`).
    pub fn inputs(&self) -> Vec<&Path> {
        let mut v: Vec<&PathBuf> = Vec::new();
        match self {
            Request::Scan(r) => {
                v.extend(&r.files);
                v.extend(&r.importers);
                v.extend(&r.compile_commands);
                v.extend(r.origin.map.iter().chain(&r.origin.dsym));
            }
            Request::Diff(r) => {
                v.extend([&r.old, &r.new]);
                v.extend(&r.compile_commands);
                v.extend(r.origin.iter().flat_map(|o| o.map.iter().chain(&o.dsym)));
                v.extend(&r.importers);
            }
            Request::Verify(r) => v.extend([&r.binary, &r.log]),
            Request::Flags(r) => v.extend([&r.old, &r.new]),
            Request::Check(r) => {
                v.extend(&r.files);
                v.extend(&r.importers);
                v.extend(r.config.iter().chain(&r.flags.baseline));
                v.extend(r.origin.map.iter().chain(&r.origin.dsym));
            }
            Request::Baseline(r) => {
                v.push(&r.file);
                v.extend(r.origin.map.iter().chain(&r.origin.dsym));
            }
            Request::Trend(r) => v.extend(&r.files),
            Request::Bisect(r) => {
                if let bisect::versions::VersionList::File(f) = &r.versions {
                    v.push(f);
                }
            }
            Request::Report(r) => v.extend(&r.files),
            Request::Hide(r) => {
                v.push(&r.input);
                v.extend(&r.importers);
                v.extend(&r.keep);
                v.extend(r.origin.map.iter().chain(&r.origin.dsym));
            }
            Request::Generate(_) => {}
        }
        v.into_iter()
            .map(PathBuf::as_path)
            .filter(|p| p.as_os_str() != "-")
            .collect()
    }
}

/// Refuses an `--output` that is one of the request's inputs (the same file, through any
/// symlink or hard link): the report would replace what it was read from. Errors (`Usage`,
/// exit 2) name the output.
fn output_is_no_input(req: &Request) -> Result<()> {
    let Some(out) = req.output() else {
        return Ok(());
    };
    // An output that does not exist yet is no input; one that cannot be `stat`ed is left for
    // the writer to report.
    let Ok(meta) = std::fs::metadata(out) else {
        return Ok(());
    };
    let id = |m: &std::fs::Metadata| {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    };
    for input in req.inputs() {
        if std::fs::metadata(input).is_ok_and(|m| id(&m) == id(&meta)) {
            return Err(Error::new(
                crate::error::ErrorKind::Usage,
                out,
                format!(
                    "is an input of this command ({}): the report would replace it; give -o another file",
                    crate::text::escape_path(input)
                ),
            ));
        }
    }
    Ok(())
}

/// Runs `req` with the global flags `globals`: the exit code, or the error to print (exit 2).
pub fn run(req: &Request, globals: &Globals) -> Result<u8> {
    output_is_no_input(req)?;
    if let Request::Generate(r) = req {
        return completions::run(r);
    }
    let opts = globals.render_options(req);
    // On the run's one pool ([`crate::pool`]): the commands' parallel iterators (a process's
    // dylibs, a trend's builds) then share its threads with the demangling instead of starting
    // rayon's global pool beside it.
    crate::pool::on_pool(|| match req {
        Request::Scan(r) => scan::run(r, &opts),
        Request::Diff(r) => diff::run(r, &opts),
        Request::Verify(r) => verify::run(r, &opts),
        Request::Flags(r) => flags::run(r, &opts),
        Request::Check(r) => check::run(r, &opts),
        Request::Baseline(r) => baseline::run(r, &opts),
        Request::Trend(r) => trend::run(r, &opts),
        Request::Bisect(r) => bisect::run(r, &opts),
        Request::Report(r) => report::run(r, &opts),
        Request::Hide(r) => hide::run(r, &opts),
        Request::Generate(r) => completions::run(r),
    })
}

/// Opens `output` (stdout when `None` or `-`), writes `report` into it in `format` with `opts`
/// and completes it; then, for Markdown and GitHub annotations, appends the Markdown report to
/// `$GITHUB_STEP_SUMMARY` when that is set ([`append_step_summary`]). The one way every
/// report is written. Errors: the output cannot be opened, written, synced or renamed; each
/// names the destination.
pub fn emit_report(
    output: Option<&PathBuf>,
    format: Format,
    report: &dyn Render,
    opts: &RenderOptions,
) -> Result<()> {
    emit(output, |out| report.render(format, out, opts))?;
    if format.writes_step_summary() {
        append_step_summary(|w| report.markdown(w, opts));
    }
    Ok(())
}

/// Writes what `render` writes to `output` (or stdout) through [`Sink`].
///
/// Errors: opening, writing or finishing the output, naming it.
pub fn emit(
    output: Option<&PathBuf>,
    render: impl FnOnce(&mut Sink) -> io::Result<()>,
) -> Result<()> {
    let mut sink = Sink::open(output.map(PathBuf::as_path))?;
    if let Err(e) = render(&mut sink) {
        return Err(Error::io(sink.name(), &e));
    }
    sink.finish()
}

/// `-` (stdin) may be given as one input only.
pub fn one_stdin(paths: &[&Path]) -> Result<()> {
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(Error::usage(
            "- (stdin) can be read only once: give it as one input",
        ));
    }
    Ok(())
}

/// `--map` and `--dsym` describe one binary: refused with several inputs.
pub(crate) fn one_binary_for(
    origin: &crate::origin::attach::OriginFiles,
    inputs: usize,
) -> Result<()> {
    if !origin.is_empty() && inputs > 1 {
        return Err(crate::error::Error::usage(
            "--map and --dsym describe one binary: give one input with them",
        ));
    }
    Ok(())
}
