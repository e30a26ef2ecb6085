//! What the symbol lists of both baseline versions share: [`SymbolList`], which
//! [`super::parse`] reads each arch's list through, and the `origin` object.

use crate::analysis::attribute::{
    ANOTHER_IMAGE, NO_ATTRIBUTION, NO_DEBUG_INFO, ObjectKeys, Origin,
};
use crate::analysis::tally::SymbolEntry;
use serde::Deserialize;
use std::sync::Arc;

/// One arch's symbol list as a baseline version writes it.
pub(super) trait SymbolList {
    /// The arch it belongs to.
    fn arch(&self) -> &str;

    /// Its entries, one per raw name, sorted by raw name (the list is used up: its names move
    /// into them).
    ///
    /// Errors: what is wrong with the list, in words (the caller names the file).
    fn entries(self) -> Result<Vec<SymbolEntry>, String>;
}

/// A symbol's library, object and source keys, as both versions write them.
#[derive(Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct OriginIn {
    library: String,
    object: String,
    source: String,
}

impl OriginIn {
    /// The [`Origin`] written (`None`: no attribution): the special groups by their key, else an
    /// object (its keys escaped to one line: they are printed).
    pub(super) fn to_origin(o: &Option<OriginIn>) -> Origin {
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
