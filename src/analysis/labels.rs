//! How the builds of one command are named in every output (`diff`, `trend`, `report`: table,
//! Markdown, JSON and HTML): one label per input, computed once for the whole set of inputs so
//! that no two builds share a label.
//!
//! ```text
//! --label given   one per input, in the order the inputs were given: those, escaped
//! versions        every input has a version in its path (version::version_in, the first
//!                 N.N[.N…] below the directories all share) and no two are equal: the versions
//!                 (.cache/node/20.11.0/node, .cache/node/22.11.0/node → 20.11.0, 22.11.0)
//! suffixes        else the last k path components of each input, k the least (≥ 1) that
//!                 tells every two inputs with different paths apart; the same k for all
//!                 (old/out/Release/node, new/out/Release/node → both whole: k = 4;
//!                 bin/app-v1, bin/app-v2 → app-v1, app-v2)
//! same path       an input given twice keeps its suffix, followed by its position: ` #2`
//! ```
//!
//! Components are split at `/`; empty ones and `.` are not components (`./a/x` and `a/x` are
//! the same path here).

use super::version::version_in;
use crate::error::{Error, Result};
use std::path::Path;

/// The label of each of `paths` (the inputs as shown, escaped), in order; `given` (from
/// `--label`, empty when not given) wins.
///
/// Errors (usage): `given` has another count than `paths`, an empty label, or two equal ones.
pub fn build_labels(paths: &[&str], given: &[String]) -> Result<Vec<String>> {
    if given.is_empty() {
        return Ok(distinguishing(paths));
    }
    if given.len() != paths.len() {
        return Err(Error::usage(format!(
            "--label given {} for {}: give one label per build, in the order of the builds",
            crate::text::count(given.len(), "time", "times"),
            crate::text::count(paths.len(), "build", "builds"),
        )));
    }
    let labels: Vec<String> = given
        .iter()
        .map(|l| crate::text::escape(l).into_owned())
        .collect();
    for (i, l) in labels.iter().enumerate() {
        if l.trim().is_empty() {
            return Err(Error::usage("--label: a label is empty"));
        }
        if labels[..i].contains(l) {
            return Err(Error::usage(format!(
                "--label: {l} is given twice: each build needs its own label"
            )));
        }
    }
    Ok(labels)
}

/// Whether `label` is the tail of `path` (whole components): a table that shows the path need
/// not show such a label beside it.
pub fn is_tail_of(label: &str, path: &str) -> bool {
    let (l, p) = (components(label), components(path));
    !l.is_empty() && p.ends_with(&l)
}

/// The labels of `paths` without `--label`: their versions, else their shortest distinguishing
/// suffixes (see the module docs).
pub fn distinguishing(paths: &[&str]) -> Vec<String> {
    if let Some(v) = versions(paths) {
        return v;
    }
    let parts: Vec<Vec<&str>> = paths.iter().map(|p| components(p)).collect();
    let longest = parts.iter().map(Vec::len).max().unwrap_or(0);
    let suffix = |p: &[&str], k: usize| p[p.len().saturating_sub(k)..].join("/");
    // Inputs whose whole paths are equal cannot be told apart by any suffix.
    let distinct = |k: usize| {
        (0..parts.len()).all(|i| {
            (0..i).all(|j| parts[i] == parts[j] || suffix(&parts[i], k) != suffix(&parts[j], k))
        })
    };
    let k = (1..=longest).find(|&k| distinct(k)).unwrap_or(longest);
    let mut labels: Vec<String> = parts.iter().map(|p| suffix(p, k)).collect();
    let repeated: Vec<bool> = (0..labels.len())
        .map(|i| (0..labels.len()).any(|j| j != i && labels[j] == labels[i]))
        .collect();
    for (i, l) in labels.iter_mut().enumerate() {
        if l.is_empty() {
            *l = paths[i].to_string();
        }
        if repeated[i] {
            l.push_str(&format!(" #{}", i + 1));
        }
    }
    labels
}

/// The version of every path, when each has one and no two are equal.
fn versions(paths: &[&str]) -> Option<Vec<String>> {
    if paths.len() < 2 {
        return None;
    }
    let all: Vec<&Path> = paths.iter().map(Path::new).collect();
    let v: Vec<String> = all
        .iter()
        .map(|p| version_in(p, &all))
        .collect::<Option<_>>()?;
    let distinct = (0..v.len()).all(|i| !v[..i].contains(&v[i]));
    distinct.then_some(v)
}

/// The components of `path`, `/`-separated, without empty ones and `.`.
fn components(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(paths: &[&str]) -> Vec<String> {
        distinguishing(paths)
    }

    #[test]
    fn the_shortest_suffix_that_tells_the_builds_apart() {
        assert_eq!(
            labels(&["old/out/Release/node", "new/out/Release/node"]),
            ["old/out/Release/node", "new/out/Release/node"]
        );
        assert_eq!(labels(&["bin/app-v1", "bin/app-v2"]), ["app-v1", "app-v2"]);
        assert_eq!(
            labels(&["a/x/bin/node", "b/y/bin/node", "c/z/bin/node"]),
            ["x/bin/node", "y/bin/node", "z/bin/node"]
        );
        // One k for all: the file name alone would tell `other` apart, not the two nodes.
        assert_eq!(
            labels(&["a/bin/node", "b/bin/node", "c/other"]),
            ["a/bin/node", "b/bin/node", "c/other"]
        );
        assert_eq!(labels(&["./a/x", "b/x"]), ["a/x", "b/x"]);
        // One build: its file name.
        assert_eq!(labels(&["out/Release/node"]), ["node"]);
    }

    #[test]
    fn a_tail_is_whole_components() {
        assert!(is_tail_of("Release/node", "old/out/Release/node"));
        assert!(is_tail_of("old/out/Release/node", "old/out/Release/node"));
        assert!(!is_tail_of("node", "out/Release/libnode"));
        assert!(!is_tail_of("22.11.0", "node/22.11.0/node"));
        assert!(!is_tail_of("node #2", "bin/node"));
    }

    #[test]
    fn versions_when_every_build_has_its_own() {
        assert_eq!(
            labels(&[".cache/node/20.11.0/node", ".cache/node/22.11.0/node"]),
            ["20.11.0", "22.11.0"]
        );
        // Two with the same version: suffixes.
        assert_eq!(
            labels(&["a/22.11.0/node", "b/22.11.0/node"]),
            ["a/22.11.0/node", "b/22.11.0/node"]
        );
    }

    #[test]
    fn the_same_path_twice_is_told_by_its_position() {
        assert_eq!(
            labels(&["bin/app", "bin/app", "bin/other"]),
            ["app #1", "app #2", "other"]
        );
        assert_eq!(labels(&["bin/app", "./bin/app"]), ["app #1", "app #2"]);
        assert_eq!(labels(&["/", "-"]), ["/", "-"]);
    }

    #[test]
    fn given_labels_win_one_per_build_distinct() {
        let given = vec!["before".to_string(), "after\u{1b}[0m".to_string()];
        assert_eq!(
            build_labels(&["a/node", "b/node"], &given).unwrap(),
            ["before", "after\\x1b[0m"]
        );
        let e = build_labels(&["a", "b", "c"], &given).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Usage);
        assert!(e.to_string().contains("given 2 times for 3 builds"), "{e}");
        let twice = vec!["x".to_string(), "x".to_string()];
        assert!(build_labels(&["a", "b"], &twice).is_err());
        let empty = vec!["x".to_string(), " ".to_string()];
        assert!(build_labels(&["a", "b"], &empty).is_err());
    }
}
