//! `weakscan report`: the HTML file itself (self-contained, readable without scripts, escaped,
//! bounded), and the page in a real browser — headless Chromium (Debian's `chromium`) loads it
//! from disk, runs its script, and the DOM it dumps is checked: the headline and the fix are the
//! lines `scan` and `diff` print first, the rectangles drawn are the groups
//! `weakscan scan --by library|namespace` reports, the search box filters the tables, the
//! metric switch works, the largest increase and decrease are marked, and the page logged no
//! error. Each view is laid out at 420 px in a frame and measured (the page is no wider than
//! the window; wide tables scroll in their containers), and screenshots are taken at 1400 and
//! 420 px. Without Chromium the browser tests say so and skip, unless
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

/// A screenshot of `file` in a window `width` px wide: a PNG of that size, not blank. Kept in
/// `$WEAKSCAN_SCREENSHOTS` when that names a directory.
fn screenshot(chrome: &Path, file: &Path, png: &Path, width: u32) {
    let (_, err) = run_chromium(
        chrome,
        &[
            format!("--window-size={width},1400"),
            format!("--screenshot={}", png.display()),
        ],
        file,
        "",
    );
    let bytes = std::fs::read(png).unwrap_or_else(|e| panic!("no screenshot ({e}): {err}"));
    assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
    // IHDR: width and height, big-endian, after the signature and the chunk header.
    let size = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (width, 1400), "{}", png.display());
    assert!(
        bytes.len() > 10_000,
        "a blank screenshot? {} bytes",
        bytes.len()
    );
    if let Some(dir) = std::env::var_os("WEAKSCAN_SCREENSHOTS") {
        std::fs::copy(png, Path::new(&dir).join(png.file_name().unwrap())).unwrap();
    }
}

/// The layout of `file` in a frame `width` px wide, measured by a script of the page around it
/// (headless Chromium's window is at least 500 px wide; a frame can be narrower): the frame's
/// width, the page's scroll width, the elements that reach past the frame's right edge
/// outside a scrolling container, and each container's table with its client and scroll
/// widths and `overflow-x`.
fn layout_at(chrome: &Path, file: &Path, width: u32) -> serde_json::Value {
    let frame = file.with_extension(format!("{width}.html"));
    let name = file.file_name().unwrap().to_str().unwrap();
    std::fs::write(
        &frame,
        format!(
            r##"<!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="{name}" style="width:{width}px;height:900px;border:0"></iframe><pre id="probe"></pre>
<script>
document.getElementById("f").addEventListener("load", function () {{
  var w = this.contentWindow, d = w.document, r = {{ width: w.innerWidth, scroll: d.documentElement.scrollWidth, past: [], tables: {{}} }};
  d.querySelectorAll("body *").forEach(function (e) {{
    if (e.getBoundingClientRect().right > w.innerWidth + 0.5 && !e.closest(".scroll") && !e.closest("svg")) r.past.push(e.tagName + "#" + e.id);
  }});
  d.querySelectorAll(".scroll").forEach(function (s) {{
    var t = s.querySelector("table");
    r.tables[t.id || t.className] = [s.clientWidth, s.scrollWidth, w.getComputedStyle(s).overflowX];
  }});
  document.getElementById("probe").textContent = JSON.stringify(r);
}});
</script></body></html>"##
        ),
    )
    .unwrap();
    let (out, err) = run_chromium(
        chrome,
        &["--allow-file-access-from-files".into(), "--dump-dom".into()],
        &frame,
        "",
    );
    let probe = html_unescape(between(&out, "<pre id=\"probe\">", "</pre>"));
    serde_json::from_str(&probe).unwrap_or_else(|e| panic!("no layout ({e}): {probe:?} {err}"))
}

/// Checks the layout of `file` at 420 px: nothing reaches past the window but inside a
/// scrolling container, and the groups table, wider than the window, scrolls in its own.
fn fits_420(chrome: &Path, file: &Path) -> serde_json::Value {
    let l = layout_at(chrome, file, 420);
    assert_eq!(l["width"], 420, "{l}");
    assert!(
        l["scroll"].as_u64().unwrap() <= 420,
        "the page scrolls sideways: {l}"
    );
    assert_eq!(
        l["past"],
        serde_json::json!([]),
        "cut at the window's edge: {l}"
    );
    let groups = &l["tables"]["groups-table"];
    assert_eq!(groups[2], "auto", "{l}");
    assert!(
        groups[1].as_u64() > groups[0].as_u64(),
        "the groups table fits? {l}"
    );
    l
}

/// The text of an HTML fragment: tags dropped, entities read.
fn plain(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        rest = &rest[i + rest[i..].find('>').map_or(rest.len() - i, |e| e + 1)..];
    }
    out.push_str(rest);
    html_unescape(&out)
}

/// The headline and the fix lines of a dumped page.
fn story_of(dom: &str) -> (Vec<String>, Vec<String>) {
    let head = between(dom, "<div id=\"headline\">", "</div>");
    let headline = head
        .split("class=\"headline\">")
        .skip(1)
        .map(|l| plain(&l[..l.find("</").unwrap()]))
        .collect();
    let fix = between(dom, "<div id=\"fix\" class=\"fix\">", "</div>");
    let fix = fix
        .split("<p>")
        .skip(1)
        .map(|l| plain(&l[..l.rfind("</p>").unwrap()]))
        .collect();
    (headline, fix)
}

/// The lines `weakscan ARGS` prints before its tables: the headline, then the `fix:` block
/// (trimmed; the page's fix plan is right below its fix).
fn story_printed(args: &[&str]) -> (Vec<String>, Vec<String>) {
    let out = weakscan().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    let fix = lines
        .iter()
        .position(|l| l.starts_with("fix"))
        .unwrap_or(lines.len());
    (
        lines[..fix].iter().map(|l| l.to_string()).collect(),
        lines[fix..]
            .iter()
            .map(|l| {
                l.trim()
                    .replace("(fix plan below the groups)", "(fix plan below)")
            })
            .collect(),
    )
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
    // The answer first: the headline and the fix `weakscan scan` prints before its tables.
    let (headline, fix) = story_of(&d);
    assert_eq!(
        (headline, fix),
        story_printed(&["scan", &bin("app-attr-x86_64")])
    );
    assert!(
        d.find("<section id=\"story\"") < d.find("<section id=\"totals\""),
        "the story is not first"
    );
    let plan = between(&d, "<table id=\"fix-plan-table\"", "</table>");
    assert!(plan.contains("libdescriptors_a.a"), "{plan}");
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
    fits_420(&chrome, &file);
    screenshot(&chrome, &file, &shots.join("scan-1400.png"), 1400);
    screenshot(&chrome, &file, &shots.join("scan-420.png"), 420);

    // Diff v1 → v2: the diff's headline and fix; rectangles coloured and labelled by change.
    let (old, new) = (
        bin("app-default-chained-x86_64"),
        bin("app-v2-default-chained-x86_64"),
    );
    let (file, _) = report(tmp.path(), "diff.html", &[&old, &new]);
    let d = dom(&chrome, &file, "");
    assert_eq!(story_of(&d), story_printed(&["diff", &old, &new]));
    assert!(
        story_of(&d).1[0].contains("-fvisibility=hidden"),
        "{:?}",
        story_of(&d)
    );
    let (_, body) = metric_group(&d, "lookups");
    assert!(
        body.contains("fill=\"#f4c7c3\"") || body.contains("fill=\"#eea39b\""),
        "nothing grew"
    );
    assert!(body.contains("lookups: "), "{body}");
    assert!(body.contains(" → "), "diff titles give old → new");
    // At 420 px the totals fit whole (−4936 read −493 when the page was cut at the edge).
    let l = fits_420(&chrome, &file);
    let totals = &l["tables"]["totals figures"];
    assert_eq!(totals[0], totals[1], "the totals scroll at 420 px: {l}");
    screenshot(&chrome, &file, &shots.join("diff-1400.png"), 1400);
    screenshot(&chrome, &file, &shots.join("diff-420.png"), 420);

    // Trend default → v2 → hidden: the largest increase is default → v2 (+60), the largest
    // decrease v2 → hidden (−96), also the largest step, which the treemap compares.
    let series = [
        bin("app-default-chained-x86_64"),
        bin("app-v2-default-chained-x86_64"),
        bin("app-hidden-chained-x86_64"),
    ];
    let inputs: Vec<&str> = series.iter().map(String::as_str).collect();
    let lookups: Vec<i64> = inputs
        .iter()
        .map(|b| {
            json(&["scan", "--format", "json", b])["images"][0]["predicted_weak_lookups"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert!(
        lookups[1] > lookups[0] && lookups[2] < lookups[1],
        "{lookups:?}"
    );
    assert!(
        lookups[1] - lookups[2] > lookups[1] - lookups[0],
        "{lookups:?}"
    );
    let (file, _) = report(tmp.path(), "trend.html", &inputs);
    let d = dom(&chrome, &file, "");
    let chart = between(&d, "<section id=\"chart\"", "</section>");
    for mark in [
        "largest increase: app-default-chained-x86_64 → app-v2-default-chained-x86_64",
        "largest decrease: app-v2-default-chained-x86_64 → app-hidden-chained-x86_64",
    ] {
        assert!(
            chart.contains(mark),
            "{mark:?} is not marked: {}",
            &chart[..chart.len().min(400)]
        );
    }
    assert!(chart.contains("<title id=\"chart-title\">"));
    // Both steps told, each with the diff's headline of that step.
    let (headline, _) = story_of(&d);
    for (kind, a, b) in [("increase", 0, 1), ("decrease", 1, 2)] {
        let step = between(&d, &format!("<article class=\"step {kind}\""), "</article>");
        let (diff_headline, _) = story_printed(&["diff", inputs[a], inputs[b]]);
        let told = format!(
            "largest {kind}, {} → {}: {}",
            inputs[a].rsplit('/').next().unwrap(),
            inputs[b].rsplit('/').next().unwrap(),
            diff_headline[0]
        );
        assert!(headline.contains(&told), "{told:?} not in {headline:?}");
        assert!(plain(step).contains(&told), "{told:?} not in {step}");
        assert!(step.contains("<th scope=\"col\">from</th>") || !step.contains("descriptors"));
    }
    assert_eq!(
        headline[0],
        format!(
            "weak-def lookups {} → {} across 3 builds ({:+}, {:+.0}%)",
            lookups[0],
            lookups[2],
            lookups[2] - lookups[0],
            (lookups[2] - lookups[0]) as f64 * 100.0 / lookups[0] as f64
        )
    );
    fits_420(&chrome, &file);
    screenshot(&chrome, &file, &shots.join("trend-1400.png"), 1400);
    screenshot(&chrome, &file, &shots.join("trend-420.png"), 420);
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

/// The totals table of a report: each figure's row, its cells as text.
fn totals(html: &str) -> Vec<Vec<String>> {
    let body = between(html, "<table class=\"totals figures\">", "</table>");
    between(body, "<tbody>", "</tbody>")
        .split("<tr>")
        .skip(1)
        .map(|r| {
            r.split("</t")
                .filter_map(|c| c.rsplit_once('>').map(|(_, v)| plain(v)))
                .filter(|c| !c.trim().is_empty())
                .collect()
        })
        .collect()
}

// Bundles are read as their whole processes, as `trend` reads them: the same figures, trie
// probes among them; a directory was "is a directory" before.
#[test]
fn report_of_two_bundles_compares_their_processes() {
    let apps = [
        testdata().join("process/App.app"),
        testdata().join("process/App-v2.app"),
    ];
    let inputs: Vec<&str> = apps.iter().map(|p| p.to_str().unwrap()).collect();
    let tmp = tempfile::tempdir().unwrap();
    let (_, html) = report(tmp.path(), "apps.html", &inputs);
    let trend = json(&["trend", "--format", "json", inputs[0], inputs[1]]);
    let figure = |i: usize, f: &str| trend["series"][0]["points"][i]["image"][f].to_string();
    let rows = totals(&html);
    for (row, f) in [
        ("weak-def lookups", "predicted_weak_lookups"),
        ("weak-bound symbols", "weak_bind_symbols"),
        ("weak-bind sites", "weak_bind_sites"),
        ("weak-def exports", "weak_def_exports"),
        ("trie probes", "trie_probes"),
    ] {
        let cells = rows
            .iter()
            .find(|r| r[0] == row)
            .unwrap_or_else(|| panic!("no {row} in {rows:?}"));
        assert_eq!(cells[1..3], [figure(0, f), figure(1, f)], "{row}");
    }
    let (headline, fix) = story_of(&html);
    assert!(
        headline[0].starts_with("weak-def lookups 74 → 77 (+3, +4%)"),
        "{headline:?}"
    );
    assert!(fix[0].starts_with("fix: "), "{fix:?}");
    // One arch per process: a universal one needs --arch, like a universal binary.
    assert!(html.contains("App.app (x86_64)"), "the bundle is named");
}

// The report of one bundle tells its process's fix, as `scan APP` prints it, and draws the
// process's fix plan (trie probes saved), where the merged image has no attribution to plan by.
#[test]
fn report_of_a_bundle_gives_the_process_fix_and_fix_plan() {
    let app = testdata().join("process/App.app");
    let app = app.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (_, html) = report(tmp.path(), "app.html", &[app]);
    let (_, fix) = story_of(&html);
    let scan = crate::util::stdout_of(&["scan", app]);
    let printed: Vec<&str> = scan
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('┌'))
        .collect();
    let printed: Vec<String> = printed
        .iter()
        .map(|l| l.trim().replace(" (fix plan below)", ""))
        .collect();
    let fix: Vec<String> = fix
        .iter()
        .map(|l| l.replace(" (fix plan below)", ""))
        .collect();
    assert_eq!(fix, printed);
    assert!(
        html.contains("<caption>Fix plan of the process"),
        "the process's plan is drawn"
    );
    let doc = json(&["scan", "--format", "json", app]);
    let first = &doc["processes"][0]["fix_plan"][0];
    assert!(
        html.contains(&format!(
            "<td data-label=\"trie probes saved\">{}</td><td data-label=\"lookups saved\">{}</td>",
            first["hidden"]["trie_probes"], first["hidden"]["lookups"]
        )),
        "{first}"
    );
}

// Without -o, HTML goes to a pipe or a file, never to a terminal: one line and exit 2 there.
#[test]
fn report_refuses_to_write_html_to_a_terminal() {
    let input = bin("app-attr-x86_64");
    let piped = weakscan().args(["report", &input]).output().unwrap();
    assert_eq!(piped.status.code(), Some(0));
    assert!(piped.stdout.starts_with(b"<!DOCTYPE html>"));
    // A terminal: a pseudo-terminal from util-linux's `script`.
    if Command::new("script").arg("--version").output().is_err() {
        crate::util::skip("no `script` (util-linux): the terminal is not tried");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let html = tmp.path().join("r.html");
    let on_tty = |args: &str| {
        let cmd = format!(
            "'{}' report {args} '{input}'; echo \"exit=$?\"",
            crate::util::bin().display()
        );
        let out = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).replace('\r', "")
    };
    assert_eq!(
        on_tty(""),
        "weakscan: the report is HTML, not for a terminal: give -o FILE.html\nexit=2\n"
    );
    // With -o the terminal gets no HTML (a status line on stderr would be fine).
    let written = on_tty(&format!("-o '{}'", html.display()));
    assert!(
        written.ends_with("exit=0\n") && !written.contains("<!DOCTYPE"),
        "{written}"
    );
    assert!(
        std::fs::read_to_string(&html)
            .unwrap()
            .ends_with("</html>\n")
    );
}

/// One rectangle of a treemap: depth, x, y, width, height, title.
type Rect = (usize, f64, f64, f64, f64, String);

fn rects(body: &str) -> Vec<Rect> {
    body.split("<rect ")
        .skip(1)
        .map(|r| {
            let num = |a: &str| attr_value(r, a).parse::<f64>().unwrap();
            let depth = between(r, "class=\"d", "\"").parse().unwrap();
            let title = html_unescape(between(r, "<title>", "</title>"));
            (
                depth,
                num("x"),
                num("y"),
                num("width"),
                num("height"),
                title,
            )
        })
        .collect()
}

/// No blank rectangles in the lookups treemap of `html`: every group is either drawn whole
/// (its title says how many symbols were not drawn) or has children drawn inside it that
/// cover at least about half of it (what is left: its label strip, padding and children too
/// small to draw).
fn no_blank_rectangles(html: &str) {
    let all = rects(metric_group(html, "lookups").1);
    for p in all.iter().filter(|r| !r.5.starts_with("symbol: ")) {
        let inside: Vec<&Rect> = all
            .iter()
            .filter(|c| {
                c.0 == p.0 + 1
                    && c.1 >= p.1
                    && c.2 >= p.2
                    && c.1 + c.3 <= p.1 + p.3 + 1.0
                    && c.2 + c.4 <= p.2 + p.4 + 1.0
            })
            .collect();
        if p.5.contains("symbols, not drawn") {
            assert!(inside.is_empty(), "a whole group has children: {p:?}");
            continue;
        }
        assert!(
            !inside.is_empty(),
            "a group with nothing drawn in it: {p:?}"
        );
        let header = if p.4 > 42.0 { 14.0 } else { 0.0 };
        let inner = (p.3 - 4.0) * (p.4 - 4.0 - header);
        let covered: f64 = inside.iter().map(|c| c.3 * c.4).sum();
        assert!(
            covered >= 0.45 * inner,
            "{covered} of {inner} px² of {p:?} covered"
        );
    }
}

// Node 22.11.0 → 24.11.1: the largest rectangle, the 2158 lookups of
// v8::internal::StaticCallInterfaceDescriptor<…> that went away, is drawn whole and labelled
// (its symbols were a partial grid on a blank field when the rectangle budget ran out among
// them); no group of the treemap is blank.
#[test]
fn report_of_node_draws_groups_whole_when_their_symbols_do_not_fit() {
    let (Some(a), Some(b)) = (
        crate::node::node_binary("22.11.0"),
        crate::node::node_binary("24.11.1"),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (_, html) = report(
        tmp.path(),
        "node.html",
        &[a.to_str().unwrap(), b.to_str().unwrap()],
    );
    assert!(html.len() < 3_000_000, "{} bytes", html.len());
    let all = rects(metric_group(&html, "lookups").1);
    let descriptors = all
        .iter()
        .find(|r| {
            r.5.starts_with("template: v8::internal::StaticCallInterfaceDescriptor<…>\n")
        })
        .expect("the descriptors' rectangle");
    assert!(
        descriptors.5.contains("lookups: 2158 → 0 (−2158)")
            && descriptors.5.contains("2158 symbols, not drawn"),
        "{descriptors:?}"
    );
    assert!(html.contains(">2158 symbols: see the tables</text>"));
    no_blank_rectangles(&html);
    // Its row names its object.
    let groups = between(&html, "<table id=\"groups-table\"", "</table>");
    let row = between(groups, "<tbody>", "</tr>");
    assert!(
        row.contains("StaticCallInterfaceDescriptor")
            && row.contains("libv8_base_without_compiler.a(interface-descriptors.o)"),
        "{row}"
    );
}

// Four Node.js builds: 22.11.0 brought V8's leaked templates (+3661), 22.14.0 removed them
// (−5068). The report tells both steps, each with its top group and the object it comes from,
// and leads with the fix of the newest build, as `weakscan scan` of it prints it.
#[test]
fn report_of_four_node_builds_tells_the_regression_and_the_fix() {
    let versions = ["20.11.0", "22.11.0", "22.14.0", "24.11.1"];
    let Some(paths) = versions
        .iter()
        .map(|v| crate::node::node_binary(v))
        .collect::<Option<Vec<PathBuf>>>()
    else {
        return;
    };
    let inputs: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let tmp = tempfile::tempdir().unwrap();
    let (file, html) = report(tmp.path(), "trend.html", &inputs);
    assert!(html.len() < 3_000_000, "{} bytes", html.len());
    let (headline, fix) = story_of(&html);
    assert_eq!(
        headline[0],
        "weak-def lookups 3161 → 1886 across 4 builds (-1275, -40%)"
    );
    let object = "from libv8_base_without_compiler.a(interface-descriptors.o)";
    for (kind, told) in [
        (
            "increase",
            "largest increase, 20.11.0 → 22.11.0: weak-def lookups 3161 → 6822 (+3661, +116%): about +3.6–10.9 ms at launch (0.99–2.97 µs per lookup, measured in nodejs/node#56275); largest change: v8::internal::StaticCallInterfaceDescriptor<…> +1665, ",
        ),
        (
            "decrease",
            "largest decrease, 22.11.0 → 22.14.0: weak-def lookups 6822 → 1754 (-5068, -74%): about -5.0–15.1 ms at launch (0.99–2.97 µs per lookup, measured in nodejs/node#56275); largest change: v8::internal::StaticCallInterfaceDescriptor<…> -2158, ",
        ),
    ] {
        let told = format!("{told}{object}");
        assert!(headline.contains(&told), "{told:?} not in {headline:?}");
        let step = between(
            &html,
            &format!("<article class=\"step {kind}\""),
            "</article>",
        );
        let first = between(between(step, "<tbody>", "</tbody>"), "<tr>", "</tr>");
        assert!(
            first.contains("StaticCallInterfaceDescriptor")
                && first.contains("libv8_base_without_compiler.a(interface-descriptors.o)"),
            "{first}"
        );
    }
    // The regression's fix names the library that brought it.
    let step = between(&html, "<article class=\"step increase\"", "</article>");
    assert!(
        plain(step).contains(
            "fix: compile libv8_base_without_compiler.a with -fvisibility=hidden: it brought"
        ),
        "{step}"
    );
    // The fix at the top is the newest build's, as `scan` prints it.
    assert_eq!(fix, story_printed(&["scan", inputs[3]]).1);
    let plan = between(&html, "<table id=\"fix-plan-table\"", "</table>");
    assert!(plan.contains("Fix plan of 24.11.1"), "{plan}");
    no_blank_rectangles(&html);
    if let Some(chrome) = chromium() {
        let d = dom(&chrome, &file, "");
        assert_eq!(story_of(&d).0, headline);
        fits_420(&chrome, &file);
    }
}

/// A distinct mangled name of `size` bytes, `node::BigNNNkkk…NNN()` once demangled (as
/// `scripts/gen-hostile.py` writes them for `report-names`).
pub(crate) fn huge_name(i: usize, size: usize) -> String {
    let mut ident = format!("Big{i:03}");
    ident.push_str(&"k".repeat(size - ident.len() - 19));
    ident.push_str(&format!("{i:03}"));
    format!("__ZN4node{}{ident}Ev", ident.len())
}

/// `app-default-chained-x86_64` with a chained-fixups blob of one weak-lookup import (ordinal
/// -3, `DYLD_CHAINED_IMPORT_ADDEND64`) per name, appended after the file with `__LINKEDIT`
/// grown over it: `report-names` of `scripts/gen-hostile.py`, in Rust.
pub(crate) fn with_weak_imports(names: &[String]) -> Vec<u8> {
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

/// The column headers of the totals table: one per build, then the change.
fn totals_header(html: &str) -> Vec<String> {
    let body = between(html, "<table class=\"totals figures\">", "</table>");
    between(body, "<thead>", "</thead>")
        .split("<th scope=\"col\">")
        .skip(1)
        .map(|c| plain(c.split("</th>").next().unwrap()))
        .collect()
}

/// Builds whose paths end alike (a CI job's `old/out/Release/node` and `new/out/Release/node`)
/// were each named by their last two path components: "Release/x | Release/x" in the report's
/// totals, `bin/x → bin/x` in a trend's headline. Each output names them by the one label
/// function now: the shortest path suffix that tells them apart, or `--label`.
#[test]
fn regression_builds_with_the_same_last_two_path_parts_had_the_same_label() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = testdata().join("bin").join("app-default-chained-x86_64");
    let place = |dir: &str| -> String {
        let p = tmp.path().join(dir).join("out/Release/x");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&fixture, &p).unwrap();
        p.display().to_string()
    };
    let (old, new, third) = (place("old"), place("new"), place("third"));
    let (_, html) = report(tmp.path(), "diff.html", &[&old, &new]);
    assert_eq!(
        totals_header(&html),
        [
            "figure",
            "old/out/Release/x",
            "new/out/Release/x",
            "change (last two)"
        ]
    );
    let (_, html) = report(tmp.path(), "trend.html", &[&old, &new, &third]);
    let head = totals_header(&html);
    assert_eq!(
        head[1..4],
        [
            "old/out/Release/x",
            "new/out/Release/x",
            "third/out/Release/x"
        ]
    );
    // The same labels in the other outputs.
    let doc = json(&["diff", "--format", "json", &old, &new]);
    assert_eq!(doc["labels"]["old"], "old/out/Release/x");
    assert_eq!(doc["labels"]["new"], "new/out/Release/x");
    let doc = json(&["trend", "--format", "json", &old, &new, &third]);
    let labels: Vec<&str> = doc["builds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, head[1..4]);
    // --label names them in the given order, in every output.
    let out = tmp.path().join("labelled.html");
    let args = ["report", "--label", "main", "--label", "pr-7", "-o"];
    weakscan()
        .args(args)
        .args([out.to_str().unwrap(), &old, &new])
        .assert()
        .code(0);
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(totals_header(&html)[1..3], ["main", "pr-7"]);
    let doc = json(&[
        "diff", "--format", "json", "--label", "main", "--label", "pr-7", &old, &new,
    ]);
    assert_eq!(
        (&doc["labels"]["old"], &doc["labels"]["new"]),
        (&"main".into(), &"pr-7".into())
    );
}

/// The layout of `file` in a frame `width` px wide (as [`layout_at`]), measured by a script of
/// the page around it: the width of `<main>`; the totals' column headers (the build labels as
/// laid out); every cell of the fix plan's table with its left and right edges; the groups
/// table's example column width and its rows' greatest height.
fn boxes_at(chrome: &Path, file: &Path, width: u32) -> serde_json::Value {
    let frame = file.with_extension(format!("boxes{width}.html"));
    let name = file.file_name().unwrap().to_str().unwrap();
    std::fs::write(
        &frame,
        format!(
            r##"<!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="{name}" style="width:{width}px;height:900px;border:0"></iframe><pre id="probe"></pre>
<script>
document.getElementById("f").addEventListener("load", function () {{
  var w = this.contentWindow, d = w.document, box = function (e) {{ return e.getBoundingClientRect(); }};
  var r = {{ width: w.innerWidth, main: box(d.querySelector("main")).width, labels: [], plan: [], example: 0, tallest: 0 }};
  d.querySelectorAll("table.totals thead th").forEach(function (th) {{ r.labels.push(th.textContent); }});
  d.querySelectorAll("#fix-plan-table tbody th, #fix-plan-table tbody td").forEach(function (c) {{
    var b = box(c); r.plan.push([c.getAttribute("data-label") || "hide", Math.floor(b.left), Math.ceil(b.right)]);
  }});
  d.querySelectorAll("#groups-table thead th").forEach(function (th) {{
    if (th.textContent.indexOf("example") === 0) r.example = Math.round(box(th).width);
  }});
  d.querySelectorAll("#groups-table tbody tr").forEach(function (tr) {{ r.tallest = Math.max(r.tallest, Math.round(box(tr).height)); }});
  document.getElementById("probe").textContent = JSON.stringify(r);
}});
</script></body></html>"##
        ),
    )
    .unwrap();
    let (out, err) = run_chromium(
        chrome,
        &["--allow-file-access-from-files".into(), "--dump-dom".into()],
        &frame,
        "",
    );
    let probe = html_unescape(between(&out, "<pre id=\"probe\">", "</pre>"));
    serde_json::from_str(&probe).unwrap_or_else(|e| panic!("no boxes ({e}): {probe:?} {err}"))
}

/// A diff of builds whose paths end alike, laid out at 1400 and 420 px (screenshots of both
/// kept with `WEAKSCAN_SCREENSHOTS`) and measured at each in a frame of that width: the totals
/// name the builds apart; at 1400 px the page uses the window and the example column is wide
/// enough that no group row grows past 8 lines; at 420 px every cell of the fix plan (its
/// figures) is inside the window, with no sideways scrolling.
#[test]
fn report_layout_at_1400_and_420_px() {
    let Some(chrome) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let place = |dir: &str, fixture: &str| -> String {
        let p = tmp.path().join(dir).join("out/Release/app");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(testdata().join("bin").join(fixture), &p).unwrap();
        p.display().to_string()
    };
    let old = place("old", "app-default-chained-x86_64");
    let new = place("new", "app-v2-default-chained-x86_64");
    let (file, html) = report(tmp.path(), "layout.html", &[&old, &new]);
    assert!(
        html.contains("id=\"fix-plan-table\""),
        "no fix plan to lay out"
    );
    let labels = [
        "figure",
        "old/out/Release/app",
        "new/out/Release/app",
        "change (last two)",
    ];
    for width in [1400, 420] {
        screenshot(
            &chrome,
            &file,
            &tmp.path().join(format!("layout-{width}.png")),
            width,
        );
        let b = boxes_at(&chrome, &file, width);
        eprintln!("{width} px: {b}");
        assert_eq!(b["width"], width, "{b}");
        assert_eq!(b["labels"], serde_json::json!(labels), "{b}");
        let plan = b["plan"].as_array().unwrap();
        assert!(plan.len() >= 8, "{b}");
        for cell in plan {
            let (left, right) = (cell[1].as_i64().unwrap(), cell[2].as_i64().unwrap());
            assert!(
                left >= 0 && right <= i64::from(width),
                "fix plan cell {cell} is outside the {width} px window: {b}"
            );
        }
        if width == 1400 {
            assert!(b["main"].as_f64().unwrap() >= 1300.0, "{b}");
            assert!(b["example"].as_u64().unwrap() >= 300, "{b}");
            assert!(b["tallest"].as_u64().unwrap() <= 8 * 19, "{b}");
        }
    }
}
