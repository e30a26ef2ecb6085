//! A whole process (`weakscan scan APP|DIR`, `scan --process MAIN`): the images in load order
//! with what each costs, the process figures, cross-image duplicates and the problems met. Table
//! and JSON (`command: "process"`, `docs/json.md`).

use super::table::{cell, fit_figures, right, table_with};
use crate::analysis::coalesce::Coalescing;
use crate::output::{NOT_AVAILABLE, fig};
use serde::Serialize;
use std::io::{self, Write};

fn yes_no(v: Option<bool>) -> String {
    match v {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => NOT_AVAILABLE.into(),
    }
}

/// Renders each process (one per arch) as tables; `top` limits the duplicate groups shown.
pub fn table_out(
    out: &mut dyn Write,
    processes: &[Coalescing],
    top: Option<usize>,
) -> io::Result<()> {
    for (n, p) in processes.iter().enumerate() {
        if n > 0 {
            writeln!(out)?;
        }
        writeln!(
            out,
            "process ({}): {} images, {} on disk, {} searched for weak definitions, {} outside (shared cache, not read)",
            p.arch,
            p.images.len(),
            p.images_on_disk,
            p.images_searched,
            p.images_outside
        )?;
        // The image first: fitted tables give their first column a third of the width. A
        // fitted table narrower than 160 columns leaves out "found by" (JSON keeps it).
        let found_by = super::table::width().is_none_or(|w| w >= 160);
        let mut headers: Vec<(&str, bool)> = vec![("image", false), ("#", true)];
        if found_by {
            headers.push(("found by", false));
        }
        headers.extend([
            ("searched", true),
            ("weak defs", true),
            ("lookups", true),
            ("trie probes", true),
            ("wins", true),
            ("for others", true),
            ("loses", true),
            ("unused weak defs", true),
            ("probes saved if hidden", true),
        ]);
        let mut t = table_with(&headers);
        for c in &p.images {
            let mut row = vec![cell(&c.image), right(c.index)];
            if found_by {
                row.push(cell(&c.found));
            }
            row.extend([
                right(yes_no(c.takes_part)),
                right(fig(c.weak_definitions)),
                right(c.lookups),
                right(c.trie_probes),
                right(c.wins),
                right(c.wins_for_others),
                right(c.loses),
                right(fig(c.unused_weak_definitions)),
                right(if c.takes_part == Some(true) {
                    c.saved_probes_if_hidden.to_string()
                } else {
                    NOT_AVAILABLE.into()
                }),
            ]);
            t.add_row(row);
        }
        let figures: Vec<bool> = headers.iter().map(|h| h.1).collect();
        fit_figures(&mut t, &figures);
        writeln!(out, "{t}")?;
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
            let headers = [
                ("template", false),
                ("symbols", true),
                ("lookups", true),
                ("defined by", false),
                ("winner", false),
            ];
            let mut t = table_with(&headers);
            let shown = top.unwrap_or(usize::MAX);
            for g in p.duplicate_groups.iter().take(shown) {
                t.add_row(vec![
                    cell(&g.template),
                    right(g.symbols),
                    right(g.lookups),
                    cell(&g.images.join(", ")),
                    cell(&g.winners.join(", ")),
                ]);
            }
            fit_figures(&mut t, &headers.map(|h| h.1));
            writeln!(out, "{t}")?;
            if p.duplicate_groups.len() > shown {
                writeln!(
                    out,
                    "… {} more templates (--top)",
                    p.duplicate_groups.len() - shown
                )?;
            }
        }
        for o in &p.overrides_of_main {
            writeln!(
                out,
                "override: the main executable's {} is replaced by {}'s non-weak definition",
                o.symbol, o.winner
            )?;
        }
        for i in p
            .images
            .iter()
            .filter(|c| c.takes_part == Some(true) && c.wins_for_others == 0 && c.index != 0)
        {
            writeln!(
                out,
                "slows every lookup: {} exports {} weak definitions and none wins another image's lookup; hidden visibility (or an export list) would save {} trie probes",
                i.image,
                fig(i.weak_definitions),
                i.saved_probes_if_hidden
            )?;
        }
        if !p.problems.is_empty() {
            writeln!(out, "\n{} problems:", p.problems.len())?;
            for pr in &p.problems {
                writeln!(out, "  {pr}")?;
            }
        }
        if p.demangle_failures > 0 {
            writeln!(
                out,
                "{} names could not be demangled (shown raw)",
                p.demangle_failures
            )?;
        }
    }
    Ok(())
}

/// The JSON document of a process analysis.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ProcessJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// One per arch of the main executable.
    processes: &'a [Coalescing],
}

/// Renders the processes as pretty JSON (with a trailing newline).
pub fn json(out: &mut dyn Write, processes: &[Coalescing]) -> io::Result<()> {
    serde_json::to_writer_pretty(
        &mut *out,
        &ProcessJson {
            schema_version: crate::schema::SCHEMA_VERSION,
            command: "process",
            processes,
        },
    )
    .map_err(io::Error::from)?;
    out.write_all(b"\n")
}
