//! The JSON Schemas in `docs/schemas/` are what `weakscan schema` generates (`WEAKSCAN_BLESS=1`
//! rewrites them), and real outputs of every JSON-writing command validate against them — and
//! against a strict copy that refuses any field the schema does not name, so a field added to an
//! output without reaching its schema fails here.

use crate::util::{testdata, weakscan};
use serde_json::Value;
use std::path::PathBuf;

const DOCUMENTS: [&str; 12] = [
    "scan",
    "diff",
    "check",
    "verify",
    "baseline",
    "process",
    "process-diff",
    "process-verify",
    "trend",
    "flags",
    "bisect",
    "hide",
];

fn committed(doc: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("docs/schemas")
        .join(format!("{doc}.schema.json"))
}

fn generated(doc: &str) -> String {
    let out = weakscan().args(["schema", doc]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "schema {doc}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn schema(doc: &str) -> Value {
    let text = std::fs::read_to_string(committed(doc)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `schema` with `additionalProperties: false` on every object schema that lists properties.
fn strict(mut schema: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                    map.insert("additionalProperties".into(), Value::Bool(false));
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut schema);
    schema
}

/// The errors of `instance` against `schema`, one line each.
fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).expect("a valid JSON Schema");
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn assert_valid(doc: &str, args: &[&str], instance: &Value) {
    for (kind, s) in [
        ("schema", schema(doc)),
        ("strict schema", strict(schema(doc))),
    ] {
        let errs = errors(&s, instance);
        assert!(
            errs.is_empty(),
            "weakscan {args:?} against the {kind} of {doc}: {errs:#?}"
        );
    }
}

fn bin(name: &str) -> String {
    testdata().join("bin").join(name).display().to_string()
}
fn log(name: &str) -> String {
    testdata().join("logs").join(name).display().to_string()
}
fn attr(name: &str) -> String {
    testdata().join("attr").join(name).display().to_string()
}

/// Runs weakscan with `args` (which must ask for JSON), expecting exit `code`, and returns the
/// document.
fn run(args: &[&str], code: i32) -> Value {
    let out = weakscan().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "weakscan {args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("weakscan {args:?}: {e}"))
}

#[test]
fn schemas_are_current() {
    let bless = std::env::var_os("WEAKSCAN_BLESS").is_some();
    for doc in DOCUMENTS {
        let text = generated(doc);
        if bless {
            std::fs::write(committed(doc), &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(committed(doc)).unwrap_or_default();
        assert!(
            on_disk == text,
            "docs/schemas/{doc}.schema.json is not what `weakscan schema {doc}` prints \
             (WEAKSCAN_BLESS=1 cargo test schema rewrites it; review the diff)"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(v["properties"]["command"]["const"], doc);
        jsonschema::validator_for(&v).unwrap_or_else(|e| panic!("{doc}: not a valid schema: {e}"));
    }
}

#[test]
fn scan_outputs_validate() {
    let mut cases: Vec<Vec<String>> = Vec::new();
    for entry in std::fs::read_dir(testdata().join("bin")).unwrap() {
        let p = entry.unwrap().path().display().to_string();
        cases.push(vec![p.clone()]);
        cases.push(vec!["--by".into(), "symbol".into(), p]);
    }
    for l in [
        "dyld2-macos11.log",
        "dyld4-macos15-chained.log",
        "dyld4-macos26-opcodes.log",
        "noisy.log",
    ] {
        cases.push(vec![log(l)]);
    }
    cases.push(vec![
        "--by".into(),
        "library".into(),
        bin("app-attr-x86_64"),
    ]);
    cases.push(vec![
        "--by".into(),
        "namespace".into(),
        "--depth".into(),
        "2".into(),
        bin("app-attr-x86_64"),
    ]);
    cases.push(vec![
        "--compile-commands".into(),
        attr("compile_commands.json"),
        bin("app-attr-x86_64"),
    ]);
    cases.push(vec![
        "--map".into(),
        attr("app-attr-x86_64.map"),
        bin("app-attr-x86_64-stripped"),
    ]);
    cases.push(vec![attr("libdescriptors_a.a"), attr("main.o")]);
    for extra in &cases {
        let mut args = vec!["scan", "--format", "json"];
        args.extend(extra.iter().map(String::as_str));
        let doc = run(&args, 0);
        assert_valid("scan", &args, &doc);
    }
}

#[test]
fn diff_outputs_validate() {
    let pairs = [
        (
            bin("app-default-chained-x86_64"),
            bin("app-v2-default-chained-x86_64"),
        ),
        (
            bin("app-default-chained-universal"),
            bin("app-v2-default-chained-universal"),
        ),
        (
            bin("app-default-chained-universal"),
            bin("app-v2-default-chained-arm64"),
        ),
        (
            bin("app-default-opcodes-x86_64"),
            log("dyld4-macos15-opcodes.log"),
        ),
        (bin("app-attr-x86_64"), bin("app-attr-x86_64-stripped")),
    ];
    for (old, new) in &pairs {
        for extra in [&[][..], &["--symbols"][..], &["--by", "library"][..]] {
            let mut args = vec!["diff", "--format", "json", old, new];
            args.extend(extra);
            let doc = run(&args, 0);
            assert_valid("diff", &args, &doc);
        }
    }
}

#[test]
fn check_outputs_validate() {
    let f = bin("app-attr-x86_64");
    for (args, code) in [
        (
            vec![
                "check",
                "--format",
                "json",
                "--max-predicted-weak-lookups",
                "100000",
                &f,
            ],
            0,
        ),
        (
            vec![
                "check",
                "--format",
                "json",
                "--max-predicted-weak-lookups",
                "1",
                "--group",
                "libdescriptors_*.a=0",
                "--by",
                "library",
                &f,
            ],
            1,
        ),
        (
            vec![
                "check",
                "--format",
                "json",
                "--max-weak-bind-symbols",
                "3",
                "--by",
                "namespace",
                "--depth",
                "1",
                &f,
            ],
            1,
        ),
    ] {
        let doc = run(&args, code);
        assert_valid("check", &args, &doc);
    }
}

#[test]
fn verify_outputs_validate() {
    for (b, l, code) in [
        ("app-default-chained-x86_64", "dyld4-macos15-chained.log", 0),
        (
            "app-v2-default-chained-x86_64",
            "dyld4-macos15-chained.log",
            1,
        ),
        ("app-default-opcodes-x86_64", "dyld2-macos11.log", 0),
        ("app-default-opcodes-x86_64", "dyld4-macos14-opcodes.log", 0),
    ] {
        let (b, l) = (bin(b), log(l));
        let args = ["verify", "--format", "json", &b, &l];
        let doc = run(&args, code);
        assert_valid("verify", &args, &doc);
    }
}

#[test]
fn baseline_files_validate() {
    let dir = tempfile::tempdir().unwrap();
    for (i, f) in [
        bin("app-attr-x86_64"),
        bin("app-default-chained-universal"),
        bin("libweak-chained-x86_64.dylib"),
    ]
    .iter()
    .enumerate()
    {
        let out = dir.path().join(format!("b{i}.json"));
        let o = out.display().to_string();
        let args = ["baseline", f, "-o", &o];
        weakscan().args(args).assert().code(0);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_valid("baseline", &args, &doc);
    }
}

#[test]
fn process_outputs_validate() {
    let p = testdata().join("process");
    for d in ["App.app", "bad/cycle", "bad/escape", "bad/notmacho"] {
        let input = p.join(d).display().to_string();
        let args = ["scan", "--format", "json", &input];
        let doc = run(&args, 0);
        assert_valid("process", &args, &doc);
    }
    let (v1, v2) = (
        p.join("App.app").display().to_string(),
        p.join("App-v2.app").display().to_string(),
    );
    for (old, new) in [(&v1, &v2), (&v2, &v1), (&v1, &v1)] {
        let args = ["diff", "--format", "json", old, new];
        let doc = run(&args, 0);
        assert_valid("process-diff", &args, &doc);
    }
    let log = testdata()
        .join("logs/dyld4-macos15-process-app.log")
        .display()
        .to_string();
    for (app, code) in [(&v1, 0), (&v2, 1)] {
        let args = ["verify", "--format", "json", app, &log];
        let doc = run(&args, code);
        assert_valid("process-verify", &args, &doc);
    }
}

#[test]
fn trend_outputs_validate() {
    let (v1, v2, hidden) = (
        bin("app-default-chained-x86_64"),
        bin("app-v2-default-chained-x86_64"),
        bin("app-hidden-chained-x86_64"),
    );
    let (u1, u2) = (
        bin("app-default-chained-universal"),
        bin("app-v2-default-chained-universal"),
    );
    let l1 = log("dyld4-macos15-chained.log");
    let p = testdata().join("process");
    let (a1, a2) = (
        p.join("App.app").display().to_string(),
        p.join("App-v2.app").display().to_string(),
    );
    let cases: [&[&str]; 6] = [
        &[&v1, &v2, &hidden],
        &["--by", "library", &v1, &v2, &hidden],
        &["--top", "1", "--by", "symbol", &v1, &v2, &v1],
        &[&u1, &u2, &bin("app-v2-default-chained-arm64")],
        &[&v1, &l1, &v2],
        &[&a1, &a2, &a1],
    ];
    for extra in cases {
        let mut args = vec!["trend", "--format", "json"];
        args.extend(extra);
        let doc = run(&args, 0);
        assert_valid("trend", &args, &doc);
    }
}

#[test]
fn bisect_outputs_validate() {
    use crate::bisect::Series;
    let (hidden, v2) = ("app-hidden-chained-x86_64", "app-v2-default-chained-x86_64");
    // Found; a skipped version; the ends agree; not monotonic; reversed.
    let cases: [(&[&str], i32); 5] = [
        (&[hidden, hidden, v2, v2], 0),
        (&[hidden, "fail", v2], 1),
        (&[hidden, hidden, hidden], 1),
        (&[hidden, v2, hidden], 1),
        (&[v2, hidden], 1),
    ];
    for (whats, code) in cases {
        for criterion in [
            &["--max-predicted-weak-lookups", "60"][..],
            &["--max-increase", "10%", "--group", "v8::*=5"],
        ] {
            let s = Series::new(whats);
            let doc = s.json(criterion, code);
            assert_valid("bisect", &[], &doc);
        }
    }
}

#[test]
fn schema_validation_can_fail() {
    // The same checks refuse a document with a wrong type, a missing field or an unknown one.
    let args = [
        "scan",
        "--format",
        "json",
        &bin("app-default-chained-x86_64"),
    ];
    let doc = run(&args, 0);
    let mut wrong_type = doc.clone();
    wrong_type["images"][0]["weak_def_exports"] = "36".into();
    assert!(!errors(&schema("scan"), &wrong_type).is_empty());
    let mut missing = doc.clone();
    missing["groups"][0].as_object_mut().unwrap().remove("key");
    assert!(!errors(&schema("scan"), &missing).is_empty());
    let mut unknown = doc.clone();
    unknown["groups"][0]["lookups_per_launch"] = 3.into();
    assert!(
        errors(&schema("scan"), &unknown).is_empty(),
        "the published schema allows additions"
    );
    assert!(!errors(&strict(schema("scan")), &unknown).is_empty());
    let mut command = doc;
    command["command"] = "diff".into();
    assert!(!errors(&schema("scan"), &command).is_empty());
}

#[test]
fn flags_outputs_validate() {
    let dir = tempfile::tempdir().unwrap();
    let attr = testdata().join("attr/compile_commands.json");
    let text = std::fs::read_to_string(&attr).unwrap();
    let new = dir.path().join("new.json");
    std::fs::write(
        &new,
        text.replacen("\"-fvisibility=default\"", "\"-fvisibility=hidden\"", 1),
    )
    .unwrap();
    let out = weakscan()
        .arg("flags")
        .args([&attr, &new])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema = strict(schema("flags"));
    assert_eq!(errors(&schema, &doc), Vec::<String>::new());
}

#[test]
fn hide_outputs_validate() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.txt");
    let list = list.to_str().unwrap();
    let plan = testdata().join("plan");
    let (app, solo) = (
        plan.join("app-chained-arm64").display().to_string(),
        plan.join("solo-chained-arm64").display().to_string(),
    );
    let importer = plan.join("plug_ref.bundle").display().to_string();
    let bundle = plan.join("Bundle.app").display().to_string();
    let cases: [&[&str]; 4] = [
        &[&app, "--importer", &importer],
        &[&app, "--exported"],
        &[&solo],
        &[&bundle, "--image", "Contents/Frameworks/libdelta.dylib"],
    ];
    for extra in cases {
        let mut args = vec!["hide", "--format", "json", "-o", list];
        args.extend(extra);
        let doc = run(&args, 0);
        assert_valid("hide", &args, &doc);
    }
}

#[test]
fn diff_compiled_differently_validates() {
    let dir = tempfile::tempdir().unwrap();
    let new = attr("compile_commands.json");
    let text = std::fs::read_to_string(&new).unwrap();
    let old = dir.path().join("old.json");
    std::fs::write(
        &old,
        text.replacen("\"-fvisibility=default\"", "\"-fvisibility=hidden\"", 1),
    )
    .unwrap();
    let old = old.display().to_string();
    let f = bin("app-attr-x86_64");
    let args = [
        "diff",
        "--format",
        "json",
        "--old-compile-commands",
        &old,
        "--new-compile-commands",
        &new,
        &f,
        &f,
    ];
    let doc = run(&args, 0);
    let libraries = &doc["compiled_differently"][0]["libraries"];
    assert_eq!(libraries[0]["lost_hidden"], 1, "{doc:#}");
    assert_valid("diff", &args, &doc);
}
