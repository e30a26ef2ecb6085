//! What `-fvisibility-inlines-hidden` does to one exported weak definition when its object is
//! rebuilt with it for a Darwin target, read from the mangled name: hidden for sure, hidden at
//! most (the name cannot tell), or kept.
//!
//! The rules are clang's (clang/lib/AST/Decl.cpp; docs/fix-plan.md has them in full):
//!
//! * `useInlineVisibilityHidden` hides a **function** whose definition is inline (`inline`,
//!   defined in its class, `constexpr`, a lambda's call operator, a local class's members),
//!   unless it is an explicit instantiation (declaration or definition). Variables are never
//!   hidden by it themselves.
//! * On every Darwin target the driver adds `-fvisibility-inlines-hidden-static-local-var`
//!   (clang/lib/Driver/ToolChains/Darwin.cpp `Darwin::addClangTargetOptions`), so
//!   `getLVForLocalDecl` gives a function-local static exactly the visibility of its
//!   **outermost** enclosing function; its guard variable follows it (`EmitGuardedInit`), and so
//!   does the typeinfo of a local class.
//! * A template specialization with a hidden template argument (a lambda or local class of a
//!   hidden function) is hidden too (`mergeTemplateLV`); the name shows such an argument only
//!   as a local name (`Z…E`) among its arguments.
//!
//! From the name alone:
//!
//! | raw name | fate |
//! |---|---|
//! | a function that is not a template specialization nor a member of one | [`InlinesHidden::Hidden`]: a weak definition of it can only be inline |
//! | a lambda's call operator or a local class's member (`_ZZ…` function) | [`InlinesHidden::Hidden`]: always inline |
//! | a function template specialization or a member of a class template's | [`InlinesHidden::AtMost`]: inline or not, explicitly instantiated or not, is not in the name |
//! | a local static, its guard variable, a local class's typeinfo (`_ZZ`, `_ZGVZ`, `_ZT?Z`) | the fate of its outermost function: `Hidden` when that is not a template specialization, else `AtMost` |
//! | any other variable, guard variable, vtable, typeinfo: no local name among its template arguments | [`InlinesHidden::Stays`] |
//! | the same with a local name (`Z`) anywhere in it | [`InlinesHidden::AtMost`] |
//! | a C name | [`InlinesHidden::Stays`] |
//! | a `_Z` name that could not be read | [`InlinesHidden::AtMost`] |
//!
//! `Hidden` is exact unless the source gives the function (or its namespace)
//! `__attribute__((visibility("default")))` or `#pragma GCC visibility push(default)`, which the
//! name does not show, or defines a non-inline function `__attribute__((weak))`.

use super::Entity;
use serde::Serialize;

/// What `-fvisibility-inlines-hidden` (Darwin) does to an exported weak definition.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum InlinesHidden {
    /// Hidden: counted in both bounds of the plan.
    Hidden,
    /// Hidden or not, the name cannot tell: counted in the upper bound only.
    AtMost,
    /// Stays exported.
    Stays,
}

impl InlinesHidden {
    /// What the flag does to the symbol `raw` (with its Mach-O `_`), of entity `entity`, whose
    /// pattern (the name engine's keys, see [`super`]) is `pattern` (`None`: not read).
    pub fn of(raw: &str, entity: Entity, pattern: Option<&str>) -> InlinesHidden {
        let plain = raw.strip_prefix('_').unwrap_or(raw);
        let Some(rest) = plain.strip_prefix("_Z") else {
            return InlinesHidden::Stays;
        };
        let Some(pattern) = pattern else {
            return InlinesHidden::AtMost;
        };
        let local = rest.starts_with('Z')
            || rest.starts_with("GVZ")
            || (rest.starts_with('T') && rest[1..].get(1..2) == Some("Z"));
        let outer = || {
            if outermost_function_is_template(pattern) {
                InlinesHidden::AtMost
            } else {
                InlinesHidden::Hidden
            }
        };
        match entity {
            // A lambda's call operator or a local class's member: inline.
            Entity::Function if rest.starts_with('Z') => InlinesHidden::Hidden,
            Entity::Function => outer(),
            _ if local => outer(),
            _ if rest.contains('Z') => InlinesHidden::AtMost,
            _ => InlinesHidden::Stays,
        }
    }

    /// Counted in the upper bound ([`Self::Hidden`] or [`Self::AtMost`]).
    pub fn at_most(self) -> bool {
        self != InlinesHidden::Stays
    }

    /// Counted in the lower bound ([`Self::Hidden`]).
    pub fn surely(self) -> bool {
        self == InlinesHidden::Hidden
    }
}

/// The outermost function of `pattern` (its text before the first parameter list, `(…)` or
/// `()`) is a template specialization or a member of one: it has template arguments (`<`, an
/// upper bound: `operator<` counts too).
fn outermost_function_is_template(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    // The first `(` that opens `(…)` or `()`: one pass, no substring searcher built per name.
    let end = memchr::memchr_iter(b'(', b)
        .find(|&i| {
            let rest = &b[i + 1..];
            rest.starts_with(b")") || rest.starts_with("…)".as_bytes())
        })
        .unwrap_or(b.len());
    memchr::memchr(b'<', &b[..end]).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass search is the two substring searches it replaced.
    #[test]
    fn outermost_function_is_the_text_before_the_first_parameter_list() {
        let old = |pattern: &str| {
            let end = [pattern.find("(…)"), pattern.find("()")]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(pattern.len());
            pattern[..end].contains('<')
        };
        for p in [
            "",
            "f",
            "f<…>(…)",
            "f(…)::g<…>()",
            "a::b(int)<…>(…)",
            "operator<(…)",
            "f(…",
            "f(",
            "((…)<",
            "g<…>",
            "f()<…>",
            "x(y)(…)<",
        ] {
            assert_eq!(outermost_function_is_template(p), old(p), "{p:?}");
        }
    }
    use crate::analysis::demangle::demangle_one;

    fn fate(raw: &str) -> InlinesHidden {
        let n = demangle_one(raw);
        n.inlines_hidden()
    }

    // Each row of the research's table (arm64-apple-macos14, clang 22): the name, and what
    // `-fvisibility-inlines-hidden` did to it in a real build.
    #[test]
    fn each_kind_of_name_as_clang_hides_it_on_darwin() {
        use InlinesHidden::*;
        for (raw, want) in [
            ("__Z5A_inlv", Hidden),
            ("__ZZ5A_inlvE1s", Hidden),
            ("__ZGVZ5A_inlvE1s", Hidden),
            ("__ZN5C_Cls7inclassEv", Hidden),
            ("__ZZN5C_Cls7inclassEvE1s", Hidden),
            ("__ZZ9outer_inlvENKUlvE_clEv", Hidden),
            ("__ZZ13A_local_classvEN3Loc1fEv", Hidden),
            ("__ZZZ9outer_inlvENKUlvE_clEvE1q", Hidden),
            // Lambda operator() of a template: inline, hidden; its static follows the template.
            ("__ZZ10outer_tmplIiEiT_ENKUlvE_clEv", Hidden),
            ("__ZZZ10outer_tmplIiEiT_ENKUlvE_clEvE1q", AtMost),
            ("__Z6B_tmplIiEiT_", AtMost),
            ("__ZZ6B_tmplIiEiT_E1s", AtMost),
            ("__ZN4D_CTIiE7inclassEv", AtMost),
            ("__Z3runIZ9outer_inlvEUlvE_EiT_", AtMost),
            ("__ZN4D_CTIiE3sdmE", Stays),
            ("__ZGVN4D_CTIiE3sdmE", Stays),
            ("__ZTV4D_CTIlE", Stays),
            ("__ZN3BoxIZ9outer_inlvEUlvE_E3sdmE", AtMost),
            ("__ZTIZ11A_lambda_tivEUlvE_", Hidden),
            ("_G_inlvar", Stays),
            ("_main", Stays),
        ] {
            assert_eq!(fate(raw), want, "{raw}");
        }
    }

    #[test]
    fn local_statics_and_lambdas_are_told_apart_by_their_structure() {
        use crate::analysis::demangle::Entity;
        for (raw, want) in [
            ("__ZZ9outer_inlvENKUlvE_clEv", Entity::Function),
            ("__ZZ13A_local_classvEN3Loc1fEv", Entity::Function),
            ("__ZZZ9outer_inlvENKUlvE_clEvE1q", Entity::LocalStatic),
            ("__ZZ5A_inlvE1s", Entity::LocalStatic),
        ] {
            assert_eq!(demangle_one(raw).entity(), want, "{raw}");
        }
    }
}
