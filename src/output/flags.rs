//! `weakscan flags OLD NEW`: the objects whose visibility options differ between two compile
//! databases, as a table, Markdown or JSON.

use crate::analysis::flags_diff::{FlagsReport, TargetFlags, describe};
use crate::text::{clip_middle, escape};
use serde::Serialize;
use std::io::{self, Write};

/// The `command` value of the JSON document.
pub const COMMAND: &str = crate::schema::FLAGS_COMMAND;

/// A target's name as shown.
fn target_name(t: &TargetFlags) -> String {
    t.target
        .as_deref()
        .map_or_else(|| "(no target)".to_owned(), |n| escape(n).into_owned())
}

/// An argv as one shell command line (each word quoted when needed), escaped.
fn command_line(args: &[String]) -> String {
    let line = shlex::try_join(args.iter().map(String::as_str)).unwrap_or_else(|_| args.join(" "));
    escape(&line).into_owned()
}

/// The one-line answer.
fn headline(r: &FlagsReport) -> String {
    let mut s = format!(
        "{} of {} matched objects compile with different visibility options",
        r.changed(),
        r.matched
    );
    if r.lost_hidden() > 0 || r.gained_hidden() > 0 {
        s.push_str(&format!(
            ": {} lost hidden visibility, {} gained it",
            r.lost_hidden(),
            r.gained_hidden()
        ));
    }
    s
}

/// The lines said about both databases besides the targets.
fn notes(r: &FlagsReport) -> Vec<String> {
    let mut v = vec![format!(
        "old: {} ({} entries), new: {} ({} entries); {} matched by source (outputs moved)",
        escape(&r.old),
        r.old_entries,
        escape(&r.new),
        r.new_entries,
        r.matched_by_source
    )];
    if r.only_old() + r.only_new() > 0 {
        v.push(format!(
            "only in old: {} objects; only in new: {} objects",
            r.only_old(),
            r.only_new()
        ));
    }
    if r.unknown() > 0 {
        v.push(format!(
            "unknown: {} matched objects whose options cannot be read",
            r.unknown()
        ));
    }
    if r.old_other_lines + r.new_other_lines > 0 {
        v.push(format!(
            "command dump lines that are no compilation: {} in old, {} in new",
            r.old_other_lines, r.new_other_lines
        ));
    }
    v
}

/// Renders the report as a table, `width` columns wide (commands are shown whole).
pub fn table(out: &mut dyn Write, r: &FlagsReport, width: usize) -> io::Result<()> {
    writeln!(out, "flags: {}", headline(r))?;
    for n in notes(r) {
        writeln!(out, "  {n}")?;
    }
    let shown: Vec<&TargetFlags> = r
        .targets
        .iter()
        .filter(|t| !t.changed.is_empty() || t.only_old + t.only_new + t.unknown > 0)
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    let name_w = width.saturating_sub(50).clamp(12, 60);
    writeln!(out)?;
    writeln!(
        out,
        "{:<name_w$} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "target", "matched", "changed", "-hidden", "+hidden", "only", "unknown"
    )?;
    for t in &shown {
        writeln!(
            out,
            "{:<name_w$} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
            clip_middle(&target_name(t), name_w),
            t.matched,
            t.changed.len(),
            t.lost_hidden,
            t.gained_hidden,
            t.only_old + t.only_new,
            t.unknown
        )?;
    }
    writeln!(
        out,
        "(-hidden: no longer hidden by default; +hidden: newly; only: in one build)"
    )?;
    for t in shown.iter().filter(|t| !t.changed.is_empty()) {
        let c = &t.changed[0];
        writeln!(out)?;
        writeln!(
            out,
            "{}: {} changed, first {}",
            target_name(t),
            t.changed.len(),
            escape(&c.object)
        )?;
        writeln!(out, "  old: {}", describe(&c.old))?;
        writeln!(out, "  new: {}", describe(&c.new))?;
        writeln!(out, "  old command: {}", command_line(&c.old_command))?;
        writeln!(out, "  new command: {}", command_line(&c.new_command))?;
    }
    Ok(())
}

/// A Markdown table cell: escaped, `|` and backticks neutralized.
fn cell(s: &str) -> String {
    escape(s).replace('|', "\\|").replace('`', "'")
}

/// Renders the report as Markdown.
pub fn markdown(out: &mut dyn Write, r: &FlagsReport) -> io::Result<()> {
    writeln!(out, "### weakscan flags\n")?;
    writeln!(out, "**{}**\n", headline(r))?;
    for n in notes(r) {
        writeln!(out, "- {}", cell(&n))?;
    }
    let shown: Vec<&TargetFlags> = r
        .targets
        .iter()
        .filter(|t| !t.changed.is_empty() || t.only_old + t.only_new + t.unknown > 0)
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n| target | matched | changed | lost hidden | gained hidden | only in one | unknown |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|")?;
    for t in &shown {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(&crate::text::clip_name(&target_name(t))),
            t.matched,
            t.changed.len(),
            t.lost_hidden,
            t.gained_hidden,
            t.only_old + t.only_new,
            t.unknown
        )?;
    }
    for t in shown.iter().filter(|t| !t.changed.is_empty()) {
        let c = &t.changed[0];
        writeln!(
            out,
            "\n**{}**: {} changed; first `{}`: `{}` → `{}`\n",
            cell(&target_name(t)),
            t.changed.len(),
            cell(&c.object),
            describe(&c.old),
            describe(&c.new)
        )?;
        writeln!(out, "```text")?;
        writeln!(
            out,
            "old: {}",
            command_line(&c.old_command).replace("```", "'''")
        )?;
        writeln!(
            out,
            "new: {}",
            command_line(&c.new_command).replace("```", "'''")
        )?;
        writeln!(out, "```")?;
    }
    Ok(())
}

/// The JSON document of `weakscan flags`.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct FlagsJson {
    schema_version: u32,
    command: &'static str,
    /// The old database, as given.
    old: String,
    /// The new database, as given.
    new: String,
    /// Entries (compilations) read from each.
    old_entries: usize,
    new_entries: usize,
    /// Lines of a command dump that are no compilation (0 for JSON).
    old_other_lines: usize,
    new_other_lines: usize,
    /// Objects in both; of them matched by source (outputs moved).
    matched: usize,
    matched_by_source: usize,
    /// Totals over the targets.
    changed: usize,
    lost_hidden: usize,
    gained_hidden: usize,
    only_old: usize,
    only_new: usize,
    unknown: usize,
    /// Every target, the most changed first.
    targets: Vec<TargetJson>,
}

/// One target of [`FlagsJson`].
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct TargetJson {
    /// The target; null when the output path fits no known pattern.
    target: Option<String>,
    matched: usize,
    lost_hidden: usize,
    gained_hidden: usize,
    only_old: usize,
    only_new: usize,
    unknown: usize,
    /// The first reason an object's options cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    unknown_reason: Option<String>,
    /// The objects whose options differ.
    changed: Vec<ChangedJson>,
    /// The first changed object's commands, whole (argv).
    #[serde(skip_serializing_if = "Option::is_none")]
    first_old_command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_new_command: Option<Vec<String>>,
}

/// One changed object of [`TargetJson`].
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ChangedJson {
    object: String,
    source: String,
    /// The options in effect, as clang options (`(none)` when none).
    old_flags: String,
    new_flags: String,
    old_hidden: bool,
    new_hidden: bool,
}

/// Renders the report as pretty JSON (with a trailing newline).
pub fn json(out: &mut dyn Write, r: &FlagsReport) -> io::Result<()> {
    let doc = FlagsJson {
        schema_version: crate::schema::SCHEMA_VERSION,
        command: COMMAND,
        old: r.old.clone(),
        new: r.new.clone(),
        old_entries: r.old_entries,
        new_entries: r.new_entries,
        old_other_lines: r.old_other_lines,
        new_other_lines: r.new_other_lines,
        matched: r.matched,
        matched_by_source: r.matched_by_source,
        changed: r.changed(),
        lost_hidden: r.lost_hidden(),
        gained_hidden: r.gained_hidden(),
        only_old: r.only_old(),
        only_new: r.only_new(),
        unknown: r.unknown(),
        targets: r
            .targets
            .iter()
            .map(|t| TargetJson {
                target: t.target.clone(),
                matched: t.matched,
                lost_hidden: t.lost_hidden,
                gained_hidden: t.gained_hidden,
                only_old: t.only_old,
                only_new: t.only_new,
                unknown: t.unknown,
                unknown_reason: t.unknown_reason.clone(),
                changed: t
                    .changed
                    .iter()
                    .map(|c| ChangedJson {
                        object: c.object.clone(),
                        source: c.source.clone(),
                        old_flags: describe(&c.old),
                        new_flags: describe(&c.new),
                        old_hidden: c.old.hides_by_default(),
                        new_hidden: c.new.hides_by_default(),
                    })
                    .collect(),
                first_old_command: t.changed.first().map(|c| c.old_command.clone()),
                first_new_command: t.changed.first().map(|c| c.new_command.clone()),
            })
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
