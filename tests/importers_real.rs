//! Real input for `--importer`: the official prebuilt Node-API addon of
//! `@parcel/watcher-darwin-x64` 2.6.0 (`scripts/fetch-npm.sh`, pinned by sha512), an
//! `MH_BUNDLE` whose 47 `napi_*` imports are flat lookups, held against official Node.js
//! builds (`scripts/fetch-node.sh`). Node 22.11.0 and 20.11.0 export every one of them (20.11.0
//! lacks only `node_api_create_property_key_{latin1,utf8,utf16}` of 22.11.0's Node-API, which
//! the addon does not import); 10.0.0 predates the thread-safe functions (10.6.0) and
//! `napi_add_finalizer` (10.7.0). Skipped when the caches are absent, unless
//! `WEAKSCAN_REQUIRE_NPM=1` / `WEAKSCAN_REQUIRE_NODE=1`.

use crate::node::node_binary;
use crate::util::{required, weakscan};
use std::path::{Path, PathBuf};
use weakscan::macho::MachOFile;
use weakscan::macho::export_trie::parse_export_trie;
use weakscan::macho::load_commands::read_load_commands;
use weakscan::macho::trie_lookup::find_export;

/// The package and version `scripts/fetch-npm.sh` fetches.
const PACKAGE: (&str, &str) = ("@parcel/watcher-darwin-x64", "2.6.0");

/// The addon, when cached at the pinned version; `None` (a skip) otherwise, a failure under
/// `WEAKSCAN_REQUIRE_NPM=1`.
pub fn cached_addon() -> Option<PathBuf> {
    let cache = std::env::var_os("WEAKSCAN_NPM_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".cache/npm"));
    let dir = cache.join("node_modules").join(PACKAGE.0);
    let addon = dir.join("watcher.node");
    if !addon.is_file() {
        assert!(
            !required("WEAKSCAN_REQUIRE_NPM"),
            "{} missing: run scripts/fetch-npm.sh",
            addon.display()
        );
        crate::util::skip(&format!(
            "{} not cached (scripts/fetch-npm.sh)",
            addon.display()
        ));
        return None;
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("package.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["version"], PACKAGE.1,
        "the figures here are those of {}@{}: run scripts/fetch-npm.sh",
        PACKAGE.0, PACKAGE.1
    );
    Some(addon)
}

fn check_json(node: &Path, addon: &Path) -> (i32, serde_json::Value) {
    let out = weakscan()
        .args(["check", "--no-config", "--format", "json"])
        .arg(node)
        .arg("--importer")
        .arg(addon)
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), doc)
}

#[test]
fn the_addon_loads_into_node_22_11_0_and_20_11_0() {
    let Some(addon) = cached_addon() else { return };
    for version in ["22.11.0", "20.11.0"] {
        let Some(node) = node_binary(version) else {
            continue;
        };
        let (code, doc) = check_json(&node, &addon);
        assert_eq!(code, 0, "node {version}: {doc}");
        let i = &doc["importers"][0];
        assert_eq!(
            (i["imports"].as_u64(), i["exported"].as_u64()),
            (Some(47), Some(47)),
            "node {version}"
        );
    }
}

#[test]
fn node_10_0_0_lacks_the_thread_safe_functions_and_napi_add_finalizer() {
    let (Some(addon), Some(node)) = (cached_addon(), node_binary("10.0.0")) else {
        return;
    };
    let (code, doc) = check_json(&node, &addon);
    assert_eq!(code, 1, "{doc}");
    let missing: Vec<(&str, &str, &str)> = doc["importers"][0]["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["symbol"].as_str().unwrap(),
                m["name"].as_str().unwrap(),
                m["via"].as_str().unwrap(),
            )
        })
        .collect();
    let mut names: Vec<&str> = missing.iter().map(|m| m.1).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "napi_add_finalizer",
            "napi_call_threadsafe_function",
            "napi_create_threadsafe_function",
            "napi_release_threadsafe_function"
        ]
    );
    assert!(
        missing
            .iter()
            .all(|m| m.2 == "flat_lookup" && m.0 == format!("_{}", m.1))
    );
    // The table names the addon and the functions on one line.
    let out = weakscan()
        .args(["check", "--no-config"])
        .arg(&node)
        .arg("--importer")
        .arg(&addon)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with('✗'))
        .expect("a failing line");
    assert!(
        line.contains("watcher.node (x86_64): 4 of 47 imports not exported"),
        "{line}"
    );
    assert!(line.contains("napi_create_threadsafe_function"), "{line}");
}

/// The export trie of `path`'s x86_64 slice.
fn trie_of(path: &Path) -> Vec<u8> {
    let f = MachOFile::open(path).unwrap();
    let loc = f
        .slices()
        .unwrap()
        .into_iter()
        .find(|s| s.arch == "x86_64")
        .unwrap();
    let lc = read_load_commands(&f, &loc).unwrap();
    let r = lc.exports_trie.or(lc.dyld_info_exports).unwrap();
    f.read_range(loc.offset + u64::from(r.offset), u64::from(r.size), "trie")
        .unwrap()
}

/// The lookup of one name agrees with the walk of the whole trie on every export of real
/// builds (Node.js 10.0.0's trie has empty edge labels), and finds nothing for names one byte
/// longer or shorter that are not exported.
#[test]
fn every_export_of_node_is_found_by_its_name() {
    for version in ["10.0.0", "22.11.0"] {
        let Some(node) = node_binary(version) else {
            continue;
        };
        let trie = trie_of(&node);
        let all = parse_export_trie(&trie).unwrap();
        assert!(all.len() > 30_000, "node {version}: {} exports", all.len());
        let names: std::collections::HashSet<&str> = all.iter().map(|e| e.name.as_str()).collect();
        for e in all.iter().filter(|e| !e.name.is_empty()) {
            assert_eq!(
                find_export(&trie, e.name.as_bytes()).unwrap(),
                Some(e.flags),
                "{}",
                e.name
            );
            let longer = format!("{}x", e.name);
            let shorter = &e.name[..e.name.len() - 1];
            for other in [longer.as_str(), shorter] {
                let found = find_export(&trie, other.as_bytes()).unwrap();
                assert_eq!(
                    found.is_some(),
                    names.contains(other),
                    "node {version}: {other}"
                );
            }
        }
    }
}
