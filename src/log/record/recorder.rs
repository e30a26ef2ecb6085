//! The messages of the process read, recorded as they come: lookup blocks and the bind line
//! that closes each, bind lines in runs (each `bind#0` starts one), the sites of `fixup:`
//! lines, and dyld2's weak binds (see the [module docs](super) for the order dyld prints
//! them in).

use super::intern::{Id, Interner};
use super::pids::Processes;
use crate::log::line::{
    BindTo, Dyld2BindKind, FixupKind, FormCounts, Message, find_embedded, form_of, parse_message,
    split_prefix,
};
use crate::model::{ImageLines, LogFacts, TREAT_AS_WEAK};
use std::collections::HashMap;

/// No dyld2 target yet for a symbol.
pub(super) const NO_TARGET: u32 = u32::MAX;

/// One bind line.
pub(super) struct BindRec {
    pub(super) index: u64,
    /// `None` for a prebuilt loader's line (no symbol printed).
    pub(super) symbol: Option<Id>,
    /// Leaf name of the image bound to (`None`: `<none>`, missing, or prebuilt).
    pub(super) library: Option<Id>,
    /// Preceded by the lookup block of its symbol.
    pub(super) via_lookup: bool,
    /// `missing-weak-bind (%s)`.
    pub(super) missing: bool,
    /// Locations from `<image/weak-bind#N>` fixup lines.
    pub(super) sites: Vec<u64>,
    /// Named by at least one `weak-bind#N` fixup line.
    pub(super) weak_fixup: bool,
    /// Printed `-> %p (%s/%s)` or `-> missing-weak-bind (%s)`: from dyld-1323.3 only opcode
    /// weak-bind targets are (JustInTimeLoader.cpp:835, :842 at dyld-1378).
    pub(super) paren: bool,
}

/// What the log says of one image.
#[derive(Default)]
pub(super) struct ImageBuild {
    /// Bind lines in runs; each `bind#0` starts a run (regular targets, then override ones).
    pub(super) runs: Vec<Vec<BindRec>>,
    /// `<rebase>`, `<image/bind#N>` or `weak-bind#N` fixup lines: an opcode image.
    pub(super) opcode_fixups: bool,
    /// `weak-bind#N` fixup lines seen.
    pub(super) weak_fixup_lines: bool,
    /// Page-in linking or plain `fixup:` lines: a chained image.
    pub(super) chained: bool,
    /// dyld2 weak binds: symbol → index of its first target ([`NO_TARGET`]: none)…
    pub(super) dyld2_first: Vec<u32>,
    /// …and (symbol, addend) → target index for the targets of a symbol after its first (a
    /// symbol bound with several addends).
    pub(super) dyld2_more: HashMap<(Id, i64), u32>,
    /// dyld2 weak-bind targets: symbol, addend, library bound to.
    pub(super) dyld2_list: Vec<(Id, i64, Option<Id>)>,
    /// dyld2 weak-bind locations, in log order: target index, address (one flat list, not a
    /// list per target).
    pub(super) dyld2_sites: Vec<(u32, u64)>,
    /// Any dyld2 bind line.
    pub(super) dyld2: bool,
    /// Its own lines (any makes it an image the log fixes up).
    pub(super) lines: ImageLines,
    /// Its full path, from its page-in line.
    pub(super) path: Option<Id>,
    /// Bind lines that name another symbol than the lookup block before them.
    pub(super) renamed: u64,
}

impl ImageBuild {
    /// The log prints lines of its own for it.
    pub(super) fn fixed_up(&self) -> bool {
        let l = &self.lines;
        l.bind + l.fixup + l.page_in + l.dyld2_bind > 0
    }
}

/// One lookup block.
pub(super) struct LookupRec {
    pub(super) symbol: Id,
    /// Full path of the chosen definition's image.
    pub(super) supplier: Option<Id>,
    /// The image it was made for (`None`: decided at the end).
    pub(super) image: Option<usize>,
    /// Followed by its bind line.
    pub(super) bound: bool,
}

/// Everything recorded of the process read, and the counts of the lines of the whole log.
pub(super) struct Recorder {
    pub(super) processes: Processes,
    pub(super) facts: LogFacts,
    pub(super) symbols: Interner,
    pub(super) paths: Interner,
    pub(super) image_names: Interner,
    pub(super) images: Vec<ImageBuild>,
    /// The image whose bind or page-in lines came last (plain `fixup:` lines and page-in
    /// range lines name none).
    current: Option<usize>,
    /// The images in the order their first own line came: the order dyld fixes them up in.
    pub(super) order: Vec<usize>,
    /// A bind line of the process has been read: lookups after it are no longer
    /// `handleStrongWeakDefOverrides`' checks.
    binds_seen: bool,
    pending: Option<LookupRec>,
    pub(super) lookups: Vec<LookupRec>,
    pub(super) lookup_lines: bool,
    /// Lines of each form.
    pub(super) forms: FormCounts,
}

impl Recorder {
    /// Nothing recorded yet; `want` is the PID to read (default: the first process seen).
    pub(super) fn new(want: Option<u32>) -> Self {
        Recorder {
            processes: Processes::new(want),
            facts: LogFacts::default(),
            symbols: Interner::default(),
            paths: Interner::default(),
            image_names: Interner::default(),
            images: Vec::new(),
            current: None,
            order: Vec::new(),
            binds_seen: false,
            pending: None,
            lookups: Vec::new(),
            lookup_lines: false,
            forms: FormCounts::default(),
        }
    }

    /// One line of the log (without its terminator).
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        // Only the process read has its message parsed.
        if let Some((writer, rest)) = split_prefix(bytes) {
            if self.processes.count(writer, &mut self.facts) {
                match parse_message(writer, rest) {
                    Some(m) => {
                        self.forms.add(form_of(writer, rest, &m));
                        self.handle(m)
                    }
                    None => self.facts.unrecognized_dyld_lines += 1,
                }
            }
            return;
        }
        self.facts.program_output_lines += 1;
        if let Some((writer, rest, message)) = find_embedded(bytes)
            && self.processes.count(writer, &mut self.facts)
        {
            self.forms.add(form_of(writer, rest, &message));
            self.handle(message);
        }
    }

    /// The slot of image `name`; every interned name has a slot (libraries too).
    pub(super) fn image(&mut self, name: &[u8]) -> usize {
        let id = self.image_names.id(name) as usize;
        self.pad_images();
        id
    }

    fn pad_images(&mut self) {
        while self.images.len() < self.image_names.names.len() {
            self.images.push(ImageBuild::default());
        }
    }

    /// Image `i` prints a line of its own: the first one places it in the fixup order.
    fn own_line(&mut self, i: usize) -> &mut ImageLines {
        if !self.images[i].fixed_up() {
            self.order.push(i);
        }
        &mut self.images[i].lines
    }

    pub(super) fn close_lookup(&mut self) {
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
                self.close_lookup();
                let leaf = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
                let i = self.image(leaf);
                let path = self.paths.id(path);
                self.current = Some(i);
                self.own_line(i).page_in += 1;
                let img = &mut self.images[i];
                img.chained = true;
                img.path.get_or_insert(path);
            }
            Message::PageInRange => {
                if let Some(i) = self.current {
                    self.own_line(i).page_in += 1;
                }
            }
            Message::PageInFallback { path } => {
                let leaf = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
                let i = self.image(leaf);
                self.own_line(i).page_in += 1;
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
                self.own_line(i).dyld2_bind += 1;
                self.images[i].dyld2 = true;
                if kind == Dyld2BindKind::Weak {
                    self.dyld2_weak_bind(i, address, library, symbol, addend);
                }
            }
            Message::CachePatch | Message::Dyld2WeakSetAllUses { .. } | Message::Dyld2WeakOther => {
            }
        }
    }

    /// A dyld2 `weak bind:` line of image `i`: one site of the target (symbol, addend), which
    /// is added at its first site.
    fn dyld2_weak_bind(
        &mut self,
        i: usize,
        address: u64,
        library: &[u8],
        symbol: &[u8],
        addend: i64,
    ) {
        let symbol = self.symbols.id(symbol);
        let library = (library != b"<missing weak_import>").then(|| self.image_names.id(library));
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

    fn bind(&mut self, image: &[u8], index: u64, to: BindTo<'_>) {
        let i = self.image(image);
        self.current = Some(i);
        self.own_line(i).bind += 1;
        let paren = matches!(
            to,
            BindTo::Resolved {
                angle_form: false,
                ..
            } | BindTo::MissingWeak { .. }
        );
        let (symbol, library, missing) = match to {
            BindTo::Resolved {
                library, symbol, ..
            } => {
                let lib = (library != b"<none>").then_some(library);
                (Some(symbol), lib, false)
            }
            BindTo::Variant {
                library, symbol, ..
            } => (Some(symbol), Some(library), false),
            BindTo::MissingWeak { symbol } => (Some(symbol), None, true),
            BindTo::Prebuilt => (None, None, false),
        };
        let mut symbol = symbol.map(|s| self.symbol_id(s));
        let library = library.map(|l| self.image_names.id(l));
        self.pad_images();
        let mut via_lookup = false;
        if let Some(mut l) = self.pending.take() {
            if symbol.is_some() && Some(l.symbol) == symbol {
                via_lookup = true;
            } else if symbol.is_some() && !self.override_check(l.symbol) {
                // The lookup block of a target is printed right before its bind line, which
                // names the symbol found in the target image: another name when a renamed
                // re-export led there (`Loader::hasExportedSymbol`). The target is the name
                // looked up, as the binary imports it.
                via_lookup = true;
                symbol = Some(l.symbol);
                self.images[i].renamed += 1;
            }
            if via_lookup {
                l.image = Some(i);
                l.bound = true;
            }
            self.lookups.push(l);
        }
        self.binds_seen = true;
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
                paren,
            });
        }
    }

    /// Whether a lookup of `symbol` followed by a bind line of another symbol is one of
    /// `handleStrongWeakDefOverrides`' checks (a treat-as-weak name, before any bind line of
    /// the process: dyldMain.cpp runs them before the first image's fixups) rather than the
    /// lookup of a renamed target.
    fn override_check(&self, symbol: Id) -> bool {
        !self.binds_seen
            && TREAT_AS_WEAK
                .iter()
                .any(|n| n.as_bytes() == &*self.symbols.names[symbol as usize])
    }

    fn fixup(&mut self, address: u64, kind: FixupKind, image: &[u8], index: u64) {
        self.close_lookup();
        let i = match kind {
            FixupKind::Plain | FixupKind::Rebase | FixupKind::FunctionVariant | FixupKind::ObjC => {
                match self.current {
                    Some(i) => i,
                    None => return,
                }
            }
            _ => self.image(image),
        };
        self.own_line(i).fixup += 1;
        let img = &mut self.images[i];
        match kind {
            FixupKind::FunctionVariant | FixupKind::ObjC => {}
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
}

#[cfg(test)]
mod tests {
    use super::super::tests::read;
    use crate::model::{FixupFormat, LogFormat, LookupReason};

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
    fn regression_a_renamed_bind_was_taken_for_an_override_check() {
        // The lookup of a target whose definition a renamed re-export leads to is followed by a
        // bind line of the name found there, not the name looked up.
        let log = "\
dyld[7]: looking for weak-def symbol '__Znwm':
dyld[7]:   using '__Znwm' in /usr/lib/libc++abi.dylib
dyld[7]: <app/bind#0> -> 0x7ff800001000 (libSystem.B.dylib/_printf)
dyld[7]: looking for weak-def symbol '__ZdlPvm':
dyld[7]:   using '__ZdlPvm' in /usr/lib/libc++abi.dylib
dyld[7]: <app/bind#1> -> 0x7ff800002000 (libc++abi.dylib/__ZdlPv)
";
        let app = &read(log, None).unwrap()[0];
        assert_eq!(app.seen_weak_lookups(), Some(2));
        assert_eq!(app.log().unwrap().facts.lookups_without_bind, 1);
        let targets: Vec<(&str, Option<&str>)> = app
            .bind_targets
            .iter()
            .map(|t| (t.symbol.as_str(), t.supplier.as_deref()))
            .collect();
        assert_eq!(targets, [("__ZdlPvm", Some("libc++abi.dylib"))]);
        assert_eq!(app.lookups[1].reason, LookupReason::BindTarget);
        assert_eq!(app.log().unwrap().renamed_binds, 1);
    }

    #[test]
    fn the_last_override_check_is_not_the_first_bind_lines_lookup() {
        // An override check (a treat-as-weak name before any bind line) followed by the first
        // image's first bind line, a regular one, stays an override check.
        let log = "\
dyld[7]: looking for weak-def symbol '__ZnamSt19__type_descriptor_t':
dyld[7]: <app/bind#0> -> 0x7ff800001000 (libSystem.B.dylib/_printf)
";
        let app = &read(log, None).unwrap()[0];
        assert_eq!(app.lookups[0].reason, LookupReason::StrongOverrideCheck);
        assert_eq!(app.weak_bind_symbols(), Some(0));
        assert_eq!(app.log().unwrap().renamed_binds, 0);
    }

    #[test]
    fn regression_a_macos26_log_without_angle_bind_lines_was_named_macos15() {
        // An opcode image whose targets are all weak-bind targets prints no `<…/…>)` line; its
        // fixup lines' widths (`*0x%010lX = 0x%016lX`) still say dyld-1323.3.
        let log = "\
dyld[9]: looking for weak-def symbol '__Znwm':
dyld[9]:   using '__Znwm' in /usr/lib/libc++abi.dylib
dyld[9]: <app/bind#0> -> 0x7ff800002000 (libc++abi.dylib/__Znwm)
dyld[9]: fixup: *0x0100008000 = 0x00000001000080F0 <rebase>
dyld[9]: fixup: *0x0100008010 = 0x00007FF800002000 <app/weak-bind#0>
";
        let images = read(log, None).unwrap();
        let l = images[0].log().unwrap();
        assert_eq!(l.format, LogFormat::Dyld4Macos26);
        assert_eq!(
            l.facts.dyld.as_deref(),
            Some("dyld-1323.3 and later (macOS 26.0 and later)")
        );
        let forms: Vec<(&str, u64)> = l.facts.forms.iter().map(|f| (f.form, f.lines)).collect();
        assert_eq!(
            forms,
            [
                ("lookup_quoted", 1),
                ("result_quoted", 1),
                ("bind_paren", 1),
                ("fixup_10_16", 2)
            ]
        );
    }

    #[test]
    fn regression_macos26_weak_bind_targets_were_not_told_by_their_brackets() {
        // A dyld-1323.3 log kept to its bind and rebase lines (as people post them): the
        // `(…/…)` lines are the opcode image's weak-bind targets even in its first run.
        let log = "\
dyld[9]: <app/bind#0> -> 0x100004000 (app/__ZN1AIiE1fEv)
dyld[9]: <app/bind#1> -> 0x7ff800002000 (libc++abi.dylib/__Znwm)
dyld[9]: fixup: *0x0100008000 = 0x00000001000080F0 <rebase>
dyld[9]: <lib.dylib/bind#0> -> 0x7ff800001000 <libSystem.B.dylib/_printf>)
";
        let images = read(log, None).unwrap();
        assert_eq!(images[0].weak_bind_symbols(), Some(2));
        assert_eq!(images[0].defined_here_symbols(), Some(1));
        // An image with `<…/…>)` lines only and no lookup line: its weak binds are unknown.
        assert_eq!(images[1].weak_bind_symbols(), None);
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
}
