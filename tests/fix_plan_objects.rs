//! `--objects` wherever a fix plan is shown, and "at most" exactly where its figures are bounds.
//!
//! `testdata/plan/app-chained-arm64`'s debug map names its objects as `obj/plan/…`, relative
//! to the build directory `testdata/plan`: they are not there from `testdata/`, where these
//! commands run, but below `plan/obj`. Without `--objects` every surface that shows a plan
//! figure (scan of an image or of a process, diff of images and of processes, check of a
//! failing process, report) says "at most" and how to make it exact; with `--objects plan/obj`
//! the figures are exact and equal scan's. verify, baseline and trend show no plan figure and
//! take no `--objects`.

use crate::util::{fails_with, stdout_of};
use serde_json::Value;

/// What the line under an "at most" figure says of the objects of `app-chained-arm64`.
const HOW_TO_MAKE_EXACT: &str = "are not on this disk (3 of 3): for exact figures give \
                                 --objects obj or run in the build tree";

const APP: &str = "plan/app-chained-arm64";
/// A build of `APP` with fewer lookups (libbeta.a hidden): a diff to `APP` grows.
const SMALLER: &str = "plan/app-chained-arm64.libbeta.hidden";

/// `weakscan ARGS` in `testdata/`, its stdout unwrapped (one line per logical line).
fn run(args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--width", "1000"]);
    stdout_of(&all)
}

/// `weakscan ARGS --format json` in `testdata/`.
fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&stdout_of(&all)).unwrap()
}

/// `args` with `--objects plan/obj` added.
fn with_objects<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.extend(["--objects", "plan/obj"]);
    all
}

/// Asserts `text` says the figures are at most, and how to make them exact, or neither.
fn assert_at_most(text: &str, at_most: bool, what: &str) {
    assert_eq!(text.contains("at most -"), at_most, "{what}:\n{text}");
    assert_eq!(text.contains(HOW_TO_MAKE_EXACT), at_most, "{what}:\n{text}");
}

/// The process plan of `scan --process`: the fix line, the line under the table and each
/// candidate's `definers` in the JSON.
#[test]
fn regression_the_process_plan_said_no_at_most_without_the_objects() {
    let args = ["scan", "--process", APP];
    let text = run(&args);
    assert!(
        text.contains("-fvisibility=hidden: at most -30 trie probes"),
        "{text}"
    );
    assert!(
        text.contains("\nat most for app-chained-arm64: another library")
            && text.contains(HOW_TO_MAKE_EXACT),
        "{text}"
    );
    let exact = run(&with_objects(&args));
    assert!(
        exact.contains("-fvisibility=hidden: -28 trie probes"),
        "{exact}"
    );
    assert!(!exact.contains("at most for"), "{exact}");
    let md = stdout_of(&["scan", "--process", APP, "--format", "markdown"]);
    assert!(md.contains("at most -30 trie probes"), "{md}");
    assert!(md.contains("\nat most for `app-chained-arm64`: "), "{md}");
    for (doc, exact) in [(json(&args), false), (json(&with_objects(&args)), true)] {
        for c in doc["processes"][0]["fix_plan"].as_array().unwrap() {
            assert_eq!(c["definers"]["exact"], exact, "{c}");
            assert_eq!(c["definers"]["objects"], 3, "{c}");
        }
    }
}

/// A diff of two images: the new build's plan in the `fix` lines (text, Markdown, JSON's
/// `fix_plan`), both when nothing grew ("fix what remains") and when lookups grew.
#[test]
fn regression_diff_said_no_at_most_without_the_objects() {
    let scanned = json(&with_objects(&["scan", APP]));
    for (old, new, first) in [
        (APP, SMALLER, "fix what remains: "),
        (SMALLER, APP, "the new build's fix plan starts with: "),
    ] {
        let args = ["diff", old, new];
        let text = run(&args);
        assert!(text.contains(first), "{text}");
        assert_at_most(&text, true, "diff");
        let md = stdout_of(&["diff", old, new, "--format", "markdown"]);
        assert!(md.contains("at most -"), "{md}");
        assert!(md.contains("give `--objects obj` or run"), "{md}");
        let doc = json(&args);
        assert_eq!(doc["fix_plan"][0]["definers"]["exact"], false, "{doc}");
        assert_eq!(doc["fix_plan"][0]["definers"]["not_on_disk"], 3);
        if new == APP {
            // The new build's objects are below plan/obj: exact, as scan gives them.
            let exact = run(&with_objects(&args));
            assert_at_most(&exact, false, "diff --objects");
            let doc = json(&with_objects(&args));
            assert_eq!(doc["fix_plan"][0]["definers"]["exact"], true);
            assert_eq!(
                doc["fix_plan"][0]["candidates"],
                scanned["fix_plan"][0]["candidates"]
            );
        }
    }
}

/// A diff of two processes (`diff OLD NEW --process`): the new version's plan reads its
/// definers as `scan --process` does, below `--objects` too.
#[test]
fn regression_process_diff_took_no_objects_and_said_no_at_most() {
    let args = ["diff", "--process", SMALLER, APP];
    let text = run(&args);
    assert!(
        text.contains("-fvisibility=hidden: at most -30 trie probes"),
        "{text}"
    );
    assert!(text.contains(HOW_TO_MAKE_EXACT), "{text}");
    let exact = run(&with_objects(&args));
    assert!(
        exact.contains("-fvisibility=hidden: -28 trie probes"),
        "{exact}"
    );
    assert!(!exact.contains("at most"), "{exact}");
    let doc = json(&with_objects(&args));
    let scanned = json(&with_objects(&["scan", "--process", APP]));
    assert_eq!(
        doc["processes"][0]["fix_plan"],
        scanned["processes"][0]["fix_plan"]
    );
}

/// `check` of a failing process: its fix, from the process plan, reads the definers (below
/// `--objects` too), as scan does.
#[test]
fn regression_check_of_a_process_ignored_objects() {
    let args = [
        "check",
        "--no-config",
        "--process",
        APP,
        "--max-trie-probes",
        "1",
    ];
    let text = run(&args);
    assert!(
        text.contains("-fvisibility=hidden: at most -30 trie probes"),
        "{text}"
    );
    assert!(text.contains(HOW_TO_MAKE_EXACT), "{text}");
    let exact = run(&with_objects(&args));
    assert!(
        exact.contains("-fvisibility=hidden: -28 trie probes"),
        "{exact}"
    );
    assert!(!exact.contains("at most"), "{exact}");
}

/// `report`: the newest build's plan, of a binary or of a process, reads its definers below
/// `--objects`.
#[test]
fn regression_report_took_no_objects() {
    let dir = tempfile::tempdir().unwrap();
    let html = |args: &[&str]| -> String {
        let out = dir.path().join("r.html");
        let mut all = args.to_vec();
        let o = out.to_str().unwrap();
        all.extend(["-o", o]);
        stdout_of(&all);
        std::fs::read_to_string(&out).unwrap()
    };
    for args in [&["report", APP][..], &["report", "--process", APP][..]] {
        let page = html(args);
        assert!(page.contains(HOW_TO_MAKE_EXACT), "{args:?}");
        let page = html(&with_objects(args));
        assert!(!page.contains(HOW_TO_MAKE_EXACT), "{args:?}");
        assert!(!page.contains("at most -"), "{args:?}");
    }
}

/// `baseline` records no fix plan: `--objects` was accepted and never read.
#[test]
fn regression_baseline_accepted_objects_it_never_read() {
    let app = crate::util::testdata().join(APP);
    let objects = crate::util::testdata().join("plan/obj");
    fails_with(
        &[
            "baseline",
            app.to_str().unwrap(),
            "--objects",
            objects.to_str().unwrap(),
        ],
        "unexpected argument '--objects'",
    );
}
