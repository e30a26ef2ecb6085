//! The run's thread pool changes nothing but speed: the same bytes on one core as on all of
//! them (and without a pool, under an address-space limit), and errors in the documented order
//! (each input's read in order, then each input's debug map in order) whatever finishes first.

use crate::util::{bin, fixture, skip, testdata, weakscan};
use std::path::PathBuf;
use std::process::Command;

/// `weakscan ARGS` under `taskset -c 0` (one core: a pool of one thread); `None` without
/// taskset.
fn on_one_core(args: &[&str]) -> Option<std::process::Output> {
    let out = Command::new("taskset")
        .args(["-c", "0"])
        .arg(bin())
        .args(args)
        .env("COLUMNS", crate::util::TEST_COLUMNS)
        .output()
        .ok()?;
    Some(out)
}

/// The inputs compared: the attribution fixture and a chained one, plus two Node.js builds when
/// cached (the sizes where the pool's steps overlap).
fn pairs() -> Vec<(String, String)> {
    let mut pairs = vec![(
        fixture("app-attr-x86_64").display().to_string(),
        fixture("app-default-chained-x86_64").display().to_string(),
    )];
    let cache = std::env::var_os("WEAKSCAN_NODE_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".cache/node"));
    let (a, b) = (cache.join("22.11.0/node"), cache.join("24.11.1/node"));
    if a.is_file() && b.is_file() {
        pairs.push((a.display().to_string(), b.display().to_string()));
    } else {
        skip("Node.js 22.11.0 and 24.11.1 not cached (scripts/fetch-node.sh): fixtures only");
    }
    pairs
}

#[test]
fn one_core_and_every_core_give_the_same_bytes() {
    if on_one_core(&["--version"]).is_none_or(|o| !o.status.success()) {
        skip("taskset cannot run here");
        return;
    }
    for (old, new) in pairs() {
        for args in [
            vec!["diff", &old, &new],
            vec!["diff", "--format", "json", "--symbols", &old, &new],
            vec!["diff", "--by", "namespace", "--format", "json", &old, &new],
            vec!["scan", &old],
            vec!["scan", "--format", "json", "--by", "object", &old, &new],
            vec!["scan", "--format", "json", "--by", "pattern", &new],
        ] {
            let all = weakscan().args(&args).output().unwrap();
            let one = on_one_core(&args).unwrap();
            assert_eq!(all.status.code(), Some(0), "{args:?}: {all:?}");
            assert_eq!(one.status.code(), Some(0), "{args:?}: {one:?}");
            assert!(
                all.stdout == one.stdout,
                "{args:?}: output differs on one core"
            );
        }
    }
}

#[test]
fn errors_come_in_the_inputs_order_whatever_finishes_first() {
    let bad_map = testdata()
        .join("malformed/stab-string-past-string-table")
        .display()
        .to_string();
    let bad_trie = testdata().join("malformed/trie-loop").display().to_string();
    let missing = "/nonexistent/weakscan-input";
    // (arguments, the input the error names, a word of it). `diff` reads its two builds at
    // once: both reads, then both debug maps, each in the inputs' order. `scan` reads its
    // inputs one after the other, each with its debug map.
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (vec!["diff", &bad_map, missing], missing, "No such file"),
        (vec!["diff", missing, &bad_map], missing, "No such file"),
        (vec!["diff", &bad_map, &bad_trie], &bad_trie, "trie"),
        (vec!["diff", &bad_trie, missing], &bad_trie, "trie"),
        (vec!["diff", &bad_map, &bad_map], &bad_map, "debug map"),
        (vec!["scan", &bad_map, &bad_trie], &bad_map, "debug map"),
        (vec!["scan", &bad_trie, &bad_map], &bad_trie, "trie"),
        (vec!["scan", &bad_map, missing], &bad_map, "debug map"),
        (vec!["scan", missing, &bad_map], missing, "No such file"),
    ];
    for (args, names, word) in &cases {
        let mut lines = std::collections::BTreeSet::new();
        for _ in 0..8 {
            let out = weakscan().args(args).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
            lines.insert(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        // And without a pool (256 MiB of address space cannot hold a 256 MiB stack): the same
        // line, the steps run one after the other.
        let limited = Command::new("sh")
            .arg("-c")
            .arg(r#"ulimit -v 262144 && exec "$0" "$@""#)
            .arg(bin())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(limited.status.code(), Some(2), "{args:?}: {limited:?}");
        lines.insert(String::from_utf8_lossy(&limited.stderr).into_owned());
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        let line = lines.pop_first().unwrap();
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(
            line.starts_with(&format!("weakscan: {names}: ")) && line.contains(word),
            "{args:?}: {line}"
        );
    }
}

#[test]
fn regression_a_scan_of_many_inputs_held_every_file_open() {
    // Reading every input before any debug map held all their files open: 300 dylibs under
    // `ulimit -n 256` (macOS's default) failed with "Too many open files", naming a different
    // file from run to run.
    let tmp = tempfile::tempdir().unwrap();
    let dylib = fixture("libweak-chained-x86_64.dylib");
    let mut args = vec!["scan".to_string(), "--format".into(), "json".into()];
    for i in 0..300 {
        let link = tmp.path().join(format!("lib{i}.dylib"));
        std::os::unix::fs::symlink(&dylib, &link).unwrap();
        args.push(link.display().to_string());
    }
    let free = weakscan().args(&args).output().unwrap();
    assert_eq!(free.status.code(), Some(0), "{free:?}");
    let limited = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -n 256 && exec "$0" "$@""#)
        .arg(bin())
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(
        limited.status.code(),
        Some(0),
        "{:?}",
        String::from_utf8_lossy(&limited.stderr)
    );
    assert!(
        limited.stdout == free.stdout,
        "output differs under ulimit -n 256"
    );
}

/// `weakscan ARGS` with a pool of one thread (`WEAKSCAN_THREADS=1`, how one CPU behaves) and a
/// deadline: a run that waits for a thread it holds itself fails here instead of hanging.
fn with_one_thread(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    weakscan()
        .env("WEAKSCAN_THREADS", "1")
        .current_dir(dir)
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

/// Every command that reads several inputs at once, with their argument lists (outputs into
/// `dir`): the reads beside the demangling must run on the pool, not wait for it.
fn commands_reading_in_parallel(dir: &std::path::Path) -> Vec<Vec<String>> {
    let s = |p: PathBuf| p.display().to_string();
    let (a, b) = (
        s(fixture("app-default-chained-x86_64")),
        s(fixture("app-v2-default-chained-x86_64")),
    );
    let (app, app2) = (
        s(testdata().join("process/App.app")),
        s(testdata().join("process/App-v2.app")),
    );
    let log = s(testdata().join("logs/dyld4-macos15-chained.log"));
    let out = |n: &str| s(dir.join(n));
    let v = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        v(&["report", "-o", &out("one.html"), &a]),
        v(&["report", "-o", &out("two.html"), &a, &b]),
        v(&["report", "-o", &out("three.html"), &a, &b, &a]),
        v(&["diff", &app, &app2]),
        v(&["diff", &a, &b]),
        v(&["trend", &a, &b, &a]),
        v(&["trend", &app, &app2]),
        v(&["scan", &app]),
        v(&["verify", &a, &log, "--tolerance", "100000"]),
        v(&[
            "check",
            "--no-config",
            "--max-weak-bind-symbols",
            "100000",
            &a,
            &b,
        ]),
    ]
}

#[test]
fn regression_report_and_process_diff_hung_with_a_pool_of_one_thread() {
    // `report` joined reader threads from the pool's only worker while their reads waited for
    // the pool; a process `diff` did the same (`taskset -c 0` hung both).
    let dir = tempfile::tempdir().unwrap();
    for args in commands_reading_in_parallel(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let one = with_one_thread(&args, dir.path());
        assert_eq!(one.status.code(), Some(0), "{args:?}: {one:?}");
        if !args.contains(&"-o") {
            let all = weakscan().args(&args).output().unwrap();
            assert!(all.stdout == one.stdout, "{args:?}: output differs");
        }
    }
    match on_one_core(&["--version"]) {
        Some(o) if o.status.success() => {
            let out = dir.path().join("taskset.html");
            let a = fixture("app-default-chained-x86_64");
            let mut cmd = assert_cmd::Command::new("taskset");
            cmd.args(["-c", "0"])
                .arg(bin())
                .arg("report")
                .arg("-o")
                .arg(&out)
                .arg(&a);
            let o = cmd
                .timeout(std::time::Duration::from_secs(120))
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(0), "taskset: {o:?}");
        }
        _ => skip("taskset cannot run here: WEAKSCAN_THREADS=1 only"),
    }
}

#[test]
fn a_bad_thread_count_is_one_line_and_exit_2() {
    for bad in ["0", "17", "two", ""] {
        let o = weakscan()
            .env("WEAKSCAN_THREADS", bad)
            .arg("scan")
            .arg(fixture("app-default-chained-x86_64"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {o:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("WEAKSCAN_THREADS"), "{err}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn regression_report_hung_or_panicked_under_an_address_space_limit() {
    // Under `ulimit -v` the report hung (6 runs in 6 at 600000 KiB) or panicked with "failed
    // to spawn thread" (exit 101): it must finish with its report or one line and exit 2.
    let dir = tempfile::tempdir().unwrap();
    let a = fixture("app-default-chained-x86_64");
    let b = fixture("app-v2-default-chained-x86_64");
    for limit in [200_000, 600_000, 800_000] {
        let out = dir.path().join(format!("r{limit}.html"));
        let o = assert_cmd::Command::new("sh")
            .arg("-c")
            .arg(format!(r#"ulimit -v {limit} && exec "$0" "$@""#))
            .arg(bin())
            .arg("report")
            .arg("-o")
            .arg(&out)
            .args([&a, &b, &a, &b])
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        match o.status.code() {
            Some(0) => assert!(out.is_file(), "{limit}"),
            Some(2) => assert_eq!(err.lines().count(), 1, "{limit}: {err}"),
            other => panic!("ulimit -v {limit}: exit {other:?}: {err}"),
        }
    }
}
