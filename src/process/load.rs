//! dyld4's load order, on disk.
//!
//! dyld-1378 `dyldMain.cpp` `prepare()` makes the main executable's loader, then calls
//! `loadDependents` on it (and on inserted libraries, which a static analysis has none of: dyld
//! moves them ahead of the main executable in `state.loaded`, a log shows them, `verify` leaves
//! them out). `LC_LAZY_LOAD_DYLIB_INFO` dylibs are not loaded at launch: not followed here.
//! `JustInTimeLoader::loadDependents(image)`:
//!
//! ```text
//! if image.dependentsSet: return                  // each image once: cycles end here
//! for each LC_LOAD_DYLIB / _WEAK_ / REEXPORT / UPWARD, in order:
//!     find it among the loaded images, else load it (appended to state.loaded)
//!     (a missing LC_LOAD_WEAK_DYLIB is skipped; any other missing one stops the launch)
//! image.dependentsSet = true
//! for each dependency, in order: dependency.loadDependents()   // rpath stack + this image
//! ```
//!
//! So the main executable's direct dependencies come first, then, depth first, each one's new
//! dependencies. `state.loaded` is the order weak-def lookups search and fixups run in
//! (`Loader::resolveSymbol`, `dyldMain.cpp`'s fixup loop). The recursion is run here on an
//! explicit stack, so a deep chain of dylibs cannot overflow ours.

use super::bundle::Located;
use super::resolve::{Resolution, Roots, RpathDir, RpathLink, Search, expand_rpaths, resolve};
use super::{Dep, DepState, Found, Problem, Process, ProcessImage};
use crate::error::{Error, ErrorKind, Result};
use crate::macho::file::{FileIdentity, MachOFile};
use crate::macho::image::{ReadOptions, read_image, read_image_with};
use crate::model::{DylibAttributes, DylibLink, Name};
use foldhash::{HashMap, HashSet};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// At most this many images are read per process; the rest are reported, not read.
pub const MAX_IMAGES: usize = 4096;

/// How to find and read a process's images.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--arch`: the slice of every image (default: each slice of the main executable, one
    /// process each).
    pub arch: Option<String>,
    /// `--search` directories: a dependency no expansion finds is looked for here by leaf name.
    pub search: Vec<PathBuf>,
    /// `--sysroot`: where absolute install names (`/usr/lib/…`) are looked for.
    pub sysroot: Option<PathBuf>,
}

/// Reads the process of `located`, once per selected slice of its main executable. Errors
/// (exit 2): the main executable cannot be read, or `--arch` names none of its slices, or a
/// search directory or sysroot does not exist or is not a directory. A dependency's failure is
/// a [`Problem`].
pub fn load(located: &Located, opts: &LoadOptions) -> Result<Vec<Process>> {
    let canon = |p: &Path| std::fs::canonicalize(p).map_err(|e| Error::io(p, &e));
    let dir = |p: &Path| {
        let c = canon(p)?;
        if !c.is_dir() {
            return Err(Error::new(ErrorKind::Usage, p, "not a directory"));
        }
        Ok(c)
    };
    let roots = Roots {
        dirs: vec![canon(&located.root)?],
        search: opts.search.iter().map(|p| dir(p)).collect::<Result<_>>()?,
        sysroot: opts.sysroot.as_deref().map(dir).transpose()?,
    };
    let main_path = canon(&located.main)?;
    let file = MachOFile::open_regular(&located.main)?;
    let slices = file.slices()?;
    let chosen: Vec<_> = match &opts.arch {
        Some(a) => {
            let s: Vec<_> = slices.iter().filter(|s| &s.arch == a).cloned().collect();
            if s.is_empty() {
                return Err(Error::new(
                    ErrorKind::Usage,
                    &located.main,
                    no_slice(a, &slices),
                ));
            }
            s
        }
        None => slices,
    };
    let mut out = Vec::with_capacity(chosen.len());
    for loc in chosen {
        let main_file = MachOFile::open_regular(&located.main)?;
        let mut image = read_image(&main_file, &loc)?;
        let mut loader = Loader {
            arch: loc.arch.clone(),
            main_dir: main_path.parent().unwrap_or(Path::new("/")).to_path_buf(),
            roots: roots.clone(),
            images: Vec::new(),
            problems: Vec::new(),
            dependents_set: Vec::new(),
            loaded: LoadedIndex::default(),
            names: Default::default(),
            rpaths: Vec::new(),
            search: Default::default(),
        };
        intern(&loader.names, &mut image);
        loader.push(ProcessImage {
            name: loader.display(&main_path),
            path: Some(main_path.clone()),
            image: Some(image),
            slice: Some(loc),
            file: main_file.identity(),
            found: Found::Main,
            loaded_by: None,
            deps: Vec::new(),
            delay_loaded: false,
        });
        loader.load_all();
        mark_delay_loaded(&mut loader.images);
        let search = loader.search.into_inner();
        if search.capped() {
            loader.problems.push(Problem {
                path: loader.images[0].name.clone(),
                what: format!(
                    "dependency search stopped after {} candidate paths (the cap per process): the dependencies it had not found then are not read",
                    search.probes()
                ),
            });
        }
        out.push(Process {
            arch: loader.arch,
            roots: {
                let mut r = loader.roots.dirs.clone();
                r.extend(loader.roots.search.iter().cloned());
                r.extend(loader.roots.sysroot.iter().cloned());
                r
            },
            images: loader.images,
            problems: loader.problems,
        });
    }
    Ok(out)
}

struct Loader {
    arch: String,
    main_dir: PathBuf,
    roots: Roots,
    images: Vec<ProcessImage>,
    problems: Vec<Problem>,
    dependents_set: Vec<bool>,
    /// `images` indexed for the "already loaded" checks.
    loaded: LoadedIndex,
    /// Every symbol name read so far, once: images of one process share most names (the same
    /// templates in each dylib), so each image's names are swapped for the first copy read
    /// (`Name` is reference-counted) and its own copies freed.
    /// Locked by the reader of each image once it is read (images are read in parallel).
    names: Mutex<HashSet<Name>>,
    /// Each image's directory and `LC_RPATH`s, expanded once (indexed as `images`).
    rpaths: Vec<(PathBuf, Vec<RpathDir>)>,
    /// The dependency search's caches and budget (`resolve_with` borrows it from `&self`).
    search: std::cell::RefCell<Search>,
}

/// The images loaded so far, indexed for dyld's "already loaded" checks (Loader.cpp
/// `getLoader`); each maps to the first image in load order that matches, so a check is one hash
/// lookup, not a pass over every image (80,000 outside dependencies took 37 s).
#[derive(Default)]
struct LoadedIndex {
    /// On-disk images by install name (`LC_ID_DYLIB`).
    install_name: HashMap<String, usize>,
    /// Outside images by the install name they were loaded under.
    outside: HashMap<String, usize>,
    /// On-disk images by canonical path.
    path: HashMap<PathBuf, usize>,
    /// On-disk images by [`FileIdentity::dyld_file_id`].
    file: HashMap<(u64, u64, i128), usize>,
}

impl LoadedIndex {
    fn add(&mut self, i: usize, pi: &ProcessImage) {
        let install_name = pi
            .image
            .as_ref()
            .and_then(|im| im.linkage.as_ref())
            .and_then(|l| l.install_name.as_deref());
        if let Some(n) = install_name {
            self.install_name.entry(n.to_string()).or_insert(i);
        }
        if !pi.on_disk() {
            self.outside.entry(pi.name.clone()).or_insert(i);
        }
        if let Some(p) = &pi.path {
            self.path.entry(p.clone()).or_insert(i);
        }
        if let Some(f) = &pi.file {
            self.file.entry(f.dyld_file_id()).or_insert(i);
        }
    }
}

/// Points each name of `image` at the copy in `names` (adding those not there yet).
fn intern(names: &Mutex<HashSet<Name>>, image: &mut crate::model::Image) {
    // A poisoned lock only means another reader panicked: the set itself is whole.
    let mut names = names.lock().unwrap_or_else(|e| e.into_inner());
    let mut one = |n: &mut Name| match names.get(n.as_str()) {
        Some(first) => *n = first.clone(),
        None => {
            names.insert(n.clone());
        }
    };
    image
        .weak_definitions
        .iter_mut()
        .for_each(|w| one(&mut w.name));
    for t in &mut image.bind_targets {
        one(&mut t.symbol);
    }
    image.lookups.iter_mut().for_each(|l| one(&mut l.symbol));
}

/// One `loadDependents` call in progress: the image, the frame that called it (its loader in
/// the rpath stack) and the dependencies still to recurse into.
struct Frame {
    image: usize,
    parent: Option<usize>,
    children: Vec<usize>,
    next: usize,
}

impl Loader {
    fn push(&mut self, pi: ProcessImage) -> usize {
        let i = self.images.len();
        self.loaded.add(i, &pi);
        let dir = pi
            .path
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new("/"));
        let rpaths = match pi.image.as_ref().and_then(|i| i.linkage.as_ref()) {
            Some(l) if pi.path.is_some() => {
                expand_rpaths(dir, &l.rpaths, &self.main_dir, &self.roots)
            }
            _ => Vec::new(),
        };
        self.rpaths.push((dir.to_path_buf(), rpaths));
        self.images.push(pi);
        self.dependents_set.push(false);
        i
    }

    /// A path as shown: relative to the bundle (or main executable's directory) when inside
    /// it, else relative to the `--search` or `--sysroot` directory it is in, prefixed with that
    /// directory's name (`@img/sharp-libvips-darwin-arm64/lib/…`).
    fn display(&self, p: &Path) -> String {
        if let Ok(rel) = p.strip_prefix(&self.roots.dirs[0]) {
            return crate::text::escape_path(rel);
        }
        for root in self.roots.search.iter().chain(&self.roots.sysroot) {
            if let Ok(rel) = p.strip_prefix(root) {
                let name = root.file_name().map(Path::new).unwrap_or(Path::new(""));
                return crate::text::escape_path(&name.join(rel));
            }
        }
        crate::text::escape_path(p)
    }

    fn load_all(&mut self) {
        // `frames` keeps every frame (the rpath stack follows `parent`); `active` is the stack.
        let mut frames: Vec<Frame> = Vec::new();
        let mut active: Vec<usize> = Vec::new();
        if let Some(f) = self.load_dependents(0, None, &frames) {
            frames.push(f);
            active.push(frames.len() - 1);
        }
        while let Some(&top) = active.last() {
            let f = &mut frames[top];
            if f.next == f.children.len() {
                active.pop();
                continue;
            }
            let child = f.children[f.next];
            f.next += 1;
            if let Some(nf) = self.load_dependents(child, Some(top), &frames) {
                frames.push(nf);
                active.push(frames.len() - 1);
            }
        }
    }

    /// The first half of `loadDependents(image)`: finds or loads each direct dependency.
    /// Returns the frame that recurses into them, or `None` if the image's dependencies were
    /// already set (or it is an outside image, whose dependencies are not known).
    fn load_dependents(
        &mut self,
        image: usize,
        parent: Option<usize>,
        frames: &[Frame],
    ) -> Option<Frame> {
        if self.dependents_set[image] || !self.images[image].on_disk() {
            return None;
        }
        self.dependents_set[image] = true;
        // The rpath stack: this image, then its loaders up to the main executable.
        let mut chain_images = vec![image];
        let mut at = parent;
        while let Some(i) = at {
            chain_images.push(frames[i].image);
            at = frames[i].parent;
        }
        let dylibs = self.images[image]
            .image
            .as_ref()
            .and_then(|i| i.linkage.as_ref())
            .map(|l| l.dylibs.clone())
            .unwrap_or_default();
        // Where each dependency not loaded yet resolves, and the new files among them read in
        // parallel; `find_or_load` then goes through them in order, exactly as one by one (a
        // dependency loaded meanwhile is found loaded; a prefetched file not taken is dropped).
        // One already loaded under its install name is neither resolved nor read (regression:
        // N dylibs whose rpaths reached copies of loaded libraries read those copies N times).
        let resolved: Vec<Option<Resolution>> = dylibs
            .iter()
            .map(|d| {
                self.loaded_as(&d.install_name)
                    .is_none()
                    .then(|| self.resolve_with(&d.install_name, &chain_images))
            })
            .collect();
        let mut prefetched = self.prefetch(&resolved);
        let mut deps = Vec::with_capacity(dylibs.len());
        let mut children = Vec::new();
        for (d, r) in dylibs.into_iter().zip(resolved) {
            let link = Link {
                link: d.link,
                use_command: d.use_command,
                attributes: d.attributes.effective(),
            };
            let state = self.find_or_load(
                &d.install_name,
                link,
                image,
                r,
                &chain_images,
                &mut prefetched,
            );
            if let DepState::Loaded(i) = state {
                if chain_images.contains(&i) {
                    let mut cycle: Vec<&str> = chain_images
                        .iter()
                        .rev()
                        .skip_while(|&&c| c != i)
                        .map(|&c| self.images[c].name.as_str())
                        .collect();
                    cycle.push(self.images[i].name.as_str());
                    let text = format!(
                        "dependency cycle {} (dyld loads each image once; the load order is unchanged)",
                        cycle.join(" → ")
                    );
                    self.problems.push(Problem {
                        path: self.images[image].name.clone(),
                        what: text,
                    });
                }
                children.push(i);
            }
            deps.push(Dep {
                install_name: d.install_name,
                link: link.link,
                use_command: link.use_command,
                attributes: link.attributes,
                state,
            });
        }
        self.images[image].deps = deps;
        Some(Frame {
            image,
            parent,
            children,
            next: 0,
        })
    }

    /// The image already loaded under install name `name` (dyld: absolute paths by path,
    /// `@rpath/` names "already loaded as rpath", Loader.cpp `getLoader`), if any.
    fn loaded_as(&self, name: &str) -> Option<usize> {
        let by_install_name = if name.starts_with("@rpath/") || name.starts_with('/') {
            self.loaded.install_name.get(name)
        } else {
            None
        };
        by_install_name
            .into_iter()
            .chain(self.loaded.outside.get(name))
            .min()
            .copied()
    }

    /// The image already loaded from the file at `path`: the same path, or the same file
    /// through a hard link (dyld-1378 Loader.cpp `getLoader`: "see if this possible path was
    /// already loaded via a symlink or hardlink by checking inode", `FileID::operator==`).
    /// Symlinks need no inode: resolved paths are canonical.
    fn loaded_at(&self, path: &Path) -> Option<usize> {
        if let Some(&i) = self.loaded.path.get(path) {
            return Some(i);
        }
        let id = FileIdentity::of_path(path)?;
        self.loaded.file.get(&id.dyld_file_id()).copied()
    }

    /// Resolves `name` with the rpath stack `chain` (the loading image, then its loaders).
    fn resolve_with(&self, name: &str, chain: &[usize]) -> Resolution {
        let links: Vec<RpathLink<'_>> = chain
            .iter()
            .map(|&c| {
                let (dir, rpaths) = &self.rpaths[c];
                RpathLink {
                    dir,
                    rpaths,
                    name: self.images[c].name.as_str(),
                }
            })
            .collect();
        let mut search = self.search.borrow_mut();
        resolve(name, &self.main_dir, &links, &self.roots, &mut search)
    }

    /// Reads, in parallel, the files of `resolved` that are not loaded yet (each once, at most
    /// as many as [`MAX_IMAGES`] leaves room for), keyed by path.
    fn prefetch(&self, resolved: &[Option<Resolution>]) -> HashMap<PathBuf, Result<Read>> {
        let room = MAX_IMAGES.saturating_sub(self.images.len());
        let mut paths: Vec<&PathBuf> = Vec::new();
        // One read per file: links to one file are one image (regression: 4000 hard links to a
        // dylib not loaded yet were all read at once, 5.3 GB).
        let mut files = HashSet::default();
        for r in resolved {
            let Some(Resolution::File(path, _)) = r else {
                continue;
            };
            if paths.len() >= room || paths.contains(&path) || self.loaded.path.contains_key(path) {
                continue;
            }
            // `loaded_at`'s inode check, with the one `stat` also deduplicating this batch.
            let file = FileIdentity::of_path(path).map(|id| id.dyld_file_id());
            if file.is_some_and(|f| self.loaded.file.contains_key(&f) || !files.insert(f)) {
                continue;
            }
            paths.push(path);
        }
        if paths.len() < 2 {
            // Nothing to overlap: read when taken.
            return HashMap::default();
        }
        let (arch, names) = (&self.arch, &self.names);
        paths
            .into_par_iter()
            .map(|p| (p.clone(), read_dylib(p, arch, names)))
            .collect()
    }

    fn find_or_load(
        &mut self,
        name: &str,
        link: Link,
        requester: usize,
        resolution: Option<Resolution>,
        chain: &[usize],
        prefetched: &mut HashMap<PathBuf, Result<Read>>,
    ) -> DepState {
        let requester_name = self.images[requester].name.clone();
        if let Some(i) = self.loaded_as(name) {
            return DepState::Loaded(i);
        }
        let resolution = match resolution {
            Some(r) => r,
            None => self.resolve_with(name, chain),
        };
        let problem = |what: String| Problem {
            path: requester_name.clone(),
            what,
        };
        match resolution {
            Resolution::File(path, found) => {
                if let Some(i) = self.loaded_at(&path) {
                    return DepState::Loaded(i);
                }
                if self.images.len() >= MAX_IMAGES {
                    self.problems.push(problem(format!(
                        "{name}: not read: the process already has {MAX_IMAGES} images"
                    )));
                    return DepState::Unusable;
                }
                let read = prefetched
                    .remove(&path)
                    .unwrap_or_else(|| read_dylib(&path, &self.arch, &self.names));
                match read {
                    Ok((image, loc, file)) => {
                        let shown = self.display(&path);
                        DepState::Loaded(self.push(ProcessImage {
                            name: shown,
                            path: Some(path),
                            image: Some(image),
                            slice: Some(loc),
                            file,
                            found,
                            loaded_by: Some(requester),
                            deps: Vec::new(),
                            delay_loaded: false,
                        }))
                    }
                    Err(e) => {
                        self.problems.push(problem(format!(
                            "{} ({name}): {}",
                            link.describe(),
                            e.message
                        )));
                        DepState::Unusable
                    }
                }
            }
            Resolution::Outside => DepState::Loaded(self.push(ProcessImage {
                name: name.to_string(),
                path: None,
                image: None,
                slice: None,
                file: None,
                found: Found::Outside,
                loaded_by: Some(requester),
                deps: Vec::new(),
                delay_loaded: false,
            })),
            Resolution::NotFound(tried) => {
                let tried = if tried.is_empty() {
                    "no LC_RPATH of the rpath stack expands it".to_string()
                } else {
                    format!("tried {}", tried.join(", "))
                };
                let what = if link.attributes.weak_link() {
                    format!(
                        "{name} ({}) is missing; dyld skips it ({tried})",
                        link.describe()
                    )
                } else {
                    format!(
                        "{name} ({}) is not found; dyld would stop the launch with \"Library not loaded\" ({tried})",
                        link.describe()
                    )
                };
                self.problems.push(problem(what));
                DepState::Missing
            }
            Resolution::Refused(why) => {
                self.problems.push(problem(format!(
                    "{name} ({}): not read: {why}",
                    link.describe()
                )));
                DepState::Unusable
            }
            // Counted once, for the process, when the loading ends.
            Resolution::Capped => DepState::Unusable,
        }
    }
}

/// One dependency's load command, as dyld acts on it.
#[derive(Clone, Copy)]
struct Link {
    link: DylibLink,
    use_command: bool,
    /// Effective ([`DylibAttributes::effective`]).
    attributes: DylibAttributes,
}

impl Link {
    /// As shown in problems (see [`Dep::load_command`]).
    fn describe(self) -> String {
        super::describe_link(self.link, self.use_command, self.attributes)
    }
}

/// Marks the images dyld keeps in `state.delayLoaded` after the launch's fixups: those the
/// first image does not reach through dependencies without the delay-init attribute (dyld-1378
/// DyldRuntimeState.cpp `RuntimeState::partitionDelayLoads`: every new image is marked
/// delayed, then `recursiveMarkNonDelayed` clears the mark from the top loaders down, not
/// following delay-init links). The launch's weak-def lookups come first (dyldMain.cpp
/// `prepare` applies the fixups before it partitions), so they search these images like any
/// other. Not modelled: a dylib with interposing tuples is never delayed (not read here), and
/// images a weak-def or flat lookup bound to are not delayed (none at launch: dyld records no
/// dynamic reference to a launch image, `RuntimeState::addDynamicReference`). Linear in the
/// dependencies.
fn mark_delay_loaded(images: &mut [ProcessImage]) {
    let mut reached = vec![false; images.len()];
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut reached[i], true) {
            continue;
        }
        for d in &images[i].deps {
            if let DepState::Loaded(j) = d.state
                && !d.attributes.delay_init()
                && !reached[j]
            {
                stack.push(j);
            }
        }
    }
    for (pi, reached) in images.iter_mut().zip(reached) {
        pi.delay_loaded = !reached;
    }
}

/// A dylib read: its image, the slice read, and the identity of the file it was read from.
type Read = (
    crate::model::Image,
    crate::macho::file::SliceLocation,
    Option<FileIdentity>,
);

/// "no ARCH slice (it has …)": a file without the process's arch.
fn no_slice(arch: &str, slices: &[crate::macho::file::SliceLocation]) -> String {
    let has: Vec<&str> = slices.iter().map(|s| s.arch.as_str()).collect();
    format!("no {arch} slice (it has {})", has.join(", "))
}

/// Reads the `arch` slice of the dylib at `path`, its names interned into `names`. Errors: it
/// cannot be read, has no such slice, or is not an `MH_DYLIB`.
fn read_dylib(path: &Path, arch: &str, names: &Mutex<HashSet<Name>>) -> Result<Read> {
    let file = MachOFile::open_regular(path)?;
    let slices = file.slices()?;
    let Some(loc) = slices.iter().find(|s| s.arch == arch).cloned() else {
        return Err(file.error(ErrorKind::Malformed, no_slice(arch, &slices)));
    };
    // Where each of a dylib's symbols was compiled is not used for a process (not read: time
    // and memory; the main executable's is, by `--by object` and `check --group`). The bind
    // sites are kept: process diffs, checks and baselines report each image's sites, and an
    // emptied list would read as 0 sites (regression: `diff A.app B.app` showed Δ sites +0
    // for every dependency).
    let mut image = read_image_with(
        &file,
        &loc,
        ReadOptions {
            attribution: false,
            other_exports: false,
        },
    )?;
    if image.filetype != Some(crate::model::MH_DYLIB) {
        return Err(file.error(
            ErrorKind::Malformed,
            format!(
                "not a dylib (filetype {})",
                image.filetype.map_or("?".into(), |t| format!("{t:#x}"))
            ),
        ));
    }
    intern(names, &mut image);
    Ok((image, loc, file.identity()))
}
