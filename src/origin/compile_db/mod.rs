//! clang's JSON compilation database (`compile_commands.json`), and finding the entry that
//! compiled a source file or produced an object file.
//!
//! The format (<https://clang.llvm.org/docs/JSONCompilationDatabase.html>) is a JSON array of
//! objects, one per compilation:
//!
//! ```json
//! [
//!   { "directory": "/home/me/node/out/Release",
//!     "file": "../../deps/v8/src/codegen/interface-descriptors.cc",
//!     "arguments": ["c++", "-fvisibility=hidden", "-c", "../../deps/v8/src/codegen/interface-descriptors.cc",
//!                   "-o", "obj/deps/v8/v8_base_without_compiler.interface-descriptors.o"],
//!     "output": "obj/deps/v8/v8_base_without_compiler.interface-descriptors.o" }
//! ]
//! ```
//!
//! `directory` (the working directory of the compilation) and `file` (the main source, relative
//! to `directory` or absolute) are required; so is one of `arguments` (the argv) and `command`
//! (one shell-quoted string, split here by the `shlex` crate as a POSIX shell would, without
//! expansions). When both are given `arguments` is used, as the specification prefers it, and
//! `command` is not split. `output` is optional. Other keys are ignored. Writers: CMake
//! (`CMAKE_EXPORT_COMPILE_COMMANDS`, with `command` and `output`), `ninja -t compdb` (`command`
//! and `output`), gyp's `compile_commands_json` generator (node's `./configure -C`: `command`
//! with no `-o`, a relative `directory`, an absolute `file`, no `output`), Bear and clangd tools
//! (`arguments`).
//!
//! Errors name what is wrong and where: not JSON (serde_json's line and column), not an array,
//! and for entry `i` (0-based): not an object, no string `file` or `directory`, neither
//! `arguments` (an array of strings) nor `command` (a string), an `output` that is not a string,
//! a `command` that `shlex` cannot split (an unbalanced quote, a trailing backslash).
//!
//! A `command` of several shell commands keeps the compiler invocation that makes the entry
//! (the rule is on [`parse_compile_db`]).
//!
//! [`visibility_flags`] reads an argv's visibility options; [`visibility_of`] an entry's, with
//! its response files read, or why it cannot be told; [`CompileDbIndex`] finds the entry
//! of a source path or an object file (the matching rules are on [`CompileDbIndex::find`]);
//! [`target_of`] guesses the build target from the output path. [`parse_compile_input`] also
//! reads a plain dump of build commands (`ninja -n --verbose`), told apart by content.

mod argv;
mod dump;
mod index;
mod parse;
mod path;
mod response;

pub use argv::*;
pub use dump::*;
pub use index::*;
pub use parse::*;
pub use path::*;
pub use response::*;

use crate::text::escape;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

/// One entry of the database. Its strings are boxed (no spare capacity) and `directory` is
/// shared between the entries that have the same one, so that a database of a million entries
/// takes less memory than its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileCommand {
    /// The working directory of the compilation, as written.
    pub directory: Arc<str>,
    /// The main source file, as written (relative to `directory`, or absolute).
    pub file: Box<str>,
    /// The `output` key, as written (relative to `directory`, or absolute). See [`output_of`]
    /// for the output with `-o` as a fallback.
    pub output: Option<Box<str>>,
    /// The argv: `arguments`, or the compiler invocation of `command` split as a shell would
    /// (see [`parse_compile_db`] for a `command` of several commands).
    pub arguments: Argv,
    /// Why the argv does not tell the entry's visibility, known from reading the entry: a
    /// `command` of several commands none of which is found to compile `file`. `None` for
    /// almost every entry.
    pub unknown: Option<&'static str>,
}

/// An argv in one allocation: each argument followed by a NUL. A NUL inside an argument (which
/// no real argv can hold) is stored as U+FFFD; [`parse_compile_db`] marks such an entry
/// [`CompileCommand::unknown`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Argv(Box<str>);

impl Argv {
    /// The arguments, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + Clone {
        self.0.split_terminator('\0')
    }

    /// How many arguments.
    pub fn len(&self) -> usize {
        self.0.bytes().filter(|&b| b == 0).count()
    }

    /// No arguments.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Argv {
    fn from_iter<I: IntoIterator<Item = S>>(args: I) -> Self {
        let mut all = String::new();
        for a in args {
            let a = a.as_ref();
            if a.contains('\0') {
                all.push_str(&a.replace('\0', "\u{fffd}"));
            } else {
                all.push_str(a);
            }
            all.push('\0');
        }
        Argv(all.into_boxed_str())
    }
}

impl PartialEq<Vec<String>> for Argv {
    fn eq(&self, other: &Vec<String>) -> bool {
        self.iter().eq(other.iter().map(String::as_str))
    }
}

/// A compilation database that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileDbError {
    /// Not JSON (or JSON nested deeper than serde_json's limit of 128).
    Json {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// serde_json's message, without the position.
        message: String,
    },
    /// JSON whose top level is not an array.
    NotAnArray,
    /// Entry `index` (0-based) is not usable.
    Entry {
        /// 0-based position in the array.
        index: usize,
        /// What is wrong.
        message: &'static str,
    },
    /// Line `line` (1-based) of a command dump is not usable.
    Line {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: &'static str,
    },
}

impl fmt::Display for CompileDbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileDbError::Json {
                line,
                column,
                message,
            } => write!(
                f,
                "compile database: not JSON: {} (line {line}, column {column})",
                escape(message)
            ),
            CompileDbError::NotAnArray => {
                f.write_str("compile database: the top level is not an array of entries")
            }
            CompileDbError::Entry { index, message } => {
                write!(f, "compile database: entry {index} (0-based): {message}")
            }
            CompileDbError::Line { line, message } => {
                write!(f, "command dump: line {line}: {message}")
            }
        }
    }
}

impl std::error::Error for CompileDbError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database entry.
    pub(super) fn cmd(
        directory: &str,
        file: &str,
        output: Option<&str>,
        args: &[&str],
    ) -> CompileCommand {
        CompileCommand {
            directory: directory.into(),
            file: file.into(),
            output: output.map(Into::into),
            arguments: args.iter().collect(),
            unknown: None,
        }
    }

    /// `args` as owned strings.
    pub(super) fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn argv_keeps_every_argument() {
        let cases: &[&[&str]] = &[&[], &[""], &["cc"], &["cc", "", "-c", "a b"], &["", ""]];
        for args in cases {
            let argv: Argv = args.iter().collect();
            assert_eq!(argv.iter().collect::<Vec<_>>(), *args, "{args:?}");
            assert_eq!(argv.len(), args.len(), "{args:?}");
            assert_eq!(argv.is_empty(), args.is_empty(), "{args:?}");
        }
        let argv: Argv = ["a\0b"].iter().collect();
        assert_eq!(argv.iter().collect::<Vec<_>>(), ["a\u{fffd}b"]);
    }
}
