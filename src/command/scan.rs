//! `weakscan scan FILE…`: weak definitions, weak binds and lookups of binaries or logs, grouped.

use super::{Format, emit, one_stdin};
use crate::analysis::group::GroupBy;
use crate::analysis::report::scan_report;
use crate::error::Result;
use crate::input::{ReadOptions, read_input};
use crate::output;
use std::path::PathBuf;

/// What `weakscan scan` was asked to do.
#[derive(Debug, Clone)]
pub struct ScanRequest {
    /// Inputs (`-` is stdin).
    pub files: Vec<PathBuf>,
    /// How to read them.
    pub read: ReadOptions,
    /// Grouping.
    pub group_by: GroupBy,
    /// Groups shown per image (`None`: all).
    pub top: Option<usize>,
    /// Output format.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
}

/// Runs `weakscan scan`: always exit 0 on success.
pub fn run(req: &ScanRequest) -> Result<u8> {
    one_stdin(&req.files.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    let mut images = Vec::new();
    for f in &req.files {
        images.extend(read_input(f, &req.read)?);
    }
    let report = scan_report(&images, req.group_by, req.top)?;
    emit(req.output.as_ref(), |out| match req.format {
        Format::Table => output::table::scan(out, &report),
        Format::Json => output::json::scan(out, &report),
    })?;
    Ok(0)
}
