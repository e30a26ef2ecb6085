//! Evaluating a policy on one image (and its baseline) into findings.
//!
//! Every budget counts only symbols the allowlist does not allow, on the image and on the
//! baseline alike: a figure's *counted* value is the figure minus what allowed symbols add to
//! it. Budgets, in report order:
//!
//! 1. **max** — a counted figure is at most a maximum;
//! 2. **increase** — a counted figure is at most the baseline's counted figure plus an allowance
//!    (a count, or a percentage of the baseline figure rounded down);
//! 3. **group** — the group-figure (default `weak_bind_symbols`) summed over the groups whose key
//!    matches a pattern is at most a maximum.
//!
//! A failing image also gets its offending groups: the groups that grew most since the
//! baseline when an increase failed, else the largest groups (of the failing group budgets when
//! only those failed), each with three example symbols.

use super::Figure;
use super::baseline::BaselineImage;
use super::policy::{Increase, Policy, RuleSet};
use super::tally::{Allowlist, SymbolEntry};
use crate::analysis::demangle::Demangled;
use crate::analysis::diff::percent_change;
use crate::analysis::group::GroupBy;
use crate::analysis::report::ImageSummary;
use crate::error::{Error, ErrorKind, Result};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Example symbols shown per offending group.
pub const EXAMPLES: usize = 3;

/// Which kind of budget a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// A short name: `max predicted_weak_lookups`, `increase weak_bind_symbols`,
    /// `group v8::internal::*`.
    pub fn title(&self) -> String {
        match self.kind {
            Kind::Max => format!("max {}", self.figure),
            Kind::Increase => format!("increase {}", self.figure),
            Kind::Group => format!("group {}", self.pattern.as_deref().unwrap_or("")),
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

/// `+3661, +116.6%`, `-4958, -72.9%`, `+5, new` (from 0), `0`.
pub fn change(old: usize, new: usize) -> String {
    let d = new as i64 - old as i64;
    match percent_change(Some(old), Some(new)) {
        _ if d == 0 => "±0".into(),
        Some(p) => format!("{d:+}, {p:+.1}%"),
        None => format!("{d:+}, new"),
    }
}

/// A figure of one image: as the input gives it, what allowed symbols add, and what counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    /// The pattern key of each example (for short display).
    #[serde(skip)]
    pub example_patterns: Vec<String>,
}

impl Offender {
    /// The examples for a narrow display: each demangled name if it fits in `width`
    /// characters, else its pattern (template-argument and parameter lists collapsed) when
    /// that fits and tells the examples apart, else the name with its middle cut out.
    pub fn examples_within(&self, width: usize) -> Vec<String> {
        let distinct: BTreeSet<&String> = self.example_patterns.iter().collect();
        let patterns_tell_apart = distinct.len() == self.example_patterns.len();
        self.examples
            .iter()
            .enumerate()
            .map(|(i, d)| match self.example_patterns.get(i) {
                _ if d.chars().count() <= width => d.clone(),
                Some(p) if patterns_tell_apart && p.chars().count() <= width => p.clone(),
                _ => crate::output::clip_middle(d, width),
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

impl ImageCheck {
    /// The failing budgets.
    pub fn failures(&self) -> impl Iterator<Item = &Finding> {
        self.budgets.iter().filter(|f| !f.passed)
    }
}

/// The result of `weakscan check`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    /// Every budget of every image holds.
    pub passed: bool,
    /// The policy file read, if any.
    pub policy: Option<String>,
    /// The baseline file compared with, if any.
    pub baseline: Option<String>,
    /// The grouping of group budgets and offending groups (`template`, `namespace`, …).
    #[serde(serialize_with = "group_by_name")]
    pub group_by: GroupBy,
    /// The namespace depth, with namespace grouping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
    /// The figure group budgets limit.
    pub group_figure: Figure,
    /// One per checked image.
    pub images: Vec<ImageCheck>,
    /// `_Z` names cpp_demangle could not read (kept raw).
    pub demangle_failures: usize,
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

    /// The heading of an image's offending groups: `offending groups (template, weak_bind_symbols,
    /// most grown since the baseline)`.
    pub fn offenders_caption(&self, image: &ImageCheck) -> String {
        let grown = image.offending_groups.iter().any(|o| o.baseline.is_some());
        format!(
            "offending groups ({}, {}, {})",
            group_by_label(self.group_by),
            image.offender_figure,
            if grown {
                "most grown since the baseline"
            } else {
                "largest first"
            }
        )
    }

    /// What to do about a failure: [`super::FIX`], and [`super::ACCEPT`] when a baseline was
    /// used; empty when the check passed.
    pub fn fix(&self) -> Vec<&'static str> {
        if self.passed {
            return Vec::new();
        }
        let mut out = super::FIX.to_vec();
        if self.baseline.is_some() {
            out.push(super::ACCEPT);
        }
        out
    }

    /// A one-line verdict: `passed: 7 budgets hold on 1 image` or
    /// `FAILED: 3 of 7 budgets exceeded on 1 image`.
    pub fn verdict(&self) -> String {
        let n = self.images.len();
        let images = format!("{n} image{}", if n == 1 { "" } else { "s" });
        if self.passed {
            format!("passed: {} budgets hold on {images}", self.budget_count())
        } else {
            format!(
                "FAILED: {} of {} budgets exceeded on {images}",
                self.failure_count(),
                self.budget_count()
            )
        }
    }
}

/// One image to check.
#[derive(Debug, Clone)]
pub struct Subject {
    /// Its summary (the figures as `weakscan scan` reports them).
    pub summary: ImageSummary,
    /// The input file.
    pub path: String,
    /// Its arch.
    pub arch: String,
    /// Its per-symbol entries.
    pub entries: Vec<SymbolEntry>,
}

/// A group's counted figure and the names that add to it.
#[derive(Default)]
struct GroupAcc<'e> {
    value: usize,
    members: Vec<&'e str>,
}

/// Sums `figure` per group over the entries the allowlist does not allow.
fn groups_of<'e>(
    entries: &'e [SymbolEntry],
    names: &Demangled<'_>,
    allow: &Allowlist<'_>,
    by: GroupBy,
    figure: Figure,
) -> BTreeMap<String, GroupAcc<'e>> {
    let mut out: BTreeMap<String, GroupAcc<'e>> = BTreeMap::new();
    for e in entries {
        let c = e.contribution(figure);
        if c == 0 {
            continue;
        }
        let name = names.lookup(&e.raw);
        if allow.allows(&e.raw, &name) {
            continue;
        }
        let g = out.entry(by.key(&name).into_owned()).or_default();
        g.value += c;
        g.members.push(&e.raw);
    }
    out
}

/// Evaluates `policy` on `subject` (with `baseline`, its slice of the baseline file if any).
/// `names` must hold every raw name of both; `top` limits the offending groups.
///
/// Errors: a budgeted figure the input cannot give (`Unsupported`).
pub fn evaluate(
    subject: &Subject,
    baseline: Option<&BaselineImage>,
    policy: &Policy,
    names: &Demangled<'_>,
    top: usize,
) -> Result<ImageCheck> {
    let rules: RuleSet = policy.rules_for(&subject.arch);
    let allow = Allowlist {
        operator_new_delete: policy.operator_new_delete,
        symbols: &rules.allow_symbols,
        groups: &rules.allow_groups,
        group_by: policy.group_by,
    };
    let increases: Vec<Increase> = match (baseline, &rules.max_increase) {
        (None, _) => Vec::new(),
        (Some(_), Some(v)) => v.clone(),
        (Some(_), None) => vec![Increase::Count(0)],
    };
    let increase_figures: Vec<Figure> = if increases.is_empty() {
        Vec::new()
    } else {
        rules
            .increase_figures
            .clone()
            .unwrap_or_else(|| Figure::ALL.to_vec())
    };
    let budgeted = |f: Figure| {
        rules.max.contains_key(&f)
            || increase_figures.contains(&f)
            || (!rules.groups.is_empty() && f == policy.group_figure)
    };
    let allowed_sum = |entries: &[SymbolEntry], f: Figure| -> usize {
        entries
            .iter()
            .filter(|e| e.contribution(f) > 0 && allow.allows(&e.raw, &names.lookup(&e.raw)))
            .map(|e| e.contribution(f))
            .sum()
    };

    // Figures, counted after the allowlist, here and in the baseline.
    let mut figures = Vec::new();
    for f in Figure::ALL {
        let Some(total) = f.of(&subject.summary) else {
            if budgeted(f) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    Path::new(&subject.path),
                    format!("{f} is not available from this input"),
                ));
            }
            continue;
        };
        let allowed = allowed_sum(&subject.entries, f);
        let base = match baseline {
            Some(b) if increase_figures.contains(&f) => {
                let Some(t) = b.figure(f) else {
                    return Err(Error::new(
                        ErrorKind::Policy,
                        &b.source,
                        format!("{f} is not in the baseline ({})", subject.arch),
                    ));
                };
                Some(t.saturating_sub(allowed_sum(&b.entries, f)))
            }
            Some(b) => b
                .figure(f)
                .map(|t| t.saturating_sub(allowed_sum(&b.entries, f))),
            None => None,
        };
        figures.push(FigureLine {
            figure: f,
            total,
            allowed,
            counted: total.saturating_sub(allowed),
            baseline: base,
        });
    }
    let line = |f: Figure| figures.iter().find(|l| l.figure == f);

    let mut budgets = Vec::new();
    for (&f, &max) in &rules.max {
        let Some(l) = line(f) else { continue };
        let passed = l.counted as u64 <= max;
        budgets.push(Finding {
            kind: Kind::Max,
            figure: f,
            pattern: None,
            groups_matched: None,
            value: l.counted,
            baseline: None,
            max_increase: None,
            limit: max,
            passed,
            message: format!(
                "{f} is {}, {} the maximum of {max}",
                l.counted,
                if passed { "within" } else { "over" }
            ),
        });
    }
    for &f in &increase_figures {
        let Some(l) = line(f) else { continue };
        let base = l.baseline.unwrap_or(0);
        for inc in &increases {
            let limit = base as u64 + inc.allowance(base);
            let passed = l.counted as u64 <= limit;
            let moved = if l.counted > base {
                "rose"
            } else if l.counted < base {
                "fell"
            } else {
                "stayed"
            };
            let how = if moved == "stayed" {
                format!("stayed at {base}")
            } else {
                format!(
                    "{moved} from {base} to {} ({})",
                    l.counted,
                    change(base, l.counted)
                )
            };
            budgets.push(Finding {
                kind: Kind::Increase,
                figure: f,
                pattern: None,
                groups_matched: None,
                value: l.counted,
                baseline: Some(base),
                max_increase: Some(inc.to_string()),
                limit,
                passed,
                message: format!(
                    "{f} {how} since the baseline, {} the allowed increase of {inc} (at most {limit})",
                    if passed { "within" } else { "over" }
                ),
            });
        }
    }
    let current = groups_of(
        &subject.entries,
        names,
        &allow,
        policy.group_by,
        policy.group_figure,
    );
    let mut failing_patterns = Vec::new();
    for g in &rules.groups {
        let matched: Vec<&GroupAcc> = current
            .iter()
            .filter(|(k, _)| g.pattern.is_match(k))
            .map(|(_, v)| v)
            .collect();
        let value: usize = matched.iter().map(|m| m.value).sum();
        let passed = value as u64 <= g.max;
        if !passed {
            failing_patterns.push(&g.pattern);
        }
        let n = matched.len();
        budgets.push(Finding {
            kind: Kind::Group,
            figure: policy.group_figure,
            pattern: Some(g.pattern.text.clone()),
            groups_matched: Some(n),
            value,
            baseline: None,
            max_increase: None,
            limit: g.max,
            passed,
            message: format!(
                "groups matching {} ({n} group{}) have {value} {}, {} the maximum of {}",
                g.pattern.text,
                if n == 1 { "" } else { "s" },
                policy.group_figure,
                if passed { "within" } else { "over" },
                g.max
            ),
        });
    }

    // Offending groups, in the figure of the first failing budget.
    let first_fail = budgets.iter().find(|b| !b.passed);
    let offender_figure = first_fail.map_or(policy.group_figure, |b| b.figure);
    let mut offending_groups = Vec::new();
    if first_fail.is_some() {
        let groups = if offender_figure == policy.group_figure {
            current
        } else {
            groups_of(
                &subject.entries,
                names,
                &allow,
                policy.group_by,
                offender_figure,
            )
        };
        // Up to EXAMPLES members, of distinct patterns first (a static, its guard variable and
        // the function holding them say more than three statics), shown sorted.
        let example = |members: &mut dyn Iterator<Item = &str>| -> (Vec<String>, Vec<String>) {
            let mut all: Vec<(String, String)> = members
                .map(|raw| {
                    let n = names.lookup(raw);
                    (n.demangled.clone(), n.pattern.clone())
                })
                .collect();
            all.sort();
            all.dedup_by(|a, b| a.0 == b.0);
            let mut patterns = BTreeSet::new();
            let mut picked: Vec<&(String, String)> = Vec::new();
            for e in &all {
                if picked.len() < EXAMPLES && patterns.insert(&e.1) {
                    picked.push(e);
                }
            }
            for e in &all {
                if picked.len() < EXAMPLES && !picked.contains(&e) {
                    picked.push(e);
                }
            }
            picked.sort();
            picked
                .into_iter()
                .map(|(d, p)| (d.clone(), p.clone()))
                .unzip()
        };
        let grew = budgets
            .iter()
            .any(|b| !b.passed && b.kind == Kind::Increase);
        if let (true, Some(b)) = (grew, baseline) {
            let before = groups_of(&b.entries, names, &allow, policy.group_by, offender_figure);
            let mut ranked: Vec<(i64, &String, &GroupAcc)> = groups
                .iter()
                .map(|(k, g)| {
                    let old = before.get(k).map_or(0, |o| o.value);
                    (g.value as i64 - old as i64, k, g)
                })
                .filter(|(d, _, _)| *d > 0)
                .collect();
            ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            for (_, k, g) in ranked.into_iter().take(top) {
                let old: BTreeSet<&str> = before
                    .get(k)
                    .map(|o| o.members.iter().copied().collect())
                    .unwrap_or_default();
                let mut added = g
                    .members
                    .iter()
                    .copied()
                    .filter(|m| !old.contains(m))
                    .peekable();
                let (examples, example_patterns) = if added.peek().is_some() {
                    example(&mut added)
                } else {
                    example(&mut g.members.iter().copied())
                };
                offending_groups.push(Offender {
                    key: k.clone(),
                    value: g.value,
                    baseline: Some(before.get(k).map_or(0, |o| o.value)),
                    examples,
                    example_patterns,
                });
            }
        } else {
            let only_groups = budgets
                .iter()
                .filter(|b| !b.passed)
                .all(|b| b.kind == Kind::Group);
            let mut ranked: Vec<(&String, &GroupAcc)> = groups
                .iter()
                .filter(|(k, _)| !only_groups || failing_patterns.iter().any(|p| p.is_match(k)))
                .collect();
            ranked.sort_by(|a, b| b.1.value.cmp(&a.1.value).then(a.0.cmp(b.0)));
            for (k, g) in ranked.into_iter().take(top) {
                let (examples, example_patterns) = example(&mut g.members.iter().copied());
                offending_groups.push(Offender {
                    key: k.clone(),
                    value: g.value,
                    baseline: None,
                    examples,
                    example_patterns,
                });
            }
        }
    }

    let mut notes = Vec::new();
    let fell: Vec<String> = figures
        .iter()
        .filter_map(|l| match l.baseline {
            Some(b) if l.counted < b => Some(format!("{} {} → {}", l.figure, b, l.counted)),
            _ => None,
        })
        .collect();
    if !fell.is_empty() {
        notes.push(format!(
            "below the baseline ({}): regenerate the baseline to lock in the gain",
            fell.join(", ")
        ));
    }
    Ok(ImageCheck {
        path: subject.path.clone(),
        arch: subject.arch.clone(),
        passed: budgets.iter().all(|b| b.passed),
        figures,
        budgets,
        offender_figure,
        offending_groups,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_read_like_the_diff_table() {
        assert_eq!(change(3133, 6794), "+3661, +116.9%");
        assert_eq!(change(3133, 1834), "-1299, -41.5%");
        assert_eq!(change(0, 5), "+5, new");
        assert_eq!(change(7, 7), "±0");
    }

    #[test]
    fn examples_fall_back_to_patterns_then_clipping() {
        let o = Offender {
            key: "A<…>".into(),
            value: 3,
            baseline: None,
            examples: vec!["A<int>::f(int)".into(), "A<long long>::g(long long)".into()],
            example_patterns: vec!["A<…>::f(…)".into(), "A<…>::g(…)".into()],
        };
        assert_eq!(o.examples_within(20), ["A<int>::f(int)", "A<…>::g(…)"]);
        let same = Offender {
            example_patterns: vec!["A<…>::f(…)".into(), "A<…>::f(…)".into()],
            ..o
        };
        assert_eq!(
            same.examples_within(20),
            ["A<int>::f(int)", "A<long long…ng long)"]
        );
    }
}
