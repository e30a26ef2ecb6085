//! A table of text cells drawn with comfy-table: at full width when no width is given (piped
//! output and golden files stay as they are), else fitted ([`super::fit`]): each cell wrapped
//! at its break points ([`super::wrap`]) to its column's width, given to comfy-table as an
//! absolute column constraint so that comfy-table's own wrapping (which breaks anywhere) never
//! runs.

use super::fit::{Fit, Need, Part, layouts};
use super::wrap;
use crate::text::fold::{fold_member, fold_name};
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};
use std::fmt;
use textwrap::core::display_width;

/// Longest example shown at full width, in characters (cut at its end with `…`).
pub(crate) const EXAMPLE_CHARS: usize = 90;

/// A column: its header, how it fits, and whether it is right-aligned.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    title: String,
    fit: Fit,
    right: bool,
}

/// A name column (left-aligned).
pub(crate) fn name(title: &str) -> Column {
    Column::new(title, Fit::Name, false)
}

/// A text column (left-aligned).
pub(crate) fn text(title: &str) -> Column {
    Column::new(title, Fit::Text, false)
}

/// A column of figures, kept whole and right-aligned.
pub(crate) fn figure(title: &str) -> Column {
    Column::new(title, Fit::Whole, true)
}

/// A column of short words, kept whole and left-aligned.
pub(crate) fn word(title: &str) -> Column {
    Column::new(title, Fit::Whole, false)
}

/// An example column: each line cut to [`EXAMPLE_CHARS`] at full width, to the column's width
/// in the middle when fitted; the first column left out.
pub(crate) fn example(title: &str) -> Column {
    Column::new(title, Fit::Example, false)
}

/// A column of details, wrapped like text but left out as the example is.
pub(crate) fn extra(title: &str) -> Column {
    Column::new(title, Fit::Extra, false)
}

impl Column {
    fn new(title: &str, fit: Fit, right: bool) -> Column {
        Column {
            title: title.to_string(),
            fit,
            right,
        }
    }

    fn cell(&self, text: String) -> Cell {
        let c = Cell::new(text);
        if self.right {
            c.set_alignment(CellAlignment::Right)
        } else {
            c
        }
    }
}

/// A table of text cells fitted to a width when there is one.
#[derive(Debug, Clone)]
pub(crate) struct Grid {
    width: Option<u16>,
    columns: Vec<Column>,
    header: bool,
    rows: Vec<Vec<String>>,
}

impl Grid {
    /// A table with a header row.
    pub(crate) fn new(width: Option<u16>, columns: Vec<Column>) -> Grid {
        Grid {
            width,
            columns,
            header: true,
            rows: Vec::new(),
        }
    }

    /// A table without a header row (the titles are not shown).
    pub(crate) fn headless(width: Option<u16>, columns: Vec<Column>) -> Grid {
        Grid {
            header: false,
            ..Grid::new(width, columns)
        }
    }

    /// Adds a row: one text per column, as it reads at full width.
    pub(crate) fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    /// The text of column `c` in `row` (empty when the row is short of cells).
    fn text<'a>(&self, row: &'a [String], c: usize) -> &'a str {
        row.get(c).map_or("", String::as_str)
    }

    /// A cell of column `c` at full width: an example's lines cut at [`EXAMPLE_CHARS`].
    fn full_cell(&self, c: usize, s: &str) -> String {
        if self.columns[c].fit == Fit::Example {
            s.split('\n')
                .map(|l| {
                    let folded = fold_name(l, EXAMPLE_CHARS, display_width);
                    super::clip_end(&folded, EXAMPLE_CHARS)
                })
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            s.to_string()
        }
    }

    /// A cell of column `c` fitted to `width`: an example's lines folded to it
    /// ([`fold_member`]: lists, then outer scopes; the row's key shows the template) and
    /// wrapped if still wider, any other cell wrapped ([`wrap::cell`]).
    fn fitted_cell(&self, c: usize, s: &str, width: usize) -> String {
        if self.columns[c].fit == Fit::Example {
            s.split('\n')
                .map(|l| wrap::cell(&fold_member(l, width, display_width), width))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            wrap::cell(s, width)
        }
    }

    /// The table at full width, as comfy-table draws it.
    fn full(&self) -> Table {
        let mut t = base();
        if self.header {
            t.set_header(self.columns.iter().map(|c| c.cell(c.title.clone())));
        }
        for row in &self.rows {
            t.add_row(
                (0..self.columns.len())
                    .map(|c| self.columns[c].cell(self.full_cell(c, self.text(row, c)))),
            );
        }
        t
    }

    /// The header of column `c` when fitted: `old → new` kept as one word.
    fn fitted_title(&self, c: usize) -> String {
        self.columns[c].title.replace(" → ", "→")
    }

    /// What column `c` needs ([`Need`]): its content's width and its longest piece — for
    /// figures an unbreakable one (a header word may break at a hyphen), for names and text one
    /// cut only where names and paths nest ([`wrap::nested`]).
    fn need(&self, c: usize) -> Need {
        let col = &self.columns[c];
        let title = if self.header {
            self.fitted_title(c)
        } else {
            String::new()
        };
        let cells = self.rows.iter().map(|r| self.text(r, c));
        let lines = || cells.clone().flat_map(|s| s.split('\n'));
        let mut data = lines().map(display_width).max().unwrap_or(0);
        if col.fit == Fit::Example {
            data = data.min(EXAMPLE_CHARS);
        }
        let longest = |words: &mut dyn Iterator<Item = &str>, cut: fn(&str) -> Vec<&str>| {
            words.flat_map(cut).map(display_width).max().unwrap_or(0)
        };
        let title_word = title.split(' ').map(display_width).max().unwrap_or(0);
        let title_piece = longest(&mut title.split(' '), wrap::pieces);
        let natural = data.max(title_word);
        match col.fit {
            Fit::Whole => Need::new(col.fit, natural, data.max(title_piece)),
            Fit::Example => Need::new(col.fit, natural, 0),
            Fit::Name | Fit::Text | Fit::Extra => {
                let data_piece = longest(&mut lines().flat_map(|l| l.split(' ')), wrap::nested);
                Need::new(col.fit, natural, data_piece.max(title_piece))
            }
        }
    }

    /// Lines the tables of `parts` take: each its borders, header and rows, a row as high as
    /// its highest cell.
    fn height(&self, parts: &[Part]) -> usize {
        let lines = |s: &str, c: usize, w: usize| self.fitted_cell(c, s, w).split('\n').count();
        parts
            .iter()
            .map(|p| {
                let cols = || p.columns.iter().copied().zip(p.widths.iter().copied());
                let header = if self.header {
                    cols()
                        .map(|(c, w)| lines(&self.fitted_title(c), c, w))
                        .max()
                        .unwrap_or(0)
                        + 1
                } else {
                    0
                };
                let rows: usize = self
                    .rows
                    .iter()
                    .map(|r| {
                        cols()
                            .map(|(c, w)| lines(self.text(r, c), c, w))
                            .max()
                            .unwrap_or(1)
                    })
                    .sum();
                2 + header + rows
            })
            .sum()
    }

    /// One part of the fitted table.
    fn part(&self, p: &Part) -> Table {
        let mut t = base();
        if self.header {
            t.set_header(
                p.columns
                    .iter()
                    .zip(&p.widths)
                    .map(|(&c, &w)| self.columns[c].cell(wrap::cell(&self.fitted_title(c), w))),
            );
        }
        for row in &self.rows {
            t.add_row(
                p.columns.iter().zip(&p.widths).map(|(&c, &w)| {
                    self.columns[c].cell(self.fitted_cell(c, self.text(row, c), w))
                }),
            );
        }
        for (i, w) in p.widths.iter().enumerate() {
            if let Some(col) = t.column_mut(i) {
                let w = u16::try_from(*w + 2).unwrap_or(u16::MAX);
                col.set_constraint(ColumnConstraint::Absolute(Width::Fixed(w)));
            }
        }
        t
    }
}

/// comfy-table's table as weakscan draws it: UTF-8 borders, no colours, no arrangement of its
/// own.
fn base() -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Disabled);
    t
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(width) = self.width else {
            return write!(f, "{}", self.full());
        };
        // A table that fits as it is, is shown as it is: fitting only wraps what does not.
        let full = self.full().to_string();
        if full.lines().all(|l| display_width(l) <= usize::from(width)) {
            return f.write_str(&full);
        }
        let needs: Vec<Need> = (0..self.columns.len()).map(|c| self.need(c)).collect();
        let mut options = layouts(&needs, usize::from(width));
        // Parts keep names whole, unless they cost more than a quarter more lines than one
        // tight table.
        let parts = options.remove(0);
        let chosen = match options.pop() {
            Some(tight) if 4 * self.height(&parts) > 5 * self.height(&tight) => tight,
            _ => parts,
        };
        let tables: Vec<Table> = chosen.iter().map(|p| self.part(p)).collect();
        for (i, t) in tables.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed, TestRunner};
    use std::collections::BTreeSet;

    /// What cells are made of: identifiers short and long, the break points, an ellipsis,
    /// spaces, hyphens and slashes, wide characters.
    const TOKENS: &[&str] = &[
        "v8",
        "::",
        "internal",
        "StaticCallInterfaceDescriptor",
        "<",
        ">",
        "<…>",
        "(",
        ")",
        ", ",
        " ",
        "-",
        "/",
        "libv8_base_without_compiler",
        ".a",
        "+24 more",
        "名前",
        "an_identifier_far_wider_than_any_column_of_a_table_at_forty_or_eighty_columns_0123456789",
    ];

    /// The runs of `[A-Za-z0-9_]` of `line`, with whether a `…` touches each before and after.
    fn runs(line: &str) -> Vec<(&str, bool, bool)> {
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
            match (start, ident(c)) {
                (None, true) => start = Some(i),
                (Some(s), false) => {
                    out.push((
                        &line[s..i],
                        line[..s].ends_with('…'),
                        line[i..].starts_with('…'),
                    ));
                    start = None;
                }
                _ => {}
            }
        }
        out
    }

    fn grid(kinds: &[u8], rows: &[Vec<String>], width: u16) -> Grid {
        let titles = [
            "name",
            "weak-bound symbols",
            "from",
            "lookups old → new",
            "example",
        ];
        let columns = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let t = titles[i % titles.len()];
                match (i, k % 6) {
                    (0, _) | (_, 0) => name(t),
                    (_, 1) => text(t),
                    (_, 2) => figure(t),
                    (_, 3) => word(t),
                    (_, 4) => example(t),
                    _ => extra(t),
                }
            })
            .collect();
        let mut g = Grid::new(Some(width), columns);
        for r in rows {
            g.row(r.iter().take(kinds.len()).cloned());
        }
        g
    }

    /// Any cells, any columns, any width from 40 to 220: no line is wider than the width, and
    /// every identifier of the output is one of the cells' (or, next to a `…`, its head or
    /// tail): none is split across lines.
    #[test]
    fn any_table_fits_any_width_and_splits_no_identifier() {
        let cell = proptest::collection::vec(proptest::sample::select(TOKENS), 0..8)
            .prop_map(|t| t.concat());
        let rows = proptest::collection::vec(proptest::collection::vec(cell, 8), 0..6);
        let kinds = proptest::collection::vec(any::<u8>(), 1..8);
        let config = Config {
            cases: 512,
            rng_seed: RngSeed::Fixed(0x7ab1e),
            failure_persistence: None,
            ..Config::default()
        };
        TestRunner::new(config)
            .run(&(kinds, rows, 40u16..=220), |(kinds, rows, width)| {
                let g = grid(&kinds, &rows, width);
                let inputs: Vec<&str> = rows
                    .iter()
                    .flatten()
                    .map(String::as_str)
                    .chain(g.columns.iter().map(|c| c.title.as_str()))
                    .collect();
                let known: BTreeSet<&str> =
                    inputs.iter().flat_map(|s| runs(s)).map(|r| r.0).collect();
                let out = g.to_string();
                for line in out.lines() {
                    prop_assert!(display_width(line) <= usize::from(width), "{line}\n{out}");
                    for (run, before, after) in runs(line) {
                        let ok = match (before, after) {
                            (false, false) => known.contains(run),
                            (false, true) => known.iter().any(|k| k.starts_with(run)),
                            (true, false) => known.iter().any(|k| k.ends_with(run)),
                            (true, true) => true,
                        };
                        prop_assert!(ok, "`{run}` split in:\n{out}");
                    }
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn without_a_width_cells_are_drawn_as_given() {
        let mut g = Grid::new(None, vec![name("key"), figure("n"), example("example")]);
        g.row(["a::b<…>", "12", &"x".repeat(100)]);
        let out = g.to_string();
        assert!(out.contains("│ a::b<…> ┆ 12 ┆ "), "{out}");
        // The example is cut at its end, at 90 characters.
        assert!(out.contains(&format!("{}…", "x".repeat(89))), "{out}");
    }
}
