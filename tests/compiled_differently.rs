//! `diff --old-compile-commands A --new-compile-commands B`: the section "compiled
//! differently" on the flags program of `testdata/plan` (libinl.a, libmarked.a, libnsl.a),
//! with B its committed database and A a copy written in a temp dir where libinl.a still
//! compiled with `-fvisibility=hidden` and libmarked.a without it.

use crate::util::{fails_with, testdata, weakscan};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn plan(name: &str) -> String {
    testdata().join("plan").join(name).display().to_string()
}

/// The new build's database (B).
fn new_db() -> String {
    plan("flags-compile_commands.json")
}

/// A: B with libinl.a's object hidden, libmarked.a's not, libnsl.a's without
/// `-fno-visibility-inlines-hidden-static-local-var`, or its entry left out when `drop_nsl`.
fn old_db(dir: &Path, drop_nsl: bool) -> PathBuf {
    let text = std::fs::read_to_string(new_db()).unwrap();
    let mut entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    entries.retain(|e| !(drop_nsl && e["file"] == "src/plan/nsl.cc"));
    for e in &mut entries {
        let file = e["file"].as_str().unwrap_or_default().to_owned();
        let Some(args) = e["arguments"].as_array_mut() else {
            continue;
        };
        if file == "src/plan/inl.cc" {
            args.insert(3, "-fvisibility=hidden".into());
        }
        if file == "src/plan/marked.cc" {
            args.retain(|a| a != "-fvisibility=hidden");
        }
        if file == "src/plan/nsl.cc" {
            args.retain(|a| a != "-fno-visibility-inlines-hidden-static-local-var");
        }
    }
    let path = dir.join(if drop_nsl { "A-nsl.json" } else { "A.json" });
    std::fs::write(&path, serde_json::to_string_pretty(&entries).unwrap()).unwrap();
    path
}

/// The old build: libinl.a rebuilt hidden (12 lookups fewer); the new one: the program.
fn diff_args<'a>(old_db: &'a str, format: &'a str, extra: &[&'a str]) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "diff".into(),
        plan("flags-chained-arm64.libinl.hidden"),
        plan("flags-chained-arm64"),
        "--old-compile-commands".into(),
        old_db.into(),
        "--format".into(),
        format.into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn run(args: &[String]) -> String {
    let out = weakscan().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_library_that_lost_hidden_visibility_leads_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let a = old_db(dir.path(), false);
    let a = a.to_str().unwrap();
    let b = new_db();
    let doc: Value =
        serde_json::from_str(&run(&diff_args(a, "json", &["--new-compile-commands", &b]))).unwrap();
    let c = &doc["compiled_differently"][0];
    assert_eq!(c["arch"], "arm64");
    assert_eq!(
        [
            &c["objects"],
            &c["not_in_new"],
            &c["not_in_old"],
            &c["unknown"]
        ],
        [4, 0, 0, 0]
    );
    let libs = c["libraries"].as_array().unwrap();
    assert_eq!(libs.len(), 3, "{libs:#?}");
    let inl = &libs[0];
    assert_eq!(inl["library"], "libinl.a");
    assert_eq!(
        [
            &inl["lost_hidden"],
            &inl["gained_hidden"],
            &inl["other"],
            &inl["weak_bound_symbols"],
            &inl["lookups"],
            &inl["lookups_lost_hidden"]
        ],
        [1, 0, 0, 12, 12, 12]
    );
    assert_eq!(inl["first_object"], "libinl.a(inl.o)");
    assert_eq!(
        inl["old_options"],
        "-fvisibility=hidden -fvisibility-inlines-hidden"
    );
    assert_eq!(inl["new_options"], "-fvisibility-inlines-hidden");
    let nsl = &libs[1];
    assert_eq!(nsl["library"], "libnsl.a");
    assert_eq!(
        [
            &nsl["lost_hidden"],
            &nsl["gained_hidden"],
            &nsl["other"],
            &nsl["lookups"]
        ],
        [0, 0, 1, 12]
    );
    assert_eq!(
        nsl["old_options"], "(none)",
        "-fvisibility-inlines-hidden-static-local-var is clang's Darwin default"
    );
    assert_eq!(
        nsl["new_options"],
        "-fno-visibility-inlines-hidden-static-local-var"
    );
    let marked = &libs[2];
    assert_eq!(marked["library"], "libmarked.a");
    assert_eq!(
        [
            &marked["lost_hidden"],
            &marked["gained_hidden"],
            &marked["lookups"]
        ],
        [0, 1, 9]
    );
    // The lookups equal the binaries' growth (libinl.a hidden in the old build), and each
    // library's those of a scan of the new build by library (all its objects changed).
    let growth = doc["totals"][0]["delta"]["lookups"].as_i64().unwrap();
    assert_eq!(growth, 12);
    let by_library = crate::util::json(&[
        "scan",
        &plan("flags-chained-arm64"),
        "--by",
        "library",
        "--format",
        "json",
    ]);
    for lib in libs {
        let group = by_library["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["key"] == lib["library"])
            .unwrap();
        assert_eq!(group["lookups"], lib["lookups"], "{lib}");
        assert_eq!(
            group["weak_bound_symbols"], lib["weak_bound_symbols"],
            "{lib}"
        );
    }

    // The table, fitted to 80 columns: the headline's cause and the fix name the library;
    // --compile-commands is --new-compile-commands.
    let text = run(&diff_args(
        a,
        "table",
        &["--compile-commands", &b, "--width", "80"],
    ));
    let cause = "cause: libinl.a: 1 object compiles without -fvisibility=hidden since \
                 flags-chained-arm64; it brings +12 lookups (inl.o 12)";
    let fix = "fix: compile libinl.a with -fvisibility=hidden again: it brought inl::Box<…> +12";
    let joined = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    assert!(joined.contains(cause), "{text}");
    assert!(joined.contains(fix), "{text}");
    assert!(text.contains("│ compiled "), "{text}");
    let row = |lib: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("│ {lib} ")))
            .unwrap_or_else(|| panic!("no row of {lib}:\n{text}"));
        line.split(['│', '┆'])
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(row("libinl.a"), ["libinl.a", "1", "0", "0", "12", "12"]);
    assert_eq!(row("libmarked.a"), ["libmarked.a", "0", "1", "0", "9", "9"]);
    assert_eq!(row("libnsl.a"), ["libnsl.a", "0", "0", "1", "12", "12"]);
    assert!(
        joined.contains("libinl.a(inl.o): -fvisibility=hidden -fvisibility-inlines-hidden → -fvisibility-inlines-hidden"),
        "{text}"
    );
    for line in text.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 80,
            "wider than 80 columns: {line}\n{text}"
        );
    }
    let md = run(&diff_args(a, "markdown", &["--new-compile-commands", &b]));
    assert!(
        md.contains("**Cause:** `libinl.a`: 1 object compiles without `-fvisibility=hidden` since `flags-chained-arm64`; it brings +12 lookups (`inl.o` 12)."),
        "{md}"
    );
    assert!(
        md.contains("**Fix:** compile `libinl.a` with `-fvisibility=hidden` again: it brought `inl::Box<…>` +12"),
        "{md}"
    );
    assert!(
        md.contains("| `libinl.a` | 1 | 0 | 0 | 12 | 12 | `libinl.a(inl.o)`:"),
        "{md}"
    );
}

#[test]
fn objects_without_an_old_entry_are_counted_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    let a = old_db(dir.path(), true);
    let b = new_db();
    let args = diff_args(a.to_str().unwrap(), "json", &["--new-compile-commands", &b]);
    let doc: Value = serde_json::from_str(&run(&args)).unwrap();
    let c = &doc["compiled_differently"][0];
    assert_eq!([&c["objects"], &c["not_in_old"]], [4, 1]);
    let args = diff_args(
        a.to_str().unwrap(),
        "table",
        &["--new-compile-commands", &b],
    );
    let text = run(&args);
    assert!(
        text.contains("not compared, of 4 objects: 1 with no entry in the old database"),
        "{text}"
    );
}

/// A in the form of a command dump (`ninja -n --verbose`) gives the same section.
#[test]
fn a_command_dump_gives_the_same_section() {
    let dir = tempfile::tempdir().unwrap();
    let a = old_db(dir.path(), false);
    let entries: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let mut dump = String::from("ninja: Entering directory `/weakscan/testdata'\n");
    for e in &entries {
        let cmd = match e["arguments"].as_array() {
            Some(args) => args
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(" "),
            None => e["command"].as_str().unwrap().to_owned(),
        };
        dump.push_str(&format!("[1/9] {cmd}\n"));
    }
    let dump_path = dir.path().join("A.ninja.txt");
    std::fs::write(&dump_path, dump).unwrap();
    let b = new_db();
    let of = |db: &str| {
        let doc: Value = serde_json::from_str(&run(&diff_args(
            db,
            "json",
            &["--new-compile-commands", &b],
        )))
        .unwrap();
        doc["compiled_differently"].clone()
    };
    assert_eq!(of(dump_path.to_str().unwrap()), of(a.to_str().unwrap()));
}

#[test]
fn both_databases_are_refused_with_processes_and_old_needs_new() {
    let dir = tempfile::tempdir().unwrap();
    let a = old_db(dir.path(), false);
    let a = a.to_str().unwrap();
    let app = testdata().join("process/App.app").display().to_string();
    let b = new_db();
    fails_with(
        &[
            "diff",
            "--process",
            "--old-compile-commands",
            a,
            "--new-compile-commands",
            &b,
            &app,
            &app,
        ],
        "not a whole process",
    );
    fails_with(
        &[
            "diff",
            "--process",
            "--new-compile-commands",
            &b,
            &app,
            &app,
        ],
        "not a whole process",
    );
    fails_with(
        &[
            "diff",
            "--old-compile-commands",
            a,
            &plan("flags-chained-arm64"),
            &plan("flags-chained-arm64"),
        ],
        "--new-compile-commands",
    );
    // A database that cannot be read: one line naming it, exit 2.
    let bad_json = dir.path().join("bad.json");
    std::fs::write(&bad_json, "[{\"directory\": 1").unwrap();
    let bad_dump = dir.path().join("bad.txt");
    std::fs::write(&bad_dump, "cc -c \"a.cc\n").unwrap();
    for (db, needle) in [
        (&bad_json, "bad.json: compile database: not JSON"),
        (&bad_dump, "bad.txt: command dump: line 1"),
    ] {
        let db = db.to_str().unwrap();
        let f = plan("flags-chained-arm64");
        fails_with(
            &[
                "diff",
                "--old-compile-commands",
                db,
                "--new-compile-commands",
                &b,
                &f,
                &f,
            ],
            needle,
        );
        fails_with(&["diff", "--new-compile-commands", db, &f, &f], needle);
    }
}

/// A text that is neither JSON nor a command dump with a compilation (`{ not json`) is no
/// database of either build: refused, not read as an empty one.
#[test]
fn a_dump_with_no_compile_command_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("a.json");
    std::fs::write(&text, "{ not json\nninja: no work to do.\n").unwrap();
    let text = text.to_str().unwrap();
    let f = plan("flags-chained-arm64");
    let b = new_db();
    let needle =
        "a.json: no compile command (not JSON, and none of its 2 lines is a compiler given -c)";
    fails_with(&["diff", "--compile-commands", text, &f, &f], needle);
    fails_with(
        &[
            "diff",
            "--old-compile-commands",
            text,
            "--new-compile-commands",
            &b,
            &f,
            &f,
        ],
        needle,
    );
}

/// Regression: when the library that lost `-fvisibility=hidden` brought the image its
/// `MH_WEAK_DEFINES` (the old build exported no weak definition), the cause said "+3 lookups"
/// of a growth of +47: the 44 lookups of operator new and delete that come with the flag were
/// left out. solo-chained-arm64 (libleak.a, the last leaker) against its rebuild with libleak.a
/// hidden, with databases saying so written in a temp dir.
#[test]
fn regression_the_cause_left_out_the_lookups_that_came_with_mh_weak_defines() {
    let dir = tempfile::tempdir().unwrap();
    let db = |name: &str, leak: &[&str]| -> String {
        let entry = |file: &str, vis: &[&str]| {
            let mut args = vec!["clang++", "-target", "arm64-apple-macos12.0"];
            args.extend(vis);
            args.extend(["-c", file]);
            serde_json::json!({"directory": "/weakscan/testdata", "file": file, "arguments": args})
        };
        let entries = vec![
            entry("src/plan/solo.cc", &["-fvisibility=hidden"]),
            entry("src/plan/leak.cc", leak),
        ];
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_string(&entries).unwrap()).unwrap();
        path.display().to_string()
    };
    let (a, b) = (db("A.json", &["-fvisibility=hidden"]), db("B.json", &[]));
    let args = |format: &str| -> Vec<String> {
        [
            "diff",
            &plan("solo-chained-arm64.libleak.hidden"),
            &plan("solo-chained-arm64"),
            "--old-compile-commands",
            &a,
            "--new-compile-commands",
            &b,
            "--width",
            "100",
            "--format",
            format,
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let doc: Value = serde_json::from_str(&run(&args("json"))).unwrap();
    let growth = doc["totals"][0]["delta"]["lookups"].as_u64().unwrap();
    let leak = &doc["compiled_differently"][0]["libraries"][0];
    assert_eq!(leak["library"], "libleak.a");
    assert_eq!(
        [&leak["lookups_lost_hidden"], &leak["weak_defines_lookups"]],
        [3, 44]
    );
    assert_eq!(growth, 47);
    let text = run(&args("table"));
    let joined = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains(
            "cause: libleak.a: 1 object compiles without -fvisibility=hidden since \
             solo-chained-arm64; it brings +3 lookups (leak.o 3); with MH_WEAK_DEFINES came 44 \
             lookups of operator new and delete (+47 in all)"
        ),
        "{text}"
    );
}
