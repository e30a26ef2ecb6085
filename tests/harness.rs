//! The fuzz harnesses: one function per parser, taking arbitrary bytes.
//!
//! The same file is compiled twice: into the cargo-fuzz targets in `fuzz/fuzz_targets/`
//! (through `#[path]`), and into the integration tests, which replay every committed finding in
//! `tests/regressions/<target>/` and every seed through it. A harness must never panic: it
//! accepts the input or gets a one-line error, and on success it checks what must hold of any
//! accepted input (the invariants below), so a parser that "succeeds" with an impossible answer
//! is a finding too.
//!
//! Only weakscan's public API, std, `arbitrary` and `serde_json` are used here, so both crates can
//! compile it (both depend on the last two).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use weakscan::analysis::attribute::{Origin, OriginLevel};
use weakscan::analysis::check::{CheckReport, EXAMPLES, Figure, ImageCheck, Kind};
use weakscan::analysis::demangle::{Demangled, Keys, NameStyle, demangle_all};
use weakscan::analysis::group::GroupBy;
use weakscan::analysis::imports::{ImporterCheck, Target, check_importer};
use weakscan::analysis::report::{
    DiffReport, ImageSummary, ScanReport, diff_report, pair_images, scan_report,
};
use weakscan::analysis::tally::tally;
use weakscan::analysis::verify::{VerifyReport, counted_differences, pick_log_image, verify};
use weakscan::gate::baseline::{Baseline, BaselineImage};
use weakscan::gate::budget::{Subject, evaluate};
use weakscan::gate::pattern::Pattern;
use weakscan::gate::policy::{GroupBudget, Increase, Policy, RuleSet};
use weakscan::macho::bind_opcodes::{MAX_BIND_LOCATIONS, SegmentBounds, parse_weak_binds};
use weakscan::macho::chained_fixups::{ChainedFixup, Visited, parse_chained_fixups, walk_chain};
use weakscan::macho::export_trie::{
    ExportTarget, MAX_NAME_BYTES_PER_TRIE_BYTE, MAX_NAME_EXTRA_BYTES, Split, walk_export_trie,
    walk_export_trie_split,
};
use weakscan::macho::imports::{ExportTrie, ImporterSlice, read_importer_from};
use weakscan::macho::lookup_budget::LookupBudget;
use weakscan::macho::{ArchFilter, MachOFile, read_bytes};
use weakscan::model::Image;

/// A harness: takes any bytes, panics only on a bug.
pub type Harness = fn(&[u8]);

/// The fuzz targets, by name (also the directory names under `fuzz/corpus` and
/// `tests/regressions`).
pub const TARGETS: [(&str, Harness); 18] = [
    ("export_trie", export_trie),
    ("bind_opcodes", bind_opcodes),
    ("chained_fixups", chained_fixups),
    ("macho", macho),
    ("log", log),
    ("demangle", demangle),
    ("policy", policy),
    ("baseline", baseline),
    ("pattern", pattern),
    ("cli", cli),
    ("render", render),
    ("pairs", pairs),
    ("debug_map", debug_map),
    ("link_map", link_map),
    ("compile_db", compile_db),
    ("archive", archive),
    ("dsym", dsym),
    ("printer", printer),
];

/// One error message must be one line.
fn one_line(message: &str) {
    assert!(
        !message.contains('\n'),
        "error is not one line: {message:?}"
    );
}

/// The export-trie walker on the whole input.
///
/// Invariants: every terminal takes at least one byte of the trie, so there are at most
/// `len` exports, and the names total at most `len × MAX_NAME_BYTES_PER_TRIE_BYTE +
/// MAX_NAME_EXTRA_BYTES` bytes (the parser's budget; the fixed part lets a small trie of shared
/// prefixes print more than 4 × its size, as a valid 994-byte trie does). The walk split into
/// as many parts as it will go ([`walk_export_trie_split`]) gives the same terminals in the
/// same order, or the same error.
pub fn export_trie(data: &[u8]) {
    let mut whole: Vec<(Vec<u8>, u64, ExportTarget)> = Vec::new();
    let result = walk_export_trie(data, |name, flags, target| {
        whole.push((name.to_vec(), flags, target))
    });
    match &result {
        Ok(()) => {
            assert!(
                whole.len() <= data.len(),
                "{} exports from {} bytes",
                whole.len(),
                data.len()
            );
            let name_bytes: usize = whole.iter().map(|(n, ..)| n.len()).sum();
            assert!(
                name_bytes <= data.len() * MAX_NAME_BYTES_PER_TRIE_BYTE + MAX_NAME_EXTRA_BYTES,
                "{name_bytes} name bytes from {} trie bytes",
                data.len()
            );
        }
        Err(e) => one_line(&e.to_string()),
    }
    if result.is_ok() {
        lookups_agree_with_the_walk(data, &whole);
        follow_reexports_in_a_ring(data, &whole);
    }
    // Split into as many parts as it will go, on the pool: the same terminals in the same
    // order, or the same error.
    let always = Split {
        min_bytes: 0,
        check_every: 1,
    };
    let split = weakscan::pool::install(|| {
        walk_export_trie_split(
            data,
            always,
            Vec::new,
            |part: &mut Vec<_>, name, flags, target| part.push((name.to_vec(), flags, target)),
        )
    })
    .expect("the pool starts");
    match (split, result) {
        (Ok(parts), Ok(())) => assert!(
            parts.into_iter().flatten().eq(whole),
            "the split walk's terminals differ from the whole walk's"
        ),
        (split, whole) => assert_eq!(split.map(|_| ()), whole, "split and whole walks differ"),
    }
}

/// dyld's lookup of one name ([`weakscan::macho::trie_lookup::lookup`]) on a trie the whole
/// walk accepted, for the first 64 names it reported and a few it did not: a terminal found is
/// one the walk reported under that name, with the same flags and re-export. (Not every name is
/// found: dyld takes the first edge that is a prefix of the name, and a trie not built by a
/// linker may have another edge first.) A lookup that ends walks at most the trie's bytes, and
/// at least 2 a node.
fn lookups_agree_with_the_walk(data: &[u8], whole: &[(Vec<u8>, u64, ExportTarget)]) {
    use weakscan::macho::trie_lookup::{Terminal, Visited, Walked, lookup_counting};
    let absent: [&[u8]; 3] = [b"", b"_", b"__ZN\xff"];
    let names = whole.iter().map(|(n, ..)| n.as_slice()).take(64);
    let mut visited = Visited::default();
    for name in names.chain(absent) {
        let mut walked = Walked::default();
        let result = lookup_counting(data, name, &mut walked, &mut visited);
        if result.is_ok() {
            assert!(
                walked.bytes <= data.len() as u64,
                "{walked:?} in {} bytes",
                data.len()
            );
            assert!(2 * walked.nodes <= walked.bytes, "{walked:?}");
        }
        let Some(found) = result.unwrap_or_else(|e| {
            one_line(&e.to_string());
            None
        }) else {
            continue;
        };
        let same = |(n, flags, target): &&(Vec<u8>, u64, ExportTarget)| {
            n == name
                && match (&found, target) {
                    (Terminal::Definition { .. }, ExportTarget::Reexport { .. }) => false,
                    (Terminal::Definition { flags: f }, _) => f == flags,
                    (
                        Terminal::Reexport {
                            library_ordinal,
                            import_name,
                            ..
                        },
                        ExportTarget::Reexport {
                            library_ordinal: o,
                            import_name: i,
                        },
                    ) => {
                        library_ordinal == o
                            && weakscan::macho::cursor::symbol_name(import_name) == *i
                    }
                    (Terminal::Reexport { .. }, _) => false,
                }
        };
        assert!(
            whole.iter().any(|e| same(&e)),
            "lookup found a terminal the walk did not report for {name:?}: {found:?}"
        );
    }
}

/// Re-exports of the input trie followed ([`weakscan::process::reexport::Follower`]) through
/// three images that all have it, each re-exporting the next (ordinal 1), linking itself
/// (ordinal 2) and a missing dylib (ordinal 3): a re-export entry loops, chains through renames
/// or stops, and never panics or runs past the caps. Invariants: a definition is in one of the
/// three images, a loop ends where it starts, a chain probes fewer tries than the depth cap.
fn follow_reexports_in_a_ring(data: &[u8], whole: &[(Vec<u8>, u64, ExportTarget)]) {
    use weakscan::process::DepState;
    use weakscan::process::reexport::{Edge, Follower, MAX_REEXPORT_DEPTH, Outcome, TrieOf};
    let trie: std::sync::Arc<[u8]> = data.into();
    let deps = (0..3)
        .map(|k| {
            vec![
                Edge {
                    state: DepState::Loaded((k + 1) % 3),
                    reexport: true,
                },
                Edge {
                    state: DepState::Loaded(k),
                    reexport: false,
                },
                Edge {
                    state: DepState::Missing,
                    reexport: false,
                },
            ]
        })
        .collect();
    let files = (0..3).map(|k| PathBuf::from(format!("ring{k}"))).collect();
    let mut follower = Follower::new(deps, files, "x86_64", |_| Ok(TrieOf::Trie(trie.clone())));
    let reexports = whole
        .iter()
        .filter(|(_, _, t)| matches!(t, ExportTarget::Reexport { .. }));
    for (name, ..) in reexports.take(16) {
        match follower.follow(0, name) {
            Ok(f) => {
                assert!(f.probes < MAX_REEXPORT_DEPTH, "{f:?}");
                match f.outcome {
                    Outcome::Found { image, .. } => assert!(image < 3),
                    Outcome::Loop { images } => {
                        assert!(images.len() >= 2 && images.first() == images.last())
                    }
                    Outcome::Outside { .. } | Outcome::Stopped => {
                        panic!("{name:?}: {:?}", f.outcome)
                    }
                    _ => {}
                }
            }
            Err(e) => {
                one_line(&e.message);
                assert!(e.message.starts_with("ring"), "{e}");
            }
        }
    }
}

/// Splits a bind-opcode input into segments and the opcode stream:
///
/// ```text
/// segment_count: u8 (mod 8)
/// segments: [{ flags: u8 /* bit 0 writable, bit 1 __LINKEDIT */, vm_size: u32 le }; count]
/// stream: [u8]  // the weak_bind opcodes
/// ```
pub fn split_bind_input(data: &[u8]) -> Option<(Vec<SegmentBounds>, &[u8])> {
    let (&n, mut rest) = data.split_first()?;
    let mut segments = Vec::new();
    for _ in 0..n % 8 {
        let (head, tail) = rest.split_at_checked(5)?;
        segments.push(SegmentBounds {
            vm_size: u64::from(u32::from_le_bytes([head[1], head[2], head[3], head[4]])),
            writable: head[0] & 1 != 0,
            is_linkedit: head[0] & 2 != 0,
        });
        rest = tail;
    }
    Some((segments, rest))
}

/// The weak-bind interpreter on a stream with up to 7 segments (see [`split_bind_input`]).
///
/// Invariants: at most [`MAX_BIND_LOCATIONS`] locations; targets are numbered densely in stream
/// order (each bind's target is at most one past the highest so far); every location lies in
/// its segment, inside `vm_size`; every bind names a symbol that was set.
pub fn bind_opcodes(data: &[u8]) {
    let Some((segments, stream)) = split_bind_input(data) else {
        return;
    };
    match parse_weak_binds(stream, &segments, 8) {
        Ok(table) => {
            assert!(table.binds.len() <= MAX_BIND_LOCATIONS);
            let mut next_target = 0;
            for b in &table.binds {
                assert!(b.target <= next_target, "target {} skips ahead", b.target);
                next_target = next_target.max(b.target + 1);
                let seg = &segments[usize::from(b.segment_index)];
                assert!(b.segment_offset < seg.vm_size, "{b:?} outside {seg:?}");
                assert!((b.symbol as usize) < table.symbols.len());
            }
            assert_eq!(table.targets, next_target);
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// Splits a chained-fixups input:
///
/// ```text
/// segment_count: u8, dylib_count: u8, blob_len: u32 le,
/// blob: [u8; blob_len]   // the LC_DYLD_CHAINED_FIXUPS payload
/// pages: [u8]            // segment data the chains run through, page 0 first
/// ```
pub fn split_chained_input(data: &[u8]) -> Option<(usize, u32, &[u8], &[u8])> {
    let (head, rest) = data.split_at_checked(6)?;
    let blob_len = u32::from_le_bytes([head[2], head[3], head[4], head[5]]) as usize;
    let (blob, pages) = rest.split_at_checked(blob_len.min(rest.len()))?;
    Some((usize::from(head[0]), u32::from(head[1]), blob, pages))
}

/// The chained-fixups parser, then every chain of every segment walked through `pages`
/// (see [`split_chained_input`]), with one visited set per segment as weakscan reads them.
///
/// Invariants: a segment index below `segment_count`; bind ordinals below the import count;
/// every site's 8 bytes inside `pages`; no site visited twice,
/// so all chains of a segment together have at most `pages.len() / 4` sites.
pub fn chained_fixups(data: &[u8]) {
    let Some((segment_count, dylib_count, blob, pages)) = split_chained_input(data) else {
        return;
    };
    let fixups = match parse_chained_fixups(blob, segment_count, dylib_count) {
        Ok(f) => f,
        Err(e) => return one_line(&e.to_string()),
    };
    let imports = fixups.imports.len() as u32;
    for seg in &fixups.segments {
        assert!(seg.segment_index < segment_count);
        let mut visited = Visited::new(pages.len());
        let mut sites = 0usize;
        'pages: for (page, starts) in seg.page_chain_starts.iter().enumerate() {
            for &start in starts {
                let at = page as u64 * u64::from(seg.page_size) + u64::from(start);
                let walked = walk_chain(
                    pages,
                    seg.pointer_format,
                    at,
                    imports,
                    &mut visited,
                    |off, fixup| {
                        sites += 1;
                        assert!(off + 8 <= pages.len() as u64, "site {off:#x} past the data");
                        if let ChainedFixup::Bind { ordinal, .. } = fixup {
                            assert!(ordinal < imports);
                        }
                    },
                );
                if let Err(e) = walked {
                    one_line(&e.to_string());
                    break 'pages;
                }
            }
        }
        assert!(
            sites <= pages.len() / 4,
            "{sites} sites in {} bytes",
            pages.len()
        );
    }
}

/// The whole binary path on an in-memory file: container, load commands, LINKEDIT, then the
/// scan analysis on whatever was accepted.
///
/// Invariants: errors are one line and name the input; an image has at most one weak
/// definition per input byte, and at most one weak-bind site per 4 input bytes (chains) or
/// [`MAX_BIND_LOCATIONS`] (opcodes).
pub fn macho(data: &[u8]) {
    let name = Path::new("fuzz-input");
    match read_bytes(name, data.to_vec(), &ArchFilter::All) {
        Ok(images) => {
            for image in &images {
                let sites: usize = image.bind_targets.iter().map(|t| t.sites.len()).sum();
                assert!(sites <= MAX_BIND_LOCATIONS.max(data.len() / 4));
                assert!(image.weak_definitions.len() <= data.len());
                // A dylib load command's attributes are its command's unless it is a
                // dylib_use_command; a re-export is never weak-linked nor delay-init once
                // fixed as dyld fixes it.
                for d in image.linkage.iter().flat_map(|l| &l.dylibs) {
                    assert!(
                        d.use_command || d.attributes == d.link.attributes(),
                        "{d:?}"
                    );
                    let e = d.attributes.effective();
                    assert!(
                        !(e.reexport() && (e.weak_link() || e.delay_init())),
                        "{d:?}"
                    );
                }
            }
            // One analysis pass: demangling and grouping are fuzzed on their own by `demangle`.
            let _ = scan_report(&images, GroupBy::Template, None, NameStyle::Demangled)
                .expect("demangling threads start");
        }
        Err(e) => {
            one_line(&e.message);
            assert!(e.message.starts_with("fuzz-input: "), "{e}");
        }
    }
    // The same bytes as an importer, in each arch weakscan reads, and as an image whose export
    // trie is asked for the names the importer binds.
    for arch in ["x86_64", "arm64"] {
        let Some(imp) = importer_of("fuzz-input", data, arch) else {
            continue;
        };
        let file = MachOFile::from_bytes(Path::new("fuzz-input"), data.to_vec());
        match ExportTrie::read_from(&file, arch) {
            Ok(trie) => {
                let mut budget = LookupBudget::default();
                for i in imp.imports.iter().take(64) {
                    if let Err(e) = trie.find(&i.name, &mut budget) {
                        one_line(&e.message);
                    }
                }
            }
            Err(e) => one_line(&e.message),
        }
    }
}

/// The importer reader on `data`, a whole file named `name`, in `arch`: `None` on an error
/// (one line naming the file) or without the slice.
///
/// Invariants: every import is one line, its (name, ordinal) distinct, its ordinal between -3
/// and the number of dylib load commands; there are no more imports than bound locations
/// allow.
pub fn importer_of(name: &str, data: &[u8], arch: &str) -> Option<ImporterSlice> {
    let file = MachOFile::from_bytes(Path::new(name), data.to_vec());
    match read_importer_from(&file, arch) {
        Ok(Some(s)) => {
            let mut seen = std::collections::HashSet::new();
            for i in &s.imports {
                assert!(!i.name.contains('\n'), "{:?}", i.name);
                assert!(
                    seen.insert((i.name.as_str(), i.library_ordinal)),
                    "{i:?} twice"
                );
                assert!(
                    (-3..=s.dylibs.len() as i64).contains(&i64::from(i.library_ordinal)),
                    "{i:?} with {} dylibs",
                    s.dylibs.len()
                );
            }
            assert!(s.imports.len() <= 3 * MAX_BIND_LOCATIONS.max(data.len()));
            Some(s)
        }
        Ok(None) => None,
        Err(e) => {
            one_line(&e.message);
            assert!(e.message.starts_with(&format!("{name}: ")), "{e}");
            None
        }
    }
}

/// The debug-map reader: the first byte picks where the input splits into a symbol table
/// (whole 16-byte entries) and a string table; every function/data address is wanted.
///
/// Invariants: at most one object per `N_OSO` entry (so per 16 bytes), every object number
/// handed out names an object, and every path is one line.
pub fn debug_map(data: &[u8]) {
    use weakscan::macho::debug_map::read_debug_map;
    let Some((&cut, rest)) = data.split_first() else {
        return;
    };
    let split = (rest.len() * usize::from(cut) / 255) & !15;
    let (syms, strs) = rest.split_at(split);
    let read = |table: &[u8], off: u64, len: u64, buf: &mut Vec<u8>| {
        let part = table
            .get(off as usize..(off + len) as usize)
            .expect("reads stay inside the table");
        buf.clear();
        buf.extend_from_slice(part);
        Ok::<(), weakscan::error::ParseError>(())
    };
    let mut handed = Vec::new();
    match read_debug_map(
        (syms.len() / 16) as u32,
        strs.len() as u64,
        |o, l, b: &mut Vec<u8>| read(syms, o, l, b),
        |o, l, b: &mut Vec<u8>| read(strs, o, l, b),
        |_| true,
        |_, object| handed.push(object),
    ) {
        Ok(map) => {
            assert!(map.objects.len() <= syms.len() / 16);
            assert!(handed.iter().all(|&o| (o as usize) < map.objects.len()));
            for o in &map.objects {
                one_line(&o.path);
                one_line(o.source.as_deref().unwrap_or(""));
            }
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// The link-map parser. Invariants: every object index handed out is listed, and the counts
/// are at most the lines of the input.
pub fn link_map(data: &[u8]) {
    let mut indexes = Vec::new();
    match weakscan::origin::link_map::parse_link_map(data, |_, object, _| indexes.push(object)) {
        Ok(header) => {
            assert!(indexes.iter().all(|&o| (o as usize) < header.objects.len()));
            let lines = data.split(|&b| b == b'\n').count();
            assert!(header.symbols + header.dead_stripped <= lines);
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// The compile-database reader, the visibility flags of every entry, and the index asked for
/// each entry's own source (which it must find, uniquely or among equals).
pub fn compile_db(data: &[u8]) {
    use weakscan::origin::compile_db::{
        CompileDbIndex, Match, parse_compile_db, target_of, visibility_flags, visibility_of,
    };
    match parse_compile_db(data) {
        Ok(commands) => {
            let index = CompileDbIndex::new(&commands);
            for c in commands.iter().take(64) {
                let _ = visibility_flags(&c.arguments, Some("x86_64")).hides_by_default();
                // Response files named by the input are opened without blocking, only if
                // regular, and bounded; a reason is one line.
                if let Err(reason) = visibility_of(c, Some("x86_64")) {
                    one_line(&reason);
                }
                let _ = target_of(c);
                let source = weakscan::origin::compile_db::normalize(&c.file, Some(&c.directory));
                assert_ne!(
                    index.find(Some(&source), None),
                    Match::None,
                    "an entry's own source is not found: {source:?}"
                );
            }
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// The archive reader. Invariants: every member lies inside the input, names are one line.
pub fn archive(data: &[u8]) {
    match weakscan::macho::archive::read_members_bytes(data) {
        Ok(m) => {
            for member in &m.members {
                assert!(member.offset.saturating_add(member.size) <= data.len() as u64);
                one_line(&member.name);
            }
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// The dSYM reader on the input as a DWARF file (x86_64, any UUID: most inputs stop at the UUID
/// check, so the first 16 bytes of a long input are used as the expected UUID too).
pub fn dsym(data: &[u8]) {
    let mut uuid = [0u8; 16];
    if let Some(head) = data.get(..16) {
        uuid.copy_from_slice(head);
    }
    for uuid in [uuid, [0u8; 16]] {
        match weakscan::origin::dsym::read_dsym_bytes(Path::new("fuzz.dSYM"), data, "x86_64", uuid)
        {
            Ok(index) => {
                let n = index.units().len();
                for a in [0u64, 0x1_0000_0000, u64::MAX] {
                    assert!(index.unit_of_address(a).is_none_or(|u| u < n));
                }
                assert!(index.unit_of_name("__Z1fv").is_none_or(|u| u < n));
            }
            Err(e) => one_line(&e.message),
        }
    }
}

/// The log reader (lines, messages, records) on the input as a whole log, then scan.
///
/// Invariants: errors are one line and name the input.
pub fn log(data: &[u8]) {
    let name = Path::new("fuzz.log");
    match weakscan::log::read_log_from(name, data, None) {
        Ok(images) => {
            // Diff and verify of log images are fuzzed by the mutation runs in `cargo test`.
            let _ = scan_report(&images, GroupBy::Template, None, NameStyle::Demangled)
                .expect("demangling threads start");
        }
        Err(e) => {
            one_line(&e.message);
            assert!(e.message.starts_with("fuzz.log"), "{e}");
        }
    }
    for line in data.split(|&b| b == b'\n') {
        let _ = weakscan::log::line::parse_line(line);
    }
}

/// Demangling and grouping of one symbol name (the input, lossily as UTF-8), as scan does it.
///
/// Invariants: a name always comes back (demangled or raw), every grouping key of it is
/// produced without panicking, and an entry kept with fewer keys (`Demangled::of_sorted`, as a
/// grouping builds it) prints the same and gives the same keys.
pub fn demangle(data: &[u8]) {
    let raw = String::from_utf8_lossy(data);
    let names =
        demangle_all([raw.as_ref()], NameStyle::Demangled).expect("demangling threads start");
    let name = names.lookup(&raw);
    // An entry built keeping fewer keys (as a grouping asks for) prints the same and answers
    // the keys it keeps as the whole entry does.
    for keys in [Keys::Template, Keys::TemplateOnly, Keys::None] {
        let cut = Demangled::of_sorted(vec![raw.as_ref()], 8, keys, NameStyle::Demangled)
            .expect("threads start");
        let cut = cut.lookup(&raw);
        assert_eq!(cut.demangled(&raw), name.demangled(&raw), "{keys:?}");
        assert_eq!(cut.kind, name.kind, "{keys:?}");
        if keys != Keys::None {
            assert_eq!(cut.template(), name.template(), "{keys:?}");
        }
        if keys == Keys::Template {
            assert_eq!(cut.namespace_components(), name.namespace_components());
            for depth in 1..=name.namespace_components() {
                assert_eq!(cut.namespace(depth), name.namespace(depth), "{depth}");
            }
        }
    }
    for by in [
        GroupBy::Symbol,
        GroupBy::Pattern,
        GroupBy::Template,
        GroupBy::Namespace(1),
        GroupBy::Namespace(3),
        GroupBy::Origin(OriginLevel::Library),
    ] {
        let _ = by.key(&raw, &name, &Origin::Unattributed);
    }
}

/// The name engine against libc++abi's `__cxa_demangle`, on the input as a `_Z` name (prefixed
/// when it is not one), and the whole demangling of it as a Mach-O name with either printer.
///
/// Invariants: never a crash (`fuzz/libcxxabi-asan.sh` builds an instrumented `__cxa_demangle`);
/// the reader never runs out of its step budget (it is linear: a `TooMuchWork` is a finding);
/// a name it accepts, `__cxa_demangle` prints, within the bound the reader computed (a
/// `TooLong` or `NotMangled` is a finding); a short name (at most 64 bytes, whose printing is
/// small whatever it holds) it finds malformed, `__cxa_demangle` does not print either (the
/// extensions it leaves out are `Unsupported`, not malformed); a name is shown as
/// printed exactly when the printer prints it; and its keys are the same whichever printer
/// printed it.
pub fn printer(data: &[u8]) {
    use weakscan::analysis::demangle::itanium::{Reject, read};
    use weakscan::analysis::demangle::printer::{Refusal, llvm_reads_short, print};
    use weakscan::analysis::demangle::{NameKind, Printer, demangle_all_with, print_limit};
    let text = String::from_utf8_lossy(data);
    let plain = if text.starts_with("_Z") {
        text.into_owned()
    } else {
        format!("_Z{text}")
    };
    let limit = print_limit(&plain);
    let reading = read(&plain, limit);
    assert_ne!(
        reading.as_ref().err(),
        Some(&Reject::TooMuchWork),
        "not linear"
    );
    let printed = print(&plain, limit);
    match (&reading, &printed) {
        (Ok(r), Ok(t)) => assert!(
            t.len() as u64 <= r.printed_bound,
            "{} > {}",
            t.len(),
            r.printed_bound
        ),
        (Ok(_), Err(Refusal::TooLong)) => panic!("the reader's bound did not bound __cxa_demangle"),
        (Ok(_), Err(Refusal::NotMangled)) => panic!("read, but __cxa_demangle does not read it"),
        (Err(Reject::Malformed), _) => {
            if let Some(t) = llvm_reads_short(&plain) {
                panic!("__cxa_demangle reads it ({t}), the reader does not");
            }
        }
        _ => {}
    }
    let raw = format!("_{plain}");
    let [a, b] = [Printer::Libcxxabi, Printer::CppDemangle].map(|p| {
        demangle_all_with([raw.as_str()], p, NameStyle::Demangled)
            .expect("demangling threads start")
    });
    let (n, cpp) = (a.lookup(&raw), b.lookup(&raw));
    match (&printed, n.kind) {
        (Ok(t), NameKind::Cxx) => assert_eq!(n.demangled(&raw), *t),
        // Refused for holding a workflow command.
        (Ok(t), NameKind::Failed) => assert!(weakscan::text::has_workflow_command(t.as_bytes())),
        (Ok(_), kind) => panic!("the printer prints it, weakscan shows it {kind:?}"),
        (Err(Refusal::Unavailable), _) => {}
        (Err(_), kind) => assert_eq!(kind, NameKind::Failed),
    }
    assert_eq!(n.pattern(), cpp.pattern(), "pattern");
    assert_eq!(n.template(), cpp.template(), "template");
    assert_eq!(n.namespace_components(), cpp.namespace_components());
    for depth in 1..=n.namespace_components() {
        assert_eq!(n.namespace(depth), cpp.namespace(depth), "{depth}");
    }
}

// ---- the gate, the command line, the renderers and the pair logic ----
//
// These targets feed the code around the parsers: the policy file, baseline files, patterns,
// command lines, every output format, and diff/verify/check on pairs of inputs. They share the
// helpers below.

/// `testdata/` of the repository, from either crate (the tests' manifest directory is the
/// repository, the fuzz crate's is `fuzz/`).
pub fn testdata_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let up = manifest.join("../testdata");
    if up.join("bin").is_dir() {
        up
    } else {
        manifest.join("testdata")
    }
}

/// The fixtures the `baseline`, `policy` and `cli` targets evaluate checks on (the first byte of
/// a `baseline` input picks one, modulo their number).
pub const GATE_FIXTURES: [&str; 4] = [
    "app-default-chained-x86_64",
    "app-v2-default-chained-x86_64",
    "app-default-opcodes-arm64",
    "app-default-chained-universal",
];

/// A gate fixture, read once: its images, one check subject per image, and the baseline
/// `weakscan baseline` writes for it, read back.
pub struct GateCase {
    pub images: Vec<Image>,
    pub subjects: Vec<Subject>,
    pub baseline: Baseline,
}

fn gate_cases() -> &'static [GateCase] {
    static CASES: OnceLock<Vec<GateCase>> = OnceLock::new();
    CASES.get_or_init(|| {
        GATE_FIXTURES
            .iter()
            .map(|name| {
                let path = testdata_dir().join("bin").join(name);
                let images = weakscan::macho::read_file(&path, &ArchFilter::All)
                    .unwrap_or_else(|e| panic!("fixture {name}: {e}"));
                let text = baseline_text(&images, GroupBy::Template);
                let baseline = weakscan::gate::baseline::parse(&text, Path::new("fixture.json"))
                    .unwrap_or_else(|e| panic!("baseline of {name}: {e}"));
                let subjects = images.iter().map(subject_of).collect();
                GateCase {
                    images,
                    subjects,
                    baseline,
                }
            })
            .collect()
    })
}

/// Every raw name of the gate fixtures and their baselines, demangled once.
fn gate_names() -> &'static Demangled<'static> {
    static NAMES: OnceLock<Demangled<'static>> = OnceLock::new();
    NAMES.get_or_init(|| {
        demangle_all(
            gate_cases().iter().flat_map(|c| {
                c.subjects
                    .iter()
                    .flat_map(|s| s.entries.iter())
                    .chain(c.baseline.images.iter().flat_map(|i| i.entries.iter()))
                    .map(|e| e.raw.as_str())
            }),
            NameStyle::Demangled,
        )
        .expect("demangling threads start")
    })
}

/// The check subject of `image`, as `weakscan check` builds it.
pub fn subject_of(image: &Image) -> Subject {
    Subject {
        summary: ImageSummary::of(image),
        path: image.path.clone(),
        arch: image.label().to_string(),
        entries: tally(image),
    }
}

/// The baseline file `weakscan baseline` writes for `images`.
pub fn baseline_text(images: &[Image], by: GroupBy) -> String {
    let report =
        scan_report(images, by, None, NameStyle::Demangled).expect("demangling threads start");
    let mut out = Vec::new();
    weakscan::output::baseline::render(&mut out, &report, images).expect("writing to memory");
    String::from_utf8(out).expect("UTF-8 baseline")
}

/// A policy with a baseline and these flag budgets (increases, their figures, group budgets).
pub fn increase_policy(
    increases: Vec<Increase>,
    figures: Option<Vec<Figure>>,
    groups: Vec<GroupBudget>,
) -> Policy {
    Policy {
        baseline: Some(PathBuf::from("fuzz-baseline.json")),
        flags: RuleSet {
            max_increase: Some(increases),
            increase_figures: figures,
            groups,
            ..RuleSet::default()
        },
        ..Policy::default()
    }
}

/// What must hold of any evaluated check of an image, `top` offending groups at most:
/// it passes iff every budget holds; a budget holds iff its value is within its limit; counted
/// figures are the total less the allowed part; an increase's limit is never below its
/// baseline, and **an unchanged figure passes every increase budget**.
pub fn check_image(c: &ImageCheck, top: usize) {
    assert_eq!(c.passed, c.budgets.iter().all(|b| b.passed), "{c:#?}");
    for l in &c.figures {
        assert!(l.allowed <= l.total, "{l:?}");
        assert_eq!(l.counted, l.total - l.allowed, "{l:?}");
    }
    for b in &c.budgets {
        assert_eq!(b.passed, b.value as u64 <= b.limit, "{b:?}");
        if b.kind == Kind::Increase {
            let base = b.baseline.expect("an increase has a baseline");
            assert!(b.limit >= base as u64, "limit below the baseline: {b:?}");
            assert!(
                b.value != base || b.passed,
                "an unchanged figure failed an increase budget: {}",
                b.message
            );
        }
    }
    assert!(c.offending_groups.len() <= top, "{c:#?}");
    if c.passed {
        assert!(c.offending_groups.is_empty(), "{c:#?}");
    }
    for o in &c.offending_groups {
        assert!(o.examples.len() <= EXAMPLES);
        assert_eq!(o.examples.len(), o.example_patterns.len());
    }
}

/// Group keys and names every pattern is matched against.
const KEYS: [&str; 9] = [
    "",
    "v8::internal::StaticCallInterfaceDescriptor<…>",
    "node::SPrintFImpl<…>",
    "__ZN4node5Realm3runEv",
    "node::Realm::run()",
    "std::__1::basic_string<…>",
    "(global)",
    "a\u{202e}b\n",
    "operator new(unsigned long)",
];

/// `p` matched against `keys` and [`KEYS`]; matching is deterministic.
fn match_keys<'k>(p: &Pattern, keys: impl IntoIterator<Item = &'k str>) {
    for k in keys.into_iter().chain(KEYS) {
        let m = p.is_match(k);
        assert_eq!(m, p.is_match(k), "{:?} on {k:?}", p.text);
    }
}

/// An increase prints as it parses (`+50`, `+10%`: the report shows what the policy said) and
/// allows nothing over a baseline of 0 when it is a percentage.
fn check_increase(inc: Increase) {
    assert_eq!(Increase::parse(&inc.to_string()), Ok(inc), "{inc}");
    if let Increase::Percent(p) = inc {
        assert!(p.is_finite() && p >= 0.0, "{inc:?}");
        assert_eq!(inc.allowance(0), 0, "{inc:?}");
    }
}

/// Each gate fixture's first image checked against its own baseline with `increases`: every
/// increase budget must pass (the figures are unchanged), whatever the other budgets say.
fn unchanged_passes(mut policy: Policy, increases: Vec<Increase>, case: usize) {
    let case = &gate_cases()[case % GATE_FIXTURES.len()];
    policy.baseline = Some(PathBuf::from("fixture.json"));
    policy.flags.max_increase = Some(increases);
    for s in &case.subjects {
        let base = case
            .baseline
            .image(&s.arch)
            .expect("the fixture's own arch");
        match evaluate(s, Some(base), &policy, gate_names(), 5) {
            Ok(c) => check_image(&c, 5),
            Err(e) => one_line(&e.message),
        }
    }
}

/// The policy file: `Policy::parse` on the input (lossily UTF-8), then the rules of every arch,
/// their patterns matched against a few keys, and the policy evaluated on a fixture against the
/// fixture's own baseline.
///
/// Invariants: errors are one line and name the file; per arch, maxima are the arch section's
/// over the top level's, group budgets are keyed by pattern text (once each, the section's
/// maximum winning), allowlists are joined; increases print as they parse; an unchanged
/// figure passes every increase budget (see [`check_image`]).
pub fn policy(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let path = Path::new("fuzz/weakscan.toml");
    let p = match Policy::parse(&text, path) {
        Ok(p) => p,
        Err(e) => {
            one_line(&e.message);
            assert!(e.message.starts_with("fuzz/weakscan.toml"), "{e}");
            return;
        }
    };
    let mut increases = Vec::new();
    for arch in ["x86_64", "x86_64h", "arm64", "arm64e", "i386"] {
        let rules = p.rules_for(arch);
        let section = p.arches.get(arch);
        let joined = |f: fn(&RuleSet) -> usize| f(&p.common) + section.map_or(0, f) + f(&p.flags);
        assert_eq!(rules.allow_symbols.len(), joined(|r| r.allow_symbols.len()));
        assert_eq!(rules.allow_groups.len(), joined(|r| r.allow_groups.len()));
        for (f, m) in &rules.max {
            let want = section
                .and_then(|s| s.max.get(f))
                .or_else(|| p.common.max.get(f));
            assert_eq!(Some(m), want, "{arch} {f}");
        }
        let mut texts: Vec<&str> = rules
            .groups
            .iter()
            .map(|g| g.pattern.text.as_str())
            .collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(
            texts.len(),
            rules.groups.len(),
            "a group budget twice: {texts:?}"
        );
        for g in p
            .common
            .groups
            .iter()
            .chain(section.iter().flat_map(|s| &s.groups))
        {
            let got = rules
                .groups
                .iter()
                .find(|h| h.pattern.text == g.pattern.text);
            assert!(got.is_some(), "{arch}: {} lost", g.pattern.text);
        }
        for g in section.iter().flat_map(|s| &s.groups) {
            let got = rules
                .groups
                .iter()
                .find(|h| h.pattern.text == g.pattern.text);
            assert_eq!(
                got.map(|h| h.max),
                Some(g.max),
                "{arch}: {}",
                g.pattern.text
            );
        }
        for inc in rules.max_increase.iter().flatten() {
            check_increase(*inc);
            increases.push(*inc);
        }
        for pat in rules
            .groups
            .iter()
            .map(|g| &g.pattern)
            .chain(&rules.allow_symbols)
            .chain(&rules.allow_groups)
        {
            match_keys(pat, [pat.text.as_str()]);
        }
    }
    let _ = (p.has_budgets(), p.increase_without_baseline());
    if increases.is_empty() {
        increases.push(Increase::Count(0));
    }
    let case = data.len();
    unchanged_passes(p, increases, case);
}

/// The baseline reader: the input after its first byte as a baseline file
/// (`weakscan::gate::baseline::parse`), then a check of a gate fixture (the first byte picks
/// it, and the increase budget) against it:
///
/// ```text
/// pick: u8      // fixture = pick % 4; increase budget = (pick / 4) % 4
/// baseline: [u8] // the baseline JSON (lossily UTF-8)
/// ```
///
/// Invariants: errors are one line and name the file; an accepted baseline has images, each
/// arch once, entries sorted by raw name without duplicates; the check of every image obeys
/// [`check_image`], and the check report renders as [`check_rendered`] requires.
pub fn baseline(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let b = match weakscan::gate::baseline::parse(&text, Path::new("fuzz-baseline.json")) {
        Ok(b) => b,
        Err(e) => {
            one_line(&e.message);
            assert!(e.message.starts_with("fuzz-baseline.json"), "{e}");
            return;
        }
    };
    assert!(!b.images.is_empty());
    let mut arches = b.arches();
    arches.sort_unstable();
    let n = arches.len();
    arches.dedup();
    assert_eq!(arches.len(), n, "an arch twice");
    for i in &b.images {
        assert!(
            i.entries.windows(2).all(|w| w[0].raw < w[1].raw),
            "entries unsorted"
        );
    }
    let case = &gate_cases()[usize::from(pick) % GATE_FIXTURES.len()];
    let increases = match (pick / 4) % 4 {
        0 => vec![Increase::Count(0)],
        1 => vec![Increase::Count(5)],
        2 => vec![Increase::Percent(10.0)],
        _ => vec![Increase::Percent(0.5), Increase::Count(1)],
    };
    let groups = vec![GroupBudget {
        pattern: Pattern::parse("v8::internal::*").expect("a glob"),
        max: 10,
    }];
    let policy = increase_policy(increases, None, groups);
    let names = demangle_all(
        case.subjects
            .iter()
            .flat_map(|s| s.entries.iter())
            .chain(b.images.iter().flat_map(|i| i.entries.iter()))
            .map(|e| e.raw.as_str()),
        NameStyle::Demangled,
    )
    .expect("demangling threads start");
    let mut images = Vec::new();
    for s in &case.subjects {
        let base: Option<&BaselineImage> = b.image(&s.arch).or(b.images.first());
        match evaluate(s, base, &policy, &names, 3) {
            Ok(c) => {
                check_image(&c, 3);
                images.push(c);
            }
            Err(e) => one_line(&e.message),
        }
    }
    let report = CheckReport {
        passed: images.iter().all(|c| c.passed),
        policy: None,
        baseline: Some(b.path.display().to_string()),
        group_by: policy.group_by,
        depth: None,
        group_figure: policy.group_figure,
        images,
        demangle_failures: names.failures,
        demangle_failures_by_reason: names.reasons,
        importers: Vec::new(),
        importers_skipped: Vec::new(),
    };
    for (what, text) in render_all(None, None, None, Some(&report)) {
        check_rendered(what, &text);
    }
}

/// A glob without `*?[]{}\` is the literal key (with `...` read as `…`); a `re:` regex without
/// metacharacters finds itself.
fn literal_glob(p: &str) -> bool {
    !p.starts_with("re:") && !p.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

fn literal_regex(p: &str) -> Option<&str> {
    let r = p.strip_prefix("re:")?;
    let meta = |c: char| "\\.+*?()|[]{}^$#&-~".contains(c) || c.is_whitespace();
    (!r.is_empty() && !r.contains(meta)).then_some(r)
}

/// A pattern (`Pattern::parse`, glob or `re:` regex) and keys to match it against:
///
/// ```text
/// pattern \0 key \0 key …   // lossily UTF-8; at most 8 keys
/// ```
///
/// Invariants: an error is one line saying which kind of pattern is invalid (or that it is
/// longer than `MAX_PATTERN_BYTES`); a compiled
/// pattern keeps its text, matches deterministically, and a literal glob matches exactly
/// itself (whole key), a literal regex finds itself anywhere.
pub fn pattern(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let pat = parts.next().unwrap_or("");
    let keys: Vec<&str> = parts.take(8).collect();
    match Pattern::parse(pat) {
        Err(e) => {
            one_line(&e);
            assert!(
                e.starts_with("invalid glob ")
                    || e.starts_with("invalid regex ")
                    || e.starts_with("pattern too long: "),
                "{e}"
            );
        }
        Ok(p) => {
            assert_eq!(p.text, pat);
            match_keys(&p, keys.iter().copied());
            if literal_glob(pat) {
                let key = pat.replace("...", "…");
                assert!(
                    p.is_match(&key),
                    "literal glob {pat:?} does not match itself"
                );
                assert!(
                    !p.is_match(&format!("{key}x")),
                    "{pat:?} matched a longer key"
                );
                assert!(
                    !p.is_match(&format!("x{key}")),
                    "{pat:?} matched a longer key"
                );
            }
            if let Some(r) = literal_regex(pat) {
                assert!(p.is_match(r), "{pat:?}");
                assert!(p.is_match(&format!("<{r}>")), "{pat:?}");
            }
        }
    }
}

/// One piece of a command line (the `cli` target decodes its input with `arbitrary` into a list
/// of these).
#[derive(Debug, arbitrary::Arbitrary)]
pub enum CliArg {
    /// A subcommand name.
    Command(CliCommand),
    /// A committed fixture, binary or log (index modulo their number).
    Fixture(u8),
    /// A flag alone.
    Flag(CliFlag),
    /// `--flag=value`.
    FlagValue(CliFlag, CliValue),
    /// A value alone.
    Value(CliValue),
}

#[derive(Debug, Clone, Copy, arbitrary::Arbitrary)]
pub enum CliCommand {
    Scan,
    Diff,
    Verify,
    Check,
    Baseline,
    Help,
    Trend,
}

#[derive(Debug, Clone, Copy, arbitrary::Arbitrary)]
pub enum CliFlag {
    MaxIncrease,
    Group,
    Allow,
    AllowGroup,
    Top,
    Depth,
    By,
    Arch,
    Format,
    GroupFigure,
    MaxPredictedWeakLookups,
    MaxWeakDefExports,
    MaxWeakBindSymbols,
    Tolerance,
    Image,
    Pid,
    InputKind,
    Symbols,
    NoConfig,
    Config,
    Baseline,
    Help,
    Version,
    DoubleDash,
    Sort,
}

#[derive(Debug, arbitrary::Arbitrary)]
pub enum CliValue {
    Count(u64),
    Small(u8),
    Signed(i64),
    /// `WHOLE.FRAC[eEXP]%`.
    Percent {
        whole: u32,
        frac: u8,
        exp: Option<i16>,
    },
    /// `PATTERN=MAX`.
    Group(CliPattern, u64),
    Pattern(CliPattern),
    /// A value clap knows (`template`, `json`, `x86_64`, …), by index.
    Word(u8),
    Text(String),
}

#[derive(Debug, arbitrary::Arbitrary)]
pub enum CliPattern {
    /// A pattern of the docs and tests, by index.
    Known(u8),
    /// A glob built of pieces.
    Glob(Vec<GlobPiece>),
    /// `re:` and text.
    Regex(String),
}

#[derive(Debug, arbitrary::Arbitrary)]
pub enum GlobPiece {
    Star,
    Question,
    Class(String),
    Alternatives(Vec<String>),
    Text(String),
}

const CLI_WORDS: [&str; 22] = [
    "template",
    "namespace",
    "pattern",
    "symbol",
    "json",
    "table",
    "markdown",
    "github",
    "x86_64",
    "arm64",
    "arm64e",
    "all",
    "binary",
    "log",
    "predicted_weak_lookups",
    "weak_def_exports",
    "weak_bind_symbols",
    "0",
    "-",
    "%",
    "version",
    "input",
];

const CLI_PATTERNS: [&str; 8] = [
    "v8::internal::*",
    "node::SPrintFImpl<...>",
    "re:^node::crypto::CryptoJob<",
    "std::__1::*",
    "__ZN4node7Realm*",
    "re:^ada::",
    "{a,b}*[!c]?",
    "re:Descriptor<…>$",
];

impl CliFlag {
    fn text(self) -> &'static str {
        match self {
            CliFlag::MaxIncrease => "--max-increase",
            CliFlag::Group => "--group",
            CliFlag::Allow => "--allow",
            CliFlag::AllowGroup => "--allow-group",
            CliFlag::Top => "--top",
            CliFlag::Depth => "--depth",
            CliFlag::By => "--by",
            CliFlag::Arch => "--arch",
            CliFlag::Format => "--format",
            CliFlag::GroupFigure => "--group-figure",
            CliFlag::MaxPredictedWeakLookups => "--max-predicted-weak-lookups",
            CliFlag::MaxWeakDefExports => "--max-weak-def-exports",
            CliFlag::MaxWeakBindSymbols => "--max-weak-bind-symbols",
            CliFlag::Tolerance => "--tolerance",
            CliFlag::Image => "--image",
            CliFlag::Pid => "--pid",
            CliFlag::InputKind => "--input-kind",
            CliFlag::Symbols => "--symbols",
            CliFlag::NoConfig => "--no-config",
            CliFlag::Config => "--config",
            CliFlag::Baseline => "--baseline",
            CliFlag::Help => "--help",
            CliFlag::Version => "--version",
            CliFlag::DoubleDash => "--",
            CliFlag::Sort => "--sort",
        }
    }
}

impl CliPattern {
    fn text(&self) -> String {
        match self {
            CliPattern::Known(i) => CLI_PATTERNS[usize::from(*i) % CLI_PATTERNS.len()].into(),
            CliPattern::Regex(r) => format!("re:{r}"),
            CliPattern::Glob(pieces) => pieces
                .iter()
                .take(16)
                .map(|p| match p {
                    GlobPiece::Star => "*".to_string(),
                    GlobPiece::Question => "?".to_string(),
                    GlobPiece::Class(c) => format!("[{c}]"),
                    GlobPiece::Alternatives(v) => format!("{{{}}}", v.join(",")),
                    GlobPiece::Text(t) => t.clone(),
                })
                .collect(),
        }
    }
}

impl CliValue {
    fn text(&self) -> String {
        match self {
            CliValue::Count(n) => n.to_string(),
            CliValue::Small(n) => n.to_string(),
            CliValue::Signed(n) => n.to_string(),
            CliValue::Percent { whole, frac, exp } => match exp {
                Some(e) => format!("{whole}.{frac}e{e}%"),
                None => format!("{whole}.{frac}%"),
            },
            CliValue::Group(p, max) => format!("{}={max}", p.text()),
            CliValue::Pattern(p) => p.text(),
            CliValue::Word(i) => CLI_WORDS[usize::from(*i) % CLI_WORDS.len()].into(),
            CliValue::Text(t) => t.clone(),
        }
    }
}

/// The committed fixtures a command line may name: `testdata/bin/*` and `testdata/logs/*.log`,
/// sorted, as absolute paths.
pub fn cli_fixtures() -> &'static [PathBuf] {
    static FIXTURES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let dir = testdata_dir();
        let dir = dir.canonicalize().unwrap_or(dir);
        let mut v = Vec::new();
        for (sub, ext) in [("bin", None), ("logs", Some("log"))] {
            for e in std::fs::read_dir(dir.join(sub))
                .into_iter()
                .flatten()
                .flatten()
            {
                let p = e.path();
                if p.is_file() && ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)) {
                    v.push(p);
                }
            }
        }
        v.sort();
        v
    })
}

/// The command line of a `cli` input: at most 24 pieces after `weakscan`.
pub fn cli_argv(data: &[u8]) -> Vec<String> {
    let u = arbitrary::Unstructured::new(data);
    let pieces: Vec<CliArg> = arbitrary::Arbitrary::arbitrary_take_rest(u).unwrap_or_default();
    let fixtures = cli_fixtures();
    let mut argv = vec!["weakscan".to_string()];
    for p in pieces.iter().take(24) {
        match p {
            CliArg::Command(c) => argv.push(
                match c {
                    CliCommand::Scan => "scan",
                    CliCommand::Diff => "diff",
                    CliCommand::Verify => "verify",
                    CliCommand::Check => "check",
                    CliCommand::Baseline => "baseline",
                    CliCommand::Help => "help",
                    CliCommand::Trend => "trend",
                }
                .into(),
            ),
            CliArg::Fixture(i) if !fixtures.is_empty() => argv.push(
                fixtures[usize::from(*i) % fixtures.len()]
                    .display()
                    .to_string(),
            ),
            CliArg::Fixture(_) => {}
            CliArg::Flag(f) => argv.push(f.text().into()),
            CliArg::FlagValue(f, v) => argv.push(format!("{}={}", f.text(), v.text())),
            CliArg::Value(v) => argv.push(v.text()),
        }
    }
    argv
}

/// The parsed command reads only committed fixtures (every path it names is one, and `check`
/// reads no `weakscan.toml` from the working directory), writes no file and appends no job
/// summary.
fn safe_to_run(cli: &weakscan::cli::Cli) -> bool {
    use weakscan::cli::Command;
    let fixture = |p: &Path| cli_fixtures().iter().any(|f| f == p);
    let processes = |p: &weakscan::cli::ProcessOpts| {
        p.search.iter().all(|f| fixture(f)) && p.sysroot.as_deref().is_none_or(fixture)
    };
    let summary_of = |f: weakscan::output::Format| {
        f.writes_step_summary() && std::env::var_os("GITHUB_STEP_SUMMARY").is_some()
    };
    match &cli.command {
        Command::Scan(a) => {
            a.files.iter().all(|f| fixture(f))
                && processes(&a.process)
                && !summary_of(a.opts.format)
        }
        Command::Diff(a) => {
            fixture(&a.old)
                && fixture(&a.new)
                && processes(&a.process)
                && !summary_of(a.opts.format)
        }
        Command::Verify(a) => fixture(&a.binary) && fixture(&a.log) && processes(&a.process),
        Command::Flags(a) => fixture(&a.old) && fixture(&a.new) && !summary_of(a.format),
        Command::Check(a) => {
            a.files.iter().all(|f| fixture(f))
                && processes(&a.process)
                && (a.no_config || a.config.as_deref().is_some_and(fixture))
                && a.baseline.as_deref().is_none_or(fixture)
                && !summary_of(a.format)
        }
        Command::Baseline(a) => fixture(&a.file) && a.output.is_none() && processes(&a.process),
        // Like diff: every build a fixture.
        Command::Trend(a) => {
            a.files.iter().all(|f| fixture(f)) && processes(&a.process) && !summary_of(a.format)
        }
        Command::Report(a) => a.files.iter().all(|f| fixture(f)) && a.output.is_none(),
        // It runs a command of its own to get each build: never from fuzzed arguments.
        Command::Bisect(_) => false,
        // The list goes to the harness's --output, the report to stdout.
        Command::Hide(a) => {
            fixture(&a.input)
                && a.keep.as_deref().is_none_or(fixture)
                && a.importer.importers.iter().all(|f| fixture(f))
                && processes(&a.process)
        }
        Command::Completions(weakscan::cli::CompletionsArgs { output, .. })
        | Command::Man(weakscan::cli::ManArgs { output })
        | Command::Schema(weakscan::cli::SchemaArgs { output, .. }) => output.is_none(),
    }
}

/// Command lines (structure-aware: the input is decoded with `arbitrary` into [`CliArg`]s:
/// subcommands, fixture paths, flags, `--flag=value`, values, patterns) through
/// `Cli::try_parse_from`; when one parses, its value parsers' results are checked and, when it
/// reads only committed fixtures and writes nothing, it is run.
///
/// Invariants: every `--max-increase` prints as it parses and an unchanged figure passes it
/// (checked on a fixture against its own baseline); every `--group` pattern clap accepted
/// compiles; `--depth` ≥ 1; `check`'s request keeps `--top` and every budget; a run's error is
/// one line, its exit code 0 or 1, and its JSON parses.
pub fn cli(data: &[u8]) {
    use weakscan::cli::{Cli, Command};
    use weakscan::output::Format;
    let argv = cli_argv(data);
    let cli = match <Cli as clap::Parser>::try_parse_from(&argv) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let json = match &cli.command {
        Command::Check(args) => {
            for inc in &args.max_increase {
                check_increase(*inc);
            }
            if !args.max_increase.is_empty() {
                unchanged_passes(Policy::default(), args.max_increase.clone(), data.len());
            }
            for (pattern, _) in &args.groups {
                if let Err(e) = Pattern::parse(pattern) {
                    panic!("--group {pattern:?} accepted by clap but: {e}");
                }
            }
            assert!(args.depth.is_none_or(|d| d >= 1));
            match args.request() {
                Ok(req) => {
                    assert_eq!(req.top, args.top);
                    assert_eq!(req.flags.rules.groups.len(), args.groups.len());
                    assert_eq!(req.flags.rules.allow_symbols.len(), args.allow.allow.len());
                    assert_eq!(
                        req.flags.rules.max_increase.as_deref().unwrap_or_default(),
                        args.max_increase.as_slice()
                    );
                }
                Err(e) => one_line(&e.message),
            }
            args.format == Format::Json
        }
        Command::Scan(weakscan::cli::ScanArgs { opts, .. })
        | Command::Diff(weakscan::cli::DiffArgs { opts, .. })
        | Command::Verify(weakscan::cli::VerifyArgs { opts, .. }) => {
            assert!(opts.depth >= 1);
            opts.format == Format::Json
        }
        Command::Baseline(a) => {
            assert!(a.depth >= 1);
            true
        }
        Command::Report(_) => false,
        Command::Flags(a) => a.format == weakscan::output::Format::Json,
        Command::Trend(a) => {
            assert!(a.depth >= 1);
            a.format == Format::Json
        }
        Command::Bisect(a) => {
            for (pattern, _) in &a.groups {
                if let Err(e) = Pattern::parse(pattern) {
                    panic!("--group {pattern:?} accepted by clap but: {e}");
                }
            }
            if let Err(e) = a.request() {
                one_line(&e.message);
            }
            a.format == Format::Json
        }
        Command::Hide(a) => {
            if let Some(pattern) = &a.group
                && let Err(e) = Pattern::parse(pattern)
            {
                assert!(
                    a.request().is_err(),
                    "--group {pattern:?} does not compile ({e}) yet the request was made"
                );
            }
            assert!(a.depth >= 1);
            // The harness's --output receives the list, not the report.
            false
        }
        Command::Completions(_) | Command::Man(_) | Command::Schema(_) => false,
    };
    if !safe_to_run(&cli) {
        return;
    }
    // The command writes to --output: a fresh file in the temp directory, removed after.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let out_path = std::env::temp_dir().join(format!(
        "weakscan-harness-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let mut req = match cli.request() {
        Ok(r) => r,
        Err(e) => return one_line(&e.message),
    };
    {
        use weakscan::command::Request;
        let output = match &mut req {
            Request::Scan(r) => &mut r.output,
            Request::Diff(r) => &mut r.output,
            Request::Verify(r) => &mut r.output,
            Request::Flags(r) => &mut r.output,
            Request::Check(r) => &mut r.output,
            Request::Baseline(r) => &mut r.output,
            Request::Report(r) => &mut r.output,
            Request::Trend(r) => &mut r.output,
            Request::Bisect(r) => &mut r.output,
            Request::Hide(r) => &mut r.output,
            Request::Generate(r) => &mut r.output,
        };
        *output = Some(out_path.clone());
    }
    let result = weakscan::command::run(&req, &cli.globals());
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    match result {
        Ok(code) => {
            assert!(code <= 1, "exit {code}");
            if json && let Err(e) = serde_json::from_str::<serde_json::Value>(&stdout) {
                panic!("{argv:?}: JSON does not parse ({e}): {stdout}");
            }
        }
        Err(e) => one_line(&e.message),
    }
}

// ---- two inputs: render and pairs ----

/// Splits a two-input layout:
///
/// ```text
/// first_len: u32 le, first: [u8; first_len], second: [u8]  // each a Mach-O file or a dyld log
/// ```
pub fn split_pair(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let (head, rest) = data.split_at_checked(4)?;
    let n = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    Some(rest.split_at(n.min(rest.len())))
}

/// The two-input layout of `first` and `second` (for seeds).
pub fn join_pair(first: &[u8], second: &[u8]) -> Vec<u8> {
    let mut out = (first.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(first);
    out.extend_from_slice(second);
    out
}

/// The images of one input: a Mach-O file or a dyld log, told apart as weakscan does.
fn images_of(name: &str, bytes: &[u8]) -> Option<Vec<Image>> {
    let path = Path::new(name);
    let read = match weakscan::input::kind_of(bytes) {
        weakscan::input::FileKind::Binary => read_bytes(path, bytes.to_vec(), &ArchFilter::All),
        weakscan::input::FileKind::Log => weakscan::log::read_log_from(path, bytes, None),
    };
    match read {
        Ok(images) => Some(images),
        Err(e) => {
            one_line(&e.message);
            None
        }
    }
}

/// The grouping a two-input target uses: from the input's length, so every grouping is
/// fuzzed.
fn by_of(data: &[u8]) -> GroupBy {
    match data.len() % 4 {
        0 => GroupBy::Template,
        1 => GroupBy::Symbol,
        2 => GroupBy::Pattern,
        _ => GroupBy::Namespace(1 + data.len() % 3),
    }
}

/// Every renderer on every report it renders: `(format and report, text)`, through
/// [`weakscan::output::Render`] with the default options (full width, names demangled).
///
/// The one place the harness calls `weakscan::output` (so a change of the renderers' signature
/// is one edit here).
pub fn render_all(
    scan: Option<&ScanReport>,
    diff: Option<&DiffReport>,
    verify: Option<&VerifyReport>,
    check: Option<&CheckReport>,
) -> Vec<(&'static str, String)> {
    use weakscan::output::{Format, Render, RenderOptions};
    let mut out = Vec::new();
    let mut add = |report: &dyn Render, forms: &[(&'static str, Format)]| {
        for &(what, format) in forms {
            let mut buf = Vec::new();
            report
                .render(format, &mut buf, &RenderOptions::default())
                .expect("writing to memory");
            out.push((what, String::from_utf8(buf).expect("UTF-8 output")));
        }
    };
    if let Some(s) = scan {
        add(
            s,
            &[
                ("table scan", Format::Table),
                ("json scan", Format::Json),
                ("markdown scan", Format::Markdown),
                ("github scan", Format::Github),
            ],
        );
    }
    if let Some(d) = diff {
        add(
            d,
            &[
                ("table diff", Format::Table),
                ("json diff", Format::Json),
                ("markdown diff", Format::Markdown),
                ("github diff", Format::Github),
            ],
        );
    }
    if let Some(v) = verify {
        add(
            v,
            &[
                ("table verify", Format::Table),
                ("json verify", Format::Json),
            ],
        );
    }
    if let Some(c) = check {
        add(
            c,
            &[
                ("table check", Format::Table),
                ("json check", Format::Json),
                ("markdown check", Format::Markdown),
                ("github check", Format::Github),
            ],
        );
    }
    out
}

/// A character the escape rules (docs/robustness.md) keep out of text output: a control
/// character other than a newline, a bidi embedding, override, isolate or mark, or a line or
/// paragraph separator.
fn unescaped(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// What must hold of rendered output: no line holds a GitHub workflow command that weakscan did
/// not write (`##[` anywhere; `::` after leading blanks but in GitHub output's own commands);
/// JSON parses; tables and Markdown have no control or bidi characters but newlines; GitHub
/// output is one workflow command per line, then the summary line.
pub fn check_rendered(what: &str, text: &str) {
    for line in text.lines() {
        assert!(
            !line.contains("##["),
            "{what}: a legacy workflow command: {line:?}"
        );
        let own = what.starts_with("github")
            && ["::error title=", "::notice title=", "::warning title="]
                .iter()
                .any(|c| line.starts_with(c));
        assert!(
            own || !line.trim_start().starts_with("::"),
            "{what}: a workflow command: {line:?}"
        );
    }
    if what.starts_with("json") {
        if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
            panic!("{what}: does not parse: {e}");
        }
        return;
    }
    if let Some(c) = text.chars().find(|&c| unescaped(c)) {
        panic!("{what}: unescaped {c:?} in output");
    }
    if what.starts_with("github") {
        let lines: Vec<&str> = text.lines().collect();
        let (last, commands) = lines.split_last().expect("github output");
        assert!(last.starts_with("weakscan "), "{what}: last line {last:?}");
        for l in commands {
            assert!(
                ["::error title=", "::notice title=", "::warning title="]
                    .iter()
                    .any(|c| l.starts_with(c)),
                "{what}: not a workflow command: {l:?}"
            );
        }
    }
}

/// The check report of `new` against the baseline `weakscan baseline` writes for `old` (binary
/// images only), with a maximum, two increases and two group budgets.
fn check_report(old: &[Image], new: &[Image], by: GroupBy) -> Option<CheckReport> {
    if old.iter().chain(new).any(Image::is_log) || new.is_empty() {
        return None;
    }
    let base =
        weakscan::gate::baseline::parse(&baseline_text(old, by), Path::new("fuzz-base.json"))
            .ok()?;
    let groups = ["*", "re:^v8::"]
        .iter()
        .zip([3, 0])
        .map(|(p, max)| GroupBudget {
            pattern: Pattern::parse(p).expect("a pattern"),
            max,
        })
        .collect();
    let mut policy = increase_policy(
        vec![Increase::Percent(10.0), Increase::Count(2)],
        None,
        groups,
    );
    policy.group_by = by;
    policy.flags.max.insert(Figure::WeakBindSymbols, 4);
    policy.flags.allow_symbols = vec![Pattern::parse("__ZN4node*").expect("a glob")];
    let subjects: Vec<Subject> = new.iter().map(subject_of).collect();
    let names = demangle_all(
        subjects
            .iter()
            .flat_map(|s| s.entries.iter())
            .chain(base.images.iter().flat_map(|i| i.entries.iter()))
            .map(|e| e.raw.as_str()),
        NameStyle::Demangled,
    )
    .expect("demangling threads start");
    let mut images = Vec::new();
    for s in &subjects {
        match evaluate(s, base.image(&s.arch), &policy, &names, 4) {
            Ok(c) => {
                check_image(&c, 4);
                images.push(c);
            }
            Err(e) => one_line(&e.message),
        }
    }
    Some(CheckReport {
        passed: images.iter().all(|c| c.passed),
        policy: Some("fuzz.toml".into()),
        baseline: Some(base.path.display().to_string()),
        group_by: by,
        depth: match by {
            GroupBy::Namespace(d) => Some(d),
            _ => None,
        },
        group_figure: policy.group_figure,
        images,
        demangle_failures: names.failures,
        demangle_failures_by_reason: names.reasons,
        importers: Vec::new(),
        importers_skipped: Vec::new(),
    })
}

/// The renderers (table, JSON, Markdown, GitHub) on the scan, diff, verify and check reports
/// of two fuzzed inputs (layout: [`split_pair`]): scan of both, diff first → second, verify of
/// the first binary image against the second input when that is a log, check of the second
/// against the baseline of the first.
///
/// Invariants: see [`check_rendered`].
pub fn render(data: &[u8]) {
    let Some((a, b)) = split_pair(data) else {
        return;
    };
    let (Some(old), Some(new)) = (images_of("fuzz-old", a), images_of("fuzz-new", b)) else {
        return;
    };
    let by = by_of(data);
    let all: Vec<Image> = old.iter().chain(&new).cloned().collect();
    let scan =
        scan_report(&all, by, Some(20), NameStyle::Demangled).expect("demangling threads start");
    let diff = diff_report(&old, &new, by, Some(20), true, NameStyle::Demangled).ok();
    let verified = old.iter().find(|i| !i.is_log()).and_then(|binary| {
        let mut notes = Vec::new();
        let log = pick_log_image(binary, &new, None, &mut notes).ok()?;
        verify(
            binary,
            &new[log],
            by,
            Some(20),
            1,
            notes,
            NameStyle::Demangled,
        )
        .ok()
    });
    let check = check_report(&old, &new, by);
    for (what, text) in render_all(
        Some(&scan),
        diff.as_ref(),
        verified.as_ref(),
        check.as_ref(),
    ) {
        check_rendered(what, &text);
    }
}

/// The self-diff of `images`: every image pairs with itself and shows no change.
fn self_diff(images: &[Image], by: GroupBy) {
    let r = match diff_report(images, images, by, None, true, NameStyle::Demangled) {
        Ok(r) => r,
        Err(e) => return one_line(&e.message),
    };
    let pairs = pair_images(images, images).expect("paired once already");
    assert_eq!(r.pairs.len(), pairs.len());
    if !images.iter().any(Image::is_log) {
        assert!(
            pairs.iter().all(|(o, n)| std::ptr::eq(*o, *n)),
            "a slice paired with another"
        );
    }
    for ((o, n), p) in pairs.iter().zip(&r.pairs) {
        if !std::ptr::eq(*o, *n) {
            continue;
        }
        assert_eq!(p.old, p.new);
        assert_eq!(p.groups_changed, 0, "{}: self-diff changed", p.label);
        assert!(p.groups.iter().all(|g| g.delta.is_zero()), "{}", p.label);
        if let Some(s) = &p.symbols {
            assert!(s.added.is_empty() && s.removed.is_empty(), "{s:?}");
        }
    }
}

/// One figure of a group's or an image's stats.
type StatOf = fn(&weakscan::analysis::group::GroupStats) -> Option<usize>;

/// Group deltas of each pair of `r` (all groups: no `--top`) sum to the pair's totals, new − old.
fn diff_totals(r: &DiffReport) {
    for p in &r.pairs {
        let (o, n) = (p.old.stats(), p.new.stats());
        let figures: [(&str, StatOf); 4] = [
            ("weak_bound_symbols", |s| s.weak_bound_symbols),
            ("lookups", |s| s.lookups),
            ("sites", |s| s.sites),
            ("weak_def_exports", |s| s.weak_def_exports),
        ];
        for (name, f) in figures {
            let (Some(old), Some(new)) = (f(&o), f(&n)) else {
                continue;
            };
            let sum_new: usize = p.groups.iter().filter_map(|g| f(&g.new)).sum();
            let sum_old: usize = p.groups.iter().filter_map(|g| f(&g.old)).sum();
            assert_eq!(
                (sum_old, sum_new),
                (old, new),
                "{}: {name} of the groups does not add up to the totals",
                p.label
            );
        }
    }
}

/// What must hold of any verify report, and of `verify` run twice on the same images.
fn check_verify(binary: &Image, log: &Image, notes: Vec<String>) {
    let by = GroupBy::Template;
    let r1 = verify(
        binary,
        log,
        by,
        None,
        0,
        notes.clone(),
        NameStyle::Demangled,
    );
    let r2 = verify(binary, log, by, None, 0, notes, NameStyle::Demangled);
    assert_eq!(
        format!("{r1:?}"),
        format!("{r2:?}"),
        "verify is not deterministic"
    );
    let r = match r1 {
        Ok(r) => r,
        Err(e) => return one_line(&e.message),
    };
    let t = r.totals;
    assert_eq!(
        t.predicted - t.predicted_not_seen,
        t.seen - t.seen_not_predicted,
        "{t:?}"
    );
    assert_eq!(r.agrees, counted_differences(r.basis, &t) <= r.tolerance);
    let mut sum = weakscan::analysis::verify::Counts::default();
    for g in &r.groups {
        sum.predicted += g.counts.predicted;
        sum.seen += g.counts.seen;
        sum.predicted_not_seen += g.counts.predicted_not_seen;
        sum.seen_not_predicted += g.counts.seen_not_predicted;
    }
    assert_eq!(sum, t, "groups do not add up to the totals");
}

/// A side's baseline read back is its tally, figure for figure; checked against it with an
/// increase of 0, every image passes.
fn baseline_round_trip(images: &[Image], by: GroupBy) {
    if images.is_empty() || images.iter().any(Image::is_log) {
        return;
    }
    let text = baseline_text(images, by);
    let base = match weakscan::gate::baseline::parse(&text, Path::new("fuzz-self.json")) {
        Ok(b) => b,
        Err(e) => {
            let mut labels: Vec<&str> = images.iter().map(Image::label).collect();
            labels.sort_unstable();
            let n = labels.len();
            labels.dedup();
            assert!(labels.len() < n, "own baseline refused: {e}");
            return;
        }
    };
    let policy = increase_policy(vec![Increase::Count(0)], None, Vec::new());
    for image in images {
        let b = base
            .image(image.label())
            .expect("every arch in the baseline");
        let s = subject_of(image);
        assert_eq!(
            b.entries,
            s.entries,
            "{}: baseline entries differ",
            image.label()
        );
        for f in Figure::ALL {
            assert_eq!(b.figure(f), f.of(&s.summary), "{}: {f}", image.label());
        }
        let names = demangle_all(
            s.entries.iter().map(|e| e.raw.as_str()),
            NameStyle::Demangled,
        )
        .expect("demangling threads start");
        match evaluate(&s, Some(b), &policy, &names, 5) {
            Ok(c) => {
                check_image(&c, 5);
                assert!(c.passed, "unchanged image failed its own baseline: {c:#?}");
            }
            Err(e) => panic!("own baseline: {e}"),
        }
    }
}

/// Diff, verify and check logic on two fuzzed inputs (layout: [`split_pair`]).
///
/// Invariants: an input diffed with itself pairs every slice with itself and shows no change;
/// group deltas of the diff first → second add up to the totals, new − old; verify is
/// deterministic, its groups add up to its totals, and a binary verified against itself
/// agrees; a binary's baseline reads back as its tally and an unchanged image passes it with
/// an increase of 0; checks obey [`check_image`].
pub fn pairs(data: &[u8]) {
    let Some((a, b)) = split_pair(data) else {
        return;
    };
    let (Some(old), Some(new)) = (images_of("fuzz-old", a), images_of("fuzz-new", b)) else {
        return;
    };
    let by = by_of(data);
    self_diff(&old, by);
    self_diff(&new, by);
    match diff_report(&old, &new, by, None, true, NameStyle::Demangled) {
        Ok(r) => diff_totals(&r),
        Err(e) => one_line(&e.message),
    }
    for binary in old.iter().filter(|i| !i.is_log()).take(2) {
        let r = verify(
            binary,
            binary,
            by,
            None,
            0,
            Vec::new(),
            NameStyle::Demangled,
        );
        match r {
            Ok(r) => assert!(r.agrees && r.totals.differences() == 0, "{:?}", r.totals),
            Err(e) => one_line(&e.message),
        }
        check_verify(binary, binary, Vec::new());
        let mut notes = Vec::new();
        if let Ok(log) = pick_log_image(binary, &new, None, &mut notes) {
            check_verify(binary, &new[log], notes);
        }
    }
    baseline_round_trip(&old, by);
    baseline_round_trip(&new, by);
    if let Some(mut r) = check_report(&old, &new, by) {
        r.importers = importer_checks(&old, a, b);
        for (what, text) in render_all(None, None, None, Some(&r)) {
            check_rendered(what, &text);
        }
    }
}

/// The second input of a pair held as an importer against the first one's slices (the
/// importer reader, the export-trie lookup and the check).
///
/// Invariants: an importer's imports held against the image are those exported plus those
/// missing; it passes exactly when every missing one is a weak import; errors are one line.
fn importer_checks(old: &[Image], a: &[u8], b: &[u8]) -> Vec<ImporterCheck> {
    let mut out = Vec::new();
    for image in old.iter().filter(|i| !i.is_log()).take(2) {
        let Some(arch) = image.arch.as_deref() else {
            continue;
        };
        let Some(imp) = importer_of("fuzz-new", b, arch) else {
            continue;
        };
        let file = MachOFile::from_bytes(Path::new("fuzz-old"), a.to_vec());
        let trie = match ExportTrie::read_from(&file, arch) {
            Ok(t) => t,
            Err(e) => {
                one_line(&e.message);
                continue;
            }
        };
        let target = Target {
            filetype: image.filetype,
            install_name: image
                .linkage
                .as_ref()
                .and_then(|l| l.install_name.as_deref()),
        };
        let mut budget = LookupBudget::default();
        match check_importer(&imp, &target, &image.path, |n| {
            Ok(trie.find(n, &mut budget)?.is_some())
        }) {
            Ok(c) => {
                assert_eq!(c.exported + c.missing.len(), c.imports, "{c:?}");
                assert_eq!(c.passed, c.missing.iter().all(|m| m.weak_import));
                out.push(c);
            }
            Err(e) => one_line(&e.message),
        }
    }
    out
}

/// A seed for `export_trie` that no fixture has (ld64.lld writes no re-export entry): a flat
/// trie of re-exports that chain through renames (`_a` → `_b` → `_c`), loop (`_l` → `_l`),
/// name ordinals out of range (0, 9) or a missing dylib (3), and one weak definition (`_c`).
pub fn reexport_seed() -> Vec<u8> {
    let entries: [(&[u8], &[u8]); 7] = [
        (b"_l", &[0x08, 0x02, 0x00]),
        (b"_c", &[0x04, 0x10]),
        (b"_b", &[0x08, 0x01, b'_', b'c', 0x00]),
        (b"_a", &[0x08, 0x01, b'_', b'b', 0x00]),
        (b"_9", &[0x08, 0x09, 0x00]),
        (b"_3", &[0x08, 0x03, 0x00]),
        (b"_0", &[0x08, 0x00, 0x00]),
    ];
    let edges: usize = entries.iter().map(|(n, _)| n.len() + 2).sum();
    let mut trie = vec![0u8, entries.len() as u8];
    let mut nodes = Vec::new();
    for (name, terminal) in entries {
        trie.extend_from_slice(name);
        trie.extend_from_slice(&[0, (2 + edges + nodes.len()) as u8]);
        nodes.push(terminal.len() as u8);
        nodes.extend_from_slice(terminal);
        nodes.push(0);
    }
    trie.extend_from_slice(&nodes);
    trie
}

/// Seed inputs for every target, cut from the committed fixtures in `testdata`: whole binaries
/// and logs, and each binary slice's export trie, weak-bind stream (with its segments) and
/// chained-fixups blob (with the pages of its first segment with chains), each in the target's
/// input layout. Returns `(target, bytes)` pairs in a fixed order.
pub fn seeds(testdata: &Path) -> Vec<(&'static str, Vec<u8>)> {
    use weakscan::macho::file::MachOFile;
    use weakscan::macho::load_commands::read_load_commands;
    let sorted = |dir: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_else(|_| Vec::new());
        v.sort();
        v
    };
    let mut out = Vec::new();
    for path in sorted(&testdata.join("bin")) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(file) = MachOFile::open(&path) else {
            continue;
        };
        for loc in file.slices().unwrap_or_default() {
            let Ok(lc) = read_load_commands(&file, &loc) else {
                continue;
            };
            let range = |r: weakscan::macho::load_commands::LinkeditRange| {
                let start = loc.offset as usize + r.offset as usize;
                bytes
                    .get(start..start + r.size as usize)
                    .unwrap_or_default()
                    .to_vec()
            };
            if let Some(r) = lc.exports_trie.or(lc.dyld_info_exports) {
                out.push(("export_trie", range(r)));
            }
            if let Some(r) = lc.dyld_info_weak_bind {
                let mut input = vec![lc.segments.len().min(7) as u8];
                for s in lc.segments.iter().take(7) {
                    let flags =
                        u8::from(s.initprot & 2 != 0) | u8::from(s.name == "__LINKEDIT") << 1;
                    input.push(flags);
                    input.extend((s.vmsize.min(u64::from(u32::MAX)) as u32).to_le_bytes());
                }
                input.extend(range(r));
                out.push(("bind_opcodes", input));
            }
            if let Some(r) = lc.chained_fixups {
                let blob = range(r);
                let mut input = vec![
                    lc.segments.len().min(255) as u8,
                    lc.dylib_count.min(255) as u8,
                ];
                input.extend((blob.len() as u32).to_le_bytes());
                input.extend(&blob);
                // The file bytes of the first segment whose chains the fixtures use (__DATA_CONST
                // or __DATA), at most 64 KiB.
                if let Ok(f) = parse_chained_fixups(&blob, lc.segments.len(), lc.dylib_count)
                    && let Some(first) = f.segments.first()
                {
                    let seg = &lc.segments[first.segment_index];
                    let start = (loc.offset + seg.fileoff) as usize;
                    let len = (seg.filesize as usize).min(64 << 10);
                    input.extend(bytes.get(start..start + len).unwrap_or_default());
                }
                out.push(("chained_fixups", input));
            }
        }
        // The debug map: a split byte, the symbol table, the string table.
        if let Some(loc) = file.slices().unwrap_or_default().first()
            && let Ok(lc) = read_load_commands(&file, loc)
            && let Some(st) = lc.symtab
        {
            let at = |off: u32, len: usize| {
                let start = loc.offset as usize + off as usize;
                bytes.get(start..start + len).unwrap_or_default().to_vec()
            };
            let syms = at(st.symoff, st.nsyms as usize * 16);
            let strs = at(st.stroff, st.strsize as usize);
            let cut = (syms.len() * 255 / (syms.len() + strs.len()).max(1)) as u8;
            let mut input = vec![cut];
            input.extend(syms);
            input.extend(strs);
            out.push(("debug_map", input));
        }
        out.push(("macho", bytes));
    }
    // Importers: opcodes (lazy, flat lookups; universal) and a two-level dylib.
    for name in ["addon.bundle", "client.dylib"] {
        if let Ok(bytes) = std::fs::read(testdata.join("importers").join(name)) {
            out.push(("macho", bytes));
        }
    }
    out.push(("export_trie", reexport_seed()));
    let attr = testdata.join("attr");
    for (target, file) in [
        ("link_map", attr.join("app-attr-x86_64.map")),
        ("link_map", testdata.join("origin/lld-x86_64.map")),
        ("compile_db", attr.join("compile_commands.json")),
        ("archive", attr.join("libdescriptors_a.a")),
        ("archive", testdata.join("archive/libweak-gnu.a")),
        ("archive", testdata.join("archive/libweak-darwin.a")),
        (
            "dsym",
            attr.join("app-attr-x86_64.dSYM/Contents/Resources/DWARF/app-attr-x86_64"),
        ),
        (
            "dsym",
            testdata.join("origin/liba.dylib.dSYM/Contents/Resources/DWARF/liba.dylib"),
        ),
    ] {
        if let Ok(bytes) = std::fs::read(&file) {
            out.push((target, bytes));
        }
    }
    for path in sorted(&testdata.join("logs")) {
        if path.extension().is_some_and(|e| e == "log")
            && let Ok(bytes) = std::fs::read(&path)
        {
            for line in bytes
                .split(|&b| b == b'\n')
                .filter(|l| l.len() > 8)
                .step_by(7)
                .take(40)
            {
                let symbol = line
                    .split(|&b| b == b' ' || b == b'\'' || b == b'/' || b == b')')
                    .find(|w| w.starts_with(b"__Z"));
                if let Some(s) = symbol {
                    out.push(("demangle", s[1..].to_vec()));
                    out.push(("printer", s[1..].to_vec()));
                }
            }
            out.push(("log", bytes));
        }
    }
    out.extend(gate_seeds(testdata));
    out
}

/// A Rust string literal's value, from just after its opening quote (the escapes the tests
/// use: `\n`, `\t`, `\"`, `\\`).
fn rust_string(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The policy files of the repository: `tests/golden/gate.toml`, the TOML blocks of
/// `docs/ci.md`, the policy strings of `tests/check.rs` and the example of `src/gate/policy.rs`.
pub fn policy_texts(root: &Path) -> Vec<String> {
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap_or_default();
    let mut out = vec![read("tests/golden/gate.toml")];
    let mut block: Option<String> = None;
    for line in read("docs/ci.md").lines() {
        match (&mut block, line.trim()) {
            (None, "```toml") => block = Some(String::new()),
            (Some(_), "```") => out.extend(block.take()),
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            _ => {}
        }
    }
    for line in read("tests/check.rs").lines() {
        if let Some(rest) = line.trim().strip_prefix("\"[") {
            out.extend(rust_string(rest).map(|s| format!("[{s}")));
        }
    }
    let src = read("src/gate/policy.rs");
    for part in src.split("r#\"").skip(1) {
        out.extend(part.split_once("\"#").map(|(t, _)| t.to_string()));
    }
    out.retain(|t| !t.is_empty());
    out
}

/// Pairs of fixtures (old, new) for the two-input targets: builds, a build and its log, logs.
const PAIRS: [(&str, &str); 12] = [
    // An image and an importer of it (`pairs` holds the second as the first's importer).
    ("importers/api-v2", "importers/plugin.bundle"),
    ("importers/libapi.dylib", "importers/client.dylib"),
    (
        "bin/app-default-chained-x86_64",
        "bin/app-v2-default-chained-x86_64",
    ),
    (
        "bin/app-default-opcodes-arm64",
        "bin/app-v2-default-opcodes-arm64",
    ),
    (
        "bin/app-default-chained-x86_64",
        "logs/dyld4-macos15-chained.log",
    ),
    (
        "bin/app-default-opcodes-x86_64",
        "logs/dyld4-macos15-opcodes.log",
    ),
    ("bin/app-default-opcodes-x86_64", "logs/dyld2-macos11.log"),
    (
        "bin/app-default-chained-universal",
        "bin/app-hidden-chained-x86_64",
    ),
    (
        "logs/dyld4-macos14-opcodes.log",
        "logs/dyld4-macos26-opcodes.log",
    ),
    (
        "bin/libweak-chained-x86_64.dylib",
        "bin/app-uselib-default-chained-x86_64",
    ),
    (
        "bin/app-uselib-default-chained-x86_64",
        "logs/dyld4-macos15-uselib.log",
    ),
    (
        "bin/app-default-chained-x86_64",
        "logs/dyld4-macos14-chained.log",
    ),
];

/// Seeds of the gate, command-line and two-input targets.
fn gate_seeds(testdata: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();
    let root = testdata.join("..");
    let policies = policy_texts(&root);
    let mut patterns: Vec<String> = CLI_PATTERNS.iter().map(|p| p.to_string()).collect();
    for text in &policies {
        out.push(("policy", text.clone().into_bytes()));
        if let Ok(p) = Policy::parse(text, Path::new("weakscan.toml")) {
            for r in std::iter::once(&p.common).chain(p.arches.values()) {
                patterns.extend(r.groups.iter().map(|g| g.pattern.text.clone()));
                patterns.extend(r.allow_symbols.iter().map(|g| g.text.clone()));
                patterns.extend(r.allow_groups.iter().map(|g| g.text.clone()));
            }
        }
    }
    patterns.sort();
    patterns.dedup();
    for p in patterns {
        let input =
            format!("{p}\0v8::internal::StaticCallInterfaceDescriptor<…>\0node::SPrintFImpl<…>");
        out.push(("pattern", input.into_bytes()));
    }
    let mut bins: Vec<PathBuf> = std::fs::read_dir(testdata.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    bins.sort();
    for (i, path) in bins.iter().enumerate() {
        if let Ok(images) = weakscan::macho::read_file(path, &ArchFilter::All) {
            let mut input = vec![i as u8];
            input.extend(baseline_text(&images, GroupBy::Template).into_bytes());
            out.push(("baseline", input));
        }
    }
    if let Ok(golden) =
        std::fs::read(root.join("tests/golden/baseline-app-default-chained-x86_64.json"))
    {
        let mut input = vec![0u8];
        input.extend(golden);
        out.push(("baseline", input));
    }
    // Baselines of schema_version 1, as weakscan 0.1.0 wrote them.
    let mut old: Vec<PathBuf> = std::fs::read_dir(testdata.join("baselines"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    old.sort();
    for (i, path) in old.iter().enumerate() {
        if let Ok(text) = std::fs::read(path) {
            let mut input = vec![i as u8];
            input.extend(text);
            out.push(("baseline", input));
        }
    }
    // Command lines: inputs of a fixed pseudo-random sequence that clap accepts, at most 6 per
    // subcommand (the input is decoded by `arbitrary`, which has no encoder to write seeds with).
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut per_command = std::collections::BTreeMap::new();
    for _ in 0..20_000 {
        let mut input = Vec::new();
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = 8 + (state >> 59) as usize * 4;
        for _ in 0..len {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            input.push((state >> 56) as u8);
        }
        let argv = cli_argv(&input);
        if let Ok(cli) = <weakscan::cli::Cli as clap::Parser>::try_parse_from(&argv) {
            let name = format!("{:?}", cli.command)
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .collect::<String>();
            let n = per_command.entry(name).or_insert(0);
            if *n < 6 {
                *n += 1;
                out.push(("cli", input));
            }
        }
    }
    for (a, b) in PAIRS {
        if let (Ok(a), Ok(b)) = (
            std::fs::read(testdata.join(a)),
            std::fs::read(testdata.join(b)),
        ) {
            let input = join_pair(&a, &b);
            out.push(("render", input.clone()));
            out.push(("pairs", input));
        }
    }
    out
}
