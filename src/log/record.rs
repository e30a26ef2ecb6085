//! From a log's lines to the model: one process, its images, their weak-bind targets, sites
//! and lookups.
//!
//! How dyld4 orders its output (dyld-1231.3) is what makes the attribution exact:
//!
//! * `JustInTimeLoader::handleStrongWeakDefOverrides` runs before any fixups: its lookups are
//!   followed by no bind line. They belong to the main executable.
//! * `Loader::resolveSymbol` prints the lookup block of a weak-bind target, and
//!   `JustInTimeLoader::applyFixups` then prints that target's bind line
//!   (`<image/bind#N> -> …`) naming the image. A lookup block followed by a bind line of the
//!   same symbol is that image's weak-bind target.
//! * For an opcode image the weak-bind ("override") targets are printed after the regular ones
//!   and restart at `bind#0`; `Loader::applyFixupsGeneric` then prints one
//!   `<image/weak-bind#N>` fixup line per weak-bind location. Logs without lookup lines
//!   (macOS 12–14) still give an opcode image's weak binds this way; a chained image's weak
//!   imports cannot be told from its regular ones there, and the figure is `None`.
//! * dyld2 prints one `dyld: weak bind: …` line per weak-bound location.
//!
//! Memory: the reader holds one line; other processes cost a counter; the process read costs
//! its distinct symbols, its bind targets and its weak-bind locations — what is reported.

use super::line::{
    BindTo, Dyld2BindKind, FixupKind, Message, Writer, find_embedded, parse_message, split_prefix,
    text,
};
use super::reader::LineReader;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{
    BindTarget, FixupFormat, Image, LogFacts, LogFormat, LogSource, Lookup, LookupReason,
    MAX_LISTED_PIDS, Name, PidLines, Site, Source, TREAT_AS_WEAK,
};
use rustc_hash::FxHashMap;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::rc::Rc;

/// Distinct PIDs tracked to count [`LogFacts::more_pids`]; beyond this the count is a lower
/// bound.
const MAX_TRACKED_PIDS: usize = 1 << 20;

/// Most images (bound images and libraries named as suppliers) one process may name. A launch
/// prints bind lines only for images outside the shared cache: hundreds, not thousands. Every
/// reported image carries the log's facts in JSON, so this also bounds the report's size.
pub const MAX_LOG_IMAGES: usize = 8192;

/// Reads the dyld log at `path`: the process `pid` (default: the first one seen).
///
/// Returns the images of that process with weak binds or lookups (the main executable, the
/// first image dyld fixes up, always). Errors (one line naming the file): unreadable file,
/// no dyld lines, or no lines of `pid` (usage error, listing the PIDs seen).
pub fn read_log(path: &Path, pid: Option<u32>) -> Result<Vec<Image>> {
    let file = File::open(path).map_err(|e| Error::io(path, &e))?;
    read_log_from(path, file, pid)
}

/// [`read_log`] on any reader; `path` names it in errors and in the images.
pub fn read_log_from(path: &Path, input: impl Read, pid: Option<u32>) -> Result<Vec<Image>> {
    let mut lines = LineReader::new(input);
    let mut rec = Recorder::new(pid);
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => return Err(Error::io(path, &e)),
        };
        rec.facts.lines += 1;
        rec.facts.crlf_lines += u64::from(line.crlf);
        rec.facts.oversized_lines += u64::from(line.oversized);
        if !line.terminated {
            rec.facts.truncated_last_line = true;
        }
        rec.facts.invalid_utf8_lines += u64::from(!line.utf8);
        rec.feed(line.bytes);
        // Caps are checked as the log is read: a log past one fails at once.
        if rec.image_names.names.len() > MAX_LOG_IMAGES {
            return Err(too_many_images(path, rec.image_names.names.len()));
        }
    }
    rec.finish(path, pid)
}

fn too_many_images(path: &Path, n: usize) -> Error {
    Error::new(
        ErrorKind::Malformed,
        path,
        format!(
            "the process names {n} images, more than the {MAX_LOG_IMAGES} weakscan reads (not a log of one launch?)"
        ),
    )
}

/// One symbol, path or image name, interned.
type Id = u32;

/// No dyld2 target yet for a symbol.
const NO_TARGET: u32 = u32::MAX;

/// Distinct names, each stored once (the map and the list share it).
#[derive(Default)]
struct Interner {
    ids: HashMap<Rc<[u8]>, Id>,
    names: Vec<Rc<[u8]>>,
}

impl Interner {
    fn id(&mut self, s: &[u8]) -> Id {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as Id;
        let name: Rc<[u8]> = s.into();
        self.names.push(name.clone());
        self.ids.insert(name, id);
        id
    }

    /// Every name as the model's text, by id, freeing the raw bytes as it goes: what the
    /// images share (one [`Name`] per distinct name, however many lines name it).
    fn into_names(self) -> Vec<Name> {
        drop(self.ids);
        self.names
            .into_iter()
            .map(|raw| Name::from(text(&raw)))
            .collect()
    }
}

/// One bind line.
struct BindRec {
    index: u64,
    /// `None` for a prebuilt loader's line (no symbol printed).
    symbol: Option<Id>,
    /// Leaf name of the image bound to (`None`: `<none>`, missing, or prebuilt).
    library: Option<Id>,
    /// Preceded by the lookup block of its symbol.
    via_lookup: bool,
    /// `missing-weak-bind (%s)`.
    missing: bool,
    /// Locations from `<image/weak-bind#N>` fixup lines.
    sites: Vec<u64>,
    /// Named by at least one `weak-bind#N` fixup line.
    weak_fixup: bool,
}

#[derive(Default)]
struct ImageBuild {
    /// Bind lines in runs; each `bind#0` starts a run (regular targets, then override ones).
    runs: Vec<Vec<BindRec>>,
    /// `<rebase>`, `<image/bind#N>` or `weak-bind#N` fixup lines: an opcode image.
    opcode_fixups: bool,
    /// `weak-bind#N` fixup lines seen.
    weak_fixup_lines: bool,
    /// Page-in linking or plain `fixup:` lines: a chained image.
    chained: bool,
    /// dyld2 weak binds: symbol → index of its first target ([`NO_TARGET`]: none)…
    dyld2_first: Vec<u32>,
    /// …and (symbol, addend) → target index for the targets of a symbol after its first (a
    /// symbol bound with several addends).
    dyld2_more: HashMap<(Id, i64), u32>,
    /// dyld2 weak-bind targets: symbol, addend, library bound to.
    dyld2_list: Vec<(Id, i64, Option<Id>)>,
    /// dyld2 weak-bind locations, in log order: target index, address (one flat list, not a
    /// list per target).
    dyld2_sites: Vec<(u32, u64)>,
    /// Any dyld2 bind line.
    dyld2: bool,
}

struct LookupRec {
    symbol: Id,
    /// Full path of the chosen definition's image.
    supplier: Option<Id>,
    /// The image it was made for (`None`: decided at the end).
    image: Option<usize>,
    /// Followed by its bind line.
    bound: bool,
}

struct Recorder {
    /// The process read: `Some(Some(pid))` dyld4, `Some(None)` dyld2.
    selected: Option<Option<u32>>,
    facts: LogFacts,
    /// Index in `facts.pids` of each listed PID. Looked up once per dyld line: FxHash, as it
    /// holds at most [`MAX_LISTED_PIDS`] keys (no costly collisions to choose).
    listed: FxHashMap<Option<u32>, usize>,
    /// The last two listed keys met, most recent first, with their index (see
    /// [`Recorder::listed_index`]).
    recent: [Option<(Option<u32>, usize)>; 2],
    /// PIDs past the listed ones (SipHash: up to [`MAX_TRACKED_PIDS`] keys a log chooses).
    tracked: HashSet<Option<u32>>,
    symbols: Interner,
    paths: Interner,
    image_names: Interner,
    images: Vec<ImageBuild>,
    /// The image whose bind lines came last (plain `fixup:` lines name none).
    current: Option<usize>,
    pending: Option<LookupRec>,
    lookups: Vec<LookupRec>,
    lookup_lines: bool,
    angle_form: bool,
}

impl Recorder {
    fn new(want: Option<u32>) -> Self {
        Recorder {
            selected: want.map(Some),
            facts: LogFacts::default(),
            listed: FxHashMap::default(),
            recent: [None; 2],
            tracked: HashSet::new(),
            symbols: Interner::default(),
            paths: Interner::default(),
            image_names: Interner::default(),
            images: Vec::new(),
            current: None,
            pending: None,
            lookups: Vec::new(),
            lookup_lines: false,
            angle_form: false,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        // Only the process read has its message parsed.
        if let Some((writer, rest)) = split_prefix(bytes) {
            if self.count_process(writer) {
                match parse_message(writer, rest) {
                    Some(m) => self.handle(m),
                    None => self.facts.unrecognized_dyld_lines += 1,
                }
            }
            return;
        }
        self.facts.program_output_lines += 1;
        if let Some((writer, message)) = find_embedded(bytes)
            && self.count_process(writer)
        {
            self.handle(message);
        }
    }

    /// Counts a dyld line for its process; true if it is the process read.
    fn count_process(&mut self, w: Writer) -> bool {
        let key = match w {
            Writer::Dyld4 { pid, .. } => Some(pid),
            Writer::Dyld2 => None,
        };
        match self.listed_index(key) {
            Some(i) => self.facts.pids[i].lines += 1,
            None if self.facts.pids.len() < MAX_LISTED_PIDS => {
                let i = self.facts.pids.len();
                self.listed.insert(key, i);
                self.recent = [Some((key, i)), self.recent[0]];
                self.facts.pids.push(PidLines { pid: key, lines: 1 });
            }
            None => {
                if self.tracked.len() < MAX_TRACKED_PIDS && self.tracked.insert(key) {
                    self.facts.more_pids += 1;
                }
            }
        }
        if self.selected.is_none() {
            self.selected = Some(key);
        }
        if self.selected == Some(key) {
            self.facts.dyld_lines += 1;
            true
        } else {
            self.facts.other_process_lines += 1;
            false
        }
    }

    /// The index of `key` in `facts.pids`, if listed. Called once per dyld line: the two
    /// processes met last are checked before the map (logs interleave a few processes at a
    /// time, so most lines are counted without hashing).
    fn listed_index(&mut self, key: Option<u32>) -> Option<usize> {
        match self.recent {
            [Some((k, i)), _] if k == key => Some(i),
            [other, Some((k, i))] if k == key => {
                self.recent = [Some((k, i)), other];
                Some(i)
            }
            _ => {
                let i = *self.listed.get(&key)?;
                self.recent = [Some((key, i)), self.recent[0]];
                Some(i)
            }
        }
    }

    /// The slot of image `name`; every interned name has a slot (libraries too).
    fn image(&mut self, name: &[u8]) -> usize {
        let id = self.image_names.id(name) as usize;
        self.pad_images();
        id
    }

    fn pad_images(&mut self) {
        while self.images.len() < self.image_names.names.len() {
            self.images.push(ImageBuild::default());
        }
    }

    fn close_lookup(&mut self) {
        if let Some(l) = self.pending.take() {
            self.lookups.push(l);
        }
    }

    /// A result line for `symbol`: the open lookup block, if it is that symbol's.
    fn open_lookup(&mut self, symbol: &[u8]) -> Option<&mut LookupRec> {
        if self.pending_symbol() == Some(symbol) {
            return self.pending.as_mut();
        }
        self.facts.orphan_result_lines += 1;
        None
    }

    /// The symbol of the open lookup block.
    fn pending_symbol(&self) -> Option<&[u8]> {
        let l = self.pending.as_ref()?;
        Some(&self.symbols.names[l.symbol as usize])
    }

    /// `symbol` interned. Result and bind lines name the symbol of the open lookup block: it
    /// is compared first, which saves hashing a long name and probing the map (far in memory
    /// once a process has 100k symbols) for most lines.
    fn symbol_id(&mut self, symbol: &[u8]) -> Id {
        match &self.pending {
            Some(l) if self.pending_symbol() == Some(symbol) => l.symbol,
            _ => self.symbols.id(symbol),
        }
    }

    fn handle(&mut self, m: Message<'_>) {
        match m {
            Message::LookupStart { symbol } => {
                self.close_lookup();
                self.lookup_lines = true;
                self.pending = Some(LookupRec {
                    symbol: self.symbols.id(symbol),
                    supplier: None,
                    image: None,
                    bound: false,
                });
            }
            Message::Using { symbol, path }
            | Message::UsingNonWeak { symbol, path }
            | Message::FoundInMap { symbol, path } => {
                let path = self.paths.id(path);
                if let Some(l) = self.open_lookup(symbol) {
                    // `using non-weak` replaces the first definition found.
                    l.supplier = Some(path);
                }
            }
            Message::TryingSelf { symbol, image } => {
                let image = self.image(image);
                if let Some(l) = self.open_lookup(symbol) {
                    l.image = Some(image);
                }
            }
            Message::CacheOverride { symbol, .. } => {
                self.open_lookup(symbol);
            }
            Message::Bind { image, index, to } => self.bind(image, index, to),
            Message::Fixup {
                address,
                kind,
                image,
                index,
            } => self.fixup(address, kind, image, index),
            Message::PageIn { path } => {
                let leaf = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
                let i = self.image(leaf);
                self.images[i].chained = true;
            }
            Message::MissingFromRoot { .. } => self.facts.missing_from_root += 1,
            Message::SymbolNotFound { .. } => self.facts.symbols_not_found += 1,
            Message::Dyld2Bind {
                kind,
                image,
                address,
                library,
                symbol,
                addend,
            } => {
                let i = self.image(image);
                self.images[i].dyld2 = true;
                if kind == Dyld2BindKind::Weak {
                    let symbol = self.symbols.id(symbol);
                    let library =
                        (library != b"<missing weak_import>").then(|| self.image_names.id(library));
                    // Interning the library may have added an image slot.
                    self.pad_images();
                    let img = &mut self.images[i];
                    // A target per location at most: fewer than 2^32 (each costs a line).
                    let next = img.dyld2_list.len() as u32;
                    let s = symbol as usize;
                    if img.dyld2_first.len() <= s {
                        img.dyld2_first.resize(s + 1, NO_TARGET);
                    }
                    let t = match img.dyld2_first[s] {
                        NO_TARGET => {
                            img.dyld2_first[s] = next;
                            next
                        }
                        t if img.dyld2_list[t as usize].1 == addend => t,
                        _ => *img.dyld2_more.entry((symbol, addend)).or_insert(next),
                    };
                    if t == next {
                        img.dyld2_list.push((symbol, addend, library));
                    }
                    img.dyld2_sites.push((t, address));
                }
            }
            Message::PageInRange
            | Message::CachePatch
            | Message::Dyld2WeakSetAllUses { .. }
            | Message::Dyld2WeakOther => {}
        }
    }

    fn bind(&mut self, image: &[u8], index: u64, to: BindTo<'_>) {
        let i = self.image(image);
        self.current = Some(i);
        let (symbol, library, missing) = match to {
            BindTo::Resolved {
                library,
                symbol,
                angle_form,
                ..
            } => {
                self.angle_form |= angle_form;
                let lib = (library != b"<none>").then_some(library);
                (Some(symbol), lib, false)
            }
            BindTo::Variant {
                library, symbol, ..
            } => (Some(symbol), Some(library), false),
            BindTo::MissingWeak { symbol } => (Some(symbol), None, true),
            BindTo::Prebuilt => (None, None, false),
        };
        let symbol = symbol.map(|s| self.symbol_id(s));
        let library = library.map(|l| self.image_names.id(l));
        self.pad_images();
        let mut via_lookup = false;
        if let Some(mut l) = self.pending.take() {
            if symbol.is_some() && Some(l.symbol) == symbol {
                l.image = Some(i);
                l.bound = true;
                via_lookup = true;
            }
            self.lookups.push(l);
        }
        let img = &mut self.images[i];
        if index == 0 || img.runs.is_empty() {
            img.runs.push(Vec::new());
        }
        if let Some(run) = img.runs.last_mut() {
            run.push(BindRec {
                index,
                symbol,
                library,
                via_lookup,
                missing,
                sites: Vec::new(),
                weak_fixup: false,
            });
        }
    }

    fn fixup(&mut self, address: u64, kind: FixupKind, image: &[u8], index: u64) {
        self.close_lookup();
        let i = match kind {
            FixupKind::Plain | FixupKind::Rebase => match self.current {
                Some(i) => i,
                None => return,
            },
            _ => self.image(image),
        };
        let img = &mut self.images[i];
        match kind {
            FixupKind::Plain => img.chained = true,
            FixupKind::Rebase | FixupKind::Bind => img.opcode_fixups = true,
            FixupKind::WeakBind | FixupKind::SkippedWeakBind => {
                img.opcode_fixups = true;
                img.weak_fixup_lines = true;
                // The override targets are the last run (the only one when the image has no
                // regular binds).
                let rec = img.runs.last_mut().and_then(|run| {
                    usize::try_from(index)
                        .ok()
                        .and_then(|k| run.get_mut(k))
                        .filter(|r| r.index == index)
                });
                match rec {
                    Some(r) => {
                        r.sites.push(address);
                        r.weak_fixup = true;
                    }
                    None => self.facts.unattributed_weak_fixups += 1,
                }
            }
        }
    }

    fn finish(mut self, path: &Path, pid: Option<u32>) -> Result<Vec<Image>> {
        self.close_lookup();
        if let Some(want) = pid
            .filter(|w| !self.listed.contains_key(&Some(*w)) && !self.tracked.contains(&Some(*w)))
        {
            let seen: Vec<String> = self
                .facts
                .pids
                .iter()
                .filter_map(|p| p.pid.map(|p| p.to_string()))
                .collect();
            return Err(Error::new(
                ErrorKind::Usage,
                path,
                if seen.is_empty() {
                    format!("no lines of PID {want}: the log has no dyld4 PIDs")
                } else {
                    format!("no lines of PID {want} (PIDs seen: {})", seen.join(", "))
                },
            ));
        }
        if self.facts.dyld_lines == 0 {
            return Err(Error::new(
                ErrorKind::Malformed,
                path,
                format!(
                    "no dyld lines in {} line{} (was DYLD_PRINT_BINDINGS=1 set?)",
                    self.facts.lines,
                    if self.facts.lines == 1 { "" } else { "s" }
                ),
            ));
        }
        if self.image_names.names.len() > MAX_LOG_IMAGES {
            return Err(too_many_images(path, self.image_names.names.len()));
        }
        let key = self.selected.flatten();
        let dyld2 = self.selected == Some(None);
        let format = if dyld2 {
            LogFormat::Dyld2
        } else if self.angle_form {
            LogFormat::Dyld4Macos26
        } else if self.lookup_lines {
            LogFormat::Dyld4
        } else {
            LogFormat::Dyld4NoLookups
        };
        let lookups_known = self.lookup_lines;
        // The main executable: the first image dyld fixes up.
        let main = self
            .images
            .iter()
            .position(|b| !b.runs.is_empty() || b.dyld2)
            .unwrap_or_else(|| self.image(b"(main executable)"));
        // The treat-as-weak targets `forEachBindTarget_ChainedFixups` appends after a chained
        // main executable's imports (bind# ≥ import count): the last 22 bind lines of the run,
        // in `sTreatAsWeak` order, each after its lookup. They are lookups, not weak binds of
        // the image's own (its imports with ordinal -3 are).
        let appended: Vec<usize> = self
            .images
            .iter()
            .map(|b| appended_treat_as_weak(b, &self.symbols))
            .collect();
        let symbols = std::mem::take(&mut self.symbols).into_names();
        let paths = std::mem::take(&mut self.paths).into_names();
        let image_names = std::mem::take(&mut self.image_names).into_names();
        let mut per_image: Vec<Vec<Lookup>> = {
            // Counted first, so each list is allocated once, at its size.
            let mut n = vec![0usize; self.images.len()];
            for l in &self.lookups {
                n[l.image.unwrap_or(main)] += 1;
            }
            n.into_iter().map(Vec::with_capacity).collect()
        };
        for l in std::mem::take(&mut self.lookups) {
            let i = l.image.unwrap_or(main);
            if !l.bound {
                self.facts.lookups_without_bind += 1;
            }
            per_image[i].push(Lookup {
                symbol: symbols[l.symbol as usize].clone(),
                reason: if l.bound {
                    LookupReason::BindTarget
                } else {
                    LookupReason::StrongOverrideCheck
                },
                supplier: l.supplier.map(|p| paths[p as usize].clone()),
            });
        }
        let mut images = Vec::new();
        for (i, lookups) in per_image.iter_mut().enumerate() {
            // The last bound lookup of each appended name is the appended target's.
            for name in TREAT_AS_WEAK.iter().take(appended[i]) {
                if let Some(l) = lookups
                    .iter_mut()
                    .rev()
                    .find(|l| l.reason == LookupReason::BindTarget && l.symbol == *name)
                {
                    l.reason = LookupReason::TreatAsWeakTarget;
                }
            }
        }
        // Each image's records are freed once its targets are built.
        let builds = std::mem::take(&mut self.images);
        for (i, (mut b, lookups)) in builds.into_iter().zip(per_image).enumerate() {
            let name = &image_names[i];
            let mut targets =
                Vec::with_capacity(b.runs.iter().map(Vec::len).sum::<usize>() + b.dyld2_list.len());
            for (r, run) in b.runs.iter().enumerate() {
                let own = if r + 1 == b.runs.len() {
                    run.len() - appended[i]
                } else {
                    run.len()
                };
                for rec in &run[..own] {
                    let weak = rec.via_lookup
                        || rec.missing
                        || rec.weak_fixup
                        || (!lookups_known && r >= 1);
                    let (true, Some(symbol)) = (weak, rec.symbol) else {
                        continue;
                    };
                    let supplier = rec.library.map(|l| image_names[l as usize].clone());
                    targets.push(BindTarget {
                        symbol: symbols[symbol as usize].clone(),
                        addend: 0,
                        sites: rec.sites.iter().map(|&a| log_site(a)).collect(),
                        defined_here: supplier.as_ref() == Some(name),
                        supplier,
                    });
                }
            }
            let run_count = b.runs.len();
            drop(std::mem::take(&mut b.runs));
            drop(std::mem::take(&mut b.dyld2_first));
            drop(std::mem::take(&mut b.dyld2_more));
            let mut site_counts = vec![0u32; b.dyld2_list.len()];
            for &(t, _) in &b.dyld2_sites {
                site_counts[t as usize] += 1;
            }
            let first = targets.len();
            for (&(symbol, addend, library), &n) in b.dyld2_list.iter().zip(&site_counts) {
                let supplier = library.map(|l| image_names[l as usize].clone());
                targets.push(BindTarget {
                    symbol: symbols[symbol as usize].clone(),
                    addend,
                    sites: Vec::with_capacity(n as usize),
                    defined_here: supplier.as_ref() == Some(name),
                    supplier,
                });
            }
            drop(site_counts);
            for &(t, address) in &b.dyld2_sites {
                targets[first + t as usize].sites.push(log_site(address));
            }
            drop(std::mem::take(&mut b.dyld2_sites));
            targets.shrink_to_fit();
            let targets_known =
                b.dyld2 || lookups_known || run_count >= 2 || b.opcode_fixups || b.weak_fixup_lines;
            let sites_known = b.dyld2 || b.opcode_fixups;
            if targets.is_empty() && lookups.is_empty() && i != main {
                if run_count > 0 || b.dyld2 {
                    self.facts.images_without_weak_binds += 1;
                }
                continue;
            }
            let fixup_format = if b.opcode_fixups {
                Some(FixupFormat::Opcodes)
            } else if b.chained {
                Some(FixupFormat::Chained)
            } else {
                None
            };
            images.push((
                i,
                Image {
                    path: crate::text::escape_path(path),
                    name: name.to_string(),
                    arch: None,
                    filetype: None,
                    flags: None,
                    fixup_format,
                    weak_definitions: Vec::new(),
                    bind_targets: targets,
                    strong_overrides: Vec::new(),
                    lookups,
                    source: Source::Log(LogSource {
                        format,
                        pid: key,
                        targets_known,
                        sites_known,
                        lookups_known,
                        facts: Default::default(),
                    }),
                    attribution: None,
                    uuid: None,
                    linkage: None,
                },
            ));
        }
        // Main executable first, then in order of appearance.
        images.sort_by_key(|(i, _)| (*i != main, *i));
        let facts = std::sync::Arc::new(self.facts);
        Ok(images
            .into_iter()
            .map(|(_, mut img)| {
                if let Source::Log(l) = &mut img.source {
                    l.facts = facts.clone();
                }
                img
            })
            .collect())
    }
}

/// How many treat-as-weak targets dyld appended to `b`'s last run: `TREAT_AS_WEAK.len()` when
/// the run ends with them, in order, each after its lookup, else 0.
fn appended_treat_as_weak(b: &ImageBuild, symbols: &Interner) -> usize {
    let Some(run) = b.runs.last() else {
        return 0;
    };
    let n = TREAT_AS_WEAK.len();
    if b.opcode_fixups || run.len() < n {
        return 0;
    }
    let tail = &run[run.len() - n..];
    let all = tail.iter().zip(TREAT_AS_WEAK).all(|(rec, want)| {
        rec.via_lookup
            && rec
                .symbol
                .is_some_and(|s| &*symbols.names[s as usize] == want.as_bytes())
    });
    if all { n } else { 0 }
}

fn log_site(address: u64) -> Site {
    Site {
        address,
        segment_index: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(log: &str, pid: Option<u32>) -> Result<Vec<Image>> {
        read_log_from(Path::new("t.log"), log.as_bytes(), pid)
    }

    const DYLD15: &str = "\
dyld[7]: looking for weak-def symbol '__Znwm':
dyld[7]:   using '__Znwm' in /usr/lib/libc++abi.dylib
dyld[7]: <app/bind#0> -> 0x7ff800001000 (libSystem.B.dylib/_printf)
dyld[7]: looking for weak-def symbol '__ZN1AIiE1fEv':
dyld[7]:   using '__ZN1AIiE1fEv' in /tmp/app
dyld[7]: <app/bind#1> -> 0x100004000 (app/__ZN1AIiE1fEv)
dyld[7]: looking for weak-def symbol '__ZdaPv':
dyld[7]: <app/bind#2> -> 0x0 (<none>/__ZdaPv)
";

    #[test]
    fn lookups_are_attributed_by_the_bind_line_that_follows() {
        let images = read(DYLD15, None).unwrap();
        assert_eq!(images.len(), 1);
        let app = &images[0];
        assert_eq!(app.name, "app");
        let log = app.log().unwrap();
        assert_eq!(log.format, LogFormat::Dyld4);
        assert_eq!(log.pid, Some(7));
        assert_eq!(app.seen_weak_lookups(), Some(3));
        assert_eq!(app.predicted_weak_lookups(), None);
        assert_eq!(app.weak_def_exports(), None);
        // Chained images show no sites.
        assert_eq!(app.weak_bind_sites(), None);
        let targets: Vec<(&str, Option<&str>, bool)> = app
            .bind_targets
            .iter()
            .map(|t| (t.symbol.as_str(), t.supplier.as_deref(), t.defined_here))
            .collect();
        assert_eq!(
            targets,
            [
                ("__ZN1AIiE1fEv", Some("app"), true),
                ("__ZdaPv", None, false)
            ]
        );
        assert_eq!(app.lookups[0].reason, LookupReason::StrongOverrideCheck);
        assert_eq!(
            app.lookups[0].supplier.as_deref(),
            Some("/usr/lib/libc++abi.dylib")
        );
        assert_eq!(app.lookups[1].reason, LookupReason::BindTarget);
        assert_eq!(log.facts.lookups_without_bind, 1);
    }

    #[test]
    fn opcode_images_without_lookup_lines_restart_at_bind_0() {
        let log = "\
dyld[9]: <app/bind#0> -> 0x7ff800001000 (libSystem.B.dylib/_printf)
dyld[9]: <app/bind#1> -> 0x7ff800002000 (libSystem.B.dylib/_puts)
dyld[9]: <app/bind#0> -> 0x100004000 (app/__ZN1AIiE1fEv)
dyld[9]: <app/bind#1> -> missing-weak-bind (__ZdaPv)
dyld[9]: fixup: *0x000100008000 = 0x000100008010 <rebase>
dyld[9]: fixup: *0x000100008008 = 0x7FF800001000 <app/bind#0>
dyld[9]: fixup: *0x000100008010 = 0x000100004000 <app/weak-bind#0>
dyld[9]: fixup: *0x000100008018 = 0x000100004000 <app/weak-bind#0>
dyld[9]: fixup: *0x000100008020 (skipping missing weak bind) <app/weak-bind#1>
dyld[9]: fixup: *0x000100008028 = 0x000100004000 <app/weak-bind#7>
";
        let images = read(log, None).unwrap();
        let app = &images[0];
        let l = app.log().unwrap();
        assert_eq!(l.format, LogFormat::Dyld4NoLookups);
        assert_eq!(app.seen_weak_lookups(), None);
        assert_eq!(app.weak_bind_symbols(), Some(2));
        assert_eq!(app.weak_bind_sites(), Some(3));
        assert_eq!(app.fixup_format, Some(FixupFormat::Opcodes));
        assert_eq!(l.facts.unattributed_weak_fixups, 1);
    }

    #[test]
    fn chained_images_without_lookup_lines_have_unknown_targets() {
        let log = "\
dyld[9]: Setting up kernel page-in linking for /tmp/app
dyld[9]: <app/bind#0> -> 0x7ff800001000 (libSystem.B.dylib/_printf)
dyld[9]: <app/bind#1> -> 0x100004000 (app/__ZN1AIiE1fEv)
";
        let app = &read(log, None).unwrap()[0];
        assert_eq!(app.weak_bind_symbols(), None);
        assert_eq!(app.weak_bind_sites(), None);
        assert_eq!(app.fixup_format, Some(FixupFormat::Chained));
    }

    #[test]
    fn processes_and_noise() {
        let log: &[u8] = b"program says hi\r\n\
dyld[7]: looking for weak-def symbol '__Znwm':\n\
dyld[8]: looking for weak-def symbol '__Znwm':\n\
dyld[7]: something dyld says that we do not know\n\
\x1b[1m\xff\n\
dyld[7]: <app/bind#0> -> 0x1 (libc++abi.dylib/__Znwm)\n\
dyld[7]: looking for weak-def symbol '__Zn";
        let bytes = log;
        let images = read_log_from(Path::new("t.log"), bytes, None).unwrap();
        let f = &images[0].log().unwrap().facts;
        assert_eq!(f.lines, 7);
        assert_eq!(f.crlf_lines, 1);
        assert_eq!(f.program_output_lines, 2);
        assert_eq!(f.other_process_lines, 1);
        // The cut last line is one of them.
        assert_eq!(f.unrecognized_dyld_lines, 2);
        assert!(f.truncated_last_line);
        assert_eq!(
            f.pids,
            [
                PidLines {
                    pid: Some(7),
                    lines: 4
                },
                PidLines {
                    pid: Some(8),
                    lines: 1
                }
            ]
        );
        let other = read_log_from(Path::new("t.log"), bytes, Some(8)).unwrap();
        assert_eq!(other[0].seen_weak_lookups(), Some(1));
        let err = read_log_from(Path::new("t.log"), bytes, Some(9)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Usage);
        assert!(err.to_string().contains("PIDs seen: 7, 8"), "{err}");
    }

    #[test]
    fn lookups_without_any_bind_line_belong_to_an_unnamed_main_executable() {
        // A log cut right after the strong-override checks.
        let log = "dyld[3]: looking for weak-def symbol '__Znwm':\n\
                   dyld[3]:   using '__Znwm' in /usr/lib/libc++abi.dylib\n\
                   dyld[3]: looking for weak-def symbol '__Znam':\n";
        let images = read(log, None).unwrap();
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].name, "(main executable)");
        assert_eq!(images[0].seen_weak_lookups(), Some(2));
        assert_eq!(images[0].weak_bind_symbols(), Some(0));
    }

    #[test]
    fn a_file_without_dyld_lines_is_an_error() {
        let err = read("hello\nworld\n", None).unwrap_err();
        assert!(
            err.to_string().contains("no dyld lines in 2 lines"),
            "{err}"
        );
    }

    #[test]
    fn dyld2_weak_binds() {
        let log = "\
dyld: bind: app:0x100008000 = libSystem.B.dylib:_printf, *0x100008000 = 0x7FF800001000
dyld: weak bind: app:0x100008010 = app:__ZN1AIiE1fEv, *0x100008010 = 0x100004000
dyld: weak bind: app:0x100008018 = app:__ZN1AIiE1fEv, *0x100008018 = 0x100004008 + 8
dyld: weak bind: app:0x100008020 = app:__ZN1AIiE1fEv, *0x100008020 = 0x100004000
";
        let app = &read(log, None).unwrap()[0];
        assert_eq!(app.log().unwrap().format, LogFormat::Dyld2);
        assert_eq!(app.log().unwrap().pid, None);
        assert_eq!(app.weak_bind_targets(), Some(2));
        assert_eq!(app.weak_bind_symbols(), Some(1));
        assert_eq!(app.weak_bind_sites(), Some(3));
        assert_eq!(app.seen_weak_lookups(), None);
    }

    /// The image cap is checked as lines are read: a log past it fails at the first line over
    /// it, before the rest of the file is read (here the rest is a reader that fails).
    #[test]
    fn the_image_cap_is_enforced_while_reading() {
        struct Unreadable;
        impl Read for Unreadable {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("read past the image cap"))
            }
        }
        let lines: String = (0..=MAX_LOG_IMAGES)
            .map(|i| format!("dyld[1]: <i{i}/bind#0> -> missing-weak-bind (__Z1fv)\n"))
            .collect();
        let e = read_log_from(Path::new("t.log"), lines.as_bytes().chain(Unreadable), None)
            .unwrap_err();
        assert!(
            e.message
                .ends_with("more than the 8192 weakscan reads (not a log of one launch?)"),
            "{e}"
        );
    }

    /// Fuzz-audit finding: 200k image names in a 10 MB log each carried the log's facts; the
    /// facts are now shared and a process may name at most MAX_LOG_IMAGES images.
    #[test]
    fn too_many_images_are_refused() {
        let lines = |n: usize| -> String {
            (0..n)
                .map(|i| format!("dyld[1]: <i{i}/bind#0> -> missing-weak-bind (__Z1fv)\n"))
                .collect()
        };
        let images = read(&lines(MAX_LOG_IMAGES), None).unwrap();
        assert!(images.len() > 1);
        let f = &images[0].log().unwrap().facts;
        assert!(
            images
                .iter()
                .all(|i| std::sync::Arc::ptr_eq(&i.log().unwrap().facts, f))
        );
        let e = read(&lines(MAX_LOG_IMAGES + 1), None).unwrap_err();
        assert!(
            e.message.ends_with(
                "the process names 8193 images, more than the 8192 weakscan reads (not a log of one launch?)"
            ),
            "{e}"
        );
    }
}
