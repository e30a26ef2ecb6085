//! A bisection (`weakscan bisect`): the headline (the step, or why there is none), the
//! criterion, the versions tested with their verdicts and figures, every step among the versions
//! read when there is not one, then the `diff` of the step. Table, Markdown and JSON
//! (`command: "bisect"`, `docs/json.md`, `docs/trend.md`).

use super::RenderOptions;
use super::markdown::code;
use super::table::grid::{Grid, figure, text, word};
use crate::analysis::bisect::{
    BisectReport, Budget, FoundStep, Outcome, Source, Tested, Verdict, figure_name, verdict_word,
};
use serde::Serialize;
use std::io::{self, Write};

/// The `command` of the JSON document.
pub const COMMAND: &str = crate::schema::BISECT_COMMAND;

/// How a text of an input is shown: as it is (tables) or as a Markdown code span.
type Show = fn(&str) -> String;

/// A text of an input in a table line: escaped (control and bidi characters, workflow
/// commands).
fn plain(s: &str) -> String {
    crate::text::escape(s).into_owned()
}

/// `good`, `BAD`, `skipped`: a bad verdict stands out.
fn verdict_cell(v: Option<Verdict>) -> String {
    match v {
        Some(Verdict::Bad) => "BAD".into(),
        Some(v) => verdict_word(v).into(),
        None => String::new(),
    }
}

fn source_word(s: Option<Source>) -> &'static str {
    match s {
        Some(Source::Fetched) => "fetched",
        Some(Source::Cache) => "cache",
        None => "",
    }
}

/// The versions tested, in list order.
fn tested(r: &BisectReport) -> impl Iterator<Item = (usize, &Tested)> {
    r.versions
        .iter()
        .enumerate()
        .filter(|(_, t)| t.verdict.is_some())
}

/// `9 versions: 5 tested (3 fetched, 2 from the cache), 1 skipped, 4 not tested`.
fn counts(r: &BisectReport) -> String {
    let n = r.versions.len();
    let tested = tested(r).count();
    format!(
        "{}: {tested} tested ({} fetched, {} from the cache), {} skipped, {} not tested",
        crate::text::count(n, "version", "versions"),
        r.fetches,
        r.from_cache,
        r.skipped(),
        n - tested
    )
}

/// `criterion: max predicted weak-def lookups ≤ 4000; group … ≤ 50` (a version is bad when one
/// is exceeded).
fn criterion(r: &BisectReport, show: Show) -> String {
    let budgets: Vec<String> = r.criterion.iter().map(|b| b.text_with(show)).collect();
    format!(
        "criterion: {} (a version is bad when one is exceeded; figures counted as check counts them, allowed symbols left out: dyld's operator new/delete by default)",
        budgets.join("; ")
    )
}

/// One line per step found among the versions read, when there is not exactly the one the
/// bisection reports.
fn steps(r: &BisectReport, show: Show) -> Vec<String> {
    if matches!(r.outcome, Outcome::Found { .. }) {
        return Vec::new();
    }
    r.steps
        .iter()
        .map(|s: &FoundStep| {
            let mut between = Vec::new();
            if s.untested > 0 {
                between.push(format!("{} not tested", s.untested));
            }
            if s.skipped > 0 {
                between.push(format!("{} skipped", s.skipped));
            }
            format!(
                "step {} → {}: {}{}",
                show(r.version(s.from)),
                show(r.version(s.to)),
                if s.regression {
                    "good → bad"
                } else {
                    "bad → good"
                },
                if between.is_empty() {
                    String::new()
                } else {
                    format!(" ({} between them)", between.join(", "))
                }
            )
        })
        .collect()
}

/// What to do about an outcome that is not one step.
fn advice(r: &BisectReport, show: Show) -> Option<String> {
    let last = r.versions.len() - 1;
    Some(match &r.outcome {
        Outcome::Found { .. } | Outcome::EndUnread => return None,
        Outcome::SkippedBetween { skipped, .. } => {
            let names: Vec<String> = skipped.iter().map(|&i| show(r.version(i))).collect();
            format!(
                "the first bad version is one of {} or the first bad read: get those builds (see the reasons above) or bisect again",
                names.join(", ")
            )
        }
        Outcome::EndsAgree { .. } => {
            "bisection finds a step from a good version to a bad one; a rise and a fall between the versions read would not show: run weakscan trend over the builds, or bisect from a good version to a bad one".into()
        }
        Outcome::NotMonotonic { middle } => format!(
            "bisection assumes one step: bisect {}…{} and {}…{} apart",
            show(r.version(0)),
            show(r.version(*middle)),
            show(r.version(*middle)),
            show(r.version(last))
        ),
        Outcome::Reversed => {
            "list the versions oldest first; an improvement is found by bisecting the list with the criterion turned around (e.g. --max-increase from the bad version)".into()
        }
    })
}

/// Renders the report as tables: the bisection, then the diff of the step.
pub fn table_out(out: &mut dyn Write, r: &BisectReport, opts: &RenderOptions) -> io::Result<()> {
    super::table::wrap::lines(out, opts.width, |out| {
        writeln!(out, "{}", r.headline(plain))?;
        writeln!(out, "{}", criterion(r, plain))?;
        writeln!(out, "{}", counts(r))?;
        writeln!(out, "{}", versions_table(r, opts.width))?;
        for (_, t) in tested(r) {
            if let Some(why) = &t.reason {
                writeln!(out, "skipped {}: {}", t.version, plain(why))?;
            }
        }
        for line in steps(r, plain) {
            writeln!(out, "{line}")?;
        }
        if let Some(a) = advice(r, plain) {
            writeln!(out, "{a}")?;
        }
        Ok(())
    })?;
    if let Some(d) = &r.diff {
        writeln!(
            out,
            "\nthe step {} → {} (weakscan diff):",
            d.labels.old, d.labels.new
        )?;
        super::table::diff(out, d, opts)?;
    }
    Ok(())
}

/// The versions tested: position, version, verdict, each budget's figure, the test's number
/// and where the build came from.
fn versions_table(r: &BisectReport, width: Option<u16>) -> Grid {
    let mut columns = vec![figure("#"), text("version"), word("verdict")];
    let heads: Vec<String> = r.criterion.iter().map(|b| figure_name(b, plain)).collect();
    columns.extend(heads.iter().map(|h| figure(h)));
    columns.extend([figure("test"), word("build")]);
    let mut g = Grid::new(width, columns);
    for (i, t) in tested(r) {
        let mut row = vec![
            (i + 1).to_string(),
            super::table::cell(&t.version),
            verdict_cell(t.verdict),
        ];
        row.extend(
            (0..r.criterion.len()).map(|k| t.values.get(k).map_or(String::new(), usize::to_string)),
        );
        row.push(t.order.map_or(String::new(), |o| o.to_string()));
        row.push(source_word(t.source).into());
        g.row(row);
    }
    g
}

/// Renders the report as GitHub-flavoured Markdown: the bisection, then the diff of the step
/// (`weakscan diff`'s Markdown).
pub fn markdown(out: &mut dyn Write, r: &BisectReport, opts: &RenderOptions) -> io::Result<()> {
    writeln!(out, "## weakscan {}\n", r.headline(code))?;
    writeln!(out, "{}; {}.\n", criterion(r, code), counts(r))?;
    let heads: Vec<String> = r.criterion.iter().map(|b| figure_name(b, code)).collect();
    writeln!(
        out,
        "| # | version | verdict | {} | test | build |",
        heads.join(" | ")
    )?;
    writeln!(
        out,
        "|---:|---|---|{}---:|---|",
        "---:|".repeat(heads.len())
    )?;
    for (i, t) in tested(r) {
        let values: Vec<String> = (0..r.criterion.len())
            .map(|k| t.values.get(k).map_or(String::new(), usize::to_string))
            .collect();
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            i + 1,
            code(&t.version),
            verdict_cell(t.verdict),
            values.join(" | "),
            t.order.map_or(String::new(), |o| o.to_string()),
            source_word(t.source)
        )?;
    }
    writeln!(out)?;
    for (_, t) in tested(r) {
        if let Some(why) = &t.reason {
            writeln!(out, "- skipped {}: {}", code(&t.version), code(why))?;
        }
    }
    for line in steps(r, code) {
        writeln!(out, "- {line}")?;
    }
    if let Some(a) = advice(r, code) {
        writeln!(out, "\n{a}")?;
    }
    writeln!(out)?;
    if let Some(d) = &r.diff {
        super::markdown::diff(out, d, opts)?;
    }
    Ok(())
}

/// A step among the versions read, by version.
#[derive(Serialize, schemars::JsonSchema)]
struct StepJson<'a> {
    /// The older version read.
    from: &'a str,
    /// The newer version read.
    to: &'a str,
    /// good → bad (`true`) or bad → good.
    regression: bool,
    /// Versions between them not tested.
    untested: usize,
    /// Versions between them skipped.
    skipped: usize,
}

/// `weakscan bisect --format json`.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct BisectJson<'a> {
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    /// The arch followed.
    arch: &'a str,
    /// The budgets a version is held to: bad when one is exceeded.
    criterion: &'a [Budget],
    /// `found` (the step: `last_good` and `first_bad` are next to each other),
    /// `skipped_between` (only skipped versions between them), `ends_agree`, `not_monotonic`
    /// (the ends agree, the middle version read does not) or `reversed` (the first version bad,
    /// the last good).
    outcome: &'static str,
    /// The last good version of the step (`null` without one).
    last_good: Option<&'a str>,
    /// The first bad version of the step (`null` without one).
    first_bad: Option<&'a str>,
    /// `skipped_between`: the versions between them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped_between: Vec<&'a str>,
    /// `ends_agree` and `not_monotonic`: the middle version read.
    #[serde(skip_serializing_if = "Option::is_none")]
    middle: Option<&'a str>,
    /// Every version of the list, in order, with its test (`verdict` `null`: not tested).
    versions: &'a [Tested],
    /// Every change of verdict among the versions read, in list order.
    steps: Vec<StepJson<'a>>,
    /// Fetch commands run.
    fetches: usize,
    /// Builds taken from the cache.
    from_cache: usize,
    /// The diff of the step (`weakscan diff LAST_GOOD FIRST_BAD --format json`); `null`
    /// without a step.
    diff: Option<super::json::DiffJson<'a>>,
}

/// Renders the report as pretty JSON (with a trailing newline).
pub fn json(out: &mut dyn Write, r: &BisectReport) -> io::Result<()> {
    let v = |i: usize| r.version(i);
    let (last_good, first_bad) = r
        .outcome
        .step()
        .map_or((None, None), |(a, b)| (Some(v(a)), Some(v(b))));
    let doc = BisectJson {
        schema_version: crate::schema::SCHEMA_VERSION,
        command: COMMAND,
        names_printed_by: crate::analysis::demangle::printer::printer(),
        arch: &r.arch,
        criterion: &r.criterion,
        outcome: r.outcome.name(),
        last_good,
        first_bad,
        skipped_between: match &r.outcome {
            Outcome::SkippedBetween { skipped, .. } => skipped.iter().map(|&i| v(i)).collect(),
            _ => Vec::new(),
        },
        middle: match &r.outcome {
            Outcome::EndsAgree { middle, .. } => middle.map(v),
            Outcome::NotMonotonic { middle } => Some(v(*middle)),
            _ => None,
        },
        versions: &r.versions,
        steps: r
            .steps
            .iter()
            .map(|s| StepJson {
                from: v(s.from),
                to: v(s.to),
                regression: s.regression,
                untested: s.untested,
                skipped: s.skipped,
            })
            .collect(),
        fetches: r.fetches,
        from_cache: r.from_cache,
        diff: r.diff.as_ref().map(super::json::diff_doc),
    };
    super::json::to_writer(out, &doc)
}
