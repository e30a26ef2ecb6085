//! The pre-release gate: `weakscan check` and `weakscan baseline`.
//!
//! The data flows in one direction, one job per module:
//!
//! * [`pattern`] — a glob or `re:` regex over group keys and symbol names;
//! * [`policy`] — the policy file (`weakscan.toml`) and the command-line budgets, validated and
//!   merged into [`policy::Rules`] per arch;
//! * [`tally`] — per-symbol figures of an image or of a baseline image, and the allowlist;
//! * [`baseline`] — writing a baseline file and reading one back;
//! * [`budget`] — evaluating the rules into a [`budget::CheckReport`] of findings;
//! * [`command`] — the two subcommands: inputs, policy discovery, the job summary.
//!
//! The rendering of a check report lives in [`crate::output`] (table, JSON, Markdown, GitHub).
//! The policy format is documented in `docs/ci.md`.

pub mod baseline;
pub mod budget;
pub mod command;
pub mod pattern;
pub mod policy;
pub mod tally;

use crate::analysis::report::ImageSummary;
use serde::{Deserialize, Serialize};

/// A figure that budgets limit (the JSON field name of [`ImageSummary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// `predicted_weak_lookups`: predicted "looking for weak-def symbol" lines.
    PredictedWeakLookups,
    /// `weak_def_exports`: export-trie terminals flagged `WEAK_DEFINITION`.
    WeakDefExports,
    /// `weak_bind_symbols`: distinct weak-bound symbols.
    WeakBindSymbols,
}

impl Figure {
    /// Every gated figure, in report order.
    pub const ALL: [Figure; 3] = [
        Figure::PredictedWeakLookups,
        Figure::WeakDefExports,
        Figure::WeakBindSymbols,
    ];

    /// The JSON and policy-file name (`predicted_weak_lookups`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Figure::PredictedWeakLookups => "predicted_weak_lookups",
            Figure::WeakDefExports => "weak_def_exports",
            Figure::WeakBindSymbols => "weak_bind_symbols",
        }
    }

    /// The figure of `summary`, or `None` when the input cannot give it.
    ///
    /// This is the one place where the gate reads an [`ImageSummary`].
    pub fn of(self, summary: &ImageSummary) -> Option<usize> {
        match self {
            Figure::PredictedWeakLookups => summary.predicted_weak_lookups,
            Figure::WeakDefExports => summary.weak_def_exports,
            Figure::WeakBindSymbols => summary.weak_bind_symbols,
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What to do about leaked weak symbols; every failing report ends with these lines.
pub const FIX: [&str; 3] = [
    "compile with -fvisibility=hidden, including the static libraries linked in (V8, ICU, …)",
    "compile with -fvisibility-inlines-hidden, so inline functions and their local statics stay hidden",
    "or link with an exported-symbols list (-Wl,-exported_symbols_list,FILE) that names only the intended API",
];

/// How to accept an intended change (printed with [`FIX`] when a baseline budget fails).
pub const ACCEPT: &str = "if the change is intended, regenerate the baseline (weakscan baseline FILE -o BASELINE) and commit it with the change";
