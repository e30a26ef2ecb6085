//! `weakscan check` as tables: per image its figures, every budget with value, limit and
//! result, the failing budgets as sentences, the offending groups with examples; then what to
//! do and the verdict.

use super::grid::EXAMPLE_CHARS;
use super::grid::{Grid, example, figure, name, word};
use super::{cell, demangle_note, wrap};
use crate::analysis::check::{CheckReport, ImageCheck};
use crate::output::{RenderOptions, importers};
use std::io::{self, Write};

/// Renders `weakscan check`.
pub fn check(out: &mut dyn Write, r: &CheckReport, opts: &RenderOptions) -> io::Result<()> {
    wrap::lines(out, opts.width, |out| {
        let mut general_fix = false;
        for img in &r.images {
            general_fix |= image(out, r, img, opts.width)?;
        }
        if !r.importers.is_empty() {
            importers::write_checks(
                out,
                &r.importers,
                &r.importers_skipped,
                importers::Style::Plain,
            )?;
        }
        general_advice(out, r, general_fix)?;
        demangle_note(out, r.demangle_failures)?;
        // Where the budgets came from, labelled, just above the verdict (the last line).
        if let Some(from) = r.sources() {
            writeln!(out, "budgets from: {from}")?;
        }
        writeln!(out, "weakscan check {}", r.verdict())
    })
}

/// The general advice: all of it when a failing image has no fix of its own (`general`), else
/// only what the images' fixes do not say (accepting the change, the importers).
fn general_advice(out: &mut dyn Write, r: &CheckReport, general: bool) -> io::Result<()> {
    use crate::analysis::check::{ACCEPT, IMPORTS_FIX};
    let fix: Vec<&str> = r
        .fix()
        .into_iter()
        .filter(|f| general || [ACCEPT, IMPORTS_FIX].contains(f))
        .collect();
    if fix.is_empty() {
        return Ok(());
    }
    writeln!(out, "how to fix:")?;
    for f in fix {
        writeln!(out, "  - {f}")?;
    }
    out.write_all(b"\n")
}

/// One image: its verdict, figures and budgets, the failures, the offending groups, its fix
/// (from its fix plan), the notes. `true` when it failed and has no fix of its own.
fn image(
    out: &mut dyn Write,
    r: &CheckReport,
    img: &ImageCheck,
    w: Option<u16>,
) -> io::Result<bool> {
    writeln!(
        out,
        "{} ({}): {}",
        img.path,
        img.arch,
        if img.passed { "passed" } else { "FAILED" }
    )?;
    if img.budgets.is_empty() {
        writeln!(out, "{}", figures(img, w))?;
    } else {
        writeln!(out, "{}\n{}", figures(img, w), budgets(img, w))?;
    }
    for x in img.failures() {
        writeln!(out, "✗ {}", x.message)?;
    }
    if !img.offending_groups.is_empty() {
        writeln!(out, "\n{}:", r.offenders_caption(img))?;
        let mut g = Grid::new(
            w,
            vec![
                name(r.group_by.as_str()),
                figure(img.offender_figure.as_str()),
                example("examples"),
            ],
        );
        for o in &img.offending_groups {
            g.row([
                cell(&o.key),
                o.value_text(),
                o.examples_within(EXAMPLE_CHARS).join("\n"),
            ]);
        }
        writeln!(out, "{g}")?;
    }
    let fix = crate::output::process_plan::check_fix(img, crate::output::story::plain);
    for l in &fix {
        writeln!(out, "{l}")?;
    }
    for n in &img.notes {
        writeln!(out, "note: {n}")?;
    }
    out.write_all(b"\n")?;
    Ok(fix.is_empty() && !img.passed)
}

/// Each figure: total, allowed, counted (and the baseline's count when there is one).
fn figures(img: &ImageCheck, w: Option<u16>) -> Grid {
    let with_base = img.figures.iter().any(|l| l.baseline.is_some());
    let mut columns = vec![
        name("figure"),
        figure("total"),
        figure("allowed"),
        figure("counted"),
    ];
    if with_base {
        columns.push(figure("baseline (counted)"));
    }
    let mut f = Grid::new(w, columns);
    for l in &img.figures {
        let mut row = vec![
            l.figure.as_str().to_string(),
            l.total.to_string(),
            l.allowed.to_string(),
            l.counted.to_string(),
        ];
        if with_base {
            row.push(l.baseline.map_or(String::new(), |b| b.to_string()));
        }
        f.row(row);
    }
    f
}

/// Each budget: value, limit, pass or FAIL.
fn budgets(img: &ImageCheck, w: Option<u16>) -> Grid {
    let mut b = Grid::new(
        w,
        vec![
            name("budget"),
            figure("value"),
            figure("limit"),
            word("result"),
        ],
    );
    for x in &img.budgets {
        b.row([
            x.title(),
            x.value_text(),
            x.limit_text(),
            (if x.passed { "pass" } else { "FAIL" }).to_string(),
        ]);
    }
    b
}
