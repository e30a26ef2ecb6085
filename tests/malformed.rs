//! The malformed-input corpus, `testdata/malformed/`: every file is made here from a committed
//! fixture by one patch, and `testdata/malformed/expected.tsv` holds the exact error line each
//! must give. `WEAKSCAN_BLESS=1 cargo test malformed` rewrites both (review the diff); without
//! it the test checks that the committed files are exactly what the code below makes, so the
//! corpus is generated, never hand-edited.
//!
//! Each input is run through the binary under `ulimit -v 262144 -t 60` (on Linux; elsewhere
//! only `-t`): 256 MiB of address space, which an input that made weakscan allocate from a
//! count in the file would exceed, and
//! 60 s of CPU, a hang guard far above the milliseconds each case takes
//! (`scripts/bench-malformed.sh` measures both; docs/robustness.md has the figures). Inputs that
//! cannot live in git (a directory, an unreadable file, a symlink loop, a 10⁶-node-deep trie of
//! 10 MB) are made in a temporary directory by the same code.

use crate::util::{fixture, testdata, uleb};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One malformed input: its file name and bytes.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// File offset of the first load command `cmd` of a thin 64-bit image.
fn command(b: &[u8], cmd: u32) -> usize {
    let mut off = 32;
    for _ in 0..le32(b, 16) {
        if le32(b, off) == cmd {
            return off;
        }
        off += le32(b, off + 4) as usize;
    }
    panic!("no load command {cmd:#x}");
}

/// File offset of the `LC_SEGMENT_64` named `name`.
fn segment(b: &[u8], name: &[u8]) -> usize {
    let mut off = 32;
    for _ in 0..le32(b, 16) {
        if le32(b, off) == 0x19
            && b[off + 8..off + 24].starts_with(name)
            && b[off + 8 + name.len()] == 0
        {
            return off;
        }
        off += le32(b, off + 4) as usize;
    }
    panic!("no segment {}", String::from_utf8_lossy(name));
}

const LC_DYLD_INFO_ONLY: u32 = 0x8000_0022;
const LC_DYLD_CHAINED_FIXUPS: u32 = 0x8000_0034;
const LC_DYLD_EXPORTS_TRIE: u32 = 0x8000_0033;
/// The opcode-fixups base: has a weak-bind stream and an LC_DYLD_INFO export trie.
const OPCODES: &str = "app-default-opcodes-x86_64";
/// The chained base.
const CHAINED: &str = "app-default-chained-x86_64";

fn base(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

/// `OPCODES` with its weak-bind stream replaced by `stream` (padded with `BIND_OPCODE_DONE`,
/// in place, so the LINKEDIT layout stays valid).
fn with_weak_binds(stream: &[u8]) -> Vec<u8> {
    let mut b = base(OPCODES);
    let lc = command(&b, LC_DYLD_INFO_ONLY);
    let (off, size) = (le32(&b, lc + 24) as usize, le32(&b, lc + 28) as usize);
    assert!(
        stream.len() <= size,
        "weak-bind stream of {size} bytes is too small"
    );
    b[off..off + size].fill(0);
    b[off..off + stream.len()].copy_from_slice(stream);
    b
}

/// `OPCODES` with its export trie replaced in place by `trie` (export_size shrunk to it).
fn with_trie(trie: &[u8]) -> Vec<u8> {
    let mut b = base(OPCODES);
    let lc = command(&b, LC_DYLD_INFO_ONLY);
    let (off, size) = (le32(&b, lc + 40) as usize, le32(&b, lc + 44) as usize);
    assert!(trie.len() <= size);
    b[off..off + trie.len()].copy_from_slice(trie);
    put32(&mut b, lc + 44, trie.len() as u32);
    b
}

/// `CHAINED` with `patch(bytes, blob file offset)` applied to its chained-fixups blob.
fn with_chained(patch: impl FnOnce(&mut Vec<u8>, usize)) -> Vec<u8> {
    let mut b = base(CHAINED);
    let lc = command(&b, LC_DYLD_CHAINED_FIXUPS);
    let blob = le32(&b, lc + 8) as usize;
    patch(&mut b, blob);
    b
}

/// File offset of the first `dyld_chained_starts_in_segment` of the blob at `blob`.
fn first_segment_starts(b: &[u8], blob: usize) -> usize {
    let starts = blob + le32(b, blob + 4) as usize;
    let seg_count = le32(b, starts) as usize;
    (0..seg_count)
        .map(|i| le32(b, starts + 4 + 4 * i) as usize)
        .find(|&o| o != 0)
        .map(|o| starts + o)
        .expect("a segment with fixups")
}

/// A universal file (`FAT_MAGIC`) with `entries` = (cputype, cpusubtype, offset, size) and
/// the slices' bytes placed at their offsets.
fn fat(entries: &[(u32, u32, u32, u32)], slices: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let mut f = vec![0xca, 0xfe, 0xba, 0xbe];
    f.extend((entries.len() as u32).to_be_bytes());
    for &(ct, st, off, size) in entries {
        for v in [ct, st, off, size, 14] {
            f.extend(v.to_be_bytes());
        }
    }
    for (at, bytes) in slices {
        f.resize(*at as usize, 0);
        f.extend(bytes);
    }
    f
}

/// The committed corpus, in a fixed order.
fn corpus() -> Vec<Case> {
    let x86 = base(CHAINED);
    let arm = base("app-default-chained-arm64");
    let case = |name, bytes| Case { name, bytes };
    let mut cases = vec![
        case("empty", Vec::new()),
        case(
            "not-macho-elf",
            b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0".to_vec(),
        ),
        case(
            "not-macho-text",
            b"#!/bin/sh\n# a shell script, not a binary nor a dyld log\nexec node \"$@\"\n"
                .to_vec(),
        ),
        case("truncated-magic", x86[..3].to_vec()),
        case("truncated-header", x86[..20].to_vec()),
        case("truncated-load-commands", x86[..512].to_vec()),
        case("truncated-linkedit", x86[..x86.len() - 100].to_vec()),
        case("thirty-two-bit", {
            let mut h = vec![0xce, 0xfa, 0xed, 0xfe, 7, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0];
            h.resize(28, 0);
            h
        }),
        case("big-endian", {
            let mut h = vec![0xfe, 0xed, 0xfa, 0xcf, 1, 0, 0, 7, 0, 0, 0, 3];
            h.resize(32, 0);
            h
        }),
    ];
    let mut b = x86.clone();
    put32(&mut b, 20, 0x00ff_ffff); // sizeofcmds
    cases.push(case("load-commands-past-end", b));
    let mut b = x86.clone();
    put32(&mut b, 32 + 4, le32(&x86, 20) + 8); // first cmdsize runs past sizeofcmds
    cases.push(case("load-command-past-sizeofcmds", b));
    let mut b = x86.clone();
    put32(&mut b, 32 + 4, 0);
    cases.push(case("load-command-zero-cmdsize", b));
    let mut b = x86.clone();
    let seg = segment(&b, b"__DATA_CONST");
    put64(&mut b, seg + 48, 1 << 40); // filesize
    cases.push(case("segment-past-end", b));
    let mut b = x86.clone();
    let (data_const, data) = (segment(&b, b"__DATA_CONST"), segment(&b, b"__DATA"));
    let fileoff = b[data_const + 40..data_const + 48].to_vec();
    b[data + 40..data + 48].copy_from_slice(&fileoff); // __DATA's bytes now start at __DATA_CONST's
    cases.push(case("segments-overlap-in-file", b));
    let mut b = x86.clone();
    let lc = command(&b, LC_DYLD_CHAINED_FIXUPS);
    put32(&mut b, lc + 8, 0xffff_ff00);
    cases.push(case("linkedit-out-of-file", b));
    let mut b = x86.clone();
    let (fixups, trie) = (
        command(&b, LC_DYLD_CHAINED_FIXUPS),
        command(&b, LC_DYLD_EXPORTS_TRIE),
    );
    let at = le32(&b, fixups + 8);
    put32(&mut b, trie + 8, at + 8); // the export trie now starts inside the fixups blob
    cases.push(case("linkedit-overlap", b));
    let mut b = x86.clone();
    let seg = segment(&b, b"__LINKEDIT");
    let filesize = u64::from_le_bytes(b[seg + 48..seg + 56].try_into().unwrap());
    put64(&mut b, seg + 48, filesize - 64);
    cases.push(case("linkedit-beyond-segment", b));

    // Export tries (installed in place of OPCODES's trie).
    // root: no terminal, one child "a" -> node at 5; that node: one child "b" -> itself.
    cases.push(case(
        "trie-loop",
        with_trie(&[0, 1, b'a', 0, 5, 0, 1, b'b', 0, 5]),
    ));
    cases.push(case(
        "trie-child-past-end",
        with_trie(&[0, 1, b'a', 0, 0x7f]),
    ));
    cases.push(case("trie-uleb-overflow", with_trie(&[0x80; 12])));

    // Weak-bind streams (installed in place of OPCODES's stream).
    let data = 2; // segment index of __DATA_CONST? any writable one: checked below
    let mut s = vec![0x70 | data];
    s.extend([0xff; 10]);
    s.push(0x01);
    cases.push(case("bind-uleb-overflow", with_weak_binds(&s)));
    let mut s = vec![0x40];
    s.extend(b"__Z1fv\0");
    s.push(0x70 | data);
    s.push(0);
    s.push(0xC0);
    uleb(u64::MAX, &mut s);
    s.push(0);
    cases.push(case("bind-repeat-2e64-1", with_weak_binds(&s)));
    cases.push(case("bind-unknown-opcode", with_weak_binds(&[0xE0])));
    cases.push(case("bind-dylib-ordinal", with_weak_binds(&[0x12, 0x90])));
    let mut s = vec![0x40];
    s.extend(b"__Z1fv\0");
    s.extend([0x7f, 0, 0x90]); // segment 15, DO_BIND
    cases.push(case("bind-segment-out-of-range", with_weak_binds(&s)));

    // Chained fixups (patched in CHAINED's blob).
    cases.push(case(
        "chained-import-ordinal-out-of-range",
        with_chained(|b, blob| {
            let imports = blob + le32(b, blob + 8) as usize;
            assert_eq!(le32(b, blob + 20), 1, "DYLD_CHAINED_IMPORT");
            b[imports] = 0x7f; // lib_ordinal 127, no such dylib
        }),
    ));
    cases.push(case(
        "chained-bind-ordinal-out-of-range",
        with_chained(|b, blob| put32(b, blob + 16, 1)), // imports_count 1
    ));
    cases.push(case(
        "chained-unknown-pointer-format",
        with_chained(|b, blob| {
            let seg = first_segment_starts(b, blob);
            b[seg + 6..seg + 8].copy_from_slice(&99u16.to_le_bytes());
        }),
    ));
    cases.push(case(
        "chained-unknown-imports-format",
        with_chained(|b, blob| put32(b, blob + 20, 7)),
    ));

    // Universal files.
    cases.push(case("fat-zero-slices", fat(&[], &[])));
    let (xs, as_) = (x86.len() as u32, arm.len() as u32);
    cases.push(case(
        "fat-duplicate-slices",
        fat(
            &[(0x0100_0007, 3, 0x4000, xs), (0x0100_0007, 3, 0x4000, xs)],
            &[(0x4000, x86.clone())],
        ),
    ));
    cases.push(case(
        "fat-slice-outside-file",
        fat(
            &[(0x0100_000c, 0, 0x4000, as_ + 0x10_0000)],
            &[(0x4000, arm.clone())],
        ),
    ));
    cases.push(case(
        "fat-overlapping-slices",
        fat(
            &[(0x0100_0007, 3, 0x4000, xs), (0x0100_000c, 0, 0x4000, xs)],
            &[(0x4000, x86.clone())],
        ),
    ));
    cases.push(case(
        "fat-too-many-slices",
        fat(&vec![(0x0100_0007, 3, 0x4000, xs); 1000], &[]),
    ));
    let full = fat(
        &[(0x0100_0007, 3, 0x4000, xs), (0x0100_000c, 0, 0x10000, as_)],
        &[(0x4000, x86.clone()), (0x10000, arm.clone())],
    );
    cases.push(case("fat-truncated", full[..0x10000 + 4096].to_vec()));
    // The debug map (LC_SYMTAB stabs).
    let st = command(&x86, 0x2);
    let (symoff, nsyms) = (le32(&x86, st + 8) as usize, le32(&x86, st + 12) as usize);
    let strsize = le32(&x86, st + 20);
    let stab_types: Vec<u8> = (0..nsyms).map(|i| x86[symoff + i * 16 + 4]).collect();
    let first_oso = stab_types
        .iter()
        .position(|&t| t == 0x66)
        .expect("an N_OSO");
    let last_so = stab_types
        .iter()
        .rposition(|&t| t == 0x64)
        .expect("an N_SO");
    let mut b = x86.clone();
    put32(&mut b, symoff + first_oso * 16, strsize + 100);
    cases.push(case("stab-string-past-string-table", b));
    let mut b = x86.clone();
    b[symoff + last_so * 16 + 4] = 0x2e; // the closing N_SO becomes an N_BNSYM
    cases.push(case("stab-oso-without-closing-so", b));
    let mut b = x86.clone();
    put32(&mut b, st + 12, 0x0fff_ffff); // nsyms
    cases.push(case("symtab-past-end", b));
    // A static archive whose first member's size runs past the end of the file.
    let mut b = std::fs::read(testdata().join("attr/libdescriptors_a.a")).expect("archive");
    b[8 + 48..8 + 58].copy_from_slice(b"9999999999");
    cases.push(case("archive-member-size-lies", b));
    // An LC_LAZY_LOAD_DYLIB_INFO whose load path starts past its data.
    let mut b = std::fs::read(testdata().join("process/Lazy/main")).expect("Lazy/main");
    let data = le32(&b, command(&b, 0x3a) + 8) as usize;
    put32(&mut b, data, 0xffff);
    cases.push(case("lazy-load-path-past-data", b));
    cases
}

fn corpus_dir() -> PathBuf {
    testdata().join("malformed")
}

fn bless() -> bool {
    std::env::var_os("WEAKSCAN_BLESS").is_some()
}

/// Runs `weakscan scan PATH` (cwd: the crate root) under the memory and CPU limits; returns
/// (exit code, stdout, stderr).
fn run_limited(path: &Path) -> (Option<i32>, String, String) {
    let bin = assert_cmd::cargo::cargo_bin("weakscan");
    // macOS's sh cannot limit address space; there the CPU limit alone guards against hangs.
    let limits = if cfg!(target_os = "linux") {
        r#"ulimit -v 262144 && ulimit -t 60 && exec "$0" scan "$1""#
    } else {
        r#"ulimit -t 60 && exec "$0" scan "$1""#
    };
    let out = Command::new("sh")
        .arg("-c")
        .arg(limits)
        .arg(bin)
        .arg(path)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("sh");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts one error line and exit 2; returns the line.
fn one_error_line(path: &Path) -> String {
    let (code, stdout, stderr) = run_limited(path);
    assert_eq!(
        code,
        Some(2),
        "{}: exit {code:?}, stderr {stderr:?}",
        path.display()
    );
    assert_eq!(stdout, "", "{}", path.display());
    assert_eq!(stderr.matches('\n').count(), 1, "one line: {stderr:?}");
    let line = stderr.trim_end().to_string();
    let prefix = format!("weakscan: {}: ", path.display());
    assert!(
        line.starts_with(&prefix),
        "{line:?} names {}",
        path.display()
    );
    line
}

#[test]
fn malformed_corpus_is_generated_not_edited() {
    let dir = corpus_dir();
    let cases = corpus();
    if bless() {
        std::fs::create_dir_all(&dir).unwrap();
    }
    for c in &cases {
        let path = dir.join(c.name);
        if bless() {
            std::fs::write(&path, &c.bytes).unwrap();
        }
        let committed = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (WEAKSCAN_BLESS=1 writes it)", path.display()));
        assert!(
            committed == c.bytes,
            "{} differs from its generator",
            c.name
        );
    }
    // No stray file: every file in the directory is a case or the table.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "expected.tsv" && n != "README.md")
        .collect();
    names.sort();
    let mut want: Vec<String> = cases.iter().map(|c| c.name.to_string()).collect();
    want.sort();
    assert_eq!(names, want);
}

#[test]
fn each_malformed_input_gives_its_one_line_error_and_exit_2() {
    let table = corpus_dir().join("expected.tsv");
    let mut rows =
        String::from("# file\terror line of `weakscan scan testdata/malformed/FILE` (exit 2)\n");
    let expected = std::fs::read_to_string(&table).unwrap_or_default();
    for c in corpus() {
        let rel = Path::new("testdata/malformed").join(c.name);
        let line = one_error_line(&rel);
        let message = line.trim_start_matches(&format!("weakscan: {}: ", rel.display()));
        let row = format!("{}\t{message}\n", c.name);
        if !bless() {
            assert!(
                expected.contains(&row),
                "{}: got {message:?}, expected.tsv has no such row",
                c.name
            );
        }
        rows.push_str(&row);
    }
    if bless() {
        std::fs::write(&table, &rows).unwrap();
    } else {
        assert_eq!(
            expected, rows,
            "expected.tsv has rows for inputs that are gone"
        );
    }
}

/// Inputs that cannot be committed, made in a temporary directory.
#[test]
fn uncommittable_inputs_give_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    // A directory is read as a whole process (docs/process.md): this one has no executable.
    let line = one_error_line(d);
    assert!(
        line.contains("no Mach-O executable (MH_EXECUTE) at the top of this directory"),
        "{line}"
    );

    let missing = d.join("missing");
    assert!(one_error_line(&missing).ends_with(": No such file or directory (os error 2)"));

    let (a, b) = (d.join("loop-a"), d.join("loop-b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    assert!(one_error_line(&a).contains(": Too many levels of symbolic links (os error "));

    let not_dir = d.join("file");
    std::fs::write(&not_dir, b"x").unwrap();
    assert!(one_error_line(&not_dir.join("child")).ends_with(": Not a directory (os error 20)"));

    let unreadable = d.join("unreadable");
    std::fs::copy(fixture(CHAINED), &unreadable).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&unreadable).is_err() {
        assert!(one_error_line(&unreadable).ends_with(": Permission denied (os error 13)"));
    } else {
        // root reads a mode-000 file; the case is covered when the tests run unprivileged.
        eprintln!("running as root: the mode-000 file is readable, case skipped");
    }

    // 10⁶ nodes, each a terminal weak definition with one one-letter edge to the next: the
    // walk is iterative (no stack overflow) and the names (10¹²/2 bytes) hit the name budget.
    // Kept in cargo's target/tmp for `scripts/bench-malformed.sh`.
    let deep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trie-1e6-deep");
    std::fs::write(&deep, deep_trie_image(1_000_000)).unwrap();
    let line = one_error_line(&deep);
    assert!(
        line.contains(
            ": x86_64: export trie: terminal names exceed 4 bytes per trie byte (a trie built to blow up) (at offset 0x"
        ),
        "{line}"
    );
}

/// `OPCODES` with an export trie of `depth` nodes appended after its LINKEDIT (which grows to
/// hold it): node i is a weak terminal with one child, edge `a`, at the next node.
fn deep_trie_image(depth: usize) -> Vec<u8> {
    let mut b = base(OPCODES);
    let start = b.len().next_multiple_of(8);
    b.resize(start, 0);
    // Each node: terminal_size 2, flags WEAK (4), address 0, child_count 1, "a\0", offset.
    let mut trie = Vec::with_capacity(depth * 10);
    for i in 0..depth {
        trie.extend([2, 4, 0, 1, b'a', 0]);
        // Offsets are padded to 4 bytes (room for 2^28), so node i starts at i × 10.
        let next = ((i + 1) * 10) as u32;
        for k in 0..4 {
            let byte = ((next >> (7 * k)) & 0x7f) as u8;
            trie.push(if k < 3 { byte | 0x80 } else { byte });
        }
    }
    trie.extend([2, 4, 0, 0]); // the last node: a terminal without children
    let lc = command(&b, LC_DYLD_INFO_ONLY);
    put32(&mut b, lc + 40, start as u32);
    put32(&mut b, lc + 44, trie.len() as u32);
    b.extend(&trie);
    let seg = segment(&b, b"__LINKEDIT");
    let fileoff = u64::from_le_bytes(b[seg + 40..seg + 48].try_into().unwrap());
    let size = b.len() as u64 - fileoff;
    put64(&mut b, seg + 32, size.next_multiple_of(0x1000)); // vmsize
    put64(&mut b, seg + 48, size); // filesize
    b
}

/// A file that shrinks between opening and reading: `read_range` must report it, not crash.
#[test]
fn a_file_that_shrinks_while_read_is_an_error() {
    use weakscan::macho::file::MachOFile;
    use weakscan::macho::read_image;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinking");
    std::fs::copy(fixture(CHAINED), &path).unwrap();
    let file = MachOFile::open(&path).unwrap();
    let slices = file.slices().unwrap();
    // Another process truncates the file (a build rewriting its output) after it was opened.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(4096)
        .unwrap();
    let e = read_image(&file, &slices[0]).unwrap_err();
    assert_eq!(e.kind, weakscan::ErrorKind::Io);
    assert!(
        e.message.contains(": file shrank while being read: ") && !e.message.contains('\n'),
        "{e}"
    );
}
