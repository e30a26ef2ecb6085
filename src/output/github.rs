//! GitHub Actions output (`--format github`; see "Workflow commands for GitHub Actions"). `check`:
//! one `::error` annotation per failing budget, one with the offending groups and the fix per
//! failing image, `::notice` for notes and the verdict. `scan` and `diff`: one `::notice` per
//! image or pair (`::warning` when a diff's lookups grew) with the figures and largest groups.
//! A process diff's annotations are with its other renderings ([`super::process_diff::github`]).

use crate::analysis::check::CheckReport;
use crate::analysis::report::{DiffReport, ScanReport};
use crate::output::{RenderOptions, fig, signed_count};
use std::io::{self, Write};

/// Escapes an annotation message (`%`, CR, LF).
fn message(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes an annotation property value (`%`, CR, LF, `:`, `,`).
fn property(s: &str) -> String {
    message(s).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow command: `::LEVEL title=TITLE::TEXT`, both escaped.
pub(crate) fn annotation(
    out: &mut dyn Write,
    level: &str,
    title: &str,
    text: &str,
) -> io::Result<()> {
    writeln!(
        out,
        "::{level} title={}::{}",
        property(title),
        message(text)
    )
}

/// At most this many problem annotations per report section; the rest are counted in one more.
pub(crate) const MAX_PROBLEMS: usize = 10;

/// One `::warning` per problem (the first [`MAX_PROBLEMS`]), then one with the number of the
/// others ("see the table output").
pub(crate) fn problems(out: &mut dyn Write, title: &str, texts: &[String]) -> io::Result<()> {
    for t in texts.iter().take(MAX_PROBLEMS) {
        annotation(out, "warning", title, t)?;
    }
    if texts.len() > MAX_PROBLEMS {
        annotation(
            out,
            "warning",
            title,
            &format!(
                "{} more (see the table output)",
                crate::text::count(texts.len() - MAX_PROBLEMS, "problem", "problems")
            ),
        )?;
    }
    Ok(())
}

/// Renders a check report as workflow commands, ending with the verdict as a plain line (and
/// the HTML report's URL, with `--report-url`).
pub fn check(out: &mut dyn Write, r: &CheckReport, opts: &RenderOptions) -> io::Result<()> {
    let fix = r.fix();
    for img in &r.images {
        let what = format!("{} ({})", img.path, img.arch);
        for x in img.failures() {
            annotation(
                out,
                "error",
                &format!("weakscan check: {}", x.title()),
                &format!("{what}: {}", x.message),
            )?;
        }
        if !img.passed {
            let mut text = format!("{what}: {}:", r.offenders_caption(img));
            for o in &img.offending_groups {
                text += &format!("\n  {}: {}", o.key, o.value_text());
                if let Some(f) = o.from.as_ref().filter(|f| f.objects > 0) {
                    text += &format!(", from {}", f.object);
                }
                for e in o.examples_within(200) {
                    text += &format!("\n    {e}");
                }
            }
            let plan = super::process_plan::check_fix(img, super::story::plain);
            text.push_str("\nHow to fix:");
            for l in &plan {
                text += &format!("\n  {}", l.trim_start());
            }
            for f in fix.iter().filter(|_| plan.is_empty()) {
                text += &format!("\n  - {f}");
            }
            annotation(
                out,
                "error",
                "weakscan check: offending groups and fix",
                &text,
            )?;
        }
        for n in &img.notes {
            annotation(
                out,
                "notice",
                "weakscan check: note",
                &format!("{what}: {n}"),
            )?;
        }
    }
    for c in r.importers.iter().filter(|c| !c.passed) {
        annotation(
            out,
            "error",
            "weakscan check: imports not exported",
            &super::importers::check_line(c, super::importers::plain),
        )?;
    }
    if let Some(l) = super::importers::skipped_line(&r.importers_skipped, super::importers::plain) {
        annotation(out, "notice", "weakscan check: importers", &l)?;
    }
    let level = if r.passed { "notice" } else { "error" };
    annotation(out, level, "weakscan check", &r.verdict())?;
    writeln!(out, "weakscan check {}{}", r.verdict(), report_text(opts))?;
    Ok(())
}

/// `; report: URL` with `--report-url`, else nothing.
fn report_text(opts: &RenderOptions) -> String {
    opts.report_url
        .as_deref()
        .map(|u| format!("; report: {}", crate::text::escape(u)))
        .unwrap_or_default()
}

/// Renders a diff report as workflow commands: per pair of images one `::notice` with the change
/// in lookups and the groups that moved most (`::warning` when lookups grew), then a plain line
/// saying what changed: the lookups old → new, the largest change with its object, the fix
/// (and the HTML report's URL, with `--report-url`).
pub fn diff(out: &mut dyn Write, r: &DiffReport, opts: &RenderOptions) -> io::Result<()> {
    for p in &r.pairs {
        let (o, n) = (p.old.stats().lookups, p.new.stats().lookups);
        let grew = matches!((o, n), (Some(o), Some(n)) if n > o);
        let mut text = format!(
            "{} → {} ({}): weak-def lookups {} → {}, weak-bound symbols {} → {}; {} changed",
            p.old.path,
            p.new.path,
            p.label,
            fig(o),
            fig(n),
            fig(p.old.weak_bind_symbols),
            fig(p.new.weak_bind_symbols),
            crate::text::count(p.groups_changed, "group", "groups")
        );
        for g in p.groups.iter().filter(|g| !g.delta.is_zero()).take(5) {
            text += &format!(
                "\n  {}: {}",
                g.key,
                signed_count(g.delta.lookups, "lookup", "lookups")
            );
            if let Some(f) = g.from.as_ref().filter(|f| f.objects > 0) {
                text += &format!(", from {}", f.object);
            }
        }
        if let Some(cause) = super::story::flags_cause(p, super::story::plain) {
            text += &format!("\n{cause}");
        }
        for l in super::story::diff_fix(p, Some(&p.fix_plan), super::story::plain) {
            text += &format!("\n{}", l.trim_start());
        }
        annotation(
            out,
            if grew { "warning" } else { "notice" },
            "weakscan diff",
            &text,
        )?;
    }
    for n in r.importers.iter().filter(|n| !n.removed.is_empty()) {
        let line = super::importers::needs_line(n, super::importers::plain);
        annotation(
            out,
            "warning",
            "weakscan diff: exports removed that importers still need",
            &line,
        )?;
    }
    writeln!(
        out,
        "weakscan diff: {}{}",
        crate::text::escape(&super::story::diff_summary(r)),
        report_text(opts)
    )?;
    Ok(())
}

/// Renders a scan report as workflow commands: one `::notice` per image with its figures and
/// largest groups, then a plain line.
pub fn scan(out: &mut dyn Write, r: &ScanReport<'_>) -> io::Result<()> {
    for img in &r.images {
        let s = &img.summary;
        let mut text = format!(
            "{} ({}): {} weak-def lookups, {} weak-bound symbols, {} weak-def exports",
            s.path,
            s.arch.as_deref().unwrap_or(&s.image),
            fig(s.stats().lookups),
            fig(s.weak_bind_symbols),
            fig(s.weak_def_exports)
        );
        for g in r.groups(img).take(5) {
            text += &format!("\n  {}: {} lookups", g.key, fig(g.stats.lookups));
        }
        annotation(out, "notice", "weakscan scan", &text)?;
    }
    for c in super::importers::shown(&r.importers).filter(|c| !c.passed) {
        let line = super::importers::check_line(c, super::importers::plain);
        annotation(out, "warning", "weakscan scan: imports not exported", &line)?;
    }
    writeln!(
        out,
        "weakscan scan: {}",
        crate::text::count(r.images.len(), "image", "images")
    )?;
    Ok(())
}
