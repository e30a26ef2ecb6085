//! Human-readable output (`--format table`): per report its story lines, summary tables and
//! group tables, drawn by comfy-table.
//!
//! Without a width (piped output, golden files) tables are drawn at full width. With one
//! (`--width`, or the terminal's) every line fits it: tables through [`grid`] (columns shared
//! out by [`fit`], cells wrapped at the break points of [`wrap`]), every other line through
//! [`wrap::lines`].
//!
//! * [`scan`]: per image the story, the summary, the groups, the fix plan and compile commands;
//! * [`diff`]: per pair the story, the inputs, the totals and the groups that changed
//!   ([`group_deltas`], which `trend` and process diffs use too);
//! * [`verify`] and [`check`].

mod check;
mod compiled;
mod diff;
pub(crate) mod fit;
mod fixes;
pub(crate) mod grid;
mod scan;
mod verify;
pub(crate) mod wrap;

pub use check::check;
pub use diff::diff;
pub(crate) use diff::group_deltas;
pub use scan::scan;
pub use verify::verify;

use crate::analysis::report::ImageSummary;
use crate::output::NOT_AVAILABLE;
use crate::text::clip_middle;
use std::io::{self, Write};

/// The width of the terminal on stdout, if stdout is one (comfy-table's own detection).
pub fn terminal_width() -> Option<u16> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    comfy_table::Table::new().width()
}

/// Columns a report is fitted to off a terminal when `$COLUMNS` does not say.
pub const DEFAULT_WIDTH: u16 = 100;

/// Narrowest width a table is fitted to: `--width` below it is refused, and a terminal or
/// `$COLUMNS` below it is raised to it.
pub const MIN_WIDTH: u16 = 40;

/// The columns a table is fitted to without `--width`: the terminal's when the report goes to
/// stdout (`to_stdout`) and that is one, else `$COLUMNS` when it holds a number, else
/// [`DEFAULT_WIDTH`]; never below [`MIN_WIDTH`].
pub fn default_width(to_stdout: bool) -> u16 {
    let terminal = to_stdout.then(terminal_width).flatten();
    let columns = || {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<u16>().ok())
            .filter(|&c| c > 0)
    };
    terminal
        .or_else(columns)
        .unwrap_or(DEFAULT_WIDTH)
        .max(MIN_WIDTH)
}

/// Widest text cell, in characters: a longer key, name or path keeps its head and tail with `…`
/// between ([`clip_middle`]), so one 64 KiB name cannot widen every row of a table (comfy-table
/// pads every row to the widest cell: rows × width). JSON keeps full names.
pub const MAX_CELL_WIDTH: usize = 160;

/// A text cell's text clipped to [`MAX_CELL_WIDTH`].
pub(crate) fn cell(s: &str) -> String {
    clip_middle(s, MAX_CELL_WIDTH)
}

/// `s` cut to `max` characters at its end, with `…`.
pub(crate) fn clip_end(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('…');
        out
    }
}

/// Longest library, object or source file named in a line or a `from` cell, in characters.
const NAME_CHARS: usize = grid::EXAMPLE_CHARS;

/// `s` cut to [`NAME_CHARS`] at its end.
fn short_name(s: &str) -> String {
    clip_end(s, NAME_CHARS)
}

fn opt(v: Option<&str>) -> String {
    v.unwrap_or(NOT_AVAILABLE).to_string()
}

fn flags(s: &ImageSummary) -> String {
    s.flags
        .as_ref()
        .map_or_else(|| NOT_AVAILABLE.to_string(), |f| f.join(" "))
}

/// "dyld4 (macOS 15), pid 4242" for a log, "Mach-O" for a binary.
fn input_cell(s: &ImageSummary) -> String {
    match &s.log {
        None => "Mach-O".into(),
        Some(l) => match l.pid {
            Some(pid) => format!("{} log, pid {pid}", l.format.describe()),
            None => format!("{} log", l.format.describe()),
        },
    }
}

/// The top suppliers of a log image or group: `node 2158, libc++abi.dylib 20, +1 more`.
fn suppliers_cell(list: &Option<Vec<crate::analysis::group::SupplierCount>>) -> String {
    let Some(list) = list else {
        return String::new();
    };
    let leaf = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let mut parts: Vec<String> = list
        .iter()
        .take(2)
        .map(|s| format!("{} {}", leaf(&s.image), s.symbols))
        .collect();
    if list.len() > 2 {
        parts.push(format!("+{} more", list.len() - 2));
    }
    parts.join(", ")
}

/// The example cell of a group: empty when the example is the key itself (ungrouped names).
fn example_text(key: &str, example: &str) -> String {
    if example == key {
        String::new()
    } else {
        example.to_string()
    }
}

fn demangle_note(
    out: &mut dyn Write,
    failures: usize,
    reasons: &crate::analysis::demangle::FailureReasons,
) -> io::Result<()> {
    if failures > 0 {
        writeln!(out, "note: {}", super::demangle_note(failures, reasons))?;
    }
    Ok(())
}

/// `lines` (the story of [`crate::output::story`]), then a blank line; prefixed with `label: `
/// when the report has several images. Fitted to a width, each is wrapped at the break points
/// of [`wrap`], its next lines under its text (`fix: ` blocks) or two columns in.
fn story_lines(
    out: &mut dyn Write,
    several: bool,
    label: &str,
    lines: &[String],
    width: Option<u16>,
) -> io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    for l in lines {
        let l = if several {
            format!("{label}: {l}")
        } else {
            l.clone()
        };
        match width {
            Some(w) => {
                let body = l.trim_start();
                let lead = &l[..l.len() - body.len()];
                let rest = " ".repeat(if l.starts_with("fix: ") {
                    5
                } else {
                    lead.len() + 2
                });
                for part in wrap::fill(body, usize::from(w), lead, &rest) {
                    writeln!(out, "{part}")?;
                }
            }
            None => writeln!(out, "{l}")?,
        }
    }
    out.write_all(b"\n")
}
