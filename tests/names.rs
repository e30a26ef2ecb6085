//! Printed names against GNU `c++filt -_` (binutils), and group keys against printed names.
//!
//! * Every weak name weakscan lists for the committed fixtures and for the CI Node builds
//!   (weak-bound and weak-exported, `scan --by symbol`) is piped through `c++filt -_`; every C++
//!   name must print exactly as c++filt prints it. The one deliberate difference (docs/names.md):
//!   a C name is shown without the Mach-O `_`, which c++filt leaves on.
//! * Each name's pattern (the key `--by pattern` uses; template and namespace keys are prefixes of
//!   it) must be the printed name with template-argument and parameter lists elided: its literal
//!   components appear, in order, in the printed name.
//!
//! Skipped (and saying so) without GNU c++filt or a weakscan built without libiberty, unless
//! `WEAKSCAN_REQUIRE_CXXFILT=1` (CI) makes that a failure.

use crate::node::node_binary;
use crate::util::{all_fixtures, json, required};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// GNU c++filt is installed and weakscan prints names with libiberty; else says why it skips.
fn reference_available() -> bool {
    let gnu = Command::new("c++filt")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("GNU"));
    // Regression: the text of `--version` was searched for "GNU libiberty", which the
    // cpp_demangle build's line holds too ("built without GNU libiberty").
    use weakscan::analysis::demangle::cxxfilt::{Printer, printer};
    let libiberty = printer() == Printer::Libiberty;
    let why = match (gnu, libiberty) {
        (true, true) => return true,
        (false, _) => "GNU c++filt (binutils) is not installed",
        (_, false) => "weakscan was built without GNU libiberty",
    };
    assert!(!required("WEAKSCAN_REQUIRE_CXXFILT"), "{why}");
    crate::util::skip(why);
    false
}

/// `names` through `c++filt -_`, one output line per name.
fn cxxfilt(names: &[String]) -> Vec<String> {
    let mut child = Command::new("c++filt")
        .arg("-_")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run c++filt");
    let mut stdin = child.stdin.take().unwrap();
    let input = names.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("c++filt output");
    writer.join().unwrap().expect("write to c++filt");
    let text = String::from_utf8(out.stdout).expect("UTF-8 from c++filt");
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), names.len(), "one c++filt line per name");
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

/// Checks every listed name of `file` against c++filt; returns (C++ names, C names).
fn compare(file: &Path) -> (usize, usize) {
    let listed = listed(file);
    let mangled: Vec<String> = listed.iter().map(|l| l.0.clone()).collect();
    let reference = cxxfilt(&mangled);
    let (mut cxx, mut c, mut wrong) = (0, 0, Vec::new());
    for ((raw, shown), gnu) in listed.iter().zip(&reference) {
        if raw.starts_with("__Z") {
            cxx += 1;
            if shown != gnu {
                wrong.push(format!("{raw}\n  weakscan: {shown}\n  c++filt:  {gnu}"));
            }
        } else {
            // The documented difference: c++filt leaves a C name as it is.
            c += 1;
            assert_eq!(gnu, raw, "c++filt changed a C name");
            assert_eq!(Some(shown.as_str()), raw.strip_prefix('_'), "{raw}");
        }
    }
    assert!(
        wrong.is_empty(),
        "{}: {} of {cxx} C++ names differ from c++filt -_, e.g.\n{}",
        file.display(),
        wrong.len(),
        wrong[..wrong.len().min(10)].join("\n")
    );
    (cxx, c)
}

#[test]
fn fixture_names_print_as_gnu_cxxfilt() {
    if !reference_available() {
        return;
    }
    let mut cxx = 0;
    for f in all_fixtures() {
        cxx += compare(&f).0;
    }
    assert!(cxx > 50, "the fixtures hold C++ names ({cxx})");
}

#[test]
fn node_names_print_as_gnu_cxxfilt() {
    if !reference_available() {
        return;
    }
    // C++ and C names listed per build (docs/names.md quotes these counts).
    for (version, want_cxx, want_c) in [
        ("20.11.0", 5449, 0),
        ("22.11.0", 9566, 0),
        ("24.11.1", 1487, 9),
    ] {
        let Some(bin) = node_binary(version) else {
            continue;
        };
        assert_eq!(compare(&bin), (want_cxx, want_c), "node {version}");
    }
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

#[test]
fn keys_agree_with_printed_names_on_every_node_name() {
    use weakscan::analysis::demangle::{NameKind, demangle_all};
    let (raws, _) = weak_names_of_fixtures_and_node();
    let names = demangle_all(raws.iter().map(String::as_str)).unwrap();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for raw in &raws {
        let n = names.lookup(raw);
        if n.kind != NameKind::Cxx {
            continue;
        }
        checked += 1;
        let (printed, pattern) = (n.demangled(), n.pattern());
        let ok = pattern_agrees(printed, pattern)
            && pattern.contains(n.template())
            && balanced(n.template())
            && balanced(pattern);
        if !ok {
            wrong.push(format!(
                "{raw}\n  printed:  {printed}\n  pattern:  {pattern}\n  template: {}",
                n.template()
            ));
        }
    }
    assert!(checked > 0);
    assert!(
        wrong.is_empty(),
        "{} of {checked} names have keys that disagree with the printed name, e.g.\n{}",
        wrong.len(),
        wrong[..wrong.len().min(12)].join("\n")
    );
}

/// Fails listing the first dozen of `differences` (names with both sources' keys), if any.
fn none_differ(differences: &[String]) {
    assert!(
        differences.is_empty(),
        "{} names' keys differ, e.g.\n{}",
        differences.len(),
        differences[..differences.len().min(12)].join("\n")
    );
}

/// This build takes group keys from libiberty's parse; else says the test skips (a failure when
/// CI sets `WEAKSCAN_REQUIRE_CXXFILT`).
fn keys_from_libiberty() -> bool {
    use weakscan::analysis::demangle::cxxfilt::{Printer, printer};
    if printer() == Printer::Libiberty {
        return true;
    }
    assert!(
        !required("WEAKSCAN_REQUIRE_CXXFILT"),
        "weakscan was built without GNU libiberty"
    );
    crate::util::skip("weakscan was built without GNU libiberty: no keys from its parse");
    false
}

/// The grouping keys built from libiberty's parse (`keys.c`) are the ones cpp_demangle's structure
/// gave before, on every weak name of the fixtures and of the CI Node builds (where both give
/// keys; the walk gives up on node kinds it does not read, and those names keep cpp_demangle's).
#[test]
fn keys_from_libiberty_equal_keys_from_cpp_demangle_on_every_node_name() {
    use weakscan::analysis::demangle::{keys_by_source, needs_demangling};
    if !keys_from_libiberty() {
        return;
    }
    let (raws, node_read) = weak_names_of_fixtures_and_node();
    let (mut same, mut fallback, mut wrong) = (0usize, 0usize, Vec::new());
    for raw in raws.iter().filter(|r| needs_demangling(r)) {
        match keys_by_source(raw) {
            (Some(tree), Some(cpp)) if tree == cpp => same += 1,
            (Some(tree), cpp) => wrong.push(format!(
                "{raw}\n  libiberty:    {tree:?}\n  cpp_demangle: {cpp:?}"
            )),
            (None, _) => fallback += 1,
        }
    }
    eprintln!(
        "keys: {same} names from libiberty's parse, equal to cpp_demangle's; {fallback} from cpp_demangle (the walk gave up)"
    );
    // The fixtures alone (the packaged crate has no Node cache) hold about a hundred C++ names.
    let least = if node_read { 10_000 } else { 50 };
    assert!(same > least, "only {same} names compared");
    none_differ(&wrong);
}

/// Beyond the weak names: every `__Z` name of the symbol tables of two Node builds (llvm-nm-22
/// `-j`, most of them local symbols). The two sources differ only where cpp_demangle does not
/// print a lambda member's parameter list in a local name (docs/names.md).
#[test]
fn keys_from_libiberty_differ_from_cpp_demangle_only_where_it_was_wrong() {
    use weakscan::analysis::demangle::keys_by_source;
    if !keys_from_libiberty() {
        return;
    }
    let Some(nm) = crate::util::llvm_nm_or_skip() else {
        return;
    };
    let mut raws = std::collections::BTreeSet::new();
    for version in ["22.11.0", "24.11.1"] {
        let Some(bin) = node_binary(version) else {
            continue;
        };
        let out = Command::new(&nm)
            .arg("-j")
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
    if raws.is_empty() {
        return;
    }
    let (mut same, mut lambda, mut other) = (0usize, 0usize, Vec::new());
    for raw in &raws {
        let (Some(tree), Some(cpp)) = keys_by_source(raw) else {
            continue;
        };
        if tree == cpp {
            same += 1;
        } else if tree.0.replace("(…)", "") == cpp.0.replace("(…)", "")
            && tree.0.contains("{lambda(…)#")
            && tree.0.len() == cpp.0.len() + "(…)".len()
        {
            lambda += 1;
        } else {
            other.push(format!(
                "{raw}\n  libiberty:    {tree:?}\n  cpp_demangle: {cpp:?}"
            ));
        }
    }
    eprintln!(
        "keys of {} symbol-table names: {same} equal, {lambda} lambda members given their parameter list",
        raws.len()
    );
    assert!(same > 100_000, "only {same} names compared");
    none_differ(&other);
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
        assert_eq!(again.demangled(), a);
    }
    for g in diff["groups"].as_array().unwrap() {
        assert!(
            g["example_mangled"].as_str().unwrap().starts_with('_'),
            "{g}"
        );
    }
}
