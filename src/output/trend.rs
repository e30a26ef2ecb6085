//! A series of builds (`weakscan trend`): per series (arch) one row per build with its figures
//! and the change from the build before, the largest step and the flagged ones marked, then per
//! flagged step, increases first ([`Series::flagged_in_order`]), the groups (and libraries) that
//! moved most; the headline leads with the largest flagged increase. Table, Markdown and JSON
//! (`command: "trend"`, `docs/json.md`, `docs/trend.md`).

use super::RenderOptions;
use super::markdown::code;
use super::table::grid::{Grid, figure, name, word};
use super::table::{cell, group_deltas};
use super::{change, fig};
use crate::analysis::diff::GroupDelta;
use crate::analysis::trend::{FLAG_DIVISOR, FiguresDelta, Series, Step, TrendReport};
use serde::Serialize;
use std::io::{self, Write};

/// The `command` of the JSON document.
pub const COMMAND: &str = crate::schema::TREND_COMMAND;

/// Marks the build a step leads to: the largest step.
const LARGEST: &str = "◀ largest";
/// Marks the build a step leads to: a flagged step.
const FLAGGED: &str = "◀ flagged";

/// How a text of an input is shown: as it is (tables) or as a Markdown code span.
type Show = fn(&str) -> String;

fn plain(s: &str) -> String {
    s.to_string()
}

/// How a build is named: its label ([`crate::analysis::labels`]), shown by `show`.
fn label(r: &TrendReport, b: usize, show: Show) -> String {
    show(&r.builds[b].label)
}

/// `22.12.0 → 22.14.0`, or `app-v1 → app-v2`.
fn step_name(r: &TrendReport, s: &Step, show: Show) -> String {
    format!("{} → {}", label(r, s.from, show), label(r, s.to, show))
}

/// Whether a series' table has a label column beside the paths: some build's label is not its
/// path's tail (a version, `--label`).
fn labelled(r: &TrendReport, s: &Series) -> bool {
    s.points.iter().any(|p| {
        let b = &r.builds[p.build];
        !crate::analysis::labels::is_tail_of(&b.label, &b.path)
    })
}

/// The change of lookups of a step: `-5071 (-74.3%)`.
fn step_change(s: &Step, series: &Series) -> String {
    change(
        series.points[s.from].figures.stats.lookups,
        series.points[s.to].figures.stats.lookups,
    )
}

/// `fig (+Δ)`: a figure and its change from the build before when that is known and not 0.
fn with_delta(v: Option<usize>, d: Option<i64>) -> String {
    match d {
        Some(d) if d != 0 => format!("{} ({d:+})", fig(v)),
        _ => fig(v),
    }
}

/// The arch of a series as shown (`x86_64`, or `main image` with logs).
fn arch(s: &Series) -> &str {
    s.arch.as_deref().unwrap_or("main image")
}

/// One line on the series: its builds and the step it leads with ([`Series::lead_step`]): a
/// flagged increase before a larger decrease, which follows in short.
fn headline(r: &TrendReport, s: &Series, show: Show) -> String {
    let n = s.points.len();
    match s.lead_step() {
        Some(st) => {
            let largest = s.largest_step.map(|i| &s.steps[i]);
            let (what, rest) = match largest {
                Some(l) if !st.largest => (
                    "largest increase",
                    format!(
                        "; largest step {}: {}",
                        step_name(r, l, show),
                        step_change(l, s)
                    ),
                ),
                _ => ("largest step", String::new()),
            };
            format!(
                "trend ({}): {n} builds; {what} {}: lookups {} → {}, {}{rest}",
                arch(s),
                step_name(r, st, show),
                fig(s.points[st.from].figures.stats.lookups),
                fig(s.points[st.to].figures.stats.lookups),
                step_change(st, s)
            )
        }
        None if s.steps.iter().all(|st| st.change.stats.lookups.is_some()) => format!(
            "trend ({}): {n} builds; lookups did not change from one to the next",
            arch(s)
        ),
        None => format!(
            "trend ({}): {n} builds; no step ranked: the lookups of some builds are not known",
            arch(s)
        ),
    }
}

/// What the lookups column counts, when the builds mix logs with binaries or processes.
fn lookups_note(s: &Series) -> Option<&'static str> {
    let logs = s.points.iter().filter(|p| p.image.log.is_some()).count();
    (logs > 0 && logs < s.points.len())
        .then_some("lookups: seen in the log for a log, predicted (dyld4, macOS 15) otherwise")
}

/// The rule, with the series' figures.
fn rule(s: &Series) -> Option<String> {
    let st = &s.steps[s.largest_step?];
    Some(format!(
        "{LARGEST}: the step from the build before changed lookups most ({:+}); {FLAGGED}: a step \
         of at least 1/{FLAG_DIVISOR} of it (|Δ lookups| ≥ {})",
        st.change.stats.lookups.unwrap_or(0),
        s.flag_threshold.unwrap_or(0)
    ))
}

/// What a flagged step is, in its heading: `largest, increase`, `flagged, decrease`.
fn step_kind(st: &Step) -> String {
    format!(
        "{}, {}",
        if st.largest { "largest" } else { "flagged" },
        if st.increased() {
            "increase"
        } else {
            "decrease"
        }
    )
}

/// The mark of build `b`'s row: [`LARGEST`], [`FLAGGED`] or nothing.
fn marker(s: &Series, b: usize) -> &'static str {
    match b.checked_sub(1).and_then(|i| s.steps.get(i)) {
        Some(st) if st.largest => LARGEST,
        Some(st) if st.flagged => FLAGGED,
        _ => "",
    }
}

/// "5 of 402 changed groups shown; --top N to change" after a list of moved groups (`what`:
/// the singular and the plural).
fn shown(what: (&str, &str), kept: usize, changed: usize) -> String {
    let noun = if changed == 1 { what.0 } else { what.1 };
    if kept < changed {
        format!("{kept} of {changed} changed {noun} shown; --top N to change")
    } else {
        format!("{changed} changed {noun}")
    }
}

const GROUPS: (&str, &str) = ("group", "groups");
const LIBRARIES: (&str, &str) = ("library", "libraries");

/// The change of lookups into a build: `+3661 (+115.8%)`, `0` when none.
fn lookups_change(s: &Series, b: usize) -> String {
    match b.checked_sub(1).map(|i| &s.steps[i]) {
        None => String::new(),
        Some(st) if st.change.stats.lookups == Some(0) => "0".into(),
        Some(st) => step_change(st, s),
    }
}

/// The builds of a series, one row each: its figures, their change from the build before and
/// the step's mark.
fn builds_table(r: &TrendReport, s: &Series, w: Option<u16>) -> Grid {
    let labels = labelled(r, s);
    let probes = s.points.iter().any(|p| p.figures.trie_probes.is_some());
    let mut columns = vec![figure("#"), name("build")];
    if labels {
        columns.push(word("label"));
    }
    columns.extend([
        figure("lookups"),
        figure("Δ lookups"),
        word("step"),
        figure("weak-bound symbols"),
        figure("weak-bind sites"),
        figure("weak-def exports"),
    ]);
    if probes {
        columns.push(figure("trie probes"));
    }
    let mut t = Grid::new(w, columns);
    for (b, p) in s.points.iter().enumerate() {
        let f = &p.figures;
        let d = b
            .checked_sub(1)
            .map_or_else(FiguresDelta::default, |i| s.steps[i].change);
        let mut row = vec![(b + 1).to_string(), cell(&r.builds[p.build].path)];
        if labels {
            row.push(cell(&r.builds[p.build].label));
        }
        row.extend([
            fig(f.stats.lookups),
            lookups_change(s, b),
            cell(marker(s, b)),
            with_delta(f.stats.weak_bound_symbols, d.stats.weak_bound_symbols),
            with_delta(f.stats.sites, d.stats.sites),
            with_delta(f.stats.weak_def_exports, d.stats.weak_def_exports),
        ]);
        if probes {
            row.push(with_delta(f.trie_probes, d.trie_probes));
        }
        t.row(row);
    }
    t
}

/// Renders the report as tables: per series the builds, then each flagged step's groups.
pub fn table_out(out: &mut dyn Write, r: &TrendReport, opts: &RenderOptions) -> io::Result<()> {
    super::table::wrap::lines(out, opts.width, |out| tables(out, r, opts.width))
}

/// The tables of [`table_out`].
fn tables(out: &mut dyn Write, r: &TrendReport, w: Option<u16>) -> io::Result<()> {
    for (k, s) in r.series.iter().enumerate() {
        if k > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", headline(r, s, plain))?;
        writeln!(out, "{}", builds_table(r, s, w))?;
        if let Some(note) = lookups_note(s) {
            writeln!(out, "{note}")?;
        }
        if let Some(rule) = rule(s) {
            writeln!(out, "{rule}")?;
        }
        for st in s.flagged_in_order() {
            writeln!(
                out,
                "\nstep {} ({}): lookups {} → {}, {}",
                step_name(r, st, plain),
                step_kind(st),
                fig(s.points[st.from].figures.stats.lookups),
                fig(s.points[st.to].figures.stats.lookups),
                step_change(st, s)
            )?;
            writeln!(out, "  from {}", r.builds[st.from].path)?;
            writeln!(out, "  to   {}", r.builds[st.to].path)?;
            groups_table(
                out,
                w,
                r.group_by.as_str(),
                &st.groups,
                &shown(GROUPS, st.groups.len(), st.groups_changed),
            )?;
            match (&st.libraries, st.libraries_changed) {
                (Some(libs), Some(changed)) => groups_table(
                    out,
                    w,
                    "library",
                    libs,
                    &shown(LIBRARIES, libs.len(), changed),
                )?,
                _ if r.group_by.as_str() == "library" => {}
                _ => writeln!(
                    out,
                    "libraries: not known (both builds need a debug map to attribute symbols)"
                )?,
            }
        }
    }
    left_out(out, r, false)?;
    if r.demangle_failures > 0 {
        writeln!(
            out,
            "note: {}",
            super::demangle_note(r.demangle_failures, &r.demangle_failures_by_reason)
        )?;
    }
    Ok(())
}

fn groups_table(
    out: &mut dyn Write,
    width: Option<u16>,
    key: &str,
    groups: &[GroupDelta],
    note: &str,
) -> io::Result<()> {
    if groups.is_empty() {
        return writeln!(out, "by {key}: no change");
    }
    let refs: Vec<&GroupDelta> = groups.iter().collect();
    writeln!(out, "{}", group_deltas(width, key, &refs))?;
    writeln!(out, "({note})")
}

/// The arches left out, one line each.
fn left_out(out: &mut dyn Write, r: &TrendReport, markdown: bool) -> io::Result<()> {
    for l in &r.arches_left_out {
        let show: Show = if markdown { code } else { plain };
        let builds: Vec<String> = l.builds.iter().map(|&b| label(r, b, show)).collect();
        // Markdown sections already end with a blank line.
        let (arch, gap) = if markdown {
            (code(&l.arch), "")
        } else {
            (l.arch.clone(), "\n")
        };
        writeln!(
            out,
            "{gap}{arch} is not in every build (only in {}): not followed",
            builds.join(", ")
        )?;
    }
    Ok(())
}

/// Renders the report as GitHub-flavoured Markdown (ends with a blank line).
pub fn markdown(out: &mut dyn Write, r: &TrendReport) -> io::Result<()> {
    for s in &r.series {
        // A build's label is text of an input (its path, or `--label`): a code span.
        writeln!(out, "## weakscan {}\n", headline(r, s, code))?;
        let labels = labelled(r, s);
        let probes = s.points.iter().any(|p| p.figures.trie_probes.is_some());
        let mut head = vec!["#", "build"];
        let mut align = vec!["---:", "---"];
        if labels {
            head.push("label");
            align.push("---");
        }
        head.extend([
            "lookups",
            "Δ lookups",
            "step",
            "weak-bound symbols",
            "weak-bind sites",
            "weak-def exports",
        ]);
        align.extend(["---:", "---:", "---", "---:", "---:", "---:"]);
        if probes {
            head.push("trie probes");
            align.push("---:");
        }
        writeln!(out, "| {} |\n|{}|", head.join(" | "), align.join("|"))?;
        for (b, p) in s.points.iter().enumerate() {
            let f = &p.figures;
            let d = b
                .checked_sub(1)
                .map_or_else(FiguresDelta::default, |i| s.steps[i].change);
            let mut row = vec![(b + 1).to_string(), code(&r.builds[p.build].path)];
            if labels {
                row.push(code(&r.builds[p.build].label));
            }
            row.extend([
                fig(f.stats.lookups),
                lookups_change(s, b),
                match marker(s, b) {
                    "" => String::new(),
                    m => format!("**{m}**"),
                },
                with_delta(f.stats.weak_bound_symbols, d.stats.weak_bound_symbols),
                with_delta(f.stats.sites, d.stats.sites),
                with_delta(f.stats.weak_def_exports, d.stats.weak_def_exports),
            ]);
            if probes {
                row.push(with_delta(f.trie_probes, d.trie_probes));
            }
            writeln!(out, "| {} |", row.join(" | "))?;
        }
        out.write_all(b"\n")?;
        if let Some(note) = lookups_note(s) {
            writeln!(out, "{note}\n")?;
        }
        if let Some(rule) = rule(s) {
            writeln!(out, "{rule}\n")?;
        }
        for st in s.flagged_in_order() {
            writeln!(
                out,
                "### Step {} ({}): lookups {} → {}, {}\n",
                step_name(r, st, code),
                step_kind(st),
                fig(s.points[st.from].figures.stats.lookups),
                fig(s.points[st.to].figures.stats.lookups),
                step_change(st, s)
            )?;
            writeln!(
                out,
                "{} → {}\n",
                code(&r.builds[st.from].path),
                code(&r.builds[st.to].path)
            )?;
            let lists = [
                Some((r.group_by.as_str(), &st.groups, st.groups_changed, GROUPS)),
                st.libraries
                    .as_ref()
                    .zip(st.libraries_changed)
                    .map(|(l, c)| ("library", l, c, LIBRARIES)),
            ];
            for (key, groups, changed, what) in lists.into_iter().flatten() {
                if groups.is_empty() {
                    writeln!(out, "By {key}: no change.\n")?;
                    continue;
                }
                let refs: Vec<&GroupDelta> = groups.iter().collect();
                super::markdown::group_deltas(out, key, &refs)?;
                writeln!(out, "\n{}.\n", shown(what, groups.len(), changed))?;
            }
        }
    }
    left_out(out, r, true)?;
    if !r.arches_left_out.is_empty() {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The JSON document of a trend.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct TrendJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    #[schemars(with = "crate::analysis::group::GroupByName")]
    group_by: &'static str,
    #[serde(flatten)]
    report: &'a TrendReport,
}

/// Renders the report as pretty JSON (with a trailing newline).
pub fn json(out: &mut dyn Write, r: &TrendReport) -> io::Result<()> {
    serde_json::to_writer_pretty(
        &mut *out,
        &TrendJson {
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
