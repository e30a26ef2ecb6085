//! `weakscan flags OLD NEW`: two compile databases compared, JSON or a ninja command dump,
//! generated in a temp dir and from the committed fixtures.

use crate::util::{testdata, weakscan};
use serde_json::Value;
use std::path::Path;

/// A compile_commands.json of `objects` (target, stem, visibility options).
fn database(dir: &Path, name: &str, objects: &[(&str, &str, &str)]) -> std::path::PathBuf {
    let entries: Vec<Value> = objects
        .iter()
        .map(|(target, stem, flags)| {
            let file = format!("../../src/{stem}.cc");
            let out = format!("obj/src/{target}.{stem}.o");
            serde_json::json!({
                "directory": "/b/out/Release",
                "file": file,
                "output": out,
                "command": format!("ccache clang++ -target arm64-apple-macos12 {flags} -c {file} -o {out}"),
            })
        })
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(&entries).unwrap()).unwrap();
    path
}

fn json(args: &[&Path]) -> Value {
    let out = weakscan()
        .arg("flags")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_target_that_lost_hidden_visibility_is_named_first() {
    let dir = tempfile::tempdir().unwrap();
    let old = database(
        dir.path(),
        "old.json",
        &[
            ("v8_base", "a", "-fvisibility=hidden"),
            (
                "v8_base",
                "b",
                "-fvisibility=hidden -fvisibility-inlines-hidden",
            ),
            ("uv", "c", "-fvisibility=hidden"),
            ("uv", "gone", ""),
        ],
    );
    let new = database(
        dir.path(),
        "new.json",
        &[
            ("v8_base", "a", ""),
            ("v8_base", "b", "-fvisibility-inlines-hidden"),
            ("uv", "c", "-Xarch_arm64 -fvisibility=hidden"),
            ("uv", "added", ""),
        ],
    );
    let doc = json(&[&old, &new]);
    assert_eq!(doc["command"], "flags");
    assert_eq!(doc["matched"], 3);
    assert_eq!(doc["changed"], 2);
    assert_eq!(doc["lost_hidden"], 2);
    assert_eq!(
        (doc["only_old"].clone(), doc["only_new"].clone()),
        (1.into(), 1.into())
    );
    let first = &doc["targets"][0];
    assert_eq!(first["target"], "v8_base");
    assert_eq!(first["changed"][0]["old_flags"], "-fvisibility=hidden");
    assert_eq!(first["changed"][0]["new_flags"], "(none)");
    assert_eq!(first["first_new_command"][0], "ccache");
    // The table names the target and shows the first changed command whole.
    let out = weakscan()
        .args(["--width", "80", "flags"])
        .args([&old, &new])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2 of 3 matched objects"), "{text}");
    assert!(
        text.contains("new command: ccache clang++ -target arm64-apple-macos12 -c ../../src/a.cc -o obj/src/v8_base.a.o"),
        "{text}"
    );
    // Markdown too.
    let out = weakscan()
        .args(["flags", "--format", "markdown"])
        .args([&old, &new])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("| v8_base | 2 | 2 | 2 |")
    );
}

#[test]
fn a_ninja_dump_gives_the_same_answer_as_its_database() {
    let dir = tempfile::tempdir().unwrap();
    let old = database(
        dir.path(),
        "old.json",
        &[("base", "a", "-fvisibility=hidden")],
    );
    let dump = dir.path().join("new.txt");
    std::fs::write(
        &dump,
        "ninja: Entering directory `out/Release'\n\
         [1/2] env CCACHE_DIR=/c ccache clang++ -target arm64-apple-macos12 -c ../../src/a.cc -o obj/src/base.a.o\n\
         [2/2] clang++ -o app obj/src/base.a.o\n",
    )
    .unwrap();
    let doc = json(&[&old, &dump]);
    assert_eq!(doc["matched"], 1);
    assert_eq!(doc["lost_hidden"], 1);
    assert_eq!(doc["new_other_lines"], 2);
    assert_eq!(doc["targets"][0]["target"], "base");
}

#[test]
fn committed_fixture_databases_compare() {
    let dir = tempfile::tempdir().unwrap();
    let attr = testdata().join("attr/compile_commands.json");
    // The same database with one object's -fvisibility=default dropped and hidden added.
    let text = std::fs::read_to_string(&attr).unwrap();
    let edited = text.replacen("\"-fvisibility=default\"", "\"-fvisibility=hidden\"", 1);
    assert_ne!(text, edited);
    let new = dir.path().join("new.json");
    std::fs::write(&new, edited).unwrap();
    let doc = json(&[&attr, &new]);
    assert_eq!(doc["changed"], 1);
    assert_eq!(doc["gained_hidden"], 1);
    let plan = testdata().join("plan/flags-compile_commands.json");
    let doc = json(&[&attr, &plan]);
    assert_eq!(doc["matched"], 0);
}

#[test]
fn bad_databases_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = database(dir.path(), "good.json", &[("t", "a", "")]);
    let cases: &[(&str, &[u8], &str)] = &[
        ("trunc.json", b"[{\"directory\":", "not JSON"),
        ("quote.txt", b"cc -c a.c\ncc -c 'b.c\n", "line 2"),
        ("bin.txt", b"cc -c a.c\n\xff\xfe\n", "line 2: not UTF-8"),
    ];
    for (name, bytes, want) in cases {
        let bad = dir.path().join(name);
        std::fs::write(&bad, bytes).unwrap();
        let out = weakscan()
            .arg("flags")
            .args([&good, &bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{name}: {err}");
    }
    let out = weakscan()
        .arg("flags")
        .args([&good, &dir.path().join("missing.json")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
