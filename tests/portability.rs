//! weakscan's users run it on macOS, where nothing here builds or tests it: every file under
//! `src/` is read, and a Linux-only API outside a `#[cfg(target_os = "linux")]` item fails.
//!
//! The rules, kept simple on purpose:
//! * Rust files are read without their comments (`//…`, `/*…*/`, doc comments): a comment is not
//!   a call. String literals are read: a `/proc/` path in a string is a use. Other files (the C
//!   demangler glue, the report's JavaScript and CSS) are read whole, comments too.
//! * A name (`prctl`, `epoll`, `O_PATH`…) matches where an identifier starts, so `epoll` matches
//!   `epoll_wait` and `libc::epoll_create1` but not `my_epoll`; a path (`/proc/`, `/sys/`) or a
//!   qualified name (`std::os::linux`) matches anywhere; `splice(` matches unless it is a method
//!   call (`.splice(` is `Vec::splice`, not the system call).
//! * Linux scope, in Rust files only: from a line holding exactly `#[cfg(target_os = "linux")]` (or
//!   `#![cfg(target_os = "linux")]` in a file's first lines: the whole file) to the end of the item
//!   it is on: the `}` that closes the first `{` opened after it, or a `;` met before any `{`.
//!   `cfg!(target_os = "linux")` scopes the same way from where it stands (its statement, or the
//!   block its `if` opens), but only for paths: it does not remove code, so a Linux-only function
//!   under it still fails to compile on macOS. `any(…)`, `not(…)` and other forms are not
//!   Linux scope.
//!
//! Nothing is allow-listed but [`NOT_AN_API_USE`], each entry with its reason.

use std::path::{Path, PathBuf};

/// What is looked for: Linux-only names, paths and modules.
const LINUX_ONLY: &[&str] = &[
    "/proc/",
    "/sys/",
    "O_DIRECT",
    "O_TMPFILE",
    "O_PATH",
    "MAP_POPULATE",
    "MADV_POPULATE",
    "memfd_create",
    "epoll",
    "inotify",
    "sched_setaffinity",
    "prctl",
    "statx",
    "copy_file_range",
    "splice(",
    "sendfile",
    "fallocate",
    "gettid",
    "SOCK_CLOEXEC",
    "pipe2",
    "accept4",
    "libc::__errno_location",
    "std::os::linux",
];

/// Matches that are no use of a Linux API, each with why: (file under `src/`, the line's text
/// trimmed, the pattern). An entry that no longer matches fails the test, so none outlives its
/// line.
const NOT_AN_API_USE: &[(&str, &str, &str)] = &[
    // A unit test of `is_special`, which only looks at a path's first component (`proc`): the
    // string is never opened, and the test passes on macOS as on Linux.
    (
        "output/sink.rs",
        r#"assert!(is_special(Path::new("/proc/self/fd/1")));"#,
        "/proc/",
    ),
];

/// One match: where, what, and the line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    file: String,
    line: usize,
    pattern: &'static str,
    text: String,
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `src` with every comment replaced by spaces (newlines kept, so lines keep their numbers):
/// line and block comments (nested), with string, raw string, byte string and char literals
/// skipped so that a `//` inside one is not taken for a comment.
fn strip_rust_comments(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (i == 0 || !is_ident(c[i - 1]) || c[i - 1] == 'b')
            && matches!(next, Some('#') | Some('"'))
        {
            // A raw string r"…", r#"…"# (or br#"…"#): up to the quote and as many hashes.
            let mut j = i + 1;
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            let mut k = j + 1;
            while k < c.len() && !(c[k] == '"' && (1..=hashes).all(|h| c.get(k + h) == Some(&'#')))
            {
                k += 1;
            }
            let end = (k + 1 + hashes).min(c.len());
            out.extend(&c[i..end]);
            i = end;
        } else if c[i] == '"' {
            out.push('"');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' && i + 1 < c.len() {
                    out.push(c[i]);
                    i += 1;
                }
                out.push(c[i]);
                i += 1;
            }
            if i < c.len() {
                out.push('"');
                i += 1;
            }
        } else if c[i] == '\'' && next == Some('\\') {
            // An escaped char literal: '\n', '\'', '\u{…}' (the escaped character skipped).
            let mut k = i + 3;
            while k < c.len() && c[k] != '\'' {
                k += 1;
            }
            let end = (k + 1).min(c.len());
            out.extend(&c[i..end]);
            i = end;
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            // A char literal such as '"' or '/'.
            out.extend(&c[i..i + 3]);
            i += 3;
        } else {
            // Code, or a lifetime's quote.
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Whether `pattern` occurs in `line` by the rules of the module docs.
fn occurs(line: &str, pattern: &str) -> bool {
    let starts_ident = pattern.starts_with(is_ident);
    line.match_indices(pattern).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        if pattern == "splice(" {
            !matches!(before, Some(b) if is_ident(b) || b == '.')
        } else if starts_ident && !pattern.contains("::") {
            !matches!(before, Some(b) if is_ident(b))
        } else {
            true
        }
    })
}

/// Per line of `code` (comments stripped): (in Linux scope for names, in Linux scope for paths).
fn linux_scope(code: &str) -> Vec<(bool, bool)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut scope = vec![(false, false); lines.len()];
    let whole_file = lines
        .iter()
        .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with("#!["))
        .any(|l| l.trim() == r#"#![cfg(target_os = "linux")]"#);
    if whole_file {
        return vec![(true, true); lines.len()];
    }
    for (n, l) in lines.iter().enumerate() {
        let attribute = l.trim() == r#"#[cfg(target_os = "linux")]"#;
        let macro_at = l.find(r#"cfg!(target_os = "linux")"#);
        if !attribute && macro_at.is_none() {
            continue;
        }
        let start_col = macro_at.map_or(l.len(), |at| at + r#"cfg!(target_os = "linux")"#.len());
        let end = item_end(&lines, n, start_col);
        for s in &mut scope[n..=end] {
            s.1 = true;
            s.0 |= attribute;
        }
    }
    scope
}

/// The line where the item or statement starting at (`line`, `col`) ends: the `}` closing the
/// first `{` after it, or a `;` met before any `{`. Brackets inside string literals count too: a
/// literal with an unbalanced one in a Linux-scoped item would move the end of its scope.
fn item_end(lines: &[&str], line: usize, col: usize) -> usize {
    let mut depth = 0usize;
    let mut opened = false;
    for (n, l) in lines.iter().enumerate().skip(line) {
        let from = if n == line { col } else { 0 };
        for ch in l[from..].chars() {
            match ch {
                '{' | '(' | '[' => {
                    opened |= ch == '{';
                    depth += 1;
                }
                '}' | ')' | ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && opened && ch == '}' {
                        return n;
                    }
                }
                ';' if depth == 0 => return n,
                _ => {}
            }
        }
    }
    lines.len().saturating_sub(1)
}

/// Every Linux-only use in one file's text, outside Linux scope.
fn scan(file: &str, text: &str) -> Vec<Finding> {
    let rust = file.ends_with(".rs");
    let code = if rust {
        strip_rust_comments(text)
    } else {
        text.to_string()
    };
    let scope = if rust { linux_scope(&code) } else { Vec::new() };
    let original: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (n, l) in code.lines().enumerate() {
        for &pattern in LINUX_ONLY {
            if !occurs(l, pattern) {
                continue;
            }
            let is_path = pattern.starts_with('/');
            let (names, paths) = scope.get(n).copied().unwrap_or((false, false));
            if (is_path && paths) || (!is_path && names) {
                continue;
            }
            found.push(Finding {
                file: file.to_string(),
                line: n + 1,
                pattern,
                text: original.get(n).unwrap_or(&"").trim().to_string(),
            });
        }
    }
    found
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn no_linux_only_api_outside_cfg_target_os_linux_in_src() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    files_under(&src, &mut files);
    files.sort();
    assert!(files.len() > 50, "src/ holds {} files", files.len());
    let mut found = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        found.extend(scan(&rel, &text));
    }
    let mut used = vec![false; NOT_AN_API_USE.len()];
    found.retain(|f| {
        let allowed = NOT_AN_API_USE.iter().position(|&(file, text, pattern)| {
            f.file == file && f.text == text && f.pattern == pattern
        });
        if let Some(i) = allowed {
            used[i] = true;
        }
        allowed.is_none()
    });
    let report: Vec<String> = found
        .iter()
        .map(|f| format!("src/{}:{}: {} in `{}`", f.file, f.line, f.pattern, f.text))
        .collect();
    assert!(
        report.is_empty(),
        "Linux-only API outside #[cfg(target_os = \"linux\")] (weakscan runs on macOS):\n{}",
        report.join("\n")
    );
    let stale: Vec<_> = NOT_AN_API_USE
        .iter()
        .zip(&used)
        .filter(|&(_, &u)| !u)
        .map(|(e, _)| e)
        .collect();
    assert!(
        stale.is_empty(),
        "allow-list entries that match nothing: {stale:?}"
    );
}

/// The rules above, on made-up sources: each kind of use is found, and each kind of scope and
/// non-use is not.
#[test]
fn the_linux_only_api_scan_finds_uses_and_respects_cfg_scope() {
    let lines = |file: &str, text: &str| -> Vec<(usize, &'static str)> {
        scan(file, text)
            .iter()
            .map(|f| (f.line, f.pattern))
            .collect()
    };
    let src = r##"use std::os::linux::fs::MetadataExt;
fn a() { let _ = std::fs::read("/proc/self/status"); }
fn b(fd: i32) { unsafe { libc::epoll_create1(0); libc::prctl(1) }; }
// a comment about /proc/ and prctl is not a use
/* nor is /sys/ in a /* nested */ block comment */
fn c() { let url = "http://x"; let s = ['"', '\'', '/']; let _ = libc::O_PATH; }
fn d(v: &mut Vec<u8>) { v.splice(0..0, [1]); unsafe { libc::splice(0, 0, 0, 0, 0, 0) }; }
fn e() -> &'static str { r#"/sys/class"# }
fn f() { let my_epoll = 1; let _ = my_epoll; }
"##;
    assert_eq!(
        lines("x.rs", src),
        [
            (1, "std::os::linux"),
            (2, "/proc/"),
            (3, "epoll"),
            (3, "prctl"),
            (6, "O_PATH"),
            (7, "splice("),
            (8, "/sys/"),
        ]
    );

    let scoped = r#"#[cfg(target_os = "linux")]
use std::os::linux::fs::MetadataExt;
#[cfg(target_os = "linux")]
fn pin() {
    unsafe { libc::sched_setaffinity(0, 0, std::ptr::null()) };
    let _ = std::fs::read("/proc/self/status");
}
fn after() { unsafe { libc::gettid() }; }
fn paths() {
    if cfg!(target_os = "linux") {
        let _ = std::fs::read("/sys/kernel/mm");
        unsafe { libc::fallocate(0, 0, 0, 0) };
    }
    let _ = std::fs::read("/proc/meminfo");
}
#[cfg(not(target_os = "linux"))]
fn not_linux() { unsafe { libc::pipe2(std::ptr::null_mut(), 0) }; }
"#;
    assert_eq!(
        lines("y.rs", scoped),
        [
            (8, "gettid"),
            (12, "fallocate"),
            (14, "/proc/"),
            (17, "pipe2")
        ]
    );

    let whole = "#![cfg(target_os = \"linux\")]\nfn f() { unsafe { libc::statx() }; }\n";
    assert!(lines("z.rs", whole).is_empty());

    // Other files are read whole, comments too, with no scope.
    assert_eq!(
        lines("glue.c", "/* uses sendfile */\nint x = O_DIRECT;\n"),
        [(1, "sendfile"), (2, "O_DIRECT")]
    );
}
