//! The command line: `weakscan scan FILE…`, `weakscan diff OLD NEW` and
//! `weakscan verify BINARY LOG`.

use crate::analysis::group::GroupBy;
use crate::analysis::report::{diff_report, scan_report};
use crate::analysis::verify::{pick_log_image, verify};
use crate::error::{Error, ErrorKind, Result};
use crate::input::{InputKind, ReadOptions, read_input};
use crate::macho::ArchFilter;
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
    /// Weak definitions, weak binds and dyld lookups of Mach-O files or dyld logs, grouped.
    Scan {
        /// Mach-O files (thin or universal) or DYLD_PRINT_BINDINGS logs.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        opts: CommonOpts,
    },
    /// Compare two builds (binaries or logs, in any pair): totals old → new and each group's
    /// change; slices paired by arch, log images by name.
    Diff {
        /// The old build: a Mach-O file or a dyld log.
        old: PathBuf,
        /// The new build: a Mach-O file or a dyld log.
        new: PathBuf,
        /// Also list the weak-bound symbols added and removed.
        #[arg(long)]
        symbols: bool,
        #[command(flatten)]
        opts: CommonOpts,
    },
    /// Hold a binary's predicted lookups against a DYLD_PRINT_BINDINGS log of it: exit 0 when
    /// they agree, 1 when they differ by more than --tolerance, 2 on bad input.
    Verify {
        /// The Mach-O file (one slice: --arch for a universal file).
        binary: PathBuf,
        /// The dyld log recorded from it.
        log: PathBuf,
        /// Differences (predicted but not seen + seen but not predicted) still accepted.
        #[arg(long, value_name = "N", default_value_t = 0)]
        tolerance: usize,
        /// The image in the log to compare with (default: the binary's file name, else the
        /// log's main executable).
        #[arg(long, value_name = "NAME")]
        image: Option<String>,
        #[command(flatten)]
        opts: CommonOpts,
    },
}

/// What a command prints and its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Standard output.
    pub text: String,
    /// 0 (success, or agreement), 1 (verify: differences beyond the tolerance).
    pub code: u8,
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
    /// Read inputs as this kind instead of detecting it from their first bytes.
    #[arg(long, value_enum, value_name = "KIND")]
    pub input_kind: Option<KindArg>,
    /// The process of a log to read (default: the first PID in it).
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,
}

/// `--input-kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// A Mach-O file.
    Binary,
    /// A DYLD_PRINT_BINDINGS log.
    Log,
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

    fn read_options(&self) -> ReadOptions {
        ReadOptions {
            arch: self.filter(),
            pid: self.pid,
            kind: self.input_kind.map(|k| match k {
                KindArg::Binary => InputKind::Binary,
                KindArg::Log => InputKind::Log,
            }),
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

/// Runs a parsed command line and returns what to print on stdout and the exit code.
pub fn run(cli: &Cli) -> Result<Outcome> {
    let ok = |text| Ok(Outcome { text, code: 0 });
    match &cli.command {
        Command::Scan { files, opts } => {
            let read = opts.read_options();
            let mut images = Vec::new();
            for f in files {
                images.extend(read_input(f, &read)?);
            }
            let report = scan_report(&images, opts.group_by(), opts.top());
            ok(match opts.format {
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
            let read = opts.read_options();
            let (old_images, new_images) = std::thread::scope(|s| {
                let new_images = s.spawn(|| read_input(new, &read));
                let old_images = read_input(old, &read);
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
            )?;
            ok(match opts.format {
                Format::Table => output::table::diff(&report),
                Format::Json => output::json::diff(&report),
            })
        }
        Command::Verify {
            binary,
            log,
            tolerance,
            image,
            opts,
        } => {
            let mut read = opts.read_options();
            read.kind = Some(InputKind::Binary);
            let binaries = read_input(binary, &read)?;
            let [binary_image] = binaries.as_slice() else {
                let arches: Vec<&str> = binaries.iter().map(|i| i.label()).collect();
                return Err(Error::new(
                    ErrorKind::Usage,
                    binary,
                    format!(
                        "{} slices ({}): pick the one the log was recorded from with --arch",
                        binaries.len(),
                        arches.join(", ")
                    ),
                ));
            };
            read.kind = Some(InputKind::Log);
            let log_images = read_input(log, &read)?;
            let mut notes = Vec::new();
            let log_image =
                pick_log_image(binary_image, &log_images, image.as_deref(), &mut notes)?;
            let report = verify(
                binary_image,
                log_image,
                opts.group_by(),
                opts.top(),
                *tolerance,
                notes,
            )?;
            let text = match opts.format {
                Format::Table => output::table::verify(&report),
                Format::Json => output::json::verify(&report),
            };
            Ok(Outcome {
                text,
                code: if report.agrees { 0 } else { 1 },
            })
        }
    }
}
