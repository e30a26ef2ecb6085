//! Human-readable output (`--format table`): a summary per image, then the group table.

use crate::analysis::diff::percent_change;
use crate::analysis::report::{DiffReport, ImageSummary, ScanReport};
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table};
use std::fmt::Write;

/// Longest example shown in a table cell, in characters.
const EXAMPLE_WIDTH: usize = 90;

fn table() -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    t
}

fn right(s: impl ToString) -> Cell {
    Cell::new(s.to_string()).set_alignment(CellAlignment::Right)
}

fn clip(s: &str) -> String {
    if s.chars().count() <= EXAMPLE_WIDTH {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(EXAMPLE_WIDTH - 1).collect();
        out.push('…');
        out
    }
}

/// The example column: empty when the example is the key itself (ungrouped names).
fn example_cell(key: &str, example: &str) -> Cell {
    Cell::new(if example == key {
        String::new()
    } else {
        clip(example)
    })
}

fn summary_rows(t: &mut Table, s: &ImageSummary) {
    t.add_row(vec![Cell::new("path"), Cell::new(&s.path)]);
    t.add_row(vec![Cell::new("arch"), Cell::new(&s.arch)]);
    t.add_row(vec![Cell::new("file type"), Cell::new(&s.filetype)]);
    t.add_row(vec![Cell::new("fixup format"), Cell::new(s.fixup_format)]);
    t.add_row(vec![
        Cell::new("header flags"),
        Cell::new(s.flags.join(" ")),
    ]);
}

/// Renders `weakscan scan`.
pub fn scan(r: &ScanReport) -> String {
    let mut out = String::new();
    for img in &r.images {
        let s = &img.summary;
        let mut t = table();
        summary_rows(&mut t, s);
        t.add_row(vec![
            Cell::new("weak-def exports"),
            Cell::new(s.weak_def_exports),
        ]);
        t.add_row(vec![
            Cell::new("weak-bind sites"),
            Cell::new(s.weak_bind_sites),
        ]);
        t.add_row(vec![
            Cell::new("weak-bound symbols"),
            Cell::new(format!(
                "{} ({} defined here, {} defined elsewhere)",
                s.weak_bind_symbols, s.defined_here_symbols, s.defined_elsewhere_symbols
            )),
        ]);
        t.add_row(vec![
            Cell::new("predicted weak-def lookups"),
            Cell::new(s.predicted_weak_lookups),
        ]);
        let _ = writeln!(out, "{t}");
        if img.groups.is_empty() {
            let _ = writeln!(out, "no weak symbols\n");
            continue;
        }
        let mut g = table();
        g.set_header(vec![
            Cell::new(r.group_by.as_str()),
            right("weak-bound symbols"),
            right("lookups"),
            right("sites"),
            right("weak-def exports"),
            Cell::new("example"),
        ]);
        for grp in &img.groups {
            g.add_row(vec![
                Cell::new(&grp.key),
                right(grp.stats.weak_bound_symbols),
                right(grp.stats.lookups),
                right(grp.stats.sites),
                right(grp.stats.weak_def_exports),
                example_cell(&grp.key, &grp.example),
            ]);
        }
        let _ = writeln!(out, "{g}");
        if img.groups.len() < img.groups_total {
            let _ = writeln!(
                out,
                "({} of {} groups shown; --top N to change)",
                img.groups.len(),
                img.groups_total
            );
        }
        out.push('\n');
    }
    demangle_note(&mut out, r.demangle_failures);
    out
}

fn demangle_note(out: &mut String, failures: usize) {
    if failures > 0 {
        let _ = writeln!(
            out,
            "note: {failures} symbols could not be demangled and are shown raw"
        );
    }
}

fn change(old: usize, new: usize) -> String {
    let d = new as i64 - old as i64;
    match percent_change(old, new) {
        Some(p) => format!("{d:+} ({p:+.1}%)"),
        None if d == 0 => "0".into(),
        None => format!("{d:+} (new)"),
    }
}

/// Renders `weakscan diff`.
pub fn diff(r: &DiffReport) -> String {
    let mut out = String::new();
    for p in &r.pairs {
        let (o, n) = (&p.old, &p.new);
        let mut t = table();
        t.set_header(vec![Cell::new(""), Cell::new("old"), Cell::new("new")]);
        t.add_row(vec![
            Cell::new("path"),
            Cell::new(&o.path),
            Cell::new(&n.path),
        ]);
        t.add_row(vec![
            Cell::new("arch"),
            Cell::new(&o.arch),
            Cell::new(&n.arch),
        ]);
        t.add_row(vec![
            Cell::new("fixup format"),
            Cell::new(o.fixup_format),
            Cell::new(n.fixup_format),
        ]);
        t.add_row(vec![
            Cell::new("header flags"),
            Cell::new(o.flags.join(" ")),
            Cell::new(n.flags.join(" ")),
        ]);
        let mut totals = table();
        totals.set_header(vec![
            Cell::new(&p.arch),
            right("old"),
            right("new"),
            right("change"),
        ]);
        for (name, a, b) in [
            ("weak-def exports", o.weak_def_exports, n.weak_def_exports),
            ("weak-bind sites", o.weak_bind_sites, n.weak_bind_sites),
            (
                "weak-bound symbols",
                o.weak_bind_symbols,
                n.weak_bind_symbols,
            ),
            (
                "predicted weak-def lookups",
                o.predicted_weak_lookups,
                n.predicted_weak_lookups,
            ),
        ] {
            totals.add_row(vec![
                Cell::new(name),
                right(a),
                right(b),
                right(change(a, b)),
            ]);
        }
        let _ = writeln!(out, "{t}\n{totals}");
        let changed: Vec<_> = p.groups.iter().filter(|g| !g.delta.is_zero()).collect();
        if changed.is_empty() {
            let _ = writeln!(out, "no group changed\n");
        } else {
            let mut g = table();
            g.set_header(vec![
                Cell::new(r.group_by.as_str()),
                right("lookups old → new"),
                right("Δ lookups"),
                right("Δ symbols"),
                right("Δ sites"),
                right("Δ exports"),
                Cell::new("example"),
            ]);
            for grp in &changed {
                g.add_row(vec![
                    Cell::new(&grp.key),
                    right(format!("{} → {}", grp.old.lookups, grp.new.lookups)),
                    right(format!("{:+}", grp.delta.lookups)),
                    right(format!("{:+}", grp.delta.weak_bound_symbols)),
                    right(format!("{:+}", grp.delta.sites)),
                    right(format!("{:+}", grp.delta.weak_def_exports)),
                    example_cell(&grp.key, &grp.example),
                ]);
            }
            let _ = writeln!(out, "{g}");
            if changed.len() < p.groups_changed {
                let _ = writeln!(
                    out,
                    "({} of {} changed groups shown; --top N to change)",
                    changed.len(),
                    p.groups_changed
                );
            }
            out.push('\n');
        }
        if let Some(sym) = &p.symbols {
            let _ = writeln!(out, "added weak-bound symbols ({}):", sym.added.len());
            for s in &sym.added {
                let _ = writeln!(out, "  + {s}");
            }
            let _ = writeln!(out, "removed weak-bound symbols ({}):", sym.removed.len());
            for s in &sym.removed {
                let _ = writeln!(out, "  - {s}");
            }
            out.push('\n');
        }
    }
    for i in &r.only_old {
        let _ = writeln!(out, "{} is only in the old build ({})", i.arch, i.path);
    }
    for i in &r.only_new {
        let _ = writeln!(out, "{} is only in the new build ({})", i.arch, i.path);
    }
    demangle_note(&mut out, r.demangle_failures);
    out
}

/// Renders `weakscan check`: per image its figures, every budget with value, limit and result,
/// the failing budgets as sentences, the offending groups with examples; then what to do and
/// the verdict.
pub fn check(r: &crate::gate::budget::CheckReport) -> String {
    let mut out = String::new();
    let mut sources = Vec::new();
    if let Some(p) = &r.policy {
        sources.push(format!("policy {p}"));
    }
    if let Some(b) = &r.baseline {
        sources.push(format!("baseline {b}"));
    }
    if !sources.is_empty() {
        let _ = writeln!(out, "{}\n", sources.join(", "));
    }
    for img in &r.images {
        let _ = writeln!(
            out,
            "{} ({}): {}",
            img.path,
            img.arch,
            if img.passed { "passed" } else { "FAILED" }
        );
        let mut f = table();
        let with_base = img.figures.iter().any(|l| l.baseline.is_some());
        let mut header = vec![
            Cell::new("figure"),
            right("total"),
            right("allowed"),
            right("counted"),
        ];
        if with_base {
            header.push(right("baseline (counted)"));
        }
        f.set_header(header);
        for l in &img.figures {
            let mut row = vec![
                Cell::new(l.figure.as_str()),
                right(l.total),
                right(l.allowed),
                right(l.counted),
            ];
            if with_base {
                row.push(right(l.baseline.map_or(String::new(), |b| b.to_string())));
            }
            f.add_row(row);
        }
        let mut b = table();
        b.set_header(vec![
            Cell::new("budget"),
            right("value"),
            right("limit"),
            Cell::new("result"),
        ]);
        for x in &img.budgets {
            b.add_row(vec![
                Cell::new(x.title()),
                right(x.value_text()),
                right(x.limit_text()),
                Cell::new(if x.passed { "pass" } else { "FAIL" }),
            ]);
        }
        let _ = writeln!(out, "{f}\n{b}");
        for x in img.failures() {
            let _ = writeln!(out, "✗ {}", x.message);
        }
        if !img.offending_groups.is_empty() {
            let _ = writeln!(out, "\n{}:", r.offenders_caption(img));
            let mut g = table();
            g.set_header(vec![
                Cell::new(r.group_by.as_str()),
                right(img.offender_figure.as_str()),
                Cell::new("examples"),
            ]);
            for o in &img.offending_groups {
                let examples = o.examples_within(EXAMPLE_WIDTH);
                g.add_row(vec![
                    Cell::new(&o.key),
                    right(o.value_text()),
                    Cell::new(examples.join("\n")),
                ]);
            }
            let _ = writeln!(out, "{g}");
        }
        for n in &img.notes {
            let _ = writeln!(out, "note: {n}");
        }
        out.push('\n');
    }
    let fix = r.fix();
    if !fix.is_empty() {
        let _ = writeln!(out, "how to fix:");
        for f in fix {
            let _ = writeln!(out, "  - {f}");
        }
        out.push('\n');
    }
    demangle_note(&mut out, r.demangle_failures);
    let _ = writeln!(out, "weakscan check {}", r.verdict());
    out
}
