//! Reads a file into [`Image`]s: container → load commands → export trie, weak binds (opcodes
//! or chained fixups) → model.

use super::bind_opcodes::{MAX_BIND_LOCATIONS, WeakBindNames, walk_weak_binds};
use super::chained_fixups::{
    BIND_SPECIAL_DYLIB_WEAK_LOOKUP, ChainedFixup, Visited, parse_chained_fixups_with, walk_chain,
};
use super::cursor::symbol_name;
use super::debug_map::{StabSymbol, read_debug_map};
use super::export_trie::{
    EXPORT_SYMBOL_FLAGS_KIND_MASK, EXPORT_SYMBOL_FLAGS_KIND_THREAD_LOCAL,
    EXPORT_SYMBOL_FLAGS_REEXPORT, EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION, ExportTarget, Split,
    walk_export_trie, walk_export_trie_split,
};
use super::file::{MachOFile, SliceLocation};
use super::load_commands::{LinkeditRange, LoadCommands, SymtabRange, read_load_commands};
use super::object::{AR_MAGIC, MH_OBJECT, read_object_image};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{
    Attribution, AttributionSource, BindTarget, FixupFormat, Image, NO_OBJECT, Name, ObjectOrigin,
    OtherExports, Site, Source, TREAT_AS_WEAK, WeakDefinition, predict_lookups,
};
use std::path::Path;

/// Which slices of a universal file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchFilter {
    /// Every slice.
    All,
    /// Only the slice with this arch name (`arm64`, `arm64e`, `x86_64`).
    Only(String),
}

/// Reads every selected slice of `path`.
///
/// Errors (one line naming the file): unreadable file, not Mach-O, malformed container or
/// LINKEDIT structure, unsupported image, or an `--arch` that names no slice (usage error).
pub fn read_file(path: &Path, filter: &ArchFilter) -> Result<Vec<Image>> {
    read_images(&MachOFile::open(path)?, filter)
}

/// Reads every selected slice of `bytes`, a whole Mach-O or universal file in memory; `path`
/// only names it in errors. The same checks and errors as [`read_file`].
pub fn read_bytes(path: &Path, bytes: Vec<u8>, filter: &ArchFilter) -> Result<Vec<Image>> {
    read_images(&MachOFile::from_bytes(path, bytes), filter)
}

/// Reads every selected slice of an opened [`MachOFile`] (a file, or bytes from a stream). The
/// same checks and errors as [`read_file`].
pub fn read_images(file: &MachOFile, filter: &ArchFilter) -> Result<Vec<Image>> {
    read_images_with(file, filter, |i| i, |loc| read_image(file, loc))
}

/// [`read_images`] without the debug maps of linked images: each image comes with the
/// [`PendingAttribution`] that reads its debug map later, so a caller can read it while it
/// does something else with the image (demangle its names). Errors: as [`read_images`], but
/// malformed stabs (the debug map itself) are only seen by [`PendingAttribution::read`]; a
/// symbol table outside the file is an error of the load commands, here.
///
/// `other_exports`: read every export that is not a weak definition into
/// [`Image::other_exports`] ([`ReadOptions::other_exports`]).
pub fn read_images_deferred(
    file: &MachOFile,
    filter: &ArchFilter,
    other_exports: bool,
) -> Result<Vec<(Image, Option<PendingAttribution>)>> {
    read_images_with(
        file,
        filter,
        |i| (i, None),
        |loc| read_image_deferred(file, loc, other_exports),
    )
}

/// The slices of `file` that `filter` selects, each read with `read`; an archive (not
/// universal) as its one image, through `archive`.
fn read_images_with<T>(
    file: &MachOFile,
    filter: &ArchFilter,
    archive: impl Fn(Image) -> T,
    read: impl Fn(&SliceLocation) -> Result<T>,
) -> Result<Vec<T>> {
    let path = file.path();
    // A static archive (not universal): one image, of its members' arch.
    if file.len() >= 8 && file.read_range(0, 8, "archive magic")? == AR_MAGIC {
        let loc = SliceLocation {
            arch: String::new(),
            cputype: 0,
            cpusubtype: 0,
            offset: 0,
            size: file.len(),
        };
        let image = read_object_image(file, &loc, true)?;
        if let ArchFilter::Only(want) = filter
            && image.arch.as_deref() != Some(want.as_str())
        {
            return Err(Error::new(
                ErrorKind::Usage,
                path,
                format!(
                    "no {want} slice (the archive's objects are {})",
                    image.arch.as_deref().unwrap_or("of no arch")
                ),
            ));
        }
        return Ok(vec![archive(image)]);
    }
    let slices = file.slices()?;
    let chosen: Vec<&SliceLocation> = match filter {
        ArchFilter::All => slices.iter().collect(),
        ArchFilter::Only(a) => slices.iter().filter(|s| &s.arch == a).collect(),
    };
    if let (true, ArchFilter::Only(want)) = (chosen.is_empty(), filter) {
        let have: Vec<&str> = slices.iter().map(|s| s.arch.as_str()).collect();
        return Err(Error::new(
            ErrorKind::Usage,
            path,
            format!("no {want} slice (the file has {})", have.join(", ")),
        ));
    }
    chosen.into_iter().map(read).collect()
}

/// Reads one slice into an [`Image`]: a linked image, or an object file or archive (a
/// universal archive's slice) before linking ([`super::object`]). The same as
/// [`read_image_with`] with the attribution read ([`ReadOptions::default`]).
pub fn read_image(file: &MachOFile, loc: &SliceLocation) -> Result<Image> {
    read_image_with(file, loc, ReadOptions::default())
}

/// What [`read_image_with`] reads besides the weak definitions, weak binds and load commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// The debug map of a linked image (`N_OSO`/`N_FUN` stabs of `LC_SYMTAB`): where each weak
    /// symbol was compiled, in [`Image::attribution`]. Off, the symbol and string tables are not
    /// read at all (a process's dylibs: their attribution is not used, and the tables are the
    /// largest part of the file read).
    pub attribution: bool,
    /// Every export of the export trie that is not a weak definition, in
    /// [`Image::other_exports`], and (with the attribution) its object: what a fix-plan
    /// candidate would also hide (`scan` shows it). Off, only the strong exports of the
    /// [`TREAT_AS_WEAK`] names are kept (attributed like weak definitions): a Node.js build's
    /// ~53k other exports are neither stored nor joined to the debug map.
    pub other_exports: bool,
}

impl Default for ReadOptions {
    /// The attribution, without the other exports.
    fn default() -> Self {
        ReadOptions {
            attribution: true,
            other_exports: false,
        }
    }
}

/// [`read_image`], reading what `opts` asks for. Errors: as [`read_image`] (a malformed symbol
/// table is not seen when the attribution is not read).
pub fn read_image_with(file: &MachOFile, loc: &SliceLocation, opts: ReadOptions) -> Result<Image> {
    let (mut image, pending) = read_image_deferred(file, loc, opts.other_exports)?;
    if let Some(p) = pending.filter(|_| opts.attribution) {
        image.attribution = p.read(file, &image)?;
    }
    Ok(image)
}

/// The debug map of a linked image, still to be read ([`read_images_deferred`]): where its
/// symbol table is, and what the export-trie walk learned that the join needs.
#[derive(Debug, Clone)]
pub struct PendingAttribution {
    loc: SliceLocation,
    symtab: SymtabRange,
}

impl PendingAttribution {
    /// Reads the debug map of `file` and joins it to `image`, the image read with it
    /// ([`read_images_deferred`]): the attribution [`read_image`] sets, `None` when the symbol
    /// table has no stabs (a stripped image).
    ///
    /// Errors (one line naming the file): a malformed debug map (stabs out of order, a string
    /// offset past the string table), or the file shrank since it was read.
    pub fn read(&self, file: &MachOFile, image: &Image) -> Result<Option<Box<Attribution>>> {
        let weak = WeakAddresses::new(&image.weak_definitions, &image.other_exports);
        read_attribution(file, &self.loc, self.symtab, image, &weak)
    }
}

/// What the export trie gives: the weak definitions and the other own exports.
type TrieRead = (Vec<WeakDefinition>, OtherExports);

/// [`read_image`] but for the debug map of a linked image, which comes back pending; every
/// other export kept when `all_exports` ([`ReadOptions::other_exports`]).
fn read_image_deferred(
    file: &MachOFile,
    loc: &SliceLocation,
    all_exports: bool,
) -> Result<(Image, Option<PendingAttribution>)> {
    if loc.size >= 16 {
        let head = file.read_range(loc.offset, 16, "slice header")?;
        if head[..8] == AR_MAGIC[..] {
            return read_object_image(file, loc, true).map(|i| (i, None));
        }
        if head[..4] == [0xcf, 0xfa, 0xed, 0xfe]
            && u32::from_le_bytes([head[12], head[13], head[14], head[15]]) == MH_OBJECT
        {
            return read_object_image(file, loc, false).map(|i| (i, None));
        }
    }
    let lc = read_load_commands(file, loc)?;
    let arch = loc.arch.as_str();
    let ctx = |what: &str, e: crate::error::ParseError| {
        file.error(ErrorKind::Malformed, format!("{arch}: {what}: {e}"))
    };
    let linkedit = |r: LinkeditRange, what: &str| -> Result<Vec<u8>> {
        file.read_range(loc.offset + u64::from(r.offset), u64::from(r.size), what)
    };

    // Export addresses are offsets from the mach header: from the segment mapping file offset 0
    // (__TEXT).
    let text_base = lc
        .segments
        .iter()
        .find(|s| s.fileoff == 0 && s.filesize > 0)
        .map(|s| s.vmaddr);
    // Export trie: LC_DYLD_EXPORTS_TRIE, else LC_DYLD_INFO's export range.
    let trie_range = lc.exports_trie.or(lc.dyld_info_exports);
    // The export trie and the fixups are independent: read at the same time on the pool.
    let read_trie = || -> Result<TrieRead> {
        let mut weak_definitions: Vec<WeakDefinition> = Vec::new();
        // The other own exports when asked, else only the strong operator new/delete (those a
        // main executable may define to override libc++'s): attributed like weak definitions.
        let mut other_exports = OtherExports::default();
        if let Some(r) = trie_range {
            let trie = linkedit(r, "export trie")?;
            // One walk (a counting walk first, to allocate the list once, cost more than the
            // list's growth: the walk builds every exported name), in parts on the pool: the
            // thread that read the fixups takes a share when it is done.
            let parts = walk_export_trie_split(
                &trie,
                Split::DEFAULT,
                TrieRead::default,
                |(weak_definitions, other_exports), name, flags, target| {
                    let address = match target {
                        ExportTarget::Address(a) => Some(a),
                        ExportTarget::StubAndResolver { stub, .. } => Some(stub),
                        _ => None,
                    };
                    let address = address.zip(text_base).map(|(a, b)| b.wrapping_add(a));
                    if flags & EXPORT_SYMBOL_FLAGS_REEXPORT != 0 {
                        return;
                    }
                    if flags & EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION == 0 {
                        // Into one shared text: no allocation per name.
                        if all_exports || is_treat_as_weak(name) && address.is_some() {
                            other_exports.push(name, address);
                        }
                        return;
                    }
                    weak_definitions.push(WeakDefinition {
                        address,
                        name: Name::from(symbol_name(name)),
                        thread_local: flags & EXPORT_SYMBOL_FLAGS_KIND_MASK
                            == EXPORT_SYMBOL_FLAGS_KIND_THREAD_LOCAL,
                    });
                },
            )
            .map_err(|e| ctx("export trie", e))?;
            // The parts in order, after the first (the one walked from the root).
            let rest: usize = parts.iter().skip(1).map(|p| p.0.len()).sum();
            let mut parts = parts.into_iter();
            (weak_definitions, other_exports) = parts.next().unwrap_or_default();
            weak_definitions.reserve_exact(rest);
            for (weak, other) in parts {
                weak_definitions.extend(weak);
                other_exports.extend(other);
            }
            weak_definitions.shrink_to_fit();
            other_exports.shrink_to_fit();
        }
        Ok((weak_definitions, other_exports))
    };
    // The weak-bind stream outlives the join: the targets' names are borrowed from it until
    // the weak definitions tell which of them this image defines (`name_targets`).
    let stream_slot: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let read_fixups = || -> Result<Fixups<'_>> {
        Ok(if let Some(r) = lc.chained_fixups {
            let blob = linkedit(r, "chained fixups")?;
            let targets = chained_targets(file, loc, &lc, &blob)?;
            Fixups::Named(FixupFormat::Chained, targets)
        } else if lc.dyld_info_exports.is_some() {
            match lc.dyld_info_weak_bind.filter(|r| r.size > 0) {
                Some(r) => {
                    let bounds = lc.segment_bounds();
                    let bytes = linkedit(r, "weak-bind stream")?;
                    let stream: &[u8] = stream_slot.get_or_init(|| bytes);
                    let ctx = |e| ctx("weak-bind stream", e);
                    // One pass: a target's binds are consecutive in the stream (a new target
                    // starts at each SET_SYMBOL or addend change), so the sites are collected in
                    // order and then cut into each target's list, allocated once at its size
                    // (a first pass to count would intern every name twice). At most
                    // `MAX_BIND_LOCATIONS` sites, 16 bytes
                    // each, are held twice for that moment.
                    let mut heads: Vec<(u32, i64, u32)> = Vec::new(); // symbol, addend, sites
                    let mut sites: Vec<Site> = Vec::new();
                    let names = walk_weak_binds(stream, &bounds, 8, |b| {
                        if b.target as usize == heads.len() {
                            heads.push((b.symbol, b.addend, 0));
                        }
                        heads[b.target as usize].2 += 1;
                        let seg = &lc.segments[usize::from(b.segment_index)];
                        sites.push(Site {
                            address: seg.vmaddr.wrapping_add(b.segment_offset),
                            segment_index: Some(u32::from(b.segment_index)),
                        });
                    })
                    .map_err(ctx)?;
                    let mut sites = sites.into_iter();
                    let targets = heads
                        .into_iter()
                        .map(|(symbol, addend, n)| {
                            (symbol, addend, sites.by_ref().take(n as usize).collect())
                        })
                        .collect();
                    Fixups::Opcodes { names, targets }
                }
                None => Fixups::Named(FixupFormat::Opcodes, Vec::new()),
            }
        } else {
            Fixups::Named(FixupFormat::None, Vec::new())
        })
    };
    let (trie, fixups) = crate::pool::join(read_trie, read_fixups);
    let (weak_definitions, other_exports) = trie?;
    // Which targets the image defines itself; such a target then shares the weak
    // definition's copy of the name (a Node.js build: 6.8k of its 6.8k targets), and only the
    // others' names are made.
    let (fixup_format, bind_targets, strong_overrides) = name_targets(&weak_definitions, fixups?);
    let lookups = predict_lookups(lc.filetype, lc.flags, fixup_format, &bind_targets);
    let pending = lc.symtab.map(|symtab| PendingAttribution {
        loc: loc.clone(),
        symtab,
    });
    let path = file.path();
    let image = Image {
        // Shown in tables and JSON: one line, whatever the path holds.
        path: crate::text::escape_path(path),
        name: path
            .file_name()
            .map(|n| crate::text::escape_path(std::path::Path::new(n)))
            .unwrap_or_default(),
        arch: Some(loc.arch.clone()),
        filetype: Some(lc.filetype),
        flags: Some(lc.flags),
        fixup_format: Some(fixup_format),
        weak_definitions,
        other_exports,
        bind_targets,
        strong_overrides,
        lookups,
        source: Source::Binary,
        attribution: None,
        uuid: lc.uuid,
        linkage: Some(Box::new(lc.linkage)),
    };
    Ok((image, pending))
}

/// The weak-bind targets of a slice as read beside its export trie.
enum Fixups<'s> {
    /// Chained fixups' targets (named from the imports table), or none: a format and the
    /// targets.
    Named(FixupFormat, Vec<BindTarget>),
    /// The weak-bind stream's, their names still borrowed from the stream.
    Opcodes {
        /// The distinct names and strong overrides.
        names: WeakBindNames<'s>,
        /// Per target in stream order: its symbol (an index into `names.symbols`), addend and
        /// sites.
        targets: Vec<(u32, i64, Vec<Site>)>,
    },
}

/// The bind targets of `fixups` with their names, and the format and strong overrides: a
/// target one of `weak` names is defined here and shares that definition's copy of the name
/// ([`copies_defined_here`]); only the other names are made (the weak-bind stream's), or kept
/// (chained fixups').
fn name_targets(
    weak: &[WeakDefinition],
    fixups: Fixups<'_>,
) -> (FixupFormat, Vec<BindTarget>, Vec<Name>) {
    match fixups {
        Fixups::Named(format, mut targets) => {
            let texts: Vec<&str> = targets.iter().map(|t| t.symbol.as_str()).collect();
            let here = copies_defined_here(weak, &texts);
            for (t, name) in targets.iter_mut().zip(here) {
                if let Some(name) = name {
                    t.symbol = name.clone();
                    t.defined_here = true;
                }
            }
            (format, targets, Vec::new())
        }
        Fixups::Opcodes { names, targets } => {
            let texts: Vec<&str> = names.symbols.iter().map(|t| t.as_ref()).collect();
            let here = copies_defined_here(weak, &texts);
            let named: Vec<(Name, bool)> = texts
                .iter()
                .zip(here)
                .map(|(text, name)| match name {
                    Some(name) => (name.clone(), true),
                    None => (Name::from(*text), false),
                })
                .collect();
            let targets = targets
                .into_iter()
                .map(|(symbol, addend, sites)| {
                    let (symbol, defined_here) = named[symbol as usize].clone();
                    BindTarget {
                        symbol,
                        addend,
                        sites,
                        defined_here,
                        supplier: None,
                    }
                })
                .collect();
            let strong = names
                .strong_overrides
                .iter()
                .map(|&id| named[id as usize].0.clone())
                .collect();
            (FixupFormat::Opcodes, targets, strong)
        }
    }
}

/// Weak definitions from which [`copies_defined_here`] indexes the two halves at the same time.
const MATCH_IN_HALVES: usize = 4096;

/// For each of `texts`, the copy of that name one of `weak` holds (of two definitions with one
/// text, from a malformed trie, the last), or `None` when the image does not define it.
///
/// Done in halves on the pool: the definitions indexed two halves at once, the texts looked up
/// two halves at once (a Node.js build: 10k definitions, 6.8k names, ~1 ms on one thread with
/// the pool's other thread idle, right after the export trie's walk).
fn copies_defined_here<'w>(weak: &'w [WeakDefinition], texts: &[&str]) -> Vec<Option<&'w Name>> {
    fn index(defs: &[WeakDefinition]) -> foldhash::HashMap<&str, &Name> {
        defs.iter().map(|w| (w.name.as_str(), &w.name)).collect()
    }
    let half = if weak.len() >= MATCH_IN_HALVES {
        weak.len() / 2
    } else {
        weak.len()
    };
    let (first, second) = crate::pool::join(|| index(&weak[..half]), || index(&weak[half..]));
    // The second half holds the later definitions: it answers first.
    let defined = |s: &str| second.get(s).or_else(|| first.get(s)).copied();
    let look_up = |texts: &[&str]| texts.iter().map(|t| defined(t)).collect::<Vec<_>>();
    let (a, b) = texts.split_at(if half < weak.len() {
        texts.len() / 2
    } else {
        texts.len()
    });
    let (mut a, b) = crate::pool::join(|| look_up(a), || look_up(b));
    a.extend(b);
    a
}

/// The debug map of the slice, joined to the image's weak definitions and weak-bind targets;
/// `None` when the symbol table has no stabs (a stripped image).
fn read_attribution(
    file: &MachOFile,
    loc: &SliceLocation,
    st: SymtabRange,
    image: &Image,
    weak: &WeakAddresses<'_>,
) -> Result<Option<Box<Attribution>>> {
    let (weak_definitions, bind_targets) = (&image.weak_definitions, &image.bind_targets);
    let arch = loc.arch.as_str();
    let wrap = |e: ReadError| match e {
        ReadError::Parse(e) => file.error(ErrorKind::Malformed, format!("{arch}: debug map: {e}")),
        ReadError::Read(e) => e,
    };
    // The names asked for, keyed by their text, with a cheap prefilter (see `NameFilter`). A
    // target defined here is named by its weak definition (`read_image_with`).
    // Sized once: growing would hash every name again at each doubling.
    let mut wanted: foldhash::HashMap<&str, &Name> = foldhash::HashMap::with_capacity_and_hasher(
        weak_definitions.len() + bind_targets.iter().filter(|t| !t.defined_here).count(),
        Default::default(),
    );
    for n in weak_definitions.iter().map(|w| &w.name).chain(
        bind_targets
            .iter()
            .filter(|t| !t.defined_here)
            .map(|t| &t.symbol),
    ) {
        wanted.entry(n.as_str()).or_insert(n);
    }
    let filter = NameFilter::new(wanted.keys().copied());
    let mut symbols =
        crate::model::SymbolObjects::with_capacity_and_hasher(wanted.len(), Default::default());
    let mut other_objects = vec![NO_OBJECT; image.other_exports.len()];
    let mut unplaced: Option<foldhash::HashMap<&[u8], u32>> = None;
    let base = loc.offset;
    let map = read_debug_map(
        st.nsyms,
        u64::from(st.strsize),
        |off, len, buf: &mut Vec<u8>| {
            let at = base + u64::from(st.symoff) + off;
            file.read_range_into(at, len, "symbol table", buf)
                .map_err(ReadError::Read)
        },
        |off, len, buf: &mut Vec<u8>| {
            let at = base + u64::from(st.stroff) + off;
            file.read_range_into(at, len, "string table", buf)
                .map_err(ReadError::Read)
        },
        |address| weak.contains(address),
        |symbol, object| {
            let raw = match symbol {
                StabSymbol::Address(a) => {
                    for export in weak.at(a) {
                        match export {
                            Export::Weak(name) => {
                                symbols.entry(name.clone()).or_insert(object);
                            }
                            Export::Other(i) => {
                                let o = &mut other_objects[i as usize];
                                if *o == NO_OBJECT {
                                    *o = object;
                                }
                                // A strong operator new/delete is looked up by name too.
                                let raw = image.other_exports.name_bytes(i as usize);
                                if let Some(n) = treat_as_weak(raw) {
                                    symbols.entry(Name::from(n)).or_insert(object);
                                }
                            }
                        }
                    }
                    return;
                }
                StabSymbol::Name(raw) => raw,
            };
            // External data: the other exports not placed by address, by name (built at the
            // first name: the stabs by address all come first).
            let by_name = unplaced.get_or_insert_with(|| unplaced_by_name(image, &other_objects));
            if let Some(&i) = by_name.get(raw) {
                let o = &mut other_objects[i as usize];
                if *o == NO_OBJECT {
                    *o = object;
                }
            }
            if !filter.may_contain(raw) {
                return;
            }
            if let Some(name) = wanted.get(crate::text::escape_bytes_cow(raw).as_ref()) {
                symbols.entry((*name).clone()).or_insert(object);
            }
        },
    )
    .map_err(wrap)?;
    if map.objects.is_empty() {
        return Ok(None);
    }
    let objects = map
        .objects
        .into_iter()
        .map(|o| ObjectOrigin {
            path: Name::from(o.path),
            source: o.source.map(Name::from),
        })
        .collect();
    Ok(Some(Box::new(Attribution {
        from: AttributionSource::DebugMap,
        objects,
        symbols,
        other_exports: other_objects,
        unplaced: map.stats.stray_symbol_stabs,
        definers: None,
        compiled: Vec::new(),
    })))
}

/// The [`TREAT_AS_WEAK`] name `raw` is, if it is one.
fn treat_as_weak(raw: &[u8]) -> Option<&'static str> {
    if raw.len() > 40 {
        return None;
    }
    TREAT_AS_WEAK.iter().copied().find(|n| n.as_bytes() == raw)
}

/// Whether `raw` is one of the [`TREAT_AS_WEAK`] names.
fn is_treat_as_weak(raw: &[u8]) -> bool {
    treat_as_weak(raw).is_some()
}

/// The other exports of `image` that `objects` (as [`Attribution::other_exports`]) does not
/// place yet, by name.
fn unplaced_by_name<'i>(image: &'i Image, objects: &[u32]) -> foldhash::HashMap<&'i [u8], u32> {
    let e = &image.other_exports;
    (0..e.len())
        .filter(|&i| objects[i] == NO_OBJECT)
        .map(|i| (e.name_bytes(i), i as u32))
        .collect()
}

/// The vm addresses of the exports attributed by address (weak definitions and the other own
/// exports), each with its exports (names borrowed from the image, not cloned).
struct WeakAddresses<'a> {
    /// Address → the last of [`WeakAddresses::entries`] at it: [`WeakAddresses::contains`]
    /// answers every function stab of the image (Node.js: ~200k), a hash probe each (no sort
    /// of the 63k addresses, no binary search).
    heads: foldhash::HashMap<u64, u32>,
    /// Each export, with the entry before it at its address ([`NO_OBJECT`]: none).
    entries: Vec<(Export<'a>, u32)>,
    /// One bit per [`WeakAddresses::slot`], set for the slots of the addresses: 32 KiB that
    /// stay in the L1 cache and turn away most function stabs (Node.js: 63k exports among
    /// 107k functions) before the map's probe, which misses the cache.
    filter: Box<[u64; FILTER_WORDS]>,
}

/// An export at an address: a weak definition, or the index of one of the other exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Export<'a> {
    Weak(&'a Name),
    Other(u32),
}

/// 64-bit words of [`WeakAddresses::filter`] (2^18 bits: a Node.js build's 63k export
/// addresses set a fifth of them).
const FILTER_WORDS: usize = 1 << 12;

impl<'a> WeakAddresses<'a> {
    /// The weak definitions and other exports with an address.
    fn new(weak: &'a [WeakDefinition], other: &OtherExports) -> Self {
        let mut filter = Box::new([0u64; FILTER_WORDS]);
        let all = weak
            .iter()
            .filter_map(|w| Some((w.address?, Export::Weak(&w.name))))
            .chain(
                (0..other.len()).filter_map(|i| Some((other.address(i)?, Export::Other(i as u32)))),
            );
        // Sized at once: grown by doubling, every address is hashed again.
        let n = weak.len() + other.len();
        let mut heads = foldhash::HashMap::with_capacity_and_hasher(n, Default::default());
        let mut entries = Vec::with_capacity(n);
        for (a, e) in all {
            let here = entries.len() as u32;
            let before = heads.insert(a, here).unwrap_or(NO_OBJECT);
            entries.push((e, before));
            let s = Self::slot(a);
            filter[s / 64] |= 1 << (s % 64);
        }
        WeakAddresses {
            heads,
            entries,
            filter,
        }
    }

    /// An address's bit in the filter: its top 18 bits after a multiplicative hash (function
    /// addresses share their low bits, aligned, and their high ones).
    fn slot(address: u64) -> usize {
        (address.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - 18)) as usize
    }

    /// The exports at `address`, the last read first.
    fn at(&self, address: u64) -> impl Iterator<Item = Export<'a>> + '_ {
        let mut next = self.heads.get(&address).copied().unwrap_or(NO_OBJECT);
        std::iter::from_fn(move || {
            let (e, before) = *self.entries.get(next as usize)?;
            next = before;
            Some(e)
        })
    }

    fn contains(&self, address: u64) -> bool {
        let s = Self::slot(address);
        self.filter[s / 64] & (1 << (s % 64)) != 0 && self.heads.contains_key(&address)
    }
}

/// A read of the symbol or string table failed, or what it read is malformed.
enum ReadError {
    Parse(crate::error::ParseError),
    Read(crate::error::Error),
}

impl From<crate::error::ParseError> for ReadError {
    fn from(e: crate::error::ParseError) -> Self {
        ReadError::Parse(e)
    }
}

/// A set of byte strings answering "maybe" or "no" from their length and first and last eight
/// bytes (a 2^17-bit table, 16 KiB, that stays in the L1 cache): most names of external-data
/// stabs (`N_GSYM`, looked up by name) are not weak symbols, and are turned away without
/// hashing the whole name. (Node.js 22: 17k names set 12% of the bits, for 10k stabs.)
struct NameFilter {
    bits: Vec<u64>,
    /// A name of the set holds an escape (`\\x…`, from bytes [`symbol_name`] escapes): names
    /// with such bytes are let through, since their escaped form is what is compared.
    escaped: bool,
}

impl NameFilter {
    const BITS: usize = 1 << 17;

    fn slot(raw: &[u8]) -> usize {
        let word = |b: &[u8]| {
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            u64::from_le_bytes(w)
        };
        let head = word(&raw[..raw.len().min(8)]);
        let tail = word(&raw[raw.len().saturating_sub(8)..]);
        let h =
            (head ^ tail.rotate_left(29) ^ (raw.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .wrapping_mul(0xff51_afd7_ed55_8ccd);
        (h >> 44) as usize % Self::BITS
    }

    fn new<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let mut bits = crate::memory::zeroed_words(Self::BITS / 64);
        let mut escaped = false;
        for n in names {
            let s = Self::slot(n.as_bytes());
            bits[s / 64] |= 1 << (s % 64);
            // memchr's vector search, cheaper per name than std's `contains`.
            escaped |= memchr::memchr(b'\\', n.as_bytes()).is_some();
        }
        NameFilter { bits, escaped }
    }

    /// False only when no name of the set can be `raw` (escaped names are let through).
    fn may_contain(&self, raw: &[u8]) -> bool {
        let s = Self::slot(raw);
        self.bits[s / 64] & (1 << (s % 64)) != 0
            || (self.escaped && raw.iter().any(|&b| !(0x20..0x7f).contains(&b)))
    }
}

/// The ordinal -3 imports of a chained-fixups image, each with the sites its chains bind.
fn chained_targets(
    file: &MachOFile,
    loc: &SliceLocation,
    lc: &LoadCommands,
    blob: &[u8],
) -> Result<Vec<BindTarget>> {
    let arch = loc.arch.as_str();
    let ctx =
        |e: crate::error::ParseError| file.error(e.kind, format!("{arch}: chained fixups: {e}"));
    // import index -> target index (u32::MAX: not a weak lookup); weak-lookup imports become
    // targets, their names interned (imports may share a name).
    let mut target_of: Vec<u32> = Vec::new();
    let mut targets: Vec<BindTarget> = Vec::new();
    let mut interned: foldhash::HashMap<&[u8], Name> = Default::default();
    let (header, segments) =
        parse_chained_fixups_with(blob, lc.segments.len(), lc.dylib_count, |_, imp| {
            if imp.library_ordinal != BIND_SPECIAL_DYLIB_WEAK_LOOKUP {
                target_of.push(u32::MAX);
                return;
            }
            target_of.push(targets.len() as u32);
            let symbol = interned
                .entry(imp.name)
                .or_insert_with(|| Name::from(symbol_name(imp.name)))
                .clone();
            targets.push(BindTarget {
                symbol,
                addend: imp.addend,
                sites: Vec::new(),
                defined_here: false,
                supplier: None,
            });
        })
        .map_err(ctx)?;
    drop(interned);
    targets.shrink_to_fit();
    // Weak-bind locations, capped as the opcode stream's are.
    let mut sites = 0usize;
    let mut too_many = false;
    let imports_count = header.imports_count;
    for starts in &segments {
        let seg = &lc.segments[starts.segment_index];
        let page_size = u64::from(starts.page_size);
        let pages_with_chains: Vec<usize> = starts
            .page_chain_starts
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.is_empty())
            .map(|(i, _)| i)
            .collect();
        let (Some(&first), Some(&last)) = (pages_with_chains.first(), pages_with_chains.last())
        else {
            continue;
        };
        // Read only the span of pages that hold chains (clipped to the segment's file bytes).
        let span_start = first as u64 * page_size;
        let span_end = ((last as u64 + 1) * page_size).min(seg.filesize);
        if span_start >= span_end {
            return Err(file.error(
                ErrorKind::Malformed,
                format!(
                    "{arch}: chained fixups: page {first} of segment {} is outside its file data",
                    seg.name
                ),
            ));
        }
        let data = file.read_range(
            loc.offset + seg.fileoff + span_start,
            span_end - span_start,
            "fixup chain pages",
        )?;
        let mut visited = Visited::new(data.len());
        for (page, chain_starts) in starts.page_chain_starts.iter().enumerate() {
            for &start in chain_starts {
                let in_span = page as u64 * page_size + u64::from(start) - span_start;
                let site_segment = starts.segment_index as u32;
                walk_chain(
                    &data,
                    starts.pointer_format,
                    in_span,
                    imports_count,
                    &mut visited,
                    |off, fixup| {
                        if let ChainedFixup::Bind { ordinal, .. } = fixup
                            && let Some(&t) = target_of.get(ordinal as usize)
                            && t != u32::MAX
                        {
                            if sites == MAX_BIND_LOCATIONS {
                                too_many = true;
                                return;
                            }
                            sites += 1;
                            targets[t as usize].sites.push(Site {
                                address: seg.vmaddr.wrapping_add(span_start + off),
                                segment_index: Some(site_segment),
                            });
                        }
                    },
                )
                .map_err(|e| {
                    file.error(
                        e.kind,
                        format!(
                            "{arch}: chained fixups: segment {} page {page} (offsets from page {first}): {e}",
                            seg.name
                        ),
                    )
                })?;
                if too_many {
                    return Err(file.error(
                        ErrorKind::Malformed,
                        format!(
                            "{arch}: chained fixups: more than {MAX_BIND_LOCATIONS} weak-bind locations"
                        ),
                    ));
                }
            }
        }
    }
    for t in &mut targets {
        t.sites.shrink_to_fit();
    }
    Ok(targets)
}

/// How an image's export trie holds a name (`EXPORT_SYMBOL_FLAGS_*`, `<mach-o/loader.h>`), as
/// dyld's `Loader::hasExportedSymbol` reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// `EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION`.
    Weak,
    /// A definition without the weak flag (regular, thread-local, absolute, resolver), or a
    /// function variant.
    Strong,
    /// `EXPORT_SYMBOL_FLAGS_REEXPORT`: defined by one of the image's dependencies.
    Reexport,
}

/// What a weak-def lookup finds in an export-trie terminal with `flags`: a re-export, or a
/// definition weak only when dyld's coalescing takes it for one (a function variant is not:
/// [`crate::macho::export_trie::weak_definition_flags`]).
pub fn export_kind(flags: u64) -> ExportKind {
    if flags & EXPORT_SYMBOL_FLAGS_REEXPORT != 0 {
        ExportKind::Reexport
    } else if crate::macho::export_trie::weak_definition_flags(flags) {
        ExportKind::Weak
    } else {
        ExportKind::Strong
    }
}

/// Calls `found(name, kind)` for each name that slice `loc` of `file` exports, in trie order,
/// with how it is exported: what a weak-def lookup for that name finds in this image. One walk
/// of the export trie (`LC_DYLD_EXPORTS_TRIE`, else `LC_DYLD_INFO`'s export range); `name` is
/// the raw bytes of the trie's edges, the caller picks the names it wants. Errors: the same as
/// [`read_image`] for the load commands and the trie.
pub fn for_each_export(
    file: &MachOFile,
    loc: &SliceLocation,
    mut found: impl FnMut(&[u8], ExportKind),
) -> Result<()> {
    let lc = read_load_commands(file, loc)?;
    let Some(r) = lc.exports_trie.or(lc.dyld_info_exports) else {
        return Ok(());
    };
    let trie = file.read_range(
        loc.offset + u64::from(r.offset),
        u64::from(r.size),
        "export trie",
    )?;
    walk_export_trie(&trie, |name, flags, _| found(name, export_kind(flags))).map_err(|e| {
        file.error(
            ErrorKind::Malformed,
            format!("{}: export trie: {e}", loc.arch),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_a_function_variant_export_was_weak_when_its_weak_bit_was_set() {
        // dyld-1284.13+ hasExportedSymbol: a function variant is a non-weak definition.
        assert_eq!(export_kind(0x04), ExportKind::Weak);
        assert_eq!(export_kind(0x20), ExportKind::Strong);
        assert_eq!(export_kind(0x24), ExportKind::Strong);
        assert_eq!(export_kind(0x0c), ExportKind::Reexport);
        assert_eq!(
            export_kind(0x01 | 0x04),
            ExportKind::Weak,
            "thread-local weak"
        );
    }

    #[test]
    fn targets_defined_here_take_the_last_definition_of_their_text_in_halves_or_not() {
        // As one map collected in the definitions' order: a text defined twice (a malformed
        // trie can give one) names its targets with its last definition, whether the
        // definitions are indexed in two halves (from MATCH_IN_HALVES) or whole.
        for n in [
            8usize,
            MATCH_IN_HALVES,
            MATCH_IN_HALVES + 1,
            3 * MATCH_IN_HALVES,
        ] {
            let mut texts: Vec<String> = (0..n).map(|i| format!("__Z1fILi{i}EEvv")).collect();
            // Twice in the first half, then once in each half.
            texts[1] = "__Z3dupv".into();
            texts[2] = "__Z3dupv".into();
            texts[n - 1] = "__Z4dup2v".into();
            texts[0] = "__Z4dup2v".into();
            let weak: Vec<WeakDefinition> = texts
                .iter()
                .map(|t| WeakDefinition {
                    name: Name::from(t.as_str()),
                    thread_local: false,
                    address: None,
                })
                .collect();
            let wanted = [
                "__Z3dupv",
                "__Z4dup2v",
                "__Z1fILi5EEvv",
                "__Z7elsewhev",
                "__Z3dupv",
            ];
            let targets: Vec<BindTarget> = wanted
                .iter()
                .map(|t| BindTarget {
                    symbol: Name::from(*t),
                    addend: 0,
                    sites: Vec::new(),
                    defined_here: false,
                    supplier: None,
                })
                .collect();
            let copy = |t: &BindTarget| t.symbol.copy_id();
            let of = |i: usize| weak[i].name.copy_id();
            let check = |targets: &[BindTarget]| {
                assert_eq!(copy(&targets[0]), of(2), "{n}");
                assert_eq!(copy(&targets[1]), of(n - 1), "{n}");
                assert_eq!(copy(&targets[2]), of(5), "{n}");
                assert_eq!(copy(&targets[4]), of(2), "{n}");
                assert_eq!(
                    targets.iter().map(|t| t.defined_here).collect::<Vec<_>>(),
                    [true, true, true, false, true]
                );
                assert_eq!(targets[3].symbol.as_str(), "__Z7elsewhev");
            };
            // Chained fixups' targets, named already.
            let (format, chained, strong) =
                name_targets(&weak, Fixups::Named(FixupFormat::Chained, targets.clone()));
            assert_eq!((format, strong.len()), (FixupFormat::Chained, 0));
            check(&chained);
            // The weak-bind stream's: distinct names borrowed, each target with its sites.
            let site = |address| Site {
                address,
                segment_index: Some(1),
            };
            let names = WeakBindNames {
                symbols: wanted[..4].iter().map(|t| (*t).into()).collect(),
                strong_overrides: vec![3, 0],
                targets: 5,
            };
            let (format, opcodes, strong) = name_targets(
                &weak,
                Fixups::Opcodes {
                    names,
                    targets: vec![
                        (0, 0, vec![site(0)]),
                        (1, 0, vec![]),
                        (2, 0, vec![site(1), site(2)]),
                        (3, 0, vec![site(3)]),
                        (0, 8, vec![site(4)]),
                    ],
                },
            );
            assert_eq!(format, FixupFormat::Opcodes);
            check(&opcodes);
            assert_eq!(
                opcodes
                    .iter()
                    .map(|t| (t.addend, t.sites.clone()))
                    .collect::<Vec<_>>(),
                [
                    (0, vec![site(0)]),
                    (0, vec![]),
                    (0, vec![site(1), site(2)]),
                    (0, vec![site(3)]),
                    (8, vec![site(4)]),
                ]
            );
            // A strong override shares its target's name: made once, or the definition's.
            assert_eq!(strong[0].copy_id(), copy(&opcodes[3]), "{n}");
            assert_eq!(strong[1].copy_id(), of(2), "{n}");
        }
    }

    fn other_absolute() -> OtherExports {
        let mut o = OtherExports::default();
        o.push(b"_absolute", None);
        o
    }

    #[test]
    fn weak_addresses_answer_as_their_set_does_whatever_the_filter_says() {
        // Addresses as a linker lays functions out (16-byte aligned, one __TEXT), some sharing
        // a filter slot with addresses not in the set.
        let base = 0x1_0000_0000u64;
        let weak: Vec<WeakDefinition> = (0..5000u64)
            .map(|i| WeakDefinition {
                name: Name::from(format!("__Z1fILi{i}EEvv")),
                thread_local: false,
                address: Some(base + 0x1000 + i * 48),
            })
            .collect();
        let mut other = OtherExports::default();
        other.push(b"__Znwm", Some(base + 0x10));
        let none = WeakAddresses::new(&[], &other_absolute());
        assert!(!none.contains(base + 0x1000));
        other.push(b"_absolute", None);
        let w = WeakAddresses::new(&weak, &other);
        let set: std::collections::HashSet<u64> = weak
            .iter()
            .filter_map(|d| d.address)
            .chain([base + 0x10])
            .collect();
        let mut let_through = 0;
        for a in (base..base + 0x1000 + 5000 * 48 + 64).step_by(16) {
            assert_eq!(w.contains(a), set.contains(&a), "{a:#x}");
            let s = WeakAddresses::slot(a);
            let_through += usize::from(w.filter[s / 64] & (1 << (s % 64)) != 0);
        }
        // The filter turns most of the other addresses away (here a third are in the set).
        assert!(let_through < 15_000 * 2 / 3, "{let_through}");
        assert_eq!(w.at(base + 0x10).collect::<Vec<_>>(), [Export::Other(0)]);
        assert_eq!(w.entries.len(), 5001);
    }
}
