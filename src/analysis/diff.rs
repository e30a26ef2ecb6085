//! Diffing two builds: images paired by arch, groups paired by key, symbols added and removed.

use super::demangle::Demangled;
use super::group::{Group, GroupStats};
use crate::model::Image;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Signed change of each [`GroupStats`] figure (new − old); `None` where either side lacks the
/// figure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StatsDelta {
    /// Change in distinct weak-bound symbols.
    pub weak_bound_symbols: Option<i64>,
    /// Change in lookups (predicted or seen).
    pub lookups: Option<i64>,
    /// Change in fixup sites.
    pub sites: Option<i64>,
    /// Change in weak-def exports.
    pub weak_def_exports: Option<i64>,
}

impl StatsDelta {
    /// `new − old`, figure by figure.
    pub fn between(old: &GroupStats, new: &GroupStats) -> Self {
        let d = |a: Option<usize>, b: Option<usize>| Some(b? as i64 - a? as i64);
        StatsDelta {
            weak_bound_symbols: d(old.weak_bound_symbols, new.weak_bound_symbols),
            lookups: d(old.lookups, new.lookups),
            sites: d(old.sites, new.sites),
            weak_def_exports: d(old.weak_def_exports, new.weak_def_exports),
        }
    }

    /// No figure known on both sides changed.
    pub fn is_zero(&self) -> bool {
        [
            self.weak_bound_symbols,
            self.lookups,
            self.sites,
            self.weak_def_exports,
        ]
        .iter()
        .all(|d| d.unwrap_or(0) == 0)
    }
}

/// One group in both builds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GroupDelta {
    /// The grouping key.
    pub key: String,
    /// Figures in the old build (zeros, where known, if absent there).
    pub old: GroupStats,
    /// Figures in the new build (zeros if absent there).
    pub new: GroupStats,
    /// `new − old`.
    pub delta: StatsDelta,
    /// A demangled member (from the new build when it has one).
    pub example: String,
    /// `example`'s raw Mach-O symbol name.
    pub example_mangled: String,
    /// Where the group's symbols were compiled (from the new build when it has the group),
    /// when that image has an attribution and the grouping is not by origin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<super::group::GroupFrom>,
}

/// Pairs the groups of two builds by key; sorted by |Δ lookups|, then |Δ weak-bound symbols|,
/// then |Δ exports| (descending), then key. `old_zero`/`new_zero` are the figures of a group
/// absent on that side (zeros where the image has the figure).
pub fn diff_groups(
    old: &[Group],
    new: &[Group],
    old_zero: GroupStats,
    new_zero: GroupStats,
) -> Vec<GroupDelta> {
    fn key_stats(g: &[Group]) -> Vec<(&str, GroupStats)> {
        g.iter().map(|g| (g.key.as_str(), g.stats)).collect()
    }
    pair_groups(&key_stats(old), &key_stats(new), old_zero, new_zero)
        .into_iter()
        .map(|p| {
            // The example from the new build when it has the group.
            let shown = p.new.map(|i| &new[i]).or(p.old.map(|i| &old[i]));
            let mut d = p.delta(
                shown.map(|g| g.example.clone()).unwrap_or_default(),
                shown.map(|g| g.example_mangled.clone()).unwrap_or_default(),
            );
            d.from = shown.and_then(|g| g.from.clone());
            d
        })
        .collect()
}

/// A key of either build, paired ([`pair_groups`]): its figures on both sides and where it is
/// in each side's list; its example is read only if it is shown ([`Paired::delta`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired<'k> {
    /// The grouping key.
    pub key: &'k str,
    /// Figures in the old build (`old_zero` if absent there).
    pub old_stats: GroupStats,
    /// Figures in the new build (`new_zero` if absent there).
    pub new_stats: GroupStats,
    /// `new − old`.
    pub change: StatsDelta,
    /// The group's index in the old build's list, if it is there.
    pub old: Option<usize>,
    /// The group's index in the new build's list, if it is there.
    pub new: Option<usize>,
}

impl Paired<'_> {
    /// The [`GroupDelta`] with `example` (a demangled member, from the new build when it has
    /// the group) and its raw name.
    pub fn delta(&self, example: String, example_mangled: String) -> GroupDelta {
        GroupDelta {
            key: self.key.to_string(),
            old: self.old_stats,
            new: self.new_stats,
            delta: self.change,
            example,
            example_mangled,
            from: None,
        }
    }
}

/// [`diff_groups`] of two builds' `(key, figures)` lists (keys distinct within a list), without
/// their examples: a diff shows the examples of the groups it keeps only (`--top`), so the
/// others are never built (a Node.js pair: 1.1k keys, 20 shown).
pub fn pair_groups<'k>(
    old: &[(&'k str, GroupStats)],
    new: &[(&'k str, GroupStats)],
    old_zero: GroupStats,
    new_zero: GroupStats,
) -> Vec<Paired<'k>> {
    let mut by_key: BTreeMap<&str, (Option<usize>, Option<usize>)> = BTreeMap::new();
    for (i, g) in old.iter().enumerate() {
        by_key.entry(g.0).or_default().0 = Some(i);
    }
    for (i, g) in new.iter().enumerate() {
        by_key.entry(g.0).or_default().1 = Some(i);
    }
    let mut out: Vec<Paired<'k>> = by_key
        .into_iter()
        .map(|(key, (o, n))| {
            let old_stats = o.map_or(old_zero, |i| old[i].1);
            let new_stats = n.map_or(new_zero, |i| new[i].1);
            Paired {
                key,
                old_stats,
                new_stats,
                change: StatsDelta::between(&old_stats, &new_stats),
                old: o,
                new: n,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        let k = |d: &StatsDelta| {
            let abs = |x: Option<i64>| x.unwrap_or(0).unsigned_abs();
            (
                abs(d.lookups),
                abs(d.weak_bound_symbols),
                abs(d.weak_def_exports),
            )
        };
        k(&b.change).cmp(&k(&a.change)).then(a.key.cmp(b.key))
    });
    out
}

/// Weak-bound symbols (demangled) only in the new build and only in the old one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SymbolChanges {
    /// In the new build only, sorted (by printed name, then raw name).
    pub added: Vec<String>,
    /// The raw Mach-O name of each of `added`, in the same order.
    pub added_mangled: Vec<String>,
    /// In the old build only, sorted.
    pub removed: Vec<String>,
    /// The raw Mach-O name of each of `removed`, in the same order.
    pub removed_mangled: Vec<String>,
}

/// Compares the weak-bound symbol sets of two images; `None` when either input does not tell
/// its weak-bind targets (a chained image in a log without lookup lines).
pub fn symbol_changes(old: &Image, new: &Image, names: &Demangled<'_>) -> Option<SymbolChanges> {
    if !old.targets_known() || !new.targets_known() {
        return None;
    }
    fn set(i: &Image) -> BTreeSet<&str> {
        i.bind_targets.iter().map(|t| t.symbol.as_str()).collect()
    }
    let (o, n) = (set(old), set(new));
    let show = |v: Vec<&&str>| -> (Vec<String>, Vec<String>) {
        let mut out: Vec<(String, String)> = v
            .into_iter()
            .map(|s| (names.lookup(s).demangled().to_string(), s.to_string()))
            .collect();
        out.sort();
        out.into_iter().unzip()
    };
    let (added, added_mangled) = show(n.difference(&o).collect());
    let (removed, removed_mangled) = show(o.difference(&n).collect());
    Some(SymbolChanges {
        added,
        added_mangled,
        removed,
        removed_mangled,
    })
}

/// Change in percent from `old` to `new`, or `None` when `old` is 0 or either is unknown.
pub fn percent_change(old: Option<usize>, new: Option<usize>) -> Option<f64> {
    let (old, new) = (old?, new?);
    (old != 0).then(|| (new as f64 - old as f64) * 100.0 / old as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(key: &str, lookups: usize) -> Group {
        let stats = GroupStats {
            weak_bound_symbols: Some(lookups),
            lookups: Some(lookups),
            sites: Some(lookups),
            weak_def_exports: Some(0),
        };
        Group::new(key.into(), stats, key.into(), format!("__Z{key}"))
    }

    #[test]
    fn pairs_by_key_and_sorts_by_absolute_delta() {
        let zero = g("z", 0).stats;
        let d = diff_groups(
            &[g("a", 10), g("b", 5)],
            &[g("a", 9), g("c", 7), g("b", 5)],
            zero,
            zero,
        );
        let keys: Vec<(&str, Option<i64>)> = d
            .iter()
            .map(|x| (x.key.as_str(), x.delta.lookups))
            .collect();
        assert_eq!(keys, [("c", Some(7)), ("a", Some(-1)), ("b", Some(0))]);
        assert_eq!(d[0].old, zero);
        assert!(d[2].delta.is_zero());
    }

    #[test]
    fn percent() {
        assert_eq!(percent_change(Some(0), Some(5)), None);
        assert_eq!(percent_change(None, Some(5)), None);
        assert_eq!(percent_change(Some(200), Some(150)), Some(-25.0));
    }
}
