//! The forms of dyld line weakscan recognises, and the dyld versions that print each: a log's
//! lines say which dyld wrote them. Checked in apple-oss-distributions/dyld, tags dyld-940 …
//! dyld-1378 (the `state.log` calls of dyld/Loader.cpp, dyld/JustInTimeLoader.cpp and
//! dyld/PrebuiltLoader.cpp; dyld2: dyld-852.2 src/ImageLoaderMachO.cpp and src/ImageLoader.cpp).
//! `docs/logs.md` has the same table.
//!
//! Some forms tell versions apart: the quoted lookup lines are dyld-1231.3's, the `<%s/%s>)` bind
//! lines and the `*0x%010lX = 0x%016lX` fixup lines dyld-1323.3's. A fixup line's widths tell
//! only when they fit one format: `%012lX` prints at least 12 digits, `%016lX` exactly 16 (a
//! `%012lX` value of 16 digits has no leading zero).

use super::message::{BindTo, FixupKind, Message};
use super::prefix::Writer;
use crate::model::FormLines;

/// A dyld version, by tag, oldest first (with the first macOS that has it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dyld {
    /// dyld-852.2, the last dyld2 (macOS 11).
    D852,
    /// dyld-940 (macOS 12.0), the first dyld4.
    D940,
    /// dyld-1042.1 (macOS 13.0).
    D1042,
    /// dyld-1122.1 (macOS 14.0).
    D1122,
    /// dyld-1165.3 (macOS 14.6).
    D1165,
    /// dyld-1231.3 (macOS 15.0).
    D1231,
    /// dyld-1284.13 (macOS 15.4).
    D1284,
    /// dyld-1286.10 (macOS 15.6).
    D1286,
    /// dyld-1323.3 (macOS 26.0).
    D1323,
}

impl Dyld {
    /// `dyld-1323.3`.
    pub fn tag(self) -> &'static str {
        match self {
            Dyld::D852 => "dyld-852.2",
            Dyld::D940 => "dyld-940",
            Dyld::D1042 => "dyld-1042.1",
            Dyld::D1122 => "dyld-1122.1",
            Dyld::D1165 => "dyld-1165.3",
            Dyld::D1231 => "dyld-1231.3",
            Dyld::D1284 => "dyld-1284.13",
            Dyld::D1286 => "dyld-1286.10",
            Dyld::D1323 => "dyld-1323.3",
        }
    }

    /// The macOS release it shipped in: `26.0`.
    pub fn macos(self) -> &'static str {
        match self {
            Dyld::D852 => "11",
            Dyld::D940 => "12.0",
            Dyld::D1042 => "13.0",
            Dyld::D1122 => "14.0",
            Dyld::D1165 => "14.6",
            Dyld::D1231 => "15.0",
            Dyld::D1284 => "15.4",
            Dyld::D1286 => "15.6",
            Dyld::D1323 => "26.0",
        }
    }
}

/// The dyld versions from `from` (`None`: the oldest) to `to` (`None`: the newest), as text:
/// `dyld-1323.3 and later (macOS 26.0 and later)`.
pub fn versions(from: Option<Dyld>, to: Option<Dyld>) -> String {
    match (from, to) {
        (None, None) => "every dyld".to_string(),
        (Some(a), None) => format!("{} and later (macOS {} and later)", a.tag(), a.macos()),
        (None, Some(b)) => format!("{} and earlier (macOS {} and earlier)", b.tag(), b.macos()),
        (Some(a), Some(b)) if a == b => format!("{} (macOS {})", a.tag(), a.macos()),
        (Some(a), Some(b)) => format!(
            "{} to {} (macOS {} to {})",
            a.tag(),
            b.tag(),
            a.macos(),
            b.macos()
        ),
    }
}

/// One form of dyld line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineForm {
    /// `looking for weak-def symbol '%s':`
    LookupQuoted,
    /// `looking for weak-def symbol %s` (the cache builder's path; never at launch).
    LookupUnquoted,
    /// `  using '%s' in %s`, `  using non-weak '%s' in %s`, `  did not find unhidden '%s', …`,
    /// `  found use of '%s' in cache, …`.
    ResultQuoted,
    /// The same without quotes (verboseWeak is hard-coded false then: never printed).
    ResultUnquoted,
    /// `  found %s in map, using impl from %s`.
    FoundInMap,
    /// `<%s/bind#%llu> -> %p (%s/%s)`.
    BindParen,
    /// `<%s/bind#%llu> -> %p <%s/%s>)`.
    BindAngle,
    /// `<%s/bind#%llu> -> %p <%s/variant-table#%d('%s')>)`.
    BindVariant,
    /// `<%s/bind#%llu> -> missing-weak-bind (%s)`.
    BindMissingWeak,
    /// `<%s/bind#%llu> -> %p`, `… -> %p (%s+0x%08llX)`, `… -> missing-weak-bind`.
    BindPrebuilt,
    /// `<%s/bind#%llu(variant-table#%d)> -> %p`.
    BindPrebuiltVariant,
    /// `fixup: *0x%012lX = 0x%012lX …`.
    Fixup12,
    /// `fixup: *0x%010lX = 0x%016lX …`.
    Fixup10x16,
    /// A fixup line whose widths fit both (an address of 12 digits or more, a value of 16
    /// without a leading zero).
    FixupEither,
    /// `fixup: *0x%019lX = 0x%016lX <%s/bind#%u>` (classic relocations).
    FixupReloc19,
    /// `fixup: *0x%012lX = 0x%012lX <function-variant-table#%u>`.
    FixupFunctionVariant,
    /// `fixup: *0x%012lX = 0x%012lX <objc-…>` / `<mark …>` (prebuilt loaders).
    FixupObjC,
    /// `Setting up kernel page-in linking for %s`.
    PageIn,
    /// `%14s (%c%c%c) 0x%012llX->0x%012llX (fileOffset=0x%0llX, size=%lluKB)`.
    PageInRange,
    /// `__map_with_linking_np(%s) failed, falling back to linking in-process`.
    PageInFallback,
    /// `symbol '%s' missing from root that overrides %s. …`.
    MissingFromRoot,
    /// `cache patch: %p = 0x%0lX`.
    CachePatch,
    /// `Symbol not found: %s`.
    SymbolNotFound,
    /// dyld2 `%sbind: %s:0x%08lX = %s:%s, *0x%08lX = 0x%08lX`.
    Dyld2Bind,
    /// dyld2 `DYLD_PRINT_WEAK_BINDINGS` lines (`weak bind start:` …).
    Dyld2WeakBindings,
}

/// Every form, in the order reports list them.
pub const FORMS: [LineForm; 25] = [
    LineForm::LookupQuoted,
    LineForm::LookupUnquoted,
    LineForm::ResultQuoted,
    LineForm::ResultUnquoted,
    LineForm::FoundInMap,
    LineForm::BindParen,
    LineForm::BindAngle,
    LineForm::BindVariant,
    LineForm::BindMissingWeak,
    LineForm::BindPrebuilt,
    LineForm::BindPrebuiltVariant,
    LineForm::Fixup12,
    LineForm::Fixup10x16,
    LineForm::FixupEither,
    LineForm::FixupReloc19,
    LineForm::FixupFunctionVariant,
    LineForm::FixupObjC,
    LineForm::PageIn,
    LineForm::PageInRange,
    LineForm::PageInFallback,
    LineForm::MissingFromRoot,
    LineForm::CachePatch,
    LineForm::SymbolNotFound,
    LineForm::Dyld2Bind,
    LineForm::Dyld2WeakBindings,
];

impl LineForm {
    /// Its name in JSON: `bind_angle`.
    pub fn name(self) -> &'static str {
        match self {
            LineForm::LookupQuoted => "lookup_quoted",
            LineForm::LookupUnquoted => "lookup_unquoted",
            LineForm::ResultQuoted => "result_quoted",
            LineForm::ResultUnquoted => "result_unquoted",
            LineForm::FoundInMap => "found_in_map",
            LineForm::BindParen => "bind_paren",
            LineForm::BindAngle => "bind_angle",
            LineForm::BindVariant => "bind_variant",
            LineForm::BindMissingWeak => "bind_missing_weak",
            LineForm::BindPrebuilt => "bind_prebuilt",
            LineForm::BindPrebuiltVariant => "bind_prebuilt_variant",
            LineForm::Fixup12 => "fixup_12",
            LineForm::Fixup10x16 => "fixup_10_16",
            LineForm::FixupEither => "fixup_either",
            LineForm::FixupReloc19 => "fixup_reloc_19",
            LineForm::FixupFunctionVariant => "fixup_function_variant",
            LineForm::FixupObjC => "fixup_objc",
            LineForm::PageIn => "page_in",
            LineForm::PageInRange => "page_in_range",
            LineForm::PageInFallback => "page_in_fallback",
            LineForm::MissingFromRoot => "missing_from_root",
            LineForm::CachePatch => "cache_patch",
            LineForm::SymbolNotFound => "symbol_not_found",
            LineForm::Dyld2Bind => "dyld2_bind",
            LineForm::Dyld2WeakBindings => "dyld2_weak_bindings",
        }
    }

    /// Its format string, as dyld's source has it.
    pub fn format(self) -> &'static str {
        match self {
            LineForm::LookupQuoted => "looking for weak-def symbol '%s':",
            LineForm::LookupUnquoted => "looking for weak-def symbol %s",
            LineForm::ResultQuoted => "  using '%s' in %s",
            LineForm::ResultUnquoted => "  using %s in %s",
            LineForm::FoundInMap => "  found %s in map, using impl from %s",
            LineForm::BindParen => "<%s/bind#%llu> -> %p (%s/%s)",
            LineForm::BindAngle => "<%s/bind#%llu> -> %p <%s/%s>)",
            LineForm::BindVariant => "<%s/bind#%llu> -> %p <%s/variant-table#%d('%s')>)",
            LineForm::BindMissingWeak => "<%s/bind#%llu> -> missing-weak-bind (%s)",
            LineForm::BindPrebuilt => "<%s/bind#%llu> -> %p",
            LineForm::BindPrebuiltVariant => "<%s/bind#%llu(variant-table#%d)> -> %p",
            LineForm::Fixup12 => "fixup: *0x%012lX = 0x%012lX",
            LineForm::Fixup10x16 => "fixup: *0x%010lX = 0x%016lX",
            LineForm::FixupEither => "fixup: *0x%012lX = 0x%016lX (either)",
            LineForm::FixupReloc19 => "fixup: *0x%019lX = 0x%016lX <%s/bind#%u>",
            LineForm::FixupFunctionVariant => {
                "fixup: *0x%012lX = 0x%012lX <function-variant-table#%u>"
            }
            LineForm::FixupObjC => "fixup: *0x%012lX = 0x%012lX <objc-…>",
            LineForm::PageIn => "Setting up kernel page-in linking for %s",
            LineForm::PageInRange => {
                "%14s (%c%c%c) 0x%012llX->0x%012llX (fileOffset=0x%0llX, size=%lluKB)"
            }
            LineForm::PageInFallback => {
                "__map_with_linking_np(%s) failed, falling back to linking in-process"
            }
            LineForm::MissingFromRoot => "symbol '%s' missing from root that overrides %s. …",
            LineForm::CachePatch => "cache patch: %p = 0x%0lX",
            LineForm::SymbolNotFound => "Symbol not found: %s",
            LineForm::Dyld2Bind => "dyld: %sbind: %s:0x%08lX = %s:%s, *0x%08lX = 0x%08lX",
            LineForm::Dyld2WeakBindings => "dyld: weak bind start: … weak bind end",
        }
    }

    /// The dyld versions that print it: the first (`None`: the oldest) and the last (`None`:
    /// the newest).
    pub fn printed_by(self) -> (Option<Dyld>, Option<Dyld>) {
        use Dyld::*;
        match self {
            LineForm::LookupQuoted | LineForm::ResultQuoted | LineForm::MissingFromRoot => {
                (Some(D1231), None)
            }
            LineForm::ResultUnquoted => (Some(D940), Some(D1165)),
            LineForm::LookupUnquoted
            | LineForm::FoundInMap
            | LineForm::BindParen
            | LineForm::BindMissingWeak
            | LineForm::BindPrebuilt
            | LineForm::FixupEither
            | LineForm::FixupObjC
            | LineForm::CachePatch
            | LineForm::SymbolNotFound => (Some(D940), None),
            LineForm::BindAngle
            | LineForm::BindVariant
            | LineForm::BindPrebuiltVariant
            | LineForm::Fixup10x16
            | LineForm::FixupReloc19 => (Some(D1323), None),
            LineForm::Fixup12 => (Some(D940), Some(D1286)),
            LineForm::FixupFunctionVariant => (Some(D1284), None),
            LineForm::PageIn | LineForm::PageInRange | LineForm::PageInFallback => {
                (Some(D1042), None)
            }
            LineForm::Dyld2Bind | LineForm::Dyld2WeakBindings => (None, Some(D852)),
        }
    }

    /// Only dyld-1323.3 and later print it.
    pub fn from_1323(self) -> bool {
        self.printed_by().0 == Some(Dyld::D1323)
    }
}

/// The form of the recognized message `m`, `raw` being the message's bytes (after the
/// prefix) and `writer` who wrote it.
pub fn form_of(writer: Writer, raw: &[u8], m: &Message<'_>) -> LineForm {
    let quoted = |prefix: &[u8]| {
        if raw
            .strip_prefix(prefix)
            .is_some_and(|r| r.starts_with(b"'"))
        {
            LineForm::ResultQuoted
        } else {
            LineForm::ResultUnquoted
        }
    };
    match m {
        _ if writer == Writer::Dyld2 => match m {
            Message::Dyld2Bind { .. } => LineForm::Dyld2Bind,
            _ => LineForm::Dyld2WeakBindings,
        },
        Message::LookupStart { .. } => {
            if raw.starts_with(b"looking for weak-def symbol '") {
                LineForm::LookupQuoted
            } else {
                LineForm::LookupUnquoted
            }
        }
        Message::Using { .. } => quoted(b"  using "),
        Message::UsingNonWeak { .. } => quoted(b"  using non-weak "),
        Message::TryingSelf { .. } => quoted(b"  did not find unhidden "),
        Message::CacheOverride { .. } => quoted(b"  found use of "),
        Message::FoundInMap { .. } => LineForm::FoundInMap,
        Message::Bind { to, .. } => match to {
            BindTo::Resolved {
                angle_form: true, ..
            } => LineForm::BindAngle,
            BindTo::Resolved { .. } => LineForm::BindParen,
            BindTo::Variant { .. } => LineForm::BindVariant,
            BindTo::MissingWeak { .. } => LineForm::BindMissingWeak,
            BindTo::Prebuilt
                if raw
                    .split(|&b| b == b'>')
                    .next()
                    .is_some_and(|h| h.windows(15).any(|w| w == b"(variant-table#")) =>
            {
                LineForm::BindPrebuiltVariant
            }
            BindTo::Prebuilt => LineForm::BindPrebuilt,
        },
        Message::Fixup { kind, .. } => fixup_form(*kind, raw),
        Message::PageIn { .. } => LineForm::PageIn,
        Message::PageInRange => LineForm::PageInRange,
        Message::PageInFallback { .. } => LineForm::PageInFallback,
        Message::MissingFromRoot { .. } => LineForm::MissingFromRoot,
        Message::CachePatch => LineForm::CachePatch,
        Message::SymbolNotFound { .. } => LineForm::SymbolNotFound,
        Message::Dyld2Bind { .. } => LineForm::Dyld2Bind,
        Message::Dyld2WeakSetAllUses { .. } | Message::Dyld2WeakOther => {
            LineForm::Dyld2WeakBindings
        }
    }
}

/// The form of a `fixup:` line of `kind`, from its widths (`raw` starts with `fixup: *0x`).
fn fixup_form(kind: FixupKind, raw: &[u8]) -> LineForm {
    match kind {
        FixupKind::FunctionVariant => return LineForm::FixupFunctionVariant,
        FixupKind::ObjC => return LineForm::FixupObjC,
        _ => {}
    }
    // The parser checked the digits: each number runs to the next space (or the line's end).
    let digits = |s: &[u8]| memchr::memchr(b' ', s).unwrap_or(s.len());
    let rest = raw.get(b"fixup: *0x".len()..).unwrap_or_default();
    let address = digits(rest);
    let value = rest[address..].strip_prefix(b" = 0x");
    let leading_zero = value.is_some_and(|v| v.first() == Some(&b'0'));
    let digits = value.map(digits);
    match (address, digits) {
        (19, _) => LineForm::FixupReloc19,
        (a, _) if a < 12 => LineForm::Fixup10x16,
        (_, Some(16)) if leading_zero => LineForm::Fixup10x16,
        (_, Some(12..=15)) => LineForm::Fixup12,
        _ => LineForm::FixupEither,
    }
}

/// Lines of each form.
#[derive(Debug, Clone, Default)]
pub struct FormCounts([u64; FORMS.len()]);

impl FormCounts {
    /// One more line of `form`.
    pub fn add(&mut self, form: LineForm) {
        self.0[form as usize] += 1;
    }

    /// A form only dyld-1323.3 and later print was seen.
    pub fn from_1323(&self) -> bool {
        FORMS
            .iter()
            .any(|f| f.from_1323() && self.0[*f as usize] > 0)
    }

    /// The forms seen, with their lines, and the dyld versions that print all of them (`None`
    /// when none seen, or when no one dyld prints them all: a log of several).
    pub fn report(&self) -> (Vec<FormLines>, Option<String>) {
        let seen: Vec<LineForm> = FORMS
            .iter()
            .copied()
            .filter(|f| self.0[*f as usize] > 0)
            .collect();
        let lines = seen
            .iter()
            .map(|&f| {
                let (a, b) = f.printed_by();
                FormLines {
                    form: f.name(),
                    format: f.format(),
                    dyld: versions(a, b),
                    lines: self.0[f as usize],
                }
            })
            .collect();
        if seen.is_empty() {
            return (lines, None);
        }
        let from = seen.iter().filter_map(|f| f.printed_by().0).max();
        let to = seen.iter().filter_map(|f| f.printed_by().1).min();
        let consistent = match (from, to) {
            (Some(a), Some(b)) => a <= b,
            _ => true,
        };
        (lines, consistent.then(|| versions(from, to)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_message, split_prefix};
    use super::*;

    fn form(line: &str) -> LineForm {
        let (w, raw) = split_prefix(line.as_bytes()).unwrap();
        form_of(w, raw, &parse_message(w, raw).unwrap())
    }

    #[test]
    fn forms_are_listed_in_their_order() {
        for (i, f) in FORMS.iter().enumerate() {
            assert_eq!(*f as usize, i, "{f:?}");
        }
    }

    #[test]
    fn fixup_widths_tell_the_version_when_they_can() {
        let f = |s: &str| form(&format!("dyld[1]: fixup: {s}"));
        assert_eq!(f("*0x000104F3A2C0 = 0x000104F3A2C8"), LineForm::Fixup12);
        assert_eq!(f("*0x0104F3A2C0 = 0x00000104F3A2C8"), LineForm::Fixup10x16);
        assert_eq!(
            f("*0x000104F3A2C0 = 0x0000000104F3A2C8 <rebase>"),
            LineForm::Fixup10x16
        );
        assert_eq!(
            f("*0x000104F3A2C0 = 0x00000104F3A2C8 <rebase>"),
            LineForm::Fixup12
        );
        assert_eq!(
            f("*0x7FF80A1B2C30 = 0x8010000000001234"),
            LineForm::FixupEither
        );
        assert_eq!(
            f("*0x0104F3A2C0 (skipping missing weak bind) <a/weak-bind#0>"),
            LineForm::Fixup10x16
        );
        assert_eq!(
            f("*0x000104F3A2C0 (skipping missing weak bind) <a/weak-bind#0>"),
            LineForm::FixupEither
        );
        assert_eq!(
            f("*0x0000000000104F3A2C0 = 0x00007FF80A1B2C30 <a/bind#2>"),
            LineForm::FixupReloc19
        );
    }

    #[test]
    fn a_log_is_dated_by_the_forms_all_its_lines_share() {
        let mut c = FormCounts::default();
        c.add(form("dyld[1]: looking for weak-def symbol '_a':"));
        c.add(form("dyld[1]: <a/bind#0> -> 0x10 (a/_a)"));
        assert_eq!(
            c.report().1.as_deref(),
            Some("dyld-1231.3 and later (macOS 15.0 and later)")
        );
        assert!(!c.from_1323());
        c.add(form("dyld[1]: fixup: *0x0104F3A2C0 = 0x00000104F3A2C8"));
        assert!(c.from_1323());
        assert_eq!(
            c.report().1.as_deref(),
            Some("dyld-1323.3 and later (macOS 26.0 and later)")
        );
        c.add(form("dyld[1]: fixup: *0x000104F3A2C0 = 0x000104F3A2C8"));
        assert_eq!(
            c.report().1,
            None,
            "12-digit and 16-digit values: no one dyld"
        );
        let (lines, _) = c.report();
        let names: Vec<&str> = lines.iter().map(|l| l.form).collect();
        assert_eq!(
            names,
            ["lookup_quoted", "bind_paren", "fixup_12", "fixup_10_16"]
        );
        let mut d = FormCounts::default();
        d.add(form(
            "dyld: bind: app:0x1000 = libSystem.B.dylib:_puts, *0x1000 = 0x2000",
        ));
        assert_eq!(
            d.report().1.as_deref(),
            Some("dyld-852.2 and earlier (macOS 11 and earlier)")
        );
        let mut e = FormCounts::default();
        e.add(form("dyld[1]: <a/bind#0> -> 0x10 (a/_a)"));
        e.add(form("dyld[1]: fixup: *0x000104F3A2C0 = 0x000104F3A2C8"));
        assert_eq!(
            e.report().1.as_deref(),
            Some("dyld-940 to dyld-1286.10 (macOS 12.0 to 15.6)")
        );
    }
}
