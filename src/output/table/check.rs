//! `weakscan check` as tables, the answer first: the verdict; per image the budgets it exceeds,
//! each once, in scan's words with its policy key, then its offending groups and its fix; then
//! the general advice; then the details: per image its figures and the budgets that hold; where
//! the budgets came from and the verdict again (the last line a terminal keeps in view).
//!
//! At 80 columns the verdict, the failing budgets, the offending groups and the fix's first
//! lines fit the first 24 lines of the fixtures' check (tests/check.rs).

use super::grid::EXAMPLE_CHARS;
use super::grid::{Grid, example, figure, name};
use super::{cell, demangle_note, wrap};
use crate::analysis::check::{CheckReport, Finding, ImageCheck, Kind, offenders_order};
use crate::output::{RenderOptions, importers};
use std::io::{self, Write};

/// Renders `weakscan check`.
pub fn check(out: &mut dyn Write, r: &CheckReport, opts: &RenderOptions) -> io::Result<()> {
    wrap::lines(out, opts.width, |out| {
        writeln!(out, "weakscan check {}", r.verdict())?;
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
        for img in &r.images {
            details(out, r, img, opts.width)?;
        }
        demangle_note(out, r.demangle_failures, &r.demangle_failures_by_reason)?;
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

/// One image's story: its verdict, the budgets it exceeds ([`failure_lines`]), the offending
/// groups, its fix (from its fix plan), the notes. `true` when it failed and has no fix of its
/// own.
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
    for l in failure_lines(img) {
        writeln!(out, "✗ {l}")?;
    }
    if !img.passed
        && let Some(cost) = crate::output::story::check_cost(img)
    {
        writeln!(out, "cost: {cost}")?;
    }
    if !img.offending_groups.is_empty() {
        // The table's header names the grouping and the figure.
        writeln!(out, "offending groups, {}:", offenders_order(img))?;
        let mut g = Grid::new(
            w,
            vec![
                name(r.group_by.as_str()),
                figure(img.offender_figure.label()),
                example("example"),
            ],
        );
        // One example a group, as the Markdown shows, so that each group is one line wide
        // enough; the JSON and the annotations give three.
        for o in &img.offending_groups {
            g.row([
                cell(&o.key),
                o.value_text(),
                o.examples_within(EXAMPLE_CHARS)
                    .into_iter()
                    .next()
                    .unwrap_or_default(),
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

/// The budgets `img` exceeds, one line each and each budget once: a maximum as its sentence; the
/// allowed increases of one figure in one line (`… since the baseline, over the allowed +10% (≤
/// 3446) and +200 (≤ 3333)`); each ending with its policy key
/// ([`Finding::policy_key`]). Figures in scan's words ([`crate::analysis::check::Figure::label`]).
pub(crate) fn failure_lines(img: &ImageCheck) -> Vec<String> {
    let failures: Vec<&Finding> = img.failures().collect();
    let mut lines = Vec::new();
    for (i, f) in failures.iter().enumerate() {
        let same = |g: &&&Finding| g.kind == Kind::Increase && g.figure == f.figure;
        if f.kind == Kind::Increase && failures[..i].iter().any(|g| same(&g)) {
            continue; // told with the first increase of its figure
        }
        let mut line = match f.kind {
            Kind::Increase => {
                let allowances: Vec<String> = failures[i..]
                    .iter()
                    .filter(same)
                    .map(|g| g.limit_text())
                    .collect();
                let list = match allowances.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                    None => String::new(),
                };
                let base = f.baseline.unwrap_or(0);
                format!(
                    "{} rose from {base} to {} ({}) since the baseline, over the allowed {list}",
                    f.figure.label(),
                    f.value,
                    crate::analysis::check::change(base, f.value)
                )
            }
            _ => f.sentence(|s| s.to_string()),
        };
        if let Some(key) = f.policy_key() {
            line.push_str(&format!(" ({key})"));
        }
        lines.push(line);
    }
    lines
}

/// An image's details, after the story: its figures (total, allowed, counted, the baseline's
/// count) and the budgets that hold (those it exceeds are told above, once).
fn details(
    out: &mut dyn Write,
    r: &CheckReport,
    img: &ImageCheck,
    w: Option<u16>,
) -> io::Result<()> {
    if img.figures.is_empty() {
        return Ok(());
    }
    if r.images.len() > 1 {
        writeln!(out, "{} ({}):", img.path, img.arch)?;
    }
    writeln!(out, "{}", figures(img, w))?;
    if img.budgets.iter().any(|b| b.passed) {
        writeln!(out, "{}", holding(img, w))?;
    }
    out.write_all(b"\n")
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
            l.figure.label().to_string(),
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

/// The budgets that hold: value and limit.
fn holding(img: &ImageCheck, w: Option<u16>) -> Grid {
    let mut b = Grid::new(
        w,
        vec![name("within budget"), figure("value"), figure("limit")],
    );
    for x in img.budgets.iter().filter(|b| b.passed) {
        b.row([x.title(), x.value_text(), x.limit_text()]);
    }
    b
}
