//! Re-exports followed through a process's images, as dyld follows them when a weak-def lookup
//! finds an `EXPORT_SYMBOL_FLAGS_REEXPORT` entry in a probed image's export trie.
//!
//! dyld-1378 dyld/Loader.cpp `Loader::hasExportedSymbol` (weak-def lookups call it in mode
//! `shallow`, without an `alreadySearched` list, from `Loader::resolveSymbol`):
//!
//! ```text
//! hasExportedSymbol(image, name, mode):
//!     node = trieWalk(image's export trie, name)
//!     if node is a re-export (library ordinal, import name):
//!         ordinal 0 or past the image's dylib load commands: error "re-export ordinal %lld in
//!             %s out of range for %s" (the launch stops), not found
//!         dependency = the image's ordinal-th dylib load command
//!         missing (a weak-linked dylib): not found
//!         import name empty: the same name; another name: a shallow search becomes staticLink
//!         return hasExportedSymbol(dependency, import name, mode)
//!     if node is a definition: found, in THIS image, weak if EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION
//!     if mode is staticLink: for each dependency with the re-export attribute, in order:
//!         if hasExportedSymbol(dependency, name, staticLink): found there
//!     not found
//! ```
//!
//! The target image need not have `MH_WEAK_DEFINES`: only the probed image is chosen by it.
//! dyld has no depth limit and no loop check on this path (a loop recurses until its stack
//! overflows); here a chain is cut at [`MAX_REEXPORT_DEPTH`] images, a loop is found as the same
//! image, name and mode reached twice on one chain, and the trie probes of one search and of a
//! whole process are bounded ([`MAX_PROBES_PER_SEARCH`], [`MAX_PROBES_PER_PROCESS`]): each is an
//! [`Outcome`] the caller reports as one counted problem, never a panic or a hang.
//!
//! A probe may cost a whole trie (a deep one: every node on the name's path), so probes do not
//! bound the work: the follower's lookups, over all its searches, share one
//! [`LookupBudget`] of trie nodes entered and bytes walked (the names each search step copies
//! and compares count as bytes); past it, [`Follower::follow`] errors, naming the main
//! executable (one line, exit 2).

use super::{DepState, Process, unchanged_since_load};
use crate::error::{Error, ErrorKind, Result};
use crate::macho::file::MachOFile;
use crate::macho::lookup_budget::{Exhausted, LookupBudget};
use crate::macho::trie_lookup::{Terminal, read_export_trie};
use std::path::PathBuf;
use std::sync::Arc;

/// Images one chain of re-exports may pass through (the probed image included). dyld has no
/// limit; real chains are one or two images long (libSystem's re-exports of `libsystem_*`).
pub const MAX_REEXPORT_DEPTH: usize = 64;
/// Trie probes one search may make after the probed image's (a `staticLink` search walks every
/// re-exported dylib, depth first).
pub const MAX_PROBES_PER_SEARCH: usize = 4096;
/// Trie probes all the searches of one process may make; past it, no re-export is followed.
pub const MAX_PROBES_PER_PROCESS: usize = 1 << 20;

/// `Loader::ExportedSymbolMode`, the two a weak-def lookup uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The image's own trie only (`shallow`).
    Shallow,
    /// Its trie, then its re-exported dylibs (`staticLink`): after a re-export renamed the symbol.
    StaticLink,
}

/// One dylib load command of an image, as the follower needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// What became of it.
    pub state: DepState,
    /// It has the re-export attribute (`LC_REEXPORT_DYLIB`, or `DYLIB_USE_REEXPORT`).
    pub reexport: bool,
}

/// An image's export trie, as the follower reads it.
#[derive(Debug, Clone)]
pub enum TrieOf {
    /// Not on disk (the dyld shared cache): not read.
    Outside,
    /// The bytes of its export trie (empty when it has none).
    Trie(Arc<[u8]>),
}

/// Where a re-export leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A definition in `image` (its position in the load order), under `name` (raw).
    Found {
        /// The image that holds the definition.
        image: usize,
        /// `EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION`.
        weak: bool,
        /// The name it has there.
        name: Vec<u8>,
    },
    /// No definition: the chain ends at a missing (weak-linked) or unusable dylib, or no image
    /// searched exports the name.
    NotFound,
    /// The search reached `image`, which is outside (not read): what it defines is unknown.
    Outside {
        /// The outside image.
        image: usize,
    },
    /// The same image, name and mode reached twice: `images` is the loop, its first image
    /// last again (dyld would recurse until its stack overflows).
    Loop {
        /// The images of the loop.
        images: Vec<usize>,
    },
    /// The chain passes through more than [`MAX_REEXPORT_DEPTH`] images.
    TooDeep,
    /// The search made [`MAX_PROBES_PER_SEARCH`] probes, or the process's
    /// [`MAX_PROBES_PER_PROCESS`] ran out.
    Stopped,
    /// A re-export's library ordinal names no dylib load command of `image` (dyld: "re-export
    /// ordinal … out of range", and the launch stops).
    OrdinalOutOfRange {
        /// The image whose trie holds the entry.
        image: usize,
        /// The ordinal.
        ordinal: u64,
        /// Its dylib load commands.
        dependencies: usize,
    },
}

/// A re-export followed: where it leads and the trie probes it cost after the probed image's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Followed {
    /// Where it leads.
    pub outcome: Outcome,
    /// Trie probes of images after the first (on-disk images only).
    pub probes: usize,
}

type Reader<'a> = Box<dyn FnMut(usize) -> Result<TrieOf> + Send + 'a>;

/// Follows re-exports through a process's images; reads each image's trie once, when first
/// needed.
pub struct Follower<'a> {
    deps: Vec<Vec<Edge>>,
    /// For errors: the file of each image, and the arch.
    files: Vec<PathBuf>,
    arch: String,
    tries: Vec<Option<TrieOf>>,
    read: Reader<'a>,
    budget: usize,
    work: LookupBudget,
}

/// One chain in progress: the images, names and modes entered, and the probes made.
struct Chain {
    path: Vec<(usize, Vec<u8>, Mode)>,
    probes: usize,
}

impl<'a> Follower<'a> {
    /// A follower over images whose dependencies are `deps` (per image, its dylib load commands
    /// in order), with `read(image)` giving an image's trie. `files` name the images in errors.
    pub fn new(
        deps: Vec<Vec<Edge>>,
        files: Vec<PathBuf>,
        arch: &str,
        read: impl FnMut(usize) -> Result<TrieOf> + Send + 'a,
    ) -> Self {
        Follower {
            tries: vec![None; deps.len()],
            deps,
            files,
            arch: arch.to_string(),
            read: Box::new(read),
            budget: MAX_PROBES_PER_PROCESS,
            work: LookupBudget::default(),
        }
    }

    /// A follower over `process`: tries are read from the images' files, which must be the
    /// files loaded ([`unchanged_since_load`]).
    pub fn of_process(process: &'a Process) -> Self {
        let deps = process
            .images
            .iter()
            .map(|pi| {
                pi.deps
                    .iter()
                    .map(|d| Edge {
                        state: d.state,
                        reexport: d.attributes.reexport(),
                    })
                    .collect()
            })
            .collect();
        let files = process
            .images
            .iter()
            .map(|pi| pi.path.clone().unwrap_or_else(|| PathBuf::from(&pi.name)))
            .collect();
        Follower::new(deps, files, &process.arch, move |i| {
            let pi = &process.images[i];
            let (Some(path), Some(loc)) = (&pi.path, &pi.slice) else {
                return Ok(TrieOf::Outside);
            };
            let file = MachOFile::open_regular(path)?;
            unchanged_since_load(&file, pi.file)?;
            Ok(TrieOf::Trie(read_export_trie(&file, loc)?.into()))
        })
    }

    /// Follows `name` (raw) from `image`, as a weak-def lookup's `hasExportedSymbol(image,
    /// name, shallow)` does (the probe of `image` itself is the caller's). Errors: an image's
    /// trie cannot be read, or is malformed on the path looked up; the follower's lookups went
    /// past their [`LookupBudget`] (naming the main executable).
    pub fn follow(&mut self, image: usize, name: &[u8]) -> Result<Followed> {
        let mut chain = Chain {
            path: Vec::new(),
            probes: 0,
        };
        let outcome = self.search(image, name, Mode::Shallow, &mut chain)?;
        Ok(Followed {
            outcome,
            probes: chain.probes,
        })
    }

    /// `hasExportedSymbol(image, name, mode)` on the chain so far.
    fn search(
        &mut self,
        image: usize,
        name: &[u8],
        mode: Mode,
        chain: &mut Chain,
    ) -> Result<Outcome> {
        if let Some(at) = self.on_chain(chain, image, name, mode)? {
            let mut images: Vec<usize> = chain.path[at..].iter().map(|p| p.0).collect();
            images.push(image);
            return Ok(Outcome::Loop { images });
        }
        if chain.path.len() >= MAX_REEXPORT_DEPTH {
            return Ok(Outcome::TooDeep);
        }
        let trie = match self.trie(image)? {
            TrieOf::Outside => return Ok(Outcome::Outside { image }),
            TrieOf::Trie(t) => t,
        };
        if !chain.path.is_empty() {
            if chain.probes >= MAX_PROBES_PER_SEARCH || self.budget == 0 {
                return Ok(Outcome::Stopped);
            }
            chain.probes += 1;
            self.budget -= 1;
        }
        self.work
            .charge_bytes(name.len())
            .map_err(|e| self.exhausted(e))?;
        chain.path.push((image, name.to_vec(), mode));
        let outcome = self.search_trie(image, &trie, name, mode, chain);
        chain.path.pop();
        outcome
    }

    /// The part of `hasExportedSymbol` after the image's trie is known.
    fn search_trie(
        &mut self,
        image: usize,
        trie: &[u8],
        name: &[u8],
        mode: Mode,
        chain: &mut Chain,
    ) -> Result<Outcome> {
        let terminal = self.work.lookup(trie, name).map_err(|e| {
            Error::new(
                e.kind,
                &self.files[image],
                format!("{}: export trie: {e}", self.arch),
            )
        })?;
        self.work.check().map_err(|e| self.exhausted(e))?;
        match terminal {
            Some(t @ Terminal::Definition { .. }) => Ok(Outcome::Found {
                image,
                weak: t.is_weak_definition(),
                name: name.to_vec(),
            }),
            Some(Terminal::Reexport {
                library_ordinal,
                import_name,
                ..
            }) => self.reexported(image, library_ordinal, import_name, name, mode, chain),
            None if mode == Mode::StaticLink => self.search_reexported_dylibs(image, name, chain),
            None => Ok(Outcome::NotFound),
        }
    }

    /// A re-export entry of `image`: on to the dependency it names.
    fn reexported(
        &mut self,
        image: usize,
        ordinal: u64,
        import_name: &[u8],
        name: &[u8],
        mode: Mode,
        chain: &mut Chain,
    ) -> Result<Outcome> {
        let dependencies = self.deps[image].len();
        let edge = usize::try_from(ordinal)
            .ok()
            .and_then(|o| o.checked_sub(1))
            .and_then(|i| self.deps[image].get(i).copied());
        let Some(edge) = edge else {
            return Ok(Outcome::OrdinalOutOfRange {
                image,
                ordinal,
                dependencies,
            });
        };
        // "re-exported symbol from weak-linked dependent which is missing"; an unusable one is
        // a problem of the process already.
        let DepState::Loaded(target) = edge.state else {
            return Ok(Outcome::NotFound);
        };
        // A renamed symbol may sit in a dylib the target re-exports: dyld "explicitly
        // promote[s] to a ::staticLink resolution" (rdar://91326465).
        let (name, mode) = if !import_name.is_empty() && import_name != name {
            (import_name, Mode::StaticLink)
        } else {
            (name, mode)
        };
        self.search(target, name, mode, chain)
    }

    /// `staticLink`: the dylibs `image` re-exports, in load-command order, depth first.
    fn search_reexported_dylibs(
        &mut self,
        image: usize,
        name: &[u8],
        chain: &mut Chain,
    ) -> Result<Outcome> {
        for k in 0..self.deps[image].len() {
            let edge = self.deps[image][k];
            let DepState::Loaded(dep) = edge.state else {
                continue;
            };
            if !edge.reexport {
                continue;
            }
            match self.search(dep, name, Mode::StaticLink, chain)? {
                Outcome::NotFound => {}
                other => return Ok(other),
            }
        }
        Ok(Outcome::NotFound)
    }

    /// Where on `chain` the same image, name and mode were entered, if they were; each name
    /// compared is charged to the budget.
    fn on_chain(
        &mut self,
        chain: &Chain,
        image: usize,
        name: &[u8],
        mode: Mode,
    ) -> Result<Option<usize>> {
        for (at, (i, n, m)) in chain.path.iter().enumerate() {
            if *i == image && *m == mode && n.len() == name.len() {
                self.work
                    .charge_bytes(name.len())
                    .map_err(|e| self.exhausted(e))?;
                if n == name {
                    return Ok(Some(at));
                }
            }
        }
        Ok(None)
    }

    /// The error of a budget run out: one line naming the main executable.
    fn exhausted(&self, e: Exhausted) -> Error {
        Error::new(
            ErrorKind::Unsupported,
            &self.files[0],
            format!(
                "{}: process walk stopped: the export-trie lookups following re-exports {e} (weakscan's work limit for one process, docs/robustness.md)",
                self.arch
            ),
        )
    }

    /// The trie of `image`, read once.
    fn trie(&mut self, image: usize) -> Result<TrieOf> {
        if let Some(t) = &self.tries[image] {
            return Ok(t.clone());
        }
        let t = (self.read)(image)?;
        self.tries[image] = Some(t.clone());
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat trie: the root's edges are the whole names, longest first (so that dyld's
    /// first-prefix rule finds each), each to a terminal of `terminal` bytes.
    pub(crate) fn flat_trie(entries: &[(&[u8], Vec<u8>)]) -> Vec<u8> {
        let mut sorted: Vec<&(&[u8], Vec<u8>)> = entries.iter().collect();
        sorted.sort_by(|a, b| b.0.cmp(a.0));
        let mut root = vec![0u8, sorted.len() as u8];
        let edges: usize = sorted.iter().map(|(n, _)| n.len() + 2).sum();
        let mut nodes = Vec::new();
        for (name, terminal) in &sorted {
            root.extend_from_slice(name);
            root.push(0);
            let at = 2 + edges + nodes.len();
            assert!(at < 0x80, "one-byte offsets only");
            root.push(at as u8);
            nodes.push(terminal.len() as u8);
            nodes.extend_from_slice(terminal);
            nodes.push(0);
        }
        root.extend_from_slice(&nodes);
        root
    }

    fn weak() -> Vec<u8> {
        vec![0x04, 0x00]
    }
    fn strong() -> Vec<u8> {
        vec![0x00, 0x00]
    }
    fn reexport(ordinal: u8, import: &[u8]) -> Vec<u8> {
        let mut t = vec![0x08, ordinal];
        t.extend_from_slice(import);
        t.push(0);
        t
    }
    fn edge(to: usize, reexport: bool) -> Edge {
        Edge {
            state: DepState::Loaded(to),
            reexport,
        }
    }

    /// A follower over images with these tries (`None`: outside) and dependencies.
    fn follower(tries: Vec<Option<Vec<u8>>>, deps: Vec<Vec<Edge>>) -> Follower<'static> {
        let files = (0..tries.len())
            .map(|i| PathBuf::from(format!("img{i}")))
            .collect();
        Follower::new(deps, files, "x86_64", move |i| {
            Ok(match &tries[i] {
                Some(t) => TrieOf::Trie(t.clone().into()),
                None => TrieOf::Outside,
            })
        })
    }

    #[test]
    fn a_reexport_leads_to_its_dependency_definition() {
        // 0 re-exports _a from its dependency 1 (ordinal 2: its first is 2, not re-exported).
        let t0 = flat_trie(&[(b"_a", reexport(2, b""))]);
        let t1 = flat_trie(&[(b"_a", weak())]);
        let mut f = follower(
            vec![Some(t0), Some(t1), Some(Vec::new())],
            vec![vec![edge(2, false), edge(1, true)], vec![], vec![]],
        );
        let r = f.follow(0, b"_a").unwrap();
        assert_eq!(
            r.outcome,
            Outcome::Found {
                image: 1,
                weak: true,
                name: b"_a".to_vec()
            }
        );
        assert_eq!(r.probes, 1, "one more trie probed");
        assert_eq!(f.follow(0, b"_b").unwrap().outcome, Outcome::NotFound);
    }

    #[test]
    fn a_renamed_reexport_searches_the_reexported_dylibs_of_its_target() {
        // 0: _a -> 1's _impl; 1 has no _impl but re-exports 2 (LC_REEXPORT_DYLIB), which does,
        // strong; 1 also links 3 (not re-exported), which has a weak _impl: not searched.
        let t0 = flat_trie(&[(b"_a", reexport(1, b"_impl"))]);
        let t1 = flat_trie(&[(b"_other", weak())]);
        let t2 = flat_trie(&[(b"_impl", strong())]);
        let t3 = flat_trie(&[(b"_impl", weak())]);
        let mut f = follower(
            vec![Some(t0), Some(t1), Some(t2), Some(t3)],
            vec![
                vec![edge(1, false)],
                vec![edge(3, false), edge(2, true)],
                vec![],
                vec![],
            ],
        );
        let r = f.follow(0, b"_a").unwrap();
        assert_eq!(
            r.outcome,
            Outcome::Found {
                image: 2,
                weak: false,
                name: b"_impl".to_vec()
            }
        );
        assert_eq!(r.probes, 2);
        // The same name is not promoted: 1's re-exported dylibs are not searched.
        let t0 = flat_trie(&[(b"_impl", reexport(1, b""))]);
        let t1 = flat_trie(&[(b"_other", weak())]);
        let t2 = flat_trie(&[(b"_impl", strong())]);
        let mut f = follower(
            vec![Some(t0), Some(t1), Some(t2)],
            vec![vec![edge(1, false)], vec![edge(2, true)], vec![]],
        );
        assert_eq!(f.follow(0, b"_impl").unwrap().outcome, Outcome::NotFound);
    }

    #[test]
    fn loops_and_deep_chains_are_outcomes() {
        // 0 -> 1 -> 0 with the same name: a loop.
        let t = flat_trie(&[(b"_a", reexport(1, b""))]);
        let mut f = follower(
            vec![Some(t.clone()), Some(t.clone())],
            vec![vec![edge(1, false)], vec![edge(0, false)]],
        );
        assert_eq!(
            f.follow(0, b"_a").unwrap().outcome,
            Outcome::Loop {
                images: vec![0, 1, 0]
            }
        );
        // A renamed loop in staticLink mode through LC_REEXPORT_DYLIBs: 0 -> 1 (_b); 1 and 2
        // re-export each other and define nothing.
        let t0 = flat_trie(&[(b"_a", reexport(1, b"_b"))]);
        let mut f = follower(
            vec![Some(t0), Some(Vec::new()), Some(Vec::new())],
            vec![
                vec![edge(1, false)],
                vec![edge(2, true)],
                vec![edge(1, true)],
            ],
        );
        assert_eq!(
            f.follow(0, b"_a").unwrap().outcome,
            Outcome::Loop {
                images: vec![1, 2, 1]
            }
        );
        // A chain of 100 images, each re-exporting _a from the next: cut at the cap.
        let n = 100;
        let tries = (0..n).map(|_| Some(t.clone())).collect();
        let deps = (0..n)
            .map(|i| vec![edge((i + 1) % n, false)])
            .collect::<Vec<_>>();
        let mut chain = follower(tries, deps.clone());
        let r = chain.follow(0, b"_a").unwrap();
        assert_eq!(r.outcome, Outcome::TooDeep);
        assert_eq!(r.probes, MAX_REEXPORT_DEPTH - 1);
    }

    #[test]
    fn bad_ordinals_missing_and_outside_dylibs_are_outcomes() {
        let t = flat_trie(&[(b"_a", reexport(1, b""))]);
        // Ordinal 0 and past the dependencies.
        for ordinal in [0u8, 2] {
            let t = flat_trie(&[(b"_a", reexport(ordinal, b""))]);
            let mut f = follower(
                vec![Some(t), Some(Vec::new())],
                vec![vec![edge(1, false)], vec![]],
            );
            assert_eq!(
                f.follow(0, b"_a").unwrap().outcome,
                Outcome::OrdinalOutOfRange {
                    image: 0,
                    ordinal: u64::from(ordinal),
                    dependencies: 1
                }
            );
        }
        // A missing (weak-linked) dependency, and one outside.
        let missing = Edge {
            state: DepState::Missing,
            reexport: false,
        };
        let mut f = follower(vec![Some(t.clone())], vec![vec![missing]]);
        assert_eq!(f.follow(0, b"_a").unwrap().outcome, Outcome::NotFound);
        let mut f = follower(
            vec![Some(t.clone()), None],
            vec![vec![edge(1, false)], vec![]],
        );
        assert_eq!(
            f.follow(0, b"_a").unwrap().outcome,
            Outcome::Outside { image: 1 }
        );
    }

    #[test]
    fn the_process_budget_stops_following() {
        let t = flat_trie(&[(b"_a", reexport(1, b""))]);
        let end = flat_trie(&[(b"_a", weak())]);
        let mut f = follower(vec![Some(t), Some(end)], vec![vec![edge(1, false)], vec![]]);
        f.budget = 1;
        assert!(matches!(
            f.follow(0, b"_a").unwrap().outcome,
            Outcome::Found { .. }
        ));
        assert_eq!(f.follow(0, b"_a").unwrap().outcome, Outcome::Stopped);
    }

    #[test]
    fn the_lookups_work_is_bounded_not_their_probes() {
        // 0 re-exports _a from 1 as _b: a staticLink search of 1 (a 100-node chain, no _b),
        // then of the dylib it re-exports twice, 2 (the same chain): 3 probes past 0's.
        use crate::macho::trie_lookup::tests::chain;
        let t0 = flat_trie(&[(b"_a", reexport(1, b"_b"))]);
        let tries = vec![Some(t0), Some(chain(100, None)), Some(chain(100, None))];
        let deps = vec![
            vec![edge(1, false)],
            vec![edge(2, true), edge(2, true)],
            vec![],
        ];
        let with_limits = |nodes, bytes| {
            let mut f = follower(tries.clone(), deps.clone());
            f.work = LookupBudget::with_limits(nodes, bytes);
            f
        };
        let mut f = with_limits(u64::MAX, u64::MAX);
        let r = f.follow(0, b"_a").unwrap();
        assert_eq!((r.outcome, r.probes), (Outcome::NotFound, 3));
        // Nodes: 0's root and entry, 100 a chain. Bytes: 0's (6 + 6), the chains' (6 a node,
        // 2 for the last), and the name each search step copies (_a, then _b three times).
        let (nodes, bytes) = (2 + 3 * 100, 12 + 3 * 596 + 8);
        assert_eq!((f.work.walked.nodes, f.work.walked.bytes), (nodes, bytes));
        assert!(with_limits(nodes, bytes).follow(0, b"_a").is_ok());
        // One node less: the third probe goes past it, an error naming the main executable.
        let e = with_limits(nodes - 1, bytes).follow(0, b"_a").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported);
        assert_eq!(
            e.message,
            "img0: x86_64: process walk stopped: the export-trie lookups following re-exports entered more than 301 trie nodes (weakscan's work limit for one process, docs/robustness.md)"
        );
        let e = with_limits(nodes, bytes - 1).follow(0, b"_a").unwrap_err();
        assert!(e.message.contains("walked more than 1807 bytes"), "{e}");
    }

    #[test]
    fn a_malformed_target_trie_is_an_error_naming_its_file() {
        let t = flat_trie(&[(b"_a", reexport(1, b""))]);
        let bad = vec![0x00, 0x01, b'_', 0x00, 0x7f];
        let mut f = follower(vec![Some(t), Some(bad)], vec![vec![edge(1, false)], vec![]]);
        let e = f.follow(0, b"_a").unwrap_err();
        assert!(e.message.starts_with("img1: x86_64: export trie: "), "{e}");
    }
}
