//! Writing a baseline file (`weakscan baseline`), `schema_version` 2.
//!
//! The file holds what `check --baseline` compares and nothing it recomputes: per arch, every
//! symbol that is weak-bound, weak-defined or looked up, as one row of figures under the object
//! it comes from, with its raw (mangled) name only. Printed names and group keys are worked out
//! again from the raw names when the file is read, by the reading build: keys never depend on
//! the printer (`docs/names.md`), so nothing is lost, and the Node.js 22.11.0 baseline is 1.4 MB
//! instead of 12 MB. The scan part keeps the images (the gated figures) and the first
//! [`TOP_GROUPS`] groups of each in scan's order, a summary for whoever reads the file or its
//! diff.
//!
//! The JSON is compact with a line break before each top-level member and each element of an
//! array of arrays or objects (an image, a group, an arch, an object, a symbol row), so a
//! regenerated baseline diffs line by line in git. Nothing in it depends on time, threads or
//! hash order: the same input gives the same bytes. The shape is in `docs/json.md`; reading it
//! back (this version and version 1) is [`crate::gate::baseline`].

use crate::analysis::attribute::{Origin, OriginLevel};
use crate::analysis::group::Group;
use crate::analysis::report::{ImageSummary, ScanReport};
use crate::analysis::tally::{SymbolEntry, tally};
use crate::model::Image;
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter};
use std::collections::BTreeMap;
use std::io::{self, Write};

pub use crate::schema::BASELINE_COLUMNS as COLUMNS;
pub use crate::schema::BASELINE_COMMAND as COMMAND;
pub use crate::schema::BASELINE_SCHEMA_VERSION as SCHEMA_VERSION;

/// Groups kept per image in a baseline's `groups` (scan's table shows as many by default).
/// `check` never reads them: it groups the symbols again.
pub const TOP_GROUPS: usize = 20;

#[derive(Serialize, schemars::JsonSchema)]
struct BaselineJson<'a> {
    /// 2 since symbols are rows (version 1 listed each as an object with its printed name and
    /// group key; `check` reads both).
    schema_version: u32,
    command: &'static str,
    /// Which code printed the C++ names of `groups` (`--version` says the same).
    names_printed_by: crate::analysis::demangle::Printer,
    #[schemars(with = "crate::analysis::group::GroupByName")]
    group_by: &'static str,
    images: Vec<&'a ImageSummary>,
    /// The first 20 groups of each image in scan's order (a summary: `check` groups the
    /// symbols again).
    groups: Vec<ArchGroup<'a>>,
    demangle_failures: usize,
    weakscan_version: &'static str,
    /// Per image, every weak-bound, weak-defined or looked-up symbol.
    symbols: Vec<ArchSymbols<'a>>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchGroup<'a> {
    path: &'a str,
    image: &'a str,
    arch: Option<&'a str>,
    #[serde(flatten)]
    group: Group,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ArchSymbols<'a> {
    arch: &'a str,
    /// The names of a row's cells, in order: symbol, weak_bound, defined_here, sites, lookups,
    /// weak_defs, thread_local.
    columns: [&'static str; 7],
    /// The symbols by the object they come from: unattributed first (`origin: null`), then by
    /// library, object and source.
    objects: Vec<ObjectSymbols<'a>>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ObjectSymbols<'a> {
    /// The object's library, object and source keys (`--by library|object|source`); null
    /// when the image has no attribution.
    origin: Option<OriginJson<'a>>,
    /// One row a symbol, sorted by raw name; a symbol is in one object only.
    symbols: Vec<Row<'a>>,
}

/// One symbol: `[symbol, weak_bound, defined_here, sites, lookups, weak_defs, thread_local]`,
/// its raw Mach-O name and what it adds to the image's figures (flags 0 or 1).
#[derive(Serialize, schemars::JsonSchema)]
struct Row<'a>(
    &'a str,
    #[schemars(range(max = 1))] u8,
    #[schemars(range(max = 1))] u8,
    usize,
    usize,
    usize,
    #[schemars(range(max = 1))] u8,
);

impl<'a> Row<'a> {
    fn of(e: &'a SymbolEntry) -> Self {
        Row(
            &e.raw,
            u8::from(e.weak_bound),
            u8::from(e.defined_here),
            e.sites,
            e.lookups,
            e.weak_defs,
            u8::from(e.thread_local),
        )
    }
}

/// A symbol's library, object and source keys (`--by library|object|source`).
#[derive(Serialize, schemars::JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
struct OriginJson<'a> {
    library: &'a str,
    object: &'a str,
    source: &'a str,
}

impl<'a> OriginJson<'a> {
    fn of(origin: &'a Origin) -> Option<Self> {
        (*origin != Origin::Unattributed).then(|| OriginJson {
            library: origin.key(OriginLevel::Library),
            object: origin.key(OriginLevel::Object),
            source: origin.key(OriginLevel::Source),
        })
    }
}

/// The rows of one image's `entries`, by origin (unattributed first), each origin's sorted by
/// raw name as `entries` are.
fn objects_of(entries: &[SymbolEntry]) -> Vec<ObjectSymbols<'_>> {
    let mut by_origin: BTreeMap<Option<OriginJson<'_>>, Vec<Row<'_>>> = BTreeMap::new();
    for e in entries {
        by_origin
            .entry(OriginJson::of(&e.origin))
            .or_default()
            .push(Row::of(e));
    }
    by_origin
        .into_iter()
        .map(|(origin, symbols)| ObjectSymbols { origin, symbols })
        .collect()
}

/// Renders the baseline of `images`, whose scan report (every group, grouped as recorded) is
/// `report`, into `out`: the JSON described in the module docs, ending with a newline.
/// Errors: those of `out`.
pub fn render(out: &mut dyn Write, report: &ScanReport<'_>, images: &[Image]) -> io::Result<()> {
    let tallies: Vec<Vec<SymbolEntry>> = images.iter().map(tally).collect();
    let doc = BaselineJson {
        schema_version: SCHEMA_VERSION,
        command: COMMAND,
        names_printed_by: crate::analysis::demangle::printer::printer(),
        group_by: report.group_by.as_str(),
        images: report.images.iter().map(|i| &i.summary).collect(),
        groups: report
            .images
            .iter()
            .flat_map(|i| {
                report.groups(i).take(TOP_GROUPS).map(|group| ArchGroup {
                    path: &i.summary.path,
                    image: &i.summary.image,
                    arch: i.summary.arch.as_deref(),
                    group,
                })
            })
            .collect(),
        demangle_failures: report.demangle_failures,
        weakscan_version: env!("CARGO_PKG_VERSION"),
        symbols: images
            .iter()
            .zip(&tallies)
            .map(|(image, entries)| ArchSymbols {
                arch: image.label(),
                columns: COLUMNS,
                objects: objects_of(entries),
            })
            .collect(),
    };
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, Lines::default());
    doc.serialize(&mut ser).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// Compact JSON with a line break before each member of the outermost object, before each
/// element of an array that is itself an array or object, and before the outermost `}`.
#[derive(Default)]
struct Lines {
    /// Objects and arrays open.
    depth: usize,
    /// An array element has begun and nothing of it is written yet.
    element: bool,
}

impl Lines {
    /// Opening an array or object: on a line of its own when it is an array element.
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        if std::mem::take(&mut self.element) {
            w.write_all(b"\n")?;
        }
        self.depth += 1;
        w.write_all(bracket)
    }
}

impl Formatter for Lines {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.element = false;
        self.depth -= 1;
        w.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.element = true;
        CompactFormatter.begin_array_value(w, first)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.element = false;
        self.depth -= 1;
        w.write_all(if self.depth == 0 { b"\n}" } else { b"}" })
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        CompactFormatter.begin_object_key(w, first)?;
        if self.depth == 1 {
            w.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// The JSON Schema of a baseline file.
pub(crate) fn schema(generator: schemars::SchemaGenerator) -> schemars::Schema {
    generator.into_root_schema_for::<BaselineJson<'static>>()
}
