//! What kind of entity a symbol names — a function, a variable, a function-local static, a
//! guard variable — which decides what a visibility flag would hide.
//!
//! Read from the raw name's Itanium prefix (ABI 5.1.2 `<mangled-name>`, 5.1.4.1
//! `<special-name>`, 5.1.5.10 `<local-name>`) and the pattern the name engine's keys give
//! (a function's pattern ends in its elided parameter list, `(…)`, before any cv- or
//! ref-qualifier), so it is the same in every build, whatever prints the names:
//!
//! | raw name | entity |
//! |---|---|
//! | `_ZGV…` (guard variable for …) | [`Entity::GuardVariable`] |
//! | `_ZT…` that is not a function (vtable, VTT, typeinfo, typeinfo name, TLS init/wrapper) | [`Entity::Other`] |
//! | `_Z…` whose pattern ends in `(…)` (also lambdas' call operators, local functions, thunks) | [`Entity::Function`] |
//! | `_ZZ…` otherwise (a function-local static) | [`Entity::LocalStatic`] |
//! | `_Z…` otherwise (a variable or static data member) | [`Entity::Data`] |
//! | anything else (C names, names that could not be read) | [`Entity::Other`] |
//!
//! What `-fvisibility-inlines-hidden` does to each is [`super::InlinesHidden`]'s question: on
//! Darwin it hides the function-local statics and guard variables of the inline functions it
//! hides too, not functions only.

use serde::Serialize;

/// What a symbol names (see the module docs).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Entity {
    /// A function, member function, lambda call operator or thunk.
    Function,
    /// A variable or static data member at namespace or class scope.
    Data,
    /// A function-local static (`_ZZ…E5cache`).
    LocalStatic,
    /// The guard variable of a static initialised once (`_ZGV…`).
    GuardVariable,
    /// Vtables, VTTs, typeinfo, TLS init and wrapper functions, C names, unreadable names.
    Other,
}

impl Entity {
    /// The entity `raw` (a Mach-O symbol name, with its leading `_`) names, given the pattern
    /// the name engine gave it (`None` when it gave none).
    pub fn of(raw: &str, pattern: Option<&str>) -> Entity {
        let plain = raw.strip_prefix('_').unwrap_or(raw);
        let Some(pattern) = pattern.filter(|_| plain.starts_with("_Z")) else {
            return Entity::Other;
        };
        if plain.starts_with("_ZGV") {
            Entity::GuardVariable
        } else if is_function(pattern) {
            Entity::Function
        } else if plain.starts_with("_ZT") {
            Entity::Other
        } else if plain.starts_with("_ZZ") {
            Entity::LocalStatic
        } else {
            Entity::Data
        }
    }
}

/// The pattern is a function's: it ends in its parameter list, then cv- and ref-qualifiers.
fn is_function(pattern: &str) -> bool {
    let mut p = pattern.trim_end();
    loop {
        let before = p;
        for q in [" const", " volatile", " restrict", " &&", " &", " noexcept"] {
            if let Some(rest) = p.strip_suffix(q) {
                p = rest.trim_end();
            }
        }
        if p == before {
            break;
        }
    }
    p.ends_with("(…)") || p.ends_with("()")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_from_its_prefix_and_pattern() {
        let f = |raw, p| Entity::of(raw, Some(p));
        assert_eq!(f("__ZN1A3fooEv", "A::foo(…)"), Entity::Function);
        assert_eq!(f("__ZNK1A3fooEv", "A::foo(…) const"), Entity::Function);
        assert_eq!(f("__ZNKR1A3fooEv", "A::foo(…) const &"), Entity::Function);
        assert_eq!(f("__ZN1AIiE1xE", "A<…>::x"), Entity::Data);
        assert_eq!(
            f("__ZZN1A3fooEvE5cache", "A::foo(…)::cache"),
            Entity::LocalStatic
        );
        assert_eq!(
            f(
                "__ZZN1A3fooEvENKUlvE_clEv",
                "A::foo(…)::'lambda'(…)::operator()(…) const"
            ),
            Entity::Function
        );
        assert_eq!(
            f(
                "__ZGVZN1A3fooEvE5cache",
                "guard variable for A::foo(…)::cache"
            ),
            Entity::GuardVariable
        );
        assert_eq!(f("__ZTV1AIiE", "vtable for A<…>"), Entity::Other);
        assert_eq!(f("__ZTS1AIiE", "typeinfo name for A<…>"), Entity::Other);
        assert_eq!(
            f("__ZThn8_N1A3fooEv", "non-virtual thunk to A::foo(…)"),
            Entity::Function
        );
        assert_eq!(Entity::of("_malloc", Some("malloc")), Entity::Other);
        assert_eq!(Entity::of("__ZN1A3fooEv", None), Entity::Other);
    }
}
