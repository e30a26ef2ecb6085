//! An importer's imports: every symbol an image binds, with its library ordinal, read from its
//! bind opcodes (regular, lazy and weak streams of `LC_DYLD_INFO(_ONLY)`,
//! [`super::bind_opcodes`]) or from the imports table of its chained fixups
//! (`LC_DYLD_CHAINED_FIXUPS`: `dyld_chained_import`, `_addend`, `_addend64` of
//! `<mach-o/fixup-chains.h>`, with `lib_ordinal` and `weak_import`, [`super::chained_fixups`];
//! dyld binds every entry of the table, `MachOAnalyzer::forEachBindTarget_ChainedFixups`, so the
//! chains themselves are not walked); and the other side of the question,
//! whether a scanned image's export trie has a name ([`ExportTrie`]).
//!
//! An importer is a native addon (`.node`, linked `-bundle -undefined dynamic_lookup`), a
//! plug-in bundle (`-bundle_loader`), a dylib or an executable that binds to another image's
//! exports. What it binds is what dyld resolves when it loads it: dyld's
//! `MachOAnalyzer::forEachBindTarget` hands every bind target, with its library ordinal, to
//! `Loader::resolveSymbol` (dyld-1378 common/MachOAnalyzer.cpp, dyld/Loader.cpp), where the
//! ordinal picks the image searched (`<mach-o/loader.h>`):
//!
//! ```text
//! ordinal ≥ 1   BIND_… (two-level)        the dylib of the ordinal-th LC_LOAD_DYLIB-like command
//! ordinal  0    BIND_SPECIAL_DYLIB_SELF   the importer itself
//! ordinal -1    _MAIN_EXECUTABLE          the main executable (ld64 -bundle_loader)
//! ordinal -2    _FLAT_LOOKUP              every image in load order (-undefined dynamic_lookup)
//! ordinal -3    _WEAK_LOOKUP              weak-def coalescing (the weak stream)
//! ```
//!
//! An image without `MH_TWOLEVEL` (`-flat_namespace`) looks every symbol up flat, whatever
//! ordinal it records (dyld `MachOAnalyzer::libOrdinalFromDesc`: "-flat_namespace is always
//! flat lookup").
//!
//! A universal importer is read in the slice of the arch asked for. Everything is read by byte
//! range and bounded as the parsers it uses are (names budgeted per byte of stream or blob,
//! at most [`super::bind_opcodes::MAX_BIND_LOCATIONS`] locations per stream).

use super::bind_opcodes::{BindNames, BindStream, walk_binds};
use super::chained_fixups::parse_chained_fixups_with;
use super::cursor::symbol_name;
use super::file::{MachOFile, SliceLocation};
use super::load_commands::{LinkeditRange, LoadCommands, read_load_commands};
use super::lookup_budget::LookupBudget;
use super::object::{AR_MAGIC, MH_OBJECT};
use crate::error::{Error, ErrorKind, Result};
use crate::process::resolve::{self, Roots, Walked};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// `MH_TWOLEVEL` (`<mach-o/loader.h>`): the image uses two-level namespace bindings.
pub const MH_TWOLEVEL: u32 = 0x80;
/// `MH_EXECUTE`.
pub const MH_EXECUTE: u32 = 2;
/// `MH_BUNDLE`.
pub const MH_BUNDLE: u32 = 8;

/// One symbol an importer binds (its binds to one name through one ordinal, merged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The symbol name as stored (`_napi_create_function`, `__ZN2v8…`), escaped as every name
    /// weakscan shows ([`crate::text`]).
    pub name: String,
    /// The library ordinal of the binds (see the module doc).
    pub library_ordinal: i32,
    /// Every bind of it has `BIND_SYMBOL_FLAGS_WEAK_IMPORT` (chained: `weak_import`): dyld
    /// binds it to 0 when no image has it, instead of refusing to load the importer.
    pub weak_import: bool,
    /// Every bind of it is in the lazy stream: dyld binds it at its first call (dyld4 binds
    /// a missing one to `__dyld_missing_symbol_abort`), not at load.
    pub lazy: bool,
}

/// The imports of one slice of an importer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImporterSlice {
    /// The file, escaped for display.
    pub path: String,
    /// The slice's arch (`x86_64`, `arm64`, …).
    pub arch: String,
    /// `filetype` (`MH_BUNDLE` 8, `MH_DYLIB` 6, `MH_EXECUTE` 2).
    pub filetype: u32,
    /// Header `flags` ([`MH_TWOLEVEL`] among them).
    pub flags: u32,
    /// The install name of each dylib load command, in order: ordinal `n` names `dylibs[n-1]`.
    pub dylibs: Vec<String>,
    /// Every distinct (name, ordinal) it binds, in the order of first bind (the regular
    /// stream's, then the lazy and weak streams', or the chained imports table's).
    pub imports: Vec<Import>,
    /// Its weak-lookup imports (ordinal -3) that its own export trie exports, sorted: it has
    /// its own definition of them, which a weak-def lookup finds when no image before it
    /// exports the name.
    pub defines_itself: Vec<String>,
}

impl ImporterSlice {
    /// It exports `name` itself, and binds it by weak lookup ([`Self::defines_itself`]).
    pub fn defines(&self, name: &str) -> bool {
        self.defines_itself
            .binary_search_by(|n| n.as_str().cmp(name))
            .is_ok()
    }

    /// The image looks every symbol up flat (no [`MH_TWOLEVEL`]).
    pub fn flat_namespace(&self) -> bool {
        self.flags & MH_TWOLEVEL == 0
    }
}

/// Reads the `arch` slice of the importer at `path`: `Ok(None)` when the file is Mach-O but has
/// no such slice (the slices it has are in the error a caller makes of it, see
/// [`slice_archs`]).
///
/// Errors (one line naming the file, exit 2): unreadable, not Mach-O ([`Error`] of
/// [`MachOFile::slices`]), an object file or archive (nothing linked, nothing bound), malformed
/// load commands, bind streams or chained fixups, binds only in classic relocations.
pub fn read_importer(path: &Path, arch: &str) -> Result<Option<ImporterSlice>> {
    read_importer_from(&MachOFile::open(path)?, arch)
}

/// [`read_importer`] of an opened file (bytes in memory for the fuzz targets).
pub fn read_importer_from(file: &MachOFile, arch: &str) -> Result<Option<ImporterSlice>> {
    refuse_unlinked(file)?;
    let slices = file.slices()?;
    match slices.iter().find(|s| s.arch == arch) {
        Some(loc) => read_importer_slice(file, loc).map(Some),
        None => Ok(None),
    }
}

/// The arch names of `file`'s slices, for the message of a missing one.
pub fn slice_archs(file: &MachOFile) -> Result<Vec<String>> {
    Ok(file.slices()?.into_iter().map(|s| s.arch).collect())
}

/// Refuses an archive: a static library binds nothing until it is linked.
fn refuse_unlinked(file: &MachOFile) -> Result<()> {
    if file.len() >= 8 && file.read_range(0, 8, "archive magic")? == AR_MAGIC {
        return Err(file.error(
            ErrorKind::Unsupported,
            "a static archive binds nothing: give the linked image (.node, .bundle, .dylib)",
        ));
    }
    Ok(())
}

/// Reads the imports of the slice at `loc`. Errors: as [`read_importer`].
pub fn read_importer_slice(file: &MachOFile, loc: &SliceLocation) -> Result<ImporterSlice> {
    let lc = read_load_commands(file, loc)?;
    if lc.filetype == MH_OBJECT {
        return Err(file.error(
            ErrorKind::Unsupported,
            format!(
                "{}: an object file (MH_OBJECT) binds nothing: give the linked image",
                loc.arch
            ),
        ));
    }
    let mut imports = ImportList::default();
    read_binds(file, loc, &lc, &mut imports)?;
    let defines_itself = own_definitions(file, loc, &lc, &imports.list)?;
    Ok(ImporterSlice {
        path: crate::text::escape_path(file.path()),
        arch: loc.arch.clone(),
        filetype: lc.filetype,
        flags: lc.flags,
        dylibs: lc
            .linkage
            .dylibs
            .iter()
            .map(|d| d.install_name.clone())
            .collect(),
        imports: imports.list,
        defines_itself,
    })
}

/// The weak-lookup imports (ordinal -3) of `imports` that the slice's own export trie exports,
/// sorted and distinct: one trie lookup per such import (O(depth) each), the lookups of one
/// importer sharing one budget linear in its file's size ([`LookupBudget::for_importer`]).
/// Errors: a malformed trie on a name's path; the lookups went past the budget.
fn own_definitions(
    file: &MachOFile,
    loc: &SliceLocation,
    lc: &LoadCommands,
    imports: &[Import],
) -> Result<Vec<String>> {
    use super::bind_opcodes::BIND_SPECIAL_DYLIB_WEAK_LOOKUP;
    let weak = || {
        imports
            .iter()
            .filter(|i| i.library_ordinal == BIND_SPECIAL_DYLIB_WEAK_LOOKUP)
    };
    let Some(r) = lc.exports_trie.or(lc.dyld_info_exports) else {
        return Ok(Vec::new());
    };
    if weak().next().is_none() {
        return Ok(Vec::new());
    }
    let trie = file.read_range(
        loc.offset + u64::from(r.offset),
        u64::from(r.size),
        "export trie",
    )?;
    let mut budget = LookupBudget::for_importer(file.len());
    let arch = &loc.arch;
    let mut own = Vec::new();
    for i in weak() {
        let found = budget
            .lookup(&trie, i.name.as_bytes())
            .map_err(|e| file.error(e.kind, format!("{arch}: export trie: {e}")))?;
        budget.check().map_err(|e| {
            file.error(
                ErrorKind::Unsupported,
                format!(
                    "{arch}: the lookups of its weak-lookup imports in its own export trie {e} \
                     (weakscan's work limit for an importer of this size, docs/robustness.md)"
                ),
            )
        })?;
        if found.is_some() {
            own.push(i.name.clone());
        }
    }
    own.sort_unstable();
    own.dedup();
    Ok(own)
}

/// Every bind of the slice into `out`: the chained imports, or the three opcode streams.
fn read_binds(
    file: &MachOFile,
    loc: &SliceLocation,
    lc: &LoadCommands,
    out: &mut ImportList,
) -> Result<()> {
    let arch = loc.arch.as_str();
    let ctx = |what: &str, e: crate::error::ParseError| {
        file.error(e.kind, format!("{arch}: {what}: {e}"))
    };
    let linkedit = |r: LinkeditRange, what: &str| -> Result<Vec<u8>> {
        file.read_range(loc.offset + u64::from(r.offset), u64::from(r.size), what)
    };
    if let Some(r) = lc.chained_fixups {
        let blob = linkedit(r, "chained fixups")?;
        parse_chained_fixups_with(&blob, lc.segments.len(), lc.dylib_count, |_, i| {
            out.add(
                symbol_name(i.name).into(),
                i.library_ordinal,
                i.weak_import,
                false,
            );
        })
        .map_err(|e| ctx("chained fixups", e))?;
        return Ok(());
    }
    if lc.dyld_info_exports.is_none() {
        return Err(file.error(
            ErrorKind::Unsupported,
            format!(
                "{arch}: no LC_DYLD_INFO or LC_DYLD_CHAINED_FIXUPS: binds in classic relocations are not read"
            ),
        ));
    }
    let bounds = lc.segment_bounds();
    let streams = [
        (lc.dyld_info_bind, BindStream::Regular, "bind stream"),
        (lc.dyld_info_lazy_bind, BindStream::Lazy, "lazy-bind stream"),
        (lc.dyld_info_weak_bind, BindStream::Weak, "weak-bind stream"),
    ];
    for (range, stream, what) in streams {
        let Some(r) = range.filter(|r| r.size > 0) else {
            continue;
        };
        let bytes = linkedit(r, what)?;
        let mut seen: Vec<(u32, i32, bool)> = Vec::new();
        let names: BindNames<'_> = walk_binds(&bytes, stream, &bounds, 8, lc.dylib_count, |b| {
            seen.push((b.symbol, b.library_ordinal, b.weak_import));
        })
        .map_err(|e| ctx(what, e))?;
        for (symbol, ordinal, weak_import) in seen {
            let name = names.symbols[symbol as usize].clone();
            out.add(name, ordinal, weak_import, stream == BindStream::Lazy);
        }
    }
    Ok(())
}

/// Imports merged by (name, ordinal), in order of first bind.
#[derive(Default)]
struct ImportList {
    list: Vec<Import>,
    index: foldhash::HashMap<(String, i32), usize>,
}

impl ImportList {
    fn add(&mut self, name: Cow<'_, str>, ordinal: i32, weak_import: bool, lazy: bool) {
        // Most binds repeat the previous import (a run of binds to one symbol).
        if let Some(last) = self.list.last_mut()
            && last.library_ordinal == ordinal
            && last.name == name
        {
            last.weak_import &= weak_import;
            last.lazy &= lazy;
            return;
        }
        let key = (name.into_owned(), ordinal);
        match self.index.get(&key) {
            Some(&i) => {
                let imp = &mut self.list[i];
                imp.weak_import &= weak_import;
                imp.lazy &= lazy;
            }
            None => {
                self.index.insert(key.clone(), self.list.len());
                self.list.push(Import {
                    name: key.0,
                    library_ordinal: ordinal,
                    weak_import,
                    lazy,
                });
            }
        }
    }
}

/// The export trie of one slice of a scanned image, to ask whether it exports a name: every
/// export counts (weak or not, re-exported or not), as dyld's `Loader::hasExportedSymbol`
/// finds a re-exported name through the trie first.
#[derive(Debug, Clone)]
pub struct ExportTrie {
    /// The file, for errors.
    path: PathBuf,
    arch: String,
    bytes: Vec<u8>,
}

impl ExportTrie {
    /// Reads the export trie of the `arch` slice of `path` (`LC_DYLD_EXPORTS_TRIE`, else
    /// `LC_DYLD_INFO`'s export range; none: an empty trie).
    ///
    /// Errors (one line naming the file): unreadable, not Mach-O, no `arch` slice, malformed
    /// load commands.
    pub fn read(path: &Path, arch: &str) -> Result<ExportTrie> {
        Self::read_from(&MachOFile::open(path)?, arch)
    }

    /// [`ExportTrie::read`] of an opened file.
    pub fn read_from(file: &MachOFile, arch: &str) -> Result<ExportTrie> {
        let slices = file.slices()?;
        let loc = slices.iter().find(|s| s.arch == arch).ok_or_else(|| {
            file.error(
                ErrorKind::Malformed,
                format!("no {arch} slice (read before: the file changed?)"),
            )
        })?;
        let lc = read_load_commands(file, loc)?;
        let bytes = match lc.exports_trie.or(lc.dyld_info_exports) {
            Some(r) => file.read_range(
                loc.offset + u64::from(r.offset),
                u64::from(r.size),
                "export trie",
            )?,
            None => Vec::new(),
        };
        Ok(ExportTrie {
            path: file.path().to_path_buf(),
            arch: arch.to_string(),
            bytes,
        })
    }

    /// An export trie from its bytes; `path` and `arch` name it in errors.
    pub fn from_bytes(path: &Path, arch: &str, bytes: Vec<u8>) -> ExportTrie {
        ExportTrie {
            path: path.to_path_buf(),
            arch: arch.to_string(),
            bytes,
        }
    }

    /// The `EXPORT_SYMBOL_FLAGS_*` of `name` (as stored, with its leading `_`), `None` when
    /// the trie does not export it ([`LookupBudget::lookup`]), its work added to `budget`, which one
    /// check's lookups share. Errors, naming the file and slice: a malformed node on the name's
    /// path; the lookups so far went past the budget.
    pub fn find(&self, name: &str, budget: &mut LookupBudget) -> Result<Option<u64>> {
        let found = budget.lookup(&self.bytes, name.as_bytes()).map_err(|e| {
            Error::new(
                e.kind,
                &self.path,
                format!("{}: export trie: {e}", self.arch),
            )
        })?;
        budget.check().map_err(|e| {
            Error::new(
                ErrorKind::Unsupported,
                &self.path,
                format!(
                    "{}: importer check stopped: the export-trie lookups of the importers' imports {e} (weakscan's work limit for one check, docs/robustness.md)",
                    self.arch
                ),
            )
        })?;
        Ok(found.map(|t| t.flags()))
    }
}

/// Why a file found in a directory of importers was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// Not a Mach-O file (a `.js`, a `package.json`, an ELF `.node` of another platform).
    NotMachO,
    /// A Mach-O object file or a static archive: nothing linked, nothing bound.
    Unlinked,
    /// Mach-O, without a slice of the scanned image's arch.
    NoSlice,
    /// Not a regular file (a FIFO, a socket, a device), or a symlink to one.
    NotAFile,
    /// A symlink to nothing (a dangling link, common under `node_modules/.bin`).
    Dangling,
    /// A symlink that leads out of the directory given, loops, or cannot be read: not followed.
    NotFollowed,
    /// A directory more than [`MAX_IMPORTER_DEPTH`] levels below the one given (not searched),
    /// or a symlink to a file or directory there.
    TooDeep,
}

impl Skip {
    /// What the report says of the files skipped so: `not Mach-O`, ….
    pub fn describe(self) -> &'static str {
        match self {
            Skip::NotMachO => "not Mach-O",
            Skip::Unlinked => "object files or archives",
            Skip::NoSlice => "without a slice of the arch",
            Skip::NotAFile => "not regular files",
            Skip::Dangling => "dangling symlinks",
            Skip::NotFollowed => "symlinks out of the directory or in a loop, not followed",
            Skip::TooDeep => "directories or symlinks too deep, not searched",
        }
    }
}

/// Importer files: those given, and the ones found in the directories given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImporterFiles {
    /// Each file to read, with whether it was found in a directory (then a missing slice is
    /// skipped and counted rather than an error).
    pub files: Vec<(PathBuf, bool)>,
    /// Files of the directories that are not importers, with why.
    pub skipped: Vec<(PathBuf, Skip)>,
}

/// Directory levels searched below a directory of importers (`node_modules` trees nest deep,
/// `prebuilds/darwin-x64/…`).
pub const MAX_IMPORTER_DEPTH: usize = 32;
/// Directory entries looked at, over all directories given; more is an error (exit 2).
pub const MAX_IMPORTER_ENTRIES: usize = 1 << 20;
/// Path components walked to resolve the symlinks below the directories given, in all
/// ([`resolve::walk_counted`]; a `pnpm` link takes some 20); more is an error (exit 2).
pub const MAX_IMPORTER_LINK_STEPS: usize = 1 << 23;

/// The importers `paths` name: a file as it is; a directory searched (walkdir, names sorted,
/// [`MAX_IMPORTER_DEPTH`] levels) for Mach-O files, whatever their names (`.node`, `.bundle`,
/// `.dylib`, `.so` or none), the rest counted in [`ImporterFiles::skipped`].
///
/// Nothing outside a directory given is read, as a process's files stay inside its roots
/// ([`crate::process::resolve::walk`], which follows a path one component at a time and never
/// `stat`s or reads a link outside): the walk does not follow symlinks, and each one found is
/// resolved inside the directory. One that leads to a file or directory inside it is not read
/// through the link: its target is read where it lies, so each file is read once. One that
/// leads out of the directory (to a file or a directory), loops or cannot be read is skipped
/// ([`Skip::NotFollowed`]), one that leads to nothing too ([`Skip::Dangling`]), and one that
/// leads to a FIFO, socket or device is [`Skip::NotAFile`]; a directory deeper than
/// [`MAX_IMPORTER_DEPTH`], or a link to one or to a file below it, is [`Skip::TooDeep`]; each is
/// counted.
///
/// Errors (exit 2): a path that does not exist or cannot be read, a directory that cannot be
/// listed, more than [`MAX_IMPORTER_ENTRIES`] entries or [`MAX_IMPORTER_LINK_STEPS`] steps.
pub fn find_importers(paths: &[PathBuf]) -> Result<ImporterFiles> {
    let mut out = ImporterFiles::default();
    let mut entries = 0usize;
    let mut link_steps = MAX_IMPORTER_LINK_STEPS;
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| Error::io(p, &e))?;
        if !meta.is_dir() {
            out.files.push((p.clone(), false));
            continue;
        }
        let root = std::fs::canonicalize(p).map_err(|e| Error::io(p, &e))?;
        let roots = Roots {
            dirs: vec![root.clone()],
            ..Roots::default()
        };
        let mut walk = walkdir::WalkDir::new(p)
            .follow_links(false)
            .sort_by_file_name()
            .into_iter();
        while let Some(entry) = walk.next() {
            entries += 1;
            if entries > MAX_IMPORTER_ENTRIES {
                return Err(Error::new(
                    ErrorKind::Usage,
                    p,
                    format!(
                        "more than {MAX_IMPORTER_ENTRIES} entries below the directories of importers: name a smaller one"
                    ),
                ));
            }
            let e = entry.map_err(|e| {
                let at = e.path().map(Path::to_path_buf).unwrap_or_else(|| p.clone());
                let io = e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("cannot be read"));
                Error::io(&at, &io)
            })?;
            let kind = e.file_type();
            if kind.is_dir() {
                if e.depth() >= MAX_IMPORTER_DEPTH {
                    walk.skip_current_dir();
                    out.skipped.push((e.into_path(), Skip::TooDeep));
                }
                continue;
            }
            let skip = if kind.is_file() {
                sniff(e.path())?
            } else if kind.is_symlink() {
                // Its path inside the canonical directory: `e.path()` is `p` joined with it.
                let inside = root.join(e.path().strip_prefix(p).unwrap_or(e.path()));
                let skip = symlink_skip(&inside, &roots, &mut link_steps);
                if link_steps == 0 {
                    return Err(Error::new(
                        ErrorKind::Usage,
                        p,
                        format!(
                            "more than {MAX_IMPORTER_LINK_STEPS} path components walked to resolve the symlinks below the directories of importers: name a smaller one"
                        ),
                    ));
                }
                match skip {
                    Some(why) => Some(why),
                    None => continue,
                }
            } else {
                Some(Skip::NotAFile)
            };
            match skip {
                None => out.files.push((e.into_path(), true)),
                Some(why) => out.skipped.push((e.into_path(), why)),
            }
        }
    }
    Ok(out)
}

/// Why the symlink at `inside` (its path below the canonical directory `roots.dirs[0]`) is
/// skipped, resolved there with [`resolve::walk_counted`] (its steps taken from `budget`);
/// `None` when it leads to a file or directory inside, which the walk of the directory reads
/// where it lies.
fn symlink_skip(inside: &Path, roots: &Roots, budget: &mut usize) -> Option<Skip> {
    // Levels below the directory given: a file at `MAX_IMPORTER_DEPTH` + 1 or a directory at
    // `MAX_IMPORTER_DEPTH` is one the walk does not reach.
    let depth = |real: &Path| {
        roots
            .dirs
            .first()
            .and_then(|root| real.strip_prefix(root).ok())
            .map(|rel| rel.components().count())
    };
    match resolve::walk_counted(inside, roots, budget) {
        Walked::File(real) if depth(&real).is_some_and(|d| d > MAX_IMPORTER_DEPTH) => {
            Some(Skip::TooDeep)
        }
        Walked::File(_) => None,
        // A directory above the one given.
        Walked::Other(real) if !roots.contains(&real) => Some(Skip::NotFollowed),
        Walked::Other(real)
            if real.is_dir() && depth(&real).is_some_and(|d| d >= MAX_IMPORTER_DEPTH) =>
        {
            Some(Skip::TooDeep)
        }
        Walked::Other(real) if real.is_dir() => None,
        Walked::Other(_) => Some(Skip::NotAFile),
        Walked::Missing { .. } => Some(Skip::Dangling),
        Walked::Refused(_) => Some(Skip::NotFollowed),
    }
}

/// Whether the file at `path` is worth reading as an importer, from its first bytes: `None`
/// for a linked Mach-O image or a universal file, else why not. Errors: it cannot be read.
fn sniff(path: &Path) -> Result<Option<Skip>> {
    use std::io::Read;
    let mut head = [0u8; 16];
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, &e))?;
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, &e)),
        }
    }
    let head = &head[..n];
    Ok(match head {
        [0xca, 0xfe, 0xba, 0xbe | 0xbf, ..] => None,
        // Too short for a file type: read, and refused with the reader's error.
        [0xcf, 0xfa, 0xed, 0xfe, rest @ ..] => match rest.get(8..12) {
            Some(t) if t == MH_OBJECT.to_le_bytes() => Some(Skip::Unlinked),
            _ => None,
        },
        [0xce, 0xfa, 0xed, 0xfe, ..] => Some(Skip::NoSlice),
        _ if head.starts_with(AR_MAGIC) => Some(Skip::Unlinked),
        _ => Some(Skip::NotMachO),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_merge_by_name_and_ordinal() {
        let mut l = ImportList::default();
        l.add("_a".into(), -2, true, true);
        l.add("_a".into(), -2, false, true);
        l.add("_b".into(), 1, false, false);
        l.add("_a".into(), 1, true, false);
        l.add("_a".into(), -2, true, false);
        let got: Vec<(&str, i32, bool, bool)> = l
            .list
            .iter()
            .map(|i| (i.name.as_str(), i.library_ordinal, i.weak_import, i.lazy))
            .collect();
        assert_eq!(
            got,
            [
                ("_a", -2, false, false),
                ("_b", 1, false, false),
                ("_a", 1, true, false)
            ]
        );
    }

    #[test]
    fn sniff_tells_importers_from_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        };
        let mut obj = vec![0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1, 3, 0, 0, 0];
        let mut dylib = obj.clone();
        obj.extend(MH_OBJECT.to_le_bytes());
        dylib.extend(6u32.to_le_bytes());
        assert_eq!(sniff(&write("a.o", &obj)).unwrap(), Some(Skip::Unlinked));
        assert_eq!(sniff(&write("a.dylib", &dylib)).unwrap(), None);
        assert_eq!(
            sniff(&write("fat", &[0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2])).unwrap(),
            None
        );
        assert_eq!(
            sniff(&write("a.js", b"module.exports = 1\n")).unwrap(),
            Some(Skip::NotMachO)
        );
        assert_eq!(sniff(&write("empty", b"")).unwrap(), Some(Skip::NotMachO));
        assert_eq!(
            sniff(&write("lib.a", b"!<arch>\nxxxxxxxx")).unwrap(),
            Some(Skip::Unlinked)
        );
    }
}
