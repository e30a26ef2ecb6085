//! Baseline files across versions and at scale. Every committed baseline of `schema_version` 1
//! (`testdata/baselines/`, as weakscan 0.1.0 wrote them) reads to the same entries and figures
//! as the version-2 baseline this weakscan writes for the same build, and `check` prints the
//! same with either, in every format, by template, namespace, library and symbol, with an
//! allowlist, group budgets and an increase budget. On the Node.js builds (when cached) the
//! 22.11.0 baseline is at most 2 MB and its version-1 form checks the same.

use crate::node::node_binary;
use crate::util::{fixture, testdata, weakscan};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use weakscan::gate::Figure;
use weakscan::gate::baseline::{Baseline, read};

/// The file name every comparison gives its baseline, so that the outputs, which name it, are
/// byte for byte comparable.
const BASELINE: &str = "weakscan-baseline.json";

/// The policy of the comparisons: an increase budget, group budgets under every grouping, and an
/// allowlist of raw and printed names and of groups.
const POLICY: &str = r#"
[baseline]
file = "weakscan-baseline.json"
max_increase = ["10%", 3]

[groups]
"v8::internal::*" = 0
"node::SPrintFImpl<...>" = 400
"re:^libdescriptors" = 5
"v8::internal" = 100

[allow]
symbols = ["node::Realm::*", "__ZN2v88internal8compiler*", "*weakscan_hash*"]
groups = ["std::__1::*", "libuv.a", "ada::*"]
"#;

/// The largest Node.js 22.11.0 baseline a repository should have to carry.
const NODE_LIMIT: u64 = 2_000_000;

/// A directory holding `baseline` as [`BASELINE`] and [`POLICY`] as `weakscan.toml`.
fn gate_dir(baseline: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(BASELINE), baseline).unwrap();
    std::fs::write(dir.path().join("weakscan.toml"), POLICY).unwrap();
    dir
}

/// `weakscan ARGS` in `dir`: (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = weakscan()
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The baseline this weakscan writes for `file`.
fn baseline_of(file: &Path) -> Vec<u8> {
    let out = weakscan()
        .args(["baseline", "-o", "-"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out.stdout
}

/// `check` of `file` under `args` prints the same (exit code, stdout, stderr) with the
/// baseline of `old` as with that of `new` (each a [`gate_dir`]); returns the exit code.
fn same_check(old: &Path, new: &Path, file: &Path, args: &[&str]) -> i32 {
    let mut all = vec!["check", file.to_str().unwrap()];
    all.extend_from_slice(args);
    let (a, b) = (run_in(old, &all), run_in(new, &all));
    assert_eq!(a, b, "weakscan {all:?}: version 1, then 2");
    assert!(a.0 == 0 || a.0 == 1, "weakscan {all:?}: {}", a.2);
    a.0
}

/// Both baselines have the same slices, figures and entries.
fn same_entries(old: &Baseline, new: &Baseline) {
    assert_eq!(old.arches(), new.arches());
    for (o, n) in old.images.iter().zip(&new.images) {
        assert_eq!(o.process, n.process, "{}", o.arch);
        for f in Figure::ALL {
            assert_eq!(o.figure(f), n.figure(f), "{}: {f}", o.arch);
        }
        assert_eq!(o.entries, n.entries, "{}: entries", o.arch);
    }
}

/// The version-1 document weakscan 0.1.0 wrote for the build of the version-2 baseline `doc`,
/// without the printed fields of its symbols (`demangled`, `group`), which no version reads:
/// per arch, an object per weak-bound symbol, one per weak definition and one per other
/// looked-up name, each list sorted by raw name.
fn v1_of(doc: &Value) -> Value {
    let mut old = doc.clone();
    old["schema_version"] = json!(1);
    let arches = doc["symbols"].as_array().unwrap().iter().map(|arch| {
        let columns = arch["columns"].as_array().unwrap();
        let cell =
            |row: &Value, name: &str| row[columns.iter().position(|c| c == name).unwrap()].clone();
        let (mut bound, mut definitions, mut lookups) = (Vec::new(), Vec::new(), Vec::new());
        for object in arch["objects"].as_array().unwrap() {
            let with_origin = |mut v: Value| {
                if !object["origin"].is_null() {
                    v["origin"] = object["origin"].clone();
                }
                v
            };
            for row in object["symbols"].as_array().unwrap() {
                let symbol = cell(row, "symbol");
                if cell(row, "weak_bound") == 1 {
                    bound.push(with_origin(json!({
                        "symbol": symbol, "sites": cell(row, "sites"),
                        "lookups": cell(row, "lookups"),
                        "defined_here": cell(row, "defined_here") == 1 })));
                } else if cell(row, "lookups") != 0 {
                    lookups.push(with_origin(
                        json!({ "symbol": symbol, "lookups": cell(row, "lookups") }),
                    ));
                }
                for _ in 0..cell(row, "weak_defs").as_u64().unwrap() {
                    definitions.push(with_origin(json!({
                        "symbol": symbol, "thread_local": cell(row, "thread_local") == 1 })));
                }
            }
        }
        for list in [&mut bound, &mut definitions, &mut lookups] {
            list.sort_by(|a, b| a["symbol"].as_str().cmp(&b["symbol"].as_str()));
        }
        json!({ "arch": arch["arch"], "weak_bound": bound,
                "weak_definitions": definitions, "other_lookups": lookups })
    });
    old["symbols"] = Value::Array(arches.collect());
    old
}

/// `doc`'s symbol lists without the printed fields no version reads.
fn unprinted_symbols(doc: &Value) -> Value {
    let mut symbols = doc["symbols"].clone();
    for arch in symbols.as_array_mut().unwrap() {
        for list in ["weak_bound", "weak_definitions", "other_lookups"] {
            for s in arch[list].as_array_mut().unwrap() {
                let s = s.as_object_mut().unwrap();
                s.remove("demangled");
                s.remove("group");
            }
        }
    }
    symbols
}

/// The committed version-1 baselines, each with the fixture it was written for.
fn old_baselines() -> Vec<(PathBuf, PathBuf)> {
    let mut out: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(testdata().join("baselines"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_stem().unwrap().to_str().unwrap().to_string();
            let build = name
                .strip_prefix("v1-")
                .or_else(|| name.strip_prefix("gnu-printed-"))
                .unwrap_or_else(|| panic!("{name}: which fixture?"));
            (p.clone(), fixture(build))
        })
        .collect();
    out.sort();
    assert!(out.len() >= 4, "{out:?}");
    out
}

#[test]
fn old_baselines_read_and_check_as_new_ones() {
    let mut codes = std::collections::BTreeSet::new();
    for (old_path, build) in old_baselines() {
        let old_text = std::fs::read(&old_path).unwrap();
        let new_text = baseline_of(&build);
        let (old, new) = (gate_dir(&old_text), gate_dir(&new_text));
        same_entries(
            &read(&old.path().join(BASELINE)).unwrap(),
            &read(&new.path().join(BASELINE)).unwrap(),
        );
        // The converter the Node.js test relies on writes what weakscan 0.1.0 wrote.
        let (old_doc, new_doc): (Value, Value) = (
            serde_json::from_slice(&old_text).unwrap(),
            serde_json::from_slice(&new_text).unwrap(),
        );
        assert_eq!(old_doc["schema_version"], 1);
        assert_eq!(new_doc["schema_version"], 2);
        assert_eq!(
            unprinted_symbols(&old_doc),
            v1_of(&new_doc)["symbols"],
            "{old_path:?}"
        );
        let other = if build.to_str().unwrap().ends_with("universal") {
            fixture("app-v2-default-chained-universal")
        } else {
            fixture("app-v2-default-chained-x86_64")
        };
        for file in [&build, &other] {
            for (by, format) in [
                ("template", "table"),
                ("template", "json"),
                ("template", "markdown"),
                ("template", "github"),
                ("namespace", "json"),
                ("library", "json"),
                ("library", "table"),
                ("symbol", "json"),
            ] {
                let args = ["--by", by, "--format", format];
                codes.insert(same_check(old.path(), new.path(), file, &args));
            }
        }
    }
    assert_eq!(codes.len(), 2, "both passing and failing checks compared");
}

#[test]
fn node_baseline_fits_in_a_repository_and_checks_as_version_1_did() {
    let (Some(v22), Some(v24)) = (node_binary("22.11.0"), node_binary("24.11.1")) else {
        return;
    };
    let text = baseline_of(&v22);
    assert!(
        text.len() as u64 <= NODE_LIMIT,
        "the Node.js 22.11.0 baseline is {} bytes, over {NODE_LIMIT}",
        text.len()
    );
    let doc: Value = serde_json::from_slice(&text).unwrap();
    let old_text = serde_json::to_vec(&v1_of(&doc)).unwrap();
    let (old, new) = (gate_dir(&old_text), gate_dir(&text));
    same_entries(
        &read(&old.path().join(BASELINE)).unwrap(),
        &read(&new.path().join(BASELINE)).unwrap(),
    );
    for (file, by) in [(&v24, "template"), (&v24, "library"), (&v22, "namespace")] {
        same_check(
            old.path(),
            new.path(),
            file,
            &["--by", by, "--format", "json"],
        );
    }
}

// Regression (hostile-input review): an error quoting a value of the input was as long as the
// value: a baseline whose arch is 100,000 characters gave a 100,207-byte error line, which the
// Action then could not post as a comment (over GitHub's 65,536 characters).
#[test]
fn regression_an_error_quoting_a_100_kb_value_was_100_kb_long() {
    let bin = fixture("app-default-chained-x86_64");
    let mut doc: Value = serde_json::from_slice(&baseline_of(&bin)).unwrap();
    let arch = "A".repeat(100_000);
    doc["images"][0]["arch"] = json!(arch);
    doc["symbols"][0]["arch"] = json!(arch);
    let dir = gate_dir(&serde_json::to_vec(&doc).unwrap());
    let (code, out, err) = run_in(
        dir.path(),
        &["check", bin.to_str().unwrap(), "--baseline", BASELINE],
    );
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let what = err.trim_end().splitn(3, ": ").nth(2).unwrap();
    assert_eq!(
        what.chars().count(),
        weakscan::error::MAX_ERROR_CHARS,
        "{err}"
    );
    assert!(what.contains("AAA…AAA"), "{err}");
}
