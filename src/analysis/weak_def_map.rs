//! dyld's weakDefMap, as the lookups of a launch meet it (dyld-1378 `Loader::resolveSymbol`,
//! `docs/process.md`): after [`WEAK_DEF_MAP_AFTER`] lookups dyld makes a map of the names it
//! has resolved, and a name the map holds is answered without probing any export trie.
//!
//! ```text
//! per lookup of name id:   count += 1
//!                          count > 5000 and no map yet  →  make the map (empty)
//!                          map holds id                 →  no probe
//!                          otherwise                    →  probe the tries; map (if made) adds id
//! ```

/// dyld builds its weakDefMap once more than this many lookups were made (Loader.cpp: "5000 is
/// a guess that this is a large C++ app").
pub const WEAK_DEF_MAP_AFTER: usize = 5000;

/// The weakDefMap of one launch: made once more than [`WEAK_DEF_MAP_AFTER`] lookups were made,
/// then holding every name looked up (dyld adds what it found; a name no image on disk defines
/// is taken to be found in the shared cache: a lookup that finds nothing stops the launch).
#[derive(Debug, Default)]
pub struct WeakDefMap {
    lookups: usize,
    /// The map is made.
    made: bool,
    /// Once made: which name ids it holds.
    held: Vec<bool>,
    /// Ids it is made for (larger ids grow it).
    capacity: usize,
}

impl WeakDefMap {
    /// A map for names numbered below `names` (ids above grow it).
    pub fn for_names(names: usize) -> Self {
        WeakDefMap {
            capacity: names,
            ..WeakDefMap::default()
        }
    }

    /// One lookup of name `id` (a dense number per distinct name): `true` when it probes the
    /// tries, `false` when the map answers.
    #[inline(always)]
    pub fn probes(&mut self, id: usize) -> bool {
        self.lookups += 1;
        if !self.made {
            if self.lookups <= WEAK_DEF_MAP_AFTER {
                return true;
            }
            self.made = true;
            self.held = vec![false; self.capacity];
        }
        if self.held.len() <= id {
            self.held.resize(id + 1, false);
        }
        !std::mem::replace(&mut self.held[id], true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_is_made_after_5000_lookups_and_answers_names_it_holds() {
        let mut m = WeakDefMap::default();
        // 5000 lookups of one name: no map yet, each probes.
        assert!((0..WEAK_DEF_MAP_AFTER).all(|_| m.probes(7)));
        // The 5001st makes the map: it probes (the map is empty) and the name is added.
        assert!(m.probes(7));
        assert!(!m.probes(7));
        assert!(m.probes(8));
        assert!(!m.probes(8));
    }
}
