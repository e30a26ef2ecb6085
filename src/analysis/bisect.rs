//! Bisecting an ordered list of versions on a criterion (`weakscan bisect`): which version to
//! test next ([`Bisection`]), what the tests came to ([`Outcome`], [`steps_among`]), and the
//! report ([`BisectReport`]).
//!
//! ```text
//! versions  v0 … v(n-1), oldest first, each tested at most once
//! verdict   good (every budget holds), bad (one is exceeded), skipped (not fetched or read)
//! ends      v0, then v(n-1); both must be read
//!   good, bad   search: lo = 0, hi = n-1; test the median of the untested versions of
//!               (lo, hi) (of two, the older); good → lo, bad → hi, skipped → the median of
//!               the others; until no untested version is left in (lo, hi)
//!   bad, good   reversed: the list goes from bad to good (newest first, or an improvement)
//!   same        one version of the middle is tested (the median of the others while skipped): if it
//!               differs, the series has two steps at least (not monotonic), else the ends agree
//! ```
//!
//! Without skips the search tests at most ⌈log₂(n−1)⌉ versions between the ends, so a run
//! tests ⌈log₂ n⌉ + 2 versions at most; each skipped version costs one test more (and leaves
//! one place fewer for the step: ⌈log₂(n−2)⌉ + 3 with one). Bisection
//! assumes one step from good to bad along the list: with more, it finds one of them, and
//! [`steps_among`] reports every change of verdict among the versions it read.

use super::check::{Figure, Kind};
use super::report::DiffReport;
use serde::Serialize;

/// What a tested version came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every budget of the criterion holds.
    Good,
    /// A budget is exceeded.
    Bad,
    /// The build could not be fetched or read (as `git bisect skip`).
    Skipped,
}

/// Where the search is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Testing the ends.
    Ends,
    /// The ends differ, good then bad: narrowing (lo, hi).
    Search { lo: usize, hi: usize },
    /// The ends agree: one version of the middle is tested.
    Middle,
    /// Nothing is left to test.
    Done,
}

/// The search over `n` versions: [`Bisection::next`] names the version to test,
/// [`Bisection::record`] takes its verdict (see the module docs for the order).
#[derive(Debug, Clone)]
pub struct Bisection {
    verdicts: Vec<Option<Verdict>>,
    phase: Phase,
}

impl Bisection {
    /// A search over `n` versions (at least 2: the command refuses fewer).
    pub fn new(n: usize) -> Bisection {
        Bisection {
            verdicts: vec![None; n.max(2)],
            phase: Phase::Ends,
        }
    }

    /// The version (its position in the list) to test next; `None` when the search is over.
    pub fn next(&self) -> Option<usize> {
        let last = self.verdicts.len() - 1;
        match self.phase {
            Phase::Ends if self.verdicts[0].is_none() => Some(0),
            Phase::Ends => Some(last),
            Phase::Search { lo, hi } => self.nearest_middle(lo, hi),
            Phase::Middle => self.nearest_middle(0, last),
            Phase::Done => None,
        }
    }

    /// The untested version of (lo, hi) that splits the rest best: the median of the
    /// untested ones (the older of two), so that a skipped version, whose step cannot be told
    /// apart from the next one's, takes no share.
    fn nearest_middle(&self, lo: usize, hi: usize) -> Option<usize> {
        let untested: Vec<usize> = (lo + 1..hi)
            .filter(|&i| self.verdicts[i].is_none())
            .collect();
        // k untested versions leave k + 1 places for the step; testing the j-th (0-based)
        // leaves j + 1 on one side and k − j on the other.
        let k = untested.len();
        (k > 0).then(|| untested[k.div_ceil(2) - 1])
    }

    /// Records the verdict of version `i` (the one [`Bisection::next`] named). An end that is
    /// skipped ends the search (the command stops: both ends must be read).
    pub fn record(&mut self, i: usize, v: Verdict) {
        self.verdicts[i] = Some(v);
        let last = self.verdicts.len() - 1;
        self.phase = match self.phase {
            Phase::Ends if v == Verdict::Skipped => Phase::Done,
            Phase::Ends if i == 0 => Phase::Ends,
            Phase::Ends => match (self.verdicts[0], self.verdicts[last]) {
                (Some(Verdict::Good), Some(Verdict::Bad)) => Phase::Search { lo: 0, hi: last },
                (Some(a), Some(b)) if a == b => Phase::Middle,
                _ => Phase::Done,
            },
            Phase::Search { lo, hi } => match v {
                Verdict::Good => Phase::Search { lo: i, hi },
                Verdict::Bad => Phase::Search { lo, hi: i },
                Verdict::Skipped => Phase::Search { lo, hi },
            },
            Phase::Middle if v == Verdict::Skipped => Phase::Middle,
            Phase::Middle | Phase::Done => Phase::Done,
        };
        if self.phase != Phase::Done && self.next().is_none() {
            self.phase = match self.phase {
                Phase::Search { .. } => self.phase,
                _ => Phase::Done,
            };
        }
    }

    /// The versions still to choose among: untested ones between the last good and the first
    /// bad while searching, the untested middle ones while looking for a middle version; 0
    /// otherwise.
    pub fn left(&self) -> usize {
        let count =
            |lo: usize, hi: usize| (lo + 1..hi).filter(|&i| self.verdicts[i].is_none()).count();
        match self.phase {
            Phase::Search { lo, hi } => count(lo, hi),
            Phase::Ends => self.verdicts.len().saturating_sub(2),
            Phase::Middle | Phase::Done => 0,
        }
    }

    /// The bounds of the search, (last good, first bad), once the ends differ good then bad.
    pub fn bounds(&self) -> Option<(usize, usize)> {
        match self.phase {
            Phase::Search { lo, hi } => Some((lo, hi)),
            _ => None,
        }
    }

    /// The verdict of each version (`None`: not tested).
    pub fn verdicts(&self) -> &[Option<Verdict>] {
        &self.verdicts
    }

    /// What the tests came to, once [`Bisection::next`] is `None`.
    pub fn outcome(&self) -> Outcome {
        let last = self.verdicts.len() - 1;
        let skipped_between = |lo: usize, hi: usize| {
            (lo + 1..hi)
                .filter(|&i| self.verdicts[i] == Some(Verdict::Skipped))
                .collect::<Vec<_>>()
        };
        match (self.phase, self.verdicts[0], self.verdicts[last]) {
            (Phase::Search { lo, hi }, ..) => {
                let skipped = skipped_between(lo, hi);
                if skipped.is_empty() {
                    Outcome::Found {
                        last_good: lo,
                        first_bad: hi,
                    }
                } else {
                    Outcome::SkippedBetween {
                        last_good: lo,
                        first_bad: hi,
                        skipped,
                    }
                }
            }
            (_, Some(Verdict::Bad), Some(Verdict::Good)) => Outcome::Reversed,
            (_, Some(a), Some(b)) if a == b && a != Verdict::Skipped => {
                let middle = (1..last)
                    .find(|&i| matches!(self.verdicts[i], Some(Verdict::Good | Verdict::Bad)));
                match middle {
                    Some(m) if self.verdicts[m] != Some(a) => Outcome::NotMonotonic { middle: m },
                    _ => Outcome::EndsAgree { verdict: a, middle },
                }
            }
            _ => Outcome::EndUnread,
        }
    }
}

/// What a bisection came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The step: the last good version and the first bad one, next to each other in the list.
    Found {
        /// The last good version (its position in the list).
        last_good: usize,
        /// The first bad version, the next one.
        first_bad: usize,
    },
    /// The step is between the last good version and the first bad one, but the versions
    /// between them were skipped: any of them, or the first bad one, may be the first bad.
    SkippedBetween {
        /// The last good version read.
        last_good: usize,
        /// The first bad version read.
        first_bad: usize,
        /// The versions between them, all skipped.
        skipped: Vec<usize>,
    },
    /// Both ends are good, or both bad, and so is the middle version read (if any was): no
    /// step from good to bad shows (a rise and a fall between the versions read would not).
    EndsAgree {
        /// The ends' verdict.
        verdict: Verdict,
        /// The middle version read, if one could be.
        middle: Option<usize>,
    },
    /// The ends agree and the middle version read does not: two steps at least, which a
    /// bisection, assuming one, cannot tell apart.
    NotMonotonic {
        /// The middle version read.
        middle: usize,
    },
    /// The first version is bad and the last one good: the list is not ordered by the
    /// criterion (newest first, or an improvement).
    Reversed,
    /// An end could not be read (the command stops before a report).
    EndUnread,
}

impl Outcome {
    /// The JSON name: `found`, `skipped_between`, `ends_agree`, `not_monotonic`, `reversed`.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Found { .. } => "found",
            Outcome::SkippedBetween { .. } => "skipped_between",
            Outcome::EndsAgree { .. } => "ends_agree",
            Outcome::NotMonotonic { .. } => "not_monotonic",
            Outcome::Reversed => "reversed",
            Outcome::EndUnread => "end_unread",
        }
    }

    /// Exit code: 0 when the step was found, 1 otherwise (the report says why).
    pub fn exit_code(&self) -> u8 {
        match self {
            Outcome::Found { .. } => 0,
            _ => 1,
        }
    }

    /// The step the diff is of: (last good, first bad), when one was found.
    pub fn step(&self) -> Option<(usize, usize)> {
        match self {
            Outcome::Found {
                last_good,
                first_bad,
            }
            | Outcome::SkippedBetween {
                last_good,
                first_bad,
                ..
            } => Some((*last_good, *first_bad)),
            _ => None,
        }
    }
}

/// A change of verdict between two versions read one after the other in the list (the ones
/// between them not read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FoundStep {
    /// The older version read (its position in the list).
    pub from: usize,
    /// The newer version read.
    pub to: usize,
    /// `good → bad` (a regression) or `bad → good`.
    pub regression: bool,
    /// Versions between them that were not tested.
    pub untested: usize,
    /// Versions between them that were skipped.
    pub skipped: usize,
}

/// Every change of verdict among the versions read, in list order.
pub fn steps_among(verdicts: &[Option<Verdict>]) -> Vec<FoundStep> {
    let read: Vec<(usize, Verdict)> = verdicts
        .iter()
        .enumerate()
        .filter_map(|(i, v)| match v {
            Some(v @ (Verdict::Good | Verdict::Bad)) => Some((i, *v)),
            _ => None,
        })
        .collect();
    read.windows(2)
        .filter(|w| w[0].1 != w[1].1)
        .map(|w| {
            let between = &verdicts[w[0].0 + 1..w[1].0];
            FoundStep {
                from: w[0].0,
                to: w[1].0,
                regression: w[1].1 == Verdict::Bad,
                untested: between.iter().filter(|v| v.is_none()).count(),
                skipped: between.iter().filter(|v| v.is_some()).count(),
            }
        })
        .collect()
}

/// One budget of the criterion, as `check` states it ([`super::check::Finding`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Budget {
    /// `max`, `increase` or `group`.
    pub kind: Kind,
    /// The figure limited.
    pub figure: Figure,
    /// For a group budget: the glob or `re:` regex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// For an increase: the allowance as given (`+10%`, `+50`), over the first version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_increase: Option<String>,
    /// The largest value that is good (for an increase: the first version's figure plus the
    /// allowance).
    pub limit: u64,
    /// In words: `max predicted weak-def lookups ≤ 4000`.
    pub text: String,
}

impl Budget {
    /// [`Budget::text`] with the group pattern, the one text of a budget an input gives,
    /// shown by `show` (a Markdown code span, or escaped for a terminal).
    pub fn text_with(&self, show: impl Fn(&str) -> String) -> String {
        let limit = match &self.max_increase {
            Some(i) => format!("{i} (≤ {})", self.limit),
            None => format!("≤ {}", self.limit),
        };
        match (&self.kind, &self.pattern) {
            (Kind::Group, Some(p)) => {
                format!("group {} ({}) {limit}", show(p), self.figure.label())
            }
            (Kind::Increase, _) => format!(
                "increase {} over the first version {limit}",
                self.figure.label()
            ),
            _ => format!("max {} {limit}", self.figure.label()),
        }
    }
}

/// Where a tested build came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The fetch command ran for it.
    Fetched,
    /// It was in the cache (`--cache`): no fetch.
    Cache,
}

/// One version of the list and what its test came to.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Tested {
    /// The version as listed.
    pub version: String,
    /// The verdict (`null`: not tested).
    pub verdict: Option<Verdict>,
    /// The n-th test of the run (1-based; `null`: not tested).
    pub order: Option<usize>,
    /// Fetched or from the cache (`null`: not tested, or skipped before a build was had).
    pub source: Option<Source>,
    /// The build read (`null`: none).
    pub path: Option<String>,
    /// Each budget's counted figure, in the order of [`BisectReport::criterion`] (empty: not
    /// read).
    pub values: Vec<usize>,
    /// Why it was skipped (one line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `weakscan bisect`.
#[derive(Debug, Clone)]
pub struct BisectReport {
    /// The arch followed.
    pub arch: String,
    /// The budgets a version is held to (good when every one holds).
    pub criterion: Vec<Budget>,
    /// Every version of the list, in order.
    pub versions: Vec<Tested>,
    /// What the tests came to.
    pub outcome: Outcome,
    /// Every change of verdict among the versions read ([`steps_among`]).
    pub steps: Vec<FoundStep>,
    /// Fetch commands run.
    pub fetches: usize,
    /// Builds taken from the cache.
    pub from_cache: usize,
    /// The diff of the step (last good → first bad), when one was found.
    pub diff: Option<DiffReport>,
}

impl BisectReport {
    /// The versions read (good or bad).
    pub fn read(&self) -> usize {
        self.versions
            .iter()
            .filter(|t| matches!(t.verdict, Some(Verdict::Good | Verdict::Bad)))
            .count()
    }

    /// The versions skipped.
    pub fn skipped(&self) -> usize {
        self.versions
            .iter()
            .filter(|t| t.verdict == Some(Verdict::Skipped))
            .count()
    }

    /// `22.11.0`: the version at position `i`.
    pub fn version(&self, i: usize) -> &str {
        &self.versions[i].version
    }

    /// The first budget's value of version `i` in words (`6822 predicted weak-def lookups`),
    /// `None` when it was not read.
    pub fn figure_text(&self, i: usize) -> Option<String> {
        let (b, v) = self
            .criterion
            .first()
            .zip(self.versions[i].values.first())?;
        Some(figure_text(b, *v))
    }

    /// One line on what the bisection found.
    pub fn headline(&self, show: impl Fn(&str) -> String) -> String {
        let v = |i: usize| show(self.version(i));
        let figures = |a: usize, b: usize| match (
            self.criterion.first(),
            self.versions[a].values.first(),
            self.versions[b].values.first(),
        ) {
            (Some(c), Some(&x), Some(&y)) => format!(
                ": {} {x} → {y}, {}",
                figure_name(c, &show),
                super::check::change(x, y)
            ),
            _ => String::new(),
        };
        match &self.outcome {
            Outcome::Found {
                last_good,
                first_bad,
            } => format!(
                "bisect ({}): first bad {}, last good {}{}",
                self.arch,
                v(*first_bad),
                v(*last_good),
                figures(*last_good, *first_bad)
            ),
            Outcome::SkippedBetween {
                last_good,
                first_bad,
                skipped,
            } => format!(
                "bisect ({}): the first bad is {} or one of the {} skipped before it; last good {}{}",
                self.arch,
                v(*first_bad),
                skipped.len(),
                v(*last_good),
                figures(*last_good, *first_bad)
            ),
            Outcome::EndsAgree { verdict, middle } => {
                let last = self.versions.len() - 1;
                format!(
                    "bisect ({}): no step: the first version {} and the last {} are both {}{}",
                    self.arch,
                    v(0),
                    v(last),
                    verdict_word(*verdict),
                    match middle {
                        Some(m) => format!(", and so is {} between them", v(*m)),
                        None => String::new(),
                    }
                )
            }
            Outcome::NotMonotonic { middle } => {
                let last = self.versions.len() - 1;
                format!(
                    "bisect ({}): not monotonic: {} and {} are {}, {} between them is {}: two steps at least, which bisection (assuming one) cannot tell apart",
                    self.arch,
                    v(0),
                    v(last),
                    verdict_word(self.versions[0].verdict.unwrap_or(Verdict::Good)),
                    v(*middle),
                    verdict_word(self.versions[*middle].verdict.unwrap_or(Verdict::Good)),
                )
            }
            Outcome::Reversed => {
                let last = self.versions.len() - 1;
                format!(
                    "bisect ({}): not ordered by the criterion: the first version {} is bad and the last {} good{} (bisection looks for good → bad: list the versions oldest first)",
                    self.arch,
                    v(0),
                    v(last),
                    figures(0, last)
                )
            }
            Outcome::EndUnread => format!("bisect ({}): an end could not be read", self.arch),
        }
    }
}

/// `good`, `bad` or `skipped`.
pub fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Good => "good",
        Verdict::Bad => "bad",
        Verdict::Skipped => "skipped",
    }
}

/// The figure a budget limits, named: `predicted weak-def lookups`, or for a group budget
/// `weak-bound symbols of groups matching PATTERN`, the pattern shown by `show`.
pub fn figure_name(b: &Budget, show: impl Fn(&str) -> String) -> String {
    match (&b.kind, &b.pattern) {
        (Kind::Group, Some(p)) => format!("{} of groups matching {}", b.figure.label(), show(p)),
        _ => b.figure.label().to_string(),
    }
}

/// A budget's value in words: `6822 predicted weak-def lookups` (a pattern as it is).
pub fn figure_text(b: &Budget, value: usize) -> String {
    format!("{value} {}", figure_name(b, str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a bisection over `truth` (None: cannot be read): the versions tested, in order,
    /// and the outcome.
    fn run(truth: &[Option<bool>]) -> (Vec<usize>, Outcome) {
        let mut b = Bisection::new(truth.len());
        let mut tested = Vec::new();
        while let Some(i) = b.next() {
            assert!(!tested.contains(&i), "{i} tested twice");
            tested.push(i);
            b.record(
                i,
                match truth[i] {
                    Some(false) => Verdict::Good,
                    Some(true) => Verdict::Bad,
                    None => Verdict::Skipped,
                },
            );
            assert!(tested.len() <= truth.len());
        }
        (tested, b.outcome())
    }

    fn log2_ceil(n: usize) -> usize {
        n.next_power_of_two().trailing_zeros() as usize
    }

    #[test]
    fn every_one_step_series_is_found_within_log2_n_plus_2_tests() {
        for n in 2..=70 {
            for step in 1..n {
                let truth: Vec<Option<bool>> = (0..n).map(|i| Some(i >= step)).collect();
                let (tested, outcome) = run(&truth);
                assert_eq!(
                    outcome,
                    Outcome::Found {
                        last_good: step - 1,
                        first_bad: step
                    },
                    "n {n} step {step}"
                );
                assert!(
                    tested.len() <= log2_ceil(n) + 2,
                    "n {n} step {step}: {} tests",
                    tested.len()
                );
                assert_eq!(&tested[..2], [0, n - 1]);
            }
        }
    }

    #[test]
    fn a_skipped_version_costs_one_test_and_a_skipped_step_is_a_range() {
        // 0..4 good, 5.. bad; 4 cannot be read: the step is 3 → 5 with 4 skipped.
        let truth: Vec<Option<bool>> = (0..9)
            .map(|i| if i == 4 { None } else { Some(i >= 5) })
            .collect();
        let (tested, outcome) = run(&truth);
        assert_eq!(
            outcome,
            Outcome::SkippedBetween {
                last_good: 3,
                first_bad: 5,
                skipped: vec![4]
            }
        );
        // 4 skipped (the middle), then the median of the others, 3 (the older of 3 and 5),
        // then of 5, 6, 7: 6.
        assert_eq!(tested, [0, 8, 4, 3, 6, 5]);
        // Every series of one step and one version that cannot be read: the step, or the
        // range the skipped version makes, within ⌈log₂(n−2)⌉ + 3 tests.
        for n in 3..=40 {
            for step in 1..n {
                for skip in 1..n - 1 {
                    let truth: Vec<Option<bool>> = (0..n)
                        .map(|i| if i == skip { None } else { Some(i >= step) })
                        .collect();
                    let (tested, outcome) = run(&truth);
                    // The unread version next to the step, on either side, makes a range.
                    let want = if skip == step || skip + 1 == step {
                        Outcome::SkippedBetween {
                            last_good: skip - 1,
                            first_bad: skip + 1,
                            skipped: vec![skip],
                        }
                    } else {
                        Outcome::Found {
                            last_good: step - 1,
                            first_bad: step,
                        }
                    };
                    assert_eq!(outcome, want, "n {n} step {step} skip {skip}");
                    assert!(
                        tested.len() <= log2_ceil(n - 2) + 3,
                        "n {n} step {step} skip {skip}: {tested:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn ends_that_agree_test_one_middle_version() {
        let (tested, outcome) = run(&[Some(false); 5]);
        assert_eq!(tested, [0, 4, 2]);
        assert_eq!(
            outcome,
            Outcome::EndsAgree {
                verdict: Verdict::Good,
                middle: Some(2)
            }
        );
        // A rise and a fall: the middle differs.
        let (tested, outcome) = run(&[Some(false), Some(true), Some(true), Some(false)]);
        assert_eq!(tested, [0, 3, 1]);
        assert_eq!(outcome, Outcome::NotMonotonic { middle: 1 });
        // The middle skipped: the next nearest.
        let (tested, outcome) = run(&[Some(true), None, Some(false), Some(true)]);
        assert_eq!(tested, [0, 3, 1, 2]);
        assert_eq!(outcome, Outcome::NotMonotonic { middle: 2 });
        // Two versions: nothing between.
        let (tested, outcome) = run(&[Some(true), Some(true)]);
        assert_eq!(tested, [0, 1]);
        assert_eq!(
            outcome,
            Outcome::EndsAgree {
                verdict: Verdict::Bad,
                middle: None
            }
        );
    }

    #[test]
    fn reversed_ends_and_unread_ends_stop_the_search() {
        let (tested, outcome) = run(&[Some(true), Some(false), Some(false)]);
        assert_eq!(tested, [0, 2]);
        assert_eq!(outcome, Outcome::Reversed);
        let (tested, outcome) = run(&[None, Some(false), Some(true)]);
        assert_eq!(tested, [0]);
        assert_eq!(outcome, Outcome::EndUnread);
    }

    #[test]
    fn steps_among_the_versions_read() {
        use Verdict::*;
        let v = [
            Some(Good),
            None,
            Some(Skipped),
            Some(Bad),
            Some(Bad),
            Some(Good),
        ];
        assert_eq!(
            steps_among(&v),
            [
                FoundStep {
                    from: 0,
                    to: 3,
                    regression: true,
                    untested: 1,
                    skipped: 1
                },
                FoundStep {
                    from: 4,
                    to: 5,
                    regression: false,
                    untested: 0,
                    skipped: 0
                }
            ]
        );
    }
}
