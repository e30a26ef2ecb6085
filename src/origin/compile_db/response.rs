//! Response files (`@FILE`) read into an entry's argv, bounded, and the visibility verdict of an
//! entry ([`visibility_of`]).

use super::*;

/// The reason of an argv holding a NUL.
pub(super) const NUL_ARGUMENT: &str = "an argument holds a NUL character";

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
/// The entry is read for a compilation for `arch` (the slice being attributed, `None` when not
/// known): an `-Xarch_ARCH OPTION` counts as `OPTION` when it applies to it ([`xarch_applies`]).
///
/// Also unknown: an argument holding a NUL (no real argv can: it is a C string), a visibility
/// option (or a `-Xclang` value) holding another control character, an `-Xarch_ARCH` visibility
/// option when `arch` is `None`, and an entry whose [`CompileCommand::unknown`] is set.
pub fn visibility_of(cmd: &CompileCommand, arch: Option<&str>) -> Result<VisibilityFlags, String> {
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
    walk_for(args.iter().map(|a| a.as_ref()), arch, |arg| {
        let (Arg::Flag(a) | Arg::Cc1(a) | Arg::Operand(_, a) | Arg::Input(a)) = arg;
        if bad.is_some() {
            return;
        }
        if a.contains('\0') {
            bad = Some(NUL_ARGUMENT.to_owned());
        } else if let Arg::Operand(xarch, _) = arg
            && let Some(name) = xarch.strip_prefix("-Xarch_")
            && is_visibility_option(a)
            && xarch_applies(name, arch).is_none()
        {
            bad = Some(format!(
                "{} {}: the arch of the image is not known",
                escape(xarch),
                escape(a)
            ));
        } else if matches!(arg, Arg::Flag(_) | Arg::Cc1(_))
            && (is_visibility_option(a) || matches!(arg, Arg::Cc1(_)))
            && a.chars().any(char::is_control)
        {
            bad = Some("a visibility option holds a control character".to_owned());
        }
    });
    if let Some(b) = bad {
        return Err(b);
    }
    Ok(visibility_of_args(args.iter().map(|a| a.as_ref()), arch))
}

/// What is left to read of an entry's response files.
pub(super) struct Budget {
    files: usize,
    bytes: u64,
}

/// Appends the words of response file `path` (relative to `directory`) to `out`, expanding the
/// response files it names.
pub(super) fn expand(
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
pub(super) fn read_response_file(path: &std::path::Path, limit: u64) -> Result<String, String> {
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
pub(super) fn gnu_words(text: &str) -> Vec<String> {
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

#[cfg(test)]
mod tests {
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
            let got = visibility_of(&db[0], Some("x86_64"));
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

    /// `-Xarch_ARCH OPTION` as clang-22's driver reads it for each arch (checked with `clang-22
    /// -target ARCH-apple-macos11 … -###`), and a newline in `command`.
    #[test]
    fn xarch_options_apply_to_their_arch_and_a_newline_separates_arguments() {
        let x = "-Xarch_x86_64";
        let cases: &[(&[&str], Option<&str>, Want)] = &[
            (
                &[x, "-fvisibility=hidden"],
                Some("x86_64"),
                Vis(Some("hidden")),
            ),
            (&[x, "-fvisibility=hidden"], Some("arm64"), Vis(None)),
            (&[x, "-fvisibility=hidden"], Some("x86_64h"), Vis(None)),
            (
                &["-Xarch_arm64", "-fvisibility=hidden"],
                Some("arm64e"),
                Vis(None),
            ),
            (
                &[x, "-fvisibility=hidden"],
                None,
                Unknown("-Xarch_x86_64 -fvisibility=hidden: the arch of the image is not known"),
            ),
            (
                &[x, "-O2", "-fvisibility=hidden"],
                None,
                Vis(Some("hidden")),
            ),
            (
                &["-Xarch_host", "-fvisibility=hidden"],
                None,
                Vis(Some("hidden")),
            ),
            (
                &["-Xarch_device", "-fvisibility=hidden"],
                Some("x86_64"),
                Vis(None),
            ),
            // In its place: the last one wins.
            (
                &["-fvisibility=hidden", x, "-fvisibility=default"],
                Some("x86_64"),
                Vis(Some("default")),
            ),
            (
                &[x, "-fvisibility=default", "-fvisibility=hidden"],
                Some("x86_64"),
                Vis(Some("hidden")),
            ),
            (
                &[
                    "-Xarch_arm64",
                    "-fvisibility=hidden",
                    x,
                    "-fvisibility=default",
                ],
                Some("arm64"),
                Vis(Some("hidden")),
            ),
            (
                &[
                    "-Xarch_arm64",
                    "-fvisibility=hidden",
                    x,
                    "-fvisibility=default",
                ],
                Some("x86_64"),
                Vis(Some("default")),
            ),
            (
                &[x, "-fvisibility=hid\u{1b}den"],
                Some("x86_64"),
                Unknown("control character"),
            ),
            (
                &["-fvisibility=hidden", x],
                Some("x86_64"),
                Vis(Some("hidden")),
            ),
            (
                &["-D", x, "-fvisibility=hidden"],
                Some("x86_64"),
                Vis(Some("hidden")),
            ),
        ];
        for (args, arch, want) in cases {
            let argv: Vec<String> = std::iter::once("cc")
                .chain(args.iter().copied())
                .map(|a| serde_json::to_string(a).unwrap())
                .collect();
            let db = parse_compile_db(
                entry("/b", &format!(r#""arguments": [{}]"#, argv.join(", "))).as_bytes(),
            )
            .unwrap();
            let got = visibility_of(&db[0], *arch);
            match (want, &got) {
                (Vis(v), Ok(f)) => assert_eq!(f.visibility.as_deref(), *v, "{args:?} {arch:?}"),
                (Unknown(why), Err(reason)) => assert!(reason.contains(why), "{reason:?}"),
                _ => panic!("{args:?} {arch:?}: got {got:?}, want {want:?}"),
            }
        }
        let f = visibility_flags(
            &["cc", x, "-fvisibility-ms-compat"].iter().collect(),
            Some("x86_64"),
        );
        assert!(f.ms_compat && f.hides_by_default());
        // A newline in `command` separates arguments; it does not end a command.
        for (command, want) in [
            (r#"cc -c a.cc -o a.o\n-fvisibility=hidden"#, Some("hidden")),
            (r#"cc -fvisibility=hidden\n-c a.cc"#, Some("hidden")),
            (r#"cc -fvisibility=hidden -c a.cc\r\n"#, Some("hidden")),
            // CRLF line ends between arguments (regression: the `\r` stayed in a word, a
            // control character, and the visibility was unknown).
            (r#"cc -c a.cc\r\n-fvisibility=hidden\r\n"#, Some("hidden")),
            (
                r#"cc -c a.cc\n-fvisibility=hidden && cc -fvisibility=default -c b.cc"#,
                Some("hidden"),
            ),
            (r#"cc -c a.cc '\n-fvisibility=hidden'"#, None),
        ] {
            let db =
                parse_compile_db(entry("/b", &format!(r#""command": "{command}""#)).as_bytes())
                    .unwrap();
            let f = visibility_of(&db[0], Some("x86_64")).unwrap();
            assert_eq!(f.visibility.as_deref(), want, "{command:?}");
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
}
