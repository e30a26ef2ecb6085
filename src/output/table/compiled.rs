//! The section "compiled differently" of a diff (`--old-compile-commands A
//! --new-compile-commands B`): per library, the new build's objects whose visibility options
//! changed between the two databases and what their weak symbols cost in the new build.

use super::cell;
use super::grid::{Grid, figure, name};
use crate::analysis::compiled_differently::CompiledDifferently;
use std::io::{self, Write};

/// The section: a table of the libraries, each library's object with the most lookups and its
/// options old → new, and the objects not compared; nothing when no object of the
/// attribution was compared.
pub(super) fn compiled_differently(
    out: &mut dyn Write,
    c: &CompiledDifferently,
    width: Option<u16>,
) -> io::Result<()> {
    if c.libraries.is_empty() {
        writeln!(
            out,
            "compiled differently: no object's visibility options changed"
        )?;
    } else {
        let mut t = Grid::new(
            width,
            vec![
                name("compiled differently"),
                figure("lost hidden"),
                figure("gained hidden"),
                figure("other"),
                figure("weak-bound symbols"),
                figure("lookups"),
            ],
        );
        for l in &c.libraries {
            t.row([
                cell(&l.library),
                l.lost_hidden.to_string(),
                l.gained_hidden.to_string(),
                l.other.to_string(),
                l.weak_bound_symbols.to_string(),
                l.lookups.to_string(),
            ]);
        }
        writeln!(out, "{t}")?;
        for l in &c.libraries {
            writeln!(
                out,
                "{}: {} → {}",
                cell(&l.first_object),
                l.old_options,
                l.new_options
            )?;
        }
    }
    if let Some(line) = crate::output::story::not_compared(c) {
        writeln!(out, "{line}")?;
    }
    out.write_all(b"\n")
}
