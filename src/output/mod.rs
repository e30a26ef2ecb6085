//! Output: the formats, each rendering the reports of [`crate::analysis`] into a
//! [`std::io::Write`] (never one big string), every report through one trait ([`Render`], with
//! the run's [`RenderOptions`]), and [`sink`], where that writer goes. Nothing here
//! imports [`crate::gate`].

pub mod baseline;
pub mod bisect;
pub mod comment;
pub mod flags;
pub mod github;
pub mod hide;
pub mod html;
pub mod importers;
pub mod json;
pub mod markdown;
pub mod paint;
pub mod process;
pub mod process_diff;
pub mod process_plan;
pub mod process_verify;
pub mod render;
pub mod schemas;
pub mod sink;
pub mod story;
pub mod table;
pub mod trend;

pub use crate::text::clip_middle;
pub use render::{Format, Render, RenderOptions};

/// Shown for a figure the input cannot give.
pub(crate) const NOT_AVAILABLE: &str = "n/a";

/// A figure, or [`NOT_AVAILABLE`] when the input cannot give it.
pub(crate) fn fig(v: Option<usize>) -> String {
    v.map_or_else(|| NOT_AVAILABLE.to_string(), |n| n.to_string())
}

/// A signed change (`+60`, `-3`), or [`NOT_AVAILABLE`].
pub(crate) fn signed(d: Option<i64>) -> String {
    d.map_or_else(|| NOT_AVAILABLE.to_string(), |d| format!("{d:+}"))
}

/// A signed change with its noun (`+60 lookups`, `-1 lookup`), or `n/a lookups`.
pub(crate) fn signed_count(d: Option<i64>, one: &str, many: &str) -> String {
    match d {
        Some(d) if d.unsigned_abs() == 1 => format!("{d:+} {one}"),
        Some(d) => format!("{d:+} {many}"),
        None => format!("{NOT_AVAILABLE} {many}"),
    }
}

/// The change from `old` to `new` with its percentage (`+60 (+72.3%)`, `+5 (new)`, `0`), or
/// [`NOT_AVAILABLE`].
pub(crate) fn change(old: Option<usize>, new: Option<usize>) -> String {
    let (Some(o), Some(n)) = (old, new) else {
        return NOT_AVAILABLE.into();
    };
    let d = n as i64 - o as i64;
    match crate::analysis::diff::percent_change(old, new) {
        Some(p) => format!("{d:+} ({p:+.1}%)"),
        None if d == 0 => "0".into(),
        None => format!("{d:+} (new)"),
    }
}

/// The one wording of the note on names shown raw because they could not be demangled
/// (`failures` of them, more than 0), with their reasons in short when known:
/// `3 symbol names could not be demangled and are shown raw (2 malformed, 1 too long)`.
pub fn demangle_note(
    failures: usize,
    reasons: &crate::analysis::demangle::FailureReasons,
) -> String {
    let note = match failures {
        1 => "1 symbol name could not be demangled and is shown raw".to_string(),
        n => format!("{n} symbol names could not be demangled and are shown raw"),
    };
    if reasons.is_empty() {
        note
    } else {
        format!("{note} ({})", reasons.short())
    }
}
