//! Attaching a link map (`--map`) or a dSYM (`--dsym`) to the images of one binary, for a
//! stripped binary whose own debug map is gone (or to replace it).
//!
//! * **Link map**: joined by symbol name. The map has no weak or exported flag, so each of the
//!   image's weak-bound symbols and weak definitions is looked up among the map's `# Symbols:`
//!   lines; an entry of file `[  0]` (linker synthesized: stubs, lazy pointers that carry their
//!   target's name) is passed over for one of a real object. Linkers differ on which copy of a
//!   weak symbol they keep — ld64 the more visible (a non-weak over a weak definition, else the
//!   first), ld64.lld the first in link order — and the map names the object whose copy was
//!   kept; other objects may define the same instantiation (see `docs/attribution.md`). The
//!   map's `# Arch:` must be the slice's arch. Memory: the map's text is read whole and dropped
//!   once parsed; the attribution keeps the path of each object file or archive member (to
//!   read every definer from, [`super::definers`]) and of each other entry a symbol comes
//!   from; the other entries (dylibs, text stubs, the linker's own) keep only their place,
//!   with an empty path. Object keys and common directories are taken over the used objects. Peak memory
//!   stays under 3 × the map's size + 50 MB (`scripts/bench-malformed.sh`).
//! * **dSYM**: each weak definition's address (from the export trie) is looked up among the
//!   compile units' code and data ranges, else its name among their linkage names
//!   ([`super::dsym`]). A dSYM names compile units, not object files: the object and library
//!   keys are the unit's source file. The dSYM's UUID must be the slice's `LC_UUID`.

use super::dsym::read_dsym;
use super::link_map::{LinkMapHeader, parse_link_map};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Attribution, AttributionSource, Image, NO_OBJECT, Name, ObjectOrigin};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The attribution files given on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OriginFiles {
    /// `--map FILE`.
    pub map: Option<PathBuf>,
    /// `--dsym PATH` (a `.dSYM` bundle or its DWARF file).
    pub dsym: Option<PathBuf>,
    /// `--objects PATH…`: archives, objects and directories holding the objects the
    /// attribution names, where they are not at the path it names ([`super::definers`]).
    pub objects: Vec<PathBuf>,
}

impl OriginFiles {
    /// Neither is given.
    pub fn is_empty(&self) -> bool {
        self.map.is_none() && self.dsym.is_none()
    }
}

/// Replaces the attribution of each binary image in `images` with the one `files` give, then
/// reads the definers of its weak symbols ([`super::definers::attach_definers`]) from the
/// objects it names, on disk or among `files.objects`.
///
/// Errors: both files given (usage), a log among `images` (usage), an unreadable or malformed
/// map or dSYM (naming the file), a map of another arch, a dSYM of another binary (UUID), a
/// binary with no `LC_UUID` given a dSYM.
pub fn attach(images: &mut [Image], files: &OriginFiles) -> Result<()> {
    attach_files(images, files)?;
    let objects = super::definers::ObjectFiles::find(&files.objects)?;
    super::definers::attach_definers(images, &objects)
}

/// [`attach`] but for the definers.
fn attach_files(images: &mut [Image], files: &OriginFiles) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    if files.map.is_some() && files.dsym.is_some() {
        return Err(Error::usage("give --map or --dsym, not both"));
    }
    for image in images.iter_mut() {
        if image.is_log() {
            return Err(Error::usage(format!(
                "--map and --dsym apply to binaries, and {} is a dyld log",
                image.path
            )));
        }
        let attribution = match (&files.map, &files.dsym) {
            (Some(map), _) => from_link_map(image, map)?,
            (_, Some(dsym)) => from_dsym(image, dsym)?,
            _ => continue,
        };
        image.attribution = Some(Box::new(attribution));
    }
    Ok(())
}

/// The image's weak-bound and weak-defined names, keyed by their text.
fn wanted(image: &Image) -> HashMap<&str, &Name> {
    image
        .bind_targets
        .iter()
        .map(|t| &t.symbol)
        .chain(image.weak_definitions.iter().map(|w| &w.name))
        .map(|n| (n.as_str(), n))
        .collect()
}

fn from_link_map(image: &Image, path: &Path) -> Result<Attribution> {
    let text = std::fs::read(path).map_err(|e| Error::io(path, &e))?;
    let (header, symbols, other_exports, synthesized) = read_link_map(image, &text, path)?;
    drop(text);
    // The text's pages go back to the system now, not after the allocator's delay: the
    // attribution below and the analysis after it are built without them.
    crate::memory::release_freed();
    if let (Some(map_arch), Some(arch)) = (&header.arch, &image.arch)
        && map_arch != arch
    {
        return Err(Error::new(
            ErrorKind::Usage,
            path,
            format!("link map of {map_arch}, given for the {arch} slice (choose it with --arch)"),
        ));
    }
    let mut used = vec![false; header.objects.len()];
    for &o in symbols.values().chain(other_exports.iter()) {
        if let Some(u) = used.get_mut(o as usize) {
            *u = true;
        }
    }
    // One shared empty path for every entry no symbol comes from, unless it names an object
    // file or archive member, whose path the definers are read from
    // (`super::definers`): linker-synthesized entries, dylibs and text stubs.
    let unused = Name::from("");
    let object = |o: &str| o.ends_with(".o") || o.ends_with(')');
    Ok(Attribution {
        from: AttributionSource::LinkMap,
        objects: header
            .objects
            .iter()
            .zip(used)
            .map(|(o, used)| ObjectOrigin {
                path: if used || object(o) {
                    Name::from(crate::text::escape(o).into_owned())
                } else {
                    unused.clone()
                },
                source: None,
            })
            .collect(),
        symbols,
        other_exports,
        unplaced: synthesized,
        definers: None,
        compiled: Vec::new(),
    })
}

/// What [`read_link_map`] gives: the map's header, the wanted names it attributes to an
/// object (not a dylib's), the object of each other export ([`Attribution::other_exports`]),
/// and how many wanted names only file `[  0]` gave.
type MapRead = (LinkMapHeader, crate::model::SymbolObjects, Vec<u32>, u64);

/// The map `text` parsed ([`MapRead`]).
fn read_link_map(image: &Image, text: &[u8], path: &Path) -> Result<MapRead> {
    let wanted = wanted(image);
    let exports = &image.other_exports;
    let others: HashMap<&[u8], u32> = (0..exports.len())
        .map(|i| (exports.name_bytes(i), i as u32))
        .collect();
    let mut other_objects = vec![NO_OBJECT; exports.len()];
    let mut symbols = crate::model::SymbolObjects::default();
    let mut synthesized = 0u64;
    let header = parse_link_map(text, |name, object, _| {
        if object != 0
            && let Some(&i) = others.get(name.as_bytes())
            && other_objects[i as usize] == NO_OBJECT
        {
            other_objects[i as usize] = object;
        }
        if let Some(n) = wanted.get(name) {
            if object == 0 {
                synthesized += 1;
            } else {
                symbols.entry((*n).clone()).or_insert(object);
            }
        }
    })
    .map_err(|e| {
        let message = e.to_string();
        Error::at(ErrorKind::Malformed, path, e.line, 1, message)
    })?;
    // A dylib's (or text stub's) entries are imports, not definitions of this image.
    let dylib = |o: u32| header.objects.get(o as usize).is_some_and(is_dylib);
    symbols.retain(|_, o| !dylib(*o));
    for o in other_objects.iter_mut().filter(|o| dylib(**o)) {
        *o = NO_OBJECT;
    }
    Ok((header, symbols, other_objects, synthesized))
}

/// A dynamic library or text stub among a map's files (`libSystem.tbd`, `libc++.1.dylib`,
/// `Foo.framework/Foo`): the map lists it for the symbols imported from it.
fn is_dylib(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".tbd")
        || name.ends_with(".dylib")
        || (path.contains(".framework/") && !path.ends_with(')') && !name.contains('.'))
}

fn from_dsym(image: &Image, path: &Path) -> Result<Attribution> {
    let arch = image.arch.as_deref().unwrap_or_default();
    let Some(uuid) = image.uuid else {
        return Err(Error::new(
            ErrorKind::Usage,
            Path::new(&image.path),
            format!("{arch}: no LC_UUID, so no dSYM can be matched to it"),
        ));
    };
    let index = read_dsym(path, arch, uuid)?;
    let mut symbols = crate::model::SymbolObjects::default();
    let mut misses = 0u64;
    let defined: HashMap<&str, Option<u64>> = image
        .weak_definitions
        .iter()
        .map(|w| (w.name.as_str(), w.address))
        .collect();
    for (name, n) in wanted(image) {
        let Some(address) = defined.get(name) else {
            continue; // bound, defined in another image
        };
        let unit = address
            .and_then(|a| index.unit_of_address(a))
            .or_else(|| index.unit_of_name(name));
        match unit {
            Some(u) => {
                symbols.insert(n.clone(), u as u32);
            }
            None => misses += 1,
        }
    }
    let exports = &image.other_exports;
    let other_exports = (0..exports.len())
        .map(|i| {
            exports
                .address(i)
                .and_then(|a| index.unit_of_address(a))
                .or_else(|| index.unit_of_name(&exports.name(i)))
                .map_or(NO_OBJECT, |u| u as u32)
        })
        .collect();
    let objects = index
        .units()
        .iter()
        .map(|u| {
            let source = match &u.comp_dir {
                Some(dir) if !u.name.starts_with('/') => format!("{dir}/{}", u.name),
                _ => u.name.clone(),
            };
            let source = Name::from(crate::text::escape(&source).into_owned());
            ObjectOrigin {
                path: source.clone(),
                source: Some(source),
            }
        })
        .collect();
    Ok(Attribution {
        from: AttributionSource::Dsym,
        objects,
        symbols,
        other_exports,
        unplaced: misses,
        definers: None,
        compiled: Vec::new(),
    })
}
