//! Whole processes (`scan APP|DIR`, `scan --process MAIN`) on the fixtures of
//! `testdata/process/` (built by `testdata/build.sh`): the load order, the winner of every
//! looked-up name against `expected-winners.tsv` (written by hand from the dyld4 rules and
//! llvm-nm's view of the images, not by weakscan), the figures, the dependencies against
//! llvm-objdump's `--dylibs-used`/`--rpaths` (the committed `objdump-dylibs.txt`, and a live
//! llvm-objdump when installed), and the bad inputs.

use crate::util::{image_names, llvm_objdump, testdata, weakscan};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn dir() -> PathBuf {
    testdata().join("process")
}

fn leaf(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

fn process_json(args: &[&str]) -> Value {
    let out = weakscan().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["command"], "process");
    doc
}

fn app() -> Value {
    let app = dir().join("App.app").display().to_string();
    let doc = process_json(&["scan", "--format", "json", &app]);
    doc["processes"][0].clone()
}

#[test]
fn app_bundle_load_order_follows_dyld4() {
    let p = app();
    let names = crate::util::image_names(&p);
    // Main, its direct dependencies (libmissing is skipped), then libshared_a's new one.
    assert_eq!(
        names,
        [
            "Contents/MacOS/App",
            "Contents/Frameworks/libshared_a.dylib",
            "Contents/Frameworks/libshared_b.dylib",
            "/usr/lib/libSystem.B.dylib",
            "Contents/Frameworks/deps/libdeep.dylib",
        ]
    );
    let found: Vec<&str> = p["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["found"].as_str().unwrap())
        .collect();
    assert!(
        found[1].starts_with("@rpath @executable_path/../Frameworks"),
        "{found:?}"
    );
    assert!(found[2].starts_with("@loader_path"), "{found:?}");
    assert!(found[3].starts_with("outside"), "{found:?}");
    // libdeep only through libshared_a's own LC_RPATH: the rpath stack.
    assert!(
        found[4].contains("@loader_path/deps of Contents/Frameworks/libshared_a.dylib"),
        "{found:?}"
    );
    assert_eq!(p["images_searched"], 4);
    assert_eq!(p["images_outside"], 1);
    let problems: Vec<&str> = p["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .contains("@rpath/libmissing.dylib (LC_LOAD_WEAK_DYLIB) is missing; dyld skips it")
    );
}

#[test]
fn app_bundle_winners_match_the_rules() {
    let p = app();
    let symbols: BTreeMap<&str, &Value> = p["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["mangled"].as_str().unwrap(), s))
        .collect();
    let tsv = std::fs::read_to_string(dir().join("expected-winners.tsv")).unwrap();
    let mut rows = 0;
    for line in tsv.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let (requester, symbol, winner) = (f[0], f[1], f[2]);
        let s = symbols
            .get(symbol)
            .unwrap_or_else(|| panic!("{symbol} looked up by {requester} is not in the report"));
        let got = s["winner"].as_str().map(leaf).unwrap_or("-");
        assert_eq!(got, winner, "winner of {symbol}");
        assert!(
            s["requested_by"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| leaf(r.as_str().unwrap()) == requester),
            "{symbol} requested by {requester}: {s}"
        );
        rows += 1;
    }
    assert!(rows > 20, "{rows} rows");
    // The figures follow from the rules: every lookup probes the 4 images with weak
    // definitions (fewer than 5000 lookups: no weakDefMap).
    let lookups = p["lookups"].as_u64().unwrap();
    let per_image: u64 = p["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["lookups"].as_u64().unwrap())
        .sum();
    assert_eq!(per_image, lookups);
    assert_eq!(p["trie_probes"].as_u64().unwrap(), lookups * 4);
    assert_eq!(p["weak_def_map_hits"], 0);
    // libshared_b's strong definition replaces the main executable's weak one.
    let overrides = p["overrides_of_main"].as_array().unwrap();
    assert_eq!(overrides.len(), 1, "{overrides:?}");
    assert_eq!(overrides[0]["mangled"], "__ZN4proc7CounterIlEERT_v");
    assert_eq!(
        overrides[0]["winner"],
        "Contents/Frameworks/libshared_b.dylib"
    );
    // Cross-image duplicates, grouped by template.
    let groups: Vec<&str> = p["duplicate_groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["template"].as_str().unwrap())
        .collect();
    assert!(
        groups.contains(&"proc::Counter<…>") && groups.contains(&"proc::Registry<…>"),
        "{groups:?}"
    );
}

#[test]
fn process_flag_and_directory_give_the_same_report() {
    let main = dir()
        .join("App.app/Contents/MacOS/App")
        .display()
        .to_string();
    let a = process_json(&["scan", "--format", "json", "--process", &main]);
    assert_eq!(a["processes"][0], app());
    let table = weakscan()
        .args(["scan", "--process", &main])
        .output()
        .unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("process (x86_64): 5 images, 4 on disk"),
        "{text}"
    );
    assert!(text.contains("override: the main executable's"), "{text}");
}

/// `llvm-objdump --macho --dylibs-used` and `--rpaths` output, per image path (relative to
/// testdata/process): (dylibs, with a dylib's own install name first; rpaths).
fn parse_objdump(text: &str) -> BTreeMap<String, (Vec<String>, Vec<String>)> {
    let mut out: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("== ") {
            current = Some(p.to_string());
            out.entry(p.to_string()).or_default();
        } else if let Some(cur) = &current {
            // "<path>:" heads each option's listing (once when both are asked at once).
            if line
                .strip_suffix(':')
                .is_some_and(|h| cur.ends_with(h) || h.ends_with(cur.as_str()))
            {
                continue;
            }
            if let Some(d) = line.strip_prefix('\t') {
                let name = d.split(" (compatibility").next().unwrap().to_string();
                out.get_mut(cur).unwrap().0.push(name);
            } else if !line.is_empty() {
                out.get_mut(cur).unwrap().1.push(line.to_string());
            }
        }
    }
    out
}

fn check_against_objdump(expected: &BTreeMap<String, (Vec<String>, Vec<String>)>) {
    let p = app();
    for img in p["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["on_disk"] == true)
    {
        let rel = format!("App.app/{}", img["image"].as_str().unwrap());
        let (dylibs, rpaths) = expected
            .get(&rel)
            .unwrap_or_else(|| panic!("{rel} not in objdump output"));
        let mut ours: Vec<String> = Vec::new();
        if let Some(id) = img["install_name"].as_str() {
            ours.push(id.to_string());
        }
        ours.extend(
            img["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["install_name"].as_str().unwrap().to_string()),
        );
        assert_eq!(&ours, dylibs, "{rel}: dylibs");
        let our_rpaths: Vec<String> = img["rpaths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect();
        assert_eq!(&our_rpaths, rpaths, "{rel}: rpaths");
    }
}

#[test]
fn dependencies_match_llvm_objdump() {
    let committed = std::fs::read_to_string(dir().join("objdump-dylibs.txt")).unwrap();
    check_against_objdump(&parse_objdump(&committed));
    let Some(objdump) = llvm_objdump() else {
        crate::util::skip(
            "dependencies_match_llvm_objdump (live): no llvm-objdump-22; the committed output was checked",
        );
        return;
    };
    let mut live = String::new();
    for rel in [
        "App.app/Contents/MacOS/App",
        "App.app/Contents/Frameworks/libshared_a.dylib",
        "App.app/Contents/Frameworks/libshared_b.dylib",
        "App.app/Contents/Frameworks/deps/libdeep.dylib",
    ] {
        let out = std::process::Command::new(&objdump)
            .args(["--macho", "--dylibs-used", "--rpaths"])
            .arg(rel)
            .current_dir(dir())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        live.push_str(&format!(
            "== {rel}\n{}",
            String::from_utf8_lossy(&out.stdout)
        ));
    }
    check_against_objdump(&parse_objdump(&live));
}

fn problems_of(args: &[&str]) -> Vec<String> {
    let doc = process_json(args);
    doc["processes"][0]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn bad_processes_report_one_line_each_and_go_on() {
    let bad = dir().join("bad");
    let cycle = problems_of(&[
        "scan",
        "--format",
        "json",
        &bad.join("cycle").display().to_string(),
    ]);
    assert!(
        cycle.iter().any(|p| p.contains("dependency cycle")),
        "{cycle:?}"
    );
    let escape = problems_of(&[
        "scan",
        "--format",
        "json",
        &bad.join("escape").display().to_string(),
    ]);
    assert!(
        escape
            .iter()
            .any(|p| p.contains("outside the directories weakscan may read")),
        "{escape:?}"
    );
    let notmacho = problems_of(&[
        "scan",
        "--format",
        "json",
        &bad.join("notmacho").display().to_string(),
    ]);
    assert!(
        notmacho
            .iter()
            .any(|p| p.contains("libtext.dylib") && p.contains("not a Mach-O")),
        "{notmacho:?}"
    );
    for p in cycle.iter().chain(&escape).chain(&notmacho) {
        assert!(!p.contains('\n'), "one line: {p:?}");
    }
    // The rest is still analysed: the main executable is there.
    let doc = process_json(&[
        "scan",
        "--format",
        "json",
        &bad.join("notmacho").display().to_string(),
    ]);
    assert_eq!(doc["processes"][0]["images"][0]["image"], "main");
}

#[test]
fn bundles_without_a_usable_plist_are_one_line_errors() {
    for (d, msg) in [
        ("noplist/Bad.app", "without Contents/Info.plist"),
        ("badplist/Bad.app", "not a readable property list"),
    ] {
        let p = dir().join("bad").join(d).display().to_string();
        let out = weakscan().args(["scan", &p]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{d}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(msg), "{d}: {err}");
    }
}

#[test]
fn process_usage_errors() {
    let app = dir().join("App.app").display().to_string();
    let f = testdata()
        .join("bin/app-default-chained-x86_64")
        .display()
        .to_string();
    for (args, msg) in [
        (vec!["scan", &app, &f], "give it as the only input"),
        (
            vec!["scan", "--search", "/tmp", &f],
            "--search and --sysroot apply to a process",
        ),
        (vec!["scan", "--arch", "arm64", &app], "no arm64 slice"),
    ] {
        let out = weakscan().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

// Markdown and GitHub renderings of a process scan carry the JSON's figures, and the step
// summary gets the Markdown.
#[test]
fn process_scan_markdown_and_github() {
    let app = bundle("App-v2.app");
    let doc = process_json(&["scan", "--format", "json", &app]);
    let p = &doc["processes"][0];
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let run = |format: &str| {
        let out = weakscan()
            .args(["scan", "--format", format, &app])
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let md = run("markdown");
    assert!(
        md.starts_with("### weakscan: process `Contents/MacOS/App` (x86_64)\n"),
        "{md}"
    );
    assert!(
        md.contains(&format!("| trie probes | {} |", p["trie_probes"])),
        "{md}"
    );
    for img in p["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["on_disk"] == true)
    {
        let row = format!(
            "| `{}` | {} | {} | {} | {} | {} |",
            img["image"].as_str().unwrap(),
            if img["takes_part"] == true {
                "yes"
            } else {
                "no"
            },
            img["weak_definitions"],
            img["lookups"],
            img["trie_probes"],
            img["wins"]
        );
        assert!(md.contains(&row), "{row} in {md}");
    }
    for g in p["duplicate_groups"].as_array().unwrap() {
        let row = format!(
            "| `{}` | {} | {} |",
            g["template"].as_str().unwrap(),
            g["symbols"],
            g["lookups"]
        );
        assert!(md.contains(&row), "{row} in {md}");
    }
    assert!(
        md.contains("- slows every lookup: `Contents/Frameworks/libplugin.dylib`"),
        "{md}"
    );
    assert!(md.contains("1 problem:"), "{md}");
    assert_eq!(
        std::fs::read_to_string(&summary).unwrap(),
        md,
        "the step summary"
    );

    let gh = run("github");
    let lines: Vec<&str> = gh.lines().collect();
    assert!(
        lines[0].starts_with("::notice title=weakscan scan%3A process::Contents/MacOS/App (x86_64): 6 images (5 on disk, 4 searched), ")
            && lines[0].contains(&format!("{} trie probes", p["trie_probes"])),
        "{gh}"
    );
    assert_eq!(
        gh.matches("::warning title=weakscan scan%3A image slows every lookup::")
            .count(),
        2,
        "{gh}"
    );
    assert_eq!(
        gh.matches("::warning title=weakscan scan%3A problem::")
            .count(),
        1,
        "{gh}"
    );
    assert_eq!(lines.last(), Some(&"weakscan scan: 1 process"));
}

fn diff_json(args: &[&str]) -> Value {
    let out = weakscan().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["command"], "process-diff");
    doc
}

fn bundle(name: &str) -> String {
    dir().join(name).display().to_string()
}

// App-v2.app (testdata/build.sh): libshared_b linked with an export list, libdeep renamed
// libdeep.2.dylib, libplugin added. The pairing and statuses below follow from how build.sh
// links the two bundles; every figure must equal what `scan` reports for each version.
#[test]
fn process_diff_pairs_images_and_matches_the_scans() {
    let (v1, v2) = (bundle("App.app"), bundle("App-v2.app"));
    let doc = diff_json(&["diff", "--format", "json", &v1, &v2]);
    let p = &doc["processes"][0];
    let rows: BTreeMap<&str, &Value> = p["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (leaf(i["image"].as_str().unwrap()), i))
        .collect();
    let status = |leaf: &str| {
        (
            rows[leaf]["status"].as_str().unwrap(),
            &rows[leaf]["paired_by"],
        )
    };
    assert_eq!(status("App"), ("changed", &Value::from("main")));
    assert_eq!(status("libshared_a.dylib").1, &Value::from("install_name"));
    assert_eq!(
        status("libshared_b.dylib"),
        ("changed", &Value::from("install_name"))
    );
    assert_eq!(
        status("libdeep.2.dylib"),
        ("changed", &Value::from("unversioned"))
    );
    assert_eq!(
        rows["libdeep.2.dylib"]["old_image"],
        "Contents/Frameworks/deps/libdeep.dylib"
    );
    assert_eq!(status("libplugin.dylib"), ("added", &Value::Null));
    assert_eq!(
        status("libSystem.B.dylib"),
        ("unchanged", &Value::from("install_name"))
    );
    assert_eq!(rows.len(), 6, "no image removed: {rows:?}");
    // The export list: libshared_b exports no weak definition and binds only libdeep's weak
    // variable; its template groups are gone.
    let b = rows["libshared_b.dylib"];
    assert_eq!(b["weak_definitions"]["new"], 0);
    assert_eq!(b["lookups"]["new"], 1);
    let keys: Vec<&str> = b["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["proc::Registry<…>", "proc::Counter<…>"]);

    // Every figure is the scan's.
    let scan = |b: &str| process_json(&["scan", "--format", "json", b])["processes"][0].clone();
    let (s1, s2) = (scan(&v1), scan(&v2));
    for f in [
        "lookups",
        "trie_probes",
        "distinct_names",
        "duplicated_names",
        "defined_outside",
    ] {
        assert_eq!(p["totals"][f]["old"], s1[f], "{f}");
        assert_eq!(p["totals"][f]["new"], s2[f], "{f}");
    }
    for (side, s) in [("old", &s1), ("new", &s2)] {
        for img in s["images"].as_array().unwrap() {
            let name = img["image"].as_str().unwrap();
            let row = p["images"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["image"] == name || (side == "old" && r["old_image"] == name))
                .unwrap_or_else(|| panic!("{name} ({side}) is not in the diff"));
            for f in ["lookups", "trie_probes", "weak_definitions", "wins"] {
                assert_eq!(row[f][side], img[f], "{name} {f} {side}");
            }
        }
    }
    // The duplicates of Registry<int> moved from libshared_b to libplugin.
    let dups = p["duplicate_groups"].as_array().unwrap();
    let reg = dups
        .iter()
        .find(|g| g["template"] == "proc::Registry<…>")
        .expect("Registry's duplicates changed images");
    assert!(reg["images"].to_string().contains("libplugin"), "{reg}");
    assert!(
        reg["old_images"].to_string().contains("libshared_b"),
        "{reg}"
    );
}

#[test]
fn process_diff_table_markdown_and_refusals() {
    let (v1, v2) = (bundle("App.app"), bundle("App-v2.app"));
    let out = weakscan().args(["diff", &v1, &v2]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("images: 4 changed, 1 added, 0 removed, 1 unchanged"),
        "{text}"
    );
    assert!(
        text.contains("(was Contents/Frameworks/deps/libdeep.dylib)"),
        "{text}"
    );
    let out = weakscan()
        .args(["diff", "--format", "markdown", &v1, &v2])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.contains("| trie probes | 296 | 308 | +12 (+4.1%) |"),
        "{md}"
    );
    assert!(
        md.contains("| `Contents/Frameworks/libplugin.dylib` | added | – → 8 |"),
        "{md}"
    );
    // GitHub workflow commands: the process (its probes grew: a warning), each changed image,
    // the duplicate groups, each problem, and the step summary in Markdown.
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let out = weakscan()
        .args(["diff", "--format", "github", &v1, &v2])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let gh = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = gh.lines().collect();
    assert!(
        lines[0].starts_with("::warning title=weakscan diff%3A process::")
            && lines[0].contains("%0A  trie probes: 296 → 308 (+12)%0A"),
        "{gh}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("::notice title=weakscan diff%3A image::"))
            .count(),
        5,
        "one per changed, added or renamed image: {gh}"
    );
    assert!(
        gh.contains("::notice title=weakscan diff%3A image::Contents/Frameworks/libshared_b.dylib (changed): weak-def lookups 6 → 1 (-5), trie probes 24 → 4 (-20)"),
        "{gh}"
    );
    assert!(
        gh.contains("%0A  proc::Registry<…>: symbols 3, lookups 9; defined by "),
        "{gh}"
    );
    assert_eq!(
        gh.matches("::warning title=weakscan diff%3A problem::")
            .count(),
        2,
        "the missing weak dylib, in each version: {gh}"
    );
    assert_eq!(
        lines.last(),
        Some(&"weakscan diff: 1 process compared, 5 images changed")
    );
    let md_summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md_summary.contains("| trie probes | 296 | 308 | +12 (+4.1%) |"),
        "{md_summary}"
    );
    // `--process` reads two main executables the same way as their bundles.
    let main = |b: &str| format!("{b}/Contents/MacOS/App");
    let a = diff_json(&["diff", "--format", "json", &v1, &v2]);
    let b = diff_json(&[
        "diff",
        "--format",
        "json",
        "--process",
        &main(&v1),
        &main(&v2),
    ]);
    assert_eq!(a, b);
    for (args, msg) in [
        (vec!["diff", "--symbols", &v1, &v2], "--symbols"),
        (
            vec!["diff", "--pair-arch", "arm64=x86_64", &v1, &v2],
            "no arm64",
        ),
    ] {
        let out = weakscan().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

// `check` and `baseline` on processes: the process's figures (with trie_probes) are gated as
// one subject, `--group` holds each image on disk, a baseline of a process is compared only
// with a process.
#[test]
fn process_check_and_baseline() {
    let (v1, v2) = (bundle("App.app"), bundle("App-v2.app"));
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base.json").display().to_string();
    let out = weakscan()
        .args(["baseline", &v1, "-o", &base])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    let scan = process_json(&["scan", "--format", "json", &v1])["processes"][0].clone();
    let img = &doc["images"][0];
    assert_eq!(img["input_kind"], "process");
    assert_eq!(img["trie_probes"], scan["trie_probes"]);
    assert_eq!(img["predicted_weak_lookups"], scan["lookups"]);
    let weak_defs: u64 = scan["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["weak_definitions"].as_u64())
        .sum();
    assert_eq!(img["weak_def_exports"], weak_defs);

    let check = |args: &[&str]| {
        let mut all = vec!["check", "--no-config", "--format", "json"];
        all.extend_from_slice(args);
        let out = weakscan().args(&all).output().unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (
            out.status.code(),
            doc,
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    // The same process against its own baseline passes; version 2 adds a plug-in: +12 probes.
    let (code, _, err) = check(&[&v1, "--baseline", &base]);
    assert_eq!(code, Some(0), "{err}");
    let (code, doc, _) = check(&[&v2, "--baseline", &base]);
    assert_eq!(code, Some(1));
    let probes = doc["images"][0]["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["figure"] == "trie_probes")
        .unwrap()
        .clone();
    assert_eq!(
        (probes["baseline"].as_u64(), probes["value"].as_u64()),
        (Some(296), Some(308))
    );
    assert_eq!(probes["passed"], false);
    // --max-trie-probes on the process; --group on each image on disk.
    let (code, doc, _) = check(&[
        &v2,
        "--max-trie-probes",
        "308",
        "--group",
        "proc::Registry*=2",
    ]);
    assert_eq!(code, Some(1));
    let verdicts: Vec<(String, bool)> = doc["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                leaf(i["path"].as_str().unwrap()).to_string(),
                i["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("App".to_string(), true), // the process: 308 probes, within
            ("App".to_string(), false),
            ("libshared_a.dylib".to_string(), false),
            ("libshared_b.dylib".to_string(), true), // its export list hides Registry<int>
            ("libplugin.dylib".to_string(), false),
            ("libdeep.2.dylib".to_string(), true),
        ]
    );
    assert!(doc["images"][0]["budgets"].as_array().unwrap().len() == 1);
    // A process baseline is not compared with one binary, nor trie probes asked of one.
    let app_bin = format!("{v1}/Contents/MacOS/App");
    for (args, msg) in [
        (vec![app_bin.as_str(), "--baseline", &base], "whole process"),
        (
            vec![app_bin.as_str(), "--max-trie-probes", "1"],
            "trie_probes is a figure of a whole process",
        ),
    ] {
        let (code, _, err) = check(&args);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
    // --process reads the main executable as the process.
    let (code, _, err) = check(&["--process", &app_bin, "--baseline", &base]);
    assert_eq!(code, Some(0), "{err}");
}

fn process_log() -> String {
    testdata()
        .join("logs/dyld4-macos15-process-app.log")
        .display()
        .to_string()
}

// `verify APP LOG` against testdata/logs/dyld4-macos15-process-app.log, which gen.py replays
// from the fixtures with dyld's code paths (Python, independent of weakscan).
#[test]
fn process_verify_agrees_with_the_replayed_log() {
    let out = weakscan()
        .args([
            "verify",
            "--format",
            "json",
            &bundle("App.app"),
            &process_log(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["command"], "process-verify");
    let rows: Vec<(String, String, u64, u64)> = doc["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                leaf(i["image"].as_str().unwrap()).to_string(),
                i["status"].as_str().unwrap().to_string(),
                i["totals"]["predicted"].as_u64().unwrap(),
                i["totals"]["seen"].as_u64().unwrap(),
            )
        })
        .collect();
    // The figures of the log's header (gen.py): 53, 11, 6 and 4 lookups.
    let want = [
        ("App", "compared", 53, 53),
        ("libshared_a.dylib", "compared", 11, 11),
        ("libshared_b.dylib", "compared", 6, 6),
        ("libSystem.B.dylib", "outside", 0, 0),
        ("libdeep.dylib", "compared", 4, 4),
    ];
    assert_eq!(
        rows,
        want.map(|(a, b, c, d)| (a.to_string(), b.to_string(), c, d))
    );
    assert_eq!(doc["differences"], 0);
}

#[test]
fn process_verify_finds_what_differs() {
    // Version 2 against version 1's log: libplugin and libdeep.2 are not in it, libdeep is
    // only in it, libshared_b's template lookups are gone.
    let out = weakscan()
        .args([
            "verify",
            "--format",
            "json",
            &bundle("App-v2.app"),
            &process_log(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = |name: &str| {
        doc["images"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| leaf(i["image"].as_str().unwrap()) == name)
            .map(|i| {
                (
                    i["status"].as_str().unwrap().to_string(),
                    i["differences"].as_u64().unwrap(),
                )
            })
            .unwrap()
    };
    assert_eq!(status("libplugin.dylib"), ("not_in_log".into(), 8));
    assert_eq!(status("libdeep.2.dylib"), ("not_in_log".into(), 4));
    assert_eq!(status("libshared_b.dylib"), ("compared".into(), 5));
    let log_only = doc["log_only"].as_array().unwrap();
    assert!(
        log_only.iter().any(|l| l["image"] == "libdeep.dylib"
            && l["system"] == false
            && l["seen_lookups"] == 4),
        "{log_only:?}"
    );
    // A log with one lookup of libshared_a removed: exactly that difference, in that image.
    let text = std::fs::read_to_string(process_log()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The first lookup block after libshared_a's fixups begin, through its bind line.
    let first = lines
        .iter()
        .position(|l| l.contains("<libshared_a.dylib/bind#"))
        .expect("a bind line of libshared_a");
    let start = (first..lines.len())
        .find(|&i| lines[i].contains("looking for weak-def symbol"))
        .unwrap();
    let cut = (start..lines.len())
        .find(|&i| lines[i].contains("<libshared_a.dylib/bind#"))
        .unwrap();
    let edited: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < start || *i > cut)
        .map(|(_, l)| *l)
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("edited.log");
    std::fs::write(&log, edited.join("\n") + "\n").unwrap();
    let log = log.display().to_string();
    let out = weakscan()
        .args(["verify", "--format", "json", &bundle("App.app"), &log])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["differences"], 1);
    let a = doc["images"][1].clone();
    assert_eq!(leaf(a["image"].as_str().unwrap()), "libshared_a.dylib");
    assert_eq!(a["totals"]["predicted_not_seen"], 1);
    assert_eq!(a["symbols"].as_array().unwrap().len(), 1, "{a}");
    // --tolerance 1 accepts it; --image is refused for a process.
    let ok = weakscan()
        .args(["verify", "--tolerance", "1", &bundle("App.app"), &log])
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let out = weakscan()
        .args(["verify", "--image", "App", &bundle("App.app"), &log])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--image"));
}

// Regression: the process loader emptied every dependency's bind sites, so `diff A.app B.app`
// showed Δ sites +0 for each dependency's groups. A dependency's group deltas in a process diff
// are those of `weakscan diff` of the two dylibs on their own, whatever the grouping (the image
// pairs of a process diff share one name table, except with `--by namespace`).
#[test]
fn regression_process_diff_groups_equal_the_image_diff() {
    let (v1, v2) = (bundle("App.app"), bundle("App-v2.app"));
    for by in ["template", "pattern", "symbol", "namespace"] {
        let doc = diff_json(&["diff", "--format", "json", "--by", by, &v1, &v2]);
        let b = doc["processes"][0]["images"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| leaf(i["image"].as_str().unwrap()) == "libshared_b.dylib")
            .unwrap()
            .clone();
        let lib = "Contents/Frameworks/libshared_b.dylib";
        let out = weakscan()
            .args([
                "diff",
                "--format",
                "json",
                "--by",
                by,
                &format!("{v1}/{lib}"),
                &format!("{v2}/{lib}"),
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let single: Value = serde_json::from_slice(&out.stdout).unwrap();
        let strip = |g: &Value| {
            (
                g["key"].clone(),
                g["old"].clone(),
                g["new"].clone(),
                g["delta"].clone(),
            )
        };
        let ours: Vec<_> = b["groups"].as_array().unwrap().iter().map(strip).collect();
        let theirs: Vec<_> = single["groups"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["delta"]["lookups"] != 0 || g["delta"]["weak_def_exports"] != 0)
            .map(strip)
            .collect();
        assert!(!ours.is_empty(), "--by {by}");
        assert_eq!(ours, theirs, "--by {by}");
        if by == "template" {
            assert_eq!(b["groups"][0]["delta"]["sites"], -3);
        }
    }
}

/// A copy of `testdata/process/App.app` in `into`: its path.
fn copy_app(into: &std::path::Path) -> PathBuf {
    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let dest = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &dest);
            } else {
                std::fs::copy(e.path(), dest).unwrap();
            }
        }
    }
    let app = into.join("App.app");
    copy(&dir().join("App.app"), &app);
    app
}

/// A copy of `testdata/process/App.app` in `into`, with `Frameworks/libshared_b.dylib` replaced
/// by `link` (a hard link or symlink to `libshared_a.dylib`).
fn app_with_shared_b_as(into: &std::path::Path, link: fn(&str, &std::path::Path)) -> String {
    let app = copy_app(into);
    let b = app.join("Contents/Frameworks/libshared_b.dylib");
    std::fs::remove_file(&b).unwrap();
    link("libshared_a.dylib", &b);
    app.display().to_string()
}

// Regression: a hard link to a loaded dylib was loaded again as its own image (5 images, 316
// trie probes), where dyld matches the file by inode and modification time and takes the image
// already loaded (Loader.cpp `getLoader`), as it does for a symlink.
#[test]
fn a_hard_link_to_a_loaded_dylib_is_that_image() {
    let tmp = tempfile::tempdir().unwrap();
    let hard = app_with_shared_b_as(&tmp.path().join("hard"), |target, at| {
        std::fs::hard_link(at.with_file_name(target), at).unwrap()
    });
    let soft = app_with_shared_b_as(&tmp.path().join("soft"), |target, at| {
        std::os::unix::fs::symlink(target, at).unwrap()
    });
    let scan = |app: &str| process_json(&["scan", "--format", "json", app])["processes"][0].clone();
    let (hard, soft) = (scan(&hard), scan(&soft));
    let want = [
        "Contents/MacOS/App",
        "Contents/Frameworks/libshared_a.dylib",
        "/usr/lib/libSystem.B.dylib",
        "Contents/Frameworks/deps/libdeep.dylib",
    ];
    for p in [&hard, &soft] {
        assert_eq!(image_names(p), want);
        // App's second load command, @loader_path/../Frameworks/libshared_b.dylib, is image 1.
        let deps = &p["images"][0]["dependencies"];
        assert_eq!(
            deps[1]["install_name"],
            "@loader_path/../Frameworks/libshared_b.dylib"
        );
        assert_eq!(deps[1]["image"], 1);
        assert_eq!(p["images_searched"], 3);
        assert_eq!(p["trie_probes"], p["lookups"].as_u64().unwrap() * 3);
    }
    for figure in [
        "lookups",
        "trie_probes",
        "distinct_names",
        "duplicates",
        "symbols",
    ] {
        assert_eq!(hard[figure], soft[figure], "{figure}");
    }
}

/// A minimal x86_64 `MH_EXECUTE` (a `__TEXT` segment and one `LC_LOAD_DYLIB` per entry of
/// `dylibs`), laid out as `<mach-o/loader.h>` gives `mach_header_64`, `segment_command_64` and
/// `dylib_command`.
fn main_loading(dylibs: &[String]) -> Vec<u8> {
    minimal_macho(2, None, &[], dylibs)
}

/// A minimal x86_64 Mach-O of `filetype` (2 `MH_EXECUTE`, 6 `MH_DYLIB`): a `__TEXT` segment,
/// an `LC_ID_DYLIB` of `id`, one `LC_RPATH` (`rpath_command`) per entry of `rpaths`, one
/// `LC_LOAD_DYLIB` per entry of `dylibs`. No symbols.
fn minimal_macho(filetype: u32, id: Option<&str>, rpaths: &[String], dylibs: &[String]) -> Vec<u8> {
    let mut cmds = Vec::new();
    let mut ncmds = 1;
    // cmd, cmdsize, the string's offset, then `after` (dylib_command: timestamp, current and
    // compatibility version; rpath_command: nothing), then the string, padded to 8 bytes.
    let mut command = |cmd: u32, after: &[u32], text: &str| {
        let fixed = 12 + 4 * after.len();
        let size = (fixed + text.len() + 1).div_ceil(8) * 8;
        for v in [cmd, size as u32, fixed as u32].iter().chain(after) {
            cmds.extend_from_slice(&v.to_le_bytes());
        }
        cmds.extend_from_slice(text.as_bytes());
        cmds.resize(cmds.len() + size - fixed - text.len(), 0);
        ncmds += 1;
    };
    let versions = [2, 0x10000, 0x10000];
    if let Some(id) = id {
        command(0xd, &versions, id);
    }
    for r in rpaths {
        command(0x8000_001c, &[], r);
    }
    for name in dylibs {
        command(0xc, &versions, name);
    }
    let mut out = Vec::new();
    for v in [0xfeed_facf_u32, 0x0100_0007, 3, filetype, ncmds] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let total = 32 + 72 + cmds.len();
    out.extend_from_slice(&(72 + cmds.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x85_u32.to_le_bytes()); // MH_NOUNDEFS | MH_DYLDLINK | MH_TWOLEVEL
    out.extend_from_slice(&0_u32.to_le_bytes());
    out.extend_from_slice(&0x19_u32.to_le_bytes()); // LC_SEGMENT_64
    out.extend_from_slice(&72_u32.to_le_bytes());
    out.extend_from_slice(b"__TEXT\0\0\0\0\0\0\0\0\0\0");
    for v in [0_u64, 0x1000 + total as u64, 0, total as u64] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [5_u32, 5, 0, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&cmds);
    out
}

// Regression: each "already loaded" check went through every image, so 80,000 shared-cache
// dependencies took 37 s (now 0.5 s: indexed). What the index must keep: a dependency loaded
// twice is the first image loaded under that install name, and every other one its own image.
#[test]
fn repeated_outside_dependencies_are_the_first_image_loaded() {
    let names: Vec<String> = (0..3000)
        .map(|i| format!("/usr/lib/lib{}.dylib", i % 1500))
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let main = tmp.path().join("main");
    std::fs::write(&main, main_loading(&names)).unwrap();
    let main = main.display().to_string();
    let doc = process_json(&["scan", "--format", "json", "--process", &main]);
    let p = &doc["processes"][0];
    assert_eq!(p["images_outside"], 1500);
    let images = image_names(p);
    assert_eq!(images.len(), 1501);
    let deps = p["images"][0]["dependencies"].as_array().unwrap();
    assert_eq!(deps.len(), 3000);
    for (k, d) in deps.iter().enumerate() {
        let i = d["image"].as_u64().unwrap() as usize;
        assert_eq!(i, k % 1500 + 1, "{d}");
        assert_eq!(images[i], names[k]);
    }
    assert_eq!(p["problems"].as_array().unwrap().len(), 0);
}

// An export-trie entry with EXPORT_SYMBOL_FLAGS_REEXPORT is followed to the dylib its library
// ordinal names (dyld-1378 Loader.cpp `hasExportedSymbol`), never taken as the image's own
// definition. ld64.lld emits no such entry: libshared_a's trie is replaced in place by one node,
// `__ZN4proc8RegistryIiE8InstanceEv` re-exported from its first dependency (libdeep), which
// does not define it. So libshared_a no longer defines it (it was a weak definer), and each of
// its 3 lookups probes libdeep's trie once more. (tests/reexport.rs has re-exports that lead to
// a definition, outside, out of range, in loops and past the depth cap.)
#[test]
fn a_reexport_in_an_export_trie_is_followed_to_its_dependency() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = copy_app(tmp.path());
    let lib = copy.join("Contents/Frameworks/libshared_a.dylib");
    let mut b = std::fs::read(&lib).unwrap();
    let name = b"__ZN4proc8RegistryIiE8InstanceEv";
    // <export-trie> (mach-o/loader.h, dyld's MachOLoaded::trieWalk): the root has no terminal
    // and one edge (name, NUL, child offset); the child's terminal is flags 0x08 (re-export),
    // library ordinal 1 and an empty imported name (the same name), then no children.
    let mut trie = vec![0, 1];
    trie.extend_from_slice(name);
    trie.push(0);
    trie.push(trie.len() as u8 + 1);
    trie.extend_from_slice(&[3, 0x08, 1, 0, 0]);
    // LC_DYLD_EXPORTS_TRIE (0x80000033): linkedit_data_command { cmd, cmdsize, dataoff, datasize }.
    let ncmds = u32::from_le_bytes(b[16..20].try_into().unwrap());
    let mut at = 32;
    let mut lc = None;
    for _ in 0..ncmds {
        let cmd = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        if cmd == 0x8000_0033 {
            lc = Some(at);
        }
        at += u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
    }
    let lc = lc.expect("LC_DYLD_EXPORTS_TRIE");
    let off = u32::from_le_bytes(b[lc + 8..lc + 12].try_into().unwrap()) as usize;
    let size = u32::from_le_bytes(b[lc + 12..lc + 16].try_into().unwrap()) as usize;
    assert!(trie.len() <= size);
    b[off..off + size].fill(0);
    b[off..off + trie.len()].copy_from_slice(&trie);
    b[lc + 12..lc + 16].copy_from_slice(&(trie.len() as u32).to_le_bytes());
    std::fs::write(&lib, b).unwrap();

    let doc = process_json(&["scan", "--format", "json", &copy.display().to_string()]);
    let p = &doc["processes"][0];
    let name = "__ZN4proc8RegistryIiE8InstanceEv";
    assert_eq!(p["reexports_followed"], 1);
    let dup = p["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["mangled"] == name)
        .unwrap();
    assert_eq!(
        dup["defined_by"],
        serde_json::json!([
            "Contents/MacOS/App (weak)",
            "Contents/Frameworks/libshared_b.dylib (weak)"
        ])
    );
    assert_eq!(dup["winner"], "Contents/MacOS/App");
    assert_eq!(p["trie_probes"], app()["trie_probes"].as_u64().unwrap() + 3);
    // Nothing to report: the entry leads to a dylib that does not define the name.
    let problems = p["problems"].as_array().unwrap();
    assert!(
        !problems
            .iter()
            .any(|p| p.as_str().unwrap().contains("re-export")),
        "{problems:?}"
    );
}

// Hostile-input campaign findings, each one line and exit 2: a FIFO as the main executable hung
// in `open` (images are opened with O_NONBLOCK and must be regular files, as dyld's), a
// `--search` or `--sysroot` that is not a directory was taken silently, and a bundle's main
// executable or Info.plist that is a symlink out of the bundle was read.
#[test]
fn regression_fifo_main_non_directory_roots_and_symlinks_out_of_a_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let fifo = fifo.display().to_string();
    let main = dir()
        .join("App.app/Contents/MacOS/App")
        .display()
        .to_string();
    // An out-of-bundle main executable, and an out-of-bundle Info.plist.
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let exe_out = copy_app(&tmp.path().join("exe"));
    std::fs::rename(exe_out.join("Contents/MacOS/App"), outside.join("App")).unwrap();
    std::os::unix::fs::symlink(outside.join("App"), exe_out.join("Contents/MacOS/App")).unwrap();
    let plist_out = copy_app(&tmp.path().join("plist"));
    std::fs::rename(
        plist_out.join("Contents/Info.plist"),
        outside.join("Info.plist"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.join("Info.plist"),
        plist_out.join("Contents/Info.plist"),
    )
    .unwrap();
    let (exe_out, plist_out) = (
        exe_out.display().to_string(),
        plist_out.display().to_string(),
    );
    for (args, msg) in [
        (vec!["scan", "--process", &fifo], "fifo: not a regular file"),
        (
            vec!["scan", "--process", &main, "--search", &fifo],
            "fifo: not a directory",
        ),
        (
            vec!["scan", "--process", &main, "--sysroot", &fifo],
            "fifo: not a directory",
        ),
        (
            vec!["scan", &exe_out],
            "MacOS/App: a symlink out of the bundle",
        ),
        (
            vec!["scan", &plist_out],
            "Info.plist: a symlink out of the bundle",
        ),
    ] {
        let out = weakscan()
            .args(&args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

/// Writes `bytes` at `path`, making its directories.
fn write_file(path: &std::path::Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `dir/main`: an executable with `n` `LC_RPATH`s `@executable_path/PREFIX-K` and `n`
/// dependencies `@rpath/libK.dylib` (K = 0..n), none of which exists.
fn main_searching(dir: &std::path::Path, prefix: &str, n: usize) {
    let rpaths: Vec<String> = (0..n)
        .map(|k| format!("@executable_path/{prefix}-{k}"))
        .collect();
    let deps: Vec<String> = (0..n).map(|k| format!("@rpath/lib{k}.dylib")).collect();
    write_file(&dir.join("main"), &minimal_macho(2, None, &rpaths, &deps));
}

/// File-system calls of `weakscan ARGS` counted by `strace -f -c` (`None` without strace).
fn file_system_calls(args: &[&str]) -> Option<u64> {
    let out = std::process::Command::new("strace")
        .args(["-f", "-c", "-e", "trace=%file,%stat"])
        .arg(crate::util::bin())
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    let total = text.lines().find(|l| l.trim_end().ends_with("total"))?;
    let fields: Vec<&str> = total.split_whitespace().collect();
    fields.get(fields.len().checked_sub(3)?)?.parse().ok()
}

// Regression (hostile-input campaign): 3,000 missing LC_RPATHs × 3,000 @rpath dependencies
// made 9 million `stat` calls (killed at 60 s). A missing directory is now walked once.
#[test]
fn regression_missing_rpaths_times_dependencies_made_millions_of_stats() {
    let d = tempfile::tempdir().unwrap();
    let n = 1000;
    main_searching(d.path(), "missing", n);
    let dir = d.path().display().to_string();
    let problems = problems_of(&["scan", "--format", "json", &dir]);
    assert_eq!(problems.len(), n, "{:?}", &problems[..3]);
    for (k, p) in problems.iter().enumerate() {
        assert!(
            p.contains(&format!("@rpath/lib{k}.dylib (LC_LOAD_DYLIB) is not found")),
            "{p}"
        );
        // Still the first 8 paths tried, missing directories included.
        assert!(p.contains(&format!("missing-7/lib{k}.dylib)")), "{p}");
    }
    match file_system_calls(&["scan", "--format", "json", &dir]) {
        // One walk per missing directory, and a handful per run: not one per pair.
        Some(calls) => assert!(calls < 3 * n as u64 + 200, "{calls} file-system calls"),
        None => strace_missing("the calls are not counted"),
    }
}

// Regression (hostile-input campaign): a 4,096-deep chain of dylibs, each with its own missing
// LC_RPATH, took 116 s: each level searched the whole rpath stack on the file system.
#[test]
fn regression_a_deep_chain_of_missing_rpaths_searched_each_one_per_level() {
    let d = tempfile::tempdir().unwrap();
    let depth = 1024;
    let main = minimal_macho(
        2,
        None,
        &["@executable_path/lib".into()],
        &["@rpath/lib0.dylib".into()],
    );
    write_file(&d.path().join("main"), &main);
    for k in 0..depth {
        let next: Vec<String> = (k + 1 < depth)
            .then(|| format!("@rpath/lib{}.dylib", k + 1))
            .into_iter()
            .collect();
        let lib = minimal_macho(
            6,
            Some(&format!("@rpath/lib{k}.dylib")),
            &[format!("@loader_path/missing-{k}")],
            &next,
        );
        write_file(&d.path().join(format!("lib/lib{k}.dylib")), &lib);
    }
    let dir = d.path().display().to_string();
    let doc = process_json(&["scan", "--format", "json", &dir]);
    let p = &doc["processes"][0];
    assert_eq!(p["images"].as_array().unwrap().len(), depth + 1);
    assert_eq!(
        p["problems"].as_array().unwrap().len(),
        0,
        "{}",
        p["problems"]
    );
    if let Some(calls) = file_system_calls(&["scan", "--format", "json", &dir]) {
        assert!(calls < 16 * depth as u64, "{calls} file-system calls");
    }
}

// The search's budget (resolve::MAX_PROBES): existing directories that lack every dependency
// cannot be remembered as missing, so 600 × 600 of them spend it; that is one counted problem.
#[test]
fn a_search_past_its_probe_budget_is_one_counted_problem() {
    let d = tempfile::tempdir().unwrap();
    let n = 600;
    for k in 0..n {
        std::fs::create_dir_all(d.path().join(format!("empty-{k}"))).unwrap();
    }
    main_searching(d.path(), "empty", n);
    let problems = problems_of(&["scan", "--format", "json", &d.path().display().to_string()]);
    let stopped: Vec<&String> = problems
        .iter()
        .filter(|p| p.contains("dependency search stopped after 262144 candidate paths"))
        .collect();
    assert_eq!(stopped.len(), 1, "{:?}", &problems[problems.len() - 2..]);
    // The dependencies searched before the cap are reported as not found, as without it.
    assert!(problems[0].contains("@rpath/lib0.dylib (LC_LOAD_DYLIB) is not found"));
}

/// The lines of an `strace -f` log of `weakscan ARGS` whose call is on a path under `outside`
/// (`None` without strace).
fn calls_naming(outside: &std::path::Path, args: &[&str]) -> Option<(i32, Vec<String>)> {
    let log = tempfile::NamedTempFile::new().unwrap();
    let status = std::process::Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=%file,%stat,readlink,readlinkat",
            "-o",
        ])
        .arg(log.path())
        .arg(crate::util::bin())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    // The path a call is given is its first quoted argument (a `readlink`'s result, which may
    // name the outside, is not a call on it).
    let outside = outside.display().to_string();
    let text = std::fs::read_to_string(log.path()).unwrap();
    let lines = text
        .lines()
        .filter(|l| l.split('"').nth(1).is_some_and(|p| p.starts_with(&outside)))
        .map(String::from)
        .collect();
    Some((status.code().unwrap_or(-1), lines))
}

// Regression (hostile-input campaign): `scan DIR` opened and read every top-level entry to find
// the main executable before any root check, a symlink to a file outside included (here a second
// MH_EXECUTE, which made the directory ambiguous), and a bundle's Frameworks symlink out of it
// was `readlink`ed and resolved outside before being refused.
#[test]
fn regression_a_directory_scan_opened_files_outside_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let outside = base.join("outside");
    std::fs::create_dir(&outside).unwrap();
    let exe = crate::util::fixture("app-default-chained-x86_64");
    std::fs::copy(&exe, outside.join("secret")).unwrap();
    let plain = base.join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::copy(&exe, plain.join("main")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret"), plain.join("evil")).unwrap();
    std::os::unix::fs::symlink("../outside/secret", plain.join("evil-relative")).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(plain.join("fifo"))
            .status()
            .unwrap()
            .success()
    );
    // A bundle whose Frameworks directory is a link out of it (to a copy of its dylibs).
    let app = copy_app(&base.join("bundle"));
    std::fs::rename(app.join("Contents/Frameworks"), outside.join("Frameworks")).unwrap();
    std::os::unix::fs::symlink(outside.join("Frameworks"), app.join("Contents/Frameworks"))
        .unwrap();
    let (plain, app) = (plain.display().to_string(), app.display().to_string());

    // The verdicts: the one executable inside; the bundle's libraries refused, not read.
    let doc = process_json(&["scan", "--format", "json", &plain]);
    assert_eq!(doc["processes"][0]["images"][0]["image"], "main");
    let problems = problems_of(&["scan", "--format", "json", &app]);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("outside the directories weakscan may read")),
        "{problems:?}"
    );
    match calls_naming(&outside, &["scan", "--format", "json", &plain]) {
        Some((code, lines)) => {
            assert_eq!(code, 0);
            assert!(lines.is_empty(), "calls outside the directory: {lines:#?}");
            let (_, lines) = calls_naming(&outside, &["scan", "--format", "json", &app]).unwrap();
            assert!(lines.is_empty(), "calls outside the bundle: {lines:#?}");
        }
        None => crate::util::skip("strace not installed: the verdicts are checked, not the calls"),
    }
}

/// Says that a test skips its strace part (a failure when CI sets `WEAKSCAN_REQUIRE_STRACE`).
fn strace_missing(what: &str) {
    assert!(
        !crate::util::required("WEAKSCAN_REQUIRE_STRACE"),
        "strace is required (WEAKSCAN_REQUIRE_STRACE=1) but cannot run"
    );
    crate::util::skip(&format!("strace not installed: {what}"));
}

/// testdata/process/Lazy: main's LC_LAZY_LOAD_DYLIB_INFO names @rpath/liblazy.dylib, which dyld
/// does not load at launch (dyld-1376.6+): listed, not loaded, not searched.
#[test]
fn regression_lazy_load_dylibs_were_not_listed() {
    let out = weakscan()
        .args(["scan", "--format", "json", &bundle("Lazy")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &doc["processes"][0];
    let images: Vec<&str> = p["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["image"].as_str().unwrap())
        .collect();
    assert_eq!(images, ["main", "/usr/lib/libSystem.B.dylib"]);
    assert_eq!(p["images_searched"], 0);
    let lazy = &p["images"][0]["dependencies"][1];
    assert_eq!(lazy["install_name"], "@rpath/liblazy.dylib");
    assert_eq!(lazy["load_command"], "LC_LAZY_LOAD_DYLIB_INFO");
    assert_eq!(lazy["attributes"], serde_json::json!(["lazy_load"]));
    assert!(lazy["image"].is_null());
    let table = weakscan().args(["scan", &bundle("Lazy")]).output().unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("lazy-load: main loads @rpath/liblazy.dylib on first use"),
        "{text}"
    );
}

/// dyld-1376.6 loads a lazy-load dylib on first use: a log then shows its lookups after the
/// launch. They are not the launch's: listed, not counted.
#[test]
fn regression_a_lazy_loaded_dylib_failed_process_verify() {
    let log = testdata()
        .join("logs/dyld4-macos26-lazy-load.log")
        .display()
        .to_string();
    let out = weakscan()
        .args(["verify", "--format", "json", &bundle("Lazy"), &log])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let only = &doc["log_only"][0];
    assert_eq!(only["image"], "liblazy.dylib");
    assert_eq!(only["lazy_load"], true);
    assert_eq!(only["seen_lookups"], 2);
    assert_eq!(doc["differences"], 0);
}
