//! `weakscan flags OLD NEW`: two compile databases compared, without binaries.

use super::{emit_report, one_stdin};
use crate::analysis::flags_diff::flags_report;
use crate::error::{Error, ErrorKind, Result};
use crate::origin::compile_db::{CompileCommand, parse_compile_input};
use crate::output::{Format, RenderOptions};
use std::path::{Path, PathBuf};

/// What `weakscan flags` was asked to do.
#[derive(Debug, Clone)]
pub struct FlagsRequest {
    /// The old build's compile database (`compile_commands.json` or a command dump).
    pub old: PathBuf,
    /// The new build's.
    pub new: PathBuf,
    /// Output format.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
}

/// A compile database in either form ([`parse_compile_input`]): its entries and the lines of a
/// command dump that are no compilation (0 for JSON). `-` is stdin.
///
/// Errors: the file cannot be read (`Io`), or is no compile database (`Malformed`, naming it).
pub fn read_compile_input(path: &Path) -> Result<(Vec<CompileCommand>, usize)> {
    let bytes = if path.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut b)
            .map_err(|e| Error::io(path, &e))?;
        b
    } else {
        std::fs::read(path).map_err(|e| Error::io(path, &e))?
    };
    let (commands, stats) =
        parse_compile_input(&bytes).map_err(|e| Error::new(ErrorKind::Malformed, path, e))?;
    Ok((commands, stats.map_or(0, |s| s.other_lines)))
}

/// Runs `weakscan flags`: exit 0 on success.
pub fn run(req: &FlagsRequest, opts: &RenderOptions) -> Result<u8> {
    one_stdin(&[&req.old, &req.new])?;
    let (old, old_other) = read_compile_input(&req.old)?;
    let (new, new_other) = read_compile_input(&req.new)?;
    let mut report = flags_report(
        &old,
        &new,
        crate::text::escape_path(&req.old),
        crate::text::escape_path(&req.new),
    );
    report.old_other_lines = old_other;
    report.new_other_lines = new_other;
    emit_report(req.output.as_ref(), req.format, &report, opts)?;
    Ok(0)
}
