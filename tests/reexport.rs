//! Re-exports and `dylib_use_command`s in whole processes, on `testdata/process/Reexport/`
//! (built by `testdata/build.sh`: `main` links `libre.dylib`, which re-exports `libbase.dylib`
//! whole, and `libdelayinit.dylib`). The winners of the fixture as built are held to
//! `expected-winners-reexport.tsv` (written by hand from the rule and llvm-objdump's view;
//! build.sh recomputes it from llvm-objdump output). ld64.lld writes neither a re-export entry
//! in an export trie nor a `dylib_use_command`, so the tests write them into copies: an export
//! trie rebuilt with extra entries (appended to `__LINKEDIT`), and a dylib load command rewritten
//! in place — each checked with llvm-objdump when it is installed.

use crate::util::{deep_trie, dylib_command, linked_macho, llvm_objdump, testdata, uleb, weakscan};
use serde_json::Value;
use std::path::{Path, PathBuf};

const SLOT_LONG: &str = "__ZN2rx4SlotIlEERT_v";
const SLOT_LONG_VALUE: &str = "__ZZN2rx4SlotIlEERT_vE5value";
const LC_LOAD_DYLIB: u32 = 0xc;
const LC_LOAD_WEAK_DYLIB: u32 = 0x8000_0018;
const LC_SEGMENT_64: u32 = 0x19;
const LC_DYLD_EXPORTS_TRIE: u32 = 0x8000_0033;

/// A copy of `testdata/process/Reexport` in `into`.
fn copy_fixture(into: &Path) -> PathBuf {
    let to = into.join("Reexport");
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(testdata().join("process/Reexport")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    to
}

/// `scan --format json DIR`: the one process.
fn scan(dir: &Path) -> Value {
    let out = weakscan()
        .args(["scan", "--format", "json"])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["processes"][0].clone()
}

/// The load commands of a thin 64-bit Mach-O file: `(offset, cmd, cmdsize)`.
fn load_commands(b: &[u8]) -> Vec<(usize, u32, usize)> {
    let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let mut at = 32;
    (0..u32_at(16))
        .map(|_| {
            let lc = (at, u32_at(at), u32_at(at + 4) as usize);
            at += lc.2;
            lc
        })
        .collect()
}

/// One export-trie terminal: a definition at `address`, or a re-export of `ordinal`'s `import`.
enum Entry {
    Def {
        weak: bool,
        address: u64,
    },
    Reexport {
        ordinal: u64,
        import: &'static str,
    },
    /// `EXPORT_SYMBOL_FLAGS_FUNCTION_VARIANT` (0x20), with the weak bit or not: the default
    /// implementation's address, then the function-variant table index.
    FunctionVariant {
        weak: bool,
        address: u64,
        table: u64,
    },
}

/// A valid export trie of `entries`, flat: the root's edges are the whole names, in descending
/// order (so that no edge is a prefix of one after it: dyld's lookup takes the first edge that
/// is a prefix of the name), each child offset a 3-byte ULEB128 (padded, as dyld reads any).
fn flat_trie(entries: &[(String, Entry)]) -> Vec<u8> {
    let mut sorted: Vec<&(String, Entry)> = entries.iter().collect();
    sorted.sort_by(|a, b| b.0.cmp(&a.0));
    let edges: usize = sorted.iter().map(|(n, _)| n.len() + 1 + 3).sum();
    let mut root = vec![0u8, u8::try_from(sorted.len()).unwrap()];
    let mut nodes = Vec::new();
    for (name, entry) in sorted {
        let at = 2 + edges + nodes.len();
        assert!(at < 1 << 21);
        root.extend_from_slice(name.as_bytes());
        root.extend_from_slice(&[0, 0x80 | (at & 0x7f) as u8, 0x80 | (at >> 7 & 0x7f) as u8]);
        root.push((at >> 14) as u8);
        let mut t = Vec::new();
        match entry {
            Entry::Def { weak, address } => {
                uleb(if *weak { 0x04 } else { 0 }, &mut t);
                uleb(*address, &mut t);
            }
            Entry::Reexport { ordinal, import } => {
                uleb(0x08, &mut t);
                uleb(*ordinal, &mut t);
                t.extend_from_slice(import.as_bytes());
                t.push(0);
            }
            Entry::FunctionVariant {
                weak,
                address,
                table,
            } => {
                uleb(0x20 | if *weak { 0x04 } else { 0 }, &mut t);
                uleb(*address, &mut t);
                uleb(*table, &mut t);
            }
        }
        uleb(t.len() as u64, &mut nodes);
        nodes.extend_from_slice(&t);
        nodes.push(0);
    }
    root.extend_from_slice(&nodes);
    root
}

/// The exports of `dylib` as entries (a fixture's: definitions only), with `replace` applied:
/// an entry of the same name is replaced, others are added.
fn exports_with(dylib: &Path, replace: Vec<(String, Entry)>) -> Vec<(String, Entry)> {
    let file = weakscan::macho::MachOFile::open(dylib).unwrap();
    let loc = file.slices().unwrap().remove(0);
    let trie = weakscan::macho::trie_lookup::read_export_trie(&file, &loc).unwrap();
    let mut out: Vec<(String, Entry)> = weakscan::macho::export_trie::parse_export_trie(&trie)
        .unwrap()
        .into_iter()
        .filter(|e| !replace.iter().any(|(n, _)| *n == e.name))
        .map(|e| {
            let weakscan::macho::export_trie::ExportTarget::Address(address) = e.target else {
                panic!("{}: not a plain definition", e.name);
            };
            let weak = e.is_weak_definition();
            (e.name, Entry::Def { weak, address })
        })
        .collect();
    out.extend(replace);
    out
}

/// Writes `trie` as the export trie of the dylib at `path`: appended to the file (the end of
/// `__LINKEDIT`, which grows to hold it), `LC_DYLD_EXPORTS_TRIE` pointed at it.
fn write_trie(path: &Path, trie: &[u8]) {
    let mut b = std::fs::read(path).unwrap();
    let cmds = load_commands(&b);
    let linkedit = cmds
        .iter()
        .find(|&&(at, cmd, _)| {
            cmd == LC_SEGMENT_64 && b[at + 8..at + 24].starts_with(b"__LINKEDIT\0")
        })
        .unwrap()
        .0;
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let (fileoff, filesize) = (u64_at(&b, linkedit + 40), u64_at(&b, linkedit + 48));
    assert_eq!(
        fileoff + filesize,
        b.len() as u64,
        "__LINKEDIT ends the file"
    );
    b.resize(b.len().div_ceil(8) * 8, 0);
    let off = b.len();
    b.extend_from_slice(trie);
    b.resize(b.len().div_ceil(8) * 8, 0);
    let new_size = b.len() as u64 - fileoff;
    b[linkedit + 48..linkedit + 56].copy_from_slice(&new_size.to_le_bytes());
    let vmsize = (new_size.div_ceil(0x1000) * 0x1000).max(u64_at(&b, linkedit + 32));
    b[linkedit + 32..linkedit + 40].copy_from_slice(&vmsize.to_le_bytes());
    let lc = cmds.iter().find(|c| c.1 == LC_DYLD_EXPORTS_TRIE).unwrap().0;
    b[lc + 8..lc + 12].copy_from_slice(&(off as u32).to_le_bytes());
    b[lc + 12..lc + 16].copy_from_slice(&(trie.len() as u32).to_le_bytes());
    std::fs::write(path, b).unwrap();
}

/// Rewrites, in place, the dylib load command of `path` that names `install_name` as a
/// `struct dylib_use_command` (mach_o/UnsafeHeader.h, dyld-1378) with command `cmd` and
/// `flags`: nameoff 28, marker 0x1a741800, the name moved to offset 28 (the command must have
/// the room: its name's padding).
fn write_use_command(path: &Path, install_name: &str, cmd: u32, flags: u32) {
    let mut b = std::fs::read(path).unwrap();
    let (at, _, size) = load_commands(&b)
        .into_iter()
        .find(|&(at, c, size)| {
            let nameoff = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
            (c == LC_LOAD_DYLIB || c == LC_LOAD_WEAK_DYLIB)
                && b[at + nameoff..at + size].starts_with(install_name.as_bytes())
        })
        .unwrap();
    assert!(28 + install_name.len() < size, "no room for the name at 28");
    let mut c = Vec::new();
    for v in [
        cmd,
        size as u32,
        28,
        0x1a74_1800,
        0x0001_0000,
        0x0001_0000,
        flags,
    ] {
        c.extend_from_slice(&v.to_le_bytes());
    }
    c.extend_from_slice(install_name.as_bytes());
    c.resize(size, 0);
    b[at..at + size].copy_from_slice(&c);
    std::fs::write(path, b).unwrap();
}

/// Each name's winner (`-`: none on disk) and its requesters, by leaf name.
fn winners(p: &Value) -> std::collections::BTreeMap<String, (String, Vec<String>)> {
    let leaf = |s: &str| s.rsplit('/').next().unwrap().to_string();
    p["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let winner = s["winner"].as_str().map_or("-".into(), leaf);
            let by = s["requested_by"].as_array().unwrap();
            let by = by.iter().map(|r| leaf(r.as_str().unwrap())).collect();
            (s["mangled"].as_str().unwrap().to_string(), (winner, by))
        })
        .collect()
}

fn problems(p: &Value) -> Vec<&str> {
    p["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

fn image<'a>(p: &'a Value, leaf: &str) -> &'a Value {
    p["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["image"].as_str().unwrap().ends_with(leaf))
        .unwrap()
}

fn definers<'a>(p: &'a Value, name: &str) -> Vec<&'a str> {
    p["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["mangled"] == name)
        .map(|d| {
            d["defined_by"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect()
        })
        .unwrap_or_default()
}

/// The fixture as built: a whole-library re-export (`LC_REEXPORT_DYLIB`) puts nothing in libre's
/// export trie, and a weak-def lookup probes each trie alone, so libbase is searched at its own
/// place in the load order and libre defines none of libbase's names.
#[test]
fn a_reexported_dylib_is_searched_at_its_own_place() {
    let p = scan(&testdata().join("process/Reexport"));
    let names = crate::util::image_names(&p);
    assert_eq!(
        names,
        [
            "main",
            "libre.dylib",
            "libdelayinit.dylib",
            "/usr/lib/libSystem.B.dylib",
            "libbase.dylib"
        ]
    );
    let deps = &image(&p, "libre.dylib")["dependencies"];
    assert_eq!(deps[0]["install_name"], "@loader_path/libbase.dylib");
    assert_eq!(deps[0]["load_command"], "LC_REEXPORT_DYLIB");
    assert_eq!(deps[0]["attributes"], serde_json::json!(["reexport"]));
    assert_eq!(deps[0]["dylib_use_command"], false);
    let expected =
        std::fs::read_to_string(testdata().join("process/expected-winners-reexport.tsv")).unwrap();
    let got = winners(&p);
    for row in expected.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        let (winner, by) = &got[f[1]];
        assert_eq!(winner, f[2], "{row}");
        assert!(by.iter().any(|r| r == f[0]), "{row}: requested by {by:?}");
    }
    assert_eq!(
        definers(&p, SLOT_LONG),
        ["libdelayinit.dylib (weak)", "libbase.dylib (weak)"]
    );
    assert_eq!(p["reexports_followed"], 0);
    assert!(problems(&p).is_empty(), "{:?}", problems(&p));
    // 46 + 2 + 2 + 4 lookups, 4 tries each.
    assert_eq!(p["lookups"], 54);
    assert_eq!(p["trie_probes"], 216);
}

/// The re-export ld64 writes for `-reexported_symbols_list`: an entry of libre's trie that names
/// libbase (ordinal 1, its LC_REEXPORT_DYLIB). The lookups of Slot<long>() probing libre find
/// libbase's weak definition there, before libdelayinit's: libbase wins, one probe more each.
#[test]
fn a_reexport_entry_leads_to_the_definition_it_names() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_fixture(tmp.path());
    let libre = dir.join("libre.dylib");
    let entries = exports_with(
        &libre,
        vec![(
            SLOT_LONG.into(),
            Entry::Reexport {
                ordinal: 1,
                import: "",
            },
        )],
    );
    write_trie(&libre, &flat_trie(&entries));
    if let Some(objdump) = llvm_objdump() {
        let out = std::process::Command::new(objdump)
            .args(["--macho", "--exports-trie"])
            .arg(&libre)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{out:?}");
        assert!(
            text.contains(&format!("[re-export] {SLOT_LONG} (from libbase)")),
            "{text}"
        );
        assert!(text.contains("__ZN2rx4SlotIsEERT_v [weak_def]"), "{text}");
    } else {
        crate::util::skip(
            "a_reexport_entry_leads_to_the_definition_it_names: no llvm-objdump-22 to read the patched trie",
        );
    }
    let before = scan(&testdata().join("process/Reexport"));
    let p = scan(&dir);
    let w = winners(&p);
    assert_eq!(
        w[SLOT_LONG].0, "libbase.dylib",
        "not libre's, not libdelayinit's"
    );
    assert_eq!(
        w[SLOT_LONG_VALUE].0, "libdelayinit.dylib",
        "not re-exported"
    );
    assert_eq!(
        definers(&p, SLOT_LONG),
        ["libbase.dylib (weak)", "libdelayinit.dylib (weak)"]
    );
    assert_eq!(p["reexports_followed"], 1);
    // Slot<long>() is looked up twice (libdelayinit, libbase): one more trie each.
    assert_eq!(
        p["trie_probes"].as_u64().unwrap(),
        before["trie_probes"].as_u64().unwrap() + 2
    );
    assert_eq!(image(&p, "libbase.dylib")["wins"], 1);
    assert_eq!(image(&p, "libre.dylib")["wins"], 2, "its own Slot<short>");
    assert!(problems(&p).is_empty(), "{:?}", problems(&p));
}

/// dyld-1284.13+ `Loader::hasExportedSymbol` takes a function-variant export for a non-weak
/// definition, whatever its weak bit: libbase's Slot<long>() made one replaces libdelayinit's
/// weak definition, found first (Loader.cpp:3025-3031 at dyld-1378).
#[test]
fn regression_a_function_variant_export_was_a_weak_definition_in_coalescing() {
    let before = scan(&testdata().join("process/Reexport"));
    assert_eq!(winners(&before)[SLOT_LONG].0, "libdelayinit.dylib");
    for weak in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = copy_fixture(tmp.path());
        let libbase = dir.join("libbase.dylib");
        let address = exports_with(&libbase, Vec::new())
            .into_iter()
            .find_map(|(n, e)| match e {
                Entry::Def { address, .. } if n == SLOT_LONG => Some(address),
                _ => None,
            })
            .unwrap();
        let entries = exports_with(
            &libbase,
            vec![(
                SLOT_LONG.into(),
                Entry::FunctionVariant {
                    weak,
                    address,
                    table: 0,
                },
            )],
        );
        write_trie(&libbase, &flat_trie(&entries));
        let p = scan(&dir);
        assert_eq!(winners(&p)[SLOT_LONG].0, "libbase.dylib", "weak bit {weak}");
        assert_eq!(
            definers(&p, SLOT_LONG),
            ["libdelayinit.dylib (weak)", "libbase.dylib (strong)"],
            "weak bit {weak}"
        );
        assert!(problems(&p).is_empty(), "{:?}", problems(&p));
    }
}

/// A re-export of libSystem (ordinal 2: outside, not read) and one of an ordinal libre does not
/// have (3): each a counted problem, and neither taken as a definition.
#[test]
fn reexports_outside_or_out_of_range_are_counted_problems() {
    for (ordinal, want) in [
        (2, "libre.dylib: 1 looked-up names are re-exports of images outside (not read): the definitions they lead to are not counted (docs/process.md)".to_string()),
        (3, format!("libre.dylib: re-export of {SLOT_LONG}: libre.dylib names library ordinal 3 but has 2 dylib load commands (dyld stops the launch: \"re-export ordinal 3 … out of range\")")),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = copy_fixture(tmp.path());
        let libre = dir.join("libre.dylib");
        let entries = exports_with(&libre, vec![(SLOT_LONG.into(), Entry::Reexport { ordinal, import: "" })]);
        write_trie(&libre, &flat_trie(&entries));
        let p = scan(&dir);
        assert_eq!(problems(&p), [want.as_str()]);
        assert_eq!(winners(&p)[SLOT_LONG].0, "libdelayinit.dylib");
        assert_eq!(p["reexports_followed"], 1);
    }
}

/// libbase is made to link libre (its LC_LOAD_DYLIB of libSystem renamed in place), so the two
/// can re-export names from each other. A loop, and a chain of renames longer than the cap, are
/// one counted problem each; dyld would recurse without end on the loop.
#[test]
fn reexport_loops_and_chains_past_the_cap_are_one_problem_each() {
    let setup = |tmp: &Path| {
        let dir = copy_fixture(tmp);
        let libbase = dir.join("libbase.dylib");
        let mut b = std::fs::read(&libbase).unwrap();
        let (from, to) = (
            b"/usr/lib/libSystem.B.dylib".as_slice(),
            b"@loader_path/libre.dylib\0\0".as_slice(),
        );
        let at = b.windows(from.len()).position(|w| w == from).unwrap();
        b[at..at + to.len()].copy_from_slice(to);
        std::fs::write(&libbase, b).unwrap();
        dir
    };
    // The loop: libre's Slot<long>() -> libbase's -> libre's.
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    for lib in ["libre.dylib", "libbase.dylib"] {
        let path = dir.join(lib);
        let entries = exports_with(
            &path,
            vec![(
                SLOT_LONG.into(),
                Entry::Reexport {
                    ordinal: 1,
                    import: "",
                },
            )],
        );
        write_trie(&path, &flat_trie(&entries));
    }
    let p = scan(&dir);
    let loops: Vec<&str> = problems(&p)
        .into_iter()
        .filter(|l| l.contains("re-export loop"))
        .collect();
    assert_eq!(
        loops,
        [
            format!(
                "libre.dylib: re-export loop for {SLOT_LONG}: libre.dylib → libbase.dylib → libre.dylib (dyld would recurse without end; taken as not defined)"
            ),
            format!(
                "libbase.dylib: re-export loop for {SLOT_LONG}: libbase.dylib → libre.dylib → libbase.dylib (dyld would recurse without end; taken as not defined)"
            ),
        ]
    );
    assert!(
        problems(&p).iter().any(|l| l.contains("dependency cycle")),
        "{:?}",
        problems(&p)
    );
    assert_eq!(winners(&p)[SLOT_LONG].0, "libdelayinit.dylib");
    // Each entry probed one more trie before the loop closed, for each of the two lookups of
    // Slot<long>().
    assert_eq!(p["trie_probes"], 216 + 2 * 2);

    // The chain: libre's Slot<long>() -> libbase's _r1 -> libre's _r2 -> … -> _r80.
    let tmp = tempfile::tempdir().unwrap();
    let dir = setup(tmp.path());
    let names: Vec<&'static str> = (1..=80).map(|k| &*format!("_r{k}").leak()).collect();
    let mut re = vec![(
        SLOT_LONG.to_string(),
        Entry::Reexport {
            ordinal: 1,
            import: names[0],
        },
    )];
    let mut base = Vec::new();
    for k in 0..names.len() - 1 {
        let e = (
            names[k].to_string(),
            Entry::Reexport {
                ordinal: 1,
                import: names[k + 1],
            },
        );
        if k % 2 == 0 { base.push(e) } else { re.push(e) }
    }
    write_trie(
        &dir.join("libre.dylib"),
        &flat_trie(&exports_with(&dir.join("libre.dylib"), re)),
    );
    write_trie(
        &dir.join("libbase.dylib"),
        &flat_trie(&exports_with(&dir.join("libbase.dylib"), base)),
    );
    let p = scan(&dir);
    let deep: Vec<&str> = problems(&p)
        .into_iter()
        .filter(|l| l.contains("re-export chain"))
        .collect();
    assert_eq!(
        deep,
        [format!(
            "libre.dylib: re-export chain for {SLOT_LONG} passes through more than 64 images: not followed further (taken as not defined)"
        )]
    );
    assert_eq!(winners(&p)[SLOT_LONG].0, "libdelayinit.dylib");
    assert_eq!(p["reexports_followed"], 1);
    // libre's entry probed 63 more tries before it was cut, for each of the two lookups of
    // Slot<long>() (libdelayinit's, libbase's).
    assert_eq!(p["trie_probes"], 216 + 2 * 63);
}

/// main's LC_LOAD_DYLIB of libdelayinit rewritten as a dylib_use_command: its flags, not its
/// command, say how dyld links it. Delay-init: still searched at launch (the launch's fixups run
/// before dyld moves it to state.delayLoaded), and marked delay-loaded; weak-link: missing, it
/// is skipped. And an LC_LOAD_WEAK_DYLIB whose flags lack DYLIB_USE_WEAK_LINK is not weak.
#[test]
fn a_dylib_use_command_links_by_its_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_fixture(tmp.path());
    let main = dir.join("main");
    write_use_command(
        &main,
        "@rpath/libdelayinit.dylib",
        LC_LOAD_DYLIB,
        0x01 | 0x08,
    );
    // The library reads the flags.
    let file = weakscan::macho::MachOFile::open(&main).unwrap();
    let loc = file.slices().unwrap().remove(0);
    let lc = weakscan::macho::load_commands::read_load_commands(&file, &loc).unwrap();
    let d = &lc.linkage.dylibs[1];
    assert_eq!(d.install_name, "@rpath/libdelayinit.dylib");
    assert!(d.use_command && d.attributes.weak_link() && d.attributes.delay_init());
    if let Some(objdump) = llvm_objdump() {
        let out = std::process::Command::new(objdump)
            .args(["--macho", "--dylibs-used"])
            .arg(&main)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\t@rpath/libdelayinit.dylib ("), "{text}");
    }
    let p = scan(&dir);
    let dep = &image(&p, "main")["dependencies"][1];
    assert_eq!(dep["load_command"], "LC_LOAD_DYLIB");
    assert_eq!(dep["dylib_use_command"], true);
    assert_eq!(
        dep["attributes"],
        serde_json::json!(["weak_link", "delay_init"])
    );
    let delayed: Vec<bool> = p["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["delay_loaded"].as_bool().unwrap())
        .collect();
    assert_eq!(delayed, [false, false, true, false, false]);
    assert_eq!(
        winners(&p)[SLOT_LONG].0,
        "libdelayinit.dylib",
        "searched at launch"
    );
    assert_eq!(p["trie_probes"], 216);
    // Weak-link: missing, it is skipped.
    std::fs::remove_file(dir.join("libdelayinit.dylib")).unwrap();
    let p = scan(&dir);
    let missing = problems(&p);
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(
        missing[0].starts_with("main: @rpath/libdelayinit.dylib (LC_LOAD_DYLIB (dylib_use_command: weak_link, delay_init)) is missing; dyld skips it"),
        "{missing:?}"
    );
    // LC_LOAD_WEAK_DYLIB with delay-init only: not weak, so missing stops the launch.
    write_use_command(&main, "@rpath/libdelayinit.dylib", LC_LOAD_WEAK_DYLIB, 0x08);
    let p = scan(&dir);
    let missing = problems(&p);
    assert!(
        missing[0].starts_with("main: @rpath/libdelayinit.dylib (LC_LOAD_WEAK_DYLIB (dylib_use_command: delay_init)) is not found; dyld would stop the launch"),
        "{missing:?}"
    );
}

/// The `export_trie` fuzz seed with re-exports is a trie the walker accepts, and its entries
/// followed through the harness's ring of three images give each outcome it was written for.
#[test]
fn the_reexport_fuzz_seed_reaches_every_outcome() {
    use weakscan::process::DepState;
    use weakscan::process::reexport::{Edge, Follower, Outcome, TrieOf};
    let seed = crate::harness::reexport_seed();
    let mut reexports = 0;
    weakscan::macho::export_trie::walk_export_trie(&seed, |_, flags, _| {
        reexports += usize::from(flags & 0x08 != 0)
    })
    .unwrap();
    assert_eq!(reexports, 6);
    let trie: std::sync::Arc<[u8]> = seed.as_slice().into();
    let edge = |state, reexport| Edge { state, reexport };
    let deps = (0..3)
        .map(|k| {
            vec![
                edge(DepState::Loaded((k + 1) % 3), true),
                edge(DepState::Loaded(k), false),
                edge(DepState::Missing, false),
            ]
        })
        .collect();
    let files = (0..3).map(|k| PathBuf::from(format!("ring{k}"))).collect();
    let mut f = Follower::new(deps, files, "x86_64", |_| Ok(TrieOf::Trie(trie.clone())));
    let mut outcome = |name: &[u8]| f.follow(0, name).unwrap().outcome;
    assert_eq!(
        outcome(b"_a"),
        Outcome::Found {
            image: 2,
            weak: true,
            name: b"_c".to_vec()
        }
    );
    assert_eq!(outcome(b"_l"), Outcome::Loop { images: vec![0, 0] });
    assert_eq!(outcome(b"_3"), Outcome::NotFound);
    for (name, ordinal) in [(b"_9", 9), (b"_0", 0)] {
        assert_eq!(
            outcome(name),
            Outcome::OrdinalOutOfRange {
                image: 0,
                ordinal,
                dependencies: 3
            }
        );
    }
    crate::harness::export_trie(&seed);
}

/// A process whose re-export searches fan out into deep tries (`scripts/gen-trie-hostile.py
/// reexport DIR DYLIBS DEPTH`): `main` (MH_WEAK_DEFINES: it looks up dyld's 22 treat-as-weak
/// names) loads `lib1.dylib`, searched, whose trie re-exports each of the 22 names from
/// `lib2.dylib` renamed `_impl` (so the search goes on in staticLink mode); `libK.dylib`, K = 2
/// to `dylibs`, has a chain of `depth` nodes joined by empty edge labels as its trie
/// ([`deep_trie`]: `_impl` walks all of it and is not there) and two `LC_REEXPORT_DYLIB`s of the
/// next one: one search would probe 2^(dylibs - 1) tries, `depth` nodes each.
fn write_fanned_out_process(dir: &Path, dylibs: usize, depth: usize) {
    const LC_ID_DYLIB: u32 = 0xd;
    const LC_REEXPORT_DYLIB: u32 = 0x8000_001f;
    const FLAGS: u32 = 0x85; // MH_NOUNDEFS | MH_DYLDLINK | MH_TWOLEVEL
    const MH_WEAK_DEFINES: u32 = 0x8000;
    let main = dylib_command(LC_LOAD_DYLIB, "@executable_path/lib1.dylib");
    let main = linked_macho(2, FLAGS | MH_WEAK_DEFINES, &[main], &[], &[]);
    std::fs::write(dir.join("main"), main).unwrap();
    let entries: Vec<(String, Entry)> = weakscan::model::TREAT_AS_WEAK
        .iter()
        .map(|n| {
            let to = Entry::Reexport {
                ordinal: 1,
                import: "_impl",
            };
            (n.to_string(), to)
        })
        .collect();
    let cmds = [
        dylib_command(LC_ID_DYLIB, "@loader_path/lib1.dylib"),
        dylib_command(LC_LOAD_DYLIB, "@loader_path/lib2.dylib"),
    ];
    let lib1 = linked_macho(6, FLAGS | MH_WEAK_DEFINES, &cmds, &flat_trie(&entries), &[]);
    std::fs::write(dir.join("lib1.dylib"), lib1).unwrap();
    let trie = deep_trie(depth);
    for k in 2..=dylibs {
        let mut cmds = vec![dylib_command(
            LC_ID_DYLIB,
            &format!("@loader_path/lib{k}.dylib"),
        )];
        if k < dylibs {
            let next = dylib_command(
                LC_REEXPORT_DYLIB,
                &format!("@loader_path/lib{}.dylib", k + 1),
            );
            cmds.extend([next.clone(), next]);
        }
        let lib = linked_macho(6, FLAGS, &cmds, &trie, &[]);
        std::fs::write(dir.join(format!("lib{k}.dylib")), lib).unwrap();
    }
}

// A deep trie behind renamed re-exports that fan out hung the process walk: each lookup searched
// its list of nodes entered at every step (an 8,000-deep chain of empty edge labels: 32 M
// comparisons a name), and each search probed 4,096 such tries, the limits counting probes, not
// the work inside them (the 14-dylib directory of 690 KB: still running after 120 s, 96 s of
// CPU). A lookup now costs its depth, and the lookups of a process walk share one budget of trie
// nodes: past it, one line and exit 2. A shallow chain in the same process is walked to the end,
// each search stopped at its 4,096 probes as before.
#[test]
fn regression_renamed_reexports_fanned_out_into_deep_tries_hung_the_process_walk() {
    let tmp = tempfile::tempdir().unwrap();
    write_fanned_out_process(tmp.path(), 14, 8000);
    let out = weakscan()
        .args(["scan", "--format", "json"])
        .arg(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    let main = tmp.path().join("main").canonicalize().unwrap();
    assert_eq!(
        stderr,
        format!(
            "weakscan: {}: x86_64: process walk stopped: the export-trie lookups following re-exports entered more than 16777216 trie nodes (weakscan's work limit for one process, docs/robustness.md)\n",
            main.display()
        )
    );

    let tmp = tempfile::tempdir().unwrap();
    write_fanned_out_process(tmp.path(), 14, 20);
    let p = scan(tmp.path());
    let stopped: Vec<&str> = problems(&p)
        .into_iter()
        .filter(|l| l.contains("re-export search"))
        .collect();
    assert_eq!(stopped.len(), 22, "{stopped:?}");
    assert_eq!(
        stopped[0],
        "lib1.dylib: re-export search for __ZnwmSt19__type_descriptor_t stopped after 4096 trie probes (1048576 for the whole process): taken as not defined"
    );
}
