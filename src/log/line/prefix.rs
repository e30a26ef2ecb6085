//! The prefix of a line, which says who wrote it: `dyld[PID]: `, the syslog form
//! `<LEVEL>PROGNAME[PID]: ` or dyld2's `dyld: ` at the start of a line, or a `dyld[PID]: `
//! inside program output that has no newline (see the [module docs](super)).

use super::message::Message;
use super::parse_message;
use super::scan::{decimal_u32, find};

/// Who wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    /// dyld4 (`dyld[PID]: ` or the syslog form): the process id.
    Dyld4 {
        /// The process id.
        pid: u32,
        /// Written in the syslog form `<13>progname[PID]: `.
        syslog: bool,
    },
    /// dyld2 (`dyld: `): no process id.
    Dyld2,
}

/// Most dyld prefixes inside one line whose message is tried by [`find_embedded`]. Matching a
/// message may scan to the end of the line, so without a cap a line of repeated prefixes would
/// take time quadratic in its length (fuzz-audit finding); real program output holds one.
pub const MAX_EMBEDDED_PREFIXES: usize = 4;

/// Program output with no newline, then a dyld line: the first dyld prefix inside `line`
/// (not at its start) whose message weakscan knows, among the first
/// [`MAX_EMBEDDED_PREFIXES`] prefixes, with the message's bytes. Time: linear in the line's
/// length.
pub fn find_embedded(line: &[u8]) -> Option<(Writer, &[u8], Message<'_>)> {
    let mut from = 1;
    let mut tries = 0;
    while let Some(at) = line
        .get(from..)
        .and_then(|r| find(r, b"dyld"))
        .map(|i| i + from)
    {
        if let Some((writer, rest)) = split_prefix(&line[at..]) {
            if let Some(message) = parse_message(writer, rest) {
                return Some((writer, rest, message));
            }
            tries += 1;
            if tries == MAX_EMBEDDED_PREFIXES {
                return None;
            }
        }
        from = at + 1;
    }
    None
}

/// `dyld[PID]: `, `<N>name[PID]: ` or `dyld: ` at the start of `line`: the writer and the
/// message after the prefix (known or not). `None`: program output.
pub fn split_prefix(line: &[u8]) -> Option<(Writer, &[u8])> {
    if let Some(rest) = line.strip_prefix(b"dyld[") {
        let (pid, rest) = decimal_u32(rest)?;
        let rest = rest.strip_prefix(b"]: ")?;
        return Some((Writer::Dyld4 { pid, syslog: false }, rest));
    }
    if let Some(rest) = line.strip_prefix(b"dyld: ") {
        return Some((Writer::Dyld2, rest));
    }
    if let Some(rest) = line.strip_prefix(b"<") {
        let (_, rest) = decimal_u32(rest)?;
        let rest = rest.strip_prefix(b">")?;
        let open = rest.iter().position(|&b| b == b'[')?;
        if open == 0 || rest[..open].contains(&b' ') {
            return None;
        }
        let (pid, rest) = decimal_u32(&rest[open + 1..])?;
        let rest = rest.strip_prefix(b"]: ")?;
        return Some((Writer::Dyld4 { pid, syslog: true }, rest));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fuzz-audit finding: every `dyld` prefix in a line was tried, each scanning to the end of
    /// the line, so a line of repeated prefixes took time quadratic in its length. Only the
    /// first MAX_EMBEDDED_PREFIXES prefixes are tried.
    #[test]
    fn embedded_prefixes_tried_are_capped() {
        let good = "dyld[1]: looking for weak-def symbol '__Znwm':";
        let line = |junk: usize| format!("out{}{good}", "dyld[1]: <".repeat(junk));
        assert!(find_embedded(line(MAX_EMBEDDED_PREFIXES - 1).as_bytes()).is_some());
        assert!(find_embedded(line(MAX_EMBEDDED_PREFIXES).as_bytes()).is_none());
        assert!(find_embedded(line(100_000).as_bytes()).is_none());
    }
}
