//! `weakscan report -o report.html`: one self-contained HTML file (no network, no external
//! assets) rendering a [`Page`]: the totals, a treemap of the weak symbols (SVG, laid out by the
//! streemap crate's squarified algorithm), a chart of the figures across builds (SVG drawn by
//! plotters, trend only), sortable and searchable tables of groups and symbols with their
//! mangled names, and the fix hints.
//!
//! ```text
//! <main>
//!   <section id=totals>    table: figure × build (+ change)
//!   <section id=treemap>   one <svg><g data-metric=lookups|sites|exports> per metric, the
//!                          first shown; <rect class=dN data-key=…><title>…</title></rect>
//!   <section id=chart>     (trend) plotters SVG, the largest step marked
//!   <section id=groups>    <table> with sort buttons and a search box
//!   <section id=symbols>   <table>, largest first, cut to page::SYMBOLS_LIMIT rows
//!   <section id=fix>       the hints
//! <pre id=js-errors hidden>  errors of the page's own script (the browser test reads it)
//! ```
//!
//! With scripts off the page is complete: the lookups treemap and every table are there; the
//! script only sorts, filters and switches the treemap's metric. Colour is never the only
//! signal: a rectangle's title and label say the change (`+12`, `−3`), and the legend names
//! the colours.
//!
//! Size: every name the page shows — treemap labels, titles and keys, group keys, examples,
//! printed symbols and templates — is clipped to [`NAME_LIMIT`] characters, its middle replaced
//! by `…` ([`crate::text::clip_middle`]). A raw (mangled) name is written whole exactly once: in the
//! `mangled` cell of its row of the symbols table (the groups table's `mangled` example is
//! clipped too). So a name of any length adds at most its own length plus a bounded number of
//! clipped copies: 200 names of 100 KB make a report of 21 MB, not 209 MB. Names of
//! up to 512 characters are written as they are.

use crate::analysis::page::{Page, View, clip_name};
use crate::analysis::treemap::{Figures, Metric, Node};
use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};
use std::borrow::Cow;
use std::io::{self, Write};

/// The most characters of a name the page writes, but for the one whole copy of each raw name
/// in the symbols table (see the [module documentation](self)).
pub use crate::analysis::page::NAME_LIMIT;

/// `s` clipped to [`NAME_LIMIT`] characters in the middle; borrowed when it fits. The page
/// holds its names clipped already; this keeps the bound for any page.
fn clip(s: &str) -> Cow<'_, str> {
    clip_name(s)
}

/// Treemap size, CSS pixels.
const TREEMAP: (f64, f64) = (1100.0, 560.0);
/// Rectangles drawn at most for the default metric (lookups) and for each other one; the rest
/// are counted in the caption. They keep a 10k-symbol report under 3 MB.
const MAX_RECTS: (usize, usize) = (1600, 800);
/// Narrower or lower rectangles are not drawn (counted).
const MIN_SIDE: f64 = 3.0;
/// Height of a group's label strip.
const HEADER: f64 = 14.0;

/// One rectangle of the treemap.
struct Drawn {
    depth: usize,
    rect: streemap::Rect<f64>,
    node_label: String,
    title: String,
    fill: &'static str,
    key: String,
}

fn size(n: &Node, m: Metric, diff: bool) -> f64 {
    let (o, v) = (n.old.get(m), n.new.get(m));
    // In a diff, a symbol that went away keeps its old area (coloured as removed).
    (if diff { o.max(v) } else { v }) as f64
}

/// The fill of a node: grey in a scan; in a diff by the sign of its change.
fn fill(n: &Node, m: Metric, diff: bool, depth: usize) -> &'static str {
    if !diff {
        return ["#c8d6e5", "#a9bfd6", "#8aa8c7", "#6b91b8"][depth.min(3)];
    }
    let (o, v) = (n.old.get(m), n.new.get(m));
    match v.cmp(&o) {
        std::cmp::Ordering::Greater => ["#f4c7c3", "#eea39b", "#e57f73", "#d95b4c"][depth.min(3)],
        std::cmp::Ordering::Less => ["#c9e8cf", "#a6d8b0", "#82c891", "#5fb872"][depth.min(3)],
        std::cmp::Ordering::Equal => ["#dddddd", "#cccccc", "#bbbbbb", "#aaaaaa"][depth.min(3)],
    }
}

fn change(o: usize, n: usize) -> String {
    let d = n as i64 - o as i64;
    match d {
        0 => "±0".into(),
        d if d > 0 => format!("+{d}"),
        d => format!("−{}", d.unsigned_abs()),
    }
}

struct Layout<'a> {
    metric: Metric,
    diff: bool,
    levels: &'a [&'static str],
    out: Vec<Drawn>,
    hidden: usize,
}

impl Layout<'_> {
    /// Lays out the tree under `root` breadth first, so that the rectangle budget goes to the
    /// upper levels everywhere before it goes to symbols; parents are drawn before children.
    fn run(&mut self, root: &Node, r: streemap::Rect<f64>) {
        let max = if self.metric == Metric::Lookups {
            MAX_RECTS.0
        } else {
            MAX_RECTS.1
        };
        let mut queue = std::collections::VecDeque::from([(root, r, 0usize)]);
        while let Some((n, r, depth)) = queue.pop_front() {
            if n.children.is_empty() {
                continue;
            }
            let header = if r.h > 3.0 * HEADER && depth > 0 {
                HEADER
            } else {
                0.0
            };
            let pad = if depth > 0 { 2.0 } else { 0.0 };
            let inner = streemap::Rect {
                x: r.x + pad,
                y: r.y + pad + header,
                w: (r.w - 2.0 * pad).max(0.0),
                h: (r.h - 2.0 * pad - header).max(0.0),
            };
            let mut kids: Vec<(&Node, streemap::Rect<f64>)> = n
                .children
                .iter()
                .filter(|c| size(c, self.metric, self.diff) > 0.0)
                .map(|c| (c, streemap::Rect::from_size(0.0, 0.0)))
                .collect();
            kids.sort_by(|a, b| {
                size(b.0, self.metric, self.diff)
                    .total_cmp(&size(a.0, self.metric, self.diff))
                    .then_with(|| a.0.label.cmp(&b.0.label))
            });
            if kids.is_empty() || inner.w < MIN_SIDE || inner.h < MIN_SIDE {
                self.hidden += n.leaves();
                continue;
            }
            streemap::squarify(
                inner,
                &mut kids[..],
                |(c, _)| size(c, self.metric, self.diff),
                |(_, rr), nr| *rr = nr,
            );
            for (c, rr) in kids {
                if rr.w < MIN_SIDE || rr.h < MIN_SIDE || self.out.len() >= max {
                    self.hidden += c.leaves();
                    continue;
                }
                let level = self.levels.get(depth).copied().unwrap_or("symbol");
                let (o, v) = (c.old.get(self.metric), c.new.get(self.metric));
                let figures = if self.diff {
                    format!("{o} → {v} ({})", change(o, v))
                } else {
                    v.to_string()
                };
                // The mangled name is in the symbols table: titles stay short (file size), and
                // a long label is clipped as the tables clip it, so the key still finds its row.
                let key = clip(&c.label);
                let title = format!("{level}: {key}\n{}: {figures}", self.metric.as_str());
                let label = if self.diff && o != v {
                    format!("{} {key}", change(o, v))
                } else {
                    key.to_string()
                };
                self.out.push(Drawn {
                    depth,
                    rect: rr,
                    node_label: label,
                    title,
                    fill: fill(c, self.metric, self.diff, depth),
                    key: key.into_owned(),
                });
                // Symbols are drawn for the default metric only (file size); the others stop
                // at the level above.
                if self.metric == Metric::Lookups || depth + 2 < self.levels.len() {
                    queue.push_back((c, rr, depth + 1));
                } else {
                    self.hidden += c.leaves();
                }
            }
        }
    }
}

fn treemap_svg(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    let diff = page.view != View::Scan;
    let (w, h) = TREEMAP;
    writeln!(
        out,
        r#"<svg id="treemap-svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-labelledby="treemap-title treemap-desc"><title id="treemap-title">Treemap of the weak symbols of {}</title><desc id="treemap-desc">Levels: {}. Each rectangle's area is its figure; hover or focus one for its name and figures. The tables below list the same groups and symbols.</desc>"#,
        text(&page.compared.1),
        page.levels.join(" → ")
    )?;
    for (i, metric) in Metric::ALL.into_iter().enumerate() {
        let mut l = Layout {
            metric,
            diff,
            levels: &page.levels,
            out: Vec::new(),
            hidden: 0,
        };
        l.run(
            &page.tree,
            streemap::Rect {
                x: 0.0,
                y: 0.0,
                w,
                h,
            },
        );
        writeln!(
            out,
            r#"<g class="metric" data-metric="{}" data-rects="{}" data-hidden="{}"{}>"#,
            metric.as_str(),
            l.out.len(),
            l.hidden,
            if i == 0 {
                ""
            } else {
                r#" style="display:none""#
            }
        )?;
        for d in &l.out {
            let r = d.rect;
            write!(
                out,
                r#"<rect class="d{}" x="{:.0}" y="{:.0}" width="{:.0}" height="{:.0}" fill="{}" data-key="{}" tabindex="-1"><title>{}</title></rect>"#,
                d.depth,
                r.x,
                r.y,
                r.w.max(1.0),
                r.h.max(1.0),
                d.fill,
                attr(&d.key),
                text(&d.title)
            )?;
            // Labels where they fit (about 6 px per character at 10 px).
            if r.w > 40.0 && r.h > 12.0 {
                let chars = ((r.w - 4.0) / 6.0) as usize;
                let label: String = if d.node_label.chars().count() > chars {
                    let mut s: String =
                        d.node_label.chars().take(chars.saturating_sub(1)).collect();
                    s.push('…');
                    s
                } else {
                    d.node_label.clone()
                };
                writeln!(
                    out,
                    r#"<text x="{:.0}" y="{:.0}" aria-hidden="true">{}</text>"#,
                    r.x + 3.0,
                    r.y + 11.0,
                    text(&label)
                )?;
            } else {
                out.write_all(b"\n")?;
            }
        }
        writeln!(out, "</g>")?;
    }
    writeln!(out, "</svg>")
}

/// The chart of the figures across builds, drawn by plotters into an SVG string.
fn chart_svg(page: &Page) -> Option<String> {
    use plotters::prelude::*;
    let series = page.series.as_ref()?;
    let n = page.builds.len();
    let ymax = series
        .lines
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .copied()
        .max()
        .unwrap_or(1)
        .max(1) as f64
        * 1.12;
    let short: Vec<String> = page.builds.iter().map(|b| short_label(b)).collect();
    let mut svg = String::new();
    let colors = [&BLUE, &RED, &GREEN, &MAGENTA];
    {
        let root = SVGBackend::with_string(&mut svg, (1100, 380)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.3f64..(n as f64 - 0.7), 0f64..ymax)
            .ok()?;
        chart
            .configure_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 0.01 && i >= 0.0 {
                    short.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| format!("{y:.0}"))
            .x_desc("build")
            .y_desc("count")
            .draw()
            .ok()?;
        for (k, (name, values)) in series.lines.iter().enumerate() {
            let color = colors[k % colors.len()];
            let points: Vec<(f64, f64)> = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| (i as f64, v as f64)))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .ok()?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .ok()?;
        }
        if let Some(step) = series.largest_step {
            let x = step as f64 - 0.5;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, 0.0), (x, ymax)],
                    BLACK.stroke_width(2),
                )))
                .ok()?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!(
                        "largest step: {}",
                        short.get(step).cloned().unwrap_or_default()
                    ),
                    (x, ymax * 0.97),
                    ("sans-serif", 14).into_font(),
                )))
                .ok()?;
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .draw()
            .ok()?;
        root.present().ok()?;
    }
    // Accessible: a role and a title for the SVG plotters writes.
    let title = format!(
        "Figures across {n} builds{}",
        series
            .largest_step
            .map(|s| format!("; the largest step is at {}", short_label(&page.builds[s])))
            .unwrap_or_default()
    );
    let svg = svg.replacen(
        "<svg ",
        r#"<svg role="img" aria-labelledby="chart-title" "#,
        1,
    );
    let open_end = svg.find('>')? + 1;
    Some(format!(
        r#"{}<title id="chart-title">{}</title>{}"#,
        &svg[..open_end],
        text(&title),
        &svg[open_end..]
    ))
}

/// A build's label shortened for an axis: its last two path components.
fn short_label(b: &str) -> String {
    let path = b.split(" (").next().unwrap_or(b);
    let parts: Vec<&str> = path.rsplit('/').take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

fn figures_cells(out: &mut dyn Write, o: &Figures, n: &Figures, diff: bool) -> io::Result<()> {
    for (a, b) in [
        (o.lookups, n.lookups),
        (o.sites, n.sites),
        (o.exports, n.exports),
    ] {
        if diff {
            write!(out, "<td>{a}</td><td>{b}</td><td>{}</td>", change(a, b))?;
        } else {
            write!(out, "<td>{b}</td>")?;
        }
    }
    Ok(())
}

fn figures_header(out: &mut dyn Write, diff: bool) -> io::Result<()> {
    for f in ["lookups", "sites", "exports"] {
        if diff {
            for (h, s) in [("old", "old"), ("new", "new"), ("Δ", "change")] {
                write!(
                    out,
                    r#"<th scope="col" aria-sort="none"><button type="button" data-num="1">{f} {h}<span class="sr"> ({s})</span></button></th>"#
                )?;
            }
        } else {
            write!(
                out,
                r#"<th scope="col" aria-sort="none"><button type="button" data-num="1">{f}</button></th>"#
            )?;
        }
    }
    Ok(())
}

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");
const ERRORS: &str = include_str!("html/errors.js");

/// Renders `page` as one self-contained HTML document.
pub fn render(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    let diff = page.view != View::Scan;
    writeln!(
        out,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="weakscan {}">
<title>weakscan report: {}</title>
<script>{ERRORS}</script>
<style>{STYLE}</style></head><body>
<pre id="js-errors" hidden></pre>
<header><h1>weakscan report</h1><p class="inputs">{}</p></header><main>"#,
        env!("CARGO_PKG_VERSION"),
        text(&page.title),
        text(&page.title)
    )?;

    // Totals.
    writeln!(
        out,
        r#"<section id="totals" aria-labelledby="totals-h"><h2 id="totals-h">Totals</h2><table class="totals"><thead><tr><th scope="col">figure</th>"#
    )?;
    for b in &page.builds {
        write!(out, r#"<th scope="col">{}</th>"#, text(&short_label(b)))?;
    }
    if page.builds.len() > 1 {
        write!(out, r#"<th scope="col">change (last two)</th>"#)?;
    }
    writeln!(out, "</tr></thead><tbody>")?;
    for (name, values) in &page.totals {
        write!(out, r#"<tr><th scope="row">{}</th>"#, text(name))?;
        for v in values {
            match v {
                Some(v) => write!(out, "<td>{v}</td>")?,
                None => write!(out, "<td>n/a</td>")?,
            }
        }
        if values.len() > 1 {
            match (values[values.len() - 2], values[values.len() - 1]) {
                (Some(a), Some(b)) => write!(out, "<td>{}</td>", change(a, b))?,
                _ => write!(out, "<td>n/a</td>")?,
            }
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody></table></section>")?;

    // Chart (trend).
    if let Some(svg) = chart_svg(page) {
        writeln!(
            out,
            r#"<section id="chart" aria-labelledby="chart-h"><h2 id="chart-h">Across builds</h2><figure>{svg}<figcaption>Figures per build; the vertical line marks the largest step of the first figure, compared below.</figcaption></figure></section>"#
        )?;
    }

    // Treemap.
    writeln!(
        out,
        r#"<section id="treemap" aria-labelledby="treemap-h"><h2 id="treemap-h">Where the weak symbols come from</h2>
<p>{}{}</p>
<fieldset class="metric-switch"><legend>Area by</legend>"#,
        text(&page.levels.join(" → ")),
        if diff {
            format!(
                ": {} → {}. Red: grew, green: shrank, grey: unchanged (each rectangle's label and title give the change; a removed symbol keeps its old area).",
                text(&short_label(&page.compared.0)),
                text(&short_label(&page.compared.1))
            )
        } else {
            String::new()
        }
    )?;
    for (i, m) in Metric::ALL.iter().enumerate() {
        write!(
            out,
            r#"<label><input type="radio" name="metric" value="{0}"{1}> {0}</label>"#,
            m.as_str(),
            if i == 0 { " checked" } else { "" }
        )?;
    }
    writeln!(out, "</fieldset>")?;
    treemap_svg(out, page)?;
    writeln!(out, r#"<p id="treemap-note"></p></section>"#)?;

    // Groups.
    writeln!(
        out,
        r#"<section id="groups" aria-labelledby="groups-h"><h2 id="groups-h">Groups by template ({})</h2>
<label class="search">Search <input type="search" data-table="groups-table" placeholder="filter rows"></label>
<table id="groups-table" class="sortable"><caption>{} groups{}</caption><thead><tr><th scope="col" aria-sort="none"><button type="button">template</button></th>"#,
        page.groups.len(),
        page.groups.len(),
        if diff {
            ", largest change of lookups first"
        } else {
            ", most lookups first"
        }
    )?;
    figures_header(out, diff)?;
    writeln!(
        out,
        r#"<th scope="col">example</th><th scope="col">mangled</th></tr></thead><tbody>"#
    )?;
    for g in &page.groups {
        write!(out, "<tr><th scope=\"row\">{}</th>", text(&clip(&g.key)))?;
        figures_cells(out, &g.old, &g.new, diff)?;
        writeln!(
            out,
            r#"<td class="t">{}</td><td class="m">{}</td></tr>"#,
            text(&clip(&g.example.0)),
            text(&clip(&g.example.1))
        )?;
    }
    writeln!(out, "</tbody></table></section>")?;

    // Symbols.
    writeln!(
        out,
        r#"<section id="symbols" aria-labelledby="symbols-h"><h2 id="symbols-h">Symbols</h2>
<label class="search">Search <input type="search" data-table="symbols-table" placeholder="filter rows"></label>
<table id="symbols-table" class="sortable"><caption>{} of {} symbols shown{}</caption><thead><tr><th scope="col" aria-sort="none"><button type="button">symbol</button></th><th scope="col" aria-sort="none"><button type="button">template</button></th>"#,
        page.symbols.len(),
        page.symbols_total,
        if diff {
            ", largest change of lookups first"
        } else {
            ", most lookups first"
        }
    )?;
    figures_header(out, diff)?;
    writeln!(out, r#"<th scope="col">mangled</th></tr></thead><tbody>"#)?;
    for s in &page.symbols {
        write!(
            out,
            "<tr><th scope=\"row\">{}</th><td class=\"t\">{}</td>",
            text(&clip(&s.symbol)),
            text(&clip(&s.group))
        )?;
        figures_cells(out, &s.old, &s.new, diff)?;
        // The one whole copy of the raw name.
        writeln!(out, r#"<td class="m">{}</td></tr>"#, text(&s.mangled))?;
    }
    writeln!(out, "</tbody></table></section>")?;

    // Fix hints.
    writeln!(
        out,
        r#"<section id="fix" aria-labelledby="fix-h"><h2 id="fix-h">How to fix</h2><ul>"#
    )?;
    for h in &page.hints {
        writeln!(out, "<li>{}</li>", text(h))?;
    }
    writeln!(
        out,
        r#"</ul></section></main><script>{SCRIPT}</script></body></html>"#
    )
}
