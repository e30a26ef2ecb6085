//! A plain dump of build commands, one a line, read as a compilation database: what
//! `ninja -n --verbose -C out/Release` (or `ninja -v`, `make V=1`) prints, e.g.
//!
//! ```text
//! ninja: Entering directory `out/Release'
//! [12/4000] ccache /usr/bin/clang++ -MMD -fvisibility=hidden -c ../../src/foo.cc -o obj/foo.o
//! ```
//!
//! Each line is split as a `command` of the JSON format is ([`parse_compile_db`]: shell
//! commands at `&&`, `;`, `|`, words by `shlex`), after an optional ninja progress prefix
//! (`[N/M] `). A line is a compilation when one of its commands, with wrapper prefixes skipped
//! ([`compiler_of`]), is a C-family compiler ([`is_compiler`]) given `-c`; its `file` is the
//! last input of that command that is not an option, its output the last `-o`. The directory is
//! the one of the last `ninja: Entering directory` line before it, else `.`. Every other
//! non-empty line is counted in [`DumpStats::other_lines`], never dropped silently.

use super::*;

/// What a command dump holds besides its compilations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DumpStats {
    /// Non-empty lines read.
    pub lines: usize,
    /// Non-empty lines that are no compilation (links, stamps, copies, ninja's own messages).
    pub other_lines: usize,
}

/// A compilation database in either form, told apart by content: a JSON array (the first
/// non-whitespace byte `[` followed, after whitespace, by `{` or `]`) is read by
/// [`parse_compile_db`], anything else as a command dump ([`parse_command_dump`]).
///
/// Errors: those of [`parse_compile_db`]; a dump that is not UTF-8 or holds a line that cannot
/// be split (an unbalanced quote, a trailing backslash), with its 1-based line.
pub fn parse_compile_input(
    bytes: &[u8],
) -> Result<(Vec<CompileCommand>, Option<DumpStats>), CompileDbError> {
    if is_json_array(bytes) {
        return parse_compile_db(bytes).map(|c| (c, None));
    }
    parse_command_dump(bytes).map(|(c, s)| (c, Some(s)))
}

/// The text starts as a JSON array of objects (or an empty one) does.
fn is_json_array(bytes: &[u8]) -> bool {
    let mut rest = bytes.iter().copied().skip_while(u8::is_ascii_whitespace);
    if rest.next() != Some(b'[') {
        return false;
    }
    matches!(
        rest.find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b']') | None
    )
}

/// Reads a command dump (see the [module documentation](self)).
///
/// Errors: [`CompileDbError::Line`] for text that is not UTF-8 (at the first line holding an
/// invalid byte) or a line `shlex` cannot split.
pub fn parse_command_dump(
    bytes: &[u8],
) -> Result<(Vec<CompileCommand>, DumpStats), CompileDbError> {
    let mut stats = DumpStats::default();
    let mut commands = Vec::new();
    let mut directory: Arc<str> = Arc::from(".");
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = i + 1;
        let line = std::str::from_utf8(raw).map_err(|_| CompileDbError::Line {
            line: line_no,
            message: "not UTF-8 text",
        })?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        stats.lines += 1;
        if let Some(d) = entering_directory(line) {
            directory = Arc::from(d);
            stats.other_lines += 1;
            continue;
        }
        match compilation(strip_progress(line), &directory).map_err(|message| {
            CompileDbError::Line {
                line: line_no,
                message,
            }
        })? {
            Some(c) => commands.push(c),
            None => stats.other_lines += 1,
        }
    }
    Ok((commands, stats))
}

/// The directory of ninja's `ninja: Entering directory `DIR'` line.
fn entering_directory(line: &str) -> Option<&str> {
    let d = line.strip_prefix("ninja: Entering directory ")?;
    let d = d.strip_prefix(['`', '\'']).unwrap_or(d);
    Some(d.strip_suffix('\'').unwrap_or(d))
}

/// `line` without ninja's progress prefix `[N/M] ` (any `[…] ` of digits and `/`).
fn strip_progress(line: &str) -> &str {
    if let Some(rest) = line.strip_prefix('[')
        && let Some((inside, after)) = rest.split_once(']')
        && !inside.is_empty()
        && inside.bytes().all(|b| b.is_ascii_digit() || b == b'/')
    {
        return after.trim_start();
    }
    line
}

/// The compilation a dump line holds, or `None` when it holds none.
fn compilation(line: &str, directory: &Arc<str>) -> Result<Option<CompileCommand>, &'static str> {
    const CANNOT: &str = "the command cannot be split (unbalanced quote or trailing backslash)";
    for part in argv::shell_commands(line) {
        let words = shlex::split(part).ok_or(CANNOT)?;
        let Some(start) = compiler_of(&words) else {
            continue;
        };
        let args = &words[start..];
        let (mut c, mut file) = (false, None);
        argv::walk(args.iter().map(String::as_str).skip(1), |arg| match arg {
            argv::Arg::Flag("-c") => c = true,
            argv::Arg::Flag(f) | argv::Arg::Input(f)
                if !f.starts_with('-') && !f.starts_with('@') =>
            {
                file = Some(f)
            }
            _ => {}
        });
        let (true, Some(file)) = (c, file) else {
            continue;
        };
        let file: Box<str> = file.into();
        let arguments: Argv = args.iter().collect();
        let unknown = args
            .iter()
            .any(|a| a.contains('\0'))
            .then_some(response::NUL_ARGUMENT);
        return Ok(Some(CompileCommand {
            directory: directory.clone(),
            file,
            output: None,
            arguments,
            unknown,
        }));
    }
    Ok(None)
}

/// Wrappers that run the compiler named after them (and their own options before it).
pub const COMPILER_WRAPPERS: &[&str] = &[
    "ccache",
    "sccache",
    "distcc",
    "gomacc",
    "icecc",
    "rewrapper",
];

/// Where the compiler starts in `words`: after `env` and its `NAME=VALUE` words (and options),
/// leading `NAME=VALUE` assignments, and [`COMPILER_WRAPPERS`] (by file name, with their
/// options); `None` when what is left is no C-family compiler ([`is_compiler`]).
pub fn compiler_of(words: &[String]) -> Option<usize> {
    let mut i = 0;
    loop {
        let w = words.get(i)?;
        let name = w.rsplit('/').next().unwrap_or(w);
        if name == "env" || COMPILER_WRAPPERS.contains(&name) {
            i += 1;
            while let Some(w) = words.get(i).filter(|w| w.starts_with('-')) {
                // `env -u NAME` takes the next word.
                i += if w == "-u" || w == "--unset" { 2 } else { 1 };
            }
        } else if is_assignment(w) {
            i += 1;
        } else {
            return is_compiler(w).then_some(i);
        }
    }
}

/// `NAME=VALUE` with a shell variable name.
fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(n, _)| {
        !n.is_empty()
            && !n.starts_with(|c: char| c.is_ascii_digit())
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A C-family compiler driver by file name: `cc`, `c++`, `clang`, `clang++`, `gcc`, `g++`,
/// versioned (`clang-22`, `g++-14`) or target-prefixed (`x86_64-apple-darwin-clang++`).
pub fn is_compiler(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    let last = base.rsplit('-').next().unwrap_or(base);
    matches!(last, "cc" | "c++" | "clang" | "clang++" | "gcc" | "g++")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        shlex::split(s).unwrap()
    }

    #[test]
    fn compiler_found_behind_wrappers() {
        let cases: &[(&str, Option<usize>)] = &[
            ("clang++ -c a.cc", Some(0)),
            ("/usr/bin/ccache /usr/bin/clang++ -c a.cc", Some(1)),
            ("sccache clang -c a.c", Some(1)),
            ("distcc g++-14 -c a.cc", Some(1)),
            (
                "/goma/gomacc ../../third_party/llvm-build/bin/clang++ -c a.cc",
                Some(1),
            ),
            (
                "env CCACHE_SLOPPINESS=time_macros ccache c++ -c a.cc",
                Some(3),
            ),
            ("env -u FOO A=1 clang-22 -c a.cc", Some(4)),
            ("LANG=C cc -c a.c", Some(1)),
            ("x86_64-apple-darwin-clang++ -c a.cc", Some(0)),
            ("python3 gen.py -c x", None),
            ("ccache", None),
            ("ld64.lld -o a a.o", None),
            ("touch obj/a.stamp", None),
        ];
        for (line, want) in cases {
            assert_eq!(compiler_of(&words(line)), *want, "{line}");
        }
    }

    #[test]
    fn ninja_dump_lines_become_entries() {
        let dump = "ninja: Entering directory `out/Release'\n\
            [1/3] ccache /usr/bin/clang++ -MMD -fvisibility=hidden -c ../../src/foo.cc -o obj/foo.o\n\
            [2/3] env A=1 clang -MF x.d -c ../../src/bar.c -o obj/bar.o\n\
            [3/3] clang++ -o app obj/foo.o obj/bar.o\n\
            \n";
        let (cmds, stats) = parse_command_dump(dump.as_bytes()).unwrap();
        assert_eq!(
            stats,
            DumpStats {
                lines: 4,
                other_lines: 2
            }
        );
        assert_eq!(cmds.len(), 2);
        assert_eq!(&*cmds[0].directory, "out/Release");
        assert_eq!(&*cmds[0].file, "../../src/foo.cc");
        assert_eq!(output_of(&cmds[0]), Some("obj/foo.o"));
        assert_eq!(cmds[0].arguments.iter().next(), Some("/usr/bin/clang++"));
        assert!(visibility_flags(&cmds[0].arguments, None).hides_by_default());
        assert_eq!(&*cmds[1].file, "../../src/bar.c");
    }

    #[test]
    fn input_form_told_by_content() {
        let (c, s) = parse_compile_input(
            b" [ {\"directory\":\"/b\",\"file\":\"a.c\",\"arguments\":[\"cc\",\"-c\",\"a.c\"]} ]",
        )
        .unwrap();
        assert_eq!((c.len(), s), (1, None));
        let (c, s) = parse_compile_input(b"[]").unwrap();
        assert_eq!((c.len(), s), (0, None));
        let (c, s) = parse_compile_input(b"[1/1] cc -c a.c -o a.o\n").unwrap();
        assert_eq!((c.len(), s.map(|s| s.lines)), (1, Some(1)));
        // JSON that is not an array of objects is still an error of the JSON reader.
        assert!(matches!(
            parse_compile_input(b"[{"),
            Err(CompileDbError::Json { .. })
        ));
    }

    #[test]
    fn unreadable_dump_lines_name_their_line() {
        assert_eq!(
            parse_command_dump(b"cc -c a.c\ncc -c 'b.c\n").unwrap_err(),
            CompileDbError::Line {
                line: 2,
                message: "the command cannot be split (unbalanced quote or trailing backslash)"
            }
        );
        assert_eq!(
            parse_command_dump(b"cc -c a.c\n\xff\n").unwrap_err(),
            CompileDbError::Line {
                line: 2,
                message: "not UTF-8 text"
            }
        );
    }
}
