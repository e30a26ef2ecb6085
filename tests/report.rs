//! `weakscan report`: the HTML file itself (self-contained, readable without scripts, escaped),
//! and the page in a real browser — headless Chromium (Debian's `chromium`) loads it from disk,
//! runs its script, and the DOM it dumps is checked: the rectangles drawn are the groups
//! `weakscan scan --by library|namespace` reports, the search box filters the tables, the
//! metric switch works, the largest step is marked, and the page logged no error. A screenshot
//! is taken of each view. Without Chromium the browser tests say so and skip, unless
//! `WEAKSCAN_REQUIRE_CHROMIUM=1` (CI), when they fail.

use crate::util::{json, required, testdata, weakscan};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin(name: &str) -> String {
    testdata().join("bin").join(name).display().to_string()
}

/// Writes the report of `inputs` into `dir` and returns its path and text.
fn report(dir: &Path, name: &str, inputs: &[&str]) -> (PathBuf, String) {
    let out = dir.join(name);
    let mut args = vec!["report", "-o", out.to_str().unwrap()];
    args.extend_from_slice(inputs);
    let run = weakscan().args(&args).output().unwrap();
    assert_eq!(run.status.code(), Some(0), "{args:?}: {run:?}");
    let html = std::fs::read_to_string(&out).unwrap();
    (out, html)
}

fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .map(PathBuf::from)
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            !required("WEAKSCAN_REQUIRE_CHROMIUM"),
            "WEAKSCAN_REQUIRE_CHROMIUM=1 but no chromium on PATH"
        );
        eprintln!(
            "SKIPPED: no chromium on PATH (apt-get install chromium); browser checks not run"
        );
    }
    found
}

/// Runs headless Chromium on `file` (with `fragment`), with a deadline; returns its stdout and
/// stderr.
fn run_chromium(chrome: &Path, args: &[String], file: &Path, fragment: &str) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let url = format!("file://{}{fragment}", file.display());
    let mut child = Command::new(chrome)
        .args([
            "--headless=new",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--hide-scrollbars",
            "--virtual-time-budget=5000",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", tmp.path().display()))
        .args(args)
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    // Read both pipes on threads so a full pipe cannot stall the browser.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut so, &mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut se, &mut s).ok();
        s
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("chromium did not finish in 90 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (out.join().unwrap(), err.join().unwrap())
}

/// The DOM after the page's script ran (and `fragment` applied).
fn dom(chrome: &Path, file: &Path, fragment: &str) -> String {
    let (out, err) = run_chromium(chrome, &["--dump-dom".into()], file, fragment);
    assert!(
        out.contains("</html>"),
        "no DOM dumped for {}: {err}",
        file.display()
    );
    let console: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("Uncaught") || l.contains("Error")))
        .collect();
    assert!(console.is_empty(), "console errors: {console:?}");
    let errors = between(&out, "<pre id=\"js-errors\" hidden=\"\">", "</pre>");
    assert_eq!(errors, "", "the page's script reported errors");
    out
}

fn screenshot(chrome: &Path, file: &Path, png: &Path) {
    let (_, err) = run_chromium(
        chrome,
        &[
            "--window-size=1200,1400".into(),
            format!("--screenshot={}", png.display()),
        ],
        file,
        "",
    );
    let bytes = std::fs::read(png).unwrap_or_else(|e| panic!("no screenshot ({e}): {err}"));
    assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
    assert!(
        bytes.len() > 10_000,
        "a blank screenshot? {} bytes",
        bytes.len()
    );
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> &'a str {
    let i = s
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} not found"));
    let rest = &s[i + start.len()..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// The `<g data-metric=…>` element of a treemap: its attributes and content.
fn metric_group<'a>(html: &'a str, metric: &str) -> (&'a str, &'a str) {
    let start = format!("<g class=\"metric\" data-metric=\"{metric}\"");
    let open = between(html, &start, ">");
    let body = between(html, &format!("{start}{open}>"), "</g>");
    (open, body)
}

fn attr_value<'a>(tag: &'a str, name: &str) -> &'a str {
    between(tag, &format!("{name}=\""), "\"")
}

/// Keys (`data-key`) of the top-level rectangles (`class="d0"`) of a treemap group.
fn top_keys(body: &str) -> BTreeSet<String> {
    body.split("<rect ")
        .filter(|r| r.starts_with("class=\"d0\""))
        .map(|r| html_unescape(between(r, "data-key=\"", "\"")))
        .collect()
}

fn html_unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

/// Rows of a table in the dumped DOM, and how many the script hid.
fn rows(dom: &str, table: &str) -> (usize, usize) {
    let body = between(dom, &format!("<table id=\"{table}\""), "</table>");
    let body = between(body, "<tbody>", "</tbody>");
    let all = body.matches("<tr").count();
    let hidden = body.matches("<tr hidden=\"\"").count();
    (all, hidden)
}

#[test]
fn report_file_is_self_contained_and_readable_without_scripts() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, html) = report(tmp.path(), "scan.html", &[&bin("app-attr-x86_64")]);
    // No network, no external asset: nothing is fetched.
    for bad in ["http://", "https://", "src=\"", "<link", "@import", "url("] {
        assert!(!html.contains(bad), "the report refers to {bad}");
    }
    // Without scripts: the lookups treemap is shown, the others are hidden by inline style, and
    // the tables are complete.
    let (open, body) = metric_group(&html, "lookups");
    assert!(!open.contains("display:none"));
    assert_eq!(
        body.matches("<rect ").count(),
        attr_value(open, "data-rects").parse::<usize>().unwrap()
    );
    assert!(metric_group(&html, "sites").0.contains("display:none"));
    // The groups table lists the template groups of `weakscan scan --by template`.
    let scan = json(&[
        "scan",
        "--format",
        "json",
        "--by",
        "template",
        &bin("app-attr-x86_64"),
    ]);
    let groups = scan["groups"].as_array().unwrap().len();
    let table = between(&html, "<table id=\"groups-table\"", "</table>");
    assert_eq!(
        between(table, "<tbody>", "</tbody>")
            .matches("<tr>")
            .count(),
        groups
    );
    // Attribution: the top level is the static libraries, as `--by library` groups them.
    let libs: BTreeSet<String> = json(&[
        "scan",
        "--format",
        "json",
        "--by",
        "library",
        &bin("app-attr-x86_64"),
    ])["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["lookups"].as_u64().unwrap_or(0) > 0)
        .map(|g| g["key"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(top_keys(body), libs);
    // Accessible: the SVG has a title and a description; every rectangle a title.
    assert!(html.contains("aria-labelledby=\"treemap-title treemap-desc\""));
    assert_eq!(
        body.matches("<rect ").count(),
        body.matches("<title>").count()
    );
}

#[test]
fn report_escapes_names() {
    // Template names carry `<`, `>` and `&`-free text; nothing unescaped reaches the markup.
    let tmp = tempfile::tempdir().unwrap();
    let (_, html) = report(
        tmp.path(),
        "scan.html",
        &[&bin("app-v2-default-chained-x86_64")],
    );
    let svg = between(&html, "<svg id=\"treemap-svg\"", "</svg>");
    for t in svg.split("<title>").skip(1) {
        let t = &t[..t.find("</title>").unwrap()];
        assert!(
            !t.contains('<') && !t.contains('>'),
            "unescaped title {t:?}"
        );
    }
}

#[test]
fn report_in_a_browser_scan_diff_and_trend() {
    let Some(chrome) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let shots = tmp.path();

    // Scan of the attributed fixture.
    let (file, html) = report(tmp.path(), "scan.html", &[&bin("app-attr-x86_64")]);
    let d = dom(&chrome, &file, "");
    let (open, body) = metric_group(&d, "lookups");
    let drawn = body.matches("<rect ").count();
    assert_eq!(drawn.to_string(), attr_value(open, "data-rects"));
    assert_eq!(top_keys(body), top_keys(metric_group(&html, "lookups").1));
    assert!(
        d.contains(&format!("{drawn} rectangles by lookups")),
        "the script did not describe the treemap"
    );
    // The search box filters: a deep link types into it.
    let (all, hidden) = rows(&d, "groups-table");
    assert_eq!(hidden, 0);
    let d = dom(&chrome, &file, "#search=Descriptor");
    let (all2, hidden2) = rows(&d, "groups-table");
    assert_eq!(all2, all);
    assert!(
        hidden2 > 0 && hidden2 < all,
        "{hidden2} of {all} rows hidden"
    );
    let shown = between(&d, "<table id=\"groups-table\"", "</table>");
    for row in shown
        .split("<tr")
        .skip(2)
        .filter(|r| !r.starts_with(" hidden"))
    {
        // The filter ignores case.
        assert!(
            row.to_lowercase().contains("descriptor"),
            "a row without the query is shown: {row}"
        );
    }
    // The metric switch.
    let d = dom(&chrome, &file, "#metric=exports");
    assert!(metric_group(&d, "lookups").0.contains("display: none"));
    assert!(!metric_group(&d, "exports").0.contains("display: none"));
    screenshot(&chrome, &file, &shots.join("scan.png"));

    // Diff v1 → v2: rectangles coloured and labelled by change.
    let (file, _) = report(
        tmp.path(),
        "diff.html",
        &[
            &bin("app-default-chained-x86_64"),
            &bin("app-v2-default-chained-x86_64"),
        ],
    );
    let d = dom(&chrome, &file, "");
    let (_, body) = metric_group(&d, "lookups");
    assert!(
        body.contains("fill=\"#f4c7c3\"") || body.contains("fill=\"#eea39b\""),
        "nothing grew"
    );
    assert!(body.contains("lookups: "), "{body}");
    assert!(body.contains(" → "), "diff titles give old → new");
    screenshot(&chrome, &file, &shots.join("diff.png"));

    // Trend default → v2 → hidden: the largest step is v2 → hidden (−96 lookups vs +60).
    let series = [
        bin("app-default-chained-x86_64"),
        bin("app-v2-default-chained-x86_64"),
        bin("app-hidden-chained-x86_64"),
    ];
    let inputs: Vec<&str> = series.iter().map(String::as_str).collect();
    let lookups: Vec<u64> = inputs
        .iter()
        .map(|b| {
            json(&["scan", "--format", "json", b])["images"][0]["predicted_weak_lookups"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let step = if lookups[1].abs_diff(lookups[0]) > lookups[2].abs_diff(lookups[1]) {
        1
    } else {
        2
    };
    assert_eq!(step, 2, "{lookups:?}");
    let (file, _) = report(tmp.path(), "trend.html", &inputs);
    let d = dom(&chrome, &file, "");
    let chart = between(&d, "<section id=\"chart\"", "</section>");
    assert!(
        chart.contains("largest step: bin/app-hidden-chained-x86_64"),
        "the largest step is not marked: {}",
        &chart[..chart.len().min(400)]
    );
    assert!(chart.contains("<title id=\"chart-title\">"));
    screenshot(&chrome, &file, &shots.join("trend.png"));
}

// The Node.js step that removed V8's leaked templates (docs/trend.md), as a report: under 3 MB,
// the treemap's top level says where the lookups went, and the page runs clean in Chromium.
#[test]
fn report_of_the_node_step_that_fixed_it() {
    let (Some(a), Some(b)) = (
        crate::node::node_binary("22.12.0"),
        crate::node::node_binary("22.14.0"),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (file, html) = report(
        tmp.path(),
        "node.html",
        &[a.to_str().unwrap(), b.to_str().unwrap()],
    );
    assert!(html.len() < 3_000_000, "{} bytes", html.len());
    let (_, body) = metric_group(&html, "lookups");
    let v8 = body
        .split("<rect ")
        .find(|r| {
            r.starts_with("class=\"d0\"")
                && r.contains("data-key=\"libv8_base_without_compiler.a\"")
        })
        .expect("libv8_base_without_compiler.a at the top level");
    assert!(v8.contains("lookups: 3939 → 2 (−3937)"), "{v8}");
    assert!(
        body.contains("template: v8::internal::StaticCallInterfaceDescriptor&lt;…&gt;\nlookups: 2158 → 0 (−2158)"),
        "the 2158 descriptor lookups are not a rectangle"
    );
    if let Some(chrome) = chromium() {
        let d = dom(&chrome, &file, "#search=StaticCallInterfaceDescriptor");
        let (all, hidden) = rows(&d, "groups-table");
        assert_eq!(all - hidden, 1, "one template group matches");
    }
}

/// A distinct mangled name of `size` bytes, `node::BigNNNkkk…NNN()` once demangled (as
/// `scripts/gen-hostile.py` writes them for `report-names`).
fn huge_name(i: usize, size: usize) -> String {
    let mut ident = format!("Big{i:03}");
    ident.push_str(&"k".repeat(size - ident.len() - 19));
    ident.push_str(&format!("{i:03}"));
    format!("__ZN4node{}{ident}Ev", ident.len())
}

/// `app-default-chained-x86_64` with a chained-fixups blob of one weak-lookup import (ordinal
/// -3, `DYLD_CHAINED_IMPORT_ADDEND64`) per name, appended after the file with `__LINKEDIT`
/// grown over it: `report-names` of `scripts/gen-hostile.py`, in Rust.
fn with_weak_imports(names: &[String]) -> Vec<u8> {
    let mut b = std::fs::read(bin("app-default-chained-x86_64")).unwrap();
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let command = |b: &[u8], want: u32, segment: &[u8]| {
        let mut off = 32;
        for _ in 0..u32_at(b, 16) {
            if u32_at(b, off) == want && (segment.is_empty() || b[off + 8..].starts_with(segment)) {
                return off;
            }
            off += u32_at(b, off + 4) as usize;
        }
        panic!("no load command {want:#x}");
    };
    let lc = command(&b, 0x8000_0034, b""); // LC_DYLD_CHAINED_FIXUPS
    let old_off = u32_at(&b, lc + 8) as usize;
    let (starts_off, imports_off) = (
        old_off + u32_at(&b, old_off + 4) as usize,
        old_off + u32_at(&b, old_off + 8) as usize,
    );
    let starts = b[starts_off..imports_off].to_vec();
    let (mut pool, mut table) = (vec![0u8], Vec::new());
    for n in names {
        table.extend_from_slice(&(0xFFFD | ((pool.len() as u64) << 32)).to_le_bytes());
        table.extend_from_slice(&0u64.to_le_bytes());
        pool.extend_from_slice(n.as_bytes());
        pool.push(0);
    }
    let s_off = 28;
    let i_off = (s_off + starts.len()).next_multiple_of(8);
    let p_off = i_off + table.len();
    let mut blob = Vec::new();
    for v in [0, s_off, i_off, p_off, names.len(), 3, 0] {
        blob.extend_from_slice(&(v as u32).to_le_bytes());
    }
    blob.extend_from_slice(&starts);
    blob.resize(i_off, 0);
    blob.extend_from_slice(&table);
    blob.extend_from_slice(&pool);
    let start = b.len().next_multiple_of(8);
    b.resize(start, 0);
    b.extend_from_slice(&blob);
    let seg = command(&b, 0x19, b"__LINKEDIT\0");
    let fileoff = u64::from_le_bytes(b[seg + 40..seg + 48].try_into().unwrap());
    let size = b.len() as u64 - fileoff;
    b[seg + 32..seg + 40].copy_from_slice(&size.next_multiple_of(0x1000).to_le_bytes());
    b[seg + 48..seg + 56].copy_from_slice(&size.to_le_bytes());
    b[lc + 8..lc + 12].copy_from_slice(&(start as u32).to_le_bytes());
    b[lc + 12..lc + 16].copy_from_slice(&(blob.len() as u32).to_le_bytes());
    b
}

#[test]
fn report_of_huge_names_is_bounded_and_has_each_name_once() {
    // 200 distinct weak-bound names of 16 KiB (as many imports as the fixture's binds need):
    // written whole at each of their ~10 places they made a 33 MB report; clipped to 512
    // characters but for one copy, about their own size.
    let names: Vec<String> = (0..200).map(|i| huge_name(i, 16 << 10)).collect();
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("report-names");
    std::fs::write(&input, with_weak_imports(&names)).unwrap();
    let scan = json(&["scan", "--format", "json", input.to_str().unwrap()]);
    assert_eq!(scan["images"][0]["weak_bind_symbols"], 200, "{scan}");
    let (_, html) = report(tmp.path(), "huge.html", &[input.to_str().unwrap()]);
    let total: usize = names.iter().map(String::len).sum();
    assert!(
        html.len() <= total + total / 2 + (1 << 20),
        "{} bytes of report for {total} bytes of names",
        html.len()
    );
    for n in &names {
        // Whole exactly once, and no other copy longer than the clip (head or tail of 600).
        assert_eq!(html.matches(n.as_str()).count(), 1, "{}", &n[..40]);
        assert_eq!(html.matches(&n[..600]).count(), 1, "{}", &n[..40]);
        assert_eq!(html.matches(&n[n.len() - 600..]).count(), 1, "{}", &n[..40]);
        // The clipped copies keep both ends.
        let clipped_head = &n[..300];
        assert!(html.matches(clipped_head).count() > 1, "{}", &n[..40]);
    }
}
