//! `weakscan report -o report.html FILE…`: one self-contained HTML report. One input: a scan
//! view; two: a diff view (old → new); more: a trend view (the figures across the builds, in
//! the order given) with the diff at the largest step (the largest change of weak-def lookups
//! between consecutive builds).

use super::emit;
use crate::analysis::demangle::demangle_all;
use crate::analysis::page::{Series, compare, totals_of};
use crate::error::{Error, ErrorKind, Result};
use crate::input::{ReadOptions, read_input};
use crate::model::Image;
use crate::output::{self, RenderOptions};
use std::path::{Path, PathBuf};

/// What `weakscan report` was asked to do.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    /// The builds, oldest first.
    pub files: Vec<PathBuf>,
    /// How to read them (`--arch`, `--pid`, `--input-kind`).
    pub read: ReadOptions,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
}

/// The one image of an input: errors when a universal file gives several slices (`--arch`).
fn one_image(path: &Path, read: &ReadOptions) -> Result<Image> {
    let mut images = read_input(path, read)?;
    match images.len() {
        0 => Err(Error::new(
            ErrorKind::Malformed,
            path,
            "no image in the input",
        )),
        1 => Ok(images.remove(0)),
        // A log's first image is its main executable.
        _ if images[0].is_log() => Ok(images.remove(0)),
        n => Err(Error::new(
            ErrorKind::Usage,
            path,
            format!(
                "{n} slices ({}): a report shows one, pick it with --arch",
                images
                    .iter()
                    .map(Image::label)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The build after the largest step of `lookups` (one value per build; a step where either
/// side lacks the figure counts as no change), by [`crate::analysis::trend::largest_step`].
pub fn largest_step(lookups: &[Option<usize>]) -> Option<usize> {
    let magnitudes: Vec<u64> = lookups
        .windows(2)
        .map(|w| match (w[0], w[1]) {
            (Some(a), Some(b)) => a.abs_diff(b) as u64,
            _ => 0,
        })
        .collect();
    crate::analysis::trend::largest_step(&magnitudes).map(|s| s + 1)
}

/// Runs `weakscan report`: exit 0. Errors (exit 2): an unreadable or malformed input, a
/// universal file without `--arch`, the output cannot be written. Of `opts`, the page reads how
/// names are shown (it fits no table to a width).
pub fn run(req: &ReportRequest, opts: &RenderOptions) -> Result<u8> {
    super::one_stdin(&req.files.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    // The builds are independent: read at the same time, on the pool (a pool worker that
    // waited here for a thread of its own would wait for itself when the pool has one thread).
    let images = crate::pool::map(&req.files, |f| one_image(f, &req.read))
        .into_iter()
        .collect::<Result<Vec<Image>>>()?;
    let lookups: Vec<Option<usize>> = images.iter().map(Image::weak_lookups).collect();
    let (old, new, step) = match images.len() {
        1 => (None, &images[0], None),
        2 => (Some(&images[0]), &images[1], None),
        n => {
            let step = largest_step(&lookups).unwrap_or(n - 1);
            (Some(&images[step - 1]), &images[step], Some(step))
        }
    };
    let names = demangle_all(
        old.into_iter().chain([new]).flat_map(Image::symbol_names),
        opts.names,
    )?;
    let mut page = compare(old, new, &names);
    if images.len() > 2 {
        page.view = crate::analysis::page::View::Trend;
        page.builds = images.iter().map(build_label).collect();
        page.title = format!(
            "{} builds, {} → {}",
            images.len(),
            build_label(&images[0]),
            build_label(&images[images.len() - 1])
        );
        page.totals = (0..totals_of(new).len())
            .map(|k| {
                (
                    totals_of(new)[k].0.to_string(),
                    images.iter().map(|i| totals_of(i)[k].1).collect(),
                )
            })
            .collect();
        page.series = Some(Series {
            lines: page
                .totals
                .iter()
                .filter(|(name, _)| name != "weak-bind sites")
                .cloned()
                .collect(),
            largest_step: step,
        });
    }
    emit(req.output.as_ref(), |out| output::html::render(out, &page))?;
    Ok(0)
}

fn build_label(i: &Image) -> String {
    match &i.arch {
        Some(a) => format!("{} ({a})", i.path),
        None => format!("{} ({})", i.path, i.name),
    }
}

#[cfg(test)]
mod tests {
    use super::largest_step;

    #[test]
    fn largest_step_is_the_biggest_change_first_on_ties() {
        assert_eq!(
            largest_step(&[Some(10), Some(12), Some(40), Some(41)]),
            Some(2)
        );
        assert_eq!(largest_step(&[Some(10), Some(20), Some(10)]), Some(1));
        assert_eq!(largest_step(&[Some(10), None, Some(50), Some(52)]), Some(3));
        assert_eq!(largest_step(&[Some(1)]), None);
        // Nothing changed: no step is the largest (the report then compares the last two).
        assert_eq!(largest_step(&[Some(5), Some(5), Some(5)]), None);
    }
}
