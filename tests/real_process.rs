//! Real input, a whole process: sharp's official macOS arm64 addon from the npm registry
//! (`@img/sharp-darwin-arm64` 0.34.5, an `MH_BUNDLE`) and the libvips it loads through
//! `@rpath` from a sibling package (`@img/sharp-libvips-darwin-arm64` 1.2.4, the version the
//! addon's `optionalDependencies` pin). `scripts/fetch-npm.sh` unpacks both as npm installs them,
//! `<cache>/node_modules/@img/…`, in `$WEAKSCAN_NPM_CACHE` (default `.cache/npm`).
//!
//! `weakscan scan --process <addon> --search <cache>/node_modules/@img` is checked against a
//! reading of the same files by LLVM 22, not by weakscan: `llvm-objdump --macho`
//! (`--private-headers` for `MH_WEAK_DEFINES` and the fixup format, `--dylibs-used`,
//! `--rpaths`, `--dylib-id`, `--weak-bind` for the weak-bind targets, `--exports-trie`) and
//! `llvm-nm -m` (the exported definitions, weak or not). From that view the test derives dyld4's
//! load order, each image's weak definitions and lookups, the trie probes, and the winner of every
//! looked-up name by the rule "the first image in load order with `MH_WEAK_DEFINES` that exports
//! it wins; a later non-weak export replaces a weak one". Without LLVM 22 the view pinned below
//! (read from LLVM 22 once; with LLVM the live view must equal it) stands in, unless
//! `WEAKSCAN_REQUIRE_LLVM=1`. Skipped when the cache is absent, unless `WEAKSCAN_REQUIRE_NPM=1`
//! (CI) makes that a failure.

use crate::util::{llvm_nm, llvm_objdump, required, weakscan};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The packages and versions `scripts/fetch-npm.sh` fetches by default.
const PACKAGES: [(&str, &str); 2] = [
    ("sharp-darwin-arm64", "0.34.5"),
    ("sharp-libvips-darwin-arm64", "1.2.4"),
];
/// The addon, under `node_modules/@img`.
const ADDON: &str = "sharp-darwin-arm64/lib/sharp-darwin-arm64.node";
/// The libvips dylib, under `node_modules/@img`.
const LIBVIPS: &str = "sharp-libvips-darwin-arm64/lib/libvips-cpp.8.17.3.dylib";

/// `node_modules/@img` of the cache, with both packages at the pinned versions; `None` (a
/// skip) when the cache is absent, a failure under `WEAKSCAN_REQUIRE_NPM=1`.
fn img_dir() -> Option<PathBuf> {
    let cache = std::env::var_os("WEAKSCAN_NPM_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".cache/npm"));
    let img = cache.join("node_modules/@img");
    let missing: Vec<PathBuf> = [ADDON, LIBVIPS]
        .iter()
        .map(|p| img.join(p))
        .filter(|p| !p.is_file())
        .collect();
    if !missing.is_empty() {
        assert!(
            !required("WEAKSCAN_REQUIRE_NPM"),
            "{missing:?} missing: run scripts/fetch-npm.sh"
        );
        crate::util::skip(&format!(
            "{} not cached (scripts/fetch-npm.sh)",
            img.join(ADDON).display()
        ));
        return None;
    }
    for (name, version) in PACKAGES {
        let manifest = img.join(name).join("package.json");
        let doc: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        assert_eq!(
            doc["version"],
            version,
            "{}: the figures here are those of @img/{name}@{version}: run scripts/fetch-npm.sh",
            manifest.display()
        );
    }
    Some(img)
}

/// What LLVM 22 says of one image on disk (or what it said once: [`pinned`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct View {
    /// `MH_WEAK_DEFINES` in the header flags.
    weak_defines: bool,
    /// `LC_DYLD_INFO(_ONLY)` and no `LC_DYLD_CHAINED_FIXUPS`: `--weak-bind` shows every target.
    opcodes: bool,
    /// `LC_ID_DYLIB`.
    id: Option<String>,
    /// The dylib load commands' names, in order (all `LC_LOAD_DYLIB` here).
    dylibs: Vec<String>,
    /// `LC_RPATH`s, in order.
    rpaths: Vec<String>,
    /// Exported definitions → weak (`llvm-nm -m`: defined, `external` or `weak external`).
    /// Pinned: only the weak ones and any definition of a looked-up name.
    exports: BTreeMap<String, bool>,
    /// Export-trie entries flagged `weak_def` (`--exports-trie`).
    trie_weak_defs: usize,
    /// Weak-bind targets in stream order: a new target whenever the symbol or addend changes
    /// (dyld `forEachBindUnified_Opcodes`); `strong` entries bind nothing.
    targets: Vec<String>,
}

impl View {
    fn weak_definitions(&self) -> usize {
        self.exports.values().filter(|&&w| w).count()
    }
}

/// The view pinned from llvm-objdump-22 and llvm-nm-22 on the pinned packages.
fn pinned(image: &str) -> View {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let napi = [
        "__ZN4Napi11AsyncWorker18OnAsyncWorkExecuteEP10napi_env__Pv",
        "__ZN4Napi11AsyncWorker19OnAsyncWorkCompleteEP10napi_env__11napi_statusPv",
        "__ZN4Napi7details12CallbackDataIPFNS_5ValueERKNS_12CallbackInfoEES2_E7WrapperEP10napi_env__P20napi_callback_info__",
        "__ZN4Napi7details12CallbackDataIPFvRKNS_12CallbackInfoEEvE7WrapperEP10napi_env__P20napi_callback_info__",
        "__ZN4Napi7details12FinalizeDataIcNSt3__18functionIFvPvPcEEEvE7WrapperEP10napi_env__S4_S4_",
        "__ZN4Napi7details23default_basic_finalizerINS0_12CallbackDataIPFNS_5ValueERKNS_12CallbackInfoEES3_EEEEvP10napi_env__PvSC_",
        "__ZN4Napi7details23default_basic_finalizerINS0_12CallbackDataIPFvRKNS_12CallbackInfoEEvEEEEvP10napi_env__PvSB_",
    ];
    match image {
        ADDON => View {
            weak_defines: true,
            opcodes: true,
            id: None,
            dylibs: s(&[
                "@rpath/libvips-cpp.8.17.3.dylib",
                "/usr/lib/libc++.1.dylib",
                "/usr/lib/libSystem.B.dylib",
            ]),
            rpaths: s(&[
                "@loader_path/../../sharp-libvips-darwin-arm64/lib",
                "@loader_path/../../../sharp-libvips-darwin-arm64/1.2.4/lib",
                "@loader_path/../node_modules/@img/sharp-libvips-darwin-arm64/lib",
                "@loader_path/../../node_modules/@img/sharp-libvips-darwin-arm64/lib",
                "@loader_path/../../../node_modules/@img/sharp-libvips-darwin-arm64/lib",
                "@loader_path/../../../../../@img-sharp-libvips-darwin-arm64-npm-1.2.4-09e109d5ab/node_modules/@img/sharp-libvips-darwin-arm64/lib",
            ]),
            exports: napi.iter().map(|n| (n.to_string(), true)).collect(),
            trie_weak_defs: 7,
            targets: napi
                .iter()
                .copied()
                .chain([
                    "__ZTISt12length_error",
                    "__ZdaPv",
                    "__ZdlPv",
                    "__Znam",
                    "__Znwm",
                ])
                .map(String::from)
                .collect(),
        },
        LIBVIPS => View {
            weak_defines: false,
            opcodes: true,
            id: Some("@rpath/libvips-cpp.8.17.3.dylib".into()),
            dylibs: s(&[
                "/usr/lib/libSystem.B.dylib",
                "/System/Library/Frameworks/Foundation.framework/Versions/C/Foundation",
                "/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation",
                "/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit",
                "/usr/lib/libiconv.2.dylib",
                "/usr/lib/libresolv.9.dylib",
                "/usr/lib/libc++.1.dylib",
                "/System/Library/Frameworks/CoreGraphics.framework/Versions/A/CoreGraphics",
                "/System/Library/Frameworks/CoreServices.framework/Versions/A/CoreServices",
                "/System/Library/Frameworks/CoreText.framework/Versions/A/CoreText",
                "/usr/lib/libobjc.A.dylib",
            ]),
            rpaths: vec![],
            exports: BTreeMap::new(),
            trie_weak_defs: 0,
            targets: s(&[
                "__ZTISt12length_error",
                "__ZTISt12out_of_range",
                "__ZdaPv",
                "__ZdlPv",
                "__Znam",
                "__ZnamRKSt9nothrow_t",
                "__Znwm",
            ]),
        },
        other => panic!("no pinned view of {other}"),
    }
}

fn run(tool: &Path, args: &[&str], file: &Path) -> String {
    let out = Command::new(tool).args(args).arg(file).output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?} {}: {}",
        tool.display(),
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Lines after the `<path>:` heading llvm-objdump prints for a file.
fn body(text: &str) -> impl Iterator<Item = &str> {
    text.lines().skip_while(|l| !l.ends_with(':')).skip(1)
}

/// The view of `file` read live by llvm-objdump and llvm-nm.
fn live(objdump: &Path, nm: &Path, file: &Path) -> View {
    let headers = run(objdump, &["--macho", "--private-headers"], file);
    let flags = headers
        .lines()
        .find(|l| l.starts_with("MH_MAGIC"))
        .expect("a mach header line");
    let weak_defines = flags.split_whitespace().any(|f| f == "WEAK_DEFINES");
    let cmds: Vec<&str> = headers
        .lines()
        .filter_map(|l| l.trim().strip_prefix("cmd "))
        .collect();
    let opcodes = cmds.iter().any(|c| c.starts_with("LC_DYLD_INFO"))
        && !cmds.contains(&"LC_DYLD_CHAINED_FIXUPS");
    let load_dylibs = cmds.iter().filter(|&&c| c == "LC_LOAD_DYLIB").count();
    let dylib_cmds = cmds
        .iter()
        .filter(|c| {
            matches!(
                **c,
                "LC_LOAD_DYLIB"
                    | "LC_LOAD_WEAK_DYLIB"
                    | "LC_REEXPORT_DYLIB"
                    | "LC_LOAD_UPWARD_DYLIB"
            )
        })
        .count();
    assert_eq!(
        load_dylibs,
        dylib_cmds,
        "{}: only LC_LOAD_DYLIB",
        file.display()
    );

    let id = body(&run(objdump, &["--macho", "--dylib-id"], file))
        .find(|l| !l.is_empty())
        .map(String::from);
    let mut dylibs = Vec::new();
    let mut rpaths = Vec::new();
    for line in body(&run(
        objdump,
        &["--macho", "--dylibs-used", "--rpaths"],
        file,
    )) {
        if let Some(d) = line.strip_prefix('\t') {
            dylibs.push(d.split(" (compatibility").next().unwrap().to_string());
        } else if !line.is_empty() && !line.ends_with(':') {
            rpaths.push(line.to_string());
        }
    }
    // `--dylibs-used` lists a dylib's own LC_ID_DYLIB first.
    if let Some(id) = &id {
        assert_eq!(dylibs.first(), Some(id), "{}", file.display());
        dylibs.remove(0);
    }
    assert_eq!(dylibs.len(), load_dylibs, "{}", file.display());

    let mut exports = BTreeMap::new();
    for line in run(nm, &["-m"], file).lines() {
        if line.contains("(undefined)") {
            continue;
        }
        let (weak, rest) = if let Some((_, r)) = line.split_once(") weak external ") {
            (true, r)
        } else if let Some((_, r)) = line.split_once(") external ") {
            (false, r)
        } else {
            continue; // non-external, private external, stabs
        };
        let name = rest
            .split_whitespace()
            .find(|t| !t.starts_with('['))
            .expect("a name");
        exports.insert(name.to_string(), weak);
    }

    let trie = run(objdump, &["--macho", "--exports-trie"], file);
    let trie_names: BTreeSet<&str> = body(&trie)
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let addr = it.next()?;
            addr.starts_with("0x").then(|| it.next()).flatten()
        })
        .collect();
    assert_eq!(
        trie_names,
        exports.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        "{}: the export trie and llvm-nm's external definitions agree",
        file.display()
    );
    let trie_weak_defs = body(&trie)
        .filter(|l| {
            l.rsplit_once('[')
                .is_some_and(|(_, attrs)| attrs.contains("weak_def"))
        })
        .count();

    let mut targets = Vec::new();
    let mut last: Option<(String, String)> = None;
    let weak_bind = run(objdump, &["--macho", "--weak-bind"], file);
    for line in weak_bind
        .lines()
        .skip_while(|l| !l.starts_with("segment"))
        .skip(1)
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() || f[0] == "strong" {
            continue;
        }
        assert_eq!(f.len(), 6, "{}: weak-bind row {line:?}", file.display());
        let key = (f[5].to_string(), f[4].to_string());
        if last.as_ref() != Some(&key) {
            targets.push(key.0.clone());
            last = Some(key);
        }
    }
    View {
        weak_defines,
        opcodes,
        id,
        dylibs,
        rpaths,
        exports,
        trie_weak_defs,
        targets,
    }
}

/// `view` with only what [`pinned`] keeps: weak exports and exports of looked-up names.
fn as_pinned(view: &View, looked_up: &BTreeSet<String>) -> View {
    let mut v = view.clone();
    v.exports
        .retain(|name, weak| *weak || looked_up.contains(name));
    v
}

/// One image of the process as derived here: the file (`None`: in the shared cache), or the
/// install name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Derived {
    install_name: String,
    file: Option<PathBuf>,
    /// Under `node_modules/@img` (`ADDON`/`LIBVIPS`), for [`View`]s.
    rel: Option<&'static str>,
    /// The `LC_RPATH` that found it.
    found_by: Option<String>,
}

/// Everything the assertions need, read once per test.
struct Case {
    img: PathBuf,
    /// The process as derived from the views, in dyld4's load order.
    order: Vec<Derived>,
    /// View of each on-disk image, by `rel`.
    views: BTreeMap<&'static str, View>,
    /// weakscan's process.
    process: Value,
}

/// dyld4's load order (`JustInTimeLoader::loadDependents`): the main executable's dependencies
/// in order, then depth first each one's new dependencies; `@rpath/` through the rpath stack
/// (the requester's `LC_RPATH`s, then its loaders'), `/usr/lib` and `/System` in the shared cache.
fn load_order(img: &Path, views: &BTreeMap<&'static str, View>) -> Vec<Derived> {
    let canon = |rel: &str| img.join(rel).canonicalize().unwrap();
    let by_file: Vec<(PathBuf, &'static str)> =
        [ADDON, LIBVIPS].iter().map(|&r| (canon(r), r)).collect();
    let mut order = vec![Derived {
        install_name: String::new(),
        file: Some(canon(ADDON)),
        rel: Some(ADDON),
        found_by: None,
    }];
    fn visit(
        i: usize,
        stack: &mut Vec<usize>,
        order: &mut Vec<Derived>,
        done: &mut BTreeSet<usize>,
        views: &BTreeMap<&'static str, View>,
        by_file: &[(PathBuf, &'static str)],
    ) {
        let Some(rel) = order[i].rel else { return };
        if !done.insert(i) {
            return;
        }
        stack.push(i);
        let mut children = Vec::new();
        for name in &views[rel].dylibs {
            let (file, found_by) = if name.starts_with("/usr/lib/") || name.starts_with("/System/")
            {
                (None, None)
            } else if let Some(tail) = name.strip_prefix("@rpath/") {
                stack
                    .iter()
                    .rev()
                    .flat_map(|&s| {
                        let dir = order[s]
                            .file
                            .as_ref()
                            .unwrap()
                            .parent()
                            .unwrap()
                            .to_path_buf();
                        let r = order[s].rel.unwrap();
                        views[r]
                            .rpaths
                            .iter()
                            .map(move |rp| (dir.clone(), rp.clone()))
                    })
                    .find_map(|(dir, rp)| {
                        let sub = rp.strip_prefix("@loader_path/")?;
                        let cand = dir.join(sub).join(tail);
                        cand.is_file()
                            .then(|| (Some(cand.canonicalize().unwrap()), Some(rp)))
                    })
                    .unwrap_or_else(|| panic!("{name} does not resolve"))
            } else {
                panic!("unexpected install name {name}");
            };
            let existing = order.iter().position(|d| match (&file, &d.file) {
                (Some(f), Some(g)) => f == g,
                (None, None) => &d.install_name == name,
                _ => false,
            });
            let j = existing.unwrap_or_else(|| {
                let rel = file.as_ref().map(|f| {
                    by_file
                        .iter()
                        .find(|(p, _)| p == f)
                        .expect("a known file")
                        .1
                });
                order.push(Derived {
                    install_name: name.clone(),
                    file,
                    rel,
                    found_by,
                });
                order.len() - 1
            });
            children.push(j);
        }
        for c in children {
            visit(c, stack, order, done, views, by_file);
        }
        stack.pop();
    }
    visit(
        0,
        &mut Vec::new(),
        &mut order,
        &mut BTreeSet::new(),
        views,
        &by_file,
    );
    order
}

fn case() -> Option<Case> {
    let img = img_dir()?;
    let pinned_views: BTreeMap<&'static str, View> = [ADDON, LIBVIPS]
        .into_iter()
        .map(|r| (r, pinned(r)))
        .collect();
    let views = match (llvm_objdump(), llvm_nm()) {
        (Some(objdump), Some(nm)) => {
            let live: BTreeMap<&'static str, View> = [ADDON, LIBVIPS]
                .into_iter()
                .map(|r| (r, live(&objdump, &nm, &img.join(r))))
                .collect();
            let looked_up: BTreeSet<String> = live
                .values()
                .flat_map(|v| v.targets.iter().cloned())
                // The treat-as-weak names too: the pinned views were taken with them (a
                // superset of the exports a lookup can find).
                .chain(weakscan::model::TREAT_AS_WEAK.iter().map(|s| s.to_string()))
                .collect();
            for (rel, v) in &live {
                assert_eq!(
                    as_pinned(v, &looked_up),
                    pinned_views[rel],
                    "{rel}: LLVM 22's view differs from the one pinned here"
                );
            }
            live
        }
        _ => {
            assert!(
                !required("WEAKSCAN_REQUIRE_LLVM"),
                "llvm-objdump and llvm-nm from LLVM 22 are required but missing"
            );
            crate::util::skip(
                "live LLVM 22 view: no llvm-objdump/llvm-nm 22 (apt-get install llvm-22); the pinned view was checked",
            );
            pinned_views
        }
    };
    let order = load_order(&img, &views);
    let out = weakscan()
        .args(["scan", "--format", "json", "--process"])
        .arg(img.join(ADDON))
        .arg("--search")
        .arg(&img)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["command"], "process");
    let processes = doc["processes"].as_array().unwrap();
    assert_eq!(processes.len(), 1, "one arch: arm64");
    Some(Case {
        img,
        order,
        views,
        process: processes[0].clone(),
    })
}

impl Case {
    fn images(&self) -> &Vec<Value> {
        self.process["images"].as_array().unwrap()
    }

    /// weakscan's name of a derived image: a path relative to the addon's directory or
    /// absolute for a file (either ends the canonical path), the install name when outside.
    fn matches(d: &Derived, shown: &str) -> bool {
        match &d.file {
            Some(f) => f.to_string_lossy().ends_with(shown) && !shown.is_empty(),
            None => d.install_name == shown,
        }
    }

    /// Index in the load order of weakscan's image named `shown`.
    fn index_of(&self, shown: &str) -> usize {
        self.order
            .iter()
            .position(|d| Self::matches(d, shown))
            .unwrap_or_else(|| panic!("{shown} is not in the derived load order"))
    }

    /// The derived lookups, in order: (image index, name): each image's weak-bind targets, in
    /// load order. dyld makes the 22 treat-as-weak lookups only for the real main executable
    /// (`handleStrongWeakDefOverrides` reads `state.mainExecutableLoader`, an `MH_EXECUTE`):
    /// node, not this `MH_BUNDLE` it dlopens, so none here.
    fn lookups(&self) -> Vec<(usize, String)> {
        let mut seq = Vec::new();
        for (i, d) in self.order.iter().enumerate() {
            if let Some(rel) = d.rel {
                seq.extend(self.views[rel].targets.iter().map(|t| (i, t.clone())));
            }
        }
        seq
    }

    /// Images searched on every lookup: on disk with `MH_WEAK_DEFINES`.
    fn searched(&self) -> Vec<usize> {
        (0..self.order.len())
            .filter(|&i| {
                self.order[i]
                    .rel
                    .is_some_and(|r| self.views[r].weak_defines)
            })
            .collect()
    }
}

#[test]
fn sharp_load_order_found_by_and_dependencies() {
    let Some(c) = case() else { return };
    let images = c.images();
    // 0 the addon, 1 libvips (the addon's first dependency), 2–3 the addon's other two, then
    // libvips's new dependencies; the shared-cache images are not read, so theirs are unknown.
    assert_eq!(images.len(), c.order.len(), "{images:?}");
    assert_eq!(c.order.len(), 13);
    for (i, (img, d)) in images.iter().zip(&c.order).enumerate() {
        let shown = img["image"].as_str().unwrap();
        assert!(Case::matches(d, shown), "image {i}: {shown}, derived {d:?}");
        assert_eq!(img["index"], i);
        assert_eq!(img["on_disk"], d.file.is_some(), "{shown}");
        match d.rel {
            Some(rel) => {
                let v = &c.views[rel];
                assert_eq!(img["takes_part"], v.weak_defines, "{shown}");
                assert_eq!(img["install_name"].as_str(), v.id.as_deref(), "{shown}");
                let rpaths: Vec<&str> = img["rpaths"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap())
                    .collect();
                assert_eq!(rpaths, v.rpaths, "{shown}: rpaths");
                let deps = img["dependencies"].as_array().unwrap();
                let names: Vec<&str> = deps
                    .iter()
                    .map(|d| d["install_name"].as_str().unwrap())
                    .collect();
                assert_eq!(names, v.dylibs, "{shown}: dependencies");
                for dep in deps {
                    assert_eq!(dep["load_command"], "LC_LOAD_DYLIB");
                    let j = dep["image"].as_u64().expect("every dependency loaded") as usize;
                    let name = dep["install_name"].as_str().unwrap();
                    let shown_j = images[j]["image"].as_str().unwrap();
                    assert!(
                        shown_j == name || c.order[j].install_name == name,
                        "{shown}: {name} → image {j} ({shown_j})"
                    );
                }
            }
            None => {
                assert_eq!(img["found"], "outside (shared cache)", "{shown}");
                assert_eq!(img["takes_part"], Value::Null, "{shown}");
            }
        }
    }
    assert!(
        images[0]["found"]
            .as_str()
            .unwrap()
            .starts_with("first image (not an executable")
    );
    assert_eq!(images[0]["image"], "sharp-darwin-arm64.node");
    // libvips: the addon's first LC_RPATH names the sibling package (the --search root covers
    // it; weakscan finds it by expansion, not by the leaf-name fallback).
    let libvips = &c.order[1];
    assert_eq!(libvips.rel, Some(LIBVIPS));
    assert_eq!(
        libvips.file.as_deref(),
        Some(c.img.join(LIBVIPS).canonicalize().unwrap().as_path())
    );
    let rpath = libvips.found_by.as_deref().unwrap();
    assert_eq!(rpath, "@loader_path/../../sharp-libvips-darwin-arm64/lib");
    assert_eq!(
        images[1]["found"],
        format!("@rpath {rpath} of sharp-darwin-arm64.node")
    );
    assert_eq!(images[1]["install_name"], "@rpath/libvips-cpp.8.17.3.dylib");
    assert_eq!(c.process["images_on_disk"], 2);
    assert_eq!(c.process["images_outside"], 11);
    assert_eq!(c.process["problems"], Value::Array(vec![]));
}

#[test]
fn sharp_per_image_figures_match_llvm() {
    let Some(c) = case() else { return };
    let seq = c.lookups();
    let searched = c.searched();
    assert!(
        seq.len() < 5000,
        "no weakDefMap: every lookup probes every searched image"
    );
    let mut total = 0;
    for (i, img) in c.images().iter().enumerate() {
        let shown = img["image"].as_str().unwrap();
        let lookups = seq.iter().filter(|(r, _)| *r == i).count();
        assert_eq!(img["lookups"], lookups, "{shown}: lookups");
        assert_eq!(
            img["trie_probes"],
            lookups * searched.len(),
            "{shown}: trie probes"
        );
        total += lookups;
        match c.order[i].rel {
            Some(rel) => {
                let v = &c.views[rel];
                assert!(v.opcodes, "{rel}: --weak-bind lists every target");
                assert_eq!(v.weak_definitions(), v.trie_weak_defs, "{rel}: nm and trie");
                assert_eq!(img["weak_definitions"], v.weak_definitions(), "{shown}");
            }
            None => assert_eq!(img["weak_definitions"], Value::Null, "{shown}"),
        }
    }
    let p = &c.process;
    assert_eq!(p["lookups"], total);
    assert_eq!(p["lookups"], seq.len());
    assert_eq!(p["images_searched"], searched.len());
    assert_eq!(p["trie_probes"], seq.len() * searched.len());
    assert_eq!(p["weak_def_map_hits"], 0);
    // The figures of the pinned packages (equal to the derived ones above, whichever view):
    // the addon exports 7 weak N-API instantiations and weak-binds 12 targets (no treat-as-weak
    // lookups: it is a bundle, not the main executable); libvips-cpp (built with hidden visibility: no MH_WEAK_DEFINES, no weak export)
    // weak-binds 7 targets (operator new/delete and two typeinfos, all in libc++).
    let figures: Vec<(u64, u64, u64)> = c.images()[..2]
        .iter()
        .map(|i| {
            (
                i["weak_definitions"].as_u64().unwrap(),
                i["lookups"].as_u64().unwrap(),
                i["trie_probes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(figures, [(7, 12, 12), (0, 7, 7)]);
    assert_eq!(
        (p["lookups"].as_u64(), p["trie_probes"].as_u64()),
        (Some(19), Some(19))
    );
}

#[test]
fn sharp_winners_obey_the_rule() {
    let Some(c) = case() else { return };
    let seq = c.lookups();
    let searched = c.searched();
    // The rule: the first searched image in load order that exports the name wins; a later
    // non-weak export replaces a weak one.
    let winner = |name: &str| -> Option<usize> {
        let defs: Vec<(usize, bool)> = searched
            .iter()
            .filter_map(|&i| {
                let weak = c.views[c.order[i].rel.unwrap()].exports.get(name)?;
                Some((i, *weak))
            })
            .collect();
        let &(first, weak) = defs.first()?;
        if !weak {
            return Some(first);
        }
        Some(defs.iter().find(|(_, w)| !w).map_or(first, |d| d.0))
    };
    let mut derived: BTreeMap<&str, (BTreeSet<usize>, usize)> = BTreeMap::new();
    for (r, name) in &seq {
        let e = derived.entry(name.as_str()).or_default();
        e.0.insert(*r);
        e.1 += 1;
    }
    let symbols = c.process["symbols"].as_array().unwrap();
    assert_eq!(
        symbols
            .iter()
            .map(|s| s["mangled"].as_str().unwrap())
            .collect::<BTreeSet<_>>(),
        derived.keys().copied().collect::<BTreeSet<_>>(),
        "the looked-up names"
    );
    let mut wins: BTreeMap<usize, usize> = BTreeMap::new();
    for s in symbols {
        let name = s["mangled"].as_str().unwrap();
        let (requesters, lookups) = &derived[name];
        let want = winner(name);
        let got = s["winner"].as_str().map(|w| c.index_of(w));
        assert_eq!(got, want, "winner of {name}");
        if let Some(w) = want {
            *wins.entry(w).or_default() += 1;
        }
        assert_eq!(s["lookups"], *lookups, "{name}");
        let by: Vec<usize> = s["requested_by"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| c.index_of(r.as_str().unwrap()))
            .collect();
        assert_eq!(by, requesters.iter().copied().collect::<Vec<_>>(), "{name}");
    }
    for (i, img) in c.images().iter().enumerate() {
        assert_eq!(
            img["wins"],
            wins.get(&i).copied().unwrap_or(0),
            "{}",
            img["image"]
        );
    }
    // Names no searched image on disk defines are left to the shared cache (libc++).
    let outside = derived.keys().filter(|n| winner(n).is_none()).count();
    assert_eq!(c.process["defined_outside"], outside);
    assert_eq!(c.process["distinct_names"], derived.len());
    // No looked-up name is exported by two searched images: libvips-cpp has no weak
    // definitions (and does not take part), so nothing is duplicated with the addon.
    let dups = derived
        .keys()
        .filter(|n| {
            searched
                .iter()
                .filter(|&&i| c.views[c.order[i].rel.unwrap()].exports.contains_key(**n))
                .count()
                > 1
        })
        .count();
    assert_eq!(c.process["duplicated_names"], dups);
    assert_eq!(dups, 0);
    assert_eq!(c.process["duplicates"], Value::Array(vec![]));
    assert_eq!(c.process["overrides_of_main"], Value::Array(vec![]));
    // Pinned: 14 names, the 7 N-API ones won by the addon, 7 left to libc++.
    assert_eq!(
        (derived.len(), outside, wins.get(&0).copied()),
        (14, 7, Some(7))
    );
}

/// Without `--search`, the sibling package is outside the roots (the addon's directory): it is
/// not read, and the report says so.
#[test]
fn sharp_without_search_reads_nothing_outside_the_addons_directory() {
    let Some(img) = img_dir() else { return };
    let out = weakscan()
        .args(["scan", "--format", "json", "--process"])
        .arg(img.join(ADDON))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &doc["processes"][0];
    let names = crate::util::image_names(p);
    assert_eq!(
        names,
        [
            "sharp-darwin-arm64.node",
            "/usr/lib/libc++.1.dylib",
            "/usr/lib/libSystem.B.dylib"
        ]
    );
    assert_eq!(p["images"][0]["dependencies"][0]["image"], Value::Null);
    let problems = p["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let text = problems[0].as_str().unwrap();
    assert!(
        text.starts_with(
            "sharp-darwin-arm64.node: @rpath/libvips-cpp.8.17.3.dylib (LC_LOAD_DYLIB): not read:"
        ) && text.contains("outside the directories weakscan may read"),
        "{text}"
    );
    // The addon's own 12 lookups remain.
    assert_eq!(p["lookups"], 12);
}

/// The old side of the real process diff: sharp one minor release older, with the libvips it
/// pins (`scripts/fetch-npm.sh` puts it in `<cache>/sharp-0.33.5/node_modules`).
const OLD_PACKAGES: [(&str, &str); 2] = [
    ("sharp-darwin-arm64", "0.33.5"),
    ("sharp-libvips-darwin-arm64", "1.0.4"),
];
/// The libvips dylib of the old pair.
const OLD_LIBVIPS: &str = "sharp-libvips-darwin-arm64/lib/libvips-cpp.42.dylib";

/// `node_modules/@img` of the old pair; `None` (a skip) when absent, a failure under
/// `WEAKSCAN_REQUIRE_NPM=1`.
fn old_img_dir(img: &Path) -> Option<PathBuf> {
    let old = img.join("../../sharp-0.33.5/node_modules/@img");
    if !old.join(ADDON).is_file() || !old.join(OLD_LIBVIPS).is_file() {
        assert!(
            !required("WEAKSCAN_REQUIRE_NPM"),
            "{} missing: run scripts/fetch-npm.sh",
            old.join(ADDON).display()
        );
        crate::util::skip("sharp 0.33.5 not cached (scripts/fetch-npm.sh)");
        return None;
    }
    for (name, version) in OLD_PACKAGES {
        let manifest = old.join(name).join("package.json");
        let doc: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        assert_eq!(doc["version"], version, "{}", manifest.display());
    }
    Some(old)
}

// Two real versions of a multi-image package, image by image: sharp 0.33.5 (libvips-cpp.42,
// which exports weak definitions) → 0.34.5 (libvips-cpp.8.17.3, which exports none). The
// images pair (the addons as main images, the libvips dylibs by leaf name without digits), and
// every figure old → new is what llvm-objdump's view of each file gives by the rules (no
// weakDefMap: under 5000 lookups), and what `scan` says of each version alone.
#[test]
fn sharp_two_versions_diff_image_by_image() {
    let Some(img) = img_dir() else { return };
    let Some(old) = old_img_dir(&img) else { return };
    let out = weakscan()
        .args(["diff", "--format", "json", "--process"])
        .arg(old.join(ADDON))
        .arg(img.join(ADDON))
        .arg("--search")
        .arg(&old)
        .arg("--search")
        .arg(&img)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["command"], "process-diff");
    let p = &doc["processes"][0];
    assert_eq!(p["new_arch"], "arm64");
    let images = p["images"].as_array().unwrap();
    let row = |leaf: &str| {
        images
            .iter()
            .find(|r| r["image"].as_str().unwrap().ends_with(leaf))
            .unwrap_or_else(|| panic!("{leaf} not in {images:?}"))
    };
    let addon = row("sharp-darwin-arm64.node");
    let vips = row("libvips-cpp.8.17.3.dylib");
    assert_eq!(addon["paired_by"], "main");
    assert_eq!(vips["paired_by"], "unversioned");
    assert!(
        vips["old_image"]
            .as_str()
            .is_some_and(|o| o.ends_with("lib/libvips-cpp.42.dylib")),
        "{vips}"
    );

    // Each version alone: the diff's figures are the scans'.
    let scan = |dir: &Path| {
        let out = weakscan()
            .args(["scan", "--format", "json", "--process"])
            .arg(dir.join(ADDON))
            .arg("--search")
            .arg(dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["processes"][0].clone()
    };
    let (s_old, s_new) = (scan(&old), scan(&img));
    for f in [
        "lookups",
        "trie_probes",
        "images_searched",
        "distinct_names",
    ] {
        assert_eq!(p["totals"][f]["old"], s_old[f], "{f}");
        assert_eq!(p["totals"][f]["new"], s_new[f], "{f}");
    }

    // From LLVM's view of the four files, by the rules: lookups = weak-bind targets, probes =
    // lookups × images with MH_WEAK_DEFINES (the two on disk here).
    let (Some(objdump), Some(nm)) = (llvm_objdump(), llvm_nm()) else {
        assert!(
            !required("WEAKSCAN_REQUIRE_LLVM"),
            "llvm-objdump and llvm-nm from LLVM 22 are required but missing"
        );
        crate::util::skip("sharp diff vs LLVM: no llvm-objdump/llvm-nm 22");
        return;
    };
    let side = |dir: &Path, vips: &str| {
        let a = live(&objdump, &nm, &dir.join(ADDON));
        let v = live(&objdump, &nm, &dir.join(vips));
        let searched = [a.weak_defines, v.weak_defines]
            .iter()
            .filter(|&&w| w)
            .count();
        (a.targets.len(), v.targets.len(), searched)
    };
    let (a_old, v_old, searched_old) = side(&old, OLD_LIBVIPS);
    let (a_new, v_new, searched_new) = side(&img, LIBVIPS);
    assert_eq!(
        (searched_old, searched_new),
        (2, 1),
        "libvips-cpp.42 has MH_WEAK_DEFINES, 8.17.3 not"
    );
    let t = &p["totals"];
    assert_eq!(t["images_searched"]["old"], searched_old);
    assert_eq!(t["images_searched"]["new"], searched_new);
    assert_eq!(t["lookups"]["old"], a_old + v_old);
    assert_eq!(t["lookups"]["new"], a_new + v_new);
    assert_eq!(t["trie_probes"]["old"], (a_old + v_old) * searched_old);
    assert_eq!(t["trie_probes"]["new"], (a_new + v_new) * searched_new);
    assert_eq!(addon["lookups"]["old"], a_old);
    assert_eq!(addon["lookups"]["new"], a_new);
    assert_eq!(vips["lookups"]["old"], v_old);
    assert_eq!(vips["lookups"]["new"], v_new);
    assert_eq!(vips["trie_probes"]["old"], v_old * searched_old);
    assert_eq!(vips["trie_probes"]["new"], v_new * searched_new);
}

/// The process tables of sharp's addon fit 80 and 120 columns: no line wider, no identifier
/// split across lines.
#[test]
fn sharp_process_tables_fit_80_and_120_columns() {
    let Some(img) = img_dir() else {
        return;
    };
    let addon = img.join(ADDON).display().to_string();
    let search = img.display().to_string();
    let args = ["scan", "--process", &addon, "--search", &search];
    let ids = crate::util::identifiers_of(&args);
    for width in [80, 120] {
        let w = width.to_string();
        let mut fitted = args.to_vec();
        fitted.extend(["--width", &w]);
        let text = crate::util::stdout_of(&fitted);
        crate::util::assert_fitted("scan --process sharp", &text, width, &ids);
        assert!(text.contains("libvips-cpp.8.17.3.dylib"), "{text}");
    }
}
