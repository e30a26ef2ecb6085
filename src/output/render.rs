//! One way to write a report in any format: each report type implements [`Render`], and
//! `command::emit_report` picks the method the format names and appends the Markdown to the
//! job's step summary. Scan and diff of binaries, process reports, process diffs and trends
//! render through it; `check` keeps its own (its verdict decides the exit code).

use super::{github, json, markdown, process, process_diff, table, trend};
use crate::analysis::coalesce::Coalescing;
use crate::analysis::process_diff::ProcessDiffReport;
use crate::analysis::report::{DiffReport, ScanReport};
use crate::analysis::trend::TrendReport;
use std::io::{self, Write};

/// A report written as a table, JSON, Markdown or GitHub Actions annotations.
pub trait Render {
    /// Tables for people (comfy-table, fitted to the width).
    fn table(&self, out: &mut dyn Write) -> io::Result<()>;
    /// The `--format json` document.
    fn json(&self, out: &mut dyn Write) -> io::Result<()>;
    /// Markdown for a pull-request comment or a job's step summary.
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()>;
    /// GitHub Actions workflow commands (annotations); the tables where a report has none.
    fn github(&self, out: &mut dyn Write) -> io::Result<()> {
        self.table(out)
    }
}

impl Render for ScanReport<'_> {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        table::scan(out, self)
    }
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        json::scan(out, self)
    }
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        markdown::scan(out, self)
    }
    fn github(&self, out: &mut dyn Write) -> io::Result<()> {
        github::scan(out, self)
    }
}

impl Render for DiffReport {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        table::diff(out, self)
    }
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        json::diff(out, self)
    }
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        markdown::diff(out, self)
    }
    fn github(&self, out: &mut dyn Write) -> io::Result<()> {
        github::diff(out, self)
    }
}

impl Render for ProcessDiffReport {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        process_diff::table_out(out, self)
    }
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        process_diff::json(out, self)
    }
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        process_diff::markdown(out, self)
    }
    fn github(&self, out: &mut dyn Write) -> io::Result<()> {
        process_diff::github(out, self)
    }
}

impl Render for TrendReport {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        trend::table_out(out, self)
    }
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        trend::json(out, self)
    }
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        trend::markdown(out, self)
    }
}

/// The processes of one input (one per arch), with how many duplicate groups to show.
pub struct Processes<'a> {
    /// One per arch.
    pub reports: &'a [Coalescing],
    /// Duplicate groups shown (`--top`).
    pub top: Option<usize>,
}

impl Render for Processes<'_> {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        process::table_out(out, self.reports, self.top)
    }
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        process::json(out, self.reports)
    }
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        process::markdown(out, self.reports, self.top)
    }
    fn github(&self, out: &mut dyn Write) -> io::Result<()> {
        process::github(out, self.reports)
    }
}
