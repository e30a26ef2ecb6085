//! The top of the report: the headline and the `fix:` block (the lines `scan` and `diff`
//! print first, [`crate::output::story`]), the fix plan of the newest build, and in a trend the
//! largest increase and the largest decrease, each with the groups that changed most.

use super::{change, clip, from_text};
use crate::analysis::fix_plan::Candidate;
use crate::analysis::page::{GroupRow, Page, Step};
use html_escape::encode_text as text;
use std::io::{self, Write};

/// Characters of a step's example shown (the groups table has them whole).
const STEP_EXAMPLE: usize = 120;

/// Candidates the fix plan table shows at most.
const FIX_PLAN_ROWS: usize = 10;

/// `<section id="story">`: the headline, the fix, the fix plan and the general hints.
pub(super) fn story(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    writeln!(
        out,
        r#"<section id="story" aria-labelledby="headline"><div id="headline">"#
    )?;
    for (i, l) in page.headline.iter().enumerate() {
        if i == 0 {
            writeln!(out, r#"<h2 class="headline">{}</h2>"#, text(l))?;
        } else {
            writeln!(out, r#"<p class="headline">{}</p>"#, text(l))?;
        }
    }
    writeln!(out, "</div>")?;
    let known = page
        .totals
        .iter()
        .find(|(name, _)| name == "weak-def lookups")
        .is_some_and(|(_, v)| v.last().copied().flatten().is_some());
    fix_block(out, "fix", &page.fix, &page.fix_of, known)?;
    fix_plan(out, page)?;
    process_fix_plan(out, page)?;
    writeln!(
        out,
        "<details id=\"hints\"><summary>How to fix leaked weak symbols</summary><ul>"
    )?;
    for h in &page.hints {
        writeln!(out, "<li>{}</li>", text(h))?;
    }
    writeln!(out, "</ul></details></section>")
}

/// The `fix:` block's lines, each on its own line, the first one strong; or that nothing of
/// `of` needs a fix (`known`: `of` gives its lookups).
fn fix_block(
    out: &mut dyn Write,
    id: &str,
    lines: &[String],
    of: &str,
    known: bool,
) -> io::Result<()> {
    write!(out, r#"<div id="{id}" class="fix">"#)?;
    if lines.is_empty() {
        let of = text(&of).into_owned();
        if known {
            write!(
                out,
                "<p>Nothing to fix: no weak definition of {of} costs a lookup.</p>"
            )?;
        } else {
            write!(
                out,
                "<p>No fix to name: {of} does not give its weak-def lookups.</p>"
            )?;
        }
    }
    for (i, l) in lines.iter().enumerate() {
        let l = line(l.trim_start());
        if i == 0 {
            write!(out, "<p><strong>{l}</strong></p>")?;
        } else {
            write!(out, "<p>{l}</p>")?;
        }
    }
    writeln!(out, "</div>")
}

/// A line of text, escaped, its options (`-fvisibility=hidden`) kept on one line.
fn line(l: &str) -> String {
    l.split(' ')
        .map(|w| {
            if w.starts_with('-') && w.len() > 2 {
                format!(r#"<span class="nw">{}</span>"#, text(w))
            } else {
                text(w).into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The fix plan table: what hiding each library's weak definitions saves, best first.
fn fix_plan(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    let all: Vec<&Candidate> = page
        .fix_plan
        .candidates
        .iter()
        .filter(|c| c.hidden.lookups > 0)
        .collect();
    if all.is_empty() {
        return Ok(());
    }
    let shown = &all[..all.len().min(FIX_PLAN_ROWS)];
    writeln!(
        out,
        r#"<div class="scroll"><table id="fix-plan-table"><caption>Fix plan of {}: what hiding each library's weak definitions saves, best first ({} of {} candidates; {})</caption><thead><tr><th scope="col">hide</th><th scope="col">flag</th><th scope="col">lookups saved</th><th scope="col">weak-bound symbols</th><th scope="col">weak-def exports</th><th scope="col">with -fvisibility-inlines-hidden</th><th scope="col">estimated time</th><th scope="col">most lookups from</th></tr></thead><tbody>"#,
        text(&page.fix_of),
        shown.len(),
        all.len(),
        text(&crate::analysis::estimate::per_lookup_source())
    )?;
    for c in shown {
        let objects: Vec<String> = c
            .objects
            .iter()
            .filter(|o| o.lookups > 0)
            .map(|o| format!("{} {}", clip(member(&c.library, &o.object)), o.lookups))
            .collect();
        writeln!(
            out,
            r#"<tr><th scope="row">{}</th><td class="flag" data-label="flag">{}</td><td data-label="lookups saved">{}</td><td data-label="weak-bound symbols">{}</td><td data-label="weak-def exports">{}</td><td data-label="with -fvisibility-inlines-hidden">{}</td><td data-label="estimated time">{}</td><td class="t" data-label="most lookups from">{}</td></tr>"#,
            text(&clip(&c.library)),
            c.flag.option(),
            c.hidden.lookups,
            c.hidden.weak_bound_symbols,
            c.hidden.weak_def_exports,
            crate::output::story::inlines_range(c),
            crate::output::story::ms_range(c.hidden.estimated_ms),
            text(&objects.join(", "))
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    for c in shown {
        if let Some(line) = crate::output::story::weak_defines_line(c) {
            writeln!(out, "<p>{}: {}</p>", text(&clip(&c.library)), text(&line))?;
        }
    }
    let plain = crate::output::story::plain;
    for line in crate::output::story::definers_lines(&page.fix_plan, FIX_PLAN_ROWS, plain) {
        writeln!(out, "<p>{}</p>", text(&line))?;
    }
    Ok(())
}

/// The fix plan table of a whole process: what hiding each library of each image saves in
/// trie probes, best first.
fn process_fix_plan(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    let all = &page.process_fix_plan;
    if all.is_empty() {
        return Ok(());
    }
    let shown = &all[..all.len().min(FIX_PLAN_ROWS)];
    writeln!(
        out,
        r#"<div class="scroll"><table id="fix-plan-table"><caption>Fix plan of the process {}: what hiding each library's weak definitions saves across the process, best first ({} of {} candidates; trie probes replayed through dyld's lookups, times are estimates)</caption><thead><tr><th scope="col">hide</th><th scope="col">flag</th><th scope="col">trie probes saved</th><th scope="col">lookups saved</th><th scope="col">with -fvisibility-inlines-hidden</th><th scope="col">estimated time</th><th scope="col">other images' lookups moved</th></tr></thead><tbody>"#,
        text(&page.fix_of),
        shown.len(),
        all.len()
    )?;
    for c in shown {
        writeln!(
            out,
            r#"<tr><th scope="row">{}</th><td class="flag" data-label="flag">{}</td><td data-label="trie probes saved">{}</td><td data-label="lookups saved">{}</td><td data-label="with -fvisibility-inlines-hidden">{}</td><td data-label="estimated time">{}</td><td class="t" data-label="other images' lookups moved">{}</td></tr>"#,
            text(&clip(&crate::output::process_plan::target(
                c,
                crate::output::story::plain
            ))),
            c.flag.option(),
            c.hidden.trie_probes,
            c.hidden.lookups,
            crate::output::process_plan::inlines_range(c),
            crate::output::story::ms_range(c.hidden.estimated_ms),
            crate::output::process_plan::others(c)
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    let plain = crate::output::story::plain;
    for line in crate::output::process_plan::at_most_lines(all, FIX_PLAN_ROWS, plain) {
        writeln!(out, "<p>{}</p>", text(&line))?;
    }
    Ok(())
}

/// The member of `library(member)`, or the whole object key.
fn member<'o>(library: &str, object: &'o str) -> &'o str {
    object
        .strip_prefix(library)
        .and_then(|m| m.strip_prefix('('))
        .and_then(|m| m.strip_suffix(')'))
        .unwrap_or(object)
}

/// `<section id="steps">` of a trend: the largest increase and the largest decrease.
pub(super) fn steps(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    if page.steps.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        r#"<section id="steps" aria-labelledby="steps-h"><h2 id="steps-h">Largest increase and decrease</h2>"#
    )?;
    for s in &page.steps {
        step(out, page, s)?;
    }
    writeln!(out, "</section>")
}

fn step(out: &mut dyn Write, page: &Page, s: &Step) -> io::Result<()> {
    let (kind, id) = if s.increase {
        ("Largest increase", "increase")
    } else {
        ("Largest decrease", "decrease")
    };
    let (before, after) = (&page.builds[s.after - 1], &page.builds[s.after]);
    writeln!(
        out,
        r#"<article class="step {id}" id="step-{id}" aria-labelledby="step-{id}-h"><h3 id="step-{id}-h">{kind}: {} → {}</h3>"#,
        text(&before),
        text(&after)
    )?;
    for l in &s.headline {
        writeln!(out, r#"<p class="headline">{}</p>"#, text(l))?;
    }
    if !s.fix.is_empty() {
        fix_block(out, &format!("fix-{id}"), &s.fix, after, true)?;
    }
    step_groups(out, id, s)?;
    writeln!(out, "</article>")
}

/// The step's groups that changed most: template, from, lookups old → new and the change.
fn step_groups(out: &mut dyn Write, id: &str, s: &Step) -> io::Result<()> {
    let from = s.groups.iter().any(|g| g.from.is_some());
    write!(
        out,
        r#"<div class="scroll"><table id="step-{id}-table"><caption>{} of {} groups that changed, largest change of lookups first</caption><thead><tr><th scope="col">template</th>"#,
        s.groups.len(),
        s.groups_changed
    )?;
    if from {
        write!(out, r#"<th scope="col">from</th>"#)?;
    }
    writeln!(
        out,
        r#"<th scope="col">lookups old</th><th scope="col">lookups new</th><th scope="col">lookups Δ</th><th scope="col">example</th></tr></thead><tbody>"#
    )?;
    for g in &s.groups {
        step_row(out, g, from)?;
    }
    writeln!(out, "</tbody></table></div>")
}

fn step_row(out: &mut dyn Write, g: &GroupRow, from: bool) -> io::Result<()> {
    write!(out, r#"<tr><th scope="row">{}</th>"#, super::key_cell(g))?;
    if from {
        write!(
            out,
            r#"<td class="t">{}</td>"#,
            text(&from_text(g.from.as_ref()))
        )?;
    }
    writeln!(
        out,
        r#"<td>{}</td><td>{}</td><td>{}</td><td class="t">{}</td></tr>"#,
        g.old.lookups,
        g.new.lookups,
        change(g.old.lookups, g.new.lookups),
        text(&crate::output::comment::clip_name(
            &g.example.0,
            STEP_EXAMPLE
        ))
    )
}
