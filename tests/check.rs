//! `weakscan check` and `weakscan baseline` on the committed fixtures: every budget kind passing
//! and failing, the allowlist, per-arch sections, policy and baseline errors, golden files of
//! every format.
//!
//! Counted figures of the chained x86_64 fixtures (operator new/delete allowed by default):
//! v1 36 weak-bound symbols, 36 lookups, 36 weak-def exports, 30 of each in
//! `v8::internal::StaticCallInterfaceDescriptor<…>`; v2 96 of each, 90 in that template.

use crate::util::{fixture, golden_exit, weakscan};
use std::path::{Path, PathBuf};

/// One test per case; `$body` gets nothing and asserts on its own.
fn fx(name: &str) -> String {
    fixture(name).display().to_string()
}

/// `weakscan check` (or any command) run in `dir` without a job summary; (exit code, stdout,
/// stderr).
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

/// Runs in an empty directory (no weakscan.toml) and returns (code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), args)
}

/// Asserts the exit code of `weakscan check ARGS` and returns the JSON report.
fn check_json(args: &[&str], code: i32) -> serde_json::Value {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let (got, stdout, stderr) = run(&all);
    assert_eq!(got, code, "weakscan {all:?}: {stderr}{stdout}");
    serde_json::from_str(&stdout).expect("JSON report")
}

/// Asserts exit 2 and one stderr line containing `needle`, in `dir`.
fn fails_in(dir: &Path, args: &[&str], needle: &str) {
    let (code, stdout, stderr) = run_in(dir, args);
    assert_eq!(code, 2, "weakscan {args:?}: {stderr}{stdout}");
    assert!(stdout.is_empty(), "no stdout on error: {stdout}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains(needle),
        "stderr of {args:?} was {stderr:?}, wanted {needle:?}"
    );
}

fn fails(args: &[&str], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    fails_in(dir.path(), args, needle);
}

/// The budget of `report`'s first image whose title is `title`.
fn budget<'a>(report: &'a serde_json::Value, title: &str) -> &'a serde_json::Value {
    report["images"][0]["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| {
            let t = match b["kind"].as_str().unwrap() {
                "group" => format!("group {}", b["pattern"].as_str().unwrap()),
                k => format!("{k} {}", b["figure"].as_str().unwrap()),
            };
            t == title
        })
        .unwrap_or_else(|| panic!("no budget {title} in {report}"))
}

/// A baseline of `name` written to a temp dir.
fn baseline_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("weakscan-baseline.json");
    let (code, _, stderr) = run(&["baseline", &fx(name), "-o", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    (dir, path)
}

// ---- absolute maxima ----

#[test]
fn max_budgets_pass_and_fail_for_each_figure() {
    let v1 = fx("app-default-chained-x86_64");
    for flag in [
        "--max-predicted-weak-lookups",
        "--max-weak-def-exports",
        "--max-weak-bind-symbols",
    ] {
        let r = check_json(&[&v1, flag, "36"], 0);
        assert_eq!(r["passed"], true, "{flag} 36");
        let r = check_json(&[&v1, flag, "35"], 1);
        assert_eq!(r["passed"], false, "{flag} 35");
        let b = &r["images"][0]["budgets"][0];
        assert_eq!(b["kind"], "max");
        assert_eq!(b["value"], 36);
        assert_eq!(b["limit"], 35);
        assert!(
            b["message"]
                .as_str()
                .unwrap()
                .contains("is 36, over the maximum of 35")
        );
    }
}

#[test]
fn max_budgets_from_the_policy_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("weakscan.toml"),
        "[budget]\npredicted_weak_lookups = 36\nweak_def_exports = 36\nweak_bind_symbols = 36\n",
    )
    .unwrap();
    let (code, out, _) = run_in(dir.path(), &["check", &fx("app-default-chained-x86_64")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("policy weakscan.toml"));
    let (code, out, _) = run_in(dir.path(), &["check", &fx("app-v2-default-chained-x86_64")]);
    assert_eq!(code, 1);
    assert!(out.contains("weakscan check FAILED: 3 of 3 budgets exceeded on 1 image"));
    // A flag overrides the file; --no-config ignores it.
    let (code, _, _) = run_in(
        dir.path(),
        &[
            "check",
            &fx("app-v2-default-chained-x86_64"),
            "--max-weak-bind-symbols",
            "96",
        ],
    );
    assert_eq!(code, 1, "the two other maxima still fail");
    fails_in(
        dir.path(),
        &["check", "--no-config", &fx("app-v2-default-chained-x86_64")],
        "no budgets",
    );
}

// ---- against a baseline ----

#[test]
fn increase_as_a_count() {
    let (_dir, base) = baseline_of("app-default-chained-x86_64");
    let base = base.to_str().unwrap();
    let v2 = fx("app-v2-default-chained-x86_64");
    let r = check_json(&[&v2, "--baseline", base, "--max-increase", "60"], 0);
    let b = budget(&r, "increase weak_bind_symbols");
    assert_eq!(
        (b["baseline"].as_u64(), b["value"].as_u64()),
        (Some(36), Some(96))
    );
    assert_eq!(b["limit"], 96);
    let r = check_json(&[&v2, "--baseline", base, "--max-increase", "59"], 1);
    assert_eq!(r["images"][0]["budgets"].as_array().unwrap().len(), 3);
    assert!(
        budget(&r, "increase predicted_weak_lookups")["message"]
            .as_str()
            .unwrap()
            .contains("rose from 36 to 96 (+60, +166.7%) since the baseline, over the allowed increase of +59 (at most 95)")
    );
    // A baseline without --max-increase allows no increase at all; the same build passes.
    check_json(&[&v2, "--baseline", base], 1);
    check_json(&[&fx("app-default-chained-x86_64"), "--baseline", base], 0);
}

#[test]
fn regression_a_huge_increase_wrapped_and_failed_an_unchanged_figure() {
    // `--max-increase 18446744073709551615` (or `1e20%`) made baseline + increase wrap in 64
    // bits: "stayed at 36 … at most 35", exit 1. Absurd values are now refused when parsed;
    // the largest accepted ones pass an unchanged build.
    let (dir, base) = baseline_of("app-default-chained-x86_64");
    let base = base.to_str().unwrap();
    let same = fx("app-default-chained-x86_64");
    for bad in ["18446744073709551615", "1000000000001", "1e20%", "1000001%"] {
        fails_in(
            dir.path(),
            &["check", &same, "--baseline", base, "--max-increase", bad],
            "invalid increase",
        );
    }
    for ok in ["1000000000000", "1000000%", "0", "0%"] {
        check_json(&[&same, "--baseline", base, "--max-increase", ok], 0);
    }
    let policy = dir.path().join("huge.toml");
    std::fs::write(
        &policy,
        format!("[baseline]\nfile = {base:?}\nmax_increase = 18446744073709551615\n"),
    )
    .unwrap();
    fails_in(
        dir.path(),
        &["check", &same, "--config", policy.to_str().unwrap()],
        "invalid increase 18446744073709551615: at most 1000000000000",
    );
}

#[test]
fn regression_baseline_values_with_newlines_broke_the_error_line() {
    // A baseline's `arch` or `command` holding a newline or U+202E was printed raw.
    let (dir, base) = baseline_of("app-default-chained-x86_64");
    let text = std::fs::read_to_string(&base).unwrap();
    let same = fx("app-default-chained-x86_64");
    for (from, to) in [
        (
            "\"command\":\"baseline\"",
            "\"command\":\"base\\nline\\u202e\"",
        ),
        ("\"arch\":\"x86_64\"", "\"arch\":\"x86\\n_64\\u202e\""),
    ] {
        assert!(text.contains(from), "{from}");
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, text.replace(from, to)).unwrap();
        let (code, stdout, stderr) = run(&["check", &same, "--baseline", bad.to_str().unwrap()]);
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
        assert!(!stderr.contains('\u{202e}'), "{stderr:?}");
        assert!(
            stderr.contains("\\x0a") && stderr.contains("\\u{202e}"),
            "{stderr:?}"
        );
    }
}

#[test]
fn regression_glob_errors_and_paths_with_newlines_were_printed_raw() {
    let dir = tempfile::tempdir().unwrap();
    let same = fx("app-default-chained-x86_64");
    fails_in(
        dir.path(),
        &["check", &same, "--allow", "[z-\n]"],
        "invalid glob \"[z-\\n]\"",
    );
    fails_in(
        dir.path(),
        &["scan", "no\nsuch\u{202e}file"],
        "no\\x0asuch\\u{202e}file: No such file",
    );
    let odd = dir.path().join("a\nb\u{2066}");
    std::fs::write(&odd, b"\x7fELF").unwrap();
    fails_in(
        dir.path(),
        &["scan", odd.to_str().unwrap()],
        "a\\x0ab\\u{2066}",
    );
}

#[test]
fn increase_as_a_percentage() {
    let (_dir, base) = baseline_of("app-default-chained-x86_64");
    let base = base.to_str().unwrap();
    let v2 = fx("app-v2-default-chained-x86_64");
    check_json(&[&v2, "--baseline", base, "--max-increase", "167%"], 0);
    let r = check_json(&[&v2, "--baseline", base, "--max-increase", "166%"], 1);
    assert_eq!(
        budget(&r, "increase weak_def_exports")["max_increase"],
        "+166%"
    );
    assert_eq!(budget(&r, "increase weak_def_exports")["limit"], 95);
    // Both given: each must hold.
    let r = check_json(
        &[
            &v2,
            "--baseline",
            base,
            "--max-increase",
            "500%",
            "--max-increase",
            "10",
        ],
        1,
    );
    let n_failed = r["images"][0]["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["passed"] == false)
        .count();
    assert_eq!(n_failed, 3, "the count fails, the percentage holds");
}

#[test]
fn offending_groups_are_the_grown_ones_with_new_examples() {
    let (_dir, base) = baseline_of("app-default-chained-x86_64");
    let r = check_json(
        &[
            &fx("app-v2-default-chained-x86_64"),
            "--baseline",
            base.to_str().unwrap(),
            "--max-increase",
            "10%",
        ],
        1,
    );
    let o = &r["images"][0]["offending_groups"];
    assert_eq!(o.as_array().unwrap().len(), 1, "{o}");
    assert_eq!(
        o[0]["key"],
        "v8::internal::StaticCallInterfaceDescriptor<…>"
    );
    assert_eq!(
        (o[0]["baseline"].as_u64(), o[0]["value"].as_u64()),
        (Some(30), Some(90))
    );
    let examples = o[0]["examples"].as_array().unwrap();
    assert_eq!(examples.len(), 3);
    for e in examples {
        // v1 has 6 descriptors; the examples are new in v2.
        assert!(
            e.as_str()
                .unwrap()
                .contains("StaticCallInterfaceDescriptor<"),
            "{e}"
        );
    }
    assert_eq!(
        r["fix"].as_array().unwrap().len(),
        4,
        "three fixes and how to accept"
    );
}

// ---- group budgets ----

#[test]
fn group_budgets_glob_and_regex() {
    let v2 = fx("app-v2-default-chained-x86_64");
    check_json(&[&v2, "--group", "v8::internal::*=90"], 0);
    let r = check_json(&[&v2, "--group", "v8::internal::*=89"], 1);
    let b = budget(&r, "group v8::internal::*");
    assert_eq!(
        (b["value"].as_u64(), b["groups_matched"].as_u64()),
        (Some(90), Some(1))
    );
    assert_eq!(r["images"][0]["offending_groups"][0]["value"], 90);
    check_json(&[&v2, "--group", "re:Descriptor<…>$=90"], 0);
    check_json(&[&v2, "--group", "re:Descriptor<…>$=0"], 1);
    // ASCII dots stand for the ellipsis in globs; a pattern that matches nothing holds.
    check_json(
        &[
            &v2,
            "--group",
            "v8::internal::StaticCallInterfaceDescriptor<...>=89",
        ],
        1,
    );
    check_json(&[&v2, "--group", "node::*=0"], 0);
}

#[test]
fn group_budgets_by_namespace_and_lookups() {
    let v2 = fx("app-v2-default-chained-x86_64");
    check_json(&[&v2, "--by", "namespace", "--group", "v8::internal=90"], 0);
    check_json(&[&v2, "--by", "namespace", "--group", "v8::internal=89"], 1);
    check_json(
        &[&v2, "--by", "namespace", "--depth", "1", "--group", "v8=89"],
        1,
    );
    // (global): operator new/delete are allowed; the weakscan_* inline globals are not.
    let r = check_json(
        &[
            &v2,
            "--by",
            "namespace",
            "--group-figure",
            "predicted_weak_lookups",
            "--group",
            "(global)=0",
        ],
        1,
    );
    let b = budget(&r, "group (global)");
    assert_eq!(b["figure"], "predicted_weak_lookups");
    assert_eq!(b["value"], 4);
    fails(
        &["check", &v2, "--depth", "3", "--group", "x=1"],
        "--depth applies only to --by namespace",
    );
}

#[test]
fn group_budgets_from_the_policy_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("weakscan.toml"),
        "[grouping]\nby = \"namespace\"\ndepth = 2\n[groups]\n\"v8::internal\" = 30\n\"re:^ada$\" = 2\n",
    )
    .unwrap();
    let (code, _, _) = run_in(dir.path(), &["check", &fx("app-default-chained-x86_64")]);
    assert_eq!(code, 0);
    let (code, out, _) = run_in(dir.path(), &["check", &fx("app-v2-default-chained-x86_64")]);
    assert_eq!(code, 1);
    assert!(out.contains("✗ groups matching v8::internal (1 group) have 90 weak-bound symbols, over the maximum of 30"), "{out}");
}

// ---- the allowlist ----

#[test]
fn operator_new_and_delete_are_allowed_by_default() {
    let hidden = fx("app-hidden-chained-arm64");
    let r = check_json(
        &[
            &hidden,
            "--max-weak-bind-symbols",
            "0",
            "--max-predicted-weak-lookups",
            "0",
        ],
        0,
    );
    let f = &r["images"][0]["figures"];
    assert_eq!(f[0]["figure"], "predicted_weak_lookups");
    assert_eq!(
        (f[0]["total"].as_u64(), f[0]["allowed"].as_u64()),
        (Some(3 + 44), Some(3 + 44))
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("weakscan.toml"),
        "[allow]\noperator_new_delete = false\n[budget]\nweak_bind_symbols = 0\n",
    )
    .unwrap();
    let (code, out, _) = run_in(dir.path(), &["check", &hidden]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("weak-bound symbols is 3, over the maximum of 0"),
        "{out}"
    );
}

#[test]
fn allowed_symbols_and_groups_are_not_counted() {
    let v1 = fx("app-default-chained-x86_64");
    check_json(&[&v1, "--max-weak-bind-symbols", "35"], 1);
    check_json(
        &[
            &v1,
            "--max-weak-bind-symbols",
            "35",
            "--allow",
            "weakscan_tls_depth",
        ],
        0,
    );
    check_json(
        &[
            &v1,
            "--max-weak-bind-symbols",
            "35",
            "--allow",
            "_weakscan_tls_*",
        ],
        0,
    );
    check_json(
        &[
            &v1,
            "--max-weak-bind-symbols",
            "6",
            "--allow-group",
            "v8::internal::*",
        ],
        0,
    );
    check_json(
        &[
            &v1,
            "--max-weak-bind-symbols",
            "5",
            "--allow-group",
            "v8::internal::*",
        ],
        1,
    );
    // The allowlist applies to the baseline too: the increase stays +60.
    let (_dir, base) = baseline_of("app-default-chained-x86_64");
    let r = check_json(
        &[
            &fx("app-v2-default-chained-x86_64"),
            "--baseline",
            base.to_str().unwrap(),
            "--max-increase",
            "60",
            "--allow",
            "re:^weakscan_",
        ],
        0,
    );
    let b = budget(&r, "increase weak_bind_symbols");
    assert_eq!(
        (b["baseline"].as_u64(), b["value"].as_u64()),
        (Some(32), Some(92))
    );
}

// ---- per-arch sections ----

#[test]
fn per_arch_sections_for_universal_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("weakscan.toml"),
        "[budget]\nweak_bind_symbols = 100\n[arch.arm64.budget]\nweak_bind_symbols = 50\n[arch.arm64.groups]\n\"v8::*\" = 0\n",
    )
    .unwrap();
    let (code, out, _) = run_in(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            &fx("app-v2-default-chained-universal"),
        ],
    );
    assert_eq!(code, 1);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let images = r["images"].as_array().unwrap();
    assert_eq!(
        (images[0]["arch"].as_str(), images[0]["passed"].as_bool()),
        (Some("x86_64"), Some(true))
    );
    assert_eq!(
        (images[1]["arch"].as_str(), images[1]["passed"].as_bool()),
        (Some("arm64"), Some(false))
    );
    assert_eq!(images[0]["budgets"].as_array().unwrap().len(), 1);
    assert_eq!(images[1]["budgets"].as_array().unwrap().len(), 2);
    assert_eq!(images[1]["budgets"][0]["limit"], 50);
    let (code, _, _) = run_in(
        dir.path(),
        &[
            "check",
            "--arch",
            "x86_64",
            &fx("app-v2-default-chained-universal"),
        ],
    );
    assert_eq!(code, 0);
}

// ---- policy and usage errors: exit 2, file:line:column ----

#[test]
fn bad_policy_files_name_line_and_column() {
    for (text, needle) in [
        (
            "[budget]\nmax_lookups = 3\n",
            "weakscan.toml:2:1: unknown field `max_lookups`, expected one of",
        ),
        (
            "[budget]\nweak_bind_symbols = \"x\"\n",
            "weakscan.toml:2:21: invalid type: string \"x\", expected u64",
        ),
        (
            "[budget]\nweak_bind_symbols = -1\n",
            "weakscan.toml:2:21: invalid value: integer `-1`, expected u64",
        ),
        (
            "[groups]\n\"v8::{internal\" = 0\n",
            "weakscan.toml:2:1: invalid glob \"v8::{internal\": unclosed alternate group",
        ),
        (
            "[groups]\n\"re:v8::(\" = 0\n",
            "weakscan.toml:2:1: invalid regex \"v8::(\": unclosed group",
        ),
        (
            "[allow]\ngroups = [\"re:[z-a]\"]\n",
            "weakscan.toml:2:11: invalid regex \"[z-a]\": invalid character class range, the start must be <= the end",
        ),
        (
            "[baseline]\nmax_increase = 1.5\n",
            "weakscan.toml:2:16: invalid increase 1.5: write a percentage as a string",
        ),
        ("[arch.ppc64]\n", "weakscan.toml:1:7: unknown field `ppc64`"),
        ("[budget\n", "weakscan.toml:1:8: "),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("weakscan.toml"), text).unwrap();
        fails_in(
            dir.path(),
            &["check", &fx("app-default-chained-x86_64")],
            needle,
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    let v1 = fx("app-default-chained-x86_64");
    fails(&["check", &v1], "no budgets");
    fails(
        &["check", &v1, "--max-increase", "10%"],
        "a maximum increase needs a baseline",
    );
    fails(
        &["check", &v1, "--config", "no/such.toml"],
        "no/such.toml: No such file or directory",
    );
    fails(
        &["check", &v1, "--baseline", "no/such.json"],
        "no/such.json: No such file or directory",
    );
    fails(&["check", &v1, "--allow", "re:("], "--allow: invalid regex");
    let (_dir, base) = baseline_of("app-default-chained-x86_64");
    fails(
        &["check", &v1, &v1, "--baseline", base.to_str().unwrap()],
        "a baseline is compared with one file",
    );
    let (code, _, _) = run(&["check", &v1, "--max-increase", "ten"]);
    assert_eq!(code, 2);
    let (code, _, _) = run(&["check", &v1, "--group", "v8::*"]);
    assert_eq!(code, 2);
}

// ---- baselines ----

#[test]
fn baseline_is_byte_identical_across_runs() {
    let (_a, first) = baseline_of("app-default-chained-universal");
    let (_b, second) = baseline_of("app-default-chained-universal");
    let (a, b) = (
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap(),
    );
    assert_eq!(a, b);
    let doc: serde_json::Value = serde_json::from_slice(&a).unwrap();
    assert_eq!(doc["command"], "baseline");
    assert_eq!(doc["schema_version"], 2);
    assert_eq!(crate::util::baseline_rows(&doc).len(), 2);
    assert_eq!(crate::util::baseline_names(&doc, 0, "weak_bound").len(), 39);
    assert_eq!(crate::util::baseline_names(&doc, 0, "weak_defs").len(), 36);
    // Each object's rows are sorted by raw name; no name is in two.
    let mut all = Vec::new();
    for object in doc["symbols"][0]["objects"].as_array().unwrap() {
        let raw: Vec<&str> = object["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[0].as_str().unwrap())
            .collect();
        assert!(raw.is_sorted(), "sorted by raw name: {raw:?}");
        all.extend(raw);
    }
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n, "a name in two objects");
    // One row a line.
    let rows: usize = crate::util::baseline_rows(&doc)
        .iter()
        .map(|(_, r)| r.len())
        .sum();
    let text = String::from_utf8_lossy(&a);
    assert_eq!(text.lines().filter(|l| l.starts_with("[\"")).count(), rows);
    // Stdout without -o is the same document.
    let (code, stdout, _) = run(&["baseline", &fx("app-default-chained-universal")]);
    assert_eq!(code, 0);
    assert_eq!(stdout.as_bytes(), a.as_slice());
}

#[test]
fn baseline_of_another_arch_is_refused() {
    let (_dir, base) = baseline_of("app-default-chained-arm64");
    fails(
        &[
            "check",
            &fx("app-default-chained-x86_64"),
            "--baseline",
            base.to_str().unwrap(),
        ],
        "the baseline is for arm64 but",
    );
    let (_dir, uni) = baseline_of("app-default-chained-universal");
    fails(
        &[
            "check",
            &fx("app-default-chained-x86_64"),
            "--baseline",
            uni.to_str().unwrap(),
        ],
        "the baseline has arm64, which",
    );
    check_json(
        &[
            "--arch",
            "x86_64",
            &fx("app-default-chained-x86_64"),
            "--baseline",
            uni.to_str().unwrap(),
        ],
        0,
    );
}

#[test]
fn baseline_of_another_schema_or_command_is_refused() {
    let (dir, base) = baseline_of("app-default-chained-x86_64");
    let text = std::fs::read_to_string(&base).unwrap();
    let other = dir.path().join("v2.json");
    std::fs::write(
        &other,
        text.replacen("\"schema_version\":2", "\"schema_version\":3", 1),
    )
    .unwrap();
    let v1 = fx("app-default-chained-x86_64");
    fails(
        &["check", &v1, "--baseline", other.to_str().unwrap()],
        "baseline has schema_version 3, this weakscan reads schema_version 1 to 2",
    );
    let scan = dir.path().join("scan.json");
    let (_, out, _) = run(&["scan", "--format", "json", &v1]);
    std::fs::write(&scan, out).unwrap();
    fails(
        &["check", &v1, "--baseline", scan.to_str().unwrap()],
        "this is `weakscan scan` output, not a baseline",
    );
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\n  \"schema_version\": 1,\n  oops\n}\n").unwrap();
    fails(
        &["check", &v1, "--baseline", junk.to_str().unwrap()],
        "junk.json:3:3: not a weakscan baseline",
    );
}

#[test]
fn baseline_reads_back_with_unknown_fields_and_null_figures() {
    let (dir, base) = baseline_of("app-default-chained-x86_64");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    doc["images"][0]["weak_def_exports"] = serde_json::Value::Null;
    doc["images"][0]["some_future_field"] = serde_json::json!({"x": 1});
    doc["future"] = serde_json::json!([1, 2]);
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_string(&doc).unwrap()).unwrap();
    let v2 = fx("app-v2-default-chained-x86_64");
    let e = edited.to_str().unwrap();
    std::fs::write(
        dir.path().join("weakscan.toml"),
        "[baseline]\nmax_increase = 60\nfigures = [\"weak_bind_symbols\", \"predicted_weak_lookups\"]\n",
    )
    .unwrap();
    let (code, _, stderr) = run_in(dir.path(), &["check", &v2, "--baseline", e]);
    assert_eq!(code, 0, "{stderr}");
    // A budget on the missing figure is an input error.
    fails(
        &["check", &v2, "--baseline", e],
        "edited.json: weak_def_exports is not in the baseline (x86_64)",
    );
}

// ---- GitHub job summary ----

#[test]
fn markdown_and_github_append_to_the_job_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let v2 = fx("app-v2-default-chained-x86_64");
    for format in ["github", "markdown", "table", "json"] {
        let out = weakscan()
            .current_dir(dir.path())
            .env("GITHUB_STEP_SUMMARY", &summary)
            .args([
                "check",
                &v2,
                "--max-weak-bind-symbols",
                "10",
                "--format",
                format,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
    }
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("earlier step\n## ❌ weakscan check failed"),
        "{text}"
    );
    assert_eq!(
        text.matches("## ❌ weakscan check failed").count(),
        2,
        "github and markdown only"
    );
}

// ---- golden files: WEAKSCAN_BLESS=1 rewrites them ----

const GATE: &str = "../tests/golden/gate.toml";

#[test]
fn golden_baseline() {
    golden_exit(
        "baseline-app-default-chained-x86_64.json",
        &["baseline", "bin/app-default-chained-x86_64"],
        0,
    );
}

#[test]
fn golden_check_pass_table() {
    golden_exit(
        "check-pass.txt",
        &["check", "--config", GATE, "bin/app-default-chained-x86_64"],
        0,
    );
}

#[test]
fn golden_check_fail_table() {
    golden_exit(
        "check-fail.txt",
        &[
            "check",
            "--config",
            GATE,
            "bin/app-v2-default-chained-x86_64",
        ],
        1,
    );
}

#[test]
fn golden_check_fail_json() {
    golden_exit(
        "check-fail.json",
        &[
            "check",
            "--config",
            GATE,
            "--format",
            "json",
            "bin/app-v2-default-chained-x86_64",
        ],
        1,
    );
}

#[test]
fn golden_check_fail_markdown() {
    golden_exit(
        "check-fail.md",
        &[
            "check",
            "--config",
            GATE,
            "--format",
            "markdown",
            "bin/app-v2-default-chained-x86_64",
        ],
        1,
    );
}

#[test]
fn golden_check_fail_github() {
    golden_exit(
        "check-fail-github.txt",
        &[
            "check",
            "--config",
            GATE,
            "--format",
            "github",
            "bin/app-v2-default-chained-x86_64",
        ],
        1,
    );
}

/// The PR comment of a failing check tells each failure once (no bullet list repeating the
/// budget table), leads with the story (headline, offending groups with their objects, the fix)
/// and links the HTML report after the fix, before the folded figures; the github summary line
/// names the report too.
#[test]
fn markdown_tells_each_failure_once_and_links_the_report() {
    let url = "https://github.com/octo/app/actions/runs/42/artifacts/9";
    let args = [
        "check",
        "--config",
        GATE,
        "bin/app-v2-default-chained-x86_64",
        "--report-url",
        url,
    ];
    let (code, md, _) = run_in(
        &crate::util::testdata(),
        &[&args[..], &["--format", "markdown"]].concat(),
    );
    assert_eq!(code, 1, "{md}");
    assert!(!md.lines().any(|l| l.starts_with("- ")), "no bullets: {md}");
    for message in [
        "predicted weak-def lookups is 95, over the maximum of 60",
        "rose from 35 to 95",
    ] {
        assert!(md.matches(message).count() <= 1, "{message} once: {md}");
    }
    let (story, details) = md.split_once("<details>").expect(&md);
    let at = |s: &str| story.find(s).unwrap_or_else(|| panic!("{s} in {story}"));
    assert!(at("**predicted weak-def lookups is 95") < at("| template |"));
    assert!(at("| template |") < at("**Fix:**"));
    assert!(at("**Fix:**") < at(&format!("[The HTML report](<{url}>)")));
    assert!(story.contains("| `descriptors_a.o` +1 more |"), "{story}");
    assert!(details.contains("| budget | value | limit | result |"));
    let (_, gh, _) = run_in(
        &crate::util::testdata(),
        &[&args[..], &["--format", "github"]].concat(),
    );
    assert!(gh.ends_with(&format!("; report: {url}\n")), "{gh}");
}

/// One 70 KB name, the largest offender: quoted whole, its group key made a headline line and
/// a table row of 70 KB each, and fitting the comment cut every line after the first headline
/// line (249 bytes left). Names are clipped before the comment is fitted: the verdict, the
/// largest group, the offenders, the fix and the budgets stay, the name's head and tail shown.
#[test]
fn regression_a_long_name_emptied_the_comment() {
    let names: Vec<String> = (0..200)
        .map(|i| crate::report::huge_name(i, if i == 0 { 70_000 } else { 40 }))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("app"),
        crate::report::with_weak_imports(&names),
    )
    .unwrap();
    let args = ["check", "app", "--max-weak-bind-symbols", "1"];
    let (code, md, err) = run_in(dir.path(), &[&args[..], &["--format", "markdown"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(md.len() < 8_000, "{} bytes: {md}", md.len());
    assert!(md.lines().all(|l| l.len() < 2_000), "{md}");
    assert!(!md.contains("was cut"), "{md}");
    let (story, details) = md.split_once("<details>").expect(&md);
    assert!(
        story.starts_with("## ❌ weakscan check failed\n\nFAILED: 1 of 1 budget exceeded"),
        "{story}"
    );
    let at = |s: &str| story.find(s).unwrap_or_else(|| panic!("{s} in {story}"));
    // The largest group in the headline and the first row, clipped and said so.
    let clipped = "kkk000(…)` (clipped from ";
    // Folded first (`node::` to `…::`), then cut: one identifier is longer than the room.
    assert!(at("Largest: `…::Big000kkk") < at(clipped));
    assert!(at("| template |") < at("| `…::Big000kkk"));
    assert_eq!(story.matches(clipped).count(), 2, "{story}");
    assert!(
        at("| `…::Big000kkk") < at("| `node::Big004"),
        "every offender"
    );
    assert!(at("| `node::Big004") < at("**Fix:**"));
    assert!(details.contains(
        "| max weak-bound symbols (`budget.weak_bind_symbols`) | 200 | ≤ 1 | ❌ **fail** |"
    ));
    assert!(details.ends_with("</details>\n\n"), "{details}");
}

// ---- the documented example ----

#[test]
fn the_policy_example_in_docs_ci_md_is_valid() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci.md")).unwrap();
    let after = doc
        .split("<!-- policy-example")
        .nth(1)
        .expect("policy-example marker");
    let block = after
        .split("```toml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("toml block");
    let p = weakscan::gate::policy::Policy::parse(block, Path::new("docs/weakscan.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        p.baseline,
        Some(PathBuf::from("docs/weakscan-baseline.json"))
    );
    let arm = p.rules_for("arm64");
    assert_eq!(arm.max[&weakscan::gate::Figure::PredictedWeakLookups], 2100);
    assert_eq!(p.rules_for("x86_64").groups.len(), 3);
}

/// Regression: `check` in a terminal hid the answer. At 80 columns its first screen was three
/// tables (figures, budgets with value and limit, PASS/FAIL on its own when cut in parts), the
/// offending groups and the fix started near line 37, each failure was stated three times (a
/// table row, a `✗` sentence, the headline of the step summary) and figures were named in
/// snake_case (`predicted_weak_lookups`) where `scan` says "predicted weak-def lookups". Now: the
/// verdict on line 1, then each failing budget once in scan's words with its policy key, the
/// offending groups and the fix, within the first 24 lines at 80 (and 120) columns.
#[test]
fn regression_check_in_a_terminal_hides_the_answer() {
    for width in ["80", "120"] {
        let text = crate::util::stdout_of(&[
            "check",
            "--config",
            "../tests/golden/gate.toml",
            "bin/app-v2-default-chained-x86_64",
            "--width",
            width,
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("weakscan check FAILED: 7 of 8 budgets exceeded on 1 image"),
            "{width}: {text}"
        );
        let screen = lines[..24.min(lines.len())].join("\n");
        // Each failing budget, its figures and its policy key on the first screen; increases of
        // one figure (+50% and +20) in one line.
        for needle in [
            "✗ predicted weak-def lookups is 95, over the maximum of 60",
            "(budget.predicted_weak_lookups)",
            "✗ weak-bound symbols is 95, over the maximum of 60 (budget.weak_bind_symbols)",
            "✗ predicted weak-def lookups rose from 35 to 95 (+60, +171.4%)",
            "✗ weak-bound symbols rose from 35 to 95 (+60, +171.4%)",
            "✗ groups matching v8::internal::* (1 group) have 90 weak-bound symbols",
            "v8::internal::StaticCallInterfaceDescriptor<…>",
            "30 → 90 (+60, +200.0%)",
            "fix: compile descriptors_b.o with -fvisibility=hidden",
        ] {
            assert!(
                screen.contains(needle),
                "{width}: `{needle}` not in the first 24 lines:\n{screen}"
            );
        }
        // Each failing budget named once in the whole output.
        let flat = text.replace("\n  ", " ");
        for (needle, times) in [
            ("is 95, over the maximum of 60", 2),
            ("rose from 35 to 95", 2),
            ("(≤ 52)", 2),
            ("(≤ 55)", 2),
            ("v8::internal::* (1 group)", 1),
            ("(baseline.max_increase)", 2),
        ] {
            assert_eq!(
                flat.matches(needle).count(),
                times,
                "{width}: {needle}\n{text}"
            );
        }
        assert!(!text.contains("group v8::internal::*"), "{width}: {text}");
        assert!(!text.contains("┆ FAIL"), "{width}: {text}");
        // scan's words; the policy file's names only as the policy keys.
        let unkeyed = text
            .replace("budget.predicted_weak_lookups", "")
            .replace("budget.weak_bind_symbols", "");
        for snake in [
            "predicted_weak_lookups",
            "weak_bind_symbols",
            "weak_def_exports",
        ] {
            assert!(!unkeyed.contains(snake), "{width}: {snake} in\n{text}");
        }
    }
}
