//! What the HTML report (`weakscan report`) shows, independent of HTML: the headline and the
//! fix (the lines `scan` and `diff` print first, [`crate::output::story`]) with the fix plan,
//! the totals of each build, the treemap's hierarchy, the group and symbol rows with the object
//! each comes from, the series across builds with its largest increase and decrease, and the
//! fix hints. [`crate::output::html`] renders it.
//!
//! ```text
//! Page { title, view: scan | diff | trend, builds: [label],
//!        headline: [line], fix: [line], fix_plan: FixPlan (of the newest build),
//!        process_fix_plan: [ProcessCandidate] (when the newest build is a process),
//!        totals: [ (figure, [value per build]) ],
//!        tree: treemap::Node (the last two builds: old → new), levels: [level name],
//!        groups: [GroupRow], symbols: [SymbolRow] (largest first, cut to a limit),
//!        series: Option<Series> (trend: one value per build and figure, the marked steps),
//!        steps: [Step] (trend: the largest increase and the largest decrease),
//!        hints: [fix] }
//! ```

use super::attribute::OriginLevel;
use super::check::FIX;
use super::demangle::Demangled;
use super::fix_plan::FixPlan;
use super::group::{GroupBy, GroupFrom, GroupStats};
use super::process_fix_plan::ProcessCandidate;
use super::report::PairReport;
use super::tally::tally;
use super::treemap::{self, Figures, Node};
use crate::model::Image;
pub use crate::text::{NAME_LIMIT, clip_name};
use std::collections::{BTreeMap, BTreeSet};

/// Which view a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// One build.
    Scan,
    /// Two builds.
    Diff,
    /// Three builds or more: the series, and the diff at the largest step.
    Trend,
}

/// One group of the groups table (by template). Names are clipped to [`NAME_LIMIT`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRow {
    /// The group key.
    pub key: String,
    /// Old figures (zero in a scan).
    pub old: Figures,
    /// New figures.
    pub new: Figures,
    /// Weak-bound symbols in the group, old and new.
    pub symbols: (usize, usize),
    /// A member as c++filt prints it, and its raw name.
    pub example: (String, String),
    /// Where its symbols come from (the new build's when it has the group; [`GroupFrom`]),
    /// its object key clipped; `None` without attribution.
    pub from: Option<GroupFrom>,
    /// The old build's key of a group renamed only by a versioned namespace
    /// ([`super::diff::version_renames`]), clipped: `old` holds that key's figures.
    pub renamed_from: Option<String>,
}

/// One symbol of the symbols table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolRow {
    /// As GNU c++filt prints it, clipped to [`NAME_LIMIT`].
    pub symbol: String,
    /// The raw Mach-O name, whole.
    pub mangled: String,
    /// Its template group, clipped to [`NAME_LIMIT`].
    pub group: String,
    /// The object it comes from (`--by object`'s key, clipped), `None` without attribution.
    pub from: Option<String>,
    /// Old figures (zero in a scan, or when added).
    pub old: Figures,
    /// New figures (zero when removed).
    pub new: Figures,
}

/// Figures across builds, for the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Each figure's name and its value per build (`None` where a build lacks it).
    pub lines: Vec<(String, Vec<Option<usize>>)>,
    /// The step (index of the build after it) the treemap and tables compare: the largest
    /// change of the first line.
    pub largest_step: Option<usize>,
    /// The step of the largest increase of the first line (`None`: none increased it).
    pub increase: Option<usize>,
    /// The step of the largest decrease of the first line (`None`: none decreased it).
    pub decrease: Option<usize>,
}

/// One step of a trend told on its own: the largest increase or the largest decrease.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// An increase of lookups (else a decrease).
    pub increase: bool,
    /// The index of the build after the step (the one before is `after - 1`).
    pub after: usize,
    /// The step's headline ([`crate::output::story::diff_headline`]).
    pub headline: Vec<String>,
    /// Its fix block ([`crate::output::story::diff_fix`]; empty for a decrease).
    pub fix: Vec<String>,
    /// Its groups whose lookups changed most, at most [`STEP_GROUPS`].
    pub groups: Vec<GroupRow>,
    /// Its groups that changed in all.
    pub groups_changed: usize,
}

/// A whole report page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Title (the inputs: each path with its arch, or its image name for a log).
    pub title: String,
    /// Scan, diff or trend.
    pub view: View,
    /// One label per build, in order ([`crate::analysis::labels`]): how every part of the
    /// page names a build.
    pub builds: Vec<String>,
    /// Each figure and its value per build.
    pub totals: Vec<(String, Vec<Option<usize>>)>,
    /// The treemap's hierarchy (of the last build, against the one before in a diff or at the
    /// largest step of a trend).
    pub tree: Node,
    /// Its level names, top first.
    pub levels: Vec<&'static str>,
    /// The labels of the two builds the treemap and the tables compare (equal in a scan).
    pub compared: (String, String),
    /// Groups by template, largest |Δ lookups| (diff) or lookups (scan) first.
    pub groups: Vec<GroupRow>,
    /// Symbols, in the same order, cut to `symbols_limit`.
    pub symbols: Vec<SymbolRow>,
    /// Symbols in all, before the cut.
    pub symbols_total: usize,
    /// The chart (trend only).
    pub series: Option<Series>,
    /// What to do about leaked weak symbols.
    pub hints: Vec<&'static str>,
    /// The answer first: one to three lines (filled in by the command from
    /// [`crate::output::story`]).
    pub headline: Vec<String>,
    /// The `fix:` block, as `scan` and `diff` print it (empty when nothing leaks).
    pub fix: Vec<String>,
    /// The label of the build the fix plan is of (the newest).
    pub fix_of: String,
    /// The newest build's fix plan ([`crate::analysis::fix_plan`]); empty when the newest
    /// build is a whole process, whose plan is [`Page::process_fix_plan`].
    pub fix_plan: FixPlan,
    /// The newest build's fix plan when it is a whole process
    /// ([`crate::analysis::process_fix_plan`]), best first.
    pub process_fix_plan: Vec<ProcessCandidate>,
    /// Trend: the largest increase and the largest decrease, in the builds' order.
    pub steps: Vec<Step>,
}

/// Groups listed per [`Step`].
pub const STEP_GROUPS: usize = 10;

impl Step {
    /// The step `p` (of the builds `after - 1` → `after`): its headline and fix as the command
    /// told them, and its [`STEP_GROUPS`] groups that changed most.
    pub fn of(p: &PairReport, after: usize, headline: Vec<String>, fix: Vec<String>) -> Step {
        let o = p.old.stats().lookups.unwrap_or(0);
        let n = p.new.stats().lookups.unwrap_or(0);
        Step {
            increase: n > o,
            after,
            headline,
            fix,
            groups: p
                .groups
                .iter()
                .filter(|g| !g.delta.is_zero())
                .take(STEP_GROUPS)
                .map(|g| GroupRow {
                    key: clip_name(&g.key).into_owned(),
                    old: figures(&g.old),
                    new: figures(&g.new),
                    symbols: (
                        g.old.weak_bound_symbols.unwrap_or(0),
                        g.new.weak_bound_symbols.unwrap_or(0),
                    ),
                    example: (
                        clip_name(&g.example).into_owned(),
                        clip_name(&g.example_mangled).into_owned(),
                    ),
                    from: g.from.as_ref().map(clip_from),
                    renamed_from: g.renamed_from.as_deref().map(|k| clip_name(k).into_owned()),
                })
                .collect(),
            groups_changed: p.groups_changed,
        }
    }
}

/// A group's figures for a row (unknown ones as 0).
fn figures(s: &GroupStats) -> Figures {
    Figures {
        lookups: s.lookups.unwrap_or(0),
        sites: s.sites.unwrap_or(0),
        exports: s.weak_def_exports.unwrap_or(0),
    }
}

/// `f` with its object key clipped to [`NAME_LIMIT`].
fn clip_from(f: &GroupFrom) -> GroupFrom {
    GroupFrom {
        object: clip_name(&f.object).into_owned(),
        ..f.clone()
    }
}

/// Merges each group renamed only by a versioned namespace (a key only in the old build, one
/// only in the new: [`super::diff::version_renames`]) into its new key's row, as a diff does.
fn merge_renames(groups: &mut BTreeMap<String, GroupRow>, keys: &[BTreeSet<String>; 2]) {
    let old_only: Vec<&str> = keys[0].difference(&keys[1]).map(String::as_str).collect();
    let new_only: Vec<&str> = keys[1].difference(&keys[0]).map(String::as_str).collect();
    for (o, n) in super::diff::version_renames(&old_only, &new_only) {
        let Some(gone) = groups.remove(o) else {
            continue;
        };
        if let Some(row) = groups.get_mut(n) {
            row.old = gone.old;
            row.symbols.0 = gone.symbols.0;
            row.renamed_from = Some(clip_name(o).into_owned());
        }
    }
}

/// Symbols listed at most in a page's table (the treemap and the groups keep all of them).
pub const SYMBOLS_LIMIT: usize = 1500;

/// The figure rows of a build (`None` where the input cannot give it).
pub fn totals_of(image: &Image) -> Vec<(&'static str, Option<usize>)> {
    vec![
        ("weak-def lookups", image.weak_lookups()),
        ("weak-bound symbols", image.weak_bind_symbols()),
        ("weak-bind sites", image.weak_bind_sites()),
        ("weak-def exports", image.weak_def_exports()),
    ]
}

/// The page comparing `old` with `new` (`old` = `None`: a scan of `new`), labelled `labels`
/// (old's, new's: [`crate::analysis::labels`]; old's is not read in a scan). `names` must hold
/// every raw name of both; `from` gives the [`GroupFrom`] of a template group by its whole key
/// (`scan`'s and `diff`'s, so a row says what they say). The headline, the fix and the steps
/// are left empty for the command to tell.
pub fn compare(
    old: Option<&Image>,
    new: &Image,
    labels: (&str, &str),
    names: &Demangled<'_>,
    from: &dyn Fn(&str) -> Option<GroupFrom>,
) -> Page {
    let (tree, attributed) = treemap::tree(old, new, names);
    let mut groups: BTreeMap<String, GroupRow> = BTreeMap::new();
    let mut symbols: BTreeMap<&str, SymbolRow> = BTreeMap::new();
    // The keys each build has (a renamed group is in one build each).
    let mut keys: [BTreeSet<String>; 2] = Default::default();
    let old_entries = old.map(tally).unwrap_or_default();
    let new_entries = tally(new);
    for (entries, is_new) in [(&old_entries, false), (&new_entries, true)] {
        for e in entries.iter() {
            let name = names.lookup(&e.raw);
            let key = GroupBy::Template.key(&e.raw, &name, &e.origin).into_owned();
            let f = Figures {
                lookups: e.lookups,
                sites: e.sites,
                exports: e.weak_defs,
            };
            let example = || {
                (
                    clip_name(&name.demangled(&e.raw)).into_owned(),
                    clip_name(&e.raw).into_owned(),
                )
            };
            let g = groups.entry(key.clone()).or_insert_with(|| GroupRow {
                key: clip_name(&key).into_owned(),
                old: Figures::default(),
                new: Figures::default(),
                symbols: (0, 0),
                example: example(),
                from: from(&key).as_ref().map(clip_from),
                renamed_from: None,
            });
            if !keys[usize::from(is_new)].contains(&key) {
                keys[usize::from(is_new)].insert(key.clone());
            }
            let side = if is_new { &mut g.new } else { &mut g.old };
            side.lookups += f.lookups;
            side.sites += f.sites;
            side.exports += f.exports;
            if e.weak_bound {
                if is_new {
                    g.symbols.1 += 1;
                } else {
                    g.symbols.0 += 1;
                }
            }
            if is_new {
                g.example = example();
            }
            // The object of the new build when it has the symbol.
            let object =
                || attributed.then(|| clip_name(e.origin.key(OriginLevel::Object)).into_owned());
            let s = symbols.entry(e.raw.as_str()).or_insert_with(|| SymbolRow {
                symbol: clip_name(&name.demangled(&e.raw)).into_owned(),
                mangled: e.raw.clone(),
                group: clip_name(&key).into_owned(),
                from: object(),
                old: Figures::default(),
                new: Figures::default(),
            });
            if is_new {
                s.new = f;
                s.from = object();
            } else {
                s.old = f;
            }
        }
    }
    merge_renames(&mut groups, &keys);
    let delta = |o: &Figures, n: &Figures| (n.lookups as i64 - o.lookups as i64).unsigned_abs();
    let rank = |o: &Figures, n: &Figures| {
        if old.is_some() {
            (delta(o, n), n.lookups.max(o.lookups) as u64)
        } else {
            (n.lookups as u64, n.exports as u64)
        }
    };
    // Ties in the order of the whole keys (the rows keep clipped ones).
    let mut groups: Vec<(String, GroupRow)> = groups.into_iter().collect();
    groups.sort_by(|(ka, a), (kb, b)| {
        rank(&b.old, &b.new)
            .cmp(&rank(&a.old, &a.new))
            .then_with(|| ka.cmp(kb))
    });
    let groups: Vec<GroupRow> = groups.into_iter().map(|(_, g)| g).collect();
    let mut symbols: Vec<SymbolRow> = symbols.into_values().collect();
    symbols.sort_by(|a, b| {
        rank(&b.old, &b.new)
            .cmp(&rank(&a.old, &a.new))
            .then_with(|| a.symbol.cmp(&b.symbol))
    });
    let symbols_total = symbols.len();
    symbols.truncate(SYMBOLS_LIMIT);
    let input = |i: &Image| match &i.arch {
        Some(a) => format!("{} ({a})", i.path),
        None => format!("{} ({})", i.path, i.name),
    };
    let title: Vec<String> = old.iter().map(|o| input(o)).chain([input(new)]).collect();
    let old_label = old.map_or(labels.1, |_| labels.0);
    let builds: Vec<String> = old
        .iter()
        .map(|_| labels.0.to_string())
        .chain([labels.1.to_string()])
        .collect();
    let totals = totals_of(new)
        .into_iter()
        .enumerate()
        .map(|(k, (name, v))| {
            let mut values: Vec<Option<usize>> =
                old.map(|o| totals_of(o)[k].1).into_iter().collect();
            values.push(v);
            (name.to_string(), values)
        })
        .collect();
    Page {
        title: title.join(" → "),
        view: if old.is_some() {
            View::Diff
        } else {
            View::Scan
        },
        compared: (old_label.to_string(), labels.1.to_string()),
        builds,
        totals,
        tree,
        levels: treemap::levels(attributed).to_vec(),
        groups,
        symbols,
        symbols_total,
        series: None,
        hints: FIX.to_vec(),
        headline: Vec::new(),
        fix: Vec::new(),
        fix_of: labels.1.to_string(),
        fix_plan: FixPlan::default(),
        process_fix_plan: Vec::new(),
        steps: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn names_are_clipped_to_the_limit_once() {
        let short = "x".repeat(NAME_LIMIT);
        assert!(matches!(clip_name(&short), Cow::Borrowed(_)));
        for long in [
            format!("a{}z", "k".repeat(100_000)),
            format!("é{}ü", "ß".repeat(NAME_LIMIT)),
        ] {
            let c = clip_name(&long).into_owned();
            assert_eq!(c.chars().count(), NAME_LIMIT);
            assert!(c.contains('…'));
            assert_eq!(c.chars().next(), long.chars().next());
            assert_eq!(c.chars().last(), long.chars().last());
            // Clipping again changes nothing: the HTML clips what the page clipped.
            assert_eq!(clip_name(&c), c);
        }
    }
}
