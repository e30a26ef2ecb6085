//! `schema_version` 2 symbol lists: per arch the row columns and the symbols by object, each
//! symbol a row `[symbol, weak_bound, defined_here, sites, lookups, weak_defs, thread_local]`
//! (`crate::schema::BASELINE_COLUMNS`; flags 0 or 1, cells past these ignored).

use super::list::{OriginIn, SymbolList};
use crate::analysis::tally::SymbolEntry;
use crate::schema::BASELINE_COLUMNS as COLUMNS;
use serde::Deserialize;
use serde::de::{Deserializer, Error as _, IgnoredAny, SeqAccess, Visitor};
use std::fmt;

/// One arch's symbols.
#[derive(Deserialize)]
pub(super) struct ArchSymbols {
    arch: String,
    columns: Vec<String>,
    #[serde(default)]
    objects: Vec<ObjectIn>,
}

/// The symbols of one object (`origin: null`: no attribution).
#[derive(Deserialize)]
struct ObjectIn {
    #[serde(default)]
    origin: Option<OriginIn>,
    #[serde(default)]
    symbols: Vec<RowIn>,
}

/// One symbol row, its known cells typed as it is read (no row is held as JSON values).
struct RowIn {
    symbol: String,
    weak_bound: bool,
    defined_here: bool,
    sites: u64,
    lookups: u64,
    weak_defs: u64,
    thread_local: bool,
}

impl<'de> Deserialize<'de> for RowIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(RowVisitor)
    }
}

struct RowVisitor;

impl<'de> Visitor<'de> for RowVisitor {
    type Value = RowIn;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a symbol row [symbol, weak_bound, defined_here, sites, lookups, weak_defs, thread_local]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RowIn, A::Error> {
        let row = RowIn {
            symbol: cell(&mut seq, 0)?,
            weak_bound: flag(&mut seq, 1)?,
            defined_here: flag(&mut seq, 2)?,
            sites: cell(&mut seq, 3)?,
            lookups: cell(&mut seq, 4)?,
            weak_defs: cell(&mut seq, 5)?,
            thread_local: flag(&mut seq, 6)?,
        };
        // Columns a later version appends.
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(row)
    }
}

/// Cell `i` of a row.
fn cell<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(seq: &mut A, i: usize) -> Result<T, A::Error> {
    seq.next_element()?.ok_or_else(|| {
        A::Error::custom(format_args!(
            "a symbol row of {i} cells, without {} (rows have {} cells: {})",
            COLUMNS[i],
            COLUMNS.len(),
            COLUMNS.join(", ")
        ))
    })
}

/// Flag cell `i` of a row: 0 or 1.
fn flag<'de, A: SeqAccess<'de>>(seq: &mut A, i: usize) -> Result<bool, A::Error> {
    match cell::<u64, A>(seq, i)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(A::Error::custom(format_args!(
            "{} is {v} in a symbol row, not 0 or 1",
            COLUMNS[i]
        ))),
    }
}

/// A count from the file; a hostile value beyond `usize` saturates.
fn count(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

impl SymbolList for ArchSymbols {
    fn arch(&self) -> &str {
        &self.arch
    }

    /// The rows as entries. Errors: columns other than [`COLUMNS`] first, or a symbol in two
    /// rows (each symbol has one row, so a second would count it twice).
    fn entries(self) -> Result<Vec<SymbolEntry>, String> {
        let known = self.columns.iter().take(COLUMNS.len());
        if self.columns.len() < COLUMNS.len() || !known.eq(COLUMNS.iter()) {
            return Err(format!(
                "{}: the symbol rows' columns are not {}; regenerate the baseline with \
                 `weakscan baseline FILE -o BASELINE`",
                self.arch,
                COLUMNS.join(", ")
            ));
        }
        let mut entries = Vec::with_capacity(self.objects.iter().map(|o| o.symbols.len()).sum());
        for o in self.objects {
            let origin = OriginIn::to_origin(&o.origin);
            entries.extend(o.symbols.into_iter().map(|r| SymbolEntry {
                raw: r.symbol,
                weak_bound: r.weak_bound,
                defined_here: r.defined_here,
                sites: count(r.sites),
                lookups: count(r.lookups),
                weak_defs: count(r.weak_defs),
                thread_local: r.thread_local,
                origin: origin.clone(),
            }));
        }
        entries.sort_unstable_by(|a, b| a.raw.cmp(&b.raw));
        if let Some(twice) = entries.windows(2).find(|w| w[0].raw == w[1].raw) {
            return Err(format!(
                "{}: symbol {} has two rows",
                self.arch,
                crate::text::clip_middle(&twice[0].raw, 120)
            ));
        }
        Ok(entries)
    }
}
