//! The chart of a trend: the figures across builds, drawn by plotters into an SVG string, with
//! the largest increase (red) and the largest decrease (green) of the first figure marked.

use crate::analysis::page::{Page, Series};
use html_escape::encode_text as text;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Chart size, CSS pixels.
const SIZE: (u32, u32) = (1100, 380);

/// The chart of `page`'s series (`None` outside a trend, or when plotters fails).
pub(super) fn svg(page: &Page) -> Option<String> {
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
    let short: &[String] = &page.builds;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
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
        let colors = [&BLUE, &MAGENTA, &CYAN, &BLACK];
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
        for (step, color, what, y) in marks(series, short) {
            let x = step as f64 - 0.5;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, 0.0), (x, ymax)],
                    color.stroke_width(2),
                )))
                .ok()?;
            // The label runs away from the chart's nearer edge.
            let anchor = if x > n as f64 / 2.0 - 0.5 {
                HPos::Right
            } else {
                HPos::Left
            };
            let font = ("sans-serif", 14)
                .into_font()
                .color(&color)
                .pos(Pos::new(anchor, VPos::Top));
            chart
                .draw_series(std::iter::once(Text::new(what, (x, ymax * y), font)))
                .ok()?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::MiddleLeft)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .draw()
            .ok()?;
        root.present().ok()?;
    }
    Some(accessible(svg, &title(page, series)))
}

/// The marked steps: the build after each, its colour, its label and the label's height (a
/// fraction of the y axis).
fn marks(series: &Series, short: &[String]) -> Vec<(usize, RGBColor, String, f64)> {
    let label = |what: &str, s: usize| {
        format!(
            " {what}: {} → {} ",
            short.get(s - 1).cloned().unwrap_or_default(),
            short.get(s).cloned().unwrap_or_default()
        )
    };
    let mut out = Vec::new();
    if let Some(s) = series.increase {
        out.push((
            s,
            RGBColor(0xc0, 0x30, 0x20),
            label("largest increase", s),
            0.98,
        ));
    }
    if let Some(s) = series.decrease {
        out.push((
            s,
            RGBColor(0x1a, 0x7f, 0x37),
            label("largest decrease", s),
            0.90,
        ));
    }
    out
}

/// The chart's text alternative.
fn title(page: &Page, series: &Series) -> String {
    let n = page.builds.len();
    let step = |what: &str, s: Option<usize>| {
        s.map(|s| format!("; the largest {what} is at {}", &page.builds[s]))
            .unwrap_or_default()
    };
    format!(
        "Figures across {n} builds{}{}",
        step("increase", series.increase),
        step("decrease", series.decrease)
    )
}

/// `svg` with a role and a title (plotters writes neither).
fn accessible(svg: String, title: &str) -> String {
    let svg = svg.replacen(
        "<svg ",
        r#"<svg role="img" aria-labelledby="chart-title" "#,
        1,
    );
    match svg.find('>') {
        Some(i) => format!(
            r#"{}<title id="chart-title">{}</title>{}"#,
            &svg[..=i],
            text(title),
            &svg[i + 1..]
        ),
        None => svg,
    }
}
