//! The fuzz harnesses: one function per parser, taking arbitrary bytes.
//!
//! The same file is compiled twice: into the cargo-fuzz targets in `fuzz/fuzz_targets/`
//! (through `#[path]`), and into the integration tests, which replay every committed finding in
//! `tests/regressions/<target>/` and every seed through it. A harness must never panic: it
//! accepts the input or gets a one-line error, and on success it checks what must hold of any
//! accepted input (the invariants below), so a parser that "succeeds" with an impossible answer
//! is a finding too.
//!
//! Only weakscan's public API and std are used here, so both crates can compile it.

#![allow(dead_code)]

use std::path::Path;
use weakscan::analysis::demangle::demangle_all;
use weakscan::analysis::group::GroupBy;
use weakscan::analysis::report::scan_report;
use weakscan::macho::bind_opcodes::{MAX_BIND_LOCATIONS, SegmentBounds, parse_weak_binds};
use weakscan::macho::chained_fixups::{ChainedFixup, Visited, parse_chained_fixups, walk_chain};
use weakscan::macho::export_trie::{
    MAX_NAME_BYTES_PER_TRIE_BYTE, MAX_NAME_EXTRA_BYTES, walk_export_trie,
};
use weakscan::macho::{ArchFilter, read_bytes};

/// A harness: takes any bytes, panics only on a bug.
pub type Harness = fn(&[u8]);

/// The fuzz targets, by name (also the directory names under `fuzz/corpus` and
/// `tests/regressions`).
pub const TARGETS: [(&str, Harness); 6] = [
    ("export_trie", export_trie),
    ("bind_opcodes", bind_opcodes),
    ("chained_fixups", chained_fixups),
    ("macho", macho),
    ("log", log),
    ("demangle", demangle),
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
/// prefixes print more than 4 × its size, as a valid 994-byte trie does).
pub fn export_trie(data: &[u8]) {
    let (mut count, mut name_bytes) = (0usize, 0usize);
    match walk_export_trie(data, |name, _flags, _target| {
        count += 1;
        name_bytes += name.len();
    }) {
        Ok(()) => {
            assert!(
                count <= data.len(),
                "{count} exports from {} bytes",
                data.len()
            );
            assert!(
                name_bytes <= data.len() * MAX_NAME_BYTES_PER_TRIE_BYTE + MAX_NAME_EXTRA_BYTES,
                "{name_bytes} name bytes from {} trie bytes",
                data.len()
            );
        }
        Err(e) => one_line(&e.to_string()),
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
            }
            // One analysis pass: demangling and grouping are fuzzed on their own by `demangle`.
            let _ = scan_report(&images, GroupBy::Template, None).expect("demangling threads start");
        }
        Err(e) => {
            one_line(&e.message);
            assert!(e.message.starts_with("fuzz-input: "), "{e}");
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
            let _ = scan_report(&images, GroupBy::Template, None).expect("demangling threads start");
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
/// Invariants: a name always comes back (demangled or raw), and every grouping key of it is
/// produced without panicking.
pub fn demangle(data: &[u8]) {
    let raw = String::from_utf8_lossy(data);
    let names = demangle_all([raw.as_ref()]).expect("demangling threads start");
    let name = names.lookup(&raw);
    for by in [
        GroupBy::Symbol,
        GroupBy::Pattern,
        GroupBy::Template,
        GroupBy::Namespace(1),
        GroupBy::Namespace(3),
    ] {
        let _ = by.key(&name);
    }
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
        out.push(("macho", bytes));
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
                }
            }
            out.push(("log", bytes));
        }
    }
    out
}
