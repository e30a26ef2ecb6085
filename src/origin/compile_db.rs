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
//! [`target_of`] guesses the build target from the output path.

use crate::origin::link_map::split_object;
use crate::text::escape;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::fmt;
use std::hash::{Hash, Hasher};
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
        }
    }
}

impl std::error::Error for CompileDbError {}

/// Reads a compilation database. See the [module documentation](self) for the format and the
/// errors; a JSON error anywhere in the text is reported before an unusable entry.
///
/// The text is read as a stream (serde's `SeqAccess`): each entry becomes a [`CompileCommand`]
/// as it is read, with no JSON tree of the whole database, so the memory held is the entries'
/// strings (boxed, the argv in one allocation, one copy of each distinct `directory`), not a
/// tree several times the text's size.
///
/// A `command` holding several commands, joined by `&&`, `||`, `;`, `|`, `&` or a newline
/// outside quotes (as separate words or attached, `a.o&&`), keeps only the compiler invocation
/// that makes the entry, the first that fits of: the one whose last `-o` is the entry's `output`
/// (both normalized against `directory`); the one with `-c` and an argument that is the entry's
/// `file`; the only one with `-c`. When none fits, `arguments` holds every command's words and
/// [`CompileCommand::unknown`] says why the visibility is unknown.
pub fn parse_compile_db(bytes: &[u8]) -> Result<Vec<CompileCommand>, CompileDbError> {
    let top: Top = serde_json::from_slice(bytes).map_err(|e| {
        let (line, column) = (e.line(), e.column());
        let mut message = e.to_string();
        let at = format!(" at line {line} column {column}");
        if let Some(m) = message.strip_suffix(&at) {
            message.truncate(m.len());
        }
        CompileDbError::Json {
            line,
            column,
            message,
        }
    })?;
    top.0
}

/// The whole database, read by [`TopVisitor`]: the entries, or the first problem.
struct Top(Result<Vec<CompileCommand>, CompileDbError>);

impl<'de> de::Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopVisitor)
    }
}

/// Anything that is not an array is `NotAnArray` (maps and arrays still read to their end, so
/// that a JSON error after them wins, as with a tree).
struct TopVisitor;

macro_rules! not_this {
    ($out:expr, $null:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($null)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($null)
        }
    };
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of entries")
    }
    not_this!(
        Top(Err(CompileDbError::NotAnArray)),
        Top(Err(CompileDbError::NotAnArray))
    );
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Top, A::Error> {
        drain_map(map)?;
        Ok(Top(Err(CompileDbError::NotAnArray)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
        let mut entries = Vec::new();
        let mut first_error = None;
        let mut index = 0;
        let mut directories: HashMap<Arc<str>, ()> = HashMap::new();
        while let Some(Entry(entry)) = seq.next_element()? {
            match entry {
                Ok(mut e) if first_error.is_none() => {
                    match directories.get_key_value(&e.directory) {
                        Some((d, ())) => e.directory = d.clone(),
                        None => {
                            directories.insert(e.directory.clone(), ());
                        }
                    }
                    entries.push(e);
                }
                Ok(_) => {}
                Err(message) if first_error.is_none() => {
                    first_error = Some(CompileDbError::Entry { index, message });
                    entries = Vec::new();
                }
                Err(_) => {}
            }
            index += 1;
        }
        Ok(Top(match first_error {
            Some(e) => Err(e),
            None => {
                entries.shrink_to_fit();
                Ok(entries)
            }
        }))
    }
}

/// One element of the array: its command, or what is wrong with it.
struct Entry(Result<CompileCommand, &'static str>);

impl<'de> de::Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

/// An entry's key, as far as it matters.
enum Key {
    Directory,
    File,
    Output,
    Arguments,
    Command,
    Other,
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, k: &str) -> Result<Key, E> {
        Ok(match k {
            "directory" => Key::Directory,
            "file" => Key::File,
            "output" => Key::Output,
            "arguments" => Key::Arguments,
            "command" => Key::Command,
            _ => Key::Other,
        })
    }
}

/// A value that should be a string: `Null` for JSON `null`, `Other` for any other type.
#[derive(Default)]
enum Str {
    #[default]
    Absent,
    Null,
    Text(String),
    Other,
}

impl<'de> de::Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrVisitor)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Str;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Str, E> {
        Ok(Str::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Str, E> {
        Ok(Str::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Str, E> {
        Ok(Str::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Str, E> {
        Ok(Str::Other)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Str, E> {
        Ok(Str::Text(s.to_owned()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Str, E> {
        Ok(Str::Text(s))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Str, E> {
        Ok(Str::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Str, E> {
        Ok(Str::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Str, A::Error> {
        drain_seq(seq)?;
        Ok(Str::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Str, A::Error> {
        drain_map(map)?;
        Ok(Str::Other)
    }
}

/// The `arguments` value: `Array(None)` when an element is not a string.
#[derive(Default)]
enum Args {
    #[default]
    Absent,
    Null,
    Array(Option<Vec<String>>),
    Other,
}

impl<'de> de::Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ArgsVisitor)
    }
}

struct ArgsVisitor;

impl<'de> Visitor<'de> for ArgsVisitor {
    type Value = Args;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of strings")
    }
    not_this!(Args::Other, Args::Null);
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Args, A::Error> {
        drain_map(map)?;
        Ok(Args::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Args, A::Error> {
        let mut args = Some(Vec::new());
        while let Some(s) = seq.next_element::<Str>()? {
            match (s, &mut args) {
                (Str::Text(s), Some(a)) => a.push(s),
                _ => args = None,
            }
        }
        if let Some(a) = &mut args {
            a.shrink_to_fit();
        }
        Ok(Args::Array(args))
    }
}

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entry")
    }
    not_this!(Entry(Err("not an object")), Entry(Err("not an object")));
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Entry, A::Error> {
        drain_seq(seq)?;
        Ok(Entry(Err("not an object")))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        // As a JSON object read into a map: a repeated key keeps its last value.
        let (mut directory, mut file, mut output) = (Str::Absent, Str::Absent, Str::Absent);
        let (mut arguments, mut command) = (Args::Absent, Str::Absent);
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Directory => directory = map.next_value()?,
                Key::File => file = map.next_value()?,
                Key::Output => output = map.next_value()?,
                Key::Arguments => arguments = map.next_value()?,
                Key::Command => command = map.next_value()?,
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Entry(entry_of(directory, file, output, arguments, command)))
    }
}

/// A string field: `None` when absent or null, `Err` when not a string.
fn string(v: Str) -> Result<Option<String>, ()> {
    match v {
        Str::Absent | Str::Null => Ok(None),
        Str::Text(s) => Ok(Some(s)),
        Str::Other => Err(()),
    }
}

fn entry_of(
    directory: Str,
    file: Str,
    output: Str,
    arguments: Args,
    command: Str,
) -> Result<CompileCommand, &'static str> {
    let directory = string(directory)
        .map_err(|()| "`directory` is not a string")?
        .ok_or("no `directory`")?;
    let file = string(file)
        .map_err(|()| "`file` is not a string")?
        .ok_or("no `file`")?;
    let output = string(output).map_err(|()| "`output` is not a string")?;
    let mut unknown = None;
    let arguments: Vec<String> = match (arguments, command) {
        (Args::Array(Some(args)), _) => args,
        (Args::Array(None), _) => {
            return Err("`arguments` has an element that is not a string");
        }
        (Args::Null | Args::Absent, Str::Text(command)) => {
            let (args, u) = split_command(&command, &directory, &file, output.as_deref())?;
            unknown = u;
            args
        }
        (Args::Null | Args::Absent, Str::Absent | Str::Null) => {
            return Err("neither `arguments` nor `command`");
        }
        (Args::Null | Args::Absent, Str::Other) => return Err("`command` is not a string"),
        (Args::Other, _) => return Err("`arguments` is not an array"),
    };
    if arguments.iter().any(|a| a.contains('\0')) {
        unknown = Some(NUL_ARGUMENT);
    }
    let arguments: Argv = arguments.iter().collect();
    Ok(CompileCommand {
        directory: directory.into(),
        file: file.into_boxed_str(),
        output: output.map(String::into_boxed_str),
        arguments,
        unknown,
    })
}

/// `command` split into shell commands at `&&`, `||`, `;`, `|`, `&` and newlines outside
/// quotes (a backslash escapes the next character outside single quotes, as in a POSIX shell).
fn shell_commands(command: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut single, mut double, mut escaped) = (0, false, false, false);
    for (i, c) in command.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '&' | '|' | ';' | '\n' if !single && !double => {
                parts.push(&command[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&command[start..]);
    parts
}

/// The argv of the compiler invocation of `command` that makes the entry; see
/// [`parse_compile_db`].
type Split = (Vec<String>, Option<&'static str>);

fn split_command(
    command: &str,
    directory: &str,
    file: &str,
    output: Option<&str>,
) -> Result<Split, &'static str> {
    const CANNOT: &str = "`command` cannot be split (unbalanced quote or trailing backslash)";
    let parts = shell_commands(command);
    let mut commands: Vec<Vec<String>> = Vec::new();
    for p in &parts {
        let words = shlex::split(p).ok_or(CANNOT)?;
        if !words.is_empty() {
            commands.push(words);
        }
    }
    if commands.len() <= 1 {
        let mut args = commands.pop().unwrap_or_default();
        args.shrink_to_fit();
        return Ok((args, None));
    }
    let norm = |p: &str| normalize(p, Some(directory));
    let has_c = |a: &[String]| {
        let mut c = false;
        walk(a.iter().map(String::as_str), |arg| {
            c |= matches!(arg, Arg::Flag("-c"));
        });
        c
    };
    let by_output = output.and_then(|o| {
        let o = norm(o);
        commands
            .iter()
            .position(|a| last_output(a.iter().map(String::as_str)).is_some_and(|x| norm(x) == o))
    });
    let file = norm(file);
    let by_file = || {
        commands.iter().position(|a| {
            let mut names_file = false;
            walk(a.iter().map(String::as_str).skip(1), |arg| {
                if let Arg::Flag(f) | Arg::Input(f) = arg {
                    names_file |= !f.starts_with('-') && norm(f) == file;
                }
            });
            names_file && has_c(a)
        })
    };
    let only_c = || {
        let mut with_c = commands.iter().enumerate().filter(|(_, a)| has_c(a));
        match (with_c.next(), with_c.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    };
    match by_output.or_else(by_file).or_else(only_c) {
        Some(i) => {
            let mut args = commands.swap_remove(i);
            args.shrink_to_fit();
            Ok((args, None))
        }
        None => Ok((
            commands.concat(),
            Some("its `command` holds several commands and none is found to compile its `file`"),
        )),
    }
}

/// One argument of an argv as the driver reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg<'a> {
    /// An option or an input before `--`.
    Flag(&'a str),
    /// The value of an option that takes the next argument (`-o FILE`): not an option.
    Operand(&'a str, &'a str),
    /// An argument of `-Xclang`, for the compiler proper (cc1).
    Cc1(&'a str),
    /// After `--`: an input, whatever it looks like.
    Input(&'a str),
}

/// clang driver options (`clang/include/clang/Driver/Options.td`) whose value may be the next
/// argument (`Separate` or `JoinedOrSeparate` kinds): that argument is their value, never an
/// option. Only the exact spelling takes the next argument (`-DX` and `-xc++` are joined).
/// `-Xclang` is handled apart; any `-Xarch_ARCH` also takes the next argument.
pub const SEPARATE_VALUE_OPTIONS: &[&str] = &[
    "-o",
    "-D",
    "-U",
    "-I",
    "-F",
    "-L",
    "-l",
    "-u",
    "-include",
    "-include-pch",
    "-imacros",
    "-isystem",
    "-isystem-after",
    "-iquote",
    "-idirafter",
    "-iframework",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-ivfsoverlay",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-x",
    "-arch",
    "-target",
    "--target",
    "--sysroot",
    "-Xlinker",
    "-Xpreprocessor",
    "-Xassembler",
    "-Xanalyzer",
    "-Xopenmp-target",
    "-Xcuda-fatbinary",
    "-Xcuda-ptxas",
    "-mllvm",
    "-serialize-diagnostics",
    "-dependency-file",
    "-dependency-dot",
    "--param",
    "-working-directory",
];

/// Reads `args` as clang's driver does, calling `each` for every argument: the values of
/// [`SEPARATE_VALUE_OPTIONS`] are operands, the argument after `-Xclang` goes to cc1, and
/// everything after `--` is an input. A dangling option (no value) ends the walk.
fn walk<'a>(args: impl IntoIterator<Item = &'a str>, mut each: impl FnMut(Arg<'a>)) {
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            args.by_ref().for_each(|a| each(Arg::Input(a)));
            return;
        }
        if arg == "-Xclang" {
            match args.next() {
                Some(a) => each(Arg::Cc1(a)),
                None => return,
            }
        } else if SEPARATE_VALUE_OPTIONS.contains(&arg) || arg.starts_with("-Xarch_") {
            match args.next() {
                Some(a) => each(Arg::Operand(arg, a)),
                None => return,
            }
        } else {
            each(Arg::Flag(arg));
        }
    }
}

/// The value of the last `-o FILE` (or `-oFILE` when `FILE` ends in `.o` or `.obj`) of an argv
/// (`args[0]` is the compiler and is not read).
fn last_output<'a>(args: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut out = None;
    walk(args.into_iter().skip(1), |arg| match arg {
        Arg::Operand("-o", o) => out = Some(o),
        Arg::Flag(a) => {
            if let Some(o) = a.strip_prefix("-o")
                && (o.ends_with(".o") || o.ends_with(".obj"))
            {
                out = Some(o);
            }
        }
        _ => {}
    });
    out
}

/// The visibility options of one compilation, as the compiler will apply them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VisibilityFlags {
    /// The value of the last `-fvisibility=VALUE` (`default`, `hidden`, `internal`,
    /// `protected`); `None` when not given, which is `default`.
    pub visibility: Option<String>,
    /// `-fvisibility-inlines-hidden` is in effect: given, and not cancelled by a later
    /// `-fno-visibility-inlines-hidden`.
    pub inlines_hidden: bool,
    /// `-fvisibility-ms-compat` is in effect: given after the last `-fvisibility=`. clang's driver
    /// takes the last of the two and turns `-fvisibility-ms-compat` into `-fvisibility=hidden
    /// -ftype-visibility=default` (types keep default visibility, functions and variables are
    /// hidden).
    pub ms_compat: bool,
}

impl VisibilityFlags {
    /// Functions and variables are hidden unless marked otherwise: `-fvisibility=hidden` or
    /// `internal`, or `-fvisibility-ms-compat` (clang's driver passes `-fvisibility=hidden` for
    /// it, `clang/lib/Driver/ToolChains/Clang.cpp`). Values are compared as clang does, case
    /// sensitively; `protected` does not hide.
    pub fn hides_by_default(&self) -> bool {
        self.ms_compat || matches!(self.visibility.as_deref(), Some("hidden" | "internal"))
    }
}

/// The visibility options in an argv (`arguments[0]`, the compiler, is read like the rest: it
/// never matches). Pure: response files are not read (see [`visibility_of`]).
///
/// The spellings handled are clang's driver options (`clang/include/clang/Driver/Options.td`),
/// which GCC shares: `-fvisibility=VALUE` (joined only: the driver rejects `-fvisibility VALUE`),
/// `-fvisibility-ms-compat`, `-fvisibility-inlines-hidden` and `-fno-visibility-inlines-hidden`,
/// the last one of each pair winning. Only options count: not the value of an option that takes
/// the next argument ([`SEPARATE_VALUE_OPTIONS`]: `-o -fvisibility=hidden` names an output,
/// `-D -fvisibility=hidden` a macro), and nothing after `--` (inputs). Options passed straight
/// to the compiler proper with `-Xclang` are handled as cc1 sees them, after every driver option
/// whatever their position: `-Xclang -fvisibility=VALUE` (cc1 accepts the joined spelling),
/// `-Xclang -fvisibility -Xclang VALUE` (cc1's older separate spelling) and `-Xclang
/// -fvisibility-inlines-hidden`. Not handled: `-Xarch_*` values, `-Wp,`, and options that only
/// look alike (`-fvisibility-inlines-hidden-static-local-var`, `-fvisibility-global-new-delete=…`,
/// `-ftype-visibility=…`).
pub fn visibility_flags(arguments: &Argv) -> VisibilityFlags {
    visibility_of_args(arguments.iter())
}

fn visibility_of_args<'a>(arguments: impl IntoIterator<Item = &'a str>) -> VisibilityFlags {
    let mut flags = VisibilityFlags::default();
    let mut cc1: Vec<&str> = Vec::new();
    walk(arguments, |arg| match arg {
        Arg::Cc1(a) => cc1.push(a),
        Arg::Flag(arg) => {
            if let Some(v) = arg.strip_prefix("-fvisibility=") {
                flags.visibility = Some(v.to_owned());
                flags.ms_compat = false;
            } else if arg == "-fvisibility-ms-compat" {
                flags.ms_compat = true;
            } else if arg == "-fvisibility-inlines-hidden" {
                flags.inlines_hidden = true;
            } else if arg == "-fno-visibility-inlines-hidden" {
                flags.inlines_hidden = false;
            }
        }
        Arg::Operand(..) | Arg::Input(_) => {}
    });
    let mut cc1 = cc1.into_iter();
    while let Some(arg) = cc1.next() {
        let value = if arg == "-fvisibility" {
            cc1.next()
        } else {
            arg.strip_prefix("-fvisibility=")
        };
        if let Some(v) = value {
            flags.visibility = Some(v.to_owned());
            flags.ms_compat = false;
        } else if arg == "-fvisibility-inlines-hidden" {
            flags.inlines_hidden = true;
        } else if arg == "-fno-visibility-inlines-hidden" {
            flags.inlines_hidden = false;
        }
    }
    flags
}

/// The reason of an argv holding a NUL.
const NUL_ARGUMENT: &str = "an argument holds a NUL character";

/// The most bytes read from the response files of one entry, in all (so also the largest
/// response file read).
pub const RESPONSE_FILE_MAX_BYTES: u64 = 1 << 20;
/// How deep response files may name response files (`@a` holding `@b` is depth 2).
pub const RESPONSE_FILE_MAX_DEPTH: usize = 4;
/// How many response files one entry may read in all.
pub const RESPONSE_FILES_MAX: usize = 64;

/// The visibility an entry compiles with, or why it cannot be told (a one-line reason).
///
/// The argv is [`CompileCommand::arguments`] with every response file (`@FILE`, as clang's
/// driver expands them before reading options: `llvm::cl::ExpandResponseFiles`) before `--`
/// replaced by its words, then read by [`visibility_flags`]. A relative `FILE`, also one named
/// inside a response file, is relative to the entry's `directory` (itself relative to the
/// current directory when relative). A response file is split as LLVM's GNU tokenizer does
/// (`cl::TokenizeGNUCommandLine`): words separated by whitespace, `'…'` and `"…"` quote, a
/// backslash escapes the next character, an unclosed quote runs to the end. It is opened
/// without blocking and read only if it is a regular file; an entry's response files hold at most
/// [`RESPONSE_FILE_MAX_BYTES`] bytes in all; nesting stops at [`RESPONSE_FILE_MAX_DEPTH`] levels and
/// [`RESPONSE_FILES_MAX`] files. Any `@FILE` that cannot be read so makes the visibility
/// unknown (`Err("response file @FILE: …")`) rather than `default`: clang would have read it.
///
/// Also unknown: an argument holding a NUL (no real argv can: it is a C string), a visibility
/// option (or a `-Xclang` value) holding another control character, and an entry whose
/// [`CompileCommand::unknown`] is set.
pub fn visibility_of(cmd: &CompileCommand) -> Result<VisibilityFlags, String> {
    if let Some(u) = cmd.unknown {
        return Err(u.to_owned());
    }
    let mut budget = Budget {
        files: RESPONSE_FILES_MAX,
        bytes: RESPONSE_FILE_MAX_BYTES,
    };
    let mut args: Vec<std::borrow::Cow<'_, str>> = Vec::new();
    let mut rest = cmd.arguments.iter();
    for a in rest.by_ref() {
        if a == "--" {
            args.push(a.into());
            break;
        }
        match a.strip_prefix('@') {
            Some(path) if !args.is_empty() => {
                let mut words = Vec::new();
                expand(path, &cmd.directory, 1, &mut budget, &mut words)?;
                args.extend(words.into_iter().map(Into::into));
            }
            _ => args.push(a.into()),
        }
    }
    args.extend(rest.map(Into::into));
    let mut bad = None;
    walk(args.iter().map(|a| a.as_ref()), |arg| {
        let (Arg::Flag(a) | Arg::Cc1(a) | Arg::Operand(_, a) | Arg::Input(a)) = arg;
        if bad.is_some() {
            return;
        }
        if a.contains('\0') {
            bad = Some(NUL_ARGUMENT.to_owned());
        } else if matches!(arg, Arg::Flag(_) | Arg::Cc1(_))
            && (a.starts_with("-fvisibility")
                || a.starts_with("-fno-visibility")
                || matches!(arg, Arg::Cc1(_)))
            && a.chars().any(char::is_control)
        {
            bad = Some("a visibility option holds a control character".to_owned());
        }
    });
    if let Some(b) = bad {
        return Err(b);
    }
    Ok(visibility_of_args(args.iter().map(|a| a.as_ref())))
}

/// What is left to read of an entry's response files.
struct Budget {
    files: usize,
    bytes: u64,
}

/// Appends the words of response file `path` (relative to `directory`) to `out`, expanding the
/// response files it names.
fn expand(
    path: &str,
    directory: &str,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<String>,
) -> Result<(), String> {
    let fail = |why: &str| Err(format!("response file @{}: {why}", escape(path)));
    if depth > RESPONSE_FILE_MAX_DEPTH {
        return fail(&format!("nested more than {RESPONSE_FILE_MAX_DEPTH} deep"));
    }
    if budget.files == 0 {
        return fail(&format!("more than {RESPONSE_FILES_MAX} response files"));
    }
    budget.files -= 1;
    if path.is_empty() || path.contains('\0') {
        return fail("not a file name");
    }
    let full = std::path::Path::new(directory).join(path);
    let text = match read_response_file(&full, budget.bytes) {
        Ok(t) => t,
        Err(why) => return fail(&why),
    };
    budget.bytes -= text.len() as u64;
    for word in gnu_words(&text) {
        match word.strip_prefix('@') {
            Some(p) => expand(p, directory, depth + 1, budget, out)?,
            None => out.push(word),
        }
    }
    Ok(())
}

/// The text of a regular file of at most `limit` bytes.
fn read_response_file(path: &std::path::Path, limit: u64) -> Result<String, String> {
    use std::io::Read;
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let f = open.open(path).map_err(|e| e.to_string())?;
    let meta = f.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    let too_large = || {
        Err(format!(
            "more than {RESPONSE_FILE_MAX_BYTES} bytes of response files for one entry"
        ))
    };
    if meta.len() > limit {
        return too_large();
    }
    let mut bytes = Vec::new();
    f.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return too_large();
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())
}

/// Words of a response file as LLVM's `cl::TokenizeGNUCommandLine` splits them.
fn gnu_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(n) => word.push(n),
                    None => word.push('\\'),
                }
            }
            '\'' | '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    if q == c {
                        break;
                    }
                    if q == '\\'
                        && let Some(n) = chars.next()
                    {
                        word.push(n);
                        continue;
                    }
                    word.push(q);
                }
            }
            c if c.is_ascii_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The output of an entry: its `output` key, else the argument of the last `-o` in its argv
/// (`-o FILE`, or `-oFILE` when `FILE` ends in `.o` or `.obj`; before `--`, and not the value of
/// another option).
pub fn output_of(cmd: &CompileCommand) -> Option<&str> {
    if let Some(o) = &cmd.output {
        return Some(o);
    }
    last_output(cmd.arguments.iter())
}

/// A best-effort name of the build target an entry belongs to, from its output path
/// ([`output_of`]); `None` when no pattern fits. The patterns, tried in this order:
///
/// | build system | output path | target |
/// |---|---|---|
/// | CMake | `…/CMakeFiles/TARGET.dir/…` | `TARGET` |
/// | Bazel | `…/_objs/TARGET/…/x.o` | `TARGET` |
/// | Xcode | `…/PROJECT.build/CONFIG/TARGET.build/Objects-normal…/ARCH/x.o` (the last `.build` before `Objects-normal`) | `TARGET` |
/// | gyp, ninja | `obj[.TOOLSET]/DIR/TARGET.STEM.o` (`STEM`: the source's name without extension) | `TARGET` |
/// | gyp, make | `…/obj.TOOLSET/TARGET/…/x.o` (`obj.target`, `obj.host`) | `TARGET` |
/// | Meson | `…/TARGET.p/x.o` (`TARGET` is the product's file name, e.g. `libfoo.a`) | `TARGET` |
pub fn target_of(cmd: &CompileCommand) -> Option<String> {
    let output = output_of(cmd)?;
    let parts: Vec<&str> = output.split('/').filter(|p| !p.is_empty()).collect();
    let (name, dirs) = parts.split_last()?;
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    // CMake
    for w in dirs.windows(2) {
        if w[0] == "CMakeFiles"
            && let Some(t) = w[1].strip_suffix(".dir")
        {
            return non_empty(t);
        }
    }
    // Bazel
    if let Some(i) = dirs.iter().position(|&d| d == "_objs")
        && let Some(t) = dirs.get(i + 1)
    {
        return non_empty(t);
    }
    // Xcode
    if let Some(i) = dirs.iter().position(|d| d.starts_with("Objects-normal"))
        && let Some(t) = dirs[..i]
            .iter()
            .rev()
            .find_map(|d| d.strip_suffix(".build"))
    {
        return non_empty(t);
    }
    // gyp: ninja (`obj/…/TARGET.STEM.o`) or make (`obj.TOOLSET/TARGET/…`)
    if let Some(i) = dirs
        .iter()
        .position(|&d| d == "obj" || d.starts_with("obj."))
    {
        let source = cmd.file.rsplit('/').next().unwrap_or("");
        let stem = source.rsplit_once('.').map_or(source, |(s, _)| s);
        if !stem.is_empty()
            && let Some(t) = name
                .strip_suffix(".o")
                .and_then(|n| n.strip_suffix(stem))
                .and_then(|n| n.strip_suffix('.'))
            && !t.is_empty()
        {
            return Some(t.to_owned());
        }
        if dirs[i] != "obj"
            && let Some(t) = dirs.get(i + 1)
        {
            return non_empty(t);
        }
    }
    // Meson
    dirs.last()
        .and_then(|d| d.strip_suffix(".p"))
        .and_then(non_empty)
}

/// What [`CompileDbIndex::find`] found: an index into the commands it was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// Exactly one entry.
    Unique(usize),
    /// This many entries fit equally well.
    Ambiguous(usize),
    /// No entry.
    None,
}

/// Lookup tables over a compilation database, built once: entries by normalized source path,
/// by normalized output path, by source file name and by output file name. Each table is a
/// sorted list of (hash of the key, entry), 16 bytes an entry, the keys kept once per entry:
/// a lookup takes the run of its key's hash (SipHash with fixed keys) and keeps the entries
/// whose key is equal.
#[derive(Debug, Clone, Default)]
pub struct CompileDbIndex {
    /// Per entry: the normalized source path.
    files: Vec<Box<str>>,
    /// Per entry: the normalized output path, if known ([`output_of`]).
    outputs: Vec<Option<Box<str>>>,
    /// Per entry: [`target_of`].
    targets: Vec<Option<Box<str>>>,
    /// Per entry: a hash of (source, output, argv), to tell exact duplicates.
    fingerprints: Vec<u64>,
    by_file: Table,
    by_output: Table,
    by_file_name: Table,
    by_output_name: Table,
}

/// (hash of a key, entry), sorted.
#[derive(Debug, Clone, Default)]
struct Table(Vec<(u64, usize)>);

fn key_hash(key: &str) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl Table {
    fn new(mut rows: Vec<(u64, usize)>) -> Self {
        rows.sort_unstable();
        rows.shrink_to_fit();
        Table(rows)
    }

    /// The entries (ascending) whose key, as `key_of` gives it, is `key`; `None` when none.
    fn get<'a>(&self, key: &str, key_of: impl Fn(usize) -> Option<&'a str>) -> Option<Vec<usize>> {
        let h = key_hash(key);
        let start = self.0.partition_point(|&(x, _)| x < h);
        let found: Vec<usize> = self.0[start..]
            .iter()
            .take_while(|&&(x, _)| x == h)
            .map(|&(_, i)| i)
            .filter(|&i| key_of(i) == Some(key))
            .collect();
        (!found.is_empty()).then_some(found)
    }
}

impl CompileDbIndex {
    /// The index of `commands`; [`Match::Unique`] holds positions in that slice.
    pub fn new(commands: &[CompileCommand]) -> Self {
        let n = commands.len();
        let mut index = CompileDbIndex {
            files: Vec::with_capacity(n),
            outputs: Vec::with_capacity(n),
            targets: Vec::with_capacity(n),
            fingerprints: Vec::with_capacity(n),
            ..CompileDbIndex::default()
        };
        let (mut by_file, mut by_file_name) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut by_output, mut by_output_name) = (Vec::new(), Vec::new());
        for (i, cmd) in commands.iter().enumerate() {
            let file = normalize(&cmd.file, Some(&cmd.directory));
            let output = output_of(cmd).map(|o| normalize(o, Some(&cmd.directory)));
            let mut h = DefaultHasher::new();
            (&file, &output, &cmd.arguments).hash(&mut h);
            index.fingerprints.push(h.finish());
            by_file_name.push((key_hash(base_name(&file)), i));
            by_file.push((key_hash(&file), i));
            if let Some(o) = &output {
                by_output_name.push((key_hash(base_name(o)), i));
                by_output.push((key_hash(o), i));
            }
            index.files.push(file.into_boxed_str());
            index.outputs.push(output.map(String::into_boxed_str));
            index
                .targets
                .push(target_of(cmd).map(String::into_boxed_str));
        }
        index.by_file = Table::new(by_file);
        index.by_file_name = Table::new(by_file_name);
        index.by_output = Table::new(by_output);
        index.by_output_name = Table::new(by_output_name);
        index
    }

    fn file_of(&self, i: usize) -> Option<&str> {
        Some(&self.files[i])
    }

    fn output_at(&self, i: usize) -> Option<&str> {
        self.outputs[i].as_deref()
    }

    /// The entry compiling `source` (an absolute path as a debug map records it, e.g.
    /// `/Users/admin/build/ws/out/../deps/v8/src/codegen/interface-descriptors.cc`) or producing
    /// `object` (a path of a link map's or debug map's object list: a loose `/p/x.o` or an
    /// archive member `/p/libv8.a(x.o)`, see [`split_object`]).
    ///
    /// Paths are normalized lexically, with no filesystem access: a relative `file` or `output`
    /// is joined to its entry's `directory`, `.` and `..` are resolved (`..` at the root stays
    /// at the root; a relative `directory`, as gyp writes it, leaves a relative path), repeated
    /// `/` are merged; comparisons are case-sensitive. The rules, in order; the first that finds
    /// any entry decides:
    ///
    /// 1. the entries whose normalized `file` equals the normalized `source`;
    /// 2. for a loose object, the entries whose normalized output equals its normalized path;
    /// 3. the entries whose `file` shares the longest run of trailing path components with
    ///    `source`, at least 2 (the build machine's checkout usually differs from the one the
    ///    database was made in: `/Users/admin/build/ws/deps/v8/src/x.cc` and
    ///    `/home/me/node/deps/v8/src/x.cc` share `deps/v8/src/x.cc`, 4 components);
    /// 4. the entries whose output's file name equals the object's file name (an archive
    ///    member's name, `interface-descriptors.o`, or a loose object's base name).
    ///
    /// One entry is [`Match::Unique`]. Several are narrowed by the object, each step kept only
    /// if it leaves at least one: to those whose output is the loose object's path, then to
    /// those whose output file name is the object's, then to those whose [`target_of`] is the
    /// archive's (`libv8_base.a` is target `libv8_base.a`, `libv8_base` or `v8_base`). What is
    /// left is `Unique` if one entry, or if all are exact duplicates (same normalized `file` and
    /// output, same argv), else [`Match::Ambiguous`] with their number.
    pub fn find(&self, source: Option<&str>, object: Option<&str>) -> Match {
        let object = object.map(|o| {
            let (archive, member) = split_object(o);
            Object {
                archive,
                loose: archive.is_none().then(|| normalize(member, None)),
                name: base_name(member),
            }
        });
        let object = object.as_ref();
        let source = source.map(|s| normalize(s, None));
        // 1. exact source
        if let Some(cands) = source
            .as_ref()
            .and_then(|s| self.by_file.get(s, |i| self.file_of(i)))
        {
            return self.narrow(&cands, object);
        }
        // 2. exact output of a loose object
        if let Some(cands) = object
            .and_then(|o| o.loose.as_ref())
            .and_then(|p| self.by_output.get(p, |i| self.output_at(i)))
        {
            return self.narrow(&cands, object);
        }
        // 3. longest common suffix of components, at least 2
        if let Some(source) = &source
            && let Some(cands) = self
                .by_file_name
                .get(base_name(source), |i| self.file_of(i).map(base_name))
        {
            let mut best = 0;
            let mut tied: Vec<usize> = Vec::new();
            for c in cands {
                let n = common_suffix(source, &self.files[c]);
                if n > best {
                    best = n;
                    tied.clear();
                }
                if n == best {
                    tied.push(c);
                }
            }
            if best >= 2 {
                return self.narrow(&tied, object);
            }
        }
        // 4. object file name = output file name
        if let Some(cands) = object.filter(|o| !o.name.is_empty()).and_then(|o| {
            self.by_output_name
                .get(o.name, |i| self.output_at(i).map(base_name))
        }) {
            return self.narrow(&cands, object);
        }
        Match::None
    }

    fn narrow(&self, cands: &[usize], object: Option<&Object<'_>>) -> Match {
        let mut cands: Vec<usize> = cands.to_vec();
        if let Some(o) = object {
            if let Some(p) = &o.loose {
                keep_if_any(&mut cands, |c| {
                    self.outputs[c].as_deref() == Some(p.as_str())
                });
            }
            keep_if_any(&mut cands, |c| {
                self.outputs[c].as_deref().map(base_name) == Some(o.name)
            });
            if let Some(a) = o.archive {
                let file = base_name(a);
                let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
                let bare = stem.strip_prefix("lib").unwrap_or(stem);
                keep_if_any(
                    &mut cands,
                    |c| matches!(self.targets[c].as_deref(), Some(t) if t == file || t == stem || t == bare),
                );
            }
        }
        match cands.as_slice() {
            [] => Match::None,
            [one] => Match::Unique(*one),
            [first, rest @ ..] => {
                if rest
                    .iter()
                    .all(|&c| self.fingerprints[c] == self.fingerprints[*first])
                {
                    Match::Unique(*first)
                } else {
                    Match::Ambiguous(cands.len())
                }
            }
        }
    }
}

/// The object a lookup names.
struct Object<'a> {
    archive: Option<&'a str>,
    /// A loose object's normalized path.
    loose: Option<String>,
    /// A member's name, or a loose object's file name.
    name: &'a str,
}

fn keep_if_any(cands: &mut Vec<usize>, keep: impl Fn(usize) -> bool) {
    if cands.iter().any(|&c| keep(c)) {
        cands.retain(|&c| keep(c));
    }
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// How many trailing path components `a` and `b` share.
fn common_suffix(a: &str, b: &str) -> usize {
    a.rsplit('/')
        .zip(b.rsplit('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// `path` joined to `base` unless absolute, with `.`, `..` and repeated `/` resolved lexically.
/// See [`CompileDbIndex::find`].
pub fn normalize(path: &str, base: Option<&str>) -> String {
    let joined;
    let full = match base {
        Some(b) if !path.starts_with('/') && !b.is_empty() => {
            joined = format!("{b}/{path}");
            joined.as_str()
        }
        _ => path,
    };
    let absolute = full.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for p in full.split('/') {
        match p {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&l) if l != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            _ => parts.push(p),
        }
    }
    let body = parts.join("/");
    match (absolute, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".to_owned(),
        (false, false) => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(directory: &str, file: &str, output: Option<&str>, args: &[&str]) -> CompileCommand {
        CompileCommand {
            directory: directory.into(),
            file: file.into(),
            output: output.map(Into::into),
            arguments: args.iter().collect(),
            unknown: None,
        }
    }

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_arguments_and_command_forms() {
        let db = br#"[
          {"directory": "/b", "file": "a.cc", "arguments": ["c++", "-c", "a.cc", "-o", "a.o"], "output": "a.o"},
          {"directory": "/b", "file": "/s/b c.cc", "command": "c++ -DX='a b' \"-DY=\\\"q\\\"\" -c '/s/b c.cc'", "extra": 1},
          {"directory": "/b", "file": "c.cc", "arguments": ["c++"], "command": "c++ 'unbalanced"},
          {"directory": "/b", "file": "d.cc", "arguments": null, "command": "cc -c d.cc", "output": null}
        ]"#;
        let cmds = parse_compile_db(db).unwrap();
        assert_eq!(cmds.len(), 4);
        assert_eq!(cmds[0].output.as_deref(), Some("a.o"));
        assert_eq!(
            cmds[0].arguments,
            strings(&["c++", "-c", "a.cc", "-o", "a.o"])
        );
        assert_eq!(
            cmds[1].arguments,
            strings(&["c++", "-DX=a b", "-DY=\"q\"", "-c", "/s/b c.cc"])
        );
        assert_eq!(cmds[1].output, None);
        // `arguments` wins; the bad `command` is not split.
        assert_eq!(cmds[2].arguments, strings(&["c++"]));
        assert_eq!(cmds[3].arguments, strings(&["cc", "-c", "d.cc"]));
        assert_eq!(cmds[3].output, None);
        assert_eq!(parse_compile_db(b" [ ] ").unwrap(), []);
    }

    #[test]
    fn hostile_databases_are_errors() {
        let e = parse_compile_db(b"").unwrap_err();
        assert!(
            matches!(
                e,
                CompileDbError::Json {
                    line: 1,
                    column: 0,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = parse_compile_db(b"[\n  {\"file\": \"a\",\n  ]").unwrap_err();
        assert!(matches!(e, CompileDbError::Json { line: 3, .. }), "{e:?}");
        assert!(
            e.to_string().starts_with("compile database: not JSON: "),
            "{e}"
        );
        assert!(e.to_string().ends_with("(line 3, column 3)"), "{e}");
        let deep = "[".repeat(100_000);
        assert!(matches!(
            parse_compile_db(deep.as_bytes()),
            Err(CompileDbError::Json { .. })
        ));
        assert!(matches!(
            parse_compile_db(b"\xff\xfe"),
            Err(CompileDbError::Json { .. })
        ));
        for top in [&b"{}"[..], b"\"x\"", b"null", b"12"] {
            assert_eq!(parse_compile_db(top), Err(CompileDbError::NotAnArray));
        }
        assert_eq!(
            CompileDbError::NotAnArray.to_string(),
            "compile database: the top level is not an array of entries"
        );
        let ok = r#"{"directory": "/b", "file": "a.cc", "arguments": ["cc"]}"#;
        let cases: &[(&str, &str)] = &[
            ("[]", "not an object"),
            ("1", "not an object"),
            (r#"{"file": "a.cc", "arguments": ["cc"]}"#, "no `directory`"),
            (
                r#"{"directory": null, "file": "a.cc", "arguments": ["cc"]}"#,
                "no `directory`",
            ),
            (
                r#"{"directory": 1, "file": "a.cc", "arguments": ["cc"]}"#,
                "`directory` is not a string",
            ),
            (r#"{"directory": "/b", "arguments": ["cc"]}"#, "no `file`"),
            (
                r#"{"directory": "/b", "file": ["a"], "arguments": ["cc"]}"#,
                "`file` is not a string",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc"}"#,
                "neither `arguments` nor `command`",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "arguments": null, "command": null}"#,
                "neither",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "arguments": "cc -c"}"#,
                "`arguments` is not an array",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "arguments": ["cc", 1]}"#,
                "not a string",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": ["cc"]}"#,
                "`command` is not a string",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": "cc 'a"}"#,
                "cannot be split",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": "cc \"a"}"#,
                "cannot be split",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": "cc a\\"}"#,
                "cannot be split",
            ),
            (
                r#"{"directory": "/b", "file": "a.cc", "command": "cc", "output": 5}"#,
                "`output` is not a string",
            ),
        ];
        for (entry, what) in cases {
            let db = format!("[{ok}, {entry}]");
            let e = parse_compile_db(db.as_bytes()).unwrap_err();
            let CompileDbError::Entry { index, message } = e else {
                panic!("{entry}: {e:?}");
            };
            assert_eq!(index, 1, "{entry}");
            assert!(message.contains(what), "{entry}: {message}");
        }
        let e = parse_compile_db(br#"[{"directory": "/b", "file": "a"}]"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "compile database: entry 0 (0-based): neither `arguments` nor `command`"
        );
    }

    #[test]
    fn visibility_flags_last_wins() {
        let v = |args: &[&str]| visibility_flags(&args.iter().collect());
        assert_eq!(v(&["c++", "-c", "a.cc"]), VisibilityFlags::default());
        assert!(!v(&["c++"]).hides_by_default());
        let f = v(&["c++", "-fvisibility=hidden", "-fvisibility-inlines-hidden"]);
        assert_eq!(f.visibility.as_deref(), Some("hidden"));
        assert!(f.inlines_hidden && !f.ms_compat && f.hides_by_default());
        let f = v(&["c++", "-fvisibility=hidden", "-fvisibility=default"]);
        assert_eq!(f.visibility.as_deref(), Some("default"));
        assert!(!f.hides_by_default());
        assert!(v(&["c++", "-fvisibility=internal"]).hides_by_default());
        assert!(!v(&["c++", "-fvisibility=protected"]).hides_by_default());
        assert!(!v(&["c++", "-fvisibility=Hidden"]).hides_by_default());
        // ms-compat and -fvisibility=: the last one wins (clang/test/Driver/visibility.cpp).
        assert!(v(&["c++", "-fvisibility=default", "-fvisibility-ms-compat"]).hides_by_default());
        let f = v(&["c++", "-fvisibility-ms-compat", "-fvisibility=default"]);
        assert!(!f.ms_compat && !f.hides_by_default());
        assert!(v(&["c++", "-fvisibility-ms-compat"]).hides_by_default());
        // -f/-fno-visibility-inlines-hidden: last wins.
        assert!(
            !v(&[
                "c++",
                "-fvisibility-inlines-hidden",
                "-fno-visibility-inlines-hidden"
            ])
            .inlines_hidden
        );
        assert!(
            v(&[
                "c++",
                "-fno-visibility-inlines-hidden",
                "-fvisibility-inlines-hidden"
            ])
            .inlines_hidden
        );
        // Look-alikes and the separate form the driver rejects.
        let f = v(&[
            "c++",
            "-fvisibility-inlines-hidden-static-local-var",
            "-fvisibility-global-new-delete-hidden",
            "-ftype-visibility=hidden",
            "-fvisibility",
            "hidden",
        ]);
        assert_eq!(f, VisibilityFlags::default());
        // -Xclang: applied after all driver options.
        let f = v(&[
            "c++",
            "-Xclang",
            "-fvisibility=hidden",
            "-fvisibility=default",
        ]);
        assert_eq!(f.visibility.as_deref(), Some("hidden"));
        let f = v(&["c++", "-Xclang", "-fvisibility", "-Xclang", "internal"]);
        assert_eq!(f.visibility.as_deref(), Some("internal"));
        let f = v(&[
            "c++",
            "-fvisibility-ms-compat",
            "-Xclang",
            "-fvisibility=default",
        ]);
        assert!(!f.hides_by_default());
        assert!(v(&["c++", "-Xclang", "-fvisibility-inlines-hidden"]).inlines_hidden);
        // A dangling -Xclang, a dangling cc1 -fvisibility.
        assert_eq!(v(&["c++", "-Xclang"]), VisibilityFlags::default());
        assert_eq!(
            v(&["c++", "-Xclang", "-fvisibility"]),
            VisibilityFlags::default()
        );
    }

    #[test]
    fn normalize_is_lexical() {
        let n = |p: &str, b: Option<&str>| normalize(p, b);
        assert_eq!(
            n("/Users/admin/build/ws/out/../deps/v8/src/x.cc", None),
            "/Users/admin/build/ws/deps/v8/src/x.cc"
        );
        assert_eq!(n("../../deps/x.cc", Some("/n/out/Release")), "/n/deps/x.cc");
        assert_eq!(n("/abs/./x.cc", Some("/ignored")), "/abs/x.cc");
        assert_eq!(n("a//b/./c/", Some("")), "a/b/c");
        assert_eq!(n("../../../../x", Some("/a")), "/x");
        assert_eq!(n("../x.cc", Some("out")), "x.cc");
        assert_eq!(n("../../x.cc", Some("out")), "../x.cc");
        assert_eq!(n("..", Some("..")), "../..");
        assert_eq!(n(".", None), ".");
        assert_eq!(n("", None), ".");
        assert_eq!(n("/", None), "/");
        assert_eq!(n("/..", None), "/");
    }

    #[test]
    fn target_of_patterns() {
        let t = |file: &str, output: &str| target_of(&cmd("/b", file, Some(output), &["cc"]));
        assert_eq!(
            t(
                "../../deps/v8/src/codegen/interface-descriptors.cc",
                "obj.target/v8_base_without_compiler/deps/v8/src/codegen/interface-descriptors.o"
            )
            .as_deref(),
            Some("v8_base_without_compiler")
        );
        assert_eq!(
            t(
                "../../deps/v8/src/codegen/interface-descriptors.cc",
                "obj/deps/v8/v8_base_without_compiler.interface-descriptors.o"
            )
            .as_deref(),
            Some("v8_base_without_compiler")
        );
        assert_eq!(
            t(
                "/s/tools/mksnapshot.cc",
                "obj.host/mksnapshot/tools/mksnapshot.o"
            )
            .as_deref(),
            Some("mksnapshot")
        );
        assert_eq!(
            t("/s/src/x.cc", "obj.host/tools/v8_torque.x.o").as_deref(),
            Some("v8_torque")
        );
        assert_eq!(
            t("/s/src/a.b.cc", "obj/src/my_target.a.b.o").as_deref(),
            Some("my_target")
        );
        assert_eq!(
            t("/s/src/foo.cc", "src/CMakeFiles/foo_lib.dir/foo.cc.o").as_deref(),
            Some("foo_lib")
        );
        assert_eq!(
            t(
                "pkg/foo.cc",
                "bazel-out/darwin-fastbuild/bin/pkg/_objs/foo/foo.o"
            )
            .as_deref(),
            Some("foo")
        );
        assert_eq!(
            t("/s/foo.m", "/DD/Build/Intermediates.noindex/P.build/Release/App.build/Objects-normal/arm64/foo.o").as_deref(),
            Some("App")
        );
        assert_eq!(
            t("../src/foo.c", "libfoo.a.p/src_foo.c.o").as_deref(),
            Some("libfoo.a")
        );
        assert_eq!(t("/s/foo.cc", "foo.o"), None);
        assert_eq!(t("/s/foo.cc", "obj/foo.o"), None);
        assert_eq!(t("/s/foo.cc", "CMakeFiles/.dir/foo.o"), None);
        assert_eq!(t("/s/foo.cc", ""), None);
        // No output at all (gyp's compile_commands_json): unknown.
        assert_eq!(
            target_of(&cmd("out", "/s/foo.cc", None, &["c++", "-c", "/s/foo.cc"])),
            None
        );
        // `-o` as the fallback.
        let c = cmd(
            "/b",
            "/s/x.cc",
            None,
            &["c++", "-c", "/s/x.cc", "-o", "CMakeFiles/t.dir/x.cc.o"],
        );
        assert_eq!(output_of(&c), Some("CMakeFiles/t.dir/x.cc.o"));
        assert_eq!(target_of(&c).as_deref(), Some("t"));
        let c = cmd(
            "/b",
            "/s/x.cc",
            None,
            &["c++", "-objcmt-migrate-all", "-ox.o", "-o"],
        );
        assert_eq!(output_of(&c), Some("x.o"));
    }

    /// A node-like database: gyp make outputs, one file compiled by two targets, a file name
    /// used in several directories.
    fn node_db() -> Vec<CompileCommand> {
        let d = "/home/me/node/out/Release";
        let make = |target: &str, src: &str| {
            let stem = src.rsplit('/').next().unwrap().rsplit_once('.').unwrap().0;
            let dir = src.rsplit_once('/').unwrap().0;
            let out = format!("obj.target/{target}/{dir}/{stem}.o");
            cmd(
                d,
                &format!("../../{src}"),
                Some(&out),
                &["c++", "-c", &format!("../../{src}"), "-o", &out],
            )
        };
        vec![
            make(
                "v8_base_without_compiler",
                "deps/v8/src/codegen/interface-descriptors.cc",
            ), // 0
            make("v8_base_without_compiler", "deps/v8/src/utils/utils.cc"), // 1
            make("libnode", "src/utils.cc"),                                // 2
            make(
                "v8_libbase",
                "deps/v8/src/base/utils/random-number-generator.cc",
            ), // 3
            make("v8_init", "deps/v8/src/init/setup-isolate.cc"),           // 4
            make("v8_snapshot", "deps/v8/src/init/setup-isolate.cc"),       // 5
            make("libnode", "src/api/utils.cc"),                            // 6
        ]
    }

    #[test]
    fn find_by_exact_source_and_output() {
        let db = node_db();
        let idx = CompileDbIndex::new(&db);
        assert_eq!(
            idx.find(
                Some(
                    "/home/me/node/out/Release/../../deps/v8/src/codegen/interface-descriptors.cc"
                ),
                None
            ),
            Match::Unique(0)
        );
        assert_eq!(
            idx.find(Some("/home/me/node/src/utils.cc"), None),
            Match::Unique(2)
        );
        // Two targets compile the same file: the object decides, else ambiguous.
        let src = "/home/me/node/deps/v8/src/init/setup-isolate.cc";
        assert_eq!(idx.find(Some(src), None), Match::Ambiguous(2));
        assert_eq!(
            idx.find(Some(src), Some("/home/me/node/out/Release/obj.target/v8_snapshot/deps/v8/src/init/setup-isolate.o")),
            Match::Unique(5)
        );
        assert_eq!(
            idx.find(
                Some(src),
                Some("/x/out/Release/libv8_init.a(setup-isolate.o)")
            ),
            Match::Unique(4)
        );
        assert_eq!(
            idx.find(Some(src), Some("/x/libother.a(setup-isolate.o)")),
            Match::Ambiguous(2)
        );
        // 2. a loose object by its output path.
        assert_eq!(
            idx.find(
                None,
                Some("/home/me/node/out/Release/./obj.target/libnode/src/api/utils.o")
            ),
            Match::Unique(6)
        );
    }

    #[test]
    fn find_by_common_suffix() {
        let db = node_db();
        let idx = CompileDbIndex::new(&db);
        // Built elsewhere: the debug map's path is in another checkout.
        assert_eq!(
            idx.find(
                Some("/Users/admin/build/ws/out/../deps/v8/src/codegen/interface-descriptors.cc"),
                None
            ),
            Match::Unique(0)
        );
        // `utils.cc` in three directories: `src/utils.cc` is the longest (2 components).
        assert_eq!(
            idx.find(Some("/Users/admin/build/ws/src/utils.cc"), None),
            Match::Unique(2)
        );
        assert_eq!(
            idx.find(Some("/Users/admin/ws/deps/v8/src/utils/utils.cc"), None),
            Match::Unique(1)
        );
        // Only the file name in common: not enough, and no object to fall back on.
        assert_eq!(idx.find(Some("/elsewhere/lib/utils.cc"), None), Match::None);
        // Two entries share 3 components with the source: ambiguous unless the object decides.
        let src = "/Users/admin/ws/deps/v8/src/init/setup-isolate.cc";
        assert_eq!(idx.find(Some(src), None), Match::Ambiguous(2));
        assert_eq!(
            idx.find(
                Some(src),
                Some("/Users/admin/ws/out/Release/libv8_snapshot.a(setup-isolate.o)")
            ),
            Match::Unique(5)
        );
        assert_eq!(idx.find(Some("/nowhere.cc"), None), Match::None);
        assert_eq!(idx.find(None, None), Match::None);
        assert_eq!(idx.find(Some(""), Some("")), Match::None);
    }

    #[test]
    fn find_by_object_name() {
        let db = node_db();
        let idx = CompileDbIndex::new(&db);
        assert_eq!(
            idx.find(None, Some("/Users/admin/ws/out/Release/libv8_base_without_compiler.a(interface-descriptors.o)")),
            Match::Unique(0)
        );
        // A source the database does not know, but the member name is unique.
        assert_eq!(
            idx.find(
                Some("/gen/interface-descriptors.cc"),
                Some("/o/libv8_base_without_compiler.a(interface-descriptors.o)")
            ),
            Match::Unique(0)
        );
        // `utils.o` is made by three entries: the archive's target narrows it to one or two.
        assert_eq!(
            idx.find(None, Some("/o/libfoo.a(utils.o)")),
            Match::Ambiguous(3)
        );
        assert_eq!(
            idx.find(None, Some("/o/libv8_base_without_compiler.a(utils.o)")),
            Match::Unique(1)
        );
        assert_eq!(
            idx.find(None, Some("/o/libnode.a(utils.o)")),
            Match::Ambiguous(2)
        );
        // A loose object of another build directory: by its file name.
        assert_eq!(
            idx.find(
                None,
                Some("/other/obj.target/v8_libbase/random-number-generator.o")
            ),
            Match::Unique(3)
        );
        assert_eq!(idx.find(None, Some("/o/libnode.a(nothing.o)")), Match::None);
    }

    #[test]
    fn exact_duplicates_count_once() {
        let a = cmd("/b", "x.cc", Some("x.o"), &["cc", "-c", "x.cc"]);
        let mut b = a.clone();
        let idx = CompileDbIndex::new(&[a.clone(), a.clone()]);
        assert_eq!(idx.find(Some("/b/x.cc"), None), Match::Unique(0));
        b.arguments = ["cc", "-c", "x.cc", "-O2"].iter().collect();
        let idx = CompileDbIndex::new(&[a, b]);
        assert_eq!(idx.find(Some("/b/x.cc"), None), Match::Ambiguous(2));
    }

    #[test]
    fn gyp_compile_commands_without_outputs() {
        // As gyp's compile_commands_json writes it: relative directory, absolute file, no -o.
        let db = parse_compile_db(
            br#"[
{"command": "c++ '-DV8_TARGET_ARCH_X64' -fvisibility=hidden -fvisibility-inlines-hidden -c /home/me/node/deps/v8/src/x.cc", "directory": "out", "file": "/home/me/node/deps/v8/src/x.cc"},
{"command": "cc -c /home/me/node/deps/uv/src/y.c", "directory": "out", "file": "/home/me/node/deps/uv/src/y.c"}
]"#,
        )
        .unwrap();
        assert!(visibility_flags(&db[0].arguments).hides_by_default());
        assert!(!visibility_flags(&db[1].arguments).hides_by_default());
        assert_eq!(output_of(&db[0]), None);
        let idx = CompileDbIndex::new(&db);
        assert_eq!(
            idx.find(Some("/Users/ci/node/deps/v8/src/x.cc"), None),
            Match::Unique(0)
        );
        assert_eq!(idx.find(None, Some("/o/libuv.a(y.o)")), Match::None);
    }

    /// 4000 entries × 3000 lookups: hash lookups, not a scan per lookup.
    #[test]
    fn big_index_is_fast() {
        let db: Vec<CompileCommand> = (0..4000)
            .map(|i| {
                let src = format!("../../deps/v8/src/dir{}/file{i}.cc", i % 50);
                let out = format!("obj.target/t{}/deps/v8/src/dir{}/file{i}.o", i % 7, i % 50);
                cmd(
                    "/home/me/node/out/Release",
                    &src,
                    Some(&out),
                    &["c++", "-c", &src],
                )
            })
            .collect();
        let start = std::time::Instant::now();
        let idx = CompileDbIndex::new(&db);
        let mut unique = 0;
        for i in 0..3000 {
            let src = format!("/Users/admin/ws/deps/v8/src/dir{}/file{i}.cc", i % 50);
            let obj = format!("/Users/admin/ws/out/Release/libt{}.a(file{i}.o)", i % 7);
            if let Match::Unique(j) = idx.find(Some(&src), Some(&obj)) {
                assert_eq!(j, i);
                unique += 1;
            }
            if let Match::Unique(j) = idx.find(None, Some(&obj)) {
                assert_eq!(j, i);
                unique += 1;
            }
        }
        assert_eq!(unique, 6000);
        let took = start.elapsed();
        if !cfg!(debug_assertions) {
            assert!(took.as_millis() < 200, "took {took:?}");
        }
    }
}

#[cfg(test)]
mod visibility_of_tests {
    use super::*;

    /// What [`visibility_of`] must say: the visibility value, or a piece of the reason.
    #[derive(Debug)]
    enum Want {
        Vis(Option<&'static str>),
        Unknown(&'static str),
    }
    use Want::{Unknown, Vis};

    fn entry(dir: &str, extra: &str) -> String {
        let dir = serde_json::to_string(dir).unwrap();
        format!(r#"[{{"directory": {dir}, "file": "a.cc", {extra}}}]"#)
    }

    /// Every case of the defect and of the rules: separate option values, `--`, several shell
    /// commands, response files present, missing, nested, looping, special and too large,
    /// NUL and control characters, and ordinary flags.
    #[test]
    fn regression_hidden_counted_as_a_flag_where_it_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("flags.rsp"),
            "-O2 '-DX=a b'\n  -fvisibility=hidden\n",
        )
        .unwrap();
        std::fs::write(d.join("outer.rsp"), "-c @flags.rsp").unwrap();
        std::fs::write(d.join("default.rsp"), "-fvisibility=default").unwrap();
        std::fs::write(d.join("loop.rsp"), "@loop.rsp").unwrap();
        std::fs::write(d.join("quoted.rsp"), r#""-fvisibility=hid"den \-c"#).unwrap();
        std::fs::write(
            d.join("big.rsp"),
            vec![b' '; RESPONSE_FILE_MAX_BYTES as usize + 1],
        )
        .unwrap();
        let mut half = vec![b' '; 600 << 10];
        half.extend_from_slice(b"-fvisibility=hidden");
        std::fs::write(d.join("half.rsp"), half).unwrap();
        std::fs::create_dir(d.join("dir.rsp")).unwrap();
        let fifo = std::ffi::CString::new(d.join("fifo.rsp").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let dir_s = d.to_str().unwrap();
        let cases: &[(&str, &str, Want)] = &[
            // Ordinary flags.
            ("plain", r#""arguments": ["cc", "-c", "a.cc"]"#, Vis(None)),
            (
                "hidden",
                r#""arguments": ["cc", "-fvisibility=hidden", "-c", "a.cc", "-o", "a.o"]"#,
                Vis(Some("hidden")),
            ),
            (
                "last wins",
                r#""arguments": ["cc", "-fvisibility=hidden", "-o", "a.o", "-fvisibility=default"]"#,
                Vis(Some("default")),
            ),
            (
                "-Xclang",
                r#""arguments": ["cc", "-Xclang", "-fvisibility=hidden"]"#,
                Vis(Some("hidden")),
            ),
            (
                "command",
                r#""command": "cc -fvisibility=hidden -c a.cc""#,
                Vis(Some("hidden")),
            ),
            // Values of options that take the next argument.
            (
                "regression_hidden_as_the_value_of_-o",
                r#""arguments": ["cc", "-c", "a.cc", "-o", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "regression_hidden_as_the_value_of_-D",
                r#""arguments": ["cc", "-D", "-fvisibility=hidden", "-c", "a.cc"]"#,
                Vis(None),
            ),
            (
                "-U -I -include -imacros",
                r#""arguments": ["cc", "-U", "-fvisibility=hidden", "-I", "-fvisibility=hidden", "-include", "-fvisibility=hidden", "-imacros", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-isystem -iquote -idirafter",
                r#""arguments": ["cc", "-isystem", "-fvisibility=hidden", "-iquote", "-fvisibility=hidden", "-idirafter", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-MF -MT -MQ -x",
                r#""arguments": ["cc", "-MF", "-fvisibility=hidden", "-MT", "-fvisibility=hidden", "-MQ", "-fvisibility=hidden", "-x", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-arch -target -isysroot",
                r#""arguments": ["cc", "-arch", "-fvisibility=hidden", "-target", "-fvisibility=hidden", "-isysroot", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-Xlinker -Xpreprocessor -Xassembler -mllvm -Xarch_",
                r#""arguments": ["cc", "-Xlinker", "-fvisibility=hidden", "-Xpreprocessor", "-fvisibility=hidden", "-Xassembler", "-fvisibility=hidden", "-mllvm", "-fvisibility=hidden", "-Xarch_arm64", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "joined -D is a flag of its own",
                r#""arguments": ["cc", "-D-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "value then flag",
                r#""arguments": ["cc", "-D", "X", "-fvisibility=hidden"]"#,
                Vis(Some("hidden")),
            ),
            (
                "-Xclang -o",
                r#""arguments": ["cc", "-Xclang", "-o", "-fvisibility=hidden"]"#,
                Vis(Some("hidden")),
            ),
            (
                "dangling -o",
                r#""arguments": ["cc", "-fvisibility=hidden", "-o"]"#,
                Vis(Some("hidden")),
            ),
            // `--`.
            (
                "regression_hidden_after_double_dash_counted_as_a_flag",
                r#""arguments": ["cc", "-c", "--", "a.cc", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            (
                "-Xclang after --",
                r#""arguments": ["cc", "--", "-Xclang", "-fvisibility=hidden"]"#,
                Vis(None),
            ),
            // Several shell commands in `command`.
            (
                "regression_hidden_in_a_second_command_after_&&",
                r#""command": "cc -c a.cc && cc -fvisibility=hidden -c b.cc""#,
                Vis(None),
            ),
            (
                "the second command is the entry's",
                r#""command": "cc -fvisibility=hidden -c b.cc && cc -c a.cc""#,
                Vis(None),
            ),
            (
                "the entry's command is hidden",
                r#""command": "cc -c b.cc; cc -fvisibility=hidden -c a.cc""#,
                Vis(Some("hidden")),
            ),
            (
                "attached &&",
                r#""command": "cc -c a.cc&&cc -fvisibility=hidden -c b.cc""#,
                Vis(None),
            ),
            (
                "attached ;",
                r#""command": "cc -c a.cc;cc -fvisibility=hidden -c b.cc""#,
                Vis(None),
            ),
            (
                "||",
                r#""command": "cc -c a.cc || cc -fvisibility=hidden -c b.cc""#,
                Vis(None),
            ),
            (
                "| to a tool without -c",
                r#""command": "cc -fvisibility=hidden -c x/../a.cc | tee -fvisibility=default""#,
                Vis(Some("hidden")),
            ),
            (
                "by output",
                r#""output": "o/a.o", "command": "cc -c a.cc -o o/b.o && cc -fvisibility=hidden -c a.cc -o o/./a.o""#,
                Vis(Some("hidden")),
            ),
            (
                "a quoted ; is not an operator",
                r#""command": "cc '-DX=a;b' \"-DY=c&&d\" -DZ=e\\|f -fvisibility=hidden -c a.cc""#,
                Vis(Some("hidden")),
            ),
            (
                "none compiles a.cc",
                r#""command": "cc -c x.cc && cc -fvisibility=hidden -c y.cc""#,
                Unknown("several commands"),
            ),
            // Response files.
            (
                "response file present",
                r#""arguments": ["cc", "@flags.rsp", "-c", "a.cc"]"#,
                Vis(Some("hidden")),
            ),
            (
                "response file then a later flag",
                r#""arguments": ["cc", "@flags.rsp", "-fvisibility=default"]"#,
                Vis(Some("default")),
            ),
            (
                "a later response file wins",
                r#""arguments": ["cc", "-fvisibility=hidden", "@default.rsp"]"#,
                Vis(Some("default")),
            ),
            (
                "nested response file",
                r#""command": "cc @outer.rsp""#,
                Vis(Some("hidden")),
            ),
            (
                "quotes and backslashes",
                r#""arguments": ["cc", "@quoted.rsp"]"#,
                Vis(Some("hidden")),
            ),
            (
                "regression_missing_response_file_reported_as_default",
                r#""arguments": ["cc", "@missing.rsp", "-c", "a.cc"]"#,
                Unknown("response file @missing.rsp: "),
            ),
            (
                "a response file naming itself",
                r#""arguments": ["cc", "@loop.rsp"]"#,
                Unknown("nested more than"),
            ),
            (
                "600 KiB",
                r#""arguments": ["cc", "@half.rsp"]"#,
                Vis(Some("hidden")),
            ),
            (
                "1200 KiB in all",
                r#""arguments": ["cc", "@half.rsp", "@half.rsp"]"#,
                Unknown("more than 1048576 bytes of response files"),
            ),
            (
                "too large",
                r#""arguments": ["cc", "@big.rsp"]"#,
                Unknown("more than 1048576 bytes of response files"),
            ),
            (
                "a directory",
                r#""arguments": ["cc", "@dir.rsp"]"#,
                Unknown("not a regular file"),
            ),
            (
                "a FIFO does not hang",
                r#""arguments": ["cc", "@fifo.rsp"]"#,
                Unknown("not a regular file"),
            ),
            (
                "a device",
                r#""arguments": ["cc", "@/dev/zero"]"#,
                Unknown("not a regular file"),
            ),
            (
                "empty name",
                r#""arguments": ["cc", "@"]"#,
                Unknown("response file @: "),
            ),
            (
                "after -- not read",
                r#""arguments": ["cc", "--", "@missing.rsp"]"#,
                Vis(None),
            ),
            (
                "the compiler itself is not one",
                r#""arguments": ["@missing.rsp", "-c", "a.cc"]"#,
                Vis(None),
            ),
            // NUL and control characters.
            (
                "regression_nul_in_a_flag_printed_in_the_verdict",
                r#""arguments": ["cc", "-fvisibility=hid\u0000den"]"#,
                Unknown("NUL"),
            ),
            (
                "NUL in any argument",
                r#""arguments": ["cc", "-DX=\u0000", "-fvisibility=hidden"]"#,
                Unknown("NUL"),
            ),
            (
                "control character",
                r#""arguments": ["cc", "-fvisibility=hidden\u001b[0m"]"#,
                Unknown("control character"),
            ),
            (
                "control character to cc1",
                r#""arguments": ["cc", "-Xclang", "-fvisibility=\nhidden"]"#,
                Unknown("control character"),
            ),
            (
                "tab in a -D value is fine",
                r#""arguments": ["cc", "-DX=a\tb", "-fvisibility=hidden"]"#,
                Vis(Some("hidden")),
            ),
        ];
        for (what, extra, want) in cases {
            let db = parse_compile_db(entry(dir_s, extra).as_bytes())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let got = visibility_of(&db[0]);
            match (want, &got) {
                (Vis(v), Ok(f)) => assert_eq!(f.visibility.as_deref(), *v, "{what}"),
                (Unknown(why), Err(reason)) => {
                    assert!(reason.contains(why), "{what}: {reason:?}");
                    assert!(!reason.contains('\0') && !reason.contains('\n'), "{what}");
                }
                _ => panic!("{what}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn output_of_skips_values_and_inputs() {
        let c = |args: &[&str]| CompileCommand {
            directory: "/b".into(),
            file: "a.cc".into(),
            output: None,
            arguments: args.iter().collect(),
            unknown: None,
        };
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["cc", "-c", "a.cc", "-o", "a.o"], Some("a.o")),
            (&["cc", "-o", "a.o", "-o", "b.o"], Some("b.o")),
            (&["cc", "-D", "-o", "a.cc"], None),
            (&["cc", "-o", "a.o", "--", "-o", "b.o"], Some("a.o")),
            (&["cc", "-ob.o"], Some("b.o")),
            (&["cc", "-MF", "-ob.o"], None),
            (&["cc", "-o"], None),
        ];
        for (args, want) in cases {
            assert_eq!(output_of(&c(args)), *want, "{args:?}");
        }
    }

    #[test]
    fn gnu_words_split_as_llvm() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("  a  b\n\tc ", &["a", "b", "c"]),
            (r#"'a b' "c d""#, &["a b", "c d"]),
            (r#"a\ b"#, &["a b"]),
            (r#"x"y z"w"#, &["xy zw"]),
            (r#""a\"b""#, &["a\"b"]),
            ("'unclosed rest", &["unclosed rest"]),
            ("''", &[""]),
            ("trailing\\", &["trailing\\"]),
        ];
        for (text, want) in cases {
            assert_eq!(gnu_words(text), *want, "{text:?}");
        }
    }

    #[test]
    fn shell_commands_split_outside_quotes() {
        let cases: &[(&str, &[&str])] = &[
            ("cc -c a.cc", &["cc -c a.cc"]),
            ("a && b", &["a ", "", " b"]),
            ("a;b|c", &["a", "b", "c"]),
            ("'a;b' \"c|d\" e\\;f", &["'a;b' \"c|d\" e\\;f"]),
            ("a\nb", &["a", "b"]),
        ];
        for (command, want) in cases {
            assert_eq!(shell_commands(command), *want, "{command:?}");
        }
    }

    #[test]
    fn a_json_error_after_a_bad_entry_wins() {
        assert!(matches!(
            parse_compile_db(b"[1, {"),
            Err(CompileDbError::Json { .. })
        ));
        assert!(matches!(
            parse_compile_db(br#"{"a": [1, 2]} x"#),
            Err(CompileDbError::Json { .. })
        ));
        assert_eq!(
            parse_compile_db(br#"[{"directory": "/b", "file": "a", "file": 1, "command": "cc"}]"#),
            Err(CompileDbError::Entry {
                index: 0,
                message: "`file` is not a string"
            })
        );
    }
}

#[cfg(test)]
mod storage_tests {
    use super::*;

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

    #[test]
    fn entries_share_their_directory_and_mark_a_nul() {
        let db = parse_compile_db(
            br#"[{"directory": "/b", "file": "a.cc", "arguments": ["cc", "-DX=\u0000"]},
                 {"directory": "/c", "file": "b.cc", "command": "cc -c b.cc"},
                 {"directory": "/b", "file": "c.cc", "arguments": ["cc", "-DX=\ufffd"]}]"#,
        )
        .unwrap();
        assert!(Arc::ptr_eq(&db[0].directory, &db[2].directory));
        assert!(!Arc::ptr_eq(&db[0].directory, &db[1].directory));
        assert_eq!(db[0].unknown, Some(NUL_ARGUMENT));
        assert_eq!(db[1].unknown, None);
        assert_eq!(db[2].unknown, None);
        assert!(visibility_of(&db[2]).is_ok());
    }
}
