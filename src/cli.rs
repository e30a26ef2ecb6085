//! The command line: `weakscan scan FILE…` and `weakscan diff OLD NEW`.

use crate::analysis::group::GroupBy;
use crate::analysis::report::{diff_report, scan_report};
use crate::error::{Error, ErrorKind, Result};
use crate::macho::{ArchFilter, read_file};
use crate::output;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Find the C++ weak symbols dyld must coalesce at launch, explain where they come from, and
/// diff two builds.
#[derive(Debug, Parser)]
#[command(name = "weakscan", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Weak definitions, weak binds and predicted dyld lookups of Mach-O files, grouped.
    Scan {
        /// Mach-O files (thin or universal).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        opts: CommonOpts,
    },
    /// Compare two builds: totals old → new and each group's change, slices paired by arch.
    Diff {
        /// The old build.
        old: PathBuf,
        /// The new build.
        new: PathBuf,
        /// Also list the weak-bound symbols added and removed.
        #[arg(long)]
        symbols: bool,
        #[command(flatten)]
        opts: CommonOpts,
    },
}

/// Options shared by `scan` and `diff`.
#[derive(Debug, Args)]
pub struct CommonOpts {
    /// Which slices of a universal file to read.
    #[arg(long, value_enum, default_value_t = ArchArg::All)]
    pub arch: ArchArg,
    /// How to group symbols.
    #[arg(long = "by", value_enum, default_value_t = ByArg::Template)]
    pub by: ByArg,
    /// Namespace components kept by `--by namespace`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
    /// Show at most N groups per image (table default 20; JSON default all).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// `--arch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    /// arm64.
    Arm64,
    /// arm64e.
    Arm64e,
    /// x86_64.
    #[value(name = "x86_64")]
    X86_64,
    /// Every slice.
    All,
}

/// `--by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    /// Each symbol on its own.
    Symbol,
    /// Template-argument and parameter lists collapsed.
    Pattern,
    /// The outermost templated entity.
    Template,
    /// The leading namespace components (`--depth`).
    Namespace,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Tables for people.
    Table,
    /// JSON with `schema_version`.
    Json,
}

impl CommonOpts {
    fn filter(&self) -> ArchFilter {
        match self.arch {
            ArchArg::All => ArchFilter::All,
            ArchArg::Arm64 => ArchFilter::Only("arm64".into()),
            ArchArg::Arm64e => ArchFilter::Only("arm64e".into()),
            ArchArg::X86_64 => ArchFilter::Only("x86_64".into()),
        }
    }

    fn group_by(&self) -> GroupBy {
        match self.by {
            ByArg::Symbol => GroupBy::Symbol,
            ByArg::Pattern => GroupBy::Pattern,
            ByArg::Template => GroupBy::Template,
            ByArg::Namespace => GroupBy::Namespace(usize::from(self.depth)),
        }
    }

    fn top(&self) -> Option<usize> {
        match (self.top, self.format) {
            (Some(n), _) => Some(n),
            (None, Format::Table) => Some(20),
            (None, Format::Json) => None,
        }
    }
}

/// Runs a parsed command line and returns what to print on stdout.
pub fn run(cli: &Cli) -> Result<String> {
    match &cli.command {
        Command::Scan { files, opts } => {
            let mut images = Vec::new();
            for f in files {
                images.extend(read_file(f, &opts.filter())?);
            }
            let report = scan_report(&images, opts.group_by(), opts.top());
            Ok(match opts.format {
                Format::Table => output::table::scan(&report),
                Format::Json => output::json::scan(&report),
            })
        }
        Command::Diff {
            old,
            new,
            symbols,
            opts,
        } => {
            // The two files are independent: read them at the same time.
            let filter = opts.filter();
            let (old_images, new_images) = std::thread::scope(|s| {
                let new_images = s.spawn(|| read_file(new, &filter));
                let old_images = read_file(old, &filter);
                let new_images = new_images.join().unwrap_or_else(|_| {
                    Err(Error::new(
                        ErrorKind::Malformed,
                        new,
                        "reader thread panicked",
                    ))
                });
                (old_images, new_images)
            });
            let (old_images, new_images) = (old_images?, new_images?);
            let report = diff_report(
                &old_images,
                &new_images,
                opts.group_by(),
                opts.top(),
                *symbols,
            );
            Ok(match opts.format {
                Format::Table => output::table::diff(&report),
                Format::Json => output::json::diff(&report),
            })
        }
    }
}
