//! A link-time symbol list that hides an image's weak definitions: no recompilation, one
//! relink with `-unexported_symbols_list FILE` (or, as an allow list,
//! `-exported_symbols_list FILE`), which ld64 and ld64.lld both read
//! ([`crate::origin::symbol_list`]).
//!
//! ```text
//! HideList { image, arch, kind, scope, in_scope, listed, lines, saves: Savings,
//!            weak_defines_go, kept: [Kept { symbol, name, reason, by }],
//!            unlistable: [Unlisted { symbol, reason }], unlistable_exports }
//! ```
//!
//! A listed name is hidden in the output whatever objects define it (ld64-956.6
//! Options.cpp `Options::shouldExport`, read by Resolver.cpp; lld/MachO Driver.cpp
//! `handleExplicitExports` marks it `privateExtern`), so the image no longer exports it, binds
//! its own uses directly and dyld no longer looks it up: [`savings_of_hiding`], counted as the
//! fix plan counts a candidate. When every weak definition goes and no non-weak definition
//! overrides a weak one, `MH_WEAK_DEFINES` goes too ([`super::weak_defines`]).
//!
//! Hiding is not free: a weak definition another image binds to or also defines is coalesced
//! on purpose (a singleton's function-local static, a typeinfo compared across images, a
//! template static a plug-in shares). Each such name of the scope stays off the list and is
//! reported with why ([`KeepReason`]), in this order: an importer binds it (any ordinal dyld
//! would resolve against the image: [`crate::analysis::imports::resolves_against`], weak (-3)
//! and flat (-2) lookups too; hidden, the importer fails to link and to load); an importer has
//! its own copy it looks up weakly (it would no longer share the image's); another image of the
//! process defines, binds or looks it up; the build's own list (`--keep`) names it; it is a
//! typeinfo, which may be compared by address across images (unless `--hide-typeinfo`). A name the
//! list syntax cannot carry ([`crate::origin::symbol_list::unlistable`]) is left out and
//! counted.

use super::attribute::Origins;
use super::demangle::demangle_one;
use super::fix_plan::{EntityOf, Savings, hideable, savings_of_hiding, shared_names};
use super::imports::{Target, resolves_against};
use super::weak_defines::overrides_weak_definitions;
use crate::macho::imports::ImporterSlice;
use crate::model::Image;
use crate::origin::symbol_list::{Unlistable, unlistable};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Which list is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListKind {
    /// The names to hide, for `-unexported_symbols_list`.
    Unexported,
    /// Every other export, for `-exported_symbols_list` (an allow list).
    Exported,
}

impl ListKind {
    /// The linker option that reads the list (ld64 and ld64.lld).
    pub fn option(self) -> &'static str {
        match self {
            ListKind::Unexported => "-unexported_symbols_list",
            ListKind::Exported => "-exported_symbols_list",
        }
    }
}

/// Why a weak definition of the scope stays exported.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum KeepReason {
    /// An importer binds it (flat, main-executable, two-level or weak lookup): hidden, the
    /// importer no longer links (`-undefined error`) or loads.
    ImporterBinds,
    /// An importer defines its own copy and looks it up weakly: hidden, the two no longer
    /// coalesce into one.
    ImporterShares,
    /// Another image of the process defines it, binds it or looks it up: hidden, the process
    /// would hold two copies where dyld now coalesces one.
    ProcessShares,
    /// The build's own symbol list (`--keep`) names it.
    KeepList,
    /// A typeinfo object or name (`_ZTI…`, `_ZTS…`). On every Darwin target but arm64 clang
    /// emits a weak typeinfo of default visibility as unique (lib/CodeGen/ItaniumCXXABI.cpp
    /// `classifyRTTIUniqueness`: `RUK_Unique` wherever `shouldRTTIBeUnique`), and libc++ on
    /// Apple platforms takes type_infos for unique across images (llvm.org/PR45549): `catch`
    /// and `dynamic_cast` compare their addresses, so a copy hidden at link time no longer
    /// equals another image's. arm64 marks such a typeinfo non-unique (compared by name); it
    /// is kept there too, since whether every comparison in the process reads the mark is not
    /// in the binary. Kept unless `--hide-typeinfo`.
    TypeInfo,
}

impl KeepReason {
    /// The reason in words, for a table or a list's comment.
    pub fn as_str(self) -> &'static str {
        match self {
            KeepReason::ImporterBinds => "an importer binds it",
            KeepReason::ImporterShares => "an importer shares its own copy",
            KeepReason::ProcessShares => "another image of the process defines or binds it",
            KeepReason::KeepList => "the --keep list names it",
            KeepReason::TypeInfo => "a typeinfo, compared by address across images",
        }
    }
}

/// One weak definition of the scope left exported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Kept {
    /// As stored in the binary (`__ZN4beta3RegIiE3getEv`).
    pub symbol: String,
    /// As c++filt prints it.
    pub name: String,
    /// Why it stays.
    pub reason: KeepReason,
    /// Who needs it: the importer's path, the other image's name, or the `--keep` file.
    pub by: String,
}

/// One name the list cannot carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Unlisted {
    /// As weakscan shows it (escaped).
    pub symbol: String,
    /// Why ([`Unlistable::as_str`]).
    pub reason: String,
}

/// Names the list cannot carry shown per list, at most.
pub const UNLISTED_EXAMPLES: usize = 10;

/// The list for one image, and what it saves.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct HideList {
    /// The image's path.
    pub image: String,
    /// Its arch.
    pub arch: String,
    /// Which list ([`ListKind`]).
    pub kind: ListKind,
    /// Which weak definitions were asked for: `all`, `library LIB` or `group PATTERN`.
    pub scope: String,
    /// The image's weak definitions.
    pub weak_definitions: usize,
    /// Of those, the ones in the scope.
    pub in_scope: usize,
    /// Of those, the ones the list hides.
    pub listed: usize,
    /// The lines of the list, sorted: the names hidden (unexported), or every other export
    /// (exported).
    #[serde(skip)]
    pub lines: Vec<String>,
    /// What hiding them saves, as the fix plan counts it ([`savings_of_hiding`]).
    pub saves: Savings,
    /// The image loses `MH_WEAK_DEFINES`: every weak definition goes and none of its non-weak
    /// definitions overrides a weak one.
    pub weak_defines_go: bool,
    /// The weak definitions of the scope that stay exported, by reason then name.
    pub kept: Vec<Kept>,
    /// Weak definitions of the scope the list cannot carry (white space, `#`, wildcards, `\`):
    /// how many; they stay exported.
    pub unlistable: usize,
    /// Up to [`UNLISTED_EXAMPLES`] of them.
    pub unlistable_examples: Vec<Unlisted>,
    /// Exported: other exports the allow list cannot name, so that relinking with it would
    /// hide them too (0 for an unexported list).
    pub unlistable_exports: usize,
}

/// Whether the build's own list names a raw name (errors: its matching's work bound).
pub type KeepMatcher<'a> = dyn FnMut(&str) -> crate::Result<bool> + 'a;

/// What the list is made from.
pub struct HideInputs<'a> {
    /// The image.
    pub image: &'a Image,
    /// Which list.
    pub kind: ListKind,
    /// The scope's words ([`HideList::scope`]).
    pub scope: String,
    /// Whether a weak definition (raw name) is in the scope.
    pub in_scope: &'a dyn Fn(&str) -> bool,
    /// The importers, read in the image's arch.
    pub importers: &'a [ImporterSlice],
    /// The other images of the process, by name (empty for a single image).
    pub others: &'a [(&'a str, &'a Image)],
    /// The other images of the process read as importers of the image (their binds of any
    /// ordinal that resolve against it).
    pub process_imports: &'a [ImporterSlice],
    /// The build's own list (`--keep`): its path as shown, and whether it names a raw name.
    pub keep: Option<(&'a str, &'a mut KeepMatcher<'a>)>,
    /// List typeinfo objects and names too (`--hide-typeinfo`), else keep them
    /// ([`KeepReason::TypeInfo`]).
    pub hide_typeinfo: bool,
}

/// The list of `inputs.image`'s weak definitions to hide. Errors: those of the `--keep`
/// matcher (its work bound).
pub fn hide_list(inputs: HideInputs<'_>) -> crate::Result<HideList> {
    let HideInputs {
        image,
        kind,
        scope,
        in_scope,
        importers,
        others,
        process_imports,
        mut keep,
        hide_typeinfo,
    } = inputs;
    let needs = Needs::of(image, importers, (others, process_imports));
    let mut hidden: HashSet<&str> = HashSet::new();
    let mut kept = Vec::new();
    let mut unlisted: Vec<(Unlistable, &str)> = Vec::new();
    let mut scoped = 0;
    for w in image.weak_definitions.iter().map(|w| w.name.as_str()) {
        if !in_scope(w) {
            continue;
        }
        scoped += 1;
        let mut reason = needs.get(w).map(|(r, by)| (*r, by.to_string()));
        if reason.is_none()
            && let Some((path, matches)) = keep.as_mut()
            && matches(w)?
        {
            reason = Some((KeepReason::KeepList, path.to_string()));
        }
        if reason.is_none() && !hide_typeinfo && is_typeinfo(w) {
            reason = Some((KeepReason::TypeInfo, "--hide-typeinfo lists it".to_string()));
        }
        if let Some((reason, by)) = reason {
            kept.push(Kept {
                symbol: w.to_string(),
                name: demangle_one(w).demangled(w).into_owned(),
                reason,
                by,
            });
            continue;
        }
        match unlistable(w) {
            Some(why) => unlisted.push((why, w)),
            None => {
                hidden.insert(w);
            }
        }
    }
    kept.sort_by(|a, b| (a.reason, &a.symbol).cmp(&(b.reason, &b.symbol)));
    unlisted.sort_unstable();
    let (lines, unlistable_exports) = lines(image, kind, &hidden);
    let saves = savings_of_hiding(image, &hidden);
    Ok(HideList {
        image: image.path.to_string(),
        arch: image.arch.clone().unwrap_or_default(),
        kind,
        scope,
        weak_definitions: image.weak_definitions.len(),
        in_scope: scoped,
        listed: hidden.len(),
        lines,
        weak_defines_go: !image.weak_definitions.is_empty()
            && hidden.len() == image.weak_definitions.len()
            && !overrides_weak_definitions(image),
        saves,
        kept,
        unlistable: unlisted.len(),
        unlistable_examples: unlisted
            .iter()
            .take(UNLISTED_EXAMPLES)
            .map(|(why, w)| Unlisted {
                symbol: crate::text::escape(w).into_owned(),
                reason: why.as_str().to_string(),
            })
            .collect(),
        unlistable_exports,
    })
}

/// `raw` (with its Mach-O `_`) names a typeinfo object (`_ZTI`) or a typeinfo name (`_ZTS`).
fn is_typeinfo(raw: &str) -> bool {
    let name = raw.strip_prefix('_').unwrap_or(raw);
    name.starts_with("_ZTI") || name.starts_with("_ZTS")
}

/// The list's lines, sorted, and (exported) how many exports it cannot name.
fn lines(image: &Image, kind: ListKind, hidden: &HashSet<&str>) -> (Vec<String>, usize) {
    let mut lines: Vec<String> = match kind {
        ListKind::Unexported => hidden.iter().map(|n| n.to_string()).collect(),
        ListKind::Exported => {
            let e = &image.other_exports;
            let all = image
                .weak_definitions
                .iter()
                .map(|w| std::borrow::Cow::Borrowed(w.name.as_str()))
                .chain((0..e.len()).map(|i| e.name(i)));
            let mut unnamed = 0;
            let mut out = Vec::new();
            for n in all.filter(|n| !hidden.contains(n.as_ref())) {
                if unlistable(&n).is_some() {
                    unnamed += 1;
                } else {
                    out.push(n.into_owned());
                }
            }
            out.sort_unstable();
            out.dedup();
            return (out, unnamed);
        }
    };
    lines.sort_unstable();
    (lines, 0)
}

/// Per raw name, why it must stay exported (the first reason of [`KeepReason`]'s order) and
/// who needs it, from the importers and the other images of the process (their weak
/// definitions, weak binds and lookups, and every bind of theirs that resolves against the
/// image).
struct Needs<'a> {
    by_name: HashMap<&'a str, (KeepReason, &'a str)>,
}

impl<'a> Needs<'a> {
    fn of(
        image: &Image,
        importers: &'a [ImporterSlice],
        (others, process_imports): (&'a [(&'a str, &'a Image)], &'a [ImporterSlice]),
    ) -> Self {
        let target = Target {
            filetype: image.filetype,
            install_name: image
                .linkage
                .as_ref()
                .and_then(|l| l.install_name.as_deref()),
        };
        let mut by_name: HashMap<&'a str, (KeepReason, &'a str)> = HashMap::new();
        let mut note = |name: &'a str, reason: KeepReason, by: &'a str| {
            let e = by_name.entry(name).or_insert((reason, by));
            if reason < e.0 {
                *e = (reason, by);
            }
        };
        for imp in importers {
            for i in &imp.imports {
                if resolves_against(imp, i, &target).is_some() {
                    note(&i.name, KeepReason::ImporterBinds, &imp.path);
                }
            }
            for n in &imp.defines_itself {
                note(n, KeepReason::ImporterShares, &imp.path);
            }
        }
        for imp in process_imports {
            for i in &imp.imports {
                if resolves_against(imp, i, &target).is_some() {
                    note(&i.name, KeepReason::ProcessShares, &imp.path);
                }
            }
        }
        for (shown, other) in others {
            let names = other
                .weak_definitions
                .iter()
                .map(|w| w.name.as_str())
                .chain(other.bind_targets.iter().map(|t| t.symbol.as_str()))
                .chain(other.lookups.iter().map(|l| l.symbol.as_str()));
            for n in names {
                note(n, KeepReason::ProcessShares, shown);
            }
        }
        Needs { by_name }
    }

    fn get(&self, raw: &str) -> Option<&(KeepReason, &'a str)> {
        self.by_name.get(raw)
    }
}

/// The weak definitions of `image` that come from the library keyed `library` (as the fix plan
/// keys it, [`super::fix_plan::Candidate::library`]): those the plan credits to it
/// ([`hideable`]) and the ones it shares with other libraries ([`shared_names`]: a link-time
/// list hides a name whatever defines it). `Err` holds every library key of the image, sorted,
/// when none comes from `library`.
pub fn of_library<'i>(
    image: &'i Image,
    origins: &'i Origins<'i>,
    names: &(impl EntityOf + ?Sized),
    library: &str,
) -> Result<HashSet<&'i str>, Vec<String>> {
    let mut keys: Vec<String> = Vec::new();
    let mut out: HashSet<&'i str> = HashSet::new();
    for h in hideable(image, origins, names) {
        if h.library == library {
            out.insert(h.name);
        }
        keys.push(h.library.to_string());
    }
    let weak: HashSet<&str> = image
        .weak_definitions
        .iter()
        .map(|w| w.name.as_str())
        .collect();
    for (set, symbols) in shared_names(origins) {
        if set.contains(&library) {
            out.extend(symbols.into_iter().filter(|s| weak.contains(s)));
        }
        keys.extend(set.iter().map(|l| l.to_string()));
    }
    if out.is_empty() {
        keys.sort_unstable();
        keys.dedup();
        return Err(keys);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BindTarget, MH_EXECUTE, Site, Source, WeakDefinition};

    /// A main executable that exports and weak-binds `defs`.
    fn image(defs: &[&str]) -> Image {
        Image {
            path: "app".into(),
            name: "app".into(),
            arch: Some("x86_64".into()),
            filetype: Some(MH_EXECUTE),
            flags: Some(0),
            fixup_format: None,
            weak_definitions: defs
                .iter()
                .map(|d| WeakDefinition {
                    name: (*d).into(),
                    thread_local: false,
                    address: None,
                })
                .collect(),
            other_exports: Default::default(),
            bind_targets: defs
                .iter()
                .map(|d| BindTarget {
                    symbol: (*d).into(),
                    addend: 0,
                    sites: vec![Site {
                        address: 0,
                        segment_index: Some(0),
                    }],
                    defined_here: true,
                    supplier: None,
                })
                .collect(),
            strong_overrides: vec![],
            lookups: vec![],
            source: Source::Binary,
            attribution: None,
            uuid: None,
            linkage: None,
        }
    }

    fn list(im: &Image, hide_typeinfo: bool) -> HideList {
        hide_list(HideInputs {
            image: im,
            kind: ListKind::Unexported,
            scope: "all".into(),
            in_scope: &|_| true,
            importers: &[],
            others: &[],
            process_imports: &[],
            keep: None,
            hide_typeinfo,
        })
        .unwrap()
    }

    #[test]
    fn typeinfo_stays_exported_unless_asked_for() {
        let im = image(&["__ZTI3Foo", "__ZTS3Foo", "__ZTV3Foo", "__Z1fv"]);
        let l = list(&im, false);
        assert_eq!(l.lines, ["__Z1fv", "__ZTV3Foo"]);
        let kept: Vec<(&str, KeepReason)> = l
            .kept
            .iter()
            .map(|k| (k.symbol.as_str(), k.reason))
            .collect();
        assert_eq!(
            kept,
            [
                ("__ZTI3Foo", KeepReason::TypeInfo),
                ("__ZTS3Foo", KeepReason::TypeInfo)
            ]
        );
        assert!(!l.weak_defines_go);
        let l = list(&im, true);
        assert_eq!(l.listed, 4);
        assert!(l.weak_defines_go && l.kept.is_empty());
        assert_eq!(l.saves.weak_bound_symbols, 4);
    }

    #[test]
    fn another_image_of_the_process_keeps_what_it_defines_binds_or_looks_up() {
        let im = image(&["__Z1fv", "__Z1gv", "__Z1hv"]);
        let other = image(&["__Z1gv"]);
        let others = [("Contents/Frameworks/libx.dylib", &other)];
        let l = hide_list(HideInputs {
            image: &im,
            kind: ListKind::Exported,
            scope: "all".into(),
            in_scope: &|_| true,
            importers: &[],
            others: &others,
            process_imports: &[],
            keep: None,
            hide_typeinfo: false,
        })
        .unwrap();
        assert_eq!(l.kept.len(), 1);
        assert_eq!(
            (l.kept[0].reason, l.kept[0].by.as_str()),
            (KeepReason::ProcessShares, "Contents/Frameworks/libx.dylib")
        );
        // The allow list: every export but the two hidden.
        assert_eq!(l.lines, ["__Z1gv"]);
    }
}
