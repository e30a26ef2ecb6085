//! The pre-release gate: `weakscan check` and `weakscan baseline`.
//!
//! The data flows in one direction, one job per module:
//!
//! * [`pattern`] — a glob or `re:` regex over group keys and symbol names;
//! * [`policy`] — the policy file (`weakscan.toml`) and the command-line budgets, validated and
//!   merged into [`policy::RuleSet`] per arch;
//! * [`allow`] — the allowlist that takes symbols out of the count;
//! * [`baseline`] — reading a baseline file back (writing one is [`crate::output::baseline`]);
//! * [`budget`] — evaluating the rules into a [`crate::analysis::check::CheckReport`] of
//!   findings.
//!
//! The subcommands are [`crate::command::check`] and [`crate::command::baseline`]; the check
//! report's model is [`crate::analysis::check`] and its rendering lives in [`crate::output`]
//! (table, JSON, Markdown, GitHub), which does not import the gate.
//! The policy format is documented in `docs/ci.md`.

pub mod allow;
pub mod baseline;
pub mod budget;
pub mod pattern;
pub mod policy;

pub use crate::analysis::check::{ACCEPT, FIX, Figure};
