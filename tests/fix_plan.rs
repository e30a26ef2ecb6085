//! The fix plan (`scan`'s `fix_plan`) and the story printed before the tables: the headline and
//! the `fix:` block of `scan` and `diff`.

use crate::node::node_binary;
use crate::util::{all_fixtures, json, weakscan};
use serde_json::Value;
use std::collections::BTreeMap;

/// `(lookups, weak-bound symbols, sites, weak-def exports)` per library of `scan --by library`,
/// and per candidate of the fix plan, for one path (each image of it, by arch).
type Rows = BTreeMap<(String, String), (u64, u64, u64, u64)>;

fn figures(v: &Value) -> (u64, u64, u64, u64) {
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    (
        n("lookups"),
        n("weak_bound_symbols"),
        n("sites"),
        n("weak_def_exports"),
    )
}

fn by_library_and_plan(path: &str) -> (Rows, Rows, Value) {
    let lib = json(&[
        "scan", "--format", "json", "--by", "library", "--top", "100000", path,
    ]);
    let mut by_library = Rows::new();
    for g in lib["groups"].as_array().unwrap() {
        let key = g["key"].as_str().unwrap().to_string();
        // Symbols another image defines are nobody's change in this one.
        if key != "(defined in another image)" {
            let arch = g["arch"].as_str().unwrap_or_default().to_string();
            by_library.insert((arch, key), figures(g));
        }
    }
    let scan = json(&["scan", "--format", "json", path]);
    let mut plan = Rows::new();
    for image in scan["fix_plan"].as_array().unwrap() {
        let arch = image["arch"].as_str().unwrap_or_default().to_string();
        for c in image["candidates"].as_array().unwrap() {
            let key = c["library"].as_str().unwrap().to_string();
            // A last leaker's row of `--by library` has not the lookups that go with
            // MH_WEAK_DEFINES (operator new and delete, defined in another image).
            let mut f = figures(&c["hidden"]);
            f.0 -= c["hidden"]["weak_defines_lookups"].as_u64().unwrap();
            plan.insert((arch.clone(), key), f);
        }
    }
    (by_library, plan, scan)
}

/// Every candidate's savings are its row of `scan --by library`, on every fixture; an image
/// without attribution is one candidate, of the weak-bound symbols it defines itself.
#[test]
fn fix_plan_saves_each_librarys_row_of_scan_by_library() {
    for f in all_fixtures() {
        let (by_library, mut plan, scan) = by_library_and_plan(f.to_str().unwrap());
        let attributed = |arch: &str| {
            scan["images"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["arch"].as_str().unwrap_or_default() == arch)
                .map(|i| {
                    (
                        i["attribution"].is_object(),
                        i["defined_here_symbols"].clone(),
                    )
                })
                .unwrap()
        };
        plan.retain(|(arch, key), v| {
            let (yes, defined_here) = attributed(arch);
            if yes {
                return true;
            }
            assert_eq!(key, "(no attribution)", "{}", f.display());
            assert_eq!(Some(v.1), defined_here.as_u64(), "{}", f.display());
            false
        });
        let by_library: Rows = by_library
            .into_iter()
            .filter(|((arch, _), v)| *v != (0, 0, 0, 0) && attributed(arch).0)
            .collect();
        assert_eq!(plan, by_library, "{}", f.display());
    }
}

/// Kinds add up, the narrower flag never saves more (and its lower bound never more than its
/// upper), candidates come best first.
#[test]
fn fix_plan_kinds_add_up_and_candidates_are_ranked() {
    for f in all_fixtures() {
        let scan = json(&["scan", "--format", "json", f.to_str().unwrap()]);
        for image in scan["fix_plan"].as_array().unwrap() {
            let candidates = image["candidates"].as_array().unwrap();
            for c in candidates {
                let k = &c["kinds"];
                let kinds: u64 = [
                    "functions",
                    "data",
                    "local_statics",
                    "guard_variables",
                    "other",
                ]
                .iter()
                .map(|n| k[*n].as_u64().unwrap())
                .sum();
                assert_eq!(kinds, c["hidden"]["weak_bound_symbols"], "{}", f.display());
                let h = figures(&c["hidden"]);
                let i = figures(&c["inlines_hidden"]);
                let l = figures(&c["inlines_hidden_at_least"]);
                let le = |a: (u64, u64, u64, u64), b: (u64, u64, u64, u64)| {
                    a.0 <= b.0 && a.1 <= b.1 && a.2 <= b.2 && a.3 <= b.3
                };
                assert!(le(l, i) && le(i, h), "{c}");
                let flag = c["flag"].as_str().unwrap();
                let all_surely = kinds > 0 && (l.0, l.1, l.3) == (h.0, h.1, h.3);
                assert_eq!(flag == "visibility_inlines_hidden", all_surely, "{c}");
            }
            let lookups: Vec<u64> = candidates
                .iter()
                .map(|c| c["hidden"]["lookups"].as_u64().unwrap())
                .collect();
            assert!(lookups.windows(2).all(|w| w[0] >= w[1]), "{lookups:?}");
        }
    }
}

/// The fixture's leak, by kind: per descriptor object, the Initialize function, its three
/// function-local statics and their guard variables (testdata/src/descriptors.h).
#[test]
fn fix_plan_counts_local_statics_and_guard_variables_apart_from_functions() {
    let scan = json(&[
        "scan",
        "--format",
        "json",
        crate::util::fixture("app-default-chained-x86_64")
            .to_str()
            .unwrap(),
    ]);
    let plan = &scan["fix_plan"][0]["candidates"];
    let a = plan
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["library"] == "descriptors_a.o")
        .expect("descriptors_a.o is a candidate");
    assert_eq!(a["kinds"]["local_statics"], 9);
    assert_eq!(a["kinds"]["guard_variables"], 3);
    assert_eq!(a["kinds"]["functions"], 3);
    assert_eq!(a["flag"], "visibility_hidden");
}

/// Node.js 22.11.0: V8's base library first, each candidate's figures its `--by library` row.
/// (libnode.a, 1635 lookups, ranks above libv8_compiler.a, 1041: the plan ranks by lookups.)
#[test]
fn node_fix_plan_ranks_libv8_base_first_with_by_library_figures() {
    let Some(bin) = node_binary("22.11.0") else {
        return;
    };
    let (by_library, plan, scan) = by_library_and_plan(bin.to_str().unwrap());
    let candidates = scan["fix_plan"][0]["candidates"].as_array().unwrap();
    let order: Vec<&str> = candidates
        .iter()
        .take(3)
        .map(|c| c["library"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "libv8_base_without_compiler.a",
            "libnode.a",
            "libv8_compiler.a"
        ]
    );
    assert_eq!(candidates[0]["hidden"]["lookups"], 3939);
    assert_eq!(
        candidates[0]["objects"][0]["object"],
        "libv8_base_without_compiler.a(interface-descriptors.o)"
    );
    assert_eq!(plan, by_library);
}

/// The first screen (100×50) of `scan` and `diff` names the top group, its object and the fix.
#[test]
fn node_scan_and_diff_tell_the_story_on_the_first_screen() {
    let (Some(old), Some(new)) = (node_binary("22.11.0"), node_binary("24.11.1")) else {
        return;
    };
    let screen = |args: &[&str]| -> String {
        let out = weakscan()
            .args(args)
            .args(["--width", "100"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines().take(50).collect::<Vec<_>>().join("\n")
    };
    let scan = screen(&["scan", old.to_str().unwrap()]);
    for needle in [
        "6822 weak-def lookups at launch",
        "largest: v8::internal::StaticCallInterfaceDescriptor<…> 2158",
        "libv8_base_without_compiler.a(interface-descriptors.o)",
        "fix: compile libv8_base_without_compiler.a with -fvisibility=hidden: at most -3939",
    ] {
        assert!(
            scan.contains(needle),
            "{needle:?} not on the first screen:\n{scan}"
        );
    }
    assert!(
        scan.find("fix:") < scan.find("┌"),
        "the fix comes before the tables"
    );
    let diff = screen(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    for needle in [
        "weak-def lookups 6822 → 1886 (-4936, -72%): about -4.9–14.7 ms at launch",
        "-2158, from libv8_base_without_compiler.a",
        "libv8_base_without_compiler.a(interface-descriptors.o)",
        "fix what remains: compile libnode.a with -fvisibility=hidden",
    ] {
        assert!(
            diff.contains(needle),
            "{needle:?} not on the first screen:\n{diff}"
        );
    }
}

/// A diff that adds lookups names the library the largest increase comes from.
#[test]
fn diff_that_grows_names_the_library_to_compile_hidden() {
    let old = crate::util::fixture("app-default-chained-x86_64");
    let new = crate::util::fixture("app-v2-default-chained-x86_64");
    let out = weakscan()
        .args(["diff", old.to_str().unwrap(), new.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first: Vec<&str> = text.lines().take(4).collect();
    assert!(first[0].starts_with("weak-def lookups 83 → "), "{first:?}");
    assert!(
        first.iter().any(
            |l| l.starts_with("fix: compile ") && l.contains("-fvisibility=hidden: it brought")
        ),
        "{first:?}"
    );
}

/// The kind of a symbol as LLVM prints it (independent of cpp_demangle, whose structure gives
/// weakscan's kinds): guard variable, function (the printed name ends in its parameter list,
/// before qualifiers), function-local static, data, other.
fn kind_as_llvm_prints(mangled: &str, printed: &str) -> &'static str {
    let plain = mangled.strip_prefix('_').unwrap_or(mangled);
    if !plain.starts_with("_Z") {
        return "other";
    }
    let mut p = printed.trim_end();
    loop {
        let before = p;
        for q in [" const", " volatile", " &&", " &", " noexcept"] {
            p = p.strip_suffix(q).unwrap_or(p);
        }
        if p == before {
            break;
        }
    }
    if plain.starts_with("_ZGV") {
        "guard_variables"
    } else if p.ends_with(')') {
        "functions"
    } else if plain.starts_with("_ZT") {
        "other"
    } else if plain.starts_with("_ZZ") {
        "local_statics"
    } else {
        "data"
    }
}

/// Each candidate's kinds agree with llvm-cxxfilt's printed names of its weak-bound symbols,
/// on Node.js 22.11.0 (every library).
#[test]
fn node_fix_plan_kinds_agree_with_llvm_cxxfilt() {
    let Some(bin) = node_binary("22.11.0") else {
        return;
    };
    let Some(tool) = crate::names::llvm_cxxfilt() else {
        crate::util::skip("llvm-cxxfilt from LLVM 22 is not installed (apt-get install llvm-22)");
        return;
    };
    let path = bin.to_str().unwrap();
    let symbols = json(&[
        "scan", "--format", "json", "--by", "symbol", "--top", "1000000", path,
    ]);
    // A group is the symbols that print alike (the same kind): weighted by its symbols.
    let rows: Vec<(String, String, u64)> = symbols["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["weak_bound_symbols"].as_u64() > Some(0))
        .filter_map(|g| {
            let object = g["from"]["object"].as_str().filter(|o| !o.is_empty())?;
            let library = object.split_once('(').map_or(object, |(l, _)| l);
            let n = g["weak_bound_symbols"].as_u64()?;
            Some((library.to_string(), g["mangled"].as_str()?.to_string(), n))
        })
        .collect();
    let names: Vec<String> = rows.iter().map(|(_, m, _)| m.clone()).collect();
    let printed = crate::names::cxxfilt(&tool, &names);
    let mut want: BTreeMap<String, BTreeMap<&str, u64>> = BTreeMap::new();
    for ((library, mangled, n), printed) in rows.iter().zip(&printed) {
        *want
            .entry(library.clone())
            .or_default()
            .entry(kind_as_llvm_prints(mangled, printed))
            .or_default() += n;
    }
    let scan = json(&["scan", "--format", "json", path]);
    let mut got: BTreeMap<String, BTreeMap<&str, u64>> = BTreeMap::new();
    for c in scan["fix_plan"][0]["candidates"].as_array().unwrap() {
        let kinds = got
            .entry(c["library"].as_str().unwrap().to_string())
            .or_default();
        for k in [
            "functions",
            "data",
            "local_statics",
            "guard_variables",
            "other",
        ] {
            let n = c["kinds"][k].as_u64().unwrap();
            if n > 0 {
                kinds.insert(k, n);
            }
        }
    }
    assert_eq!(got, want);
}

/// The non-weak exports of `bin` by llvm-objdump-22 `--exports-trie` (no weak definitions, no
/// re-exports), sorted.
fn non_weak_exports(objdump: &std::path::Path, bin: &std::path::Path) -> Vec<String> {
    let out = std::process::Command::new(objdump)
        .args(["--macho", "--exports-trie"])
        .arg(bin)
        .output()
        .expect("run llvm-objdump");
    assert!(out.status.success(), "llvm-objdump --exports-trie {bin:?}");
    let mut names: Vec<String> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .filter(|l| l.starts_with("0x") && !l.contains("[weak_def") && !l.contains("re-export"))
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect();
    names.sort();
    names
}

/// The other exports are read only when asked (`scan`; every other command leaves them off):
/// off, only the strong operator new[]/delete[] of the fixture are kept (attributed like weak
/// definitions, in both modes); on, every non-weak export llvm-objdump-22 lists, each given
/// its object by the debug map.
#[test]
fn other_exports_are_read_only_when_asked() {
    use weakscan::macho::MachOFile;
    use weakscan::macho::image::{ReadOptions, read_image_with};
    let path = crate::util::fixture("app-default-chained-x86_64");
    let file = MachOFile::open(&path).unwrap();
    let loc = &file.slices().unwrap()[0];
    let read = |other_exports| {
        let opts = ReadOptions {
            attribution: true,
            other_exports,
        };
        read_image_with(&file, loc, opts).unwrap()
    };
    let sorted = |image: &weakscan::model::Image| {
        let mut v: Vec<String> = image.other_exports.names().map(Into::into).collect();
        v.sort();
        v
    };
    let off = read(false);
    assert_eq!(sorted(&off), ["__ZdaPv", "__Znam"]);
    let on = read(true);
    assert!(on.other_exports.len() > 2, "{:?}", sorted(&on));
    for image in [&off, &on] {
        let a = image.attribution.as_deref().expect("a debug map");
        assert_eq!(a.other_exports.len(), image.other_exports.len());
        assert!(
            a.symbols.contains_key("__Znam"),
            "operator new[] attributed"
        );
    }
    let a = on.attribution.as_deref().unwrap();
    let placed = (0..on.other_exports.len())
        .filter(|&i| a.other_export_object(i).is_some())
        .count();
    assert!(placed > 2, "{placed} of {} placed", on.other_exports.len());
    if let Some(objdump) = crate::util::llvm_objdump() {
        assert_eq!(sorted(&on), non_weak_exports(&objdump, &path));
    } else {
        crate::util::skip("llvm-objdump from LLVM 22 not found: exports not compared");
    }
}

/// Node.js 22.11.0: hiding V8's base library would also take away other exports, and each
/// example is a defined external symbol that is not weak per llvm-nm-22.
#[test]
fn node_fix_plan_names_other_exports_llvm_nm_defines_strongly() {
    let Some(bin) = node_binary("22.11.0") else {
        return;
    };
    let Some(nm) = crate::util::llvm_nm_or_skip() else {
        return;
    };
    let scan = json(&["scan", "--format", "json", bin.to_str().unwrap()]);
    let v8 = scan["fix_plan"][0]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["library"] == "libv8_base_without_compiler.a")
        .expect("a libv8_base_without_compiler.a candidate");
    assert!(v8["other_exports"].as_u64().unwrap() > 0, "{v8}");
    let examples = v8["other_export_examples"].as_array().unwrap();
    assert!(!examples.is_empty(), "{v8}");
    let out = std::process::Command::new(&nm)
        .args(["--extern-only", "--defined-only", "-m"])
        .arg(&bin)
        .output()
        .expect("run llvm-nm");
    assert!(out.status.success(), "llvm-nm -m {bin:?}");
    // `ADDRESS (SEGMENT,SECTION) [weak ]external NAME` per defined external symbol.
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let strong: std::collections::HashSet<&str> = text
        .lines()
        .filter(|l| l.contains(" external ") && !l.contains(" weak external "))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    for e in examples {
        let name = e.as_str().unwrap();
        assert!(
            strong.contains(name),
            "{name}: not a strong defined external"
        );
    }
}

/// The attribution fixture's main.o and libdescriptors_a.a both define two weak symbols
/// unhidden (ada's `EMPTY` and `weakscan_call_count()::count`): read from the objects (the
/// renamed `descriptors_b-hidden.o` put back at its name), the plan is exact, with the debug
/// map and with the link map of the stripped build alike, and lists them as needing both. A
/// link map's dylibs and the linker's own entry are not objects to read.
#[test]
fn regression_a_link_map_counted_its_dylibs_as_objects_not_on_disk() {
    let attr = crate::util::testdata().join("attr");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("hidden")).unwrap();
    std::fs::copy(
        attr.join("descriptors_b-hidden.o"),
        dir.path().join("hidden/descriptors_b.o"),
    )
    .unwrap();
    let (attr_s, tmp) = (attr.to_str().unwrap(), dir.path().to_str().unwrap());
    let map = attr.join("app-attr-x86_64.map");
    let bin = crate::util::testdata().join("bin");
    let runs: [Vec<String>; 2] = [
        vec![bin.join("app-attr-x86_64").to_str().unwrap().into()],
        vec![
            "--map".into(),
            map.to_str().unwrap().into(),
            bin.join("app-attr-x86_64-stripped")
                .to_str()
                .unwrap()
                .into(),
        ],
    ];
    for run in &runs {
        let mut args = vec![
            "scan",
            "--format",
            "json",
            "--objects",
            attr_s,
            "--objects",
            tmp,
        ];
        args.extend(run.iter().map(String::as_str));
        let v = crate::util::json(&args);
        let plan = &v["fix_plan"][0];
        assert_eq!(plan["definers"]["exact"], true, "{run:?}: {plan}");
        assert_eq!(plan["definers"]["objects"], 3, "{run:?}");
        assert_eq!(
            plan["shared"][0]["libraries"],
            serde_json::json!(["libdescriptors_a.a", "main.o"]),
            "{run:?}"
        );
        assert_eq!(plan["shared"][0]["hidden"]["weak_bound_symbols"], 2);
    }
    // Without the renamed object: at most, 1 of 3 not on disk.
    let v = crate::util::json(&[
        "scan",
        "--format",
        "json",
        "--objects",
        attr_s,
        bin.join("app-attr-x86_64").to_str().unwrap(),
    ]);
    let d = &v["fix_plan"][0]["definers"];
    assert_eq!(
        (d["exact"].as_bool(), d["not_on_disk"].as_u64()),
        (Some(false), Some(1))
    );
}
