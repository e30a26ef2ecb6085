//! Two versions of a whole process (`weakscan diff OLD.app NEW.app`): the process figures old →
//! new, the images that changed (paired as [`crate::analysis::process_diff`] says) with the
//! groups that moved inside each, and the duplicate groups gained and lost. Table, Markdown,
//! GitHub workflow commands and JSON (`command: "process-diff"`, `docs/json.md`).

use super::markdown::code;
use super::table::grid::{Grid, figure, name, text, word};
use super::table::{cell, group_deltas};
use super::{NOT_AVAILABLE, RenderOptions, change, fig, signed};
use crate::analysis::process_diff::{
    Change, DuplicateGroupDelta, ImageDelta, ImageStatus, ProcessDiff, ProcessDiffReport,
};
use serde::Serialize;
use std::io::{self, Write};

/// The `command` of the JSON document.
pub const COMMAND: &str = crate::schema::PROCESS_DIFF_COMMAND;

fn status(d: &ImageDelta) -> &'static str {
    match d.status {
        ImageStatus::Added => "added",
        ImageStatus::Removed => "removed",
        ImageStatus::Changed => "changed",
        ImageStatus::Unchanged => "unchanged",
    }
}

/// `old → new (Δ)` of a figure; the one side of an image added or removed (`– → 8`).
fn arrow(c: &Change) -> String {
    match (c.old, c.new) {
        (None, None) => NOT_AVAILABLE.into(),
        (None, Some(n)) => format!("– → {n}"),
        (Some(o), None) => format!("{o} → –"),
        _ if c.change == Some(0) => fig(c.new),
        _ => format!("{} → {} ({})", fig(c.old), fig(c.new), signed(c.change)),
    }
}

fn image_name(d: &ImageDelta) -> String {
    match &d.old_image {
        Some(o) => format!("{} (was {o})", d.image),
        None => d.image.clone(),
    }
}

/// The totals rows: (label, change), with the estimate apart.
fn totals(c: &crate::analysis::process_diff::TotalsDelta) -> [(&'static str, &Change); 8] {
    [
        ("images", &c.images),
        ("images on disk", &c.images_on_disk),
        ("images searched per lookup", &c.images_searched),
        ("weak-def lookups", &c.lookups),
        ("trie probes", &c.trie_probes),
        ("distinct names looked up", &c.distinct_names),
        ("defined by several images", &c.duplicated_names),
        ("defined by no image on disk", &c.defined_outside),
    ]
}

/// The images of a duplicate group, and which joined or left it when that changed; each image
/// as `q` sets it.
fn defined_by(
    g: &crate::analysis::process_diff::DuplicateGroupDelta,
    q: super::story::Quote,
) -> String {
    let list = |images: Vec<&String>| {
        images
            .into_iter()
            .map(|i| q(i))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let now = list(g.images.iter().collect());
    let Some(old) = &g.old_images else {
        return now;
    };
    let joined: Vec<&String> = g.images.iter().filter(|i| !old.contains(i)).collect();
    let left: Vec<&String> = old.iter().filter(|i| !g.images.contains(i)).collect();
    let mut moved = Vec::new();
    if !joined.is_empty() {
        moved.push(format!("+ {}", list(joined)));
    }
    if !left.is_empty() {
        moved.push(format!("− {}", list(left)));
    }
    format!("{now} ({})", moved.join("; "))
}

fn ms((lo, hi): (f64, f64)) -> String {
    format!("{lo:.1}–{hi:.1}")
}

/// The process figures old → new with their change, and the estimate.
fn totals_table(p: &ProcessDiff, w: Option<u16>) -> Grid {
    let mut t = Grid::new(
        w,
        vec![
            name("process"),
            figure("old"),
            figure("new"),
            figure("change"),
        ],
    );
    for (label, c) in totals(&p.totals) {
        t.row([
            label.to_string(),
            fig(c.old),
            fig(c.new),
            change(c.old, c.new),
        ]);
    }
    t.row([
        "estimated probe time, ms".to_string(),
        ms(p.totals.estimated_ms_old),
        ms(p.totals.estimated_ms_new),
        "(estimate)".to_string(),
    ]);
    t
}

/// The images that changed, were added or removed, each figure old → new.
fn images_table(shown: &[&ImageDelta], w: Option<u16>) -> Grid {
    let mut t = Grid::new(
        w,
        vec![
            name("image"),
            word("status"),
            figure("lookups"),
            figure("trie probes"),
            figure("weak defs"),
            figure("wins"),
            figure("unused weak defs"),
            figure("probes saved if hidden"),
        ],
    );
    for d in shown {
        t.row([
            cell(&image_name(d)),
            status(d).to_string(),
            arrow(&d.lookups),
            arrow(&d.trie_probes),
            arrow(&d.weak_definitions),
            arrow(&d.wins),
            arrow(&d.unused_weak_definitions),
            arrow(&d.saved_probes_if_hidden),
        ]);
    }
    t
}

/// The cross-image duplicate groups that changed: their figures old → new and the images
/// defining them.
fn duplicates_table(groups: &[DuplicateGroupDelta], w: Option<u16>) -> Grid {
    let mut t = Grid::new(
        w,
        vec![
            name("template"),
            figure("symbols"),
            figure("lookups"),
            text("defined by"),
        ],
    );
    for g in groups {
        t.row([
            cell(&g.template),
            arrow(&g.symbols),
            arrow(&g.lookups),
            // Longer than one cell allows: the images that joined and left matter.
            super::clip_middle(
                &defined_by(g, super::story::plain),
                4 * super::table::MAX_CELL_WIDTH,
            ),
        ]);
    }
    t
}

/// Renders the report as tables; images that did not change are counted, not listed.
pub fn table_out(
    out: &mut dyn Write,
    r: &ProcessDiffReport,
    opts: &RenderOptions,
) -> io::Result<()> {
    super::table::wrap::lines(out, opts.width, |out| tables(out, r, opts.width))
}

/// The tables of [`table_out`].
fn tables(out: &mut dyn Write, r: &ProcessDiffReport, w: Option<u16>) -> io::Result<()> {
    for (n, p) in r.processes.iter().enumerate() {
        if n > 0 {
            writeln!(out)?;
        }
        let arch = if p.old_arch == p.new_arch {
            p.new_arch.clone()
        } else {
            format!("{} → {}", p.old_arch, p.new_arch)
        };
        writeln!(
            out,
            "process diff ({arch}): {} → {}",
            p.old_main, p.new_main
        )?;
        for l in fix(p, super::story::plain) {
            writeln!(out, "{l}")?;
        }
        writeln!(out, "{}", totals_table(p, w))?;

        let count = |s: ImageStatus| p.images.iter().filter(|d| d.status == s).count();
        writeln!(
            out,
            "images: {} changed, {} added, {} removed, {} unchanged",
            count(ImageStatus::Changed),
            count(ImageStatus::Added),
            count(ImageStatus::Removed),
            count(ImageStatus::Unchanged)
        )?;
        let shown: Vec<&ImageDelta> = p
            .images
            .iter()
            .filter(|d| d.status != ImageStatus::Unchanged)
            .collect();
        if !shown.is_empty() {
            writeln!(out, "{}", images_table(&shown, w))?;
        }
        for d in shown.iter().filter(|d| !d.groups.is_empty()) {
            writeln!(
                out,
                "\n{}: {} changed (by {})",
                d.image,
                crate::text::count(d.groups_changed, "group", "groups"),
                r.group_by.as_str()
            )?;
            let groups: Vec<_> = d.groups.iter().collect();
            writeln!(out, "{}", group_deltas(w, r.group_by.as_str(), &groups))?;
            if d.groups.len() < d.groups_changed {
                writeln!(
                    out,
                    "({} of {} changed groups shown; --top N to change)",
                    d.groups.len(),
                    d.groups_changed
                )?;
            }
        }
        if p.duplicate_groups.is_empty() {
            writeln!(out, "\nno change in cross-image duplicates")?;
        } else {
            writeln!(out, "\ncross-image duplicates that changed (by template):")?;
            writeln!(out, "{}", duplicates_table(&p.duplicate_groups, w))?;
        }
        for (side, problems) in [("old", &p.old_problems), ("new", &p.new_problems)] {
            if !problems.is_empty() {
                writeln!(
                    out,
                    "\n{} in the {side} version:",
                    crate::text::count(problems.len(), "problem", "problems")
                )?;
                for pr in problems {
                    writeln!(out, "  {pr}")?;
                }
            }
        }
    }
    if r.demangle_failures > 0 {
        writeln!(
            out,
            "note: {}",
            super::demangle_note(r.demangle_failures, &Default::default())
        )?;
    }
    Ok(())
}

/// Renders the report as GitHub-flavoured Markdown (a PR comment or job summary).
pub fn markdown(out: &mut dyn Write, r: &ProcessDiffReport) -> io::Result<()> {
    for p in &r.processes {
        writeln!(
            out,
            "### weakscan: process {} → {} ({})\n",
            code(&p.old_main),
            code(&p.new_main),
            p.new_arch
        )?;
        let fix = fix(p, code);
        if !fix.is_empty() {
            writeln!(out, "{}\n", super::markdown::fix_paragraph(&fix))?;
        }
        writeln!(out, "| | old | new | change |\n|---|---:|---:|---:|")?;
        for (label, c) in totals(&p.totals) {
            writeln!(
                out,
                "| {label} | {} | {} | {} |",
                fig(c.old),
                fig(c.new),
                change(c.old, c.new)
            )?;
        }
        writeln!(
            out,
            "| estimated probe time, ms | {} | {} | (estimate) |\n",
            ms(p.totals.estimated_ms_old),
            ms(p.totals.estimated_ms_new)
        )?;
        let shown: Vec<&ImageDelta> = p
            .images
            .iter()
            .filter(|d| d.status != ImageStatus::Unchanged)
            .collect();
        if shown.is_empty() {
            writeln!(out, "No image changed.\n")?;
        } else {
            writeln!(
                out,
                "| image | status | lookups | trie probes | weak defs | top group change |\n|---|---|---:|---:|---:|---|"
            )?;
            for d in shown {
                let top = d.groups.first().map_or(String::new(), |g| {
                    format!("{} {}", code(&g.key), signed(g.delta.lookups))
                });
                writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {top} |",
                    code(&image_name(d)),
                    status(d),
                    arrow(&d.lookups),
                    arrow(&d.trie_probes),
                    arrow(&d.weak_definitions)
                )?;
            }
            writeln!(out)?;
        }
        if !p.duplicate_groups.is_empty() {
            writeln!(
                out,
                "| duplicated template | symbols | lookups | defined by |\n|---|---:|---:|---|"
            )?;
            for g in &p.duplicate_groups {
                writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    code(&g.template),
                    arrow(&g.symbols),
                    arrow(&g.lookups),
                    defined_by(g, code)
                )?;
            }
            writeln!(out)?;
        }
        let problems = p.old_problems.len() + p.new_problems.len();
        if problems > 0 {
            writeln!(
                out,
                "{} loading the processes (see the table output).\n",
                crate::text::count(problems, "problem", "problems")
            )?;
        }
    }
    Ok(())
}

/// Grew from old to new (both known).
/// The `fix:` block of one pair ([`super::process_plan::diff_fix`]).
fn fix(p: &ProcessDiff, q: super::story::Quote) -> Vec<String> {
    let probes = &p.totals.trie_probes;
    let grew = probes.change.is_some_and(|c| c > 0);
    super::process_plan::diff_fix(grew, &p.fix_plan, probes.new.unwrap_or(0), q)
}

fn grew(c: &Change) -> bool {
    c.change.is_some_and(|d| d > 0)
}

/// Renders the report as GitHub workflow commands: per process one annotation with the totals
/// (`::warning` when its lookups or trie probes grew, else `::notice`), one per image that
/// changed (the same rule, on its own lookups and probes) with its largest group changes, one
/// with the duplicate groups that changed, one `::warning` per problem met loading either
/// version (the first ten, then one with the count), then a plain line.
pub fn github(out: &mut dyn Write, r: &ProcessDiffReport) -> io::Result<()> {
    use super::github::annotation;
    let level = |worse: bool| if worse { "warning" } else { "notice" };
    let mut changed = 0;
    for p in &r.processes {
        let t = &p.totals;
        let mut text = format!("{} → {} ({})", p.old_main, p.new_main, p.new_arch);
        for (label, c) in totals(t) {
            text += &format!("\n  {label}: {}", arrow(c));
        }
        text += &format!(
            "\n  estimated probe time: {} → {} ms (an estimate, docs/process.md)",
            ms(t.estimated_ms_old),
            ms(t.estimated_ms_new)
        );
        annotation(
            out,
            level(grew(&t.lookups) || grew(&t.trie_probes)),
            "weakscan diff: process",
            &text,
        )?;
        for d in p
            .images
            .iter()
            .filter(|d| d.status != ImageStatus::Unchanged)
        {
            changed += 1;
            let mut text = format!(
                "{} ({}): weak-def lookups {}, trie probes {}, weak definitions {}, wins {}, unused weak definitions {}",
                image_name(d),
                status(d),
                arrow(&d.lookups),
                arrow(&d.trie_probes),
                arrow(&d.weak_definitions),
                arrow(&d.wins),
                arrow(&d.unused_weak_definitions)
            );
            for g in d.groups.iter().take(5) {
                text += &format!(
                    "\n  {}: {}",
                    g.key,
                    super::signed_count(g.delta.lookups, "lookup", "lookups")
                );
            }
            if d.groups_changed > 5 {
                text += &format!(
                    "\n  … {} changed in all",
                    crate::text::count(d.groups_changed, "group", "groups")
                );
            }
            annotation(
                out,
                level(grew(&d.lookups) || grew(&d.trie_probes)),
                "weakscan diff: image",
                &text,
            )?;
        }
        if !p.duplicate_groups.is_empty() {
            let mut text = format!(
                "{} duplicate groups changed (a template defined by several images):",
                p.duplicate_groups.len()
            );
            for g in &p.duplicate_groups {
                text += &format!(
                    "\n  {}: symbols {}, lookups {}; defined by {}",
                    g.template,
                    arrow(&g.symbols),
                    arrow(&g.lookups),
                    defined_by(g, super::story::plain)
                );
            }
            let worse = p.duplicate_groups.iter().any(|g| grew(&g.lookups));
            annotation(out, level(worse), "weakscan diff: duplicates", &text)?;
        }
        let problems: Vec<String> = p
            .old_problems
            .iter()
            .map(|x| format!("old version: {x}"))
            .chain(p.new_problems.iter().map(|x| format!("new version: {x}")))
            .collect();
        super::github::problems(out, "weakscan diff: problem", &problems)?;
    }
    writeln!(
        out,
        "weakscan diff: {} compared, {} changed",
        crate::text::count(r.processes.len(), "process", "processes"),
        crate::text::count(changed, "image", "images")
    )?;
    Ok(())
}

/// The JSON document of a process diff.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ProcessDiffJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    #[schemars(with = "crate::analysis::group::GroupByName")]
    group_by: &'static str,
    #[serde(flatten)]
    report: &'a ProcessDiffReport,
}

/// Renders the report as pretty JSON (with a trailing newline).
pub fn json(out: &mut dyn Write, r: &ProcessDiffReport) -> io::Result<()> {
    serde_json::to_writer_pretty(
        &mut *out,
        &ProcessDiffJson {
            schema_version: crate::schema::SCHEMA_VERSION,
            names_printed_by: crate::analysis::demangle::printer::printer(),
            command: COMMAND,
            group_by: r.group_by.as_str(),
            report: r,
        },
    )
    .map_err(io::Error::from)?;
    out.write_all(b"\n")
}
