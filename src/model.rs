//! The one model every input becomes: per image (a slice of a Mach-O file, or an image named in
//! a dyld log), its weak definitions, its weak-bind targets with their fixup sites, and its
//! weak-def lookups — predicted from a binary, or seen in a log.
//!
//! A log records less than a binary holds (no export trie, no header), and what it records
//! depends on the dyld that wrote it; [`Source`] says which figures an image has, and each
//! figure accessor returns `None` for a figure its input cannot give.
//!
//! How each figure is derived, with the dyld functions it follows, is in `docs/figures.md`
//! (binaries) and `docs/logs.md` (logs).

use serde::Serialize;
use std::sync::Arc;

/// A symbol, path or image name: shared, immutable text. Cloning one is a reference-count
/// bump, so every target, lookup and supplier naming the same symbol shares one copy of it
/// (readers intern names: one allocation per distinct name of an input). A thin pointer
/// (8 bytes, `Option<Name>` too): a weak-bind target and its lookup each hold one or two.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Name(Arc<Box<str>>);

impl Name {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Which copy of its text this name shares: the address of the shared copy, read from the
    /// name itself (no load from the heap: a cache miss when the names were just made on another
    /// thread), a key that costs an 8-byte hash where the text would cost ~100 bytes. Readers
    /// share one copy of a name between a weak-bind target, its lookups and its weak
    /// definition, so a table keyed by copy hashes each text once per copy. Clones of one name
    /// have one id; two names made apart have two, whatever their texts (two keys with the same
    /// answer). Valid while the name is borrowed (the id of a freed name may be reused).
    pub fn copy_id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(Arc::new(s.into()))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(Arc::new(s.into_boxed_str()))
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Self {
        Name::from(s.as_str())
    }
}

impl From<Name> for String {
    fn from(n: Name) -> Self {
        n.as_str().to_string()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self.as_str(), f)
    }
}

impl Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// `MH_EXECUTE`.
pub const MH_EXECUTE: u32 = 0x2;
/// `MH_DYLIB`.
pub const MH_DYLIB: u32 = 0x6;
/// `MH_BUNDLE`.
pub const MH_BUNDLE: u32 = 0x8;
/// `MH_WEAK_DEFINES`: the image exports weak definitions.
pub const MH_WEAK_DEFINES: u32 = 0x8000;
/// `MH_BINDS_TO_WEAK`: the image binds to weak symbols.
pub const MH_BINDS_TO_WEAK: u32 = 0x10000;

/// dyld's `sTreatAsWeak` (dyld-1231.3 `common/MachOFile.cpp`): operator new/delete names that a
/// main executable with `MH_WEAK_DEFINES` may define strongly to override the libc++ ones.
/// 20 names up to dyld-1066; dyld-1122 (macOS 14) added the two `__type_descriptor_t` ones.
pub const TREAT_AS_WEAK: [&str; 22] = [
    "__Znwm",
    "__ZnwmRKSt9nothrow_t",
    "__Znam",
    "__ZnamRKSt9nothrow_t",
    "__ZdlPv",
    "__ZdlPvRKSt9nothrow_t",
    "__ZdlPvm",
    "__ZdaPv",
    "__ZdaPvRKSt9nothrow_t",
    "__ZdaPvm",
    "__ZnwmSt11align_val_t",
    "__ZnwmSt11align_val_tRKSt9nothrow_t",
    "__ZnamSt11align_val_t",
    "__ZnamSt11align_val_tRKSt9nothrow_t",
    "__ZdlPvSt11align_val_t",
    "__ZdlPvSt11align_val_tRKSt9nothrow_t",
    "__ZdlPvmSt11align_val_t",
    "__ZdaPvSt11align_val_t",
    "__ZdaPvSt11align_val_tRKSt9nothrow_t",
    "__ZdaPvmSt11align_val_t",
    "__ZnwmSt19__type_descriptor_t",
    "__ZnamSt19__type_descriptor_t",
];

/// Where an image's binds are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FixupFormat {
    /// `LC_DYLD_INFO(_ONLY)` bind opcode streams.
    Opcodes,
    /// `LC_DYLD_CHAINED_FIXUPS`.
    Chained,
    /// Neither (e.g. a static or object-like image).
    None,
}

impl FixupFormat {
    /// `opcodes`, `chained` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            FixupFormat::Opcodes => "opcodes",
            FixupFormat::Chained => "chained",
            FixupFormat::None => "none",
        }
    }
}

/// A weak definition exported by the image (export-trie flag `WEAK_DEFINITION`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeakDefinition {
    /// Raw symbol name (`__ZN…`).
    pub name: Name,
    /// Kind is `THREAD_LOCAL` (llvm-objdump prints `[weak_def, per-thread]`).
    pub thread_local: bool,
    /// Its unslid vm address (the trie's offset from the mach header plus the `__TEXT` vm
    /// address); `None` for a re-export, an absolute symbol, or an image with no segment at
    /// file offset 0.
    pub address: Option<u64>,
}

/// The exports of an image that are not weak definitions: regular, thread-local, absolute and
/// resolver entries of the export trie (re-exports are not the image's own and are left out),
/// in trie order. What hiding their objects would also take away
/// ([`crate::analysis::fix_plan`]).
///
/// Compact: a Node.js build has ~53k of them, so the names are one text of raw bytes (as the
/// trie holds them; [`OtherExports::name`] escapes one to a line as [`Name`]s are) and export
/// `i` is the `i`th name and address; ~100 bytes each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OtherExports {
    /// Every raw name, one after another.
    text: Vec<u8>,
    /// Where each name ends in `text`.
    ends: Vec<u32>,
    /// Each one's unslid vm address, as [`WeakDefinition::address`]; [`NO_ADDRESS`] for an
    /// absolute symbol or an image with no segment at file offset 0.
    addresses: Vec<u64>,
}

/// [`OtherExports`]'s address of an export that has none.
pub const NO_ADDRESS: u64 = u64::MAX;

impl OtherExports {
    /// Appends an export (its raw name).
    ///
    /// # Panics
    /// When the names pass 4 GiB (an export trie is far smaller: LINKEDIT sizes are 32-bit).
    pub fn push(&mut self, name: &[u8], address: Option<u64>) {
        self.text.extend_from_slice(name);
        self.ends
            .push(u32::try_from(self.text.len()).expect("export names under 4 GiB"));
        self.addresses.push(address.unwrap_or(NO_ADDRESS));
    }

    /// Appends all of `other`'s exports.
    pub fn extend(&mut self, other: OtherExports) {
        let base = self.text.len() as u32;
        self.text.extend_from_slice(&other.text);
        self.ends.extend(other.ends.iter().map(|e| e + base));
        self.addresses.extend(other.addresses);
    }

    /// Frees spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.addresses.shrink_to_fit();
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// None.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The raw bytes of export `i`'s name (`i < len`).
    pub fn name_bytes(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// The name of export `i` (`i < len`), escaped to one line as [`Name`]s are
    /// ([`crate::text::escape_bytes`]).
    pub fn name(&self, i: usize) -> std::borrow::Cow<'_, str> {
        crate::text::escape_bytes_cow(self.name_bytes(i))
    }

    /// The address of export `i`, if it has one.
    pub fn address(&self, i: usize) -> Option<u64> {
        Some(self.addresses[i]).filter(|&a| a != NO_ADDRESS)
    }

    /// Each export's name, in order ([`OtherExports::name`]).
    pub fn names(&self) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
        (0..self.len()).map(|i| self.name(i))
    }
}

/// One fixup site: a location that dyld writes the bound address into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Vm address of the location: unslid for a binary, as printed (slid) for a log.
    pub address: u64,
    /// Index of the segment holding it (`None` for a log: dyld prints only the address).
    pub segment_index: Option<u32>,
}

/// A weak-bind target: one symbol (+ addend) that dyld resolves with a weak-def lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindTarget {
    /// Raw symbol name.
    pub symbol: Name,
    /// Addend.
    pub addend: i64,
    /// The locations bound to it (may be empty for a chained import no chain uses).
    pub sites: Vec<Site>,
    /// The same image exports a weak definition of `symbol`: a leaked instantiation that the
    /// image binds to itself through dyld (the expensive case). Otherwise it is defined
    /// elsewhere (e.g. operator new in libc++). For a log: dyld bound it to this image.
    pub defined_here: bool,
    /// Log only: leaf name of the image dyld bound it to (`None` when unresolved or unknown).
    pub supplier: Option<Name>,
}

/// Why dyld makes a weak-def lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LookupReason {
    /// A weak-bind target of the image (opcode target or chained import with ordinal -3).
    BindTarget,
    /// `forEachBindTarget_ChainedFixups` appends the treat-as-weak names as extra targets for a
    /// chained main executable with `MH_WEAK_DEFINES`.
    TreatAsWeakTarget,
    /// `JustInTimeLoader::handleStrongWeakDefOverrides` resolves each treat-as-weak name once
    /// for a main executable with `MH_WEAK_DEFINES`.
    StrongOverrideCheck,
}

/// One predicted "looking for weak-def symbol" line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// Raw symbol name looked up.
    pub symbol: Name,
    /// Why.
    pub reason: LookupReason,
    /// Log only: full path of the image whose definition dyld chose (`None` when none was
    /// found, and for predictions).
    pub supplier: Option<Name>,
}

/// Which dyld wrote a log, as far as its lines tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    /// dyld2 (macOS 11 and earlier): `dyld: … bind: …` lines, no lookup lines.
    Dyld2,
    /// dyld4 with no `looking for weak-def symbol` lines: macOS 12–14 (dyld-940 … 1165.3
    /// hard-code `verboseWeak = false`), or a later dyld in a process with no weak lookups.
    Dyld4NoLookups,
    /// dyld4 with lookup lines (dyld-1231.3+, macOS 15).
    Dyld4,
    /// dyld4 with dyld-1323.3's `<%s/%s>)` bind lines (macOS 26).
    Dyld4Macos26,
}

impl LogFormat {
    /// A short description for people.
    pub fn describe(self) -> &'static str {
        match self {
            LogFormat::Dyld2 => "dyld2 (macOS 11 or earlier)",
            LogFormat::Dyld4NoLookups => "dyld4 without lookup lines (macOS 12-14)",
            LogFormat::Dyld4 => "dyld4 (macOS 15)",
            LogFormat::Dyld4Macos26 => "dyld4 (macOS 26)",
        }
    }
}

/// What a log says about itself (shared by every image read from it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LogFacts {
    /// Lines in the file.
    pub lines: u64,
    /// dyld lines of the process read (recognized or not).
    pub dyld_lines: u64,
    /// dyld lines of the process read whose message weakscan does not know.
    pub unrecognized_dyld_lines: u64,
    /// Lines of other processes (other PIDs).
    pub other_process_lines: u64,
    /// Lines that are the program's own output (no dyld prefix), including the program
    /// output found before a dyld prefix on the same line.
    pub program_output_lines: u64,
    /// Lines that ended in CRLF.
    pub crlf_lines: u64,
    /// Lines with invalid UTF-8.
    pub invalid_utf8_lines: u64,
    /// Lines longer than the reader keeps (cut).
    pub oversized_lines: u64,
    /// The last line had no newline (the log was cut).
    pub truncated_last_line: bool,
    /// Result lines (`  using …`) with no open lookup block.
    pub orphan_result_lines: u64,
    /// `weak-bind#N` fixup lines with no bind target N to belong to.
    pub unattributed_weak_fixups: u64,
    /// Lookups followed by no bind line of their symbol (the main executable's strong
    /// override checks).
    pub lookups_without_bind: u64,
    /// Images of the process read with bind lines but no weak binds or lookups (listed, with
    /// their lines).
    pub images_without_weak_binds: u64,
    /// `Symbol not found: …` launch errors (the process did not start).
    pub symbols_not_found: u64,
    /// `symbol '…' missing from root` warnings.
    pub missing_from_root: u64,
    /// The forms of the recognized lines of the process read, with the dyld versions that
    /// print each.
    pub forms: Vec<FormLines>,
    /// The dyld versions that print every form of [`LogFacts::forms`]; `None` when no line is
    /// recognized, or when no one dyld prints them all (lines of several dylds).
    pub dyld: Option<String>,
    /// The processes seen, in order of appearance, with their dyld line counts (at most
    /// [`MAX_LISTED_PIDS`]; dyld2 lines have no PID and are listed as `null`).
    pub pids: Vec<PidLines>,
    /// Processes seen beyond the listed ones.
    pub more_pids: u64,
}

/// One form of dyld line a log has, with the dyld versions that print it (`docs/logs.md` lists
/// every form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FormLines {
    /// Its name: `bind_angle`, `fixup_10_16`, ….
    pub form: &'static str,
    /// Its format string, as dyld's source has it.
    pub format: &'static str,
    /// The dyld versions that print it: `dyld-1323.3 and later (macOS 26.0 and later)`.
    pub dyld: String,
    /// Lines of the process read in this form.
    pub lines: u64,
}

/// Processes listed in [`LogFacts::pids`] at most.
pub const MAX_LISTED_PIDS: usize = 256;

/// One process in a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PidLines {
    /// Its PID (`None` for dyld2 lines).
    pub pid: Option<u32>,
    /// Its dyld lines.
    pub lines: u64,
}

/// Where an image was read from, and so which figures it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A Mach-O file: every figure except seen lookups.
    Binary,
    /// An object file or static archive, before linking: only weak-def exports (an upper
    /// bound of the linked image's; see `macho::object`).
    Object,
    /// A dyld log.
    Log(LogSource),
}

/// What part an image plays in the process a log shows, from the order dyld fixed the images
/// up in (`dyldMain.cpp` applies the fixups of `state.loaded` in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LogRole {
    /// The main executable.
    Main,
    /// Fixed up before the main executable: a `DYLD_INSERT_LIBRARIES` dylib. dyld moves the
    /// inserted libraries ahead of the main executable in `state.loaded` "for correct flat
    /// namespace lookups" (dyld-1378 DyldRuntimeState.cpp:677 `RuntimeState::loadInsertedLibraries`,
    /// from dyld-1284.13; dyld-940 … 1245 in dyldMain.cpp `prepare()`, :638 in 1231.3), so they
    /// are fixed up, and searched for weak definitions, first.
    Inserted,
    /// Fixed up after the main executable: a dependency, or an image loaded later (`dlopen`, a
    /// lazy-load dylib on its first use).
    Loaded,
}

impl LogRole {
    /// `main executable`, `inserted` or `loaded`.
    pub fn describe(self) -> &'static str {
        match self {
            LogRole::Main => "main executable",
            LogRole::Inserted => "inserted (DYLD_INSERT_LIBRARIES)",
            LogRole::Loaded => "loaded",
        }
    }
}

/// How the main executable of a log was told from the other images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MainBy {
    /// Its bind targets end with the 22 treat-as-weak names, which
    /// `forEachBindTarget_ChainedFixups` appends for a main executable only.
    AppendedTreatAsWeak,
    /// The first image fixed up whose name is not a library's (`.dylib`, `.so`, `.bundle`, or
    /// inside a `.framework`): images before it are inserted dylibs.
    NotALibrary,
    /// The first image fixed up (every image's name looks like a library's).
    FirstFixedUp,
    /// Chosen by name: `verify`'s binary (its file name, install name or path), or `--image`.
    Named,
    /// No image is fixed up in the log: a placeholder that holds the lookups no bind line
    /// follows.
    Unnamed,
}

impl MainBy {
    /// Why this image is the main executable, for people.
    pub fn describe(self) -> &'static str {
        match self {
            MainBy::AppendedTreatAsWeak => {
                "its bind targets end with the treat-as-weak names dyld appends for a main executable"
            }
            MainBy::NotALibrary => {
                "the first image fixed up that is not a library; the ones before it are inserted"
            }
            MainBy::FirstFixedUp => "the first image fixed up",
            MainBy::Named => "chosen by name",
            MainBy::Unnamed => "no image is fixed up in the log",
        }
    }
}

impl ImageLines {
    /// `12 bind, 40 fixup, 2 page-in` (kinds with none left out; `none` when empty).
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            (self.bind, "bind"),
            (self.fixup, "fixup"),
            (self.page_in, "page-in"),
            (self.dyld2_bind, "dyld2 bind"),
        ]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// The lines a log prints for one image (its own: naming it, or following its bind lines).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImageLines {
    /// `<image/bind#N> -> …` lines.
    pub bind: u64,
    /// `fixup: …` lines (the ones naming no image are counted for the image whose bind or
    /// page-in lines came last).
    pub fixup: u64,
    /// `Setting up kernel page-in linking for …` and its range lines.
    pub page_in: u64,
    /// dyld2 `dyld: … bind: …` lines.
    pub dyld2_bind: u64,
}

/// An image as a dyld log shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSource {
    /// Which dyld wrote it.
    pub format: LogFormat,
    /// The process read (`None` for dyld2).
    pub pid: Option<u32>,
    /// Main executable, inserted dylib, or loaded after the main executable.
    pub role: LogRole,
    /// For the main executable: how it was told.
    pub main_by: Option<MainBy>,
    /// Its position among the images the log fixes up (0: the first); `None` for the
    /// placeholder of a log that fixes up no image.
    pub fixup_order: Option<u32>,
    /// Its full path, when the log prints one: the page-in line, else a `using … in PATH` line
    /// whose leaf is the image's name.
    pub image_path: Option<Name>,
    /// Its own lines.
    pub lines: ImageLines,
    /// Bind lines that name another symbol than the lookup before them: the name found in the
    /// target image through a renamed re-export (`Loader::hasExportedSymbol`). Their targets
    /// carry the looked-up name.
    pub renamed_binds: u64,
    /// The log tells this image's weak-bind targets from its regular ones.
    pub targets_known: bool,
    /// The log shows each weak-bind location (opcode images' `weak-bind#` fixup lines, dyld2
    /// `weak bind:` lines); chained images applied by page-in linking show none.
    pub sites_known: bool,
    /// The log has lookup lines (dyld4 from macOS 15).
    pub lookups_known: bool,
    /// File-level facts, shared by every image of the log (one allocation, however many
    /// images the log names).
    pub facts: std::sync::Arc<LogFacts>,
}

/// How an image links a dylib: the kind of its load command (`<mach-o/loader.h>`). dyld4 loads
/// all four the same way (`JustInTimeLoader::loadDependents`); a missing weak one is skipped.
/// The attributes dyld acts on are [`LinkedDylib::attributes`]: in a `dylib_use_command` they
/// come from its `flags`, not from this kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DylibLink {
    /// `LC_LOAD_DYLIB`.
    Regular,
    /// `LC_LOAD_WEAK_DYLIB`: may be missing.
    Weak,
    /// `LC_REEXPORT_DYLIB`.
    Reexport,
    /// `LC_LOAD_UPWARD_DYLIB`.
    Upward,
}

impl DylibLink {
    /// The load command's name (`LC_LOAD_WEAK_DYLIB`, …).
    pub fn load_command(self) -> &'static str {
        match self {
            DylibLink::Regular => "LC_LOAD_DYLIB",
            DylibLink::Weak => "LC_LOAD_WEAK_DYLIB",
            DylibLink::Reexport => "LC_REEXPORT_DYLIB",
            DylibLink::Upward => "LC_LOAD_UPWARD_DYLIB",
        }
    }

    /// The attributes the command's kind alone gives (dyld-1378 mach_o/UnsafeHeader.cpp
    /// `UnsafeHeader::loadCommandToDylibKind`, for a command that is not a `dylib_use_command`).
    pub fn attributes(self) -> DylibAttributes {
        DylibAttributes::from_flags(
            match self {
                DylibLink::Regular => 0,
                DylibLink::Weak => DylibAttributes::WEAK_LINK,
                DylibLink::Reexport => DylibAttributes::REEXPORT,
                DylibLink::Upward => DylibAttributes::UPWARD,
            }
            .into(),
        )
    }
}

/// How an image uses one dependency: dyld's `LinkedDylibAttributes` (dyld-1378
/// mach_o/UnsafeHeader.h), one bit each, as in the `flags` of a `dylib_use_command`
/// (`DYLIB_USE_WEAK_LINK` 0x01, `DYLIB_USE_REEXPORT` 0x02, `DYLIB_USE_UPWARD` 0x04,
/// `DYLIB_USE_DELAYED_INIT` 0x08; bits 4–7 are padding and ignored, as dyld reads the flags as
/// one byte).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DylibAttributes(u8);

impl DylibAttributes {
    /// `DYLIB_USE_WEAK_LINK`: the dylib may be missing.
    pub const WEAK_LINK: u8 = 0x01;
    /// `DYLIB_USE_REEXPORT`: its exports are the image's (`LC_REEXPORT_DYLIB`).
    pub const REEXPORT: u8 = 0x02;
    /// `DYLIB_USE_UPWARD`: `LC_LOAD_UPWARD_DYLIB`.
    pub const UPWARD: u8 = 0x04;
    /// `DYLIB_USE_DELAYED_INIT`: loaded and bound at launch, initialised on first use.
    pub const DELAYED_INIT: u8 = 0x08;

    /// From a `dylib_use_command`'s `flags` (only the four known bits are kept).
    pub fn from_flags(flags: u32) -> Self {
        DylibAttributes((flags & 0x0f) as u8)
    }

    /// The attributes dyld acts on: `JustInTimeLoader::loadDependents` (dyld-1378) "fix[es]
    /// illegal combinations of dylib attributes": a re-export is never delay-init nor
    /// weak-linked.
    pub fn effective(self) -> Self {
        if self.reexport() {
            DylibAttributes(self.0 & !(Self::DELAYED_INIT | Self::WEAK_LINK))
        } else {
            self
        }
    }

    /// May be missing.
    pub fn weak_link(self) -> bool {
        self.0 & Self::WEAK_LINK != 0
    }
    /// Re-exported.
    pub fn reexport(self) -> bool {
        self.0 & Self::REEXPORT != 0
    }
    /// Upward.
    pub fn upward(self) -> bool {
        self.0 & Self::UPWARD != 0
    }
    /// Delay-init.
    pub fn delay_init(self) -> bool {
        self.0 & Self::DELAYED_INIT != 0
    }

    /// The attributes set, as snake_case words (`weak_link`, `reexport`, `upward`,
    /// `delay_init`), in bit order.
    pub fn names(self) -> Vec<&'static str> {
        [
            (Self::WEAK_LINK, "weak_link"),
            (Self::REEXPORT, "reexport"),
            (Self::UPWARD, "upward"),
            (Self::DELAYED_INIT, "delay_init"),
        ]
        .into_iter()
        .filter(|&(bit, _)| self.0 & bit != 0)
        .map(|(_, name)| name)
        .collect()
    }
}

/// One dependency of an image, in load-command order (its index + 1 is its library ordinal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedDylib {
    /// The `dylib.name` of the `dylib_command`: an absolute path or one starting with
    /// `@rpath/`, `@loader_path/` or `@executable_path/` (escaped as one line, see
    /// [`crate::text`]).
    pub install_name: String,
    /// Which load command.
    pub link: DylibLink,
    /// Written as a `struct dylib_use_command` (its `marker` 0x1a741800 where a `dylib_command`
    /// has its timestamp, `nameoff` 28): the attributes are its `flags`, whatever the command.
    pub use_command: bool,
    /// The attributes as written: the `flags` of a `dylib_use_command`, else those of the
    /// command's kind ([`DylibLink::attributes`]).
    pub attributes: DylibAttributes,
}

/// A dylib an image lazy-loads: one `LC_LAZY_LOAD_DYLIB_INFO` (0x3A, macOS 26.4+,
/// dyld-1376.6). Not a dylib load command: `forEachLinkedDylib` does not return it, so dyld
/// neither loads it at launch nor searches it for weak definitions then; `_dyld_lazy_load`
/// (dyld-1378 DyldAPIs.cpp:4301) `dlopen`s it on the first call into it and binds the listed
/// symbols with a two-level lookup, not weak coalescing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LazyLoadDylib {
    /// The path dyld loads it by (`@rpath/…`, an absolute path …), escaped as one line.
    pub load_path: String,
    /// `flags` bit 0: it may be missing ("weak linked").
    pub weak_link: bool,
    /// How many symbols the image binds to it on first use.
    pub symbols: u32,
}

/// What dyld needs to find an image's dependencies: from its load commands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Linkage {
    /// `LC_ID_DYLIB`'s name (a dylib's install name), if any.
    pub install_name: Option<String>,
    /// `LC_LOAD_DYLIB`, `LC_LOAD_WEAK_DYLIB`, `LC_REEXPORT_DYLIB` and `LC_LOAD_UPWARD_DYLIB`, in
    /// order.
    pub dylibs: Vec<LinkedDylib>,
    /// `LC_RPATH` paths, in order.
    pub rpaths: Vec<String>,
    /// `LC_LAZY_LOAD_DYLIB_INFO` dylibs, in order: not loaded at launch.
    pub lazy_dylibs: Vec<LazyLoadDylib>,
}

/// What a report's image was read from: JSON `input_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// A Mach-O binary (a slice of it).
    Binary,
    /// An object file or static archive.
    Object,
    /// A `DYLD_PRINT_BINDINGS` log.
    Log,
    /// A whole process, its images merged (`check`, `baseline`, `trend`).
    Process,
}

impl InputKind {
    /// The JSON value.
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Binary => "binary",
            InputKind::Object => "object",
            InputKind::Log => "log",
            InputKind::Process => "process",
        }
    }
}

/// One image: a thin file, one slice of a universal file, or one image named in a dyld log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// The file it was read from.
    pub path: String,
    /// Leaf name of the image: the file name, or the name dyld prints in a log.
    pub name: String,
    /// `x86_64`, `arm64`, `arm64e`, … (`None` for a log).
    pub arch: Option<String>,
    /// Mach header `filetype` (`None` for a log).
    pub filetype: Option<u32>,
    /// Mach header `flags` (`None` for a log).
    pub flags: Option<u32>,
    /// Where binds are encoded (`None` when a log does not tell).
    pub fixup_format: Option<FixupFormat>,
    /// Weak definitions in the export trie, in trie order.
    pub weak_definitions: Vec<WeakDefinition>,
    /// The export trie's other own exports (not weak definitions, not re-exports), in trie
    /// order; empty for a log, an object or a merged process.
    pub other_exports: OtherExports,
    /// Weak-bind targets, in dyld's target order.
    pub bind_targets: Vec<BindTarget>,
    /// Names the opcode weak-bind stream announces as strong overrides (no lookup).
    pub strong_overrides: Vec<Name>,
    /// Binary: every predicted weak-def lookup when this image is the main executable (see
    /// `docs/figures.md`). Log: every lookup seen for this image.
    pub lookups: Vec<Lookup>,
    /// Binary or log.
    pub source: Source,
    /// Where the image's symbols were compiled: from its debug map, or a link map, dSYM or the
    /// object files themselves. `None` when nothing tells (a stripped binary, a log).
    pub attribution: Option<Box<Attribution>>,
    /// `LC_UUID` of a binary, if it has one (a dSYM must have the same).
    pub uuid: Option<[u8; 16]>,
    /// A linked image's install name, dependencies and rpaths (`None` for a log or an object).
    pub linkage: Option<Box<Linkage>>,
}

/// Where an [`Attribution`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AttributionSource {
    /// The image's own stabs (`N_OSO`/`N_SO`, see `macho::debug_map`).
    DebugMap,
    /// A link map given with `--map`.
    LinkMap,
    /// A dSYM given with `--dsym`: compile units, not object files.
    Dsym,
    /// The input is an object file or a static archive: each symbol's own member.
    Object,
}

impl AttributionSource {
    /// `debug map`, `link map`, `dSYM` or `object files`: for sentences.
    pub fn describe(self) -> &'static str {
        match self {
            AttributionSource::DebugMap => "debug map",
            AttributionSource::LinkMap => "link map",
            AttributionSource::Dsym => "dSYM",
            AttributionSource::Object => "object files",
        }
    }
}

/// One object file (or, from a dSYM, one compile unit) that symbols were linked from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectOrigin {
    /// The object as the linker named it: `/…/libfoo.a(foo.o)` for an archive member, a path
    /// for a loose object; for a dSYM compile unit, its source path.
    pub path: Name,
    /// Its source file as recorded (`N_SO`, `DW_AT_comp_dir` + `DW_AT_name`), not normalized;
    /// `None` when unknown (link maps).
    pub source: Option<Name>,
}

/// Raw symbol name → object number. foldhash, randomly seeded: the keys are long symbol names
/// that SipHash would spend most of a lookup on, and an unkeyed hash (FxHash) lets a file whose
/// names were chosen to collide make every insertion scan all the others (quadratic time).
pub type SymbolObjects = foldhash::HashMap<Name, u32>;

/// [`Attribution::other_exports`]' entry of an export the source does not name.
pub const NO_OBJECT: u32 = u32::MAX;

impl Attribution {
    /// The object of the image's other export `i`, if the source names it.
    pub fn other_export_object(&self, i: usize) -> Option<u32> {
        self.other_exports
            .get(i)
            .copied()
            .filter(|&o| o != NO_OBJECT)
    }
}

/// Where each symbol of an image comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribution {
    /// What told.
    pub from: AttributionSource,
    /// The objects, numbered as [`Attribution::symbols`] refers to them.
    pub objects: Vec<ObjectOrigin>,
    /// Raw symbol name → object number, for the image's weak-bind targets and weak
    /// definitions that the source names (the first entry wins when it names one twice).
    pub symbols: SymbolObjects,
    /// Per export of [`Image::other_exports`], in its order, the object number of the ones
    /// the source names ([`NO_OBJECT`] for the others); empty when the source was not asked.
    pub other_exports: Vec<u32>,
    /// Entries of the source that named no object (stray stabs, runs without `N_OSO`), for
    /// the report: nothing is dropped silently.
    pub unplaced: u64,
    /// Every definition of the image's weak symbols in the objects the source names, as far
    /// as they could be read ([`crate::origin::definers`]); `None` when they were not looked
    /// for.
    pub definers: Option<Box<Definers>>,
    /// Per object, in [`Attribution::objects`]' order, how it was compiled as the build's
    /// compile database tells (`--compile-commands`); `None` for an object with no unique entry
    /// or whose options cannot be told. Empty when no database was given.
    pub compiled: Vec<Option<CompiledAs>>,
}

/// The visibility options one object was compiled with, as clang applies them to a Darwin
/// target ([`crate::origin::compile_db::visibility_of`]). What the fix plan needs to know of a
/// compilation: a change of flags can only hide what the flags in place did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompiledAs {
    /// Functions and variables are hidden unless marked otherwise (`-fvisibility=hidden` or
    /// `internal`, `-fvisibility-ms-compat`): a weak definition the object still exports is
    /// marked `visibility("default")` in its source (its own, its class's or its namespace's
    /// attribute, or a `#pragma GCC visibility push(default)`).
    pub hidden: bool,
    /// `-fvisibility-inlines-hidden` is in effect.
    pub inlines_hidden: bool,
    /// `-fvisibility-inlines-hidden-static-local-var` is in effect: Darwin's default, off with
    /// `-fno-visibility-inlines-hidden-static-local-var`.
    pub static_local_var: bool,
}

/// Every library that defines each of an image's weak symbols, read from the objects its
/// attribution names (on disk, or given with `--objects`), and whether each definition is
/// hidden (`N_PEXT`, or auto-hide). A weak symbol stays exported unless every definition of
/// it is hidden (ld64-956.6 `NameCollisionResolution::pickBetweenRegularAtoms`; lld/MachO
/// `SymbolTable::addDefined`, `privateExtern &= isPrivateExtern`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Definers {
    /// The library keys (archive file name, or a loose object's file name), numbered as
    /// [`Definers::symbols`] refers to them.
    pub libraries: Vec<String>,
    /// Raw name → the libraries with a definition of it that is not hidden, ascending, each
    /// once. Only the image's weak definitions and weak-bound names defined here; a name
    /// absent has no such definition in the objects read.
    pub symbols: foldhash::HashMap<Name, Vec<u32>>,
    /// Objects the attribution names.
    pub objects: usize,
    /// Of those, the ones read.
    pub read: usize,
    /// Of those, the ones found nowhere (not at their path, not among `--objects`).
    pub not_on_disk: usize,
    /// Of those, the ones found but not readable as objects of the image's arch (LLVM
    /// bitcode, another arch, malformed): their definitions are unknown.
    pub unreadable: usize,
    /// The first object not read, as the attribution names it (for the message).
    pub first_missing: Option<String>,
}

impl Definers {
    /// Every object the attribution names was read: the definitions are all known.
    pub fn complete(&self) -> bool {
        self.objects > 0 && self.read == self.objects
    }
}

impl Image {
    /// Every raw symbol name the image carries, with repeats: its weak-bind targets, weak
    /// definitions and lookups (what demangling and baselines cover).
    pub fn symbol_names(&self) -> impl Iterator<Item = &str> {
        self.symbol_name_copies().map(Name::as_str)
    }

    /// [`Image::symbol_names`], as the shared copies the image holds.
    pub fn symbol_name_copies(&self) -> impl Iterator<Item = &Name> {
        self.bind_targets
            .iter()
            .map(|t| &t.symbol)
            .chain(self.weak_definitions.iter().map(|w| &w.name))
            .chain(self.lookups.iter().map(|l| &l.symbol))
    }

    /// The log it was read from, if any.
    pub fn log(&self) -> Option<&LogSource> {
        match &self.source {
            Source::Binary | Source::Object => None,
            Source::Log(l) => Some(l),
        }
    }

    /// Read from a dyld log.
    pub fn is_log(&self) -> bool {
        self.log().is_some()
    }

    /// What the image was read from ([`InputKind::Process`] is for a whole process merged).
    pub fn input_kind(&self) -> InputKind {
        match self.source {
            Source::Binary => InputKind::Binary,
            Source::Object => InputKind::Object,
            Source::Log(_) => InputKind::Log,
        }
    }

    /// The arch, or for a log the image name: what `diff` pairs images by.
    pub fn label(&self) -> &str {
        self.arch.as_deref().unwrap_or(&self.name)
    }

    /// Export-trie terminals with `WEAK_DEFINITION` (thread-local ones included); `None` for
    /// a log.
    pub fn weak_def_exports(&self) -> Option<usize> {
        (!self.is_log()).then_some(self.weak_definitions.len())
    }

    /// Weak-bind targets are known (always for a binary, never before linking).
    pub fn targets_known(&self) -> bool {
        match &self.source {
            Source::Binary => true,
            Source::Object => false,
            Source::Log(l) => l.targets_known,
        }
    }

    /// Weak-bind locations are known (always for a binary, never before linking).
    pub fn sites_known(&self) -> bool {
        match &self.source {
            Source::Binary => true,
            Source::Object => false,
            Source::Log(l) => l.sites_known,
        }
    }

    /// Locations bound by weak binds.
    pub fn weak_bind_sites(&self) -> Option<usize> {
        self.sites_known()
            .then(|| self.bind_targets.iter().map(|t| t.sites.len()).sum())
    }

    /// Weak-bind targets (dyld's count: one per symbol and addend).
    pub fn weak_bind_targets(&self) -> Option<usize> {
        self.targets_known().then_some(self.bind_targets.len())
    }

    /// Distinct symbol names among the weak-bind targets.
    pub fn weak_bind_symbols(&self) -> Option<usize> {
        self.targets_known()
            .then(|| distinct(self.bind_targets.iter().map(|t| t.symbol.as_str())))
    }

    /// The "looking for weak-def symbol" lines dyld4 (macOS 15) prints when this image is the
    /// main executable; `None` for a log.
    pub fn predicted_weak_lookups(&self) -> Option<usize> {
        matches!(self.source, Source::Binary).then_some(self.lookups.len())
    }

    /// The lookup lines a log shows for this image; `None` for a binary, or a log without
    /// lookup lines.
    pub fn seen_weak_lookups(&self) -> Option<usize> {
        self.log()
            .filter(|l| l.lookups_known)
            .map(|_| self.lookups.len())
    }

    /// Predicted lookups for a binary, seen ones for a log: the lookups figure of groups.
    pub fn weak_lookups(&self) -> Option<usize> {
        match &self.source {
            Source::Binary => Some(self.lookups.len()),
            Source::Object => None,
            Source::Log(_) => self.seen_weak_lookups(),
        }
    }

    /// The distinct symbol names of the weak-bind targets, counted three ways in one pass (each
    /// text hashed once, where [`Image::weak_bind_symbols`] and
    /// [`Image::defined_here_symbols`] each hash every one): all of them, those defined here,
    /// and those `counted` says yes to (called once per distinct name). Whether the targets
    /// are known is not asked (see [`Image::targets_known`]).
    pub fn bound_symbol_counts(&self, counted: impl Fn(&str) -> bool) -> BoundSymbolCounts {
        let mut seen: foldhash::HashMap<&str, bool> = foldhash::HashMap::with_capacity_and_hasher(
            self.bind_targets.len(),
            Default::default(),
        );
        for t in &self.bind_targets {
            *seen.entry(t.symbol.as_str()).or_default() |= t.defined_here;
        }
        BoundSymbolCounts {
            all: seen.len(),
            defined_here: seen.values().filter(|&&here| here).count(),
            counted: seen.keys().filter(|n| counted(n)).count(),
        }
    }

    /// Distinct weak-bound symbols that this image also exports as weak definitions (for a
    /// log: that dyld bound to this image).
    pub fn defined_here_symbols(&self) -> Option<usize> {
        self.targets_known().then(|| {
            distinct(
                self.bind_targets
                    .iter()
                    .filter(|t| t.defined_here)
                    .map(|t| t.symbol.as_str()),
            )
        })
    }

    /// `MH_EXECUTE`.
    pub fn is_main_executable(&self) -> bool {
        self.filetype == Some(MH_EXECUTE)
    }

    /// `MH_EXECUTE`, `MH_DYLIB`, `MH_BUNDLE` or `filetype 0x…`; `None` for a log.
    pub fn filetype_name(&self) -> Option<String> {
        Some(match self.filetype? {
            MH_EXECUTE => "MH_EXECUTE".into(),
            0x1 => "MH_OBJECT".into(),
            MH_DYLIB => "MH_DYLIB".into(),
            MH_BUNDLE => "MH_BUNDLE".into(),
            other => goblin::mach::header::filetype_to_str(other).to_string(),
        })
    }

    /// Names of the set header flags, lowest bit first (`MH_NOUNDEFS`, `MH_DYLDLINK`, …);
    /// `None` for a log.
    pub fn flag_names(&self) -> Option<Vec<String>> {
        let flags = self.flags?;
        Some(
            (0..32)
                .map(|bit| 1u32 << bit)
                .filter(|f| flags & f != 0)
                .map(|f| match goblin::mach::header::flag_to_str(f) {
                    "UNKNOWN FLAG" => format!("{f:#x}"),
                    name => name.trim().to_string(),
                })
                .collect(),
        )
    }
}

/// The distinct names among `names`: by hash, not by sorting (a Node.js build's 5k weak-bound
/// names share long prefixes, which every comparison of a sort reads again).
/// What [`Image::bound_symbol_counts`] counts: distinct symbol names of the weak-bind targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundSymbolCounts {
    /// All of them ([`Image::weak_bind_symbols`]).
    pub all: usize,
    /// Those bound by a target defined here ([`Image::defined_here_symbols`]).
    pub defined_here: usize,
    /// Those the caller's test said yes to.
    pub counted: usize,
}

fn distinct<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    let mut seen: foldhash::HashSet<&str> = Default::default();
    names.filter(|n| seen.insert(n)).count()
}

/// Builds the predicted lookups of an image from its bind targets, following dyld-1231.3:
/// one per bind target; for a main executable with `MH_WEAK_DEFINES`, the 22 treat-as-weak
/// names once more (`handleStrongWeakDefOverrides`), and for chained fixups once more again
/// (`forEachBindTarget_ChainedFixups`).
pub fn predict_lookups(
    filetype: u32,
    flags: u32,
    fixup_format: FixupFormat,
    bind_targets: &[BindTarget],
) -> Vec<Lookup> {
    // Sized from the targets read (plus the two treat-as-weak runs), so it is allocated once.
    let mut lookups: Vec<Lookup> = Vec::with_capacity(bind_targets.len() + 2 * TREAT_AS_WEAK.len());
    lookups.extend(bind_targets.iter().map(|t| Lookup {
        symbol: t.symbol.clone(),
        reason: LookupReason::BindTarget,
        supplier: None,
    }));
    if filetype == MH_EXECUTE && flags & MH_WEAK_DEFINES != 0 {
        let mut extra = |reason| {
            lookups.extend(TREAT_AS_WEAK.iter().map(|s| Lookup {
                symbol: Name::from(*s),
                reason,
                supplier: None,
            }))
        };
        if fixup_format == FixupFormat::Chained {
            extra(LookupReason::TreatAsWeakTarget);
        }
        extra(LookupReason::StrongOverrideCheck);
    }
    lookups
}

#[cfg(test)]
impl Image {
    /// An empty x86_64 main executable at `a`, for unit tests to fill in.
    pub(crate) fn bare() -> Image {
        Image {
            path: "a".into(),
            name: "a".into(),
            arch: Some("x86_64".into()),
            filetype: Some(MH_EXECUTE),
            flags: Some(0),
            fixup_format: Some(FixupFormat::Opcodes),
            weak_definitions: Vec::new(),
            other_exports: OtherExports::default(),
            bind_targets: Vec::new(),
            strong_overrides: Vec::new(),
            lookups: Vec::new(),
            source: Source::Binary,
            attribution: None,
            uuid: None,
            linkage: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_id_is_the_copy_not_the_text() {
        let a = Name::from("__Z1fv");
        let b = Name::from("__Z1fv");
        assert_eq!(a.copy_id(), a.clone().copy_id());
        assert_ne!(a.copy_id(), b.copy_id());
        // Empty texts share their (dangling) address; their names are still two copies.
        let (e, f) = (Name::from(""), Name::from(""));
        assert_ne!(e.copy_id(), f.copy_id());
    }

    fn target(name: &str) -> BindTarget {
        BindTarget {
            symbol: name.into(),
            addend: 0,
            sites: vec![],
            defined_here: false,
            supplier: None,
        }
    }

    #[test]
    fn lookups_follow_dyld_rules() {
        let t = [target("_a"), target("_b")];
        let exe_weak = MH_WEAK_DEFINES;
        assert_eq!(
            predict_lookups(MH_EXECUTE, exe_weak, FixupFormat::Opcodes, &t).len(),
            2 + 22
        );
        assert_eq!(
            predict_lookups(MH_EXECUTE, exe_weak, FixupFormat::Chained, &t).len(),
            2 + 44
        );
        assert_eq!(
            predict_lookups(MH_EXECUTE, 0, FixupFormat::Chained, &t).len(),
            2
        );
        assert_eq!(
            predict_lookups(MH_DYLIB, exe_weak, FixupFormat::Chained, &t).len(),
            2
        );
    }

    #[test]
    fn bound_symbol_counts_are_the_distinct_counts_in_one_pass() {
        // One symbol with two addends (one target defined here), one twice as two copies of
        // its text, one defined here only.
        let here = |name: &str, addend: i64| BindTarget {
            addend,
            defined_here: true,
            ..target(name)
        };
        let image = Image {
            bind_targets: vec![
                target("__Z1av"),
                here("__Z1av", 8),
                target("__Z1bv"),
                target("__Z1bv"),
                here("__Z1cv", 0),
            ],
            ..Image::bare()
        };
        let counts = image.bound_symbol_counts(|n| n != "__Z1bv");
        assert_eq!(
            counts,
            BoundSymbolCounts {
                all: 3,
                defined_here: 2,
                counted: 2
            }
        );
        assert_eq!(image.weak_bind_symbols(), Some(counts.all));
        assert_eq!(image.defined_here_symbols(), Some(counts.defined_here));
    }
}
