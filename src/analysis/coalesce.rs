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
//!   a probed trie's re-export entry (EXPORT_SYMBOL_FLAGS_REEXPORT) is followed to the dylib
//!       its library ordinal names (Loader::hasExportedSymbol, crate::process::reexport): the
//!       definition found there is that dylib's, found at the probed image's place in the
//!       search, and each trie the chain reaches is one more probe
//! ```
//!
//! Images in the dyld shared cache are not on disk: they take part in the search (libc++ has
//! weak definitions) but are not read, so their probes are not counted and a name none of the
//! images on disk defines is "defined outside" (or nowhere); a re-export that leads to one is
//! counted in a problem line. Delay-init dependencies are searched like any other at launch:
//! dyld applies the launch's fixups before it moves them to `state.delayLoaded`
//! (`docs/process.md`).

use super::process_fix_plan::{self, Launch, ProcessCandidate, ProcessShared, Step};
use crate::analysis::demangle::{Demangled, NameStyle};
use crate::analysis::group::{GroupBy, template_key};
use crate::error::Result;
use crate::macho::file::MachOFile;
use crate::macho::image::{ExportKind, for_each_export};
use crate::model::{FixupFormat, LookupReason, MH_WEAK_DEFINES, Name, TREAT_AS_WEAK};
use crate::process::reexport::{self, Outcome};
use crate::process::{Problem, Process, unchanged_since_load};
use foldhash::{HashMap, HashSet};
use rayon::prelude::*;

pub use super::weak_def_map::WEAK_DEF_MAP_AFTER;
use super::weak_def_map::WeakDefMap;

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
    /// Reached from the first image only through delay-init dependencies: searched at launch
    /// like any other (the launch's fixups come first), then kept in dyld's
    /// `state.delayLoaded` until first use (`docs/process.md`).
    pub delay_loaded: bool,
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
    /// `LC_LOAD_DYLIB`, `LC_LOAD_WEAK_DYLIB`, `LC_REEXPORT_DYLIB` or `LC_LOAD_UPWARD_DYLIB`;
    /// `LC_LAZY_LOAD_DYLIB_INFO` for a lazy-load dylib (dyld-1376.6+), listed after them: not
    /// loaded at launch, so not searched for weak definitions then.
    pub load_command: &'static str,
    /// Written as a `struct dylib_use_command` (marker 0x1a741800): its attributes are its
    /// `flags`, not its command.
    pub dylib_use_command: bool,
    /// The attributes dyld acts on, from the command or its `flags`: `weak_link`,
    /// `reexport`, `upward`, `delay_init` (a re-export is never weak-linked nor delay-init);
    /// `lazy_load` (and `weak_link` when it may be missing) for a lazy-load dylib.
    pub attributes: Vec<&'static str>,
    /// The image it loaded (index in the load order), or `null` when missing, unusable, or
    /// lazy-loaded (not loaded at launch).
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

    /// Definitions (image position, non-weak), written `IMAGE (strong)` or `IMAGE (weak)`;
    /// an image met again (a re-export that leads to an image searched on its own too) is
    /// listed once, where it was met first.
    fn definers(names: &std::sync::Arc<[Name]>, defs: &[Def]) -> Self {
        let mut met = HashSet::default();
        let items: Vec<u32> = defs
            .iter()
            .filter(|d| met.insert(d.image))
            .map(|d| d.image | if d.strong { Self::FLAG } else { 0 })
            .collect();
        ImageList {
            names: names.clone(),
            items: items.into(),
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
    /// Export-trie probes of images on disk: lookups × images searched, less weakDefMap hits,
    /// plus the probes of the images re-exports lead to.
    pub trie_probes: usize,
    /// Lookups answered by dyld's weakDefMap (after 5000 lookups, a name already resolved).
    pub weak_def_map_hits: usize,
    /// Re-export entries (`EXPORT_SYMBOL_FLAGS_REEXPORT`) of searched images' tries that
    /// looked-up names reach, each followed to the definition it leads to.
    pub reexports_followed: usize,
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
    /// The fix plan of the process, best first ([`super::process_fix_plan`]).
    pub fix_plan: Vec<ProcessCandidate>,
    /// Symbols of an image that several of its libraries define unhidden, most trie probes
    /// saved first ([`super::process_fix_plan::ProcessShared`]): no single candidate hides them.
    pub fix_plan_shared: Vec<ProcessShared>,
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
    let checker = override_checker(process, None);
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

/// The image that requests `handleStrongWeakDefOverrides`' treat-as-weak checks, if any;
/// `leaving`: as if that image had no `MH_WEAK_DEFINES` (the fix plan's replay).
fn override_checker(process: &Process, leaving: Option<usize>) -> Option<usize> {
    let n = process.images.len();
    let weak_defines = |i: usize| {
        Some(i) != leaving
            && process.images[i]
                .image
                .as_ref()
                .is_some_and(|m| m.flags.unwrap_or(0) & MH_WEAK_DEFINES != 0)
    };
    // `handleStrongWeakDefOverrides` reads `state.mainExecutableLoader`: only an MH_EXECUTE
    // first image is one. A bundle or dylib given as the first image (an addon, a framework)
    // is loaded by some other executable, whose checks are not part of this analysis.
    let main = process.main().image.as_ref();
    let main_is_executable = main.is_some_and(|m| m.filetype == Some(crate::model::MH_EXECUTE));
    if !main_is_executable {
        None
    } else if weak_defines(0) {
        Some(0)
    } else {
        (0..n).find(|&i| {
            weak_defines(i)
                && process.images[i]
                    .image
                    .as_ref()
                    .and_then(|im| im.fixup_format)
                    == Some(FixupFormat::Opcodes)
        })
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

/// Analyses `process`, in the steps dyld's launch takes: the lookups in order
/// ([`walk_lookups`]), what each searched image's trie holds of their names
/// ([`read_definitions`]), the re-exports among them followed ([`follow_reexports`]), the winner
/// of each name ([`winners`]), then what each image wins and loses ([`tally_images`]), what
/// hiding each image's weak definitions would save (step 7, `plan`) and the names several images
/// define ([`find_duplicates`]). Errors: an image's export trie can no
/// longer be read (the file changed since it was loaded) or is malformed on a re-export's path,
/// or demangling fails.
pub fn coalesce(process: &Process, style: NameStyle) -> Result<Coalescing> {
    coalesce_with(process, style, false)
}

/// [`coalesce`], with the fix plan's candidates when `fix_plan` ([`Coalescing::fix_plan`];
/// without, it is empty). The plan reads each searched image's weak definitions' kinds, which
/// demangles them all: only `scan` of a process shows it.
pub fn coalesce_with(process: &Process, style: NameStyle, fix_plan: bool) -> Result<Coalescing> {
    let searched: Vec<usize> = (0..process.images.len())
        .filter(|&i| process.images[i].takes_part() == Some(true))
        .collect();
    let mut cost: Vec<ImageCost> = process
        .images
        .iter()
        .enumerate()
        .map(|(i, pi)| image_cost(i, pi))
        .collect();
    let mut walk = walk_lookups(process, searched.len(), &mut cost);
    let hits = read_definitions(process, &searched, &walk.names)?;
    let mut problems: Vec<String> = process.problems.iter().map(Problem::to_string).collect();
    let followed = follow_reexports(process, &searched, &hits, &walk.names, &mut problems)?;
    add_reexport_probes(process, &followed, &mut walk, &mut cost);
    let defs = definitions(&searched, &hits, &followed, walk.names.text.len());
    let winner = winners(&defs, walk.names.text.len());
    tally_images(process, &walk, &defs, &winner, &followed, &mut cost);
    let launch = launch(process, &searched, &walk, &followed, &defs, &winner);
    let (fix_plan, fix_plan_shared) = plan(process, &launch, &searched, fix_plan, &mut cost);
    let found = find_duplicates(process, &walk, &defs, &winner, style)?;
    let probes = walk.probes;
    Ok(Coalescing {
        arch: process.arch.clone(),
        images_on_disk: process.images.iter().filter(|p| p.on_disk()).count(),
        images_searched: searched.len(),
        images_outside: process.images.iter().filter(|p| !p.on_disk()).count(),
        lookups: walk.total,
        trie_probes: probes,
        weak_def_map_hits: walk.map_hits,
        distinct_names: walk.names.text.len(),
        defined_outside: winner.iter().filter(|w| w.is_none()).count(),
        duplicated_names: found.duplicates.len(),
        reexports_followed: followed.count,
        duplicate_groups: found.groups,
        duplicates: found.duplicates,
        overrides_of_main: found.overrides,
        symbols: found.symbols,
        estimated_ms: (
            probes as f64 * US_PER_PROBE.0 / 1000.0,
            probes as f64 * US_PER_PROBE.1 / 1000.0,
        ),
        problems,
        demangle_failures: found.demangle_failures,
        images: cost,
        fix_plan,
        fix_plan_shared,
    })
}

/// The lookups walked in order: per name its lookups and requesters, and the probes.
struct LookupWalk<'p> {
    names: Names<'p>,
    lookups_of: Vec<usize>,
    /// Requesting images of each name, sorted, each once.
    requesters: Vec<Vec<u32>>,
    /// Every lookup, in order.
    steps: Vec<Step>,
    total: usize,
    /// Trie probes: lookups that probe × images searched (+ re-exports followed, added later).
    probes: usize,
    map_hits: usize,
}

/// Step 1: walks the lookups of `process` in dyld's order through the weakDefMap, counting
/// each requester's lookups and probes (`searched` tries per lookup that probes) in `cost`.
fn walk_lookups<'p>(
    process: &'p Process,
    searched: usize,
    cost: &mut [ImageCost],
) -> LookupWalk<'p> {
    let mut w = LookupWalk {
        names: Names {
            id_of: HashMap::default(),
            text: Vec::new(),
        },
        lookups_of: Vec::new(),
        requesters: Vec::new(),
        steps: Vec::new(),
        total: 0,
        probes: 0,
        map_hits: 0,
    };
    let mut map = WeakDefMap::default();
    for_each_lookup(process, |req, name, reason| {
        w.total += 1;
        let id = w.names.intern(name);
        w.steps.push(Step {
            requester: req as u32,
            name: id as u32,
            reason,
        });
        if id == w.lookups_of.len() {
            w.lookups_of.push(0);
            w.requesters.push(Vec::new());
        }
        cost[req].lookups += 1;
        w.lookups_of[id] += 1;
        if w.requesters[id].last() != Some(&(req as u32)) {
            w.requesters[id].push(req as u32);
        }
        if map.probes(id) {
            w.probes += searched;
            cost[req].trie_probes += searched;
        } else {
            w.map_hits += 1;
        }
    });
    for r in &mut w.requesters {
        r.sort_unstable();
        r.dedup();
        r.shrink_to_fit();
    }
    w
}

/// What one searched image's export trie holds of the looked-up names, in trie order: `(name
/// id, how it is exported)`, and the raw name of each re-export among them, in the same order.
struct TrieHits {
    found: Vec<(u32, ExportKind)>,
    reexports: Vec<Vec<u8>>,
}

/// Step 2: one walk of each searched image's export trie, the images in parallel, in load
/// order.
fn read_definitions(
    process: &Process,
    searched: &[usize],
    names: &Names<'_>,
) -> Result<Vec<TrieHits>> {
    searched
        .par_iter()
        .map(|&i| {
            let mut hits = TrieHits {
                found: Vec::new(),
                reexports: Vec::new(),
            };
            let pi = &process.images[i];
            let (Some(path), Some(loc)) = (&pi.path, &pi.slice) else {
                return Ok(hits);
            };
            let file = MachOFile::open_regular(path)?;
            unchanged_since_load(&file, pi.file)?;
            for_each_export(&file, loc, |raw, kind| {
                if let Some(id) = names.of_trie_name(raw) {
                    hits.found.push((id as u32, kind));
                    if kind == ExportKind::Reexport {
                        hits.reexports.push(raw.to_vec());
                    }
                }
            })?;
            Ok(hits)
        })
        .collect()
}

/// The re-exports of the searched images' tries, followed: per searched image (in the order
/// of `searched`), the outcome of each of its re-export hits, in trie order.
struct Followed {
    per_image: Vec<Vec<reexport::Followed>>,
    /// Re-export hits followed, in all.
    count: usize,
    /// Trie probes the following added, per name id (a lookup that probes pays them again).
    extra_probes: HashMap<u32, usize>,
}

/// Step 3: follows each re-export hit to the definition it leads to ([`reexport::Follower`],
/// dyld's `hasExportedSymbol`); a loop, a chain too deep, a search stopped or a library
/// ordinal out of range is one problem each, and each image's re-exports that reach images
/// outside are one problem with their count.
fn follow_reexports(
    process: &Process,
    searched: &[usize],
    hits: &[TrieHits],
    names: &Names<'_>,
    problems: &mut Vec<String>,
) -> Result<Followed> {
    let mut out = Followed {
        per_image: Vec::with_capacity(hits.len()),
        count: 0,
        extra_probes: HashMap::default(),
    };
    if hits.iter().all(|h| h.reexports.is_empty()) {
        out.per_image = hits.iter().map(|_| Vec::new()).collect();
        return Ok(out);
    }
    let mut follower = reexport::Follower::of_process(process);
    for (&i, h) in searched.iter().zip(hits) {
        let ids = h.found.iter().filter(|(_, k)| *k == ExportKind::Reexport);
        let mut outcomes = Vec::with_capacity(h.reexports.len());
        let mut outside = 0usize;
        for ((id, _), raw) in ids.zip(&h.reexports) {
            let f = follower.follow(i, raw)?;
            *out.extra_probes.entry(*id).or_default() += f.probes;
            match reexport_problem(process, i, names.text[*id as usize], &f.outcome) {
                Some(p) => problems.push(p.to_string()),
                None => outside += usize::from(matches!(f.outcome, Outcome::Outside { .. })),
            }
            outcomes.push(f);
        }
        out.count += outcomes.len();
        if outside > 0 {
            problems.push(
                Problem {
                    path: process.images[i].name.clone(),
                    what: format!(
                        "{outside} looked-up names are re-exports of images outside (not read): the definitions they lead to are not counted (docs/process.md)"
                    ),
                }
                .to_string(),
            );
        }
        out.per_image.push(outcomes);
    }
    Ok(out)
}

/// The problem a re-export's outcome is, if it is one on its own (a loop, a chain too deep, a
/// search stopped, a library ordinal out of range).
fn reexport_problem(process: &Process, i: usize, name: &str, o: &Outcome) -> Option<Problem> {
    let image = |k: usize| process.images[k].name.as_str();
    let what = match o {
        Outcome::Loop { images } => {
            let path: Vec<&str> = images.iter().map(|&k| image(k)).collect();
            format!(
                "re-export loop for {name}: {} (dyld would recurse without end; taken as not defined)",
                path.join(" → ")
            )
        }
        Outcome::TooDeep => format!(
            "re-export chain for {name} passes through more than {} images: not followed further (taken as not defined)",
            reexport::MAX_REEXPORT_DEPTH
        ),
        Outcome::Stopped => format!(
            "re-export search for {name} stopped after {} trie probes ({} for the whole process): taken as not defined",
            reexport::MAX_PROBES_PER_SEARCH,
            reexport::MAX_PROBES_PER_PROCESS
        ),
        Outcome::OrdinalOutOfRange {
            image: k,
            ordinal,
            dependencies,
        } => format!(
            "re-export of {name}: {} names library ordinal {ordinal} but has {dependencies} dylib load commands (dyld stops the launch: \"re-export ordinal {ordinal} … out of range\")",
            image(*k)
        ),
        Outcome::Found { .. } | Outcome::NotFound | Outcome::Outside { .. } => return None,
    };
    Some(Problem {
        path: image(i).to_string(),
        what,
    })
}

/// Adds the probes the re-exports cost to every lookup of their names that probes the tries
/// (the same weakDefMap walk as [`walk_lookups`]).
fn add_reexport_probes(
    process: &Process,
    followed: &Followed,
    walk: &mut LookupWalk<'_>,
    cost: &mut [ImageCost],
) {
    if followed.extra_probes.values().all(|&p| p == 0) {
        return;
    }
    let mut map = WeakDefMap::default();
    for_each_lookup(process, |req, name, _| {
        let id = walk.names.id_of[name];
        if map.probes(id as usize) {
            let extra = followed.extra_probes.get(&id).copied().unwrap_or(0);
            walk.probes += extra;
            cost[req].trie_probes += extra;
        }
    });
}

/// Step 4: every definition of each looked-up name, in the order dyld's search finds them:
/// the searched images in load order, a re-export standing for the definition it leads to.
fn definitions(
    searched: &[usize],
    hits: &[TrieHits],
    followed: &Followed,
    distinct_names: usize,
) -> PerName<Def> {
    let defs_of = |k: usize| {
        let mut outcomes = followed.per_image[k].iter();
        hits[k].found.iter().filter_map(move |&(id, kind)| {
            let (image, strong) = match kind {
                ExportKind::Weak => (searched[k], false),
                ExportKind::Strong => (searched[k], true),
                ExportKind::Reexport => match &outcomes.next()?.outcome {
                    Outcome::Found { image, weak, .. } => (*image, !weak),
                    _ => return None,
                },
            };
            let image = image as u32;
            Some((id as usize, Def { image, strong }))
        })
    };
    PerName::new(distinct_names, (0..searched.len()).flat_map(defs_of))
}

/// Step 5: the winner of each name: the first definition, unless a later non-weak one replaces
/// a weak first (once: the replacement is non-weak). `None`: no image on disk defines it.
fn winners(defs: &PerName<Def>, distinct_names: usize) -> Vec<Option<usize>> {
    (0..distinct_names)
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
        .collect()
}

/// Step 6: per image, the names it wins (for others too) and the names it loses, then
/// [`tally_own_definitions`].
fn tally_images(
    process: &Process,
    walk: &LookupWalk<'_>,
    defs: &PerName<Def>,
    winner: &[Option<usize>],
    followed: &Followed,
    cost: &mut [ImageCost],
) {
    for (id, w) in winner.iter().enumerate() {
        let Some(w) = *w else { continue };
        cost[w].wins += 1;
        if walk.requesters[id].iter().any(|&r| r as usize != w) {
            cost[w].wins_for_others += 1;
        }
        let mut seen = HashSet::default();
        for d in defs.of(id) {
            if d.image as usize != w && seen.insert(d.image) {
                cost[d.image as usize].loses += 1;
            }
        }
    }
    tally_own_definitions(process, walk, followed, cost);
}

/// Per image: its weak definitions no lookup reaches, by name or through a re-export (under
/// the name it has there), and its lookups of its own weak definitions.
fn tally_own_definitions(
    process: &Process,
    walk: &LookupWalk<'_>,
    followed: &Followed,
    cost: &mut [ImageCost],
) {
    let mut reached: HashMap<usize, HashSet<String>> = HashMap::default();
    for f in followed.per_image.iter().flatten() {
        if let Outcome::Found { image, name, .. } = &f.outcome {
            let name = crate::text::escape_bytes(name);
            reached.entry(*image).or_default().insert(name);
        }
    }
    for (i, pi) in process.images.iter().enumerate() {
        let Some(im) = &pi.image else { continue };
        let reached = reached.get(&i);
        let looked_up =
            |n: &str| walk.names.id_of.contains_key(n) || reached.is_some_and(|r| r.contains(n));
        cost[i].unused_weak_definitions = Some(
            im.weak_definitions
                .iter()
                .filter(|w| !looked_up(w.name.as_str()))
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
}

/// What the fix plan replays of the launch ([`super::process_fix_plan`]).
fn launch<'a, 'p>(
    process: &Process,
    searched: &[usize],
    walk: &'a LookupWalk<'p>,
    followed: &'a Followed,
    defs: &'a PerName<Def>,
    winner: &'a [Option<usize>],
) -> Launch<'a, 'p> {
    let mut overrides = overriding_images(defs, walk.names.text.len());
    overrides.extend(overriding_treat_as_weak(process));
    let checks_remain: Vec<bool> = (0..process.images.len())
        .map(|i| override_checker(process, Some(i)).is_some())
        .collect();
    Launch {
        steps: &walk.steps,
        searched: searched.len(),
        probes: walk.probes,
        reexport_probes: &followed.extra_probes,
        id_of: &walk.names.id_of,
        text: &walk.names.text,
        requesters: &walk.requesters,
        winner,
        defined_elsewhere: Box::new(|id, image| {
            defs.of(id).iter().any(|d| d.image as usize != image)
        }),
        overrides: Box::new(move |image| overrides.contains(&(image as u32))),
        checks_remain: Box::new(move |image| checks_remain[image]),
    }
}

/// Step 7: each searched image's `saved_probes_if_hidden`, replayed with all its weak
/// definitions hidden; and, when `candidates`, the fix plan: each searched image's candidates,
/// replayed, best first ([`super::process_fix_plan`]).
fn plan(
    process: &Process,
    launch: &Launch<'_, '_>,
    searched: &[usize],
    candidates: bool,
    cost: &mut [ImageCost],
) -> (Vec<ProcessCandidate>, Vec<ProcessShared>) {
    let images: Vec<(usize, &crate::model::Image)> = searched
        .iter()
        .filter_map(|&i| process.images[i].image.as_ref().map(|im| (i, im)))
        .collect();
    let whole: Vec<(usize, i64)> = images
        .par_iter()
        .map(|&(i, im)| process_fix_plan::whole_image_saving(launch, i, im))
        .collect();
    for (&(i, _), saved) in images.iter().zip(&whole) {
        cost[i].saved_probes_if_hidden = usize::try_from(saved.1).unwrap_or(0);
    }
    if !candidates {
        return (Vec::new(), Vec::new());
    }
    let names = process_fix_plan::EntityIndex::of(images.iter().map(|(_, im)| *im));
    let cost: &[ImageCost] = cost;
    let per_image: Vec<(Vec<ProcessCandidate>, Vec<ProcessShared>)> = images
        .par_iter()
        .zip(&whole)
        .map(|(&(i, im), &saved)| {
            process_fix_plan::image_candidates(launch, (i, im, saved), &cost[i].image, &names)
        })
        .collect();
    let (plan, shared): (Vec<_>, Vec<_>) = per_image.into_iter().unzip();
    let mut plan: Vec<ProcessCandidate> = plan.into_iter().flatten().collect();
    let mut shared: Vec<ProcessShared> = shared.into_iter().flatten().collect();
    process_fix_plan::rank(&mut plan);
    process_fix_plan::rank_shared(&mut shared);
    (plan, shared)
}

/// The images one of whose non-weak definitions replaces another image's weak one on disk (ld64
/// then sets `MH_WEAK_DEFINES`, `overridesWeakExternalSymbols`, without weak definitions).
fn overriding_images(defs: &PerName<Def>, distinct_names: usize) -> HashSet<u32> {
    let mut out = HashSet::default();
    for id in 0..distinct_names {
        let ds = defs.of(id);
        if ds.iter().any(|d| !d.strong) {
            out.extend(ds.iter().filter(|d| d.strong).map(|d| d.image));
        }
    }
    out
}

/// The images that export a treat-as-weak name (operator new and delete) non-weak: they
/// override libc++'s weak definitions, and ld64 keeps their `MH_WEAK_DEFINES`.
fn overriding_treat_as_weak(process: &Process) -> impl Iterator<Item = u32> + '_ {
    process.images.iter().enumerate().filter_map(|(i, pi)| {
        let im = pi.image.as_ref()?;
        super::weak_defines::exports_treat_as_weak(im).then_some(i as u32)
    })
}

/// What [`find_duplicates`] finds.
struct Findings {
    duplicates: Vec<Duplicate>,
    groups: Vec<DuplicateGroup>,
    overrides: Vec<Override>,
    symbols: Vec<Resolved>,
    demangle_failures: usize,
}

/// Step 8: the names several images on disk define (each, and grouped by template), the main
/// executable's definitions another image's non-weak one replaces, and every name's winner.
fn find_duplicates(
    process: &Process,
    walk: &LookupWalk<'_>,
    defs: &PerName<Def>,
    winner: &[Option<usize>],
    style: NameStyle,
) -> Result<Findings> {
    let names = &walk.names;
    let image_name: std::sync::Arc<[Name]> = process
        .images
        .iter()
        .map(|pi| Name::from(&pi.name))
        .collect();
    let ids_where = |keep: &dyn Fn(usize) -> bool| {
        let mut ids: Vec<usize> = (0..names.text.len()).filter(|&id| keep(id)).collect();
        ids.sort_unstable_by_key(|&id| names.text[id]);
        ids
    };
    let dup_ids = ids_where(&|id| defs.of(id).iter().any(|d| d.image != defs.of(id)[0].image));
    let override_ids =
        ids_where(&|id| defs.of(id).iter().any(|d| d.image == 0) && winner[id] != Some(0));
    let symbols = resolved_symbols(walk, winner, &image_name, &ids_where(&|_| true));
    let demangled = demangle_ids(names, dup_ids.iter().chain(&override_ids), style)?;
    let duplicates = duplicates(walk, defs, winner, &dup_ids, &demangled, &image_name);
    let groups = group_duplicates(
        process,
        defs,
        winner,
        &dup_ids,
        &duplicates,
        &demangled,
        names,
    );
    let overrides = override_ids
        .iter()
        .map(|&id| Override {
            mangled: names.text[id].to_string(),
            symbol: demangled.get(names.text[id]).demangled().into_owned(),
            winner: process.images[winner[id].unwrap_or(0)].name.clone(),
        })
        .collect();
    Ok(Findings {
        duplicates,
        groups,
        overrides,
        symbols,
        demangle_failures: demangled.failures,
    })
}

/// Every looked-up name of `ids` (sorted by raw name) with its winner and requesters.
fn resolved_symbols(
    walk: &LookupWalk<'_>,
    winner: &[Option<usize>],
    image_name: &std::sync::Arc<[Name]>,
    ids: &[usize],
) -> Vec<Resolved> {
    ids.iter()
        .map(|&id| Resolved {
            mangled: Name::from(walk.names.text[id]),
            winner: winner[id].map(|w| image_name[w].clone()),
            requested_by: ImageList::images(
                image_name,
                walk.requesters[id].iter().map(|&r| r as usize),
            ),
            lookups: walk.lookups_of[id],
        })
        .collect()
}

/// The names of `ids` demangled, each once, with their template keys.
fn demangle_ids<'a, 'p>(
    names: &Names<'p>,
    ids: impl Iterator<Item = &'a usize>,
    style: NameStyle,
) -> Result<Demangled<'p>> {
    let mut to_demangle: Vec<&str> = ids.map(|&id| names.text[id]).collect();
    to_demangle.sort_unstable();
    to_demangle.dedup();
    Demangled::of_sorted(
        to_demangle,
        crate::analysis::report::DEMANGLE_BATCH,
        GroupBy::Template.keys(),
        style,
    )
}

/// Each duplicated name, most lookups first.
fn duplicates(
    walk: &LookupWalk<'_>,
    defs: &PerName<Def>,
    winner: &[Option<usize>],
    dup_ids: &[usize],
    demangled: &Demangled,
    image_name: &std::sync::Arc<[Name]>,
) -> Vec<Duplicate> {
    // Template keys, one shared copy each.
    let mut templates: HashMap<&str, Name> = HashMap::default();
    let mut duplicates: Vec<Duplicate> = dup_ids
        .iter()
        .map(|&id| {
            let raw = walk.names.text[id];
            let key = template_key(demangled.get(raw));
            Duplicate {
                mangled: Name::from(raw),
                symbol: demangled.get(raw).demangled().into_owned(),
                template: templates
                    .entry(key)
                    .or_insert_with(|| Name::from(key))
                    .clone(),
                winner: image_name[winner[id].unwrap_or(0)].clone(),
                defined_by: ImageList::definers(image_name, defs.of(id)),
                lookups: walk.lookups_of[id],
            }
        })
        .collect();
    duplicates.sort_by(|a, b| {
        b.lookups
            .cmp(&a.lookups)
            .then_with(|| a.mangled.cmp(&b.mangled))
    });
    duplicates
}

/// The duplicates grouped by template: which images define and win their members, most
/// lookups first.
fn group_duplicates(
    process: &Process,
    defs: &PerName<Def>,
    winner: &[Option<usize>],
    dup_ids: &[usize],
    duplicates: &[Duplicate],
    demangled: &Demangled,
    names: &Names<'_>,
) -> Vec<DuplicateGroup> {
    let n = process.images.len();
    struct Building {
        group: DuplicateGroup,
        images: Vec<bool>,
        winners: Vec<bool>,
    }
    let mut groups: HashMap<&str, Building> = HashMap::default();
    for d in duplicates {
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
    for &id in dup_ids {
        let key = template_key(demangled.get(names.text[id]));
        let b = groups
            .get_mut(key)
            .expect("every duplicate's template has a group");
        for d in defs.of(id) {
            b.images[d.image as usize] = true;
        }
        b.winners[winner[id].unwrap_or(0)] = true;
    }
    let in_load_order = |flags: &[bool]| -> Vec<String> {
        (0..n)
            .filter(|&i| flags[i])
            .map(|i| process.images[i].name.clone())
            .collect()
    };
    let mut out: Vec<DuplicateGroup> = groups
        .into_values()
        .map(|b| DuplicateGroup {
            images: in_load_order(&b.images),
            winners: in_load_order(&b.winners),
            ..b.group
        })
        .collect();
    out.sort_by(|a, b| {
        b.lookups
            .cmp(&a.lookups)
            .then(b.symbols.cmp(&a.symbols))
            .then_with(|| a.template.cmp(&b.template))
    });
    out
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
                dylib_use_command: d.use_command,
                attributes: d.attributes.names(),
                image: match d.state {
                    crate::process::DepState::Loaded(i) => Some(i),
                    _ => None,
                },
            })
            .chain(
                linkage
                    .into_iter()
                    .flat_map(|l| &l.lazy_dylibs)
                    .map(lazy_dependency),
            )
            .collect(),
        weak_definitions: pi.image.as_ref().map(|im| im.weak_definitions.len()),
        delay_loaded: pi.delay_loaded,
        ..ImageCost::default()
    }
}

/// A lazy-load dylib as a dependency: listed, never loaded at launch (`image` null) nor searched
/// for weak definitions then (dyld-1376.6+: `forEachLinkedDylib` does not return it).
fn lazy_dependency(d: &crate::model::LazyLoadDylib) -> Dependency {
    let mut attributes = vec!["lazy_load"];
    if d.weak_link {
        attributes.push("weak_link");
    }
    Dependency {
        install_name: d.load_path.clone(),
        load_command: LC_LAZY_LOAD_DYLIB_INFO,
        dylib_use_command: false,
        attributes,
        image: None,
    }
}

/// The load command name [`Dependency::load_command`] gives a lazy-load dylib.
pub const LC_LAZY_LOAD_DYLIB_INFO: &str = "LC_LAZY_LOAD_DYLIB_INFO";

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

#[cfg(test)]
mod tests {
    use super::*;

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
