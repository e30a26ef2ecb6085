//! Attribution: the library, object file and source file each symbol of an image comes from,
//! as keys for `--by library`, `--by object` and `--by source`.
//!
//! From an [`Attribution`] (debug map, link map, dSYM or the object files themselves):
//!
//! * **library**: the archive's file name (`libv8_base_without_compiler.a`), or a loose
//!   object's file name (`main.o`);
//! * **object**: `archive(member)` (`libv8_base_without_compiler.a(interface-descriptors.o)`),
//!   or a loose object's path relative to the objects' common directory;
//! * **source**: the source path, normalized lexically (`out/../deps` → `deps`) and relative
//!   to the common directory of the image's sources (`deps/v8/src/codegen/…cc`).
//!
//! Symbols with no entry get a named group of their own: [`ANOTHER_IMAGE`] for a weak-bind
//! target the image does not define (operator new from libc++), [`NO_DEBUG_INFO`] for a
//! symbol it defines but the source does not name (an object compiled without `-g`), and
//! [`NO_ATTRIBUTION`] for every symbol of an image with no attribution at all (stripped).

use crate::model::{Attribution, Image};
use crate::origin::compile_db::normalize;
use crate::origin::link_map::split_object;
use foldhash::HashSet;
use std::sync::Arc;

/// Group of a weak-bind target the image binds but does not define.
pub const ANOTHER_IMAGE: &str = "(defined in another image)";
/// Group of a symbol the image defines but its attribution does not name.
pub const NO_DEBUG_INFO: &str = "(defined here, not attributed)";
/// Group of every symbol of an image without attribution.
pub const NO_ATTRIBUTION: &str = "(no attribution)";

/// Which origin to group by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OriginLevel {
    /// The static library (or loose object file).
    Library,
    /// The object file (archive member).
    Object,
    /// The source file.
    Source,
}

/// The keys of one object. Two are equal when their three keys are (the paths are what a
/// baseline file does not keep).
#[derive(Debug, Clone, Eq)]
pub struct ObjectKeys {
    /// See [`OriginLevel::Library`].
    pub library: String,
    /// See [`OriginLevel::Object`].
    pub object: String,
    /// See [`OriginLevel::Source`]; the object key when the source is unknown.
    pub source: String,
    /// The archive's full path, for an archive member.
    pub archive_path: Option<String>,
    /// The normalized source path (absolute as recorded), if known.
    pub source_path: Option<String>,
}

impl PartialEq for ObjectKeys {
    fn eq(&self, other: &Self) -> bool {
        (&self.library, &self.object, &self.source)
            == (&other.library, &other.object, &other.source)
    }
}

impl ObjectKeys {
    /// The key at `level`.
    pub fn key(&self, level: OriginLevel) -> &str {
        match level {
            OriginLevel::Library => &self.library,
            OriginLevel::Object => &self.object,
            OriginLevel::Source => &self.source,
        }
    }
}

/// Where one symbol comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Origin {
    /// Its image has no attribution ([`NO_ATTRIBUTION`]).
    #[default]
    Unattributed,
    /// A weak-bind target its image does not define ([`ANOTHER_IMAGE`]).
    AnotherImage,
    /// Defined by its image, not named by the attribution ([`NO_DEBUG_INFO`]).
    NoDebugInfo,
    /// From this object.
    Object(Arc<ObjectKeys>),
}

impl Origin {
    /// The group key at `level`.
    pub fn key(&self, level: OriginLevel) -> &str {
        match self {
            Origin::Unattributed => NO_ATTRIBUTION,
            Origin::AnotherImage => ANOTHER_IMAGE,
            Origin::NoDebugInfo => NO_DEBUG_INFO,
            Origin::Object(o) => o.key(level),
        }
    }

    /// The object, if known.
    pub fn object(&self) -> Option<&ObjectKeys> {
        match self {
            Origin::Object(o) => Some(o),
            _ => None,
        }
    }
}

/// The origin of each symbol of one image: built once per image, then asked per symbol.
#[derive(Debug, Clone)]
pub struct Origins<'i> {
    attribution: Option<&'i Attribution>,
    /// Per object of the attribution.
    objects: Vec<Arc<ObjectKeys>>,
    /// Names the image defines (weak definitions and weak-bind targets defined here, and
    /// strong overrides).
    defined: HashSet<&'i str>,
}

impl<'i> Origins<'i> {
    /// The origins of `image`'s symbols.
    pub fn of(image: &'i Image) -> Self {
        let attribution = image.attribution.as_deref();
        let objects = attribution.map(shared_keys).unwrap_or_default();
        let defined = image
            .weak_definitions
            .iter()
            .map(|w| w.name.as_str())
            .chain(image.strong_overrides.iter().map(|n| n.as_str()))
            .chain(
                image
                    .bind_targets
                    .iter()
                    .filter(|t| t.defined_here)
                    .map(|t| t.symbol.as_str()),
            )
            .collect();
        Origins {
            attribution,
            objects,
            defined,
        }
    }

    /// No attribution (every key is [`NO_ATTRIBUTION`]).
    pub fn is_empty(&self) -> bool {
        self.attribution.is_none()
    }

    /// The attribution, if any.
    pub fn attribution(&self) -> Option<&'i Attribution> {
        self.attribution
    }

    /// The objects' keys, numbered as the attribution numbers them.
    pub fn objects(&self) -> &[Arc<ObjectKeys>] {
        &self.objects
    }

    /// How object `o` was compiled, when a compile database told
    /// ([`crate::model::Attribution::compiled`]).
    pub fn compiled(&self, o: u32) -> Option<crate::model::CompiledAs> {
        self.attribution?
            .compiled
            .get(o as usize)
            .copied()
            .flatten()
    }

    /// Where `raw` comes from.
    pub fn origin(&self, raw: &str) -> Origin {
        if self.attribution.is_none() {
            return Origin::Unattributed;
        }
        match self.object_of(raw) {
            Some(o) => Origin::Object(self.objects[o as usize].clone()),
            None if self.defined.contains(raw) => Origin::NoDebugInfo,
            None => Origin::AnotherImage,
        }
    }

    /// The image defines `raw` (a weak definition, a weak-bind target defined here or a strong
    /// override), whether or not the attribution names it.
    pub fn defines(&self, raw: &str) -> bool {
        self.defined.contains(raw)
    }

    /// The object `raw` comes from, if the attribution names it.
    pub fn object_of(&self, raw: &str) -> Option<u32> {
        self.attribution?.symbols.get(raw).copied()
    }

    /// The key of symbol `raw` at `level`.
    pub fn key(&self, raw: &str, level: OriginLevel) -> &str {
        if self.attribution.is_none() {
            return NO_ATTRIBUTION;
        }
        match self.object_of(raw) {
            Some(o) => self.objects[o as usize].key(level),
            None if self.defined.contains(raw) => NO_DEBUG_INFO,
            None => ANOTHER_IMAGE,
        }
    }
}

/// The keys of every object of `a`.
pub fn object_keys(a: &Attribution) -> Vec<ObjectKeys> {
    object_keys_where(a, &vec![true; a.objects.len()])
        .into_iter()
        .flatten()
        .collect()
}

/// [`object_keys`] for the objects a symbol comes from; the others (most of the objects of a
/// big link map) share one empty [`ObjectKeys`], 8 bytes each: no symbol leads to them.
fn shared_keys(a: &Attribution) -> Vec<Arc<ObjectKeys>> {
    let empty = Arc::new(ObjectKeys {
        library: String::new(),
        object: String::new(),
        source: String::new(),
        archive_path: None,
        source_path: None,
    });
    object_keys_where(a, &used_objects(a))
        .into_iter()
        .map(|k| k.map_or_else(|| empty.clone(), Arc::new))
        .collect()
}

/// The keys of the objects of `a` that `wanted` marks (`None` for the others); the common
/// directories are taken over the used objects either way.
fn object_keys_where(a: &Attribution, wanted: &[bool]) -> Vec<Option<ObjectKeys>> {
    let sources: Vec<Option<String>> = a
        .objects
        .iter()
        .zip(wanted)
        .map(|(o, w)| {
            o.source
                .as_deref()
                .filter(|_| *w)
                .map(|s| normalize(s, None))
        })
        .collect();
    let used = used_objects(a);
    let source_root = common_dir(
        sources
            .iter()
            .zip(&used)
            .filter(|(_, u)| **u)
            .filter_map(|(s, _)| s.as_deref()),
    );
    let object_root = object_root(a, &used);
    a.objects
        .iter()
        .zip(sources)
        .zip(wanted)
        .map(|((o, source_path), w)| {
            if !w {
                return None;
            }
            let (library, object, archive_path) = object_key(&o.path, &object_root);
            let source = source_path
                .as_deref()
                .map(|s| strip_dir(s, &source_root).to_string())
                .unwrap_or_else(|| object.clone());
            Some(ObjectKeys {
                library,
                object,
                source,
                archive_path,
                source_path,
            })
        })
        .collect()
}

/// [`ObjectKeys::object`] of every object of `a`, as [`object_keys`] gives it, without the
/// library and source keys (a grouping by name shows only where each group comes from).
pub fn object_names(a: &Attribution) -> Vec<String> {
    let names = ObjectNames::of(a);
    (0..a.objects.len()).map(|o| names.name(a, o)).collect()
}

/// What [`object_names`] needs of all of `a` to name one object: its names are then worked out
/// one at a time, for the objects a report shows (a Node.js build has 2.6k objects; a report of
/// 20 groups names 20).
#[derive(Debug, Clone, Default)]
pub struct ObjectNames {
    /// The directory every used loose object is in ([`object_root`]).
    root: String,
}

impl ObjectNames {
    /// The common part of the object names of `a`.
    pub fn of(a: &Attribution) -> Self {
        ObjectNames {
            root: object_root(a, &used_objects(a)),
        }
    }

    /// The name of object `o` of `a` (the attribution this was made of), as [`object_names`]
    /// gives it; empty when `a` has no object `o`.
    pub fn name(&self, a: &Attribution, o: usize) -> String {
        a.objects
            .get(o)
            .map(|x| object_key(&x.path, &self.root).1)
            .unwrap_or_default()
    }
}

/// Per object of `a`: whether a symbol comes from it (a link map also lists dylibs). Common
/// directories are taken over these only.
fn used_objects(a: &Attribution) -> Vec<bool> {
    let mut used = vec![false; a.objects.len()];
    for &o in a.symbols.values() {
        if let Some(u) = used.get_mut(o as usize) {
            *u = true;
        }
    }
    used
}

/// The directory every used loose object (not an archive member) is in, cut from their keys.
fn object_root(a: &Attribution, used: &[bool]) -> String {
    let loose: Vec<String> = a
        .objects
        .iter()
        .zip(used)
        .filter(|(o, u)| **u && split_object(&o.path).0.is_none())
        .map(|(o, _)| normalize(&o.path, None))
        .collect();
    common_dir(loose.iter().map(String::as_str))
}

/// The library key, object key and archive path of an object at `path`: `libfoo.a`,
/// `libfoo.a(foo.o)` and the archive for an archive member; the file name, the normalized
/// path less `object_root`, and none for a loose object.
fn object_key(path: &str, object_root: &str) -> (String, String, Option<String>) {
    let (archive, member) = split_object(path);
    match archive {
        Some(archive) => {
            let lib = file_name(archive).to_string();
            let object = format!("{lib}({member})");
            (lib, object, Some(archive.to_string()))
        }
        None => {
            let path = normalize(member, None);
            let object = strip_dir(&path, object_root).to_string();
            (file_name(member).to_string(), object, None)
        }
    }
}

/// The last component of a `/`-separated path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The longest directory (ending in `/`) that every path starts with; empty when there is
/// none or only one path (a single path keeps its directories).
fn common_dir<'a>(paths: impl Iterator<Item = &'a str>) -> String {
    let mut common: Option<&str> = None;
    let mut count = 0usize;
    for p in paths {
        count += 1;
        let dir = match p.rfind('/') {
            Some(i) => &p[..=i],
            None => "",
        };
        common = Some(match common {
            None => dir,
            Some(c) => {
                let n = c
                    .bytes()
                    .zip(dir.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                // Back to a directory boundary.
                match c[..n].rfind('/') {
                    Some(i) => &c[..=i],
                    None => "",
                }
            }
        });
    }
    if count < 2 {
        return String::new();
    }
    common.unwrap_or_default().to_string()
}

/// `path` without the directory `dir` (when it starts with it).
fn strip_dir<'p>(path: &'p str, dir: &str) -> &'p str {
    match path.strip_prefix(dir) {
        Some(rest) if !dir.is_empty() && !rest.is_empty() => rest,
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AttributionSource, Name, ObjectOrigin};

    fn attribution(objects: &[(&str, Option<&str>)]) -> Attribution {
        Attribution {
            from: AttributionSource::DebugMap,
            objects: objects
                .iter()
                .map(|(p, s)| ObjectOrigin {
                    path: Name::from(*p),
                    source: s.map(Name::from),
                })
                .collect(),
            symbols: Default::default(),
            other_exports: Vec::new(),
            unplaced: 0,
            definers: None,
            compiled: Vec::new(),
        }
    }

    #[test]
    fn keys_of_members_and_loose_objects() {
        let a = attribution(&[
            (
                "/b/ws/out/Release/libv8_base_without_compiler.a(interface-descriptors.o)",
                Some("/b/ws/out/../deps/v8/src/codegen/interface-descriptors.cc"),
            ),
            (
                "/b/ws/out/Release/obj/main.o",
                Some("/b/ws/out/../src/node_main.cc"),
            ),
            ("/b/ws/out/Release/obj/gen/x.o", None),
        ]);
        let mut a = a;
        for (i, s) in ["_a", "_b", "_c"].iter().enumerate() {
            a.symbols.insert(Name::from(*s), i as u32);
        }
        let keys = object_keys(&a);
        assert_eq!(keys[0].library, "libv8_base_without_compiler.a");
        assert_eq!(
            keys[0].object,
            "libv8_base_without_compiler.a(interface-descriptors.o)"
        );
        assert_eq!(
            keys[0].source,
            "deps/v8/src/codegen/interface-descriptors.cc"
        );
        assert_eq!(keys[1].library, "main.o");
        assert_eq!(keys[1].object, "main.o");
        assert_eq!(keys[1].source, "src/node_main.cc");
        assert_eq!(keys[2].object, "gen/x.o");
        assert_eq!(keys[2].source, "gen/x.o");
        let objects: Vec<String> = keys.into_iter().map(|k| k.object).collect();
        assert_eq!(object_names(&a), objects);
    }

    #[test]
    fn common_dir_stops_at_a_directory_boundary() {
        assert_eq!(common_dir(["/a/bc/x", "/a/bd/y"].into_iter()), "/a/");
        assert_eq!(common_dir(["/a/b/x"].into_iter()), "");
        assert_eq!(common_dir(["x", "y"].into_iter()), "");
    }
}
