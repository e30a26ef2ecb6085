//! Every definer of an image's weak symbols: the objects its debug map (or link map) names, read
//! where they are on disk, or found by file name among `--objects` (archives, objects,
//! directories), and the external weak definitions in their symbol tables
//! ([`crate::macho::object::object_weak_symbols`]).
//!
//! The attribution names, per symbol, only the object whose copy the linker kept. A weak symbol
//! stays exported, and weak-bound, unless **every** definition of it is hidden: ld64-956.6
//! `NameCollisionResolution::pickBetweenRegularAtoms` keeps the more visible of two weak
//! definitions ("use more visible weak def symbol"), and lld/MachO `SymbolTable::addDefined`
//! ANDs them (`defined->privateExtern &= isPrivateExtern`). A definition is hidden when it is
//! `N_PEXT` or auto-hide (`N_WEAK_DEF | N_WEAK_REF`, which both linkers keep out of the
//! exports: ld64 `OutputFile::partitionSymbolTable`, lld `createDefined`).
//!
//! **Finding an object.** An `N_OSO` path `DIR/libfoo.a(foo.o)` names the archive
//! `DIR/libfoo.a` and its member `foo.o`; any other path names a loose object. The file is read
//! at that path (relative paths from the working directory, as the linker was run: `-oso_prefix`
//! makes them so) when it is there, else among the files below `--objects` with the same file
//! name, the one whose path shares the most trailing components with the named one (then the
//! first in path order). A universal file gives the slice of the image's arch.
//!
//! **Counted, never guessed.** An object found nowhere ([`Definers::not_on_disk`]) or found but
//! not readable as an object of the image's arch ([`Definers::unreadable`]: LLVM bitcode, ELF
//! or another format, another arch, a missing member, an I/O error) leaves the definitions it
//! may hold unknown: the plan's figures are then upper bounds ([`Definers::complete`]). A
//! malformed Mach-O file, Mach-O member or archive is an error (`weakscan: PATH: what is
//! wrong`).
//!
//! **Bounds.** Below `--objects`, at most [`MAX_WALK_ENTRIES`] directory entries are looked at
//! (symlinks are not followed) and files named `*.a` or `*.o` kept; each file is read once,
//! and only objects the attribution names are read. Work is linear in the bytes of those
//! objects' headers and symbol tables.

use crate::error::{Error, ErrorKind, Result};
use crate::macho::archive::{is_archive, read_members_in};
use crate::macho::file::MachOFile;
use crate::macho::object::object_weak_symbols;
use crate::model::{AttributionSource, Definers, Image, Name};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Directory entries looked at below all `--objects` directories together; more is an error.
pub const MAX_WALK_ENTRIES: u64 = 1 << 22;

/// The files below `--objects`, by file name.
#[derive(Debug, Default)]
pub struct ObjectFiles {
    by_name: HashMap<String, Vec<PathBuf>>,
}

impl ObjectFiles {
    /// Walks `paths` (files are taken as they are, directories searched for `*.a` and `*.o`).
    ///
    /// Errors: a path that does not exist (naming it), a directory that cannot be listed, more
    /// than [`MAX_WALK_ENTRIES`] entries.
    pub fn find(paths: &[PathBuf]) -> Result<Self> {
        let mut files = ObjectFiles::default();
        let mut budget = MAX_WALK_ENTRIES;
        for p in paths {
            let meta = std::fs::symlink_metadata(p).map_err(|e| Error::io(p, &e))?;
            if meta.is_dir() {
                files.walk(p, &mut budget)?;
            } else {
                files.add(p.clone());
            }
        }
        for v in files.by_name.values_mut() {
            v.sort();
            v.dedup();
        }
        Ok(files)
    }

    fn add(&mut self, path: PathBuf) {
        if let Some(name) = path.file_name() {
            let name = name.to_string_lossy().into_owned();
            self.by_name.entry(name).or_default().push(path);
        }
    }

    fn walk(&mut self, dir: &Path, budget: &mut u64) -> Result<()> {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let entries = std::fs::read_dir(&d).map_err(|e| Error::io(&d, &e))?;
            for entry in entries {
                let entry = entry.map_err(|e| Error::io(&d, &e))?;
                *budget = budget.checked_sub(1).ok_or_else(|| {
                    Error::new(
                        ErrorKind::Malformed,
                        dir,
                        format!(
                            "more than {MAX_WALK_ENTRIES} entries below the --objects directories"
                        ),
                    )
                })?;
                let kind = entry
                    .file_type()
                    .map_err(|e| Error::io(&entry.path(), &e))?;
                let path = entry.path();
                if kind.is_dir() {
                    stack.push(path);
                } else if kind.is_file() && path.extension().is_some_and(|e| e == "a" || e == "o") {
                    self.add(path);
                }
            }
        }
        Ok(())
    }

    /// The file for `named` (a path as the attribution names it): the one with the same file
    /// name sharing the most trailing components, then the first.
    fn lookup(&self, named: &str) -> Option<&Path> {
        let name = named.rsplit('/').next()?;
        let tail = |p: &Path| {
            let mut have = p
                .components()
                .rev()
                .map(|c| c.as_os_str().to_string_lossy());
            named
                .rsplit('/')
                .take_while(|n| have.next().is_some_and(|h| h == *n))
                .count()
        };
        let mut best: Option<(&Path, usize)> = None;
        for p in self.by_name.get(name)? {
            let n = tail(p);
            if best.is_none_or(|(_, b)| n > b) {
                best = Some((p, n));
            }
        }
        best.map(|(p, _)| p)
    }
}

/// `DIR/libfoo.a(foo.o)` → (`DIR/libfoo.a`, `Some("foo.o")`); a loose object → (it, `None`).
fn split_member(path: &str) -> (&str, Option<&str>) {
    if let Some(open) = path
        .strip_suffix(')')
        .and_then(|p| p.rfind('(').map(|i| (p, i)))
    {
        let (p, i) = open;
        return (&p[..i], Some(&p[i + 1..]));
    }
    (path, None)
}

/// The last component of a `/`-separated path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// One file's weak definitions: per member name (`""` for a loose object), each external
/// weak definition and whether it is hidden; `None` when the file is not usable (counted).
type FileDefinitions = Option<HashMap<String, Vec<(Name, bool)>>>;

/// An object's arch and external weak definitions (each with whether it is hidden).
type ObjectSymbols = (String, Vec<(Name, bool)>);

/// Reads the file at `path` for `arch`: `Ok(None)` when it is not an object or archive of that
/// arch (bitcode, another arch, unreadable, not a regular file: a path a debug map names may be
/// a FIFO or a device, opened without blocking and not read, [`MachOFile::open_regular`]);
/// errors when it is malformed.
fn read_file(path: &Path, arch: &str) -> Result<FileDefinitions> {
    let file = match MachOFile::open_regular(path) {
        Ok(f) => f,
        Err(_) => return Ok(None),
    };
    let usable = |r: Result<ObjectSymbols>| -> Result<Option<ObjectSymbols>> {
        match r {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.kind == ErrorKind::Malformed => Err(e),
            Err(_) => Ok(None),
        }
    };
    let head = file.read_range(0, file.len().min(8), "magic")?;
    let slices = if is_archive(&head) {
        vec![(0, file.len())]
    } else if !is_macho(&head) {
        return Ok(None); // ELF, LLVM bitcode (LTO), anything else: not read, counted
    } else {
        match file.slices() {
            Ok(s) => s
                .into_iter()
                .filter(|s| s.arch == arch)
                .map(|s| (s.offset, s.size))
                .collect(),
            Err(e) if e.kind == ErrorKind::Malformed => return Err(e),
            Err(_) => return Ok(None),
        }
    };
    let mut out: HashMap<String, Vec<(Name, bool)>> = HashMap::new();
    for (offset, size) in slices {
        let head = file.read_range(offset, size.min(8), "magic")?;
        if is_archive(&head) {
            let members = match read_members_in(&file, offset, size) {
                Ok(m) => m,
                Err(e) if e.kind == ErrorKind::Malformed => return Err(e),
                Err(_) => return Ok(None),
            };
            for m in &members.members {
                let magic = file.read_range(m.offset, m.size.min(4), "member magic")?;
                if !is_macho(&magic) {
                    continue; // bitcode or another format: this member is counted unreadable
                }
                let label = format!("{}({})", file_name(&path.to_string_lossy()), m.name);
                if let Some((a, names)) =
                    usable(object_weak_symbols(&file, m.offset, m.size, &label))?
                    && a == arch
                {
                    out.entry(m.name.clone()).or_insert(names);
                }
            }
        } else if let Some((a, names)) = usable(object_weak_symbols(&file, offset, size, arch))?
            && a == arch
        {
            out.entry(String::new()).or_insert(names);
        }
    }
    Ok((!out.is_empty()).then_some(out))
}

/// `head` starts like a 64-bit little-endian Mach-O file or a universal file.
fn is_macho(head: &[u8]) -> bool {
    matches!(
        head.get(..4),
        Some([0xcf, 0xfa, 0xed, 0xfe] | [0xca, 0xfe, 0xba, 0xbe] | [0xca, 0xfe, 0xba, 0xbf])
    )
}

/// Sets each binary image's [`crate::model::Attribution::definers`]: the definers of its weak
/// symbols in the objects its debug map or link map names, read on disk or among `objects`
/// (module docs). Images without such an attribution (logs, objects, dSYM compile units) are
/// left alone.
///
/// Errors: those of [`ObjectFiles::find`]; a malformed object or archive.
pub fn attach_definers<'i>(
    images: impl IntoIterator<Item = &'i mut Image>,
    objects: &ObjectFiles,
) -> Result<()> {
    let mut cache: HashMap<(PathBuf, String), FileDefinitions> = HashMap::new();
    let mut found: HashMap<String, Option<PathBuf>> = HashMap::new();
    for image in images {
        let Some(arch) = image.arch.clone() else {
            continue;
        };
        let Some(a) = image.attribution.as_deref() else {
            continue;
        };
        if !matches!(
            a.from,
            AttributionSource::DebugMap | AttributionSource::LinkMap
        ) {
            continue;
        }
        // The image's own weak names by text, made when the first object is read (an image
        // whose objects are not on disk hashes none of its names).
        let mut wanted: Option<foldhash::HashMap<&str, &Name>> = None;
        let wanted_of = || -> foldhash::HashMap<&str, &Name> {
            image
                .weak_definitions
                .iter()
                .map(|w| &w.name)
                .chain(
                    image
                        .bind_targets
                        .iter()
                        .filter(|t| t.defined_here)
                        .map(|t| &t.symbol),
                )
                .map(|n| (n.as_str(), n))
                .collect()
        };
        // A link map also lists dylibs, text stubs and the linker's own entry, with an empty
        // path (`super::attach`): they define nothing in the image.
        let objects_named = a.objects.iter().filter(|o| !o.path.as_str().is_empty());
        let mut d = Definers {
            objects: objects_named.clone().count(),
            ..Definers::default()
        };
        let mut libraries: HashMap<String, u32> = HashMap::new();
        let mut symbols: foldhash::HashMap<Name, Vec<u32>> = Default::default();
        for o in objects_named {
            let named = o.path.as_str();
            let (file, member) = split_member(named);
            // One look per archive, however many of its members the debug map names.
            let on_disk = found
                .entry(file.to_string())
                .or_insert_with(|| {
                    (!file.is_empty() && Path::new(file).is_file())
                        .then(|| PathBuf::from(file))
                        .or_else(|| objects.lookup(file).map(Path::to_path_buf))
                })
                .clone();
            let Some(path) = on_disk else {
                d.not_on_disk += 1;
                if !named.is_empty() {
                    d.first_missing.get_or_insert_with(|| named.to_string());
                }
                continue;
            };
            let key = (path.clone(), arch.clone());
            if !cache.contains_key(&key) {
                let read = read_file(&path, &arch)?;
                cache.insert(key.clone(), read);
            }
            let found = cache[&key]
                .as_ref()
                .and_then(|m| m.get(member.unwrap_or("")));
            let Some(names) = found else {
                d.unreadable += 1;
                d.first_missing.get_or_insert_with(|| named.to_string());
                continue;
            };
            d.read += 1;
            let library = file_name(file).to_string();
            let next = libraries.len() as u32;
            let lib = *libraries.entry(library.clone()).or_insert_with(|| {
                d.libraries.push(library);
                next
            });
            let wanted = wanted.get_or_insert_with(wanted_of);
            for (n, hidden) in names {
                if *hidden {
                    continue;
                }
                if let Some(&name) = wanted.get(n.as_str()) {
                    let libs = symbols.entry(name.clone()).or_default();
                    if let Err(at) = libs.binary_search(&lib) {
                        libs.insert(at, lib);
                    }
                }
            }
        }
        d.symbols = symbols;
        if let Some(a) = image.attribution.as_deref_mut() {
            a.definers = Some(Box::new(d));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_member_path_splits_into_the_archive_and_the_member() {
        assert_eq!(
            split_member("obj/libfoo.a(foo.o)"),
            ("obj/libfoo.a", Some("foo.o"))
        );
        assert_eq!(split_member("obj/foo.o"), ("obj/foo.o", None));
    }

    #[test]
    fn an_object_is_found_by_file_name_sharing_the_most_trailing_components() {
        let mut f = ObjectFiles::default();
        f.add(PathBuf::from("/x/other/libfoo.a"));
        f.add(PathBuf::from("/x/out/Release/libfoo.a"));
        assert_eq!(
            f.lookup("/build/out/Release/libfoo.a"),
            Some(Path::new("/x/out/Release/libfoo.a"))
        );
        assert_eq!(f.lookup("/build/libbar.a"), None);
    }
}
