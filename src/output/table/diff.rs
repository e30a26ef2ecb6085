//! `weakscan diff` as tables: per pair the story, the inputs, the totals and the groups that
//! changed ([`group_deltas`], which `trend` and process diffs draw too).

use super::grid::{Grid, example, figure, name, text};
use super::{cell, demangle_note, example_text, flags, input_cell, opt, story_lines, wrap};
use crate::analysis::diff::GroupDelta;
use crate::analysis::report::{DiffReport, ImageSummary, PairReport};
use crate::output::{RenderOptions, change, fig, importers, signed, story};
use std::io::{self, Write};

/// "predicted weak-def lookups", "weak-def lookups seen", or "weak-def lookups (predicted →
/// seen)" for a binary against a log.
fn lookups_label(o: &ImageSummary, n: &ImageSummary) -> &'static str {
    match (o.log.is_some(), n.log.is_some()) {
        (false, false) => "predicted weak-def lookups",
        (true, true) => "weak-def lookups seen",
        (false, true) => "weak-def lookups (predicted → seen)",
        (true, false) => "weak-def lookups (seen → predicted)",
    }
}

/// The table of groups that changed between two builds (`diff`, and each flagged step of
/// `trend`): the key (headed `key`, the grouping's name), lookups old → new and their change,
/// where the group comes from (its dominant object, placed as in the Markdown table; a column
/// only when some group has one), the change of the other figures and an example member (left
/// out when fitted to a narrow `width`).
pub(crate) fn group_deltas(width: Option<u16>, key: &str, groups: &[&GroupDelta]) -> Grid {
    let from = groups.iter().any(|g| g.from.is_some());
    let mut columns = vec![name(key), figure("lookups old → new"), figure("Δ lookups")];
    if from {
        columns.push(text("from"));
    }
    columns.extend([
        figure("Δ symbols"),
        figure("Δ sites"),
        figure("Δ exports"),
        example("example"),
    ]);
    let mut g = Grid::new(width, columns);
    for grp in groups {
        let key = match grp.rename_note() {
            Some(note) => format!("{} (renamed {note})", cell(&grp.key)),
            None => cell(&grp.key),
        };
        let mut row = vec![
            key,
            format!("{} → {}", fig(grp.old.lookups), fig(grp.new.lookups)),
            signed(grp.delta.lookups),
        ];
        if from {
            row.push(super::scan::from_text(grp.from.as_ref()));
        }
        row.extend([
            signed(grp.delta.weak_bound_symbols),
            signed(grp.delta.sites),
            signed(grp.delta.weak_def_exports),
            example_text(&grp.key, &grp.example),
        ]);
        g.row(row);
    }
    g
}

/// Renders `weakscan diff`.
pub fn diff(out: &mut dyn Write, r: &DiffReport, opts: &RenderOptions) -> io::Result<()> {
    wrap::lines(out, opts.width, |out| {
        for p in &r.pairs {
            pair(out, r, p, opts.width)?;
        }
        for i in &r.only_old {
            writeln!(out, "{} is only in the old build ({})", i.label(), i.path)?;
        }
        for i in &r.only_new {
            writeln!(out, "{} is only in the new build ({})", i.label(), i.path)?;
        }
        if !r.importers.is_empty() || !r.importers_skipped.is_empty() {
            importers::write_needs(
                out,
                &r.importers,
                &r.importers_skipped,
                importers::Style::Plain,
            )?;
        }
        demangle_note(out, r.demangle_failures, &r.demangle_failures_by_reason)
    })
}

/// One pair of the diff: its story, inputs, totals, the groups that changed and, with
/// `--symbols`, the symbols added and removed.
fn pair(out: &mut dyn Write, r: &DiffReport, p: &PairReport, w: Option<u16>) -> io::Result<()> {
    let mut lines = story::diff_headline(p, story::plain);
    lines.extend(story::diff_fix(p, Some(&p.fix_plan), story::plain));
    story_lines(out, r.pairs.len() > 1, &p.label, &lines, w)?;
    writeln!(out, "{}\n{}", inputs(r, p, w), totals(p, w))?;
    if let Some(c) = &p.compiled_differently {
        super::compiled::compiled_differently(out, c, w)?;
    }
    let changed: Vec<_> = p.groups.iter().filter(|g| !g.delta.is_zero()).collect();
    if p.groups_changed == 0 {
        writeln!(out, "no group changed\n")?;
    } else if changed.is_empty() {
        // --top 0: the totals above, no rows.
        writeln!(
            out,
            "(0 of {} shown; --top N to change)\n",
            crate::text::count(p.groups_changed, "changed group", "changed groups")
        )?;
    } else {
        let g = group_deltas(w, r.group_by.as_str(), &changed);
        writeln!(out, "{g}")?;
        if changed.len() < p.groups_changed {
            writeln!(
                out,
                "({} of {} shown; --top N to change)",
                changed.len(),
                crate::text::count(p.groups_changed, "changed group", "changed groups")
            )?;
        }
        out.write_all(b"\n")?;
    }
    if let Some(sym) = &p.symbols {
        writeln!(out, "added weak-bound symbols ({}):", sym.added.len())?;
        for s in &sym.added {
            writeln!(out, "  + {s}")?;
        }
        writeln!(out, "removed weak-bound symbols ({}):", sym.removed.len())?;
        for s in &sym.removed {
            writeln!(out, "  - {s}")?;
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The two inputs side by side: their labels (when they are not their paths' tails: a version,
/// `--label`), path, and for logs the writer and image; arch, fixup format, header flags.
fn inputs(r: &DiffReport, p: &PairReport, w: Option<u16>) -> Grid {
    let (o, n) = (&p.old, &p.new);
    let mut t = Grid::new(w, vec![name(""), text("old"), text("new")]);
    let tail = crate::analysis::labels::is_tail_of;
    if !tail(&r.labels.old, &o.path) || !tail(&r.labels.new, &n.path) {
        t.row(["label".into(), cell(&r.labels.old), cell(&r.labels.new)]);
    }
    t.row(["path".into(), cell(&o.path), cell(&n.path)]);
    if o.log.is_some() || n.log.is_some() {
        t.row(["input".into(), input_cell(o), input_cell(n)]);
        t.row(["image".into(), cell(&o.image), cell(&n.image)]);
    }
    t.row([
        "arch".into(),
        opt(o.arch.as_deref()),
        opt(n.arch.as_deref()),
    ]);
    t.row([
        "fixup format".into(),
        opt(o.fixup_format),
        opt(n.fixup_format),
    ]);
    t.row(["header flags".into(), flags(o), flags(n)]);
    t
}

/// The totals old → new with their change.
fn totals(p: &PairReport, w: Option<u16>) -> Grid {
    let (o, n) = (&p.old, &p.new);
    let mut t = Grid::new(
        w,
        vec![
            name(&cell(&p.label)),
            figure("old"),
            figure("new"),
            figure("change"),
        ],
    );
    for (label, a, b) in [
        ("weak-def exports", o.weak_def_exports, n.weak_def_exports),
        ("weak-bind sites", o.weak_bind_sites, n.weak_bind_sites),
        (
            "weak-bound symbols",
            o.weak_bind_symbols,
            n.weak_bind_symbols,
        ),
        (lookups_label(o, n), o.stats().lookups, n.stats().lookups),
    ] {
        t.row([label.into(), fig(a), fig(b), change(a, b)]);
    }
    t
}
