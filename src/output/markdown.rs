//! Markdown output of `weakscan check`, `scan` and `diff` (`--format markdown`): for a
//! pull-request comment or the GitHub job summary (`$GITHUB_STEP_SUMMARY`, where `markdown` and
//! `github` append it).

use crate::analysis::check::{CheckReport, ImageCheck};
use crate::analysis::report::{DiffReport, PairReport, ScanReport};
use crate::output::{RenderOptions, change, fig, signed, story};
use std::borrow::Cow;
use std::io::{self, Write};

/// Longest example shown, in characters.
const EXAMPLE_WIDTH: usize = 140;

/// Text from an input as Markdown: the one rule every Markdown output (`scan`, `diff`, `check`,
/// `trend`, processes, importers, the fix, the job summary) follows for a text an input gave
/// (a symbol, an image's path, file or install name, a log's image name, a compile command's
/// text, a pattern, a problem that quotes any of them). The text becomes a code span, which
/// GitHub shows as it is: inside one no link, image, emphasis, HTML tag or comment, entity,
/// autolink or @mention is read.
///
/// * [`crate::text::escape`] first: no line break (a code span in a table cell cannot hold
///   one), control or bidi character, or workflow command reaches the span;
/// * each `|` becomes `\|`: GitHub splits a table row at every `|` no backslash escapes before
///   it reads any code span (GFM 4.10), and gives `\|` back as `|` inside a cell. Outside a
///   table the backslash shows (`operator\|`): one rule for every place a name goes;
/// * the fence is one backtick longer than the longest run of backticks in the text, so the
///   text cannot close the span early (CommonMark 6.1); it is set off by a space inside each
///   fence when the text holds a backtick or starts and ends with a space (one space each side
///   is taken off again);
/// * an empty text gives nothing: two backticks alone are no span and would pair with a later
///   run of two;
/// * a text over [`NAME_CHARS`](super::comment::NAME_CHARS) characters is clipped first
///   ([`super::comment::clip_name`], where names nest) and followed, outside the span, by
///   `(clipped from N characters)`: one long name cannot fill a comment.
///
/// Raw HTML (`<details><summary>`, `<br>`) holds only weakscan's own words: a text from an input
/// there would be HTML, not Markdown (`html_escape::encode_text`, as the HTML report does).
pub(crate) fn code(s: &str) -> String {
    let clipped = super::comment::clip_name(s, super::comment::NAME_CHARS);
    let mark = match clipped {
        Cow::Borrowed(_) => String::new(),
        Cow::Owned(_) => format!(" (clipped from {} characters)", s.chars().count()),
    };
    let s = crate::text::escape(&clipped).replace('|', "\\|");
    if s.is_empty() {
        return s;
    }
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let all_spaces = s.bytes().all(|b| b == b' ');
    if longest > 0 || (s.starts_with(' ') && s.ends_with(' ') && !all_spaces) {
        format!("{fence} {s} {fence}{mark}")
    } else {
        format!("{fence}{s}{fence}{mark}")
    }
}

/// `names` as a list of code spans ([`code`]): `` `a`, `b` ``.
pub(crate) fn code_list(names: &[impl AsRef<str>]) -> String {
    names
        .iter()
        .map(|n| code(n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An image's arch, or for a log (which has none) its image name as [`code`]: what `scan`
/// and `diff` set after an image's path.
fn arch_or_image(arch: Option<&str>, image: &str) -> String {
    arch.map_or_else(|| code(image), str::to_string)
}

/// What a pair of images has in common: its arch as it is, or (a log's) image name as [`code`].
fn pair_label(p: &PairReport) -> String {
    if p.new.arch.as_deref() == Some(p.label.as_str()) {
        p.label.clone()
    } else {
        code(&p.label)
    }
}

/// Renders a check report as GitHub-flavoured Markdown for a pull-request comment or the job
/// summary, the story first: the verdict, then per image what failed (each failing budget once,
/// no bullet list repeating the budget table), its most offending groups with their objects and
/// the fix; then the link to the HTML report (`--report-url`); then, folded, each image's
/// figures and budgets. Ends with a blank line.
pub fn check(out: &mut dyn Write, r: &CheckReport, opts: &RenderOptions) -> io::Result<()> {
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
    let mut general_fix = false;
    for img in &r.images {
        writeln!(
            out,
            "### {} {} ({})\n",
            if img.passed { "✅" } else { "❌" },
            code(&img.path),
            img.arch
        )?;
        let headline = story::check_headline(img, code);
        if let Some((first, rest)) = headline.split_first() {
            writeln!(out, "**{first}**\n")?;
            for l in rest {
                writeln!(out, "{}.\n", capitalize(l))?;
            }
        }
        offenders(out, r, img)?;
        let fix = super::process_plan::check_fix(img, code);
        if !fix.is_empty() {
            writeln!(out, "{}\n", fix_paragraph(&fix))?;
        } else if !img.passed {
            general_fix = true;
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
    if general_fix {
        out.write_all("**How to fix**\n\n".as_bytes())?;
        for f in &fix {
            writeln!(out, "- {}", with_code_flags(f))?;
        }
        out.write_all(b"\n")?;
    } else {
        // The plan's fix is given: of the general advice, only what it does not say.
        use crate::analysis::check::{ACCEPT, IMPORTS_FIX};
        for f in fix.iter().filter(|f| [ACCEPT, IMPORTS_FIX].contains(f)) {
            writeln!(out, "{}.\n", capitalize(&with_code_flags(f)))?;
        }
    }
    report_link(out, opts)?;
    writeln!(out, "<details><summary>Figures and budgets</summary>\n")?;
    for img in &r.images {
        if r.images.len() > 1 {
            writeln!(out, "#### {} ({})\n", code(&img.path), img.arch)?;
        }
        figures_and_budgets(out, img)?;
    }
    writeln!(out, "</details>\n")?;
    raw_names_note(out, r.demangle_failures, &r.demangle_failures_by_reason)?;
    Ok(())
}

/// Example characters of an offending group in the comment's table.
const OFFENDER_EXAMPLE_WIDTH: usize = 80;

/// A failing image's offending groups: key, figure, where they come from (when the image is
/// attributed) and one example.
fn offenders(out: &mut dyn Write, r: &CheckReport, img: &ImageCheck) -> io::Result<()> {
    if img.offending_groups.is_empty() {
        return Ok(());
    }
    let from = img.offending_groups.iter().any(|o| o.from.is_some());
    writeln!(
        out,
        "| {} | {} |{} example |\n|---|---:|{}---|",
        r.group_by.as_str(),
        img.offender_figure.label(),
        if from { " from |" } else { "" },
        if from { "---|" } else { "" }
    )?;
    for o in &img.offending_groups {
        let example = o
            .examples_within(OFFENDER_EXAMPLE_WIDTH)
            .first()
            .map(|e| code(e))
            .unwrap_or_default();
        let from_cell = from_column(from, o.from.as_ref());
        writeln!(
            out,
            "| {} | {} |{from_cell} {example} |",
            code(&o.key),
            o.value_text()
        )?;
    }
    writeln!(out, "\n_{}._\n", capitalize(&r.offenders_caption(img)))
}

/// An image's figures (total, allowed, counted, baseline) and every budget with its result.
fn figures_and_budgets(out: &mut dyn Write, img: &ImageCheck) -> io::Result<()> {
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
            l.figure.label(),
            l.total,
            l.allowed,
            l.counted
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
        out.write_all("\n| budget | value | limit | result |\n|---|---:|---:|---|\n".as_bytes())?;
    }
    for x in &img.budgets {
        let title = match (&x.pattern, x.policy_key()) {
            (Some(p), _) => format!("group {}", code(p)),
            (None, Some(key)) => format!("{} ({})", x.title(), code(&key)),
            (None, None) => x.title(),
        };
        writeln!(
            out,
            "| {title} | {} | {} | {} |",
            x.value_text(),
            x.limit_text(),
            if x.passed { "✅ pass" } else { "❌ **fail**" }
        )?;
    }
    out.write_all(b"\n")
}

/// The link to the HTML report, when `--report-url` gave one.
pub(crate) fn report_link(out: &mut dyn Write, opts: &RenderOptions) -> io::Result<()> {
    match &opts.report_url {
        Some(url) => writeln!(out, "📄 [The HTML report]({})\n", link_target(url)),
        None => Ok(()),
    }
}

/// A URL as a Markdown link destination: in angle brackets (CommonMark 6.3), so spaces and
/// parentheses cannot end it early; `<`, `>` and line breaks, which cannot appear there, are
/// percent-encoded.
fn link_target(url: &str) -> String {
    let mut s = String::with_capacity(url.len() + 2);
    s.push('<');
    for c in url.chars() {
        match c {
            '<' => s.push_str("%3C"),
            '>' => s.push_str("%3E"),
            '\n' => s.push_str("%0A"),
            '\r' => s.push_str("%0D"),
            c => s.push(c),
        }
    }
    s.push('>');
    s
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
        code(&super::comment::clip_name(example, EXAMPLE_WIDTH))
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
        key
    )?;
    for g in groups {
        let from_cell = from_column(from, g.from.as_ref());
        let renamed = g
            .rename_note()
            .map_or_else(String::new, |n| format!(" (renamed {})", code(&n)));
        writeln!(
            out,
            "| {}{renamed} | {} → {} | {} |{from_cell}",
            code(&g.key),
            fig(g.old.lookups),
            fig(g.new.lookups),
            signed(g.delta.lookups),
        )?;
    }
    Ok(())
}

/// The `from` cell of a row (` cell |`), or nothing when the table has no `from` column.
fn from_column(column: bool, from: Option<&crate::analysis::group::GroupFrom>) -> String {
    if column {
        format!(" {} |", from_text(from))
    } else {
        String::new()
    }
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
/// summary, the story first: a headline with the change in lookups; per pair of images the
/// group that moved most with its object, the groups that changed most with theirs, and the
/// fix; the link to the HTML report (`--report-url`); then, folded, each pair's figures. Ends
/// with a blank line.
pub fn diff(out: &mut dyn Write, r: &DiffReport, opts: &RenderOptions) -> io::Result<()> {
    let (mut old, mut new) = (0usize, 0usize);
    for p in &r.pairs {
        old += p.old.stats().lookups.unwrap_or(0);
        new += p.new.stats().lookups.unwrap_or(0);
    }
    let percent = crate::analysis::diff::percent_change(Some(old), Some(new))
        .map_or_else(|| "new".to_string(), |p| format!("{p:+.1}%"));
    let lookups = |n: usize| crate::text::count(n, "weak-def lookup", "weak-def lookups");
    let headline = match new.cmp(&old) {
        std::cmp::Ordering::Equal => format!("weak-def lookups unchanged ({old})"),
        std::cmp::Ordering::Greater => format!(
            "this change adds {} ({old} → {new}, {percent})",
            lookups(new - old)
        ),
        std::cmp::Ordering::Less => format!(
            "this change removes {} ({old} → {new}, {percent})",
            lookups(old - new)
        ),
    };
    writeln!(out, "## weakscan diff: {headline}\n")?;
    for p in &r.pairs {
        if r.pairs.len() > 1 {
            writeln!(out, "### {}: {}\n", pair_label(p), story::diff_lookups(p))?;
        }
        pair_story(out, r, p)?;
    }
    for (side, list) in [("old", &r.only_old), ("new", &r.only_new)] {
        for s in list {
            writeln!(
                out,
                "Only in the {side} build: {} ({}).\n",
                code(&s.path),
                arch_or_image(s.arch.as_deref(), &s.image)
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
    report_link(out, opts)?;
    writeln!(out, "<details><summary>Figures of each build</summary>\n")?;
    for p in &r.pairs {
        pair_figures(out, &r.labels, p)?;
    }
    writeln!(out, "</details>\n")?;
    raw_names_note(out, r.demangle_failures, &r.demangle_failures_by_reason)?;
    Ok(())
}

/// One pair's story: the group that moved most with its object, the change of compile options
/// that explains the growth (`--old-compile-commands`), the groups that changed most, and the
/// fix.
fn pair_story(out: &mut dyn Write, r: &DiffReport, p: &PairReport) -> io::Result<()> {
    let changed: Vec<_> = p.groups.iter().filter(|g| !g.delta.is_zero()).collect();
    if let Some(g) = changed.first() {
        writeln!(
            out,
            "Largest change: {} {}{}.\n",
            code(&g.key),
            crate::output::signed_count(g.delta.lookups, "lookup", "lookups"),
            g.from
                .as_ref()
                .filter(|f| f.objects > 0)
                .map(|f| format!(", from {}", code(&f.object)))
                .unwrap_or_default()
        )?;
    }
    if let Some(cause) = story::flags_cause(p, code) {
        let rest = cause.strip_prefix("cause: ").unwrap_or(&cause);
        writeln!(out, "**Cause:** {rest}.\n")?;
    }
    if p.groups_changed == 0 {
        writeln!(out, "No group changed.\n")?;
    } else if !changed.is_empty() {
        group_deltas(out, r.group_by.as_str(), &changed)?;
        if changed.len() < p.groups_changed {
            writeln!(
                out,
                "\n{} of {} shown.",
                changed.len(),
                crate::text::count(p.groups_changed, "changed group", "changed groups")
            )?;
        }
        out.write_all(b"\n")?;
    }
    if let Some(c) = &p.compiled_differently {
        compiled_differently(out, c)?;
    }
    let fix = story::diff_fix(p, Some(&p.fix_plan), code);
    if !fix.is_empty() {
        writeln!(out, "{}\n", fix_paragraph(&fix))?;
    }
    Ok(())
}

/// The section "compiled differently" (`--old-compile-commands`, `--new-compile-commands`):
/// per library, its objects whose visibility options changed and their cost in the new build.
fn compiled_differently(
    out: &mut dyn Write,
    c: &crate::analysis::compiled_differently::CompiledDifferently,
) -> io::Result<()> {
    if c.libraries.is_empty() {
        writeln!(
            out,
            "Compiled differently: no object's visibility options changed.\n"
        )?;
    } else {
        writeln!(
            out,
            "| compiled differently | lost hidden | gained hidden | other | weak-bound symbols | lookups | e.g. old → new |\n|---|---:|---:|---:|---:|---:|---|"
        )?;
        for l in &c.libraries {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {}: {} → {} |",
                code(&l.library),
                l.lost_hidden,
                l.gained_hidden,
                l.other,
                l.weak_bound_symbols,
                l.lookups,
                code(&l.first_object),
                code(&l.old_options),
                code(&l.new_options)
            )?;
        }
        out.write_all(b"\n")?;
    }
    if let Some(line) = story::not_compared(c) {
        writeln!(out, "{}.\n", capitalize(&line))?;
    }
    Ok(())
}

/// One pair's labels, paths (when they are not the labels) and figures, old and new.
fn pair_figures(
    out: &mut dyn Write,
    labels: &crate::analysis::report::BuildLabels,
    p: &PairReport,
) -> io::Result<()> {
    writeln!(
        out,
        "**{} → {} ({})**\n",
        code(&labels.old),
        code(&labels.new),
        pair_label(p)
    )?;
    if labels.old != p.old.path || labels.new != p.new.path {
        writeln!(out, "{} → {}\n", code(&p.old.path), code(&p.new.path))?;
    }
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
    out.write_all(b"\n")
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
            story::inlines_range(c),
            story::ms_range(c.hidden.estimated_ms)
        )?;
    }
    for c in saving().take(rows) {
        if let Some(line) = story::weak_defines_line(c) {
            writeln!(out, "\n{}: {line}", code(&c.library))?;
        }
    }
    let definers = story::definers_lines(plan, FIX_PLAN_ROWS, code);
    if !definers.is_empty() {
        writeln!(out, "\n{}", definers.join("<br>\n"))?;
    }
    let breaks = story::imported_by(plan, code);
    if !breaks.is_empty() {
        writeln!(out, "\n{}", breaks.join("<br>\n"))?;
    }
    let all = saving().count();
    if all > rows {
        writeln!(out, "\n{rows} of {all} candidates shown.")?;
    }
    writeln!(
        out,
        "\n`-fvisibility-inlines-hidden` saves, on Darwin, at least–at most (inline functions and their local statics; docs/fix-plan.md). T{}.\n",
        &crate::analysis::estimate::per_lookup_source()[1..]
    )
}

/// A `fix:` block ([`story`]) as one paragraph: the first line bold-led, the rest as lines of it.
pub(crate) fn fix_paragraph(lines: &[String]) -> String {
    let mut text = String::new();
    for (i, l) in lines.iter().enumerate() {
        let l = l.trim_start();
        if i == 0 {
            match l.strip_prefix("fix what remains: ") {
                Some(rest) => text.push_str(&format!("**Fix what remains:** {rest}")),
                None => text.push_str(&format!(
                    "**Fix:** {}",
                    l.strip_prefix("fix: ").unwrap_or(l)
                )),
            }
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
            arch_or_image(s.arch.as_deref(), &s.image)
        )?;
        let top = r.groups(img).next();
        let headline = story::scan_headline(s, top.as_ref(), code);
        writeln!(out, "**{}**\n", headline.join("; "))?;
        let fix = story::scan_fix(s, &img.fix_plan, img.visibility.as_ref(), code);
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
                "\n{} of {} shown.",
                img.groups.len(),
                crate::text::count(img.groups_total, "group", "groups")
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
    raw_names_note(out, r.demangle_failures, &r.demangle_failures_by_reason)?;
    Ok(())
}

/// The note on `failures` names shown raw (nothing when 0), as a Markdown quote.
pub(crate) fn raw_names_note(
    out: &mut dyn Write,
    failures: usize,
    reasons: &crate::analysis::demangle::FailureReasons,
) -> io::Result<()> {
    if failures > 0 {
        writeln!(out, "> note: {}\n", super::demangle_note(failures, reasons))?;
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
        assert_eq!(code("`a"), "`` `a ``");
        assert_eq!(code("x|y"), "`x\\|y`");
    }

    /// Nothing of the text leaves the span's line or its spaces, and an empty text opens no span.
    #[test]
    fn code_spans_hold_one_line_and_every_space() {
        assert_eq!(code("a\n# b\u{202e}"), "`a\\x0a# b\\u{202e}`");
        assert_eq!(code(" a "), "`  a  `");
        assert_eq!(code("  "), "`  `");
        assert_eq!(code(""), "");
        assert_eq!(code("::error::x"), "`\\x3a:error::x`");
    }
}
