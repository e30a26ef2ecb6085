//! The policy: budgets and allowlists from a policy file (`weakscan.toml`) and from flags.
//!
//! The file is TOML, parsed with the toml crate into structs that deny unknown keys; every
//! error — TOML syntax, an unknown key, a wrong type, a bad glob or regex — becomes
//! `weakscan.toml:LINE:COLUMN: what` (exit 2). The format, with a full example, is in
//! `docs/ci.md`. In short:
//!
//! ```toml
//! [budget]                      # absolute maxima per image, counted after the allowlist
//! predicted_weak_lookups = 2000
//! [baseline]
//! file = "weakscan-baseline.json"   # relative to the policy file
//! max_increase = ["10%", 200]       # each must hold; default 0 when a baseline is given
//! [grouping]
//! by = "template"                   # what group budgets and allowed groups match
//! [groups]
//! "v8::internal::*" = 0             # glob, or "re:REGEX", = maximum
//! [allow]
//! symbols = ["__ZN4node7Realm*"]
//! [arch.arm64.budget]               # per-arch sections override the top level for one slice
//! predicted_weak_lookups = 2100
//! ```
//!
//! Precedence, lowest first: the top level of the file, its `[arch.NAME]` section for the
//! slice being checked, then the command-line flags. Maxima and group budgets are replaced key
//! by key; `max_increase` and `figures` are replaced whole; allowlists are joined.

use super::Figure;
use super::pattern::Pattern;
use crate::analysis::group::{GroupBy, GroupByName};
use crate::error::{Error, ErrorKind, Result};
use crate::macho::cursor::symbol_name;
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The policy file looked for in the working directory when `--config` is not given.
pub const DEFAULT_POLICY_FILE: &str = "weakscan.toml";

/// A maximum increase over the baseline figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Increase {
    /// At most this many more than the baseline (`50`).
    Count(u64),
    /// At most this percentage of the baseline figure more (`"10%"`); any increase over a
    /// baseline figure of 0 exceeds it.
    Percent(f64),
}

/// Largest count a maximum increase may be (10¹²): far above any real figure (Node.js 22 has
/// 7317 lookups), far below where `baseline + increase` could wrap. Larger values are refused
/// when the flag or policy is read, not silently capped.
pub const MAX_INCREASE_COUNT: u64 = 1_000_000_000_000;
/// Largest percentage a maximum increase may be (10⁶ %, a 10,000-fold growth).
pub const MAX_INCREASE_PERCENT: f64 = 1_000_000.0;

impl Increase {
    /// Parses `10%`, `2.5%` or `50`; the error says what is accepted. Counts above
    /// [`MAX_INCREASE_COUNT`] and percentages above [`MAX_INCREASE_PERCENT`] are refused.
    pub fn parse(s: &str) -> std::result::Result<Increase, String> {
        let t = s.trim();
        let bad = || format!("invalid increase {s:?}: expected a count (50) or a percentage (10%)");
        match t.strip_suffix('%') {
            Some(p) => {
                let v: f64 = p.trim().parse().map_err(|_| bad())?;
                if !(v.is_finite() && v >= 0.0) {
                    return Err(bad());
                }
                Increase::percent(v)
            }
            None => Increase::count(t.parse().map_err(|_| bad())?),
        }
    }

    /// `Count(n)`, refused above [`MAX_INCREASE_COUNT`].
    pub fn count(n: u64) -> std::result::Result<Increase, String> {
        if n > MAX_INCREASE_COUNT {
            return Err(format!(
                "invalid increase {n}: at most {MAX_INCREASE_COUNT} (a count this large allows any change; leave the increase budget out instead)"
            ));
        }
        Ok(Increase::Count(n))
    }

    /// `Percent(p)`, refused above [`MAX_INCREASE_PERCENT`].
    pub fn percent(p: f64) -> std::result::Result<Increase, String> {
        if !(p.is_finite() && (0.0..=MAX_INCREASE_PERCENT).contains(&p)) {
            return Err(format!(
                "invalid increase {p}%: at most {MAX_INCREASE_PERCENT}% (leave the increase budget out instead)"
            ));
        }
        Ok(Increase::Percent(p))
    }

    /// The largest increase this allows over `baseline`, rounded down (a percentage of 0 is 0);
    /// saturates at `u64::MAX`.
    pub fn allowance(self, baseline: usize) -> u64 {
        match self {
            Increase::Count(n) => n,
            // `as` saturates a float that does not fit (and NaN is 0, which parse refuses).
            Increase::Percent(p) => (baseline as f64 * p / 100.0).floor() as u64,
        }
    }

    /// The largest figure that passes: `baseline` plus [`Increase::allowance`], saturating, so
    /// an unchanged figure passes any increase budget.
    pub fn limit(self, baseline: usize) -> u64 {
        (baseline as u64).saturating_add(self.allowance(baseline))
    }
}

impl fmt::Display for Increase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Increase::Count(n) => write!(f, "+{n}"),
            Increase::Percent(p) => write!(f, "+{p}%"),
        }
    }
}

/// One value or a list of them: `max_increase = "10%"` or `max_increase = ["10%", 50]`.
#[derive(Debug, Clone, PartialEq)]
struct Increases(Vec<Increase>);

impl<'de> Deserialize<'de> for Increases {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        const EXPECTED: &str = "a count (50), a percentage (\"10%\") or a list of them";
        impl<'de> Visitor<'de> for V {
            type Value = Increases;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Increases, E> {
                let n = u64::try_from(v)
                    .map_err(|_| E::custom(format!("invalid increase {v}: expected {EXPECTED}")))?;
                self.visit_u64(n)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Increases, E> {
                Increase::count(v)
                    .map(|i| Increases(vec![i]))
                    .map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Increases, E> {
                Err(E::custom(format!(
                    "invalid increase {v}: write a percentage as a string (\"{v}%\") and a count as an integer"
                )))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Increases, E> {
                Increase::parse(v)
                    .map(|i| Increases(vec![i]))
                    .map_err(E::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Increases, A::Error> {
                let mut out = Vec::new();
                while let Some(Increases(one)) = seq.next_element::<Increases>()? {
                    out.extend(one);
                }
                if out.is_empty() {
                    return Err(de::Error::custom(format!(
                        "empty list: expected {EXPECTED}"
                    )));
                }
                Ok(Increases(out))
            }
        }
        d.deserialize_any(V)
    }
}

// ---- the file, as written ----

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    #[serde(default)]
    budget: BudgetTable,
    baseline: Option<BaselineTable>,
    #[serde(default)]
    grouping: GroupingTable,
    #[serde(default)]
    groups: BTreeMap<Spanned<String>, u64>,
    #[serde(default)]
    allow: AllowTable,
    #[serde(default)]
    arch: ArchTables,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BudgetTable {
    predicted_weak_lookups: Option<u64>,
    weak_def_exports: Option<u64>,
    weak_bind_symbols: Option<u64>,
    trie_probes: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineTable {
    file: Option<Spanned<String>>,
    max_increase: Option<Increases>,
    figures: Option<Vec<Figure>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArchBaselineTable {
    max_increase: Option<Increases>,
    figures: Option<Vec<Figure>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupingTable {
    by: Option<GroupByName>,
    depth: Option<Spanned<u64>>,
    figure: Option<Spanned<Figure>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowTable {
    operator_new_delete: Option<bool>,
    #[serde(default)]
    symbols: Vec<Spanned<String>>,
    #[serde(default)]
    groups: Vec<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArchAllowTable {
    #[serde(default)]
    symbols: Vec<Spanned<String>>,
    #[serde(default)]
    groups: Vec<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArchTables {
    x86_64: Option<ArchDoc>,
    x86_64h: Option<ArchDoc>,
    arm64: Option<ArchDoc>,
    arm64e: Option<ArchDoc>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArchDoc {
    #[serde(default)]
    budget: BudgetTable,
    baseline: Option<ArchBaselineTable>,
    #[serde(default)]
    groups: BTreeMap<Spanned<String>, u64>,
    #[serde(default)]
    allow: ArchAllowTable,
}

// ---- validated ----

/// A budget on the groups whose key matches `pattern`: their figure, summed, is at most `max`.
#[derive(Debug, Clone)]
pub struct GroupBudget {
    /// The glob or `re:` regex.
    pub pattern: Pattern,
    /// The maximum of the summed figure.
    pub max: u64,
}

/// Budgets and allowlists from one source (the file's top level, an arch section, or flags).
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    /// Absolute maxima per figure.
    pub max: BTreeMap<Figure, u64>,
    /// Maximum increases over the baseline (`None`: not given here).
    pub max_increase: Option<Vec<Increase>>,
    /// The figures the increases apply to (`None`: not given here; default all three).
    pub increase_figures: Option<Vec<Figure>>,
    /// Group budgets, in file order of their patterns (sorted by pattern text).
    pub groups: Vec<GroupBudget>,
    /// Symbols that may be weak: patterns over the raw or the demangled name.
    pub allow_symbols: Vec<Pattern>,
    /// Groups that may be weak: patterns over the group key.
    pub allow_groups: Vec<Pattern>,
}

impl RuleSet {
    /// Lays `top` over `self`: maxima and group budgets replaced key by key, increases and
    /// their figures replaced when given, allowlists joined.
    pub fn overlay(&mut self, top: &RuleSet) {
        self.max.extend(top.max.iter().map(|(f, m)| (*f, *m)));
        if top.max_increase.is_some() {
            self.max_increase.clone_from(&top.max_increase);
        }
        if top.increase_figures.is_some() {
            self.increase_figures.clone_from(&top.increase_figures);
        }
        for g in &top.groups {
            match self
                .groups
                .iter_mut()
                .find(|h| h.pattern.text == g.pattern.text)
            {
                Some(h) => h.max = g.max,
                None => self.groups.push(g.clone()),
            }
        }
        self.allow_symbols.extend(top.allow_symbols.iter().cloned());
        self.allow_groups.extend(top.allow_groups.iter().cloned());
    }

    /// Sets at least one budget (a maximum, an increase or a group budget).
    pub fn has_budgets(&self) -> bool {
        !self.max.is_empty() || self.max_increase.is_some() || !self.groups.is_empty()
    }
}

/// Overrides from the command line.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--baseline`.
    pub baseline: Option<PathBuf>,
    /// `--by` / `--depth`.
    pub group_by: Option<GroupBy>,
    /// `--group-figure`.
    pub group_figure: Option<Figure>,
    /// The budgets and allowlists given as flags; they apply to every arch.
    pub rules: RuleSet,
}

/// The validated policy: file and flags together.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The policy file read, if any.
    pub source: Option<PathBuf>,
    /// The baseline file (a path in the policy file is relative to the policy file).
    pub baseline: Option<PathBuf>,
    /// How symbols are grouped for group budgets, allowed groups and offending groups
    /// (default: template).
    pub group_by: GroupBy,
    /// The figure group budgets limit (default: weak-bound symbols).
    pub group_figure: Figure,
    /// The 22 operator new/delete names of dyld's treat-as-weak list may be weak (default).
    pub operator_new_delete: bool,
    /// The file's top level.
    pub common: RuleSet,
    /// The file's `[arch.NAME]` sections.
    pub arches: BTreeMap<String, RuleSet>,
    /// The command-line flags.
    pub flags: RuleSet,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            source: None,
            baseline: None,
            group_by: GroupBy::Template,
            group_figure: Figure::WeakBindSymbols,
            operator_new_delete: true,
            common: RuleSet::default(),
            arches: BTreeMap::new(),
            flags: RuleSet::default(),
        }
    }
}

impl Policy {
    /// Reads and validates the policy file at `path`.
    ///
    /// Errors: the file cannot be read (`Io`), or any problem in it, as
    /// `path:LINE:COLUMN: what` (`Policy`).
    pub fn load(path: &Path) -> Result<Policy> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
        Policy::parse(&text, path)
    }

    /// Validates the policy text `text`, read from `path` (used in messages and to resolve
    /// the baseline path).
    pub fn parse(text: &str, path: &Path) -> Result<Policy> {
        let at = |span: std::ops::Range<usize>, what: String| {
            let (line, col) = line_col(text, span.start);
            Error::at(ErrorKind::Policy, path, line, col, what)
        };
        // The toml crate quotes unknown keys and variants as written: escape what could break
        // the one-line error (fuzz finding: a key with a newline).
        let doc: FileDoc = toml::from_str(text).map_err(|e| {
            let what = symbol_name(e.message().trim().as_bytes());
            match e.span() {
                Some(span) => at(span, what),
                None => Error::new(ErrorKind::Policy, path, what),
            }
        })?;
        let mut policy = Policy {
            source: Some(path.to_path_buf()),
            ..Policy::default()
        };
        if let Some(by) = doc.grouping.by {
            let depth = match &doc.grouping.depth {
                Some(d) if *d.get_ref() == 0 || *d.get_ref() > u64::from(u16::MAX) => {
                    return Err(at(
                        d.span(),
                        format!("invalid depth {}: expected 1 to 65535", d.get_ref()),
                    ));
                }
                Some(d) => *d.get_ref() as usize,
                None => 2,
            };
            policy.group_by = by.with_depth(depth);
            if let (Some(d), false) = (&doc.grouping.depth, by == GroupByName::Namespace) {
                return Err(at(
                    d.span(),
                    "depth applies only to by = \"namespace\"".into(),
                ));
            }
        } else if let Some(d) = &doc.grouping.depth {
            return Err(at(
                d.span(),
                "depth applies only to by = \"namespace\"".into(),
            ));
        }
        if let Some(f) = &doc.grouping.figure {
            if *f.get_ref() == Figure::TrieProbes {
                return Err(at(
                    f.span(),
                    "figure cannot be trie_probes: probes belong to a process's lookups, not to groups"
                        .into(),
                ));
            }
            policy.group_figure = *f.get_ref();
        }
        if let Some(b) = doc.allow.operator_new_delete {
            policy.operator_new_delete = b;
        }
        let patterns = |list: &[Spanned<String>]| -> Result<Vec<Pattern>> {
            list.iter()
                .map(|s| Pattern::parse(s.get_ref()).map_err(|e| at(s.span(), e)))
                .collect()
        };
        let groups = |map: &BTreeMap<Spanned<String>, u64>| -> Result<Vec<GroupBudget>> {
            map.iter()
                .map(|(k, &max)| {
                    Pattern::parse(k.get_ref())
                        .map(|pattern| GroupBudget { pattern, max })
                        .map_err(|e| at(k.span(), e))
                })
                .collect()
        };
        let (increase, figures) = match doc.baseline {
            Some(b) => {
                if let Some(f) = &b.file {
                    let dir = path.parent().unwrap_or(Path::new(""));
                    policy.baseline = Some(dir.join(f.get_ref()));
                }
                (b.max_increase, b.figures)
            }
            None => (None, None),
        };
        policy.common = RuleSet {
            max: maxima(&doc.budget),
            max_increase: increase.map(|i| i.0),
            increase_figures: figures,
            groups: groups(&doc.groups)?,
            allow_symbols: patterns(&doc.allow.symbols)?,
            allow_groups: patterns(&doc.allow.groups)?,
        };
        let a = doc.arch;
        for (name, section) in [
            ("x86_64", a.x86_64),
            ("x86_64h", a.x86_64h),
            ("arm64", a.arm64),
            ("arm64e", a.arm64e),
        ] {
            let Some(s) = section else { continue };
            let (increase, figures) = match s.baseline {
                Some(b) => (b.max_increase, b.figures),
                None => (None, None),
            };
            policy.arches.insert(
                name.to_string(),
                RuleSet {
                    max: maxima(&s.budget),
                    max_increase: increase.map(|i| i.0),
                    increase_figures: figures,
                    groups: groups(&s.groups)?,
                    allow_symbols: patterns(&s.allow.symbols)?,
                    allow_groups: patterns(&s.allow.groups)?,
                },
            );
        }
        Ok(policy)
    }

    /// Lays the command-line flags over the policy.
    pub fn apply(&mut self, flags: Flags) {
        if let Some(b) = flags.baseline {
            self.baseline = Some(b);
        }
        if let Some(g) = flags.group_by {
            self.group_by = g;
        }
        if let Some(f) = flags.group_figure {
            self.group_figure = f;
        }
        self.flags = flags.rules;
    }

    /// This policy without its group budgets (a whole process: groups are budgeted per image).
    pub fn without_groups(&self) -> Policy {
        let mut p = self.clone();
        for r in p.rule_sets_mut() {
            r.groups.clear();
        }
        p
    }

    /// Only this policy's group budgets (and its allowlist), without a baseline: what each
    /// image of a process is held to.
    pub fn groups_only(&self) -> Policy {
        let mut p = self.clone();
        p.baseline = None;
        for r in p.rule_sets_mut() {
            r.max.clear();
            r.max_increase = None;
            r.increase_figures = None;
        }
        p
    }

    /// Some rule set has a group budget.
    pub fn has_group_budgets(&self) -> bool {
        !self.common.groups.is_empty()
            || !self.flags.groups.is_empty()
            || self.arches.values().any(|r| !r.groups.is_empty())
    }

    fn rule_sets_mut(&mut self) -> impl Iterator<Item = &mut RuleSet> {
        std::iter::once(&mut self.common)
            .chain(std::iter::once(&mut self.flags))
            .chain(self.arches.values_mut())
    }

    /// The rules for a slice of arch `arch`: top level, then its arch section, then flags.
    pub fn rules_for(&self, arch: &str) -> RuleSet {
        let mut rules = self.common.clone();
        if let Some(a) = self.arches.get(arch) {
            rules.overlay(a);
        }
        rules.overlay(&self.flags);
        rules
    }

    /// Some budget is set somewhere (a maximum, a group budget, an increase or a baseline).
    pub fn has_budgets(&self) -> bool {
        self.baseline.is_some()
            || self.common.has_budgets()
            || self.flags.has_budgets()
            || self.arches.values().any(RuleSet::has_budgets)
    }

    /// An increase is set without a baseline to compare with.
    pub fn increase_without_baseline(&self) -> bool {
        self.baseline.is_none()
            && (self.common.max_increase.is_some()
                || self.flags.max_increase.is_some()
                || self.arches.values().any(|r| r.max_increase.is_some()))
    }
}

fn maxima(b: &BudgetTable) -> BTreeMap<Figure, u64> {
    [
        (Figure::PredictedWeakLookups, b.predicted_weak_lookups),
        (Figure::WeakDefExports, b.weak_def_exports),
        (Figure::WeakBindSymbols, b.weak_bind_symbols),
        (Figure::TrieProbes, b.trie_probes),
    ]
    .into_iter()
    .filter_map(|(f, m)| m.map(|m| (f, m)))
    .collect()
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Policy> {
        Policy::parse(text, Path::new("weakscan.toml"))
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().message
    }

    #[test]
    fn full_example_parses_and_merges_per_arch() {
        let p = parse(
            r#"
[budget]
predicted_weak_lookups = 2000
weak_bind_symbols = 1900
[baseline]
file = "base/weakscan-baseline.json"
max_increase = ["10%", 200]
figures = ["predicted_weak_lookups"]
[grouping]
by = "namespace"
depth = 3
figure = "predicted_weak_lookups"
[groups]
"v8::internal::*" = 0
"re:^node::crypto::" = 250
[allow]
operator_new_delete = false
symbols = ["__ZN4node*"]
groups = ["std::__1::*"]
[arch.arm64.budget]
predicted_weak_lookups = 2100
[arch.arm64.groups]
"v8::internal::*" = 5
[arch.arm64.baseline]
max_increase = 50
"#,
        )
        .unwrap();
        assert_eq!(
            p.baseline,
            Some(PathBuf::from("base/weakscan-baseline.json"))
        );
        assert_eq!(p.group_by, GroupBy::Namespace(3));
        assert_eq!(p.group_figure, Figure::PredictedWeakLookups);
        assert!(!p.operator_new_delete);
        let x = p.rules_for("x86_64");
        assert_eq!(x.max[&Figure::PredictedWeakLookups], 2000);
        assert_eq!(
            x.max_increase,
            Some(vec![Increase::Percent(10.0), Increase::Count(200)])
        );
        let a = p.rules_for("arm64");
        assert_eq!(a.max[&Figure::PredictedWeakLookups], 2100);
        assert_eq!(a.max[&Figure::WeakBindSymbols], 1900);
        assert_eq!(a.max_increase, Some(vec![Increase::Count(50)]));
        assert_eq!(a.increase_figures, Some(vec![Figure::PredictedWeakLookups]));
        let v8 = a
            .groups
            .iter()
            .find(|g| g.pattern.text == "v8::internal::*")
            .unwrap();
        assert_eq!(v8.max, 5);
        assert_eq!(a.groups.len(), 2);
    }

    #[test]
    fn errors_carry_line_and_column() {
        assert_eq!(
            err("[budget]\npredicted_weak_lookup = 3\n"),
            "weakscan.toml:2:1: unknown field `predicted_weak_lookup`, expected one of `predicted_weak_lookups`, `weak_def_exports`, `weak_bind_symbols`, `trie_probes`"
        );
        assert_eq!(
            err("[budget]\nweak_def_exports = \"many\"\n"),
            "weakscan.toml:2:20: invalid type: string \"many\", expected u64"
        );
        assert_eq!(
            err("[groups]\n\"v8::[x\" = 0\n"),
            "weakscan.toml:2:1: invalid glob \"v8::[x\": unclosed character class; missing ']'"
        );
        assert_eq!(
            err("[allow]\nsymbols = [\"ok\", \"re:(\"]\n"),
            "weakscan.toml:2:18: invalid regex \"(\": unclosed group"
        );
        assert_eq!(
            err("[baseline]\nmax_increase = \"ten%\"\n"),
            "weakscan.toml:2:16: invalid increase \"ten%\": expected a count (50) or a percentage (10%)"
        );
        assert!(err("[arch.ppc.budget]\n").starts_with("weakscan.toml:1:7: unknown field `ppc`"));
        assert!(
            err("[grouping]\nby = \"color\"\n")
                .starts_with("weakscan.toml:2:6: unknown variant `color`")
        );
        assert_eq!(
            err("[grouping]\nby = \"template\"\ndepth = 2\n"),
            "weakscan.toml:3:9: depth applies only to by = \"namespace\""
        );
        assert_eq!(
            err("[grouping]\nfigure = \"trie_probes\"\n"),
            "weakscan.toml:2:10: figure cannot be trie_probes: probes belong to a process's lookups, not to groups"
        );
        assert_eq!(
            parse("[budget]\ntrie_probes = 5000\n").unwrap().common.max[&Figure::TrieProbes],
            5000
        );
    }

    #[test]
    fn increases_parse() {
        assert_eq!(Increase::parse("10%"), Ok(Increase::Percent(10.0)));
        assert_eq!(Increase::parse("2.5 %"), Ok(Increase::Percent(2.5)));
        assert_eq!(Increase::parse("50"), Ok(Increase::Count(50)));
        assert!(Increase::parse("-5%").is_err());
        assert!(Increase::parse("-5").is_err());
        assert_eq!(Increase::Percent(10.0).allowance(3133), 313);
        assert_eq!(Increase::Percent(10.0).allowance(0), 0);
    }

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("a\n…b", 5), (2, 2));
        assert_eq!(line_col("abc", 0), (1, 1));
    }
}
