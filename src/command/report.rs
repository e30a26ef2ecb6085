//! `weakscan report -o report.html FILE…`: one self-contained HTML report. One input: a scan
//! view; two: a diff view (old → new); more: a trend view (the figures across the builds, in
//! the order given) with the diff at the largest step (the largest change of weak-def lookups
//! between consecutive builds), and the largest increase and the largest decrease told on
//! their own. Every view leads with the headline and the fix `scan` and `diff` print
//! ([`crate::output::story`]) and the fix plan of the newest build.
//!
//! A directory or bundle (or any input, with `--process`) is read as its whole process, merged
//! into one image as `trend` and `check` read it ([`crate::analysis::merge`]), with its trie
//! probes.

use super::emit;
use crate::analysis::coalesce::Coalescing;
use crate::analysis::demangle::{Demangled, demangle_all};
use crate::analysis::fix_plan::FixPlan;
use crate::analysis::group::{GroupBy, GroupFrom};
use crate::analysis::labels::build_labels;
use crate::analysis::page::{Page, STEP_GROUPS, Series, Step, View, compare, totals_of};
use crate::analysis::report::{DiffOptions, ImageSummary, PairReport, diff_report_with};
use crate::analysis::report::{ScanReport, scan_report_with};
use crate::error::{Error, ErrorKind, Result};
use crate::input::{ReadOptions, read_input};
use crate::model::Image;
use crate::output::story;
use crate::output::{self, RenderOptions};
use crate::process::load::LoadOptions;
use std::collections::{BTreeSet, HashMap};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// What `weakscan report` was asked to do.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    /// The builds, oldest first.
    pub files: Vec<PathBuf>,
    /// How to read them (`--arch`, `--pid`, `--input-kind`).
    pub read: ReadOptions,
    /// `--output` (stdout when `None`; refused when stdout is a terminal).
    pub output: Option<PathBuf>,
    /// `--label`: the builds' names, one per file in the order of `files` (empty: from their
    /// paths, [`crate::analysis::labels`]).
    pub labels: Vec<String>,
    /// Read every build as a whole process (`--process`, or a directory or bundle given),
    /// loaded so; the error is a usage error of the command line (`--search` without a
    /// process), reported when the command runs.
    pub process: Result<Option<LoadOptions>>,
    /// `--objects`: where the newest build's objects are, whose definers its fix plan reads
    /// ([`crate::origin::definers`]).
    pub objects: Vec<PathBuf>,
}

/// One build as the report reads it: its one image, and a process's trie probes.
struct Build {
    image: Image,
    trie_probes: Option<usize>,
    /// A whole process, coalesced (with its fix plan when it is the newest build).
    process: Option<Coalescing>,
}

/// The one image of an input: errors when a universal file gives several slices (`--arch`).
fn one_image(path: &Path, read: &ReadOptions) -> Result<Image> {
    let mut images = read_input(path, read)?;
    match images.len() {
        0 => Err(Error::new(
            ErrorKind::Malformed,
            path,
            "no image in the input",
        )),
        1 => Ok(images.remove(0)),
        // A log's first image is its main executable.
        _ if images[0].is_log() => Ok(images.remove(0)),
        n => Err(several_slices(path, n, images.iter().map(Image::label))),
    }
}

fn several_slices<'a>(path: &Path, n: usize, arches: impl Iterator<Item = &'a str>) -> Error {
    Error::new(
        ErrorKind::Usage,
        path,
        format!(
            "{n} slices ({}): a report shows one, pick it with --arch",
            arches.collect::<Vec<_>>().join(", ")
        ),
    )
}

/// One build: a binary's one slice or a log's main executable, or a whole process (one arch)
/// merged into one image, with its trie probes.
fn read_build(
    path: &Path,
    req: &ReportRequest,
    load: Option<&LoadOptions>,
    opts: &RenderOptions,
) -> Result<Build> {
    // The newest build's fix plan is shown: its every definer is read, as scan reads them.
    let newest = req.files.last().is_some_and(|f| f == path);
    let Some(load) = load else {
        let mut image = one_image(path, &req.read)?;
        if newest {
            let objects = crate::origin::definers::ObjectFiles::find(&req.objects)?;
            crate::origin::definers::attach_definers(std::iter::once(&mut image), &objects)?;
        }
        return Ok(Build {
            image,
            trie_probes: None,
            process: None,
        });
    };
    let processes = if newest {
        super::process::load_planned(path, load, &req.objects)?
    } else {
        super::process::load_processes(path, load)?
    };
    let [p] = processes.as_slice() else {
        let arches = processes.iter().map(|p| p.arch.as_str());
        return Err(several_slices(path, processes.len(), arches));
    };
    let coalesced = crate::analysis::coalesce::coalesce_with(p, opts.names, newest)?;
    let mut image = crate::analysis::merge::merged(p).ok_or_else(|| {
        Error::new(
            ErrorKind::Malformed,
            path,
            "the main executable was not read",
        )
    })?;
    // Shown as the bundle or directory given, as `trend` shows a process.
    image.path = crate::text::escape_path(path);
    Ok(Build {
        image,
        trie_probes: Some(coalesced.trie_probes),
        process: Some(coalesced),
    })
}

/// The build after the largest step of `lookups` (one value per build; a step where either
/// side lacks the figure counts as no change), by [`crate::analysis::trend::largest_step`].
pub fn largest_step(lookups: &[Option<usize>]) -> Option<usize> {
    let magnitudes: Vec<u64> = lookups
        .windows(2)
        .map(|w| match (w[0], w[1]) {
            (Some(a), Some(b)) => a.abs_diff(b) as u64,
            _ => 0,
        })
        .collect();
    crate::analysis::trend::largest_step(&magnitudes).map(|s| s + 1)
}

/// The builds after the largest increase and after the largest decrease of `lookups` (the
/// earliest on ties; `None` where no step went that way; steps where either side lacks the
/// figure are not steps).
pub fn extreme_steps(lookups: &[Option<usize>]) -> (Option<usize>, Option<usize>) {
    let changes: Vec<(usize, i64)> = lookups
        .windows(2)
        .enumerate()
        .filter_map(|(i, w)| Some((i + 1, w[1]? as i64 - w[0]? as i64)))
        .collect();
    // `max_by_key` keeps the last of equals: reversed, the earliest.
    let pick = |sign: i64| {
        changes
            .iter()
            .rev()
            .filter(|&&(_, d)| d * sign > 0)
            .max_by_key(|&&(_, d)| d * sign)
            .map(|&(i, _)| i)
    };
    (pick(1), pick(-1))
}

/// Refuses to write HTML to a terminal: without `-o`, stdout must be a file or a pipe.
fn refuse_terminal(req: &ReportRequest) -> Result<()> {
    if req.output.is_none() && std::io::stdout().is_terminal() {
        return Err(Error::usage(
            "the report is HTML, not for a terminal: give -o FILE.html",
        ));
    }
    Ok(())
}

/// Runs `weakscan report`: exit 0. Errors (exit 2): no `-o` with stdout a terminal; an
/// unreadable or malformed input, a universal file (or process) without `--arch`, the output
/// cannot be written. Of `opts`, the page reads how names are shown (it fits no table to a
/// width).
pub fn run(req: &ReportRequest, opts: &RenderOptions) -> Result<u8> {
    refuse_terminal(req)?;
    let load = req.process.clone()?;
    super::one_stdin(&req.files.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    // The builds are independent: read at the same time, on the pool (a pool worker that
    // waited here for a thread of its own would wait for itself when the pool has one thread).
    let shown: Vec<String> = req
        .files
        .iter()
        .map(|f| crate::text::escape_path(f))
        .collect();
    let labels = build_labels(
        &shown.iter().map(String::as_str).collect::<Vec<_>>(),
        &req.labels,
    )?;
    let builds = crate::pool::map(&req.files, |f| read_build(f, req, load.as_ref(), opts))
        .into_iter()
        .collect::<Result<Vec<Build>>>()?;
    let probes: Vec<Option<usize>> = builds.iter().map(|b| b.trie_probes).collect();
    let newest = builds.last().and_then(|b| b.process.clone());
    let images: Vec<Image> = builds.into_iter().map(|b| b.image).collect();
    let mut page = match images.len() {
        1 => scan_page(&images, &labels, opts)?,
        2 => diff_page(&images, &labels, opts)?,
        _ => trend_page(&images, &labels, opts)?,
    };
    if probes.iter().any(Option::is_some) {
        add_probes(&mut page, &probes);
    }
    if let Some(p) = newest {
        process_fix(&mut page, p);
    }
    emit(req.output.as_ref(), |out| output::html::render(out, &page))?;
    Ok(0)
}

/// The `from` of each group of a scan or a diff, by key.
type Froms<'r> = HashMap<&'r str, &'r GroupFrom>;

fn lookup<'r>(froms: &'r Froms<'r>) -> impl Fn(&str) -> Option<GroupFrom> + 'r {
    move |k| froms.get(k).map(|f| (*f).clone())
}

/// One build: a scan's headline, fix and fix plan.
fn scan_page(images: &[Image], labels: &[String], opts: &RenderOptions) -> Result<Page> {
    let names = demangle_all(images[0].symbol_names(), opts.names)?;
    let report: ScanReport<'_> = scan_report_with(&images[..1], names, GroupBy::Template, None);
    let img = &report.images[0];
    let groups: Vec<_> = report.groups(img).collect();
    let froms: Froms<'_> = groups
        .iter()
        .filter_map(|g| Some((g.key.as_str(), g.from.as_ref()?)))
        .collect();
    let mut page = compare(
        None,
        &images[0],
        (&labels[0], &labels[0]),
        &report.names,
        &lookup(&froms),
    );
    page.headline = story::scan_headline(&img.summary, groups.first(), story::plain);
    page.fix = html_fix(story::scan_fix(
        &img.summary,
        &img.fix_plan,
        None,
        story::plain,
    ));
    page.fix_plan = img.fix_plan.clone();
    Ok(page)
}

/// The diff of `images[i - 1]` → `images[i]` by template, the `top` groups that changed most
/// kept (`None`: every group).
fn pair(
    images: &[Image],
    i: usize,
    top: Option<usize>,
    names: &Demangled<'_>,
    opts: &RenderOptions,
) -> Result<PairReport> {
    let (o, n) = (&images[i - 1], &images[i]);
    let arches = match (&o.arch, &n.arch) {
        (Some(a), Some(b)) if !o.is_log() && !n.is_log() => Some((a.as_str(), b.as_str())),
        _ => None,
    };
    let options = DiffOptions {
        by: GroupBy::Template,
        top,
        with_symbols: false,
        pair: arches,
        style: opts.names,
    };
    let mut report = diff_report_with(&images[i - 1..i], &images[i..=i], options, names)?;
    if report.pairs.is_empty() {
        return Err(Error::usage(format!(
            "{} and {}: nothing to compare",
            o.path, n.path
        )));
    }
    Ok(report.pairs.swap_remove(0))
}

/// The page of the step `images[i - 1]` → `images[i]` (its report `p`), groups with their
/// objects, the builds labelled `labels` (one per image).
fn step_page(
    images: &[Image],
    labels: &[String],
    i: usize,
    p: &PairReport,
    names: &Demangled<'_>,
) -> Page {
    let froms: Froms<'_> = p
        .groups
        .iter()
        .filter_map(|g| Some((g.key.as_str(), g.from.as_ref()?)))
        .collect();
    compare(
        Some(&images[i - 1]),
        &images[i],
        (&labels[i - 1], &labels[i]),
        names,
        &lookup(&froms),
    )
}

/// Two builds: the diff's headline and fix, and the new build's fix plan.
fn diff_page(images: &[Image], labels: &[String], opts: &RenderOptions) -> Result<Page> {
    let names = demangle_all(images.iter().flat_map(Image::symbol_names), opts.names)?;
    let p = pair(images, 1, None, &names, opts)?;
    let mut page = step_page(images, labels, 1, &p, &names);
    page.headline = story::diff_headline(&p, story::plain);
    page.fix = html_fix(story::diff_fix(&p, Some(&p.fix_plan), story::plain));
    page.fix_plan = p.fix_plan;
    Ok(page)
}

/// Three builds or more: the figures of all, the diff at the largest step, the largest
/// increase and decrease told on their own, and the fix of the newest build.
fn trend_page(images: &[Image], labels: &[String], opts: &RenderOptions) -> Result<Page> {
    let n = images.len();
    let lookups: Vec<Option<usize>> = images.iter().map(Image::weak_lookups).collect();
    let step = largest_step(&lookups).unwrap_or(n - 1);
    let (increase, decrease) = extreme_steps(&lookups);
    let steps: BTreeSet<usize> = [Some(step), increase, decrease]
        .into_iter()
        .flatten()
        .collect();
    // Only the builds shown are demangled (their names overlap: each distinct name once).
    let shown = steps.iter().flat_map(|&i| [i - 1, i]).chain([n - 1]);
    let shown: BTreeSet<usize> = shown.collect();
    let names = demangle_all(
        shown.iter().flat_map(|&i| images[i].symbol_names()),
        opts.names,
    )?;
    // Every group of the step the page compares (their objects); the other's that it lists.
    let pairs: HashMap<usize, PairReport> = steps
        .iter()
        .map(|&i| {
            let top = (i != step).then_some(STEP_GROUPS);
            Ok((i, pair(images, i, top, &names, opts)?))
        })
        .collect::<Result<_>>()?;
    let mut page = step_page(images, labels, step, &pairs[&step], &names);
    page.view = View::Trend;
    page.builds = labels.to_vec();
    page.title = format!(
        "{n} builds, {} → {}",
        build_label(&images[0]),
        build_label(&images[n - 1])
    );
    page.totals = trend_totals(images);
    page.series = Some(Series {
        lines: page
            .totals
            .iter()
            .filter(|(name, _)| name != "weak-bind sites")
            .cloned()
            .collect(),
        largest_step: Some(step).filter(|_| largest_step(&lookups).is_some()),
        increase,
        decrease,
    });
    page.steps = [increase, decrease]
        .into_iter()
        .flatten()
        .map(|i| {
            let p = &pairs[&i];
            let fix = if Some(i) == increase {
                html_fix(story::diff_fix(p, None, story::plain))
            } else {
                Vec::new()
            };
            Step::of(p, i, step_headline(labels, i, p), fix)
        })
        .collect();
    page.headline = trend_headline(images, &lookups, &page.steps);
    let newest = &images[n - 1];
    let plan = crate::analysis::fix_plan::fix_plan(newest, &names);
    page.fix = html_fix(story::scan_fix(
        &ImageSummary::of(newest),
        &plan,
        None,
        story::plain,
    ));
    page.fix_plan = plan;
    page.fix_of = labels[n - 1].clone();
    Ok(page)
}

/// Each figure of every build.
fn trend_totals(images: &[Image]) -> Vec<(String, Vec<Option<usize>>)> {
    let all: Vec<_> = images.iter().map(totals_of).collect();
    (0..all[0].len())
        .map(|k| {
            (
                all[0][k].0.to_string(),
                all.iter().map(|t| t[k].1).collect(),
            )
        })
        .collect()
}

/// `largest increase, 20.11.0 → 22.11.0: weak-def lookups 3161 → 6822 (…)`, the builds
/// named by their `labels`.
fn step_headline(labels: &[String], i: usize, p: &PairReport) -> Vec<String> {
    let up = p.new.stats().lookups > p.old.stats().lookups;
    let prefix = format!(
        "largest {}, {} → {}: ",
        if up { "increase" } else { "decrease" },
        labels[i - 1],
        labels[i]
    );
    story::diff_headline(p, story::plain)
        .into_iter()
        .map(|l| format!("{prefix}{l}"))
        .collect()
}

/// The series' first and last lookups, then each step's headline.
fn trend_headline(images: &[Image], lookups: &[Option<usize>], steps: &[Step]) -> Vec<String> {
    let n = images.len();
    let first = match (lookups[0], lookups[n - 1]) {
        (Some(a), Some(b)) => {
            let d = b as i64 - a as i64;
            let pct = crate::analysis::diff::percent_change(Some(a), Some(b))
                .map(|p| format!(", {p:+.0}%"))
                .unwrap_or_default();
            format!("weak-def lookups {a} → {b} across {n} builds ({d:+}{pct})")
        }
        _ => {
            let unknown = lookups.iter().filter(|l| l.is_none()).count();
            format!(
                "weak-def lookups: n/a in {unknown} of the {n} builds (their inputs do not give them)"
            )
        }
    };
    let mut lines = vec![first];
    lines.extend(steps.iter().flat_map(|s| s.headline.iter().cloned()));
    if steps.is_empty() && lookups.iter().all(Option::is_some) {
        lines.push("no step changed the weak-def lookups".into());
    }
    lines
}

/// The fix block as the page shows it: the fix plan is right below it, not below the groups.
fn html_fix(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| l.replace("(fix plan below the groups)", "(fix plan below)"))
        .collect()
}

/// The newest build is a whole process: its fix plan replaces the merged image's (which has
/// no attribution), and one build's fix is the process's.
fn process_fix(page: &mut Page, p: Coalescing) {
    if page.view == View::Scan {
        page.fix = html_fix(output::process_plan::fix_block(
            &p,
            "fix plan below",
            story::plain,
        ));
    }
    page.fix_plan = FixPlan::default();
    page.process_fix_plan = p.fix_plan;
}

/// A row of trie probes under the totals, for the builds the totals show.
fn add_probes(page: &mut Page, probes: &[Option<usize>]) {
    let shown: Vec<Option<usize>> = match page.view {
        View::Trend => probes.to_vec(),
        _ => probes[probes.len().saturating_sub(2)..].to_vec(),
    };
    page.totals.push(("trie probes".to_string(), shown));
}

fn build_label(i: &Image) -> String {
    match &i.arch {
        Some(a) => format!("{} ({a})", i.path),
        None => format!("{} ({})", i.path, i.name),
    }
}

#[cfg(test)]
mod tests {
    use super::{extreme_steps, largest_step};

    #[test]
    fn largest_step_is_the_biggest_change_first_on_ties() {
        assert_eq!(
            largest_step(&[Some(10), Some(12), Some(40), Some(41)]),
            Some(2)
        );
        assert_eq!(largest_step(&[Some(10), Some(20), Some(10)]), Some(1));
        assert_eq!(largest_step(&[Some(10), None, Some(50), Some(52)]), Some(3));
        assert_eq!(largest_step(&[Some(1)]), None);
        // Nothing changed: no step is the largest (the report then compares the last two).
        assert_eq!(largest_step(&[Some(5), Some(5), Some(5)]), None);
    }

    #[test]
    fn extreme_steps_are_the_largest_rise_and_fall_first_on_ties() {
        // Node 20.11.0, 22.11.0, 22.14.0, 24.11.1.
        let node = [Some(3161), Some(6822), Some(1754), Some(1886)];
        assert_eq!(extreme_steps(&node), (Some(1), Some(2)));
        assert_eq!(
            extreme_steps(&[Some(1), Some(5), Some(9), Some(5), Some(1)]),
            (Some(1), Some(3))
        );
        assert_eq!(extreme_steps(&[Some(3), Some(2), Some(1)]), (None, Some(1)));
        assert_eq!(extreme_steps(&[Some(1), Some(1)]), (None, None));
        // A step with an unknown side is no step.
        assert_eq!(
            extreme_steps(&[Some(1), None, Some(100), Some(90)]),
            (None, Some(3))
        );
        assert_eq!(extreme_steps(&[]), (None, None));
    }
}
