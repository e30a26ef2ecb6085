//! Writing a baseline file (`weakscan baseline`): scan's JSON (`command: "baseline"`, every
//! group) plus `symbols`, per arch each weak-bound symbol, each weak definition and each other
//! looked-up name, sorted by raw name. Nothing in it depends on time, threads or hash order, so
//! the same input gives the same bytes. The shape is in `docs/json.md`; reading it back is
//! [`crate::gate::baseline`].

use super::json::scan_with;
use crate::analysis::attribute::{Origin, OriginLevel};
use crate::analysis::demangle::Demangled;
use crate::analysis::group::GroupBy;
use crate::analysis::report::ScanReport;
use crate::analysis::tally::{SymbolEntry, tally};
use crate::model::Image;
use serde::Serialize;
use std::io::{self, Write};

pub use crate::schema::BASELINE_COMMAND as COMMAND;

#[derive(Serialize, schemars::JsonSchema)]
struct Extra<'a> {
    weakscan_version: &'static str,
    symbols: Vec<ArchSymbols<'a>>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchSymbols<'a> {
    arch: &'a str,
    weak_bound: Vec<BoundJson<'a>>,
    weak_definitions: Vec<DefinitionJson<'a>>,
    other_lookups: Vec<LookupJson<'a>>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct BoundJson<'a> {
    symbol: &'a str,
    demangled: String,
    group: String,
    sites: usize,
    lookups: usize,
    defined_here: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<OriginJson<'a>>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct DefinitionJson<'a> {
    symbol: &'a str,
    demangled: String,
    group: String,
    thread_local: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<OriginJson<'a>>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct LookupJson<'a> {
    symbol: &'a str,
    demangled: String,
    lookups: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<OriginJson<'a>>,
}

/// A symbol's library, object and source keys (`--by library|object|source`); absent when
/// the image has no attribution.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct OriginJson<'a> {
    library: &'a str,
    object: &'a str,
    source: &'a str,
}

impl<'a> OriginJson<'a> {
    pub(crate) fn of(origin: &'a Origin) -> Option<Self> {
        (*origin != Origin::Unattributed).then(|| OriginJson {
            library: origin.key(OriginLevel::Library),
            object: origin.key(OriginLevel::Object),
            source: origin.key(OriginLevel::Source),
        })
    }
}

/// Renders the baseline of `images`: `report` (their scan report with every group, grouped by
/// `by`) and the per-symbol lists, demangled with `names` (which must hold every name of
/// `images`) into `out`: pretty JSON with a trailing newline. Errors: those of `out`.
pub fn render(
    out: &mut dyn Write,
    report: &ScanReport<'_>,
    images: &[Image],
    names: &Demangled<'_>,
    by: GroupBy,
) -> io::Result<()> {
    let tallies: Vec<Vec<SymbolEntry>> = images.iter().map(tally).collect();
    let symbols = images
        .iter()
        .zip(&tallies)
        .map(|(image, entries)| {
            let name = |raw: &str| names.lookup(raw).into_owned();
            let mut arch = ArchSymbols {
                arch: image.label(),
                weak_bound: Vec::new(),
                weak_definitions: Vec::new(),
                other_lookups: Vec::new(),
            };
            for e in entries {
                let n = name(&e.raw);
                if e.weak_bound {
                    arch.weak_bound.push(BoundJson {
                        symbol: &e.raw,
                        demangled: n.demangled().to_string(),
                        group: by.key(&n, &e.origin).into_owned(),
                        sites: e.sites,
                        lookups: e.lookups,
                        defined_here: e.defined_here,
                        origin: OriginJson::of(&e.origin),
                    });
                } else if e.lookups > 0 {
                    arch.other_lookups.push(LookupJson {
                        symbol: &e.raw,
                        demangled: n.demangled().to_string(),
                        lookups: e.lookups,
                        origin: OriginJson::of(&e.origin),
                    });
                }
                for _ in 0..e.weak_defs {
                    arch.weak_definitions.push(DefinitionJson {
                        symbol: &e.raw,
                        demangled: n.demangled().to_string(),
                        group: by.key(&n, &e.origin).into_owned(),
                        thread_local: e.thread_local,
                        origin: OriginJson::of(&e.origin),
                    });
                }
            }
            arch
        })
        .collect();
    scan_with(
        out,
        report,
        COMMAND,
        &Extra {
            weakscan_version: env!("CARGO_PKG_VERSION"),
            symbols,
        },
    )
}

/// The JSON Schema of a baseline file: scan's document followed by [`Extra`]'s fields.
pub(crate) fn schema(generator: schemars::SchemaGenerator) -> schemars::Schema {
    generator.into_root_schema_for::<super::json::ScanWith<'static, Extra<'static>>>()
}
