//! Which translation units leak: each attributed object joined to its compile command
//! (`--compile-commands compile_commands.json`), with the visibility the command compiles with.
//!
//! For every object that contributes weak symbols to an image (weak-bound symbols, lookups or
//! weak-def exports), [`CompileDbIndex::find`] looks up its entry by the source path the
//! debug map records, else by the object path; the entry's arguments give the effective
//! `-fvisibility=` (the last one wins; none means `default`), `-fvisibility-inlines-hidden`
//! and `-fvisibility-ms-compat` ([`visibility_of`]: response files read, option values and
//! inputs after `--` not taken for options, `-Xarch_ARCH` options applied when ARCH is the
//! image's arch). When they cannot be told (a response file that
//! cannot be read, a NUL in an argument) the object's visibility is [`Compiled::Unknown`],
//! counted with the objects of no unique entry, not taken for `default`. A translation unit compiled without
//! hidden visibility exports every template instantiation and inline function it emits as a
//! weak definition: the fix is `-fvisibility=hidden` (with `-fvisibility-inlines-hidden`) on
//! that target, or explicit visibility attributes in its code.

use super::attribute::{ObjectKeys, Origins};
use crate::model::{CompiledAs, Image};
use crate::origin::compile_db::{
    CompileCommand, CompileDbIndex, Match, VisibilityFlags, target_of, visibility_of,
};
use serde::Serialize;
use std::collections::HashMap;

/// How an object was compiled, as far as the compile database tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Compiled {
    /// Its entry.
    Found {
        /// The entry's `file`, as written.
        file: String,
        /// The entry's `directory`.
        directory: String,
        /// The build target the output path names, if it names one.
        target: Option<String>,
        /// The last `-fvisibility=` value; `null` when none is given (`default`).
        visibility: Option<String>,
        /// `-fvisibility-inlines-hidden` in effect.
        inlines_hidden: bool,
        /// `-fvisibility-ms-compat` in effect.
        ms_compat: bool,
        /// `-fvisibility-inlines-hidden-static-local-var` in effect: clang's Darwin default,
        /// off with `-fno-visibility-inlines-hidden-static-local-var`.
        static_local_var: bool,
        /// Functions and variables are hidden by default (`hidden`, `internal`, ms-compat).
        hidden: bool,
    },
    /// Its entry, whose visibility cannot be told: a response file that cannot be read, an
    /// argument holding a NUL or a visibility option holding a control character, a `command`
    /// of several commands none of which compiles the file
    /// ([`crate::origin::compile_db::visibility_of`]). Counted with the objects of unknown
    /// visibility, never taken for `default`.
    Unknown {
        /// The entry's `file`, as written.
        file: String,
        /// The entry's `directory`.
        directory: String,
        /// The build target the output path names, if it names one.
        target: Option<String>,
        /// Why, on one line (e.g. `response file @flags.rsp: No such file or directory (os
        /// error 2)`).
        reason: String,
    },
    /// Several entries fit equally well (e.g. one file compiled into two targets).
    Ambiguous {
        /// How many.
        entries: usize,
    },
    /// No entry compiles its source or produces it.
    NotFound,
}

impl Compiled {
    /// Compiled with default visibility (so its weak symbols leak).
    pub fn leaks(&self) -> bool {
        matches!(self, Compiled::Found { hidden: false, .. })
    }
}

/// One object's weak symbols and its compile command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ObjectVisibility {
    /// The object key (`libfoo.a(foo.o)`).
    pub object: String,
    /// Its library key.
    pub library: String,
    /// Its source key.
    pub source: String,
    /// Distinct weak-bound symbols from it.
    pub weak_bound_symbols: usize,
    /// Predicted (or seen) weak-def lookups of its symbols.
    pub lookups: usize,
    /// Weak definitions it exports.
    pub weak_def_exports: usize,
    /// Its compile command.
    pub compiled: Compiled,
}

/// A library's objects summed: how many of its weak symbols come from translation units
/// compiled with default visibility.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LibraryVisibility {
    /// The library key.
    pub library: String,
    /// Its objects with weak symbols.
    pub objects: usize,
    /// Of those, compiled with default visibility.
    pub objects_default: usize,
    /// Of those, with no (or no unique) entry.
    pub objects_unknown: usize,
    /// Weak-bound symbols from objects compiled with default visibility.
    pub weak_bound_symbols_default: usize,
    /// Lookups of those.
    pub lookups_default: usize,
    /// The targets of its default-visibility objects (sorted, distinct).
    pub targets: Vec<String>,
}

/// The visibility report of one image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct VisibilityReport {
    /// Objects with weak symbols, most lookups first.
    pub objects: Vec<ObjectVisibility>,
    /// Per library, most default-visibility lookups first.
    pub libraries: Vec<LibraryVisibility>,
}

/// Joins `image`'s attributed objects to `commands` (indexed as `index`). Objects are those
/// that contribute weak-bound symbols, lookups or weak-def exports; an image without
/// attribution gives an empty report.
pub fn visibility_report(
    image: &Image,
    commands: &[CompileCommand],
    index: &CompileDbIndex,
) -> VisibilityReport {
    let origins = Origins::of(image);
    #[derive(Default)]
    struct Counts {
        bound: std::collections::BTreeSet<String>,
        lookups: usize,
        exports: usize,
    }
    let mut per_object: HashMap<u32, Counts> = HashMap::new();
    for t in &image.bind_targets {
        if let Some(o) = origins.object_of(&t.symbol) {
            per_object
                .entry(o)
                .or_default()
                .bound
                .insert(t.symbol.to_string());
        }
    }
    for l in &image.lookups {
        if let Some(o) = origins.object_of(&l.symbol) {
            per_object.entry(o).or_default().lookups += 1;
        }
    }
    for w in &image.weak_definitions {
        if let Some(o) = origins.object_of(&w.name) {
            per_object.entry(o).or_default().exports += 1;
        }
    }
    let attribution = image.attribution.as_deref();
    let mut objects: Vec<ObjectVisibility> = per_object
        .into_iter()
        .map(|(o, c)| {
            let keys: &ObjectKeys = &origins.objects()[o as usize];
            let path = attribution.map(|a| a.objects[o as usize].path.as_str());
            let compiled = match index.find(keys.source_path.as_deref(), path) {
                Match::Unique(i) => found(&commands[i], image.arch.as_deref()),
                Match::Ambiguous(entries) => Compiled::Ambiguous { entries },
                Match::None => Compiled::NotFound,
            };
            ObjectVisibility {
                object: keys.object.clone(),
                library: keys.library.clone(),
                source: keys.source.clone(),
                weak_bound_symbols: c.bound.len(),
                lookups: c.lookups,
                weak_def_exports: c.exports,
                compiled,
            }
        })
        .collect();
    objects.sort_by(|a, b| {
        b.lookups
            .cmp(&a.lookups)
            .then(b.weak_def_exports.cmp(&a.weak_def_exports))
            .then_with(|| a.object.cmp(&b.object))
    });
    let mut libraries: HashMap<&str, LibraryVisibility> = HashMap::new();
    for o in &objects {
        let l = libraries
            .entry(&o.library)
            .or_insert_with(|| LibraryVisibility {
                library: o.library.clone(),
                objects: 0,
                objects_default: 0,
                objects_unknown: 0,
                weak_bound_symbols_default: 0,
                lookups_default: 0,
                targets: Vec::new(),
            });
        l.objects += 1;
        match &o.compiled {
            Compiled::Found { target, .. } if o.compiled.leaks() => {
                l.objects_default += 1;
                l.weak_bound_symbols_default += o.weak_bound_symbols;
                l.lookups_default += o.lookups;
                if let Some(t) = target
                    && !l.targets.contains(t)
                {
                    l.targets.push(t.clone());
                }
            }
            Compiled::Found { .. } => {}
            _ => l.objects_unknown += 1,
        }
    }
    let mut libraries: Vec<LibraryVisibility> = libraries.into_values().collect();
    for l in &mut libraries {
        l.targets.sort();
    }
    libraries.sort_by(|a, b| {
        b.lookups_default
            .cmp(&a.lookups_default)
            .then_with(|| a.library.cmp(&b.library))
    });
    VisibilityReport { objects, libraries }
}

/// What `cmd` compiles with for `arch`, the image's arch (its `-Xarch_` options for that arch
/// apply).
fn found(cmd: &CompileCommand, arch: Option<&str>) -> Compiled {
    let one_line = |s: &str| crate::text::escape(s).into_owned();
    let flags = match visibility_of(cmd, arch) {
        Ok(f) => f,
        Err(reason) => {
            return Compiled::Unknown {
                file: one_line(&cmd.file),
                directory: one_line(&cmd.directory),
                target: target_of(cmd).map(|t| one_line(&t)),
                reason: one_line(&reason),
            };
        }
    };
    let hidden = flags.hides_by_default();
    let VisibilityFlags {
        visibility,
        inlines_hidden,
        ms_compat,
        no_static_local_var,
        global_new_delete: _,
    } = flags;
    Compiled::Found {
        file: one_line(&cmd.file),
        directory: one_line(&cmd.directory),
        target: target_of(cmd).map(|t| one_line(&t)),
        visibility: visibility.map(|v| one_line(&v)),
        inlines_hidden,
        ms_compat,
        static_local_var: !no_static_local_var,
        hidden,
    }
}

/// Per object of `image`'s attribution (in its order), how `commands` (indexed as `index`)
/// compile it for the image's arch, for [`crate::model::Attribution::compiled`]: `None` for an
/// object with no unique entry or whose options cannot be told. Empty without attribution.
pub fn compiled_objects(
    image: &Image,
    commands: &[CompileCommand],
    index: &CompileDbIndex,
) -> Vec<Option<CompiledAs>> {
    let Some(attribution) = image.attribution.as_deref() else {
        return Vec::new();
    };
    let origins = Origins::of(image);
    attribution
        .objects
        .iter()
        .zip(origins.objects())
        .map(|(o, keys)| {
            let Match::Unique(i) = index.find(keys.source_path.as_deref(), Some(o.path.as_str()))
            else {
                return None;
            };
            let flags = visibility_of(&commands[i], image.arch.as_deref()).ok()?;
            Some(CompiledAs {
                hidden: flags.hides_by_default(),
                inlines_hidden: flags.inlines_hidden,
                static_local_var: !flags.no_static_local_var,
            })
        })
        .collect()
}
