//! The allowlist: symbols and groups that may be weak count toward no budget.

use super::pattern::Pattern;
use crate::analysis::attribute::Origin;
use crate::analysis::demangle::SymbolName;
use crate::analysis::group::GroupBy;
use crate::model::TREAT_AS_WEAK;

/// The symbols and groups that may be weak: allowed symbols count toward no budget.
#[derive(Debug, Clone, Copy)]
pub struct Allowlist<'a> {
    /// The 22 names of [`TREAT_AS_WEAK`] (operator new/delete) are allowed.
    pub operator_new_delete: bool,
    /// Patterns over the raw or the demangled name.
    pub symbols: &'a [Pattern],
    /// Patterns over the group key under `group_by`.
    pub groups: &'a [Pattern],
    /// The grouping of `groups`.
    pub group_by: GroupBy,
}

impl Allowlist<'_> {
    /// `raw` (demangled as `name`, compiled in `origin`) may be weak.
    pub fn allows(&self, raw: &str, name: &SymbolName, origin: &Origin) -> bool {
        (self.operator_new_delete && TREAT_AS_WEAK.contains(&raw))
            || (!self.symbols.is_empty() && {
                let printed = name.demangled(raw);
                self.symbols
                    .iter()
                    .any(|p| p.is_match(raw) || p.is_match(&printed))
            })
            || (!self.groups.is_empty() && {
                let key = self.group_by.key(raw, name, origin);
                self.groups.iter().any(|p| p.is_match(&key))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::check::Figure;
    use crate::analysis::demangle::demangle_one;
    use crate::analysis::tally::tally;
    use crate::model::{
        BindTarget, FixupFormat, Image, Lookup, LookupReason, Site, Source, WeakDefinition,
    };

    #[test]
    fn tally_sums_per_name() {
        let site = Site {
            address: 0,
            segment_index: Some(0),
        };
        let image = Image {
            path: "x".into(),
            name: "x".into(),
            arch: Some("x86_64".into()),
            filetype: Some(2),
            flags: Some(0),
            fixup_format: Some(FixupFormat::Opcodes),
            weak_definitions: vec![WeakDefinition {
                name: "__ZN2v81AE".into(),
                thread_local: false,
                address: None,
            }],
            other_exports: Default::default(),
            bind_targets: vec![
                BindTarget {
                    symbol: "__ZN2v81AE".into(),
                    addend: 0,
                    sites: vec![site.clone(), site.clone()],
                    defined_here: true,
                    supplier: None,
                },
                BindTarget {
                    symbol: "__ZN2v81AE".into(),
                    addend: 8,
                    sites: vec![site],
                    defined_here: true,
                    supplier: None,
                },
            ],
            strong_overrides: vec![],
            lookups: vec![
                Lookup {
                    symbol: "__ZN2v81AE".into(),
                    reason: LookupReason::BindTarget,
                    supplier: None,
                },
                Lookup {
                    symbol: "__ZN2v81AE".into(),
                    reason: LookupReason::BindTarget,
                    supplier: None,
                },
                Lookup {
                    symbol: "__Znwm".into(),
                    reason: LookupReason::StrongOverrideCheck,
                    supplier: None,
                },
            ],
            source: Source::Binary,
            attribution: None,
            uuid: None,
            linkage: None,
        };
        let t = tally(&image);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].raw, "__ZN2v81AE");
        assert_eq!((t[0].sites, t[0].lookups, t[0].weak_defs), (3, 2, 1));
        assert!(t[0].weak_bound && t[0].defined_here);
        assert_eq!(t[1].contribution(Figure::PredictedWeakLookups), 1);
        assert_eq!(t[1].contribution(Figure::WeakBindSymbols), 0);
    }

    #[test]
    fn allowlist_by_name_group_and_default() {
        let groups = [Pattern::parse("std::*").unwrap()];
        let symbols = [Pattern::parse("node::Realm::*").unwrap()];
        let allow = Allowlist {
            operator_new_delete: true,
            symbols: &symbols,
            groups: &groups,
            group_by: GroupBy::Namespace(1),
        };
        let check = |raw: &str| allow.allows(raw, &demangle_one(raw), &Origin::Unattributed);
        assert!(check("__Znwm"));
        assert!(check("__ZN4node5Realm3getEv"));
        assert!(!check("__ZN4node5Other3getEv"));
        let none = Allowlist {
            operator_new_delete: false,
            ..allow
        };
        assert!(!none.allows("__Znwm", &demangle_one("__Znwm"), &Origin::Unattributed));
    }
}
