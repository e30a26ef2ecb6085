//! `weakscan hide`: the symbol list itself ([`write_list`]: a `#` comment head, then one name
//! a line) and the report of what it saves and keeps ([`HideReport`]: text or JSON).
//!
//! The head's lines start with `#`, which both linkers skip (ld64-956.6 Options.cpp
//! `loadExportFile`: a line whose first non-blank character is `#`; lld/MachO Driver.cpp
//! `parseSymbolPatternsFile`: everything from `#`); every text in it goes through
//! [`crate::text::escape`], so no name from the input can end a comment line and start a
//! symbol line.

use super::render::{Render, RenderOptions};
use super::story::ms_range;
use crate::analysis::estimate::per_lookup_short;
use crate::analysis::hide::{HideList, ListKind};
use crate::text::escape;
use serde::Serialize;
use std::io::{self, Write};

/// The `command` of the JSON document.
pub const COMMAND: &str = crate::schema::HIDE_COMMAND;

/// The report of one list: the list and where it was written (`None`: stdout).
pub struct HideReport<'a> {
    /// The list.
    pub list: &'a HideList,
    /// The list's path as given with `-o`, escaped.
    pub written_to: Option<String>,
}

impl HideReport<'_> {
    /// The path shown in the linker flags: the list's, or `FILE`.
    fn file(&self) -> &str {
        self.written_to.as_deref().unwrap_or("FILE")
    }

    /// The flag for the compiler driver (`clang++ … -Wl,…`).
    pub fn driver_flag(&self) -> String {
        format!("-Wl,{},{}", self.list.kind.option(), self.file())
    }

    /// The flag for the linker itself (ld64, ld64.lld).
    pub fn linker_flag(&self) -> String {
        format!("{} {}", self.list.kind.option(), self.file())
    }
}

/// The lines of the summary, shared by the report and the list's head.
fn summary(r: &HideReport<'_>) -> Vec<String> {
    let l = r.list;
    let s = &l.saves;
    let mut out = vec![
        format!(
            "hides {} of the {} weak definitions of {} ({}), scope {}: {} in scope",
            l.listed,
            l.weak_definitions,
            escape(&l.image),
            escape(&l.arch),
            escape(&l.scope),
            l.in_scope
        ),
        format!(
            "saves {} weak-def lookups at launch, {} weak-bound symbols, {} weak-bind sites, {} weak-def exports{}",
            s.lookups,
            s.weak_bound_symbols,
            s.sites,
            s.weak_def_exports,
            if s.lookups == 0 {
                String::new()
            } else {
                format!(
                    "; about {} ({})",
                    ms_range(s.estimated_ms),
                    per_lookup_short()
                )
            }
        ),
    ];
    if l.weak_defines_go {
        out.push(format!(
            "MH_WEAK_DEFINES goes: no weak definition is left exported ({} of the lookups go with the flag)",
            s.weak_defines_lookups
        ));
    }
    out.push(format!(
        "link with: {} (clang++), {} (ld64, ld64.lld)",
        r.driver_flag(),
        r.linker_flag()
    ));
    if l.kind == ListKind::Exported {
        out.push(format!(
            "the list is an allow list: every export but the {} hidden ({} lines)",
            l.listed,
            l.lines.len()
        ));
        if l.unlistable_exports > 0 {
            out.push(format!(
                "warning: {} other exports have names the list cannot carry: relinked with it, they are hidden too",
                l.unlistable_exports
            ));
        }
    }
    out.push(format!("kept exported: {}", l.kept.len()));
    for k in &l.kept {
        out.push(format!(
            "  {}: {}  {}  ({})",
            k.reason.as_str(),
            escape(&k.name),
            escape(&k.symbol),
            escape(&k.by)
        ));
    }
    out.push(format!(
        "left out, the list syntax cannot carry the name: {}",
        l.unlistable
    ));
    for u in &l.unlistable_examples {
        out.push(format!("  {} ({})", u.symbol, u.reason));
    }
    if l.unlistable > l.unlistable_examples.len() {
        out.push(format!(
            "  … and {} more",
            l.unlistable - l.unlistable_examples.len()
        ));
    }
    out.push(
        "check the relinked build: weakscan check NEW --importer …; weakscan diff OLD NEW".into(),
    );
    out
}

/// Writes the list: a head of `#` comments (the summary), then one name a line, each ending
/// in `\n` (ld64 warns about a last line without one).
pub fn write_list(out: &mut dyn Write, r: &HideReport<'_>) -> io::Result<()> {
    writeln!(
        out,
        "# weakscan hide: for {} (ld64, ld64.lld); lines starting with # are comments",
        r.list.kind.option()
    )?;
    for line in summary(r) {
        // `escape` left no line end in any part; a literal one would end the comment.
        debug_assert!(!line.contains(['\n', '\r']));
        writeln!(out, "# {line}")?;
    }
    for name in &r.list.lines {
        writeln!(out, "{name}")?;
    }
    Ok(())
}

/// The `--format json` document.
#[derive(Serialize, schemars::JsonSchema)]
pub struct HideJson<'a> {
    /// [`crate::schema::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// `hide`.
    pub command: &'static str,
    /// Where the list was written (`-o`), escaped.
    pub list: Option<String>,
    /// The flag for the compiler driver (`-Wl,-unexported_symbols_list,FILE`).
    pub driver_flag: String,
    /// The flag for the linker (`-unexported_symbols_list FILE`).
    pub linker_flag: String,
    /// The list and its figures.
    #[serde(flatten)]
    pub hide: &'a HideList,
}

impl Render for HideReport<'_> {
    fn table(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        for line in summary(self) {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    fn json(&self, out: &mut dyn Write, _: &RenderOptions) -> io::Result<()> {
        let doc = HideJson {
            schema_version: crate::schema::SCHEMA_VERSION,
            command: COMMAND,
            list: self.written_to.clone(),
            driver_flag: self.driver_flag(),
            linker_flag: self.linker_flag(),
            hide: self.list,
        };
        serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::from)?;
        out.write_all(b"\n")
    }
}
