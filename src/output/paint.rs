//! Colour for a table report on a terminal (`--color`): the verdict, failures, increases and
//! decreases, painted line by line as the report is written, so no renderer knows of colour and
//! every width stays what it measured (escape codes take no column).
//!
//! | text | colour |
//! |---|---|
//! | `weakscan check FAILED…`, `…: FAILED`, `✗ …` | red (the verdicts bold) |
//! | `weakscan check passed…`, `…: passed` | green (the verdict bold) |
//! | a signed figure `+N`, `+N%`, `+1.5` after a space or `(` | red: an increase |
//! | a signed figure `-N` after a space or `(` | green: a decrease, or what a fix saves |
//!
//! `+1 more` (objects of a group) is a count, not a change, and stays plain; so does anything
//! inside a name (`operator+`, `<-1>`: not after a space or `(`).

use anstyle::{AnsiColor, Style};
use std::io::{self, Write};

const RED: Style = AnsiColor::Red.on_default();
const GREEN: Style = AnsiColor::Green.on_default();

/// A writer that paints each complete line written through it ([`paint_line`]) and passes it
/// on; [`Painter::finish`] writes what is left after the last newline.
pub struct Painter<'w> {
    out: &'w mut dyn Write,
    line: Vec<u8>,
}

impl<'w> Painter<'w> {
    /// Paints what is written to `out`.
    pub fn new(out: &'w mut dyn Write) -> Self {
        Painter {
            out,
            line: Vec::new(),
        }
    }

    /// Writes the last, unterminated line.
    pub fn finish(mut self) -> io::Result<()> {
        let rest = std::mem::take(&mut self.line);
        self.emit(&rest)?;
        self.out.flush()
    }

    fn emit(&mut self, line: &[u8]) -> io::Result<()> {
        match std::str::from_utf8(line) {
            Ok(text) => self.out.write_all(paint_line(text).as_bytes()),
            Err(_) => self.out.write_all(line),
        }
    }
}

impl Write for Painter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let mut line = std::mem::take(&mut self.line);
            line.extend_from_slice(&rest[..=i]);
            self.emit(&line)?;
            rest = &rest[i + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `line` (with its newline, if any) with the colours of the module docs.
pub fn paint_line(line: &str) -> String {
    let body = line.trim_end_matches('\n');
    let newline = &line[body.len()..];
    let whole = |style: Style| format!("{style}{body}{style:#}{newline}");
    if body.starts_with("weakscan check FAILED") {
        return whole(RED.bold());
    }
    if body.starts_with("weakscan check passed") {
        return whole(GREEN.bold());
    }
    if body.starts_with("✗ ") || body.ends_with(": FAILED") {
        return whole(RED);
    }
    if body.ends_with(": passed") {
        return whole(GREEN);
    }
    let mut out = String::with_capacity(line.len() + 32);
    let mut rest = body;
    let mut prev: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let signed = matches!(c, '+' | '-') && matches!(prev, None | Some(' ' | '('));
        let len = if signed { change_len(rest) } else { 0 };
        if len > 0 {
            let style = if c == '+' { RED } else { GREEN };
            out.push_str(&format!("{style}{}{style:#}", &rest[..len]));
            prev = rest[..len].chars().last();
            rest = &rest[len..];
        } else {
            out.push(c);
            prev = Some(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.push_str(newline);
    out
}

/// The length of the signed figure at the start of `s` (`+60`, `-3,939`, `+72.3%`), or 0 when
/// there is none or it is a count (`+1 more`).
fn change_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut n = 1;
    while n < b.len() && (b[n].is_ascii_digit() || (n > 1 && matches!(b[n], b',' | b'.'))) {
        n += 1;
    }
    if n == 1 {
        return 0;
    }
    // A trailing separator is punctuation, not part of the figure.
    while matches!(b[n - 1], b',' | b'.') {
        n -= 1;
    }
    if n < b.len() && b[n] == b'%' {
        n += 1;
    }
    if s[n..].starts_with(" more") {
        return 0;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn verdicts_failures_and_changes_are_painted_and_the_text_kept() {
        let red = RED.render().to_string();
        let green = GREEN.render().to_string();
        for line in [
            "weakscan check FAILED: 7 of 8 budgets exceeded on 1 image\n",
            "✗ weak-bound symbols is 95, over the maximum of 60\n",
            "bin/app (x86_64): FAILED\n",
        ] {
            let p = paint_line(line);
            assert!(p.contains(&red), "{p:?}");
            assert_eq!(plain(&p), line);
        }
        let p = paint_line("weakscan check passed: 3 budgets hold on 1 image\n");
        assert!(p.contains(&green), "{p:?}");
        let p = paint_line("weak-def lookups 83 → 143 (+60, +72%): about -5.0–15.1 ms");
        assert_eq!(
            plain(&p),
            "weak-def lookups 83 → 143 (+60, +72%): about -5.0–15.1 ms"
        );
        assert!(p.contains(&format!("{red}+60")), "{p:?}");
        assert!(p.contains(&format!("{red}+72%")), "{p:?}");
        assert!(p.contains(&format!("{green}-5.0")), "{p:?}");
    }

    #[test]
    fn counts_and_names_stay_plain() {
        for line in [
            "│ v8::internal::Foo<…> ┆ descriptors_a.o +1 more │",
            "operator+(int) and Foo<-1> and -fvisibility=hidden",
            "",
        ] {
            assert_eq!(paint_line(line), line);
        }
    }
}
