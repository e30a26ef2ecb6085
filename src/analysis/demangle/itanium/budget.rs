//! The bounds of one name's reading, all counted in work (bytes, nodes, steps), never in time:
//! the same bytes give the same decision on any machine and under any load.

/// Most bytes of a mangled name (without the Mach-O `_`) that is read; a longer one is
/// [`Reject::TooBig`] before any work.
pub const MAX_NAME_BYTES: usize = 256 << 10;

/// Deepest nesting of the parse (each `<type>`, `<name>`, `<expression>` … inside another is one
/// level) and of the printing of the parsed structure (substitutions and template parameters
/// followed): LLVM's printer recurses once per level, and so does this parser. Real names nest at
/// most 21 deep (Node.js 20–24, 74,773 names: `keys_of_the_name_engine_are_the_old_keys_on_every_name`).
pub const MAX_DEPTH: u32 = 512;

/// Steps one name may take: [`STEPS_PER_BYTE`] per mangled byte plus [`STEPS_BASE`]. A step is
/// one node built, one byte of a number or identifier consumed, or one node visited while the
/// printed length is bounded; every production consumes at least one byte and builds at most a
/// few nodes, so a well-formed name takes far fewer (Node.js: at most 2.1 per byte).
pub const STEPS_PER_BYTE: u64 = 32;
/// See [`STEPS_PER_BYTE`].
pub const STEPS_BASE: u64 = 512;

/// The step budget of a name of `len` bytes.
pub const fn name_steps(len: usize) -> u64 {
    (len as u64)
        .saturating_mul(STEPS_PER_BYTE)
        .saturating_add(STEPS_BASE)
}

/// Steps all names of one demangling may take together: names are admitted in their sorted
/// order while the sum of their budgets ([`name_steps`]) stays within this; the rest are shown
/// raw and counted ([`Reject::RunBudget`]). 2^33 steps admit about 256 MiB of distinct
/// mangled names (a 100 MiB dyld log of distinct names is well within it).
pub const RUN_STEPS: u64 = 1 << 33;

/// Why a name was not read: it is shown raw, keyed raw, and counted in `demangle_failures`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "reason", content = "printed_bytes")]
pub enum Reject {
    /// Not a well-formed Itanium C++ ABI mangled name (or a vendor extension LLVM's demangler
    /// does not read either).
    Malformed,
    /// A production LLVM's demangler reads that this reader leaves out: C++20 module names
    /// (`W`), requires-expressions (`rq`, `rQ`), Objective-C protocol qualifiers
    /// (`U9objcproto…`), pointer-to-member conversions (`mc`) and subobject expressions (`so`).
    /// No real name of the corpora holds one (docs/names.md).
    Unsupported,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Its printed form (an upper bound of what LLVM's printer writes) would be longer than the
    /// name's print bound: at least this many bytes.
    TooLong(u64),
    /// More than its step budget ([`name_steps`]).
    TooMuchWork,
    /// Longer than [`MAX_NAME_BYTES`], or holding a NUL byte.
    TooBig,
    /// The demangling's step budget ([`RUN_STEPS`]) was spent before this name.
    RunBudget,
}

impl Reject {
    /// A short phrase for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Reject::Malformed => "not a well-formed mangled name",
            Reject::Unsupported => "a vendor extension weakscan does not read",
            Reject::TooDeep => "nested too deep",
            Reject::TooLong(_) => "printed form too long",
            Reject::TooMuchWork => "too much work",
            Reject::TooBig => "name too long or holds a NUL byte",
            Reject::RunBudget => "the run's demangling budget was spent",
        }
    }
}

/// One name's remaining work.
#[derive(Debug, Clone, Copy)]
pub struct Steps {
    left: u64,
}

impl Steps {
    /// The budget of a name of `len` bytes.
    pub fn for_name(len: usize) -> Self {
        Steps {
            left: name_steps(len),
        }
    }

    /// A budget that never runs out (the debug check of the eager length bound against the
    /// walk).
    #[cfg(debug_assertions)]
    pub fn unbounded() -> Self {
        Steps { left: u64::MAX }
    }

    /// Steps not spent yet.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// Spends `n` steps. Errors: [`Reject::TooMuchWork`] when the budget is spent.
    #[inline]
    pub fn take(&mut self, n: u64) -> Result<(), Reject> {
        match self.left.checked_sub(n) {
            Some(l) => {
                self.left = l;
                Ok(())
            }
            None => Err(Reject::TooMuchWork),
        }
    }
}
