//! The command line: `weakscan scan FILE…`, `weakscan diff OLD NEW`,
//! `weakscan verify BINARY LOG`, `weakscan check FILE…`, `weakscan baseline FILE` and
//! `weakscan trend FILE…`.
//!
//! This module only parses: [`Cli::request`] turns the arguments into a
//! [`crate::command::Request`], which [`crate::command::run`] carries out.

use crate::analysis::check::Figure;
use crate::analysis::group::{GroupBy, GroupByName};
use crate::analysis::trend::Sort;
use crate::command::baseline::BaselineRequest;
use crate::command::check::{CheckFormat, CheckRequest};
use crate::command::diff::DiffRequest;
use crate::command::scan::ScanRequest;
use crate::command::trend::TrendRequest;
use crate::command::verify::VerifyRequest;
use crate::command::{self, Request};
use crate::error::{Error, Result};
use crate::gate::pattern::Pattern;
use crate::gate::policy::{Flags, GroupBudget, Increase, RuleSet};
use crate::input::{FileKind, ReadOptions};
use crate::macho::ArchFilter;
use crate::origin::attach::OriginFiles;
use crate::process::load::LoadOptions;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Find the C++ weak symbols dyld must coalesce at launch, explain where they come from, and
/// diff two builds.
/// `--version`: the version and which code prints C++ names (see `build.rs`).
#[cfg(weakscan_libcxxabi)]
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\nnames printed by: libc++abi __cxa_demangle, exactly as c++filt on macOS (llvm-cxxfilt) prints them"
);
/// `--version`: the version and which code prints C++ names (see `build.rs`).
#[cfg(not(weakscan_libcxxabi))]
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\nnames printed by: cpp_demangle (built without libc++abi: some names differ from c++filt; see docs/names.md)"
);

#[derive(Debug, Parser)]
#[command(name = "weakscan", version, long_version = LONG_VERSION, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print every symbol name raw (`__ZN2v8…`, as in the binary and dyld's log) instead of
    /// demangled; groups are still formed from the demangled names.
    #[arg(long, global = true)]
    pub no_demangle: bool,
    /// Fit tables to N columns, wrapping long cells (default: the terminal's width when the
    /// report goes to a terminal, else full width).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(40..))]
    pub width: Option<u16>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Weak definitions, weak binds and dyld lookups of Mach-O files or dyld logs, grouped.
    Scan {
        /// Mach-O files (thin or universal) or DYLD_PRINT_BINDINGS logs; `-` is stdin. A
        /// directory or bundle (.app, .framework) is read as a whole process (see --process).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        process: ProcessOpts,
        /// clang's compile_commands.json of the build: name the compile command of each object
        /// the weak symbols come from, and whether it compiles with -fvisibility=hidden.
        #[arg(long, value_name = "FILE")]
        compile_commands: Option<PathBuf>,
        #[command(flatten)]
        origin: OriginOpts,
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
        /// Compare the OLD-arch slice of the old build with the NEW-arch slice of the new one
        /// (e.g. x86_64=arm64); without it, builds that share no arch are an error (exit 2).
        #[arg(long, value_name = "OLD=NEW", value_parser = parse_pair_arch)]
        pair_arch: Option<(String, String)>,
        #[command(flatten)]
        process: ProcessOpts,
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
        process: ProcessOpts,
        #[command(flatten)]
        opts: CommonOpts,
    },
    /// The pre-release gate: check budgets from flags and weakscan.toml; exit 0 pass, 1 a
    /// budget exceeded, 2 usage, policy or input error.
    Check(CheckArgs),
    /// Follow the figures through a series of builds (binaries, logs or whole processes), in
    /// the order given or by the version in their paths: each build's figures and change, the
    /// largest steps flagged with the groups and libraries that moved most.
    Trend(TrendArgs),
    /// Write a baseline for `check --baseline`: the figures and every symbol by raw name, one
    /// line each, byte-identical across runs.
    Baseline(BaselineArgs),
    /// One self-contained HTML report: one build (scan), two (diff), more (trend and the diff
    /// at the largest step), with a treemap, a chart, sortable tables and the fix.
    Report {
        /// Mach-O files or dyld logs, oldest first; `-` is stdin.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Which slice of a universal file (a report shows one).
        #[arg(long, value_enum, default_value_t = ArchArg::All)]
        arch: ArchArg,
        /// The process of a log to read (default: the first PID in it).
        #[arg(long, value_name = "PID")]
        pid: Option<u32>,
        /// Write here instead of stdout (`-` is stdout).
        #[arg(short, long, value_name = "PATH")]
        output: Option<PathBuf>,
    },
    /// Print a completion script for SHELL (e.g. `weakscan completions bash >
    /// ~/.local/share/bash-completion/completions/weakscan`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
        /// Write here instead of stdout.
        #[arg(short, long, value_name = "PATH")]
        output: Option<PathBuf>,
    },
    /// Print the man page, weakscan(1) and one page per subcommand, in roff (e.g. `weakscan
    /// man > weakscan.1 && man ./weakscan.1`).
    Man {
        /// Write here instead of stdout.
        #[arg(short, long, value_name = "PATH")]
        output: Option<PathBuf>,
    },
    /// Print the JSON Schema (draft 2020-12) of a `--format json` document or of a baseline
    /// file (also in docs/schemas/).
    Schema {
        /// The document.
        #[arg(value_enum)]
        document: crate::schema::Document,
        /// Write here instead of stdout.
        #[arg(short, long, value_name = "PATH")]
        output: Option<PathBuf>,
    },
}

/// `weakscan check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Mach-O files (thin or universal); each slice is checked on its own; `-` is stdin.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub origin: OriginOpts,
    /// Write the report here instead of stdout (`-` is stdout; see --help of baseline -o).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Policy file (default: weakscan.toml in the working directory, if there is one).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Ignore weakscan.toml in the working directory.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
    /// Baseline file written by `weakscan baseline` (overrides the policy's).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Maximum increase over the baseline of each gated figure: a count (50) or a percentage
    /// (10%); repeat to require both (default with a baseline: 0).
    #[arg(long, value_name = "N|P%", value_parser = parse_increase)]
    pub max_increase: Vec<Increase>,
    /// Maximum predicted weak-def lookups (after the allowlist).
    #[arg(long, value_name = "N")]
    pub max_predicted_weak_lookups: Option<u64>,
    /// Maximum weak-def exports (after the allowlist).
    #[arg(long, value_name = "N")]
    pub max_weak_def_exports: Option<u64>,
    /// Maximum weak-bound symbols (after the allowlist).
    #[arg(long, value_name = "N")]
    pub max_weak_bind_symbols: Option<u64>,
    /// Maximum export-trie probes of a whole process's lookups (a bundle, directory or
    /// --process input; docs/process.md).
    #[arg(long, value_name = "N")]
    pub max_trie_probes: Option<u64>,
    #[command(flatten)]
    pub process: ProcessOpts,
    /// Group budget: the groups whose key matches PATTERN (a glob, or re:REGEX) have at most MAX
    /// of the group figure in total; repeatable.
    #[arg(long = "group", value_name = "PATTERN=MAX", value_parser = parse_group)]
    pub groups: Vec<(String, u64)>,
    /// A symbol that may be weak: glob or re:REGEX over the raw or demangled name; repeatable.
    #[arg(long = "allow", value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// A group that may be weak: glob or re:REGEX over the group key; repeatable.
    #[arg(long = "allow-group", value_name = "PATTERN")]
    pub allow_groups: Vec<String>,
    /// Which slices of a universal file to check.
    #[arg(long, value_enum, default_value_t = ArchArg::All)]
    pub arch: ArchArg,
    /// How group budgets, allowed groups and offending groups group symbols (default: the
    /// policy's, else template).
    #[arg(long = "by", value_enum)]
    pub by: Option<GroupByName>,
    /// Namespace components kept by namespace grouping (default 2).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: Option<u16>,
    /// The figure group budgets limit (default: the policy's, else weak_bind_symbols).
    #[arg(long, value_enum)]
    pub group_figure: Option<Figure>,
    /// Offending groups shown per failing image.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,
    /// Output format (markdown and github also append the Markdown report to
    /// $GITHUB_STEP_SUMMARY when it is set).
    #[arg(long, value_enum, default_value_t = CheckFormatArg::Table)]
    pub format: CheckFormatArg,
}

/// `weakscan baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// The Mach-O file (thin or universal); `-` is stdin. A directory or bundle (.app,
    /// .framework) records its whole process (see --process).
    pub file: PathBuf,
    #[command(flatten)]
    pub process: ProcessOpts,
    #[command(flatten)]
    pub origin: OriginOpts,
    /// Write here instead of stdout: a regular file is replaced atomically (temp file, fsync,
    /// rename; a symlink is kept and its target written); a device or FIFO is written
    /// directly; `-` is stdout.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Which slices to record.
    #[arg(long, value_enum, default_value_t = ArchArg::All)]
    pub arch: ArchArg,
    /// The grouping of the recorded groups (a summary; check groups the symbols again).
    #[arg(long = "by", value_enum, default_value_t = GroupByName::Template)]
    pub by: GroupByName,
    /// Namespace components kept by `--by namespace`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
}

/// `weakscan trend`.
#[derive(Debug, Args)]
pub struct TrendArgs {
    /// The builds, oldest first (see --sort): Mach-O files (thin or universal), dyld logs, or
    /// whole processes (directories, bundles, --process); `-` is stdin, once.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The order of the builds: as given, or by the version in each path (the first N.N[.N…]
    /// below the directories they share, e.g. .cache/node/22.12.0/node → 22.12.0; equal
    /// versions keep the given order).
    #[arg(long, value_enum, default_value_t = Sort::Input)]
    pub sort: Sort,
    #[command(flatten)]
    pub process: ProcessOpts,
    /// Which slice of universal files to follow (default: each arch every build has).
    #[arg(long, value_enum, default_value_t = ArchArg::All)]
    pub arch: ArchArg,
    /// How the groups of each flagged step are grouped.
    #[arg(long = "by", value_enum, default_value_t = GroupByName::Template)]
    pub by: GroupByName,
    /// Namespace components kept by `--by namespace`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
    /// Groups (and libraries) listed per flagged step.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,
    /// Output format (markdown is also appended to $GITHUB_STEP_SUMMARY when it is set).
    #[arg(long, value_enum, default_value_t = TrendFormatArg::Table)]
    pub format: TrendFormatArg,
    /// Read inputs as this kind instead of detecting it from their first bytes.
    #[arg(long, value_enum, value_name = "KIND")]
    pub input_kind: Option<FileKind>,
    /// The process of each log to read (default: the first PID in it).
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Write the report here instead of stdout (`-` is stdout; see --help of baseline -o).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// `trend --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TrendFormatArg {
    /// Tables for people.
    Table,
    /// JSON with `schema_version`.
    Json,
    /// Markdown (PR comment, job summary).
    Markdown,
}

impl TrendArgs {
    /// The request for [`crate::command::trend`]. Errors (usage): `--search`/`--sysroot`
    /// without a process.
    pub fn request(&self) -> Result<TrendRequest> {
        let arch = self.arch.filter();
        Ok(TrendRequest {
            process: self
                .process
                .load(&self.files.iter().collect::<Vec<_>>(), arch.clone())?,
            files: self.files.clone(),
            sort: self.sort,
            read: ReadOptions {
                arch,
                pid: self.pid,
                kind: self.input_kind,
            },
            group_by: self.by.with_depth(usize::from(self.depth)),
            top: self.top,
            format: match self.format {
                TrendFormatArg::Table => command::Format::Table,
                TrendFormatArg::Json => command::Format::Json,
                TrendFormatArg::Markdown => command::Format::Markdown,
            },
            output: self.output.clone(),
        })
    }
}

/// `check --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormatArg {
    /// Tables for people.
    Table,
    /// JSON with `schema_version`.
    Json,
    /// Markdown (PR comment, job summary).
    Markdown,
    /// GitHub Actions annotations.
    Github,
}

fn parse_increase(s: &str) -> std::result::Result<Increase, String> {
    Increase::parse(s)
}

fn parse_group(s: &str) -> std::result::Result<(String, u64), String> {
    let (pattern, max) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("expected PATTERN=MAX, got {s:?}"))?;
    let max = max
        .trim()
        .parse()
        .map_err(|_| format!("expected PATTERN=MAX with MAX a count, got {s:?}"))?;
    Pattern::parse(pattern)?;
    Ok((pattern.to_string(), max))
}

/// Options shared by `scan` and `diff`.
#[derive(Debug, Args)]
pub struct CommonOpts {
    /// Which slices of a universal file to read.
    #[arg(long, value_enum, default_value_t = ArchArg::All)]
    pub arch: ArchArg,
    /// How to group symbols.
    #[arg(long = "by", value_enum, default_value_t = GroupByName::Template)]
    pub by: GroupByName,
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
    pub input_kind: Option<FileKind>,
    /// The process of a log to read (default: the first PID in it).
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Write the report here instead of stdout (`-` is stdout; see --help of baseline -o).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// Whole processes: `--process`, `--search`, `--sysroot` (scan, diff, check, baseline, verify).
#[derive(Debug, Clone, Default, Args)]
pub struct ProcessOpts {
    /// Read the input as the main executable of a whole process: the dylibs it loads
    /// (LC_LOAD_DYLIB, @rpath, @loader_path, @executable_path) in dyld's load order, who wins
    /// each weak symbol and what each image costs (docs/process.md). A directory or bundle
    /// (.app, .framework) is always read as one.
    #[arg(long)]
    pub process: bool,
    /// With a process: also look for dependencies by leaf name in DIR (repeatable).
    #[arg(long = "search", value_name = "DIR")]
    pub search: Vec<PathBuf>,
    /// With a process: where absolute install names (/usr/lib/…) are looked for; without it
    /// system libraries are outside (in the dyld shared cache) and not read.
    #[arg(long, value_name = "DIR")]
    pub sysroot: Option<PathBuf>,
}

impl ProcessOpts {
    /// How to load the processes when `inputs` are read as processes (`--process`, or one of
    /// them is a directory or bundle), else `None`.
    ///
    /// Errors (usage): `--search`/`--sysroot` without a process.
    fn load(&self, inputs: &[&PathBuf], arch: ArchFilter) -> Result<Option<LoadOptions>> {
        if !self.process && !inputs.iter().any(|f| f.is_dir()) {
            if !self.search.is_empty() || self.sysroot.is_some() {
                return Err(Error::usage(
                    "--search and --sysroot apply to a process: give --process, a bundle or a directory",
                ));
            }
            return Ok(None);
        }
        Ok(Some(LoadOptions {
            arch: match arch {
                ArchFilter::Only(a) => Some(a),
                ArchFilter::All => None,
            },
            search: self.search.clone(),
            sysroot: self.sysroot.clone(),
        }))
    }
}

/// `--map` / `--dsym`: attribution for a stripped binary.
#[derive(Debug, Clone, Default, Args)]
pub struct OriginOpts {
    /// The link map of the binary (`ld64 -map FILE`, `ld64.lld -map FILE`): attribute symbols
    /// by name to the objects it lists (for a stripped binary).
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    /// The binary's dSYM (a `.dSYM` bundle or its DWARF file): attribute weak definitions to
    /// compile units by address; its UUID must match the binary's.
    #[arg(long, value_name = "PATH")]
    pub dsym: Option<PathBuf>,
}

impl OriginOpts {
    fn files(&self) -> OriginFiles {
        OriginFiles {
            map: self.map.clone(),
            dsym: self.dsym.clone(),
        }
    }
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

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Tables for people.
    Table,
    /// JSON with `schema_version`.
    Json,
    /// Markdown for a pull-request comment (scan and diff; also appended to
    /// $GITHUB_STEP_SUMMARY when it is set).
    Markdown,
    /// GitHub Actions annotations (scan and diff; the Markdown goes to $GITHUB_STEP_SUMMARY).
    Github,
}

impl ArchArg {
    fn filter(self) -> ArchFilter {
        match self {
            ArchArg::All => ArchFilter::All,
            ArchArg::Arm64 => ArchFilter::Only("arm64".into()),
            ArchArg::Arm64e => ArchFilter::Only("arm64e".into()),
            ArchArg::X86_64 => ArchFilter::Only("x86_64".into()),
        }
    }
}

impl CheckArgs {
    /// The request for [`crate::command::check`]. Errors: a bad `--allow` pattern.
    pub fn request(&self) -> Result<CheckRequest> {
        let patterns = |flag: &str, list: &[String]| -> Result<Vec<Pattern>> {
            list.iter()
                .map(|p| Pattern::parse(p).map_err(|e| Error::usage(format!("{flag}: {e}"))))
                .collect()
        };
        let max = [
            (
                Figure::PredictedWeakLookups,
                self.max_predicted_weak_lookups,
            ),
            (Figure::WeakDefExports, self.max_weak_def_exports),
            (Figure::WeakBindSymbols, self.max_weak_bind_symbols),
            (Figure::TrieProbes, self.max_trie_probes),
        ]
        .into_iter()
        .filter_map(|(f, m)| m.map(|m| (f, m)))
        .collect();
        let mut groups = Vec::new();
        for (pattern, max) in &self.groups {
            let pattern =
                Pattern::parse(pattern).map_err(|e| Error::usage(format!("--group: {e}")))?;
            groups.push(GroupBudget { pattern, max: *max });
        }
        let rules = RuleSet {
            max,
            max_increase: (!self.max_increase.is_empty()).then(|| self.max_increase.clone()),
            increase_figures: None,
            groups,
            allow_symbols: patterns("--allow", &self.allow)?,
            allow_groups: patterns("--allow-group", &self.allow_groups)?,
        };
        Ok(CheckRequest {
            process: self
                .process
                .load(&self.files.iter().collect::<Vec<_>>(), self.arch.filter())?,
            origin: self.origin.files(),
            files: self.files.clone(),
            config: self.config.clone(),
            no_config: self.no_config,
            arch: self.arch.filter(),
            depth: self.depth.map(usize::from),
            flags: Flags {
                baseline: self.baseline.clone(),
                group_by: self
                    .by
                    .map(|b| b.with_depth(usize::from(self.depth.unwrap_or(2)))),
                group_figure: self.group_figure,
                rules,
            },
            top: self.top,
            format: match self.format {
                CheckFormatArg::Table => CheckFormat::Table,
                CheckFormatArg::Json => CheckFormat::Json,
                CheckFormatArg::Markdown => CheckFormat::Markdown,
                CheckFormatArg::Github => CheckFormat::Github,
            },
            output: self.output.clone(),
        })
    }
}

impl CommonOpts {
    fn filter(&self) -> ArchFilter {
        self.arch.filter()
    }

    fn group_by(&self) -> GroupBy {
        self.by.with_depth(usize::from(self.depth))
    }

    fn read_options(&self) -> ReadOptions {
        ReadOptions {
            arch: self.filter(),
            pid: self.pid,
            kind: self.input_kind,
        }
    }

    fn top(&self) -> Option<usize> {
        match (self.top, self.format) {
            (Some(n), _) => Some(n),
            (None, Format::Table) => Some(20),
            (None, Format::Markdown | Format::Github) => Some(10),
            (None, Format::Json) => None,
        }
    }
}

/// A clap error as one line: its message without the `error: ` prefix, the usage and the
/// `--help` tip, continuation lines joined with spaces, escaped ([`crate::text::escape`]).
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut parts = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if !l.is_empty() {
            parts.push(l.strip_prefix("error: ").unwrap_or(l));
        }
    }
    crate::text::escape(&parts.join(" ")).into_owned()
}

/// A process scan, when `--process` is given or the one input is a directory. Errors: several
/// inputs with a process, `--search`/`--sysroot` without one.
fn process_request(
    files: &[PathBuf],
    process: &ProcessOpts,
    opts: &CommonOpts,
) -> Result<Option<crate::command::process::ProcessRequest>> {
    let Some(load) = process.load(&files.iter().collect::<Vec<_>>(), opts.filter())? else {
        return Ok(None);
    };
    let [input] = files else {
        return Err(Error::usage(
            "a process is read from one main executable, bundle or directory: give it as the only input",
        ));
    };
    Ok(Some(crate::command::process::ProcessRequest {
        input: input.clone(),
        load,
        top: opts.top(),
        format: opts.format.into(),
        output: opts.output.clone(),
    }))
}

impl Cli {
    /// The request this command line asks for. Errors: a bad `--allow`, `--allow-group` or
    /// `--group` pattern (usage).
    pub fn request(&self) -> Result<Request> {
        use crate::command::completions::{GenerateRequest, Generated};
        use clap::CommandFactory;
        Ok(match &self.command {
            Command::Completions { shell, output } => {
                Request::Generate(Box::new(GenerateRequest {
                    what: Generated::Completions(*shell),
                    command: Cli::command(),
                    output: output.clone(),
                }))
            }
            Command::Man { output } => Request::Generate(Box::new(GenerateRequest {
                what: Generated::Man,
                command: Cli::command(),
                output: output.clone(),
            })),
            Command::Schema { document, output } => Request::Generate(Box::new(GenerateRequest {
                what: Generated::Schema(*document),
                command: Cli::command(),
                output: output.clone(),
            })),
            Command::Check(args) => Request::Check(args.request()?),
            Command::Trend(args) => Request::Trend(args.request()?),
            Command::Report {
                files,
                arch,
                pid,
                output,
            } => Request::Report(crate::command::report::ReportRequest {
                files: files.clone(),
                read: ReadOptions {
                    arch: arch.filter(),
                    pid: *pid,
                    kind: None,
                },
                output: output.clone(),
            }),
            Command::Baseline(args) => Request::Baseline(BaselineRequest {
                process: args.process.load(&[&args.file], args.arch.filter())?,
                file: args.file.clone(),
                origin: args.origin.files(),
                output: args.output.clone(),
                arch: args.arch.filter(),
                group_by: args.by.with_depth(usize::from(args.depth)),
            }),
            Command::Scan {
                files,
                process,
                compile_commands,
                origin,
                opts,
            } => Request::Scan(ScanRequest {
                process: process_request(files, process, opts)?,
                origin: origin.files(),
                files: files.clone(),
                read: opts.read_options(),
                group_by: opts.group_by(),
                top: opts.top(),
                format: opts.format.into(),
                output: opts.output.clone(),
                compile_commands: compile_commands.clone(),
            }),
            Command::Diff {
                old,
                new,
                symbols,
                pair_arch,
                process,
                opts,
            } => Request::Diff(DiffRequest {
                process: process.load(&[old, new], opts.filter())?,
                pair_arch: pair_arch.clone(),
                old: old.clone(),
                new: new.clone(),
                symbols: *symbols,
                read: opts.read_options(),
                group_by: opts.group_by(),
                top: opts.top(),
                format: opts.format.into(),
                output: opts.output.clone(),
            }),
            Command::Verify {
                binary,
                log,
                tolerance,
                image,
                process,
                opts,
            } => Request::Verify(VerifyRequest {
                process: process.load(&[binary], opts.filter())?,
                binary: binary.clone(),
                log: log.clone(),
                tolerance: *tolerance,
                image: image.clone(),
                read: opts.read_options(),
                group_by: opts.group_by(),
                top: opts.top(),
                format: opts.format.into(),
                output: opts.output.clone(),
            }),
        })
    }
}

impl From<Format> for command::Format {
    fn from(f: Format) -> Self {
        match f {
            Format::Table => command::Format::Table,
            Format::Json => command::Format::Json,
            Format::Markdown => command::Format::Markdown,
            Format::Github => command::Format::Github,
        }
    }
}

/// `--pair-arch OLD=NEW`: two arch names (`x86_64`, `arm64`, `arm64e`, …).
fn parse_pair_arch(s: &str) -> std::result::Result<(String, String), String> {
    let (a, b) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected OLD=NEW, e.g. x86_64=arm64"))?;
    let ok = |x: &str| !x.is_empty() && x.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok(a) || !ok(b) {
        return Err(format!("{s:?}: expected two arch names, e.g. x86_64=arm64"));
    }
    Ok((a.to_string(), b.to_string()))
}
