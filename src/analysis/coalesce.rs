//! Weak-definition coalescing across a whole process, as dyld4 does it at launch: who wins each
//! looked-up weak symbol, how many export-trie probes the lookups cost, and what each image
//! adds.
//!
//! The rules (dyld-1378; `docs/process.md` has them with their sources):
//!
//! ```text
//! lookups, in order:
//!   handleStrongWeakDefOverrides: the 22 treat-as-weak names, requested by the main executable
//!       if it has MH_WEAK_DEFINES, else (macOS) by the first on-disk image with weak
//!       definitions and opcode fixups                              (JustInTimeLoader.cpp)
//!       (none when the first image is a bundle or dylib: its executable is not analysed)
//!   then each image in load order: its weak-bind targets (+ a chained main executable's 22
//!       treat-as-weak targets)                                      (dyldMain.cpp fixup loop)
//! each lookup (Loader::resolveSymbol, ordinal BIND_SPECIAL_DYLIB_WEAK_LOOKUP):
//!   count += 1; if count > 5000 and no map yet: make the weakDefMap
//!   if the map has the name: done, no trie probed
//!   else probe the export trie of EVERY loaded image with MH_WEAK_DEFINES, in load order
//!       (the search does not stop at the first hit: it looks for a non-weak definition and for
//!       cache patches); the first definition found wins, a later non-weak one replaces a weak
//!       winner; with a map, the name is added
//! ```
//!
//! Images in the dyld shared cache are not on disk: they take part in the search (libc++ has
//! weak definitions) but are not read, so their probes are not counted and a name none of the
//! images on disk defines is "defined outside" (or nowhere). A re-export found in an image's
//! trie is taken as that image's non-weak definition (dyld follows it to the dependency).

use crate::analysis::demangle::{Demangled, NameStyle};
use crate::analysis::group::GroupBy;
use crate::error::Result;
use crate::macho::file::{FileIdentity, MachOFile};
use crate::macho::image::{ExportKind, for_each_export};
use crate::model::{FixupFormat, LookupReason, MH_WEAK_DEFINES, Name, TREAT_AS_WEAK};
use crate::process::{Problem, Process};
use foldhash::{HashMap, HashSet};
use rayon::prelude::*;

/// dyld builds its weakDefMap once more than this many lookups were made (Loader.cpp: "5000 is
/// a guess that this is a large C++ app").
pub const WEAK_DEF_MAP_AFTER: usize = 5000;

/// Figures of one image of a process.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ImageCost {
    /// Position in the load order (0: the main executable).
    pub index: usize,
    /// The image as shown (path inside the bundle, or install name when outside).
    pub image: String,
    /// How it was found (`main`, `@rpath … of X`, `--search DIR`, `--sysroot`, `outside`).
    pub found: String,
    /// On disk and read.
    pub on_disk: bool,
    /// Searched for weak definitions (`MH_WEAK_DEFINES`); `null` for an outside image (unknown).
    pub takes_part: Option<bool>,
    /// `LC_ID_DYLIB` (`null` for the main executable and outside images).
    pub install_name: Option<String>,
    /// Its `LC_RPATH`s.
    pub rpaths: Vec<String>,
    /// Its dylib load commands, in order, and what became of each.
    pub dependencies: Vec<Dependency>,
    /// Weak definitions its export trie exports (`null` when outside).
    pub weak_definitions: Option<usize>,
    /// Weak-def lookups it requests (its weak-bind targets, treat-as-weak names).
    pub lookups: usize,
    /// Trie probes its lookups cost (on-disk images only; a weakDefMap hit costs none).
    pub trie_probes: usize,
    /// Distinct looked-up names whose winning definition is this image's.
    pub wins: usize,
    /// Of those, names that another image looks up (it supplies them to others).
    pub wins_for_others: usize,
    /// Looked-up names it defines whose winner is another image's definition.
    pub loses: usize,
    /// Weak definitions no image looks up: every lookup still probes them.
    pub unused_weak_definitions: Option<usize>,
    /// Lookups it would no longer make with hidden visibility (the names it defines itself).
    pub saved_lookups_if_hidden: usize,
    /// Trie probes saved process-wide if it were built with hidden visibility (or an export
    /// list without its weak definitions): its own lookups, and, when no other image uses its
    /// weak definitions, the probe of its trie by every other lookup. An estimate.
    pub saved_probes_if_hidden: usize,
}

/// One dylib load command of an image.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Dependency {
    /// The install name it names.
    pub install_name: String,
    /// `LC_LOAD_DYLIB`, `LC_LOAD_WEAK_DYLIB`, `LC_REEXPORT_DYLIB` or `LC_LOAD_UPWARD_DYLIB`.
    pub load_command: &'static str,
    /// The image it loaded (index in the load order), or `null` when missing or unusable.
    pub image: Option<usize>,
}

/// Who wins one looked-up name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Resolved {
    /// The raw name.
    #[schemars(with = "String")]
    pub mangled: Name,
    /// The image whose definition wins (`null`: no image on disk defines it).
    #[schemars(with = "Option<String>")]
    pub winner: Option<Name>,
    /// Images looking it up, in load order.
    #[schemars(with = "Vec<String>")]
    pub requested_by: ImageList,
    /// Lookups of it.
    pub lookups: usize,
}

/// A looked-up weak symbol defined by several images on disk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Duplicate {
    /// The raw name.
    #[schemars(with = "String")]
    pub mangled: Name,
    /// Demangled as GNU c++filt prints it.
    pub symbol: String,
    /// Template key (see `--by template`).
    #[schemars(with = "String")]
    pub template: Name,
    /// The image whose definition wins.
    #[schemars(with = "String")]
    pub winner: Name,
    /// Every image on disk that defines it, in load order (`weak` or `strong` after each).
    #[schemars(with = "Vec<String>")]
    pub defined_by: ImageList,
    /// Lookups of it.
    pub lookups: usize,
}

/// Images of a process, each with an optional flag, as positions in its load order: 4 bytes
/// an image where a list of names takes 8 or 16 (a process of 20 images that share 40k
/// template instantiations lists each name's 20 requesters and definers). Written as a list of
/// names: `IMAGE`, or `IMAGE (strong)` / `IMAGE (weak)` for the definers of a duplicate.
#[derive(Clone, PartialEq, Eq)]
pub struct ImageList {
    /// The names of the process's images, in load order (shared by every list).
    names: std::sync::Arc<[Name]>,
    /// Image positions; bit 31 is the flag.
    items: Box<[u32]>,
    /// Whether each item is written with its flag, as `strong`/`weak`.
    definers: bool,
}

impl ImageList {
    const FLAG: u32 = 1 << 31;

    /// The images `items` (positions in `names`), written as names.
    fn images(names: &std::sync::Arc<[Name]>, items: impl Iterator<Item = usize>) -> Self {
        ImageList {
            names: names.clone(),
            items: items.map(|i| i as u32).collect(),
            definers: false,
        }
    }

    /// Definitions (image position, non-weak), written `IMAGE (strong)` or `IMAGE (weak)`.
    fn definers(names: &std::sync::Arc<[Name]>, defs: &[Def]) -> Self {
        ImageList {
            names: names.clone(),
            items: defs
                .iter()
                .map(|d| d.image | if d.strong { Self::FLAG } else { 0 })
                .collect(),
            definers: true,
        }
    }

    /// Number of images listed.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No image listed.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Each image's name and flag (`true`: a non-weak definition; always `false` for a list
    /// of requesters), in load order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, bool)> {
        self.items.iter().map(|&i| {
            (
                self.names[(i & !Self::FLAG) as usize].as_str(),
                i & Self::FLAG != 0,
            )
        })
    }

    /// The items as written.
    fn texts(&self) -> impl Iterator<Item = String> + '_ {
        self.iter().map(|(name, strong)| {
            if !self.definers {
                name.to_string()
            } else if strong {
                format!("{name} (strong)")
            } else {
                format!("{name} (weak)")
            }
        })
    }
}

impl std::fmt::Debug for ImageList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.texts()).finish()
    }
}

impl serde::Serialize for ImageList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.texts())
    }
}

/// Duplicates grouped by template.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct DuplicateGroup {
    /// The template key.
    pub template: String,
    /// Distinct duplicated symbols in the group.
    pub symbols: usize,
    /// Lookups of them.
    pub lookups: usize,
    /// The images defining them, in load order.
    pub images: Vec<String>,
    /// The images whose definitions win, in load order.
    pub winners: Vec<String>,
    /// One member.
    pub example: String,
    /// Its raw name.
    pub example_mangled: String,
}

/// A main-executable definition that another image's non-weak definition replaces.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Override {
    /// The raw name.
    pub mangled: String,
    /// Demangled.
    pub symbol: String,
    /// The image whose definition wins instead.
    pub winner: String,
}

/// The whole process: figures, per image costs and findings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Coalescing {
    /// The arch of every image.
    pub arch: String,
    /// Images in load order (on disk and outside).
    pub images: Vec<ImageCost>,
    /// Images on disk.
    pub images_on_disk: usize,
    /// Images searched on every lookup: on disk with `MH_WEAK_DEFINES`.
    pub images_searched: usize,
    /// Outside images (shared cache) in the load order: they may take part too, not counted.
    pub images_outside: usize,
    /// Weak-def lookups of the process.
    pub lookups: usize,
    /// Export-trie probes of images on disk: lookups × images searched, less weakDefMap hits.
    pub trie_probes: usize,
    /// Lookups answered by dyld's weakDefMap (after 5000 lookups, a name already resolved).
    pub weak_def_map_hits: usize,
    /// Distinct names looked up.
    pub distinct_names: usize,
    /// Distinct names no image on disk defines (resolved in the shared cache, or missing).
    pub defined_outside: usize,
    /// Distinct looked-up names defined by more than one image on disk.
    pub duplicated_names: usize,
    /// Duplicates grouped by template, most lookups first.
    pub duplicate_groups: Vec<DuplicateGroup>,
    /// Each duplicated name (`--by symbol`-like detail), most lookups first.
    pub duplicates: Vec<Duplicate>,
    /// Main-executable definitions another image's non-weak definition replaces.
    pub overrides_of_main: Vec<Override>,
    /// Every looked-up name and its winner, by raw name.
    pub symbols: Vec<Resolved>,
    /// Estimated time of the probes, milliseconds (low, high): see `docs/process.md`.
    pub estimated_ms: (f64, f64),
    /// Problems met finding and reading the images (each one line).
    pub problems: Vec<String>,
    /// `_Z` names that could not be demangled.
    pub demangle_failures: usize,
}

pub use super::estimate::US_PER_PROBE;

#[derive(Clone, Copy, Default)]
struct Def {
    image: u32,
    strong: bool,
}

/// The weak-def lookups of `process` in dyld's order: (requesting image, raw name, reason). The
/// treat-as-weak checks of `handleStrongWeakDefOverrides` come first (see the module docs), then
/// each image's lookups in load order.
pub fn lookup_sequence(process: &Process) -> Vec<(usize, &str, LookupReason)> {
    let mut seq = Vec::new();
    for_each_lookup(process, |i, name, reason| seq.push((i, name, reason)));
    seq
}

/// [`lookup_sequence`] without the list: `f(requesting image, raw name, reason)` per lookup, in
/// order.
fn for_each_lookup<'p>(process: &'p Process, mut f: impl FnMut(usize, &'p str, LookupReason)) {
    let n = process.images.len();
    let takes_part = |i: usize| process.images[i].takes_part() == Some(true);
    // `handleStrongWeakDefOverrides` reads `state.mainExecutableLoader`: only an MH_EXECUTE
    // first image is one. A bundle or dylib given as the first image (an addon, a framework)
    // is loaded by some other executable, whose checks are not part of this analysis.
    let main = process.main().image.as_ref();
    let main_is_executable = main.is_some_and(|m| m.filetype == Some(crate::model::MH_EXECUTE));
    let main_weak = main.is_some_and(|m| m.flags.unwrap_or(0) & MH_WEAK_DEFINES != 0);
    let checker = if !main_is_executable {
        None
    } else if main_weak {
        Some(0)
    } else {
        (0..n).find(|&i| {
            takes_part(i)
                && process.images[i]
                    .image
                    .as_ref()
                    .and_then(|im| im.fixup_format)
                    == Some(FixupFormat::Opcodes)
        })
    };
    if let Some(c) = checker {
        for s in TREAT_AS_WEAK {
            f(c, s, LookupReason::StrongOverrideCheck);
        }
    }
    for (i, pi) in process.images.iter().enumerate() {
        if let Some(im) = &pi.image {
            for l in &im.lookups {
                if l.reason != LookupReason::StrongOverrideCheck {
                    f(i, l.symbol.as_str(), l.reason);
                }
            }
        }
    }
}

/// Items of each name id, in one list (`items[start[id]..start[id + 1]]`): 8 bytes per name
/// and 8 per definition, where a `Vec` per name would take 24 and its growth's slack.
struct PerName<T> {
    start: Vec<usize>,
    items: Vec<T>,
}

impl<T: Copy + Default> PerName<T> {
    /// From `(id, item)` pairs (ids below `ids`), in the order each id's items are kept.
    fn new<I: Iterator<Item = (usize, T)> + Clone>(ids: usize, pairs: I) -> Self {
        let mut start = vec![0usize; ids + 1];
        for (id, _) in pairs.clone() {
            start[id + 1] += 1;
        }
        for i in 0..ids {
            start[i + 1] += start[i];
        }
        let mut items = vec![T::default(); start[ids]];
        let mut next: Vec<usize> = start[..ids].to_vec();
        for (id, item) in pairs {
            items[next[id]] = item;
            next[id] += 1;
        }
        PerName { start, items }
    }

    fn of(&self, id: usize) -> &[T] {
        &self.items[self.start[id]..self.start[id + 1]]
    }
}

/// Every distinct looked-up name, numbered in order of first lookup: the tables below are
/// indexed by this id (a process looks each name up once per image: 20 dylibs of the same
/// templates make 20 lookups of 40k names).
struct Names<'p> {
    id_of: HashMap<&'p str, u32>,
    text: Vec<&'p str>,
}

impl<'p> Names<'p> {
    fn intern(&mut self, name: &'p str) -> usize {
        let next = self.text.len() as u32;
        let id = *self.id_of.entry(name).or_insert(next);
        if id == next {
            self.text.push(name);
        }
        id as usize
    }

    /// The id of an export trie's raw name: names in the model are escaped
    /// ([`crate::text::escape_bytes`]), which changes only names with control characters or
    /// invalid UTF-8.
    fn of_trie_name(&self, raw: &[u8]) -> Option<usize> {
        let id = match std::str::from_utf8(raw) {
            Ok(s) => self.id_of.get(s).copied(),
            Err(_) => None,
        };
        id.or_else(|| {
            if raw.iter().all(|b| (0x20..0x7f).contains(b)) {
                return None;
            }
            self.id_of
                .get(crate::text::escape_bytes(raw).as_str())
                .copied()
        })
        .map(|id| id as usize)
    }
}

/// Analyses `process`, the names of its duplicates shown in `style`. Errors: an image's export
/// trie can no longer be read (the file changed since it was loaded), or demangling fails.
pub fn coalesce(process: &Process, style: NameStyle) -> Result<Coalescing> {
    let n = process.images.len();
    let takes_part: Vec<bool> = process
        .images
        .iter()
        .map(|pi| pi.takes_part() == Some(true))
        .collect();
    let searched: Vec<usize> = (0..n).filter(|&i| takes_part[i]).collect();
    let image_name: std::sync::Arc<[Name]> = process
        .images
        .iter()
        .map(|pi| Name::from(&pi.name))
        .collect();

    // Walk the lookups in order, with the weakDefMap; per name: its lookups and requesters.
    let mut cost: Vec<ImageCost> = process
        .images
        .iter()
        .enumerate()
        .map(|(i, pi)| image_cost(i, pi))
        .collect();
    let mut names = Names {
        id_of: HashMap::default(),
        text: Vec::new(),
    };
    let mut lookups_of: Vec<usize> = Vec::new();
    // Requesting images of each name, in lookup order (sorted and deduplicated below).
    let mut requesters: Vec<Vec<u32>> = Vec::new();
    // dyld's weakDefMap, once made: which names it holds.
    let mut in_map: Option<Vec<bool>> = None;
    let mut probes = 0usize;
    let mut map_hits = 0usize;
    let mut total_lookups = 0usize;
    for_each_lookup(process, |req, name, _| {
        total_lookups += 1;
        if total_lookups > WEAK_DEF_MAP_AFTER && in_map.is_none() {
            in_map = Some(Vec::new());
        }
        let id = names.intern(name);
        if id == lookups_of.len() {
            lookups_of.push(0);
            requesters.push(Vec::new());
        }
        cost[req].lookups += 1;
        lookups_of[id] += 1;
        if requesters[id].last() != Some(&(req as u32)) {
            requesters[id].push(req as u32);
        }
        if let Some(m) = &mut in_map {
            if m.len() <= id {
                m.resize(id + 1, false);
            }
            if m[id] {
                map_hits += 1;
                return;
            }
            // dyld adds what it found; a name no image on disk defines is taken to be found in
            // the shared cache (a lookup that finds nothing stops the launch).
            m[id] = true;
        }
        probes += searched.len();
        cost[req].trie_probes += searched.len();
    });
    for r in &mut requesters {
        r.sort_unstable();
        r.dedup();
        r.shrink_to_fit();
    }
    let distinct_names = names.text.len();

    // What each searched image's trie holds of the names looked up: one walk per image, the
    // images in parallel, merged in load order.
    // A re-export entry (`EXPORT_SYMBOL_FLAGS_REEXPORT`) is taken as the image's non-weak
    // definition, where dyld follows it to the dependency (Loader.cpp `hasExportedSymbol`): each
    // image's looked-up re-exports are counted and reported as a problem, never silently.
    let found: Vec<Result<TrieHits>> = searched
        .par_iter()
        .map(|&i| {
            let pi = &process.images[i];
            let (Some(path), Some(loc)) = (&pi.path, &pi.slice) else {
                return Ok((Vec::new(), 0));
            };
            let file = MachOFile::open_regular(path)?;
            unchanged_since_load(&file, pi.file)?;
            let (mut found, mut reexports) = (Vec::new(), 0);
            for_each_export(&file, loc, |raw, kind| {
                if let Some(id) = names.of_trie_name(raw) {
                    found.push((id as u32, kind != ExportKind::Weak));
                    reexports += usize::from(kind == ExportKind::Reexport);
                }
            })?;
            Ok((found, reexports))
        })
        .collect();
    let (found, reexports): (Vec<_>, Vec<_>) = found
        .into_iter()
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let mut problems: Vec<String> = process.problems.iter().map(Problem::to_string).collect();
    for (&i, &n) in searched.iter().zip(&reexports) {
        if n > 0 {
            problems.push(
                Problem {
                    path: process.images[i].name.clone(),
                    what: format!(
                        "{n} looked-up names are re-exports in its export trie: taken as its own non-weak definitions (dyld follows each to the dependency that defines it; docs/process.md)"
                    ),
                }
                .to_string(),
            );
        }
    }
    let defs = PerName::new(
        distinct_names,
        searched.iter().zip(&found).flat_map(|(&i, f)| {
            f.iter().map(move |&(id, strong)| {
                (
                    id as usize,
                    Def {
                        image: i as u32,
                        strong,
                    },
                )
            })
        }),
    );
    drop(found);
    // The winner of each name: the first definition, unless a later non-weak one replaces a
    // weak first (once: the replacement is non-weak).
    let winner: Vec<Option<usize>> = (0..distinct_names)
        .map(|id| {
            let ds = defs.of(id);
            let first = ds.first()?;
            let w = if first.strong {
                first
            } else {
                ds.iter().find(|d| d.strong).unwrap_or(first)
            };
            Some(w.image as usize)
        })
        .collect();

    // Per image: wins, losses, unused weak definitions.
    for (id, w) in winner.iter().enumerate() {
        let Some(w) = *w else { continue };
        cost[w].wins += 1;
        if requesters[id].iter().any(|&r| r as usize != w) {
            cost[w].wins_for_others += 1;
        }
        let mut seen = HashSet::default();
        for d in defs.of(id) {
            if d.image as usize != w && seen.insert(d.image) {
                cost[d.image as usize].loses += 1;
            }
        }
    }
    for (i, pi) in process.images.iter().enumerate() {
        let Some(im) = &pi.image else { continue };
        cost[i].unused_weak_definitions = Some(
            im.weak_definitions
                .iter()
                .filter(|w| !names.id_of.contains_key(w.name.as_str()))
                .count(),
        );
        let own: HashSet<&str> = im
            .weak_definitions
            .iter()
            .map(|w| w.name.as_str())
            .collect();
        cost[i].saved_lookups_if_hidden = im
            .lookups
            .iter()
            .filter(|l| l.reason == LookupReason::BindTarget && own.contains(l.symbol.as_str()))
            .count();
    }
    for i in 0..n {
        if !takes_part[i] {
            continue;
        }
        let own = cost[i].saved_lookups_if_hidden;
        let mut saved = own * searched.len();
        if cost[i].wins_for_others == 0 {
            // It leaves the search: one probe of its trie less for every other lookup.
            saved += total_lookups - own;
        }
        cost[i].saved_probes_if_hidden = saved.min(probes);
    }

    // Duplicates and overrides of the main executable, by raw name.
    let by_text = |ids: &mut Vec<usize>| ids.sort_unstable_by_key(|&id| names.text[id]);
    let mut dup_ids: Vec<usize> = (0..distinct_names)
        .filter(|&id| defs.of(id).iter().any(|d| d.image != defs.of(id)[0].image))
        .collect();
    by_text(&mut dup_ids);
    let mut override_ids: Vec<usize> = (0..distinct_names)
        .filter(|&id| defs.of(id).iter().any(|d| d.image == 0) && winner[id] != Some(0))
        .collect();
    by_text(&mut override_ids);
    // Every name's requesters are written out here, and not needed again.
    let mut symbol_ids: Vec<usize> = (0..distinct_names).collect();
    by_text(&mut symbol_ids);
    let symbols: Vec<Resolved> = symbol_ids
        .iter()
        .map(|&id| Resolved {
            mangled: Name::from(names.text[id]),
            winner: winner[id].map(|w| image_name[w].clone()),
            requested_by: ImageList::images(
                &image_name,
                requesters[id].iter().map(|&r| r as usize),
            ),
            lookups: lookups_of[id],
        })
        .collect();
    drop(requesters);
    let mut to_demangle: Vec<&str> = dup_ids
        .iter()
        .chain(&override_ids)
        .map(|&id| names.text[id])
        .collect();
    to_demangle.sort_unstable();
    to_demangle.dedup();
    let demangled = Demangled::of_sorted(
        to_demangle,
        crate::analysis::report::DEMANGLE_BATCH,
        GroupBy::Template.keys(),
        style,
    )?;
    let shown = |raw: &str| demangled.get(raw).demangled().to_string();
    // Template keys, one shared copy each.
    let mut templates: HashMap<&str, Name> = HashMap::default();
    let mut duplicates: Vec<Duplicate> = dup_ids
        .iter()
        .map(|&id| {
            let raw = names.text[id];
            let key = GroupBy::Template.key_of(demangled.get(raw));
            Duplicate {
                mangled: Name::from(raw),
                symbol: shown(raw),
                template: templates
                    .entry(key)
                    .or_insert_with(|| Name::from(key))
                    .clone(),
                winner: image_name[winner[id].unwrap_or(0)].clone(),
                defined_by: ImageList::definers(&image_name, defs.of(id)),
                lookups: lookups_of[id],
            }
        })
        .collect();
    duplicates.sort_by(|a, b| {
        b.lookups
            .cmp(&a.lookups)
            .then_with(|| a.mangled.cmp(&b.mangled))
    });
    // Groups by template: which images define and win their members (as flags by load order).
    struct Building {
        group: DuplicateGroup,
        images: Vec<bool>,
        winners: Vec<bool>,
    }
    let mut groups: HashMap<&str, Building> = HashMap::default();
    for d in &duplicates {
        let b = groups
            .entry(d.template.as_str())
            .or_insert_with(|| Building {
                group: DuplicateGroup {
                    template: d.template.to_string(),
                    symbols: 0,
                    lookups: 0,
                    images: Vec::new(),
                    winners: Vec::new(),
                    example: d.symbol.clone(),
                    example_mangled: d.mangled.to_string(),
                },
                images: vec![false; n],
                winners: vec![false; n],
            });
        b.group.symbols += 1;
        b.group.lookups += d.lookups;
    }
    // `duplicates` is sorted by lookups, `dup_ids` by name: the flags come from the ids.
    for &id in &dup_ids {
        let key = GroupBy::Template.key_of(demangled.get(names.text[id]));
        let b = groups
            .get_mut(key)
            .expect("every duplicate's template has a group");
        for d in defs.of(id) {
            b.images[d.image as usize] = true;
        }
        b.winners[winner[id].unwrap_or(0)] = true;
    }
    drop(defs);
    let in_load_order = |flags: &[bool]| -> Vec<String> {
        (0..n)
            .filter(|&i| flags[i])
            .map(|i| process.images[i].name.clone())
            .collect()
    };
    let mut duplicate_groups: Vec<DuplicateGroup> = groups
        .into_values()
        .map(|b| DuplicateGroup {
            images: in_load_order(&b.images),
            winners: in_load_order(&b.winners),
            ..b.group
        })
        .collect();
    duplicate_groups.sort_by(|a, b| {
        b.lookups
            .cmp(&a.lookups)
            .then(b.symbols.cmp(&a.symbols))
            .then_with(|| a.template.cmp(&b.template))
    });
    let overrides_of_main = override_ids
        .iter()
        .map(|&id| Override {
            mangled: names.text[id].to_string(),
            symbol: shown(names.text[id]),
            winner: process.images[winner[id].unwrap_or(0)].name.clone(),
        })
        .collect();
    let defined_outside = winner.iter().filter(|w| w.is_none()).count();
    Ok(Coalescing {
        arch: process.arch.clone(),
        images_on_disk: process.images.iter().filter(|p| p.on_disk()).count(),
        images_searched: searched.len(),
        images_outside: process.images.iter().filter(|p| !p.on_disk()).count(),
        lookups: total_lookups,
        trie_probes: probes,
        weak_def_map_hits: map_hits,
        distinct_names,
        defined_outside,
        duplicated_names: dup_ids.len(),
        duplicate_groups,
        duplicates,
        overrides_of_main,
        symbols,
        estimated_ms: (
            probes as f64 * US_PER_PROBE.0 / 1000.0,
            probes as f64 * US_PER_PROBE.1 / 1000.0,
        ),
        problems,
        demangle_failures: demangled.failures,
        images: cost,
    })
}

/// The figures of image `i` known before the lookups are walked.
fn image_cost(i: usize, pi: &crate::process::ProcessImage) -> ImageCost {
    let linkage = pi.image.as_ref().and_then(|im| im.linkage.as_ref());
    ImageCost {
        index: i,
        image: pi.name.clone(),
        found: match &pi.image {
            Some(im) if i == 0 && im.filetype != Some(crate::model::MH_EXECUTE) => {
                "first image (not an executable: the one that loads it is not analysed)".into()
            }
            _ => found_text(&pi.found),
        },
        on_disk: pi.on_disk(),
        takes_part: pi.takes_part(),
        install_name: linkage.and_then(|l| l.install_name.clone()),
        rpaths: linkage.map(|l| l.rpaths.clone()).unwrap_or_default(),
        dependencies: pi
            .deps
            .iter()
            .map(|d| Dependency {
                install_name: d.install_name.clone(),
                load_command: d.link.load_command(),
                image: match d.state {
                    crate::process::DepState::Loaded(i) => Some(i),
                    _ => None,
                },
            })
            .collect(),
        weak_definitions: pi.image.as_ref().map(|im| im.weak_definitions.len()),
        ..ImageCost::default()
    }
}

/// How an image was found, in a few words.
fn found_text(f: &crate::process::Found) -> String {
    use crate::process::Found;
    match f {
        Found::Main => "main executable".into(),
        Found::Expanded(how) => how.clone(),
        Found::Search(dir) => format!("--search {}", crate::text::escape_path(dir)),
        Found::Sysroot => "--sysroot".into(),
        Found::Outside => "outside (shared cache)".into(),
    }
}

/// What one image's export trie holds of the looked-up names: `(name id, non-weak)` in trie
/// order, and how many of them are re-exports.
type TrieHits = (Vec<(u32, bool)>, usize);

/// Errors if the file opened again to read its export trie is not the one loaded (`loaded`, the
/// identity when it was read): replaced or rewritten in between, it would silently give other
/// winners than the images read.
fn unchanged_since_load(file: &MachOFile, loaded: Option<FileIdentity>) -> Result<()> {
    match (loaded, file.identity()) {
        (Some(then), Some(now)) if then != now => Err(file.error(
            crate::error::ErrorKind::Io,
            "changed while the process was read (replaced or rewritten after it was loaded): read it again",
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Regression: coalescing opened each image's path again and read whatever file was there;
    // one replaced after it was loaded changed the winners silently.
    #[test]
    fn a_file_rewritten_after_it_was_loaded_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("libx.dylib");
        std::fs::write(&path, b"first").unwrap();
        let loaded = MachOFile::open(&path).unwrap().identity();
        assert!(loaded.is_some());
        assert!(unchanged_since_load(&MachOFile::open(&path).unwrap(), loaded).is_ok());
        // Replaced by another file under the same name (a new inode, as `cp` over `mv` does).
        let other = dir.path().join("new");
        std::fs::write(&other, b"second").unwrap();
        std::fs::rename(&other, &path).unwrap();
        let e = unchanged_since_load(&MachOFile::open(&path).unwrap(), loaded).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Io);
        assert!(e.to_string().contains("libx.dylib"), "{e}");
        assert!(
            e.to_string().contains("changed while the process was read"),
            "{e}"
        );
        // Rewritten in place with its size and modification time put back (`touch -r`): the
        // status-change time still moves.
        let loaded = MachOFile::open(&path).unwrap().identity();
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, b"third!").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        let now = MachOFile::open(&path).unwrap();
        assert_eq!(now.identity().unwrap().mtime_ns, loaded.unwrap().mtime_ns);
        assert!(unchanged_since_load(&now, loaded).is_err());
        // Bytes in memory have no identity to compare.
        let mem = MachOFile::from_bytes(&path, b"x".to_vec());
        assert!(unchanged_since_load(&mem, loaded).is_ok());
    }

    #[test]
    fn per_name_keeps_each_names_items_in_the_order_given() {
        let pairs = [(2, 'a'), (0, 'b'), (2, 'c'), (1, 'd'), (0, 'e')];
        let t = PerName::new(4, pairs.iter().copied());
        assert_eq!(t.of(0), ['b', 'e']);
        assert_eq!(t.of(1), ['d']);
        assert_eq!(t.of(2), ['a', 'c']);
        assert!(t.of(3).is_empty(), "a name without items");
        assert_eq!(t.items.len(), 5, "one slot per item, no slack");
    }

    #[test]
    fn image_lists_are_written_as_names_with_their_flags() {
        let names: std::sync::Arc<[Name]> = ["main", "lib/a.dylib", "lib/b.dylib"]
            .into_iter()
            .map(Name::from)
            .collect();
        let requesters = ImageList::images(&names, [0, 2].into_iter());
        assert_eq!(
            serde_json::to_string(&requesters).unwrap(),
            r#"["main","lib/b.dylib"]"#
        );
        let defs = [
            Def {
                image: 1,
                strong: false,
            },
            Def {
                image: 2,
                strong: true,
            },
        ];
        let definers = ImageList::definers(&names, &defs);
        assert_eq!(
            serde_json::to_string(&definers).unwrap(),
            r#"["lib/a.dylib (weak)","lib/b.dylib (strong)"]"#
        );
        assert_eq!(
            definers.iter().collect::<Vec<_>>(),
            [("lib/a.dylib", false), ("lib/b.dylib", true)]
        );
        assert_eq!(
            format!("{definers:?}"),
            r#"["lib/a.dylib (weak)", "lib/b.dylib (strong)"]"#
        );
    }

    #[test]
    fn trie_names_match_the_escaped_names_of_the_model() {
        let escaped = crate::text::escape_bytes(b"__Z1f\x01\xff");
        let mut names = Names {
            id_of: HashMap::default(),
            text: Vec::new(),
        };
        assert_eq!(names.intern("__Z1gv"), 0);
        assert_eq!(names.intern(&escaped), 1);
        assert_eq!(names.intern("__Z1gv"), 0, "interned once");
        assert_eq!(names.of_trie_name(b"__Z1gv"), Some(0));
        assert_eq!(
            names.of_trie_name(b"__Z1f\x01\xff"),
            Some(1),
            "raw bytes of an escaped name"
        );
        assert_eq!(names.of_trie_name(b"__Z1hv"), None);
    }
}
