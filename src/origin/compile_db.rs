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
//! [`visibility_flags`] reads an entry's visibility options; [`CompileDbIndex`] finds the entry
//! of a source path or an object file (the matching rules are on [`CompileDbIndex::find`]);
//! [`target_of`] guesses the build target from the output path.

use crate::origin::link_map::split_object;
use crate::text::escape;
use serde_json::Value;
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::fmt;
use std::hash::{Hash, Hasher};

/// One entry of the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileCommand {
    /// The working directory of the compilation, as written.
    pub directory: String,
    /// The main source file, as written (relative to `directory`, or absolute).
    pub file: String,
    /// The `output` key, as written (relative to `directory`, or absolute). See [`output_of`]
    /// for the output with `-o` as a fallback.
    pub output: Option<String>,
    /// The argv: `arguments`, or `command` split as a shell would.
    pub arguments: Vec<String>,
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
/// errors.
pub fn parse_compile_db(bytes: &[u8]) -> Result<Vec<CompileCommand>, CompileDbError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
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
    let Value::Array(entries) = value else {
        return Err(CompileDbError::NotAnArray);
    };
    entries
        .into_iter()
        .enumerate()
        .map(|(index, entry)| {
            entry_of(entry).map_err(|message| CompileDbError::Entry { index, message })
        })
        .collect()
}

/// `map[key]` taken out: `None` when absent or null, `Err` when not a string.
fn take_string(map: &mut serde_json::Map<String, Value>, key: &str) -> Result<Option<String>, ()> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(()),
    }
}

fn entry_of(entry: Value) -> Result<CompileCommand, &'static str> {
    let Value::Object(mut map) = entry else {
        return Err("not an object");
    };
    let directory = take_string(&mut map, "directory")
        .map_err(|()| "`directory` is not a string")?
        .ok_or("no `directory`")?;
    let file = take_string(&mut map, "file")
        .map_err(|()| "`file` is not a string")?
        .ok_or("no `file`")?;
    let output = take_string(&mut map, "output").map_err(|()| "`output` is not a string")?;
    let arguments = match (map.remove("arguments"), map.remove("command")) {
        (Some(Value::Array(args)), _) => args
            .into_iter()
            .map(|a| match a {
                Value::String(s) => Ok(s),
                _ => Err("`arguments` has an element that is not a string"),
            })
            .collect::<Result<Vec<_>, _>>()?,
        (Some(Value::Null) | None, Some(Value::String(command))) => shlex::split(&command)
            .ok_or("`command` cannot be split (unbalanced quote or trailing backslash)")?,
        (Some(Value::Null) | None, None | Some(Value::Null)) => {
            return Err("neither `arguments` nor `command`");
        }
        (Some(Value::Null) | None, Some(_)) => return Err("`command` is not a string"),
        (Some(_), _) => return Err("`arguments` is not an array"),
    };
    Ok(CompileCommand {
        directory,
        file,
        output,
        arguments,
    })
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
/// never matches).
///
/// The spellings handled are clang's driver options (`clang/include/clang/Driver/Options.td`),
/// which GCC shares: `-fvisibility=VALUE` (joined only: the driver rejects `-fvisibility VALUE`),
/// `-fvisibility-ms-compat`, `-fvisibility-inlines-hidden` and `-fno-visibility-inlines-hidden`,
/// the last one of each pair winning. Options passed straight to the compiler proper with
/// `-Xclang` are handled as cc1 sees them, after every driver option whatever their position:
/// `-Xclang -fvisibility=VALUE`, `-Xclang -fvisibility -Xclang VALUE` (cc1's older separate
/// spelling) and `-Xclang -fvisibility-inlines-hidden`. Not handled: response files (`@file`),
/// `-Xarch_*`, `-Wp,`, and options that only look alike (`-fvisibility-inlines-hidden-static-
/// local-var`, `-fvisibility-global-new-delete=…`, `-ftype-visibility=…`).
pub fn visibility_flags(arguments: &[String]) -> VisibilityFlags {
    let mut flags = VisibilityFlags::default();
    let mut cc1: Vec<&str> = Vec::new();
    let mut args = arguments.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        if arg == "-Xclang" {
            if let Some(a) = args.next() {
                cc1.push(a);
            }
            continue;
        }
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

/// The output of an entry: its `output` key, else the argument of the last `-o` in its argv
/// (`-o FILE`, or `-oFILE` when `FILE` ends in `.o` or `.obj`).
pub fn output_of(cmd: &CompileCommand) -> Option<&str> {
    if let Some(o) = &cmd.output {
        return Some(o);
    }
    let mut out = None;
    let mut args = cmd.arguments.iter().skip(1);
    while let Some(a) = args.next() {
        if a == "-o" {
            out = args.next().map(String::as_str).or(out);
        } else if let Some(o) = a.strip_prefix("-o")
            && (o.ends_with(".o") || o.ends_with(".obj"))
        {
            out = Some(o);
        }
    }
    out
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
/// by normalized output path, by source file name and by output file name.
#[derive(Debug, Clone, Default)]
pub struct CompileDbIndex {
    /// Per entry: the normalized source path.
    files: Vec<String>,
    /// Per entry: the normalized output path, if known ([`output_of`]).
    outputs: Vec<Option<String>>,
    /// Per entry: [`target_of`].
    targets: Vec<Option<String>>,
    /// Per entry: a hash of (source, output, argv), to tell exact duplicates.
    fingerprints: Vec<u64>,
    by_file: HashMap<String, Vec<usize>>,
    by_output: HashMap<String, Vec<usize>>,
    by_file_name: HashMap<String, Vec<usize>>,
    by_output_name: HashMap<String, Vec<usize>>,
}

impl CompileDbIndex {
    /// The index of `commands`; [`Match::Unique`] holds positions in that slice.
    pub fn new(commands: &[CompileCommand]) -> Self {
        let mut index = CompileDbIndex::default();
        for (i, cmd) in commands.iter().enumerate() {
            let file = normalize(&cmd.file, Some(&cmd.directory));
            let output = output_of(cmd).map(|o| normalize(o, Some(&cmd.directory)));
            let mut h = DefaultHasher::new();
            (&file, &output, &cmd.arguments).hash(&mut h);
            index.fingerprints.push(h.finish());
            index
                .by_file_name
                .entry(base_name(&file).to_owned())
                .or_default()
                .push(i);
            index.by_file.entry(file.clone()).or_default().push(i);
            if let Some(o) = &output {
                index
                    .by_output_name
                    .entry(base_name(o).to_owned())
                    .or_default()
                    .push(i);
                index.by_output.entry(o.clone()).or_default().push(i);
            }
            index.files.push(file);
            index.outputs.push(output);
            index.targets.push(target_of(cmd));
        }
        index
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
        if let Some(cands) = source.as_ref().and_then(|s| self.by_file.get(s)) {
            return self.narrow(cands, object);
        }
        // 2. exact output of a loose object
        if let Some(cands) = object
            .and_then(|o| o.loose.as_ref())
            .and_then(|p| self.by_output.get(p))
        {
            return self.narrow(cands, object);
        }
        // 3. longest common suffix of components, at least 2
        if let Some(source) = &source
            && let Some(cands) = self.by_file_name.get(base_name(source))
        {
            let mut best = 0;
            let mut tied: Vec<usize> = Vec::new();
            for &c in cands {
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
        if let Some(cands) = object
            .filter(|o| !o.name.is_empty())
            .and_then(|o| self.by_output_name.get(o.name))
        {
            return self.narrow(cands, object);
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
            directory: directory.to_owned(),
            file: file.to_owned(),
            output: output.map(str::to_owned),
            arguments: args.iter().map(|s| s.to_string()).collect(),
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
        let v = |args: &[&str]| visibility_flags(&strings(args));
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
        b.arguments.push("-O2".into());
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
