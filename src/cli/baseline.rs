//! `weakscan baseline FILE`.

use super::opts::{OriginOpts, ProcessOpts};
use super::values;
use crate::analysis::group::GroupByName;
use crate::command::baseline::BaselineRequest;
use crate::error::Result;
use crate::macho::ArchFilter;
use clap::Args;
use std::path::PathBuf;

/// `weakscan baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// The Mach-O file; `-` is stdin.
    ///
    /// Thin or universal. A directory or bundle (.app, .framework) records its whole process
    /// (see --process).
    pub file: PathBuf,
    #[command(flatten)]
    pub process: ProcessOpts,
    #[command(flatten)]
    pub origin: OriginOpts,
    /// Write to PATH, not stdout.
    ///
    /// A regular file is replaced atomically (temp file, fsync, rename; a symlink is kept and
    /// its target written); a device or FIFO is written directly; `-` is stdout. The line
    /// saying what was written goes to stderr.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Which slices to record.
    #[arg(long, value_parser = values::arch(), default_value = "all")]
    pub arch: ArchFilter,
    /// How to group the recorded symbols.
    ///
    /// The grouping of the recorded groups (a summary; check groups the symbols again).
    #[arg(long = "by", value_enum, default_value_t = GroupByName::Template)]
    pub by: GroupByName,
    /// Namespace components kept by `--by namespace`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
}

impl BaselineArgs {
    /// The request for [`crate::command::baseline`]. Errors (usage): `--search`/`--sysroot`
    /// without a process.
    pub fn request(&self) -> Result<BaselineRequest> {
        Ok(BaselineRequest {
            process: self.process.load(&[&self.file], &self.arch)?,
            file: self.file.clone(),
            origin: self.origin.files(&[]),
            output: self.output.clone(),
            arch: self.arch.clone(),
            group_by: self.by.with_depth(usize::from(self.depth)),
        })
    }
}
