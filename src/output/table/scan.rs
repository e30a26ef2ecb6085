//! `weakscan scan` as tables: per image the story, the summary, the log's notes, the groups,
//! then what to change ([`super::fixes`]).

use super::fixes::{FIX_PLAN_ROWS, compile_commands, fix_plan};
use super::grid::{Grid, example, figure, name, text};
use super::{
    cell, demangle_note, example_text, flags, input_cell, opt, short_name, story_lines,
    suppliers_cell, wrap,
};
use crate::analysis::group::GroupFrom;
use crate::analysis::report::{ImageReport, ImageSummary, ScanReport};
use crate::output::{RenderOptions, fig, importers, story};
use std::io::{self, Write};

/// Renders `weakscan scan`.
pub fn scan(out: &mut dyn Write, r: &ScanReport<'_>, opts: &RenderOptions) -> io::Result<()> {
    wrap::lines(out, opts.width, |out| {
        for img in &r.images {
            image(out, r, img, opts.width)?;
        }
        if !r.importers.is_empty() || !r.importers_skipped.is_empty() {
            importers::write_checks(
                out,
                &r.importers,
                &r.importers_skipped,
                importers::Style::Plain,
            )?;
        }
        demangle_note(out, r.demangle_failures, &r.demangle_failures_by_reason)
    })
}

/// One image of the scan.
fn image(
    out: &mut dyn Write,
    r: &ScanReport<'_>,
    img: &ImageReport<'_>,
    w: Option<u16>,
) -> io::Result<()> {
    let s = &img.summary;
    story_lines(out, r.images.len() > 1, s.label(), &scan_story(r, img), w)?;
    writeln!(out, "{}", summary(s, w))?;
    log_notes(out, s)?;
    if s.input_kind == crate::model::InputKind::Object {
        writeln!(
            out,
            "before linking: an upper bound of the weak definitions the linked image exports (export lists, -hidden-l, dead stripping and LTO remove some); weak binds and lookups exist only after linking\n"
        )?;
    }
    if img.groups_total == 0 {
        return writeln!(out, "no weak symbols\n");
    }
    if img.groups.is_empty() {
        // --top 0: the totals above, no rows.
        return writeln!(
            out,
            "(0 of {} shown; --top N to change)\n",
            crate::text::count(img.groups_total, "group", "groups")
        );
    }
    writeln!(out, "{}", groups(r, img, w))?;
    if img.groups.len() < img.groups_total {
        writeln!(
            out,
            "({} of {} shown; --top N to change)",
            img.groups.len(),
            crate::text::count(img.groups_total, "group", "groups")
        )?;
    }
    out.write_all(b"\n")?;
    fix_plan(
        out,
        &img.fix_plan,
        img.groups.len().clamp(1, FIX_PLAN_ROWS),
        w,
    )?;
    if let Some(v) = &img.visibility {
        compile_commands(out, v, img.groups.len().max(1), w)?;
    }
    Ok(())
}

/// The headline and `fix:` block of one scanned image ([`story`]).
fn scan_story(r: &ScanReport<'_>, img: &ImageReport<'_>) -> Vec<String> {
    let top = r.groups(img).next();
    let mut lines = story::scan_headline(&img.summary, top.as_ref(), story::plain);
    lines.extend(story::scan_fix(
        &img.summary,
        &img.fix_plan,
        img.visibility.as_ref(),
        story::plain,
    ));
    lines
}

/// The summary of one image: what it is, then its figures.
fn summary(s: &ImageSummary, w: Option<u16>) -> Grid {
    let mut t = Grid::headless(w, vec![name(""), text("")]);
    input_rows(&mut t, s);
    t.row(["weak-def exports".into(), fig(s.weak_def_exports)]);
    t.row(["weak-bind sites".into(), fig(s.weak_bind_sites)]);
    let bound = match (s.weak_bind_symbols, s.defined_here_symbols) {
        (Some(all), Some(here)) if s.log.is_some() => format!(
            "{all} ({here} bound to this image, {} elsewhere)",
            all - here
        ),
        (Some(all), Some(here)) => format!(
            "{all} ({here} defined here, {} defined elsewhere)",
            all - here
        ),
        (all, _) => fig(all),
    };
    t.row(["weak-bound symbols".into(), bound]);
    let (label, value) = lookups_row(s);
    t.row([label.into(), value]);
    if s.suppliers.is_some() {
        t.row(["definitions from".into(), suppliers_cell(&s.suppliers)]);
    }
    if s.log.is_none() {
        t.row(["attributed".into(), attributed(s)]);
    }
    t
}

/// The rows naming the input: its path, and for a log its writer, image and lines; for a
/// binary its arch, file type, fixup format and header flags.
fn input_rows(t: &mut Grid, s: &ImageSummary) {
    t.row(["path".into(), cell(&s.path)]);
    let Some(l) = &s.log else {
        t.row(["arch".into(), opt(s.arch.as_deref())]);
        t.row(["file type".into(), opt(s.filetype.as_deref())]);
        t.row(["fixup format".into(), opt(s.fixup_format)]);
        t.row(["header flags".into(), flags(s)]);
        return;
    };
    t.row(["input".into(), input_cell(s)]);
    t.row(["image".into(), cell(&s.image)]);
    let role = match l.main_by {
        Some(by) => format!("{} ({})", l.role.describe(), by.describe()),
        None => l.role.describe().to_string(),
    };
    t.row(["role".into(), role]);
    if let Some(p) = &l.image_path {
        t.row(["image path".into(), cell(p)]);
    }
    t.row(["image lines".into(), l.image_lines.describe()]);
    t.row(["fixup format".into(), opt(s.fixup_format)]);
    let f = &l.facts;
    let forms: Vec<String> = f
        .forms
        .iter()
        .map(|x| format!("{} {}", x.lines, x.form))
        .collect();
    t.row([
        "dyld".into(),
        match &f.dyld {
            Some(v) => format!("{v}, from its line forms: {}", forms.join(", ")),
            None if forms.is_empty() => "n/a (no line understood)".to_string(),
            None => format!(
                "lines of several dyld versions: {} (docs/logs.md)",
                forms.join(", ")
            ),
        },
    ]);
    t.row([
        "log lines".into(),
        format!(
            "{} ({} dyld lines of this process, {} of other processes, {} program output, {} not understood)",
            f.lines,
            f.dyld_lines,
            f.other_process_lines,
            f.program_output_lines,
            f.unrecognized_dyld_lines
        ),
    ]);
    if f.pids.len() > 1 {
        let mut list: Vec<String> = f
            .pids
            .iter()
            .take(8)
            .map(|p| p.pid.map_or_else(|| "dyld2".to_string(), |n| n.to_string()))
            .collect();
        let more = f.pids.len().saturating_sub(8) as u64 + f.more_pids;
        if more > 0 {
            list.push(format!("+{more} more"));
        }
        t.row([
            "processes".into(),
            format!("{} (--pid to choose)", list.join(", ")),
        ]);
    }
}

/// Warnings about a log's completeness, one line each.
fn log_notes(out: &mut dyn Write, s: &ImageSummary) -> io::Result<()> {
    let Some(l) = &s.log else {
        return Ok(());
    };
    let f = &l.facts;
    if f.truncated_last_line {
        writeln!(out, "note: the last line has no newline: the log was cut")?;
    }
    if f.symbols_not_found > 0 {
        writeln!(
            out,
            "note: dyld reported {} missing symbols (`Symbol not found`): the launch failed",
            f.symbols_not_found
        )?;
    }
    if f.unrecognized_dyld_lines > 0 {
        writeln!(
            out,
            "note: {} dyld lines were not understood (counted, not used)",
            f.unrecognized_dyld_lines
        )?;
    }
    if f.oversized_lines > 0 {
        writeln!(
            out,
            "note: {} longer than 1 MiB {} cut",
            crate::text::count(f.oversized_lines, "line", "lines"),
            if f.oversized_lines == 1 {
                "was"
            } else {
                "were"
            }
        )?;
    }
    if f.unattributed_weak_fixups > 0 || f.orphan_result_lines > 0 {
        writeln!(
            out,
            "note: {} weak-bind fixup lines and {} lookup result lines had no target or lookup to belong to",
            f.unattributed_weak_fixups, f.orphan_result_lines
        )?;
    }
    if l.renamed_binds > 0 {
        writeln!(
            out,
            "note: {} of this image {} the symbol found through a renamed re-export; {} the name looked up",
            crate::text::count(l.renamed_binds, "bind line", "bind lines"),
            if l.renamed_binds == 1 {
                "names"
            } else {
                "name"
            },
            if l.renamed_binds == 1 {
                "its target is"
            } else {
                "their targets are"
            }
        )?;
    }
    if s.seen_weak_lookups.is_none() {
        writeln!(
            out,
            "note: this log has no lookup lines ({}): the lookup count is not in it",
            l.format.describe()
        )?;
    }
    Ok(())
}

/// The lookups row: predicted for a binary, seen for a log.
fn lookups_row(s: &ImageSummary) -> (&'static str, String) {
    match &s.log {
        None => ("predicted weak-def lookups", fig(s.predicted_weak_lookups)),
        Some(_) => (
            "weak-def lookups seen",
            s.seen_weak_lookups.map_or_else(
                || "n/a (this dyld prints no lookup lines)".to_string(),
                |n| n.to_string(),
            ),
        ),
    }
}

/// The groups of one image: the key, its figures, where it comes from (when the image is
/// attributed and groups are not origins) and an example member.
fn groups(r: &ScanReport<'_>, img: &ImageReport<'_>, w: Option<u16>) -> Grid {
    let s = &img.summary;
    let is_log = s.log.is_some();
    let from = s.attribution.is_some() && r.group_by.origin_level().is_none();
    let mut columns = vec![
        name(r.group_by.as_str()),
        figure("weak-bound symbols"),
        figure(if is_log { "lookups seen" } else { "lookups" }),
        figure("sites"),
        if is_log {
            text("definitions from")
        } else {
            figure("weak-def exports")
        },
    ];
    if from {
        columns.push(text("from"));
    }
    columns.push(example("example"));
    let mut g = Grid::new(w, columns);
    for grp in r.groups(img) {
        let mut row = vec![
            cell(&grp.key),
            fig(grp.stats.weak_bound_symbols),
            fig(grp.stats.lookups),
            fig(grp.stats.sites),
            if is_log {
                suppliers_cell(&grp.suppliers)
            } else {
                fig(grp.stats.weak_def_exports)
            },
        ];
        if from {
            row.push(from_text(grp.from.as_ref()));
        }
        row.push(example_text(&grp.key, &grp.example));
        g.row(row);
    }
    g
}

/// A group's "from" cell: its dominant object, and how many more contribute.
pub(super) fn from_text(from: Option<&GroupFrom>) -> String {
    match from {
        None => String::new(),
        Some(f) if f.objects == 0 => String::from("-"),
        Some(f) if f.objects == 1 => short_name(&f.object),
        Some(f) => format!("{} +{} more", short_name(&f.object), f.objects - 1),
    }
}

/// The "attributed" summary row: how many weak-bound symbols the attribution names, or why
/// there is none and how to get it.
fn attributed(s: &ImageSummary) -> String {
    match (&s.attribution, s.weak_bind_symbols) {
        (Some(a), None) => format!(
            "{} of {} weak definitions ({}, {})",
            a.weak_defs_attributed,
            fig(s.weak_def_exports),
            a.source.describe(),
            crate::text::count(a.objects, "object", "objects")
        ),
        (Some(a), bound) => format!(
            "{} of {} weak-bound symbols ({}, {})",
            a.weak_bound_attributed,
            fig(bound),
            a.source.describe(),
            crate::text::count(a.objects, "object", "objects")
        ),
        (None, _) => "none: no debug map (stripped); give --map or --dsym".to_string(),
    }
}
