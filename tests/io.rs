//! Input read once (stdin, `/dev/stdin`, FIFOs, process substitution) and output that never
//! clobbers what its path points to (symlinks, devices, FIFOs), for every command.
//!
//! Paths under `/dev` are only ever reached through symlinks made in a temp directory, so a
//! failing build cannot replace a real device entry.

use crate::util::{bin, fixture, testdata, weakscan};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn log(name: &str) -> PathBuf {
    testdata().join("logs").join(name)
}

/// Runs weakscan with `args` and `stdin_bytes` piped in; (exit code, stdout, stderr).
fn piped(args: &[&str], stdin_bytes: &[u8]) -> (Option<i32>, Vec<u8>, String) {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let bytes = stdin_bytes.to_vec();
    // Written from a thread: weakscan may finish reading before all is written (an error).
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// stdout of weakscan on a path, exit 0.
fn on_file(args: &[&str]) -> Vec<u8> {
    let out = weakscan().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    out.stdout
}

/// JSON output with the input's name (`path` fields) taken out, for comparing a piped run with
/// a run on the file.
fn without_paths(json: &[u8]) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("path");
                m.remove("image");
                m.remove("log");
                m.remove("binary");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_slice(json).expect("JSON");
    strip(&mut v);
    v
}

#[test]
fn regression_a_piped_log_lost_its_first_4_kib() {
    // `cat LOG | weakscan scan /dev/stdin` reported 53 lookups instead of 62: detection read
    // the first 4 KiB of the pipe and the log reader opened it again.
    for name in [
        "dyld4-macos15-chained.log",
        "dyld2-macos11.log",
        "noisy.log",
    ] {
        let path = log(name);
        let bytes = fs::read(&path).unwrap();
        let want = on_file(&["scan", path.to_str().unwrap(), "--format", "json"]);
        for arg in ["-", "/dev/stdin"] {
            let (code, got, err) = piped(&["scan", arg, "--format", "json"], &bytes);
            assert_eq!(code, Some(0), "{name} via {arg}: {err}");
            assert_eq!(
                without_paths(&got),
                without_paths(&want),
                "{name} via {arg}"
            );
        }
    }
}

#[test]
fn a_log_under_4_kib_from_a_pipe_is_read() {
    let path = log("dyld4-macos15-chained.log");
    let text = fs::read_to_string(&path).unwrap();
    // The first dyld lines of a real log, well under the 4 KiB detection window.
    let mut small = String::new();
    for l in text.lines().filter(|l| l.starts_with("dyld[")) {
        if small.len() + l.len() >= 3000 {
            break;
        }
        small.push_str(l);
        small.push('\n');
    }
    assert!(small.len() < 4096);
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("small.log");
    fs::write(&file, &small).unwrap();
    let want = on_file(&["scan", file.to_str().unwrap(), "--format", "json"]);
    let (code, got, err) = piped(&["scan", "-", "--format", "json"], small.as_bytes());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(without_paths(&got), without_paths(&want));
}

#[test]
fn a_binary_from_a_pipe_is_read_whole() {
    // A binary on /dev/stdin was "empty file (0 bytes)".
    for name in [
        "app-default-chained-universal",
        "app-default-opcodes-x86_64",
    ] {
        let path = fixture(name);
        let bytes = fs::read(&path).unwrap();
        let want = on_file(&["scan", path.to_str().unwrap(), "--format", "json"]);
        for arg in ["-", "/dev/stdin"] {
            let (code, got, err) = piped(&["scan", arg, "--format", "json"], &bytes);
            assert_eq!(code, Some(0), "{name} via {arg}: {err}");
            assert_eq!(
                without_paths(&got),
                without_paths(&want),
                "{name} via {arg}"
            );
        }
        // check and baseline take stdin too.
        let want = on_file(&["baseline", path.to_str().unwrap()]);
        let (code, got, err) = piped(&["baseline", "-"], &bytes);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(
            without_paths(&got),
            without_paths(&want),
            "baseline of {name}"
        );
    }
}

#[test]
fn a_fifo_and_process_substitution_work_for_logs_and_binaries() {
    let tmp = tempfile::tempdir().unwrap();
    for src in [
        log("dyld4-macos15-opcodes.log"),
        fixture("app-default-chained-arm64"),
    ] {
        let want = on_file(&["scan", src.to_str().unwrap(), "--format", "json"]);
        let fifo = tmp.path().join("fifo");
        let _ = fs::remove_file(&fifo);
        assert!(
            Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let bytes = fs::read(&src).unwrap();
        let f2 = fifo.clone();
        let writer = std::thread::spawn(move || {
            let mut w = fs::OpenOptions::new().write(true).open(&f2).unwrap();
            let _ = w.write_all(&bytes);
        });
        let got = on_file(&["scan", fifo.to_str().unwrap(), "--format", "json"]);
        writer.join().unwrap();
        assert_eq!(
            without_paths(&got),
            without_paths(&want),
            "{}",
            src.display()
        );
        // bash's <(…) is a /dev/fd path to a pipe.
        let out = Command::new("bash")
            .arg("-c")
            .arg(r#""$0" scan <(cat "$1") --format json"#)
            .arg(bin())
            .arg(&src)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_eq!(without_paths(&out.stdout), without_paths(&want));
    }
}

#[test]
fn stdin_can_be_only_one_input() {
    let (code, out, err) = piped(&["diff", "-", "-"], b"");
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert_eq!(
        err,
        "weakscan: - (stdin) can be read only once: give it as one input\n"
    );
}

#[test]
fn an_empty_pipe_is_an_empty_file() {
    let (code, _, err) = piped(&["scan", "-"], b"");
    assert_eq!(code, Some(2));
    assert_eq!(err, "weakscan: stdin: empty file (0 bytes)\n");
}

/// Every command with `-o PATH` on the fixtures; the bytes each writes to stdout otherwise.
fn commands() -> Vec<Vec<String>> {
    let bin = fixture("app-default-chained-x86_64").display().to_string();
    let other = fixture("app-v2-default-chained-x86_64")
        .display()
        .to_string();
    let log = log("dyld4-macos15-chained.log").display().to_string();
    [
        vec!["scan", &bin],
        vec!["scan", &bin, "--format", "json"],
        vec!["diff", &bin, &other],
        vec!["verify", &bin, &log, "--tolerance", "1000"],
        vec!["check", &bin, "--max-weak-bind-symbols", "100000"],
        vec![
            "check",
            &bin,
            "--max-weak-bind-symbols",
            "1",
            "--format",
            "markdown",
        ],
        vec!["baseline", &bin],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect()
}

fn run_with_output(cmd: &[String], out: &Path) -> std::process::Output {
    weakscan()
        .args(cmd)
        .arg("-o")
        .arg(out)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap()
}

#[test]
fn output_goes_to_the_file_and_equals_stdout_for_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    for cmd in commands() {
        let plain = weakscan()
            .args(&cmd)
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .unwrap();
        let file = tmp.path().join("out");
        let out = run_with_output(&cmd, &file);
        assert_eq!(out.status.code(), plain.status.code(), "{cmd:?}");
        assert_eq!(fs::read(&file).unwrap(), plain.stdout, "{cmd:?}");
        // Status lines go to stderr: nothing but the report is written, and that to the file.
        assert!(out.stdout.is_empty(), "{cmd:?} printed with -o");
        if cmd[0] == "baseline" {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.starts_with("wrote "), "{cmd:?}: {err}");
        }
        // `-o -` is stdout.
        let dash = weakscan()
            .args(&cmd)
            .args(["-o", "-"])
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .unwrap();
        assert_eq!(dash.stdout, plain.stdout, "{cmd:?} -o -");
        // Nothing but the output file is left in the directory (no temp file).
        let names: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out"], "{cmd:?}");
    }
}

#[test]
fn regression_output_replaced_the_symlink_it_was_given() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real.json");
    fs::write(&real, "old").unwrap();
    let link = tmp.path().join("link.json");
    symlink(&real, &link).unwrap();
    for cmd in commands() {
        let out = run_with_output(&cmd, &link);
        assert!(out.status.code().is_some_and(|c| c < 2), "{cmd:?}: {out:?}");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{cmd:?} replaced the symlink"
        );
        assert!(
            fs::read(&real).unwrap().len() > 10,
            "{cmd:?} did not write the target"
        );
    }
}

#[test]
fn regression_a_fixed_temp_name_symlink_was_followed() {
    // The old writer wrote `.NAME.tmp` (following a symlink there) and renamed it over NAME.
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    fs::write(&victim, "keep me").unwrap();
    symlink(&victim, tmp.path().join(".base.json.tmp")).unwrap();
    let out = run_with_output(&commands()[6], &tmp.path().join("base.json"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(
        fs::symlink_metadata(tmp.path().join(".base.json.tmp"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        fs::read_to_string(tmp.path().join("base.json"))
            .unwrap()
            .contains("\"baseline\"")
    );
}

#[test]
fn regression_dev_full_was_replaced_and_its_write_error_ignored() {
    // `baseline -o /dev/full` replaced the device with a regular file; `scan > /dev/full`
    // exited 0. Reached only through a symlink in a temp directory.
    let tmp = tempfile::tempdir().unwrap();
    let link = tmp.path().join("full");
    symlink("/dev/full", &link).unwrap();
    for cmd in commands() {
        let out = run_with_output(&cmd, &link);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err,
            format!(
                "weakscan: {}: No space left on device (os error 28)\n",
                link.display()
            ),
            "{cmd:?}"
        );
        assert!(
            fs::metadata(&link) // the device behind the link
                .unwrap()
                .file_type()
                .is_char_device()
        );
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // And stdout itself on /dev/full.
        let full = fs::OpenOptions::new().write(true).open(&link).unwrap();
        let out = Command::new(bin())
            .args(&cmd)
            .env_remove("GITHUB_STEP_SUMMARY")
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd:?} > /dev/full");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "weakscan: stdout: No space left on device (os error 28)\n",
            "{cmd:?}"
        );
    }
}

#[test]
fn a_dev_stdout_like_path_is_written_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let link = tmp.path().join("stdout");
    symlink("/dev/stdout", &link).unwrap();
    let cmd = &commands()[1];
    let plain = weakscan().args(cmd).output().unwrap();
    let out = run_with_output(cmd, &link);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout, plain.stdout);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// `baseline B -o LINK > f`, LINK a symlink to `/proc/self/fd/1` (the same file as stdout): the
/// "wrote …" status line went to stdout, so `f` started with it and was no baseline. Status
/// lines go to stderr now, so every command leaves `f` holding exactly its report.
#[cfg(target_os = "linux")]
#[test]
fn regression_a_status_line_landed_in_the_report_through_a_link_to_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let link = tmp.path().join("link-to-stdout");
    symlink("/proc/self/fd/1", &link).unwrap();
    for cmd in commands() {
        let plain = weakscan()
            .args(&cmd)
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .unwrap();
        let f = tmp.path().join("f");
        let out = Command::new(bin())
            .args(&cmd)
            .arg("-o")
            .arg(&link)
            .env_remove("GITHUB_STEP_SUMMARY")
            .env("COLUMNS", crate::util::TEST_COLUMNS)
            .stdout(fs::File::create(&f).unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), plain.status.code(), "{cmd:?}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&fs::read(&f).unwrap()),
            String::from_utf8_lossy(&plain.stdout),
            "{cmd:?}: the file holds the report and nothing else"
        );
        if cmd[0] == "baseline" {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.starts_with("wrote "), "{cmd:?}: {err}");
        }
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}

#[test]
fn a_fifo_is_written_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let f2 = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        fs::File::open(&f2).unwrap().read_to_end(&mut s).unwrap();
        s
    });
    let cmd = &commands()[0];
    let out = run_with_output(cmd, &fifo);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let got = reader.join().unwrap();
    assert_eq!(got, weakscan().args(cmd).output().unwrap().stdout);
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn an_unwritable_directory_is_one_error_line() {
    // /proc/self is not writable even by root; a mode-555 directory is tested when not root.
    let tmp = tempfile::tempdir().unwrap();
    let ro = tmp.path().join("ro");
    fs::create_dir(&ro).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    let probe = fs::File::create(ro.join("probe")).is_ok();
    let mut targets = vec![PathBuf::from("/proc/self/weakscan-test-output")];
    if probe {
        eprintln!("SKIP mode-555 directory: running as root, which can write it");
    } else {
        targets.push(ro.join("out.json"));
    }
    for t in targets {
        let out = run_with_output(&commands()[6], &t);
        assert_eq!(out.status.code(), Some(2), "{t:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("weakscan: {}: ", t.display())),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
}

/// `-o DIR/r.html` into a directory that does not exist named the hidden temp file weakscan
/// writes first (`at path "DIR/.r.html.UtUPkz.tmp"`), a path the user never gave.
#[test]
fn regression_output_into_a_missing_directory_named_the_hidden_temp_file() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-dir");
    for (command, file) in [("report", "r.html"), ("scan", "r.txt")] {
        let target = missing.join(file);
        let out = weakscan()
            .arg(command)
            .arg(fixture("app-default-chained-x86_64"))
            .arg("-o")
            .arg(&target)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.trim_end(),
            format!(
                "weakscan: {}: No such file or directory (os error 2)",
                target.display()
            )
        );
    }
}

#[test]
fn an_input_error_leaves_the_output_file_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("kept.json");
    fs::write(&file, "previous").unwrap();
    let out = weakscan()
        .args(["scan", "/nonexistent/input", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(fs::read_to_string(&file).unwrap(), "previous");
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
}

#[test]
fn regression_demangling_under_a_low_address_space_limit_kept_names_mangled() {
    // Under `ulimit -v 262144` the 256 MiB demangling stacks could not start, names stayed
    // mangled and `check --group 'v8::*=0'` passed (exit 0) where it fails (exit 1).
    let bin = bin();
    let app = fixture("app-default-chained-x86_64");
    let args = ["check", app.to_str().unwrap(), "--group", "v8::*=0"];
    let free = weakscan().args(args).output().unwrap();
    assert_eq!(free.status.code(), Some(1), "{free:?}");
    for limit in [262_144, 393_216, 524_288, 1_048_576] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!(r#"ulimit -v {limit} && exec "$0" "$@""#))
            .arg(&bin)
            .args(args)
            .env("COLUMNS", crate::util::TEST_COLUMNS)
            .output()
            .unwrap();
        let code = out.status.code();
        assert!(
            code == Some(1) || code == Some(2),
            "ulimit -v {limit}: exit {code:?}: {out:?}"
        );
        if code == Some(2) {
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains("ulimit -v"), "{err}");
        } else {
            assert_eq!(out.stdout, free.stdout, "ulimit -v {limit}");
        }
    }
}

// Regression (hostile-input campaign): `weakscan report -o BIN BIN` replaced the binary with the
// HTML. An output that is an input, by name, symlink or hard link, is refused before anything
// is read or written.
#[test]
fn regression_report_replaced_its_own_input() {
    let d = tempfile::tempdir().unwrap();
    let bin_path = d.path().join("bin");
    fs::copy(fixture("app-default-chained-x86_64"), &bin_path).unwrap();
    let original = fs::read(&bin_path).unwrap();
    symlink(&bin_path, d.path().join("link")).unwrap();
    fs::hard_link(&bin_path, d.path().join("hard")).unwrap();
    let map = d.path().join("map.txt");
    fs::write(&map, b"# Path: x\n").unwrap();
    let s = |p: &Path| p.display().to_string();
    let (b, link, hard, map) = (
        s(&bin_path),
        s(&d.path().join("link")),
        s(&d.path().join("hard")),
        s(&map),
    );
    for args in [
        vec!["report", "-o", &b, &b],
        vec!["report", "-o", &link, &b],
        vec!["scan", "-o", &hard, &b],
        vec!["scan", "-o", &map, "--map", &map, &b],
        vec!["diff", "-o", &link, &b, &b],
        vec!["baseline", "-o", &b, &b],
        vec!["trend", "-o", &hard, &b, &b],
        vec!["check", "--no-config", "-o", &b, &b],
    ] {
        let out = weakscan().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("is an input of this command"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(fs::read(&bin_path).unwrap(), original, "{args:?}");
    }
    // A new file beside the input is written.
    let html = d.path().join("r.html");
    weakscan()
        .args(["report", "-o", &s(&html), &b])
        .assert()
        .success();
    assert!(
        fs::read_to_string(&html)
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
}

// Regression (hostile-input campaign): under `ulimit -v 1500000` `scan App.app` exited 2 because
// its Info.plist was parsed on a thread with a 256 MiB stack, which could not start, while
// `scan --process` of its executable scanned from 500 MB. The property list is now read on the
// caller's stack, its nesting bounded: a bundle reads under every limit its executable does.
#[test]
fn regression_a_bundle_could_not_be_read_under_a_memory_limit_its_executable_scans_under() {
    let app = testdata().join("process/App.app");
    let exe = app.join("Contents/MacOS/App");
    let (app, exe) = (app.to_str().unwrap(), exe.to_str().unwrap());
    let run = |limit: Option<u32>, threads: &str, args: &[&str]| {
        let script = match limit {
            Some(l) => format!(r#"ulimit -v {l} && exec "$0" "$@""#),
            None => r#"exec "$0" "$@""#.to_string(),
        };
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(bin())
            .args(args)
            .env("WEAKSCAN_THREADS", threads)
            .output()
            .unwrap()
    };
    let free = run(None, "2", &["scan", app]);
    assert_eq!(free.status.code(), Some(0), "{free:?}");
    for threads in ["1", "2"] {
        for limit in [500_000, 1_000_000, 1_500_000] {
            let bundle = run(Some(limit), threads, &["scan", app]);
            let alone = run(Some(limit), threads, &["scan", "--process", exe]);
            assert_eq!(
                bundle.status.code(),
                alone.status.code(),
                "ulimit -v {limit}, {threads} threads: the bundle {bundle:?}, its executable {alone:?}"
            );
            if bundle.status.code() == Some(0) {
                assert_eq!(bundle.stdout, free.stdout, "ulimit -v {limit}");
            } else {
                let err = String::from_utf8_lossy(&bundle.stderr);
                assert_eq!(err.lines().count(), 1, "{err}");
                assert!(err.contains("ulimit -v"), "{err}");
            }
        }
    }
}
