//! `weakscan report FILE…`.

use super::opts::{ObjectsOpts, ProcessOpts};
use super::values;
use crate::command::report::ReportRequest;
use crate::input::ReadOptions;
use crate::macho::ArchFilter;
use clap::Args;
use std::path::PathBuf;

/// `weakscan report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Mach-O files, dyld logs or whole processes (directories, bundles, --process), oldest
    /// first; `-` is stdin.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub process: ProcessOpts,
    /// Where the newest build's objects are (its fix plan's definers; as scan's --objects).
    #[command(flatten)]
    pub objects: ObjectsOpts,
    /// Which slice of a universal file (a report shows one).
    #[arg(long, value_parser = values::arch(), default_value = "all")]
    pub arch: ArchFilter,
    /// The process of a log to read (default: the first PID in it).
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Write the HTML here (`-` is stdout; without -o, stdout must not be a terminal).
    #[arg(short, long, value_name = "FILE.html")]
    pub output: Option<PathBuf>,
    /// Name the builds on the page: once per build, in the order the builds are given.
    ///
    /// E.g. --label main --label pr-123. Default: their versions when every path has its own,
    /// else the shortest path suffix that tells them apart (old/out/Release/node).
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,
}

impl ReportArgs {
    /// The request for [`crate::command::report`]; `--search`/`--sysroot` without a process is
    /// its `process` error, reported when it runs.
    pub fn request(&self) -> ReportRequest {
        ReportRequest {
            files: self.files.clone(),
            read: ReadOptions {
                arch: self.arch.clone(),
                pid: self.pid,
                kind: None,
                // The report's fix is scan's, which counts the exports a change would hide.
                other_exports: true,
            },
            output: self.output.clone(),
            objects: self.objects.objects.clone(),
            labels: self.labels.clone(),
            process: self
                .process
                .load(&self.files.iter().collect::<Vec<_>>(), &self.arch),
        }
    }
}
