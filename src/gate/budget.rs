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

use super::allow::Allowlist;
use super::baseline::BaselineImage;
use super::pattern::Pattern;
use super::policy::{Increase, Policy, RuleSet};
use crate::analysis::attribute::Origin;
use crate::analysis::check::{
    EXAMPLES, Figure, FigureLine, Finding, ImageCheck, Kind, Offender, change, group_sentence,
};
use crate::analysis::demangle::Demangled;
use crate::analysis::group::{GroupBy, GroupFrom};
use crate::analysis::report::ImageSummary;
use crate::analysis::tally::SymbolEntry;
use crate::error::{Error, ErrorKind, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
        if allow.allows(&e.raw, &name, &e.origin) {
            continue;
        }
        let g = out
            .entry(by.key(&e.raw, &name, &e.origin).into_owned())
            .or_default();
        g.value = g.value.saturating_add(c);
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
    let check = Check {
        subject,
        baseline,
        policy,
        names,
        allow: Allowlist {
            operator_new_delete: policy.operator_new_delete,
            symbols: &rules.allow_symbols,
            groups: &rules.allow_groups,
            group_by: policy.group_by,
        },
    };
    let increases = increases(baseline, &rules);
    let increase_figures = increase_figures(&rules, &increases, subject);
    let figures = check.figure_lines(&rules, &increase_figures)?;
    let mut budgets = max_findings(&rules, &figures);
    budgets.extend(increase_findings(&increase_figures, &increases, &figures));
    let current = check.groups(&subject.entries, policy.group_figure);
    let (group_budgets, failing_patterns) = group_findings(&rules, policy, &current);
    budgets.extend(group_budgets);
    let (offender_figure, offending_groups) =
        check.offenders(&budgets, current, &failing_patterns, top);
    let notes = notes(&figures);
    Ok(ImageCheck {
        path: subject.path.clone(),
        arch: subject.arch.clone(),
        passed: budgets.iter().all(|b| b.passed),
        figures,
        budgets,
        offender_figure,
        offending_groups,
        notes,
        fix_plan: None,
        process_fix_plan: None,
    })
}

/// What the steps of [`evaluate`] read: the image, its baseline, the policy, the allowlist of
/// the image's arch, and the names.
struct Check<'a> {
    subject: &'a Subject,
    baseline: Option<&'a BaselineImage>,
    policy: &'a Policy,
    names: &'a Demangled<'a>,
    allow: Allowlist<'a>,
}

/// The increase budgets that apply: those of `rules`, or none at all when there is no
/// baseline; with a baseline and none given, no increase.
fn increases(baseline: Option<&BaselineImage>, rules: &RuleSet) -> Vec<Increase> {
    match (baseline, &rules.max_increase) {
        (None, _) => Vec::new(),
        (Some(_), Some(v)) => v.clone(),
        (Some(_), None) => vec![Increase::Count(0)],
    }
}

/// The figures the increase budgets limit: those of `rules`, by default every figure the input
/// gives (trie probes: a process only); none if no increase applies.
fn increase_figures(rules: &RuleSet, increases: &[Increase], subject: &Subject) -> Vec<Figure> {
    if increases.is_empty() {
        return Vec::new();
    }
    rules.increase_figures.clone().unwrap_or_else(|| {
        Figure::ALL
            .into_iter()
            .filter(|f| f.of(&subject.summary).is_some())
            .collect()
    })
}

impl Check<'_> {
    /// Every figure the input gives, counted after the allowlist, here and in the baseline.
    /// Errors: a budgeted figure the input cannot give (`Unsupported`), a figure an increase
    /// limits that the baseline lacks (`Policy`).
    fn figure_lines(
        &self,
        rules: &RuleSet,
        increase_figures: &[Figure],
    ) -> Result<Vec<FigureLine>> {
        let budgeted = |f: Figure| {
            rules.max.contains_key(&f)
                || increase_figures.contains(&f)
                || (!rules.groups.is_empty() && f == self.policy.group_figure)
        };
        let mut figures = Vec::new();
        for f in Figure::ALL {
            let Some(total) = f.of(&self.subject.summary) else {
                if budgeted(f) {
                    return Err(self.unsupported(f));
                }
                continue;
            };
            let allowed = self.allowed_sum(&self.subject.entries, f);
            let base = self.baseline_figure(f, increase_figures)?;
            figures.push(FigureLine {
                figure: f,
                total,
                allowed,
                counted: total.saturating_sub(allowed),
                baseline: base,
            });
        }
        Ok(figures)
    }

    /// The error of a budget on figure `f`, which the input cannot give.
    fn unsupported(&self, f: Figure) -> Error {
        Error::new(
            ErrorKind::Unsupported,
            Path::new(&self.subject.path),
            if f == Figure::TrieProbes {
                format!(
                    "{f} is a figure of a whole process: give a bundle, a directory or --process"
                )
            } else {
                format!("{f} is not available from this input")
            },
        )
    }

    /// What the allowed symbols among `entries` add to figure `f`.
    fn allowed_sum(&self, entries: &[SymbolEntry], f: Figure) -> usize {
        entries
            .iter()
            .filter(|e| {
                e.contribution(f) > 0
                    && self
                        .allow
                        .allows(&e.raw, &self.names.lookup(&e.raw), &e.origin)
            })
            .map(|e| e.contribution(f))
            .fold(0usize, usize::saturating_add)
    }

    /// The baseline's counted figure `f`, if there is a baseline. Errors: `f` is one of
    /// `increase_figures` and the baseline lacks it (`Policy`).
    fn baseline_figure(&self, f: Figure, increase_figures: &[Figure]) -> Result<Option<usize>> {
        Ok(match self.baseline {
            Some(b) if increase_figures.contains(&f) => {
                let Some(t) = b.figure(f) else {
                    return Err(Error::new(
                        ErrorKind::Policy,
                        &b.source,
                        format!("{f} is not in the baseline ({})", self.subject.arch),
                    ));
                };
                Some(t.saturating_sub(self.allowed_sum(&b.entries, f)))
            }
            Some(b) => b
                .figure(f)
                .map(|t| t.saturating_sub(self.allowed_sum(&b.entries, f))),
            None => None,
        })
    }

    /// `figure` summed per group of `entries` (under the policy's grouping), over the entries
    /// the allowlist does not allow.
    fn groups<'e>(
        &self,
        entries: &'e [SymbolEntry],
        figure: Figure,
    ) -> BTreeMap<String, GroupAcc<'e>> {
        groups_of(
            entries,
            self.names,
            &self.allow,
            self.policy.group_by,
            figure,
        )
    }

    /// The figure the offending groups are counted in (that of the first failing budget) and
    /// the groups, if any budget failed: the groups that grew most since the baseline when an
    /// increase failed, else the largest. `current` is the groups in the policy's group
    /// figure.
    fn offenders(
        &self,
        budgets: &[Finding],
        current: BTreeMap<String, GroupAcc<'_>>,
        failing_patterns: &[&Pattern],
        top: usize,
    ) -> (Figure, Vec<Offender>) {
        let first_fail = budgets.iter().find(|b| !b.passed);
        let offender_figure = first_fail.map_or(self.policy.group_figure, |b| b.figure);
        if first_fail.is_none() {
            return (offender_figure, Vec::new());
        }
        let groups = if offender_figure == self.policy.group_figure {
            current
        } else {
            self.groups(&self.subject.entries, offender_figure)
        };
        let grew = budgets
            .iter()
            .any(|b| !b.passed && b.kind == Kind::Increase);
        let offending = match (grew, self.baseline) {
            (true, Some(b)) => self.grown_groups(&groups, b, offender_figure, top),
            _ => largest_groups(&groups, budgets, failing_patterns, top)
                .into_iter()
                .map(|(k, g)| self.offender(k, g, None, g.members.iter().copied()))
                .collect(),
        };
        (offender_figure, offending)
    }

    /// The `top` groups that grew most in `figure` since the baseline `b`, each with examples
    /// of the members it gained (or of all its members if it gained none by name).
    fn grown_groups(
        &self,
        groups: &BTreeMap<String, GroupAcc<'_>>,
        b: &BaselineImage,
        figure: Figure,
        top: usize,
    ) -> Vec<Offender> {
        let before = self.groups(&b.entries, figure);
        let mut ranked: Vec<(i128, &String, &GroupAcc)> = groups
            .iter()
            .map(|(k, g)| {
                let old = before.get(k).map_or(0, |o| o.value);
                (g.value as i128 - old as i128, k, g)
            })
            .filter(|(d, _, _)| *d > 0)
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let mut offending = Vec::new();
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
            let baseline = Some(before.get(k).map_or(0, |o| o.value));
            offending.push(if added.peek().is_some() {
                self.offender(k, g, baseline, added)
            } else {
                self.offender(k, g, baseline, g.members.iter().copied())
            });
        }
        offending
    }

    /// Group `key` as an offender, with `baseline` its figure there and examples taken from
    /// `members`.
    fn offender<'e>(
        &self,
        key: &str,
        g: &GroupAcc<'_>,
        baseline: Option<usize>,
        members: impl Iterator<Item = &'e str>,
    ) -> Offender {
        let Examples(examples, example_patterns, examples_mangled) = self.examples(members);
        Offender {
            key: key.to_string(),
            value: g.value,
            baseline,
            examples,
            examples_mangled,
            example_patterns,
            from: self.from(&g.members),
        }
    }

    /// Where `members` (raw names of the subject) come from: the object with the most of them
    /// (ties: the lower key), as a diff's group names it. `None` when the subject has no
    /// attribution or the policy groups by origin (the key says it already).
    fn from(&self, members: &[&str]) -> Option<GroupFrom> {
        let entries = &self.subject.entries;
        let attributed = entries
            .iter()
            .any(|e| !matches!(e.origin, Origin::Unattributed));
        if self.policy.group_by.origin_level().is_some() || !attributed {
            return None;
        }
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let mut unattributed = 0usize;
        for raw in members {
            // The entries are sorted by raw name (`tally`).
            let Ok(i) = entries.binary_search_by(|e| e.raw.as_str().cmp(raw)) else {
                continue;
            };
            match entries[i].origin.object() {
                Some(o) => *counts.entry(o.object.as_str()).or_default() += 1,
                None => unattributed += 1,
            }
        }
        let symbols = counts.values().copied().max().unwrap_or(0);
        let object = counts
            .iter()
            .find(|&(_, &n)| n == symbols)
            .map(|(k, _)| k.to_string())
            .unwrap_or_default();
        Some(GroupFrom {
            object,
            symbols,
            objects: counts.len(),
            unattributed,
        })
    }

    /// Up to [`EXAMPLES`] of `members`, of distinct patterns first (a static, its guard
    /// variable and the function holding them say more than three statics), shown sorted.
    fn examples<'e>(&self, members: impl Iterator<Item = &'e str>) -> Examples {
        let mut all: Vec<(String, String, String)> = members
            .map(|raw| {
                let n = self.names.lookup(raw);
                (
                    n.demangled(raw).into_owned(),
                    n.pattern().to_string(),
                    raw.to_string(),
                )
            })
            .collect();
        all.sort();
        all.dedup_by(|a, b| a.0 == b.0);
        let mut patterns = BTreeSet::new();
        let mut picked: Vec<&(String, String, String)> = Vec::new();
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
        let mut out = Examples::default();
        for (d, p, raw) in picked {
            out.0.push(d.clone());
            out.1.push(p.clone());
            out.2.push(raw.clone());
        }
        out
    }
}

/// The `top` largest groups, of those matching a failing group budget's pattern when only
/// group budgets failed.
fn largest_groups<'g, 'e>(
    groups: &'g BTreeMap<String, GroupAcc<'e>>,
    budgets: &[Finding],
    failing_patterns: &[&Pattern],
    top: usize,
) -> Vec<(&'g String, &'g GroupAcc<'e>)> {
    let only_groups = budgets
        .iter()
        .filter(|b| !b.passed)
        .all(|b| b.kind == Kind::Group);
    let mut ranked: Vec<(&String, &GroupAcc)> = groups
        .iter()
        .filter(|(k, _)| !only_groups || failing_patterns.iter().any(|p| p.is_match(k)))
        .collect();
    ranked.sort_by(|a, b| b.1.value.cmp(&a.1.value).then(a.0.cmp(b.0)));
    ranked.truncate(top);
    ranked
}

/// The max budgets: each counted figure against its maximum.
fn max_findings(rules: &RuleSet, figures: &[FigureLine]) -> Vec<Finding> {
    let mut budgets = Vec::new();
    for (&f, &max) in &rules.max {
        let Some(l) = figures.iter().find(|l| l.figure == f) else {
            continue;
        };
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
                "{} is {}, {} the maximum of {max}",
                f.label(),
                l.counted,
                if passed { "within" } else { "over" }
            ),
        });
    }
    budgets
}

/// The increase budgets: each figure of `increase_figures` against its baseline plus each of
/// `increases`.
fn increase_findings(
    increase_figures: &[Figure],
    increases: &[Increase],
    figures: &[FigureLine],
) -> Vec<Finding> {
    let mut budgets = Vec::new();
    for &f in increase_figures {
        let Some(l) = figures.iter().find(|l| l.figure == f) else {
            continue;
        };
        let base = l.baseline.unwrap_or(0);
        for inc in increases {
            let limit = inc.limit(base);
            let passed = l.counted as u64 <= limit;
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
                    "{} {} since the baseline, {} the allowed increase of {inc} (at most {limit})",
                    f.label(),
                    how_it_moved(base, l.counted),
                    if passed { "within" } else { "over" }
                ),
            });
        }
    }
    budgets
}

/// `stayed at 5`, `rose from 3 to 5 (+2, +66.7%)` or `fell from …`.
fn how_it_moved(base: usize, counted: usize) -> String {
    let moved = if counted > base {
        "rose"
    } else if counted < base {
        "fell"
    } else {
        "stayed"
    };
    if moved == "stayed" {
        format!("stayed at {base}")
    } else {
        format!(
            "{moved} from {base} to {counted} ({})",
            change(base, counted)
        )
    }
}

/// The group budgets: the group figure summed over the groups in `current` whose key matches
/// each pattern, against its maximum; and the patterns of those that failed.
fn group_findings<'r>(
    rules: &'r RuleSet,
    policy: &Policy,
    current: &BTreeMap<String, GroupAcc<'_>>,
) -> (Vec<Finding>, Vec<&'r Pattern>) {
    let mut budgets = Vec::new();
    let mut failing_patterns = Vec::new();
    for g in &rules.groups {
        let matched: Vec<&GroupAcc> = current
            .iter()
            .filter(|(k, _)| g.pattern.is_match(k))
            .map(|(_, v)| v)
            .collect();
        let value: usize = matched
            .iter()
            .map(|m| m.value)
            .fold(0, usize::saturating_add);
        let passed = value as u64 <= g.max;
        if !passed {
            failing_patterns.push(&g.pattern);
        }
        let mut finding = Finding {
            kind: Kind::Group,
            figure: policy.group_figure,
            pattern: Some(g.pattern.text.clone()),
            groups_matched: Some(matched.len()),
            value,
            baseline: None,
            max_increase: None,
            limit: g.max,
            passed,
            message: String::new(),
        };
        finding.message = group_sentence(&g.pattern.text, &finding);
        budgets.push(finding);
    }
    (budgets, failing_patterns)
}

/// The notes of a check: the figures below the baseline, which a new baseline would lock in.
fn notes(figures: &[FigureLine]) -> Vec<String> {
    let mut notes = Vec::new();
    let fell: Vec<String> = figures
        .iter()
        .filter_map(|l| match l.baseline {
            Some(b) if l.counted < b => Some(format!("{} {} → {}", l.figure.label(), b, l.counted)),
            _ => None,
        })
        .collect();
    if !fell.is_empty() {
        notes.push(format!(
            "below the baseline ({}): regenerate the baseline to lock in the gain",
            fell.join(", ")
        ));
    }
    notes
}

/// An offender's examples: printed names, their patterns, their raw names (same order).
#[derive(Default)]
struct Examples(Vec<String>, Vec<String>, Vec<String>);

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
    fn examples_fall_back_to_patterns_then_folding() {
        let o = Offender {
            key: "A<…>".into(),
            value: 3,
            baseline: None,
            examples: vec!["A<int>::f(int)".into(), "A<long long>::g(long long)".into()],
            examples_mangled: vec!["__Z1fIiEvv".into(), "__Z1gIxEvv".into()],
            example_patterns: vec!["A<…>::f(…)".into(), "A<…>::g(…)".into()],
            from: None,
        };
        assert_eq!(o.examples_within(20), ["A<int>::f(int)", "A<…>::g(…)"]);
        let same = Offender {
            example_patterns: vec!["A<…>::f(…)".into(), "A<…>::f(…)".into()],
            ..o
        };
        assert_eq!(
            same.examples_within(20),
            ["A<int>::f(int)", "A<…>::g(long long)"]
        );
    }
}
