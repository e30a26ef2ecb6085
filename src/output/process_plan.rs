//! The fix plan of a whole process ([`crate::analysis::process_fix_plan`]): the `fix:` block a
//! process report opens with, and the ranked table after its duplicates (table and Markdown).
//!
//! ```text
//! fix: compile Contents/Frameworks/libshared_a.dylib with -fvisibility=hidden: -95 trie probes (32%), -7 lookups, about 94–282 µs
//!      next: Contents/Frameworks/deps/libdeep.dylib -86, app.o in Contents/MacOS/App -28 (fix plan below)
//! ```

use super::story::{Quote, at_most, at_most_line, ms_range};
use super::table::cell;
use super::table::grid::{Grid, figure, name};
use crate::analysis::attribute::{NO_ATTRIBUTION, NO_DEBUG_INFO};
use crate::analysis::check::ImageCheck;
use crate::analysis::coalesce::Coalescing;
use crate::analysis::process_fix_plan::ProcessCandidate;
use crate::text::count;
use std::io::{self, Write};

/// Candidates the table shows when `--top` does not say.
pub const PLAN_ROWS: usize = 10;

/// Candidates after the first named in the fix block.
const NEXT: usize = 2;

/// What a candidate changes: `libfoo.a in Contents/MacOS/App`, or the image for one read
/// without its debug map.
pub fn target(c: &ProcessCandidate, q: Quote) -> String {
    match c.library.as_str() {
        NO_ATTRIBUTION => q(&c.image),
        NO_DEBUG_INFO => format!("the sources of {} its debug map does not name", q(&c.image)),
        library => format!("{} in {}", q(library), q(&c.image)),
    }
}

/// The `fix:` block of a process: its best candidate with what it saves, the names other
/// images would then bind elsewhere, and the next candidates (`more` says where the rest are).
/// Empty when no change saves a probe.
pub fn fix_block(p: &Coalescing, more: &str, q: Quote) -> Vec<String> {
    fix_lines(&p.fix_plan, p.trie_probes, more, q)
}

/// [`fix_block`] of a process's `plan` (best first) and its `probes`.
pub fn fix_lines(plan: &[ProcessCandidate], probes: usize, more: &str, q: Quote) -> Vec<String> {
    let mut best = plan.iter().filter(|c| c.hidden.trie_probes > 0);
    let Some(c) = best.next() else {
        return Vec::new();
    };
    let mut lines = vec![format!(
        "fix: compile {} with {}: {}-{} ({}%), -{}, about {}",
        target(c, q),
        q(c.flag.option()),
        at_most(&c.definers),
        count(c.hidden.trie_probes as usize, "trie probe", "trie probes"),
        c.hidden.trie_probes as usize * 100 / probes.max(1),
        count(c.hidden.lookups, "lookup", "lookups"),
        ms_range(c.hidden.estimated_ms)
    )];
    lines.extend(at_most_line(&c.definers, Some(&c.image), q));
    lines.extend(supplied_line(c));
    let next: Vec<String> = best
        .take(NEXT)
        .map(|c| format!("{} -{}", target(c, q), c.hidden.trie_probes))
        .collect();
    if !next.is_empty() {
        lines.push(format!("next: {} ({more})", next.join(", ")));
    }
    for l in lines.iter_mut().skip(1) {
        l.insert_str(0, "     ");
    }
    lines
}

/// The `fix:` block of a diff of two processes, from the new one's `plan` and `probes`: what
/// to change when the probes grew (`grew`), else what still leaks in the new version.
pub fn diff_fix(grew: bool, plan: &[ProcessCandidate], probes: usize, q: Quote) -> Vec<String> {
    let mut lines = fix_lines(plan, probes, "scan the new version for the whole plan", q);
    if let Some(first) = lines.first_mut().filter(|_| !grew) {
        *first = first.replacen("fix: ", "fix what remains: ", 1);
    }
    lines
}

/// The `fix:` block of one checked image: a failing process's from its plan
/// ([`fix_lines`]), else a binary's ([`super::story::check_fix`]).
pub fn check_fix(img: &ImageCheck, q: Quote) -> Vec<String> {
    match &img.process_fix_plan {
        Some((plan, probes)) => {
            let more = format!("{} lists the whole plan", q("weakscan scan"));
            fix_lines(plan, *probes, &more, q)
        }
        None => super::story::check_fix(img, q),
    }
}

/// What hiding takes from other images' lookups, if anything (the names are in `--format
/// json`'s `supplied_examples`).
fn supplied_line(c: &ProcessCandidate) -> Option<String> {
    if c.supplied_to_others == 0 {
        return None;
    }
    let nowhere = match c.defined_nowhere_else {
        0 => String::new(),
        n => format!(
            "; {n} of them no other image on disk defines: keep those exported (visibility(\"default\")) or the launch may stop"
        ),
    };
    Some(format!(
        "other images look up {} it defines: they would bind to the next definition{nowhere}",
        count(c.supplied_to_others, "name", "names"),
    ))
}

/// `6`, or `6 (3 nowhere else)`: the names other images' lookups would lose.
pub fn others(c: &ProcessCandidate) -> String {
    match c.defined_nowhere_else {
        0 => c.supplied_to_others.to_string(),
        n => format!("{} ({n} nowhere else)", c.supplied_to_others),
    }
}

/// The trie probes `-fvisibility-inlines-hidden` saves: `12`, or `3–12` (at least–at most)
/// when the names do not prove which of the candidate's definitions it hides.
pub fn inlines_range(c: &ProcessCandidate) -> String {
    let (lo, hi) = (
        c.inlines_hidden_at_least.trie_probes,
        c.inlines_hidden.trie_probes,
    );
    if lo == hi {
        hi.to_string()
    } else {
        format!("{lo}–{hi}")
    }
}

/// The plan's first `rows` candidates as a table (the flag is in the `fix:` block and the
/// Markdown; the terminal keeps the width for the figures).
pub(crate) fn table(p: &Coalescing, w: Option<u16>, rows: usize) -> Grid {
    let mut t = Grid::new(
        w,
        vec![
            name("fix plan: hide"),
            figure("trie probes saved"),
            figure("lookups saved"),
            figure("inlines-hidden saves"),
            figure("estimated time"),
            figure("others' lookups moved"),
        ],
    );
    for c in p.fix_plan.iter().take(rows) {
        t.row([
            cell(&target(c, super::story::plain)),
            c.hidden.trie_probes.to_string(),
            c.hidden.lookups.to_string(),
            inlines_range(c),
            ms_range(c.hidden.estimated_ms),
            others(c),
        ]);
    }
    t
}

/// The plan's first `rows` candidates as a Markdown table (ends with a blank line), with how
/// many more there are; `code` sets a name as a code span.
pub fn markdown(out: &mut dyn Write, p: &Coalescing, rows: usize, code: Quote) -> io::Result<()> {
    writeln!(
        out,
        "| fix plan: hide | flag | trie probes saved | lookups saved | `-fvisibility-inlines-hidden` saves | estimated time | others' lookups moved |\n|---|---|---:|---:|---:|---:|---:|"
    )?;
    for c in p.fix_plan.iter().take(rows) {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            target(c, code),
            code(c.flag.option()),
            c.hidden.trie_probes,
            c.hidden.lookups,
            inlines_range(c),
            ms_range(c.hidden.estimated_ms),
            others(c)
        )?;
    }
    let bounds = at_most_lines(&p.fix_plan, rows, code);
    if !bounds.is_empty() {
        writeln!(out, "\n{}", bounds.join("<br>\n"))?;
    }
    more(out, p, rows, code)?;
    writeln!(out)
}

/// Under the table of a plan's first `rows` candidates: for each image of them whose
/// definers were not all read, that its rows are at most and how to make them exact
/// ([`super::story::at_most_line`]).
pub fn at_most_lines(plan: &[ProcessCandidate], rows: usize, q: Quote) -> Vec<String> {
    let mut seen = Vec::new();
    let mut lines = Vec::new();
    for c in plan.iter().take(rows) {
        if !c.definers.exact && !seen.contains(&c.index) {
            seen.push(c.index);
            lines.extend(at_most_line(&c.definers, Some(&c.image), q));
        }
    }
    lines
}

/// `… 4 more candidates (--top; --format json lists them all)`, when the table left some out.
pub fn more(out: &mut dyn Write, p: &Coalescing, rows: usize, q: Quote) -> io::Result<()> {
    if p.fix_plan.len() > rows {
        writeln!(
            out,
            "… {} more ({}; {} lists them all)",
            count(p.fix_plan.len() - rows, "candidate", "candidates"),
            q("--top"),
            q("--format json")
        )?;
    }
    Ok(())
}
