//! One way to write a report in any format: each report type implements [`Render`], and
//! `command::emit_report` picks the method the [`Format`] names, with the run's
//! [`RenderOptions`], and appends the Markdown to the job's step summary. Scan, diff, verify
//! and check of binaries, process reports, process diffs, process verifies and trends all
//! render through it.

use super::{github, json, markdown, process, process_diff, process_verify, table, trend};
use crate::analysis::check::CheckReport;
use crate::analysis::coalesce::Coalescing;
use crate::analysis::demangle::NameStyle;
use crate::analysis::group::GroupBy;
use crate::analysis::process_diff::ProcessDiffReport;
use crate::analysis::process_verify::ProcessVerifyReport;
use crate::analysis::report::{DiffReport, ScanReport};
use crate::analysis::trend::TrendReport;
use crate::analysis::verify::VerifyReport;
use std::io::{self, Write};

/// How a run renders its reports, beyond the format: what the global flags say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// Columns a table report is fitted to, every line of it (`output::table`: cells wrapped
    /// where names nest, never inside an identifier): `--width`, else the terminal's when the
    /// report goes to one; `None` prints tables at full width (piped output and golden files
    /// stay stable).
    pub width: Option<u16>,
    /// Colour a table report's verdicts, increases and decreases ([`super::paint`]): `--color`,
    /// else whether stdout is a terminal that takes colour. Never in other formats.
    pub color: bool,
    /// How symbol names are shown (`--no-demangle`: raw). The analysis reads it where it
    /// demangles ([`crate::analysis::demangle::Demangled`]), since grouping by symbol groups by
    /// the name shown.
    pub names: NameStyle,
    /// `--report-url`: where the HTML report of the run is (`diff` and `check`), linked by
    /// the Markdown after the fix and named by the github summary line.
    pub report_url: Option<String>,
    /// Bytes a Markdown report is fitted to ([`super::comment::fit`]): `--markdown-limit`,
    /// else [`super::comment::COMMENT_BUDGET`].
    pub markdown_limit: usize,
}

impl Default for RenderOptions {
    /// Full-width tables, demangled names, no report link, Markdown fitted to
    /// [`super::comment::COMMENT_BUDGET`].
    fn default() -> RenderOptions {
        RenderOptions {
            width: None,
            color: false,
            names: NameStyle::default(),
            report_url: None,
            markdown_limit: super::comment::COMMENT_BUDGET,
        }
    }
}

/// `--format`: how a report is written. Not every command writes every format: `verify`
/// writes table and JSON, `trend` no GitHub annotations (the command refuses the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Tables for people.
    Table,
    /// JSON with `schema_version`.
    Json,
    /// Markdown for a pull-request comment (scan and diff; also appended to
    /// $GITHUB_STEP_SUMMARY when it is set).
    Markdown,
    /// GitHub Actions annotations (scan and diff; the Markdown goes to $GITHUB_STEP_SUMMARY).
    Github,
}

impl Format {
    /// The formats whose run also appends the Markdown report to `$GITHUB_STEP_SUMMARY`.
    pub fn writes_step_summary(self) -> bool {
        matches!(self, Format::Markdown | Format::Github)
    }
}

/// A report written as a table, JSON, Markdown or GitHub Actions annotations, each with the
/// run's [`RenderOptions`].
pub trait Render {
    /// Tables for people (comfy-table, fitted to `opts.width`).
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()>;
    /// The `--format json` document.
    fn json(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()>;
    /// Markdown for a pull-request comment or a job's step summary. A report without one
    /// (`verify`'s, which its command refuses the format for before reading anything) gives an
    /// `Unsupported` error.
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        let _ = (out, opts);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this report has no Markdown form",
        ))
    }
    /// GitHub Actions workflow commands (annotations); the tables where a report has none.
    fn github(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        self.table(out, opts)
    }
    /// The report in `format`.
    fn render(&self, format: Format, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        match format {
            Format::Table if opts.color => {
                let mut painted = super::paint::Painter::new(out);
                self.table(&mut painted, opts)?;
                painted.finish()
            }
            Format::Table => self.table(out, opts),
            Format::Json => self.json(out, opts),
            Format::Markdown => self.markdown(out, opts),
            Format::Github => self.github(out, opts),
        }
    }
}

impl Render for ScanReport<'_> {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        table::scan(out, self, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        json::scan(out, self)
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        fitted(out, opts, |buf| markdown::scan(buf, self))
    }
    fn github(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        github::scan(out, self)
    }
}

impl Render for DiffReport {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        table::diff(out, self, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        json::diff(out, self)
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        fitted(out, opts, |buf| markdown::diff(buf, self, opts))
    }
    fn github(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        github::diff(out, self, opts)
    }
}

impl Render for crate::analysis::flags_diff::FlagsReport {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        let width = match opts.width {
            Some(0) => usize::MAX / 2,
            Some(w) => usize::from(w),
            None => usize::from(super::table::DEFAULT_WIDTH),
        };
        super::flags::table(out, self, width)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        super::flags::json(out, self)
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        fitted(out, opts, |buf| super::flags::markdown(buf, self))
    }
}

impl Render for VerifyReport {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        table::verify(out, self, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        json::verify(out, self)
    }
}

impl Render for CheckReport {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        table::check(out, self, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        json::check(out, self)
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        fitted(out, opts, |buf| markdown::check(buf, self, opts))
    }
    fn github(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        github::check(out, self, opts)
    }
}

impl Render for ProcessDiffReport {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        process_diff::table_out(out, self, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        process_diff::json(out, self)
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        fitted(out, opts, |buf| {
            process_diff::markdown(buf, self)?;
            markdown::report_link(buf, opts)
        })
    }
    fn github(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        process_diff::github(out, self)
    }
}

impl Render for TrendReport {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        trend::table_out(out, self, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        trend::json(out, self)
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        fitted(out, opts, |buf| trend::markdown(buf, self))
    }
}

impl Render for crate::analysis::bisect::BisectReport {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        super::bisect::table_out(out, self, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        super::bisect::json(out, self)
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        fitted(out, opts, |buf| super::bisect::markdown(buf, self, opts))
    }
}

/// Writes the Markdown `render` writes, cut to `opts.markdown_limit` bytes, one pull-request
/// comment ([`super::comment::fit`]): every Markdown report is one.
fn fitted(
    out: &mut dyn Write,
    opts: &RenderOptions,
    render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = Vec::new();
    render(&mut buf)?;
    let text = String::from_utf8_lossy(&buf);
    out.write_all(super::comment::fit(&text, opts.markdown_limit).as_bytes())
}

/// The processes of one input (one per arch), with how many duplicate groups to show.
pub struct Processes<'a> {
    /// One per arch.
    pub reports: &'a [Coalescing],
    /// Duplicate groups shown (`--top`).
    pub top: Option<usize>,
}

impl Render for Processes<'_> {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        process::table_out(out, self.reports, self.top, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        process::json(out, self.reports)
    }
    fn markdown(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        fitted(out, opts, |buf| {
            process::markdown(buf, self.reports, self.top)
        })
    }
    fn github(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        process::github(out, self.reports)
    }
}

/// A process held against a log, with the grouping its JSON names.
pub struct ProcessVerify<'a> {
    /// The comparison.
    pub report: &'a ProcessVerifyReport,
    /// The grouping of each image's groups.
    pub group_by: GroupBy,
}

impl Render for ProcessVerify<'_> {
    fn table(&self, out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
        process_verify::table_out(out, self.report, opts)
    }
    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        process_verify::json(out, self.report, self.group_by)
    }
}
