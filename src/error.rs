//! Errors: one line each, naming what was being read and what is wrong.
//!
//! Parsers return [`ParseError`], a short static message plus the byte offset (relative to the
//! structure being parsed) where the problem was found, in the style of the object crate's
//! `read_error("Invalid … offset or size")`. The container layer wraps it into an [`Error`] that
//! names the file, the slice and the structure, e.g.
//! `node: x86_64: export trie: child node offset out of range (at offset 0x1f3)`.

use crate::text::{escape, escape_path};
use std::fmt;
use std::path::Path;

/// A malformed-structure error from one of the parsers in [`crate::macho`].
///
/// `offset` is relative to the start of the structure being parsed (the export trie, the
/// weak-bind stream, the chained-fixups blob, …), not to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong, e.g. `"ULEB128 overflows 64 bits"`.
    pub message: &'static str,
    /// Byte offset inside the parsed structure where the problem was detected.
    pub offset: u64,
    /// [`ErrorKind::Malformed`], or [`ErrorKind::Unsupported`] for a valid structure weakscan
    /// does not read (a thin archive, a 32-bit chained pointer format).
    pub kind: ErrorKind,
}

impl ParseError {
    /// A malformed structure at `offset`.
    pub fn new(message: &'static str, offset: u64) -> Self {
        ParseError {
            message,
            offset,
            kind: ErrorKind::Malformed,
        }
    }

    /// A valid structure weakscan does not read, at `offset`.
    pub fn unsupported(message: &'static str, offset: u64) -> Self {
        ParseError {
            kind: ErrorKind::Unsupported,
            ..ParseError::new(message, offset)
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset {:#x})", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// What kind of failure an [`Error`] is; all of them map to exit code 2 in the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file could not be opened or read.
    Io,
    /// The file is not a Mach-O file, or a structure inside it is malformed.
    Malformed,
    /// A well-formed input that weakscan does not handle (32-bit image, zlib-compressed chained
    /// fixups symbols, an unknown pointer format, …).
    Unsupported,
    /// Bad command-line usage that clap could not catch (e.g. `--arch` names no slice).
    Usage,
    /// A policy file (`weakscan.toml`) or baseline file that cannot be used: a syntax error, an
    /// unknown key, a wrong type, a bad glob or regex, a baseline of another arch or schema.
    Policy,
}

/// A user-facing error: one line that names the file and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The failure class.
    pub kind: ErrorKind,
    /// The full one-line message, already including the file name.
    pub message: String,
}

/// The most characters of what an error says after its path ([`Error::new`], [`Error::at`],
/// [`Error::usage`]); a longer text (one quoting a 100 KB name or value from an input) keeps
/// its head and tail around `…` ([`crate::text::clip_middle`]), so an error line stays one
/// short line wherever it goes (a terminal, a CI log, the Action's comment).
pub const MAX_ERROR_CHARS: usize = 2048;

/// `what` escaped to one line ([`escape`]) and clipped to [`MAX_ERROR_CHARS`].
fn one_line(what: &str) -> String {
    let escaped = escape(what);
    if escaped.len() <= MAX_ERROR_CHARS {
        escaped.into_owned()
    } else {
        crate::text::clip_middle(&escaped, MAX_ERROR_CHARS)
    }
}

impl Error {
    /// An error of `kind` about `path`: `"{path}: {what}"`.
    ///
    /// The message is one line: the path and `what` go through [`crate::text::escape`], and
    /// `what` is clipped to [`MAX_ERROR_CHARS`].
    pub fn new(kind: ErrorKind, path: &Path, what: impl fmt::Display) -> Self {
        Error {
            kind,
            message: format!("{}: {}", escape_path(path), one_line(&what.to_string())),
        }
    }

    /// An I/O error about `path`.
    pub fn io(path: &Path, err: &std::io::Error) -> Self {
        Error::new(ErrorKind::Io, path, err)
    }

    /// An error at `line:column` (1-based, columns in characters) of the text file `path`:
    /// `"{path}:{line}:{column}: {what}"`, the form editors and CI problem matchers read.
    pub fn at(
        kind: ErrorKind,
        path: &Path,
        line: usize,
        column: usize,
        what: impl fmt::Display,
    ) -> Self {
        Error {
            kind,
            message: format!(
                "{}:{line}:{column}: {}",
                escape_path(path),
                one_line(&what.to_string())
            ),
        }
    }

    /// A usage error without a file (escaped to one line, clipped to [`MAX_ERROR_CHARS`]).
    pub fn usage(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Usage,
            message: one_line(&message.into()),
        }
    }
}

impl Error {
    /// The same message as another kind.
    pub fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Result alias for user-facing operations.
pub type Result<T> = std::result::Result<T, Error>;
