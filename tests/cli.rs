//! The binary on the committed fixtures, on bad input, and against golden files.

use crate::util::{
    assert_fitted, expected, fails_with, fixture, golden, golden_edited, golden_exit,
    identifiers_of, json, stdout_of, weakscan,
};
use predicates::prelude::*;

fn fixture_str(name: &str) -> String {
    fixture(name).display().to_string()
}

fn image_field(v: &serde_json::Value, field: &str) -> u64 {
    v[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} is not an integer in {v}"))
}

#[test]
fn figures_match_llvm_objdump_for_every_fixture() {
    let rows = expected();
    assert!(rows.len() >= 20, "expected.tsv has {} rows", rows.len());
    for row in rows {
        let path = fixture_str(&row.file);
        let doc = json(&["scan", &path, "--arch", &row.arch, "--format", "json"]);
        let images = doc["images"].as_array().unwrap();
        assert_eq!(
            images.len(),
            1,
            "{}: one image for --arch {}",
            row.file,
            row.arch
        );
        let img = &images[0];
        assert_eq!(img["arch"], row.arch.as_str());
        assert_eq!(img["fixup_format"], row.fixups.as_str(), "{}", row.file);
        assert_eq!(
            image_field(img, "weak_def_exports"),
            row.weak_def_exports,
            "{} exports",
            row.file
        );
        assert_eq!(
            image_field(img, "weak_bind_sites"),
            row.weak_bind_sites,
            "{} sites",
            row.file
        );
        assert_eq!(
            image_field(img, "weak_bind_symbols"),
            row.weak_bind_symbols,
            "{} symbols",
            row.file
        );
    }
}

#[test]
fn predicted_lookups_follow_dyld_rules() {
    // (fixture, predicted lookups): targets, + 22 treat-as-weak for a main executable with
    // MH_WEAK_DEFINES, + 22 more for chained fixups; dylibs: targets only.
    for (file, lookups) in [
        ("app-default-chained-x86_64", 39 + 22 + 22),
        ("app-default-opcodes-x86_64", 40 + 22), // 40 targets: one symbol bound with two addends
        ("app-hidden-chained-arm64", 3 + 22 + 22),
        ("app-hidden-opcodes-x86_64", 3 + 22),
        ("app-nooverride-hidden-opcodes-x86_64", 4), // no MH_WEAK_DEFINES
        ("libweak-chained-x86_64.dylib", 21),
        ("libweak-opcodes-arm64.dylib", 21),
    ] {
        let doc = json(&["scan", &fixture_str(file), "--format", "json"]);
        assert_eq!(
            image_field(&doc["images"][0], "predicted_weak_lookups"),
            lookups,
            "{file}"
        );
    }
}

#[test]
fn scan_json_has_the_documented_shape() {
    let doc = json(&[
        "scan",
        &fixture_str("app-default-chained-universal"),
        "--format",
        "json",
    ]);
    assert_eq!(doc["schema_version"], 1);
    let images = doc["images"].as_array().unwrap();
    let arches: Vec<&str> = images.iter().map(|i| i["arch"].as_str().unwrap()).collect();
    assert_eq!(arches, ["x86_64", "arm64"]); // fat_arch order
    for img in images {
        for f in [
            "weak_def_exports",
            "weak_bind_sites",
            "weak_bind_symbols",
            "predicted_weak_lookups",
        ] {
            assert!(img[f].is_u64(), "{f}");
        }
        assert_eq!(img["fixup_format"], "chained");
    }
    let groups = doc["groups"].as_array().unwrap();
    let top = &groups[0];
    assert_eq!(top["arch"], "x86_64");
    assert_eq!(top["key"], "v8::internal::StaticCallInterfaceDescriptor<…>");
    assert_eq!(top["weak_bound_symbols"], 30); // 6 descriptors × 5 statics and functions
    assert!(
        top["example"]
            .as_str()
            .unwrap()
            .contains("StaticCallInterfaceDescriptor<v8::internal::")
    );
}

#[test]
fn scan_table_shows_summary_and_groups() {
    weakscan()
        .args(["scan", &fixture_str("app-default-opcodes-arm64")])
        .assert()
        .success()
        .stdout(predicate::str::contains("fixup format"))
        .stdout(predicate::str::contains("opcodes"))
        .stdout(predicate::str::contains("MH_WEAK_DEFINES"))
        .stdout(predicate::str::contains("predicted weak-def lookups"))
        .stdout(predicate::str::contains(
            "v8::internal::StaticCallInterfaceDescriptor<…>",
        ))
        .stdout(predicate::str::contains(
            "36 defined here, 3 defined elsewhere",
        ));
}

#[test]
fn group_by_each_kind() {
    let key0 = |by: &[&str]| {
        let mut args = vec!["scan", "--format", "json"];
        args.extend_from_slice(by);
        let path = fixture_str("app-v2-default-chained-x86_64");
        args.push(&path);
        let doc = json(&args);
        doc["groups"][0]["key"].as_str().unwrap().to_string()
    };
    assert_eq!(key0(&["--by", "namespace"]), "v8::internal");
    assert_eq!(key0(&["--by", "namespace", "--depth", "1"]), "v8");
    assert_eq!(
        key0(&["--by", "template"]),
        "v8::internal::StaticCallInterfaceDescriptor<…>"
    );
    assert!(
        key0(&["--by", "pattern"])
            .contains("v8::internal::StaticCallInterfaceDescriptor<…>::Initialize(…)")
    );
    // operator delete(void*): 2 treat-as-weak lookups + its own bind target
    assert_eq!(key0(&["--by", "symbol"]), "operator delete(void*)");
    let doc = json(&[
        "scan",
        "--format",
        "json",
        "--top",
        "2",
        &fixture_str("app-v2-default-chained-x86_64"),
    ]);
    assert_eq!(doc["groups"].as_array().unwrap().len(), 2);
}

#[test]
fn arch_selects_one_slice() {
    let doc = json(&[
        "scan",
        "--arch",
        "x86_64",
        "--format",
        "json",
        &fixture_str("app-default-chained-universal"),
    ]);
    assert_eq!(doc["images"].as_array().unwrap().len(), 1);
    assert_eq!(doc["images"][0]["arch"], "x86_64");
    fails_with(
        &[
            "scan",
            "--arch",
            "arm64e",
            &fixture_str("app-default-chained-universal"),
        ],
        "no arm64e slice (the file has x86_64, arm64)",
    );
}

#[test]
fn diff_reports_totals_and_group_deltas() {
    let doc = json(&[
        "diff",
        "--format",
        "json",
        "--symbols",
        &fixture_str("app-default-chained-x86_64"),
        &fixture_str("app-v2-default-chained-x86_64"),
    ]);
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(image_field(&doc["old"][0], "weak_def_exports"), 36);
    assert_eq!(image_field(&doc["new"][0], "weak_def_exports"), 96);
    let t = &doc["totals"][0];
    assert_eq!(t["delta"]["lookups"], 60);
    assert_eq!(t["percent"]["weak_def_exports"], 166.7);
    let g = &doc["groups"][0];
    assert_eq!(g["key"], "v8::internal::StaticCallInterfaceDescriptor<…>");
    assert_eq!(g["old"]["weak_bound_symbols"], 30);
    assert_eq!(g["new"]["weak_bound_symbols"], 90);
    assert_eq!(g["delta"]["weak_bound_symbols"], 60);
    let added = doc["symbols"][0]["added"].as_array().unwrap();
    assert_eq!(added.len(), 60);
    assert!(doc["symbols"][0]["removed"].as_array().unwrap().is_empty());
}

#[test]
fn diff_table_and_symbols() {
    weakscan()
        .args(["diff", "--symbols"])
        .arg(fixture("app-default-opcodes-x86_64"))
        .arg(fixture("app-v2-default-opcodes-x86_64"))
        .assert()
        .success()
        .stdout(predicate::str::contains("+60 (+166.7%)"))
        .stdout(predicate::str::contains("added weak-bound symbols (60):"))
        .stdout(predicate::str::contains("removed weak-bound symbols (0):"));
}

#[test]
fn diff_pairs_slices_by_arch() {
    let doc = json(&[
        "diff",
        "--format",
        "json",
        &fixture_str("app-default-chained-universal"),
        &fixture_str("app-v2-default-chained-x86_64"),
    ]);
    assert_eq!(doc["arches_only_in_old"], serde_json::json!(["arm64"]));
    assert_eq!(doc["arches_only_in_new"], serde_json::json!([]));
    assert_eq!(doc["totals"].as_array().unwrap().len(), 1);
    weakscan()
        .arg("diff")
        .arg(fixture("app-default-chained-universal"))
        .arg(fixture("app-v2-default-chained-x86_64"))
        .assert()
        .success()
        .stdout(predicate::str::contains("arm64 is only in the old build"));
}

#[test]
fn hidden_visibility_removes_the_leak() {
    let doc = json(&[
        "diff",
        "--format",
        "json",
        &fixture_str("app-default-chained-arm64"),
        &fixture_str("app-hidden-chained-arm64"),
    ]);
    let t = &doc["totals"][0];
    assert_eq!(t["new"]["weak_def_exports"], 0);
    assert_eq!(t["new"]["weak_bound_symbols"], 3); // operator new/delete stay: defined elsewhere
    assert_eq!(image_field(&doc["new"][0], "defined_here_symbols"), 0);
}

// ---- bad input: one line naming the file, exit 2 (the corpus is in `malformed`) ----

fn temp_file(bytes: &[u8]) -> tempfile::NamedTempFile {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), bytes).unwrap();
    f
}

#[test]
fn not_macho() {
    // Text is read as a log; with no dyld line it is neither kind.
    let f = temp_file(b"#!/bin/sh\necho hello\n");
    let path = f.path().to_str().unwrap();
    fails_with(
        &["scan", path],
        "neither a Mach-O file nor a dyld log: no dyld lines in 2 lines (was DYLD_PRINT_BINDINGS=1 set?)",
    );
    fails_with(
        &["scan", "--input-kind", "binary", path],
        "not a Mach-O file: a text file, not a Mach-O binary",
    );
    let elf = temp_file(b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00");
    fails_with(
        &["scan", elf.path().to_str().unwrap()],
        "not a Mach-O file: an ELF file (a Linux or BSD binary); weakscan reads macOS Mach-O images",
    );
}

#[test]
fn universal_with_duplicate_slices() {
    // Two fat_arch entries for the same x86_64 slice of a real fixture.
    let thin = std::fs::read(fixture("app-default-chained-x86_64")).unwrap();
    let mut fat = vec![0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2];
    for _ in 0..2 {
        fat.extend(0x0100_0007u32.to_be_bytes());
        fat.extend(3u32.to_be_bytes());
        fat.extend(0x1000u32.to_be_bytes());
        fat.extend((thin.len() as u32).to_be_bytes());
        fat.extend(12u32.to_be_bytes());
    }
    fat.resize(0x1000, 0);
    fat.extend(&thin);
    let f = temp_file(&fat);
    fails_with(
        &["scan", f.path().to_str().unwrap()],
        "universal file has two x86_64 slices",
    );
}

#[test]
fn truncated_file_names_what_runs_past_the_end() {
    for name in ["app-default-chained-x86_64", "app-default-opcodes-x86_64"] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        for cut in [20, 100, bytes.len() / 2, bytes.len() - 100] {
            let f = temp_file(&bytes[..cut]);
            let out = weakscan().arg("scan").arg(f.path()).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{name} cut at {cut}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "one line: {err}");
            assert!(
                err.contains(f.path().to_str().unwrap()),
                "names the file: {err}"
            );
            assert!(err.contains("truncated"), "says it is truncated: {err}");
        }
    }
}

/// Bare `weakscan` (or only global flags) lists every command with an example, on stderr,
/// exit 2; each subcommand's --help ends with its examples.
#[test]
fn bare_weakscan_lists_the_commands_with_an_example_each() {
    for args in [&[][..], &["--width", "80"][..]] {
        let out = weakscan().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
        let err = String::from_utf8(out.stderr).unwrap();
        for command in [
            "scan", "diff", "verify", "check", "trend", "baseline", "report",
        ] {
            assert!(
                err.contains(&format!("\n  {command} "))
                    && err.contains(&format!("weakscan {command} ")),
                "{command}: {err}"
            );
        }
        assert!(err.lines().all(|l| l.chars().count() <= 80), "{err}");
    }
    let out = weakscan().args(["diff", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let examples = help.split_once("\nExamples:\n").expect(&help).1;
    assert_eq!(
        examples.matches("\n  weakscan diff ").count(),
        3,
        "{examples}"
    );
}

#[test]
fn bad_usage_exits_2() {
    weakscan()
        .args(["scan", "--by", "color", "x"])
        .assert()
        .code(2);
    weakscan().args(["diff", "only-one"]).assert().code(2);
    weakscan()
        .args(["scan", "--depth", "0", "x"])
        .assert()
        .code(2);
}

// ---- golden files: WEAKSCAN_BLESS=1 rewrites them ----

#[test]
fn golden_scan_table() {
    golden(
        "scan-app-default-chained-x86_64.txt",
        &["scan", "bin/app-default-chained-x86_64"],
    );
}

#[test]
fn golden_diff_json() {
    golden(
        "diff-v1-v2-opcodes-x86_64.json",
        &[
            "diff",
            "--format",
            "json",
            "--symbols",
            "bin/app-default-opcodes-x86_64",
            "bin/app-v2-default-opcodes-x86_64",
        ],
    );
}

#[test]
fn golden_diff_table_by_namespace() {
    golden(
        "diff-universal-namespace.txt",
        &[
            "diff",
            "--by",
            "namespace",
            "bin/app-default-chained-universal",
            "bin/app-v2-default-chained-universal",
        ],
    );
}

// ---- tables fitted to a width: golden files at 80 and 120 columns ----

/// The two widths every fitted golden file is written at.
const GOLDEN_WIDTHS: [u16; 2] = [80, 120];

/// `name` with `.wN` before its extension (`scan.txt` → `scan.w80.txt`).
fn at_width(name: &str, width: u16) -> String {
    let (stem, ext) = name.rsplit_once('.').unwrap();
    format!("{stem}.w{width}.{ext}")
}

/// Golden files of `args` (run in `testdata/`, exiting with `code`) at each of
/// [`GOLDEN_WIDTHS`]; each is also held to [`assert_fitted`].
fn golden_widths(name: &str, args: &[&str], code: i32, edit: fn(String) -> String) {
    let ids = identifiers_of(args);
    for width in GOLDEN_WIDTHS {
        let w = width.to_string();
        let mut fitted = args.to_vec();
        fitted.extend(["--width", &w]);
        assert_fitted(name, &stdout_of(&fitted), usize::from(width), &ids);
        golden_edited(&at_width(name, width), &fitted, code, edit);
    }
}

#[test]
fn golden_scan_fitted() {
    let args = ["scan", "bin/app-default-chained-x86_64"];
    golden_widths("scan-app-default-chained-x86_64.txt", &args, 0, |s| s);
}

#[test]
fn golden_diff_fitted() {
    let args = [
        "diff",
        "--symbols",
        "bin/app-default-chained-x86_64",
        "bin/app-v2-default-chained-x86_64",
    ];
    golden_widths("diff-v1-v2-chained-x86_64.txt", &args, 0, |s| s);
}

#[test]
fn golden_trend_fitted() {
    let args = [
        "trend",
        "--top",
        "3",
        "bin/app-default-chained-x86_64",
        "bin/app-default-chained-universal",
        "bin/app-v2-default-chained-x86_64",
        "bin/app-hidden-chained-x86_64",
    ];
    golden_widths("trend-fixtures.txt", &args, 0, |s| s);
}

#[test]
fn golden_diff_labelled_fitted() {
    let args = [
        "diff",
        "--label",
        "main",
        "--label",
        "pr-7",
        "bin/app-default-chained-x86_64",
        "bin/app-v2-default-chained-x86_64",
    ];
    golden_widths("diff-labelled.txt", &args, 0, |s| s);
    golden(
        "diff-labelled.md",
        &[&args[..], &["--format", "markdown"]].concat(),
    );
}

#[test]
fn golden_trend_labelled_fitted() {
    let args = [
        "trend",
        "--top",
        "2",
        "--label",
        "v1",
        "--label",
        "v2",
        "--label",
        "v3",
        "bin/app-default-chained-x86_64",
        "bin/app-v2-default-chained-x86_64",
        "bin/app-hidden-chained-x86_64",
    ];
    golden_widths("trend-labelled.txt", &args, 0, |s| s);
}

/// The process's problems name absolute paths (where dyld would look), which differ from one
/// checkout to the next and wrap differently: the golden file stops before them.
fn without_problems(text: String) -> String {
    match text.find("\n1 problem:\n") {
        Some(at) => text[..at + 1].to_string(),
        None => panic!("the problems of App.app are gone:\n{text}"),
    }
}

#[test]
fn golden_process_fitted() {
    let args = ["scan", "process/App.app"];
    golden_widths("process-app.txt", &args, 0, without_problems);
}

#[test]
fn golden_check_fitted() {
    let args = [
        "check",
        "--config",
        "../tests/golden/gate.toml",
        "bin/app-v2-default-chained-x86_64",
    ];
    golden_widths("check-fail.txt", &args, 1, |s| s);
    // Without a width, the output is the golden file of before.
    golden_exit("check-fail.txt", &args, 1);
}

/// Regression: `scan App.app` drew its image table 186 columns wide whatever the width.
#[test]
fn scan_of_an_app_bundle_fits_80_and_100_columns() {
    let ids = identifiers_of(&["scan", "process/App.app"]);
    for width in ["80", "100"] {
        let text = stdout_of(&["scan", "process/App.app", "--width", width]);
        assert_fitted("scan App.app", &text, width.parse().unwrap(), &ids);
        // Every image is named whole at least once (a part of the table has room for it).
        for image in [
            "Contents/Frameworks/libshared_a.dylib",
            "Contents/Frameworks/deps/libdeep.dylib",
        ] {
            assert!(text.contains(image), "{width}: {image}\n{text}");
        }
    }
}

/// Regression: `diff App.app App-v2.app` drew tables 180 columns wide at 120.
#[test]
fn diff_of_app_bundles_fits_120_columns() {
    let args = ["diff", "process/App.app", "process/App-v2.app"];
    let ids = identifiers_of(&args);
    for width in ["80", "120"] {
        let mut fitted = args.to_vec();
        fitted.extend(["--width", width]);
        let text = stdout_of(&fitted);
        assert_fitted(
            "diff App.app App-v2.app",
            &text,
            width.parse().unwrap(),
            &ids,
        );
        assert!(text.contains("added"), "{text}");
    }
}

// ---- universal files ----

#[test]
fn fat_magic_64_is_read() {
    // A FAT_MAGIC_64 file (goblin has none) around the two thin chained builds.
    let slices = [
        (
            0x0100_000cu32,
            0u32,
            std::fs::read(fixture("app-default-chained-arm64")).unwrap(),
        ),
        (
            0x0100_0007,
            3,
            std::fs::read(fixture("app-default-chained-x86_64")).unwrap(),
        ),
    ];
    let mut fat = vec![0xca, 0xfe, 0xba, 0xbf, 0, 0, 0, 2];
    let mut offset = 0x4000u64;
    let mut body = Vec::new();
    for (cputype, cpusubtype, bytes) in &slices {
        fat.extend(cputype.to_be_bytes());
        fat.extend(cpusubtype.to_be_bytes());
        fat.extend(offset.to_be_bytes());
        fat.extend((bytes.len() as u64).to_be_bytes());
        fat.extend(14u32.to_be_bytes());
        fat.extend(0u32.to_be_bytes());
        body.push((offset, bytes));
        offset = (offset + bytes.len() as u64).next_multiple_of(0x4000);
    }
    for (at, bytes) in body {
        fat.resize(at as usize, 0);
        fat.extend(bytes);
    }
    let f = temp_file(&fat);
    let doc = json(&["scan", "--format", "json", f.path().to_str().unwrap()]);
    let images = doc["images"].as_array().unwrap();
    assert_eq!(images.len(), 2);
    assert_eq!(images[0]["arch"], "arm64");
    assert_eq!(images[1]["arch"], "x86_64");
    for img in images {
        assert_eq!(img["weak_def_exports"], 36);
        assert_eq!(img["weak_bind_sites"], 44);
    }
}

#[test]
fn completions_cover_every_subcommand_and_parse() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = weakscan().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        for sub in [
            "scan",
            "diff",
            "verify",
            "check",
            "baseline",
            "trend",
            "bisect",
            "completions",
            "man",
            "schema",
        ] {
            assert!(text.contains(sub), "{shell} completion lacks {sub}");
        }
        assert!(text.contains("no-demangle"), "{shell}: global flags");
    }
    // The bash script is valid bash.
    let out = weakscan().args(["completions", "bash"]).output().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("weakscan.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    let status = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .status()
        .unwrap();
    assert!(status.success(), "bash -n rejects the completion script");
    // Loaded into bash, it completes subcommands and `schema`'s documents.
    let complete = |words: &str| {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source \"$1\"; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
                 COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}; \
                 _weakscan weakscan \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; echo \"${{COMPREPLY[*]}}\""
            ))
            .arg("bash")
            .arg(&script)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    assert_eq!(complete("weakscan sc"), "scan schema");
    assert!(complete("weakscan schema ''").contains("scan diff check verify baseline"));
}

#[test]
fn man_page_has_a_page_per_subcommand() {
    let out = weakscan().arg("man").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(".ie") || text.contains(".TH weakscan 1"),
        "{}",
        &text[..200]
    );
    for sub in [
        "scan", "diff", "verify", "check", "baseline", "trend", "bisect",
    ] {
        assert!(
            text.contains(&format!(".TH weakscan-{sub} 1")),
            "no page for {sub}"
        );
    }
    // -o writes the same bytes through the safe writer.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("weakscan.1");
    let written = weakscan().args(["man", "-o"]).arg(&path).output().unwrap();
    assert!(written.status.success());
    assert_eq!(std::fs::read(&path).unwrap(), text.as_bytes());
}

#[test]
fn regression_top_0_said_no_weak_symbols() {
    let f = fixture("app-default-chained-x86_64");
    let out = weakscan()
        .args(["scan", "--top", "0"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("no weak symbols"), "{text}");
    assert!(text.contains("weak-bound symbols"), "totals kept: {text}");
    assert!(
        text.contains("(0 of 10 groups shown; --top N to change)"),
        "{text}"
    );
    let v2 = fixture("app-v2-default-chained-x86_64");
    let out = weakscan()
        .args(["diff", "--top", "0"])
        .arg(&f)
        .arg(&v2)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("no group changed"), "{text}");
    assert!(text.contains("(0 of 1 changed group shown"), "{text}");
}

#[test]
fn errors_name_what_the_file_is() {
    let dir = tempfile::tempdir().unwrap();
    let mut pad = vec![0u8; 64];
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "elf",
            [b"\x7fELF\x02\x01\x01".as_slice(), &pad].concat(),
            "an ELF file",
        ),
        (
            "pe.exe",
            [b"MZ\x90\x00".as_slice(), &pad].concat(),
            "a PE/COFF file",
        ),
        (
            "x.gz",
            [b"\x1f\x8b\x08\x00".as_slice(), &pad].concat(),
            "a gzip file",
        ),
        (
            "x.zip",
            [b"PK\x03\x04".as_slice(), &pad].concat(),
            "a zip archive",
        ),
        (
            "Main.class",
            [b"\xca\xfe\xba\xbe\x00\x00\x00\x34".as_slice(), &pad].concat(),
            "a Java class file",
        ),
        (
            "i386",
            [b"\xce\xfa\xed\xfe".as_slice(), &pad].concat(),
            "32-bit Mach-O",
        ),
        (
            "notes.txt",
            b"just some notes\nmore text\n".to_vec(),
            "a text file, not a Mach-O binary",
        ),
    ];
    pad.clear();
    for (name, bytes, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = weakscan()
            .args(["scan", "--input-kind", "binary"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
    }
    // A log where verify needs the binary: the arguments swapped.
    let log = crate::util::testdata().join("logs/dyld4-macos14-opcodes.log");
    let bin = fixture("app-default-opcodes-x86_64");
    let out = weakscan()
        .arg("verify")
        .arg(&log)
        .arg(&bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("DYLD_PRINT_BINDINGS log") && err.contains("swapped"),
        "{err}"
    );
}

#[test]
fn regression_diff_of_builds_without_a_common_arch_passed_silently() {
    let x86 = fixture("app-default-chained-x86_64");
    let arm = fixture("app-default-opcodes-arm64");
    let out = weakscan().arg("diff").arg(&x86).arg(&arm).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no architecture in common")
            && err.contains("x86_64")
            && err.contains("arm64"),
        "{err}"
    );
    // --pair-arch says which slices to compare.
    let doc = json(&[
        "diff",
        "--format",
        "json",
        "--pair-arch",
        "x86_64=arm64",
        x86.to_str().unwrap(),
        arm.to_str().unwrap(),
    ]);
    assert_eq!(doc["old"][0]["arch"], "x86_64", "{doc}");
    assert_eq!(doc["new"][0]["arch"], "arm64", "{doc}");
    assert_eq!(
        doc["totals"].as_array().unwrap().len(),
        1,
        "one pair: {doc}"
    );
    // A slice the file does not have is named.
    let out = weakscan()
        .args(["diff", "--pair-arch", "x86_64=arm64e"])
        .arg(&x86)
        .arg(&arm)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no arm64e slice (it has arm64)"));
}

#[test]
fn tables_fit_the_width_asked_for() {
    let f = fixture("app-default-chained-x86_64");
    let v2 = fixture("app-v2-default-chained-x86_64");
    for (args, width) in [
        (vec!["scan", "--width", "80"], 80),
        (vec!["scan", "--width", "120", "--by", "symbol"], 120),
        (vec!["scan", "--width", "200"], 200),
        (vec!["diff", "--width", "80", "--symbols"], 80),
    ] {
        let mut cmd = weakscan();
        cmd.args(&args).arg(&f);
        if args[0] == "diff" {
            cmd.arg(&v2);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        // The example column goes first: shown only when every other column is whole.
        assert_eq!(text.contains("example"), width >= 200, "{args:?}: {text}");
        // Every line fits: tables, the story, notes and symbol lists.
        for line in text.lines() {
            let n = unicode_width::UnicodeWidthStr::width(line);
            assert!(n <= width, "{args:?}: {n} > {width}: {line}");
        }
    }
    // A table that fits is shown as it is: with COLUMNS wider than every table, full width.
    let out = weakscan().arg("scan").arg(&f).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l.chars().count() > 120));
}

/// Off a terminal the tables were drawn at full width (`diff` 219 columns, `scan` 276) and
/// `COLUMNS` was ignored: now `--width` wins, then `COLUMNS`, then 100; `--width 0` is no limit.
#[test]
fn regression_piped_output_had_no_width() {
    let f = fixture("app-default-chained-x86_64");
    let v2 = fixture("app-v2-default-chained-x86_64");
    let widest = |args: &[&str], columns: Option<&str>| -> usize {
        let mut cmd = weakscan();
        cmd.env_remove("COLUMNS").args(args).arg(&f);
        if args[0] == "diff" {
            cmd.arg(&v2);
        }
        if let Some(c) = columns {
            cmd.env("COLUMNS", c);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines()
            .map(unicode_width::UnicodeWidthStr::width)
            .max()
            .unwrap()
    };
    for command in ["scan", "diff"] {
        let piped = widest(&[command], None);
        assert!((81..=100).contains(&piped), "{command}: {piped}");
        assert!(widest(&[command], Some("80")) <= 80, "{command}");
        assert!(widest(&[command], Some(" 90 ")) <= 90, "{command}");
        // Not a number: the default.
        assert_eq!(widest(&[command], Some("wide")), piped, "{command}");
        assert!(
            widest(&[command, "--width", "120"], Some("80")) > 100,
            "{command}"
        );
        assert!(
            widest(&[command, "--width", "0"], Some("80")) > 200,
            "{command}"
        );
    }
    weakscan()
        .args(["scan", "--width", "39"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "39 is not 0 (no limit) nor at least 40",
        ));
}

/// `verify` and `check` tables, of a binary and of a process, fit the width too (their report
/// renders with the run's options, as scan's and diff's do).
#[test]
fn verify_and_check_tables_fit_the_width_asked_for() {
    let data = crate::util::testdata();
    let (app, app_v2) = (
        fixture("app-default-chained-x86_64"),
        fixture("app-v2-default-chained-x86_64"),
    );
    let log = data.join("logs/dyld4-macos15-chained.log");
    let bundle = data.join("process/App.app");
    let bundle_log = data.join("logs/dyld4-macos15-process-app.log");
    let gate = ["check", "--no-config", "--max-weak-bind-symbols", "1"];
    let cases: [(Vec<&str>, Vec<&std::path::PathBuf>); 4] = [
        (vec!["verify"], vec![&app, &log]),
        (vec!["verify"], vec![&bundle, &bundle_log]),
        (gate.to_vec(), vec![&app_v2]),
        (gate.to_vec(), vec![&app]),
    ];
    for (args, files) in cases {
        for width in [80, 100] {
            let out = weakscan()
                .args(&args)
                .args(files.iter().copied())
                .args(["--width", &width.to_string()])
                .output()
                .unwrap();
            assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            let table: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with(['│', '┌', '└', '╞', '├']))
                .collect();
            assert!(table.len() > 5, "{args:?}: {text}");
            for line in table {
                let n = line.chars().count();
                assert!(n <= width, "{args:?}: {n} > {width}: {line}");
            }
        }
    }
}

#[test]
fn golden_diff_markdown_for_a_pull_request_comment() {
    golden(
        "diff-v1-v2-chained-x86_64.md",
        &[
            "diff",
            "--format",
            "markdown",
            "bin/app-default-chained-x86_64",
            "bin/app-v2-default-chained-x86_64",
        ],
    );
}

/// `diff --format markdown --report-url`: the story (largest change, changed groups with their
/// objects, the fix), then the link, then the folded figures; `--format github` ends with one
/// line saying what changed and where the report is.
#[test]
fn diff_markdown_and_github_tell_what_changed_and_link_the_report() {
    let url = "https://example.com/report.html";
    let (v1, v2) = (
        fixture_str("app-default-chained-x86_64"),
        fixture_str("app-v2-default-chained-x86_64"),
    );
    let run = |format: &str| -> String {
        let out = weakscan()
            .env_remove("GITHUB_STEP_SUMMARY")
            .args(["diff", &v1, &v2, "--report-url", url, "--format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let md = run("markdown");
    let (story, details) = md.split_once("<details>").expect(&md);
    let at = |s: &str| story.find(s).unwrap_or_else(|| panic!("{s} in {story}"));
    assert!(at("Largest change:") < at("| template | lookups old → new | Δ lookups | from |"));
    assert!(at("| `descriptors_a.o` +1 more |") < at("**Fix:** compile `descriptors_a.o`"));
    assert!(at("**Fix:**") < at(&format!("[The HTML report](<{url}>)")));
    assert!(details.contains("| weak-def lookups | 83 | 143 | +60 (+72.3%) |"));
    let gh = run("github");
    assert_eq!(
        gh.lines().last().unwrap(),
        format!(
            "weakscan diff: weak-def lookups 83 → 143 (+60, +72%): about +59–178 µs at launch \
             (0.99–2.97 µs per lookup, measured in nodejs/node#56275); largest change: \
             v8::internal::StaticCallInterfaceDescriptor<…> +60, from descriptors_a.o and 1 more; \
             fix: compile descriptors_a.o with -fvisibility=hidden; report: {url}"
        )
    );
}

#[test]
fn golden_diff_github_annotations() {
    golden(
        "diff-v1-v2-chained-x86_64.github.txt",
        &[
            "diff",
            "--format",
            "github",
            "bin/app-default-chained-x86_64",
            "bin/app-v2-default-chained-x86_64",
        ],
    );
}

#[test]
fn golden_scan_markdown() {
    golden(
        "scan-app-default-chained-x86_64.md",
        &[
            "scan",
            "--format",
            "markdown",
            "--top",
            "3",
            "bin/app-default-chained-x86_64",
        ],
    );
}

#[test]
fn scan_and_diff_append_markdown_to_the_job_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let f = fixture("app-default-chained-x86_64");
    let v2 = fixture("app-v2-default-chained-x86_64");
    let out = weakscan()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["diff", "--format", "github"])
        .arg(&f)
        .arg(&v2)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("::warning title=weakscan diff::"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.starts_with("earlier step\n## weakscan diff: this change adds 60 weak-def lookups (83 → 143, +72.3%)"), "{text}");
    // verify has no Markdown: refused, exit 2, before reading anything.
    let out = weakscan()
        .args(["verify", "--format", "markdown"])
        .arg(&f)
        .arg(crate::util::testdata().join("logs/dyld4-macos14-chained.log"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Every `--flag` that README.md and docs/guide.md mention is one of weakscan's (in the help of
/// some subcommand), or one of the other tools they quote (cargo, llvm-objdump, dyld_info).
#[test]
fn every_flag_the_docs_mention_exists() {
    const OTHER_TOOLS: &[&str] = &[
        "--locked",
        "--path",
        "--release",
        "--macho",
        "--weak-bind",
        "--exports-trie",
        "--dyld-info",
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut help = String::new();
    let subcommands = [
        "scan",
        "diff",
        "verify",
        "check",
        "baseline",
        "trend",
        "bisect",
        "report",
        "hide",
        "schema",
        "completions",
        "man",
    ];
    for args in std::iter::once(vec!["--help"]).chain(subcommands.map(|c| vec![c, "--help"])) {
        let out = weakscan().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        help.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    let flag = regex::Regex::new(r"--[a-z][a-z0-9-]*").unwrap();
    let mut missing = std::collections::BTreeSet::new();
    for doc in ["README.md", "docs/guide.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for m in flag.find_iter(&text) {
            let f = m.as_str().trim_end_matches('-');
            let known = regex::Regex::new(&format!(r"{}\b", regex::escape(f))).unwrap();
            if !OTHER_TOOLS.contains(&f) && !known.is_match(&help) {
                missing.insert(format!("{doc}: {f}"));
            }
        }
    }
    assert!(missing.is_empty(), "flags in no --help: {missing:?}");
}

/// A name that cannot be demangled is shown raw and counted, with one wording in every format
/// ("1 symbol names" and "names … (shown raw)" were two wordings, one of them ungrammatical).
#[test]
fn names_shown_raw_are_noted_in_one_wording() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("raw.log");
    std::fs::write(
        &log,
        "dyld[1]: looking for weak-def symbol '__ZN2v8':\ndyld[1]:   using '__ZN2v8' in /x\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    for (format, prefix) in [("table", "note: "), ("markdown", "> note: ")] {
        let out = weakscan()
            .args(["scan", "--format", format, log])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let want = format!("{prefix}1 symbol name could not be demangled and is shown raw");
        assert_eq!(text.matches(&want).count(), 1, "{format}:\n{text}");
        assert!(text.contains("__ZN2v8"), "{format}:\n{text}");
    }
    let mut reasons = weakscan::analysis::demangle::FailureReasons::default();
    assert_eq!(
        weakscan::output::demangle_note(3, &reasons),
        "3 symbol names could not be demangled and are shown raw"
    );
    reasons.malformed = 2;
    reasons.too_long = 1;
    assert_eq!(
        weakscan::output::demangle_note(3, &reasons),
        "3 symbol names could not be demangled and are shown raw (2 malformed, 1 too long)"
    );
}

/// Regression: the terminal `diff` table of the groups that changed had no `from` column,
/// though the Markdown one has: fitted to 80 and 120 columns, it names each group's object.
#[test]
fn regression_terminal_diff_table_has_no_from_column() {
    let args = [
        "diff",
        "bin/app-default-chained-x86_64",
        "bin/app-v2-default-chained-x86_64",
    ];
    let ids = identifiers_of(&args);
    for width in [80usize, 120] {
        let w = width.to_string();
        let mut fitted = args.to_vec();
        fitted.extend(["--width", &w]);
        let text = stdout_of(&fitted);
        assert_fitted("diff", &text, width, &ids);
        let table = &text[text.find("│ template").expect("the group table")..];
        let table = &table[..table.find('└').unwrap()];
        let head = table.lines().next().unwrap();
        assert!(head.contains("┆ from "), "{width}: {head}\n{text}");
        let row = table
            .lines()
            .find(|l| l.contains("30 → 90"))
            .unwrap_or_else(|| panic!("{width}: no row\n{text}"));
        assert!(row.contains("┆ descriptors_a.o"), "{width}: {row}\n{text}");
    }
}

/// A regression's cost was never stated: headlines said `+60, +72%`, and the only time was what
/// the fix saves. Now diff's headline and a failing check give the change in estimated launch
/// time, with its range and source.
#[test]
fn regression_a_regressions_cost_in_launch_time_was_never_stated() {
    let (v1, v2) = (
        fixture_str("app-default-chained-x86_64"),
        fixture_str("app-v2-default-chained-x86_64"),
    );
    let source = "(0.99–2.97 µs per lookup, measured in nodejs/node#56275)";
    let out = weakscan()
        .args(["diff", &v1, &v2, "--width", "200"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let headline = text.lines().next().unwrap();
    assert!(
        headline.contains(&format!(
            "weak-def lookups 83 → 143 (+60, +72%): about +59–178 µs at launch {source}"
        )),
        "{headline}"
    );
    assert!(!text.contains("saves -"), "a double negative: {text}");
    for (args, cost) in [
        (
            vec!["--max-predicted-weak-lookups", "60"],
            "cost: 36 weak-def lookups over the maximum: about +36–107 µs at launch",
        ),
        (vec!["--max-weak-def-exports", "1"], ""),
    ] {
        let out = weakscan()
            .args(["check", "--no-config", &v2, "--width", "200"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8(out.stdout).unwrap();
        if cost.is_empty() {
            // No lookups budget failed and no baseline: no cost to state.
            assert!(!text.contains("cost:"), "{text}");
        } else {
            assert!(text.contains(&format!("{cost} {source}")), "{text}");
        }
    }
}

/// No colour on a terminal: now `--color auto` (the default) paints the verdict, failures,
/// increases and decreases when stdout is a terminal that takes colour (anstream's rules:
/// NO_COLOR, CLICOLOR_FORCE); `always` and `never` force it. Only table reports are painted.
#[test]
fn regression_there_was_no_colour_on_a_terminal() {
    let (v1, v2) = (
        fixture_str("app-default-chained-x86_64"),
        fixture_str("app-v2-default-chained-x86_64"),
    );
    let run = |args: &[&str], env: &[(&str, &str)]| -> String {
        let mut cmd = weakscan();
        cmd.env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CLICOLOR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.args(args).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {out:?}"
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let diff = ["diff", v1.as_str(), v2.as_str()];
    let check = [
        "check",
        "--no-config",
        v2.as_str(),
        "--max-weak-def-exports",
        "1",
    ];
    let esc = '\x1b';
    // Piped, auto: plain, as before.
    let piped = run(&diff, &[]);
    assert!(!piped.contains(esc));
    let painted = run(&[&diff[..], &["--color", "always"]].concat(), &[]);
    assert!(painted.contains("\x1b[31m+60\x1b[0m"), "{painted}");
    let failed = run(&[&check[..], &["--color", "always"]].concat(), &[]);
    assert!(
        failed.starts_with("\x1b[1m\x1b[31mweakscan check FAILED"),
        "{failed}"
    );
    // The text is the same, colour aside.
    let strip = |s: &str| {
        let mut out = String::new();
        let mut it = s.split(esc);
        out.push_str(it.next().unwrap());
        for part in it {
            out.push_str(&part[part.find('m').unwrap() + 1..]);
        }
        out
    };
    assert_eq!(strip(&painted), piped);
    // auto follows CLICOLOR_FORCE, never wins over it, and NO_COLOR turns auto off.
    assert!(run(&diff, &[("CLICOLOR_FORCE", "1")]).contains(esc));
    assert!(
        !run(
            &[&diff[..], &["--color", "never"]].concat(),
            &[("CLICOLOR_FORCE", "1")]
        )
        .contains(esc)
    );
    assert!(!run(&diff, &[("NO_COLOR", "1")]).contains(esc));
    // Other formats are never painted.
    for format in ["json", "markdown", "github"] {
        let out = run(
            &[&diff[..], &["--color", "always", "--format", format]].concat(),
            &[],
        );
        assert!(!out.contains(esc), "{format}");
    }
}
