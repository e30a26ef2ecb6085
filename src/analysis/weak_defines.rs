//! When an image loses `MH_WEAK_DEFINES`, and which of its weak-def lookups go with it: the
//! rule the fix plans (one image, [`super::fix_plan`]; a process, [`super::process_fix_plan`])
//! share.
//!
//! ld64 sets `MH_WEAK_DEFINES` only when `_state.hasWeakExternalSymbols ||
//! _writer.overridesWeakExternalSymbols` (ld64-956.6 HeaderAndLoadCommands.hpp `flags()`); lld
//! when `in.exports->hasWeakSymbol || in.weakBinding->hasNonWeakDefinition()` (lld/MachO
//! Writer.cpp). So an image left with no exported weak definition loses the flag, unless one of
//! its non-weak definitions overrides a weak one: it exports operator new or delete (dyld's
//! treat-as-weak names) non-weak, or its weak-bind stream announces a strong definition. dyld
//! (dyld-1231.3) then no longer searches its trie, and a main executable no longer makes the
//! lookups the flag brings: the 22 treat-as-weak targets a chained image appends
//! (`forEachBindTarget_ChainedFixups`) and the 22 checks of `handleStrongWeakDefOverrides`
//! (docs/dyld-weak-binding.md).

use crate::model::{Image, LookupReason, TREAT_AS_WEAK};

/// The image exports a treat-as-weak name (operator new or delete) non-weak: it overrides
/// libc++'s weak definitions, which keeps its `MH_WEAK_DEFINES`.
pub fn exports_treat_as_weak(image: &Image) -> bool {
    let e = &image.other_exports;
    (0..e.len()).any(|k| {
        TREAT_AS_WEAK
            .iter()
            .any(|t| t.as_bytes() == e.name_bytes(k))
    })
}

/// The image shows, by itself, a non-weak definition that overrides a weak one
/// ([`exports_treat_as_weak`], or a strong definition in its weak-bind stream): it keeps
/// `MH_WEAK_DEFINES` without weak definitions. (In a process, a non-weak definition that
/// replaces another image's weak one counts too: [`super::coalesce`].)
pub fn overrides_weak_definitions(image: &Image) -> bool {
    !image.strong_overrides.is_empty() || exports_treat_as_weak(image)
}

/// A lookup made for `reason` by the image a change rebuilds goes: `hidden`, it binds a
/// definition the change hides (it becomes a direct bind); `leaves`, the image is left without
/// `MH_WEAK_DEFINES` (its treat-as-weak targets go); `checks_go`, the treat-as-weak checks of
/// `handleStrongWeakDefOverrides` go (nobody else requests them).
pub fn lookup_goes(reason: LookupReason, hidden: bool, leaves: bool, checks_go: bool) -> bool {
    match reason {
        LookupReason::BindTarget => hidden,
        LookupReason::TreatAsWeakTarget => leaves,
        LookupReason::StrongOverrideCheck => checks_go,
    }
}
