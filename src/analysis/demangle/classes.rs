//! The class rule: a scope that some name shows to be a class (its constructor, destructor,
//! vtable, VTT or typeinfo) is no namespace, so namespace keys stop before it.

use super::{Keys, NameKind, SymbolName};
use foldhash::HashSet;

/// The scope that `n` shows to be a class, if any: `X` for `vtable for X`, `VTT for X`,
/// `typeinfo for X`, `typeinfo name for X`, and for a constructor or destructor `X::Y(…)` or
/// `X::~Y(…)` whose `Y` is `X`'s last component (template arguments aside). A name cut to its
/// template keys ([`Keys::Template`]) shows what is left of it.
pub(super) fn proven_class(n: &SymbolName) -> Option<&str> {
    if n.kind == NameKind::C || n.keys == Keys::None {
        return None;
    }
    proven_class_in(n.pattern(), n.name_start)
}

/// [`proven_class`] of a C++ name whose pattern is `pattern`, its name proper from `name_start`.
pub(super) fn proven_class_in(pattern: &str, name_start: u32) -> Option<&str> {
    let (prefix, proper) = pattern.split_at_checked(name_start as usize)?;
    match prefix {
        "vtable for " | "VTT for " | "typeinfo for " | "typeinfo name for " => return Some(proper),
        "" => {}
        _ => return None,
    }
    // Byte searches (memchr) for these short needles: `str::find("(…)")` and
    // `rsplit_once("::")` set up a two-way searcher per call, and every name passes here.
    let open =
        memchr::memchr_iter(b'(', proper.as_bytes()).find(|&i| proper[i..].starts_with("(…)"))?;
    let (scope, last) = rsplit_scope(&proper[..open])?;
    let prev = rsplit_scope(scope).map_or(scope, |(_, p)| p);
    let prev = prev.strip_suffix("<…>").unwrap_or(prev);
    let last = last.strip_prefix('~').unwrap_or(last);
    (!last.is_empty() && last == prev).then_some(scope)
}

/// `s.rsplit_once("::")`: around the last `::`.
pub(super) fn rsplit_scope(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let mut end = b.len();
    while let Some(i) = memchr::memrchr(b':', &b[..end]) {
        if i > 0 && b[i - 1] == b':' {
            return Some((&s[..i - 1], &s[i + 1..]));
        }
        end = i;
    }
    None
}

/// Cuts each name's namespace components before the first one that `classes` holds (a class is
/// not a namespace, `--by namespace`).
pub(super) fn apply_classes(names: &mut [(&str, SymbolName)], classes: &HashSet<Box<str>>) {
    if classes.is_empty() {
        return;
    }
    for (_, n) in names.iter_mut() {
        let start = n.name_start as usize;
        let cut = n.namespace_ends.iter().position(|&end| {
            n.pattern()
                .get(start..end as usize)
                .is_some_and(|scope| classes.contains(scope))
        });
        if let Some(i) = cut {
            n.namespace_ends = n.namespace_ends[..i].into();
        }
    }
}
