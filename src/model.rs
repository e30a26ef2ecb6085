//! The one model every input becomes: per image (slice), its weak definitions, its weak-bind
//! targets with their fixup sites, and the weak-def lookups dyld is predicted to make.
//!
//! How each figure is derived, with the dyld functions it follows, is in `docs/figures.md`.

use serde::Serialize;

/// `MH_EXECUTE`.
pub const MH_EXECUTE: u32 = 0x2;
/// `MH_DYLIB`.
pub const MH_DYLIB: u32 = 0x6;
/// `MH_BUNDLE`.
pub const MH_BUNDLE: u32 = 0x8;
/// `MH_WEAK_DEFINES`: the image exports weak definitions.
pub const MH_WEAK_DEFINES: u32 = 0x8000;
/// `MH_BINDS_TO_WEAK`: the image binds to weak symbols.
pub const MH_BINDS_TO_WEAK: u32 = 0x10000;

/// dyld's `sTreatAsWeak` (dyld-1231.3 `common/MachOFile.cpp`): operator new/delete names that a
/// main executable with `MH_WEAK_DEFINES` may define strongly to override the libc++ ones.
/// 20 names up to dyld-1066; dyld-1122 (macOS 14) added the two `__type_descriptor_t` ones.
pub const TREAT_AS_WEAK: [&str; 22] = [
    "__Znwm",
    "__ZnwmRKSt9nothrow_t",
    "__Znam",
    "__ZnamRKSt9nothrow_t",
    "__ZdlPv",
    "__ZdlPvRKSt9nothrow_t",
    "__ZdlPvm",
    "__ZdaPv",
    "__ZdaPvRKSt9nothrow_t",
    "__ZdaPvm",
    "__ZnwmSt11align_val_t",
    "__ZnwmSt11align_val_tRKSt9nothrow_t",
    "__ZnamSt11align_val_t",
    "__ZnamSt11align_val_tRKSt9nothrow_t",
    "__ZdlPvSt11align_val_t",
    "__ZdlPvSt11align_val_tRKSt9nothrow_t",
    "__ZdlPvmSt11align_val_t",
    "__ZdaPvSt11align_val_t",
    "__ZdaPvSt11align_val_tRKSt9nothrow_t",
    "__ZdaPvmSt11align_val_t",
    "__ZnwmSt19__type_descriptor_t",
    "__ZnamSt19__type_descriptor_t",
];

/// Where an image's binds are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FixupFormat {
    /// `LC_DYLD_INFO(_ONLY)` bind opcode streams.
    Opcodes,
    /// `LC_DYLD_CHAINED_FIXUPS`.
    Chained,
    /// Neither (e.g. a static or object-like image).
    None,
}

impl FixupFormat {
    /// `opcodes`, `chained` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            FixupFormat::Opcodes => "opcodes",
            FixupFormat::Chained => "chained",
            FixupFormat::None => "none",
        }
    }
}

/// A weak definition exported by the image (export-trie flag `WEAK_DEFINITION`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeakDefinition {
    /// Raw symbol name (`__ZN…`).
    pub name: String,
    /// Kind is `THREAD_LOCAL` (llvm-objdump prints `[weak_def, per-thread]`).
    pub thread_local: bool,
}

/// One fixup site: a location that dyld writes the bound address into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Unslid vm address of the location.
    pub address: u64,
    /// Index of the segment holding it.
    pub segment_index: u32,
}

/// A weak-bind target: one symbol (+ addend) that dyld resolves with a weak-def lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindTarget {
    /// Raw symbol name.
    pub symbol: String,
    /// Addend.
    pub addend: i64,
    /// The locations bound to it (may be empty for a chained import no chain uses).
    pub sites: Vec<Site>,
    /// The same image exports a weak definition of `symbol`: a leaked instantiation that the
    /// image binds to itself through dyld (the expensive case). Otherwise it is defined
    /// elsewhere (e.g. operator new in libc++).
    pub defined_here: bool,
}

/// Why dyld makes a weak-def lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LookupReason {
    /// A weak-bind target of the image (opcode target or chained import with ordinal -3).
    BindTarget,
    /// `forEachBindTarget_ChainedFixups` appends the treat-as-weak names as extra targets for a
    /// chained main executable with `MH_WEAK_DEFINES`.
    TreatAsWeakTarget,
    /// `JustInTimeLoader::handleStrongWeakDefOverrides` resolves each treat-as-weak name once
    /// for a main executable with `MH_WEAK_DEFINES`.
    StrongOverrideCheck,
}

/// One predicted "looking for weak-def symbol" line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// Raw symbol name looked up.
    pub symbol: String,
    /// Why.
    pub reason: LookupReason,
}

/// One image (a thin file, or one slice of a universal file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// The file it was read from.
    pub path: String,
    /// `x86_64`, `arm64`, `arm64e`, …
    pub arch: String,
    /// Mach header `filetype`.
    pub filetype: u32,
    /// Mach header `flags`.
    pub flags: u32,
    /// Where binds are encoded.
    pub fixup_format: FixupFormat,
    /// Weak definitions in the export trie, in trie order.
    pub weak_definitions: Vec<WeakDefinition>,
    /// Weak-bind targets, in dyld's target order.
    pub bind_targets: Vec<BindTarget>,
    /// Names the opcode weak-bind stream announces as strong overrides (no lookup).
    pub strong_overrides: Vec<String>,
    /// Every predicted weak-def lookup when this image is the main executable (see
    /// `docs/figures.md`).
    pub lookups: Vec<Lookup>,
}

impl Image {
    /// Export-trie terminals with `WEAK_DEFINITION` (thread-local ones included).
    pub fn weak_def_exports(&self) -> usize {
        self.weak_definitions.len()
    }

    /// Locations bound by weak binds.
    pub fn weak_bind_sites(&self) -> usize {
        self.bind_targets.iter().map(|t| t.sites.len()).sum()
    }

    /// Distinct symbol names among the weak-bind targets.
    pub fn weak_bind_symbols(&self) -> usize {
        let mut names: Vec<&str> = self
            .bind_targets
            .iter()
            .map(|t| t.symbol.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    }

    /// The "looking for weak-def symbol" lines dyld4 (macOS 15) prints when this image is the
    /// main executable.
    pub fn predicted_weak_lookups(&self) -> usize {
        self.lookups.len()
    }

    /// Distinct weak-bound symbols that this image also exports as weak definitions.
    pub fn defined_here_symbols(&self) -> usize {
        let mut names: Vec<&str> = self
            .bind_targets
            .iter()
            .filter(|t| t.defined_here)
            .map(|t| t.symbol.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    }

    /// `MH_EXECUTE`.
    pub fn is_main_executable(&self) -> bool {
        self.filetype == MH_EXECUTE
    }

    /// `MH_EXECUTE`, `MH_DYLIB`, `MH_BUNDLE` or `filetype 0x…`.
    pub fn filetype_name(&self) -> String {
        match self.filetype {
            MH_EXECUTE => "MH_EXECUTE".into(),
            MH_DYLIB => "MH_DYLIB".into(),
            MH_BUNDLE => "MH_BUNDLE".into(),
            other => goblin::mach::header::filetype_to_str(other).to_string(),
        }
    }

    /// Names of the set header flags, lowest bit first (`MH_NOUNDEFS`, `MH_DYLDLINK`, …).
    pub fn flag_names(&self) -> Vec<String> {
        (0..32)
            .map(|bit| 1u32 << bit)
            .filter(|f| self.flags & f != 0)
            .map(|f| match goblin::mach::header::flag_to_str(f) {
                "UNKNOWN FLAG" => format!("{f:#x}"),
                name => name.trim().to_string(),
            })
            .collect()
    }
}

/// Builds the predicted lookups of an image from its bind targets, following dyld-1231.3:
/// one per bind target; for a main executable with `MH_WEAK_DEFINES`, the 22 treat-as-weak
/// names once more (`handleStrongWeakDefOverrides`), and for chained fixups once more again
/// (`forEachBindTarget_ChainedFixups`).
pub fn predict_lookups(
    filetype: u32,
    flags: u32,
    fixup_format: FixupFormat,
    bind_targets: &[BindTarget],
) -> Vec<Lookup> {
    let mut lookups: Vec<Lookup> = bind_targets
        .iter()
        .map(|t| Lookup {
            symbol: t.symbol.clone(),
            reason: LookupReason::BindTarget,
        })
        .collect();
    if filetype == MH_EXECUTE && flags & MH_WEAK_DEFINES != 0 {
        let mut extra = |reason| {
            lookups.extend(TREAT_AS_WEAK.iter().map(|s| Lookup {
                symbol: s.to_string(),
                reason,
            }))
        };
        if fixup_format == FixupFormat::Chained {
            extra(LookupReason::TreatAsWeakTarget);
        }
        extra(LookupReason::StrongOverrideCheck);
    }
    lookups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(name: &str) -> BindTarget {
        BindTarget {
            symbol: name.into(),
            addend: 0,
            sites: vec![],
            defined_here: false,
        }
    }

    #[test]
    fn lookups_follow_dyld_rules() {
        let t = [target("_a"), target("_b")];
        let exe_weak = MH_WEAK_DEFINES;
        assert_eq!(
            predict_lookups(MH_EXECUTE, exe_weak, FixupFormat::Opcodes, &t).len(),
            2 + 22
        );
        assert_eq!(
            predict_lookups(MH_EXECUTE, exe_weak, FixupFormat::Chained, &t).len(),
            2 + 44
        );
        assert_eq!(
            predict_lookups(MH_EXECUTE, 0, FixupFormat::Chained, &t).len(),
            2
        );
        assert_eq!(
            predict_lookups(MH_DYLIB, exe_weak, FixupFormat::Chained, &t).len(),
            2
        );
    }
}
