//! The report's treemap: one SVG, one `<g data-metric=…>` per metric, rectangles laid out by
//! streemap's squarified algorithm, breadth first so that the rectangle budget goes to the
//! upper levels everywhere before it goes to symbols.
//!
//! A parent's children are drawn all or none: when the children of a group would not all fit
//! in what is left of the budget, or those large enough to draw ([`MIN_SIDE`]) would cover
//! less than half of it, none is drawn and the parent stays whole, labelled with the number of
//! symbols it holds (`2158 symbols: see the tables`), so no rectangle is a partial grid on a
//! blank field. Every symbol not drawn is counted in the caption.

use super::{change, clip};
use crate::analysis::page::{Page, View};
use crate::analysis::treemap::{Metric, Node};
use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};
use std::io::{self, Write};

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
    /// Symbols inside that the budget left undrawn (the rectangle is drawn whole).
    whole: usize,
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

/// A node waiting to be laid out: its rectangle, depth, and its entry in `Layout::out`
/// (`None` for the root).
type Queued<'n> = (&'n Node, streemap::Rect<f64>, usize, Option<usize>);

struct Layout<'a> {
    metric: Metric,
    diff: bool,
    levels: &'a [&'static str],
    out: Vec<Drawn>,
    hidden: usize,
}

impl Layout<'_> {
    fn max(&self) -> usize {
        if self.metric == Metric::Lookups {
            MAX_RECTS.0
        } else {
            MAX_RECTS.1
        }
    }

    /// Lays out the tree under `root`, breadth first; parents are drawn before children.
    fn run(&mut self, root: &Node, r: streemap::Rect<f64>) {
        let mut queue = std::collections::VecDeque::from([(root, r, 0usize, None)]);
        while let Some(item) = queue.pop_front() {
            let kids = self.children(item);
            let (n, _, depth, parent) = item;
            if let Some(p) = parent.filter(|_| !self.all_fit(&kids)) {
                // Not all of them can be drawn: none is, and the parent stays whole.
                self.whole(p, n.leaves());
                continue;
            }
            if kids.is_empty() {
                self.hidden += n.leaves();
            }
            for (c, rr) in kids {
                if !fits(&rr) || self.out.len() >= self.max() {
                    self.hidden += c.leaves();
                    continue;
                }
                let at = self.out.len();
                self.out.push(self.drawn(c, rr, depth));
                if c.children.is_empty() {
                    continue;
                }
                // Symbols are drawn for the default metric only (file size); the others stop
                // at the level above.
                if self.metric == Metric::Lookups || depth + 2 < self.levels.len() {
                    queue.push_back((c, rr, depth + 1, Some(at)));
                } else {
                    self.hidden += c.leaves();
                }
            }
        }
    }

    /// Whether a parent's children can be drawn: some are, the budget has room for every one
    /// large enough to draw, and those cover at least half of the parent's inner area (the
    /// rest, too small to draw, would leave a blank field).
    fn all_fit(&self, kids: &[(&Node, streemap::Rect<f64>)]) -> bool {
        let area = |r: &streemap::Rect<f64>| r.w * r.h;
        let drawn: Vec<&streemap::Rect<f64>> =
            kids.iter().map(|(_, r)| r).filter(|r| fits(r)).collect();
        let inner: f64 = kids.iter().map(|(_, r)| area(r)).sum();
        !drawn.is_empty()
            && self.out.len() + drawn.len() <= self.max()
            && drawn.iter().map(|r| area(r)).sum::<f64>() * 2.0 >= inner
    }

    /// The children of a queued node with their rectangles, largest first (none when its
    /// inner area is too small).
    fn children<'n>(&self, (n, r, depth, _): Queued<'n>) -> Vec<(&'n Node, streemap::Rect<f64>)> {
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
        let (m, diff) = (self.metric, self.diff);
        let mut kids: Vec<(&Node, streemap::Rect<f64>)> = n
            .children
            .iter()
            .filter(|c| size(c, m, diff) > 0.0)
            .map(|c| (c, streemap::Rect::from_size(0.0, 0.0)))
            .collect();
        kids.sort_by(|a, b| {
            size(b.0, m, diff)
                .total_cmp(&size(a.0, m, diff))
                .then_with(|| a.0.label.cmp(&b.0.label))
        });
        if kids.is_empty() || inner.w < MIN_SIDE || inner.h < MIN_SIDE {
            return Vec::new();
        }
        streemap::squarify(
            inner,
            &mut kids[..],
            |(c, _)| size(c, m, diff),
            |(_, rr), nr| *rr = nr,
        );
        kids
    }

    /// Marks drawn rectangle `at` whole: its `leaves` symbols are not drawn.
    fn whole(&mut self, at: usize, leaves: usize) {
        self.hidden += leaves;
        let max = self.max();
        let d = &mut self.out[at];
        d.whole = leaves;
        d.title.push_str(&format!(
            "\n{leaves} symbols, not drawn (the treemap's limit of {max} rectangles): in the tables"
        ));
    }

    fn drawn(&self, c: &Node, rect: streemap::Rect<f64>, depth: usize) -> Drawn {
        let level = self.levels.get(depth).copied().unwrap_or("symbol");
        let (o, v) = (c.old.get(self.metric), c.new.get(self.metric));
        let figures = if self.diff {
            format!("{o} → {v} ({})", change(o, v))
        } else {
            v.to_string()
        };
        // The mangled name is in the symbols table: titles stay short (file size), and a long
        // label is clipped as the tables clip it, so the key still finds its row.
        let key = clip(&c.label);
        let title = format!("{level}: {key}\n{}: {figures}", self.metric.as_str());
        let label = if self.diff && o != v {
            format!("{} {key}", change(o, v))
        } else {
            key.to_string()
        };
        Drawn {
            depth,
            rect,
            node_label: label,
            title,
            fill: fill(c, self.metric, self.diff, depth),
            key: key.into_owned(),
            whole: 0,
        }
    }
}

fn fits(r: &streemap::Rect<f64>) -> bool {
    r.w >= MIN_SIDE && r.h >= MIN_SIDE
}

/// Writes the treemap SVG of `page`.
pub(super) fn svg(out: &mut dyn Write, page: &Page) -> io::Result<()> {
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
            rect(out, d)?;
        }
        writeln!(out, "</g>")?;
    }
    writeln!(out, "</svg>")
}

/// One rectangle with its title, and its label where it fits (about 6 px per character at
/// 10 px); a whole parent says how many symbols it holds on a second line.
fn rect(out: &mut dyn Write, d: &Drawn) -> io::Result<()> {
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
    if r.w <= 40.0 || r.h <= 12.0 {
        return out.write_all(b"\n");
    }
    let chars = ((r.w - 4.0) / 6.0) as usize;
    let fit = |s: &str| -> String {
        if s.chars().count() > chars {
            let mut s: String = s.chars().take(chars.saturating_sub(1)).collect();
            s.push('…');
            s
        } else {
            s.to_string()
        }
    };
    write!(
        out,
        r#"<text x="{:.0}" y="{:.0}" aria-hidden="true">{}</text>"#,
        r.x + 3.0,
        r.y + 11.0,
        text(&fit(&d.node_label))
    )?;
    if d.whole > 0 && r.h > 28.0 {
        write!(
            out,
            r#"<text class="whole" x="{:.0}" y="{:.0}" aria-hidden="true">{}</text>"#,
            r.x + 3.0,
            r.y + 25.0,
            text(&fit(&format!("{} symbols: see the tables", d.whole)))
        )?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::treemap::Figures;

    fn leaf(i: usize, lookups: usize) -> Node {
        Node {
            label: format!("s{i:05}"),
            mangled: Some(format!("_s{i:05}")),
            new: Figures {
                lookups,
                sites: lookups,
                exports: 1,
            },
            ..Node::default()
        }
    }

    fn parent(label: &str, children: Vec<Node>) -> Node {
        let mut new = Figures::default();
        for c in &children {
            new.lookups += c.new.lookups;
            new.sites += c.new.sites;
            new.exports += c.new.exports;
        }
        Node {
            label: label.into(),
            new,
            children,
            ..Node::default()
        }
    }

    const LEVELS: &[&str] = &["namespace", "template", "symbol"];

    fn layout(root: &Node) -> Layout<'static> {
        let mut l = Layout {
            metric: Metric::Lookups,
            diff: false,
            levels: LEVELS,
            out: Vec::new(),
            hidden: 0,
        };
        let (w, h) = TREEMAP;
        l.run(
            root,
            streemap::Rect {
                x: 0.0,
                y: 0.0,
                w,
                h,
            },
        );
        l
    }

    #[test]
    fn a_group_the_budget_cannot_draw_is_whole_and_labelled() {
        // One template of 2158 symbols beside a small one: the big one's symbols exceed the
        // budget, so it is drawn whole with their number; the small one's are drawn.
        let big = parent("ns::Big<…>", (0..2158).map(|i| leaf(i, 1)).collect());
        let small = parent(
            "ns::Small<…>",
            (0..20).map(|i| leaf(10_000 + i, 30)).collect(),
        );
        let root = parent("root", vec![parent("ns", vec![big, small])]);
        let l = layout(&root);
        let big = l.out.iter().find(|d| d.key == "ns::Big<…>").unwrap();
        assert_eq!(big.whole, 2158);
        assert!(
            big.title.contains("2158 symbols, not drawn"),
            "{}",
            big.title
        );
        let symbols = l.out.iter().filter(|d| d.depth == 2).count();
        assert_eq!(symbols, 20, "only the small group's symbols are drawn");
        assert_eq!(l.hidden, 2158);
        assert_eq!(l.out.len(), 1 + 2 + 20);
    }

    #[test]
    fn children_too_small_to_cover_their_parent_are_not_drawn() {
        // One large symbol and 40,000 tiny ones: drawn, the large one would sit on a blank
        // field of tiny ones; the group is drawn whole instead.
        let mut kids = vec![leaf(0, 1000)];
        kids.extend((1..40_000).map(|i| leaf(i, 1)));
        let root = parent("root", vec![parent("ns", vec![parent("ns::T<…>", kids)])]);
        let l = layout(&root);
        let t = l.out.iter().find(|d| d.key == "ns::T<…>").unwrap();
        assert_eq!(t.whole, 40_000);
        assert!(l.out.iter().all(|d| d.depth < 2));
    }

    #[test]
    fn a_group_with_room_draws_every_child() {
        let root = parent(
            "root",
            vec![parent(
                "ns",
                vec![parent(
                    "ns::T<…>",
                    (0..50).map(|i| leaf(i, 1 + i % 3)).collect(),
                )],
            )],
        );
        let l = layout(&root);
        assert_eq!(l.out.len(), 52);
        assert_eq!(l.hidden, 0);
        assert!(l.out.iter().all(|d| d.whole == 0));
    }
}
