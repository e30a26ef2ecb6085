//! One log line: its prefix (which process wrote it) and its message (what dyld said).
//!
//! Prefixes, from dyld's `RuntimeState::vlog` (dyld-1231.3 `dyld/DyldRuntimeState.cpp`) and
//! dyld2's `dyld::log`:
//!
//! ```text
//! dyld[PID]: MESSAGE              dyld4, to stderr or DYLD_PRINT_TO_FILE
//! <LEVEL>PROGNAME[PID]: MESSAGE   dyld4 to syslog (LEVEL = LOG_USER|LOG_NOTICE = 13)
//! dyld: MESSAGE                   dyld2 (macOS ≤ 11): no PID
//! ```
//!
//! The program's own output shares the stream: a line may be program output only, or program
//! output with no newline followed by a dyld line (`hellodyld[42]: …`). A `dyld[PID]: ` found
//! inside a line starts a dyld message only if that message is one weakscan knows; otherwise
//! the whole line is program output.
//!
//! Messages are matched against dyld's format strings verbatim (see `docs/logs.md` and
//! `docs/dyld-weak-binding.md` for every string and the dyld function that prints
//! it). Symbol names are bytes in the log; they become `String`s losslessly, invalid UTF-8 as
//! `\xNN` (as for names read from Mach-O files).
//!
//! The files: `prefix.rs` splits the writer's prefix off a line (or finds it inside program
//! output); `dyld4.rs` and `dyld2.rs` match the messages of each generation; `message.rs` holds
//! what they match into; `forms.rs` names each line's form and the dyld versions that print it;
//! `scan.rs` has the byte scanning they share.

mod dyld2;
mod dyld4;
mod forms;
mod message;
mod prefix;
mod scan;

pub use forms::{Dyld, FORMS, FormCounts, LineForm, form_of, versions};
pub use message::{BindTo, Dyld2BindKind, FixupKind, Message};
pub use prefix::{MAX_EMBEDDED_PREFIXES, Writer, find_embedded, split_prefix};
pub use scan::text;

use dyld2::parse_dyld2;
use dyld4::parse_dyld4;

/// A line split into its writer and dyld message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DyldLine<'a> {
    /// Who wrote it.
    pub writer: Writer,
    /// Program output before the prefix on the same line (no newline in between).
    pub program_output_before: bool,
    /// What dyld said.
    pub message: Message<'a>,
}

/// Splits `line` (no line terminator) into writer and message. `None`: not a recognized dyld
/// line; [`split_prefix`] tells program output from an unknown dyld message.
pub fn parse_line(line: &[u8]) -> Option<DyldLine<'_>> {
    if let Some((writer, rest)) = split_prefix(line) {
        return Some(DyldLine {
            writer,
            program_output_before: false,
            message: parse_message(writer, rest)?,
        });
    }
    let (writer, _, message) = find_embedded(line)?;
    Some(DyldLine {
        writer,
        program_output_before: true,
        message,
    })
}

/// The message after a prefix, if weakscan knows it.
pub fn parse_message(writer: Writer, message: &[u8]) -> Option<Message<'_>> {
    match writer {
        Writer::Dyld4 { .. } => parse_dyld4(message),
        Writer::Dyld2 => parse_dyld2(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of a line weakscan must recognize.
    pub(super) fn msg(line: &str) -> Message<'_> {
        parse_line(line.as_bytes())
            .unwrap_or_else(|| panic!("not recognized: {line}"))
            .message
    }

    #[test]
    fn prefixes() {
        let l = parse_line(b"dyld[4242]: looking for weak-def symbol '__Znwm':").unwrap();
        assert_eq!(
            l.writer,
            Writer::Dyld4 {
                pid: 4242,
                syslog: false
            }
        );
        let l = parse_line(b"<13>node[77]: looking for weak-def symbol '__Znwm':").unwrap();
        assert_eq!(
            l.writer,
            Writer::Dyld4 {
                pid: 77,
                syslog: true
            }
        );
        let l = parse_line(b"hello worlddyld[5]: <app/bind#3> -> 0x10 (app/_x)").unwrap();
        assert!(l.program_output_before);
        assert_eq!(
            l.writer,
            Writer::Dyld4 {
                pid: 5,
                syslog: false
            }
        );
        assert!(parse_line(b"the dyld[5]: said nothing we know").is_none());
        assert!(parse_line(b"dyld[99999999999]: looking for weak-def symbol '_a':").is_none());
        assert_eq!(
            split_prefix(b"dyld[1]: something else"),
            Some((
                Writer::Dyld4 {
                    pid: 1,
                    syslog: false
                },
                &b"something else"[..]
            ))
        );
        assert_eq!(split_prefix(b"plain output"), None);
        for short in [
            &b""[..],
            b"d",
            b"dyld",
            b"dyld[",
            b"dyld[1]",
            b"<",
            b"<1>",
            b"<1>a[",
            b"xdyld",
        ] {
            assert!(parse_line(short).is_none(), "{short:?}");
        }
    }
}
