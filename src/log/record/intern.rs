//! Names interned: each distinct symbol, path or image name of the process read stored once
//! and named by a number, then turned into the model's shared [`Name`]s at the end.

use crate::log::line::text;
use crate::model::Name;
use std::collections::HashMap;
use std::rc::Rc;

/// One symbol, path or image name, interned.
pub(super) type Id = u32;

/// Distinct names, each stored once (the map and the list share it).
#[derive(Default)]
pub(super) struct Interner {
    ids: HashMap<Rc<[u8]>, Id>,
    /// The names, by id.
    pub(super) names: Vec<Rc<[u8]>>,
}

impl Interner {
    /// The id of `s`, given it if it is new.
    pub(super) fn id(&mut self, s: &[u8]) -> Id {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as Id;
        let name: Rc<[u8]> = s.into();
        self.names.push(name.clone());
        self.ids.insert(name, id);
        id
    }

    /// Every name as the model's text, by id, freeing the raw bytes as it goes: what the
    /// images share (one [`Name`] per distinct name, however many lines name it).
    pub(super) fn into_names(self) -> Vec<Name> {
        drop(self.ids);
        self.names
            .into_iter()
            .map(|raw| Name::from(text(&raw)))
            .collect()
    }
}
