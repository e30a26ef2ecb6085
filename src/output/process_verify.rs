//! A whole process held against a dyld log (`weakscan verify APP LOG`): one row per image of
//! the process and per image only in the log, the totals and the verdict; then, for each image
//! that differs, its comparison as `verify BINARY LOG` prints it. Table and JSON
//! (`command: "process-verify"`, `docs/json.md`).

use super::RenderOptions;
use super::table::cell;
use super::table::grid::{Grid, figure, name, text};
use crate::analysis::process_verify::{Match, ProcessVerifyReport};
use serde::Serialize;
use std::io::{self, Write};

/// The `command` of the JSON document.
pub const COMMAND: &str = crate::schema::PROCESS_VERIFY_COMMAND;

/// Renders the report as tables.
pub fn table_out(
    out: &mut dyn Write,
    r: &ProcessVerifyReport,
    opts: &RenderOptions,
) -> io::Result<()> {
    super::table::wrap::lines(out, opts.width, |out| tables(out, r, opts))
}

/// The tables of [`table_out`].
fn tables(out: &mut dyn Write, r: &ProcessVerifyReport, opts: &RenderOptions) -> io::Result<()> {
    writeln!(out, "process ({}): {}", r.arch, r.main)?;
    let mut t = Grid::new(
        opts.width,
        vec![
            name("image"),
            text("in the log"),
            figure("predicted"),
            figure("seen"),
            figure("not seen"),
            figure("not predicted"),
        ],
    );
    for i in &r.images {
        let log = match i.status {
            Match::Compared => i.log_image.clone().unwrap_or_default(),
            Match::NotInLog => "not in the log".into(),
            Match::Outside => "outside: not read".into(),
        };
        let c = &i.totals;
        t.row([
            cell(&i.image),
            cell(&log),
            c.predicted.to_string(),
            c.seen.to_string(),
            c.predicted_not_seen.to_string(),
            c.seen_not_predicted.to_string(),
        ]);
    }
    for l in &r.log_only {
        let what = if l.inserted {
            "only in the log (inserted before the main executable, not compared)"
        } else if l.lazy_load {
            "only in the log (lazy-load dylib, loaded after the launch, not compared)"
        } else if l.system {
            "only in the log (system image, not compared)"
        } else {
            "only in the log: not found on disk"
        };
        let counted = !l.system && !l.inserted && !l.lazy_load;
        t.row([
            cell(&l.image),
            cell(what),
            0.to_string(),
            l.seen_lookups.to_string(),
            0.to_string(),
            (if counted { l.seen_lookups } else { 0 }).to_string(),
        ]);
    }
    writeln!(out, "{t}")?;
    for n in &r.notes {
        writeln!(out, "note: {n}")?;
    }
    for i in r.images.iter().filter(|i| i.differences > 0) {
        if let Some(rep) = &i.report {
            writeln!(out, "\n{}:", i.image)?;
            super::table::verify(out, rep, opts)?;
        }
    }
    writeln!(
        out,
        "\n{} differences in all (tolerance {}): {}",
        r.differences,
        r.tolerance,
        if r.agrees {
            "the process and the log agree"
        } else {
            "the process and the log DIFFER"
        }
    )
}

/// The JSON document of a process verify.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ProcessVerifyJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    #[schemars(with = "crate::analysis::group::GroupByName")]
    group_by: &'static str,
    #[serde(flatten)]
    report: &'a ProcessVerifyReport,
}

/// Renders the report as pretty JSON (with a trailing newline).
pub fn json(
    out: &mut dyn Write,
    r: &ProcessVerifyReport,
    group_by: crate::analysis::group::GroupBy,
) -> io::Result<()> {
    serde_json::to_writer_pretty(
        &mut *out,
        &ProcessVerifyJson {
            schema_version: crate::schema::SCHEMA_VERSION,
            names_printed_by: crate::analysis::demangle::printer::printer(),
            command: COMMAND,
            group_by: group_by.as_str(),
            report: r,
        },
    )
    .map_err(io::Error::from)?;
    out.write_all(b"\n")
}
