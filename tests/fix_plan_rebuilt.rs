//! The fix plan held to real rebuilds (`testdata/plan/`, built by `testdata/build.sh plan` from
//! `testdata/src/plan/`): each candidate of each program rebuilt with each flag and relinked by
//! ld64.lld-22. What the plan claims exactly (`-fvisibility=hidden`, the last leaker's
//! `MH_WEAK_DEFINES` lookups) equals what weakscan then counts in the rebuilt binary; what it
//! bounds (`-fvisibility-inlines-hidden`) holds the rebuilt binary between its bounds; and the
//! plug-in that binds the executable's instantiations by weak lookup is predicted to break
//! exactly where ld64.lld refuses to relink it. llvm-objdump-22 agrees on the exports and the
//! plug-in's weak-lookup imports.

use crate::util::{json, llvm_objdump, required, skip, testdata};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// `(weak-def exports, weak-bound symbols, sites, lookups)` of a scan's image or a saving.
type Figures = [u64; 4];

fn plan_fixture(name: &str) -> PathBuf {
    testdata().join("plan").join(name)
}

/// A scan of `name`, every definer read from the objects committed in `testdata/plan/obj`.
fn scan(name: &str) -> Value {
    scan_with(name, &[])
}

/// [`scan`] with more arguments.
fn scan_with(name: &str, more: &[&str]) -> Value {
    let objects = plan_fixture("obj");
    let mut args = vec![
        "scan",
        "--format",
        "json",
        "--objects",
        objects.to_str().unwrap(),
    ];
    args.extend(more);
    let path = plan_fixture(name);
    args.push(path.to_str().unwrap());
    json(&args)
}

/// What a scan counts in the binary.
fn totals(scan: &Value) -> Figures {
    let i = &scan["images"][0];
    let n = |k: &str| i[k].as_u64().unwrap();
    [
        n("weak_def_exports"),
        n("weak_bind_symbols"),
        n("weak_bind_sites"),
        n("predicted_weak_lookups"),
    ]
}

/// What a saving of the plan says goes.
fn saving(s: &Value) -> Figures {
    let n = |k: &str| s[k].as_u64().unwrap();
    [
        n("weak_def_exports"),
        n("weak_bound_symbols"),
        n("sites"),
        n("lookups"),
    ]
}

/// The programs, the libraries of each (their candidate keys), and their base builds.
const PROGRAMS: [(&str, &[&str]); 3] = [
    ("app-chained-arm64", &["libalpha", "libbeta"]),
    ("solo-chained-arm64", &["libleak"]),
    ("solo-opcodes-x86_64", &["libleak"]),
];

/// Each candidate and flag: the plan's figures against the rebuilt binary's drop.
#[test]
fn every_candidate_rebuilt_with_each_flag_saves_what_the_plan_says() {
    let mut checked = 0;
    for (program, libraries) in PROGRAMS {
        checked += hold_to_rebuilds(program, libraries, &scan(program));
    }
    assert_eq!(checked, 8);
}

/// Holds each candidate of `base` (the scan of `program`) to the rebuilds of `libraries` with
/// each flag: `-fvisibility=hidden` exactly, `-fvisibility-inlines-hidden` within its bounds.
/// Returns how many rebuilds were checked.
fn hold_to_rebuilds(program: &str, libraries: &[&str], base: &Value) -> usize {
    let mut checked = 0;
    {
        let before = totals(base);
        let candidates = base["fix_plan"][0]["candidates"].as_array().unwrap();
        assert_eq!(
            candidates.len(),
            libraries.len(),
            "{program}: {candidates:?}"
        );
        for lib in libraries {
            let c = candidates
                .iter()
                .find(|c| c["library"] == format!("{lib}.a"))
                .unwrap_or_else(|| panic!("{program}: no candidate {lib}.a"));
            let actual = |flag: &str| -> Figures {
                let after = totals(&scan(&format!("{program}.{lib}.{flag}")));
                std::array::from_fn(|k| before[k] - after[k])
            };
            let hidden = actual("hidden");
            assert_eq!(saving(&c["hidden"]), hidden, "{program} {lib} hidden");
            let inlines = actual("inlines");
            let (lo, hi) = (
                saving(&c["inlines_hidden_at_least"]),
                saving(&c["inlines_hidden"]),
            );
            for k in 0..4 {
                assert!(
                    lo[k] <= inlines[k] && inlines[k] <= hi[k],
                    "{program} {lib} inlines, figure {k}: {} ≤ {} ≤ {}",
                    lo[k],
                    inlines[k],
                    hi[k]
                );
            }
            checked += 2;
        }
    }
    checked
}

/// The compile database of the flags program (`--compile-commands`): libmarked.a compiles
/// with `-fvisibility=hidden` and exports only what its source marks `visibility("default")`,
/// libinl.a with `-fvisibility-inlines-hidden` already, libnsl.a with
/// `-fno-visibility-inlines-hidden-static-local-var`. The plan holds to every rebuild that
/// keeps each library's flags and adds one.
#[test]
fn regression_flags_already_in_the_compile_commands_were_counted_as_savings() {
    let db = plan_fixture("flags-compile_commands.json");
    let program = "flags-chained-arm64";
    let base = scan_with(program, &["--compile-commands", db.to_str().unwrap()]);
    let checked = hold_to_rebuilds(program, &["libmarked", "libinl", "libnsl"], &base);
    assert_eq!(checked, 6);
    let candidates = base["fix_plan"][0]["candidates"].as_array().unwrap();
    let c = |lib: &str| candidates.iter().find(|c| c["library"] == lib).unwrap();
    // What the flags in place leave exported, no rebuild with them hides: libmarked.a's
    // symbols are all marked, libinl.a's -fvisibility-inlines-hidden saves nothing.
    let marked = c("libmarked.a");
    assert_eq!(saving(&marked["hidden"]), [0; 4]);
    assert_eq!(saving(&marked["marked_default"]), [9, 9, 9, 9]);
    assert_eq!(saving(&c("libinl.a")["inlines_hidden"]), [0; 4]);
    // The class's mark does not keep its inline members from -fvisibility-inlines-hidden: the
    // rebuild hides them, and only the upper bound counts them.
    assert_eq!(saving(&marked["inlines_hidden_at_least"]), [0; 4]);
    assert!(saving(&marked["inlines_hidden"])[0] >= 3);
    // Without the database the plan takes every object for compiled with neither flag, and
    // holds to none of those rebuilds.
    let blind = scan(program);
    let candidates = blind["fix_plan"][0]["candidates"].as_array().unwrap();
    let blind_marked = candidates
        .iter()
        .find(|c| c["library"] == "libmarked.a")
        .unwrap();
    assert_eq!(saving(&blind_marked["hidden"]), [9, 9, 9, 9]);
    let lines = crate::util::stdout_of(&[
        "scan",
        "--compile-commands",
        db.to_str().unwrap(),
        plan_fixture(program).to_str().unwrap(),
    ]);
    assert!(
        lines.contains(
            "libmarked.a: 9 lookups of 9 symbols stay: compiled with -fvisibility=hidden already"
        ),
        "{lines}"
    );
}

/// The last leaker: hiding libleak.a leaves the image with no weak definition, and the plan
/// counts the operator new/delete lookups that go with `MH_WEAK_DEFINES` (22 with opcode
/// fixups, 44 with chained), as the rebuilt binary shows.
#[test]
fn the_last_leaker_takes_mh_weak_defines_and_its_lookups() {
    for (program, extra) in [("solo-opcodes-x86_64", 22), ("solo-chained-arm64", 44)] {
        let base = scan(program);
        let c = &base["fix_plan"][0]["candidates"][0];
        for s in ["hidden", "inlines_hidden", "inlines_hidden_at_least"] {
            assert_eq!(c[s]["weak_defines_lookups"], extra, "{program} {s}");
        }
        assert_eq!(c["flag"], "visibility_inlines_hidden");
        for flag in ["hidden", "inlines"] {
            let rebuilt = scan(&format!("{program}.libleak.{flag}"));
            let flags = &rebuilt["images"][0]["flags"];
            assert!(
                !flags
                    .as_array()
                    .unwrap()
                    .contains(&"MH_WEAK_DEFINES".into()),
                "{program} {flag}: {flags}"
            );
            assert_eq!(totals(&rebuilt), [0, 0, 0, 0]);
        }
        let text = crate::util::stdout_of(&["scan", plan_fixture(program).to_str().unwrap()]);
        assert!(
            text.contains(&format!(
                "MH_WEAK_DEFINES goes and with it {extra} lookups of operator new"
            )),
            "{text}"
        );
    }
}

/// The symbols ld64.lld-22 reported undefined when `plugin` (or the executable of the app
/// bundle `Bundle`) was relinked against a rebuild (build.sh wrote them).
fn relink_breaks(plugin: &str, lib: &str, flag: &str) -> Vec<String> {
    let f = plan_fixture(&format!("breaks-{plugin}.{lib}.{flag}.txt"));
    std::fs::read_to_string(f)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// `scan --importer`: the plug-in that binds beta::Reg<int> by weak lookup (ordinal -3)
/// breaks when libbeta.a is hidden, as ld64.lld's relink shows; the plug-in with its own copy
/// does not break on it (only on the strong beta::run() it binds from the executable). Per
/// plug-in and library, the names predicted are exactly what the relink against the
/// `-fvisibility=hidden` rebuild misses, and include what it misses against the
/// `-fvisibility-inlines-hidden` one.
#[test]
fn a_plugin_binding_by_weak_lookup_is_predicted_to_break() {
    let app = plan_fixture("app-chained-arm64");
    let plugins = ["plug_ref", "plug_inst"];
    let paths = plugins.map(|p| plan_fixture(&format!("{p}.bundle")));
    let v = json(&[
        "scan",
        "--format",
        "json",
        "--importer",
        paths[0].to_str().unwrap(),
        "--importer",
        paths[1].to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    let candidates = v["fix_plan"][0]["candidates"].as_array().unwrap();
    let mut breaks = 0;
    for lib in ["libalpha", "libbeta"] {
        let c = candidates
            .iter()
            .find(|c| c["library"] == format!("{lib}.a"))
            .unwrap();
        for plugin in plugins {
            let mut predicted: Vec<String> = c["imported_by"]
                .as_array()
                .map(|a| a.as_slice())
                .unwrap_or_default()
                .iter()
                .filter(|i| {
                    i["importer"]
                        .as_str()
                        .unwrap()
                        .ends_with(&format!("/{plugin}.bundle"))
                })
                .flat_map(|i| i["examples"].as_array().unwrap())
                .map(|e| e["symbol"].as_str().unwrap().to_string())
                .collect();
            predicted.sort();
            let hidden = relink_breaks(plugin, lib, "hidden");
            assert_eq!(predicted, hidden, "{plugin} {lib}");
            for b in relink_breaks(plugin, lib, "inlines") {
                assert!(predicted.contains(&b), "{plugin} {lib}: {b} not predicted");
            }
            breaks += hidden.len();
        }
    }
    assert_eq!(
        relink_breaks("plug_ref", "libbeta", "hidden"),
        ["__ZN4beta3RegIiE3addEi", "__ZN4beta3RegIiE5countEv"],
        "the weak-lookup break the fixture is for"
    );
    assert_eq!(breaks, 3);
}

/// llvm-objdump-22 on the plan fixtures: the weak-def exports of every build are weakscan's,
/// and plug_ref.bundle's beta::Reg<int> imports have ordinal -3 (weak).
#[test]
fn plan_fixtures_agree_with_llvm_objdump() {
    let Some(objdump) = llvm_objdump() else {
        assert!(
            !required("WEAKSCAN_REQUIRE_LLVM"),
            "llvm-objdump from LLVM 22 is required but missing"
        );
        skip("llvm-objdump from LLVM 22 not found (apt-get install llvm-22)");
        return;
    };
    let run = |args: &[&str], f: &PathBuf| -> String {
        let out = Command::new(&objdump).args(args).arg(f).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let mut names: Vec<String> = std::fs::read_dir(testdata().join("plan"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".txt") && !n.ends_with(".bundle") && !n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 19, "{names:?}");
    for n in &names {
        let trie = run(&["--macho", "--exports-trie"], &plan_fixture(n));
        let weak = trie.lines().filter(|l| l.contains("[weak_def]")).count() as u64;
        assert_eq!(weak, totals(&scan(n))[0], "{n}");
    }
    let fixups = run(
        &["--macho", "--dyld-info"],
        &plan_fixture("plug_ref.bundle"),
    );
    let weak: Vec<&str> = fixups
        .lines()
        .filter(|l| l.split_whitespace().nth(6) == Some("weak"))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    for s in ["__ZN4beta3RegIiE3addEi", "__ZN4beta3RegIiE5countEv"] {
        assert!(weak.contains(&s), "{s} not bound by weak lookup: {fixups}");
    }
}

/// The core::Registry<int> members both libalpha.a and libbeta.a define.
const SHARED: [&str; 2] = [
    "__ZN4core8RegistryIiE3addEi",
    "__ZN4core8RegistryIiE4sizeEv",
];

/// The weak definitions a scan of the build `name` counts.
fn weak_definitions(name: &str) -> Vec<String> {
    let v = json(&[
        "scan",
        "--format",
        "json",
        "--by",
        "symbol",
        "--top",
        "1000",
        plan_fixture(name).to_str().unwrap(),
    ]);
    v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["weak_def_exports"].as_u64().unwrap() > 0)
        .map(|g| g["mangled"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Every definer: a symbol libalpha.a and libbeta.a both define stays exported when either is
/// hidden alone, so neither candidate counts it; the plan lists it as needing both, and hiding
/// both together saves what the rebuild with both hidden shows (every lookup, with the last
/// leaker's 44).
#[test]
fn regression_a_symbol_two_libraries_define_was_counted_as_saved_by_hiding_one() {
    let base = scan("app-chained-arm64");
    let plan = &base["fix_plan"][0];
    assert_eq!(plan["definers"]["exact"], true, "{plan}");
    assert_eq!(plan["definers"]["read"], 3);
    let shared = plan["shared"].as_array().unwrap();
    assert_eq!(shared.len(), 1, "{shared:?}");
    assert_eq!(
        shared[0]["libraries"],
        serde_json::json!(["libalpha.a", "libbeta.a"])
    );
    assert_eq!(shared[0]["examples"], serde_json::json!(SHARED));
    assert_eq!(saving(&shared[0]["hidden"]), [2, 2, 2, 2]);
    // Hiding one library leaves the shared symbols exported (the rebuilds show it), so the
    // candidates' figures, equal to the rebuilds' drops, leave them out.
    for lib in ["libalpha", "libbeta"] {
        let defs = weak_definitions(&format!("app-chained-arm64.{lib}.hidden"));
        for s in SHARED {
            assert!(
                defs.iter().any(|d| d == s),
                "{lib} hidden: {s} gone: {defs:?}"
            );
        }
    }
    let both = totals(&scan("app-chained-arm64.libalpha+libbeta.hidden"));
    let before = totals(&base);
    let drop: Figures = std::array::from_fn(|k| before[k] - both[k]);
    let together = &plan["together"];
    assert_eq!(
        together["libraries"],
        serde_json::json!(["libalpha.a", "libbeta.a"])
    );
    assert_eq!(saving(&together["hidden"]), drop);
    assert_eq!(together["hidden"]["weak_defines_lookups"], 44);
    assert_eq!(both, [0, 0, 0, 0]);
    let text = crate::util::stdout_of(&["scan", "--objects", "plan/obj", "plan/app-chained-arm64"]);
    assert!(
        text.contains("needs libalpha.a and libbeta.a together: -2 lookups of 2 symbols"),
        "{text}"
    );
    assert!(
        text.contains("hide libalpha.a and libbeta.a together: -79 lookups"),
        "{text}"
    );
}

/// The objects are read where the debug map names them, relative to the working directory
/// (the build tree); elsewhere, without `--objects`, the figures are "at most" and the first
/// screen says how to make them exact.
#[test]
fn without_the_objects_the_plan_says_at_most_and_how_to_make_it_exact() {
    let in_tree = crate::util::weakscan()
        .current_dir(testdata().join("plan"))
        .args(["scan", "--format", "json", "app-chained-arm64"])
        .output()
        .unwrap();
    assert!(in_tree.status.success());
    let v: Value = serde_json::from_slice(&in_tree.stdout).unwrap();
    assert_eq!(v["fix_plan"][0]["definers"]["exact"], true);
    assert_eq!(
        v["fix_plan"][0]["candidates"],
        scan("app-chained-arm64")["fix_plan"][0]["candidates"]
    );
    let text = crate::util::stdout_of(&["scan", "plan/app-chained-arm64"]);
    let fix: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("fix: "))
        .take(3)
        .collect();
    assert!(
        fix[0].contains("with -fvisibility=hidden: at most -30 lookups"),
        "{fix:?}"
    );
    assert!(
        fix[1].contains("the objects the image was linked from are not on this disk (3 of 3): for exact figures give --objects obj or run in the build tree"),
        "{fix:?}"
    );
}

/// `--objects`: a malformed archive found for an object the debug map names is refused with
/// one line (exit 2); an object of another arch, or a path that holds no such object, is only
/// counted, and the figures stay at most; a path that does not exist is an error.
#[test]
fn objects_that_cannot_be_read_are_refused_or_counted() {
    let dir = tempfile::tempdir().unwrap();
    let app = plan_fixture("app-chained-arm64");
    let app = app.to_str().unwrap();
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(bad.join("libalpha.a"), b"!<arch>\nnot a header").unwrap();
    let line = crate::util::fails_with(
        &["scan", "--objects", bad.to_str().unwrap(), app],
        "libalpha.a",
    );
    assert!(line.starts_with("weakscan: "), "{line}");
    // libbeta.a is read; a main.o of LLVM bitcode (an LTO build) is counted unreadable;
    // libalpha.a is nowhere (counted not on disk).
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::copy(
        plan_fixture("obj/plan/app-chained-arm64/beta-default/libbeta.a"),
        other.join("libbeta.a"),
    )
    .unwrap();
    std::fs::write(other.join("main.o"), b"BC\xc0\xde\x35\x14\x00\x00").unwrap();
    let v = json(&[
        "scan",
        "--format",
        "json",
        "--objects",
        other.to_str().unwrap(),
        app,
    ]);
    let d = &v["fix_plan"][0]["definers"];
    assert_eq!(d["exact"], false, "{d}");
    assert_eq!(
        (
            d["read"].as_u64(),
            d["unreadable"].as_u64(),
            d["not_on_disk"].as_u64()
        ),
        (Some(1), Some(1), Some(1)),
        "{d}"
    );
    crate::util::fails_with(
        &[
            "scan",
            "--objects",
            dir.path().join("missing").to_str().unwrap(),
            app,
        ],
        "missing",
    );
}

/// In the build with libalpha.a hidden, ld64.lld kept libalpha.a's hidden copy of
/// core::Registry<int> (first in link order), exported through libbeta.a's: the plan read from
/// that build's objects (`--objects` finds `alpha-hidden/libalpha.a` by its trailing path
/// components, beside `alpha-default/libalpha.a`) gives the symbols to libbeta.a alone, and
/// hiding it then saves what the rebuild with both hidden shows, the last leaker's 44 included.
#[test]
fn regression_a_hidden_kept_copy_made_the_other_definer_look_shared() {
    let base = scan("app-chained-arm64.libalpha.hidden");
    let plan = &base["fix_plan"][0];
    assert_eq!(plan["definers"]["exact"], true, "{plan}");
    assert!(plan["shared"].is_null(), "{plan}");
    let candidates = plan["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 1, "{candidates:?}");
    assert_eq!(candidates[0]["library"], "libbeta.a");
    let before = totals(&base);
    let after = totals(&scan("app-chained-arm64.libalpha+libbeta.hidden"));
    let drop: Figures = std::array::from_fn(|k| before[k] - after[k]);
    assert_eq!(saving(&candidates[0]["hidden"]), drop);
    assert_eq!(drop, [7, 7, 7, 51]);
}

/// The process of the app bundle `name` (`testdata/plan/NAME.app`) as `scan --format json` shows
/// it.
fn process(name: &str) -> Value {
    let v = json(&[
        "scan",
        "--format",
        "json",
        plan_fixture(&format!("{name}.app")).to_str().unwrap(),
    ]);
    v["processes"][0].clone()
}

/// The image `image` (its path in the bundle) of a process.
fn image_of<'v>(process: &'v Value, image: &str) -> &'v Value {
    process["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["image"] == image)
        .unwrap_or_else(|| panic!("no image {image}: {process}"))
}

/// `(weak-bound symbols, lookups, trie probes, weak-def exports)` of a process saving.
fn process_saving(s: &Value) -> [i64; 4] {
    let n = |k: &str| s[k].as_i64().unwrap();
    [
        n("weak_bound_symbols"),
        n("lookups"),
        n("trie_probes"),
        n("weak_def_exports"),
    ]
}

/// The same figures counted in a build: the image's weak-bound symbols and weak-def exports
/// (a scan of the image alone), the process's lookups and trie probes.
fn process_figures(name: &str, image: &str) -> [i64; 4] {
    let p = process(name);
    let file = plan_fixture(&format!("{name}.app")).join(image);
    let alone = totals(&json(&["scan", "--format", "json", file.to_str().unwrap()]));
    [
        alone[1] as i64,
        p["lookups"].as_i64().unwrap(),
        p["trie_probes"].as_i64().unwrap(),
        alone[0] as i64,
    ]
}

/// Names `image` wins in `base` for another image's lookup that another image wins in
/// `rebuilt`, and of those, the names no image on disk defines there:
/// `(supplied_to_others, defined_nowhere_else)` as the rebuild shows them.
fn moved(base: &Value, rebuilt: &Value, image: &str) -> (usize, usize) {
    let symbols = |p: &Value| p["symbols"].as_array().unwrap().clone();
    let after = symbols(rebuilt);
    let (mut supplied, mut nowhere) = (0, 0);
    for s in symbols(base) {
        let for_others = s["requested_by"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r != image);
        if s["winner"] != image || !for_others {
            continue;
        }
        let now = after.iter().find(|a| a["mangled"] == s["mangled"]);
        match now.map(|a| &a["winner"]) {
            Some(w) if w == image => {}
            Some(Value::Null) => {
                supplied += 1;
                nowhere += 1;
            }
            // Still looked up and won by another image, or no longer looked up by anyone.
            _ => supplied += 1,
        }
    }
    (supplied, nowhere)
}

/// The candidates of the app bundle's process plan: `(rebuild name, image, library key)`.
const BUNDLE_CANDIDATES: [(&str, &str, &str); 2] = [
    ("libgamma", "Contents/MacOS/Bundle", "libgamma.a"),
    (
        "libdelta",
        "Contents/Frameworks/libdelta.dylib",
        "(no attribution)",
    ),
];

/// The whole-process plan of an app bundle with a dylib (`Bundle.app`: the executable's static
/// library libgamma.a and Contents/Frameworks/libdelta.dylib share core::Registry<int>, the
/// executable's copy wins the dylib's lookups; the dylib has weak definitions of its own, and
/// supplies the executable delta::peek<int>, which only it defines), each candidate rebuilt
/// with each flag and the bundle relinked: with `-fvisibility=hidden` the lookups and trie
/// probes saved, the weak-bound symbols and exports gone, `leaves_search`,
/// `supplied_to_others` and `defined_nowhere_else` equal the rebuilt bundle's; with
/// `-fvisibility-inlines-hidden` the rebuilt bundle's drop lies between the plan's bounds. The
/// executable cannot be relinked against the dylib hidden: that bundle holds it as linked
/// against the default dylib, what dyld would be given by a dylib rebuilt alone.
#[test]
fn the_process_plan_of_an_app_bundle_with_a_dylib_saves_what_the_rebuilds_show() {
    let base = process("Bundle");
    let plan = base["fix_plan"].as_array().unwrap();
    assert_eq!(plan.len(), BUNDLE_CANDIDATES.len(), "{plan:?}");
    for (rebuild, image, library) in BUNDLE_CANDIDATES {
        let c = plan
            .iter()
            .find(|c| c["image"] == image && c["library"] == library)
            .unwrap_or_else(|| panic!("no candidate {library} of {image}: {plan:?}"));
        let before = process_figures("Bundle", image);
        let drop = |flag: &str| -> [i64; 4] {
            let after = process_figures(&format!("Bundle.{rebuild}.{flag}"), image);
            std::array::from_fn(|k| before[k] - after[k])
        };
        assert_eq!(
            process_saving(&c["hidden"]),
            drop("hidden"),
            "{rebuild} hidden"
        );
        let hidden = process(&format!("Bundle.{rebuild}.hidden"));
        let searched = image_of(&hidden, image)["takes_part"] == true;
        assert_eq!(c["leaves_search"], !searched, "{rebuild} leaves_search");
        let (supplied, nowhere) = moved(&base, &hidden, image);
        assert_eq!(
            c["supplied_to_others"], supplied,
            "{rebuild} supplied_to_others"
        );
        assert_eq!(
            c["defined_nowhere_else"], nowhere,
            "{rebuild} defined_nowhere_else"
        );
        let inlines = drop("inlines");
        let (lo, hi) = (
            process_saving(&c["inlines_hidden_at_least"]),
            process_saving(&c["inlines_hidden"]),
        );
        for k in 0..4 {
            assert!(
                lo[k] <= inlines[k] && inlines[k] <= hi[k],
                "{rebuild} inlines, figure {k}: {} ≤ {} ≤ {}",
                lo[k],
                inlines[k],
                hi[k]
            );
        }
    }
    // What the fixture is for: the executable's library supplies the dylib's lookups of the
    // shared instantiation, and hiding it takes the executable out of the search (with its
    // treat-as-weak lookups); the dylib leaves the search too when hidden.
    let gamma = &plan[0];
    assert_eq!(gamma["library"], "libgamma.a");
    assert_eq!(gamma["supplied_to_others"], 2);
    assert_eq!(gamma["leaves_search"], true);
    assert_eq!(process_saving(&gamma["hidden"]), [5, 49, 106, 5]);
    // The dylib supplies delta::peek<int> to the executable and is its only definer: hidden,
    // the launch would stop, and ld64.lld refuses to relink the executable on exactly that
    // name (-fvisibility-inlines-hidden leaves the explicit instantiation exported).
    let delta = &plan[1];
    assert_eq!(process_saving(&delta["hidden"]), [7, 7, 64, 8]);
    assert_eq!(delta["defined_nowhere_else"], 1);
    assert_eq!(
        delta["supplied_examples"],
        serde_json::json!(relink_breaks("Bundle", "libdelta", "hidden"))
    );
    assert_eq!(
        relink_breaks("Bundle", "libdelta", "hidden"),
        ["__ZN5delta4peekIiEET_S1_"]
    );
    for (rebuild, flag) in [
        ("libdelta", "inlines"),
        ("libgamma", "hidden"),
        ("libgamma", "inlines"),
    ] {
        assert!(
            relink_breaks("Bundle", rebuild, flag).is_empty(),
            "{rebuild} {flag}"
        );
    }
}

/// `scan --process --format json` of the program `name` (`testdata/plan/NAME`), every definer
/// read from the objects committed in `testdata/plan/obj`: its one process.
fn program_process(name: &str) -> Value {
    let objects = plan_fixture("obj");
    let v = json(&[
        "scan",
        "--process",
        "--format",
        "json",
        "--objects",
        objects.to_str().unwrap(),
        plan_fixture(name).to_str().unwrap(),
    ]);
    v["processes"][0].clone()
}

/// The whole-process plan of `app-chained-arm64`, whose libraries both define
/// `core::Registry<int>`'s members unhidden: each candidate's `-fvisibility=hidden` saves the
/// lookups and trie probes its rebuild drops, and the weak-bound symbols and exports a scan of
/// the rebuild no longer counts. Hiding libalpha.a alone leaves the two names libbeta.a also
/// defines exported (79 → 51 lookups, not 49).
#[test]
fn regression_the_process_plan_credited_a_shared_symbol_to_the_kept_copys_library() {
    let base = program_process("app-chained-arm64");
    let plan = base["fix_plan"].as_array().unwrap();
    assert_eq!(plan.len(), 2, "{plan:?}");
    let figures = |name: &str| -> [i64; 4] {
        let p = program_process(name);
        let alone = totals(&scan(name));
        [
            alone[1] as i64,
            p["lookups"].as_i64().unwrap(),
            p["trie_probes"].as_i64().unwrap(),
            alone[0] as i64,
        ]
    };
    let before = figures("app-chained-arm64");
    for lib in ["libalpha", "libbeta"] {
        let c = plan
            .iter()
            .find(|c| c["library"] == format!("{lib}.a"))
            .unwrap_or_else(|| panic!("no candidate {lib}: {plan:?}"));
        let after = figures(&format!("app-chained-arm64.{lib}.hidden"));
        let drop: [i64; 4] = std::array::from_fn(|k| before[k] - after[k]);
        assert_eq!(process_saving(&c["hidden"]), drop, "{lib} hidden");
    }
    let alpha = plan.iter().find(|c| c["library"] == "libalpha.a").unwrap();
    assert_eq!(process_saving(&alpha["hidden"]), [28, 28, 28, 28]);
}

/// The process plan of `app-chained-arm64` lists the two names of `core::Registry<int>` both
/// libraries define unhidden as needing them together: with the two candidates, what hiding
/// both saves in the rebuild (every weak-bound symbol and export; the lookups less the 44 that
/// go with `MH_WEAK_DEFINES`).
#[test]
fn the_process_plan_lists_the_symbols_only_hiding_both_libraries_saves() {
    let base = program_process("app-chained-arm64");
    let shared = base["fix_plan_shared"].as_array().unwrap();
    assert_eq!(shared.len(), 1, "{shared:?}");
    let sh = &shared[0];
    assert_eq!(
        sh["libraries"],
        serde_json::json!(["libalpha.a", "libbeta.a"])
    );
    assert_eq!(
        sh["examples"],
        serde_json::json!([
            "__ZN4core8RegistryIiE3addEi",
            "__ZN4core8RegistryIiE4sizeEv"
        ])
    );
    assert_eq!(process_saving(&sh["hidden"]), [2, 2, 2, 2]);
    let sum: i64 = base["fix_plan"]
        .as_array()
        .unwrap()
        .iter()
        .chain([sh])
        .map(|c| process_saving(&c["hidden"])[0])
        .sum();
    let before = totals(&scan("app-chained-arm64"));
    let after = totals(&scan("app-chained-arm64.libalpha+libbeta.hidden"));
    assert_eq!(sum, (before[1] - after[1]) as i64);
    let rebuilt = program_process("app-chained-arm64.libalpha+libbeta.hidden");
    assert_eq!(
        base["lookups"].as_i64().unwrap() - rebuilt["lookups"].as_i64().unwrap(),
        sum + 44
    );
}
