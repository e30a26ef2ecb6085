//! Input: a whole process — a main executable and the dylibs dyld loads with it at launch,
//! found on disk the way dyld4 finds them and listed in dyld4's load order.
//!
//! * [`bundle`] — which file is the main executable of a directory, an `.app` or a
//!   `.framework` (`Contents/Info.plist`'s `CFBundleExecutable`);
//! * [`resolve`] — an install name (`@rpath/…`, `@loader_path/…`, `@executable_path/…`, an
//!   absolute path) to a file inside the given roots, or to "outside" (the dyld shared cache);
//! * [`load`] — the load order (dyld-1378 `JustInTimeLoader::loadDependents`), reading each
//!   image's slice of the process's arch.
//!
//! ```text
//! Process { arch, roots,
//!           images: [ ProcessImage { name, path?, image?, found, loaded_by?, deps: [Dep] } ],
//!                                     // in load order: the main executable first
//!           problems: [ Problem { path, what } ] }   // each one line, counted, never fatal
//! ```
//! The analysis of who wins each weak symbol is [`crate::analysis::coalesce`]; the rules and
//! their dyld sources are in `docs/process.md`.

pub mod bundle;
pub mod load;
pub mod resolve;

use crate::macho::file::{FileIdentity, SliceLocation};
use crate::model::{DylibLink, Image};
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DepState {
    /// Loaded: the index of the image in [`Process::images`].
    Loaded(usize),
    /// Not found on disk (a problem unless the link is weak).
    Missing,
    /// Found, but not usable (not Mach-O, wrong arch, malformed, outside the roots): see the
    /// process's problems.
    Unusable,
}

/// One dependency of an image, in load-command order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dep {
    /// The install name in the load command.
    pub install_name: String,
    /// Which load command.
    pub link: DylibLink,
    /// What became of it.
    pub state: DepState,
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
