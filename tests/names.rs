//! Printed names against Apple's `c++filt` (LLVM's demangler: `llvm-cxxfilt-22 -_`), and group
//! keys that no printer changes.
//!
//! * Every weak name weakscan lists for the committed fixtures and for the CI Node builds
//!   (weak-bound and weak-exported, `scan --by symbol`), and every `__Z` name of the Node builds'
//!   symbol tables, is piped through `llvm-cxxfilt-22 -_`; every C++ name must print exactly as
//!   it prints it. The one deliberate difference (docs/names.md): a C name is shown without the
//!   Mach-O `_`, which c++filt leaves on.
//! * Each name's keys are the same whichever printer printed the names (the two shipped
//!   configurations), and each pattern (the key `--by pattern` uses; template and namespace keys
//!   are prefixes of it) is the name cpp_demangle prints with template-argument and parameter
//!   lists elided.
//!
//! The printed-name tests skip (and say so) without llvm-cxxfilt 22 or in a weakscan built
//! without libc++abi, unless `WEAKSCAN_REQUIRE_CXXFILT=1` (CI) makes that a failure.

use crate::node::node_binary;
use crate::util::{all_fixtures, json, required};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use weakscan::analysis::demangle::{
    Demangled, NameKind, NameStyle, Printer, demangle_all_with, printer::printer,
};

/// `llvm-cxxfilt` from LLVM 22, if installed (`WEAKSCAN_LLVM_CXXFILT` overrides the path).
pub(crate) fn llvm_cxxfilt() -> Option<PathBuf> {
    crate::util::llvm_22("llvm-cxxfilt", "WEAKSCAN_LLVM_CXXFILT")
}

/// llvm-cxxfilt 22, when it is installed and weakscan prints names with libc++abi; else says
/// why the test skips.
fn reference() -> Option<PathBuf> {
    let tool = llvm_cxxfilt();
    let why = match (&tool, printer()) {
        (Some(_), Printer::Libcxxabi) => return tool,
        (None, _) => "llvm-cxxfilt from LLVM 22 is not installed (apt-get install llvm-22)",
        (_, Printer::CppDemangle) => "weakscan was built without libc++abi",
    };
    assert!(!required("WEAKSCAN_REQUIRE_CXXFILT"), "{why}");
    crate::util::skip(why);
    None
}

/// `names` through `llvm-cxxfilt -_`, one output line per name.
pub(crate) fn cxxfilt(tool: &Path, names: &[String]) -> Vec<String> {
    let mut child = Command::new(tool)
        .arg("-_")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run llvm-cxxfilt");
    let mut stdin = child.stdin.take().unwrap();
    let input = names.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-cxxfilt output");
    writer.join().unwrap().expect("write to llvm-cxxfilt");
    let text = String::from_utf8(out.stdout).expect("UTF-8 from llvm-cxxfilt");
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), names.len(), "one llvm-cxxfilt line per name");
    lines
}

/// (mangled, printed) of every symbol `scan --by symbol` lists for `file`.
fn listed(file: &Path) -> Vec<(String, String)> {
    let doc = json(&[
        "scan",
        "--by",
        "symbol",
        "--format",
        "json",
        file.to_str().unwrap(),
    ]);
    doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["mangled"].as_str().unwrap().to_string(),
                g["key"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Fails listing the first ten of `wrong` (`what` of `of` names), if any.
fn none_wrong(wrong: &[String], of: usize, what: &str) {
    assert!(
        wrong.is_empty(),
        "{} of {of} {what}, e.g.\n{}",
        wrong.len(),
        wrong[..wrong.len().min(10)].join("\n")
    );
}

/// Checks every listed name of `file` against llvm-cxxfilt; returns (C++ names, C names).
fn compare(tool: &Path, file: &Path) -> (usize, usize) {
    let listed = listed(file);
    let mangled: Vec<String> = listed.iter().map(|l| l.0.clone()).collect();
    let reference = cxxfilt(tool, &mangled);
    let (mut cxx, mut c, mut wrong) = (0, 0, Vec::new());
    for ((raw, shown), llvm) in listed.iter().zip(&reference) {
        if raw.starts_with("__Z") {
            cxx += 1;
            if shown != llvm {
                wrong.push(format!(
                    "{raw}\n  weakscan:     {shown}\n  llvm-cxxfilt: {llvm}"
                ));
            }
        } else {
            // The documented difference: c++filt leaves a C name as it is.
            c += 1;
            assert_eq!(llvm, raw, "llvm-cxxfilt changed a C name");
            assert_eq!(Some(shown.as_str()), raw.strip_prefix('_'), "{raw}");
        }
    }
    let what = format!(
        "C++ names of {} differ from llvm-cxxfilt -_",
        file.display()
    );
    none_wrong(&wrong, cxx, &what);
    (cxx, c)
}

#[test]
fn fixture_names_print_as_llvm_cxxfilt() {
    let Some(tool) = reference() else {
        return;
    };
    let mut cxx = 0;
    for f in all_fixtures() {
        cxx += compare(&tool, &f).0;
    }
    assert!(cxx > 50, "the fixtures hold C++ names ({cxx})");
}

#[test]
fn node_names_print_as_llvm_cxxfilt() {
    let Some(tool) = reference() else {
        return;
    };
    // C++ and C names listed per build (docs/names.md quotes these counts).
    for (version, want_cxx, want_c) in [
        ("20.11.0", 5449, 0),
        ("22.11.0", 9566, 0),
        ("24.11.1", 1487, 9),
    ] {
        let Some(bin) = node_binary(version) else {
            continue;
        };
        assert_eq!(compare(&tool, &bin), (want_cxx, want_c), "node {version}");
    }
}

/// Every external `__Z` name of the symbol tables of the CI Node builds (llvm-nm-22 `-j
/// --extern-only`: every exported, imported, weak-bound and weak-defined name), sorted and
/// distinct; empty (the test then skips) without
/// llvm-nm or the builds.
fn symbol_table_names() -> Vec<String> {
    let Some(nm) = crate::util::llvm_nm_or_skip() else {
        return Vec::new();
    };
    let mut raws = std::collections::BTreeSet::new();
    for version in ["20.11.0", "22.11.0", "24.11.1"] {
        let Some(bin) = node_binary(version) else {
            continue;
        };
        let out = Command::new(&nm)
            .args(["-j", "--extern-only"])
            .arg(&bin)
            .output()
            .expect("run llvm-nm");
        assert!(out.status.success(), "llvm-nm -j {bin:?}");
        let text = String::from_utf8(out.stdout).expect("UTF-8 from llvm-nm");
        raws.extend(
            text.lines()
                .filter(|l| l.starts_with("__Z"))
                .map(str::to_string),
        );
    }
    raws.into_iter().collect()
}

#[test]
fn every_symbol_table_name_of_node_prints_as_llvm_cxxfilt() {
    let Some(tool) = reference() else {
        return;
    };
    let raws = symbol_table_names();
    if raws.is_empty() {
        return;
    }
    let names = demangled(Printer::Libcxxabi);
    let reference = cxxfilt(&tool, &raws);
    let mut wrong = Vec::new();
    for (raw, llvm) in raws.iter().zip(&reference) {
        let shown = names.lookup(raw);
        if shown.demangled(raw) != *llvm {
            wrong.push(format!(
                "{raw}\n  weakscan:     {}\n  llvm-cxxfilt: {llvm}",
                shown.demangled(raw)
            ));
        }
    }
    eprintln!("{} symbol-table names compared", raws.len());
    assert!(raws.len() > 70_000, "only {} names", raws.len());
    none_wrong(&wrong, raws.len(), "names differ from llvm-cxxfilt -_");
}

/// The literal runs of a pattern: its text split at each elided list (`<…>`, `(…)`).
fn literal_runs(pattern: &str) -> Vec<&str> {
    pattern.split('…').collect()
}

/// `pattern` is `printed` with template-argument and parameter lists elided, after an optional
/// return type: each literal run appears in order, the first at the start of the name proper
/// and the last at the end.
fn pattern_agrees(printed: &str, pattern: &str) -> bool {
    let runs = literal_runs(pattern);
    let mut expr = String::from("^(?:.* )?");
    for (i, run) in runs.iter().enumerate() {
        if i > 0 {
            expr.push_str(".*?");
        }
        expr.push_str(&regex::escape(run));
    }
    expr.push('$');
    regex::Regex::new(&expr).unwrap().is_match(printed)
}

/// Every `(`, `<`, `{` of `key` is closed, in order (an `operator<` aside).
fn balanced(key: &str) -> bool {
    let key = key.replace("operator<<", "").replace("operator>>", "");
    let key = key
        .replace("operator<", "")
        .replace("operator>", "")
        .replace("->", "");
    let mut open = Vec::new();
    for c in key.chars() {
        match c {
            '(' | '<' | '{' => open.push(c),
            ')' if open.pop() != Some('(') => return false,
            '>' if open.pop() != Some('<') => return false,
            '}' if open.pop() != Some('{') => return false,
            _ => {}
        }
    }
    open.is_empty()
}

/// [`weak_names_of_fixtures_and_node`], read once per test run.
fn weak_names() -> &'static (Vec<String>, bool) {
    static NAMES: OnceLock<(Vec<String>, bool)> = OnceLock::new();
    NAMES.get_or_init(weak_names_of_fixtures_and_node)
}

/// Every name of [`weak_names`] and [`symbol_table_names`], sorted and distinct (read once).
fn all_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut raws = weak_names().0.clone();
        raws.extend(symbol_table_names());
        raws.sort();
        raws.dedup();
        raws
    })
}

/// [`all_names`] demangled with `printer`, once per test run (the names tests share it).
fn demangled(printer: Printer) -> &'static Demangled<'static> {
    static WITH: [OnceLock<Demangled<'static>>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = match printer {
        Printer::Libcxxabi => 0,
        Printer::CppDemangle => 1,
    };
    WITH[slot].get_or_init(|| {
        demangle_all_with(
            all_names().iter().map(String::as_str),
            printer,
            NameStyle::Demangled,
        )
        .unwrap()
    })
}

/// The distinct raw names `scan --by symbol` lists for every fixture and the CI Node builds
/// (20.11.0, 22.11.0, 24.11.1), sorted; and whether any Node build was read.
fn weak_names_of_fixtures_and_node() -> (Vec<String>, bool) {
    let mut files: Vec<std::path::PathBuf> = all_fixtures();
    let fixtures = files.len();
    for version in ["20.11.0", "22.11.0", "24.11.1"] {
        files.extend(node_binary(version));
    }
    let node_read = files.len() > fixtures;
    let mut raws: Vec<String> = Vec::new();
    for f in &files {
        raws.extend(listed(f).into_iter().map(|l| l.0));
    }
    raws.sort();
    raws.dedup();
    (raws, node_read)
}

/// `printed` (LLVM's form) with its closure and unnamed types written as cpp_demangle writes
/// them, which patterns keep: `'lambda'(int)` as `{lambda(int)#1}`, `'lambda0'(…)` as
/// `{lambda(…)#2}`, `'unnamed'` as `{unnamed type#1}` (LLVM's `ClosureTypeName`,
/// `UnnamedTypeName`: the number printed is the discriminator, #1 printing none).
fn as_cpp_demangle_writes_types(printed: &str) -> String {
    let re = regex::Regex::new(r"'(lambda|unnamed)([0-9]*)'").unwrap();
    let mut out = String::with_capacity(printed.len());
    let mut rest = printed;
    while let Some(m) = re.captures(rest) {
        let whole = m.get(0).unwrap();
        out.push_str(&rest[..whole.start()]);
        let n = m[2].parse::<usize>().map_or(1, |d| d + 2);
        rest = &rest[whole.end()..];
        if &m[1] == "unnamed" {
            out.push_str(&format!("{{unnamed type#{n}}}"));
            continue;
        }
        // The parameter list: up to the parenthesis that closes the first one.
        let mut depth = 0;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map_or(rest.len(), |(i, _)| i + 1);
        out.push_str(&format!("{{lambda{}#{n}}}", &rest[..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Each pattern is the printed name (LLVM's, its closure types written as cpp_demangle writes
/// them) with its lists elided, after an optional return type, also after a special-name
/// prefix (LLVM prints a local name's enclosing return type), on every weak name of the
/// fixtures and the CI Node builds.
#[test]
fn patterns_agree_with_the_printed_names() {
    if reference().is_none() {
        return;
    }
    let raws = &weak_names().0;
    let names = demangled(Printer::Libcxxabi);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for raw in raws {
        let n = names.lookup(raw);
        if n.kind != NameKind::Cxx {
            continue;
        }
        checked += 1;
        let printed = as_cpp_demangle_writes_types(&n.demangled(raw));
        let pattern = n.pattern();
        let (prefix, proper) = pattern.split_at(pattern.len() - pattern_proper_len(&n));
        let printed = match printed.strip_prefix(prefix) {
            Some(rest) => rest.to_string(),
            None => printed.clone(),
        };
        let ok = pattern_agrees(&printed, proper)
            && pattern.contains(n.template())
            && balanced(n.template())
            && balanced(pattern);
        if !ok {
            wrong.push(format!(
                "{raw}\n  printed:  {}\n  pattern:  {pattern}\n  template: {}",
                n.demangled(raw),
                n.template()
            ));
        }
    }
    assert!(checked > 50);
    none_wrong(
        &wrong,
        checked,
        "names have keys that disagree with the printed name",
    );
}

/// The length of `n`'s pattern after its special-name prefix (`guard variable for `, …).
fn pattern_proper_len(n: &weakscan::analysis::demangle::SymbolName) -> usize {
    let pattern = n.pattern();
    let template = n.template();
    // The template key starts where the name proper does.
    pattern.len() - pattern.find(template).unwrap_or(0)
}

/// The keys each shipped configuration gives (libc++abi printing, cpp_demangle printing) are
/// equal on every name: the weak names of the fixtures and the CI Node builds, and every `__Z`
/// name of the builds' symbol tables. The namespace keys are read after the class rule, which
/// the names read together decide.
#[test]
fn keys_are_the_same_with_either_printer_on_every_name() {
    let (raws, node_read) = (all_names(), weak_names().1);
    let [a, b] = [Printer::Libcxxabi, Printer::CppDemangle].map(demangled);
    let mut wrong = Vec::new();
    for raw in raws {
        let (x, y) = (a.lookup(raw), b.lookup(raw));
        let keys = |n: &weakscan::analysis::demangle::SymbolName| {
            let depth = n.namespace_components();
            let spaces: Vec<String> = (1..=depth).map(|d| n.namespace(d).to_string()).collect();
            (n.pattern().to_string(), n.template().to_string(), spaces)
        };
        if keys(&x) != keys(&y) {
            wrong.push(format!(
                "{raw}\n  libcxxabi:    {:?}\n  cpp_demangle: {:?}",
                keys(&x),
                keys(&y)
            ));
        }
    }
    eprintln!("keys of {} names compared", raws.len());
    let least = if node_read { 70_000 } else { 50 };
    assert!(raws.len() > least, "only {} names compared", raws.len());
    none_wrong(
        &wrong,
        raws.len(),
        "names' keys differ between the printers",
    );
}

#[test]
fn no_demangle_prints_raw_names_everywhere() {
    let f = crate::util::fixture("app-default-chained-x86_64");
    let doc = json(&[
        "scan",
        "--no-demangle",
        "--by",
        "symbol",
        "--format",
        "json",
        f.to_str().unwrap(),
    ]);
    let groups = doc["groups"].as_array().unwrap();
    assert!(groups.len() > 10);
    for g in groups {
        assert_eq!(g["key"], g["mangled"], "{g}");
        assert_eq!(g["example"], g["example_mangled"], "{g}");
        assert!(g["key"].as_str().unwrap().starts_with('_'), "{g}");
    }
    // Groups are still formed from the demangled structure.
    let by_template = json(&[
        "scan",
        "--no-demangle",
        "--format",
        "json",
        f.to_str().unwrap(),
    ]);
    let keys: Vec<&str> = by_template["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert!(
        keys.contains(&"v8::internal::StaticCallInterfaceDescriptor<…>"),
        "{keys:?}"
    );
    // diff --symbols lists raw names, with the mangled list beside it all the same.
    let v2 = crate::util::fixture("app-v2-default-chained-x86_64");
    let diff = json(&[
        "diff",
        "--symbols",
        "--no-demangle",
        "--format",
        "json",
        f.to_str().unwrap(),
        v2.to_str().unwrap(),
    ]);
    let sym = &diff["symbols"][0];
    assert!(!sym["added"].as_array().unwrap().is_empty());
    assert_eq!(sym["added"], sym["added_mangled"]);
}

#[test]
fn mangled_names_sit_beside_printed_ones() {
    let f = crate::util::fixture("app-default-chained-x86_64");
    let v2 = crate::util::fixture("app-v2-default-chained-x86_64");
    let diff = json(&[
        "diff",
        "--symbols",
        "--format",
        "json",
        f.to_str().unwrap(),
        v2.to_str().unwrap(),
    ]);
    let sym = &diff["symbols"][0];
    let (added, mangled) = (
        sym["added"].as_array().unwrap(),
        sym["added_mangled"].as_array().unwrap(),
    );
    assert_eq!(added.len(), mangled.len());
    for (a, m) in added.iter().zip(mangled) {
        let a = a.as_str().unwrap();
        let m = m.as_str().unwrap();
        assert!(m.starts_with("__Z") && !a.starts_with("__Z"), "{a} / {m}");
        let again = weakscan::analysis::demangle::demangle_one(m);
        assert_eq!(again.demangled(m), a);
    }
    for g in diff["groups"].as_array().unwrap() {
        assert!(
            g["example_mangled"].as_str().unwrap().starts_with('_'),
            "{g}"
        );
    }
}

/// The keys of `raw` with each printer: (pattern, template, namespaces).
fn keys_with_each_printer(raw: &str) -> [(String, String, Vec<String>); 2] {
    [Printer::Libcxxabi, Printer::CppDemangle].map(|p| {
        let d = demangle_all_with([raw], p, NameStyle::Demangled).unwrap();
        let n = d.lookup(raw);
        let spaces = (1..=n.namespace_components())
            .map(|depth| n.namespace(depth).to_string())
            .collect();
        (n.pattern().to_string(), n.template().to_string(), spaces)
    })
}

// Regression: `typeinfo for std::length_error` grouped under `std` in the build that printed
// with GNU libiberty and under `(global)` in the cpp_demangle build (an `St` name).
#[test]
fn regression_st_special_names_grouped_differently_by_build() {
    for raw in [
        "__ZTISt12length_error",
        "__ZTSSt12length_error",
        "__ZSt7nothrow",
    ] {
        let [a, b] = keys_with_each_printer(raw);
        assert_eq!(a, b, "{raw}");
        assert_eq!(a.2, vec!["std".to_string()], "{raw}");
    }
}

// Regression: a lambda's `__invoke` in a local name (grpc, V8 runtime functions) had the
// template key `…::{lambda(…)#1}::__invoke(…)` in one build and `…::__invoke` in the other.
// cpp_demangle writes the member's parameter list inside the closure's, so its pattern ends
// `::__invoke` (docs/names.md); the point is that every build gives the same.
#[test]
fn regression_lambda_invoke_members_grouped_differently_by_build() {
    let raw = concat!(
        "__ZZN2v88internalL47__RT_impl_Runtime_SetWasmImportedStringsEnabledENS0_9ArgumentsILNS0_",
        "13ArgumentsTypeE0EEEPNS0_7IsolateEENUlNS_5LocalINS_7ContextEEEE_8__invokeES8_"
    );
    let [a, b] = keys_with_each_printer(raw);
    assert_eq!(a, b);
    assert_eq!(
        a.0,
        "v8::internal::__RT_impl_Runtime_SetWasmImportedStringsEnabled(…)::{lambda(…)#1}::__invoke"
    );
    let [a, b] = keys_with_each_printer("__ZZN1A1fEvENUliE_8__invokeEi");
    assert_eq!(a, b);
    assert_eq!(a.0, "A::f(…)::{lambda(…)#1}::__invoke(…)");
}

/// The other shipped configuration's weakscan (`WEAKSCAN_OTHER_BUILD`: CI copies the libc++abi
/// build there before it tests the cpp_demangle build), or `None` after saying why the test
/// skips (a failure when `WEAKSCAN_REQUIRE_OTHER_BUILD=1`).
fn other_build() -> Option<PathBuf> {
    let other = std::env::var_os("WEAKSCAN_OTHER_BUILD").map(PathBuf::from);
    if other.is_none() {
        let why = "WEAKSCAN_OTHER_BUILD names no other configuration's weakscan";
        assert!(!required("WEAKSCAN_REQUIRE_OTHER_BUILD"), "{why}");
        crate::util::skip(why);
    }
    other
}

/// Runs `bin` with `args`: (exit code, stdout).
fn run_build(bin: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(bin)
        .args(args)
        .env("COLUMNS", crate::util::TEST_COLUMNS)
        .output()
        .expect("run weakscan");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    assert!(code == 0 || code == 1, "{bin:?} {args:?}: {stderr}");
    (code, String::from_utf8(out.stdout).expect("UTF-8 output"))
}

/// Each group's key and figures, as `scan --by BY --format json` lists them.
fn group_figures(doc: &str) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(doc).unwrap();
    let groups = doc["groups"].as_array().unwrap();
    groups
        .iter()
        .map(|g| {
            format!(
                "{} {} {} {}",
                g["key"], g["weak_bound_symbols"], g["lookups"], g["weak_def_exports"]
            )
        })
        .collect()
}

/// A baseline written by either configuration checks with the other with no change (exit 0),
/// by template, namespace and library; both give the same groups and figures, the same symbol
/// rows, and the same check output with either baseline; on every fixture with C++ names and
/// every CI Node build.
#[test]
fn baselines_travel_between_the_printers() {
    let Some(other) = other_build() else {
        return;
    };
    let this = crate::util::bin();
    let mut files: Vec<PathBuf> = vec![
        crate::util::fixture("app-default-chained-x86_64"),
        crate::util::fixture("app-v2-default-chained-x86_64"),
    ];
    for version in ["20.11.0", "22.11.0", "22.12.0", "22.14.0", "24.11.1"] {
        files.extend(node_binary(version));
    }
    let dir = tempfile::tempdir().unwrap();
    for file in &files {
        let file = file.to_str().unwrap();
        for by in ["template", "namespace", "library"] {
            let scan = ["scan", "--by", by, "--format", "json", file];
            let (a, b) = (run_build(&this, &scan).1, run_build(&other, &scan).1);
            assert_eq!(group_figures(&a), group_figures(&b), "{file} --by {by}");
            // Each build's baseline; their symbols (raw names and figures) are the same bytes.
            let baselines: Vec<(PathBuf, serde_json::Value)> = [&this, &other]
                .iter()
                .enumerate()
                .map(|(i, writer)| {
                    let b = dir.path().join(format!("weakscan-baseline-{i}.json"));
                    let _ = std::fs::remove_file(&b);
                    let args = ["baseline", file, "-o", b.to_str().unwrap()];
                    assert_eq!(run_build(writer, &args).0, 0);
                    let doc = serde_json::from_slice(&std::fs::read(&b).unwrap()).unwrap();
                    (b, doc)
                })
                .collect();
            assert_eq!(
                baselines[0].1["symbols"], baselines[1].1["symbols"],
                "{file}"
            );
            // Either build checks with either baseline, and prints the same with both.
            for checker in [&this, &other] {
                let outputs: Vec<String> = baselines
                    .iter()
                    .map(|(b, _)| {
                        let b = b.to_str().unwrap();
                        let args = [
                            "check",
                            file,
                            "--baseline",
                            b,
                            "--by",
                            by,
                            "--group",
                            "*=1000000",
                        ];
                        let (code, out) = run_build(checker, &args);
                        assert_eq!(code, 0, "{file} --by {by}: {b} → {checker:?}\n{out}");
                        out.replace(b, "BASELINE")
                    })
                    .collect();
                assert_eq!(outputs[0], outputs[1], "{file} --by {by}: {checker:?}");
            }
        }
    }
}

/// A baseline written by the build that printed names with GNU libiberty (`c++filt -_`'s
/// `{lambda(…)#1}`, `> >`) still loads and checks with no change: baselines compare symbols by
/// their mangled names, and group keys come from the same parse as then. Its printed text is
/// never read: with every printed `key` and `example` replaced, the check prints the same.
#[test]
fn a_baseline_with_gnu_printed_examples_checks_unchanged() {
    let baseline =
        crate::util::testdata().join("baselines/gnu-printed-app-default-chained-x86_64.json");
    let text = std::fs::read_to_string(&baseline).unwrap();
    assert!(text.contains("\"schema_version\": 1"));
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    for g in doc["groups"].as_array_mut().unwrap() {
        g["key"] = "printed otherwise".into();
        g["example"] = "printed otherwise".into();
    }
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("weakscan-baseline.json");
    std::fs::write(&renamed, serde_json::to_string(&doc).unwrap()).unwrap();
    let fixture = crate::util::fixture("app-default-chained-x86_64");
    for by in ["template", "namespace", "library", "symbol"] {
        let check = |b: &Path| {
            let args = [
                "check",
                fixture.to_str().unwrap(),
                "--baseline",
                b.to_str().unwrap(),
                "--by",
                by,
            ];
            run_build(&crate::util::bin(), &args)
        };
        let (code, out) = check(&baseline);
        assert_eq!(code, 0, "--by {by}\n{out}");
        let (code, again) = check(&renamed);
        assert_eq!(code, 0, "--by {by}\n{again}");
        let paths = |t: &str| {
            t.replace(renamed.to_str().unwrap(), "BASELINE")
                .replace(baseline.to_str().unwrap(), "BASELINE")
        };
        assert_eq!(paths(&out), paths(&again), "--by {by}");
    }
}

/// A dyld log in `dir` in which each of `names` is looked up as a weak-def symbol.
fn hostile_log(dir: &Path, names: &[String]) -> PathBuf {
    let log = dir.join("hostile.log");
    let mut text = String::new();
    for name in names {
        text.push_str(&format!(
            "dyld[1]: looking for weak-def symbol '{name}':\ndyld[1]:   using '{name}' in /x\n"
        ));
    }
    std::fs::write(&log, text).unwrap();
    log
}

/// `scan --by symbol --format json` of `log` on one thread and on the default pool: (exit
/// code, output, `demangle_failures`), the same both ways.
fn scan_hostile(log: &Path) -> (i32, String, u64) {
    let run = |threads: Option<&str>| {
        let mut cmd = Command::new(crate::util::bin());
        cmd.args([
            "scan",
            "--by",
            "symbol",
            "--format",
            "json",
            log.to_str().unwrap(),
        ]);
        if let Some(t) = threads {
            cmd.env("WEAKSCAN_THREADS", t);
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            stderr,
        )
    };
    let (code, out, stderr) = run(Some("1"));
    assert_eq!(
        run(None),
        (code, out.clone(), stderr.clone()),
        "one thread and many differ"
    );
    assert!(code == 0 || code == 1, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let failures = doc["demangle_failures"].as_u64().unwrap();
    (code, out, failures)
}

// Regression: cpp_demangle's parser backtracks exponentially on some invalid names (each `StI`
// doubles the work: gimli-rs/cpp_demangle#215); a 92-byte name held a run for hours, then a
// wall-clock watchdog ended it with exit 2 (on a busy machine sooner than on a quiet one).
// The name engine reads it in one linear pass: shown raw, counted, exit 0.
#[test]
fn regression_a_name_that_cpp_demangle_parses_for_hours_hung_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        format!("__Zdl{}", "StI".repeat(27)),
        format!("__Zdl{}", "StI".repeat(30)),
    ];
    let (code, out, failures) = scan_hostile(&hostile_log(dir.path(), &names));
    assert_eq!((code, failures), (0, 2), "{out}");
    assert!(out.contains(&names[0]), "shown raw");
}

// Regression: there was no bound across names: 1,000 names of `StI`×20 took 0.45 s of CPU
// each (438 s) and the run exited 0.
#[test]
fn regression_a_thousand_slow_names_took_minutes() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..1000)
        .map(|i| format!("__Zdl{}{i}", "StI".repeat(20)))
        .collect();
    let (code, _, failures) = scan_hostile(&hostile_log(dir.path(), &names));
    assert_eq!((code, failures), (0, 1000));
}

// Regression: LLVM prints a pack expansion once per element of its pack, which cpp_demangle's
// bound did not count: a 32 KB name made `__cxa_demangle` allocate 3.5 GB (abort() under a
// memory limit, exit 134). The reader's bound counts it: the name is too long to print.
#[test]
fn regression_a_pack_expansion_bomb_exhausted_memory_in_cxa_demangle() {
    // f<int × 2,000>(void (int, f × 15,000) × 2,000): cpp_demangle prints the expansion once
    // (300 KB, within its bound), LLVM once per element (600 MB).
    let bomb = format!(
        "__Z20aaaaaaaaaaaaaaaaaaaaIJ{}EEvDpFvT_{}E",
        "i".repeat(2000),
        "S_".repeat(15_000)
    );
    assert!(bomb.len() >= 32_000, "{}", bomb.len());
    let plain = &bomb[1..];
    let limit = weakscan::analysis::demangle::print_limit(plain);
    assert!(matches!(
        weakscan::analysis::demangle::itanium::read(plain, limit),
        Err(weakscan::analysis::demangle::itanium::Reject::TooLong(_))
    ));
    let dir = tempfile::tempdir().unwrap();
    let (code, out, failures) = scan_hostile(&hostile_log(dir.path(), std::slice::from_ref(&bomb)));
    assert_eq!((code, failures), (0, 1));
    assert!(out.contains(&bomb), "shown raw");
}

// Deep nesting and long names: a template nested 20,000 deep is rejected at the depth bound
// (no printer recursing 20,000 deep), a name of 256 KiB with a short printed form is printed,
// one past 256 KiB is shown raw; all in one run, exit 0.
#[test]
fn deep_and_long_names_are_bounded_by_work() {
    let deep = format!("__Z1fI{}i{}Ev", "1AI".repeat(20_000), "E".repeat(20_000));
    let long = format!("__Z1f{}", "i".repeat((256 << 10) - 4));
    let too_long = format!("__Z1f{}", "i".repeat(256 << 10));
    let dir = tempfile::tempdir().unwrap();
    let names = [deep.clone(), long.clone(), too_long.clone()];
    let (code, out, failures) = scan_hostile(&hostile_log(dir.path(), &names));
    assert_eq!(
        (code, failures),
        (0, 2),
        "the deep name and the one past 256 KiB"
    );
    assert!(out.contains(&deep) && out.contains(&too_long));
    assert!(
        out.contains("f(int, int, int"),
        "the 256 KiB name is printed"
    );
}

/// Why each hostile name is shown raw reaches the outputs: `demangle_failures_by_reason` in
/// the JSON (only the reasons that occurred), and the reasons in short after the table's note.
#[test]
fn hostile_names_reasons_reach_the_json_and_the_table() {
    let names = [
        format!("__Zdl{}", "StI".repeat(27)),
        format!("__Z1fI{}i{}Ev", "1AI".repeat(20_000), "E".repeat(20_000)),
        format!(
            "__Z20aaaaaaaaaaaaaaaaaaaaIJ{}EEvDpFvT_{}E",
            "i".repeat(2000),
            "S_".repeat(15_000)
        ),
        format!("__Z1f{}", "i".repeat(256 << 10)),
        "__Z1fS0_".to_string(),
    ];
    let dir = tempfile::tempdir().unwrap();
    let log = hostile_log(dir.path(), &names);
    let (code, out, failures) = scan_hostile(&log);
    assert_eq!((code, failures), (0, 5), "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        doc["demangle_failures_by_reason"],
        serde_json::json!({"malformed": 2, "too_deep": 1, "too_long": 1, "too_big": 1}),
    );
    let table = Command::new(crate::util::bin())
        .args(["scan", log.to_str().unwrap()])
        .output()
        .unwrap();
    // The note is wrapped to the table's width: compared with its line breaks as spaces.
    let text = String::from_utf8_lossy(&table.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains(
            "5 symbol names could not be demangled and are shown raw \
             (2 malformed, 1 too deep, 1 too long, 1 too big)"
        ),
        "{text}"
    );
    // No failure: no object.
    let clean = hostile_log(dir.path(), &["__Z1fv".to_string()]);
    let (_, out, failures) = scan_hostile(&clean);
    assert_eq!(failures, 0);
    assert!(!out.contains("demangle_failures_by_reason"), "{out}");
}

/// The keys the name engine gives are the keys cpp_demangle's structure gave, on every name of
/// the corpus (every weak name of the fixtures and the CI Node builds, every external
/// symbol-table name).
#[test]
fn keys_of_the_name_engine_are_the_old_keys_on_every_name() {
    let raws = all_names();
    let mut wrong = Vec::new();
    let (mut depth, mut per_byte) = (0, 0.0f64);
    for raw in raws {
        let plain = raw.strip_prefix('_').unwrap_or(raw);
        let limit = weakscan::analysis::demangle::print_limit(plain);
        let old = crate::old_keys::structure(plain, limit, false).map(|(_, k)| k);
        let read = weakscan::analysis::demangle::itanium::read(plain, limit);
        if let Ok(r) = &read {
            depth = depth.max(r.depth);
            per_byte = per_byte.max(r.steps as f64 / plain.len() as f64);
        }
        let new = read.map(|r| r.keys).map_err(|r| format!("{r:?}"));
        if old.as_ref().ok_or(()) != new.as_ref().map_err(|_| ()) {
            wrong.push(format!("{raw}\n  old: {old:?}\n  new: {new:?}"));
        }
    }
    eprintln!(
        "keys of {} names compared; deepest printing {depth} levels, at most {per_byte:.1} steps a byte",
        raws.len()
    );
    // The margins docs/names.md quotes against the bounds.
    assert!(depth <= 40 && per_byte <= 6.0, "{depth} {per_byte}");
    if !wrong.is_empty() {
        let _ = std::fs::write("/tmp/keydiff.txt", wrong.join("\n"));
    }
    none_wrong(&wrong, raws.len(), "names' keys differ from the old keys");
}

/// Mutations of the corpus names (truncated, a byte replaced by another of the grammar's, a run
/// doubled), held to `__cxa_demangle` as the `printer` fuzz target holds any input: a name the
/// reader accepts, `__cxa_demangle` prints within the reader's bound; a short name (at most 64
/// bytes) the reader finds malformed, `__cxa_demangle` does not print; and the reader never
/// runs out of its step budget. Deterministic (a fixed xorshift sequence).
#[test]
fn mutated_corpus_names_hold_the_reader_to_cxa_demangle() {
    use weakscan::analysis::demangle::itanium::{Reject, read};
    use weakscan::analysis::demangle::print_limit;
    use weakscan::analysis::demangle::printer::{llvm_reads_short, print};
    if printer() != Printer::Libcxxabi {
        return crate::util::skip("weakscan was built without libc++abi");
    }
    let grammar = b"0123456789_ENISZTLJXDpPRKOVFvicSsdjlmEt";
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut checked, mut accepted, mut wrong) = (0, 0, Vec::new());
    for raw in all_names().iter().step_by(7) {
        let plain = raw.strip_prefix('_').unwrap_or(raw).as_bytes();
        for _ in 0..4 {
            let mut m = plain.to_vec();
            let at = (next() as usize) % m.len().max(1);
            match next() % 3 {
                0 => m.truncate(at.max(3)),
                1 => m[at] = grammar[(next() as usize) % grammar.len()],
                _ => {
                    let end = (at + 1 + (next() as usize) % 8).min(m.len());
                    let run = m[at..end].to_vec();
                    m.splice(at..at, run);
                }
            }
            let Ok(name) = String::from_utf8(m) else {
                continue;
            };
            checked += 1;
            let limit = print_limit(&name);
            match read(&name, limit) {
                Ok(r) => {
                    accepted += 1;
                    match print(&name, limit) {
                        Ok(t) if t.len() as u64 <= r.printed_bound => {}
                        other => wrong.push(format!("{name}: read, printed {other:?}")),
                    }
                }
                Err(Reject::TooMuchWork) => wrong.push(format!("{name}: too much work")),
                Err(Reject::Malformed) => {
                    if let Some(t) = llvm_reads_short(&name) {
                        wrong.push(format!("{name}: malformed, __cxa_demangle prints {t}"));
                    }
                }
                Err(_) => {}
            }
        }
    }
    eprintln!("{checked} mutated names, {accepted} read");
    none_wrong(
        &wrong,
        checked,
        "mutated names where the reader and __cxa_demangle disagree",
    );
}
