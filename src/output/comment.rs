//! A Markdown report that fits one pull-request comment. GitHub refuses a comment whose body is
//! over 65,536 characters ("Body is too long (maximum is 65536 characters)"); a report of
//! thousands of groups (`--top 5000`, names of hundreds of characters) is longer. Two steps
//! keep it within:
//!
//! * every name the Markdown quotes is clipped first ([`clip_name`], through
//!   `markdown::code`), so no one line (a headline naming the largest group, a table row) can
//!   outgrow the comment and push the verdict's explanation, the offenders and the fix out;
//! * then [`fit`] cuts whole table rows, never a line in the middle, and says under each table
//!   it cut how many rows went; only when every table is down to one row are whole lines cut
//!   from the end, said in a last line.

use super::table::wrap;
use std::borrow::Cow;

/// GitHub's limit on a comment's body, in characters.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;

/// Bytes a Markdown report may take unless `--markdown-limit` says otherwise:
/// [`GITHUB_COMMENT_LIMIT`] less room for what a workflow puts around it (a marker line, a
/// footer). Bytes, not characters: a character is at least one byte, so a report within it is
/// within the limit whatever it holds. The GitHub Action passes its own figure (the limit less
/// its marker and footer, `action/run.sh`).
pub const COMMENT_BUDGET: usize = 64_000;

/// The most characters of a name (a symbol, group key, path, library or object) a comment
/// shows; a longer one is clipped ([`clip_name`]). A row of a comment's table quotes at most a
/// few names, so a row stays within a few KB however long the names in the input are.
pub const NAME_CHARS: usize = 256;

/// `name` within `max` characters (`max` ≥ 3): borrowed when it fits; else folded, its lists
/// to `<…>` and `(…)` and its outer scopes to `…::` ([`crate::text::fold::fold_name`]), so no
/// identifier is cut. Only what folding leaves too long (a name of a few long identifiers) is
/// clipped: its head (three fifths of the room) and its tail joined by `…`, each part ending
/// (the head) or starting (the tail) where names nest — after `::`, `,` or `/`, before `<` or
/// `(` ([`wrap::nested`], the break points of table cells) — when such a point keeps at least
/// half of the part's room; else (one identifier longer than that) at a character. Characters,
/// never bytes: no UTF-8 sequence is split. Clip a name before quoting it, so the clip cannot
/// split a code span or an escape the quoting adds.
pub fn clip_name(name: &str, max: usize) -> Cow<'_, str> {
    // At most `max` bytes is at most `max` characters.
    if name.len() <= max || max < 3 || name.chars().count() <= max {
        return Cow::Borrowed(name);
    }
    let folded = crate::text::fold::fold_name(name, max, |s| s.chars().count());
    if folded.chars().count() <= max {
        return Cow::Owned(folded.into_owned());
    }
    let name = folded.as_ref();
    let room = max - 1;
    let head_room = room * 3 / 5;
    let pieces = wrap::nested(name);
    let head = head(name, &pieces, head_room);
    let tail = tail(name, &pieces, room - head_room);
    Cow::Owned(format!("{head}…{tail}"))
}

/// The longest start of `name` made of whole `pieces` within `room` characters, unless that
/// is under half the room: then `room` characters.
fn head<'a>(name: &'a str, pieces: &[&str], room: usize) -> &'a str {
    let (mut end, mut chars) = (0, 0);
    for p in pieces {
        let n = p.chars().count();
        if chars + n > room {
            break;
        }
        end += p.len();
        chars += n;
    }
    if chars * 2 < room {
        end = name.char_indices().nth(room).map_or(name.len(), |(i, _)| i);
    }
    &name[..end]
}

/// The longest end of `name` made of whole `pieces` within `room` characters, unless that is
/// under half the room: then `room` characters.
fn tail<'a>(name: &'a str, pieces: &[&str], room: usize) -> &'a str {
    let (mut start, mut chars) = (name.len(), 0);
    for p in pieces.iter().rev() {
        let n = p.chars().count();
        if chars + n > room {
            break;
        }
        start -= p.len();
        chars += n;
    }
    if chars * 2 < room {
        start = match room {
            0 => name.len(),
            _ => name
                .char_indices()
                .rev()
                .nth(room - 1)
                .map_or(0, |(i, _)| i),
        };
    }
    &name[start..]
}

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
        // Whole lines from the end, then a `</details>` for each block left open (so the last
        // line is not folded away), then the line saying so.
        let opened = |t: &str| t.lines().filter(|l| l.starts_with(DETAILS)).count();
        let closed = |t: &str| t.lines().filter(|l| l.starts_with(DETAILS_END)).count();
        let keep = budget.saturating_sub(REST_CUT.len() + opened(&out) * CLOSE.len());
        let mut end = 0;
        for l in out.split_inclusive('\n') {
            if end + l.len() > keep {
                break;
            }
            end += l.len();
        }
        out.truncate(end);
        let open = opened(&out).saturating_sub(closed(&out));
        out.push_str(&CLOSE.repeat(open));
        out.push_str(REST_CUT);
    }
    Cow::Owned(out)
}

/// How the Markdown reports open and close a folded block, each on a line of its own.
const DETAILS: &str = "<details>";
const DETAILS_END: &str = "</details>";
/// A folded block closed after a cut.
const CLOSE: &str = "\n</details>\n";

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

    /// A name within the limit is borrowed; a longer one is folded (lists, then outer scopes);
    /// what folding leaves too long keeps its head and tail, cut where names nest when that
    /// keeps half of each part's room, and is never longer than the limit.
    #[test]
    fn long_names_are_clipped_where_names_nest() {
        assert!(matches!(
            clip_name("v8::internal::Foo", 17),
            Cow::Borrowed(_)
        ));
        let name = "v8::internal::compiler::turboshaft::Assembler<ReducerList<A, B>>::Emit(Foo*)";
        let clipped = clip_name(name, 40);
        assert_eq!(clipped, "…::turboshaft::Assembler<…>::Emit(…)");
        assert!(clipped.chars().count() <= 40);
        let clipped = clip_name(name, 30);
        assert_eq!(clipped, "…::Assembler<…>::Emit(…)");
        // One identifier longer than the room: cut at a character.
        let long = format!("node::Big{}End()", "k".repeat(1000));
        let clipped = clip_name(&long, 40);
        assert_eq!(clipped.chars().count(), 40, "{clipped}");
        assert!(clipped.starts_with("…::Bigkkk") && clipped.ends_with("kkkEnd()"));
    }

    /// Multi-byte characters are kept whole, at the head, the tail and every length.
    #[test]
    fn clipping_never_splits_a_character() {
        let name = "名前::".repeat(300) + &"é".repeat(301) + "ü";
        for max in 3..300 {
            let clipped = clip_name(&name, max);
            assert!(clipped.chars().count() <= max, "{max}");
            assert!(clipped.contains('…'));
        }
        assert_eq!(clip_name("ééééé", 3), "é…é");
    }

    /// A quoted name is clipped before it is quoted: the span is whole (its fence longer than
    /// any run of backticks left), `|` escaped, and the mark outside it.
    #[test]
    fn a_clipped_name_is_one_whole_code_span_with_the_mark_outside() {
        // One long identifier: folding cannot shorten it, so it is clipped.
        let name = format!("a``b|{}|c`d", "x".repeat(90_000));
        let quoted = crate::output::markdown::code(&name);
        let mark = format!(" (clipped from {} characters)", name.chars().count());
        let span = quoted.strip_suffix(&mark).expect(&quoted);
        assert!(
            span.starts_with("``` a``b\\|x") && span.ends_with("x\\|c`d ```"),
            "{span}"
        );
        assert_eq!(span.matches("```").count(), 2, "{span}");
        // The name's characters, two escapes and the fences.
        assert!(span.chars().count() <= NAME_CHARS + 12, "{}", span.len());
    }

    /// A fitted text cut inside a folded block closes it before the line saying so, and stays
    /// within the budget.
    #[test]
    fn a_cut_inside_a_folded_block_closes_it() {
        let mut text = String::from("## title\n\n<details><summary>more</summary>\n\n");
        for i in 0..2000 {
            text.push_str(&format!("line {i} of prose\n"));
        }
        text.push_str("</details>\n");
        let fitted = fit(&text, 5_000);
        assert!(fitted.len() <= 5_000, "{}", fitted.len());
        assert!(
            fitted.ends_with(&format!("\n</details>\n{REST_CUT}")),
            "{fitted}"
        );
        assert_eq!(fitted.matches("</details>").count(), 1);
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
