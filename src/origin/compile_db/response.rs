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
