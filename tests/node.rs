//! Real input: official Node.js macOS binaries (20.11.0, 22.11.0, 24.11.1) from the npm registry
//! (`scripts/fetch-node.sh` puts them in `$WEAKSCAN_NODE_CACHE`, default `.cache/node`).
//! Reference figures: llvm-objdump from LLVM 22, and DYLD_PRINT_BINDINGS for the 2158
//! (docs/dyld-weak-binding.md). Skipped when the cache is absent, unless
//! `WEAKSCAN_REQUIRE_NODE=1` (CI) makes that a failure.

use crate::util::{json, required, weakscan};
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
    let Some(nm) = crate::util::llvm_nm() else {
        assert!(
            !required("WEAKSCAN_REQUIRE_LLVM"),
            "llvm-nm from LLVM 22 is required but missing"
        );
        crate::util::skip("llvm-nm from LLVM 22 not found (apt-get install llvm-22)");
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
