//! The lines that tell who imports the exports (`--importer`), shared by the table, Markdown
//! and GitHub formats of `scan`, `diff` and `check`: one line per importer and image, with up
//! to [`MISSING_SHOWN`] names (JSON lists them all).

use crate::analysis::check::MISSING_SHOWN;
use crate::analysis::imports::{ImporterCheck, ImporterNeeds, MissingImport, SkippedImporters};

/// How a name is shown: as c++filt prints it, the stored symbol beside it when the two differ
/// by more than the Mach-O `_` (a C++ name): `api::write(int) (__ZN3api5writeEi)`.
pub fn name(m: &MissingImport, code: impl Fn(&str) -> String) -> String {
    symbol_text(&m.symbol, &m.name, code)
}

/// A name as [`name`] shows it, from the stored `symbol` and its printed `name`.
pub fn symbol_text(symbol: &str, name: &str, code: impl Fn(&str) -> String) -> String {
    let plain = symbol.strip_prefix('_').unwrap_or(symbol);
    if name == symbol || name == plain {
        code(name)
    } else {
        format!("{} ({})", code(name), code(symbol))
    }
}

/// Up to [`MISSING_SHOWN`] of `missing` (weak imports marked), then `… and N more`.
pub fn names(missing: &[MissingImport], code: impl Fn(&str) -> String) -> String {
    let mut shown: Vec<String> = missing
        .iter()
        .take(MISSING_SHOWN)
        .map(|m| {
            let n = name(m, &code);
            if m.weak_import {
                format!("{n} [weak import]")
            } else {
                n
            }
        })
        .collect();
    if missing.len() > MISSING_SHOWN {
        shown.push(format!("… and {} more", missing.len() - MISSING_SHOWN));
    }
    shown.join(", ")
}

/// `plugin.bundle (x86_64): 1 of 2 imports not exported by api-v2: api::write(int)
/// (__ZN3api5writeEi)`, or `addon.bundle (x86_64): its 3 imports are exported by api`.
pub fn check_line(c: &ImporterCheck, code: impl Fn(&str) -> String) -> String {
    if c.missing.is_empty() {
        return format!(
            "{} ({}): its {} import{} from {} {} exported",
            code(&c.importer),
            c.arch,
            c.imports,
            plural(c.imports),
            code(&c.image),
            if c.imports == 1 { "is" } else { "are" }
        );
    }
    format!(
        "{} ({}): {} of {} import{} not exported by {}: {}",
        code(&c.importer),
        c.arch,
        c.missing.len(),
        c.imports,
        plural(c.imports),
        code(&c.image),
        names(&c.missing, code)
    )
}

/// `addon.node (x86_64): 2 of its 47 imports removed: napi_x, napi_y`.
pub fn needs_line(n: &ImporterNeeds, code: impl Fn(&str) -> String) -> String {
    format!(
        "{} ({}): {} of its {} import{} removed: {}",
        code(&n.importer),
        n.arch,
        n.removed.len(),
        n.imports,
        plural(n.imports),
        names(&n.removed, code)
    )
}

/// `skipped below the directories of importers: 9 not Mach-O (a.js, b.json, c.md, …), 2
/// without a slice of the arch (…)`; `None` when nothing was skipped.
pub fn skipped_line(s: &[SkippedImporters], code: impl Fn(&str) -> String) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    let parts: Vec<String> = s
        .iter()
        .map(|k| {
            let mut ex: Vec<String> = k.examples.iter().map(|e| code(e)).collect();
            if k.count > k.examples.len() {
                ex.push("…".into());
            }
            format!("{} {} ({})", k.count, k.reason, ex.join(", "))
        })
        .collect();
    Some(format!(
        "skipped below the directories of importers: {}",
        parts.join("; ")
    ))
}

/// The checks worth a line each: those of importers that import something from the image.
pub fn shown(checks: &[ImporterCheck]) -> impl Iterator<Item = &ImporterCheck> {
    checks.iter().filter(|c| c.imports > 0)
}

/// `2 importers import nothing from it: api, libapi.dylib`; `None` when every importer
/// imports something.
pub fn idle_line(checks: &[ImporterCheck], code: impl Fn(&str) -> String) -> Option<String> {
    let idle: Vec<&ImporterCheck> = checks.iter().filter(|c| c.imports == 0).collect();
    if idle.is_empty() {
        return None;
    }
    let mut names: Vec<String> = idle
        .iter()
        .take(MISSING_SHOWN)
        .map(|c| format!("{} ({})", code(&c.importer), c.arch))
        .collect();
    if idle.len() > MISSING_SHOWN {
        names.push(format!("… and {} more", idle.len() - MISSING_SHOWN));
    }
    Some(format!(
        "{} importer{} import nothing from the image: {}",
        idle.len(),
        plural(idle.len()),
        names.join(", ")
    ))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Text as it is (tables, annotations).
pub fn plain(s: &str) -> String {
    s.to_string()
}

/// How a section is written: plain text, or Markdown with each name through the function given
/// (a code span).
pub enum Style<'a> {
    /// Tables and annotations.
    Plain,
    /// A `###` heading and a list.
    Markdown(&'a dyn Fn(&str) -> String),
}

impl Style<'_> {
    fn code(&self, s: &str) -> String {
        match self {
            Style::Plain => s.to_string(),
            Style::Markdown(code) => code(s),
        }
    }

    fn markdown(&self) -> bool {
        matches!(self, Style::Markdown(_))
    }
}

/// Writes the importers section of a report: a heading, one line per importer that imports
/// from the image (marked passed or not), the idle and skipped lines.
pub fn write_checks(
    out: &mut dyn std::io::Write,
    checks: &[ImporterCheck],
    skipped: &[SkippedImporters],
    style: Style<'_>,
) -> std::io::Result<()> {
    let markdown = style.markdown();
    let code = |s: &str| style.code(s);
    let mut lines: Vec<String> = shown(checks)
        .map(|c| {
            let mark = match (markdown, c.passed) {
                (true, true) => "✅",
                (true, false) => "❌",
                (false, true) => "✓",
                (false, false) => "✗",
            };
            format!("{mark} {}", check_line(c, code))
        })
        .collect();
    lines.extend(idle_line(checks, code));
    lines.extend(skipped_line(skipped, code));
    write_section(out, "Importers", &lines, markdown)
}

/// Writes a diff's importers section: one line per importer that imports an export the new
/// build removed, or one line saying none does.
pub fn write_needs(
    out: &mut dyn std::io::Write,
    needs: &[ImporterNeeds],
    skipped: &[SkippedImporters],
    style: Style<'_>,
) -> std::io::Result<()> {
    let markdown = style.markdown();
    let code = |s: &str| style.code(s);
    let mut lines: Vec<String> = needs
        .iter()
        .filter(|n| !n.removed.is_empty())
        .map(|n| format!("✗ {}", needs_line(n, code)))
        .collect();
    if lines.is_empty() {
        lines.push(format!(
            "none of the exports removed is imported by the {} importer slice{} read",
            needs.len(),
            plural(needs.len())
        ));
    }
    lines.extend(skipped_line(skipped, code));
    write_section(
        out,
        "Exports removed that importers still need",
        &lines,
        markdown,
    )
}

fn write_section(
    out: &mut dyn std::io::Write,
    title: &str,
    lines: &[String],
    markdown: bool,
) -> std::io::Result<()> {
    if markdown {
        writeln!(out, "### {title}\n")?;
        for l in lines {
            writeln!(out, "- {l}")?;
        }
    } else {
        writeln!(out, "{}:", title.to_lowercase())?;
        for l in lines {
            writeln!(out, "{l}")?;
        }
    }
    out.write_all(b"\n")
}
