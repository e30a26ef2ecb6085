//! A whole process held against a dyld log (`weakscan verify APP LOG`): one row per image of
//! the process and per image only in the log, the totals and the verdict; then, for each image
//! that differs, its comparison as `verify BINARY LOG` prints it. Table and JSON
//! (`command: "process-verify"`, `docs/json.md`).

use super::RenderOptions;
use super::table::{cell, fit_figures, right, table_with};
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
    writeln!(out, "process ({}): {}", r.arch, r.main)?;
    let headers = [
        ("image", false),
        ("in the log", false),
        ("predicted", true),
        ("seen", true),
        ("not seen", true),
        ("not predicted", true),
    ];
    let mut t = table_with(opts.width, &headers);
    for i in &r.images {
        let log = match i.status {
            Match::Compared => i.log_image.clone().unwrap_or_default(),
            Match::NotInLog => "not in the log".into(),
            Match::Outside => "outside: not read".into(),
        };
        let c = &i.totals;
        t.add_row(vec![
            cell(&i.image),
            cell(&log),
            right(c.predicted),
            right(c.seen),
            right(c.predicted_not_seen),
            right(c.seen_not_predicted),
        ]);
    }
    for l in &r.log_only {
        let what = if l.system {
            "only in the log (system image, not compared)"
        } else {
            "only in the log: not found on disk"
        };
        t.add_row(vec![
            cell(&l.image),
            cell(what),
            right(0),
            right(l.seen_lookups),
            right(0),
            right(if l.system { 0 } else { l.seen_lookups }),
        ]);
    }
    fit_figures(opts.width, &mut t, &headers.map(|h| h.1));
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
