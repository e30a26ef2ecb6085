//! `schema_version` 1 symbol lists (weakscan 0.1.0): per arch an object per weak-bound symbol,
//! per weak definition and per other looked-up name, each with printed fields (`demangled`,
//! `group`) that are not read.

use super::list::{OriginIn, SymbolList};
use crate::analysis::tally::{SymbolEntry, entry};
use serde::Deserialize;
use std::collections::BTreeMap;

/// One arch's lists.
#[derive(Deserialize)]
pub(super) struct ArchSymbols {
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

impl SymbolList for ArchSymbols {
    fn arch(&self) -> &str {
        &self.arch
    }

    /// The three lists merged by name: a name in several adds up (a weak definition listed
    /// twice counts twice, as the export trie it was read from did). Never fails.
    fn entries(self) -> Result<Vec<SymbolEntry>, String> {
        let mut by_name = BTreeMap::new();
        for b in &self.weak_bound {
            let e = entry(&mut by_name, &b.symbol);
            e.weak_bound = true;
            e.defined_here |= b.defined_here;
            // Figures from the file: a hostile value saturates instead of wrapping.
            e.sites = e.sites.saturating_add(b.sites as usize);
            e.lookups = e.lookups.saturating_add(b.lookups as usize);
            e.origin = OriginIn::to_origin(&b.origin);
        }
        for l in &self.other_lookups {
            let e = entry(&mut by_name, &l.symbol);
            e.lookups = e.lookups.saturating_add(l.lookups as usize);
            e.origin = OriginIn::to_origin(&l.origin);
        }
        for d in &self.weak_definitions {
            let e = entry(&mut by_name, &d.symbol);
            e.weak_defs = e.weak_defs.saturating_add(1);
            e.thread_local |= d.thread_local;
            e.origin = OriginIn::to_origin(&d.origin);
        }
        Ok(by_name.into_values().collect())
    }
}
