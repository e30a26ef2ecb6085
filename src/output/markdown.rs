//! Markdown output of `weakscan check`, `scan` and `diff` (`--format markdown`): for a
//! pull-request comment or the GitHub job summary (`$GITHUB_STEP_SUMMARY`, where `markdown` and
//! `github` append it).

use crate::analysis::check::CheckReport;
use crate::analysis::report::{DiffReport, ScanReport};
use crate::output::{change, fig, signed, story};
use std::io::{self, Write};

/// Longest example shown, in characters.
const EXAMPLE_WIDTH: usize = 140;

/// `s` as inline code that is safe inside a table cell: fenced by one backtick more than the
/// longest run of backticks in `s` (CommonMark 6.1), so a name cannot close the span early and
/// inject links or markup (fuzz-audit finding).
pub(crate) fn code(s: &str) -> String {
    let s = s.replace('|', "\\|");
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    if longest == 0 {
        format!("`{s}`")
    } else {
        let fence = "`".repeat(longest + 1);
        format!("{fence} {s} {fence}")
    }
}

/// Plain text safe inside a table cell.
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Renders a check report as GitHub-flavoured Markdown (ends with a blank line, so several
/// reports appended to one summary stay apart).
pub fn check(out: &mut dyn Write, r: &CheckReport) -> io::Result<()> {
    let (mark, word) = if r.passed {
        ("✅", "passed")
    } else {
        ("❌", "failed")
    };
    writeln!(out, "## {mark} weakscan check {word}\n")?;
    let mut line = r.verdict();
    if let Some(p) = &r.policy {
        line += &format!("; policy {}", code(p));
    }
    if let Some(b) = &r.baseline {
        line += &format!("; baseline {}", code(b));
    }
    writeln!(out, "{line}.\n")?;
    for img in &r.images {
        writeln!(
            out,
            "### {} {} ({})\n",
            if img.passed { "✅" } else { "❌" },
            code(&img.path),
            img.arch
        )?;
        let with_base = img.figures.iter().any(|l| l.baseline.is_some());
        out.write_all("| figure | total | allowed | counted |".as_bytes())?;
        out.write_all(if with_base {
            " baseline (counted) |\n|---|---:|---:|---:|---:|\n".as_bytes()
        } else {
            "\n|---|---:|---:|---:|\n".as_bytes()
        })?;
        for l in &img.figures {
            write!(
                out,
                "| {} | {} | {} | {} |",
                l.figure, l.total, l.allowed, l.counted
            )?;
            if with_base {
                write!(
                    out,
                    " {} |",
                    l.baseline.map_or(String::new(), |b| b.to_string())
                )?;
            }
            out.write_all(b"\n")?;
        }
        if !img.budgets.is_empty() {
            out.write_all(
                "\n| budget | value | limit | result |\n|---|---:|---:|---|\n".as_bytes(),
            )?;
        }
        for x in &img.budgets {
            let title = match &x.pattern {
                Some(p) => format!("group {}", code(p)),
                None => x.title(),
            };
            writeln!(
                out,
                "| {title} | {} | {} | {} |",
                cell(&x.value_text()),
                cell(&x.limit_text()),
                if x.passed { "✅ pass" } else { "❌ **fail**" }
            )?;
        }
        out.write_all(b"\n")?;
        for x in img.failures() {
            writeln!(out, "- ❌ {}", x.message)?;
        }
        if img.failures().next().is_some() {
            out.write_all(b"\n")?;
        }
        if !img.offending_groups.is_empty() {
            writeln!(out, "**{}**\n", capitalize(&r.offenders_caption(img)))?;
            writeln!(
                out,
                "| {} | {} | examples |\n|---|---:|---|",
                r.group_by.as_str(),
                img.offender_figure
            )?;
            for o in &img.offending_groups {
                let examples: Vec<String> = o
                    .examples_within(EXAMPLE_WIDTH)
                    .iter()
                    .map(|e| code(e))
                    .collect();
                writeln!(
                    out,
                    "| {} | {} | {} |",
                    code(&o.key),
                    cell(&o.value_text()),
                    examples.join("<br>")
                )?;
            }
            out.write_all(b"\n")?;
        }
        for n in &img.notes {
            writeln!(out, "> note: {n}\n")?;
        }
    }
    if !r.importers.is_empty() {
        super::importers::write_checks(
            out,
            &r.importers,
            &r.importers_skipped,
            super::importers::Style::Markdown(&|s| code(s)),
        )?;
    }
    let fix = r.fix();
    if !fix.is_empty() {
        out.write_all("**How to fix**\n\n".as_bytes())?;
        for f in fix {
            writeln!(out, "- {}", with_code_flags(f))?;
        }
        out.write_all(b"\n")?;
    }
    raw_names_note(out, r.demangle_failures)?;
    Ok(())
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Puts compiler flags and commands of a fix line in code spans.
fn with_code_flags(s: &str) -> String {
    let mut out = s.to_string();
    for flag in [
        "-fvisibility=hidden",
        "-fvisibility-inlines-hidden",
        "-Wl,-exported_symbols_list,FILE",
        "weakscan baseline FILE -o BASELINE",
    ] {
        out = out.replace(flag, &format!("`{flag}`"));
    }
    out
}

/// The example column: the example unless it is the key itself, clipped.
fn example(key: &str, example: &str) -> String {
    if key == example {
        String::new()
    } else {
        code(&crate::output::clip_middle(example, EXAMPLE_WIDTH))
    }
}

/// The table of groups that changed between two builds (`diff`, and each flagged step of
/// `trend`), headed by `key` (the grouping's name): lookups old → new, their change, and where
/// the group comes from (its dominant object; a column only when some group has one).
pub(crate) fn group_deltas(
    out: &mut dyn Write,
    key: &str,
    groups: &[&crate::analysis::diff::GroupDelta],
) -> io::Result<()> {
    let from = groups.iter().any(|g| g.from.is_some());
    let (from_head, from_rule) = if from { (" from |", "---|") } else { ("", "") };
    writeln!(
        out,
        "| {} | lookups old → new | Δ lookups |{from_head}\n|---|---:|---:|{from_rule}",
        cell(key)
    )?;
    for g in groups {
        let from_cell = if from {
            format!(" {} |", from_text(g.from.as_ref()))
        } else {
            String::new()
        };
        writeln!(
            out,
            "| {} | {} → {} | {} |{from_cell}",
            code(&g.key),
            fig(g.old.lookups),
            fig(g.new.lookups),
            signed(g.delta.lookups),
        )?;
    }
    Ok(())
}

/// A group's dominant object as a code span, and how many more objects contribute.
fn from_text(from: Option<&crate::analysis::group::GroupFrom>) -> String {
    match from {
        Some(f) if f.objects == 1 => code(&f.object),
        Some(f) if f.objects > 1 => format!("{} +{} more", code(&f.object), f.objects - 1),
        _ => String::new(),
    }
}

/// Renders a diff report as GitHub-flavoured Markdown for a pull-request comment or the job
/// summary: a headline with the change in lookups and the group that moved most, then per pair of
/// images the figures and the groups that changed most (ends with a blank line).
pub fn diff(out: &mut dyn Write, r: &DiffReport) -> io::Result<()> {
    let (mut old, mut new) = (0usize, 0usize);
    for p in &r.pairs {
        old += p.old.stats().lookups.unwrap_or(0);
        new += p.new.stats().lookups.unwrap_or(0);
    }
    let top = r
        .pairs
        .iter()
        .flat_map(|p| p.groups.iter())
        .filter(|g| !g.delta.is_zero())
        .max_by_key(|g| g.delta.lookups.unwrap_or(0).unsigned_abs());
    let percent = crate::analysis::diff::percent_change(Some(old), Some(new))
        .map_or_else(|| "new".to_string(), |p| format!("{p:+.1}%"));
    let headline = match new.cmp(&old) {
        std::cmp::Ordering::Equal => format!("weak-def lookups unchanged ({old})"),
        std::cmp::Ordering::Greater => format!(
            "this change adds {} weak-def lookups ({old} → {new}, {percent})",
            new - old
        ),
        std::cmp::Ordering::Less => format!(
            "this change removes {} weak-def lookups ({old} → {new}, {percent})",
            old - new
        ),
    };
    writeln!(out, "## weakscan diff: {headline}\n")?;
    if let Some(g) = top {
        writeln!(
            out,
            "Largest change: {} {} lookups{}.\n",
            code(&g.key),
            signed(g.delta.lookups),
            g.from
                .as_ref()
                .filter(|f| f.objects > 0)
                .map(|f| format!(", from {}", code(&f.object)))
                .unwrap_or_default()
        )?;
    }
    for p in &r.pairs {
        let fix = story::diff_fix(p, Some(&p.fix_plan), code_span);
        if !fix.is_empty() {
            writeln!(out, "{}\n", fix_paragraph(&fix))?;
        }
    }
    for p in &r.pairs {
        writeln!(
            out,
            "### {} → {} ({})\n",
            code(&p.old.path),
            code(&p.new.path),
            cell(&p.label)
        )?;
        writeln!(out, "| figure | old | new | change |\n|---|---:|---:|---:|")?;
        for (name, a, b) in [
            (
                "weak-def exports",
                p.old.weak_def_exports,
                p.new.weak_def_exports,
            ),
            (
                "weak-bind sites",
                p.old.weak_bind_sites,
                p.new.weak_bind_sites,
            ),
            (
                "weak-bound symbols",
                p.old.weak_bind_symbols,
                p.new.weak_bind_symbols,
            ),
            (
                "weak-def lookups",
                p.old.stats().lookups,
                p.new.stats().lookups,
            ),
        ] {
            writeln!(
                out,
                "| {name} | {} | {} | {} |",
                fig(a),
                fig(b),
                change(a, b)
            )?;
        }
        out.write_all(b"\n")?;
        let changed: Vec<_> = p.groups.iter().filter(|g| !g.delta.is_zero()).collect();
        if p.groups_changed == 0 {
            writeln!(out, "No group changed.\n")?;
            continue;
        }
        group_deltas(out, r.group_by.as_str(), &changed)?;
        if changed.len() < p.groups_changed {
            writeln!(
                out,
                "\n{} of {} changed groups shown.",
                changed.len(),
                p.groups_changed
            )?;
        }
        out.write_all(b"\n")?;
    }
    for (side, list) in [("old", &r.only_old), ("new", &r.only_new)] {
        for s in list {
            writeln!(
                out,
                "Only in the {side} build: {} ({}).\n",
                code(&s.path),
                cell(s.arch.as_deref().unwrap_or(&s.image))
            )?;
        }
    }
    if !r.importers.is_empty() || !r.importers_skipped.is_empty() {
        super::importers::write_needs(
            out,
            &r.importers,
            &r.importers_skipped,
            super::importers::Style::Markdown(&|s| code(s)),
        )?;
    }
    Ok(())
}

/// Candidates the fix plan table shows at most.
const FIX_PLAN_ROWS: usize = 5;

/// The fix plan's `rows` candidates saving the most, as a table.
fn fix_plan(
    out: &mut dyn Write,
    plan: &crate::analysis::fix_plan::FixPlan,
    rows: usize,
) -> io::Result<()> {
    let saving = || plan.candidates.iter().filter(|c| c.hidden.lookups > 0);
    if saving().next().is_none() {
        return Ok(());
    }
    writeln!(
        out,
        "| fix plan: hide | lookups saved | weak-def exports | other exports | `-fvisibility-inlines-hidden` saves | estimated time |\n|---|---:|---:|---:|---:|---:|"
    )?;
    for c in saving().take(rows) {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            code(&c.library),
            c.hidden.lookups,
            c.hidden.weak_def_exports,
            c.other_exports,
            c.inlines_hidden.lookups,
            story::ms_range(c.hidden.estimated_ms)
        )?;
    }
    let breaks = story::imported_by(plan, code_span);
    if !breaks.is_empty() {
        writeln!(out, "\n{}", breaks.join("<br>\n"))?;
    }
    let all = saving().count();
    if all > rows {
        writeln!(out, "\n{rows} of {all} candidates shown.")?;
    }
    writeln!(
        out,
        "\n`-fvisibility-inlines-hidden` hides functions only (an upper bound); times are estimates.\n"
    )
}

/// `s` as a code span ([`code`]), as [`story`] quotes names.
fn code_span(s: &str) -> String {
    code(s)
}

/// A `fix:` block ([`story`]) as one paragraph: the first line bold-led, the rest as lines of it.
fn fix_paragraph(lines: &[String]) -> String {
    let mut text = String::new();
    for (i, l) in lines.iter().enumerate() {
        let l = l.trim_start();
        if i == 0 {
            text.push_str(&format!(
                "**Fix:** {}",
                l.strip_prefix("fix: ").unwrap_or(l)
            ));
        } else {
            text.push_str(&format!("<br>\n{l}"));
        }
    }
    text
}

/// Renders a scan report as GitHub-flavoured Markdown: per image the headline and the fix, its
/// figures, largest groups and fix plan (ends with a blank line).
pub fn scan(out: &mut dyn Write, r: &ScanReport<'_>) -> io::Result<()> {
    writeln!(out, "## weakscan scan\n")?;
    for img in &r.images {
        let s = &img.summary;
        writeln!(
            out,
            "### {} ({})\n",
            code(&s.path),
            cell(s.arch.as_deref().unwrap_or(&s.image))
        )?;
        let top = r.groups(img).next();
        let headline = story::scan_headline(s, top.as_ref(), code_span);
        writeln!(out, "**{}**\n", headline.join("; "))?;
        let fix = story::scan_fix(s, &img.fix_plan, img.visibility.as_ref(), code_span);
        if !fix.is_empty() {
            writeln!(out, "{}\n", fix_paragraph(&fix))?;
        }
        writeln!(out, "| figure | value |\n|---|---:|")?;
        for (name, v) in [
            ("weak-def exports", s.weak_def_exports),
            ("weak-bind sites", s.weak_bind_sites),
            ("weak-bound symbols", s.weak_bind_symbols),
            ("weak-def lookups", s.stats().lookups),
        ] {
            writeln!(out, "| {name} | {} |", fig(v))?;
        }
        out.write_all(b"\n")?;
        if img.groups.is_empty() {
            writeln!(
                out,
                "{}\n",
                if img.groups_total == 0 {
                    "No weak symbols."
                } else {
                    "No groups shown (--top 0)."
                }
            )?;
            continue;
        }
        writeln!(
            out,
            "| {} | weak-bound symbols | lookups | weak-def exports | example |\n|---|---:|---:|---:|---|",
            r.group_by.as_str()
        )?;
        for g in r.groups(img) {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                code(&g.key),
                fig(g.stats.weak_bound_symbols),
                fig(g.stats.lookups),
                fig(g.stats.weak_def_exports),
                example(&g.key, &g.example)
            )?;
        }
        if img.groups.len() < img.groups_total {
            writeln!(
                out,
                "\n{} of {} groups shown.",
                img.groups.len(),
                img.groups_total
            )?;
        }
        out.write_all(b"\n")?;
        fix_plan(out, &img.fix_plan, img.groups.len().clamp(1, FIX_PLAN_ROWS))?;
    }
    if !r.importers.is_empty() || !r.importers_skipped.is_empty() {
        super::importers::write_checks(
            out,
            &r.importers,
            &r.importers_skipped,
            super::importers::Style::Markdown(&|s| code(s)),
        )?;
    }
    raw_names_note(out, r.demangle_failures)?;
    Ok(())
}

/// The note on `failures` names shown raw (nothing when 0), as a Markdown quote.
pub(crate) fn raw_names_note(out: &mut dyn Write, failures: usize) -> io::Result<()> {
    if failures > 0 {
        writeln!(out, "> note: {}\n", super::demangle_note(failures))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::code;

    /// Fuzz-audit finding: a name with a run of two backticks closed a double-backtick span and
    /// let the rest render as a link.
    #[test]
    fn code_spans_cannot_be_closed_by_the_name() {
        assert_eq!(code("v8::A<int>"), "`v8::A<int>`");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(
            code("_a``[pwn](https://evil.example)``"),
            "``` _a``[pwn](https://evil.example)`` ```"
        );
        assert_eq!(code("x|y"), "`x\\|y`");
    }
}
