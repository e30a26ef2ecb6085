//! `weakscan verify`: a binary's predicted weak-def lookups against the lookups a dyld log
//! shows for the same image.
//!
//! Lookups are compared as multisets of raw symbol names: a symbol predicted twice (a
//! treat-as-weak name that is also a bind target) must be seen twice. When the log has no
//! lookup lines (dyld4 before macOS 15, dyld2) the weak-bind targets are compared instead
//! (one per target, as the log prints one bind line per target), and the report says so.

use super::demangle::{NameStyle, demangle_all};
use super::group::{GroupBy, NO_SUPPLIER, SupplierCount, suppliers};
use super::report::ImageSummary;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Image, LogFormat, LogRole, LookupReason, MH_WEAK_DEFINES};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What was compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Predicted lookups against `looking for weak-def symbol` lines.
    Lookups,
    /// Weak-bind targets against the weak binds recovered from bind and fixup lines (the log
    /// has no lookup lines).
    WeakBindTargets,
    /// dyld2: weak-bind targets against the `weak bind:` lines. dyld2 coalesces only names
    /// that more than one loaded image has (`ImageLoader::weakBind` merges sorted name lists),
    /// so targets not seen are expected; only targets seen but not predicted count as
    /// differences.
    CoalescedTargets,
}

/// Predicted and seen counts of one symbol or group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Counts {
    /// Predicted from the binary.
    pub predicted: usize,
    /// Seen in the log.
    pub seen: usize,
    /// Predicted but not seen (`predicted − min`).
    pub predicted_not_seen: usize,
    /// Seen but not predicted (`seen − min`).
    pub seen_not_predicted: usize,
}

impl Counts {
    /// The counts of `predicted` against `seen`.
    pub fn of(predicted: usize, seen: usize) -> Self {
        let m = predicted.min(seen);
        Counts {
            predicted,
            seen,
            predicted_not_seen: predicted - m,
            seen_not_predicted: seen - m,
        }
    }

    /// Adds `o`, figure by figure.
    pub fn add(&mut self, o: &Counts) {
        self.predicted += o.predicted;
        self.seen += o.seen;
        self.predicted_not_seen += o.predicted_not_seen;
        self.seen_not_predicted += o.seen_not_predicted;
    }

    /// `predicted_not_seen + seen_not_predicted`.
    pub fn differences(&self) -> usize {
        self.predicted_not_seen + self.seen_not_predicted
    }
}

/// One group (`--by`) of the comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct VerifyGroup {
    /// The grouping key.
    pub key: String,
    /// Its counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// The images dyld chose for the group's symbols, most first.
    pub suppliers: Vec<SupplierCount>,
    /// A demangled member (the lowest-sorted differing one, else the lowest-sorted one).
    pub example: String,
    /// `example`'s raw Mach-O name.
    pub example_mangled: String,
}

/// One symbol whose predicted and seen counts differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct VerifySymbol {
    /// Demangled name.
    pub symbol: String,
    /// Raw Mach-O name (the same as `mangled`; kept for schema compatibility).
    pub raw: String,
    /// Raw Mach-O name.
    pub mangled: String,
    /// Its counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// The image dyld chose (`null` when not seen).
    pub supplier: Option<String>,
}

/// A weak-bind target the log prints under another name than the binary binds: the name found
/// in the target image through a renamed re-export (dyld's `Loader::hasExportedSymbol` follows
/// `EXPORT_SYMBOL_FLAGS_REEXPORT` with an import name). Matched, not counted as a difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RenamedBind {
    /// dyld's bind-target index (`<image/bind#N>` of the weak-bind targets).
    pub index: usize,
    /// The name the binary binds (raw).
    pub predicted: String,
    /// The name the bind line prints (raw).
    pub seen: String,
    /// The image the log says it was bound to.
    pub supplier: Option<String>,
}

/// `weakscan verify`.
#[derive(Debug, Clone)]
pub struct VerifyReport {
    /// The binary's summary.
    pub binary: ImageSummary,
    /// The log image's summary.
    pub log: ImageSummary,
    /// What was compared.
    pub basis: Basis,
    /// Why the basis is not lookups, or how the log image was chosen.
    pub notes: Vec<String>,
    /// Totals.
    pub totals: Counts,
    /// Groups, those with differences first, cut to `--top`.
    pub groups: Vec<VerifyGroup>,
    /// Groups before the cut.
    pub groups_total: usize,
    /// Every symbol whose counts differ, sorted by demangled name.
    pub symbols: Vec<VerifySymbol>,
    /// Weak-bind targets the log prints under the name a renamed re-export led to, matched
    /// by their bind-target index (only when weak-bind targets are compared).
    pub renamed: Vec<RenamedBind>,
    /// Differences allowed.
    pub tolerance: usize,
    /// `totals.differences() <= tolerance`.
    pub agrees: bool,
    /// The grouping used.
    pub group_by: GroupBy,
    /// `_Z` names kept raw (not read within the name engine's bounds, or refused by the printer).
    pub demangle_failures: usize,
    /// The same names by why: in JSON, only the reasons that occurred.
    pub demangle_failures_by_reason: crate::analysis::demangle::FailureReasons,
}

/// The differences that count against the tolerance: all of them, or for dyld2 only the
/// targets seen but not predicted.
pub fn counted_differences(basis: Basis, totals: &Counts) -> usize {
    match basis {
        Basis::CoalescedTargets => totals.seen_not_predicted,
        Basis::Lookups | Basis::WeakBindTargets => totals.differences(),
    }
}

/// Picks the image of `log` that `binary` is, by name, never by position: `image_name` if
/// given (an image's name or full path); else the image named like the binary's file; else
/// the one named like its install name (`LC_ID_DYLIB`: its leaf, or the full path the log
/// prints); else, for a main executable, the log's main executable ([`LogRole::Main`], which
/// inserted dylibs fixed up before it are not), with a note. Returns its index in `log`.
///
/// Errors: no such image in the log (usage error listing the log's images).
pub fn pick_log_image(
    binary: &Image,
    log: &[Image],
    image_name: Option<&str>,
    notes: &mut Vec<String>,
) -> Result<usize> {
    let listed = || {
        log.iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let log_path = log.first().map_or("", |i| i.path.as_str());
    let path_of = |i: &Image| i.log().and_then(|l| l.image_path.clone());
    if let Some(want) = image_name {
        return log
            .iter()
            .position(|i| i.name == want || path_of(i).is_some_and(|p| p == want))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Usage,
                    Path::new(log_path),
                    format!("no image {want:?} in the log (images: {})", listed()),
                )
            });
    }
    if let Some(k) = log.iter().position(|i| i.name == binary.name) {
        return Ok(k);
    }
    let install_name = binary
        .linkage
        .as_ref()
        .and_then(|l| l.install_name.as_deref());
    if let Some(id) = install_name {
        let id_leaf = id.rsplit('/').next().unwrap_or(id);
        if let Some(k) = log
            .iter()
            .position(|i| i.name == id_leaf || path_of(i).is_some_and(|p| p == id))
        {
            notes.push(format!(
                "compared with the log's image {:?}, named like the install name {id:?}",
                log[k].name
            ));
            return Ok(k);
        }
    }
    let main = log
        .iter()
        .position(|i| i.log().is_some_and(|l| l.role == LogRole::Main));
    match main {
        Some(k) if binary.is_main_executable() => {
            notes.push(format!(
                "the log names no image {:?}; compared with its main executable {:?} (--image to choose)",
                binary.name, log[k].name
            ));
            Ok(k)
        }
        _ => Err(Error::new(
            ErrorKind::Usage,
            Path::new(log_path),
            format!(
                "no image {:?} in the log (images: {}); pick one with --image",
                binary.name,
                listed()
            ),
        )),
    }
}

/// The lookups of `log_image` to hold against `binary`'s predictions. The lookups no bind line
/// followed are `handleStrongWeakDefOverrides`' checks, made for the main executable when it
/// has `MH_WEAK_DEFINES` and otherwise for the first on-disk image with weak definitions and
/// opcode fixups (dyld-1378 JustInTimeLoader.cpp:714-747), which the log does not name: they
/// are left out, with a note, unless `binary` is a main executable with `MH_WEAK_DEFINES` (what
/// [`crate::model::predict_lookups`] predicts them for).
fn seen_lookups<'a>(binary: &Image, log_image: &'a Image, notes: &mut Vec<String>) -> Vec<&'a str> {
    let own_checks =
        binary.is_main_executable() && binary.flags.unwrap_or(0) & MH_WEAK_DEFINES != 0;
    let is_check = |l: &&crate::model::Lookup| l.reason == LookupReason::StrongOverrideCheck;
    let checks = log_image.lookups.iter().filter(is_check).count();
    if own_checks || checks == 0 {
        return log_image
            .lookups
            .iter()
            .map(|l| l.symbol.as_str())
            .collect();
    }
    notes.push(format!(
        "{} the log shows without a bind line {} dyld's strong-override checks (handleStrongWeakDefOverrides), made for a main executable with MH_WEAK_DEFINES, which {} is not: not compared",
        crate::text::count(checks, "lookup", "lookups"),
        if checks == 1 { "is one of" } else { "are" },
        binary.name
    ));
    log_image
        .lookups
        .iter()
        .filter(|l| !is_check(l))
        .map(|l| l.symbol.as_str())
        .collect()
}

/// Compares `binary` with `log_image`, names shown in `style`.
///
/// Errors: the log gives neither lookups nor weak-bind targets for the image (a chained image
/// in a dyld4 log before macOS 15): nothing to compare.
pub fn verify(
    binary: &Image,
    log_image: &Image,
    by: GroupBy,
    top: Option<usize>,
    tolerance: usize,
    mut notes: Vec<String>,
    style: NameStyle,
) -> Result<VerifyReport> {
    let log_src = log_image.log();
    let (basis, predicted, seen): (Basis, Vec<&str>, Vec<&str>) = if log_src
        .is_some_and(|l| l.lookups_known)
    {
        (
            Basis::Lookups,
            binary.lookups.iter().map(|l| l.symbol.as_str()).collect(),
            seen_lookups(binary, log_image, &mut notes),
        )
    } else if log_image.targets_known() {
        let dyld2 = log_src.is_some_and(|l| l.format == LogFormat::Dyld2);
        notes.push(if dyld2 {
            "dyld2 log: compared weak-bind targets; dyld2 binds only names that another loaded image also defines, so only targets seen but not predicted count as differences".to_string()
        } else {
            format!(
                "the log has no lookup lines ({}): compared weak-bind targets; the lookup count is not in the log",
                log_src.map_or("", |l| l.format.describe())
            )
        });
        (
            if dyld2 {
                Basis::CoalescedTargets
            } else {
                Basis::WeakBindTargets
            },
            binary
                .bind_targets
                .iter()
                .map(|t| t.symbol.as_str())
                .collect(),
            log_image
                .bind_targets
                .iter()
                .map(|t| t.symbol.as_str())
                .collect(),
        )
    } else {
        return Err(Error::new(
            ErrorKind::Unsupported,
            Path::new(&log_image.path),
            format!(
                "nothing to verify: the log has no lookup lines ({}) and does not tell {}'s weak binds from its regular ones (chained fixups)",
                log_src.map_or("", |l| l.format.describe()),
                log_image.name
            ),
        ));
    };
    let mut seen = seen;
    let renamed = if basis == Basis::WeakBindTargets {
        renamed_binds(binary, log_image, &predicted, &mut seen)
    } else {
        if let Some(n) = log_src.map(|l| l.renamed_binds).filter(|&n| n > 0) {
            notes.push(format!(
                "{} of the log {} the symbol found through a renamed re-export: compared by the name looked up",
                crate::text::count(n, "bind line", "bind lines"),
                if n == 1 { "names" } else { "name" }
            ));
        }
        Vec::new()
    };
    let count = |v: &[&str]| -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for s in v {
            *m.entry((*s).to_string()).or_default() += 1;
        }
        m
    };
    let (p, s) = (count(&predicted), count(&seen));
    let names = demangle_all(predicted.iter().chain(&seen).copied(), style)?;
    let supplier_of: HashMap<&str, &str> = suppliers(log_image).unwrap_or_default();
    // Origins come from the binary: the log names no objects.
    let origins = crate::analysis::attribute::Origins::of(binary);
    let mut all: Vec<&String> = p.keys().chain(s.keys()).collect();
    all.sort();
    all.dedup();
    let mut totals = Counts::default();
    let mut groups: HashMap<String, VerifyGroup> = HashMap::new();
    let mut group_suppliers: HashMap<String, HashMap<&str, usize>> = HashMap::new();
    let mut symbols = Vec::new();
    for raw in all {
        let c = Counts::of(
            p.get(raw).copied().unwrap_or(0),
            s.get(raw).copied().unwrap_or(0),
        );
        totals.add(&c);
        let name = names.lookup(raw);
        let name = name.as_ref();
        let origin = origins.origin(raw);
        let key = by.key(raw, name, &origin).into_owned();
        let g = groups.entry(key.clone()).or_insert_with(|| VerifyGroup {
            key: key.clone(),
            counts: Counts::default(),
            suppliers: Vec::new(),
            example: name.demangled(raw).into_owned(),
            example_mangled: raw.to_string(),
        });
        g.counts.add(&c);
        let differs = c.differences() > 0;
        // Members are visited in raw-name order; prefer a differing example.
        if differs && g.counts.differences() == c.differences() {
            g.example = name.demangled(raw).into_owned();
            raw.clone_into(&mut g.example_mangled);
        }
        let supplier = (c.seen > 0).then(|| {
            supplier_of
                .get(raw.as_str())
                .copied()
                .unwrap_or(NO_SUPPLIER)
        });
        if let Some(who) = supplier {
            *group_suppliers
                .entry(key)
                .or_default()
                .entry(who)
                .or_default() += 1;
        }
        if differs {
            symbols.push(VerifySymbol {
                symbol: name.demangled(raw).into_owned(),
                raw: raw.clone(),
                mangled: raw.clone(),
                counts: c,
                supplier: supplier.map(str::to_string),
            });
        }
    }
    let mut groups: Vec<VerifyGroup> = groups
        .into_values()
        .map(|mut g| {
            g.suppliers = SupplierCount::list(group_suppliers.remove(&g.key).unwrap_or_default());
            g
        })
        .collect();
    groups.sort_by(|a, b| {
        b.counts
            .differences()
            .cmp(&a.counts.differences())
            .then(b.counts.predicted.cmp(&a.counts.predicted))
            .then(b.counts.seen.cmp(&a.counts.seen))
            .then(a.key.cmp(&b.key))
    });
    let groups_total = groups.len();
    if let Some(n) = top {
        groups.truncate(n);
    }
    symbols.sort_by(|a, b| a.symbol.cmp(&b.symbol).then(a.raw.cmp(&b.raw)));
    Ok(VerifyReport {
        binary: ImageSummary::of(binary),
        log: ImageSummary::of(log_image),
        basis,
        notes,
        agrees: counted_differences(basis, &totals) <= tolerance,
        totals,
        groups,
        groups_total,
        symbols,
        renamed,
        tolerance,
        group_by: by,
        demangle_failures: names.failures,
        demangle_failures_by_reason: names.reasons,
    })
}

/// The weak-bind targets `log_image` prints under another name than `binary` binds, matched
/// by dyld's bind-target index: for opcode fixups, dyld numbers the weak-bind ("override")
/// targets in the order of the binary's weak-bind stream (`forEachBindTarget_Opcodes`), the
/// order of both lists. A pair is a renamed bind when the two lists are as long, the names
/// differ, each is one the other side lacks (`predicted` against `seen`, as multisets) and the
/// log bound it to another image (a re-export leads elsewhere). Each one found turns its entry
/// of `seen` into the predicted name, so that it is not a difference.
fn renamed_binds<'a>(
    binary: &'a Image,
    log_image: &Image,
    predicted: &[&'a str],
    seen: &mut [&'a str],
) -> Vec<RenamedBind> {
    let opcodes = |i: &Image| i.fixup_format == Some(crate::model::FixupFormat::Opcodes);
    let (b, l) = (&binary.bind_targets, &log_image.bind_targets);
    if !opcodes(binary) || !opcodes(log_image) || b.len() != l.len() || b.len() != seen.len() {
        return Vec::new();
    }
    let mut left_predicted: HashMap<&str, isize> = HashMap::new();
    for p in predicted {
        *left_predicted.entry(p).or_default() += 1;
    }
    let mut left_seen: HashMap<&str, isize> = HashMap::new();
    for s in seen.iter() {
        *left_seen.entry(s).or_default() += 1;
        *left_predicted.entry(s).or_default() -= 1;
    }
    for p in predicted {
        *left_seen.entry(p).or_default() -= 1;
    }
    let mut out = Vec::new();
    for (i, (bt, lt)) in b.iter().zip(l).enumerate() {
        let (want, got) = (bt.symbol.as_str(), lt.symbol.as_str());
        let elsewhere = lt.supplier.as_ref().is_some_and(|s| *s != log_image.name);
        if want == got || !elsewhere {
            continue;
        }
        let (p, q) = (left_predicted.get(want), left_seen.get(got));
        if p.is_some_and(|&n| n > 0) && q.is_some_and(|&n| n > 0) {
            left_predicted.entry(want).and_modify(|n| *n -= 1);
            left_seen.entry(got).and_modify(|n| *n -= 1);
            seen[i] = want;
            out.push(RenamedBind {
                index: i,
                predicted: want.to_string(),
                seen: got.to_string(),
                supplier: lt.supplier.as_ref().map(|s| s.to_string()),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_multiset_differences() {
        let c = Counts::of(3, 1);
        assert_eq!((c.predicted_not_seen, c.seen_not_predicted), (2, 0));
        let c = Counts::of(1, 4);
        assert_eq!((c.predicted_not_seen, c.seen_not_predicted), (0, 3));
        assert_eq!(c.differences(), 3);
    }
}
