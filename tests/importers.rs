//! `--importer`: who imports the scanned image's exports, on the fixtures of
//! `testdata/importers/` (built by `testdata/build.sh` from `testdata/src/importers/`): `api`
//! exports three C functions that `addon.bundle` (`-undefined dynamic_lookup`, universal) looks
//! up flat and two C++ functions that `plugin.bundle` (`-bundle_loader api`) binds through the
//! main executable; `api-v2` hides `api::write(int)`; `client.dylib` binds `libapi.dylib`'s two
//! functions two-level. `api` also exports one weak definition from the same object
//! (`api::Slot<int>()::value`), so its fix plan has a candidate, `api.o`, that would hide the
//! API. The importer reader is checked against llvm-objdump-22's view of the binds, and bad
//! importers against their one-line errors.

use crate::util::{
    chained_imports_of, deep_trie, dylib_command, fails_with, flat_imports, json, linked_macho,
    llvm_objdump, required, skip, testdata, weakscan,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use weakscan::macho::imports::read_importer;

fn imp(name: &str) -> String {
    testdata()
        .join("importers")
        .join(name)
        .display()
        .to_string()
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = weakscan().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn check_passes_on_v1_and_fails_on_v2_naming_the_function_and_the_bundle() {
    let (addon, plugin) = (imp("addon.bundle"), imp("plugin.bundle"));
    let args = |api: &str| {
        vec![
            "check".to_string(),
            "--no-config".into(),
            imp(api),
            "--importer".into(),
            addon.clone(),
            "--importer".into(),
            plugin.clone(),
        ]
    };
    let v1 = args("api");
    let (code, out, err) = run(&v1.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("weakscan check passed: 5 imports of 2 importers exported"),
        "{out}"
    );
    assert!(
        out.contains("addon.bundle (x86_64): its 3 imports from "),
        "{out}"
    );
    let v2 = args("api-v2");
    let (code, out, err) = run(&v2.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 1, "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with('✗'))
        .unwrap_or_else(|| panic!("no failing importer line in {out}"));
    assert!(
        line.contains("plugin.bundle (x86_64): 1 of 2 imports not exported"),
        "{line}"
    );
    assert!(
        line.ends_with("api::write(int) (__ZN3api5writeEi)"),
        "{line}"
    );
    assert!(
        out.contains("FAILED: 1 of 5 imports of 2 importers not exported"),
        "{out}"
    );
    // JSON: every import held, the missing one with how it is bound.
    let mut j = v2.clone();
    j.extend(["--format".into(), "json".into()]);
    let out = weakscan().args(&j).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["passed"], false);
    let importers = doc["importers"].as_array().unwrap();
    assert_eq!(importers.len(), 2);
    assert_eq!(importers[1]["imports"], 2);
    assert_eq!(
        importers[1]["missing"],
        serde_json::json!([{"symbol": "__ZN3api5writeEi", "name": "api::write(int)",
            "via": "main_executable", "weak_import": false, "lazy": false}])
    );
    assert!(
        doc["fix"].as_array().unwrap()[0]
            .as_str()
            .unwrap()
            .contains("export the symbols")
    );
}

#[test]
fn json_lists_every_missing_import_and_markdown_and_github_name_them() {
    // libapi.dylib exports none of what the addon looks up flat: all three are missing, lazily
    // bound, in bind order.
    let args = [
        "check",
        "--no-config",
        &imp("libapi.dylib"),
        "--importer",
        &imp("addon.bundle"),
    ];
    let out = weakscan()
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let missing: Vec<(&str, &str, bool)> = doc["importers"][0]["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["symbol"].as_str().unwrap(),
                m["via"].as_str().unwrap(),
                m["lazy"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        missing,
        [
            ("_api_close", "flat_lookup", true),
            ("_api_read", "flat_lookup", true),
            ("_api_open", "flat_lookup", true)
        ]
    );
    let md = weakscan()
        .args(args)
        .args(["--format", "markdown"])
        .output()
        .unwrap();
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("- ❌ `"), "{md}");
    assert!(md.contains("`api_close`, `api_read`, `api_open`"), "{md}");
    let gh = weakscan()
        .args(args)
        .args(["--format", "github"])
        .output()
        .unwrap();
    let gh = String::from_utf8(gh.stdout).unwrap();
    assert!(
        gh.contains("::error title=weakscan check%3A imports not exported::"),
        "{gh}"
    );
}

#[test]
fn a_two_level_bind_counts_against_the_install_name_it_names() {
    let (code, out, _) = run(&[
        "check",
        "--no-config",
        &imp("libapi.dylib"),
        "--importer",
        &imp("client.dylib"),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("client.dylib (x86_64): its 2 imports from "),
        "{out}"
    );
    // Against the executable, client's binds name another image: nothing to hold.
    let doc = json(&[
        "scan",
        &imp("api"),
        "--importer",
        &imp("client.dylib"),
        "--format",
        "json",
    ]);
    assert_eq!(doc["importers"][0]["imports"], 0);
}

#[test]
fn a_directory_is_searched_and_what_it_skips_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let copy = |from: &str, to: &str| {
        let to = dir.path().join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(imp(from), to).unwrap();
    };
    copy("addon.bundle", "a/build/Release/addon.node");
    copy("plugin.bundle", "plugins/plugin");
    copy("addon-arm64.bundle", "prebuilds/darwin-arm64/addon.node");
    std::fs::write(dir.path().join("a/index.js"), "module.exports = 1\n").unwrap();
    std::fs::write(dir.path().join("a/package.json"), "{}\n").unwrap();
    // A link back up the tree: its target is read where it lies, not again through it.
    std::os::unix::fs::symlink("../a", dir.path().join("a/loop")).unwrap();
    let fifo = dir.path().join("a/fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let d = dir.path().display().to_string();
    // Two images of one arch: a file without it is still counted once.
    let (code, out, err) = run(&[
        "check",
        "--no-config",
        &imp("api"),
        &imp("api-v2"),
        "--importer",
        &d,
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("addon.node (x86_64): its 3 imports from "),
        "{out}"
    );
    assert!(
        out.contains("plugin (x86_64): 1 of 2 imports not exported"),
        "{out}"
    );
    let skipped = out
        .lines()
        .find(|l| l.starts_with("skipped below the directories of importers: "))
        .unwrap_or_else(|| panic!("no skipped line: {out}"));
    assert!(skipped.contains("2 not Mach-O ("), "{skipped}");
    assert!(
        skipped.contains("1 without a slice of the arch ("),
        "{skipped}"
    );
    assert!(skipped.contains("1 not regular files ("), "{skipped}");
    assert!(!skipped.contains("loop"), "{skipped}");
    let doc = json(&["scan", &imp("api"), "--importer", &d, "--format", "json"]);
    let counts: Vec<(&str, u64)> = doc["importers_skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["reason"].as_str().unwrap(), s["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        counts,
        [
            ("not Mach-O", 2),
            ("without a slice of the arch", 1),
            ("not regular files", 1)
        ]
    );
}

#[test]
fn diff_names_the_exports_removed_that_importers_still_need() {
    let (code, out, err) = run(&[
        "diff",
        &imp("api"),
        &imp("api-v2"),
        "--importer",
        &imp("addon.bundle"),
        "--importer",
        &imp("plugin.bundle"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("exports removed that importers still need:\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "plugin.bundle (x86_64): 1 of its 2 imports removed: api::write(int) (__ZN3api5writeEi)"
        ),
        "{out}"
    );
    assert!(
        !out.contains("addon.bundle (x86_64): "),
        "the addon lost nothing: {out}"
    );
    let doc = json(&[
        "diff",
        &imp("api"),
        &imp("api-v2"),
        "--importer",
        &imp("plugin.bundle"),
        "--format",
        "json",
    ]);
    assert_eq!(
        doc["importers"][0]["removed"][0]["symbol"],
        "__ZN3api5writeEi"
    );
    // Nothing removed the other way round.
    let (_, out, _) = run(&[
        "diff",
        &imp("api-v2"),
        &imp("api"),
        "--importer",
        &imp("plugin.bundle"),
    ]);
    assert!(
        out.contains("none of the exports removed is imported by the 1 importer slice read"),
        "{out}"
    );
}

#[test]
fn scan_lists_per_importer_what_the_image_exports_and_what_is_missing() {
    let doc = json(&[
        "scan",
        &imp("api-v2"),
        "--importer",
        &imp("addon.bundle"),
        "--importer",
        &imp("plugin.bundle"),
        "--format",
        "json",
    ]);
    let rows: Vec<(u64, u64, usize)> = doc["importers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["imports"].as_u64().unwrap(),
                i["exported"].as_u64().unwrap(),
                i["missing"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(rows, [(3, 3, 0), (2, 1, 1)]);
    let (code, out, _) = run(&["scan", &imp("api-v2"), "--importer", &imp("plugin.bundle")]);
    assert_eq!(code, 0, "scan never fails");
    assert!(out.contains("✗ "), "{out}");
}

#[test]
fn bad_importers_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.node");
    std::fs::write(&text, "not a binary\n").unwrap();
    let api = imp("api");
    let t = text.display().to_string();
    fails_with(
        &["check", "--no-config", &api, "--importer", &t],
        "notes.node",
    );
    // No x86_64 slice, named directly.
    let arm = imp("addon-arm64.bundle");
    fails_with(
        &["check", "--no-config", &api, "--importer", &arm],
        "importer has no x86_64 slice (it has arm64)",
    );
    // Malformed binds: the addon's lazy-bind stream with an opcode the lazy stream refuses.
    let mut bytes = std::fs::read(testdata().join("importers/addon.bundle")).unwrap();
    let slice = x86_64_slice_offset(&bytes);
    let lazy = lazy_bind_off(&bytes[slice..]) + slice;
    bytes[lazy] = 0x50 | 1; // SET_TYPE_IMM
    let bad = dir.path().join("bad.node");
    std::fs::write(&bad, &bytes).unwrap();
    let line = fails_with(
        &[
            "check",
            "--no-config",
            &api,
            "--importer",
            &bad.display().to_string(),
        ],
        "bad.node: x86_64: lazy-bind stream: bad lazy bind opcode (at offset 0x0)",
    );
    assert!(line.starts_with("weakscan: "), "{line}");
    fails_with(
        &[
            "check",
            "--no-config",
            &api,
            "--importer",
            "/nonexistent/addon.node",
        ],
        "/nonexistent/addon.node",
    );
    // The image must be read again for its exports: not from stdin.
    let out = weakscan()
        .args([
            "check",
            "--no-config",
            "-",
            "--importer",
            &imp("addon.bundle"),
        ])
        .write_stdin(std::fs::read(&api).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not -"));
}

// Imports held against a deep trie took its depth squared each: a lookup searched its list
// of nodes entered at every step, and 200 flat imports against a dylib whose trie is a chain of
// 49,000 nodes joined by empty edge labels (296 KB; `scripts/gen-trie-hostile.py importer`)
// took 41 s of CPU. A lookup now costs its depth (that check: 9.8 M nodes, 0.3 s; here a chain
// of 10,000), and one check's lookups share a budget of trie nodes: against a chain of 98,000,
// one line, exit 2.
#[test]
fn regression_imports_held_against_a_deep_trie_took_its_depth_squared_each() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..200).map(|k| format!("_f{k}")).collect();
    let addon = dir.path().join("addon.node");
    std::fs::write(
        &addon,
        linked_macho(8, 0x85, &[], &[], &flat_imports(&names)),
    )
    .unwrap();
    let addon = addon.display().to_string();
    let lib = |depth: usize| {
        let path = dir.path().join(format!("libdeep{depth}.dylib"));
        let id = dylib_command(0xd, "@rpath/libdeep.dylib");
        std::fs::write(&path, linked_macho(6, 0x85, &[id], &deep_trie(depth), &[])).unwrap();
        path.display().to_string()
    };
    let shallow = lib(10_000);
    let (code, out, err) = run(&["check", "--no-config", &shallow, "--importer", &addon]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("weakscan check FAILED: 200 of 200 imports of 1 importer not exported"),
        "{out}"
    );
    let deep = lib(98_000);
    let (code, out, err) = run(&["check", "--no-config", &deep, "--importer", &addon]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "weakscan: {deep}: x86_64: importer check stopped: the export-trie lookups of the importers' imports entered more than 16777216 trie nodes (weakscan's work limit for one check, docs/robustness.md)\n"
        )
    );
}

// Regression (hostile-input review): importers more than 32 levels below the directory given
// were dropped without a word (walkdir's `max_depth`), and a symlink to one with them.
#[test]
fn regression_importers_too_deep_in_a_directory_were_dropped_without_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut deep = dir.path().join("d");
    for k in 0..40 {
        deep.push(format!("{k}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::copy(imp("addon.bundle"), deep.join("deep.node")).unwrap();
    std::os::unix::fs::symlink(deep.join("deep.node"), dir.path().join("link.node")).unwrap();
    let d = dir.path().display().to_string();
    let doc = json(&["scan", &imp("api"), "--importer", &d, "--format", "json"]);
    let skipped = &doc["importers_skipped"];
    let too_deep = skipped
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["reason"] == "directories or symlinks too deep, not searched")
        .unwrap_or_else(|| panic!("no too-deep count in {skipped}"));
    assert_eq!(too_deep["count"], 2, "{skipped}");
}

// Regression (hostile-input review): an importer's weak-lookup imports looked up in its own
// deep export trie had a budget of 2²⁴ nodes each, so K copies of one 300 KB importer cost
// K × 2²⁴ nodes (64 copies: past 60 s). Each importer's budget is now linear in its size.
#[test]
fn regression_an_importers_own_deep_trie_had_a_whole_checks_budget() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..340).map(|k| format!("_f{k}")).collect();
    let importer = |depth: usize| {
        let path = dir.path().join(format!("plugin{depth}.bundle"));
        let bytes = linked_macho(
            8,
            0x85,
            &[],
            &deep_trie(depth),
            &chained_imports_of(&names, 0xfd),
        );
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let lib = dir.path().join("libt.dylib");
    let id = dylib_command(0xd, "@rpath/libt.dylib");
    std::fs::write(&lib, linked_macho(6, 0x85, &[id], &deep_trie(2), &[])).unwrap();
    let lib = lib.display().to_string();
    // Shallow: every import looked up in the importer's own trie, none found there.
    let shallow = importer(20);
    let (code, _, err) = run(&["check", "--no-config", &lib, "--importer", &shallow]);
    assert_eq!(code, 0, "{err}");
    let deep = importer(49_000);
    let (code, out, err) = run(&["check", "--no-config", &lib, "--importer", &deep]);
    assert_eq!((code, out.as_str()), (2, ""));
    let size = std::fs::metadata(&deep).unwrap().len();
    assert_eq!(
        err,
        format!(
            "weakscan: {deep}: x86_64: the lookups of its weak-lookup imports in its own export trie entered more than {} trie nodes (weakscan's work limit for an importer of this size, docs/robustness.md)\n",
            2 * size + 65_536
        )
    );
}

/// The file offset of the x86_64 slice of a universal file (FAT_MAGIC, big-endian entries).
fn x86_64_slice_offset(b: &[u8]) -> usize {
    let be = |o: usize| u32::from_be_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    assert_eq!(be(0), 0xcafe_babe);
    (0..be(4))
        .map(|i| 8 + 20 * i)
        .find(|&e| be(e) == 0x0100_0007)
        .map(|e| be(e + 8))
        .expect("an x86_64 slice")
}

/// `lazy_bind_off` of the `LC_DYLD_INFO_ONLY` of the thin image `b`.
fn lazy_bind_off(b: &[u8]) -> usize {
    let le = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let mut off = 32;
    for _ in 0..le(16) {
        if le(off) == 0x8000_0022 {
            return le(off + 32);
        }
        off += le(off + 4);
    }
    panic!("no LC_DYLD_INFO_ONLY")
}

/// Every (kind, symbol) llvm-objdump shows `path`'s `arch` slice binding: kind is the dylib
/// column (`flat-namespace`, `main-executable`, `weak`, a dylib's leaf name).
fn objdump_binds(objdump: &Path, path: &Path, arch: &str) -> BTreeSet<(String, String)> {
    let text = |flag: &str| {
        let out = Command::new(objdump)
            .args(["--macho", "--arch", arch, flag])
            .arg(path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{flag} {}", path.display());
        String::from_utf8(out.stdout).unwrap()
    };
    let mut set = BTreeSet::new();
    let table = |t: &str, dylib: usize, symbol: usize, set: &mut BTreeSet<_>| {
        let mut rows = false;
        for l in t.lines() {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.first() == Some(&"segment") {
                rows = true;
            } else if rows && f.len() > symbol {
                set.insert((f[dylib].to_string(), f[symbol].to_string()));
            }
        }
    };
    table(&text("--bind"), 5, 6, &mut set);
    table(&text("--lazy-bind"), 3, 4, &mut set);
    let weak = text("--weak-bind");
    let mut rows = false;
    for l in weak.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.first() == Some(&"segment") {
            rows = true;
        } else if rows && f.len() >= 5 && f[0] != "strong" {
            set.insert(("weak".into(), f[f.len() - 1].to_string()));
        }
    }
    // Chained fixups: `lib_ordinal = N (dylib)` then `name_offset = X (symbol)`.
    let mut dylib = None;
    for l in text("--chained-fixups").lines() {
        let l = l.trim();
        if let Some(rest) = l.strip_prefix("lib_ordinal = ") {
            dylib = rest
                .split_once(" (")
                .map(|(_, d)| d.trim_end_matches(')').to_string());
        } else if let Some(rest) = l.strip_prefix("name_offset = ")
            && let Some(d) = dylib.take()
        {
            let name = rest.split_once(" (").map(|(_, n)| n.trim_end_matches(')'));
            set.insert((d, name.unwrap_or_default().to_string()));
        }
    }
    set
}

/// The same as weakscan's importer reader gives it.
fn weakscan_binds(path: &Path, arch: &str) -> BTreeSet<(String, String)> {
    let s = read_importer(path, arch).unwrap().expect("the slice");
    s.imports
        .iter()
        .map(|i| {
            let kind = match i.library_ordinal {
                -3 => "weak".to_string(),
                -2 => "flat-namespace".into(),
                -1 => "main-executable".into(),
                0 => "this-image".into(),
                n => {
                    let dylib = &s.dylibs[n as usize - 1];
                    let leaf = dylib.rsplit('/').next().unwrap_or(dylib);
                    let stem = leaf.split('.').next().unwrap_or(leaf);
                    stem.to_string()
                }
            };
            (kind, i.name.clone())
        })
        .collect()
}

/// The importers whose binds are compared with llvm-objdump's: the fixtures and, when cached,
/// the real addon of `scripts/fetch-npm.sh`.
fn bind_subjects() -> Vec<(PathBuf, &'static str)> {
    let d = testdata().join("importers");
    let mut v: Vec<(PathBuf, &str)> = [
        ("addon.bundle", "x86_64"),
        ("addon.bundle", "arm64"),
        ("plugin.bundle", "x86_64"),
        ("client.dylib", "x86_64"),
        ("api", "x86_64"),
    ]
    .into_iter()
    .map(|(f, a)| (d.join(f), a))
    .collect();
    if let Some(addon) = crate::importers_real::cached_addon() {
        v.push((addon, "x86_64"));
    }
    v
}

#[test]
fn importer_binds_agree_with_llvm_objdump() {
    let Some(objdump) = llvm_objdump() else {
        assert!(
            !required("WEAKSCAN_REQUIRE_LLVM"),
            "llvm-objdump from LLVM 22 is required but missing"
        );
        skip("llvm-objdump from LLVM 22 not found (apt-get install llvm-22)");
        return;
    };
    let mut binds = 0;
    for (path, arch) in bind_subjects() {
        let want = objdump_binds(&objdump, &path, arch);
        binds += want.len();
        assert_eq!(
            weakscan_binds(&path, arch),
            want,
            "{} ({arch})",
            path.display()
        );
    }
    // api binds its own weak definition; the bundles and client.dylib 10 (dylib, symbol)
    // pairs, the addon 47+.
    assert!(binds >= 10, "llvm-objdump shows {binds} binds");
}

/// `scan --importer`: the fix plan's candidate `api.o` would hide the API's non-weak exports
/// too, and names each importer that binds them (regression: no fixture had a candidate whose
/// change hid an imported export, so the join went untested).
#[test]
fn scan_names_the_importers_a_candidate_would_break_through_its_other_exports() {
    let (addon, plugin) = (imp("addon.bundle"), imp("plugin.bundle"));
    let importers_of = |api: &str| {
        let doc = json(&[
            "scan",
            &imp(api),
            "--importer",
            &addon,
            "--importer",
            &plugin,
            "--format",
            "json",
        ]);
        let candidates = doc["fix_plan"][0]["candidates"].as_array().unwrap().clone();
        assert_eq!(candidates.len(), 1, "{candidates:?}");
        let c = &candidates[0];
        assert_eq!(c["library"], "api.o");
        assert_eq!(c["hidden"]["weak_def_exports"], 1);
        assert_eq!(c["kinds"]["local_statics"], 1);
        c["imported_by"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let leaf = i["importer"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string();
                let names: Vec<(String, String)> = i["examples"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| {
                        (
                            e["symbol"].as_str().unwrap().into(),
                            e["name"].as_str().unwrap().into(),
                        )
                    })
                    .collect();
                (leaf, i["symbols"].as_u64().unwrap(), names)
            })
            .collect::<Vec<_>>()
    };
    let pair = |s: &str, n: &str| (s.to_string(), n.to_string());
    assert_eq!(
        importers_of("api"),
        [
            (
                "addon.bundle".to_string(),
                3,
                vec![
                    pair("_api_close", "api_close"),
                    pair("_api_read", "api_read"),
                    pair("_api_open", "api_open")
                ]
            ),
            (
                "plugin.bundle".to_string(),
                2,
                vec![
                    pair("__ZN3api7versionEv", "api::version()"),
                    pair("__ZN3api5writeEi", "api::write(int)")
                ]
            )
        ]
    );
    // v2 no longer exports api::write(int): hiding api.o takes only api::version() from the
    // plug-in.
    assert_eq!(importers_of("api-v2")[1].1, 1);
    let (code, out, _) = run(&[
        "scan",
        &imp("api"),
        "--importer",
        &addon,
        "--importer",
        &plugin,
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("hiding api.o breaks importers: ") && out.contains("plugin.bundle (2: api::version() (__ZN3api7versionEv), api::write(int) (__ZN3api5writeEi))"),
        "{out}"
    );
}

/// The skipped reasons and counts of `scan api --importer DIR --format json`, and the importers
/// read (file names).
fn importer_dir(dir: &Path) -> (Vec<(String, u64)>, Vec<String>) {
    let doc = json(&[
        "scan",
        &imp("api"),
        "--importer",
        &dir.display().to_string(),
        "--format",
        "json",
    ]);
    let skipped = doc["importers_skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["reason"].as_str().unwrap().to_string(),
                s["count"].as_u64().unwrap(),
            )
        })
        .collect();
    let read = doc["importers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["importer"].as_str().unwrap().to_string())
        .collect();
    (skipped, read)
}

// Regression (hostile-input campaign): one dangling symlink below `--importer DIR` (common under
// `node_modules/.bin`) stopped the run with exit 2, where loops and FIFOs were skipped and
// counted. It is skipped and counted too, and named where the other skips are.
#[test]
fn regression_a_dangling_symlink_under_an_importer_directory_failed_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let bin_dir = dir.path().join("node_modules/.bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::copy(
        imp("addon.bundle"),
        dir.path().join("node_modules/addon.node"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../gone/cli.js", bin_dir.join("gone")).unwrap();
    let (code, out, err) = run(&[
        "scan",
        &imp("api"),
        "--importer",
        &dir.path().display().to_string(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("addon.node (x86_64): its 3 imports from "),
        "{out}"
    );
    let skipped = out
        .lines()
        .find(|l| l.starts_with("skipped below the directories of importers: "))
        .unwrap_or_else(|| panic!("no skipped line: {out}"));
    assert!(
        skipped.contains("1 dangling symlinks (") && skipped.contains(".bin/gone"),
        "{skipped}"
    );
    let (skipped, read) = importer_dir(dir.path());
    assert_eq!(skipped, [("dangling symlinks".to_string(), 1)]);
    assert_eq!(read.len(), 1, "{read:?}");
}

// Regression (hostile-input campaign): `--importer DIR` followed symlinks wherever they led (a
// walk reached /etc). As a process's files stay inside its roots, nothing outside DIR is read:
// a symlink to a file or directory out of it, or in a loop, is skipped and counted, and one to a
// file or directory inside it is read once, where its target lies.
#[test]
fn regression_symlinks_out_of_an_importer_directory_were_followed() {
    let top = tempfile::tempdir().unwrap();
    let outside = top.path().join("outside");
    std::fs::create_dir_all(outside.join("deep")).unwrap();
    std::fs::copy(imp("plugin.bundle"), outside.join("plugin")).unwrap();
    std::fs::copy(imp("plugin.bundle"), outside.join("deep/plugin")).unwrap();
    let dir = top.path().join("dir");
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::copy(imp("addon.bundle"), dir.join("a/addon.node")).unwrap();
    let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, dir.join(at)).unwrap();
    // Six not followed: out of the directory (three ways and above it) or in a loop.
    link(&outside, "out-dir");
    link(&outside.join("plugin"), "out-file");
    link(Path::new("../outside/plugin"), "out-relative");
    link(Path::new("../.."), "a/up");
    link(Path::new("loop-b"), "loop-a");
    link(Path::new("loop-a"), "loop-b");
    // Inside: read where they lead.
    link(Path::new(".."), "a/top");
    link(Path::new("a/addon.node"), "in-file");
    link(Path::new("a"), "in-dir");
    let (skipped, read) = importer_dir(&dir);
    assert_eq!(
        skipped,
        [(
            "symlinks out of the directory or in a loop, not followed".to_string(),
            6
        )],
        "{read:?}"
    );
    // The addon once, at its own path; nothing from outside.
    assert_eq!(read.len(), 1, "{read:?}");
    assert!(read[0].ends_with("dir/a/addon.node"), "{read:?}");
}
