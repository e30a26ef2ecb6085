//! `weakscan report FILE…`.

use super::values;
use crate::command::report::ReportRequest;
use crate::input::ReadOptions;
use crate::macho::ArchFilter;
use clap::Args;
use std::path::PathBuf;

/// `weakscan report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Mach-O files or dyld logs, oldest first; `-` is stdin.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Which slice of a universal file (a report shows one).
    #[arg(long, value_parser = values::arch(), default_value = "all")]
    pub arch: ArchFilter,
    /// The process of a log to read (default: the first PID in it).
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Write here instead of stdout (`-` is stdout).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

impl ReportArgs {
    /// The request for [`crate::command::report`].
    pub fn request(&self) -> ReportRequest {
        ReportRequest {
            files: self.files.clone(),
            read: ReadOptions {
                arch: self.arch.clone(),
                pid: self.pid,
                kind: None,
                other_exports: false,
            },
            output: self.output.clone(),
        }
    }
}
