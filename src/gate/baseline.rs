//! Baseline files: `weakscan baseline FILE -o weakscan-baseline.json` writes one
//! ([`crate::output::baseline`]), `weakscan check --baseline` reads it back (here).
//!
//! A baseline is scan's JSON (`command: "baseline"`, every group) plus `symbols`: per arch, each
//! weak-bound symbol, each weak definition and each other looked-up name, sorted by raw name.
//! Nothing in it depends on time, threads or hash order, so the same input gives the same bytes
//! and regenerating it diffs well in git. The shape is in `docs/json.md`.
//!
//! Reading is lenient where the schema may grow (unknown fields are ignored, figures are
//! optional) and strict where a comparison would be meaningless: another `schema_version`, a
//! file that is not a baseline, or a symbol list missing for an image is refused.

use super::Figure;
use crate::analysis::attribute::{
    ANOTHER_IMAGE, NO_ATTRIBUTION, NO_DEBUG_INFO, ObjectKeys, Origin,
};
use crate::analysis::tally::{SymbolEntry, entry};
use crate::error::{Error, ErrorKind, Result};
use crate::schema::SCHEMA_VERSION;
use crate::text::escape_bytes;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::schema::BASELINE_COMMAND as COMMAND;

#[derive(Deserialize)]
struct Header {
    schema_version: Option<serde_json::Value>,
    command: Option<String>,
}

#[derive(Deserialize)]
struct FileJson {
    images: Vec<ImageJson>,
    symbols: Vec<SymbolsJson>,
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

#[derive(Deserialize)]
struct SymbolsJson {
    arch: String,
    #[serde(default)]
    weak_bound: Vec<BoundIn>,
    #[serde(default)]
    weak_definitions: Vec<DefinitionIn>,
    #[serde(default)]
    other_lookups: Vec<LookupIn>,
}

#[derive(Deserialize)]
struct BoundIn {
    symbol: String,
    #[serde(default)]
    sites: u64,
    #[serde(default)]
    lookups: u64,
    #[serde(default)]
    defined_here: bool,
    #[serde(default)]
    origin: Option<OriginIn>,
}

#[derive(Deserialize)]
struct DefinitionIn {
    symbol: String,
    #[serde(default)]
    thread_local: bool,
    #[serde(default)]
    origin: Option<OriginIn>,
}

#[derive(Deserialize)]
struct LookupIn {
    symbol: String,
    lookups: u64,
    #[serde(default)]
    origin: Option<OriginIn>,
}

#[derive(Deserialize)]
struct OriginIn {
    library: String,
    object: String,
    source: String,
}

impl OriginIn {
    /// The [`Origin`] written: the special groups by their key, else an object (its keys
    /// escaped to one line: they are printed).
    fn to_origin(o: &Option<OriginIn>) -> Origin {
        let Some(o) = o else {
            return Origin::Unattributed;
        };
        let one_line = |s: &str| crate::text::escape(s).into_owned();
        match o.library.as_str() {
            ANOTHER_IMAGE => Origin::AnotherImage,
            NO_DEBUG_INFO => Origin::NoDebugInfo,
            NO_ATTRIBUTION => Origin::Unattributed,
            _ => Origin::Object(Arc::new(ObjectKeys {
                library: one_line(&o.library),
                object: one_line(&o.object),
                source: one_line(&o.source),
                archive_path: None,
                source_path: None,
            })),
        }
    }
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
/// Errors (exit 2): unreadable (`Io`); not JSON, not a baseline, another schema version, or an
/// image without arch or symbol list (`Policy`), each naming the file and saying what to do.
pub fn read(path: &Path) -> Result<Baseline> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
    parse(&text, path)
}

/// Reads the baseline text `text`, read from `path` (used in messages); the errors of [`read`]
/// but `Io`. The fuzz target `baseline` calls this.
pub fn parse(text: &str, path: &Path) -> Result<Baseline> {
    // Arches and commands are quoted from the file: escaped, so the error stays one line (fuzz
    // finding: an arch with a newline).
    let bad = |what: String| Error::new(ErrorKind::Policy, path, escape_bytes(what.as_bytes()));
    let json_error = |e: serde_json::Error| {
        Error::at(
            ErrorKind::Policy,
            path,
            e.line(),
            e.column(),
            escape_bytes(format!("not a weakscan baseline: {e}").as_bytes()),
        )
    };
    let header: Header = serde_json::from_str(text).map_err(json_error)?;
    let regenerate = "regenerate it with `weakscan baseline FILE -o BASELINE`";
    match &header.schema_version {
        Some(v) if v.as_u64() == Some(u64::from(SCHEMA_VERSION)) => {}
        Some(v) => {
            return Err(bad(format!(
                "baseline has schema_version {v}, this weakscan reads schema_version {SCHEMA_VERSION}; {regenerate}"
            )));
        }
        None => {
            return Err(bad(format!(
                "not a weakscan baseline (no schema_version); {regenerate}"
            )));
        }
    }
    match header.command.as_deref() {
        Some(COMMAND) => {}
        Some(other) => {
            return Err(bad(format!(
                "this is `weakscan {other}` output, not a baseline; write one with `weakscan baseline FILE -o {}`",
                path.display()
            )));
        }
        None => {
            return Err(bad(format!(
                "not a weakscan baseline (no command); {regenerate}"
            )));
        }
    }
    let doc: FileJson = serde_json::from_str(text).map_err(json_error)?;
    let mut images = Vec::new();
    for (i, img) in doc.images.into_iter().enumerate() {
        let arch = img
            .arch
            .ok_or_else(|| bad(format!("image {i} has no arch; {regenerate}")))?;
        let Some(symbols) = doc.symbols.iter().find(|s| s.arch == arch) else {
            return Err(bad(format!("no symbol list for {arch}; {regenerate}")));
        };
        if images.iter().any(|b: &BaselineImage| b.arch == arch) {
            return Err(bad(format!("two {arch} images")));
        }
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
            entries: entries_of(symbols),
            arch,
        });
    }
    if images.is_empty() {
        return Err(bad(format!("baseline has no images; {regenerate}")));
    }
    Ok(Baseline {
        path: path.to_path_buf(),
        images,
    })
}

fn entries_of(s: &SymbolsJson) -> Vec<SymbolEntry> {
    let mut by_name = BTreeMap::new();
    for b in &s.weak_bound {
        let e = entry(&mut by_name, &b.symbol);
        e.weak_bound = true;
        e.defined_here |= b.defined_here;
        // Figures from the file: a hostile value saturates instead of wrapping.
        e.sites = e.sites.saturating_add(b.sites as usize);
        e.lookups = e.lookups.saturating_add(b.lookups as usize);
        e.origin = OriginIn::to_origin(&b.origin);
    }
    for l in &s.other_lookups {
        let e = entry(&mut by_name, &l.symbol);
        e.lookups = e.lookups.saturating_add(l.lookups as usize);
        e.origin = OriginIn::to_origin(&l.origin);
    }
    for d in &s.weak_definitions {
        let e = entry(&mut by_name, &d.symbol);
        e.weak_defs = e.weak_defs.saturating_add(1);
        e.thread_local |= d.thread_local;
        e.origin = OriginIn::to_origin(&d.origin);
    }
    by_name.into_values().collect()
}
