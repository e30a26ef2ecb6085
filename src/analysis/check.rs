//! The report of a `weakscan check`: the gated figures, each evaluated budget (a
//! [`Finding`]), the offending groups and what to do about a failure. [`crate::gate::budget`]
//! produces it; [`crate::output`] renders it (table, JSON, Markdown, GitHub annotations).

use super::diff::percent_change;
use super::group::GroupBy;
use super::report::ImageSummary;
use crate::text::{clip_middle, count};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A figure that budgets limit (the JSON field name of [`ImageSummary`]).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum Figure {
    /// `predicted_weak_lookups`: predicted "looking for weak-def symbol" lines.
    #[value(help = "Predicted weak-def lookups")]
    PredictedWeakLookups,
    /// `weak_def_exports`: export-trie terminals flagged `WEAK_DEFINITION`.
    #[value(help = "Weak-def exports")]
    WeakDefExports,
    /// `weak_bind_symbols`: distinct weak-bound symbols.
    #[value(help = "Weak-bound symbols")]
    WeakBindSymbols,
    /// `trie_probes`: export-trie probes of a whole process's lookups (processes only; not
    /// reduced by the allowlist: a probe is paid whatever the name).
    #[value(skip)] // not a group figure, so no value of `--group-figure`
    TrieProbes,
}

impl Figure {
    /// Every gated figure, in report order.
    pub const ALL: [Figure; 4] = [
        Figure::PredictedWeakLookups,
        Figure::WeakDefExports,
        Figure::WeakBindSymbols,
        Figure::TrieProbes,
    ];

    /// The JSON and policy-file name (`predicted_weak_lookups`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Figure::PredictedWeakLookups => "predicted_weak_lookups",
            Figure::WeakDefExports => "weak_def_exports",
            Figure::WeakBindSymbols => "weak_bind_symbols",
            Figure::TrieProbes => "trie_probes",
        }
    }

    /// The figure in the words `weakscan scan` uses for it (`predicted weak-def lookups`,
    /// `weak-bound symbols`, …): what tables, Markdown and sentences show. [`Figure::as_str`]
    /// stays the JSON and policy-file name.
    pub fn label(self) -> &'static str {
        match self {
            Figure::PredictedWeakLookups => "predicted weak-def lookups",
            Figure::WeakDefExports => "weak-def exports",
            Figure::WeakBindSymbols => "weak-bound symbols",
            Figure::TrieProbes => "trie probes",
        }
    }

    /// The figure of `summary`, or `None` when the input cannot give it.
    ///
    /// This is the one place where the gate reads an [`ImageSummary`].
    pub fn of(self, summary: &ImageSummary) -> Option<usize> {
        match self {
            Figure::PredictedWeakLookups => summary.predicted_weak_lookups,
            Figure::WeakDefExports => summary.weak_def_exports,
            Figure::WeakBindSymbols => summary.weak_bind_symbols,
            Figure::TrieProbes => summary.trie_probes,
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What to do about leaked weak symbols; every failing report ends with these lines.
pub const FIX: [&str; 3] = [
    "compile with -fvisibility=hidden, including the static libraries linked in (V8, ICU, …)",
    "compile with -fvisibility-inlines-hidden, so inline functions and their local statics stay hidden",
    "or link with an exported-symbols list (-Wl,-exported_symbols_list,FILE) that names only the intended API",
];

/// How to accept an intended change (printed with [`FIX`] when a baseline budget fails).
pub const ACCEPT: &str = "if the change is intended, regenerate the baseline (weakscan baseline FILE -o BASELINE) and commit it with the change";

/// What to do when an importer imports what the image no longer exports.
pub const IMPORTS_FIX: &str = "export the symbols the importers import again (visibility(\"default\") in the source, or the exported-symbols list), or rebuild the importers against this build";

/// Missing imports shown per importer in tables, Markdown and annotations (JSON lists all).
pub const MISSING_SHOWN: usize = 5;

/// Example symbols shown per offending group.
pub const EXAMPLES: usize = 3;

/// Which kind of budget a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An absolute maximum.
    Max,
    /// A maximum increase over the baseline.
    Increase,
    /// A per-group maximum.
    Group,
}

/// One evaluated budget.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// The kind of budget.
    pub kind: Kind,
    /// The figure limited.
    pub figure: Figure,
    /// For a group budget: the glob or `re:` regex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// For a group budget: how many groups matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups_matched: Option<usize>,
    /// The counted figure (for a group budget, summed over the matched groups).
    pub value: usize,
    /// For an increase: the baseline's counted figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<usize>,
    /// For an increase: the allowance as given (`+10%`, `+50`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_increase: Option<String>,
    /// The largest value that passes (for an increase: baseline + allowance).
    pub limit: u64,
    /// The budget holds.
    pub passed: bool,
    /// One sentence naming the budget, the figure and the limit.
    pub message: String,
}

impl Finding {
    /// [`Finding::message`] with the group pattern, the one text of a finding an input gives (a
    /// policy file, `--group`), set by `quote` (a Markdown code span); the message itself for
    /// the other kinds.
    pub fn sentence(&self, quote: impl Fn(&str) -> String) -> String {
        match (&self.kind, &self.pattern) {
            (Kind::Group, Some(p)) => group_sentence(&quote(p), self),
            _ => self.message.clone(),
        }
    }

    /// A short name, the figure in scan's words ([`Figure::label`]): `max predicted weak-def
    /// lookups`, `increase weak-bound symbols`, `group v8::internal::*`.
    pub fn title(&self) -> String {
        match self.kind {
            Kind::Max => format!("max {}", self.figure.label()),
            Kind::Increase => format!("increase {}", self.figure.label()),
            Kind::Group => format!("group {}", self.pattern.as_deref().unwrap_or("")),
        }
    }

    /// Where the budget is set in the policy file, as a TOML dotted key:
    /// `budget.predicted_weak_lookups` (flag `--max-predicted-weak-lookups`),
    /// `baseline.max_increase` (`--max-increase`); `None` for a group budget, whose pattern
    /// (its key under `[groups]`, or `--group`) the report shows already. A per-arch section
    /// (`[arch.NAME.budget]`) sets the same key below `arch.NAME`.
    pub fn policy_key(&self) -> Option<String> {
        match self.kind {
            Kind::Max => Some(format!("budget.{}", self.figure.as_str())),
            Kind::Increase => Some("baseline.max_increase".to_string()),
            Kind::Group => None,
        }
    }

    /// The value as shown in tables: `6800`, or `3139 → 6800 (+3661, +116.6%)`.
    pub fn value_text(&self) -> String {
        match self.baseline {
            Some(b) => format!("{b} → {} ({})", self.value, change(b, self.value)),
            None => self.value.to_string(),
        }
    }

    /// The limit as shown in tables: `2000`, or `+10% (≤ 3452)`.
    pub fn limit_text(&self) -> String {
        match &self.max_increase {
            Some(i) => format!("{i} (≤ {})", self.limit),
            None => format!("≤ {}", self.limit),
        }
    }
}

/// The sentence of a group budget's `finding`, its pattern shown as `pattern`: `groups matching
/// v8::internal::* (3 groups) have 90 weak-bound symbols, over the maximum of 50`.
pub fn group_sentence(pattern: &str, finding: &Finding) -> String {
    let n = finding.groups_matched.unwrap_or(0);
    format!(
        "groups matching {pattern} ({n} group{}) have {} {}, {} the maximum of {}",
        if n == 1 { "" } else { "s" },
        finding.value,
        finding.figure.label(),
        if finding.passed { "within" } else { "over" },
        finding.limit
    )
}

/// `+3661, +116.6%`, `-4958, -72.9%`, `+5, new` (from 0), `0`.
pub fn change(old: usize, new: usize) -> String {
    // i128: figures read from a baseline file may be anywhere in u64.
    let d = new as i128 - old as i128;
    match percent_change(Some(old), Some(new)) {
        _ if d == 0 => "±0".into(),
        Some(p) => format!("{d:+}, {p:+.1}%"),
        None => format!("{d:+}, new"),
    }
}

/// A figure of one image: as the input gives it, what allowed symbols add, and what counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FigureLine {
    /// The figure.
    pub figure: Figure,
    /// As `weakscan scan` reports it.
    pub total: usize,
    /// Added by allowed symbols.
    pub allowed: usize,
    /// `total − allowed`: what budgets see.
    pub counted: usize,
    /// The baseline's counted figure, with a baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<usize>,
}

/// A group that explains a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Offender {
    /// The group key.
    pub key: String,
    /// Its counted figure ([`ImageCheck::offender_figure`]).
    pub value: usize,
    /// Its counted figure in the baseline, when groups are ranked by growth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<usize>,
    /// Up to [`EXAMPLES`] demangled members (new since the baseline when ranked by growth),
    /// of distinct patterns first, sorted.
    pub examples: Vec<String>,
    /// The raw Mach-O name of each of `examples`, in the same order.
    pub examples_mangled: Vec<String>,
    /// The pattern key of each example (for short display).
    #[serde(skip)]
    pub example_patterns: Vec<String>,
    /// Where the group's symbols come from in the checked image, as a diff's group says
    /// ([`super::group::GroupFrom`]): with an attribution (a debug map, `--map`, `--dsym`),
    /// unless the grouping is by origin already.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<super::group::GroupFrom>,
}

impl Offender {
    /// The examples for a narrow display: each demangled name if it fits in `width`
    /// characters, else its pattern (template-argument and parameter lists collapsed) when
    /// that fits and tells the examples apart, else the name folded (`crate::text::fold`), its
    /// middle cut out only when one identifier is longer than the room.
    pub fn examples_within(&self, width: usize) -> Vec<String> {
        let distinct: BTreeSet<&String> = self.example_patterns.iter().collect();
        let patterns_tell_apart = distinct.len() == self.example_patterns.len();
        self.examples
            .iter()
            .enumerate()
            .map(|(i, d)| match self.example_patterns.get(i) {
                _ if d.chars().count() <= width => d.clone(),
                Some(p) if patterns_tell_apart && p.chars().count() <= width => p.clone(),
                _ => {
                    // Folded (lists, then scopes: the key shows the template), cut only past
                    // that (one identifier longer than the room).
                    let folded = crate::text::fold::fold_member(d, width, |s| s.chars().count());
                    clip_middle(&folded, width)
                }
            })
            .collect()
    }

    /// `2158`, or `1200 → 2158 (+958, +79.8%)`.
    pub fn value_text(&self) -> String {
        match self.baseline {
            Some(b) => format!("{b} → {} ({})", self.value, change(b, self.value)),
            None => self.value.to_string(),
        }
    }
}

/// The check of one image.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ImageCheck {
    /// The input file.
    pub path: String,
    /// Its arch.
    pub arch: String,
    /// Every budget holds.
    pub passed: bool,
    /// The gated figures the input gives.
    pub figures: Vec<FigureLine>,
    /// Every budget, in order: max, increase, group.
    pub budgets: Vec<Finding>,
    /// The figure offending groups are measured in (that of the first failing budget).
    pub offender_figure: Figure,
    /// Offending groups (empty when the image passes), most offending first.
    pub offending_groups: Vec<Offender>,
    /// Remarks that do not fail the check.
    pub notes: Vec<String>,
    /// A failing binary's fix plan ([`super::fix_plan`]), which the Markdown's fix names; not
    /// in the JSON (`scan --format json` lists it).
    #[serde(skip)]
    #[schemars(skip)]
    pub fix_plan: Option<super::fix_plan::FixPlan>,
    /// A failing process's fix plan ([`super::process_fix_plan`], best first) and its trie
    /// probes, which the fix names; not in the JSON (`scan --format json` lists it).
    #[serde(skip)]
    #[schemars(skip)]
    pub process_fix_plan: Option<(Vec<super::process_fix_plan::ProcessCandidate>, usize)>,
}

impl ImageCheck {
    /// The failing budgets.
    pub fn failures(&self) -> impl Iterator<Item = &Finding> {
        self.budgets.iter().filter(|f| !f.passed)
    }
}

/// How an image's offending groups are ranked: `most grown since the baseline` or
/// `largest first`.
pub fn offenders_order(image: &ImageCheck) -> &'static str {
    if image.offending_groups.iter().any(|o| o.baseline.is_some()) {
        "most grown since the baseline"
    } else {
        "largest first"
    }
}

/// The result of `weakscan check`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CheckReport {
    /// Every budget of every image holds.
    pub passed: bool,
    /// The policy file read, if any.
    pub policy: Option<String>,
    /// The baseline file compared with, if any.
    pub baseline: Option<String>,
    /// The grouping of group budgets and offending groups (`template`, `namespace`, …).
    #[serde(serialize_with = "group_by_name")]
    #[schemars(with = "crate::analysis::group::GroupByName")]
    pub group_by: GroupBy,
    /// The namespace depth, with namespace grouping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
    /// The figure group budgets limit.
    pub group_figure: Figure,
    /// One per checked image.
    pub images: Vec<ImageCheck>,
    /// `_Z` names kept raw (not read within the name engine's bounds, or refused by the printer).
    pub demangle_failures: usize,
    /// The same names by why: only the reasons that occurred; left out when none was kept raw.
    #[serde(skip_serializing_if = "crate::analysis::demangle::FailureReasons::is_empty")]
    pub demangle_failures_by_reason: crate::analysis::demangle::FailureReasons,
    /// `--importer`: each importer held against each checked image (its imports that resolve
    /// against the image, and every one the image does not export).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub importers: Vec<super::imports::ImporterCheck>,
    /// Files below the directories of importers that were not read, by reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub importers_skipped: Vec<super::imports::SkippedImporters>,
}

fn group_by_name<S: serde::Serializer>(g: &GroupBy, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(g.as_str())
}

/// `template`, `namespace (depth 2)`, …
pub fn group_by_label(g: GroupBy) -> String {
    match g {
        GroupBy::Namespace(d) => format!("namespace (depth {d})"),
        other => other.as_str().to_string(),
    }
}

impl CheckReport {
    /// Failing budgets over all images.
    pub fn failure_count(&self) -> usize {
        self.images.iter().map(|i| i.failures().count()).sum()
    }

    /// Budgets over all images.
    pub fn budget_count(&self) -> usize {
        self.images.iter().map(|i| i.budgets.len()).sum()
    }

    /// The heading of an image's offending groups: `offending groups (template, weak-bound
    /// symbols, most grown since the baseline)`.
    pub fn offenders_caption(&self, image: &ImageCheck) -> String {
        format!(
            "offending groups ({}, {}, {})",
            group_by_label(self.group_by),
            image.offender_figure.label(),
            offenders_order(image)
        )
    }

    /// What to do about a failure: [`FIX`], and [`ACCEPT`] when a baseline was
    /// used; empty when the check passed.
    pub fn fix(&self) -> Vec<&'static str> {
        if self.passed {
            return Vec::new();
        }
        let mut out = Vec::new();
        if self.failure_count() > 0 {
            out.extend(FIX);
            if self.baseline.is_some() {
                out.push(ACCEPT);
            }
        }
        if self.importers.iter().any(|i| !i.passed) {
            out.push(IMPORTS_FIX);
        }
        out
    }

    /// What the budgets came from, as `policy weakscan.toml, baseline base.json`; `None` when
    /// only flags gave them.
    pub fn sources(&self) -> Option<String> {
        let sources: Vec<String> = [("policy", &self.policy), ("baseline", &self.baseline)]
            .into_iter()
            .filter_map(|(what, path)| path.as_ref().map(|p| format!("{what} {p}")))
            .collect();
        (!sources.is_empty()).then(|| sources.join(", "))
    }

    /// The importers' part of the verdict: `5 imports of 2 importers exported` or `1 of 5
    /// imports of 2 importers not exported`; `None` without `--importer`.
    fn importers_verdict(&self) -> Option<String> {
        if self.importers.is_empty() {
            return None;
        }
        let names: BTreeSet<&str> = self.importers.iter().map(|i| i.importer.as_str()).collect();
        let n = names.len();
        let of = format!("of {}", count(n, "importer", "importers"));
        let total: usize = self.importers.iter().map(|i| i.imports).sum();
        let failing: usize = self.importers.iter().map(|i| i.failing().count()).sum();
        let imports = count(total, "import", "imports");
        Some(match failing {
            0 => format!("{imports} {of} exported"),
            _ => format!("{failing} of {imports} {of} not exported"),
        })
    }

    /// A one-line verdict: `passed: 7 budgets hold on 1 image` or
    /// `FAILED: 3 of 7 budgets exceeded on 1 image`.
    pub fn verdict(&self) -> String {
        let images = count(self.images.len(), "image", "images");
        let budgets = if self.failure_count() == 0 {
            let n = self.budget_count();
            let hold = if n == 1 { "holds" } else { "hold" };
            format!("{} {hold} on {images}", count(n, "budget", "budgets"))
        } else {
            format!(
                "{} of {} exceeded on {images}",
                self.failure_count(),
                count(self.budget_count(), "budget", "budgets")
            )
        };
        let parts: Vec<String> = match self.importers_verdict() {
            None => vec![budgets],
            Some(imports) if self.budget_count() == 0 => vec![imports],
            Some(imports) => vec![budgets, imports],
        };
        let word = if self.passed { "passed" } else { "FAILED" };
        format!("{word}: {}", parts.join("; "))
    }
}
