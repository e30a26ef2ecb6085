//! Human-readable output (`--format table`): a summary per image, then the group table.

use crate::analysis::check::CheckReport;
use crate::analysis::diff::GroupDelta;
use crate::analysis::fix_plan::FixPlan;
use crate::analysis::group::GroupFrom;
use crate::analysis::report::{DiffReport, ImageSummary, ScanReport};
use crate::analysis::verify::{Basis, VerifyReport, counted_differences};
use crate::analysis::visibility::{Compiled, VisibilityReport};
use crate::output::{NOT_AVAILABLE, RenderOptions, change, fig, importers, signed, story};
use crate::text::clip_middle;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table};
use std::io::{self, Write};

/// Longest example shown in a table cell, in characters.
const EXAMPLE_WIDTH: usize = 90;

/// A table fitted to `width` columns (comfy-table's dynamic arrangement: long cells wrap), or
/// printed at full width (`None`: piped output and golden files stay stable).
pub(crate) fn table(width: Option<u16>) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED).force_no_tty();
    match width {
        Some(w) => t
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(w),
        None => t.set_content_arrangement(ContentArrangement::Disabled),
    };
    t
}

/// The width of the terminal on stdout, if stdout is one (comfy-table's own detection).
pub fn terminal_width() -> Option<u16> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    Table::new().width()
}

/// Widest text cell, in characters: a longer key, name or path keeps its head and tail with `…`
/// between ([`clip_middle`]), so one 64 KiB name cannot widen every row of a table (comfy-table
/// pads every row to the widest cell: rows × width). JSON keeps full names.
pub const MAX_CELL_WIDTH: usize = 160;

/// A text cell clipped to [`MAX_CELL_WIDTH`].
pub(crate) fn cell(s: &str) -> Cell {
    Cell::new(clip_middle(s, MAX_CELL_WIDTH))
}

/// A table fitted to `width` ([`table`]) whose header is `headers`: (text, is a figure) —
/// figures right-aligned and kept whole when fitted ([`fit_figures`]), the rest text.
pub(crate) fn table_with(width: Option<u16>, headers: &[(&str, bool)]) -> Table {
    let mut t = table(width);
    t.set_header(
        headers
            .iter()
            .map(|(h, f)| if *f { figure_header(width, h) } else { cell(h) }),
    );
    t
}

pub(crate) fn right(s: impl ToString) -> Cell {
    Cell::new(s.to_string()).set_alignment(CellAlignment::Right)
}

/// A header over a column of figures: one word per line when tables are fitted to a width (so
/// "weak-bound symbols" costs 10 columns, not 18; "lookups old → new" becomes "lookups" over
/// "old→new").
pub(crate) fn figure_header(width: Option<u16>, s: &str) -> Cell {
    let text = if width.is_some() {
        s.replace(" old → new", "\u{0}")
            .replace(' ', "\n")
            .replace('\u{0}', "\nold→new")
    } else {
        s.to_string()
    };
    Cell::new(text).set_alignment(CellAlignment::Right)
}

/// Below this fitted width the group tables leave out their example column: it would be a few
/// characters wide (the key and the figures come first).
const EXAMPLES_FROM_WIDTH: u16 = 100;

/// Whether group tables show their example column (always, unless fitted to a narrow width).
fn show_examples(width: Option<u16>) -> bool {
    width.is_none_or(|w| w >= EXAMPLES_FROM_WIDTH)
}

/// When tables are fitted to a width (`width` is some): the figure columns (every right-aligned
/// header) keep their content width and never wrap; the text columns share the rest.
pub(crate) fn fit_figures(width: Option<u16>, t: &mut Table, header: &[bool]) {
    if width.is_none() {
        return;
    }
    for (i, figure) in header.iter().enumerate() {
        if *figure && let Some(c) = t.column_mut(i) {
            c.set_constraint(comfy_table::ColumnConstraint::ContentWidth);
        }
    }
    // The key (first column) is what the table is about: at least a third of the width.
    if let Some(c) = t.column_mut(0) {
        c.set_constraint(comfy_table::ColumnConstraint::LowerBoundary(
            comfy_table::Width::Percentage(33),
        ));
    }
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
fn example_cell(width: Option<u16>, key: &str, example: &str) -> Cell {
    Cell::new(if example == key {
        String::new()
    } else if let Some(w) = width {
        // Fitted to a width: about two lines of the example column, its head and tail kept.
        clip_middle(example, (usize::from(w) / 3).max(24))
    } else {
        clip(example)
    })
}

fn opt(v: Option<&str>) -> String {
    v.unwrap_or(NOT_AVAILABLE).to_string()
}

fn flags(s: &ImageSummary) -> String {
    s.flags
        .as_ref()
        .map_or_else(|| NOT_AVAILABLE.to_string(), |f| f.join(" "))
}

/// "dyld4 (macOS 15), pid 4242" for a log, "Mach-O" for a binary.
fn input_cell(s: &ImageSummary) -> String {
    match &s.log {
        None => "Mach-O".into(),
        Some(l) => match l.pid {
            Some(pid) => format!("{} log, pid {pid}", l.format.describe()),
            None => format!("{} log", l.format.describe()),
        },
    }
}

fn summary_rows(t: &mut Table, s: &ImageSummary) {
    t.add_row(vec![Cell::new("path"), cell(&s.path)]);
    if let Some(l) = &s.log {
        t.add_row(vec![Cell::new("input"), Cell::new(input_cell(s))]);
        t.add_row(vec![Cell::new("image"), cell(&s.image)]);
        t.add_row(vec![
            Cell::new("fixup format"),
            Cell::new(opt(s.fixup_format)),
        ]);
        let f = &l.facts;
        t.add_row(vec![
            Cell::new("log lines"),
            Cell::new(format!(
                "{} ({} dyld lines of this process, {} of other processes, {} program output, {} not understood)",
                f.lines,
                f.dyld_lines,
                f.other_process_lines,
                f.program_output_lines,
                f.unrecognized_dyld_lines
            )),
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
            t.add_row(vec![
                Cell::new("processes"),
                Cell::new(format!("{} (--pid to choose)", list.join(", "))),
            ]);
        }
        return;
    }
    t.add_row(vec![Cell::new("arch"), Cell::new(opt(s.arch.as_deref()))]);
    t.add_row(vec![
        Cell::new("file type"),
        Cell::new(opt(s.filetype.as_deref())),
    ]);
    t.add_row(vec![
        Cell::new("fixup format"),
        Cell::new(opt(s.fixup_format)),
    ]);
    t.add_row(vec![Cell::new("header flags"), Cell::new(flags(s))]);
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

/// The top suppliers of a log image or group: `node 2158, libc++abi.dylib 20, +1 more`.
fn suppliers_cell(list: &Option<Vec<crate::analysis::group::SupplierCount>>) -> String {
    let Some(list) = list else {
        return String::new();
    };
    let leaf = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let mut parts: Vec<String> = list
        .iter()
        .take(2)
        .map(|s| format!("{} {}", leaf(&s.image), s.symbols))
        .collect();
    if list.len() > 2 {
        parts.push(format!("+{} more", list.len() - 2));
    }
    parts.join(", ")
}

/// Renders `weakscan scan`.
pub fn scan(out: &mut dyn Write, r: &ScanReport<'_>, opts: &RenderOptions) -> io::Result<()> {
    let w = opts.width;
    for img in &r.images {
        let s = &img.summary;
        story_lines(out, r.images.len() > 1, s.label(), &scan_story(r, img), w)?;
        let mut t = table(w);
        summary_rows(&mut t, s);
        t.add_row(vec![
            Cell::new("weak-def exports"),
            Cell::new(fig(s.weak_def_exports)),
        ]);
        t.add_row(vec![
            Cell::new("weak-bind sites"),
            Cell::new(fig(s.weak_bind_sites)),
        ]);
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
        t.add_row(vec![Cell::new("weak-bound symbols"), Cell::new(bound)]);
        let (name, value) = lookups_row(s);
        t.add_row(vec![Cell::new(name), Cell::new(value)]);
        if s.suppliers.is_some() {
            t.add_row(vec![
                Cell::new("definitions from"),
                Cell::new(suppliers_cell(&s.suppliers)),
            ]);
        }
        if s.log.is_none() {
            t.add_row(vec![Cell::new("attributed"), Cell::new(attributed(s))]);
        }
        writeln!(out, "{t}")?;
        log_notes(out, s)?;
        if s.input_kind == crate::model::InputKind::Object {
            writeln!(
                out,
                "before linking: an upper bound of the weak definitions the linked image exports (export lists, -hidden-l, dead stripping and LTO remove some); weak binds and lookups exist only after linking\n"
            )?;
        }
        if img.groups_total == 0 {
            writeln!(out, "no weak symbols\n")?;
            continue;
        }
        if img.groups.is_empty() {
            // --top 0: the totals above, no rows.
            writeln!(
                out,
                "(0 of {} shown; --top N to change)\n",
                crate::text::count(img.groups_total, "group", "groups")
            )?;
            continue;
        }
        let mut g = table(w);
        let is_log = s.log.is_some();
        let mut header = vec![
            Cell::new(r.group_by.as_str()),
            figure_header(w, "weak-bound symbols"),
            figure_header(w, if is_log { "lookups seen" } else { "lookups" }),
            figure_header(w, "sites"),
        ];
        let mut figures = vec![false, true, true, true];
        header.push(if is_log {
            Cell::new("definitions from")
        } else {
            figure_header(w, "weak-def exports")
        });
        figures.push(!is_log);
        // The "from" column: when the image is attributed and groups are not origins.
        let from = s.attribution.is_some() && r.group_by.origin_level().is_none();
        if from {
            header.push(Cell::new("from"));
            figures.push(false);
        }
        if show_examples(w) {
            header.push(Cell::new("example"));
        }
        g.set_header(header);
        fit_figures(w, &mut g, &figures);
        for grp in r.groups(img) {
            let mut row = vec![
                cell(&grp.key),
                right(fig(grp.stats.weak_bound_symbols)),
                right(fig(grp.stats.lookups)),
                right(fig(grp.stats.sites)),
            ];
            row.push(if is_log {
                Cell::new(suppliers_cell(&grp.suppliers))
            } else {
                right(fig(grp.stats.weak_def_exports))
            });
            if from {
                row.push(from_cell(grp.from.as_ref()));
            }
            if show_examples(w) {
                row.push(example_cell(w, &grp.key, &grp.example));
            }
            g.add_row(row);
        }
        writeln!(out, "{g}")?;
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
    }
    if !r.importers.is_empty() || !r.importers_skipped.is_empty() {
        importers::write_checks(
            out,
            &r.importers,
            &r.importers_skipped,
            importers::Style::Plain,
        )?;
    }
    demangle_note(out, r.demangle_failures)?;
    Ok(())
}

/// Candidates the fix plan table shows at most.
const FIX_PLAN_ROWS: usize = 5;

/// The headline and `fix:` block of one scanned image ([`story`]).
fn scan_story(r: &ScanReport<'_>, img: &crate::analysis::report::ImageReport<'_>) -> Vec<String> {
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

/// `lines`, each wrapped at spaces to the width when there is one (a name longer than the
/// width stays whole), then a blank line; prefixed with `label: ` when the report has several
/// images.
fn story_lines(
    out: &mut dyn Write,
    several: bool,
    label: &str,
    lines: &[String],
    width: Option<u16>,
) -> io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    for l in lines {
        let l = if several {
            format!("{label}: {l}")
        } else {
            l.clone()
        };
        match width {
            Some(w) => {
                let lead = l.len() - l.trim_start().len();
                let indent = " ".repeat(if l.starts_with("fix: ") { 5 } else { lead + 2 });
                let options = textwrap::Options::new(usize::from(w))
                    .break_words(false)
                    .subsequent_indent(&indent);
                for part in textwrap::wrap(&l, options) {
                    writeln!(out, "{part}")?;
                }
            }
            None => writeln!(out, "{l}")?,
        }
    }
    out.write_all(b"\n")
}

/// The fix plan ([`crate::analysis::fix_plan`]): the `rows` candidates saving the most.
fn fix_plan(
    out: &mut dyn Write,
    plan: &FixPlan,
    rows: usize,
    width: Option<u16>,
) -> io::Result<()> {
    let shown: Vec<_> = plan
        .candidates
        .iter()
        .filter(|c| c.hidden.lookups > 0)
        .take(rows)
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    // Fitted, the header breaks after the hyphen too: six columns fit in 80.
    let inlines = match width {
        Some(_) => "inlines- hidden saves",
        None => "inlines-hidden saves",
    };
    let mut t = table(width);
    t.set_header(vec![
        Cell::new("fix plan: hide"),
        figure_header(width, "lookups saved"),
        figure_header(width, "weak-def exports"),
        figure_header(width, "other exports"),
        figure_header(width, inlines),
        figure_header(width, "estimated time"),
    ]);
    fit_figures(width, &mut t, &[false, true, true, true, true, true]);
    for c in &shown {
        t.add_row(vec![
            cell(&c.library),
            right(c.hidden.lookups),
            right(c.hidden.weak_def_exports),
            right(c.other_exports),
            right(c.inlines_hidden.lookups),
            right(story::ms_range(c.hidden.estimated_ms)),
        ]);
    }
    writeln!(out, "{t}")?;
    for line in story::imported_by(plan, story::plain) {
        writeln!(out, "{line}")?;
    }
    let more = plan
        .candidates
        .iter()
        .filter(|c| c.hidden.lookups > 0)
        .count();
    if more > shown.len() {
        writeln!(
            out,
            "({} of {more} candidates shown; --format json lists all)",
            shown.len()
        )?;
    }
    writeln!(
        out,
        "inlines-hidden: -fvisibility-inlines-hidden hides functions only (an upper bound); times are estimates\n"
    )
}

/// The objects' compile commands (`scan --compile-commands`): the `top` objects with the most
/// lookups, each with its visibility, then the libraries with objects compiled with default
/// visibility, and the fix for the largest; tables fitted to `width`.
fn compile_commands(
    out: &mut dyn Write,
    v: &VisibilityReport,
    top: usize,
    width: Option<u16>,
) -> io::Result<()> {
    let mut t = table(width);
    t.set_header(vec![
        Cell::new("object"),
        right("weak-bound symbols"),
        right("lookups"),
        right("weak-def exports"),
        Cell::new("compiled with"),
        Cell::new("target"),
        Cell::new("source"),
    ]);
    for o in v.objects.iter().take(top) {
        let (with, target) = match &o.compiled {
            Compiled::Found {
                visibility,
                inlines_hidden,
                ms_compat,
                target,
                ..
            } => {
                let mut with = match (visibility, ms_compat) {
                    (_, true) => "-fvisibility-ms-compat".to_string(),
                    (Some(v), _) => format!("-fvisibility={v}"),
                    (None, _) => "default visibility (no -fvisibility)".to_string(),
                };
                if *inlines_hidden {
                    with.push_str(" -fvisibility-inlines-hidden");
                }
                (with, target.clone().unwrap_or_default())
            }
            Compiled::Unknown { reason, target, .. } => (
                format!("unknown ({reason})"),
                target.clone().unwrap_or_default(),
            ),
            Compiled::Ambiguous { entries } => (
                format!("{} fit", crate::text::count(*entries, "entry", "entries")),
                String::new(),
            ),
            Compiled::NotFound => ("no entry".to_string(), String::new()),
        };
        t.add_row(vec![
            cell(&o.object),
            right(o.weak_bound_symbols.to_string()),
            right(o.lookups.to_string()),
            right(o.weak_def_exports.to_string()),
            Cell::new(with),
            cell(&target),
            cell(&o.source),
        ]);
    }
    writeln!(out, "{t}")?;
    if v.objects.len() > top {
        writeln!(
            out,
            "({top} of {} shown; --top N to change)",
            crate::text::count(v.objects.len(), "object", "objects")
        )?;
    }
    let unknown: usize = v.libraries.iter().map(|l| l.objects_unknown).sum();
    for l in v.libraries.iter().filter(|l| l.objects_default > 0) {
        let targets = if l.targets.is_empty() {
            String::new()
        } else {
            format!(" (target {})", l.targets.join(", "))
        };
        writeln!(
            out,
            "{}: {}, {} from {} of its {} compiled without -fvisibility=hidden{targets}",
            clip(&l.library),
            crate::text::count(
                l.weak_bound_symbols_default,
                "weak-bound symbol",
                "weak-bound symbols"
            ),
            crate::text::count(l.lookups_default, "lookup", "lookups"),
            l.objects_default,
            crate::text::count(l.objects, "object", "objects")
        )?;
    }
    if unknown > 0 {
        writeln!(
            out,
            "{} no unique entry in the compile database or an unknown visibility (see \"compiled with\")",
            if unknown == 1 {
                "1 object has".to_string()
            } else {
                format!("{unknown} objects have")
            }
        )?;
    }
    if let Some(o) = v.objects.iter().find(|o| o.compiled.leaks()) {
        let target = match &o.compiled {
            Compiled::Found {
                target: Some(t), ..
            } => format!(" (target {})", clip(t)),
            _ => String::new(),
        };
        writeln!(
            out,
            "fix: {} from {}, compiled without -fvisibility=hidden{target}: add -fvisibility=hidden -fvisibility-inlines-hidden to its compile flags, or mark what must stay exported with __attribute__((visibility(\"default\")))",
            crate::text::count(o.lookups, "lookup", "lookups"),
            clip(&o.source)
        )?;
    } else {
        writeln!(out, "every object found is compiled with hidden visibility")?;
    }
    out.write_all(b"\n")
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

/// A group's "from" cell: its dominant object, and how many more contribute.
fn from_cell(from: Option<&GroupFrom>) -> Cell {
    Cell::new(match from {
        None => String::new(),
        Some(f) if f.objects == 0 => String::from("-"),
        Some(f) if f.objects == 1 => clip(&f.object),
        Some(f) => format!("{} +{} more", clip(&f.object), f.objects - 1),
    })
}

fn demangle_note(out: &mut dyn Write, failures: usize) -> io::Result<()> {
    if failures > 0 {
        writeln!(out, "note: {}", super::demangle_note(failures))?;
    }
    Ok(())
}

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
/// `trend`): the key (headed `key`, the grouping's name), lookups old → new, the change of each
/// figure and an example member (left out when fitted to a narrow `width`).
pub(crate) fn group_deltas(width: Option<u16>, key: &str, groups: &[&GroupDelta]) -> Table {
    let w = width;
    let mut g = table(w);
    let mut header = vec![
        Cell::new(key),
        figure_header(w, "lookups old → new"),
        figure_header(w, "Δ lookups"),
        figure_header(w, "Δ symbols"),
        figure_header(w, "Δ sites"),
        figure_header(w, "Δ exports"),
    ];
    if show_examples(w) {
        header.push(Cell::new("example"));
    }
    g.set_header(header);
    fit_figures(w, &mut g, &[false, true, true, true, true, true, false]);
    for grp in groups {
        let mut row = vec![
            cell(&grp.key),
            right(format!(
                "{} → {}",
                fig(grp.old.lookups),
                fig(grp.new.lookups)
            )),
            right(signed(grp.delta.lookups)),
            right(signed(grp.delta.weak_bound_symbols)),
            right(signed(grp.delta.sites)),
            right(signed(grp.delta.weak_def_exports)),
        ];
        if show_examples(w) {
            row.push(example_cell(w, &grp.key, &grp.example));
        }
        g.add_row(row);
    }
    g
}

/// Renders `weakscan diff`.
pub fn diff(out: &mut dyn Write, r: &DiffReport, opts: &RenderOptions) -> io::Result<()> {
    let w = opts.width;
    for p in &r.pairs {
        let (o, n) = (&p.old, &p.new);
        let mut lines = story::diff_headline(p, story::plain);
        lines.extend(story::diff_fix(p, Some(&p.fix_plan), story::plain));
        story_lines(out, r.pairs.len() > 1, &p.label, &lines, w)?;
        let mut t = table(w);
        t.set_header(vec![Cell::new(""), Cell::new("old"), Cell::new("new")]);
        t.add_row(vec![Cell::new("path"), cell(&o.path), cell(&n.path)]);
        if o.log.is_some() || n.log.is_some() {
            t.add_row(vec![
                Cell::new("input"),
                Cell::new(input_cell(o)),
                Cell::new(input_cell(n)),
            ]);
            t.add_row(vec![Cell::new("image"), cell(&o.image), cell(&n.image)]);
        }
        t.add_row(vec![
            Cell::new("arch"),
            Cell::new(opt(o.arch.as_deref())),
            Cell::new(opt(n.arch.as_deref())),
        ]);
        t.add_row(vec![
            Cell::new("fixup format"),
            Cell::new(opt(o.fixup_format)),
            Cell::new(opt(n.fixup_format)),
        ]);
        t.add_row(vec![
            Cell::new("header flags"),
            Cell::new(flags(o)),
            Cell::new(flags(n)),
        ]);
        let mut totals = table(w);
        totals.set_header(vec![
            cell(&p.label),
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
            (lookups_label(o, n), o.stats().lookups, n.stats().lookups),
        ] {
            totals.add_row(vec![
                Cell::new(name),
                right(fig(a)),
                right(fig(b)),
                right(change(a, b)),
            ]);
        }
        writeln!(out, "{t}\n{totals}")?;
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
    demangle_note(out, r.demangle_failures)?;
    Ok(())
}

/// Renders `weakscan verify`.
pub fn verify(out: &mut dyn Write, r: &VerifyReport, opts: &RenderOptions) -> io::Result<()> {
    let w = opts.width;
    let (b, l) = (&r.binary, &r.log);
    let mut t = table(w);
    t.set_header(vec![Cell::new(""), Cell::new("binary"), Cell::new("log")]);
    t.add_row(vec![Cell::new("path"), cell(&b.path), cell(&l.path)]);
    t.add_row(vec![
        Cell::new("input"),
        Cell::new(format!("Mach-O, {}", opt(b.arch.as_deref()))),
        Cell::new(input_cell(l)),
    ]);
    t.add_row(vec![Cell::new("image"), cell(&b.image), cell(&l.image)]);
    writeln!(out, "{t}")?;
    for n in &r.notes {
        writeln!(out, "note: {n}")?;
    }
    let what = match r.basis {
        Basis::Lookups => "weak-def lookups",
        Basis::WeakBindTargets | Basis::CoalescedTargets => "weak-bind targets",
    };
    let mut totals = table(w);
    totals.set_header(vec![Cell::new(what), right("count")]);
    for (name, v) in [
        ("predicted", r.totals.predicted),
        ("seen", r.totals.seen),
        (
            "predicted and seen",
            r.totals.predicted - r.totals.predicted_not_seen,
        ),
        ("predicted, not seen", r.totals.predicted_not_seen),
        ("seen, not predicted", r.totals.seen_not_predicted),
    ] {
        totals.add_row(vec![Cell::new(name), right(v)]);
    }
    writeln!(out, "{totals}")?;
    let mut g = table(w);
    g.set_header(vec![
        Cell::new(r.group_by.as_str()),
        right("predicted"),
        right("seen"),
        right("not seen"),
        right("not predicted"),
        Cell::new("definitions from"),
        Cell::new("example"),
    ]);
    for grp in &r.groups {
        g.add_row(vec![
            cell(&grp.key),
            right(grp.counts.predicted),
            right(grp.counts.seen),
            right(grp.counts.predicted_not_seen),
            right(grp.counts.seen_not_predicted),
            Cell::new(suppliers_cell(&Some(grp.suppliers.clone()))),
            example_cell(w, &grp.key, &grp.example),
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
    demangle_note(out, r.demangle_failures)?;
    Ok(())
}

/// Renders `weakscan check`: per image its figures, every budget with value, limit and result,
/// the failing budgets as sentences, the offending groups with examples; then what to do and
/// the verdict.
pub fn check(out: &mut dyn Write, r: &CheckReport, opts: &RenderOptions) -> io::Result<()> {
    let w = opts.width;
    for img in &r.images {
        writeln!(
            out,
            "{} ({}): {}",
            img.path,
            img.arch,
            if img.passed { "passed" } else { "FAILED" }
        )?;
        let mut f = table(w);
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
        let mut b = table(w);
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
        if img.budgets.is_empty() {
            writeln!(out, "{f}")?;
        } else {
            writeln!(out, "{f}\n{b}")?;
        }
        for x in img.failures() {
            writeln!(out, "✗ {}", x.message)?;
        }
        if !img.offending_groups.is_empty() {
            writeln!(out, "\n{}:", r.offenders_caption(img))?;
            let mut g = table(w);
            g.set_header(vec![
                Cell::new(r.group_by.as_str()),
                right(img.offender_figure.as_str()),
                Cell::new("examples"),
            ]);
            for o in &img.offending_groups {
                let examples = o.examples_within(EXAMPLE_WIDTH);
                g.add_row(vec![
                    cell(&o.key),
                    right(o.value_text()),
                    Cell::new(examples.join("\n")),
                ]);
            }
            writeln!(out, "{g}")?;
        }
        for n in &img.notes {
            writeln!(out, "note: {n}")?;
        }
        out.write_all(b"\n")?;
    }
    if !r.importers.is_empty() {
        importers::write_checks(
            out,
            &r.importers,
            &r.importers_skipped,
            importers::Style::Plain,
        )?;
    }
    let fix = r.fix();
    if !fix.is_empty() {
        writeln!(out, "how to fix:")?;
        for f in fix {
            writeln!(out, "  - {f}")?;
        }
        out.write_all(b"\n")?;
    }
    demangle_note(out, r.demangle_failures)?;
    // Where the budgets came from, labelled, just above the verdict (the last line).
    if let Some(from) = r.sources() {
        writeln!(out, "budgets from: {from}")?;
    }
    writeln!(out, "weakscan check {}", r.verdict())?;
    Ok(())
}
