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
//! Nothing outside the roots is ever opened or stat'ed: a candidate is normalised (`.` and `..`)
//! and checked first, then canonicalised (symlinks) and checked again.

use super::Found;
use std::path::{Component, Path, PathBuf};

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
    /// Whether `p` (normalised or canonical) lies inside a root.
    pub fn contains(&self, p: &Path) -> bool {
        self.dirs
            .iter()
            .chain(&self.search)
            .chain(&self.sysroot)
            .any(|r| p.starts_with(r))
    }
}

/// One link of the rpath stack: an image's directory, its `LC_RPATH`s and its name.
#[derive(Debug, Clone, Copy)]
pub struct RpathLink<'a> {
    /// The directory of the image (`@loader_path` of its `LC_RPATH`s).
    pub dir: &'a Path,
    /// Its `LC_RPATH` paths.
    pub rpaths: &'a [String],
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
/// last), as the module docs say.
pub fn resolve(
    install_name: &str,
    main_dir: &Path,
    chain: &[RpathLink<'_>],
    roots: &Roots,
) -> Resolution {
    let mut candidates: Vec<(PathBuf, Found)> = Vec::new();
    let mut system_candidate = false;
    let loader = chain.first();
    if install_name.starts_with("@loader_path") {
        if let Some(l) = loader {
            candidates.push((
                join_tail(l.dir, install_name, "@loader_path"),
                Found::Expanded(format!("@loader_path of {}", l.name)),
            ));
        }
    } else if install_name.starts_with("@executable_path") {
        candidates.push((
            join_tail(main_dir, install_name, "@executable_path"),
            Found::Expanded("@executable_path".into()),
        ));
    } else if install_name.starts_with('/') {
        if is_system(install_name) {
            system_candidate = true;
        }
        if let Some(sys) = &roots.sysroot {
            candidates.push((
                sys.join(install_name.trim_start_matches('/')),
                Found::Sysroot,
            ));
        }
        if !is_system(install_name) {
            candidates.push((
                PathBuf::from(install_name),
                Found::Expanded("absolute path".into()),
            ));
        }
    } else {
        // `@rpath/X`, or a relative name: an implicit `@rpath/` (Loader.cpp, "if relative path,
        // turn into implicit @rpath").
        let tail = install_name.strip_prefix("@rpath/").unwrap_or(install_name);
        for link in chain {
            for r in link.rpaths {
                let dir = if r.starts_with("@loader_path") {
                    join_tail(link.dir, r, "@loader_path")
                } else if r.starts_with("@executable_path") {
                    join_tail(main_dir, r, "@executable_path")
                } else if r.starts_with('/') {
                    if is_system(r) {
                        system_candidate = true;
                    }
                    match &roots.sysroot {
                        Some(sys) => sys.join(r.trim_start_matches('/')),
                        None if is_system(r) => continue,
                        None => PathBuf::from(r),
                    }
                } else {
                    continue;
                };
                candidates.push((
                    dir.join(tail),
                    Found::Expanded(format!("@rpath {r} of {}", link.name)),
                ));
            }
        }
    }
    let mut refused: Option<String> = None;
    let mut tried: Vec<String> = Vec::new();
    for (cand, found) in candidates {
        match check(&cand, roots) {
            Checked::File(p) => return Resolution::File(p, found),
            Checked::Absent => {
                tried.push(crate::text::escape_path(&normalise(&cand).unwrap_or(cand)))
            }
            Checked::Refused(why) => {
                refused.get_or_insert(why);
            }
        }
    }
    // A system library is never replaced by a file of the same name (dyld does not either).
    let leaf = install_name.rsplit('/').next().unwrap_or(install_name);
    if !is_system(install_name) && !leaf.is_empty() && leaf != ".." && leaf != "." {
        for dir in &roots.search {
            if let Checked::File(p) = check(&dir.join(leaf), roots) {
                return Resolution::File(p, Found::Search(dir.clone()));
            }
        }
    }
    if let Some(why) = refused {
        return Resolution::Refused(why);
    }
    if system_candidate {
        return Resolution::Outside;
    }
    tried.truncate(8);
    // Kept per dependency until the image's dependencies are loaded: no spare capacity.
    tried.shrink_to_fit();
    Resolution::NotFound(tried)
}

enum Checked {
    File(PathBuf),
    Absent,
    Refused(String),
}

/// Whether `cand` is a file inside the roots, without looking outside them.
fn check(cand: &Path, roots: &Roots) -> Checked {
    let shown = crate::text::escape_path(cand);
    let Some(norm) = normalise(cand) else {
        return Checked::Refused(format!("{shown} climbs above /"));
    };
    if !roots.contains(&norm) {
        return Checked::Refused(format!(
            "resolves to {}, outside the directories weakscan may read (the bundle, --search, --sysroot)",
            crate::text::escape_path(&norm)
        ));
    }
    match std::fs::canonicalize(&norm) {
        Ok(real) if !roots.contains(&real) => Checked::Refused(format!(
            "{} is a link to {}, outside the directories weakscan may read",
            crate::text::escape_path(&norm),
            crate::text::escape_path(&real)
        )),
        Ok(real) if real.is_file() => Checked::File(real),
        Ok(_) => Checked::Absent,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Checked::Absent,
        Err(e) => Checked::Refused(format!("{}: {e}", crate::text::escape_path(&norm))),
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
        let main_rpaths = vec!["@executable_path/../Frameworks".to_string()];
        let a_rpaths = vec![
            "@loader_path/deps".to_string(),
            "relative/ignored".to_string(),
        ];
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
            resolve("@rpath/liba.dylib", &main_dir, &[main], &roots),
            Resolution::File(
                fw.join("liba.dylib"),
                Found::Expanded("@rpath @executable_path/../Frameworks of App".into())
            )
        );
        // libdeep only through liba's own LC_RPATH.
        assert!(matches!(
            resolve("@rpath/libdeep.dylib", &main_dir, &[a, main], &roots),
            Resolution::File(p, _) if p == fw.join("deps/libdeep.dylib")
        ));
        assert!(matches!(
            resolve("@rpath/libdeep.dylib", &main_dir, &[main], &roots),
            Resolution::NotFound(_)
        ));
        // @loader_path and a missing weak dylib.
        assert!(matches!(
            resolve(
                "@loader_path/../Frameworks/liba.dylib",
                &main_dir,
                &[main],
                &roots
            ),
            Resolution::File(..)
        ));
        assert!(
            matches!(resolve("@rpath/libmissing.dylib", &main_dir, &[main], &roots), Resolution::NotFound(t) if t.len() == 1)
        );
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
                    &roots
                ),
                Resolution::Refused(_)
            ));
        }
        // A symlink loop (an rpath directory that links to itself): one refusal, no hang.
        #[cfg(unix)]
        {
            let lp = roots.dirs[0].join("Frameworks/loop");
            std::os::unix::fs::symlink(&lp, &lp).unwrap();
            let rp = vec!["@loader_path/../Frameworks/loop".to_string()];
            let m = RpathLink {
                dir: &main_dir,
                rpaths: &rp,
                name: "App",
            };
            match resolve("@rpath/libx.dylib", &main_dir, &[m], &roots) {
                Resolution::Refused(why) => {
                    assert!(why.contains("loop") || why.contains("symbolic"), "{why}")
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            resolve("/usr/lib/libSystem.B.dylib", &main_dir, &[main], &roots),
            Resolution::Outside
        );
        assert!(matches!(
            resolve("/opt/x/libx.dylib", &main_dir, &[main], &roots),
            Resolution::Refused(_)
        ));
    }
}
