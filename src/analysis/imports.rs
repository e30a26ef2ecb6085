//! Who imports the scanned image's exports: which imports of each importer
//! ([`crate::macho::imports`]) would resolve against the image, and whether the image's export
//! trie has them (the nodejs/node#61102 case: an export hidden, an addon that still binds it
//! fails to load).
//!
//! The imports kept are those dyld's `Loader::resolveSymbol` (dyld-1378 dyld/Loader.cpp) would
//! look up in the scanned image ([`resolves_against`]): flat lookups (library ordinal -2, and
//! every bind of an image without `MH_TWOLEVEL`, which dyld looks up flat), main-executable
//! binds (-1) when the image is an executable, two-level binds whose ordinal names the
//! image's install name, and weak-def lookups (-3) of names the importer does not define
//! itself. With chained fixups a `-bundle_loader` plug-in binds every template instantiation it
//! shares with the executable by weak lookup, never -1 (lld SyntheticSections.cpp
//! `ordinalForSymbol`: `needsWeakBind` gives `BIND_SPECIAL_DYLIB_WEAK_LOOKUP`; ld64-956.6
//! `OutputFile::needsBind` the same): hiding it in the executable fails the plug-in's load
//! ("weak-def symbol not found"). A weak lookup the importer answers with its own copy does not
//! fail (it only gets its own instance), and one the image does not export is looked for in
//! every other image (libc++'s operator new): neither is held against the image. A flat lookup searches every loaded image in load order, so one the
//! image does not export may still be found in another (libSystem): the check reports it as
//! missing from this image.

use crate::macho::bind_opcodes::{
    BIND_SPECIAL_DYLIB_FLAT_LOOKUP, BIND_SPECIAL_DYLIB_MAIN_EXECUTABLE, BIND_SPECIAL_DYLIB_SELF,
    BIND_SPECIAL_DYLIB_WEAK_LOOKUP,
};
use crate::macho::imports::{Import, ImporterSlice, MH_EXECUTE, Skip};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// How an import reaches the scanned image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// A flat-namespace lookup (`BIND_SPECIAL_DYLIB_FLAT_LOOKUP`, or an image without
    /// `MH_TWOLEVEL`): `-undefined dynamic_lookup` addons.
    FlatLookup,
    /// `BIND_SPECIAL_DYLIB_MAIN_EXECUTABLE`: bundles linked with `-bundle_loader`.
    MainExecutable,
    /// A two-level bind whose ordinal names the image's install name.
    InstallName,
    /// `BIND_SPECIAL_DYLIB_WEAK_LOOKUP` of a name the importer does not define itself: a
    /// plug-in's use of a template instantiation of its `-bundle_loader` executable (chained
    /// fixups), found in whichever image exports it.
    WeakLookup,
}

/// What the importers are held against: the scanned image's file type and install name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target<'a> {
    /// `filetype` of the image (`MH_EXECUTE` 2, `MH_DYLIB` 6, …).
    pub filetype: Option<u32>,
    /// Its `LC_ID_DYLIB` install name, for a dylib.
    pub install_name: Option<&'a str>,
}

/// How `import` of `importer` would resolve against `target`, or `None` when dyld would look
/// for it elsewhere (another dylib, the importer itself, weak-def coalescing).
pub fn resolves_against(importer: &ImporterSlice, import: &Import, target: &Target) -> Option<Via> {
    let ordinal = import.library_ordinal;
    if ordinal == BIND_SPECIAL_DYLIB_SELF {
        return None;
    }
    if ordinal == BIND_SPECIAL_DYLIB_WEAK_LOOKUP {
        return (!importer.defines(&import.name)).then_some(Via::WeakLookup);
    }
    if ordinal == BIND_SPECIAL_DYLIB_FLAT_LOOKUP || importer.flat_namespace() {
        return Some(Via::FlatLookup);
    }
    if ordinal == BIND_SPECIAL_DYLIB_MAIN_EXECUTABLE {
        return (target.filetype == Some(MH_EXECUTE)).then_some(Via::MainExecutable);
    }
    let dylib = importer
        .dylibs
        .get(usize::try_from(ordinal).ok()?.checked_sub(1)?)?;
    (target.install_name == Some(dylib.as_str())).then_some(Via::InstallName)
}

/// One import an importer needs from the image that the image does not export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MissingImport {
    /// The symbol as stored in the binaries (`__ZN3api5writeEi`).
    pub symbol: String,
    /// As c++filt prints it (`api::write(int)`; a C name without its `_`).
    pub name: String,
    /// How the importer binds it.
    pub via: Via,
    /// A weak import (`BIND_SYMBOL_FLAGS_WEAK_IMPORT`): dyld binds it to 0 instead of
    /// refusing the importer, so it does not fail the check.
    pub weak_import: bool,
    /// Bound lazily, at its first call (dyld4 binds a missing one to an abort).
    pub lazy: bool,
}

/// One importer held against one scanned image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImporterCheck {
    /// The importer's path.
    pub importer: String,
    /// The slice read (the scanned image's arch).
    pub arch: String,
    /// The scanned image's path.
    pub image: String,
    /// The importer's imports that resolve against the image ([`resolves_against`]).
    pub imports: usize,
    /// How many of them the image's export trie has.
    pub exported: usize,
    /// Every one it does not have, in the importer's bind order.
    pub missing: Vec<MissingImport>,
    /// No missing import but weak ones.
    pub passed: bool,
}

impl ImporterCheck {
    /// The missing imports that fail the check (not weak imports).
    pub fn failing(&self) -> impl Iterator<Item = &MissingImport> {
        self.missing.iter().filter(|m| !m.weak_import)
    }
}

/// Holds `importer` against the image at `image` (a path shown in the report): `exported`
/// answers whether the image's export trie has a name (as stored).
///
/// Errors: those of `exported` (a malformed trie on a name's path).
pub fn check_importer(
    importer: &ImporterSlice,
    target: &Target,
    image: &str,
    mut exported: impl FnMut(&str) -> crate::Result<bool>,
) -> crate::Result<ImporterCheck> {
    let mut imports = 0;
    let mut missing = Vec::new();
    for import in &importer.imports {
        let Some(via) = resolves_against(importer, import, target) else {
            continue;
        };
        let found = exported(&import.name)?;
        if via == Via::WeakLookup && !found {
            // Looked for in every image: another (libc++) may define it.
            continue;
        }
        imports += 1;
        if !found {
            missing.push(missing_import(import, via));
        }
    }
    Ok(ImporterCheck {
        importer: importer.path.clone(),
        arch: importer.arch.clone(),
        image: image.to_string(),
        imports,
        exported: imports - missing.len(),
        passed: missing.iter().all(|m| m.weak_import),
        missing,
    })
}

fn missing_import(import: &Import, via: Via) -> MissingImport {
    MissingImport {
        name: crate::analysis::demangle::demangle_one(&import.name)
            .demangled(&import.name)
            .into_owned(),
        symbol: import.name.clone(),
        via,
        weak_import: import.weak_import,
        lazy: import.lazy,
    }
}

/// The exports removed between two builds that one importer still imports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImporterNeeds {
    /// The importer's path.
    pub importer: String,
    /// The slice read.
    pub arch: String,
    /// Its imports that resolve against the new image.
    pub imports: usize,
    /// Those the old image exported and the new one does not, in bind order.
    pub removed: Vec<MissingImport>,
}

/// The imports of `importer` resolving against `target` (the new image) that `old` exports and
/// `new` does not. Errors: those of `old` and `new`.
pub fn removed_but_needed(
    importer: &ImporterSlice,
    target: &Target,
    mut old: impl FnMut(&str) -> crate::Result<bool>,
    mut new: impl FnMut(&str) -> crate::Result<bool>,
) -> crate::Result<ImporterNeeds> {
    let mut imports = 0;
    let mut removed = Vec::new();
    for import in &importer.imports {
        let Some(via) = resolves_against(importer, import, target) else {
            continue;
        };
        let in_old = old(&import.name)?;
        if via == Via::WeakLookup && !in_old && !new(&import.name)? {
            // Looked for in every image: neither build is where it is found.
            continue;
        }
        imports += 1;
        if in_old && !new(&import.name)? {
            removed.push(missing_import(import, via));
        }
    }
    Ok(ImporterNeeds {
        importer: importer.path.clone(),
        arch: importer.arch.clone(),
        imports,
        removed,
    })
}

/// Which importers import any of `hidden` (symbols as stored) from `target`: per importer (in
/// the order given), the names it imports, in bind order; importers that import none are left
/// out. For joining a candidate change (what it would hide) to who would break.
pub fn importers_of<'i>(
    hidden: &HashSet<std::borrow::Cow<'_, str>>,
    importers: &'i [ImporterSlice],
    target: &Target,
) -> Vec<(&'i ImporterSlice, Vec<&'i str>)> {
    importers
        .iter()
        .filter_map(|imp| {
            let names: Vec<&str> = imp
                .imports
                .iter()
                .filter(|i| hidden.contains(i.name.as_str()))
                .filter(|i| resolves_against(imp, i, target).is_some())
                .map(|i| i.name.as_str())
                .collect();
            (!names.is_empty()).then_some((imp, names))
        })
        .collect()
}

/// Files skipped below the directories of importers, by reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SkippedImporters {
    /// Why (`not Mach-O`, `without a slice of the arch`, …).
    pub reason: String,
    /// How many files.
    pub count: usize,
    /// The first few of them.
    pub examples: Vec<String>,
}

/// Example paths kept per reason.
pub const SKIPPED_EXAMPLES: usize = 3;

/// `skipped` counted by reason, in the order of [`Skip`].
pub fn count_skipped<'p>(
    skipped: impl IntoIterator<Item = (&'p std::path::Path, Skip)>,
) -> Vec<SkippedImporters> {
    let mut by: BTreeMap<Skip, (usize, Vec<String>)> = BTreeMap::new();
    for (path, why) in skipped {
        let e = by.entry(why).or_default();
        e.0 += 1;
        if e.1.len() < SKIPPED_EXAMPLES {
            e.1.push(crate::text::escape_path(path));
        }
    }
    by.into_iter()
        .map(|(why, (count, examples))| SkippedImporters {
            reason: why.describe().to_string(),
            count,
            examples,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn importer(flags: u32, imports: &[(&str, i32)]) -> ImporterSlice {
        ImporterSlice {
            path: "addon.node".into(),
            arch: "x86_64".into(),
            filetype: 8,
            flags,
            dylibs: vec![
                "/usr/lib/libSystem.B.dylib".into(),
                "@rpath/libapi.dylib".into(),
            ],
            defines_itself: vec!["_own".into()],
            imports: imports
                .iter()
                .map(|&(n, o)| Import {
                    name: n.into(),
                    library_ordinal: o,
                    weak_import: n.contains("weak"),
                    lazy: false,
                })
                .collect(),
        }
    }

    #[test]
    fn the_ordinal_says_which_image_is_searched() {
        let two_level = importer(
            0x80,
            &[
                ("_a", -2),
                ("_b", -1),
                ("_c", 2),
                ("_d", 1),
                ("_e", 0),
                ("_f", -3),
                ("_g", 9),
                ("_own", -3),
            ],
        );
        let via = |imp: &ImporterSlice, t: &Target| -> Vec<Option<Via>> {
            imp.imports
                .iter()
                .map(|i| resolves_against(imp, i, t))
                .collect()
        };
        let exe = Target {
            filetype: Some(MH_EXECUTE),
            install_name: None,
        };
        let lib = Target {
            filetype: Some(6),
            install_name: Some("@rpath/libapi.dylib"),
        };
        use Via::*;
        assert_eq!(
            via(&two_level, &exe),
            [
                Some(FlatLookup),
                Some(MainExecutable),
                None,
                None,
                None,
                Some(WeakLookup),
                None,
                None
            ]
        );
        assert_eq!(
            via(&two_level, &lib),
            [
                Some(FlatLookup),
                None,
                Some(InstallName),
                None,
                None,
                Some(WeakLookup),
                None,
                None
            ]
        );
        // Without MH_TWOLEVEL every bind but self and weak lookups is flat.
        let flat = ImporterSlice {
            flags: 0,
            ..two_level
        };
        assert_eq!(
            via(&flat, &lib),
            [
                Some(FlatLookup),
                Some(FlatLookup),
                Some(FlatLookup),
                Some(FlatLookup),
                None,
                Some(WeakLookup),
                Some(FlatLookup),
                None
            ]
        );
    }

    #[test]
    fn regression_weak_lookup_imports_of_a_bundle_loader_plugin_were_not_held_against_the_executable()
     {
        // A chained plug-in binds the executable's template instantiations by weak lookup
        // (-3); `_own` it defines itself, `__Znwm` is libc++'s.
        let imp = importer(
            0x80,
            &[("__ZN3RegIiE3addEi", -3), ("_own", -3), ("__Znwm", -3)],
        );
        let exe = Target {
            filetype: Some(MH_EXECUTE),
            install_name: None,
        };
        let hidden: HashSet<std::borrow::Cow<str>> =
            ["__ZN3RegIiE3addEi", "_own"].map(Into::into).into();
        let who = importers_of(&hidden, std::slice::from_ref(&imp), &exe);
        assert_eq!(who[0].1, ["__ZN3RegIiE3addEi"]);
        // Exported: held; not exported by this image: looked for elsewhere, not missing.
        let c = check_importer(&imp, &exe, "app", |n| Ok(n == "__ZN3RegIiE3addEi")).unwrap();
        assert_eq!((c.imports, c.exported, c.passed), (1, 1, true));
        let r = removed_but_needed(&imp, &exe, |n| Ok(n != "__Znwm"), |_| Ok(false)).unwrap();
        assert_eq!(r.removed.len(), 1);
        assert_eq!(r.removed[0].via, Via::WeakLookup);
    }

    #[test]
    fn missing_weak_imports_do_not_fail() {
        let imp = importer(0x80, &[("_a", -2), ("_weak_b", -2), ("_c", 1)]);
        let exe = Target {
            filetype: Some(MH_EXECUTE),
            install_name: None,
        };
        let c = check_importer(&imp, &exe, "node", |n| Ok(n == "_a")).unwrap();
        assert_eq!((c.imports, c.exported, c.passed), (2, 1, true));
        assert_eq!(c.missing[0].name, "weak_b");
        let c = check_importer(&imp, &exe, "node", |_| Ok(false)).unwrap();
        assert!(!c.passed);
        assert_eq!(c.failing().count(), 1);
        let r = removed_but_needed(&imp, &exe, |_| Ok(true), |n| Ok(n != "_a")).unwrap();
        assert_eq!(r.removed.len(), 1);
        let hidden: HashSet<std::borrow::Cow<str>> = ["_a", "_c"].map(Into::into).into();
        let who = importers_of(&hidden, std::slice::from_ref(&imp), &exe);
        assert_eq!(who[0].1, ["_a"]);
    }
}
