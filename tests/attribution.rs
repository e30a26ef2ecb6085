//! Attribution (issue 11): the debug map, `--by library|object|source`, compile commands, and
//! their bad inputs, on the fixtures of `testdata/attr/` (built by `testdata/build.sh`).

use crate::util::{fails_with, fixture, json, testdata, weakscan};

/// One test per case.
fn attr(name: &str) -> String {
    testdata().join("attr").join(name).display().to_string()
}

fn bin(name: &str) -> String {
    fixture(name).display().to_string()
}

/// (key, weak-bound symbols) of each group of `scan --by BY` of `file`.
fn groups(file: &str, by: &str) -> Vec<(String, u64)> {
    let doc = json(&["scan", "--format", "json", "--by", by, file]);
    doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["key"].as_str().unwrap().to_string(),
                g["weak_bound_symbols"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn by_library_object_and_source_from_the_debug_map() {
    let f = bin("app-attr-x86_64");
    assert_eq!(
        groups(&f, "library"),
        [
            ("(defined in another image)".to_string(), 3),
            ("libdescriptors_a.a".to_string(), 15),
            ("main.o".to_string(), 5),
        ]
    );
    assert_eq!(
        groups(&f, "object")[1],
        ("libdescriptors_a.a(descriptors_a.o)".to_string(), 15)
    );
    assert_eq!(
        groups(&f, "source")[1],
        ("descriptors_a.cc".to_string(), 15)
    );
    let doc = json(&["scan", "--format", "json", &f]);
    let a = &doc["images"][0]["attribution"];
    assert_eq!(a["source"], "debug_map");
    assert_eq!(a["objects"], 3);
    assert_eq!(a["weak_bound_attributed"], 20);
    // The template table names where each group comes from.
    let g = &doc["groups"][0];
    assert_eq!(g["key"], "v8::internal::StaticCallInterfaceDescriptor<…>");
    assert_eq!(g["from"]["object"], "libdescriptors_a.a(descriptors_a.o)");
    assert_eq!(g["from"]["objects"], 1);
}

#[test]
fn stripped_binary_has_the_same_figures_and_says_attribution_is_unavailable() {
    let full = json(&["scan", "--format", "json", &bin("app-attr-x86_64")]);
    let stripped = json(&["scan", "--format", "json", &bin("app-attr-x86_64-stripped")]);
    for f in [
        "weak_def_exports",
        "weak_bind_sites",
        "weak_bind_symbols",
        "predicted_weak_lookups",
    ] {
        assert_eq!(full["images"][0][f], stripped["images"][0][f], "{f}");
    }
    assert!(stripped["images"][0]["attribution"].is_null());
    let out = weakscan()
        .args(["scan", &bin("app-attr-x86_64-stripped")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("none: no debug map (stripped)"), "{text}");
    assert_eq!(
        groups(&bin("app-attr-x86_64-stripped"), "library")[0].0,
        "(no attribution)"
    );
}

#[test]
fn compile_commands_name_the_leaking_translation_unit() {
    let doc = json(&[
        "scan",
        "--format",
        "json",
        "--compile-commands",
        &attr("compile_commands.json"),
        &bin("app-attr-x86_64"),
    ]);
    let v = &doc["compile_commands"][0];
    let first = &v["objects"][0];
    assert_eq!(first["object"], "libdescriptors_a.a(descriptors_a.o)");
    assert_eq!(first["weak_bound_symbols"], 15);
    assert_eq!(first["compiled"]["status"], "found");
    assert_eq!(first["compiled"]["visibility"], "default");
    assert_eq!(first["compiled"]["hidden"], false);
    assert_eq!(first["compiled"]["file"], "../src/descriptors_a.cc");
    // descriptors_b.o is compiled hidden: it leaks nothing, so it is not listed.
    let objects: Vec<&str> = v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["object"].as_str().unwrap())
        .collect();
    assert!(
        !objects.iter().any(|o| o.contains("descriptors_b")),
        "{objects:?}"
    );
    let out = weakscan()
        .args([
            "scan",
            "--compile-commands",
            &attr("compile_commands.json"),
            &bin("app-attr-x86_64"),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "fix: 15 lookups from descriptors_a.cc, compiled without -fvisibility=hidden"
        ),
        "{text}"
    );
}

#[test]
fn a_policy_can_budget_a_library() {
    let out = weakscan()
        .args([
            "check",
            "--by",
            "library",
            "--group",
            "libdescriptors_*.a=0",
            &bin("app-attr-x86_64"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("libdescriptors_a.a"), "{text}");
}

#[test]
fn bad_compile_databases_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let f = bin("app-attr-x86_64");
    let not_json = write("a.json", "{ not json");
    fails_with(&["scan", "--compile-commands", &not_json, &f], "not JSON");
    let no_file = write("b.json", r#"[{"directory": "/", "command": "cc -c x.c"}]"#);
    fails_with(&["scan", "--compile-commands", &no_file, &f], "entry 0");
    let missing = dir.path().join("missing.json").display().to_string();
    fails_with(
        &["scan", "--compile-commands", &missing, &f],
        "missing.json",
    );
}

#[test]
fn a_link_map_attributes_a_stripped_binary_like_its_debug_map() {
    let stripped = bin("app-attr-x86_64-stripped");
    let map = attr("app-attr-x86_64.map");
    let by_map = json(&[
        "scan", "--format", "json", "--by", "library", "--map", &map, &stripped,
    ]);
    assert_eq!(by_map["images"][0]["attribution"]["source"], "link_map");
    assert_eq!(
        groups(&bin("app-attr-x86_64"), "library"),
        by_map["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (
                g["key"].as_str().unwrap().to_string(),
                g["weak_bound_symbols"].as_u64().unwrap()
            ))
            .filter(|(k, _)| !k.starts_with("(defined here"))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_dsym_attributes_weak_definitions_to_compile_units() {
    let stripped = bin("app-attr-x86_64-stripped");
    let dsym = attr("app-attr-x86_64.dSYM");
    let doc = json(&[
        "scan", "--format", "json", "--by", "source", "--dsym", &dsym, &stripped,
    ]);
    assert_eq!(doc["images"][0]["attribution"]["source"], "dsym");
    let keys: Vec<&str> = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert!(
        keys.contains(&"descriptors_a.cc") && keys.contains(&"main.cc"),
        "{keys:?}"
    );
    // A dSYM of another binary is refused, naming both UUIDs.
    fails_with(
        &["scan", "--dsym", &dsym, &bin("app-default-chained-x86_64")],
        "does not match the binary's UUID",
    );
}

/// `diff` of stripped builds: each side takes its own `--old-dsym`/`--new-dsym` or
/// `--old-map`/`--new-map`, and `--compile-commands` joins the new build's objects for the fix.
#[test]
fn diff_attributes_each_side_with_its_own_dsym_or_map() {
    let stripped = bin("app-attr-x86_64-stripped");
    let (dsym, map) = (attr("app-attr-x86_64.dSYM"), attr("app-attr-x86_64.map"));
    let source =
        |doc: &serde_json::Value, side: &str| doc[side][0]["attribution"]["source"].clone();
    // The new side only: the old build stays unattributed.
    let doc = json(&[
        "diff",
        "--format",
        "json",
        "--new-dsym",
        &dsym,
        &stripped,
        &stripped,
    ]);
    assert_eq!(source(&doc, "old"), serde_json::Value::Null);
    assert_eq!(source(&doc, "new"), "dsym");
    // Each side its own file, of either kind.
    let doc = json(&[
        "diff",
        "--format",
        "json",
        "--by",
        "library",
        "--old-map",
        &map,
        "--new-dsym",
        &dsym,
        &stripped,
        &stripped,
    ]);
    assert_eq!(
        (source(&doc, "old"), source(&doc, "new")),
        ("link_map".into(), "dsym".into())
    );
    // The compile database names the leaking translation unit in the fix.
    let out = weakscan()
        .args([
            "diff",
            &bin("app-default-chained-x86_64"),
            &stripped,
            "--new-dsym",
            &dsym,
        ])
        .args(["--compile-commands", &attr("compile_commands.json")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let fix: Vec<&str> = text.lines().skip(1).take(3).collect();
    assert!(
        fix[0].starts_with("fix what remains: compile descriptors_a.cc"),
        "{text}"
    );
    // The figure is at most: the definers were not read.
    assert!(fix[1].trim().starts_with("at most: "), "{text}");
    assert_eq!(
        fix[2].trim(),
        "descriptors_a.cc compiles with default visibility (compile database)",
        "{text}"
    );
    let doc = json(&[
        "diff",
        "--format",
        "json",
        &bin("app-default-chained-x86_64"),
        &stripped,
        "--new-dsym",
        &dsym,
        "--compile-commands",
        &attr("compile_commands.json"),
    ]);
    assert_eq!(doc["compile_commands"][0]["path"], stripped.as_str());
    // A dSYM given for the wrong side, both kinds for one side, a process, a log.
    fails_with(
        &[
            "diff",
            "--old-dsym",
            &dsym,
            &bin("app-default-chained-x86_64"),
            &stripped,
        ],
        "does not match the binary's UUID",
    );
    fails_with(
        &[
            "diff",
            "--new-dsym",
            &dsym,
            "--new-map",
            &map,
            &stripped,
            &stripped,
        ],
        "cannot be used with",
    );
    fails_with(
        &["diff", "--process", "--new-map", &map, &stripped, &stripped],
        "not a whole process",
    );
    let log = testdata().join("logs/dyld4-macos15-chained.log");
    fails_with(
        &["diff", "--old-map", &map, log.to_str().unwrap(), &stripped],
        "is a dyld log",
    );
}

#[test]
fn bad_attribution_files_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = bin("app-attr-x86_64-stripped");
    let bad_map = dir.path().join("bad.map");
    std::fs::write(
        &bad_map,
        "# Path: x\n# Object files:\n[  0] linker synthesized\n[ 7] oops\n",
    )
    .unwrap();
    fails_with(
        &["scan", "--map", bad_map.to_str().unwrap(), &f],
        "bad.map:4",
    );
    let arm = dir.path().join("arm.map");
    std::fs::write(
        &arm,
        "# Path: x\n# Arch: arm64\n# Object files:\n[  0] linker synthesized\n",
    )
    .unwrap();
    fails_with(
        &["scan", "--map", arm.to_str().unwrap(), &f],
        "link map of arm64",
    );
    fails_with(
        &["scan", "--map", &attr("app-attr-x86_64.map"), &f, &f],
        "describe one binary",
    );
    let garbage = dir.path().join("x.dSYM");
    std::fs::write(&garbage, b"not a dwarf file").unwrap();
    fails_with(&["scan", "--dsym", garbage.to_str().unwrap(), &f], "x.dSYM");
}

/// The raw names of `file`'s weak definitions (from its baseline).
fn weak_definitions(file: &str) -> std::collections::BTreeSet<String> {
    let out = weakscan()
        .args(["baseline", "-o", "-", file])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    crate::util::baseline_names(&doc, 0, "weak_defs")
        .into_iter()
        .collect()
}

#[test]
fn objects_and_archives_predict_the_linked_weak_definitions() {
    // app-attr-x86_64 is linked from exactly these three inputs.
    let mut predicted = weak_definitions(&attr("main.o"));
    predicted.extend(weak_definitions(&attr("libdescriptors_a.a")));
    let hidden = weak_definitions(&attr("descriptors_b-hidden.o"));
    assert!(
        hidden.is_empty(),
        "a -fvisibility=hidden object exports {hidden:?}"
    );
    let linked = weak_definitions(&bin("app-attr-x86_64"));
    assert_eq!(predicted, linked, "the prediction is the linked export set");
    // Figures an object cannot give are absent, not zero; each symbol names its member.
    let doc = json(&[
        "scan",
        "--format",
        "json",
        "--by",
        "object",
        &attr("libdescriptors_a.a"),
    ]);
    let img = &doc["images"][0];
    assert_eq!(img["input_kind"], "object");
    assert_eq!(img["filetype"], "MH_OBJECT");
    assert!(img["predicted_weak_lookups"].is_null() && img["weak_bind_symbols"].is_null());
    assert_eq!(
        doc["groups"][0]["key"],
        "libdescriptors_a.a(descriptors_a.o)"
    );
    assert_eq!(doc["groups"][0]["weak_def_exports"], 17);
}

#[test]
fn a_gate_runs_on_a_library_before_linking() {
    let out = weakscan()
        .args([
            "check",
            &attr("libdescriptors_a.a"),
            "--max-weak-def-exports",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = weakscan()
        .args([
            "check",
            &attr("descriptors_b-hidden.o"),
            "--max-weak-def-exports",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn archives_that_lie_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let lib = std::fs::read(attr("libdescriptors_a.a")).unwrap();
    // A member header whose size runs past the end of the file.
    let mut lying = lib.clone();
    let size_field = 8 + 48;
    lying[size_field..size_field + 10].copy_from_slice(b"9999999999");
    let p = dir.path().join("lying.a");
    std::fs::write(&p, &lying).unwrap();
    fails_with(&["scan", p.to_str().unwrap()], "lying.a");
    // A member that is not a Mach-O object.
    let mut text = b"!<arch>\n".to_vec();
    text.extend_from_slice(
        format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            "x.o/", 0, 0, 0, 644, 40
        )
        .as_bytes(),
    );
    text.extend_from_slice(&b"notmacho".repeat(5));
    let p = dir.path().join("text.a");
    std::fs::write(&p, &text).unwrap();
    fails_with(
        &["scan", p.to_str().unwrap()],
        "text.a(x.o): not a 64-bit little-endian Mach-O object",
    );
    // --arch naming no slice.
    fails_with(
        &["scan", "--arch", "arm64", &attr("libdescriptors_a.a")],
        "no arm64 slice",
    );
}

#[test]
fn a_policy_file_groups_by_library() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("weakscan.toml");
    std::fs::write(
        &policy,
        "[grouping]\nby = \"library\"\n\n[groups]\n\"libdescriptors_*.a\" = 15\n\"main.o\" = 4\n",
    )
    .unwrap();
    let out = weakscan()
        .args(["check", "--format", "json", "--config"])
        .arg(&policy)
        .arg(bin("app-attr-x86_64"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let budgets: Vec<(String, u64, bool)> = doc["images"][0]["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["pattern"].as_str().unwrap_or_default().to_string(),
                b["value"].as_u64().unwrap(),
                b["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    // libdescriptors_a.a holds 15 (within 15), main.o 5 (over 4).
    assert_eq!(
        budgets,
        [
            ("libdescriptors_*.a".to_string(), 15, true),
            ("main.o".to_string(), 5, false)
        ]
    );
}

/// The fixture's database with descriptors_a's entry (the leaking translation unit) given
/// `args` after `clang++`, written into `dir`; returns its path.
fn db_with_descriptors_a(dir: &std::path::Path, args: &[&str]) -> String {
    let text = std::fs::read_to_string(attr("compile_commands.json")).unwrap();
    let mut db: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut argv = vec!["clang++".to_string()];
    argv.extend(args.iter().map(|s| s.to_string()));
    argv.extend(
        [
            "-c",
            "../src/descriptors_a.cc",
            "-o",
            "obj/attr/descriptors_a.o",
        ]
        .map(String::from),
    );
    db[1]["arguments"] = serde_json::json!(argv);
    db[1]["directory"] = serde_json::json!(dir.display().to_string());
    let path = dir.join("compile_commands.json");
    std::fs::write(&path, db.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn regression_hidden_as_an_option_value_or_input_hid_a_leaking_translation_unit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hidden.rsp"), "-fvisibility=hidden").unwrap();
    // (extra arguments, status, visibility, table text)
    let cases: &[(&[&str], &str, Option<&str>, &str)] = &[
        (&["-fvisibility=hidden"], "found", Some("hidden"), ""),
        (
            &["-D", "-fvisibility=hidden"],
            "found",
            None,
            "default visibility",
        ),
        (
            &["-MF", "-fvisibility=hidden"],
            "found",
            None,
            "default visibility",
        ),
        (
            &["--", "-fvisibility=hidden"],
            "found",
            None,
            "default visibility",
        ),
        (&["@hidden.rsp"], "found", Some("hidden"), ""),
        (
            &["@missing.rsp"],
            "unknown",
            None,
            "unknown (response file @missing.rsp: ",
        ),
        (
            &["-fvisibility=hid\0den"],
            "unknown",
            None,
            "unknown (an argument holds a NUL character)",
        ),
    ];
    for (args, status, visibility, text) in cases {
        let db = db_with_descriptors_a(dir.path(), args);
        let doc = json(&[
            "scan",
            "--format",
            "json",
            "--compile-commands",
            &db,
            &bin("app-attr-x86_64"),
        ]);
        let objects = doc["compile_commands"][0]["objects"].as_array().unwrap();
        let a = objects
            .iter()
            .find(|o| o["object"] == "libdescriptors_a.a(descriptors_a.o)")
            .unwrap_or_else(|| panic!("{args:?}: {objects:?}"));
        assert_eq!(a["compiled"]["status"], *status, "{args:?}");
        assert_eq!(
            a["compiled"]["visibility"].as_str(),
            *visibility,
            "{args:?}"
        );
        let out = weakscan()
            .args(["scan", "--compile-commands", &db, &bin("app-attr-x86_64")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        let table = String::from_utf8_lossy(&out.stdout);
        assert!(table.contains(text), "{args:?}: {table}");
        assert!(!table.contains("\\x00"), "{args:?}: {table}");
        if *status == "unknown" {
            assert!(
                table.contains(
                    "1 object has no unique entry in the compile database or an unknown visibility"
                ),
                "{args:?}: {table}"
            );
            assert!(!table.contains("fix: 15 lookups"), "{args:?}: {table}");
        }
    }
}

// Regression (hostile-input campaign): `-Xarch_x86_64 -fvisibility=hidden` was read as the
// value of `-Xarch_x86_64`, so an x86_64 translation unit clang compiled hidden was reported as
// leaking with default visibility. clang's driver applies the option when compiling for x86_64
// only (`ToolChain::TranslateXarchArgs`; clang-22 `-###` agrees).
#[test]
fn regression_an_xarch_visibility_option_was_read_as_default() {
    let dir = tempfile::tempdir().unwrap();
    // (extra arguments, visibility of the x86_64 fixture's translation unit)
    let cases: &[(&[&str], Option<&str>)] = &[
        (&["-Xarch_x86_64", "-fvisibility=hidden"], Some("hidden")),
        (&["-Xarch_arm64", "-fvisibility=hidden"], None),
        (&["-Xarch_x86_64h", "-fvisibility=hidden"], None),
        (&["-Xarch_host", "-fvisibility=hidden"], Some("hidden")),
        (&["-Xarch_device", "-fvisibility=hidden"], None),
        (
            &[
                "-fvisibility=hidden",
                "-Xarch_x86_64",
                "-fvisibility=default",
            ],
            Some("default"),
        ),
    ];
    for (args, visibility) in cases {
        let db = db_with_descriptors_a(dir.path(), args);
        let doc = json(&[
            "scan",
            "--format",
            "json",
            "--compile-commands",
            &db,
            &bin("app-attr-x86_64"),
        ]);
        let objects = doc["compile_commands"][0]["objects"].as_array().unwrap();
        let a = objects
            .iter()
            .find(|o| o["object"] == "libdescriptors_a.a(descriptors_a.o)")
            .unwrap_or_else(|| panic!("{args:?}: {objects:?}"));
        assert_eq!(a["compiled"]["status"], "found", "{args:?}");
        assert_eq!(
            a["compiled"]["visibility"].as_str(),
            *visibility,
            "{args:?}"
        );
        assert_eq!(
            a["compiled"]["hidden"],
            *visibility == Some("hidden"),
            "{args:?}"
        );
    }
}

// Regression (hostile-input campaign): a newline in a `command` was taken for the end of a shell
// command, so the options after it were dropped and a translation unit compiled with
// `-fvisibility=hidden` was reported with default visibility. The format has no shell
// features: a newline separates arguments, as a space does.
#[test]
fn regression_a_newline_in_a_command_dropped_the_options_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(attr("compile_commands.json")).unwrap();
    let mut db: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entry = db[1].as_object_mut().unwrap();
    entry.remove("arguments");
    entry.insert(
        "command".into(),
        serde_json::json!(
            "clang++ -c ../src/descriptors_a.cc -o obj/attr/descriptors_a.o\n-fvisibility=hidden"
        ),
    );
    entry.insert(
        "directory".into(),
        serde_json::json!(dir.path().display().to_string()),
    );
    let path = dir.path().join("compile_commands.json");
    std::fs::write(&path, db.to_string()).unwrap();
    let doc = json(&[
        "scan",
        "--format",
        "json",
        "--compile-commands",
        &path.display().to_string(),
        &bin("app-attr-x86_64"),
    ]);
    let objects = doc["compile_commands"][0]["objects"].as_array().unwrap();
    let a = objects
        .iter()
        .find(|o| o["object"] == "libdescriptors_a.a(descriptors_a.o)")
        .unwrap_or_else(|| panic!("{objects:?}"));
    assert_eq!(a["compiled"]["status"], "found");
    assert_eq!(a["compiled"]["visibility"], "hidden");
    assert_eq!(a["compiled"]["hidden"], true);
}
