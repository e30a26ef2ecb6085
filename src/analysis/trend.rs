//! A series of builds (`weakscan trend FILE…`): each build's figures, the change from the build
//! before it, and the steps that changed most, with the groups (and libraries) behind them.
//!
//! ```text
//! builds   b1 … bn             in the order given, or by the version in their paths
//!                              (order_by_version)
//! series   one per arch every build has (binaries, processes); one of each build's main
//!          image when a log is among them (a binary then has one slice: --arch)
//! step i   b(i-1) → b(i), i = 2 … n: the change of every figure
//! |Δ|      |Δ lookups| of the step (predicted for a binary or a process, seen for a log;
//!          0 when either build cannot give its lookups)
//! largest  the step of the greatest |Δ| (ties: the earliest); none when no lookups changed
//! flagged  |Δ| > 0 and 4 × |Δ| ≥ |Δ| of the largest: the largest and every step at least
//!          25% of it
//! groups   for each flagged step, the groups (by --by) that moved most, ordered as diff
//!          orders them (|Δ lookups|, |Δ weak-bound symbols|, |Δ exports|, key;
//!          crate::analysis::diff::diff_groups), cut to --top; and the libraries (the
//!          `--by library` keys) that moved most when both builds are attributed
//! ```
//!
//! Each build is demangled and grouped once, however many steps it is part of: the names of
//! every build of the trend are demangled together, and each step compares the groups of its
//! two builds.

use super::demangle::{Demangled, NameStyle};
use super::diff::{GroupDelta, StatsDelta, diff_groups, percent_change};
use super::group::{Group, GroupBy, GroupStats, group_image};
use super::report::{ImageSummary, names_of};
pub use super::version::version_in;
use crate::analysis::attribute::OriginLevel;
use crate::error::{Error, ErrorKind, Result};
use crate::model::Image;
use serde::Serialize;
use std::cmp::Ordering;
use std::path::Path;

/// A flagged step moved at least `1 / FLAG_DIVISOR` of the largest step's |Δ lookups| (25%).
pub const FLAG_DIVISOR: u64 = 4;

/// One build of a trend as read: its images and what the analysis needs to know of it.
#[derive(Debug)]
pub struct Build {
    /// The input as given, escaped for printing.
    pub path: String,
    /// The version found in its path ([`version_in`]), if any.
    pub version: Option<String>,
    /// How every output names it ([`super::labels`]).
    pub label: String,
    /// Its images: the slices of a binary, the images of a log (the main executable first),
    /// or one merged image per arch of a whole process ([`crate::analysis::merge`]).
    pub images: Vec<Image>,
    /// Per image, the export-trie probes of its lookups (a whole process only; empty or
    /// `None` otherwise).
    pub trie_probes: Vec<Option<usize>>,
    /// The `input_kind` shown for its images when it is not the images' own (`process`).
    pub input_kind: Option<crate::model::InputKind>,
}

/// A build of the report: where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BuildInfo {
    /// The input as given.
    pub path: String,
    /// The version found in the path (`null` when it has none).
    pub version: Option<String>,
    /// How every output names the build: `--label`, else its version when every build has its
    /// own, else the shortest path suffix that tells the builds apart
    /// (`crate::analysis::labels`).
    pub label: String,
    /// `binary`, `object`, `log` or `process`.
    #[schemars(with = "String")]
    pub input_kind: crate::model::InputKind,
}

/// The figures of one build of a series; `None` (JSON `null`) where the input cannot give one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Figures {
    /// Weak-bound symbols, lookups (predicted for a binary or a process, seen for a log),
    /// weak-bind sites and weak-def exports.
    #[serde(flatten)]
    pub stats: GroupStats,
    /// Export-trie probes of the lookups (a whole process only; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trie_probes: Option<usize>,
}

/// The change of every figure between two builds (`new − old`; `None` unless both give it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FiguresDelta {
    /// The change of the four figures of [`Figures::stats`].
    #[serde(flatten)]
    pub stats: StatsDelta,
    /// The change of the trie probes (processes only; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trie_probes: Option<i64>,
}

impl FiguresDelta {
    /// `new − old`, figure by figure.
    pub fn between(old: &Figures, new: &Figures) -> Self {
        FiguresDelta {
            stats: StatsDelta::between(&old.stats, &new.stats),
            trie_probes: match (old.trie_probes, new.trie_probes) {
                (Some(a), Some(b)) => Some(b as i64 - a as i64),
                _ => None,
            },
        }
    }
}

/// One build in a series.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Point {
    /// Its position in [`TrendReport::builds`] (0-based).
    pub build: usize,
    /// The image followed (the slice, the log's image or the merged process).
    pub image: ImageSummary,
    /// Its figures.
    pub figures: Figures,
}

/// The change between two consecutive builds of a series.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Step {
    /// The older build (its position in [`TrendReport::builds`]).
    pub from: usize,
    /// The newer build (`from + 1`).
    pub to: usize,
    /// The change of every figure.
    pub change: FiguresDelta,
    /// The change of lookups in percent (`null` when the older build has none or either
    /// cannot give them).
    pub lookups_percent: Option<f64>,
    /// |Δ lookups| (0 when either build cannot give its lookups): what steps are ranked by.
    pub magnitude: u64,
    /// 1 for the largest step, 2 for the next, …; equal magnitudes keep the series' order.
    pub rank: usize,
    /// The step of the greatest magnitude (none when no lookups changed).
    pub largest: bool,
    /// The largest step or one at least 25% of it (see the module docs).
    pub flagged: bool,
    /// Groups (by the trend's grouping) whose figures changed.
    pub groups_changed: usize,
    /// A flagged step: the groups that moved most, cut to `--top` (empty otherwise).
    pub groups: Vec<GroupDelta>,
    /// Libraries (the `--by library` keys) whose figures changed, when both builds are
    /// attributed (a debug map, `null` otherwise, or when the trend is grouped by library).
    pub libraries_changed: Option<usize>,
    /// A flagged step with attribution on both sides: the libraries that moved most, cut to
    /// `--top` (`null` when there is no attribution; empty for a step not flagged).
    pub libraries: Option<Vec<GroupDelta>>,
}

/// The builds' images of one arch (or, with logs, of one image each), in order.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Series {
    /// The arch followed (`null` when a log is among the builds).
    pub arch: Option<String>,
    /// Every build's image, in the trend's order.
    pub points: Vec<Point>,
    /// `points.len() − 1` steps, in order.
    pub steps: Vec<Step>,
    /// Index in `steps` of the largest step (`null` when no lookups changed).
    pub largest_step: Option<usize>,
    /// The least |Δ lookups| a step needs to be flagged: ⌈largest / 4⌉ (`null` when no
    /// lookups changed).
    pub flag_threshold: Option<u64>,
}

impl Step {
    /// Lookups rose over the step (a regression of launch time).
    pub fn increased(&self) -> bool {
        self.change.stats.lookups.is_some_and(|d| d > 0)
    }
}

impl Series {
    /// The flagged steps in the order a report tells them: the increases first, then the
    /// decreases, each largest first (by [`Step::rank`]). A regression leads even when an
    /// improvement later in the series is larger.
    pub fn flagged_in_order(&self) -> Vec<&Step> {
        let mut v: Vec<&Step> = self.steps.iter().filter(|st| st.flagged).collect();
        v.sort_by_key(|st| (!st.increased(), st.rank));
        v
    }

    /// The step a report leads with: the largest flagged increase, else the largest step;
    /// `None` when no lookups changed.
    pub fn lead_step(&self) -> Option<&Step> {
        self.flagged_in_order().first().copied()
    }
}

/// An arch that only some builds have, left out of the trend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LeftOut {
    /// The arch.
    pub arch: String,
    /// The builds that have it (positions in [`TrendReport::builds`]).
    pub builds: Vec<usize>,
}

/// The order of the builds (`--sort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Sort {
    /// As given.
    #[value(help = "As given on the command line")]
    Input,
    /// By the version in each path ([`order_by_version`]).
    #[value(help = "By the version in each path")]
    Version,
}

/// `weakscan trend`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TrendReport {
    /// The grouping of the steps' groups.
    #[serde(skip)]
    #[schemars(skip)]
    pub group_by: GroupBy,
    /// How the builds were ordered.
    pub sort: Sort,
    /// Groups (and libraries) listed per flagged step.
    pub top: usize,
    /// The builds, in the trend's order.
    pub builds: Vec<BuildInfo>,
    /// One series per arch every build has (or one of the builds' main images with logs).
    pub series: Vec<Series>,
    /// Arches some builds have and others do not: not followed.
    pub arches_left_out: Vec<LeftOut>,
    /// `_Z` names that could not be demangled (shown raw).
    pub demangle_failures: usize,
    /// The same names by why: only the reasons that occurred; left out when none was kept raw.
    #[serde(skip_serializing_if = "crate::analysis::demangle::FailureReasons::is_empty")]
    pub demangle_failures_by_reason: crate::analysis::demangle::FailureReasons,
}

/// Compares two versions of [`version_in`] number by number (`22.9.1` < `22.12.0`; numbers of
/// any length, leading zeros ignored); a version that is a prefix of the other comes first
/// (`1.2` < `1.2.0`).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let number = |s: &str| -> (usize, String) {
        let t = s.trim_start_matches('0');
        (t.len(), t.to_string())
    };
    let (mut x, mut y) = (a.split('.'), b.split('.'));
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => match number(p).cmp(&number(q)) {
                Ordering::Equal => {}
                o => return o,
            },
        }
    }
}

/// The order of `paths` by the version in each ([`version_in`], [`compare_versions`]); equal
/// versions keep the given order. Returns the indices in order and each path's version.
///
/// Errors (usage): a path with no version, named.
pub fn order_by_version(paths: &[&Path]) -> Result<(Vec<usize>, Vec<String>)> {
    let versions = paths
        .iter()
        .map(|p| {
            version_in(p, paths).ok_or_else(|| {
                Error::new(
                    ErrorKind::Usage,
                    p,
                    "no version in the path (--sort version looks for N.N[.N…], e.g. 22.12.0)",
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut order: Vec<usize> = (0..paths.len()).collect();
    order.sort_by(|&a, &b| compare_versions(&versions[a], &versions[b]));
    Ok((order, versions))
}

/// Which image of each build a series follows: (series arch, per build the image index).
type Selection = (Option<String>, Vec<usize>);

/// The series of `builds` (see the module docs) and the arches left out.
///
/// Errors (usage): no arch common to every build; a build with several images of one arch; a
/// binary with several slices among logs.
fn select(builds: &[Build]) -> Result<(Vec<Selection>, Vec<LeftOut>)> {
    let arches = |b: &Build| -> String {
        b.images
            .iter()
            .map(Image::label)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for b in builds {
        if b.images.is_empty() {
            return Err(Error::usage(format!("{}: no image to follow", b.path)));
        }
    }
    if builds.iter().any(|b| b.images.iter().any(Image::is_log)) {
        // A log does not say its arch: each build's main image, one slice of a binary.
        for b in builds {
            if !b.images[0].is_log() && b.images.len() > 1 {
                return Err(Error::usage(format!(
                    "{}: {} slices ({}) in a trend with a log, which does not say its arch: pick one with --arch",
                    b.path,
                    b.images.len(),
                    arches(b)
                )));
            }
        }
        return Ok((vec![(None, vec![0; builds.len()])], Vec::new()));
    }
    for b in builds {
        for (i, im) in b.images.iter().enumerate() {
            if b.images[..i].iter().any(|o| o.arch == im.arch) {
                return Err(Error::usage(format!(
                    "{}: several images of arch {}: a trend follows one image per arch",
                    b.path,
                    im.label()
                )));
            }
        }
    }
    // Arches in the first build's order, then those the others add.
    let mut all: Vec<&str> = Vec::new();
    for b in builds {
        for im in &b.images {
            if !all.contains(&im.label()) {
                all.push(im.label());
            }
        }
    }
    let mut series = Vec::new();
    let mut left_out = Vec::new();
    for arch in all {
        let at: Vec<Option<usize>> = builds
            .iter()
            .map(|b| b.images.iter().position(|im| im.label() == arch))
            .collect();
        if at.iter().all(Option::is_some) {
            series.push((Some(arch.to_string()), at.into_iter().flatten().collect()));
        } else {
            left_out.push(LeftOut {
                arch: arch.to_string(),
                builds: at
                    .iter()
                    .enumerate()
                    .filter_map(|(i, a)| a.map(|_| i))
                    .collect(),
            });
        }
    }
    if series.is_empty() {
        let list = builds
            .iter()
            .map(|b| format!("{} has {}", b.path, arches(b)))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(Error::usage(format!(
            "no architecture common to every build ({list}): trend follows one arch through all of them"
        )));
    }
    Ok((series, left_out))
}

/// The groups of one image under the trend's grouping and, when it is attributed (and the
/// grouping is not by library already), by library.
struct Grouped {
    groups: Vec<Group>,
    libraries: Option<Vec<Group>>,
}

/// The changed groups of a step, the first `top` of them kept when `keep`.
fn moved(
    old: &[Group],
    new: &[Group],
    o: &Image,
    n: &Image,
    keep: Option<usize>,
) -> (usize, Vec<GroupDelta>) {
    let all = diff_groups(old, new, GroupStats::zero_for(o), GroupStats::zero_for(n));
    let changed = all.iter().filter(|g| !g.delta.is_zero()).count();
    let kept = match keep {
        Some(k) => all
            .into_iter()
            .filter(|g| !g.delta.is_zero())
            .take(k)
            .collect(),
        None => Vec::new(),
    };
    (changed, kept)
}

/// The steps ranked by `magnitudes` (|Δ lookups| of each step between consecutive builds),
/// largest first, the earlier first among equals.
pub fn rank_steps(magnitudes: &[u64]) -> Vec<usize> {
    let mut by_rank: Vec<usize> = (0..magnitudes.len()).collect();
    by_rank.sort_by(|&a, &b| magnitudes[b].cmp(&magnitudes[a]).then(a.cmp(&b)));
    by_rank
}

/// The largest step: the index (in `magnitudes`) of the greatest |Δ lookups|, the earliest on
/// ties; `None` when nothing changed. `weakscan trend` and `weakscan report` both mark it.
pub fn largest_step(magnitudes: &[u64]) -> Option<usize> {
    rank_steps(magnitudes)
        .first()
        .copied()
        .filter(|&s| magnitudes[s] > 0)
}

/// Builds the trend of `builds` (in the trend's order, at least two, ordered as `sort` says):
/// the series, each step's change and rank, and the groups behind the flagged steps, `top` of
/// each kind, names shown in `style`.
///
/// Errors (usage): fewer than two builds; no arch common to every build; a build with several
/// images of one arch; a binary with several slices among logs. And: the demangling threads
/// cannot be started.
pub fn trend(
    builds: &[Build],
    by: GroupBy,
    top: usize,
    sort: Sort,
    style: NameStyle,
) -> Result<TrendReport> {
    if builds.len() < 2 {
        return Err(Error::usage(
            "a trend needs at least two builds (one build: weakscan scan FILE)",
        ));
    }
    let (selections, arches_left_out) = select(builds)?;
    let followed: Vec<&Image> = selections
        .iter()
        .flat_map(|(_, at)| at.iter().enumerate().map(|(b, &i)| &builds[b].images[i]))
        .collect();
    let names: Demangled<'_> = names_of(followed.iter().copied(), by, style)?;
    let library = GroupBy::Origin(OriginLevel::Library);
    let mut series = Vec::new();
    for (arch, at) in &selections {
        let images: Vec<&Image> = at
            .iter()
            .enumerate()
            .map(|(b, &i)| &builds[b].images[i])
            .collect();
        let grouped: Vec<Grouped> = images
            .iter()
            .map(|im| Grouped {
                groups: group_image(im, &names, by),
                libraries: (by != library && im.attribution.is_some())
                    .then(|| group_image(im, &names, library)),
            })
            .collect();
        let points: Vec<Point> = images
            .iter()
            .enumerate()
            .map(|(b, im)| {
                let mut summary = ImageSummary::of(im);
                if let Some(kind) = builds[b].input_kind {
                    summary.input_kind = kind;
                }
                summary.trie_probes = builds[b].trie_probes.get(at[b]).copied().flatten();
                let figures = Figures {
                    stats: summary.stats(),
                    trie_probes: summary.trie_probes,
                };
                Point {
                    build: b,
                    image: summary,
                    figures,
                }
            })
            .collect();
        let changes: Vec<FiguresDelta> = points
            .windows(2)
            .map(|w| FiguresDelta::between(&w[0].figures, &w[1].figures))
            .collect();
        // Rank the steps by |Δ lookups|, the earlier first among equals.
        let magnitudes: Vec<u64> = changes
            .iter()
            .map(|c| c.stats.lookups.map_or(0, i64::unsigned_abs))
            .collect();
        let by_rank = rank_steps(&magnitudes);
        let largest_step = largest_step(&magnitudes);
        let max = largest_step.map_or(0, |s| magnitudes[s]);
        let flag_threshold = (max > 0).then(|| max.div_ceil(FLAG_DIVISOR));
        let mut steps = Vec::new();
        for s in 0..magnitudes.len() {
            let (o, n) = (images[s], images[s + 1]);
            let flagged = flag_threshold.is_some_and(|t| magnitudes[s] >= t);
            let keep = flagged.then_some(top);
            let (groups_changed, groups) =
                moved(&grouped[s].groups, &grouped[s + 1].groups, o, n, keep);
            let libs = match (&grouped[s].libraries, &grouped[s + 1].libraries) {
                (Some(a), Some(b)) => Some(moved(a, b, o, n, keep)),
                _ => None,
            };
            steps.push(Step {
                from: s,
                to: s + 1,
                change: changes[s],
                lookups_percent: percent_change(
                    points[s].figures.stats.lookups,
                    points[s + 1].figures.stats.lookups,
                )
                .map(|p| (p * 10.0).round() / 10.0),
                magnitude: magnitudes[s],
                rank: by_rank.iter().position(|&r| r == s).expect("ranked") + 1,
                largest: largest_step == Some(s),
                flagged,
                groups_changed,
                groups,
                libraries_changed: libs.as_ref().map(|l| l.0),
                libraries: libs.map(|l| l.1),
            });
        }
        series.push(Series {
            arch: arch.clone(),
            points,
            steps,
            largest_step,
            flag_threshold,
        });
    }
    Ok(TrendReport {
        group_by: by,
        sort,
        top,
        builds: builds
            .iter()
            .map(|b| BuildInfo {
                path: b.path.clone(),
                version: b.version.clone(),
                label: b.label.clone(),
                input_kind: b.input_kind.unwrap_or_else(|| {
                    b.images
                        .first()
                        .map_or(crate::model::InputKind::Binary, Image::input_kind)
                }),
            })
            .collect(),
        series,
        arches_left_out,
        demangle_failures: names.failures,
        demangle_failures_by_reason: names.reasons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_number_by_number() {
        assert_eq!(compare_versions("22.9.1", "22.12.0"), Ordering::Less);
        assert_eq!(compare_versions("22.12.0", "22.12.0"), Ordering::Equal);
        assert_eq!(compare_versions("24.0.0", "22.23.3"), Ordering::Greater);
        assert_eq!(compare_versions("1.2", "1.2.0"), Ordering::Less);
        assert_eq!(compare_versions("1.02", "1.2"), Ordering::Equal);
        assert_eq!(
            compare_versions("1.99999999999999999999999", "1.100000000000000000000000"),
            Ordering::Less
        );
    }

    #[test]
    fn order_by_version_is_stable_and_names_a_path_without_one() {
        let ps = [
            Path::new("b/22.12.0/node"),
            Path::new("b/20.0.0/node"),
            Path::new("c/22.12.0/node"),
            Path::new("b/22.9.0/node"),
        ];
        let (order, versions) = order_by_version(&ps).unwrap();
        assert_eq!(order, [1, 3, 0, 2]);
        assert_eq!(versions[3], "22.9.0");
        let e = order_by_version(&[Path::new("b/22.12.0/node"), Path::new("b/latest/node")])
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Usage);
        assert!(e.message.starts_with("b/latest/node: no version"), "{e}");
    }
}
