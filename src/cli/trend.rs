//! `weakscan trend FILE…`.

use super::opts::ProcessOpts;
use super::values;
use crate::analysis::group::GroupByName;
use crate::analysis::trend::Sort;
use crate::command::trend::TrendRequest;
use crate::error::Result;
use crate::input::{FileKind, ReadOptions};
use crate::macho::ArchFilter;
use crate::output::Format;
use clap::Args;
use std::path::PathBuf;

/// `weakscan trend`.
#[derive(Debug, Args)]
pub struct TrendArgs {
    /// The builds, oldest first (see --sort).
    ///
    /// Mach-O files (thin or universal), dyld logs, or whole processes (directories, bundles,
    /// --process); `-` is stdin, once.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The order of the builds.
    ///
    /// As given, or by the version in each path (the first N.N[.N…] below the directories
    /// they share, e.g. .cache/node/22.12.0/node → 22.12.0; equal versions keep the given
    /// order).
    #[arg(long, value_enum, default_value_t = Sort::Input)]
    pub sort: Sort,
    /// Name the builds in every output: once per build, in the order the builds are given.
    ///
    /// E.g. --label v1 --label v2 --label v3 (with --sort version each label stays with its
    /// build). Default: their versions when every path has its own, else the shortest path
    /// suffix that tells them apart.
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,
    #[command(flatten)]
    pub process: ProcessOpts,
    /// Which slice of universal files to follow.
    ///
    /// Default: each arch every build has.
    #[arg(long, value_parser = values::arch(), default_value = "all")]
    pub arch: ArchFilter,
    /// How the groups of each flagged step are grouped.
    #[arg(long = "by", value_enum, default_value_t = GroupByName::Template)]
    pub by: GroupByName,
    /// Namespace components kept by `--by namespace`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
    /// Groups (and libraries) listed per flagged step.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,
    /// Output format.
    ///
    /// markdown is also appended to $GITHUB_STEP_SUMMARY when it is set.
    #[arg(long, value_parser = values::trend_format(), default_value = "table")]
    pub format: Format,
    /// Read inputs as KIND, not as detected.
    ///
    /// The kind is otherwise detected from each input's first bytes.
    #[arg(long, value_enum, value_name = "KIND")]
    pub input_kind: Option<FileKind>,
    /// The process of each log to read.
    ///
    /// Default: the first PID in it.
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Write the report to PATH, not stdout.
    ///
    /// `-` is stdout; how a file is written: see --help of baseline -o.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

impl TrendArgs {
    /// The request for [`crate::command::trend`]. Errors (usage): `--search`/`--sysroot`
    /// without a process.
    pub fn request(&self) -> Result<TrendRequest> {
        Ok(TrendRequest {
            process: self
                .process
                .load(&self.files.iter().collect::<Vec<_>>(), &self.arch)?,
            files: self.files.clone(),
            sort: self.sort,
            labels: self.labels.clone(),
            read: ReadOptions {
                arch: self.arch.clone(),
                pid: self.pid,
                kind: self.input_kind,
                other_exports: false,
            },
            group_by: self.by.with_depth(usize::from(self.depth)),
            top: self.top,
            format: self.format,
            output: self.output.clone(),
        })
    }
}
