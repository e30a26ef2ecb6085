//! A Markdown report that fits one pull-request comment. GitHub refuses a comment whose body is
//! over 65,536 characters ("Body is too long (maximum is 65536 characters)"); a report of
//! thousands of groups (`--top 5000`, names of hundreds of characters) is longer. [`fit`] cuts
//! whole table rows, never a line in the middle, and says under each table it cut how many rows
//! went; only when every table is down to one row are whole lines cut from the end, said in a
//! last line.

use std::borrow::Cow;

/// GitHub's limit on a comment's body, in characters.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;

/// Bytes a Markdown report may take: [`GITHUB_COMMENT_LIMIT`] less room for what a workflow
/// puts around it (the Action's marker line and footer). Bytes, not characters: a character is
/// at least one byte, so a report within it is within the limit whatever it holds.
pub const COMMENT_BUDGET: usize = 64_000;

/// One table of the text: the index of its first data row and one past its last (lines).
struct Table {
    rows: std::ops::Range<usize>,
    /// Data rows kept (from the first).
    kept: usize,
    /// Bytes of the rows kept after the first (what cutting can still save).
    cuttable: usize,
}

impl Table {
    fn cut(&self) -> usize {
        self.rows.len() - self.kept
    }
}

/// The note under a table that lost `cut` of its `all` rows.
fn table_note(cut: usize, all: usize) -> String {
    format!(
        "\n_{} of {all} rows cut to keep this comment within GitHub's 65,536-character limit._\n",
        cut
    )
}

/// The last line when whole lines were cut from the end.
const REST_CUT: &str = "\n_The rest of this report was cut to keep it within GitHub's 65,536-character comment limit._\n";

/// `text` (Markdown) within `budget` bytes: unchanged when it fits; else table rows are cut,
/// each from the table with the most bytes of rows left, the last row first, keeping one row
/// of each table, and each table that lost rows is followed by a line saying how many; then,
/// if that is not enough, whole lines from the end. Only whole lines are cut.
pub fn fit(text: &str, budget: usize) -> Cow<'_, str> {
    if text.len() <= budget {
        return Cow::Borrowed(text);
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut tables = tables(&lines);
    let mut size = text.len();
    // Cut the last kept row of the table with the most bytes of rows left beyond its first,
    // until the text fits or no table has a second row.
    while size > budget {
        let Some(t) = tables
            .iter_mut()
            .filter(|t| t.kept > 1)
            .max_by_key(|t| t.cuttable)
        else {
            break;
        };
        let note = |t: &Table| match t.cut() {
            0 => 0,
            n => table_note(n, t.rows.len()).len(),
        };
        let before = note(t);
        t.kept -= 1;
        let row = lines[t.rows.start + t.kept].len();
        t.cuttable -= row;
        size = size - row - before + note(t);
    }
    let mut out = String::with_capacity(size.min(text.len()));
    let mut next = tables.iter().peekable();
    let mut i = 0;
    while i < lines.len() {
        match next.peek() {
            Some(t) if t.rows.start == i => {
                out.extend(lines[i..i + t.kept].iter().copied());
                if t.cut() > 0 {
                    out.push_str(&table_note(t.cut(), t.rows.len()));
                }
                i = t.rows.end;
                next.next();
            }
            _ => {
                out.push_str(lines[i]);
                i += 1;
            }
        }
    }
    if out.len() > budget {
        // Whole lines from the end, then the line saying so.
        let keep = budget.saturating_sub(REST_CUT.len());
        let mut end = 0;
        for l in out.split_inclusive('\n') {
            if end + l.len() > keep {
                break;
            }
            end += l.len();
        }
        out.truncate(end);
        out.push_str(REST_CUT);
    }
    Cow::Owned(out)
}

/// The tables of `lines`: a line starting with `|` followed by a delimiter row (`|---`,
/// `|:--`), then the data rows, up to the first line that does not start with `|`.
fn tables(lines: &[&str]) -> Vec<Table> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let delimiter = lines[i + 1].starts_with("|-") || lines[i + 1].starts_with("|:");
        if lines[i].starts_with('|') && delimiter {
            let start = i + 2;
            let mut end = start;
            while end < lines.len() && lines[end].starts_with('|') {
                end += 1;
            }
            out.push(Table {
                rows: start..end,
                kept: end - start,
                cuttable: lines[(start + 1).min(end)..end]
                    .iter()
                    .map(|l| l.len())
                    .sum(),
            });
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(head: &str, rows: usize, width: usize) -> String {
        let mut t = format!("| {head} | n |\n|---|---:|\n");
        for r in 0..rows {
            t.push_str(&format!("| {} | {r} |\n", "x".repeat(width)));
        }
        t
    }

    #[test]
    fn a_text_that_fits_is_unchanged() {
        let t = format!("## title\n\n{}", table("a", 3, 10));
        assert!(matches!(fit(&t, t.len()), Cow::Borrowed(_)));
    }

    /// Rows go from the largest table, the last first; the other table and every other line
    /// stay; the note says how many; the result is within the budget and made of whole lines
    /// of the input.
    #[test]
    fn rows_are_cut_from_the_largest_table_and_counted() {
        let small = table("small", 3, 5);
        let big = table("big", 1000, 100);
        let text = format!("## title\n\n{big}\n**Fix:** do this\n\n{small}\n> note: end\n");
        let budget = 20_000;
        let fitted = fit(&text, budget);
        assert!(fitted.len() <= budget, "{}", fitted.len());
        assert!(fitted.len() > budget - 200, "no more is cut than needed");
        assert!(fitted.contains(&small), "the small table is whole");
        assert!(fitted.contains("**Fix:** do this\n") && fitted.ends_with("> note: end\n"));
        let kept = fitted.matches(&format!("| {} |", "x".repeat(100))).count();
        assert!(kept > 100 && kept < 1000, "{kept}");
        assert!(
            fitted.contains(&format!(
                "\n\n_{} of 1000 rows cut to keep this comment within GitHub's 65,536-character limit._\n",
                1000 - kept
            )),
            "{fitted}"
        );
        // The first rows are the ones kept.
        assert!(fitted.contains("| 0 |\n") && !fitted.contains("| 999 |\n"));
        for line in fitted.lines().filter(|l| !l.starts_with("_")) {
            assert!(text.contains(line), "{line}");
        }
    }

    /// With every table down to one row, whole lines go from the end, said in a last line.
    #[test]
    fn then_whole_lines_are_cut_from_the_end() {
        let mut text = table("t", 2, 10);
        for i in 0..2000 {
            text.push_str(&format!("line {i} of prose\n"));
        }
        let fitted = fit(&text, 5_000);
        assert!(fitted.len() <= 5_000);
        assert!(fitted.ends_with(REST_CUT), "{fitted}");
        assert!(fitted.contains("line 0 of prose\n"));
        assert!(fitted.contains("_1 of 2 rows cut"));
    }
}
