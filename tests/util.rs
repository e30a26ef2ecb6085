//! Shared helpers for the integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `testdata/` of this crate.
pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// A committed fixture binary.
pub fn fixture(name: &str) -> PathBuf {
    testdata().join("bin").join(name)
}

/// Every committed fixture binary, sorted.
pub fn all_fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(testdata().join("bin"))
        .expect("testdata/bin")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// The path of the binary under test (for a `Command` run through `sh -c`, `taskset`).
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("weakscan")
}

/// `COLUMNS` of the tests: wider than any table, so a table a test does not fit with
/// `--width` reads as it is (a table that fits is not fitted), and the same whatever the shell
/// running the tests exports. The tests of the default width remove it.
pub const TEST_COLUMNS: &str = "10000";

/// The binary under test, with `COLUMNS` at [`TEST_COLUMNS`].
pub fn weakscan() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("weakscan").expect("weakscan binary");
    cmd.env("COLUMNS", TEST_COLUMNS);
    cmd
}

/// One row of `testdata/expected.tsv`.
#[derive(Debug)]
pub struct Expected {
    pub file: String,
    pub arch: String,
    pub fixups: String,
    pub weak_def_exports: u64,
    pub weak_bind_sites: u64,
    pub weak_bind_symbols: u64,
}

/// The rows of `testdata/expected.tsv` (llvm-objdump-22 figures written by `testdata/build.sh`).
pub fn expected() -> Vec<Expected> {
    let text = std::fs::read_to_string(testdata().join("expected.tsv")).expect("expected.tsv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "expected.tsv row {l:?}");
            Expected {
                file: f[0].into(),
                arch: f[1].into(),
                fixups: f[2].into(),
                weak_def_exports: f[3].parse().unwrap(),
                weak_bind_sites: f[4].parse().unwrap(),
                weak_bind_symbols: f[5].parse().unwrap(),
            }
        })
        .collect()
}

/// `true` when the environment variable is set to `1`: CI sets `WEAKSCAN_REQUIRE_LLVM` and
/// `WEAKSCAN_REQUIRE_NODE` so that tests needing external inputs fail instead of skipping.
pub fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// [`llvm_nm`], or `None` after saying the test skips (a failure when CI sets
/// `WEAKSCAN_REQUIRE_LLVM`).
pub fn llvm_nm_or_skip() -> Option<PathBuf> {
    let nm = llvm_nm();
    if nm.is_none() {
        assert!(
            !required("WEAKSCAN_REQUIRE_LLVM"),
            "llvm-nm from LLVM 22 is required but missing"
        );
        skip("llvm-nm from LLVM 22 not found (apt-get install llvm-22)");
    }
    nm
}

/// `llvm-nm` from LLVM 22, if installed (`WEAKSCAN_LLVM_NM` overrides the path).
pub fn llvm_nm() -> Option<PathBuf> {
    llvm_22("llvm-nm", "WEAKSCAN_LLVM_NM")
}

/// The LLVM 22 build of `tool`, if installed: the path in `override_var`, else Debian's
/// `/usr/lib/llvm-22/bin/TOOL`, else `TOOL-22` on the PATH; each must say "version 22.".
pub fn llvm_22(tool: &str, override_var: &str) -> Option<PathBuf> {
    let candidates = [
        std::env::var_os(override_var).map(PathBuf::from),
        Some(PathBuf::from(format!("/usr/lib/llvm-22/bin/{tool}"))),
        Some(PathBuf::from(format!("{tool}-22"))),
    ];
    candidates.into_iter().flatten().find(|c| {
        Command::new(c).arg("--version").output().is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("version 22.")
        })
    })
}

/// The debug map as `llvm-nm -ap` prints it: symbol name → the `N_OSO` path of the object
/// whose stabs name it (`N_FUN`, `N_GSYM`, `N_STSYM`, `N_LCSYM`), the first one winning.
pub fn nm_debug_map(nm: &Path, bin: &Path) -> std::collections::HashMap<String, String> {
    let out = Command::new(nm)
        .args(["-ap", "--arch", "x86_64"])
        .arg(bin)
        .output()
        .expect("run llvm-nm");
    assert!(out.status.success(), "llvm-nm -ap {}", bin.display());
    let text = String::from_utf8(out.stdout).expect("UTF-8 llvm-nm output");
    let mut map = std::collections::HashMap::new();
    let mut object: Option<String> = None;
    for line in text.lines() {
        // `VALUE - SECT DESC TYPE NAME` for stabs (TYPE right-aligned).
        let mut it = line.split_whitespace();
        let (Some(_), Some("-"), Some(_), Some(_), Some(kind)) =
            (it.next(), it.next(), it.next(), it.next(), it.next())
        else {
            continue;
        };
        let name = it.collect::<Vec<_>>().join(" ");
        let name = name.as_str();
        match kind {
            "OSO" => object = Some(name.to_string()),
            "SO" if name.is_empty() => object = None,
            "FUN" | "GSYM" | "STSYM" | "LCSYM" if !name.is_empty() => {
                if let Some(o) = &object {
                    map.entry(name.to_string()).or_insert_with(|| o.clone());
                }
            }
            _ => {}
        }
    }
    map
}

/// `llvm-objdump` from LLVM 22, if installed (`WEAKSCAN_LLVM_OBJDUMP` overrides the path).
pub fn llvm_objdump() -> Option<PathBuf> {
    llvm_22("llvm-objdump", "WEAKSCAN_LLVM_OBJDUMP")
}

/// Runs weakscan with `args` and asserts how a refused input or command line fails: exit code
/// 2, nothing on stdout, one line on stderr holding `needle`. Returns that line.
pub fn fails_with(args: &[&str], needle: &str) -> String {
    let out = weakscan().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "weakscan {args:?}: {out:?}");
    assert!(out.stdout.is_empty(), "no stdout on error: {out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(
        err.contains(needle),
        "stderr of {args:?} was {err:?}, wanted {needle:?}"
    );
    err
}

/// Runs weakscan with `args` and parses its JSON stdout; asserts exit 0.
pub fn json(args: &[&str]) -> serde_json::Value {
    let out = weakscan().args(args).output().expect("run weakscan");
    assert!(
        out.status.success(),
        "weakscan {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Runs weakscan in `testdata/` with `args` and compares stdout with `tests/golden/NAME`
/// (`WEAKSCAN_BLESS=1` rewrites it); the exit code must be 0.
pub fn golden(name: &str, args: &[&str]) {
    golden_exit(name, args, 0);
}

/// [`golden`] for a command that exits with `code`.
pub fn golden_exit(name: &str, args: &[&str], code: i32) {
    golden_edited(name, args, code, |s| s);
}

/// [`golden_exit`] of `edit(stdout)`: for output that holds what differs from one checkout to
/// the next (absolute paths), left out by `edit`.
pub fn golden_edited(name: &str, args: &[&str], code: i32, edit: impl Fn(String) -> String) {
    let out = weakscan()
        .current_dir(testdata())
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Goldens are written by the default build; the cpp_demangle build prints every fixture
    // name the same, and says so in each JSON document's `names_printed_by` (pretty JSON, or a
    // baseline's compact JSON).
    let got = edit(
        String::from_utf8(out.stdout)
            .unwrap()
            .replace(
                "\"names_printed_by\": \"cpp_demangle\"",
                "\"names_printed_by\": \"libcxxabi\"",
            )
            .replace(
                "\"names_printed_by\":\"cpp_demangle\"",
                "\"names_printed_by\":\"libcxxabi\"",
            ),
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("WEAKSCAN_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with WEAKSCAN_BLESS=1", path.display()));
    assert_eq!(
        got, want,
        "{name} differs; rerun with WEAKSCAN_BLESS=1 if intended"
    );
}

/// The identifiers of a report, to hold a rendering fitted to a width against: each maximal
/// run of `[A-Za-z0-9_]` of its JSON and its full-width table (but the runs a `…` touches,
/// already clipped), with sorted lists to look up the heads and tails a `…` leaves of one.
pub struct Identifiers {
    whole: std::collections::BTreeSet<String>,
    heads: Vec<String>,
    /// Each identifier reversed.
    tails: Vec<String>,
}

/// The runs of `[A-Za-z0-9_]` of `line`, each with whether a `…` touches it before and after.
fn runs(line: &str) -> Vec<(&str, bool, bool)> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
        match (start, ident(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let before = line[..s].ends_with('…');
                let after = line[i..].starts_with('…');
                out.push((&line[s..i], before, after));
                start = None;
            }
            _ => {}
        }
    }
    out
}

impl Identifiers {
    /// The identifiers of `texts`.
    pub fn of(texts: &[&str]) -> Identifiers {
        let whole: std::collections::BTreeSet<String> = texts
            .iter()
            .flat_map(|t| t.lines())
            .flat_map(runs)
            .filter(|(_, before, after)| !before && !after)
            .map(|(r, _, _)| r.to_string())
            .collect();
        let heads: Vec<String> = whole.iter().cloned().collect();
        let mut tails: Vec<String> = whole.iter().map(|w| w.chars().rev().collect()).collect();
        tails.sort();
        Identifiers {
            whole,
            heads,
            tails,
        }
    }

    /// Whether some identifier of `sorted` starts with `s`.
    fn starts(sorted: &[String], s: &str) -> bool {
        let i = sorted.partition_point(|w| w.as_str() < s);
        sorted.get(i).is_some_and(|w| w.starts_with(s))
    }

    fn is_head(&self, s: &str) -> bool {
        Self::starts(&self.heads, s)
    }

    fn is_tail(&self, s: &str) -> bool {
        Self::starts(&self.tails, &s.chars().rev().collect::<String>())
    }
}

/// Holds `fitted`, a report rendered with `--width width`, to the promises of fitted tables:
/// no line is wider than `width` display columns (`unicode-width`), and no identifier of the
/// report is split across lines: each run of `[A-Za-z0-9_]` in it is one of `ids`, or, next to
/// a `…`, the head or tail of one (an identifier wider than its column, clipped in the middle).
pub fn assert_fitted(what: &str, fitted: &str, width: usize, ids: &Identifiers) {
    for (n, line) in fitted.lines().enumerate() {
        let w = unicode_width::UnicodeWidthStr::width(line);
        assert!(
            w <= width,
            "{what}: line {} is {w} columns wide, more than {width}:\n{line}",
            n + 1
        );
        for (run, before, after) in runs(line) {
            let known = match (before, after) {
                (false, false) => ids.whole.contains(run),
                (false, true) => ids.is_head(run),
                (true, false) => ids.is_tail(run),
                // Between two cuts: a middle part.
                (true, true) => true,
            };
            assert!(
                known,
                "{what} at {width} columns: `{run}` (line {}) is no identifier of the report: \
                 one was split across lines\n{line}\n\n{fitted}",
                n + 1
            );
        }
    }
}

/// `weakscan ARGS` run in `testdata/`: its stdout, the exit code 0 or 1 (a check may fail).
pub fn stdout_of(args: &[&str]) -> String {
    let out = weakscan()
        .current_dir(testdata())
        .args(args)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The [`Identifiers`] of the report `args` give: its JSON and its full-width table.
pub fn identifiers_of(args: &[&str]) -> Identifiers {
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    Identifiers::of(&[&stdout_of(&json), &stdout_of(args)])
}

/// Appends `v` as ULEB128 (for hand-made Mach-O structures).
pub fn uleb(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reports a skipped test in the test output itself: `SKIPPED <test>: <why>` on the process's
/// stderr, which libtest does not capture (it captures only `print!`/`eprint!`), so a run of
/// `cargo test` shows every skip next to the test's `ok`.
pub fn skip(why: &str) {
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}

/// The `image` of each entry of a process report's `images` (`scan APP --format json`), in
/// load order.
pub fn image_names(process: &serde_json::Value) -> Vec<&str> {
    process["images"]
        .as_array()
        .expect("images")
        .iter()
        .map(|i| i["image"].as_str().expect("image"))
        .collect()
}

/// The symbol rows of each arch of a baseline document (`schema_version` 2): (arch, rows of
/// every object, in file order).
pub fn baseline_rows(doc: &serde_json::Value) -> Vec<(String, Vec<&serde_json::Value>)> {
    doc["symbols"]
        .as_array()
        .expect("symbols")
        .iter()
        .map(|a| {
            let rows = a["objects"]
                .as_array()
                .expect("objects")
                .iter()
                .flat_map(|o| o["symbols"].as_array().expect("rows"))
                .collect();
            (a["arch"].as_str().expect("arch").to_string(), rows)
        })
        .collect()
}

/// The raw names of arch `arch` (an index into `symbols`) of a baseline document whose
/// `column` (`weak_bound`, `weak_defs`, …, as its `columns` name them) is not 0, in file order.
pub fn baseline_names(doc: &serde_json::Value, arch: usize, column: &str) -> Vec<String> {
    let columns = doc["symbols"][arch]["columns"].as_array().expect("columns");
    let i = columns
        .iter()
        .position(|c| c == column)
        .unwrap_or_else(|| panic!("no column {column}"));
    baseline_rows(doc)[arch]
        .1
        .iter()
        .filter(|r| r[i] != 0)
        .map(|r| r[0].as_str().expect("symbol").to_string())
        .collect()
}

/// A deep export trie (`<mach-o/loader.h>`; dyld-1378 `MachOFile::trieWalk`): a chain of
/// `depth` nodes, each without a terminal and with one empty edge label (a prefix of every
/// name) to the next, 6 bytes each (3-byte child offsets); the last has no children. Every
/// name looked up walks the whole chain and is not found. `scripts/gen-trie-hostile.py`'s
/// `deep_trie`.
pub fn deep_trie(depth: usize) -> Vec<u8> {
    let mut t = Vec::with_capacity(6 * depth);
    for k in 1..depth {
        let at = 6 * k;
        assert!(at < 1 << 21);
        t.extend_from_slice(&[
            0,
            1,
            0,
            0x80 | (at & 0x7f) as u8,
            0x80 | (at >> 7 & 0x7f) as u8,
        ]);
        t.push((at >> 14) as u8);
    }
    t.extend_from_slice(&[0, 0]);
    t
}

/// A `dylib_command` (`LC_LOAD_DYLIB` 0xc, `LC_ID_DYLIB` 0xd, `LC_REEXPORT_DYLIB`
/// 0x8000001f, …) naming `name`, padded to 8 bytes.
pub fn dylib_command(cmd: u32, name: &str) -> Vec<u8> {
    let size = (24 + name.len() + 1).next_multiple_of(8);
    let mut c = Vec::with_capacity(size);
    for v in [cmd, size as u32, 24, 2, 0x10000, 0x10000] {
        c.extend_from_slice(&v.to_le_bytes());
    }
    c.extend_from_slice(name.as_bytes());
    c.resize(size, 0);
    c
}

/// A minimal linked x86_64 Mach-O (`<mach-o/loader.h>`) of `filetype` and header `flags`:
/// `__TEXT` (the header and commands), `__LINKEDIT` (`trie`, then `fixups`, each 8-aligned),
/// `cmds`, then `LC_DYLD_EXPORTS_TRIE` and `LC_DYLD_CHAINED_FIXUPS` for those not empty.
/// `scripts/gen-trie-hostile.py`'s `macho`.
pub fn linked_macho(
    filetype: u32,
    flags: u32,
    cmds: &[Vec<u8>],
    trie: &[u8],
    fixups: &[u8],
) -> Vec<u8> {
    let blobs = [(0x8000_0033_u32, trie), (0x8000_0034, fixups)];
    let blobs: Vec<(u32, &[u8])> = blobs.into_iter().filter(|b| !b.1.is_empty()).collect();
    let sizeofcmds = cmds.iter().map(Vec::len).sum::<usize>() + 144 + 16 * blobs.len();
    let text = (32 + sizeofcmds).next_multiple_of(0x1000);
    let mut offsets = Vec::new();
    let mut end = text;
    for (_, b) in &blobs {
        offsets.push(end);
        end = (end + b.len()).next_multiple_of(8);
    }
    let mut out = Vec::with_capacity(end);
    let ncmds = (cmds.len() + 2 + blobs.len()) as u32;
    for v in [
        0xfeed_facf_u32,
        0x0100_0007,
        3,
        filetype,
        ncmds,
        sizeofcmds as u32,
        flags,
        0,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let segments: [(&[u8], usize, usize, u32); 2] = [
        (b"__TEXT", 0, text, 5),
        (b"__LINKEDIT", text, end - text, 1),
    ];
    for (name, at, size, prot) in segments {
        out.extend_from_slice(&0x19_u32.to_le_bytes()); // LC_SEGMENT_64
        out.extend_from_slice(&72_u32.to_le_bytes());
        let mut segname = [0u8; 16];
        segname[..name.len()].copy_from_slice(name);
        out.extend_from_slice(&segname);
        for v in [at as u64, size as u64, at as u64, size as u64] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [prot, prot, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for c in cmds {
        out.extend_from_slice(c);
    }
    for ((cmd, b), at) in blobs.iter().zip(&offsets) {
        for v in [*cmd, 16, *at as u32, b.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for ((_, b), at) in blobs.iter().zip(&offsets) {
        out.resize(*at, 0);
        out.extend_from_slice(b);
    }
    out.resize(end, 0);
    out
}

/// A chained-fixups blob (`<mach-o/fixup-chains.h>`) for an image of two segments, with no
/// chain starts and one `DYLD_CHAINED_IMPORT` per name, library ordinal 0xfe (-2: flat
/// lookup). `scripts/gen-trie-hostile.py`'s `flat_imports`.
pub fn flat_imports(names: &[String]) -> Vec<u8> {
    chained_imports_of(names, 0xfe)
}

/// [`flat_imports`] with library ordinal `ordinal` (8 bits as stored: 0xfd is -3, weak lookup).
pub fn chained_imports_of(names: &[String], ordinal: u32) -> Vec<u8> {
    let (mut pool, mut table) = (vec![0u8], Vec::new());
    for n in names {
        table.extend_from_slice(&(ordinal | (pool.len() as u32) << 9).to_le_bytes());
        pool.extend_from_slice(n.as_bytes());
        pool.push(0);
    }
    let (starts, imports) = (32u32, 32 + 12);
    let symbols = imports + table.len() as u32;
    let mut blob = Vec::new();
    for v in [0, starts, imports, symbols, names.len() as u32, 1, 0] {
        blob.extend_from_slice(&v.to_le_bytes());
    }
    blob.resize(starts as usize, 0);
    for v in [2u32, 0, 0] {
        blob.extend_from_slice(&v.to_le_bytes());
    }
    blob.extend_from_slice(&table);
    blob.extend_from_slice(&pool);
    blob
}
