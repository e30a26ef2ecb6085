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
use super::policy::{Increase, Policy, RuleSet};
use crate::analysis::check::{
    EXAMPLES, Figure, FigureLine, Finding, ImageCheck, Kind, Offender, change,
};
use crate::analysis::demangle::Demangled;
use crate::analysis::group::GroupBy;
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
            .entry(by.key(&name, &e.origin).into_owned())
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
            // By default every figure the input gives (trie probes: a process only).
            .unwrap_or_else(|| {
                Figure::ALL
                    .into_iter()
                    .filter(|f| f.of(&subject.summary).is_some())
                    .collect()
            })
    };
    let budgeted = |f: Figure| {
        rules.max.contains_key(&f)
            || increase_figures.contains(&f)
            || (!rules.groups.is_empty() && f == policy.group_figure)
    };
    let allowed_sum = |entries: &[SymbolEntry], f: Figure| -> usize {
        entries
            .iter()
            .filter(|e| {
                e.contribution(f) > 0 && allow.allows(&e.raw, &names.lookup(&e.raw), &e.origin)
            })
            .map(|e| e.contribution(f))
            .fold(0usize, usize::saturating_add)
    };

    // Figures, counted after the allowlist, here and in the baseline.
    let mut figures = Vec::new();
    for f in Figure::ALL {
        let Some(total) = f.of(&subject.summary) else {
            if budgeted(f) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    Path::new(&subject.path),
                    if f == Figure::TrieProbes {
                        format!(
                            "{f} is a figure of a whole process: give a bundle, a directory or --process"
                        )
                    } else {
                        format!("{f} is not available from this input")
                    },
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
            let limit = inc.limit(base);
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
        let value: usize = matched
            .iter()
            .map(|m| m.value)
            .fold(0, usize::saturating_add);
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
        let example = |members: &mut dyn Iterator<Item = &str>| -> Examples {
            let mut all: Vec<(String, String, String)> = members
                .map(|raw| {
                    let n = names.lookup(raw);
                    (
                        n.demangled().to_string(),
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
        };
        let grew = budgets
            .iter()
            .any(|b| !b.passed && b.kind == Kind::Increase);
        if let (true, Some(b)) = (grew, baseline) {
            let before = groups_of(&b.entries, names, &allow, policy.group_by, offender_figure);
            let mut ranked: Vec<(i128, &String, &GroupAcc)> = groups
                .iter()
                .map(|(k, g)| {
                    let old = before.get(k).map_or(0, |o| o.value);
                    (g.value as i128 - old as i128, k, g)
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
                let Examples(examples, example_patterns, examples_mangled) =
                    if added.peek().is_some() {
                        example(&mut added)
                    } else {
                        example(&mut g.members.iter().copied())
                    };
                offending_groups.push(Offender {
                    key: k.clone(),
                    value: g.value,
                    baseline: Some(before.get(k).map_or(0, |o| o.value)),
                    examples,
                    examples_mangled,
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
                let Examples(examples, example_patterns, examples_mangled) =
                    example(&mut g.members.iter().copied());
                offending_groups.push(Offender {
                    key: k.clone(),
                    value: g.value,
                    baseline: None,
                    examples,
                    examples_mangled,
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
    fn examples_fall_back_to_patterns_then_clipping() {
        let o = Offender {
            key: "A<…>".into(),
            value: 3,
            baseline: None,
            examples: vec!["A<int>::f(int)".into(), "A<long long>::g(long long)".into()],
            examples_mangled: vec!["__Z1fIiEvv".into(), "__Z1gIxEvv".into()],
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
