//! Baseline files: `weakscan baseline FILE -o weakscan-baseline.json` writes one
//! ([`crate::output::baseline`]), `weakscan check --baseline` reads it back (here).
//!
//! A baseline holds scan's images (the gated figures) and, per arch, each weak-bound,
//! weak-defined or looked-up symbol: in `schema_version` 2 (written now) a row of its raw name
//! and figures under the object it comes from; in `schema_version` 1 (weakscan 0.1.0) an object
//! per weak-bound symbol, per weak definition and per other looked-up name, with printed names
//! and group keys that are not read. Both read to the same [`SymbolEntry`] list: names are
//! printed and grouped again by the reading build. The shapes are in `docs/json.md`.
//!
//! Reading is lenient where the schema may grow (unknown fields and trailing row columns are
//! ignored, figures are optional) and strict where a comparison would be meaningless: another
//! `schema_version`, a file that is not a baseline, more images than a universal file has slices
//! or two images of one arch, a symbol list missing for an image, a row that is not a name and
//! figures, or a symbol listed twice is refused.

mod list;
mod v1;
mod v2;

use super::Figure;
use crate::analysis::tally::SymbolEntry;
use crate::error::{Error, ErrorKind, Result};
use crate::macho::file::MAX_FAT_ARCHS;
use crate::schema::BASELINE_SCHEMA_VERSION;
use crate::text::escape_bytes;
use list::SymbolList;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

pub use crate::schema::BASELINE_COMMAND as COMMAND;

/// The oldest `schema_version` read (weakscan 0.1.0's baselines).
const OLDEST: u64 = 1;

/// What to do about a baseline that cannot be used.
const REGENERATE: &str = "regenerate it with `weakscan baseline FILE -o BASELINE`";

#[derive(Deserialize)]
struct Header {
    schema_version: Option<serde_json::Value>,
    command: Option<String>,
}

/// The fields read of a baseline of either version, `S` its symbol lists.
#[derive(Deserialize)]
struct FileJson<S> {
    images: Vec<ImageJson>,
    symbols: Vec<S>,
}

#[derive(Deserialize)]
struct ImageJson {
    path: Option<String>,
    arch: Option<String>,
    predicted_weak_lookups: Option<u64>,
    weak_def_exports: Option<u64>,
    weak_bind_symbols: Option<u64>,
    trie_probes: Option<u64>,
    input_kind: Option<String>,
}

/// A baseline file read back.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// Where it was read from.
    pub path: PathBuf,
    /// One per slice, in file order.
    pub images: Vec<BaselineImage>,
}

/// One slice of a baseline.
#[derive(Debug, Clone)]
pub struct BaselineImage {
    /// The arch.
    pub arch: String,
    /// The file the baseline was made from.
    pub input: String,
    /// The baseline file.
    pub source: PathBuf,
    /// `predicted_weak_lookups`, `weak_def_exports`, `weak_bind_symbols`, `trie_probes`
    /// (`None`: absent).
    figures: [Option<u64>; 4],
    /// Made from a whole process (`input_kind: "process"`).
    pub process: bool,
    /// Per-symbol entries, sorted by raw name.
    pub entries: Vec<SymbolEntry>,
}

impl BaselineImage {
    /// The baseline a checked image is to the images checked after it (`weakscan bisect`
    /// holds every version to the first): its figures as `summary` gives them (what
    /// [`crate::output::baseline`] would write) and `entries` ([`crate::analysis::tally`],
    /// sorted by raw name), not read back from a file. `source` names it in errors.
    pub fn of_image(
        summary: &crate::analysis::report::ImageSummary,
        arch: &str,
        entries: Vec<SymbolEntry>,
        source: &Path,
    ) -> BaselineImage {
        BaselineImage {
            arch: arch.to_string(),
            input: summary.path.clone(),
            source: source.to_path_buf(),
            figures: Figure::ALL.map(|f| f.of(summary).map(|v| v as u64)),
            process: summary.input_kind == crate::model::InputKind::Process,
            entries,
        }
    }

    /// The recorded figure, if the baseline has it.
    pub fn figure(&self, f: Figure) -> Option<usize> {
        let i = Figure::ALL.iter().position(|&g| g == f).unwrap_or(0);
        self.figures[i].map(|v| v as usize)
    }
}

impl Baseline {
    /// The slice of arch `arch`.
    pub fn image(&self, arch: &str) -> Option<&BaselineImage> {
        self.images.iter().find(|i| i.arch == arch)
    }

    /// The arches, in file order.
    pub fn arches(&self) -> Vec<&str> {
        self.images.iter().map(|i| i.arch.as_str()).collect()
    }
}

/// Reads the baseline at `path`.
///
/// Errors (exit 2): unreadable (`Io`); not JSON, not a baseline, a schema version other than 1
/// and 2, an image without arch or symbol list, or a malformed symbol list (`Policy`), each
/// naming the file and saying what to do.
pub fn read(path: &Path) -> Result<Baseline> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
    parse(&text, path)
}

/// A baseline error about `path`: `what`, escaped to one line (arches, commands and symbols are
/// quoted from the file; fuzz finding: an arch with a newline).
fn bad(path: &Path, what: String) -> Error {
    Error::new(ErrorKind::Policy, path, escape_bytes(what.as_bytes()))
}

/// A JSON error at its line and column of `path`, after `what` (serde_json's message without
/// the position it appends, which leads the line instead).
fn json_error(path: &Path, what: &str, e: &serde_json::Error) -> Error {
    let message = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    let message = message.strip_suffix(&at).unwrap_or(&message);
    Error::at(
        ErrorKind::Policy,
        path,
        e.line(),
        e.column(),
        escape_bytes(format!("{what}: {message}").as_bytes()),
    )
}

/// Reads the baseline text `text`, read from `path` (used in messages); the errors of [`read`]
/// but `Io`. The fuzz target `baseline` calls this.
pub fn parse(text: &str, path: &Path) -> Result<Baseline> {
    let header: Header =
        serde_json::from_str(text).map_err(|e| json_error(path, "not a weakscan baseline", &e))?;
    let newest = u64::from(BASELINE_SCHEMA_VERSION);
    let version = match &header.schema_version {
        Some(v) if v.as_u64().is_some_and(|n| (OLDEST..=newest).contains(&n)) => v.as_u64(),
        Some(v) => {
            return Err(bad(
                path,
                format!(
                    "baseline has schema_version {v}, this weakscan reads schema_version \
                     {OLDEST} to {newest}; {REGENERATE}"
                ),
            ));
        }
        None => {
            return Err(bad(
                path,
                format!("not a weakscan baseline (no schema_version); {REGENERATE}"),
            ));
        }
    };
    match header.command.as_deref() {
        Some(COMMAND) => {}
        Some(other) => {
            return Err(bad(
                path,
                format!(
                    "this is `weakscan {other}` output, not a baseline; write one with \
                     `weakscan baseline FILE -o {}`",
                    path.display()
                ),
            ));
        }
        None => {
            return Err(bad(
                path,
                format!("not a weakscan baseline (no command); {REGENERATE}"),
            ));
        }
    }
    let images = match version {
        Some(1) => images_of::<v1::ArchSymbols>(text, path)?,
        _ => images_of::<v2::ArchSymbols>(text, path)?,
    };
    Ok(Baseline {
        path: path.to_path_buf(),
        images,
    })
}

/// Images a baseline may hold: one per slice of the file it was made from, and a universal file
/// has at most [`MAX_FAT_ARCHS`] slices (one image per arch for a process).
pub const MAX_BASELINE_IMAGES: usize = MAX_FAT_ARCHS as usize;

/// The images of a baseline whose symbol lists are `S`s, each with its list's entries, in work
/// linear in the images and lists: the arches seen and the first list of each arch are found by
/// hash. At most [`MAX_BASELINE_IMAGES`] images; two images of one arch are refused.
fn images_of<S: SymbolList + DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<Vec<BaselineImage>> {
    let doc: FileJson<S> =
        serde_json::from_str(text).map_err(|e| json_error(path, "malformed baseline", &e))?;
    if doc.images.len() > MAX_BASELINE_IMAGES {
        return Err(bad(
            path,
            format!(
                "baseline has {} images, more than {MAX_BASELINE_IMAGES} (one per slice of a \
                 universal file); {REGENERATE}",
                doc.images.len()
            ),
        ));
    }
    // Each list is used once, by the first image of its arch (a later list of the same arch is
    // not read).
    let mut lists: Vec<Option<S>> = doc.symbols.into_iter().map(Some).collect();
    let mut first_list: HashMap<String, usize> = HashMap::new();
    for (i, list) in lists.iter().enumerate() {
        if let Some(list) = list {
            first_list.entry(list.arch().to_owned()).or_insert(i);
        }
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut images = Vec::with_capacity(doc.images.len());
    for (i, img) in doc.images.into_iter().enumerate() {
        let arch = img
            .arch
            .ok_or_else(|| bad(path, format!("image {i} has no arch; {REGENERATE}")))?;
        if !seen.insert(arch.clone()) {
            return Err(bad(path, format!("two {arch} images")));
        }
        let list = first_list.get(&arch).and_then(|&l| lists[l].take());
        let Some(symbols) = list else {
            return Err(bad(
                path,
                format!("no symbol list for {arch}; {REGENERATE}"),
            ));
        };
        images.push(BaselineImage {
            input: img.path.unwrap_or_default(),
            source: path.to_path_buf(),
            figures: [
                img.predicted_weak_lookups,
                img.weak_def_exports,
                img.weak_bind_symbols,
                img.trie_probes,
            ],
            process: img.input_kind.as_deref() == Some(crate::model::InputKind::Process.as_str()),
            entries: symbols.entries().map_err(|what| bad(path, what))?,
            arch,
        });
    }
    if images.is_empty() {
        return Err(bad(path, format!("baseline has no images; {REGENERATE}")));
    }
    Ok(images)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::attribute::Origin;

    const COLUMNS: &str =
        r#"["symbol","weak_bound","defined_here","sites","lookups","weak_defs","thread_local"]"#;

    /// A version-2 baseline of one x86_64 image with `objects` (JSON) under `columns`.
    fn v2(columns: &str, objects: &str) -> String {
        format!(
            "{{\"schema_version\":2,\"command\":\"baseline\",\
             \"images\":[{{\"arch\":\"x86_64\",\"weak_bind_symbols\":1}}],\n\
             \"symbols\":[{{\"arch\":\"x86_64\",\"columns\":{columns},\"objects\":[\n{objects}]}}]}}"
        )
    }

    fn parsed(text: &str) -> Result<Baseline> {
        parse(text, Path::new("b.json"))
    }

    /// The error `text` gives: one line, naming the file.
    fn error(text: &str) -> String {
        let e = parsed(text).expect_err("refused");
        assert_eq!(e.kind, ErrorKind::Policy);
        assert!(e.message.starts_with("b.json"), "{}", e.message);
        assert!(!e.message.contains('\n'), "{}", e.message);
        e.message
    }

    #[test]
    fn rows_read_as_entries_with_their_object() {
        let b = parsed(&v2(
            COLUMNS,
            r#"{"origin":null,"symbols":[["__Znwm",0,0,0,2,0,0]]},
{"origin":{"library":"liba.a","object":"liba.a(a.o)","source":"a.cc"},"symbols":[
["__ZN1A1fEv",1,1,3,1,1,0],["__ZTW1t",1,0,1,1,1,1]]}"#,
        ))
        .unwrap();
        let e = &b.images[0].entries;
        let raw: Vec<&str> = e.iter().map(|e| e.raw.as_str()).collect();
        assert_eq!(
            raw,
            ["__ZN1A1fEv", "__ZTW1t", "__Znwm"],
            "sorted by raw name"
        );
        assert_eq!(
            (
                e[0].weak_bound,
                e[0].defined_here,
                e[0].sites,
                e[0].lookups,
                e[0].weak_defs
            ),
            (true, true, 3, 1, 1)
        );
        assert!(e[1].thread_local && !e[1].defined_here);
        assert_eq!(e[0].origin.object().unwrap().object, "liba.a(a.o)");
        assert_eq!(e[2].origin, Origin::Unattributed);
        assert_eq!(b.images[0].figure(Figure::WeakBindSymbols), Some(1));
    }

    #[test]
    fn cells_and_columns_a_later_version_appends_are_ignored() {
        let columns = r#"["symbol","weak_bound","defined_here","sites","lookups","weak_defs","thread_local","size"]"#;
        let b = parsed(&v2(
            columns,
            r#"{"origin":null,"symbols":[["__Znwm",0,0,0,2,0,0,{"x":[1]}]]}"#,
        ))
        .unwrap();
        assert_eq!(b.images[0].entries[0].lookups, 2);
    }

    #[test]
    fn figures_beyond_usize_saturate() {
        let b = parsed(&v2(
            COLUMNS,
            r#"{"origin":null,"symbols":[["_a",1,0,18446744073709551615,0,0,0]]}"#,
        ))
        .unwrap();
        assert_eq!(b.images[0].entries[0].sites, usize::MAX);
    }

    #[test]
    fn malformed_rows_are_refused_in_one_line() {
        for (objects, wanted) in [
            (
                r#"{"origin":null,"symbols":[["_a",2,0,0,0,0,0]]}"#,
                "b.json:3:34: malformed baseline: weak_bound is 2 in a symbol row, not 0 or 1",
            ),
            (
                r#"{"origin":null,"symbols":[["_a",1,0]]}"#,
                "a symbol row of 3 cells, without sites (rows have 7 cells: symbol, weak_bound,",
            ),
            (
                r#"{"origin":null,"symbols":[["_a",1,0,-1,0,0,0]]}"#,
                "invalid value: integer `-1`",
            ),
            (
                r#"{"origin":null,"symbols":[["_a",1,0,1.5,0,0,0]]}"#,
                "invalid type: floating point",
            ),
            (
                r#"{"origin":null,"symbols":[[7,1,0,1,0,0,0]]}"#,
                "invalid type: integer `7`",
            ),
            (
                r#"{"origin":null,"symbols":[{"symbol":"_a"}]}"#,
                "expected a symbol row",
            ),
            (
                r#"{"origin":{"library":"l"},"symbols":[]}"#,
                "missing field `object`",
            ),
            (
                r#"{"origin":null,"symbols":[["_a\n",1,0,1,0,0,0]]},
{"origin":{"library":"l","object":"o","source":"s"},"symbols":[["_a\n",0,0,0,1,0,0]]}"#,
                "b.json: x86_64: symbol _a\\x0a has two rows",
            ),
        ] {
            let message = error(&v2(COLUMNS, objects));
            assert!(message.contains(wanted), "{message}\nwanted {wanted}");
        }
        let reordered = r#"["symbol","defined_here","weak_bound","sites","lookups","weak_defs","thread_local"]"#;
        let message = error(&v2(reordered, ""));
        assert!(
            message.contains("x86_64: the symbol rows' columns are not symbol, weak_bound,"),
            "{message}"
        );
        let message = error(&v2(r#"["symbol"]"#, ""));
        assert!(message.contains("columns are not"), "{message}");
        let message = error(&v2(COLUMNS, "").replace(",\"columns\"", ",\"cols\""));
        assert!(message.contains("missing field `columns`"), "{message}");
    }

    #[test]
    fn both_versions_read_the_same_entries() {
        let origin = r#"{"library":"liba.a","object":"liba.a(a.o)","source":"a.cc"}"#;
        let new = v2(
            COLUMNS,
            &format!(
                r#"{{"origin":null,"symbols":[["__Znwm",0,0,0,2,0,0]]}},
{{"origin":{origin},"symbols":[["__ZN1A1fEv",1,1,3,1,1,0],["__ZTW1t",0,0,0,0,1,1]]}}"#
            ),
        );
        let old = format!(
            r#"{{"schema_version":1,"command":"baseline","images":[{{"arch":"x86_64","weak_bind_symbols":1}}],
"symbols":[{{"arch":"x86_64",
"weak_bound":[{{"symbol":"__ZN1A1fEv","demangled":"A::f()","group":"A","sites":3,"lookups":1,"defined_here":true,"origin":{origin}}}],
"weak_definitions":[{{"symbol":"__ZN1A1fEv","thread_local":false,"origin":{origin}}},{{"symbol":"__ZTW1t","thread_local":true,"origin":{origin}}}],
"other_lookups":[{{"symbol":"__Znwm","lookups":2}}]}}]}}"#
        );
        let (new, old) = (parsed(&new).unwrap(), parsed(&old).unwrap());
        assert_eq!(new.images[0].entries, old.images[0].entries);
        assert_eq!(new.images[0].entries.len(), 3);
    }

    /// A version-2 baseline of `images` images with arches `a0`, `a1`, … and one empty symbol
    /// list per arch, written as `weakscan baseline` writes them.
    fn many_images(images: usize) -> String {
        let image: Vec<String> = (0..images)
            .map(|i| format!(r#"{{"arch":"a{i}","path":"x","weak_bind_symbols":1}}"#))
            .collect();
        let list: Vec<String> = (0..images)
            .map(|i| format!(r#"{{"arch":"a{i}","columns":{COLUMNS},"objects":[]}}"#))
            .collect();
        format!(
            r#"{{"schema_version":2,"command":"baseline","images":[{}],"symbols":[{}]}}"#,
            image.join(","),
            list.join(",")
        )
    }

    // Regression (hostile-input campaign): each image searched the images before it and the
    // symbol lists for its arch, so 50,000 images (8.5 MB) took 11–15 s of CPU before any
    // error. Now a baseline holds at most one image per slice, refused past that before any
    // image is looked at, and the arches are found by hash.
    #[test]
    fn regression_a_baseline_of_50000_images_was_read_in_quadratic_time() {
        let text = many_images(50_000);
        assert!(text.len() > 3_000_000, "{}", text.len());
        let Err(e) = parsed(&text) else {
            panic!("50,000 images read");
        };
        assert!(
            e.message.starts_with(
                "b.json: baseline has 50000 images, more than 64 (one per slice of a universal file)"
            ),
            "{}",
            e.message
        );
        // The most a universal file can have is read, each image with its own list.
        let b = parsed(&many_images(MAX_BASELINE_IMAGES)).unwrap();
        let arches: Vec<String> = (0..MAX_BASELINE_IMAGES).map(|i| format!("a{i}")).collect();
        assert_eq!(b.arches(), arches);
        assert!(error(&many_images(MAX_BASELINE_IMAGES + 1)).contains("65 images, more than 64"));
    }

    #[test]
    fn two_images_of_one_arch_are_refused_and_the_first_list_of_an_arch_is_read() {
        let list = |sym: &str| {
            format!(
                r#"{{"arch":"x86_64","columns":{COLUMNS},"objects":[{{"origin":null,"symbols":[["{sym}",0,0,0,1,0,0]]}}]}}"#
            )
        };
        let doc = |images: &str, lists: &[String]| {
            format!(
                r#"{{"schema_version":2,"command":"baseline","images":[{images}],"symbols":[{}]}}"#,
                lists.join(",")
            )
        };
        let one = r#"{"arch":"x86_64"}"#;
        let message = error(&doc(&format!("{one},{one}"), &[list("_a"), list("_b")]));
        assert!(message.ends_with("b.json: two x86_64 images"), "{message}");
        let b = parsed(&doc(one, &[list("_a"), list("_b")])).unwrap();
        assert_eq!(b.images[0].entries.len(), 1);
        assert_eq!(b.images[0].entries[0].raw, "_a");
        let arm = r#"{"arch":"arm64"}"#;
        let message = error(&doc(&format!("{one},{arm}"), &[list("_a")]));
        assert!(message.contains("no symbol list for arm64"), "{message}");
    }
}
