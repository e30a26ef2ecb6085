//! The GitHub Action (`action.yml`, `action/run.sh`), run here as GitHub's runner runs a
//! composite action: `action.yml` is read (the subset of YAML and of expressions it uses, anything
//! else fails the test), each `run:` step runs in bash with its `env:` evaluated, its own
//! `$GITHUB_OUTPUT` file and the `GITHUB_*` and `RUNNER_*` variables pointing to temporary files;
//! of the `uses:` steps, actions/cache/restore and save copy a directory to and from a store of
//! keys, and actions/upload-artifact checks its file and gives a URL. `gh`, `curl` and `cargo`
//! are stubs on the PATH that record their calls; `gh` keeps a pull request's comments.
//! The weakscan under test is the one cargo built, given as the `weakscan` input (which skips the
//! install) or served by the `curl` and `cargo` stubs (which test the install).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

// ---- action.yml, read as the runner reads the part of YAML it uses ----

#[derive(Debug, Default)]
struct Step {
    id: Option<String>,
    cond: Option<String>,
    run: Option<String>,
    uses: Option<String>,
    env: Vec<(String, String)>,
    with: Vec<(String, String)>,
}

#[derive(Debug, Default)]
struct Action {
    /// Input name → (default, required).
    inputs: BTreeMap<String, (Option<String>, bool)>,
    /// Output name → its `value:` expression.
    outputs: BTreeMap<String, String>,
    steps: Vec<Step>,
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        return v[1..v.len() - 1].replace("''", "'");
    }
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        assert!(!v.contains('\\'), "action.yml: escapes in {v}");
        return v[1..v.len() - 1].to_string();
    }
    assert!(
        !matches!(v, "|" | ">" | "|-" | ">-"),
        "action.yml: block scalars are not read by this test"
    );
    v.to_string()
}

/// `action.yml`: block mappings and sequences of `key: value` lines, two spaces an indent.
fn parse_action(text: &str) -> Action {
    let mut action = Action::default();
    let (mut section, mut name, mut map) = (String::new(), String::new(), String::new());
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut indent = raw.len() - line.len();
        let (item, line) = match line.strip_prefix("- ") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        if item {
            indent += 2;
        }
        let (key, value) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("action.yml:{}: not `key: value`: {raw}", n + 1));
        let (key, value) = (key.to_string(), value.trim().to_string());
        match (section.as_str(), indent) {
            (_, 0) => section = key,
            ("inputs" | "outputs", 2) => {
                name = key;
                if section == "inputs" {
                    action.inputs.insert(name.clone(), (None, false));
                }
            }
            ("inputs", 4) => {
                let input = action.inputs.get_mut(&name).unwrap();
                match key.as_str() {
                    "default" => input.0 = Some(unquote(&value)),
                    "required" => input.1 = value == "true",
                    _ => {}
                }
            }
            ("outputs", 4) if key == "value" => {
                action.outputs.insert(name.clone(), unquote(&value));
            }
            ("runs", 6) => {
                if item {
                    action.steps.push(Step::default());
                }
                let step = action.steps.last_mut().expect("a step");
                let value = unquote(&value);
                match key.as_str() {
                    "id" => step.id = Some(value),
                    "if" => step.cond = Some(value),
                    "run" => step.run = Some(value),
                    "uses" => step.uses = Some(value),
                    "shell" => assert_eq!(value, "bash", "action.yml:{}", n + 1),
                    "env" | "with" => map = key,
                    _ => panic!("action.yml:{}: step key {key} not read by this test", n + 1),
                }
            }
            ("runs", 8) => {
                let step = action.steps.last_mut().unwrap();
                let pair = (key, unquote(&value));
                match map.as_str() {
                    "env" => step.env.push(pair),
                    "with" => step.with.push(pair),
                    _ => unreachable!(),
                }
            }
            _ => {}
        }
    }
    action
}

fn read_action() -> Action {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    parse_action(&std::fs::read_to_string(path).expect("action.yml"))
}

// ---- the runner ----

/// One use of the action: its inputs, the `github` context, the machine.
struct Runner<'a> {
    action: &'a Action,
    world: &'a World,
    inputs: BTreeMap<String, String>,
    github: BTreeMap<&'static str, String>,
    /// Step id → its outputs, for the steps that ran.
    outputs: BTreeMap<String, BTreeMap<String, String>>,
    /// Ids of the steps declared so far.
    declared: Vec<String>,
}

/// What a use of the action did.
#[derive(Debug)]
struct Run {
    /// The exit code of the first step that failed (0 when none did), and its id.
    status: i32,
    failed_step: Option<String>,
    /// The action's outputs.
    outputs: BTreeMap<String, String>,
    /// The ids of the steps that ran (`uses:` steps too).
    ran: Vec<String>,
    /// `with:` of each actions/upload-artifact and actions/cache/restore step that ran, and the
    /// keys actions/cache/save saved.
    uploads: Vec<BTreeMap<String, String>>,
    caches: Vec<BTreeMap<String, String>>,
    saved: Vec<String>,
    /// Every run step's stdout and stderr, in order.
    log: String,
}

impl Runner<'_> {
    fn value(&self, expr: &str) -> String {
        let expr = expr.trim();
        if let Some(name) = expr.strip_prefix("inputs.") {
            let (default, _) = self
                .action
                .inputs
                .get(name)
                .unwrap_or_else(|| panic!("action.yml: inputs.{name} is not declared"));
            return match self.inputs.get(name) {
                Some(v) => v.clone(),
                None => self.interpolate(default.as_deref().unwrap_or("")),
            };
        }
        if let Some(rest) = expr.strip_prefix("steps.") {
            let (id, name) = rest
                .split_once(".outputs.")
                .unwrap_or_else(|| panic!("action.yml: {expr}"));
            assert!(
                self.declared.iter().any(|d| d == id),
                "action.yml: {expr}: no step {id} before"
            );
            return self
                .outputs
                .get(id)
                .and_then(|o| o.get(name))
                .cloned()
                .unwrap_or_default();
        }
        if let Some(name) = expr.strip_prefix("github.") {
            return self
                .github
                .get(name)
                .cloned()
                .unwrap_or_else(|| panic!("action.yml: github.{name} is not given by this test"));
        }
        panic!("action.yml: `{expr}`: an expression this test does not evaluate");
    }

    fn interpolate(&self, s: &str) -> String {
        let mut out = String::new();
        let mut rest = s;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("closing }}") + start;
            out.push_str(&self.value(&rest[start + 3..end]));
            rest = &rest[end + 2..];
        }
        out + rest
    }

    /// A step's `if:`; without a status function, `success() &&` is implied, as on GitHub.
    fn condition(&self, cond: Option<&str>, failed: bool) -> bool {
        let Some(cond) = cond else { return !failed };
        match cond.trim() {
            "!cancelled()" | "always()" => return true,
            "success()" => return !failed,
            "failure()" => return failed,
            _ => {}
        }
        if failed {
            return false;
        }
        cond.split("&&").all(|c| self.comparison(c))
    }

    /// `CONTEXT == 'literal'` or `CONTEXT != 'literal'`.
    fn comparison(&self, c: &str) -> bool {
        for (op, equal) in [("==", true), ("!=", false)] {
            if let Some((left, right)) = c.split_once(op) {
                let right = right.trim();
                let literal = right.strip_prefix('\'').and_then(|r| r.strip_suffix('\''));
                let literal = literal.filter(|l| !l.contains('\''));
                let literal = literal.unwrap_or_else(|| panic!("action.yml: if: {c}"));
                return (self.value(left) == literal) == equal;
            }
        }
        panic!("action.yml: if: {c}: not evaluated by this test");
    }

    fn run(mut self) -> Run {
        for name in self.inputs.keys() {
            assert!(self.action.inputs.contains_key(name), "no input {name}");
        }
        for (name, (_, required)) in &self.action.inputs {
            assert!(
                !required || self.inputs.contains_key(name),
                "input {name} is required"
            );
        }
        let mut run = Run {
            status: 0,
            failed_step: None,
            outputs: BTreeMap::new(),
            ran: vec![],
            uploads: vec![],
            caches: vec![],
            saved: vec![],
            log: String::new(),
        };
        for (n, step) in self.action.steps.iter().enumerate() {
            let id = step.id.clone().unwrap_or_else(|| format!("step-{n}"));
            let failed = run.failed_step.is_some();
            if self.condition(step.cond.as_deref(), failed) {
                run.ran.push(id.clone());
                let code = self.step(step, &id, &mut run);
                if code != 0 && !failed {
                    run.status = code;
                    run.failed_step = Some(id.clone());
                }
            }
            self.declared.push(id);
        }
        for (name, value) in &self.action.outputs {
            run.outputs.insert(name.clone(), self.interpolate(value));
        }
        run
    }

    /// `env:` or `with:`, evaluated.
    fn eval(&self, pairs: &[(String, String)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), self.interpolate(v)))
            .collect()
    }

    /// Runs one step; returns its exit code.
    fn step(&mut self, step: &Step, id: &str, run: &mut Run) -> i32 {
        if let Some(uses) = &step.uses {
            let with = self.eval(&step.with);
            if uses.starts_with("actions/upload-artifact@") {
                let path = Path::new(&with["path"]);
                assert!(
                    path.is_file(),
                    "upload-artifact: {} is no file",
                    path.display()
                );
                self.outputs.insert(
                    id.into(),
                    [("artifact-url".to_string(), ARTIFACT_URL.to_string())].into(),
                );
                run.uploads.push(with);
            } else if uses.starts_with("actions/cache/restore@") {
                // The cache of the repository: a directory per key, kept across runs.
                let store = self.world.path("cache-store").join(&with["key"]);
                let hit = store.is_dir();
                if hit {
                    copy_dir(&store, Path::new(&with["path"]));
                }
                let hit = [("cache-hit".to_string(), hit.to_string())];
                self.outputs.insert(id.into(), hit.into());
                run.caches.push(with);
            } else if uses.starts_with("actions/cache/save@") {
                let store = self.world.path("cache-store").join(&with["key"]);
                assert!(!store.exists(), "a key is saved once: {}", with["key"]);
                copy_dir(Path::new(&with["path"]), &store);
                run.saved.push(with["key"].clone());
            } else {
                panic!("action.yml: uses: {uses} is not known to this test");
            }
            return 0;
        }
        let script = step.run.as_deref().expect("run: or uses:");
        let output_file = self.world.dir.path().join(format!("output-{id}"));
        std::fs::write(&output_file, "").unwrap();
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .env_clear()
            .envs(self.world.env())
            .envs(self.eval(&step.env))
            .env("GITHUB_OUTPUT", &output_file)
            .current_dir(&self.world.workspace)
            .output()
            .expect("bash");
        run.log.push_str(&String::from_utf8_lossy(&out.stdout));
        run.log.push_str(&String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&output_file).unwrap();
        let outputs = text
            .lines()
            .map(|l| {
                let (k, v) = l
                    .split_once('=')
                    .unwrap_or_else(|| panic!("{id}: output {l:?}"));
                (k.to_string(), v.to_string())
            })
            .collect();
        self.outputs.insert(id.into(), outputs);
        out.status.code().expect("exit code")
    }
}

/// `cp -R FROM TO`: TO made anew, with FROM's contents.
fn copy_dir(from: &Path, to: &Path) {
    assert!(from.is_dir(), "{} is no directory", from.display());
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    let status = Command::new("cp")
        .arg("-R")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "cp -R {} {}",
        from.display(),
        to.display()
    );
}

const ARTIFACT_URL: &str = "https://github.com/octo/app/actions/runs/42/artifacts/9";
const HEAD_SHA: &str = "0123456789abcdef0123456789abcdef01234567";
const MARKER: &str = "<!-- weakscan-action: weakscan -->";

// ---- the machine: GitHub's files and variables, the stubs ----

/// `gh api` as the action calls it, on the comments of pull request 7 of octo/app, kept as
/// `$GH_STUB/comments/ID.json` (each with its author's login); each call is recorded as a JSON
/// array of its arguments in `$GH_STUB/calls`. The token is `$GH_STUB_LOGIN`'s
/// (`github-actions[bot]` unless set), which GraphQL's `viewer` gives and REST's `GET /user`
/// gives only for a user (a bot's installation token is refused there, as GitHub refuses it);
/// comments are written as that login. `GH_STUB_FAIL=1` answers every call as a read-only token
/// would; `GH_STUB_GRAPHQL_FAIL=1` every GraphQL query.
const GH_STUB: &str = r#"#!/usr/bin/env bash
set -euo pipefail
printf '%s\n' "$@" | jq -Rc . | jq -sc . >>"$GH_STUB/calls"
[ "${GH_TOKEN:-}" = test-token ] || { echo "gh stub: GH_TOKEN is ${GH_TOKEN:-unset}" >&2; exit 4; }
if [ "${GH_STUB_FAIL:-}" = 1 ]; then echo "HTTP 403: Resource not accessible by integration" >&2; exit 1; fi
[ "$1" = api ] || exit 3
shift
method=GET path= body=
login=${GH_STUB_LOGIN:-github-actions[bot]}
while [ $# -gt 0 ]; do
  case "$1" in
    --method) method=$2; shift 2 ;;
    --paginate) shift ;;
    -F) body=${2#body=@}; shift 2 ;;
    -f) [ "$2" = 'query=query { viewer { login } }' ] || { echo "gh stub: -f $2" >&2; exit 3; }; shift 2 ;;
    -*) echo "gh stub: flag $1" >&2; exit 3 ;;
    *) path=$1; shift ;;
  esac
done
[ "$path" != graphql ] || method=POST
comment() { # ID BODY-FILE
  jq -n --arg id "$1" --rawfile body "$2" --arg login "$login" \
    '{id: ($id | tonumber), body: $body, user: {login: $login},
      html_url: ("https://github.com/octo/app/pull/7#issuecomment-" + $id)}'
}
case "$method $path" in
  "POST graphql")
    if [ "${GH_STUB_GRAPHQL_FAIL:-}" = 1 ]; then echo "gh: HTTP 502" >&2; exit 1; fi
    jq -n --arg login "$login" '{data: {viewer: {login: $login}}}' ;;
  "GET user")
    case "$login" in
      *'[bot]') echo "gh: Resource not accessible by integration (HTTP 403)" >&2; exit 1 ;;
      *) jq -n --arg login "$login" '{login: $login}' ;;
    esac ;;
  "GET repos/octo/app/issues/7/comments?per_page=100")
    jq -s '.' "$GH_STUB"/comments/*.json ;;
  "POST repos/octo/app/issues/7/comments")
    id=$(( $(find "$GH_STUB/comments" -name '*.json' | wc -l) + 100 ))
    comment "$id" "$body" >"$GH_STUB/comments/$id.json"
    cat "$GH_STUB/comments/$id.json" ;;
  "PATCH repos/octo/app/issues/comments/"*)
    id=${path##*/}
    [ -f "$GH_STUB/comments/$id.json" ] || { echo "HTTP 404" >&2; exit 1; }
    comment "$id" "$body" >"$GH_STUB/comments/$id.json"
    cat "$GH_STUB/comments/$id.json" ;;
  *) echo "gh stub: $method $path" >&2; exit 3 ;;
esac
"#;

/// `curl -fsSL --retry 3 -o FILE URL`: the file named as the URL's last component in
/// `$STUB_LOG/releases`, else curl's exit code 22 (HTTP 404 with `-f`).
const CURL_STUB: &str = r#"#!/usr/bin/env bash
set -euo pipefail
out= url=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --retry) shift 2 ;;
    -*) shift ;;
    *) url=$1; shift ;;
  esac
done
echo "$url" >>"$STUB_LOG/curl"
src="$STUB_LOG/releases/${url##*/}"
[ -f "$src" ] || { echo "curl: (22) The requested URL returned error: 404" >&2; exit 22; }
cp "$src" "$out"
"#;

/// `cargo install … --root ROOT`: the weakscan under test copied to `ROOT/bin`.
const CARGO_STUB: &str = r#"#!/usr/bin/env bash
set -euo pipefail
echo "$*" >>"$STUB_LOG/cargo"
root=
while [ $# -gt 0 ]; do
  if [ "$1" = --root ]; then root=$2; fi
  shift
done
mkdir -p "$root/bin"
cp "$WEAKSCAN_UNDER_TEST" "$root/bin/weakscan"
"#;

/// A comment of pull request 7 by `login`, kept where the `gh` stub keeps them (`dir`).
fn add_comment(dir: &Path, id: u64, login: &str, body: &str) {
    let json = serde_json::json!({"id": id, "body": body, "user": {"login": login}, "html_url": "https://github.com/octo/app/pull/7"});
    std::fs::write(dir.join(format!("{id}.json")), json.to_string()).unwrap();
}

/// A temporary machine: a workspace holding the fixture as `out/app` and its baseline, the
/// runner's files, the stubs, and a pull request with two comments that are not ours (an
/// unrelated one and one quoting the marker).
struct World {
    dir: tempfile::TempDir,
    workspace: PathBuf,
    event_name: String,
    extra_env: Vec<(String, String)>,
}

fn weakscan_under_test() -> &'static str {
    env!("CARGO_BIN_EXE_weakscan")
}

impl World {
    fn new(event_name: &str) -> World {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("workspace");
        for sub in [
            "workspace/out",
            "temp",
            "tool-cache",
            "stubs",
            "gh/comments",
            "releases",
        ] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::fs::copy(
            crate::util::fixture("app-default-chained-x86_64"),
            workspace.join("out/app"),
        )
        .unwrap();
        for (name, text) in [("gh", GH_STUB), ("curl", CURL_STUB), ("cargo", CARGO_STUB)] {
            let path = dir.path().join("stubs").join(name);
            std::fs::write(&path, text).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let event =
            format!(r#"{{"pull_request": {{"number": 7, "head": {{"sha": "{HEAD_SHA}"}}}}}}"#);
        std::fs::write(dir.path().join("event.json"), event).unwrap();
        let comments = dir.path().join("gh/comments");
        add_comment(&comments, 1, "reviewer", "LGTM");
        add_comment(&comments, 2, "reviewer", &format!("> {MARKER}\n> quoted"));
        let out = crate::util::weakscan()
            .current_dir(&workspace)
            .args(["baseline", "out/app", "-o", "weakscan-baseline.json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "weakscan baseline: {out:?}");
        World {
            dir,
            workspace,
            event_name: event_name.into(),
            extra_env: vec![],
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The variables GitHub's runner sets for a step of a composite action.
    fn env(&self) -> Vec<(String, String)> {
        let p = |name: &str| self.path(name).display().to_string();
        let path = format!(
            "{}:{}",
            p("stubs"),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut env: Vec<(String, String)> = [
            ("PATH", path),
            ("HOME", p("")),
            ("GITHUB_ACTION_PATH", env!("CARGO_MANIFEST_DIR").to_string()),
            ("GITHUB_EVENT_NAME", self.event_name.clone()),
            ("GITHUB_EVENT_PATH", p("event.json")),
            ("GITHUB_STEP_SUMMARY", p("summary.md")),
            ("GITHUB_PATH", p("github-path")),
            ("GITHUB_REPOSITORY", "octo/app".into()),
            ("GITHUB_SERVER_URL", "https://github.com".into()),
            ("GITHUB_RUN_ID", "42".into()),
            ("GITHUB_SHA", "f".repeat(40)),
            ("GITHUB_WORKSPACE", self.workspace.display().to_string()),
            ("RUNNER_OS", "Linux".into()),
            ("RUNNER_ARCH", "X64".into()),
            ("RUNNER_TEMP", p("temp")),
            ("RUNNER_TOOL_CACHE", p("tool-cache")),
            ("GH_STUB", p("gh")),
            ("STUB_LOG", p("")),
            ("WEAKSCAN_UNDER_TEST", weakscan_under_test().into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        env.extend(self.extra_env.iter().cloned());
        env
    }

    /// Runs the action with `inputs`; the weakscan under test is the `weakscan` input unless
    /// `install` is true.
    fn run(&self, inputs: &[(&str, &str)], install: bool, github: &[(&'static str, &str)]) -> Run {
        let action = read_action();
        let mut given: BTreeMap<String, String> = inputs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if !install {
            given.insert("weakscan".into(), weakscan_under_test().into());
        }
        let mut context: BTreeMap<&'static str, String> = [
            ("token", "test-token".to_string()),
            ("action_ref", String::new()),
            ("action_repository", String::new()),
        ]
        .into();
        for (k, v) in github {
            context.insert(k, v.to_string());
        }
        let runner = Runner {
            action: &action,
            world: self,
            inputs: given,
            github: context,
            outputs: BTreeMap::new(),
            declared: vec![],
        };
        runner.run()
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.path("summary.md")).unwrap_or_default()
    }

    /// `gh`'s calls: the method (GET, POST, PATCH; POST for `graphql`) and the API path of
    /// each.
    fn gh_calls(&self) -> Vec<(String, String)> {
        let text = std::fs::read_to_string(self.path("gh/calls")).unwrap_or_default();
        text.lines()
            .map(|l| {
                let args: Vec<String> = serde_json::from_str(l).unwrap();
                let path = args
                    .iter()
                    .find(|a| a.starts_with("repos/") || *a == "graphql" || *a == "user")
                    .unwrap()
                    .clone();
                let method = match args.iter().position(|a| a == "--method") {
                    Some(i) => args[i + 1].clone(),
                    None if path == "graphql" => "POST".into(),
                    None => "GET".into(),
                };
                (method, path)
            })
            .collect()
    }

    fn take_gh_calls(&self) -> Vec<(String, String)> {
        let calls = self.gh_calls();
        let _ = std::fs::remove_file(self.path("gh/calls"));
        calls
    }

    /// The pull request's comments: id → author's login.
    fn authors(&self) -> BTreeMap<u64, String> {
        self.comment_json()
            .into_iter()
            .map(|(id, v)| (id, v["user"]["login"].as_str().unwrap().to_string()))
            .collect()
    }

    /// The pull request's comments: id → the JSON `gh` keeps.
    fn comment_json(&self) -> BTreeMap<u64, serde_json::Value> {
        std::fs::read_dir(self.path("gh/comments"))
            .unwrap()
            .map(|e| {
                let v: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(e.unwrap().path()).unwrap()).unwrap();
                (v["id"].as_u64().unwrap(), v)
            })
            .collect()
    }

    /// The pull request's comments: id → body.
    fn comments(&self) -> BTreeMap<u64, String> {
        self.comment_json()
            .into_iter()
            .map(|(id, v)| (id, v["body"].as_str().unwrap().to_string()))
            .collect()
    }

    fn stub_log(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_default()
    }
}

/// The stubs need jq (as the action does; GitHub's runners have it).
fn have_jq() -> bool {
    let ok = Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !crate::util::required("WEAKSCAN_REQUIRE_JQ"),
            "jq not found (apt-get install jq): the action's steps need it"
        );
        crate::util::skip("jq not found (apt-get install jq): the action's steps need it");
    }
    ok
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

// ---- the tests ----

/// A passing check against the baseline comments; a failing budget updates that comment (no
/// second one), still uploads the report, and fails the action with exit code 1, at its last
/// step.
#[test]
fn action_comments_once_then_updates_and_fails_a_budget_with_exit_1() {
    if !have_jq() {
        return;
    }
    let world = World::new("pull_request");
    let inputs = [
        ("binary", "out/app"),
        ("baseline", "weakscan-baseline.json"),
    ];
    let run = world.run(&inputs, false, &[]);
    assert_eq!((run.status, &run.failed_step), (0, &None), "{}", run.log);
    let o = &run.outputs;
    assert_eq!(o["exit-code"], "0");
    assert_eq!(o["result"], "pass");
    // The fixture's counted figures (testdata/expected.tsv, less the operator new/delete allowed).
    assert_eq!(o["predicted-weak-lookups"], "36");
    assert_eq!(o["weak-def-exports"], "36");
    assert_eq!(o["weak-bind-symbols"], "36");
    assert_eq!(o["trie-probes"], "");
    assert_eq!(o["failed-budgets"], "0");
    assert_eq!(o["weakscan"], weakscan_under_test());
    assert_eq!(o["report-url"], ARTIFACT_URL);
    assert_eq!(
        o["comment-url"], "https://github.com/octo/app/pull/7#issuecomment-102",
        "{}",
        run.log
    );
    assert!(run.caches.is_empty(), "nothing installed: {:?}", run.caches);
    // The job summary is the Markdown report, which the comment carries.
    let markdown = read(&o["markdown"]);
    assert!(
        markdown.contains("passed") && markdown.contains("weak-bound symbols"),
        "{markdown}"
    );
    assert_eq!(world.summary(), markdown);
    let json: serde_json::Value = serde_json::from_str(&read(&o["json"])).unwrap();
    assert_eq!(json["command"], "check");
    assert_eq!(json["baseline"], "weakscan-baseline.json");
    // The HTML report, uploaded under the default name.
    assert!(read(&o["report"]).contains("<html"), "an HTML report");
    assert_eq!(run.uploads.len(), 1);
    assert_eq!(run.uploads[0]["name"], "weakscan-report");
    assert_eq!(run.uploads[0]["path"], o["report"]);

    let pr = "repos/octo/app/issues/7/comments?per_page=100";
    let calls = world.take_gh_calls();
    assert_eq!(
        calls,
        [
            ("POST".into(), "graphql".into()),
            ("GET".into(), pr.into()),
            ("POST".into(), "repos/octo/app/issues/7/comments".into())
        ]
    );
    let comments = world.comments();
    assert_eq!(comments.keys().copied().collect::<Vec<_>>(), [1, 2, 102]);
    let body = &comments[&102];
    // The comment is the report of `check --report-url`: the Markdown with the link to the
    // uploaded HTML report after the fix, once (not again in the footer).
    assert_eq!(body.matches(ARTIFACT_URL).count(), 1, "{body}");
    assert!(
        unlinked(body).starts_with(&format!("{MARKER}\n{markdown}")),
        "{body}"
    );
    assert!(body.contains(&HEAD_SHA[..12]), "names the commit: {body}");
    assert!(
        body.contains("https://github.com/octo/app/actions/runs/42"),
        "{body}"
    );

    // The second run: a budget exceeded.
    std::fs::remove_file(world.path("summary.md")).unwrap();
    let failing = [inputs[0], inputs[1], ("max-weak-bind-symbols", "1")];
    let run = world.run(&failing, false, &[]);
    assert_eq!(
        (run.status, run.failed_step.as_deref()),
        (1, Some("finish")),
        "{}",
        run.log
    );
    assert!(run.ran.contains(&"upload".to_string()) && run.ran.contains(&"comment".into()));
    let o = &run.outputs;
    assert_eq!(
        (o["exit-code"].as_str(), o["result"].as_str()),
        ("1", "fail")
    );
    assert_eq!(o["failed-budgets"], "1");
    assert_eq!(o["weak-bind-symbols"], "36");
    assert_eq!(
        run.uploads.len(),
        1,
        "a failing check still uploads its report"
    );
    assert!(
        run.log.contains("::error title=weakscan check"),
        "annotations: {}",
        run.log
    );
    let markdown = read(&o["markdown"]);
    assert!(markdown.contains("failed"), "{markdown}");
    assert_eq!(world.summary(), markdown);
    assert_eq!(
        world.take_gh_calls(),
        [
            ("POST".into(), "graphql".into()),
            ("GET".into(), pr.into()),
            ("PATCH".into(), "repos/octo/app/issues/comments/102".into())
        ]
    );
    let comments = world.comments();
    assert_eq!(
        comments.keys().copied().collect::<Vec<_>>(),
        [1, 2, 102],
        "updated, not added"
    );
    let body = &comments[&102];
    assert!(
        unlinked(body).starts_with(&format!("{MARKER}\n{markdown}")),
        "{body}"
    );
    let (story, details) = body.split_once("<details>").expect(body);
    assert!(
        story.contains("**Fix:**") && story.ends_with(&format!("]({ARTIFACT_URL_MD})\n\n")),
        "the link follows the fix: {story}"
    );
    assert!(!details.contains(ARTIFACT_URL));
    assert_eq!(comments[&1], "LGTM");
}

/// The link weakscan writes with `--report-url ARTIFACT_URL`.
const ARTIFACT_URL_MD: &str = "<https://github.com/octo/app/actions/runs/42/artifacts/9>";

/// A comment's body without the line linking the HTML report.
fn unlinked(body: &str) -> String {
    body.replace(&format!("📄 [The HTML report]({ARTIFACT_URL_MD})\n\n"), "")
}

/// Bad input: exit code 2 (not 1), the error in the outputs, an annotation, the job summary and
/// the comment, and no report.
#[test]
fn action_bad_input_exits_2_and_says_why() {
    if !have_jq() {
        return;
    }
    let world = World::new("pull_request_target");
    let inputs = [
        ("binary", "out/no-such-file"),
        ("max-weak-bind-symbols", "1"),
    ];
    let run = world.run(&inputs, false, &[]);
    assert_eq!(
        (run.status, run.failed_step.as_deref()),
        (2, Some("finish")),
        "{}",
        run.log
    );
    let o = &run.outputs;
    assert_eq!(
        (o["exit-code"].as_str(), o["result"].as_str()),
        ("2", "error")
    );
    assert!(
        o["error"].starts_with("weakscan: out/no-such-file: "),
        "{}",
        o["error"]
    );
    assert_eq!(
        (o["report"].as_str(), o["weak-bind-symbols"].as_str()),
        ("", "")
    );
    assert!(run.uploads.is_empty(), "no report to upload");
    assert!(!run.ran.contains(&"upload".to_string()));
    assert!(
        run.log
            .contains("::error title=weakscan check could not run::weakscan: out/no-such-file")
    );
    assert!(
        world.summary().contains("could not run (exit code 2)"),
        "{}",
        world.summary()
    );
    assert!(world.summary().contains("    weakscan: out/no-such-file: "));
    let comments = world.comments();
    let body = &comments[&102];
    assert!(
        body.starts_with(MARKER) && body.contains("could not run"),
        "{body}"
    );
    assert!(!body.contains("HTML report"), "no report to link: {body}");

    // A bad policy flag is exit 2 as well.
    let run = world.run(
        &[("binary", "out/app"), ("max-increase", "ten")],
        false,
        &[],
    );
    assert_eq!(run.status, 2, "{}", run.log);
    assert_eq!(run.outputs["result"], "error");
    assert_eq!(world.comments().len(), 3, "the same comment again");
}

/// Outside a pull request nothing is commented; a comment that cannot be written (a fork's
/// read-only token) is a warning and the check's verdict stands.
#[test]
fn action_comments_only_on_pull_requests_and_a_refused_comment_is_a_warning() {
    if !have_jq() {
        return;
    }
    let world = World::new("push");
    let inputs = [("binary", "out/app"), ("max-weak-bind-symbols", "1")];
    let run = world.run(&inputs, false, &[]);
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(
        world.gh_calls().is_empty(),
        "no gh call on push: {:?}",
        world.gh_calls()
    );
    assert_eq!(run.outputs["comment-url"], "");

    let mut world = World::new("pull_request");
    world.extra_env.push(("GH_STUB_FAIL".into(), "1".into()));
    let run = world.run(&inputs, false, &[]);
    assert_eq!(
        (run.status, run.failed_step.as_deref()),
        (1, Some("finish")),
        "{}",
        run.log
    );
    assert!(
        run.log
            .contains("::warning title=weakscan comment::could not comment"),
        "{}",
        run.log
    );
    assert_eq!(world.comments().len(), 2);

    // comment: false, and a pass.
    let world = World::new("pull_request");
    let run = world.run(
        &[
            ("binary", "out/app"),
            ("max-weak-bind-symbols", "100"),
            ("comment", "false"),
        ],
        false,
        &[],
    );
    assert_eq!(run.status, 0, "{}", run.log);
    assert!(world.gh_calls().is_empty());
}

/// A report weakscan had fitted to a comment (63.8 KB: 2,000 offending groups of 300-byte names
/// under `--top 2000`) was cut again by the action at 60,000 bytes: the comment lost the fix,
/// the budgets, `</details>` and weakscan's own "rows cut" note. weakscan owns the one limit:
/// the action passes what its marker and footer leave of GitHub's 65,536 characters
/// (`--markdown-limit`) and cuts nothing.
#[test]
fn regression_the_action_cut_a_fitted_comment_a_second_time() {
    if !have_jq() {
        return;
    }
    let world = World::new("pull_request");
    let names: Vec<String> = (0..2000)
        .map(|i| crate::report::huge_name(i, 300))
        .collect();
    std::fs::write(
        world.workspace.join("out/many"),
        crate::report::with_weak_imports(&names),
    )
    .unwrap();
    let inputs = [
        ("binary", "out/many"),
        ("max-weak-bind-symbols", "1"),
        ("args", "--top\n2000"),
    ];
    let run = world.run(&inputs, false, &[]);
    assert_eq!(
        (run.status, run.failed_step.as_deref()),
        (1, Some("finish")),
        "{}",
        run.log
    );
    let body = &world.comments()[&102];
    assert!(body.len() <= 65_536, "{} bytes", body.len());
    assert!(
        body.len() > 65_000,
        "the report has the room: {}",
        body.len()
    );
    assert!(!body.contains("The report was cut"), "not cut again");
    for part in [
        "rows cut to keep this comment within GitHub's 65,536-character limit._\n",
        "**Fix:**",
        "| max weak-bound symbols (`budget.weak_bind_symbols`) | 2000 | ≤ 1 | ❌ **fail** |",
        "</details>\n",
        &format!("[The HTML report]({ARTIFACT_URL_MD})"),
    ] {
        assert!(
            body.contains(part),
            "{part}: {}",
            &body[body.len() - 2000..]
        );
    }
    // The limit passed: what the marker line and the footer (without a link) leave.
    let (head, footer) = body.rsplit_once("\n\n<sub>").unwrap();
    assert!(head.starts_with(&format!("{MARKER}\n")));
    let frame = MARKER.len() + 1 + "\n<sub>".len() + footer.len();
    let args = read(
        &Path::new(&run.outputs["markdown"])
            .with_file_name("check-args")
            .display()
            .to_string(),
    );
    let args: Vec<&str> = args.split('\0').collect();
    let at = args.iter().position(|a| *a == "--markdown-limit").unwrap();
    assert_eq!(args[at + 1], (65_536 - frame).to_string(), "{args:?}");
    // The job summary is the check step's Markdown, fitted the same way.
    assert_eq!(world.summary(), read(&run.outputs["markdown"]));
}

/// `post_comment` updated the first comment whose body started with the marker, whoever wrote
/// it: anyone could post the marker and have the report written into their comment. Only a
/// comment by the token's own login (GraphQL's `viewer`; REST `GET /user` when that fails) is
/// updated; else a new one is posted. With the default token, a GitHub App's and a personal
/// access token.
#[test]
fn regression_anyone_could_take_over_the_actions_comment() {
    if !have_jq() {
        return;
    }
    let inputs = [("binary", "out/app"), ("max-weak-bind-symbols", "1")];
    let pr = "repos/octo/app/issues/7/comments?per_page=100";
    let mut world = World::new("pull_request");
    let comments = world.path("gh/comments");
    let planted = format!("{MARKER}\n## ✅ weakscan check passed\n");
    add_comment(&comments, 3, "mallory", &planted);
    let run = world.run(&inputs, false, &[]);
    assert_eq!(run.status, 1, "{}", run.log);
    assert_eq!(
        world.take_gh_calls(),
        [
            ("POST".into(), "graphql".into()),
            ("GET".into(), pr.into()),
            ("POST".into(), "repos/octo/app/issues/7/comments".into())
        ]
    );
    let comments = world.comments();
    assert_eq!(comments[&3], planted, "mallory's comment is left alone");
    assert!(
        comments[&103].starts_with(MARKER),
        "a new one: {comments:?}"
    );
    assert_eq!(world.authors()[&103], "github-actions[bot]");
    // The next run updates the action's own comment.
    let run = world.run(&inputs, false, &[]);
    assert_eq!(run.status, 1, "{}", run.log);
    assert_eq!(
        world.take_gh_calls().last().unwrap(),
        &("PATCH".into(), "repos/octo/app/issues/comments/103".into())
    );
    assert_eq!(world.comments()[&3], planted);

    // A GitHub App's token: its own comment, not the default token's.
    world
        .extra_env
        .push(("GH_STUB_LOGIN".into(), "weakscan-ci[bot]".into()));
    add_comment(&world.path("gh/comments"), 4, "weakscan-ci[bot]", MARKER);
    world.run(&inputs, false, &[]);
    assert_eq!(
        world.take_gh_calls().last().unwrap(),
        &("PATCH".into(), "repos/octo/app/issues/comments/4".into())
    );
    assert_eq!(world.comments()[&3], planted);

    // A personal access token when GraphQL fails: REST's `GET /user` names it.
    world.extra_env = vec![
        ("GH_STUB_LOGIN".into(), "Octo-Dev".into()),
        ("GH_STUB_GRAPHQL_FAIL".into(), "1".into()),
    ];
    add_comment(&world.path("gh/comments"), 5, "octo-dev", MARKER);
    world.run(&inputs, false, &[]);
    let calls = world.take_gh_calls();
    assert_eq!(calls[1], ("GET".into(), "user".into()), "{calls:?}");
    assert_eq!(
        calls.last().unwrap(),
        &("PATCH".into(), "repos/octo/app/issues/comments/5".into())
    );

    // A bot token GraphQL cannot name (GET /user refuses it): no comment, a warning.
    world.extra_env = vec![("GH_STUB_GRAPHQL_FAIL".into(), "1".into())];
    let before = world.comments();
    let run = world.run(&inputs, false, &[]);
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(
        run.log
            .contains("::warning title=weakscan comment::could not comment"),
        "{}",
        run.log
    );
    assert_eq!(world.comments(), before);
}

/// The inputs become check's flags: groups and allow one a line, max-increase split at commas,
/// args one a line, a policy file; working-directory is where it runs.
#[test]
fn action_inputs_become_check_flags() {
    if !have_jq() {
        return;
    }
    let world = World::new("push");
    std::fs::write(
        world.workspace.join("gate.toml"),
        "[budget]\npredicted_weak_lookups = 1000\n",
    )
    .unwrap();
    let inputs = [
        ("binary", "out/app"),
        ("policy", "gate.toml"),
        ("baseline", "weakscan-baseline.json"),
        ("max-increase", "10%, 5"),
        ("groups", "  v8::internal::*=29\n\nada::*=2\n"),
        ("allow", "weakscan_*"),
        ("args", "--by\ntemplate\n"),
    ];
    let run = world.run(&inputs, false, &[]);
    assert_eq!(run.status, 1, "{}", run.log);
    let json: serde_json::Value = serde_json::from_str(&read(&run.outputs["json"])).unwrap();
    assert_eq!(json["policy"], "gate.toml");
    let budgets: Vec<String> = json["images"][0]["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| format!("{} {} {}", b["kind"], b["passed"], b["limit"]))
        .collect();
    // Only v8's group (30 > 29) fails.
    assert_eq!(run.outputs["failed-budgets"], "1", "{budgets:?}");
    let text = budgets.join("\n");
    assert!(
        text.contains("\"max\" true 1000"),
        "the policy's maximum: {text}"
    );
    assert!(
        text.matches("\"group\"").count() == 2,
        "two group budgets: {text}"
    );
    assert!(text.contains("\"group\" false 29"), "{text}");
    // Both increases (10% and 5) over each figure, each its own budget.
    assert_eq!(text.matches("\"increase\" true").count(), 6, "{text}");

    // working-directory: the paths are relative to it.
    let world = World::new("push");
    let run = world.run(
        &[
            ("binary", "app"),
            ("working-directory", "out"),
            ("max-weak-bind-symbols", "100"),
        ],
        false,
        &[],
    );
    assert_eq!(run.status, 0, "{}", run.log);
    assert!(read(&run.outputs["json"]).contains("\"path\": \"app\""));
}

/// The install: on a macOS runner with a release tag, the release binary, checked against its
/// .sha256 file and saved to the cache at once; a new runner restores it from the cache; a
/// later use in the same job finds it installed; no release binary means `cargo install
/// --locked` from the action's sources; a checksum mismatch stops the action.
#[test]
fn action_installs_the_release_binary_or_builds_from_source() {
    if !have_jq() {
        return;
    }
    let sha256 = |path: &Path| -> String {
        let out = Command::new("sha256sum")
            .arg(path)
            .output()
            .expect("sha256sum");
        String::from_utf8(out.stdout)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let mut world = World::new("push");
    world.extra_env.extend([
        ("RUNNER_OS".into(), "macOS".into()),
        ("RUNNER_ARCH".into(), "ARM64".into()),
    ]);
    let asset = "weakscan-v9.9.9-aarch64-apple-darwin";
    let served = world.path("releases").join(asset);
    std::fs::copy(weakscan_under_test(), &served).unwrap();
    let checksum = world.path("releases").join(format!("{asset}.sha256"));
    std::fs::write(&checksum, "0".repeat(64) + "  " + asset + "\n").unwrap();
    let github = [
        ("action_ref", "v9.9.9"),
        ("action_repository", "octo/weakscan"),
    ];
    let inputs = [("binary", "out/app"), ("max-weak-bind-symbols", "1")];

    // The checksum does not match: exit 2 at the install, before any check; nothing cached.
    let run = world.run(&inputs, true, &github);
    let failed = (run.status, run.failed_step.as_deref());
    assert_eq!(failed, (2, Some("install")), "{}", run.log);
    assert!(run.log.contains("SHA-256"), "{}", run.log);
    assert!(!run.ran.contains(&"check".to_string()));
    assert_eq!(run.outputs["exit-code"], "");
    assert!(run.saved.is_empty());

    // It matches; the check fails (exit 1), and the binary is in the cache all the same.
    std::fs::write(&checksum, format!("{}  {asset}\n", sha256(&served))).unwrap();
    let _ = std::fs::remove_file(world.path("curl"));
    let run = world.run(&inputs, true, &github);
    assert_eq!(run.status, 1, "{}", run.log);
    let url = format!("https://github.com/octo/weakscan/releases/download/v9.9.9/{asset}");
    assert_eq!(world.stub_log("curl"), format!("{url}\n{url}.sha256\n"));
    assert_eq!(run.caches.len(), 1);
    let (root, key) = (run.caches[0]["path"].clone(), run.caches[0]["key"].clone());
    assert!(key.starts_with("weakscan-macOS-ARM64-v9.9.9-"), "{key}");
    let tool_cache = world.path("tool-cache").display().to_string();
    assert!(root.starts_with(&tool_cache), "{root}");
    assert_eq!(run.saved, std::slice::from_ref(&key));
    assert_eq!(run.outputs["weakscan"], format!("{root}/bin/weakscan"));
    assert_eq!(world.stub_log("github-path"), format!("{root}/bin\n"));
    assert_eq!(run.outputs["result"], "fail");

    // Another use in the same job: installed already, no cache step.
    let run = world.run(&inputs, true, &github);
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(
        run.log.contains("weakscan already installed"),
        "{}",
        run.log
    );
    assert!(run.caches.is_empty() && run.saved.is_empty());
    assert_eq!(run.outputs["weakscan"], format!("{root}/bin/weakscan"));

    // A new runner: restored from the cache, no download, not saved again.
    std::fs::remove_dir_all(&tool_cache).unwrap();
    let _ = std::fs::remove_file(world.path("curl"));
    let run = world.run(&inputs, true, &github);
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(run.log.contains("weakscan from the cache"), "{}", run.log);
    assert_eq!(world.stub_log("curl"), "");
    assert_eq!(run.caches[0]["key"], key, "the same key");
    assert!(run.saved.is_empty());

    // No release binary for this ref: built from the action's sources.
    std::fs::remove_dir_all(&tool_cache).unwrap();
    let other = [
        ("action_ref", "v9.9.10"),
        ("action_repository", "octo/weakscan"),
    ];
    let run = world.run(&inputs, true, &other);
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(run.log.contains("no release binary at"), "{}", run.log);
    let manifest = env!("CARGO_MANIFEST_DIR");
    let cargo = format!("install --locked --force --path {manifest} --root {root}\n");
    assert_eq!(world.stub_log("cargo"), cargo);
    assert_ne!(run.caches[0]["key"], key, "another ref, another key");
    assert_eq!(run.saved.len(), 1);

    // A Linux runner on a tag downloads the Linux binary of that tag (Linux runners compiled
    // weakscan from source: minutes of CPU).
    let mut world = World::new("push");
    world.extra_env.extend([
        ("RUNNER_OS".into(), "Linux".into()),
        ("RUNNER_ARCH".into(), "X64".into()),
    ]);
    let asset = "weakscan-v9.9.9-x86_64-unknown-linux-gnu";
    let served = world.path("releases").join(asset);
    std::fs::copy(weakscan_under_test(), &served).unwrap();
    let checksum = world.path("releases").join(format!("{asset}.sha256"));
    std::fs::write(&checksum, format!("{}  {asset}\n", sha256(&served))).unwrap();
    let run = world.run(&inputs, true, &github);
    assert_eq!(run.status, 1, "{}", run.log);
    let url = format!("https://github.com/octo/weakscan/releases/download/v9.9.9/{asset}");
    assert_eq!(world.stub_log("curl"), format!("{url}\n{url}.sha256\n"));
    assert_eq!(world.stub_log("cargo"), "");
    assert!(run.caches[0]["key"].starts_with("weakscan-Linux-X64-v9.9.9-"));

    // A branch, or a local action: no download is tried.
    let world = World::new("push");
    let run = world.run(&inputs, true, &[]);
    assert_eq!(run.status, 1, "{}", run.log);
    assert_eq!(world.stub_log("curl"), "");
    assert!(world.stub_log("cargo").starts_with("install --locked"));
    assert!(run.caches[0]["key"].starts_with("weakscan-Linux-X64-local-"));
}

/// The script is what shellcheck accepts (when it is installed: .ci/run installs it).
#[test]
fn action_script_passes_shellcheck() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/run.sh");
    match Command::new("shellcheck").arg(&script).output() {
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        ),
        Err(_) => crate::util::skip("shellcheck not found (apt-get install shellcheck)"),
    }
}
