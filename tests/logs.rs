//! dyld logs: every log in `testdata/logs` against `testdata/logs/expected.tsv` (written by
//! `testdata/logs/gen.py`, which reads the fixtures with llvm-objdump, not with weakscan), verify
//! of each fixture against its log, logs in diff, and the noisy log's counts.

use crate::util::{golden, json, testdata, weakscan};
use serde_json::Value;

fn log(name: &str) -> String {
    testdata().join("logs").join(name).display().to_string()
}

fn bin(name: &str) -> String {
    testdata().join("bin").join(name).display().to_string()
}

/// One row of `expected.tsv`; `None` where the log cannot give the figure (`-`).
struct Row {
    log: String,
    pid: Option<String>,
    image: String,
    role: String,
    lookups: Option<u64>,
    override_checks: Option<u64>,
    weak_targets: Option<u64>,
    weak_target_symbols: Option<u64>,
    weak_bind_sites: Option<u64>,
    suppliers_lookups: String,
    suppliers_targets: String,
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(testdata().join("logs/expected.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let num = |s: &str| (s != "-").then(|| s.parse::<u64>().unwrap());
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let leaf = f[col("image")].rsplit('/').next().unwrap().to_string();
            Row {
                log: f[col("log")].to_string(),
                pid: (f[col("pid")] != "-").then(|| f[col("pid")].to_string()),
                image: leaf,
                role: f[col("role")].to_string(),
                lookups: num(f[col("lookups")]),
                override_checks: num(f[col("override_checks")]),
                weak_targets: num(f[col("weak_targets")]),
                weak_target_symbols: num(f[col("weak_target_symbols")]),
                weak_bind_sites: num(f[col("weak_bind_sites")]),
                suppliers_lookups: f[col("suppliers_lookups")].to_string(),
                suppliers_targets: f[col("suppliers_targets")].to_string(),
            }
        })
        .collect()
}

fn opt_u64(v: &Value) -> Option<u64> {
    assert!(v.is_null() || v.is_u64(), "{v}");
    v.as_u64()
}

/// `a=1,b/c=2` → leaf names and counts, sorted.
fn supplier_list(s: &str) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = s
        .split(',')
        .filter(|p| *p != "-" && !p.is_empty())
        .map(|p| {
            let (who, n) = p.rsplit_once('=').unwrap();
            let who = if who == "none" { "(none)" } else { who };
            (
                who.rsplit('/').next().unwrap().to_string(),
                n.parse().unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn image_of<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["image"] == name)
        .unwrap_or_else(|| panic!("no image {name} in {}", doc["images"]))
}

#[test]
fn every_log_gives_the_figures_in_expected_tsv() {
    let rows = rows();
    assert!(rows.len() >= 14, "expected.tsv has {} rows", rows.len());
    for r in &rows {
        let path = log(&r.log);
        let mut args = vec!["scan", &path, "--format", "json"];
        if let Some(p) = &r.pid {
            args.extend(["--pid", p]);
        }
        let doc = json(&args);
        let img = image_of(&doc, &r.image);
        let what = format!("{} {}", r.log, r.image);
        assert_eq!(img["input_kind"], "log", "{what}");
        for never in [
            "arch",
            "weak_def_exports",
            "predicted_weak_lookups",
            "filetype",
        ] {
            assert!(img[never].is_null(), "{what}: {never} must be null");
        }
        assert_eq!(
            opt_u64(&img["seen_weak_lookups"]),
            r.lookups,
            "{what} lookups"
        );
        assert_eq!(
            opt_u64(&img["weak_bind_targets"]),
            r.weak_targets,
            "{what} targets"
        );
        assert_eq!(
            opt_u64(&img["weak_bind_symbols"]),
            r.weak_target_symbols,
            "{what} symbols"
        );
        assert_eq!(
            opt_u64(&img["weak_bind_sites"]),
            r.weak_bind_sites,
            "{what} sites"
        );
        let role = match r.role.as_str() {
            "main" => "main",
            "inserted" => "inserted",
            _ => "loaded",
        };
        assert_eq!(img["log"]["role"], role, "{what} role");
        if r.role == "main" {
            if let Some(n) = r.override_checks {
                assert_eq!(img["log"]["lookups_without_bind"], n, "{what}");
            }
            assert_eq!(
                doc["images"][0]["image"], r.image,
                "{what}: the main executable is listed first"
            );
        }
        let mine: Vec<(String, u64)> = {
            let mut v: Vec<(String, u64)> = img["suppliers"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|s| {
                            let who = s["image"].as_str().unwrap();
                            (
                                who.rsplit('/').next().unwrap().to_string(),
                                s["symbols"].as_u64().unwrap(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            v.sort();
            v
        };
        if r.lookups.is_some() {
            // Suppliers per distinct looked-up symbol: the same images as per lookup.
            let names = |v: &[(String, u64)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
            assert_eq!(
                names(&mine),
                names(&supplier_list(&r.suppliers_lookups)),
                "{what}"
            );
        } else if r.weak_targets.is_some() {
            assert_eq!(
                mine,
                supplier_list(&r.suppliers_targets),
                "{what} suppliers"
            );
        }
    }
}

#[test]
fn every_dyld_format_is_detected() {
    let d1231 = "dyld-1231.3 and later (macOS 15.0 and later)";
    let d1323 = "dyld-1323.3 and later (macOS 26.0 and later)";
    for (file, format, dyld) in [
        (
            "dyld2-macos11.log",
            "dyld2",
            "dyld-852.2 and earlier (macOS 11 and earlier)",
        ),
        (
            "dyld4-macos14-opcodes.log",
            "dyld4_no_lookups",
            "dyld-940 to dyld-1286.10 (macOS 12.0 to 15.6)",
        ),
        (
            "dyld4-macos14-chained.log",
            "dyld4_no_lookups",
            "dyld-1042.1 and later (macOS 13.0 and later)",
        ),
        (
            "dyld4-macos15-opcodes.log",
            "dyld4",
            "dyld-1231.3 to dyld-1286.10 (macOS 15.0 to 15.6)",
        ),
        ("dyld4-macos15-chained.log", "dyld4", d1231),
        ("dyld4-macos26-opcodes.log", "dyld4_macos26", d1323),
        ("dyld4-macos26-chained.log", "dyld4_macos26", d1323),
        ("dyld4-macos26-inserted-opcodes.log", "dyld4_macos26", d1323),
        ("dyld4-macos26-lazy-load.log", "dyld4_macos26", d1323),
        ("dyld4-macos15-renamed.log", "dyld4", d1231),
    ] {
        let doc = json(&["scan", &log(file), "--format", "json"]);
        let l = &doc["images"][0]["log"];
        assert_eq!(l["format"], format, "{file}");
        assert_eq!(l["dyld"], dyld, "{file}");
        assert_eq!(l["unrecognized_dyld_lines"], 0, "{file}");
        assert_eq!(
            l["program_output_lines"],
            l["lines"].as_u64().unwrap() - l["dyld_lines"].as_u64().unwrap(),
            "{file}: only the header is not dyld"
        );
    }
}

/// (binary, log, exit code, basis).
const VERIFY: &[(&str, &str, i32, &str)] = &[
    (
        "app-default-chained-x86_64",
        "dyld4-macos15-chained.log",
        0,
        "lookups",
    ),
    (
        "app-default-opcodes-x86_64",
        "dyld4-macos15-opcodes.log",
        0,
        "lookups",
    ),
    (
        "app-default-chained-x86_64",
        "dyld4-macos26-chained.log",
        0,
        "lookups",
    ),
    (
        "app-default-opcodes-x86_64",
        "dyld4-macos26-opcodes.log",
        0,
        "lookups",
    ),
    (
        "app-default-chained-x86_64",
        "dyld4-macos15-chained-missing.log",
        0,
        "lookups",
    ),
    (
        "app-default-opcodes-x86_64",
        "dyld4-macos15-opcodes-missing.log",
        0,
        "lookups",
    ),
    ("app-default-chained-x86_64", "noisy.log", 0, "lookups"),
    (
        "app-uselib-default-chained-x86_64",
        "dyld4-macos15-uselib.log",
        0,
        "lookups",
    ),
    (
        "app-default-opcodes-x86_64",
        "dyld4-macos14-opcodes.log",
        0,
        "weak_bind_targets",
    ),
    (
        "app-default-opcodes-x86_64",
        "dyld2-macos11.log",
        0,
        "coalesced_targets",
    ),
    // DYLD_INSERT_LIBRARIES: the inserted dylibs are fixed up before the main executable.
    (
        "app-default-chained-x86_64",
        "dyld4-macos15-inserted.log",
        0,
        "lookups",
    ),
    (
        "app-default-opcodes-x86_64",
        "dyld4-macos26-inserted-opcodes.log",
        0,
        "lookups",
    ),
    (
        "libweak-chained-x86_64.dylib",
        "dyld4-macos15-inserted.log",
        0,
        "lookups",
    ),
    // A renamed re-export: bind lines print __ZdlPv for __ZdlPvm.
    (
        "app-default-chained-x86_64",
        "dyld4-macos15-renamed.log",
        0,
        "lookups",
    ),
    (
        "app-default-opcodes-x86_64",
        "dyld4-macos14-renamed-opcodes.log",
        0,
        "weak_bind_targets",
    ),
    // A function variant in the cache: non-weak, it wins for a chained requester; an opcode
    // requester skips it.
    (
        "app-default-chained-x86_64",
        "dyld4-macos26-variants-chained.log",
        0,
        "lookups",
    ),
    (
        "app-default-opcodes-x86_64",
        "dyld4-macos26-variants-opcodes.log",
        0,
        "lookups",
    ),
    // The wrong binary for the log.
    (
        "app-default-opcodes-x86_64",
        "dyld4-macos15-chained.log",
        1,
        "lookups",
    ),
];

#[test]
fn verify_each_fixture_against_its_log() {
    for &(b, l, code, basis) in VERIFY {
        let mut cmd = weakscan();
        cmd.args(["verify", &bin(b), &log(l), "--format", "json"]);
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(code), "verify {b} {l}: {out:?}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["basis"], basis, "{b} {l}");
        assert_eq!(doc["agrees"], code == 0, "{b} {l}");
        if basis == "lookups" && code == 0 {
            let t = &doc["totals"];
            assert_eq!(t["predicted"], t["seen"], "{b} {l}");
            assert_eq!(
                t["predicted"], doc["binary"]["predicted_weak_lookups"],
                "{b} {l}"
            );
            assert!(doc["symbols"].as_array().unwrap().is_empty());
        }
    }
}

#[test]
fn verify_reports_what_a_leak_adds() {
    // v2 has 60 more leaked descriptor symbols than the v1 build the log was recorded from.
    let args = |tol: &str| {
        weakscan()
            .args([
                "verify",
                &bin("app-v2-default-chained-x86_64"),
                &log("dyld4-macos15-chained.log"),
                "--format",
                "json",
                "--tolerance",
                tol,
            ])
            .output()
            .unwrap()
    };
    let out = args("59");
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["totals"]["predicted"], 143);
    assert_eq!(doc["totals"]["seen"], 83);
    assert_eq!(doc["totals"]["predicted_not_seen"], 60);
    assert_eq!(doc["totals"]["seen_not_predicted"], 0);
    assert_eq!(doc["symbols"].as_array().unwrap().len(), 60);
    assert_eq!(
        doc["groups"][0]["key"],
        "v8::internal::StaticCallInterfaceDescriptor<…>"
    );
    assert!(
        doc["notes"][0]
            .as_str()
            .unwrap()
            .contains("compared with its main executable"),
        "{}",
        doc["notes"]
    );
    assert_eq!(args("60").status.code(), Some(0));
}

#[test]
fn regression_verify_compared_the_main_executable_with_an_inserted_dylib() {
    // The log names no image like v2: the fallback is the log's main executable, which two
    // inserted dylibs were fixed up before, not the first image fixed up.
    let out = weakscan()
        .args([
            "verify",
            &bin("app-v2-default-chained-x86_64"),
            &log("dyld4-macos15-inserted.log"),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["log"]["image"], "app-default-chained-x86_64");
    assert_eq!(doc["totals"]["predicted"], 143);
    assert_eq!(doc["totals"]["seen"], 83);
    assert_eq!(doc["totals"]["predicted_not_seen"], 60);
    assert_eq!(doc["totals"]["seen_not_predicted"], 0);
}

#[test]
fn regression_verify_found_no_image_without_weak_binds() {
    // client.dylib was inserted and binds nothing weak: 3 bind lines, no lookups. It is in
    // the log all the same, by its name or with --image.
    let client = testdata()
        .join("importers/client.dylib")
        .display()
        .to_string();
    let inserted = log("dyld4-macos15-inserted.log");
    for extra in [&[][..], &["--image", "client.dylib"]] {
        let mut args = vec!["verify", &client, &inserted, "--format", "json"];
        args.extend(extra);
        let doc = json(&args);
        assert_eq!(doc["log"]["image"], "client.dylib");
        assert_eq!(doc["log"]["log"]["role"], "inserted");
        assert_eq!(doc["log"]["log"]["image_lines"]["bind"], 3);
        assert_eq!(doc["totals"]["predicted"], 0);
        assert_eq!(doc["agrees"], true);
    }
}

#[test]
fn a_process_verify_leaves_inserted_dylibs_out() {
    let out = weakscan()
        .args([
            "verify",
            "--process",
            &bin("app-default-chained-x86_64"),
            &log("dyld4-macos15-inserted.log"),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let only: Vec<(&str, bool, u64)> = doc["log_only"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["image"].as_str().unwrap(),
                l["inserted"].as_bool().unwrap(),
                l["seen_lookups"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        only,
        [("libweak.dylib", true, 21), ("client.dylib", true, 0)]
    );
    assert_eq!(doc["differences"], 0);
    assert!(
        doc["notes"][0]
            .as_str()
            .unwrap()
            .contains("21 lookups in the log come from dylibs inserted before the main executable"),
        "{}",
        doc["notes"]
    );
}

#[test]
fn regression_a_page_in_only_log_named_no_image() {
    // Lazy/main has no bind target: its page-in lines are all the log has, and they name it.
    let doc = json(&[
        "scan",
        &log("dyld4-macos15-pagein-only.log"),
        "--format",
        "json",
    ]);
    let img = &doc["images"][0];
    assert_eq!(doc["images"].as_array().unwrap().len(), 1);
    assert_eq!(img["image"], "main");
    assert_eq!(img["fixup_format"], "chained");
    assert_eq!(img["log"]["image_path"], "/Users/ci/build/Lazy/main");
    assert_eq!(img["log"]["image_lines"]["page_in"], 2);
    assert_eq!(img["weak_bind_symbols"], 0);
    let main = testdata().join("process/Lazy/main").display().to_string();
    let doc = json(&[
        "verify",
        &main,
        &log("dyld4-macos15-pagein-only.log"),
        "--format",
        "json",
    ]);
    assert_eq!(doc["log"]["image"], "main");
    assert_eq!(doc["basis"], "weak_bind_targets");
    assert_eq!(doc["agrees"], true);
}

#[test]
fn regression_a_renamed_weak_bind_was_a_difference() {
    // macOS 14 prints no lookup line: the bind line's name (found through libc++'s renamed
    // re-export) is all the log has. The target of the same index is matched as renamed.
    let doc = json(&[
        "verify",
        &bin("app-default-opcodes-x86_64"),
        &log("dyld4-macos14-renamed-opcodes.log"),
        "--format",
        "json",
    ]);
    assert_eq!(doc["basis"], "weak_bind_targets");
    assert_eq!(doc["totals"]["predicted_not_seen"], 0);
    assert_eq!(doc["totals"]["seen_not_predicted"], 0);
    assert_eq!(doc["agrees"], true);
    let r = &doc["renamed"];
    assert_eq!(r.as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r[0]["predicted"], "__ZdlPvm");
    assert_eq!(r[0]["seen"], "__ZdlPv");
    assert_eq!(r[0]["supplier"], "libc++abi.dylib");
    // A binary that really binds another symbol is not matched away: v2's extra targets shift
    // the indices and make the lists unequal.
    let out = weakscan()
        .args([
            "verify",
            &bin("app-v2-default-opcodes-x86_64"),
            &log("dyld4-macos14-renamed-opcodes.log"),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["renamed"].as_array().unwrap().is_empty());
}

#[test]
fn regression_renamed_binds_broke_the_appended_treat_as_weak_targets() {
    // The appended __ZdlPvm target is printed as __ZdlPv: taken by its lookup's name, the 22
    // appended targets are recognized and are not the image's weak binds.
    let doc = json(&[
        "scan",
        &log("dyld4-macos15-renamed.log"),
        "--format",
        "json",
    ]);
    let img = &doc["images"][0];
    assert_eq!(img["weak_bind_targets"], 39);
    assert_eq!(img["seen_weak_lookups"], 83);
    assert_eq!(img["log"]["lookups_without_bind"], 22);
    assert_eq!(img["log"]["renamed_binds"], 2);
}

#[test]
fn a_function_variant_is_the_supplier_of_a_chained_requester() {
    let doc = json(&[
        "scan",
        &log("dyld4-macos26-variants-chained.log"),
        "--format",
        "json",
        "--by",
        "symbol",
    ]);
    let img = &doc["images"][0];
    let forms: Vec<&str> = img["log"]["forms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["form"].as_str().unwrap())
        .collect();
    assert!(forms.contains(&"bind_variant"), "{forms:?}");
    let new = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["mangled"] == "__Znwm")
        .unwrap();
    assert_eq!(new["suppliers"][0]["image"], "/usr/lib/libc++.1.dylib");
    let doc = json(&[
        "scan",
        &log("dyld4-macos26-variants-opcodes.log"),
        "--format",
        "json",
        "--by",
        "symbol",
    ]);
    let new = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["mangled"] == "__Znwm")
        .unwrap();
    assert_eq!(new["suppliers"][0]["image"], "/usr/lib/libc++abi.dylib");
}

#[test]
fn verify_without_anything_to_compare_is_an_error() {
    let out = weakscan()
        .args([
            "verify",
            &bin("app-default-chained-x86_64"),
            &log("dyld4-macos14-chained.log"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothing to verify: the log has no lookup lines"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn verify_needs_one_slice_and_a_known_image() {
    let out = weakscan()
        .args([
            "verify",
            &bin("app-default-chained-universal"),
            &log("dyld4-macos15-chained.log"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("pick the one the log was recorded from with --arch")
    );
    // A dylib the log does not name.
    let out = weakscan()
        .args([
            "verify",
            &testdata()
                .join("importers/libapi.dylib")
                .display()
                .to_string(),
            &log("dyld4-macos15-uselib.log"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pick one with --image"), "{err}");
    assert!(err.contains("libweak.dylib"), "{err}");
    // libweak-chained-x86_64.dylib is loaded as libweak.dylib: its install name's leaf.
    let doc = json(&[
        "verify",
        &bin("libweak-chained-x86_64.dylib"),
        &log("dyld4-macos15-uselib.log"),
        "--format",
        "json",
    ]);
    assert_eq!(doc["log"]["image"], "libweak.dylib");
    assert!(
        doc["notes"][0]
            .as_str()
            .unwrap()
            .contains("named like the install name \"@rpath/libweak.dylib\""),
        "{}",
        doc["notes"]
    );
    assert_eq!(doc["agrees"], true);
    let ok = weakscan()
        .args([
            "verify",
            &bin("libweak-chained-x86_64.dylib"),
            &log("dyld4-macos15-uselib.log"),
            "--image",
            "libweak.dylib",
        ])
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
}

#[test]
fn noisy_log_counts_every_line() {
    let doc = json(&["scan", &log("noisy.log"), "--format", "json"]);
    let l = &doc["images"][0]["log"];
    assert_eq!(l["pid"], 4242);
    assert_eq!(l["lines"], 327, "32 header + 294 body + the cut tail");
    assert_eq!(l["dyld_lines"], 248);
    // 'something else'; the missing-from-root warning is known and counted apart.
    assert_eq!(l["unrecognized_dyld_lines"], 1);
    assert_eq!(l["missing_from_root"], 1);
    // pid 4243: 41 complete lines and the cut tail.
    assert_eq!(l["other_process_lines"], 42);
    // 32 header lines, 5 noise lines, and the 'hello world' before a dyld prefix.
    assert_eq!(l["program_output_lines"], 38);
    assert_eq!(l["crlf_lines"], 15);
    assert_eq!(l["invalid_utf8_lines"], 1);
    assert_eq!(l["truncated_last_line"], true);
    let pids: Vec<(u64, u64)> = l["pids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["pid"].as_u64().unwrap(), p["lines"].as_u64().unwrap()))
        .collect();
    assert_eq!(pids, [(4242, 248), (4243, 42)]);
    // The same figures as the clean log.
    let clean = json(&[
        "scan",
        &log("dyld4-macos15-chained.log"),
        "--format",
        "json",
    ]);
    for f in [
        "seen_weak_lookups",
        "weak_bind_targets",
        "weak_bind_symbols",
        "suppliers",
    ] {
        assert_eq!(doc["images"][0][f], clean["images"][0][f], "{f}");
    }
    let table = weakscan()
        .args(["scan", &log("noisy.log")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("4242, 4243 (--pid to choose)"), "{text}");
    assert!(
        text.contains("note: the last line has no newline: the log was cut"),
        "{text}"
    );
}

#[test]
fn pid_picks_the_process() {
    let doc = json(&[
        "scan",
        &log("noisy.log"),
        "--pid",
        "4243",
        "--format",
        "json",
    ]);
    let img = &doc["images"][0];
    assert_eq!(img["image"], "app-nooverride-hidden-opcodes-x86_64");
    assert_eq!(img["seen_weak_lookups"], 4);
    assert_eq!(img["weak_bind_sites"], 0);
    assert_eq!(img["log"]["lookups_without_bind"], 0);
    let out = weakscan()
        .args(["scan", &log("noisy.log"), "--pid", "99"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no lines of PID 99 (PIDs seen: 4242, 4243)"),
        "{err}"
    );
}

#[test]
fn diff_takes_any_pair_of_inputs() {
    // Binary against its own log: predicted against seen lookups, the same.
    let doc = json(&[
        "diff",
        &bin("app-default-chained-x86_64"),
        &log("dyld4-macos15-chained.log"),
        "--format",
        "json",
    ]);
    let t = &doc["totals"][0];
    assert_eq!(t["old"]["lookups"], 83);
    assert_eq!(t["new"]["lookups"], 83);
    assert_eq!(t["delta"]["lookups"], 0);
    assert!(t["delta"]["weak_def_exports"].is_null());
    assert!(t["new"]["weak_def_exports"].is_null());
    assert!(
        t["new"]["sites"].is_null(),
        "page-in linking shows no sites"
    );
    assert!(t["arch"].is_null());
    // Log against log: the macOS 14 log has no lookups, so that delta is null.
    let doc = json(&[
        "diff",
        &log("dyld4-macos14-opcodes.log"),
        &log("dyld4-macos15-opcodes.log"),
        "--format",
        "json",
        "--symbols",
    ]);
    let t = &doc["totals"][0];
    assert!(t["delta"]["lookups"].is_null());
    assert_eq!(t["delta"]["weak_bound_symbols"], 0);
    assert_eq!(t["delta"]["sites"], 0);
    assert_eq!(doc["symbols"][0]["added"].as_array().unwrap().len(), 0);
    // A universal binary against a log needs --arch.
    let out = weakscan()
        .args([
            "diff",
            &bin("app-default-chained-universal"),
            &log("dyld4-macos15-chained.log"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pick one with --arch"));
    let out = weakscan()
        .args([
            "diff",
            &bin("app-default-chained-universal"),
            &log("dyld4-macos15-chained.log"),
            "--arch",
            "x86_64",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn input_kind_can_be_forced() {
    let out = weakscan()
        .args([
            "scan",
            &log("dyld4-macos15-chained.log"),
            "--input-kind",
            "binary",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a Mach-O file"));
    let out = weakscan()
        .args([
            "scan",
            &bin("app-default-chained-x86_64"),
            "--input-kind",
            "log",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no dyld lines"));
}

#[test]
fn golden_scan_of_a_log() {
    golden(
        "scan-log-dyld4-macos15-opcodes.txt",
        &["scan", "logs/dyld4-macos15-opcodes.log", "--top", "8"],
    );
    golden(
        "scan-log-dyld4-macos14-opcodes.json",
        &[
            "scan",
            "logs/dyld4-macos14-opcodes.log",
            "--format",
            "json",
            "--top",
            "3",
        ],
    );
}

#[test]
fn golden_verify() {
    golden(
        "verify-app-default-chained-x86_64.txt",
        &[
            "verify",
            "bin/app-default-chained-x86_64",
            "logs/dyld4-macos15-chained.log",
            "--top",
            "6",
        ],
    );
}
