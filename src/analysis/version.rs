//! The version in a build's path: what `trend --sort version` orders by and what names a build
//! when every build has its own ([`super::labels`]).

use std::path::Path;

/// The first version in `text`: a run of ASCII digits followed by one or more `.digits`
/// (`22.12.0`, `1.2`), if any.
fn first_version(text: &str) -> Option<&str> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"[0-9]+(?:\.[0-9]+)+").expect("a valid regex"))
        .find(text)
        .map(|m| m.as_str())
}

/// The version in `path` of a build among `all` (every build's path, `path` included): the
/// first `N.N[.N…]` in the part of the path below the directories every path shares
/// (`.cache/node/22.12.0/node` → `22.12.0`; `/opt/tool-1.2/builds/3.4.5/app` among
/// `/opt/tool-1.2/builds/*` → `3.4.5`); `None` when that part has none. A version in the shared
/// directories is never taken: it is the same for every build and would make the order depend
/// on where the builds happen to live (`~/src/weakscan-0.1.0/testdata/…`).
pub fn version_in(path: &Path, all: &[&Path]) -> Option<String> {
    let dirs = |p: &Path| -> Vec<std::ffi::OsString> {
        let mut c: Vec<_> = p.components().map(|c| c.as_os_str().to_owned()).collect();
        c.pop();
        c
    };
    let mine = dirs(path);
    let shared = all.iter().fold(mine.len(), |n, other| {
        let theirs = dirs(other);
        n.min(mine.iter().zip(&theirs).take_while(|(a, b)| a == b).count())
    });
    let rest: std::path::PathBuf = path.components().skip(shared).collect();
    first_version(&rest.to_string_lossy()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_in_a_path() {
        let p = |s: &str| Path::new(s).to_path_buf();
        let node = [p(".cache/node/22.12.0/node"), p(".cache/node/22.9.0/node")];
        let all: Vec<&Path> = node.iter().map(|x| x.as_path()).collect();
        assert_eq!(version_in(all[0], &all).as_deref(), Some("22.12.0"));
        assert_eq!(version_in(all[1], &all).as_deref(), Some("22.9.0"));
        // The directories every build shares are passed over.
        let tool = [
            p("/opt/tool-1.2/b/3.4.5/app"),
            p("/opt/tool-1.2/b/3.10.0/app"),
        ];
        let all: Vec<&Path> = tool.iter().map(|x| x.as_path()).collect();
        assert_eq!(version_in(all[0], &all).as_deref(), Some("3.4.5"));
        // … even when nothing below them has one (regression: the packaged crate's tests ran
        // under `weakscan-0.1.0/` and found that version in every fixture path).
        let same = [p("/v/1.2/app"), p("/v/1.2/app")];
        let all: Vec<&Path> = same.iter().map(|x| x.as_path()).collect();
        assert_eq!(version_in(all[0], &all), None);
        let packaged = [
            p("/t/weakscan-0.1.0/testdata/bin/app-a"),
            p("/t/weakscan-0.1.0/testdata/bin/app-b"),
        ];
        let all: Vec<&Path> = packaged.iter().map(|x| x.as_path()).collect();
        assert_eq!(version_in(all[0], &all), None);
        // A version needs a dot: x86_64 and v2 are not versions.
        let none = [p("bin/app-v2-x86_64"), p("bin/app-x86_64")];
        let all: Vec<&Path> = none.iter().map(|x| x.as_path()).collect();
        assert_eq!(version_in(all[0], &all), None);
        // The first one in the file name.
        let leaf = [p("out/node-v22.12.0-darwin-x64.1"), p("out/node-v20.1.0")];
        let all: Vec<&Path> = leaf.iter().map(|x| x.as_path()).collect();
        assert_eq!(version_in(all[0], &all).as_deref(), Some("22.12.0"));
    }
}
