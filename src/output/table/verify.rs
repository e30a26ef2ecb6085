//! `weakscan verify` as tables: the binary and the log, the totals predicted and seen, the
//! groups and symbols that differ, and the verdict.

use super::grid::{Grid, example, figure, name, text};
use super::{cell, demangle_note, example_text, input_cell, opt, suppliers_cell, wrap};
use crate::analysis::verify::{Basis, VerifyReport, counted_differences};
use crate::output::RenderOptions;
use std::io::{self, Write};

/// Renders `weakscan verify`.
pub fn verify(out: &mut dyn Write, r: &VerifyReport, opts: &RenderOptions) -> io::Result<()> {
    wrap::lines(out, opts.width, |out| tables(out, r, opts.width))
}

/// The inputs, the totals, the groups and the symbols that differ, then the verdict.
fn tables(out: &mut dyn Write, r: &VerifyReport, w: Option<u16>) -> io::Result<()> {
    let (b, l) = (&r.binary, &r.log);
    let mut t = Grid::new(w, vec![name(""), text("binary"), text("log")]);
    t.row(["path".into(), cell(&b.path), cell(&l.path)]);
    t.row([
        "input".into(),
        format!("Mach-O, {}", opt(b.arch.as_deref())),
        input_cell(l),
    ]);
    t.row(["image".into(), cell(&b.image), cell(&l.image)]);
    writeln!(out, "{t}")?;
    for n in &r.notes {
        writeln!(out, "note: {n}")?;
    }
    for rb in &r.renamed {
        writeln!(
            out,
            "renamed: weak-bind target #{} {} is printed as {} (bound to {}: a renamed re-export), not a difference",
            rb.index,
            cell(&rb.predicted),
            cell(&rb.seen),
            cell(rb.supplier.as_deref().unwrap_or("(none)"))
        )?;
    }
    let what = match r.basis {
        Basis::Lookups => "weak-def lookups",
        Basis::WeakBindTargets | Basis::CoalescedTargets => "weak-bind targets",
    };
    let mut totals = Grid::new(w, vec![name(what), figure("count")]);
    for (label, v) in [
        ("predicted", r.totals.predicted),
        ("seen", r.totals.seen),
        (
            "predicted and seen",
            r.totals.predicted - r.totals.predicted_not_seen,
        ),
        ("predicted, not seen", r.totals.predicted_not_seen),
        ("seen, not predicted", r.totals.seen_not_predicted),
    ] {
        totals.row([label.to_string(), v.to_string()]);
    }
    writeln!(out, "{totals}")?;
    let mut g = Grid::new(
        w,
        vec![
            name(r.group_by.as_str()),
            figure("predicted"),
            figure("seen"),
            figure("not seen"),
            figure("not predicted"),
            text("definitions from"),
            example("example"),
        ],
    );
    for grp in &r.groups {
        g.row([
            cell(&grp.key),
            grp.counts.predicted.to_string(),
            grp.counts.seen.to_string(),
            grp.counts.predicted_not_seen.to_string(),
            grp.counts.seen_not_predicted.to_string(),
            suppliers_cell(&Some(grp.suppliers.clone())),
            example_text(&grp.key, &grp.example),
        ]);
    }
    writeln!(out, "{g}")?;
    if r.groups.len() < r.groups_total {
        writeln!(
            out,
            "({} of {} shown; --top N to change)",
            r.groups.len(),
            crate::text::count(r.groups_total, "group", "groups")
        )?;
    }
    if !r.symbols.is_empty() {
        let shown = r.symbols.len().min(r.groups.len().max(20));
        writeln!(out, "\nsymbols that differ ({}):", r.symbols.len())?;
        for s in &r.symbols[..shown] {
            writeln!(
                out,
                "  {} (predicted {}, seen {})",
                s.symbol, s.counts.predicted, s.counts.seen
            )?;
        }
        if shown < r.symbols.len() {
            writeln!(
                out,
                "  … {} more (--format json lists all)",
                r.symbols.len() - shown
            )?;
        }
    }
    let diffs = counted_differences(r.basis, &r.totals);
    writeln!(
        out,
        "\n{}: {diffs} difference{} (tolerance {})",
        if r.agrees { "agree" } else { "DIFFER" },
        if diffs == 1 { "" } else { "s" },
        r.tolerance
    )?;
    demangle_note(out, r.demangle_failures, &r.demangle_failures_by_reason)?;
    Ok(())
}
