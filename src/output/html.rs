//! `weakscan report -o report.html`: one self-contained HTML file (no network, no external
//! assets) rendering a [`Page`]: the headline and the fix with the fix plan, the totals, a
//! chart of the figures across builds (SVG drawn by plotters, trend only) with the largest
//! increase and decrease told on their own, a treemap of the weak symbols (SVG, laid out by the
//! streemap crate's squarified algorithm), and sortable and searchable tables of groups and
//! symbols with the object each comes from and their mangled names.
//!
//! ```text
//! <main>
//!   <section id=story>     the headline (<h2 class=headline>, then <p>s), <div id=fix> (the
//!                          `fix:` block, one <p> a line), <table id=fix-plan-table>, the hints
//!   <section id=totals>    table: figure × build (+ change)
//!   <section id=chart>     (trend) plotters SVG, the largest increase and decrease marked
//!   <section id=steps>     (trend) <article id=step-increase|step-decrease>: headline, fix,
//!                          the groups that changed most with their objects
//!   <section id=treemap>   one <svg><g data-metric=lookups|sites|exports> per metric, the
//!                          first shown; <rect class=dN data-key=…><title>…</title></rect>
//!   <section id=groups>    <table> with sort buttons and a search box
//!   <section id=symbols>   <table>, largest first, cut to page::SYMBOLS_LIMIT rows
//! <pre id=js-errors hidden>  errors of the page's own script (the browser test reads it)
//! ```
//!
//! Every table is inside a `<div class=scroll>` that scrolls sideways (the long ones also
//! down, under their sticky header), so a narrow window scrolls a table, never the page. The
//! page uses the window up to 1800 px; a group's example (printed, and mangled below it) has
//! at least 26em and shows 3 and 2 lines until its row is hovered or focused; below 700 px
//! each fix-plan candidate is a card of `figure: value` lines (`data-label`), so its figures
//! are in view. Every build is named by its label ([`Page::builds`]).
//!
//! With scripts off the page is complete: the lookups treemap and every table are there; the
//! script only sorts, filters and switches the treemap's metric. Colour is never the only
//! signal: a rectangle's title and label say the change (`+12`, `−3`), and the legend names
//! the colours.
//!
//! Size: every name the page shows — treemap labels, titles and keys, group keys, examples,
//! printed symbols and templates — is clipped to [`NAME_LIMIT`] characters, its middle replaced
//! by `…` ([`crate::text::clip_middle`]). A raw (mangled) name is written whole exactly once: in the
//! `mangled` cell of its row of the symbols table (the groups table's mangled example, below
//! its printed one, is clipped too). So a name of any length adds at most its own length plus a bounded number of
//! clipped copies: 200 names of 100 KB make a report of 21 MB, not 209 MB. Names of
//! up to 512 characters are written as they are.

mod chart;
mod story;
mod treemap;

use crate::analysis::group::GroupFrom;
use crate::analysis::page::{GroupRow, Page, View, clip_name};
use crate::analysis::treemap::{Figures, Metric};
use html_escape::encode_text as text;
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

/// `+12`, `−3` or `±0`: the change from `o` to `n`.
fn change(o: usize, n: usize) -> String {
    let d = n as i64 - o as i64;
    match d {
        0 => "±0".into(),
        d if d > 0 => format!("+{d}"),
        d => format!("−{}", d.unsigned_abs()),
    }
}

/// A group's key, escaped, and for a group renamed only by a versioned namespace a note naming
/// the old build's key.
fn key_cell(g: &GroupRow) -> String {
    let key = text(&clip(&g.key)).into_owned();
    match &g.renamed_from {
        Some(old) => format!(
            r#"{key}<span class="note">renamed from {} ({})</span>"#,
            text(&clip(old)),
            text(&crate::analysis::diff::renamed(old, &g.key))
        ),
        None => key,
    }
}

/// A group's `from` cell: its object, `and N more` when others contribute; empty when none
/// has an object.
fn from_text(from: Option<&GroupFrom>) -> String {
    match from {
        Some(f) if f.objects > 1 => format!("{} and {} more", clip(&f.object), f.objects - 1),
        Some(f) if f.objects == 1 => clip(&f.object).into_owned(),
        _ => String::new(),
    }
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
    story::story(out, page)?;
    totals(out, page)?;
    if let Some(svg) = chart::svg(page) {
        writeln!(
            out,
            r#"<section id="chart" aria-labelledby="chart-h"><h2 id="chart-h">Across builds</h2><figure>{svg}<figcaption>Figures per build. The red line marks the largest increase of weak-def lookups, the green line the largest decrease; the treemap and the tables below compare the larger of the two steps ({} → {}).</figcaption></figure></section>"#,
            text(&&page.compared.0),
            text(&&page.compared.1)
        )?;
    }
    story::steps(out, page)?;
    treemap(out, page)?;
    groups(out, page)?;
    symbols(out, page)?;
    writeln!(out, r#"</main><script>{SCRIPT}</script></body></html>"#)
}

/// `<section id="totals">`: each figure per build, and the change over the last two.
fn totals(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    write!(
        out,
        r#"<section id="totals" aria-labelledby="totals-h"><h2 id="totals-h">Totals</h2><div class="scroll"><table class="totals figures"><thead><tr><th scope="col">figure</th>"#
    )?;
    for b in &page.builds {
        write!(out, r#"<th scope="col">{}</th>"#, text(&b))?;
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
    writeln!(out, "</tbody></table></div></section>")
}

/// `<section id="treemap">`: the metric switch and the SVG.
fn treemap(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    let colours = if page.view == View::Scan {
        String::new()
    } else {
        format!(
            ": {} → {}. Red: grew, green: shrank, grey: unchanged (each rectangle's label and title give the change; a removed symbol keeps its old area).",
            text(&&page.compared.0),
            text(&&page.compared.1)
        )
    };
    writeln!(
        out,
        r#"<section id="treemap" aria-labelledby="treemap-h"><h2 id="treemap-h">Where the weak symbols come from</h2>
<p>{}{colours} A group whose symbols the treemap has no room for is drawn whole, with their number.</p>
<fieldset class="metric-switch"><legend>Area by</legend>"#,
        text(&page.levels.join(" → ")),
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
    treemap::svg(out, page)?;
    writeln!(out, r#"<p id="treemap-note"></p></section>"#)
}

/// `, largest change of lookups first` or `, most lookups first`.
fn order(page: &Page) -> &'static str {
    if page.view == View::Scan {
        ", most lookups first"
    } else {
        ", largest change of lookups first"
    }
}

/// `<section id="groups">`: every template group, with its object and an example.
fn groups(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    let diff = page.view != View::Scan;
    let from = page.groups.iter().any(|g| g.from.is_some());
    write!(
        out,
        r#"<section id="groups" aria-labelledby="groups-h"><h2 id="groups-h">Groups by template ({})</h2>
<label class="search">Search <input type="search" data-table="groups-table" placeholder="filter rows"></label>
<div class="scroll tall"><table id="groups-table" class="sortable figures"><caption>{}{}</caption><thead><tr>{}"#,
        page.groups.len(),
        crate::text::count(page.groups.len(), "group", "groups"),
        order(page),
        sort_header("template")
    )?;
    if from {
        write!(out, "{}", sort_header("from"))?;
    }
    figures_header(out, diff)?;
    writeln!(
        out,
        r#"<th scope="col">example <span class="sub">(mangled below)</span></th></tr></thead><tbody>"#
    )?;
    for g in &page.groups {
        write!(out, "<tr><th scope=\"row\">{}</th>", key_cell(g))?;
        if from {
            write!(
                out,
                r#"<td class="t">{}</td>"#,
                text(&from_text(g.from.as_ref()))
            )?;
        }
        figures_cells(out, &g.old, &g.new, diff)?;
        writeln!(
            out,
            r#"<td class="ex"><div class="clamp">{}</div><div class="m clamp">{}</div></td></tr>"#,
            text(&clip(&g.example.0)),
            text(&clip(&g.example.1))
        )?;
    }
    writeln!(out, "</tbody></table></div></section>")
}

/// `<section id="symbols">`: the symbols, largest first, each with its object and its whole
/// mangled name.
fn symbols(out: &mut dyn Write, page: &Page) -> io::Result<()> {
    let diff = page.view != View::Scan;
    let from = page.symbols.iter().any(|s| s.from.is_some());
    write!(
        out,
        r#"<section id="symbols" aria-labelledby="symbols-h"><h2 id="symbols-h">Symbols</h2>
<label class="search">Search <input type="search" data-table="symbols-table" placeholder="filter rows"></label>
<div class="scroll tall"><table id="symbols-table" class="sortable figures"><caption>{} of {} shown{}</caption><thead><tr>{}{}"#,
        page.symbols.len(),
        crate::text::count(page.symbols_total, "symbol", "symbols"),
        order(page),
        sort_header("symbol"),
        sort_header("template")
    )?;
    if from {
        write!(out, "{}", sort_header("from"))?;
    }
    figures_header(out, diff)?;
    writeln!(out, r#"<th scope="col">mangled</th></tr></thead><tbody>"#)?;
    for s in &page.symbols {
        write!(
            out,
            "<tr><th scope=\"row\">{}</th><td class=\"t\">{}</td>",
            text(&clip(&s.symbol)),
            text(&clip(&s.group))
        )?;
        if let Some(f) = s.from.as_deref().filter(|_| from) {
            write!(out, r#"<td class="t">{}</td>"#, text(&clip(f)))?;
        }
        figures_cells(out, &s.old, &s.new, diff)?;
        // The one whole copy of the raw name.
        writeln!(
            out,
            r#"<td class="m"><div class="clamp">{}</div></td></tr>"#,
            text(&s.mangled)
        )?;
    }
    writeln!(out, "</tbody></table></div></section>")
}

/// A sortable column's header cell.
fn sort_header(name: &str) -> String {
    format!(r#"<th scope="col" aria-sort="none"><button type="button">{name}</button></th>"#)
}
