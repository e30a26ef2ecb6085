//! The versions a bisection runs over: on the command line, or one a line in a file
//! (`--versions FILE`, `-` for stdin), oldest first.
//!
//! A version names a directory of the cache and is one argument of the fetch command (and, with
//! `--shell`, text of a shell command): it is 1 to [`MAX_VERSION_BYTES`] ASCII letters, digits
//! and `.`, `_`, `-`, `+`, starting with a letter or a digit (`22.11.0`,
//! `v23.0.0-nightly20240423abc`, a commit hash). In a file, surrounding blanks are trimmed and
//! blank lines and lines starting with `#` are not versions. Each version is listed once.

use crate::error::{Error, ErrorKind, Result};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Most bytes of a version.
pub const MAX_VERSION_BYTES: usize = 128;
/// Most versions in a list.
pub const MAX_VERSIONS: usize = 1 << 16;
/// Most bytes of a versions file (every version at its longest, with its line end).
pub const MAX_LIST_BYTES: u64 = (MAX_VERSIONS * (MAX_VERSION_BYTES + 2)) as u64;

/// Where the versions are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionList {
    /// On the command line.
    Args(Vec<String>),
    /// One a line in a file (`-`: stdin).
    File(PathBuf),
}

/// What is wrong with `v` as a version, if anything.
pub fn invalid(v: &str) -> Option<String> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+');
    if v.is_empty() {
        Some("an empty version".into())
    } else if v.len() > MAX_VERSION_BYTES {
        Some(format!(
            "a version of {} bytes (at most {MAX_VERSION_BYTES})",
            v.len()
        ))
    } else if !v.starts_with(|c: char| c.is_ascii_alphanumeric()) || !v.chars().all(ok_char) {
        Some(format!(
            "version {v:?}: a version is ASCII letters, digits and . _ - +, starting with a letter or a digit (it names a directory of the cache and is one argument of the fetch)"
        ))
    } else {
        None
    }
}

/// Reads and checks the versions.
///
/// Errors (exit 2): an unreadable file (`Io`); a file over [`MAX_LIST_BYTES`], not UTF-8, a
/// bad version (at its line), a version listed twice (both places named), more than
/// [`MAX_VERSIONS`] or fewer than 2 versions (`Usage` for the command line, `Malformed` for a
/// file).
pub fn read(list: &VersionList) -> Result<Vec<String>> {
    let (versions, places): (Vec<String>, Vec<String>) = match list {
        VersionList::Args(args) => {
            for v in args {
                if let Some(what) = invalid(v) {
                    return Err(Error::usage(what));
                }
            }
            let places = (1..=args.len()).map(|i| format!("argument {i}")).collect();
            (args.clone(), places)
        }
        VersionList::File(path) => from_file(path)?,
    };
    let bad = |what: String| match list {
        VersionList::Args(_) => Error::usage(what),
        VersionList::File(p) => Error::new(ErrorKind::Malformed, p, what),
    };
    if versions.len() > MAX_VERSIONS {
        return Err(bad(format!(
            "{} versions (at most {MAX_VERSIONS})",
            versions.len()
        )));
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, v) in versions.iter().enumerate() {
        if let Some(&first) = seen.get(v.as_str()) {
            return Err(bad(format!(
                "{v} is listed twice ({} and {}): a bisection tests each version once",
                places[first], places[i]
            )));
        }
        seen.insert(v, i);
    }
    if versions.len() < 2 {
        return Err(bad(format!(
            "{} version{}: a bisection needs two at least, the first good and the last bad",
            versions.len(),
            if versions.len() == 1 { "" } else { "s" }
        )));
    }
    Ok(versions)
}

/// The versions of a file, each with its place (`line 3`).
fn from_file(path: &Path) -> Result<(Vec<String>, Vec<String>)> {
    let mut bytes = Vec::new();
    let limited =
        |r: &mut dyn Read, bytes: &mut Vec<u8>| r.take(MAX_LIST_BYTES + 1).read_to_end(bytes);
    if path.as_os_str() == "-" {
        limited(&mut std::io::stdin().lock(), &mut bytes)
    } else {
        std::fs::File::open(path).and_then(|mut f| limited(&mut f, &mut bytes))
    }
    .map_err(|e| Error::io(path, &e))?;
    if bytes.len() as u64 > MAX_LIST_BYTES {
        return Err(Error::new(
            ErrorKind::Malformed,
            path,
            format!("more than {MAX_LIST_BYTES} bytes: not a list of versions"),
        ));
    }
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        Error::at(ErrorKind::Malformed, path, line, 1, "not UTF-8 text")
    })?;
    let mut versions = Vec::new();
    let mut places = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let v = line.trim();
        if v.is_empty() || v.starts_with('#') {
            continue;
        }
        if let Some(what) = invalid(v) {
            return Err(Error::at(ErrorKind::Malformed, path, n + 1, 1, what));
        }
        if versions.len() == MAX_VERSIONS {
            return Err(Error::new(
                ErrorKind::Malformed,
                path,
                format!("more than {MAX_VERSIONS} versions"),
            ));
        }
        versions.push(v.to_string());
        places.push(format!("line {}", n + 1));
    }
    Ok((versions, places))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Result<Vec<String>> {
        read(&VersionList::Args(
            v.iter().map(|s| s.to_string()).collect(),
        ))
    }

    #[test]
    fn versions_are_safe_names_listed_once() {
        assert_eq!(
            args(&["20.11.0", "v23.0.0-nightly2024+abc", "1_2"]).unwrap(),
            ["20.11.0", "v23.0.0-nightly2024+abc", "1_2"]
        );
        for bad in [
            "../x", ".hidden", "-rf", "a b", "a/b", "", "é", "~1", "$(x)",
        ] {
            let e = args(&["1.0", bad]).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Usage, "{bad:?}");
            assert!(!e.message.contains('\n'), "{e}");
        }
        let e = args(&["1.0", "2.0", "1.0"]).unwrap_err();
        assert!(
            e.message
                .contains("1.0 is listed twice (argument 1 and argument 3)"),
            "{e}"
        );
        assert!(args(&["1.0"]).unwrap_err().message.contains("two at least"));
        assert!(args(&[&"9".repeat(129), "1"]).is_err());
    }

    #[test]
    fn a_file_has_one_version_a_line_with_comments_and_blank_lines() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("v.txt");
        std::fs::write(&f, "# the 20.x line\n20.11.0\r\n\n  20.14.0  \n22.11.0\n").unwrap();
        assert_eq!(
            read(&VersionList::File(f.clone())).unwrap(),
            ["20.11.0", "20.14.0", "22.11.0"]
        );
        std::fs::write(&f, "1\n2\n\n1\n").unwrap();
        let e = read(&VersionList::File(f.clone())).unwrap_err();
        assert!(
            e.message.ends_with(
                "1 is listed twice (line 1 and line 4): a bisection tests each version once"
            ),
            "{e}"
        );
        std::fs::write(&f, "1\n2/3\n").unwrap();
        let e = read(&VersionList::File(f.clone())).unwrap_err();
        assert!(e.message.contains("v.txt:2:1: version \"2/3\""), "{e}");
        std::fs::write(&f, b"1\n\xff\n").unwrap();
        let e = read(&VersionList::File(f)).unwrap_err();
        assert!(e.message.contains("v.txt:2:1: not UTF-8 text"), "{e}");
    }
}
