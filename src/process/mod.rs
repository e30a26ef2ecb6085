//! Input: a whole process — a main executable and the dylibs dyld loads with it at launch,
//! found on disk the way dyld4 finds them and listed in dyld4's load order.
//!
//! * [`bundle`] — which file is the main executable of a directory, an `.app` or a
//!   `.framework` (`Contents/Info.plist`'s `CFBundleExecutable`);
//! * [`resolve`] — an install name (`@rpath/…`, `@loader_path/…`, `@executable_path/…`, an
//!   absolute path) to a file inside the given roots, or to "outside" (the dyld shared cache);
//! * [`load`] — the load order (dyld-1378 `JustInTimeLoader::loadDependents`), reading each
//!   image's slice of the process's arch, and which images dyld delays after the launch;
//! * [`reexport`] — a re-export of an export trie followed to the definition it leads to
//!   (dyld-1378 `Loader::hasExportedSymbol`), with a depth cap and a loop check.
//!
//! ```text
//! Process { arch, roots,
//!           images: [ ProcessImage { name, path?, image?, found, loaded_by?, deps: [Dep],
//!                                        delay_loaded } ],
//!                                     // in load order: the main executable first
//!           problems: [ Problem { path, what } ] }   // each one line, counted, never fatal
//! ```
//! The analysis of who wins each weak symbol is [`crate::analysis::coalesce`]; the rules and
//! their dyld sources are in `docs/process.md`.

pub mod bundle;
pub mod load;
pub mod reexport;
pub mod resolve;

use crate::error::{ErrorKind, Result};
use crate::macho::file::{FileIdentity, MachOFile, SliceLocation};
use crate::model::{DylibAttributes, DylibLink, Image};
use std::path::PathBuf;

/// How an image of the process was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The main executable (given, or named by the bundle's `CFBundleExecutable`).
    Main,
    /// By expanding its install name as dyld does: the text says how (`@rpath` through the
    /// `LC_RPATH` of which image, `@loader_path`, `@executable_path`, absolute).
    Expanded(String),
    /// Not where dyld would look, but by its leaf name in a `--search` directory.
    Search(PathBuf),
    /// Under `--sysroot` (an absolute install name).
    Sysroot,
    /// Not on disk: an absolute path under `/usr/lib` or `/System` (the dyld shared cache) that
    /// no `--sysroot` holds. Not read.
    Outside,
}

/// What became of one dependency (one dylib load command) of an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepState {
    /// Loaded: the index of the image in [`Process::images`].
    Loaded(usize),
    /// Not found on disk (a problem unless the link is weak).
    Missing,
    /// Found, but not usable (not Mach-O, wrong arch, malformed, outside the roots): see the
    /// process's problems.
    Unusable,
}

/// One dependency of an image, in load-command order (its index + 1 is its library ordinal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dep {
    /// The install name in the load command.
    pub install_name: String,
    /// Which load command.
    pub link: DylibLink,
    /// Written as a `dylib_use_command` (its attributes are its `flags`).
    pub use_command: bool,
    /// The attributes dyld acts on ([`DylibAttributes::effective`]): weak-link (may be
    /// missing), re-export (its exports are the image's: followed by re-exports of the image's
    /// export trie), upward, delay-init.
    pub attributes: DylibAttributes,
    /// What became of it.
    pub state: DepState,
}

impl Dep {
    /// The load command as shown in problems: `LC_LOAD_WEAK_DYLIB`, or, for a
    /// `dylib_use_command`, `LC_LOAD_DYLIB (dylib_use_command: weak_link, delay_init)`.
    pub fn load_command(&self) -> String {
        describe_link(self.link, self.use_command, self.attributes)
    }
}

/// See [`Dep::load_command`].
pub fn describe_link(link: DylibLink, use_command: bool, attributes: DylibAttributes) -> String {
    if !use_command {
        return link.load_command().to_string();
    }
    let names = attributes.names();
    let flags = if names.is_empty() {
        "no flags".to_string()
    } else {
        names.join(", ")
    };
    format!("{} (dylib_use_command: {flags})", link.load_command())
}

/// One image of the process.
#[derive(Debug)]
pub struct ProcessImage {
    /// The path relative to the bundle (or the main executable's directory), or to the
    /// `--search`/`--sysroot` directory it is in (prefixed with that directory's name); the
    /// install name of an outside image.
    pub name: String,
    /// The file read (`None` for an outside image).
    pub path: Option<PathBuf>,
    /// The image read from the process's slice (`None` for an outside image).
    pub image: Option<Image>,
    /// The slice read (to look names up in its export trie later: the file is opened again
    /// then, so a process of thousands of images holds no file open).
    pub slice: Option<SliceLocation>,
    /// The identity of the file when it was read (`None` for an outside image): a path whose
    /// file is the same one is this image, as dyld matches files by inode; a file whose identity
    /// changed before its export trie is read again is an error, not a silent new verdict.
    pub file: Option<FileIdentity>,
    /// How it was found.
    pub found: Found,
    /// The image whose load command loaded it first (`None` for the main executable).
    pub loaded_by: Option<usize>,
    /// Its dependencies (empty for an outside image: not read).
    pub deps: Vec<Dep>,
    /// Reached from the main executable only through delay-init dependencies: after the
    /// launch's fixups, dyld moves it to `state.delayLoaded` until its first use (dyld-1378
    /// DyldRuntimeState.cpp `RuntimeState::partitionDelayLoads`). Set by [`load::load`].
    pub delay_loaded: bool,
}

impl ProcessImage {
    /// Whether the image is on disk and read.
    pub fn on_disk(&self) -> bool {
        self.image.is_some()
    }

    /// Whether dyld searches it for weak definitions: `MH_WEAK_DEFINES` (dyld's
    /// `Loader::hasWeakDefs`; launch-time images are never hidden from flat lookup). `None` for
    /// an outside image (not read: it may).
    pub fn takes_part(&self) -> Option<bool> {
        self.image
            .as_ref()
            .map(|i| i.flags.unwrap_or(0) & crate::model::MH_WEAK_DEFINES != 0)
    }
}

/// Something wrong with one file or dependency of a process: reported (one line) and counted,
/// never fatal; the analysis goes on without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file or install name concerned.
    pub path: String,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.what)
    }
}

/// A main executable and the images dyld loads with it, for one arch.
#[derive(Debug)]
pub struct Process {
    /// The arch of every image read (the main executable's slice).
    pub arch: String,
    /// The directories files may be read from: the bundle or the main executable's directory,
    /// the `--search` directories and the `--sysroot`, canonical.
    pub roots: Vec<PathBuf>,
    /// The images in dyld4's load order; the main executable first.
    pub images: Vec<ProcessImage>,
    /// Everything that could not be found or read.
    pub problems: Vec<Problem>,
}

impl Process {
    /// The main executable.
    pub fn main(&self) -> &ProcessImage {
        &self.images[0]
    }
}

/// Errors if the file opened again to read its export trie is not the one loaded (`loaded`, the
/// identity when it was read): replaced or rewritten in between, it would silently give other
/// winners than the images read.
pub fn unchanged_since_load(file: &MachOFile, loaded: Option<FileIdentity>) -> Result<()> {
    match (loaded, file.identity()) {
        (Some(then), Some(now)) if then != now => Err(file.error(
            ErrorKind::Io,
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
}
