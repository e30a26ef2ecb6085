//! Real input: official Node.js macOS binaries (20.11.0, 22.11.0, 24.11.1; the trend test also
//! 22.12.0 and 22.14.0) from the npm registry (`scripts/fetch-node.sh` puts them in
//! `$WEAKSCAN_NODE_CACHE`, default `.cache/node`).
//! Reference figures: llvm-objdump from LLVM 22, and DYLD_PRINT_BINDINGS for the 2158
//! (docs/dyld-weak-binding.md). Skipped when the cache is absent, unless
//! `WEAKSCAN_REQUIRE_NODE=1` (CI) makes that a failure.

use crate::util::{assert_fitted, identifiers_of, json, required, stdout_of, weakscan};
use std::path::PathBuf;

pub fn node_binary(version: &str) -> Option<PathBuf> {
    let cache = std::env::var_os("WEAKSCAN_NODE_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".cache/node"));
    let bin = cache.join(version).join("node");
    if bin.is_file() {
        return Some(bin);
    }
    assert!(
        !required("WEAKSCAN_REQUIRE_NODE"),
        "{} is missing: run scripts/fetch-node.sh",
        bin.display()
    );
    crate::util::skip(&format!(
        "{} not cached (scripts/fetch-node.sh)",
        bin.display()
    ));
    None
}

fn figures(version: &str, fixups: &str, exports: u64, sites: u64, symbols: u64, lookups: u64) {
    let Some(bin) = node_binary(version) else {
        return;
    };
    let doc = json(&["scan", "--format", "json", bin.to_str().unwrap()]);
    let img = &doc["images"][0];
    assert_eq!(img["arch"], "x86_64");
    assert_eq!(img["fixup_format"], fixups);
    assert_eq!(img["weak_def_exports"], exports, "node {version}");
    assert_eq!(img["weak_bind_sites"], sites, "node {version}");
    assert_eq!(img["weak_bind_symbols"], symbols, "node {version}");
    assert_eq!(img["predicted_weak_lookups"], lookups, "node {version}");
    assert_eq!(
        doc["demangle_failures"], 0,
        "node {version}: every symbol demangles"
    );
}

#[test]
fn node_22_11_0_opcodes() {
    figures("22.11.0", "opcodes", 10177, 8237, 6800, 6822);
}

#[test]
fn node_24_11_1_chained() {
    figures("24.11.1", "chained", 1972, 1941, 1842, 1886);
}

#[test]
fn node_22_static_call_interface_descriptor_holds_2158() {
    let Some(bin) = node_binary("22.11.0") else {
        return;
    };
    let doc = json(&[
        "scan",
        "--format",
        "json",
        "--by",
        "template",
        bin.to_str().unwrap(),
    ]);
    let group = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["key"] == "v8::internal::StaticCallInterfaceDescriptor<…>")
        .expect("the StaticCallInterfaceDescriptor group");
    assert_eq!(group["weak_bound_symbols"], 2158);
    assert_eq!(
        doc["groups"][0]["key"], group["key"],
        "it is the largest group"
    );
}

#[test]
fn node_diff_22_to_24() {
    let (Some(old), Some(new)) = (node_binary("22.11.0"), node_binary("24.11.1")) else {
        return;
    };
    let doc = json(&[
        "diff",
        "--format",
        "json",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    let t = &doc["totals"][0];
    assert_eq!(t["delta"]["lookups"], 1886 - 6822);
    assert_eq!(
        doc["groups"][0]["key"],
        "v8::internal::StaticCallInterfaceDescriptor<…>"
    );
    assert_eq!(doc["groups"][0]["delta"]["weak_bound_symbols"], -2158);
}

/// The export trie of each Node build walked in parts on the pool, split as often as it will go
/// and as `scan` splits it, gives the whole walk's terminals in its order (its 95k nodes are
/// where a part boundary could drop, repeat or reorder one).
#[test]
fn node_export_tries_walked_in_parts_equal_the_whole_walk() {
    use weakscan::macho::MachOFile;
    use weakscan::macho::export_trie::{Split, walk_export_trie, walk_export_trie_split};
    use weakscan::macho::load_commands::read_load_commands;
    type Terminals = Vec<(Vec<u8>, u64, weakscan::macho::export_trie::ExportTarget)>;
    for version in ["20.11.0", "22.11.0", "24.11.1"] {
        let Some(bin) = node_binary(version) else {
            continue;
        };
        let file = MachOFile::open(&bin).unwrap();
        let loc = file.slices().unwrap().remove(0);
        let lc = read_load_commands(&file, &loc).unwrap();
        let r = lc.exports_trie.or(lc.dyld_info_exports).unwrap();
        let trie = file
            .read_range(
                loc.offset + u64::from(r.offset),
                u64::from(r.size),
                "export trie",
            )
            .unwrap();
        let mut whole: Terminals = Vec::new();
        walk_export_trie(&trie, |n, f, t| whole.push((n.to_vec(), f, t))).unwrap();
        let always = Split {
            min_bytes: 0,
            check_every: 1,
        };
        for split in [always, always, Split::DEFAULT] {
            let parts = weakscan::pool::install(|| {
                walk_export_trie_split(&trie, split, Vec::new, |p: &mut Terminals, n, f, t| {
                    p.push((n.to_vec(), f, t))
                })
            })
            .unwrap()
            .unwrap();
            assert!(parts.len() >= 2, "node {version}: the walk was not split");
            assert!(
                parts.into_iter().flatten().eq(whole.iter().cloned()),
                "node {version}: split walk differs ({split:?})"
            );
        }
    }
}

/// The gate on real builds: a baseline of Node 20.11.0 with `--max-increase 10%` fails 22.11.0
/// (the V8 template leak) and passes 24.11.1 (V8 built with -fvisibility=hidden).
#[test]
fn node_check_against_a_20_11_0_baseline() {
    let (Some(v20), Some(v22), Some(v24)) = (
        node_binary("20.11.0"),
        node_binary("22.11.0"),
        node_binary("24.11.1"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("weakscan-baseline.json");
    weakscan()
        .current_dir(dir.path())
        .args(["baseline", v20.to_str().unwrap(), "-o"])
        .arg(&base)
        .assert()
        .success();
    let check = |bin: &std::path::Path, code: i32| -> serde_json::Value {
        let out = weakscan()
            .current_dir(dir.path())
            .env_remove("GITHUB_STEP_SUMMARY")
            .args([
                "check",
                "--format",
                "json",
                "--max-increase",
                "10%",
                "--baseline",
            ])
            .arg(&base)
            .arg(bin)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // (figure, total, allowed, counted, baseline counted); operator new/delete are allowed.
    let figures = |r: &serde_json::Value| -> Vec<(String, u64, u64, u64, u64)> {
        r["images"][0]["figures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["figure"].as_str().unwrap().to_string(),
                    f["total"].as_u64().unwrap(),
                    f["allowed"].as_u64().unwrap(),
                    f["counted"].as_u64().unwrap(),
                    f["baseline"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let fig = |name: &str, t, a, c, b| (name.to_string(), t, a, c, b);
    let r22 = check(&v22, 1);
    assert_eq!(
        figures(&r22),
        [
            fig("predicted_weak_lookups", 6822, 28, 6794, 3133),
            fig("weak_def_exports", 10177, 0, 10177, 5803),
            fig("weak_bind_symbols", 6800, 6, 6794, 3133),
        ]
    );
    assert!(
        r22["images"][0]["budgets"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["passed"] == false)
    );
    let top = &r22["images"][0]["offending_groups"][0];
    assert_eq!(top["key"], "v8::internal::StaticCallInterfaceDescriptor<…>");
    assert_eq!(
        (top["baseline"].as_u64(), top["value"].as_u64()),
        (Some(493), Some(2158))
    );
    // The PR comment of the failing check: each failure once, the largest change with its
    // object, the fix from the fix plan.
    let out = weakscan()
        .current_dir(dir.path())
        .env_remove("GITHUB_STEP_SUMMARY")
        .args([
            "check",
            "--format",
            "markdown",
            "--max-increase",
            "10%",
            "--baseline",
        ])
        .arg(&base)
        .arg(&v22)
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(!md.lines().any(|l| l.starts_with("- ")), "no bullets: {md}");
    assert_eq!(md.matches("rose from").count(), 1, "{md}");
    assert!(
        md.contains(
            "Largest change: `v8::internal::StaticCallInterfaceDescriptor<…>` 493 → 2158 \
             (+1665, +337.7%), from `libv8_base_without_compiler.a(interface-descriptors.o)`."
        ),
        "{md}"
    );
    assert!(
        md.contains("**Fix:** compile `libv8_base_without_compiler.a` with `-fvisibility=hidden`"),
        "{md}"
    );
    let r24 = check(&v24, 0);
    assert_eq!(
        figures(&r24),
        [
            fig("predicted_weak_lookups", 1886, 52, 1834, 3133),
            fig("weak_def_exports", 1972, 0, 1972, 5803),
            fig("weak_bind_symbols", 1842, 8, 1834, 3133),
        ]
    );
}

/// `scan --by library|object --format json` on a Node build: each group's weak-bound symbols.
fn by(version: &str, level: &str) -> Option<(serde_json::Value, Vec<(String, u64)>)> {
    let bin = node_binary(version)?;
    let doc = json(&[
        "scan",
        "--format",
        "json",
        "--by",
        level,
        "--top",
        "1000",
        bin.to_str().unwrap(),
    ]);
    let groups = doc["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| {
            (
                g["key"].as_str().expect("key").to_string(),
                g["weak_bound_symbols"].as_u64().expect("figure"),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    Some((doc, groups))
}

/// Issue 11's figures: of 6800 weak-bound symbols of 22.11.0, 6794 have a debug-map entry, by
/// static library as listed, and the 2158 of the published investigation come from one object.
#[test]
fn node_22_attribution_by_library_and_object() {
    let Some((doc, libraries)) = by("22.11.0", "library") else {
        return;
    };
    let a = &doc["images"][0]["attribution"];
    assert_eq!(a["source"], "debug_map");
    assert_eq!(a["weak_bound_attributed"], 6794);
    assert_eq!(a["objects"], 2654);
    let expected = [
        ("libv8_base_without_compiler.a", 3939),
        ("libnode.a", 1635),
        ("libv8_compiler.a", 1041),
        ("libv8_turboshaft.a", 91),
        ("libicui18n.a", 68),
        ("libada.a", 10),
        ("(defined in another image)", 6),
        ("libicuucx.a", 5),
        ("libv8_libbase.a", 4),
        ("libv8_abseil.a", 1),
    ];
    let mut got = libraries.clone();
    got.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut want: Vec<(String, u64)> = expected.iter().map(|(k, n)| (k.to_string(), *n)).collect();
    want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    assert_eq!(got, want);
    let (_, objects) = by("22.11.0", "object").expect("cached");
    assert_eq!(
        objects[..2],
        [
            (
                "libv8_base_without_compiler.a(interface-descriptors.o)".to_string(),
                2158
            ),
            (
                "libv8_compiler.a(instruction-selector-x64.o)".to_string(),
                892
            ),
        ]
    );
}

/// After the fix (24.11.1): V8 no longer leaks; Node's own code (libnode.a) still does.
#[test]
fn node_24_attribution_after_the_fix() {
    let Some((doc, libraries)) = by("24.11.1", "library") else {
        return;
    };
    assert_eq!(
        doc["images"][0]["attribution"]["weak_bound_attributed"],
        1834
    );
    assert_eq!(doc["images"][0]["weak_bind_symbols"], 1842);
    assert_eq!(libraries[0], ("libnode.a".to_string(), 1717));
    let v8: u64 = libraries
        .iter()
        .filter(|(k, _)| k.starts_with("libv8"))
        .map(|(_, n)| n)
        .sum();
    assert!(v8 < 10, "V8 still leaks {v8} weak-bound symbols");
}

/// Every weak-bound symbol and weak definition of two Node builds is attributed to the object
/// llvm-nm-22 `-ap` shows its stab under.
#[test]
fn node_attribution_agrees_with_llvm_nm() {
    let Some(nm) = crate::util::llvm_nm_or_skip() else {
        return;
    };
    for version in ["22.11.0", "24.11.1"] {
        let Some(bin) = node_binary(version) else {
            continue;
        };
        let n = crate::differential::attribution_agrees_with_llvm_nm(&nm, &bin);
        assert!(n > 3_000, "node {version}: only {n} symbols compared");
    }
}

/// The builds the trend test reads: the 22.x releases on either side of the step that removed
/// V8's leaked templates, and those the other tests read (`.ci/run` fetches all of them).
const TREND_VERSIONS: [&str; 5] = ["20.11.0", "22.11.0", "22.12.0", "22.14.0", "24.11.1"];

/// Per static library (the archive of each symbol's `N_OSO` in llvm-nm-22 `-ap`), the distinct
/// weak-bound symbols llvm-objdump-22 `--weak-bind` lists (rows not marked `strong`); symbols
/// no stab names are left out.
fn weak_bound_by_library(
    objdump: &std::path::Path,
    nm: &std::path::Path,
    bin: &std::path::Path,
) -> std::collections::BTreeMap<String, i64> {
    let out = std::process::Command::new(objdump)
        .args(["--macho", "--weak-bind"])
        .arg(bin)
        .output()
        .expect("run llvm-objdump");
    assert!(out.status.success(), "llvm-objdump --weak-bind {bin:?}");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let symbols: std::collections::BTreeSet<&str> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // segment section address type addend symbol
            (f.len() == 6 && f[2].starts_with("0x")).then(|| f[5])
        })
        .collect();
    let map = crate::util::nm_debug_map(nm, bin);
    let mut by = std::collections::BTreeMap::new();
    for s in symbols {
        if let Some(oso) = map.get(s) {
            let archive = oso.split('(').next().unwrap_or(oso);
            let lib = archive.rsplit('/').next().unwrap_or(archive);
            *by.entry(lib.to_string()).or_insert(0) += 1;
        }
    }
    by
}

/// Issue 15: `trend --sort version` over the 22.x line finds the release that removed V8's
/// leaked templates — 22.14.0 (nodejs/node#56275), 6825 → 1754 lookups — and the templates
/// and static libraries it emptied. Each build's figures are llvm-objdump-22's (exports,
/// weak-bind rows, distinct weak-bound symbols; + 22 treat-as-weak lookups for these opcode
/// builds), as in the tests above; the library changes are llvm-nm-22's debug map when LLVM 22
/// is installed.
#[test]
fn node_trend_finds_the_22_x_release_that_removed_the_leak() {
    let mut bins = Vec::new();
    // Given out of order: --sort version puts them right.
    for v in ["24.11.1", "22.14.0", "20.11.0", "22.12.0", "22.11.0"] {
        let Some(bin) = node_binary(v) else {
            return;
        };
        bins.push(bin);
    }
    let mut args = vec!["trend", "--format", "json", "--sort", "version"];
    args.extend(bins.iter().map(|b| b.to_str().unwrap()));
    let doc = json(&args);
    let versions: Vec<&str> = doc["builds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions, TREND_VERSIONS);
    let s = &doc["series"][0];
    assert_eq!(s["arch"], "x86_64");
    // (weak-def exports, weak-bind sites, weak-bound symbols, predicted lookups)
    let want: [(u64, u64, u64, u64); 5] = [
        (5803, 4285, 3139, 3161),
        (10177, 8237, 6800, 6822),
        (10180, 8240, 6803, 6825),
        (1867, 1847, 1732, 1754),
        (1972, 1941, 1842, 1886),
    ];
    for (p, (v, w)) in s["points"]
        .as_array()
        .unwrap()
        .iter()
        .zip(TREND_VERSIONS.iter().zip(want))
    {
        let f = &p["figures"];
        let got = (
            f["weak_def_exports"].as_u64().unwrap(),
            f["sites"].as_u64().unwrap(),
            f["weak_bound_symbols"].as_u64().unwrap(),
            f["lookups"].as_u64().unwrap(),
        );
        assert_eq!(got, w, "node {v}");
    }
    // The largest step is 22.12.0 → 22.14.0; the V8 upgrade of 22 (20.11.0 → 22.11.0, +3661)
    // is flagged too; nothing else is a quarter of it.
    let steps = s["steps"].as_array().unwrap();
    let step = |from: &str, to: &str| {
        let (f, t) = (
            TREND_VERSIONS.iter().position(|v| *v == from).unwrap(),
            TREND_VERSIONS.iter().position(|v| *v == to).unwrap(),
        );
        steps
            .iter()
            .find(|st| st["from"] == f && st["to"] == t)
            .unwrap()
    };
    let fix = step("22.12.0", "22.14.0");
    assert_eq!(s["largest_step"], 2);
    assert_eq!(fix["largest"], true);
    assert_eq!(fix["change"]["lookups"], 1754 - 6825);
    let flagged: Vec<(u64, u64)> = steps
        .iter()
        .filter(|st| st["flagged"] == true)
        .map(|st| (st["from"].as_u64().unwrap(), st["to"].as_u64().unwrap()))
        .collect();
    assert_eq!(flagged, [(0, 1), (2, 3)]);
    assert_eq!(step("20.11.0", "22.11.0")["change"]["lookups"], 6822 - 3161);
    // The templates it emptied: V8's, the descriptor leak of the published investigation first.
    let groups = fix["groups"].as_array().unwrap();
    let moved: Vec<(&str, i64, u64)> = groups
        .iter()
        .map(|g| {
            (
                g["key"].as_str().unwrap(),
                g["delta"]["weak_bound_symbols"].as_i64().unwrap(),
                g["new"]["weak_bound_symbols"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        moved[..2],
        [
            ("v8::internal::StaticCallInterfaceDescriptor<…>", -2158, 0),
            ("v8::internal::compiler::InstructionSelectorT<…>", -1021, 0),
        ]
    );
    assert!(
        moved
            .iter()
            .all(|(k, d, new)| k.starts_with("v8::internal::") && *d < 0 && *new == 0),
        "{moved:?}"
    );
    // The libraries: V8's static libraries, emptied.
    let libs = fix["libraries"].as_array().unwrap();
    let lib = |k: &str| {
        libs.iter()
            .find(|l| l["key"] == k)
            .unwrap_or_else(|| panic!("{k} among {libs:?}"))
    };
    assert_eq!(libs[0]["key"], "libv8_base_without_compiler.a");
    assert_eq!(
        lib("libv8_base_without_compiler.a")["delta"]["weak_bound_symbols"],
        -3937
    );
    assert_eq!(
        lib("libv8_compiler.a")["delta"]["weak_bound_symbols"],
        -1041
    );
    assert_eq!(lib("libv8_compiler.a")["new"]["weak_bound_symbols"], 0);
    assert_eq!(lib("libv8_turboshaft.a")["new"]["weak_bound_symbols"], 0);

    // The same changes from LLVM's own view of the two builds.
    let (Some(objdump), Some(nm)) = (crate::util::llvm_objdump(), crate::util::llvm_nm()) else {
        assert!(
            !required("WEAKSCAN_REQUIRE_LLVM"),
            "llvm-objdump and llvm-nm from LLVM 22 are required but missing"
        );
        crate::util::skip("LLVM 22 not found: library changes not cross-checked");
        return;
    };
    let (old, new) = (
        weak_bound_by_library(&objdump, &nm, &bins[3]),
        weak_bound_by_library(&objdump, &nm, &bins[1]),
    );
    assert!(bins[3].ends_with("22.12.0/node") && bins[1].ends_with("22.14.0/node"));
    for l in libs {
        let k = l["key"].as_str().unwrap();
        if k.starts_with('(') {
            continue;
        }
        let d = new.get(k).copied().unwrap_or(0) - old.get(k).copied().unwrap_or(0);
        assert_eq!(l["delta"]["weak_bound_symbols"], d, "{k}");
        assert_eq!(
            l["old"]["weak_bound_symbols"],
            old.get(k).copied().unwrap_or(0),
            "{k}"
        );
    }
}

// ---- tables fitted to 80 and 120 columns ----

/// `weakscan ARGS --width W` for W in 80 and 120, each held to [`assert_fitted`] (no line wider,
/// no identifier split); the texts, by width.
fn fitted(args: &[&str]) -> Vec<(usize, String)> {
    let ids = identifiers_of(args);
    [80, 120]
        .into_iter()
        .map(|width| {
            let w = width.to_string();
            let mut fitted = args.to_vec();
            fitted.extend(["--width", &w]);
            let text = stdout_of(&fitted);
            assert_fitted(&args.join(" "), &text, width, &ids);
            (width, text)
        })
        .collect()
}

/// The Node builds of a trend: 20.11.0, 22.11.0, 22.14.0, 24.11.1 (paths as text).
fn four_builds() -> Option<Vec<String>> {
    ["20.11.0", "22.11.0", "22.14.0", "24.11.1"]
        .iter()
        .map(|v| node_binary(v).map(|p| p.display().to_string()))
        .collect()
}

/// Scan, diff, trend and check of Node.js at 80 and 120 columns.
#[test]
fn node_tables_fit_80_and_120_columns() {
    let Some(b) = four_builds() else {
        return;
    };
    for (width, text) in fitted(&["scan", &b[1]]) {
        // The top group, its object and the fix, whole.
        for needle in [
            "v8::internal::StaticCallInterfaceDescriptor<…>",
            "libv8_base_without_compiler.a",
            "(interface-descriptors.o)",
            "-fvisibility=hidden",
        ] {
            assert!(text.contains(needle), "{width}: {needle}\n{text}");
        }
    }
    fitted(&["diff", &b[1], &b[3]]);
    fitted(&["trend", "--top", "5", &b[0], &b[1], &b[2], &b[3]]);
    fitted(&[
        "check",
        "--no-config",
        "--max-weak-bind-symbols",
        "100",
        &b[1],
    ]);
}

/// Regression: at 80 and 100 columns `scan --top 5` wrapped the `from` column one character
/// short of the border, `libv8_bas` over `e_without` over `_compiler`.
#[test]
fn scan_top_5_keeps_libv8_base_without_compiler_whole_at_80_and_100_columns() {
    let Some(bin) = node_binary("22.11.0") else {
        return;
    };
    let bin = bin.display().to_string();
    for width in ["80", "100"] {
        let text = stdout_of(&["scan", &bin, "--top", "5", "--width", width]);
        assert!(!text.contains("libv8_bas\n") && !text.contains("libv8_bas "));
        for line in text.lines().filter(|l| l.contains("libv8_ba")) {
            assert!(
                line.contains("libv8_base_without_compiler.a"),
                "{width}: {line}\n{text}"
            );
        }
        // Each of the five groups' keys reads whole on one line of some part of the table.
        for key in [
            "v8::internal::StaticCallInterfaceDescriptor<…>",
            "v8::internal::compiler::InstructionSelectorT<…>",
            "node::SPrintFImpl<…>",
        ] {
            assert!(
                width == "80" || text.contains(key),
                "{width}: {key}\n{text}"
            );
        }
    }
}

/// Regression: `trend` of four builds at 100 columns printed the build column one letter per
/// line, twelve lines a row, past the edge.
#[test]
fn trend_of_four_builds_at_100_columns_keeps_each_build_on_one_line() {
    let Some(b) = four_builds() else {
        return;
    };
    // Run in the cache, the builds named `20.11.0/node` wherever the cache is.
    let cache = std::path::Path::new(&b[0])
        .parent()
        .unwrap()
        .parent()
        .unwrap();
    let versions = ["20.11.0", "22.11.0", "22.14.0", "24.11.1"];
    let builds: Vec<String> = versions.iter().map(|v| format!("{v}/node")).collect();
    let out = weakscan()
        .current_dir(cache)
        .arg("trend")
        .args(&builds)
        .args(["--width", "100"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        assert!(unicode_width::UnicodeWidthStr::width(line) <= 100, "{line}");
    }
    // Each build's row is one line: its number, path and version side by side.
    for (n, (path, version)) in builds.iter().zip(versions).enumerate() {
        let row = format!("│ {} ┆ {path} ", n + 1);
        let line = text
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("no row `{row}` in\n{text}"));
        assert!(line.contains(version), "{line}");
    }
}

/// A diff of every symbol of two Node builds is far longer than a pull-request comment may be:
/// the Markdown is cut to 64,000 bytes at whole table rows, and says so.
#[test]
fn node_diff_markdown_fits_one_comment() {
    let (Some(v20), Some(v22)) = (node_binary("20.11.0"), node_binary("22.11.0")) else {
        return;
    };
    let out = weakscan()
        .env_remove("GITHUB_STEP_SUMMARY")
        .args([
            "diff", "--by", "symbol", "--top", "100000", "--format", "markdown",
        ])
        .arg(&v20)
        .arg(&v22)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.len() <= 64_000, "{} bytes", md.len());
    assert!(
        md.len() > 60_000,
        "no more cut than needed: {} bytes",
        md.len()
    );
    assert!(md.starts_with("## weakscan diff: this change adds 3661 weak-def lookups"));
    let note = regex::Regex::new(
        r"\n\n_(\d+) of (\d+) rows cut to keep this comment within GitHub's 65,536-character limit\._\n",
    )
    .unwrap();
    let caps = note.captures(&md).expect(&md);
    let (cut, all): (usize, usize) = (caps[1].parse().unwrap(), caps[2].parse().unwrap());
    assert!(cut > 0 && cut < all, "{cut} of {all}");
    assert!(
        md.contains("**Fix:**") && md.contains("</details>"),
        "the rest is kept"
    );
    for line in md.lines().filter(|l| l.starts_with('|')) {
        assert!(line.ends_with('|'), "a whole row: {line}");
    }
}

/// Node.js 22.11.0's debug map names objects under /Users/admin/build/ws/out/Release, not on
/// this disk: the fix plan cannot see the other definers of a symbol, so its figures are "at
/// most", and the first screen says so and how to make them exact.
#[test]
fn node_22_fix_plan_is_at_most_without_its_objects() {
    let Some(bin) = node_binary("22.11.0") else {
        return;
    };
    let out = weakscan()
        .args(["scan", "--width", "100", bin.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let screen: String = text.lines().take(12).collect::<Vec<_>>().join(" ");
    let screen = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "fix: compile libv8_base_without_compiler.a with -fvisibility=hidden: at most -3939 lookups",
        "at most: another library may define the same symbols, and the objects the image was linked from are not on this disk (2654 of 2654)",
        "for exact figures give --objects /Users/admin/build/ws/out/Release or run in the build tree",
    ] {
        assert!(
            screen.contains(needle),
            "{needle:?} not on the first screen:\n{text}"
        );
    }
    let v = json(&["scan", "--format", "json", bin.to_str().unwrap()]);
    let d = &v["fix_plan"][0]["definers"];
    assert_eq!(d["exact"], false);
    assert_eq!(
        (d["objects"].as_u64(), d["not_on_disk"].as_u64()),
        (Some(2654), Some(2654))
    );
    assert!(
        v["fix_plan"][0]["shared"].is_null(),
        "no shared sets without the objects"
    );
}

/// Regression: on Node 22.11.0 against a 20.11.0 baseline (`--max-increase 10%`), `check` at 80
/// columns put three tables first and the offending groups and the fix at lines 55–77. Now the
/// verdict is line 1 and the three failing budgets, the top offending group and the fix are in
/// the first 24 lines, at 80 and 120 columns; 24.11.1 passes with its verdict on line 1.
#[test]
fn regression_check_of_node_22_hides_the_answer_below_the_first_screen() {
    let (Some(v20), Some(v22), Some(v24)) = (
        node_binary("20.11.0"),
        node_binary("22.11.0"),
        node_binary("24.11.1"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    weakscan()
        .args(["baseline", v20.to_str().unwrap(), "-o"])
        .arg(&base)
        .assert()
        .success();
    let check = |bin: &std::path::Path, width: &str, code: i32| -> String {
        let out = weakscan()
            .current_dir(dir.path())
            .env_remove("GITHUB_STEP_SUMMARY")
            .args([
                "check",
                "--no-config",
                "--max-increase",
                "10%",
                "--width",
                width,
            ])
            .arg("--baseline")
            .arg(&base)
            .arg(bin)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    for width in ["80", "120"] {
        let text = check(&v22, width, 1);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("weakscan check FAILED: 3 of 3 budgets exceeded on 1 image"),
            "{width}: {text}"
        );
        let screen = lines[..24].join("\n");
        for needle in [
            "✗ predicted weak-def lookups rose from 3133 to 6794 (+3661, +116.9%)",
            "✗ weak-def exports rose from 5803 to 10177",
            "✗ weak-bound symbols rose from 3133 to 6794",
            "(baseline.max_increase)",
            "v8::internal::StaticCallInterfaceDescriptor<…>",
            "493 → 2158 (+1665, +337.7%)",
            "fix: compile libv8_base_without_compiler.a with -fvisibility=hidden",
        ] {
            assert!(
                screen.contains(needle),
                "{width}: `{needle}` not in the first 24 lines:\n{screen}"
            );
        }
        assert_eq!(text.matches("rose from").count(), 3, "{width}: {text}");
        let pass = check(&v24, width, 0);
        assert!(
            pass.starts_with("weakscan check passed: 3 budgets hold on 1 image\n"),
            "{width}: {pass}"
        );
    }
}

/// ICU names its namespace after its version (`icu_73` in Node.js 20.11.0, `icu_75` in
/// 22.11.0, `icu_76` in 22.14.0, `icu_77` in 24.11.1): each of its groups was a removal and an
/// addition of the same size, 4 to 6 of a diff's top 20 rows. A rename is one group now.
#[test]
fn regression_a_version_renamed_namespace_was_a_removal_and_an_addition() {
    let versions = ["20.11.0", "22.11.0", "22.14.0", "24.11.1"];
    let bins: Vec<PathBuf> = versions.iter().filter_map(|v| node_binary(v)).collect();
    if bins.len() < versions.len() {
        return;
    }
    let groups = |a: &PathBuf, b: &PathBuf| -> Vec<serde_json::Value> {
        let doc = json(&[
            "diff",
            "--format",
            "json",
            "--top",
            "100000",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ]);
        doc["groups"].as_array().unwrap().clone()
    };
    let key = |g: &serde_json::Value| g["key"].as_str().unwrap().to_string();
    // 20.11.0 → 22.11.0: icu_73 → icu_75 changed nothing else in these groups: no row.
    let d = groups(&bins[0], &bins[1]);
    for k in ["icu_73::CacheKey<…>", "icu_75::CacheKey<…>"] {
        assert!(!d.iter().any(|g| key(g) == k), "{k} is a row");
    }
    assert!(!d.iter().any(|g| key(g).starts_with("icu_73::")));
    // 22.14.0 → 24.11.1: icu_76 → icu_77, and 4 more lookups: one row, its old key given.
    let d = groups(&bins[2], &bins[3]);
    let row = d
        .iter()
        .find(|g| key(g) == "icu_77::number::NumberFormatterSettings<…>")
        .expect("the renamed group is a row");
    assert_eq!(
        row["renamed_from"],
        "icu_76::number::NumberFormatterSettings<…>"
    );
    assert_eq!(
        (&row["old"]["lookups"], &row["new"]["lookups"]),
        (&20.into(), &24.into())
    );
    assert!(
        !d.iter()
            .any(|g| key(g).starts_with("icu_76::number::NumberFormatterSettings"))
    );
    let table = weakscan()
        .args(["diff", "--top", "100000", "--width", "200"])
        .args([&bins[2], &bins[3]])
        .output()
        .unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("icu_77::number::NumberFormatterSettings<…> (renamed icu_76 → icu_77)"),
        "{text}"
    );
}

/// Names were cut in the middle of an identifier, destroying the answer: at 80 columns
/// `StaticCallInte…criptor<…>`, `absl::container_internal…unctions()::value`, and in the PR
/// comment `std::__1::basic_string<char, std::__1::char_tra…ng long&&)`. Names now fold their
/// lists, then their outer scopes; wherever an output shows `…` next to an identifier, that
/// identifier is whole (it is one of the names' identifiers).
#[test]
fn regression_names_were_cut_inside_an_identifier() {
    let (Some(v20), Some(v22)) = (node_binary("20.11.0"), node_binary("22.11.0")) else {
        return;
    };
    let (v20, v22) = (v20.to_str().unwrap(), v22.to_str().unwrap());
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    // Every identifier of every name the outputs can show.
    let mut whole = std::collections::HashSet::new();
    for args in [
        vec![
            "scan", "--format", "json", "--by", "symbol", "--top", "0", v22,
        ],
        vec![
            "scan", "--format", "json", "--by", "symbol", "--top", "0", v20,
        ],
    ] {
        let out = weakscan().args(&args).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        for w in text.split(|c: char| !ident(c)).filter(|w| !w.is_empty()) {
            whole.insert(w.to_string());
        }
    }
    let mut folded = 0;
    for args in [
        vec!["scan", "--width", "80", v22],
        vec!["scan", "--width", "120", "--by", "library", v22],
        vec!["scan", "--width", "80", "--by", "library", v22],
        vec!["diff", "--width", "80", v20, v22],
        vec!["diff", "--width", "120", v20, v22],
        vec!["diff", "--format", "markdown", v20, v22],
        vec!["scan", "--format", "markdown", "--by", "library", v22],
    ] {
        let out = weakscan().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        folded += text.matches("…::").count();
        for (at, _) in text.match_indices('…') {
            let before: String = text[..at].chars().rev().take_while(|&c| ident(c)).collect();
            let before: String = before.chars().rev().collect();
            let after: String = text[at + '…'.len_utf8()..]
                .chars()
                .take_while(|&c| ident(c))
                .collect();
            for w in [before, after].into_iter().filter(|w| !w.is_empty()) {
                assert!(
                    whole.contains(&w),
                    "{args:?}: `{w}` is cut, next to … at byte {at}:\n{}",
                    &text[text.floor_char_boundary(at.saturating_sub(120))
                        ..text.floor_char_boundary((at + 120).min(text.len()))]
                );
            }
        }
    }
    assert!(folded > 0, "no folded name was shown");
}
