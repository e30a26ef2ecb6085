//! `weakscan trend` on the committed fixtures: per-build figures against `testdata/expected.tsv`
//! (llvm-objdump-22's counts), the step rule worked out here from those rows, the groups behind
//! the flagged steps, `--sort version`, logs and whole processes in a series, and the usage
//! errors.

use crate::util::{expected, fails_with, fixture, golden, json, testdata, weakscan};
use serde_json::Value;
use std::path::Path;

fn path(name: &str) -> String {
    fixture(name).display().to_string()
}

/// The series of chained x86_64 builds: v1, v1 again (the x86_64 slice of the universal file:
/// no change), v2 (3× the descriptors), hidden.
const SERIES: [&str; 4] = [
    "app-default-chained-x86_64",
    "app-default-chained-universal",
    "app-v2-default-chained-x86_64",
    "app-hidden-chained-x86_64",
];

/// Predicted lookups of a chained main executable with MH_WEAK_DEFINES: one per weak-bind
/// target (one per symbol in these builds: no addends) plus the 22 treat-as-weak names twice
/// (docs/figures.md; every app fixture has MH_WEAK_DEFINES, hidden ones for their strong
/// operator new[] override).
const TREAT_AS_WEAK_TWICE: u64 = 44;

#[test]
fn fixture_series_figures_and_flags_follow_expected_tsv() {
    let rows = expected();
    let row = |file: &str| {
        rows.iter()
            .find(|r| r.file == file && r.arch == "x86_64")
            .unwrap_or_else(|| panic!("{file} x86_64 in expected.tsv"))
    };
    let args: Vec<String> = SERIES.iter().map(|f| path(f)).collect();
    let mut argv = vec!["trend", "--format", "json"];
    argv.extend(args.iter().map(String::as_str));
    let doc = json(&argv);
    assert_eq!(doc["command"], "trend");
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["sort"], "input");
    let series = doc["series"].as_array().unwrap();
    assert_eq!(series.len(), 1, "only x86_64 is in every build");
    let s = &series[0];
    assert_eq!(s["arch"], "x86_64");
    // arm64 is only in the universal file (the second build).
    assert_eq!(doc["arches_left_out"][0]["arch"], "arm64");
    assert_eq!(doc["arches_left_out"][0]["builds"], serde_json::json!([1]));

    // Each build's figures are expected.tsv's row.
    let points = s["points"].as_array().unwrap();
    assert_eq!(points.len(), SERIES.len());
    let mut lookups = Vec::new();
    for (i, (p, file)) in points.iter().zip(SERIES).enumerate() {
        let r = row(file);
        assert_eq!(p["build"], i);
        assert_eq!(doc["builds"][i]["path"], args[i].as_str());
        let f = &p["figures"];
        assert_eq!(f["weak_def_exports"], r.weak_def_exports, "{file}");
        assert_eq!(f["sites"], r.weak_bind_sites, "{file}");
        assert_eq!(f["weak_bound_symbols"], r.weak_bind_symbols, "{file}");
        assert_eq!(
            f["lookups"],
            r.weak_bind_symbols + TREAT_AS_WEAK_TWICE,
            "{file}"
        );
        assert!(f.get("trie_probes").is_none(), "binaries have no probes");
        lookups.push((r.weak_bind_symbols + TREAT_AS_WEAK_TWICE) as i64);
    }

    // The steps: Δ of each figure from the rows, ranked and flagged by the documented rule
    // worked out here: the largest |Δ lookups| (the earliest among equals), and every step of
    // at least a quarter of it.
    let steps = s["steps"].as_array().unwrap();
    assert_eq!(steps.len(), SERIES.len() - 1);
    let deltas: Vec<i64> = lookups.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(
        deltas,
        [0, 60, -96],
        "the series moves as expected.tsv says"
    );
    let max = deltas.iter().map(|d| d.unsigned_abs()).max().unwrap();
    let largest = deltas.iter().position(|d| d.unsigned_abs() == max).unwrap();
    for (i, (st, d)) in steps.iter().zip(&deltas).enumerate() {
        let (o, n) = (row(SERIES[i]), row(SERIES[i + 1]));
        assert_eq!(
            (st["from"].as_u64(), st["to"].as_u64()),
            (Some(i as u64), Some(i as u64 + 1))
        );
        assert_eq!(st["change"]["lookups"], *d);
        assert_eq!(
            st["change"]["weak_def_exports"],
            n.weak_def_exports as i64 - o.weak_def_exports as i64
        );
        assert_eq!(
            st["change"]["sites"],
            n.weak_bind_sites as i64 - o.weak_bind_sites as i64
        );
        assert_eq!(st["magnitude"], d.unsigned_abs());
        assert_eq!(st["largest"], i == largest, "step {i}");
        assert_eq!(
            st["flagged"],
            4 * d.unsigned_abs() >= max && *d != 0,
            "step {i}"
        );
    }
    assert_eq!(largest, 2, "v2 → hidden is the largest step");
    assert_eq!(s["largest_step"], 2);
    assert_eq!(s["flag_threshold"], max.div_ceil(4));
    let ranks: Vec<u64> = steps
        .iter()
        .map(|st| st["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, [3, 2, 1]);

    // Behind the largest step: the 18 descriptors × 5 weak symbols of v2 (testdata/README.md),
    // all gone with hidden visibility, first; the unflagged step lists no group.
    let top = &steps[2]["groups"][0];
    assert_eq!(top["key"], "v8::internal::StaticCallInterfaceDescriptor<…>");
    assert_eq!(top["delta"]["weak_bound_symbols"], -90);
    assert_eq!(top["old"]["weak_bound_symbols"], 90);
    assert_eq!(top["new"]["weak_bound_symbols"], 0);
    assert!(
        top["example"]
            .as_str()
            .unwrap()
            .contains("StaticCallInterfaceDescriptor<v8::internal::"),
        "{top}"
    );
    assert!(
        top["example_mangled"].as_str().unwrap().starts_with("__Z"),
        "{top}"
    );
    assert_eq!(steps[2]["groups"].as_array().unwrap().len(), 5, "--top 5");
    assert_eq!(steps[0]["groups"], serde_json::json!([]));
    assert_eq!(steps[0]["groups_changed"], 0);
    // v1 → v2: the descriptor group alone grew, by 12 descriptors × 5.
    assert_eq!(steps[1]["groups_changed"], 1);
    assert_eq!(steps[1]["groups"][0]["delta"]["lookups"], 60);
    // The fixtures carry a debug map: the step by library (the loose objects) too, and the
    // library figures add up to the step's change.
    let libs = steps[2]["libraries"].as_array().unwrap();
    let keys: Vec<&str> = libs.iter().map(|l| l["key"].as_str().unwrap()).collect();
    assert!(
        keys.contains(&"descriptors_a.o") && keys.contains(&"descriptors_b.o"),
        "{keys:?}"
    );
    let sum: i64 = libs
        .iter()
        .map(|l| l["delta"]["weak_bound_symbols"].as_i64().unwrap())
        .sum();
    assert_eq!(
        sum,
        steps[2]["change"]["weak_bound_symbols"].as_i64().unwrap()
    );
}

#[test]
fn table_marks_the_largest_and_flagged_steps() {
    let args: Vec<String> = SERIES.iter().map(|f| path(f)).collect();
    let out = weakscan().arg("trend").args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let row = |file: &str| {
        text.lines()
            .find(|l| l.starts_with('│') && l.contains(&format!("{file} ")))
            .unwrap_or_else(|| panic!("a row for {file}: {text}"))
    };
    assert!(row(SERIES[3]).contains("◀ largest"), "{text}");
    assert!(row(SERIES[2]).contains("◀ flagged"), "{text}");
    assert!(!row(SERIES[1]).contains('◀'), "{text}");
    assert!(row(SERIES[3]).contains("-96 (-67.1%)"), "{text}");
    assert!(
        text.contains("step app-v2-default-chained-x86_64 → app-hidden-chained-x86_64 (largest, decrease): lookups 143 → 47"),
        "{text}"
    );
    assert!(
        text.contains("step app-default-chained-universal → app-v2-default-chained-x86_64 (flagged, increase): lookups 83 → 143"),
        "{text}"
    );
    assert!(text.contains("(|Δ lookups| ≥ 24)"), "{text}");
    assert!(
        text.contains(
            "arm64 is not in every build (only in app-default-chained-universal): not followed"
        ),
        "{text}"
    );
}

/// Regression: `trend` led with the largest change in either direction, so a series whose
/// largest step is an improvement (v2 → hidden, -96) headlined it and listed its groups first;
/// the flagged regression before it (+60) was a marker in the last part of the builds table.
/// The flagged increase now leads: the headline, the first part of the builds table (its mark
/// next to Δ lookups, at 80 and 120 columns) and the first step listed; in Markdown too.
#[test]
fn regression_trend_leads_with_the_improvement_not_the_flagged_regression() {
    let args: Vec<String> = SERIES.iter().map(|f| path(f)).collect();
    for width in ["80", "120"] {
        let out = weakscan()
            .arg("trend")
            .args(&args)
            .args(["--width", width])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        // Prose wraps at the width, continuation lines indented by two.
        let prose = text.replace("\n  ", " ");
        assert!(
            prose.starts_with(
                "trend (x86_64): 4 builds; largest increase app-default-chained-universal → app-v2-default-chained-x86_64: lookups 83 → 143, +60"
            ),
            "{width}: {text}"
        );
        // The first table (up to its bottom border) marks the regression's build.
        let first_table = &text[..text.find('└').unwrap()];
        let row = first_table
            .lines()
            .find(|l| l.starts_with("│ 3 ┆"))
            .unwrap_or_else(|| panic!("{width}: no row of build 3 in\n{text}"));
        assert!(row.contains("◀ flagged"), "{width}: {row}");
        // The first step told is the increase.
        let first_step = prose.lines().find(|l| l.starts_with("step ")).unwrap();
        assert!(
            first_step.starts_with("step app-default-chained-universal → app-v2-default-chained-x86_64 (flagged, increase)"),
            "{width}: {first_step}"
        );
    }
    let md = weakscan()
        .args(["trend", "--format", "markdown"])
        .args(&args)
        .output()
        .unwrap();
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(
        md.starts_with("## weakscan trend (x86_64): 4 builds; largest increase `app-default-chained-universal` → `app-v2-default-chained-x86_64`"),
        "{md}"
    );
    let first_step = md.lines().find(|l| l.starts_with("### Step ")).unwrap();
    assert!(
        first_step.starts_with("### Step `app-default-chained-universal` → `app-v2-default-chained-x86_64` (flagged, increase)"),
        "{md}"
    );
}

#[test]
fn golden_table_and_markdown() {
    let files: Vec<String> = SERIES.iter().map(|f| format!("bin/{f}")).collect();
    let f: Vec<&str> = files.iter().map(String::as_str).collect();
    let mut table = vec!["trend", "--top", "3"];
    table.extend(&f);
    golden("trend-fixtures.txt", &table);
    let mut md = vec!["trend", "--format", "markdown", "--top", "3"];
    md.extend(&f);
    golden("trend-fixtures.md", &md);
}

#[test]
fn sort_version_orders_numerically_and_keeps_ties() {
    let dir = tempfile::tempdir().unwrap();
    // Named so that a text sort would put 1.10.0 before 1.9.0.
    let builds = [
        ("1.10.0", "app-hidden-chained-x86_64"),
        ("1.9.0", "app-v2-default-chained-x86_64"),
        ("1.2.0", "app-default-chained-x86_64"),
    ];
    let mut given = Vec::new();
    for (v, f) in builds {
        let d = dir.path().join(v);
        std::fs::create_dir(&d).unwrap();
        std::os::unix::fs::symlink(fixture(f), d.join("app")).unwrap();
        given.push(d.join("app").display().to_string());
    }
    let mut args = vec!["trend", "--format", "json", "--sort", "version"];
    args.extend(given.iter().map(String::as_str));
    let doc = json(&args);
    assert_eq!(doc["sort"], "version");
    let order: Vec<(&str, &str)> = doc["builds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["version"].as_str().unwrap(), b["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        order,
        [
            ("1.2.0", given[2].as_str()),
            ("1.9.0", given[1].as_str()),
            ("1.10.0", given[0].as_str())
        ]
    );
    let l: Vec<u64> = doc["series"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["figures"]["lookups"].as_u64().unwrap())
        .collect();
    assert_eq!(l, [83, 143, 47]);
    // Equal versions keep the order given.
    let same = dir.path().join("again/1.9.0");
    std::fs::create_dir_all(&same).unwrap();
    std::os::unix::fs::symlink(fixture("app-hidden-chained-x86_64"), same.join("app")).unwrap();
    let same = same.join("app").display().to_string();
    for pair in [[&given[1], &same], [&same, &given[1]]] {
        let doc = json(&[
            "trend", "--format", "json", "--sort", "version", pair[0], pair[1],
        ]);
        assert_eq!(doc["builds"][0]["path"], pair[0].as_str());
        assert_eq!(doc["builds"][1]["path"], pair[1].as_str());
    }
    // Without --sort the order is the one given, and the versions are still shown.
    let mut args = vec!["trend", "--format", "json"];
    args.extend(given.iter().map(String::as_str));
    let doc = json(&args);
    assert_eq!(doc["sort"], "input");
    assert_eq!(doc["builds"][0]["version"], "1.10.0");
    assert_eq!(doc["builds"][0]["path"], given[0].as_str());
}

#[test]
fn a_log_among_binaries_counts_the_lookups_it_saw() {
    let log = testdata()
        .join("logs/dyld4-macos15-chained.log")
        .display()
        .to_string();
    let (v1, v2) = (
        path("app-default-chained-x86_64"),
        path("app-v2-default-chained-x86_64"),
    );
    let doc = json(&["trend", "--format", "json", &v1, &log, &v2]);
    let s = &doc["series"][0];
    assert_eq!(s["arch"], Value::Null);
    assert_eq!(doc["builds"][1]["input_kind"], "log");
    let p = s["points"].as_array().unwrap();
    // testdata/logs/expected.tsv: the log of v1 saw 83 lookups and 39 weak targets; it has no
    // exports and (chained, page-in linking) no sites.
    assert_eq!(p[1]["image"]["seen_weak_lookups"], 83);
    assert_eq!(p[1]["figures"]["lookups"], 83);
    assert_eq!(p[1]["figures"]["weak_bound_symbols"], 39);
    assert_eq!(p[1]["figures"]["weak_def_exports"], Value::Null);
    assert_eq!(p[1]["figures"]["sites"], Value::Null);
    assert_eq!(s["steps"][0]["change"]["lookups"], 0);
    assert_eq!(s["steps"][0]["change"]["weak_def_exports"], Value::Null);
    assert_eq!(s["steps"][1]["change"]["lookups"], 60);
    assert_eq!(s["largest_step"], 1);
    let out = weakscan().args(["trend", &v1, &log, &v2]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("lookups: seen in the log for a log"),
        "{text}"
    );
    assert!(text.contains("n/a"), "{text}");
}

#[test]
fn processes_follow_lookups_and_trie_probes() {
    let p = testdata().join("process");
    let (a1, a2) = (
        p.join("App.app").display().to_string(),
        p.join("App-v2.app").display().to_string(),
    );
    let doc = json(&["trend", "--format", "json", &a1, &a2, &a1]);
    assert!(
        doc["builds"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["input_kind"] == "process")
    );
    let s = &doc["series"][0];
    assert_eq!(s["arch"], "x86_64");
    let points = s["points"].as_array().unwrap();
    // testdata/process/expected.md, worked out by hand: 74 lookups, 296 trie probes.
    for i in [0, 2] {
        assert_eq!(points[i]["figures"]["lookups"], 74);
        assert_eq!(points[i]["figures"]["trie_probes"], 296);
        assert_eq!(points[i]["image"]["input_kind"], "process");
    }
    // App-v2: what the process scan says.
    let scan = json(&["scan", "--format", "json", &a2]);
    let v2 = &scan["processes"][0];
    assert_eq!(points[1]["figures"]["lookups"], v2["lookups"]);
    assert_eq!(points[1]["figures"]["trie_probes"], v2["trie_probes"]);
    let steps = s["steps"].as_array().unwrap();
    let d = v2["lookups"].as_i64().unwrap() - 74;
    assert_ne!(d, 0);
    assert_eq!(steps[0]["change"]["lookups"], d);
    assert_eq!(steps[1]["change"]["lookups"], -d);
    assert_eq!(
        steps[0]["change"]["trie_probes"],
        v2["trie_probes"].as_i64().unwrap() - 296
    );
    // Equal steps: the earlier ranks first and is the largest; both are flagged.
    assert_eq!(steps[0]["rank"], 1);
    assert_eq!(steps[1]["rank"], 2);
    assert_eq!(s["largest_step"], 0);
    assert!(steps.iter().all(|st| st["flagged"] == true));
    // A merged process has no attribution: no libraries.
    assert_eq!(steps[0]["libraries"], Value::Null);
    let out = weakscan().args(["trend", &a1, &a2]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("trie probes"), "{text}");
}

#[test]
fn by_library_and_top() {
    let (v1, v2) = (
        path("app-default-chained-x86_64"),
        path("app-v2-default-chained-x86_64"),
    );
    let doc = json(&[
        "trend", "--format", "json", "--by", "library", "--top", "1", &v1, &v2,
    ]);
    assert_eq!(doc["group_by"], "library");
    assert_eq!(doc["top"], 1);
    let st = &doc["series"][0]["steps"][0];
    assert_eq!(st["groups"].as_array().unwrap().len(), 1);
    assert_eq!(
        st["groups_changed"], 2,
        "descriptors_a.o and descriptors_b.o"
    );
    // Grouped by library already: no second list.
    assert_eq!(st["libraries"], Value::Null);
}

#[test]
fn usage_errors() {
    let v1 = path("app-default-chained-x86_64");
    let v2 = path("app-v2-default-chained-x86_64");
    fails_with(&["trend", &v1], "a trend needs at least two builds");
    let line = fails_with(
        &["trend", "--sort", "version", &v1, &v2],
        "no version in the path",
    );
    assert!(
        line.starts_with(&format!("weakscan: {v1}: ")),
        "names the file: {line}"
    );
    fails_with(
        &["trend", "--format", "github", &v1, &v2],
        "invalid value 'github'",
    );
    fails_with(
        &["trend", &path("app-default-chained-arm64"), &v1],
        "no architecture common to every build",
    );
    let log = testdata()
        .join("logs/dyld4-macos15-chained.log")
        .display()
        .to_string();
    fails_with(
        &["trend", &path("app-default-chained-universal"), &log],
        "pick one with --arch",
    );
    // … which --arch does.
    weakscan()
        .args([
            "trend",
            "--arch",
            "x86_64",
            &path("app-default-chained-universal"),
            &log,
        ])
        .assert()
        .code(0);
    fails_with(&["trend", "-", "-"], "- (stdin) can be read only once");
    // A bad build is named, the first in the trend's order when several are bad.
    let bad = testdata()
        .join("malformed/big-endian")
        .display()
        .to_string();
    let missing = testdata().join("no-such-build").display().to_string();
    let line = fails_with(&["trend", &v1, &bad, &missing], "big-endian");
    assert!(!line.contains("no-such-build"), "{line}");
    fails_with(&["trend", &v1, &missing, &bad], "no-such-build");
    assert!(Path::new(&bad).is_file());
}

#[test]
fn no_step_is_ranked_without_a_change_or_without_lookups() {
    // dyld4 of macOS 14 prints no lookup lines, and its chained binds do not tell the weak ones
    // (testdata/logs/README.md): no lookups to rank by.
    let log = testdata()
        .join("logs/dyld4-macos14-chained.log")
        .display()
        .to_string();
    let v1 = path("app-default-chained-x86_64");
    for (args, headline) in [
        (
            [&log, &log],
            "no step ranked: the lookups of some builds are not known",
        ),
        ([&v1, &v1], "lookups did not change from one to the next"),
    ] {
        let doc = json(&["trend", "--format", "json", args[0], args[1]]);
        let s = &doc["series"][0];
        assert_eq!(s["largest_step"], Value::Null);
        assert_eq!(s["flag_threshold"], Value::Null);
        assert_eq!(s["steps"][0]["flagged"], false);
        assert_eq!(s["steps"][0]["magnitude"], 0);
        let out = weakscan()
            .args(["trend", args[0], args[1]])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.lines().next().unwrap().ends_with(headline), "{text}");
        assert!(!text.contains('◀'), "{text}");
    }
}

#[test]
fn markdown_is_appended_to_the_job_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let (v1, v2) = (
        path("app-default-chained-x86_64"),
        path("app-v2-default-chained-x86_64"),
    );
    let out = weakscan()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["trend", "--format", "markdown", &v1, &v2])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.starts_with("## weakscan trend (x86_64): 2 builds; largest step `app-default-chained-x86_64` → `app-v2-default-chained-x86_64`"),
        "{md}"
    );
    assert_eq!(
        std::fs::read_to_string(&summary).unwrap(),
        format!("earlier step\n{md}")
    );
    // A table is not appended.
    weakscan()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["trend", &v1, &v2])
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(&summary).unwrap(),
        format!("earlier step\n{md}")
    );
}
