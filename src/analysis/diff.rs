//! Diffing two builds: images paired by arch, groups paired by key, symbols added and removed.
//!
//! A group renamed only by a versioned namespace is one group ([`version_renames`]): ICU puts
//! its version in its namespace (`icu_73::CacheKey<…>` in Node.js 20.11.0, `icu_75::CacheKey<…>`
//! in 22.11.0), so without this each ICU group would be a removal and an addition of the same
//! size.

use super::demangle::Demangled;
use super::group::{Group, GroupStats};
use crate::model::Image;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

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
    /// The old build's key of a group renamed only by a versioned namespace
    /// ([`version_renames`]; absent otherwise): `old` is that key's figures in the old build,
    /// `new` this `key`'s in the new one (neither key is in the other build).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
}

impl GroupDelta {
    /// `icu_73 → icu_75`: the namespaces a renamed group's key changed ([`renamed`]); `None`
    /// when it was not renamed.
    pub fn rename_note(&self) -> Option<String> {
        Some(renamed(self.renamed_from.as_deref()?, &self.key))
    }
}

/// A namespace with a version suffix, followed by `::`: an identifier `NAME_DIGITS` whose NAME
/// starts with a letter (`icu_73::`, `v8_11::`; not `std::__1::`, not `x86_64` without `::`),
/// not inside another identifier.
fn versioned_namespace() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(^|[^A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*?)_[0-9]+::")
            .expect("a valid regex")
    })
}

/// `key` with the version of each versioned namespace replaced by `#` (`icu_73::A<icu_73::B>`
/// → `icu_#::A<icu_#::B>`).
pub fn unversioned(key: &str) -> Cow<'_, str> {
    versioned_namespace().replace_all(key, "${1}${2}_#::")
}

/// `icu_73 → icu_75`: the versioned namespaces of `old` that `new` has another version of,
/// each pair once, in order.
pub fn renamed(old: &str, new: &str) -> String {
    let names = |k: &str| -> Vec<String> {
        versioned_namespace()
            .captures_iter(k)
            .filter_map(|c| {
                let m = c.get(0)?.as_str();
                let lead = c.get(1).map_or(0, |l| l.len());
                Some(m[lead..m.len() - 2].to_string())
            })
            .collect()
    };
    let mut pairs: Vec<String> = Vec::new();
    for (a, b) in names(old).into_iter().zip(names(new)) {
        let p = format!("{a} → {b}");
        if a != b && !pairs.contains(&p) {
            pairs.push(p);
        }
    }
    pairs.join(", ")
}

/// The renames among the keys only in the old build (`old_only`) and only in the new one
/// (`new_only`): the pairs `(old key, new key)` that are equal but for the versions of their
/// versioned namespaces ([`unversioned`]), where that unversioned key is the key of exactly one
/// group on each side (`icu_73::CacheKey<…>` → `icu_75::CacheKey<…>`; with `icu_73` and
/// `icu_74` both only in the old build, neither is paired). In the order of `new_only`.
pub fn version_renames<'k>(old_only: &[&'k str], new_only: &[&'k str]) -> Vec<(&'k str, &'k str)> {
    let candidates = |keys: &[&'k str]| -> HashMap<String, Vec<&'k str>> {
        let mut m: HashMap<String, Vec<&'k str>> = HashMap::new();
        for &k in keys {
            if let Cow::Owned(u) = unversioned(k) {
                m.entry(u).or_default().push(k);
            }
        }
        m
    };
    let (old, new) = (candidates(old_only), candidates(new_only));
    new_only
        .iter()
        .filter_map(|&n| {
            let u = unversioned(n);
            match (
                old.get(u.as_ref())?.as_slice(),
                new.get(u.as_ref())?.as_slice(),
            ) {
                ([o], [_]) => Some((*o, n)),
                _ => None,
            }
        })
        .collect()
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
    /// The old build's key, when the group was renamed only by a versioned namespace
    /// ([`version_renames`]): `old` is then that key's index.
    pub renamed_from: Option<&'k str>,
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
            renamed_from: self.renamed_from.map(str::to_string),
        }
    }
}

/// [`diff_groups`] of two builds' `(key, figures)` lists (keys distinct within a list), without
/// their examples: a diff shows the examples of the groups it keeps only (`--top`), so the
/// others are never built (a Node.js pair: 1.1k keys, 20 shown). A group renamed only by a
/// versioned namespace ([`version_renames`]) is one entry under its new key.
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
                renamed_from: None,
            }
        })
        .collect();
    merge_renames(&mut out, old);
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

/// Merges each group renamed only by a versioned namespace into its new key's entry: the old
/// key's figures become its old figures.
fn merge_renames<'k>(out: &mut Vec<Paired<'k>>, old: &[(&'k str, GroupStats)]) {
    let side = |old_side: bool| -> Vec<&'k str> {
        out.iter()
            .filter(|p| (p.new.is_none() && old_side) || (p.old.is_none() && !old_side))
            .map(|p| p.key)
            .collect()
    };
    let renames = version_renames(&side(true), &side(false));
    if renames.is_empty() {
        return;
    }
    let from: HashMap<&str, &str> = renames.iter().map(|&(o, n)| (n, o)).collect();
    let gone: BTreeSet<&str> = renames.iter().map(|&(o, _)| o).collect();
    let at: HashMap<&str, usize> = out
        .iter()
        .filter(|p| gone.contains(p.key))
        .filter_map(|p| Some((p.key, p.old?)))
        .collect();
    for p in out.iter_mut() {
        if let Some(&o) = from.get(p.key) {
            let i = at[o];
            p.old = Some(i);
            p.old_stats = old[i].1;
            p.change = StatsDelta::between(&p.old_stats, &p.new_stats);
            p.renamed_from = Some(o);
        }
    }
    out.retain(|p| !gone.contains(p.key));
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
            .map(|s| (names.lookup(s).demangled(s).into_owned(), s.to_string()))
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
    fn versioned_namespaces_are_name_underscore_digits_before_colons() {
        assert_eq!(unversioned("icu_73::CacheKey<…>"), "icu_#::CacheKey<…>");
        assert_eq!(
            unversioned("v8::Foo<icu_73::A, v8_11::B>"),
            "v8::Foo<icu_#::A, v8_#::B>"
        );
        assert_eq!(unversioned("lib_1_2::x"), "lib_1_#::x");
        // Not versioned namespaces: libc++'s inline namespace, a version not before `::`, a
        // name without a letter first, one inside another identifier.
        for key in [
            "std::__1::basic_string<…>",
            "foo_73",
            "x::f_1()",
            "_9::x",
            "a::b_c::d",
        ] {
            assert!(
                matches!(unversioned(key), Cow::Borrowed(_)),
                "{key}: {}",
                unversioned(key)
            );
        }
        assert_eq!(
            renamed("icu_73::A<icu_73::B>", "icu_75::A<icu_75::B>"),
            "icu_73 → icu_75"
        );
    }

    #[test]
    fn a_group_renamed_only_by_a_versioned_namespace_is_one_row() {
        let zero = g("z", 0).stats;
        let d = diff_groups(
            &[
                g("icu_73::CacheKey<…>", 14),
                g("v8::A", 5),
                g("icu_73::Gone", 3),
            ],
            &[
                g("icu_75::CacheKey<…>", 16),
                g("v8::A", 5),
                g("icu_75x::Gone", 3),
            ],
            zero,
            zero,
        );
        type Row<'a> = (&'a str, Option<&'a str>, Option<usize>, Option<usize>);
        let rows: Vec<Row<'_>> = d
            .iter()
            .map(|x| {
                let from = x.renamed_from.as_deref();
                (x.key.as_str(), from, x.old.lookups, x.new.lookups)
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("icu_73::Gone", None, Some(3), Some(0)),
                ("icu_75x::Gone", None, Some(0), Some(3)),
                (
                    "icu_75::CacheKey<…>",
                    Some("icu_73::CacheKey<…>"),
                    Some(14),
                    Some(16)
                ),
                ("v8::A", None, Some(5), Some(5)),
            ]
        );
        assert_eq!(d[2].delta.lookups, Some(2));
        assert_eq!(d[2].rename_note().as_deref(), Some("icu_73 → icu_75"));
        // Two old versions of one group: which was renamed is not known; neither is paired.
        assert!(version_renames(&["icu_73::A", "icu_74::A"], &["icu_75::A"]).is_empty());
        assert!(version_renames(&["icu_73::A"], &["icu_75::A", "icu_76::A"]).is_empty());
        assert_eq!(
            version_renames(&["icu_73::A"], &["icu_75::A"]),
            [("icu_73::A", "icu_75::A")]
        );
    }

    #[test]
    fn percent() {
        assert_eq!(percent_change(Some(0), Some(5)), None);
        assert_eq!(percent_change(None, Some(5)), None);
        assert_eq!(percent_change(Some(200), Some(150)), Some(-25.0));
    }
}
