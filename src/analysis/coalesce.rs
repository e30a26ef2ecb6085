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

use crate::analysis::demangle::{Demangled, Keys};
use crate::analysis::group::GroupBy;
use crate::error::Result;
use crate::macho::file::MachOFile;
use crate::macho::image::{ExportKind, exports_among};
use crate::model::{FixupFormat, LookupReason, MH_WEAK_DEFINES, TREAT_AS_WEAK};
use crate::process::{Problem, Process};
use rustc_hash::{FxHashMap, FxHashSet};

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
    pub mangled: String,
    /// The image whose definition wins (`null`: no image on disk defines it).
    pub winner: Option<String>,
    /// Images looking it up, in load order.
    pub requested_by: Vec<String>,
    /// Lookups of it.
    pub lookups: usize,
}

/// A looked-up weak symbol defined by several images on disk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Duplicate {
    /// The raw name.
    pub mangled: String,
    /// Demangled as GNU c++filt prints it.
    pub symbol: String,
    /// Template key (see `--by template`).
    pub template: String,
    /// The image whose definition wins.
    pub winner: String,
    /// Every image on disk that defines it, in load order (`weak` or `strong` after each).
    pub defined_by: Vec<String>,
    /// Lookups of it.
    pub lookups: usize,
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

/// Calibration of the launch-cost estimate, microseconds per trie probe (low, high): from
/// nodejs/node#56275, 7317 → 1755 lookups took 28.9 → 12.4 ms (16.5 ms for 5562 lookups,
/// 2.97 µs each), with each lookup probing node's own trie and, in the shared cache, at least
/// libc++ and libc++abi: 1 to 3 probes per lookup. `docs/process.md`.
pub const US_PER_PROBE: (f64, f64) = (0.99, 2.97);

struct Def {
    image: usize,
    strong: bool,
}

/// The weak-def lookups of `process` in dyld's order: (requesting image, raw name, reason). The
/// treat-as-weak checks of `handleStrongWeakDefOverrides` come first (see the module docs), then
/// each image's lookups in load order.
pub fn lookup_sequence(process: &Process) -> Vec<(usize, &str, LookupReason)> {
    let n = process.images.len();
    let takes_part = |i: usize| process.images[i].takes_part() == Some(true);
    let mut seq = Vec::new();
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
        seq.extend(
            TREAT_AS_WEAK
                .iter()
                .map(|s| (c, *s, LookupReason::StrongOverrideCheck)),
        );
    }
    for (i, pi) in process.images.iter().enumerate() {
        if let Some(im) = &pi.image {
            seq.extend(
                im.lookups
                    .iter()
                    .filter(|l| l.reason != LookupReason::StrongOverrideCheck)
                    .map(|l| (i, l.symbol.as_str(), l.reason)),
            );
        }
    }
    seq
}

/// Analyses `process`. Errors: an image's export trie can no longer be read (the file changed
/// since it was loaded), or demangling fails.
pub fn coalesce(process: &Process) -> Result<Coalescing> {
    let n = process.images.len();
    let takes_part: Vec<bool> = process
        .images
        .iter()
        .map(|pi| pi.takes_part() == Some(true))
        .collect();
    let searched: Vec<usize> = (0..n).filter(|&i| takes_part[i]).collect();
    let seq = lookup_sequence(process);

    // What each searched image's trie holds of the names looked up.
    let wanted: FxHashSet<&[u8]> = seq.iter().map(|(_, s, _)| s.as_bytes()).collect();
    let mut defs: FxHashMap<String, Vec<Def>> = FxHashMap::default();
    for &i in &searched {
        let pi = &process.images[i];
        let (Some(path), Some(loc)) = (&pi.path, &pi.slice) else {
            continue;
        };
        let file = MachOFile::open(path)?;
        for (name, kind) in exports_among(&file, loc, &wanted)? {
            defs.entry(name).or_default().push(Def {
                image: i,
                strong: kind != ExportKind::Weak,
            });
        }
    }
    // The winner of each name: the first definition, unless a later non-weak one replaces a
    // weak first (once: the replacement is non-weak).
    let winner_of = |ds: &[Def]| -> usize {
        let first = &ds[0];
        if first.strong {
            return first.image;
        }
        ds.iter().find(|d| d.strong).unwrap_or(first).image
    };
    let winners: FxHashMap<&str, usize> = defs
        .iter()
        .map(|(name, ds)| (name.as_str(), winner_of(ds)))
        .collect();

    // Walk the lookups in order, with the weakDefMap.
    let mut cost: Vec<ImageCost> = process
        .images
        .iter()
        .enumerate()
        .map(|(i, pi)| ImageCost {
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
            install_name: pi
                .image
                .as_ref()
                .and_then(|im| im.linkage.as_ref())
                .and_then(|l| l.install_name.clone()),
            rpaths: pi
                .image
                .as_ref()
                .and_then(|im| im.linkage.as_ref())
                .map(|l| l.rpaths.clone())
                .unwrap_or_default(),
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
        })
        .collect();
    let mut map: Option<FxHashSet<&str>> = None;
    let mut probes = 0usize;
    let mut map_hits = 0usize;
    let mut requesters: FxHashMap<&str, FxHashSet<usize>> = FxHashMap::default();
    let mut lookups_of: FxHashMap<&str, usize> = FxHashMap::default();
    for (count, &(req, name, _)) in seq.iter().enumerate() {
        if count + 1 > WEAK_DEF_MAP_AFTER && map.is_none() {
            map = Some(FxHashSet::default());
        }
        cost[req].lookups += 1;
        requesters.entry(name).or_default().insert(req);
        *lookups_of.entry(name).or_default() += 1;
        if map.as_ref().is_some_and(|m| m.contains(name)) {
            map_hits += 1;
            continue;
        }
        probes += searched.len();
        cost[req].trie_probes += searched.len();
        if let Some(m) = &mut map {
            // dyld adds what it found; a name no image on disk defines is taken to be found in
            // the shared cache (a lookup that finds nothing stops the launch).
            m.insert(name);
        }
    }

    // Per image: wins, losses, unused weak definitions.
    for (name, ds) in &defs {
        let w = winners[name.as_str()];
        let reqs = &requesters[name.as_str()];
        cost[w].wins += 1;
        if reqs.iter().any(|&r| r != w) {
            cost[w].wins_for_others += 1;
        }
        let mut seen = FxHashSet::default();
        for d in ds {
            if d.image != w && seen.insert(d.image) {
                cost[d.image].loses += 1;
            }
        }
    }
    for (i, pi) in process.images.iter().enumerate() {
        let Some(im) = &pi.image else { continue };
        cost[i].unused_weak_definitions = Some(
            im.weak_definitions
                .iter()
                .filter(|w| !lookups_of.contains_key(w.name.as_str()))
                .count(),
        );
        let own: FxHashSet<&str> = im
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
    let total_lookups = seq.len();
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

    // Duplicates and overrides of the main executable.
    let mut dup_names: Vec<&str> = defs
        .iter()
        .filter(|(_, ds)| {
            let imgs: FxHashSet<usize> = ds.iter().map(|d| d.image).collect();
            imgs.len() > 1
        })
        .map(|(n, _)| n.as_str())
        .collect();
    dup_names.sort_unstable();
    let mut overrides: Vec<&str> = defs
        .iter()
        .filter(|(name, ds)| ds.iter().any(|d| d.image == 0) && winners[name.as_str()] != 0)
        .map(|(n, _)| n.as_str())
        .collect();
    overrides.sort_unstable();
    let mut to_demangle: Vec<&str> = dup_names.iter().chain(&overrides).copied().collect();
    to_demangle.sort_unstable();
    to_demangle.dedup();
    let names = Demangled::of_sorted(
        to_demangle,
        crate::analysis::report::DEMANGLE_BATCH,
        Keys::for_grouping(GroupBy::Template),
    )?;
    let shown = |raw: &str| names.get(raw).demangled().to_string();
    let mut duplicates: Vec<Duplicate> = dup_names
        .iter()
        .map(|&raw| {
            let ds = &defs[raw];
            Duplicate {
                mangled: raw.to_string(),
                symbol: shown(raw),
                template: GroupBy::Template.key_of(names.get(raw)).to_string(),
                winner: process.images[winners[raw]].name.clone(),
                defined_by: ds
                    .iter()
                    .map(|d| {
                        format!(
                            "{} ({})",
                            process.images[d.image].name,
                            if d.strong { "strong" } else { "weak" }
                        )
                    })
                    .collect(),
                lookups: lookups_of[raw],
            }
        })
        .collect();
    duplicates.sort_by(|a, b| {
        b.lookups
            .cmp(&a.lookups)
            .then_with(|| a.mangled.cmp(&b.mangled))
    });
    let mut groups: FxHashMap<String, DuplicateGroup> = FxHashMap::default();
    for (d, raw) in duplicates.iter().map(|d| (d, d.mangled.as_str())) {
        let g = groups
            .entry(d.template.clone())
            .or_insert_with(|| DuplicateGroup {
                template: d.template.clone(),
                symbols: 0,
                lookups: 0,
                images: Vec::new(),
                winners: Vec::new(),
                example: d.symbol.clone(),
                example_mangled: d.mangled.clone(),
            });
        g.symbols += 1;
        g.lookups += d.lookups;
        for def in &defs[raw] {
            let name = &process.images[def.image].name;
            if !g.images.contains(name) {
                g.images.push(name.clone());
            }
        }
        let w = &process.images[winners[raw]].name;
        if !g.winners.contains(w) {
            g.winners.push(w.clone());
        }
    }
    let order = |names: &mut Vec<String>| {
        names.sort_by_key(|n| process.images.iter().position(|pi| &pi.name == n));
    };
    let mut duplicate_groups: Vec<DuplicateGroup> = groups.into_values().collect();
    for g in &mut duplicate_groups {
        order(&mut g.images);
        order(&mut g.winners);
    }
    duplicate_groups.sort_by(|a, b| {
        b.lookups
            .cmp(&a.lookups)
            .then(b.symbols.cmp(&a.symbols))
            .then_with(|| a.template.cmp(&b.template))
    });
    let overrides_of_main = overrides
        .iter()
        .map(|&raw| Override {
            mangled: raw.to_string(),
            symbol: shown(raw),
            winner: process.images[winners[raw]].name.clone(),
        })
        .collect();
    let distinct_names = lookups_of.len();
    let mut symbols: Vec<Resolved> = lookups_of
        .iter()
        .map(|(&name, &lookups)| {
            let mut reqs: Vec<usize> = requesters[name].iter().copied().collect();
            reqs.sort_unstable();
            Resolved {
                mangled: name.to_string(),
                winner: winners.get(name).map(|&w| process.images[w].name.clone()),
                requested_by: reqs
                    .into_iter()
                    .map(|r| process.images[r].name.clone())
                    .collect(),
                lookups,
            }
        })
        .collect();
    symbols.sort_by(|a, b| a.mangled.cmp(&b.mangled));
    let defined_outside = lookups_of
        .keys()
        .filter(|k| !defs.contains_key(**k))
        .count();
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
        duplicated_names: dup_names.len(),
        duplicate_groups,
        duplicates,
        overrides_of_main,
        symbols,
        estimated_ms: (
            probes as f64 * US_PER_PROBE.0 / 1000.0,
            probes as f64 * US_PER_PROBE.1 / 1000.0,
        ),
        problems: process.problems.iter().map(Problem::to_string).collect(),
        demangle_failures: names.failures,
        images: cost,
    })
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
