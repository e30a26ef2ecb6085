//! An install name to a file, as dyld4 expands it (dyld-1378 `Loader::forEachResolvedAtPathVar`,
//! `Loader::expandAtLoaderPath`, `Loader::expandAtExecutablePath`), inside the given roots.
//!
//! * `@loader_path/X`: the directory of the image whose load command it is;
//! * `@executable_path/X`: the main executable's directory;
//! * `@rpath/X` (and a relative name, an implicit `@rpath/`): each `LC_RPATH` of the requesting
//!   image, then of the image that loaded it, … up to the main executable (the "rpath stack");
//!   an `LC_RPATH` may itself start with `@loader_path` (its own image's directory) or
//!   `@executable_path`; a relative `LC_RPATH` is ignored, as dyld ignores it;
//! * an absolute path: under `--sysroot` when given, else itself when inside a root; under
//!   `/usr/lib`, `/System` or `/Library/Apple` it is in the dyld shared cache: outside.
//!
//! When no expansion names a file, the leaf name is looked for in each `--search` directory
//! (not for a system path: dyld never replaces one by a file of the same name).
//! Nothing outside the roots is ever opened, `stat`ed or `readlink`ed: a candidate is normalised
//! (`.` and `..`) and checked first, then walked one component at a time ([`walk`]), each
//! symlink read only when it lies inside a root and its target checked against the roots before
//! the walk goes on.
//!
//! The search is bounded per process ([`Search`]): a directory found missing is remembered, so
//! a missing `LC_RPATH` costs one walk for the whole process, not one per dependency; and at
//! most [`MAX_PROBES`] candidate paths reach the file system. Past that, every later
//! dependency that needs a new probe resolves to [`Resolution::Capped`].

use super::Found;
use foldhash::HashSet;
use std::cell::Cell;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// Candidate paths one process may probe on the file system (each one walk of [`walk`]). A
/// real process needs a few per dependency: 4,096 images (the image cap) with 64 probes each.
pub const MAX_PROBES: usize = 1 << 18;

/// Symlinks one [`walk`] follows before it calls the path a loop (Linux's and macOS's
/// `MAXSYMLINKS` is 40 and 32).
pub const MAX_LINKS: usize = 40;

/// Where files may be read from (canonical directories).
#[derive(Debug, Clone, Default)]
pub struct Roots {
    /// The bundle or the main executable's directory.
    pub dirs: Vec<PathBuf>,
    /// `--search` directories.
    pub search: Vec<PathBuf>,
    /// `--sysroot`.
    pub sysroot: Option<PathBuf>,
}

impl Roots {
    fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.dirs.iter().chain(&self.search).chain(&self.sysroot)
    }

    /// Whether `p` (normalised or canonical) lies inside a root.
    pub fn contains(&self, p: &Path) -> bool {
        self.all().any(|r| p.starts_with(r))
    }

    /// Whether `p` is a root or one of its ancestors: a canonical directory, no symlink.
    fn leads_to_a_root(&self, p: &Path) -> bool {
        self.all().any(|r| r.starts_with(p))
    }
}

/// The state of one process's dependency search: the directories found missing and the probes
/// spent ([`MAX_PROBES`]).
#[derive(Debug, Default)]
pub struct Search {
    /// Normalised directories found missing, by their bytes (a `Path` hashes component by
    /// component, ~5× slower).
    missing_dirs: HashSet<Box<[u8]>>,
    probes: usize,
    capped: bool,
}

impl Search {
    /// Whether the search has stopped at [`MAX_PROBES`].
    pub fn capped(&self) -> bool {
        self.capped
    }

    /// Candidate paths probed so far.
    pub fn probes(&self) -> usize {
        self.probes
    }

    /// Whether `dir` is known to be missing.
    fn known_missing(&self, dir: &Path) -> bool {
        !self.missing_dirs.is_empty() && self.missing_dirs.contains(dir.as_os_str().as_bytes())
    }

    /// [`walk`] of `cand` (normalised), counted; `None` once the budget is spent. A candidate
    /// whose directory is missing records that directory.
    fn probe(&mut self, cand: &Path, roots: &Roots) -> Option<Walked> {
        if self.probes >= MAX_PROBES {
            self.capped = true;
            return None;
        }
        self.probes += 1;
        let w = walk(cand, roots);
        if let Walked::Missing {
            missing_dir: Some(gone),
        } = &w
        {
            // Every directory of `cand` from the one found missing down is missing too.
            for dir in cand.ancestors().skip(1).take_while(|a| a.starts_with(gone)) {
                self.missing_dirs.insert(dir.as_os_str().as_bytes().into());
            }
        }
        Some(w)
    }
}

/// What [`walk`] found at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Walked {
    /// A regular file, at this canonical path (inside a root).
    File(PathBuf),
    /// Something other than a regular file (a directory, FIFO, device), at this canonical path.
    Other(PathBuf),
    /// Nothing there.
    Missing {
        /// The first directory of the path found missing (or not a directory), when the walk
        /// followed no symlink before it (so it is a prefix of the path as given); `None` when
        /// only the last component is missing.
        missing_dir: Option<PathBuf>,
    },
    /// The path, or a symlink on it, leads outside the roots, loops, or cannot be read: why.
    Refused(String),
}

/// Follows absolute path `p` one component at a time, as the kernel would, without touching
/// anything outside `roots`: the components that lead to a root are taken as they are (roots
/// are canonical), every other component is `lstat`ed only once it is known to lie inside a
/// root, and a symlink's target replaces it only when it is read from inside a root; a step
/// that leaves the roots ends the walk ([`Walked::Refused`]). At most [`MAX_LINKS`] symlinks.
pub fn walk(p: &Path, roots: &Roots) -> Walked {
    let mut unbounded = usize::MAX;
    walk_counted(p, roots, &mut unbounded)
}

/// [`walk`], each path component it takes (from `p` and from the symlinks it follows, at most
/// [`MAX_LINKS`] of up to `PATH_MAX` bytes each) taken from `budget`: when `budget` reaches 0
/// the walk stops, [`Walked::Refused`]. For a caller that walks many paths and bounds their
/// work in all (one walk may take some 10⁵ components: 40 links of `x/../x/../…`).
pub fn walk_counted(p: &Path, roots: &Roots, budget: &mut usize) -> Walked {
    let shown = crate::text::escape_path;
    let mut pending: VecDeque<OsString> = VecDeque::new();
    push_front(&mut pending, p);
    let mut cur = PathBuf::from("/");
    let mut links = 0;
    let mut is_file = false;
    // Whether the walk has left the path as given (a symlink or `..` followed): a missing
    // directory is then not a prefix of it.
    let mut diverged = false;
    let gone = |next: PathBuf, diverged: bool, pending: &VecDeque<OsString>| Walked::Missing {
        missing_dir: (!diverged && !pending.is_empty()).then_some(next),
    };
    while let Some(c) = pending.pop_front() {
        if *budget == 0 {
            return Walked::Refused(format!("{}: the walk's budget is spent", shown(p)));
        }
        *budget -= 1;
        if c == "." || c.is_empty() {
            continue;
        }
        if c == ".." {
            cur.pop();
            (is_file, diverged) = (false, true);
            continue;
        }
        let next = cur.join(&c);
        if !roots.contains(&next) {
            if roots.leads_to_a_root(&next) {
                (cur, is_file) = (next, false);
                continue;
            }
            return Walked::Refused(format!(
                "{} leads to {}, outside the directories weakscan may read (the bundle, --search, --sysroot)",
                shown(p),
                shown(&next)
            ));
        }
        let meta = match std::fs::symlink_metadata(&next) {
            Ok(m) => m,
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {
                return gone(next, diverged, &pending);
            }
            Err(e) => return Walked::Refused(format!("{}: {e}", shown(&next))),
        };
        if meta.file_type().is_symlink() {
            links += 1;
            if links > MAX_LINKS {
                return Walked::Refused(format!(
                    "{}: more than {MAX_LINKS} symbolic links (a loop)",
                    shown(p)
                ));
            }
            let target = match std::fs::read_link(&next) {
                Ok(t) => t,
                Err(e) => return Walked::Refused(format!("{}: {e}", shown(&next))),
            };
            if target.is_absolute() {
                cur = PathBuf::from("/");
            }
            push_front(&mut pending, &target);
            (is_file, diverged) = (false, true);
            continue;
        }
        if !pending.is_empty() && !meta.is_dir() {
            return gone(next, diverged, &pending);
        }
        (cur, is_file) = (next, meta.is_file());
    }
    if is_file {
        Walked::File(cur)
    } else {
        Walked::Other(cur)
    }
}

/// `p`'s components (without the root) put before those already in `pending`.
fn push_front(pending: &mut VecDeque<OsString>, p: &Path) {
    for c in p.components().rev() {
        match c {
            Component::RootDir | Component::Prefix(_) => {}
            Component::CurDir => pending.push_front(".".into()),
            Component::ParentDir => pending.push_front("..".into()),
            Component::Normal(n) => pending.push_front(n.to_os_string()),
        }
    }
}

/// One `LC_RPATH` of an image, expanded once per process ([`expand_rpaths`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpathDir {
    /// The `LC_RPATH` as written.
    pub rpath: String,
    /// The directory it names, normalised; `None` when dyld ignores it (relative) or it lies in
    /// the shared cache without a `--sysroot`, or climbs above `/`.
    pub dir: Option<PathBuf>,
    /// It names a system location (see [`is_system`]).
    pub system: bool,
    /// `dir` is known to be missing (set by [`resolve`]): a deep rpath stack is then passed
    /// over without a lookup per link.
    pub missing: Cell<bool>,
}

/// The `LC_RPATH`s of an image in directory `image_dir` expanded: `@loader_path` is
/// `image_dir`, `@executable_path` is `main_dir`, an absolute path is itself (under
/// `--sysroot` when given), a relative one is ignored, as dyld ignores it.
pub fn expand_rpaths(
    image_dir: &Path,
    rpaths: &[String],
    main_dir: &Path,
    roots: &Roots,
) -> Vec<RpathDir> {
    rpaths
        .iter()
        .map(|r| {
            let system = r.starts_with('/') && is_system(r);
            let dir = if r.starts_with("@loader_path") {
                Some(join_tail(image_dir, r, "@loader_path"))
            } else if r.starts_with("@executable_path") {
                Some(join_tail(main_dir, r, "@executable_path"))
            } else if r.starts_with('/') {
                match &roots.sysroot {
                    Some(sys) => Some(sys.join(r.trim_start_matches('/'))),
                    None if system => None,
                    None => Some(PathBuf::from(r)),
                }
            } else {
                None
            };
            RpathDir {
                rpath: r.clone(),
                dir: dir.and_then(|d| normalise(&d)),
                system,
                missing: Cell::new(false),
            }
        })
        .collect()
}

/// One link of the rpath stack: an image's directory, its expanded `LC_RPATH`s and its name.
#[derive(Debug, Clone, Copy)]
pub struct RpathLink<'a> {
    /// The directory of the image (`@loader_path` of its load commands).
    pub dir: &'a Path,
    /// Its `LC_RPATH`s, expanded ([`expand_rpaths`]).
    pub rpaths: &'a [RpathDir],
    /// Its name, for saying how a file was found.
    pub name: &'a str,
}

/// What an install name resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A file inside the roots (canonical path) and how it was found.
    File(PathBuf, Found),
    /// In the dyld shared cache (a system path no `--sysroot` holds): not on disk.
    Outside,
    /// No candidate exists; the paths tried (at most the first 8).
    NotFound(Vec<String>),
    /// A candidate is outside the roots, or cannot be resolved (a symlink loop): why.
    Refused(String),
    /// Not resolved: the process's [`Search`] has spent its [`MAX_PROBES`].
    Capped,
}

/// System locations of the dyld shared cache.
pub fn is_system(p: &str) -> bool {
    ["/usr/lib/", "/System/", "/Library/Apple/"]
        .iter()
        .any(|s| p.starts_with(s))
}

/// `p` with `.` dropped and `..` applied, without touching the file system (`None` when `..`
/// climbs above the root of an absolute path).
fn normalise(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// `dir` joined with the part of `name` after `prefix` (`@loader_path/../lib/x` → `dir/../lib/x`).
fn join_tail(dir: &Path, name: &str, prefix: &str) -> PathBuf {
    dir.join(name[prefix.len()..].trim_start_matches('/'))
}

/// Resolves `install_name`, requested by `chain[0]` (its loaders follow, the main executable
/// last), as the module docs say, within the budget and caches of `search`.
pub fn resolve(
    install_name: &str,
    main_dir: &Path,
    chain: &[RpathLink<'_>],
    roots: &Roots,
    search: &mut Search,
) -> Resolution {
    let mut found = Tried::default();
    let outcome = (|| {
        if install_name.starts_with("@loader_path") {
            let l = chain.first()?;
            let cand = join_tail(l.dir, install_name, "@loader_path");
            let how = || Found::Expanded(format!("@loader_path of {}", l.name));
            return found.try_path(&cand, how, roots, search);
        }
        if install_name.starts_with("@executable_path") {
            let cand = join_tail(main_dir, install_name, "@executable_path");
            let how = || Found::Expanded("@executable_path".into());
            return found.try_path(&cand, how, roots, search);
        }
        if install_name.starts_with('/') {
            found.system |= is_system(install_name);
            if let Some(sys) = &roots.sysroot {
                let cand = sys.join(install_name.trim_start_matches('/'));
                if let Some(done) = found.try_path(&cand, || Found::Sysroot, roots, search) {
                    return Some(done);
                }
            }
            if is_system(install_name) {
                return None;
            }
            let how = || Found::Expanded("absolute path".into());
            return found.try_path(Path::new(install_name), how, roots, search);
        }
        // `@rpath/X`, or a relative name: an implicit `@rpath/` (Loader.cpp, "if relative path,
        // turn into implicit @rpath").
        let tail = install_name.strip_prefix("@rpath/").unwrap_or(install_name);
        for link in chain {
            for r in link.rpaths {
                found.system |= r.system;
                let Some(dir) = &r.dir else { continue };
                if r.missing.get() || search.known_missing(dir) {
                    r.missing.set(true);
                    found.absent(|| dir.join(tail));
                    continue;
                }
                let how = || Found::Expanded(format!("@rpath {} of {}", r.rpath, link.name));
                if let Some(done) = found.try_path(&dir.join(tail), how, roots, search) {
                    return Some(done);
                }
            }
        }
        None
    })();
    if let Some(done) = outcome {
        return done;
    }
    if search.capped() {
        return Resolution::Capped;
    }
    // A system library is never replaced by a file of the same name (dyld does not either).
    let leaf = install_name.rsplit('/').next().unwrap_or(install_name);
    if !is_system(install_name) && !leaf.is_empty() && leaf != ".." && leaf != "." {
        for dir in &roots.search {
            match search.probe(&dir.join(leaf), roots) {
                Some(Walked::File(p)) => return Resolution::File(p, Found::Search(dir.clone())),
                None => return Resolution::Capped,
                Some(_) => {}
            }
        }
    }
    if let Some(why) = found.refused {
        return Resolution::Refused(why);
    }
    if found.system {
        return Resolution::Outside;
    }
    Resolution::NotFound(found.tried)
}

/// What the candidates of one [`resolve`] gave so far.
#[derive(Default)]
struct Tried {
    /// The first [`MAX_TRIED_SHOWN`] absent candidates, as shown.
    tried: Vec<String>,
    /// Why the first refused candidate was refused.
    refused: Option<String>,
    /// A candidate was a system path (in the shared cache).
    system: bool,
}

/// Absent candidates named in a [`Resolution::NotFound`].
const MAX_TRIED_SHOWN: usize = 8;

impl Tried {
    /// Records an absent candidate (built only when it is one of those shown).
    fn absent(&mut self, cand: impl FnOnce() -> PathBuf) {
        if self.tried.len() < MAX_TRIED_SHOWN {
            let c = cand();
            self.tried
                .push(crate::text::escape_path(&normalise(&c).unwrap_or(c)));
        }
    }

    /// Probes `cand`: `Some` ends the search (a file, or the budget spent), `None` goes on.
    fn try_path(
        &mut self,
        cand: &Path,
        how: impl FnOnce() -> Found,
        roots: &Roots,
        search: &mut Search,
    ) -> Option<Resolution> {
        let shown = crate::text::escape_path(cand);
        let Some(norm) = normalise(cand) else {
            self.refused
                .get_or_insert(format!("{shown} climbs above /"));
            return None;
        };
        if !roots.contains(&norm) {
            self.refused.get_or_insert(format!(
                "resolves to {}, outside the directories weakscan may read (the bundle, --search, --sysroot)",
                crate::text::escape_path(&norm)
            ));
            return None;
        }
        if search.known_missing(norm.parent().unwrap_or(Path::new("/"))) {
            self.absent(|| norm);
            return None;
        }
        let Some(walked) = search.probe(&norm, roots) else {
            return Some(Resolution::Capped);
        };
        match walked {
            Walked::File(p) => return Some(Resolution::File(p, how())),
            Walked::Other(_) | Walked::Missing { .. } => self.absent(|| norm),
            Walked::Refused(why) => {
                self.refused.get_or_insert(why);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_applies_dots_without_the_file_system() {
        assert_eq!(
            normalise(Path::new("/a/b/../c/./d")),
            Some(PathBuf::from("/a/c/d"))
        );
        assert_eq!(normalise(Path::new("/a/../../b")), None);
    }

    fn tree() -> (tempfile::TempDir, Roots) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("App");
        std::fs::create_dir_all(root.join("MacOS")).unwrap();
        std::fs::create_dir_all(root.join("Frameworks/deps")).unwrap();
        std::fs::write(root.join("Frameworks/liba.dylib"), b"x").unwrap();
        std::fs::write(root.join("Frameworks/deps/libdeep.dylib"), b"x").unwrap();
        std::fs::write(dir.path().join("secret.dylib"), b"x").unwrap();
        let roots = Roots {
            dirs: vec![root],
            ..Roots::default()
        };
        (dir, roots)
    }

    #[test]
    fn rpath_stack_is_searched_from_the_requester_to_the_main_executable() {
        let (_d, roots) = tree();
        let root = roots.dirs[0].clone();
        let main_dir = root.join("MacOS");
        let fw = root.join("Frameworks");
        let main_rpaths = expand_rpaths(
            &main_dir,
            &["@executable_path/../Frameworks".to_string()],
            &main_dir,
            &roots,
        );
        let a_rpaths = expand_rpaths(
            &fw,
            &[
                "@loader_path/deps".to_string(),
                "relative/ignored".to_string(),
            ],
            &main_dir,
            &roots,
        );
        let main = RpathLink {
            dir: &main_dir,
            rpaths: &main_rpaths,
            name: "App",
        };
        let a = RpathLink {
            dir: &fw,
            rpaths: &a_rpaths,
            name: "liba.dylib",
        };
        // From the main executable: its own LC_RPATH.
        assert_eq!(
            resolve(
                "@rpath/liba.dylib",
                &main_dir,
                &[main],
                &roots,
                &mut Search::default()
            ),
            Resolution::File(
                fw.join("liba.dylib"),
                Found::Expanded("@rpath @executable_path/../Frameworks of App".into())
            )
        );
        // libdeep only through liba's own LC_RPATH.
        assert!(matches!(
            resolve("@rpath/libdeep.dylib", &main_dir, &[a, main], &roots, &mut Search::default()),
            Resolution::File(p, _) if p == fw.join("deps/libdeep.dylib")
        ));
        assert!(matches!(
            resolve(
                "@rpath/libdeep.dylib",
                &main_dir,
                &[main],
                &roots,
                &mut Search::default()
            ),
            Resolution::NotFound(_)
        ));
        // @loader_path and a missing weak dylib.
        assert!(matches!(
            resolve(
                "@loader_path/../Frameworks/liba.dylib",
                &main_dir,
                &[main],
                &roots,
                &mut Search::default()
            ),
            Resolution::File(..)
        ));
        assert!(
            matches!(resolve("@rpath/libmissing.dylib", &main_dir, &[main], &roots, &mut Search::default()), Resolution::NotFound(t) if t.len() == 1)
        );
    }

    #[test]
    fn a_counted_walk_takes_one_step_a_component_and_stops_when_its_budget_is_spent() {
        let (_d, roots) = tree();
        let root = &roots.dirs[0];
        // Two links of `x/../` padding: every component of both targets is a step.
        std::fs::create_dir(root.join("x")).unwrap();
        let pad = "x/../".repeat(100);
        std::os::unix::fs::symlink(format!("{pad}l2"), root.join("l1")).unwrap();
        std::os::unix::fs::symlink(format!("{pad}Frameworks/liba.dylib"), root.join("l2")).unwrap();
        let target = root.join("Frameworks/liba.dylib");
        let mut budget = usize::MAX;
        assert_eq!(
            walk_counted(&root.join("l1"), &roots, &mut budget),
            Walked::File(target.clone())
        );
        let steps = usize::MAX - budget;
        let components = root.components().count() - 1 + 1 + 2 * 200 + 1 + 2;
        assert_eq!(steps, components);
        let mut budget = steps;
        assert_eq!(
            walk_counted(&root.join("l1"), &roots, &mut budget),
            Walked::File(target)
        );
        assert_eq!(budget, 0);
        let mut budget = steps - 1;
        assert!(matches!(
            walk_counted(&root.join("l1"), &roots, &mut budget),
            Walked::Refused(why) if why.contains("budget is spent")
        ));
        assert_eq!(budget, 0);
    }

    #[test]
    fn nothing_outside_the_roots_is_read() {
        let (_d, roots) = tree();
        let main_dir = roots.dirs[0].join("MacOS");
        let main = RpathLink {
            dir: &main_dir,
            rpaths: &[],
            name: "App",
        };
        match resolve(
            "@executable_path/../../secret.dylib",
            &main_dir,
            &[main],
            &roots,
            &mut Search::default(),
        ) {
            Resolution::Refused(why) => assert!(why.contains("outside"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A symlink inside that points outside.
        #[cfg(unix)]
        {
            let link = roots.dirs[0].join("Frameworks/link.dylib");
            std::os::unix::fs::symlink(roots.dirs[0].parent().unwrap().join("secret.dylib"), &link)
                .unwrap();
            assert!(matches!(
                resolve(
                    "@executable_path/../Frameworks/link.dylib",
                    &main_dir,
                    &[main],
                    &roots,
                    &mut Search::default()
                ),
                Resolution::Refused(_)
            ));
        }
        // A symlink loop (an rpath directory that links to itself): one refusal, no hang.
        #[cfg(unix)]
        {
            let lp = roots.dirs[0].join("Frameworks/loop");
            std::os::unix::fs::symlink(&lp, &lp).unwrap();
            let rp = expand_rpaths(
                &main_dir,
                &["@loader_path/../Frameworks/loop".to_string()],
                &main_dir,
                &roots,
            );
            let m = RpathLink {
                dir: &main_dir,
                rpaths: &rp,
                name: "App",
            };
            match resolve(
                "@rpath/libx.dylib",
                &main_dir,
                &[m],
                &roots,
                &mut Search::default(),
            ) {
                Resolution::Refused(why) => {
                    assert!(why.contains("loop") || why.contains("symbolic"), "{why}")
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            resolve(
                "/usr/lib/libSystem.B.dylib",
                &main_dir,
                &[main],
                &roots,
                &mut Search::default()
            ),
            Resolution::Outside
        );
        assert!(matches!(
            resolve(
                "/opt/x/libx.dylib",
                &main_dir,
                &[main],
                &roots,
                &mut Search::default()
            ),
            Resolution::Refused(_)
        ));
    }
}
