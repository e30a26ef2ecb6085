//! `weakscan diff OLD NEW`: two builds (binaries or logs, in any pair) compared.

use super::{Format, emit, one_stdin};
use crate::analysis::group::GroupBy;
use crate::analysis::report::diff_report_paired;
use crate::error::{Error, ErrorKind, Result};
use crate::input::{ReadOptions, read_input};
use crate::output;
use std::path::PathBuf;

/// What `weakscan diff` was asked to do.
#[derive(Debug, Clone)]
pub struct DiffRequest {
    /// The old build (`-` is stdin).
    pub old: PathBuf,
    /// The new build.
    pub new: PathBuf,
    /// Also list the weak-bound symbols added and removed.
    pub symbols: bool,
    /// How to read them.
    pub read: ReadOptions,
    /// Grouping.
    pub group_by: GroupBy,
    /// Groups shown per pair (`None`: all).
    pub top: Option<usize>,
    /// Output format.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
    /// `--pair-arch OLD=NEW`: compare the OLD slice of the old build with the NEW slice of the
    /// new one (builds that share no arch are an error without it).
    pub pair_arch: Option<(String, String)>,
}

/// Runs `weakscan diff`: exit 0 on success.
pub fn run(req: &DiffRequest) -> Result<u8> {
    one_stdin(&[&req.old, &req.new])?;
    // The two inputs are independent: read them at the same time.
    let (old_images, new_images) = std::thread::scope(|s| {
        let new_images = s.spawn(|| read_input(&req.new, &req.read));
        let old_images = read_input(&req.old, &req.read);
        let new_images = new_images.join().unwrap_or_else(|_| {
            Err(Error::new(
                ErrorKind::Malformed,
                &req.new,
                "reader thread panicked",
            ))
        });
        (old_images, new_images)
    });
    let (old_images, new_images) = (old_images?, new_images?);
    let pair = req
        .pair_arch
        .as_ref()
        .map(|(a, b)| (a.as_str(), b.as_str()));
    let report = diff_report_paired(
        &old_images,
        &new_images,
        req.group_by,
        req.top,
        req.symbols,
        pair,
    )?;
    emit(req.output.as_ref(), |out| match req.format {
        Format::Table => output::table::diff(out, &report),
        Format::Json => output::json::diff(out, &report),
        Format::Markdown => output::markdown::diff(out, &report),
        Format::Github => output::github::diff(out, &report),
    })?;
    if matches!(req.format, Format::Markdown | Format::Github) {
        super::append_step_summary(|w| output::markdown::diff(w, &report));
    }
    Ok(0)
}
