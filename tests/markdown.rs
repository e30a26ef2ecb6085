//! Markup from names: every Markdown output (`--format markdown`, and the job summary that
//! `--format github` appends to `$GITHUB_STEP_SUMMARY`) of `scan`, `diff`, `check` and `trend`,
//! of binaries, dyld logs and whole processes, with `--importer` and `--compile-commands`, is
//! fed names that carry a link, an image, an HTML block, a comment, an @mention, backticks and
//! `|`: symbol names (Mach-O names are bytes), image file names and install names, a bundle's
//! main executable and the directory a process lies in (its problems quote it), a dyld log's
//! image and symbol names, a compile command's response file, importer file names and a group
//! pattern. [`markdown_outside_code`] reads each output as GitHub does, roughly: nothing of a
//! name may be read as markup, so outside code spans there is no link, image, tag, comment,
//! mention or backtick, and every table row keeps its cells. The HTML report of the same inputs
//! must hold no tag, attribute or comment of a name.

use crate::util::{fixture, testdata, uleb, weakscan};
use std::path::{Path, PathBuf};

/// What a file name may carry of the hostile text (no `/`): a link, an image, an HTML block
/// and a comment, an @mention, backtick runs of one and two, a table cell's end, and what breaks
/// out of an HTML attribute.
const HOSTILE: &str = "[x](y)![i](u)<details>@user<!-- -->`` ` ``|\" onmouseover=\"x'&";

/// What a symbol or log name carries besides: the end of a script and a line break with a
/// heading after it.
const HOSTILE_NAME: &str = "</script><img src=x onerror=alert(1)>\n# injected";

/// One inline context of a Markdown text: a table cell, a paragraph, a list item or a heading.
fn inline_contexts(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |p: &mut Vec<&str>, out: &mut Vec<String>| {
        if !p.is_empty() {
            out.push(p.join("\n"));
            p.clear();
        }
    };
    for line in md.lines() {
        if line.trim().is_empty() {
            flush(&mut paragraph, &mut out);
        } else if line.starts_with('|') {
            flush(&mut paragraph, &mut out);
            out.extend(cells(line).into_iter().map(str::to_string));
        } else if ["- ", "#", "> ", "<details"]
            .iter()
            .any(|p| line.starts_with(p))
        {
            flush(&mut paragraph, &mut out);
            paragraph.push(line);
        } else {
            paragraph.push(line);
        }
    }
    flush(&mut paragraph, &mut out);
    out
}

/// The cells of a table row: split at each `|` no backslash escapes (GFM 4.10 splits a row
/// before it reads any inline, code spans included).
fn cells(row: &str) -> Vec<&str> {
    let b = row.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..b.len() {
        if b[i] == b'|' && (i == 0 || b[i - 1] != b'\\') {
            out.push(&row[start..i]);
            start = i + 1;
        }
    }
    out.push(&row[start..]);
    // The text before the first `|` and after the last one is no cell.
    out.into_iter()
        .skip(1)
        .collect::<Vec<_>>()
        .split_last()
        .map_or_else(Vec::new, |(last, rest)| {
            let mut v = rest.to_vec();
            if !last.trim().is_empty() {
                v.push(last);
            }
            v
        })
}

/// The text of one inline context with each code span replaced by `CODE` (CommonMark 6.1: a
/// backtick string that no backslash escapes opens a span, closed by the next backtick string
/// of the same length; with no such closer it is literal text), and each backslash-escaped
/// character outside them by `ESC`.
fn strip_code_spans(s: &str) -> String {
    let b = s.as_bytes();
    let run = |at: usize| b[at..].iter().take_while(|&&c| c == b'`').count();
    let mut out = String::new();
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() && b[i + 1].is_ascii_punctuation() => {
                out.push_str(&s[copied..i]);
                out.push_str("ESC");
                i += 2;
                copied = i;
            }
            b'`' => {
                let n = run(i);
                let mut j = i + n;
                let mut close = None;
                while j < b.len() {
                    if b[j] == b'`' {
                        let m = run(j);
                        if m == n {
                            close = Some(j);
                            break;
                        }
                        j += m;
                    } else {
                        j += 1;
                    }
                }
                match close {
                    Some(j) => {
                        out.push_str(&s[copied..i]);
                        out.push_str("CODE");
                        i = j + n;
                        copied = i;
                    }
                    None => i += n,
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(&s[copied..]);
    out
}

/// The text of `md` outside code spans, one entry per inline context.
fn markdown_outside_code(md: &str) -> Vec<String> {
    inline_contexts(md)
        .iter()
        .map(|c| strip_code_spans(c))
        .collect()
}

/// The tags weakscan writes itself into its Markdown.
const OWN_TAGS: [&str; 4] = ["<details><summary>", "</summary>", "</details>", "<br>"];

/// What of a name is read as markup in `md`, one line each (empty when nothing): outside code
/// spans a link or image (`](`, `![`), a tag or comment (`<` but weakscan's own tags), an
/// @mention, a stray backtick; a line that a name's line break began; a table row with other
/// cells than its header. And whether the names reached `md` at all (`@user`, in a code span).
fn markup_from_names(md: &str) -> Vec<String> {
    let mut found = Vec::new();
    if !md.contains("@user") {
        found.push("no hostile name shown".to_string());
    }
    for text in markdown_outside_code(md) {
        let mut bare = text.clone();
        for t in OWN_TAGS {
            bare = bare.replace(t, "");
        }
        let seen: Vec<&str> = ["](", "![", "<", "@user", "`"]
            .into_iter()
            .filter(|c| bare.contains(c))
            .collect();
        if !seen.is_empty() {
            let shown: String = text.chars().take(100).collect();
            found.push(format!("{seen:?} outside code spans in {shown:?}"));
        }
    }
    for l in md.lines() {
        if l.trim_start().starts_with("# injected") {
            found.push(format!("a name's line break began the line {l:?}"));
        }
    }
    let lines: Vec<&str> = md.lines().collect();
    for (i, w) in lines.windows(2).enumerate() {
        if w[0].starts_with('|') && w[1].starts_with("|-") {
            let columns = cells(w[0]).len();
            for row in lines[i + 2..].iter().take_while(|l| l.starts_with('|')) {
                if cells(row).len() != columns {
                    found.push(format!(
                        "a row of {} cells under {columns} columns: {row:?}",
                        cells(row).len()
                    ));
                }
            }
        }
    }
    found
}

fn le32(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

/// `app-default-opcodes-x86_64` with its weak-bind stream and export trie replaced in place by
/// ones of `names`: each a weak definition it exports and binds to (`<mach-o/loader.h>`:
/// `BIND_OPCODE_SET_SYMBOL_TRAILING_FLAGS_IMM`, `SET_TYPE_IMM` pointer, `SET_SEGMENT_AND_OFFSET_ULEB`
/// into `__DATA_CONST`, `DO_BIND`; a trie root with one edge per name to a terminal of
/// `EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION`, offsets padded to 4 bytes).
fn binary_defining(names: &[Vec<u8>]) -> Vec<u8> {
    let mut b = std::fs::read(fixture("app-default-opcodes-x86_64")).unwrap();
    let mut lc = 32;
    while le32(&b, lc) != 0x8000_0022 {
        lc += le32(&b, lc + 4); // to LC_DYLD_INFO_ONLY
    }
    let mut binds = Vec::new();
    for (k, name) in names.iter().enumerate() {
        binds.push(0x40);
        binds.extend(name);
        binds.extend([0, 0x51, 0x72]); // segment 2: __DATA_CONST
        uleb(8 * k as u64, &mut binds);
        binds.push(0x90);
    }
    binds.push(0);
    let root = 2 + names.iter().map(|n| n.len() + 5).sum::<usize>();
    let mut trie = vec![0, names.len() as u8];
    for (k, name) in names.iter().enumerate() {
        trie.extend(name);
        trie.push(0);
        let at = (root + 4 * k) as u32;
        trie.extend((0..4).map(|i| ((at >> (7 * i)) & 0x7f) as u8 | if i < 3 { 0x80 } else { 0 }));
    }
    for _ in names {
        trie.extend([2, 4, 0, 0]); // terminal: flags WEAK_DEFINITION, address 0; no child
    }
    // weak_bind_off and _size, export_off and _size of the dyld_info_command.
    for (at, data) in [(lc + 24, &binds), (lc + 40, &trie)] {
        let (off, size) = (le32(&b, at), le32(&b, at + 4));
        assert!(data.len() <= size, "{} bytes into {size}", data.len());
        b[off..off + size].fill(0);
        b[off..off + data.len()].copy_from_slice(data);
        b[at + 4..at + 8].copy_from_slice(&(data.len() as u32).to_le_bytes());
    }
    b
}

/// A copy of `testdata/process/NAME` in `dir` whose main executable and `libshared_a.dylib`
/// carry [`HOSTILE`] in their file names (the dylib's old name left as a symlink to it, so its
/// install name still finds it), and whose main executable's `LC_LOAD_WEAK_DYLIB` of a missing
/// dylib names one that carries markup (in place: the 23 bytes its command holds).
fn hostile_app(dir: &Path, name: &str) -> String {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let app = dir.join(name);
    copy(&testdata().join("process").join(name), &app);
    let contents = app.join("Contents");
    let main = format!("App{HOSTILE}");
    let bytes = std::fs::read(contents.join("MacOS/App")).unwrap();
    let (missing, markup) = (b"@rpath/libmissing.dylib", b"[x](y)<i>@user`|<!---->");
    let at = bytes
        .windows(missing.len())
        .position(|w| w == missing)
        .expect("the weak dylib's install name");
    let mut bytes = bytes;
    bytes[at..at + markup.len()].copy_from_slice(markup);
    std::fs::write(contents.join("MacOS").join(&main), bytes).unwrap();
    std::fs::remove_file(contents.join("MacOS/App")).unwrap();
    let plist = std::fs::read_to_string(contents.join("Info.plist")).unwrap();
    let xml = main
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    std::fs::write(
        contents.join("Info.plist"),
        plist.replace("<string>App</string>", &format!("<string>{xml}</string>")),
    )
    .unwrap();
    let dylib = format!("lib{HOSTILE}.dylib");
    let frameworks = contents.join("Frameworks");
    std::fs::rename(
        frameworks.join("libshared_a.dylib"),
        frameworks.join(&dylib),
    )
    .unwrap();
    std::os::unix::fs::symlink(&dylib, frameworks.join("libshared_a.dylib")).unwrap();
    app.display().to_string()
}

/// A dyld log of the opcodes fixture whose image and three of its symbols carry the hostile
/// names.
fn hostile_log() -> String {
    let log = std::fs::read_to_string(testdata().join("logs/dyld4-macos15-opcodes.log")).unwrap();
    let name = format!("{HOSTILE}{HOSTILE_NAME}").replace('\n', "\\n");
    log.replace("app-default-opcodes-x86_64", &format!("app{name}"))
        .replace("'__ZdlPvm'", &format!("'__ZdlPvm{name}'"))
        .replace("__Znam", &format!("_evil{name}"))
}

/// The inputs, in a directory whose name is hostile too.
struct Inputs {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    /// The opcodes fixture, and the same with hostile weak definitions.
    plain: String,
    hostile: String,
    /// Its dyld log, and one with hostile names.
    log: String,
    hostile_log: String,
    /// Two versions of the process fixture, with hostile file names.
    app: String,
    app_v2: String,
    /// A baseline of `plain`.
    baseline: String,
    /// A compile database naming a hostile response file for the attributed fixture's leaking
    /// translation unit.
    compile_commands: String,
    /// A directory of importers: `plugin.bundle` under a hostile name, and a hostile file that
    /// is no Mach-O.
    importers: String,
}

fn inputs() -> Inputs {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(HOSTILE);
    std::fs::create_dir(&dir).unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    let names: Vec<Vec<u8>> = [
        format!("_c{HOSTILE}{HOSTILE_NAME}"),
        format!("__ZN{}{HOSTILE}3getEv", HOSTILE.len()),
        format!("__Z{HOSTILE}\u{202e}\x01"),
    ]
    .into_iter()
    .map(String::into_bytes)
    .chain([b"_bytes\xff[x](y)@user`".to_vec()])
    .collect();
    let hostile = path(&format!("bin{HOSTILE}"));
    std::fs::write(&hostile, binary_defining(&names)).unwrap();
    let plain = path("plain");
    std::fs::copy(fixture("app-default-opcodes-x86_64"), &plain).unwrap();
    let log = path("plain.log");
    std::fs::copy(testdata().join("logs/dyld4-macos15-opcodes.log"), &log).unwrap();
    let hostile_log_path = path(&format!("log{HOSTILE}.log"));
    std::fs::write(&hostile_log_path, hostile_log()).unwrap();
    let baseline = path(&format!("baseline{HOSTILE}.json"));
    let out = weakscan()
        .args(["baseline", &plain, "-o", &baseline])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");

    let mut db: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(testdata().join("attr/compile_commands.json")).unwrap(),
    )
    .unwrap();
    db[1]["arguments"] = serde_json::json!([
        "clang++",
        format!("@{HOSTILE}.rsp"),
        "-c",
        "../src/descriptors_a.cc",
        "-o",
        "obj/attr/descriptors_a.o"
    ]);
    db[1]["directory"] = serde_json::json!(dir.display().to_string());
    let compile_commands = path("compile_commands.json");
    std::fs::write(&compile_commands, db.to_string()).unwrap();

    let importers = dir.join("importers");
    std::fs::create_dir(&importers).unwrap();
    std::fs::copy(
        testdata().join("importers/plugin.bundle"),
        importers.join(format!("plugin{HOSTILE}.bundle")),
    )
    .unwrap();
    std::fs::write(importers.join(format!("notes{HOSTILE}.txt")), "not Mach-O").unwrap();

    Inputs {
        app: hostile_app(&dir, "App.app"),
        app_v2: hostile_app(&dir, "App-v2.app"),
        plain,
        hostile,
        log,
        hostile_log: hostile_log_path,
        baseline,
        compile_commands,
        importers: importers.display().to_string(),
        dir,
        _tmp: tmp,
    }
}

/// The Markdown of `args` (`--format markdown` and the job summary of `--format github`, which
/// `trend` does not write), each with what made it; the command must exit 0 or 1.
fn markdown_of(dir: &Path, args: &[&str]) -> Vec<(String, String)> {
    let summary = dir.join("summary.md");
    let mut out = Vec::new();
    let formats: &[&str] = if args[0] == "trend" {
        &["markdown"]
    } else {
        &["markdown", "github"]
    };
    for &format in formats {
        let _ = std::fs::remove_file(&summary);
        let run = weakscan()
            .args(args)
            .args(["--format", format])
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap();
        assert!(
            matches!(run.status.code(), Some(0 | 1)),
            "{args:?} {format}: {run:?}"
        );
        let md = if format == "markdown" {
            String::from_utf8(run.stdout).unwrap()
        } else {
            std::fs::read_to_string(&summary).unwrap()
        };
        out.push((format.to_string(), md));
    }
    out
}

// Regression: the "defined by" and "winner" columns and the problems of a process, the
// headings of a log's scan and diff and the fix's compile-command reason escaped only `|`, and a
// group pattern only backslash-escaped: a file name, install name or log name rendered as a
// link, an image, an @mention or a `<details>` that hid the rest of a PR comment.
#[test]
fn regression_image_names_rendered_as_markdown_links_and_details() {
    let i = inputs();
    let attr = fixture("app-attr-x86_64").display().to_string();
    let api = testdata().join("importers/api").display().to_string();
    let api_v2 = testdata().join("importers/api-v2").display().to_string();
    let pattern = "*[[]x](y)![[]i](u)<details>@user<!-- -->*=0";
    let (bin, log, app, app_v2) = (&*i.hostile, &*i.hostile_log, &*i.app, &*i.app_v2);
    let (plain, plain_log, db, importers) =
        (&*i.plain, &*i.log, &*i.compile_commands, &*i.importers);
    // The old build's database: every object compiled with a visibility value that is markup.
    let old_db = i.dir.join("old_compile_commands.json");
    let text = std::fs::read_to_string(testdata().join("attr/compile_commands.json")).unwrap();
    let mut entries: serde_json::Value = serde_json::from_str(&text).unwrap();
    for e in entries.as_array_mut().unwrap() {
        if let Some(args) = e["arguments"].as_array_mut() {
            args.push(format!("-fvisibility={pattern}").into());
        }
    }
    std::fs::write(&old_db, entries.to_string()).unwrap();
    let old_db = old_db.display().to_string();
    let runs: Vec<(&str, Vec<&str>)> = vec![
        ("scan BIN", vec!["scan", bin, "--top", "100"]),
        (
            "scan BIN --by symbol",
            vec!["scan", bin, "--by", "symbol", "--top", "100"],
        ),
        ("scan LOG", vec!["scan", log, "--top", "100"]),
        (
            "scan LOG LOG",
            vec!["scan", log, plain_log, "--by", "symbol", "--top", "100"],
        ),
        ("scan APP", vec!["scan", app]),
        (
            "scan --compile-commands",
            vec!["scan", &attr, "--compile-commands", db],
        ),
        (
            "scan --importer",
            vec!["scan", &api, "--importer", importers],
        ),
        ("diff BIN", vec!["diff", plain, bin, "--top", "100"]),
        (
            "diff BIN --by symbol",
            vec!["diff", bin, plain, "--by", "symbol", "--top", "100"],
        ),
        ("diff LOG", vec!["diff", plain_log, log, "--top", "100"]),
        ("diff LOG BIN", vec!["diff", log, plain, "--top", "100"]),
        ("diff APP", vec!["diff", app, app_v2]),
        ("diff APP (back)", vec!["diff", app_v2, app]),
        (
            "diff --importer",
            vec!["diff", &api, &api_v2, "--importer", importers],
        ),
        (
            "diff --compile-commands",
            vec!["diff", &attr, &attr, "--compile-commands", db],
        ),
        (
            "diff --old-compile-commands",
            vec![
                "diff",
                &attr,
                &attr,
                "--old-compile-commands",
                &old_db,
                "--new-compile-commands",
                db,
            ],
        ),
        (
            "check BIN",
            vec!["check", "--no-config", bin, "--max-weak-bind-symbols", "0"],
        ),
        (
            "check BIN --group",
            vec![
                "check",
                "--no-config",
                bin,
                "--by",
                "symbol",
                "--group",
                pattern,
            ],
        ),
        (
            "check BIN --baseline",
            vec![
                "check",
                "--no-config",
                bin,
                "--baseline",
                &i.baseline,
                "--max-increase",
                "0",
            ],
        ),
        (
            "check APP",
            vec!["check", "--no-config", app, "--max-trie-probes", "1"],
        ),
        (
            "check --importer",
            vec!["check", "--no-config", &api_v2, "--importer", importers],
        ),
        ("trend BIN", vec!["trend", plain, bin, plain]),
        ("trend LOG", vec!["trend", plain_log, log, "--by", "symbol"]),
        ("trend APP", vec!["trend", app, app_v2, app]),
    ];
    let mut found = Vec::new();
    for (label, args) in &runs {
        for (format, md) in markdown_of(&i.dir, args) {
            let what = format!("{label} --format {format}");
            found.extend(
                markup_from_names(&md)
                    .into_iter()
                    .map(|f| format!("{what}: {f}")),
            );
        }
    }
    assert!(found.is_empty(), "markup from names:\n{}", found.join("\n"));
}

/// The tags of an HTML page outside `<script>` and `<style>`, each as its name and attribute
/// names, and how many comments it has: every `<` of a text is escaped, so each raw one opens a
/// tag or a comment.
fn tags(html: &str) -> (Vec<String>, usize) {
    let (mut out, mut comments) = (Vec::new(), 0);
    let b = html.as_bytes();
    let mut i = 0;
    while let Some(at) = html[i..].find('<') {
        i += at + 1;
        if html[i..].starts_with("!--") {
            comments += 1;
            continue;
        }
        let word = |i: &mut usize| {
            let start = *i;
            while *i < b.len() && !b[*i].is_ascii_whitespace() && !b"=>/".contains(&b[*i]) {
                *i += 1;
            }
            html[start..*i].to_ascii_lowercase()
        };
        let name = word(&mut i);
        let mut tag = vec![name.clone()];
        loop {
            while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
                i += 1;
            }
            if i >= b.len() || b[i] == b'>' {
                break;
            }
            let attr = word(&mut i);
            tag.push(attr.clone());
            if attr.is_empty() {
                i += 1; // a stray `=`
            } else if i < b.len() && b[i] == b'=' {
                i += 1;
                match b.get(i) {
                    Some(&q @ (b'"' | b'\'')) => {
                        i += 1 + html[i + 1..].find(q as char).unwrap_or(html.len() - i - 1) + 1;
                    }
                    _ => {
                        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                            i += 1;
                        }
                    }
                }
            }
        }
        if name == "script" || name == "style" {
            let close = format!("</{name}>");
            i = html[i..]
                .find(&close)
                .map_or(html.len(), |e| i + e + close.len());
        }
        out.push(tag.join(" "));
    }
    (out, comments)
}

// The HTML report of the same inputs holds no tag, attribute or comment of a name: names are
// escaped in text, in attributes (`data-key`), in the SVG titles and texts and in the chart
// (plotters). Each tag is one the reports of the fixtures themselves have.
#[test]
fn html_report_of_hostile_names_holds_no_markup_of_them() {
    let i = inputs();
    let report = |inputs: &[&str]| -> String {
        let out = i.dir.join("report.html");
        let _ = std::fs::remove_file(&out);
        let run = weakscan()
            .args(["report", "-o"])
            .arg(&out)
            .args(inputs)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{inputs:?}: {run:?}");
        std::fs::read_to_string(&out).unwrap()
    };
    let process = |name: &str| testdata().join("process").join(name).display().to_string();
    let (app, app_v2) = (process("App.app"), process("App-v2.app"));
    let v2 = fixture("app-v2-default-opcodes-x86_64")
        .display()
        .to_string();
    let mut known = std::collections::BTreeSet::new();
    for inputs in [
        vec![i.plain.as_str()],
        vec![&i.plain, &v2, &i.plain],
        vec![&i.log],
        vec![&app, &app_v2],
    ] {
        known.extend(tags(&report(&inputs)).0);
    }
    for inputs in [
        vec![i.hostile.as_str()],
        vec![&i.plain, &i.hostile],
        vec![&i.plain, &i.hostile, &i.plain],
        vec![&i.hostile_log],
        vec![&i.app, &i.app_v2],
    ] {
        let html = report(&inputs);
        assert!(html.contains("@user"), "{inputs:?}: no hostile name shown");
        let (tags, comments) = tags(&html);
        assert_eq!(comments, 0, "{inputs:?}: a comment");
        let foreign: std::collections::BTreeSet<&String> =
            tags.iter().filter(|t| !known.contains(*t)).collect();
        assert!(foreign.is_empty(), "{inputs:?}: tags of names {foreign:?}");
    }
}
