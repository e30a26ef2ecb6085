//! The fix plan of a whole process (`scan APP`'s `fix_plan`): each candidate's savings held to
//! a coalescing of the process with its weak definitions hidden in the model, to the
//! arithmetic of the process's own figures, and on Node.js to the binary's fix plan.

use crate::node::node_binary;
use crate::util::{fails_with, json, stdout_of, testdata, weakscan};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use weakscan::analysis::attribute::Origins;
use weakscan::analysis::coalesce::{Coalescing, coalesce, coalesce_with};
use weakscan::analysis::demangle::{Demangled, InlinesHidden, Keys, NameStyle};
use weakscan::analysis::fix_plan::hideable;
use weakscan::model::{MH_WEAK_DEFINES, predict_lookups};
use weakscan::process::Process;
use weakscan::process::bundle::locate;
use weakscan::process::load::{LoadOptions, load};

fn processes(path: &std::path::Path) -> Vec<Process> {
    load(&locate(path).unwrap(), &LoadOptions::default()).unwrap()
}

/// The raw names image `index` of `p` would hide for the candidate keyed `library`, and with
/// `-fvisibility-inlines-hidden`: those it may hide, and those it hides for sure.
fn hidden_names(p: &Process, index: usize, library: &str) -> [HashSet<String>; 3] {
    let image = p.images[index].image.as_ref().unwrap();
    let mut raw: Vec<&str> = image
        .weak_definitions
        .iter()
        .map(|w| w.name.as_str())
        .collect();
    raw.sort_unstable();
    raw.dedup();
    let names = Demangled::of_sorted(raw, 512, Keys::None, NameStyle::Demangled).unwrap();
    let origins = Origins::of(image);
    let defs: Vec<_> = hideable(image, &origins, &names)
        .into_iter()
        .filter(|d| d.library == library)
        .collect();
    let of = |keep: fn(&InlinesHidden) -> bool| {
        defs.iter()
            .filter(|d| keep(&d.inlines))
            .map(|d| d.name.to_string())
            .collect()
    };
    [of(|_| true), of(|i| i.at_most()), of(|i| i.surely())]
}

/// `p` as if image `index` were linked again with `hidden` not exported: no longer weak
/// definitions nor weak-bind targets (its uses bind directly), without `MH_WEAK_DEFINES` when
/// `leaves`, and its lookups predicted again from that (`predict_lookups`, the reader's rule);
/// coalesced again.
fn coalesced_hiding(
    mut p: Process,
    index: usize,
    hidden: &HashSet<String>,
    leaves: bool,
) -> Coalescing {
    let image = p.images[index].image.as_mut().unwrap();
    image
        .weak_definitions
        .retain(|w| !hidden.contains(w.name.as_str()));
    image
        .bind_targets
        .retain(|t| !hidden.contains(t.symbol.as_str()));
    if leaves {
        assert!(image.weak_definitions.is_empty());
        image.flags = image.flags.map(|f| f & !MH_WEAK_DEFINES);
    }
    image.lookups = predict_lookups(
        image.filetype.unwrap(),
        image.flags.unwrap(),
        image.fixup_format.unwrap(),
        &image.bind_targets,
    );
    coalesce(&p, NameStyle::Demangled).unwrap()
}

/// Every candidate's lookups and trie probes saved, with either flag, equal the process's
/// figures less those of the same process coalesced again with the candidate's weak
/// definitions hidden in its model: on both app bundles and the re-export fixture.
#[test]
fn process_fix_plan_savings_equal_a_coalescing_with_the_definitions_hidden() {
    let mut checked = 0;
    for path in [
        "process/App.app",
        "process/App-v2.app",
        "process/Reexport/main",
    ] {
        let path = testdata().join(path);
        let base = processes(&path).remove(0);
        let c = coalesce_with(&base, NameStyle::Demangled, true).unwrap();
        assert!(!c.fix_plan.is_empty(), "{}: no fix plan", path.display());
        for cand in &c.fix_plan {
            let what = format!("{} {} {}", path.display(), cand.image, cand.library);
            let [all, at_most, at_least] = hidden_names(&base, cand.index, &cand.library);
            let fresh = || processes(&path).remove(0);
            let hidden = coalesced_hiding(fresh(), cand.index, &all, cand.leaves_search);
            assert_eq!(c.lookups - hidden.lookups, cand.hidden.lookups, "{what}");
            assert_eq!(
                c.trie_probes as i64 - hidden.trie_probes as i64,
                cand.hidden.trie_probes,
                "{what}"
            );
            let weak = base.images[cand.index]
                .image
                .as_ref()
                .unwrap()
                .weak_definitions
                .len();
            for (names, saved, bound) in [
                (&at_most, &cand.inlines_hidden, "at most"),
                (&at_least, &cand.inlines_hidden_at_least, "at least"),
            ] {
                let leaves = weak == names.len() && cand.leaves_search;
                let inlines = coalesced_hiding(fresh(), cand.index, names, leaves);
                assert_eq!(
                    c.lookups - inlines.lookups,
                    saved.lookups,
                    "{what} (inlines hidden, {bound})"
                );
                assert_eq!(
                    c.trie_probes as i64 - inlines.trie_probes as i64,
                    saved.trie_probes,
                    "{what} (inlines hidden, {bound})"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked} candidates checked");
}

/// On App.app (no weakDefMap: 74 lookups), hiding an image that leaves the search saves
/// `probes − (lookups − its own lookups) × (images searched − 1)`; the plan ranks the change
/// no other image depends on first, and counts the names other images would lose.
#[test]
fn process_fix_plan_of_the_app_follows_the_process_figures() {
    let app = testdata().join("process/App.app").display().to_string();
    let doc = json(&["scan", "--format", "json", &app]);
    let p = &doc["processes"][0];
    let n = |v: &Value| v.as_i64().unwrap();
    let (lookups, probes, searched) = (
        n(&p["lookups"]),
        n(&p["trie_probes"]),
        n(&p["images_searched"]),
    );
    assert_eq!(n(&p["weak_def_map_hits"]), 0);
    let plan = p["fix_plan"].as_array().unwrap();
    let by_image: BTreeMap<&str, &Value> = plan
        .iter()
        .map(|c| (c["image"].as_str().unwrap(), c))
        .collect();
    for c in plan.iter().filter(|c| c["leaves_search"] == true) {
        let own = n(&c["hidden"]["lookups"]);
        assert_eq!(
            n(&c["hidden"]["trie_probes"]),
            probes - (lookups - own) * (searched - 1),
            "{c}"
        );
    }
    // libshared_b's non-weak Counter<long>() replaces the main executable's weak one: it keeps
    // MH_WEAK_DEFINES, so it stays in the search and saves only its own lookups' probes.
    let b = by_image["Contents/Frameworks/libshared_b.dylib"];
    assert_eq!(b["leaves_search"], false);
    assert_eq!(
        n(&b["hidden"]["trie_probes"]),
        n(&b["hidden"]["lookups"]) * searched
    );
    // libdeep supplies libshared_a three names nobody else defines.
    let deep = by_image["Contents/Frameworks/deps/libdeep.dylib"];
    assert_eq!(
        (
            n(&deep["supplied_to_others"]),
            n(&deep["defined_nowhere_else"])
        ),
        (3, 3)
    );
    // The main executable exports operator new non-weak (it overrides libc++'s): it keeps
    // MH_WEAK_DEFINES, so hiding app.o saves only its own lookups' probes, and moves six
    // names other images win from it.
    let main = by_image["Contents/MacOS/App"];
    assert_eq!(main["library"], "app.o");
    assert_eq!(main["leaves_search"], false);
    assert_eq!(
        n(&main["hidden"]["trie_probes"]),
        n(&main["hidden"]["lookups"]) * searched
    );
    assert_eq!(n(&main["supplied_to_others"]), 6);
    let order: Vec<&str> = plan.iter().map(|c| c["image"].as_str().unwrap()).collect();
    assert_eq!(
        order,
        [
            "Contents/Frameworks/libshared_a.dylib",
            "Contents/Frameworks/deps/libdeep.dylib",
            "Contents/MacOS/App",
            "Contents/Frameworks/libshared_b.dylib"
        ]
    );
    // The table opens with the fix, and names it.
    let table = stdout_of(&["scan", &app]);
    let fix = table.lines().nth(1).unwrap();
    assert!(
        fix.starts_with("fix: compile Contents/Frameworks/libshared_a.dylib with -fvisibility=hidden: -95 trie probes (32%), -7 lookups"),
        "{table}"
    );
    assert!(table.contains("\nfix plan: what hiding"), "{table}");
    let md = stdout_of(&["scan", "--format", "markdown", &app]);
    assert!(
        md.contains(
            "**Fix:** compile `Contents/Frameworks/libshared_a.dylib` with `-fvisibility=hidden`"
        ),
        "{md}"
    );
    assert!(
        md.contains("| `app.o` in `Contents/MacOS/App` | `-fvisibility=hidden` | 28 | 7 |"),
        "{md}"
    );
}

/// Node.js 22.11.0 as a process (one image on disk): each library's lookups saved equal the
/// binary's fix plan, and with no weakDefMap hit each lookup saved is one probe saved.
#[test]
fn node_process_fix_plan_equals_the_binarys_plan_in_probes() {
    let Some(bin) = node_binary("22.11.0") else {
        return;
    };
    let bin = bin.to_str().unwrap();
    let doc = json(&["scan", "--process", "--format", "json", bin]);
    let p = &doc["processes"][0];
    assert_eq!(p["weak_def_map_hits"], 0);
    let plan = p["fix_plan"].as_array().unwrap();
    let scan = json(&["scan", "--format", "json", bin]);
    // The kinds come from the names read without printing them (a process's entity index)
    // and, in the scan, from the names demangled: the same on all of Node's names.
    let row = |c: &Value| {
        (
            c["library"].as_str().unwrap().to_string(),
            c["hidden"]["lookups"].as_u64().unwrap(),
            c["inlines_hidden"]["lookups"].as_u64().unwrap(),
            c["kinds"].clone(),
        )
    };
    let expected: Vec<_> = scan["fix_plan"][0]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(row)
        .collect();
    let got: Vec<_> = plan.iter().map(row).collect();
    assert_eq!(got, expected);
    assert_eq!(
        (got[0].0.as_str(), got[0].1),
        ("libv8_base_without_compiler.a", 3939)
    );
    for c in plan {
        assert_eq!(c["hidden"]["trie_probes"], c["hidden"]["lookups"], "{c}");
        assert_eq!(
            c["inlines_hidden"]["trie_probes"], c["inlines_hidden"]["lookups"],
            "{c}"
        );
        assert_eq!(c["leaves_search"], false);
    }
}

/// A failing `check` of a process gives the process's fix, as `scan APP` prints it, in the
/// table and in the pull-request comment (regression: it gave the general advice only).
#[test]
fn failing_process_check_gives_the_process_fix() {
    let app = testdata().join("process/App.app").display().to_string();
    let scan = stdout_of(&["scan", &app]);
    let fix = scan.lines().nth(1).unwrap();
    assert!(fix.starts_with("fix: "), "{scan}");
    let out = weakscan()
        .args(["check", "--no-config", &app, "--max-trie-probes", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.lines().any(|l| l == fix), "{table}");
    assert!(!table.contains("how to fix:"), "{table}");
    let md = weakscan()
        .args([
            "check",
            "--no-config",
            &app,
            "--max-trie-probes",
            "10",
            "--format",
            "markdown",
        ])
        .output()
        .unwrap();
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(
        md.contains("**Fix:** compile `Contents/Frameworks/libshared_a.dylib` with `-fvisibility=hidden`: -95 trie probes"),
        "{md}"
    );
    // A passing check computes no plan and names no fix.
    let ok = stdout_of(&["check", "--no-config", &app, "--max-trie-probes", "1000"]);
    assert!(!ok.contains("fix:"), "{ok}");
}

/// `diff Old.app New.app` gives the new version's fix, as `scan New.app` names it (`fix:`
/// when the probes grew), and its whole plan in the JSON.
#[test]
fn process_diff_gives_the_new_versions_fix() {
    let (old, new) = (
        testdata().join("process/App.app").display().to_string(),
        testdata().join("process/App-v2.app").display().to_string(),
    );
    let scan = stdout_of(&["scan", &new]);
    let scan_fix = scan.lines().nth(1).unwrap();
    let diff = stdout_of(&["diff", &old, &new]);
    assert_eq!(diff.lines().nth(1), Some(scan_fix), "{diff}");
    let doc = json(&["diff", &old, &new, "--format", "json"]);
    let scanned = json(&["scan", &new, "--format", "json"]);
    assert_eq!(
        doc["processes"][0]["fix_plan"],
        scanned["processes"][0]["fix_plan"]
    );
    // Back to the old version the probes fall: what still leaks there.
    let back = stdout_of(&["diff", &new, &old]);
    assert!(
        back.lines()
            .nth(1)
            .unwrap()
            .starts_with("fix what remains: compile "),
        "{back}"
    );
    let md = stdout_of(&["diff", &new, &old, "--format", "markdown"]);
    assert!(md.contains("**Fix what remains:** compile `"), "{md}");
}

/// `scan APP --map/--dsym/--compile-commands` (and `scan --process MAIN` with them) was
/// accepted and the files never read: a process scan attributes each image by its own debug
/// map, so each is refused with one line naming it (exit 2), as `diff`, `check` and `baseline`
/// of processes refuse them.
#[test]
fn regression_scan_process_ignored_map_and_dsym() {
    let app = testdata().join("plan/Bundle.app").display().to_string();
    let main = testdata()
        .join("plan/Bundle.app/Contents/MacOS/Bundle")
        .display()
        .to_string();
    // Files that exist: refused for what they are given with, not for being unreadable.
    let file = testdata().join("plan/breaks-Bundle.libdelta.hidden.txt");
    let file = file.display().to_string();
    for (flag, needle) in [
        ("--map", "--map"),
        ("--dsym", "--dsym"),
        ("--compile-commands", "--compile-commands"),
    ] {
        for input in [&["--process", main.as_str()][..], &[app.as_str()][..]] {
            let mut args = vec!["scan"];
            args.extend_from_slice(input);
            args.extend([flag, &file]);
            let err = fails_with(&args, needle);
            assert!(err.contains("process"), "{err}");
        }
    }
    // diff of processes refuses each side's files alike.
    let other = testdata().join("plan/Bundle.libgamma.hidden.app");
    let other = other.display().to_string();
    for flag in [
        "--old-map",
        "--new-map",
        "--old-dsym",
        "--new-dsym",
        "--compile-commands",
    ] {
        fails_with(&["diff", &app, &other, flag, &file], "not a whole process");
    }
}
