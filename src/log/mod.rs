//! Input: `DYLD_PRINT_BINDINGS` logs, read as a stream.
//!
//! * [`reader`] — bytes to lines, in bounded memory (CRLF, invalid UTF-8, a cut last line);
//! * [`line`](mod@line) — one line to its writer (`dyld[PID]: `, syslog, dyld2's `dyld: `) and message,
//!   matched against dyld's format strings verbatim;
//! * [`record`] — the messages of one process to the model's images.
//!
//! Every format, the dyld function that prints it and the dyld versions that do are listed in
//! `docs/logs.md`.

pub mod line;
pub mod reader;
pub mod record;

pub use record::{read_log, read_log_from, set_main};
