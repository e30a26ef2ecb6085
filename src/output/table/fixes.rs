//! What to change, as tables under a scan's groups: the fix plan (the libraries whose hiding
//! saves the most) and, with `--compile-commands`, each object's compile flags.

use super::grid::{Grid, figure, name, text};
use super::{cell, short_name};
use crate::analysis::fix_plan::FixPlan;
use crate::analysis::visibility::{Compiled, VisibilityReport};
use crate::output::story;
use std::io::{self, Write};

/// Candidates the fix plan table shows at most.
pub(super) const FIX_PLAN_ROWS: usize = 5;

/// The fix plan ([`crate::analysis::fix_plan`]): the `rows` candidates saving the most.
pub(super) fn fix_plan(
    out: &mut dyn Write,
    plan: &FixPlan,
    rows: usize,
    width: Option<u16>,
) -> io::Result<()> {
    let shown: Vec<_> = plan
        .candidates
        .iter()
        .filter(|c| c.hidden.lookups > 0)
        .take(rows)
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    let mut t = Grid::new(
        width,
        vec![
            name("fix plan: hide"),
            figure("lookups saved"),
            figure("weak-def exports"),
            figure("other exports"),
            figure("inlines-hidden saves"),
            figure("estimated time"),
        ],
    );
    for c in &shown {
        t.row([
            cell(&c.library),
            c.hidden.lookups.to_string(),
            c.hidden.weak_def_exports.to_string(),
            c.other_exports.to_string(),
            story::inlines_range(c),
            story::ms_range(c.hidden.estimated_ms),
        ]);
    }
    writeln!(out, "{t}")?;
    for c in &shown {
        if let Some(line) = story::weak_defines_line(c) {
            writeln!(out, "{}: {line}", cell(&c.library))?;
        }
    }
    for line in story::definers_lines(plan, FIX_PLAN_ROWS, story::plain) {
        writeln!(out, "{line}")?;
    }
    for line in story::imported_by(plan, story::plain) {
        writeln!(out, "{line}")?;
    }
    let more = plan
        .candidates
        .iter()
        .filter(|c| c.hidden.lookups > 0)
        .count();
    if more > shown.len() {
        writeln!(
            out,
            "({} of {more} candidates shown; --format json lists all)",
            shown.len()
        )?;
    }
    writeln!(
        out,
        "inlines-hidden: lookups -fvisibility-inlines-hidden saves on Darwin, at least–at most \
         (inline functions and their local statics; docs/fix-plan.md)\n{}\n",
        crate::analysis::estimate::per_lookup_source()
    )
}

/// The objects' compile commands (`scan --compile-commands`): the `top` objects with the most
/// lookups, each with its visibility, then the libraries with objects compiled with default
/// visibility, and the fix for the largest; tables fitted to `width`.
pub(super) fn compile_commands(
    out: &mut dyn Write,
    v: &VisibilityReport,
    top: usize,
    width: Option<u16>,
) -> io::Result<()> {
    let mut t = Grid::new(
        width,
        vec![
            name("object"),
            figure("weak-bound symbols"),
            figure("lookups"),
            figure("weak-def exports"),
            text("compiled with"),
            text("target"),
            text("source"),
        ],
    );
    for o in v.objects.iter().take(top) {
        let (with, target) = match &o.compiled {
            Compiled::Found {
                visibility,
                inlines_hidden,
                ms_compat,
                target,
                ..
            } => {
                let mut with = match (visibility, ms_compat) {
                    (_, true) => "-fvisibility-ms-compat".to_string(),
                    (Some(v), _) => format!("-fvisibility={v}"),
                    (None, _) => "default visibility (no -fvisibility)".to_string(),
                };
                if *inlines_hidden {
                    with.push_str(" -fvisibility-inlines-hidden");
                }
                (with, target.clone().unwrap_or_default())
            }
            Compiled::Unknown { reason, target, .. } => (
                format!("unknown ({reason})"),
                target.clone().unwrap_or_default(),
            ),
            Compiled::Ambiguous { entries } => (
                format!("{} fit", crate::text::count(*entries, "entry", "entries")),
                String::new(),
            ),
            Compiled::NotFound => ("no entry".to_string(), String::new()),
        };
        t.row([
            cell(&o.object),
            o.weak_bound_symbols.to_string(),
            o.lookups.to_string(),
            o.weak_def_exports.to_string(),
            with,
            cell(&target),
            cell(&o.source),
        ]);
    }
    writeln!(out, "{t}")?;
    if v.objects.len() > top {
        writeln!(
            out,
            "({top} of {} shown; --top N to change)",
            crate::text::count(v.objects.len(), "object", "objects")
        )?;
    }
    let unknown: usize = v.libraries.iter().map(|l| l.objects_unknown).sum();
    for l in v.libraries.iter().filter(|l| l.objects_default > 0) {
        let targets = if l.targets.is_empty() {
            String::new()
        } else {
            format!(" (target {})", l.targets.join(", "))
        };
        writeln!(
            out,
            "{}: {}, {} from {} of its {} compiled without -fvisibility=hidden{targets}",
            short_name(&l.library),
            crate::text::count(
                l.weak_bound_symbols_default,
                "weak-bound symbol",
                "weak-bound symbols"
            ),
            crate::text::count(l.lookups_default, "lookup", "lookups"),
            l.objects_default,
            crate::text::count(l.objects, "object", "objects")
        )?;
    }
    if unknown > 0 {
        writeln!(
            out,
            "{} no unique entry in the compile database or an unknown visibility (see \"compiled with\")",
            if unknown == 1 {
                "1 object has".to_string()
            } else {
                format!("{unknown} objects have")
            }
        )?;
    }
    if let Some(o) = v.objects.iter().find(|o| o.compiled.leaks()) {
        let target = match &o.compiled {
            Compiled::Found {
                target: Some(t), ..
            } => format!(" (target {})", short_name(t)),
            _ => String::new(),
        };
        writeln!(
            out,
            "fix: {} from {}, compiled without -fvisibility=hidden{target}: add -fvisibility=hidden -fvisibility-inlines-hidden to its compile flags, or mark what must stay exported with __attribute__((visibility(\"default\")))",
            crate::text::count(o.lookups, "lookup", "lookups"),
            short_name(&o.source)
        )?;
    } else {
        writeln!(out, "every object found is compiled with hidden visibility")?;
    }
    out.write_all(b"\n")
}
