//! A whole process (`weakscan scan APP|DIR`, `scan --process MAIN`): the images in load order
//! with what each costs, the process figures, cross-image duplicates and the problems met. Table,
//! Markdown, GitHub workflow commands and JSON (`command: "process"`, `docs/json.md`).

use super::markdown::{code, code_list};
use super::table::cell;
use super::table::grid::{Grid, extra, figure, name, text};
use crate::analysis::coalesce::Coalescing;
use crate::output::{NOT_AVAILABLE, RenderOptions, fig};
use serde::Serialize;
use std::io::{self, Write};

/// What the fix plan table of a process shows.
const PLAN_INTRO: &str = "fix plan: what hiding each library's weak definitions would save across the process (trie probes replayed through dyld's lookups; inlines-hidden: at least–at most, docs/fix-plan.md; time an estimate)";

fn yes_no(v: Option<bool>) -> String {
    match v {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => NOT_AVAILABLE.into(),
    }
}

/// The images of a process in load order, with what each costs.
fn images_table(p: &Coalescing, w: Option<u16>) -> Grid {
    let mut t = Grid::new(
        w,
        vec![
            name("image"),
            figure("#"),
            extra("found by"),
            figure("searched"),
            figure("weak defs"),
            figure("lookups"),
            figure("trie probes"),
            figure("wins"),
            figure("for others"),
            figure("loses"),
            figure("unused weak defs"),
            figure("probes saved if hidden"),
        ],
    );
    for c in &p.images {
        t.row([
            cell(&c.image),
            c.index.to_string(),
            cell(&c.found),
            yes_no(c.takes_part),
            fig(c.weak_definitions),
            c.lookups.to_string(),
            c.trie_probes.to_string(),
            c.wins.to_string(),
            c.wins_for_others.to_string(),
            c.loses.to_string(),
            fig(c.unused_weak_definitions),
            if c.takes_part == Some(true) {
                c.saved_probes_if_hidden.to_string()
            } else {
                NOT_AVAILABLE.into()
            },
        ]);
    }
    t
}

/// Renders each process (one per arch) as tables; `top` limits the duplicate groups shown.
pub fn table_out(
    out: &mut dyn Write,
    processes: &[Coalescing],
    top: Option<usize>,
    opts: &RenderOptions,
) -> io::Result<()> {
    super::table::wrap::lines(out, opts.width, |out| {
        tables(out, processes, top, opts.width)
    })
}

/// The tables of [`table_out`].
fn tables(
    out: &mut dyn Write,
    processes: &[Coalescing],
    top: Option<usize>,
    w: Option<u16>,
) -> io::Result<()> {
    for (n, p) in processes.iter().enumerate() {
        if n > 0 {
            writeln!(out)?;
        }
        writeln!(
            out,
            "process ({}): {}, {} on disk, {} searched for weak definitions, {} outside (shared cache, not read)",
            p.arch,
            crate::text::count(p.images.len(), "image", "images"),
            p.images_on_disk,
            p.images_searched,
            p.images_outside
        )?;
        for l in super::process_plan::fix_block(p, "fix plan below", super::story::plain) {
            writeln!(out, "{l}")?;
        }
        writeln!(out, "{}", images_table(p, w))?;
        writeln!(
            out,
            "lookups {}, trie probes {} (lookups × {} images searched, less {} weakDefMap hits), distinct names {}, defined by no image on disk {}",
            p.lookups,
            p.trie_probes,
            p.images_searched,
            p.weak_def_map_hits,
            p.distinct_names,
            p.defined_outside
        )?;
        writeln!(
            out,
            "estimated probe time {:.1}–{:.1} ms (an estimate: docs/process.md); outside images' probes not counted",
            p.estimated_ms.0, p.estimated_ms.1
        )?;
        if p.duplicate_groups.is_empty() {
            writeln!(
                out,
                "no looked-up weak symbol is defined by more than one image on disk"
            )?;
        } else {
            writeln!(
                out,
                "\n{} looked-up symbols are defined by several images ({} templates):",
                p.duplicated_names,
                p.duplicate_groups.len()
            )?;
            let mut t = Grid::new(
                w,
                vec![
                    name("template"),
                    figure("symbols"),
                    figure("lookups"),
                    text("defined by"),
                    text("winner"),
                ],
            );
            let shown = top.unwrap_or(usize::MAX);
            for g in p.duplicate_groups.iter().take(shown) {
                t.row([
                    cell(&g.template),
                    g.symbols.to_string(),
                    g.lookups.to_string(),
                    cell(&g.images.join(", ")),
                    cell(&g.winners.join(", ")),
                ]);
            }
            writeln!(out, "{t}")?;
            if p.duplicate_groups.len() > shown {
                writeln!(
                    out,
                    "… {} more templates (--top)",
                    p.duplicate_groups.len() - shown
                )?;
            }
        }
        if !p.fix_plan.is_empty() {
            let rows = top.unwrap_or(super::process_plan::PLAN_ROWS);
            writeln!(out, "\n{PLAN_INTRO}:")?;
            writeln!(out, "{}", super::process_plan::table(p, w, rows))?;
            for l in super::process_plan::at_most_lines(&p.fix_plan, rows, super::story::plain) {
                writeln!(out, "{l}")?;
            }
            super::process_plan::more(out, p, rows, super::story::plain)?;
        }
        for o in &p.overrides_of_main {
            writeln!(out, "override: {}", overridden(&o.symbol, &o.winner))?;
        }
        for i in slowing(p) {
            writeln!(out, "slows every lookup: {}", slows(&i.image, i))?;
        }
        for (i, d) in lazy_loads(p) {
            writeln!(
                out,
                "lazy-load: {} loads {} on first use (LC_LAZY_LOAD_DYLIB_INFO): not loaded at launch, not searched for weak definitions then",
                cell(&i.image),
                cell(&d.install_name)
            )?;
        }
        if !p.problems.is_empty() {
            writeln!(
                out,
                "\n{}:",
                crate::text::count(p.problems.len(), "problem", "problems")
            )?;
            for pr in &p.problems {
                writeln!(out, "  {pr}")?;
            }
        }
        if p.demangle_failures > 0 {
            writeln!(
                out,
                "note: {}",
                super::demangle_note(p.demangle_failures, &Default::default())
            )?;
        }
    }
    Ok(())
}

/// Each image's lazy-load dylibs (`LC_LAZY_LOAD_DYLIB_INFO`), in load order.
fn lazy_loads(
    p: &Coalescing,
) -> impl Iterator<
    Item = (
        &crate::analysis::coalesce::ImageCost,
        &crate::analysis::coalesce::Dependency,
    ),
> {
    p.images.iter().flat_map(|i| {
        i.dependencies
            .iter()
            .filter(|d| d.load_command == crate::analysis::coalesce::LC_LAZY_LOAD_DYLIB_INFO)
            .map(move |d| (i, d))
    })
}

/// The finding on an image that [`slowing`] lists, after `image` (as each format shows it).
fn slows(image: &str, c: &crate::analysis::coalesce::ImageCost) -> String {
    format!(
        "{image} exports {} and none wins another image's lookup; hidden visibility (or an export list) would save {}",
        match c.weak_definitions {
            Some(n) => crate::text::count(n, "weak definition", "weak definitions"),
            None => format!("{} weak definitions", fig(None)),
        },
        crate::text::count(c.saved_probes_if_hidden, "trie probe", "trie probes")
    )
}

/// The finding on a main-executable symbol that `winner` overrides (each as its format shows it).
fn overridden(symbol: &str, winner: &str) -> String {
    format!("the main executable's {symbol} is replaced by {winner}'s non-weak definition")
}

/// Images that make every lookup slower: searched, not the main executable, and winning no
/// other image's lookup.
fn slowing(p: &Coalescing) -> impl Iterator<Item = &crate::analysis::coalesce::ImageCost> {
    p.images
        .iter()
        .filter(|c| c.takes_part == Some(true) && c.wins_for_others == 0 && c.index != 0)
}

/// Renders each process as Markdown (a step summary or a pull-request comment): the figures,
/// the images on disk with their costs, the duplicate groups (`top` of them), the findings and
/// the problems.
pub fn markdown(
    out: &mut dyn Write,
    processes: &[Coalescing],
    top: Option<usize>,
) -> io::Result<()> {
    for p in processes {
        let main = p.images.first().map_or("", |c| c.image.as_str());
        writeln!(
            out,
            "### weakscan: process {} ({})
",
            code(main),
            p.arch
        )?;
        writeln!(
            out,
            "{}: {} on disk, {} searched for weak definitions, {} outside (shared cache, not read).
",
            crate::text::count(p.images.len(), "image", "images"),
            p.images_on_disk,
            p.images_searched,
            p.images_outside
        )?;
        let fix = super::process_plan::fix_block(p, "fix plan below", code);
        if !fix.is_empty() {
            writeln!(out, "{}\n", super::markdown::fix_paragraph(&fix))?;
        }
        writeln!(
            out,
            "| | |
|---|---:|"
        )?;
        for (label, v) in [
            ("weak-def lookups", p.lookups),
            ("trie probes", p.trie_probes),
            ("weakDefMap hits", p.weak_def_map_hits),
            ("distinct names looked up", p.distinct_names),
            ("defined by several images", p.duplicated_names),
            ("defined by no image on disk", p.defined_outside),
        ] {
            writeln!(out, "| {label} | {v} |")?;
        }
        writeln!(
            out,
            "| estimated probe time, ms (estimate) | {:.1}–{:.1} |\n",
            p.estimated_ms.0, p.estimated_ms.1
        )?;
        writeln!(
            out,
            "| image | searched | weak defs | lookups | trie probes | wins | unused weak defs | probes saved if hidden |\n|---|---|---:|---:|---:|---:|---:|---:|"
        )?;
        for c in p.images.iter().filter(|c| c.on_disk) {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                code(&c.image),
                yes_no(c.takes_part),
                fig(c.weak_definitions),
                c.lookups,
                c.trie_probes,
                c.wins,
                fig(c.unused_weak_definitions),
                if c.takes_part == Some(true) {
                    c.saved_probes_if_hidden.to_string()
                } else {
                    NOT_AVAILABLE.into()
                }
            )?;
        }
        writeln!(out)?;
        if !p.duplicate_groups.is_empty() {
            writeln!(
                out,
                "{} looked-up symbols are defined by several images ({} templates):\n",
                p.duplicated_names,
                p.duplicate_groups.len()
            )?;
            writeln!(
                out,
                "| template | symbols | lookups | defined by | winner |\n|---|---:|---:|---|---|"
            )?;
            let shown = top.unwrap_or(usize::MAX);
            for g in p.duplicate_groups.iter().take(shown) {
                writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    code(&g.template),
                    g.symbols,
                    g.lookups,
                    code_list(&g.images),
                    code_list(&g.winners)
                )?;
            }
            if p.duplicate_groups.len() > shown {
                writeln!(
                    out,
                    "\n… {} more templates (`--top`).",
                    p.duplicate_groups.len() - shown
                )?;
            }
            writeln!(out)?;
        }
        if !p.fix_plan.is_empty() {
            writeln!(out, "{PLAN_INTRO}:\n")?;
            let rows = top.unwrap_or(super::process_plan::PLAN_ROWS);
            super::process_plan::markdown(out, p, rows, code)?;
        }
        for o in &p.overrides_of_main {
            writeln!(
                out,
                "- override: {}",
                overridden(&code(&o.symbol), &code(&o.winner))
            )?;
        }
        for (i, d) in lazy_loads(p) {
            writeln!(
                out,
                "- lazy-load: {} loads {} on first use (`LC_LAZY_LOAD_DYLIB_INFO`): not loaded at launch, not searched for weak definitions then",
                code(&i.image),
                code(&d.install_name)
            )?;
        }
        for c in slowing(p) {
            writeln!(out, "- slows every lookup: {}", slows(&code(&c.image), c))?;
        }
        if !p.problems.is_empty() {
            writeln!(
                out,
                "\n{}:\n",
                crate::text::count(p.problems.len(), "problem", "problems")
            )?;
            for pr in &p.problems {
                writeln!(out, "- {}", code(pr))?;
            }
        }
        if p.demangle_failures > 0 {
            writeln!(
                out,
                "\n> note: {}",
                super::demangle_note(p.demangle_failures, &Default::default())
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Renders each process as GitHub workflow commands: one `::notice` with the figures, the
/// largest duplicate groups and the fix, one `::warning` per image that slows every lookup and
/// per override of the main executable, one `::warning` per problem (ten, then a count), then
/// a plain line.
pub fn github(out: &mut dyn Write, processes: &[Coalescing]) -> io::Result<()> {
    use super::github::annotation;
    for p in processes {
        let main = p.images.first().map_or("", |c| c.image.as_str());
        let mut text = format!(
            "{main} ({}): {} ({} on disk, {} searched), {}, {}, {} defined by several images; estimated probe time {:.1}–{:.1} ms (an estimate, docs/process.md)",
            p.arch,
            crate::text::count(p.images.len(), "image", "images"),
            p.images_on_disk,
            p.images_searched,
            crate::text::count(p.lookups, "weak-def lookup", "weak-def lookups"),
            crate::text::count(p.trie_probes, "trie probe", "trie probes"),
            crate::text::count(p.duplicated_names, "name", "names"),
            p.estimated_ms.0,
            p.estimated_ms.1
        );
        for g in p.duplicate_groups.iter().take(5) {
            text += &format!(
                "\n  {}: {}, {}, defined by {}; winner {}",
                g.template,
                crate::text::count(g.symbols, "symbol", "symbols"),
                crate::text::count(g.lookups, "lookup", "lookups"),
                g.images.join(", "),
                g.winners.join(", ")
            );
        }
        for l in
            super::process_plan::fix_block(p, "the fix plan: --format json", super::story::plain)
        {
            text += &format!("\n{}", l.trim_start());
        }
        annotation(out, "notice", "weakscan scan: process", &text)?;
        for c in slowing(p) {
            annotation(
                out,
                "warning",
                "weakscan scan: image slows every lookup",
                &slows(&format!("{}:", c.image), c),
            )?;
        }
        for o in &p.overrides_of_main {
            annotation(
                out,
                "warning",
                "weakscan scan: override of the main executable",
                &overridden(&format!("{} ({})", o.symbol, o.mangled), &o.winner),
            )?;
        }
        super::github::problems(out, "weakscan scan: problem", &p.problems)?;
    }
    writeln!(
        out,
        "weakscan scan: {}",
        crate::text::count(processes.len(), "process", "processes")
    )?;
    Ok(())
}

/// The JSON document of a process analysis.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ProcessJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    /// One per arch of the main executable.
    processes: &'a [Coalescing],
}

/// Renders the processes as pretty JSON (with a trailing newline).
pub fn json(out: &mut dyn Write, processes: &[Coalescing]) -> io::Result<()> {
    serde_json::to_writer_pretty(
        &mut *out,
        &ProcessJson {
            schema_version: crate::schema::SCHEMA_VERSION,
            names_printed_by: crate::analysis::demangle::printer::printer(),
            command: "process",
            processes,
        },
    )
    .map_err(io::Error::from)?;
    out.write_all(b"\n")
}
