//! Where the text of a table report may break, and wrapping to a width: table cells, the story
//! lines before the tables, and every other line a table report writes ([`lines`]).
//!
//! Text breaks at spaces first. A word wider than its line breaks after `::`, `,` and `/` and
//! before `<` and `(`; a piece still too wide, after a hyphen between letters or digits and
//! before the `<…>` or `(…)` a group key ends with — never inside an identifier (a run of `[A-Za-z0-9_]`). A piece wider than the line is cut in the
//! middle with `…`
//! ([`clip`]), so its head and tail stay readable. Widths are display columns
//! (`textwrap::core::display_width`, which reads `unicode-width`); the line filling is
//! textwrap's first fit.

use textwrap::WordSeparator;
use textwrap::core::{Word, display_width};
use textwrap::wrap_algorithms::wrap_first_fit;

/// `word` (text without spaces) cut at every break point: after `::`, `,`, `/` and a hyphen
/// with a letter or digit on each side; before `<` and `(` (not at its start, nor inside `<<`
/// or `((`). The pieces, joined, give `word` back.
pub(crate) fn pieces(word: &str) -> Vec<&str> {
    cut(word, true, true)
}

/// `word` cut where names and paths nest, as a line breaks it first: not at hyphens, nor
/// before a group key's `<…>` or `(…)`. Its longest piece is what a column keeps whole when it
/// can.
pub(crate) fn nested(word: &str) -> Vec<&str> {
    cut(word, false, false)
}

/// `word` cut at its break points: at hyphens only when `hyphens`, before the `<…>` or `(…)`
/// of a group key (what grouping leaves of arguments) only when `elided`.
fn cut(word: &str, hyphens: bool, elided: bool) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut cuts = Vec::new();
    for (k, &(at, c)) in chars.iter().enumerate() {
        let prev = k.checked_sub(1).map(|p| chars[p].1);
        let next = chars.get(k + 1).map(|n| n.1);
        let after = match c {
            ':' => prev == Some(':') && next.is_some_and(|n| n != ':'),
            ',' | '/' => next.is_some(),
            '-' => {
                hyphens
                    && prev.is_some_and(char::is_alphanumeric)
                    && next.is_some_and(char::is_alphanumeric)
            }
            _ => false,
        };
        let args = word[at + c.len_utf8()..].starts_with('…');
        let before = matches!(c, '<' | '(') && prev.is_some_and(|p| p != c) && (elided || !args);
        if before {
            cuts.push(at);
        }
        if after {
            cuts.push(at + c.len_utf8());
        }
    }
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for cut in cuts {
        if cut > start {
            out.push(&word[start..cut]);
            start = cut;
        }
    }
    out.push(&word[start..]);
    out
}

/// `s` cut to at most `width` display columns by replacing its middle with `…` (its head, about
/// three fifths of the room, and its tail kept); `s` itself when it fits.
pub(crate) fn clip(s: &str, width: usize) -> String {
    let total = display_width(s);
    if total <= width {
        return s.to_string();
    }
    let room = width.saturating_sub(1);
    let head_room = room * 3 / 5;
    let tail_room = room - head_room;
    let mut head = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = char_width(c);
        if used + w > head_room {
            break;
        }
        head.push(c);
        used += w;
    }
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = char_width(c);
        if used + w > tail_room {
            break;
        }
        tail.push(c);
        used += w;
    }
    if width == 0 {
        return String::new();
    }
    head.push('…');
    head.extend(tail.into_iter().rev());
    head
}

fn char_width(c: char) -> usize {
    display_width(c.encode_utf8(&mut [0; 4]))
}

/// One line of text (no `\n`) filled to `width` display columns: the first line starts with
/// `first`, the others with `rest`; words too wide for a line are broken and clipped as the
/// module says. Lines carry no trailing spaces; an empty text gives one line, `first`.
pub(crate) fn fill(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let first_room = width.saturating_sub(display_width(first)).max(1);
    let rest_room = width.saturating_sub(display_width(rest)).max(1);
    let room = first_room.min(rest_room);
    // (piece, the spaces after it): owned, since a clipped piece is new text.
    let mut owned: Vec<(String, &str)> = Vec::new();
    for w in WordSeparator::AsciiSpace.find_words(text) {
        if w.width <= room {
            owned.push((w.word.to_string(), w.whitespace));
            continue;
        }
        let parts = split_word(w.word, room);
        let last = parts.len() - 1;
        for (i, p) in parts.into_iter().enumerate() {
            owned.push((clip(p, room), if i == last { w.whitespace } else { "" }));
        }
    }
    let words: Vec<Word<'_>> = owned
        .iter()
        .map(|(p, space)| Word {
            word: p,
            whitespace: space,
            penalty: "",
            width: display_width(p),
        })
        .collect();
    let lines = wrap_first_fit(&words, &[first_room as f64, rest_room as f64]);
    if lines.is_empty() {
        return vec![first.trim_end().to_string()];
    }
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut s = String::from(if i == 0 { first } else { rest });
            for (k, w) in line.iter().enumerate() {
                s.push_str(w.word);
                if k + 1 < line.len() {
                    s.push_str(w.whitespace);
                }
            }
            s
        })
        .collect()
}

/// The pieces a word wider than `room` is set in: cut where names and paths nest; a piece still
/// too wide cut before its `<…>` or `(…)` when that leaves both parts narrow enough, then at
/// its hyphens.
fn split_word(word: &str, room: usize) -> Vec<&str> {
    let fits = |p: &&str| display_width(p) <= room;
    let mut out = Vec::new();
    for p in cut(word, false, false) {
        if fits(&p) {
            out.push(p);
            continue;
        }
        let args = cut(p, false, true);
        let args = if args.iter().all(fits) { args } else { vec![p] };
        for q in args {
            if fits(&q) {
                out.push(q);
            } else {
                out.extend(cut(q, true, false));
            }
        }
    }
    out
}

/// A table cell's text wrapped to `width`: each of its lines filled ([`fill`]), continuation
/// lines unindented, joined with `\n`.
pub(crate) fn cell(text: &str, width: usize) -> String {
    text.split('\n')
        .flat_map(|l| fill(l, width, "", ""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A line of prose wrapped to `width`: kept when it fits; else filled with its own leading
/// spaces first and two more on the lines after.
pub(crate) fn prose(line: &str, width: usize) -> Vec<String> {
    if display_width(line) <= width {
        return vec![line.to_string()];
    }
    let body = line.trim_start_matches(' ');
    let lead = &line[..line.len() - body.len()];
    fill(body, width, lead, &format!("{lead}  "))
}

/// Writes through to `out`, every line wider than `width` wrapped ([`prose`]); lines that fit,
/// such as fitted tables, pass unchanged. Without a width, `out` itself is written.
pub(crate) fn lines(
    out: &mut dyn std::io::Write,
    width: Option<u16>,
    render: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let Some(width) = width else {
        return render(out);
    };
    let mut w = Wrapping {
        out,
        width: usize::from(width),
        line: Vec::new(),
    };
    render(&mut w)?;
    w.end_line(false)
}

/// The writer of [`lines`]: holds a line until its `\n`.
struct Wrapping<'a> {
    out: &'a mut dyn std::io::Write,
    width: usize,
    line: Vec<u8>,
}

impl Wrapping<'_> {
    /// Writes the line held, wrapped, and `\n` when `newline`.
    fn end_line(&mut self, newline: bool) -> std::io::Result<()> {
        let text = String::from_utf8_lossy(&self.line);
        if display_width(&text) <= self.width {
            self.out.write_all(&self.line)?;
        } else {
            let wrapped = prose(&text, self.width).join("\n");
            self.out.write_all(wrapped.as_bytes())?;
        }
        self.line.clear();
        if newline {
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl std::io::Write for Wrapping<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            self.line.extend_from_slice(&rest[..i]);
            self.end_line(true)?;
            rest = &rest[i + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_break_after_scopes_and_before_arguments() {
        assert_eq!(
            pieces("v8::internal::StaticCallInterfaceDescriptor<v8::Foo>"),
            [
                "v8::",
                "internal::",
                "StaticCallInterfaceDescriptor",
                "<v8::",
                "Foo>"
            ]
        );
        assert_eq!(
            cut("v8::internal::FactoryBase<…>", false, false),
            ["v8::", "internal::", "FactoryBase<…>"]
        );
        assert_eq!(cut("delete(…)", false, false), ["delete(…)"]);
        assert_eq!(pieces("delete(…)"), ["delete", "(…)"]);
        assert_eq!(
            pieces("libv8_base_without_compiler.a(interface-descriptors.o)"),
            [
                "libv8_base_without_compiler.a",
                "(interface-",
                "descriptors.o)"
            ]
        );
        assert_eq!(pieces("a/b/c,d"), ["a/", "b/", "c,", "d"]);
        // A minus sign, `<<`, `->` and a leading `(` are no break points.
        assert_eq!(pieces("-3939"), ["-3939"]);
        assert_eq!(pieces("operator<<"), ["operator", "<<"]);
        assert_eq!(pieces("a->b"), ["a->b"]);
        assert_eq!(pieces("(anonymous"), ["(anonymous"]);
        assert_eq!(pieces("f()::x"), ["f", "()::", "x"]);
        assert_eq!(pieces(""), [""]);
    }

    #[test]
    fn clipping_keeps_head_and_tail_within_the_width() {
        assert_eq!(clip("StaticCallInterfaceDescriptor", 12), "Static…iptor");
        assert_eq!(
            display_width(&clip("StaticCallInterfaceDescriptor", 12)),
            12
        );
        assert_eq!(clip("short", 12), "short");
        // Wide characters count twice.
        let c = clip("名前名前名前名前", 7);
        assert!(display_width(&c) <= 7, "{c}");
        assert_eq!(clip("abc", 0), "");
    }

    #[test]
    fn words_stay_whole_when_they_fit_a_line() {
        let text = "largest: v8::internal::StaticCallInterfaceDescriptor<…> 2158, from libv8_base_without_compiler.a(interface-descriptors.o)";
        assert_eq!(
            fill(text, 100, "", "  "),
            [
                "largest: v8::internal::StaticCallInterfaceDescriptor<…> 2158, from",
                "  libv8_base_without_compiler.a(interface-descriptors.o)"
            ]
        );
    }

    #[test]
    fn a_word_wider_than_its_line_breaks_at_its_break_points_then_clips() {
        assert_eq!(
            cell(
                "libv8_base_without_compiler.a(interface-descriptors.o) +1 more",
                30
            ),
            "libv8_base_without_compiler.a\n(interface-descriptors.o) +1\nmore"
        );
        // Hyphens only when a piece is still too wide.
        assert_eq!(
            cell("libv8_base_without_compiler.a(interface-descriptors.o)", 46),
            "libv8_base_without_compiler.a\n(interface-descriptors.o)"
        );
        assert_eq!(
            cell("libnode.a(interface-descriptors.o)", 20),
            "libnode.a(interface-\ndescriptors.o)"
        );
        assert_eq!(
            cell("v8::internal::StaticCallInterfaceDescriptor<…>", 30),
            "v8::internal::\nStaticCallInterfaceDescriptor\n<…>"
        );
        // Cut anyway: its `<…>` stays with it.
        assert_eq!(
            cell("v8::internal::StaticCallInterfaceDescriptor<…>", 20),
            "v8::internal::\nStaticCallI…iptor<…>"
        );
        for width in 1..40 {
            for l in cell("v8::internal::StaticCallInterfaceDescriptor<…> x", width).lines() {
                assert!(display_width(l) <= width, "{width}: {l:?}");
            }
        }
    }

    #[test]
    fn prose_keeps_its_indent_and_hangs_two_more() {
        assert_eq!(
            prose("  - compile libfoo.a with -fvisibility=hidden", 24),
            [
                "  - compile libfoo.a",
                "    with",
                "    -fvisibility=hidden"
            ]
        );
        assert_eq!(prose("fits", 4), ["fits"]);
    }

    #[test]
    fn the_line_writer_wraps_only_lines_too_wide() {
        let mut out = Vec::new();
        lines(&mut out, Some(10), |w| {
            write!(w, "short\nthis line is too long")?;
            writeln!(w, " for ten")
        })
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "short\nthis line\n  is too\n  long for\n  ten\n"
        );
        let mut out = Vec::new();
        lines(&mut out, None, |w| write!(w, "no width: kept whole")).unwrap();
        assert_eq!(out, b"no width: kept whole");
    }
}
