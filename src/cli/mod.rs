//! The command line: `weakscan scan FILE…`, `weakscan diff OLD NEW`,
//! `weakscan flags OLD NEW`, `weakscan verify BINARY LOG`, `weakscan check FILE…`, `weakscan baseline FILE`,
//! `weakscan trend FILE…`, `weakscan bisect VERSION…` and `weakscan hide BIN`.
//!
//! This module only parses: [`Cli::request`] turns the arguments into a
//! [`crate::command::Request`] and [`Cli::globals`] the global flags, which
//! [`crate::command::run`] carries out. Each subcommand's arguments are in a file of their own;
//! `opts.rs` holds the options several share, `values.rs` the value parsers of fixed lists
//! that differ by command.

mod baseline;
mod bisect;
mod check;
mod diff;
mod examples;
mod flags;
mod generate;
mod hide;
mod opts;
mod report;
mod scan;
mod trend;
mod values;
mod verify;

pub use baseline::BaselineArgs;
pub use bisect::BisectArgs;
pub use check::CheckArgs;
pub use diff::DiffArgs;
pub use flags::FlagsArgs;
pub use generate::{CompletionsArgs, ManArgs, SchemaArgs};
pub use hide::HideArgs;
pub use opts::{CommonOpts, ImporterOpts, ObjectsOpts, OriginOpts, ProcessOpts};
pub use report::ReportArgs;
pub use scan::ScanArgs;
pub use trend::TrendArgs;
pub use verify::VerifyArgs;

use crate::command::completions::Generated;
use crate::command::{Globals, Request};
use crate::error::Result;
use clap::{Parser, Subcommand};

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
    /// Print symbol names raw (mangled).
    ///
    /// Every name as in the binary and dyld's log (`__ZN2v8…`) instead of demangled; groups
    /// are still formed from the demangled names.
    #[arg(long, global = true)]
    pub no_demangle: bool,
    /// Colour the verdict, increases and decreases: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: clap::ColorChoice,
    /// Fit tables to N columns (0: no limit).
    ///
    /// Long cells wrap. Default: the terminal's width when the report goes to a terminal, else
    /// $COLUMNS when set, else 100.
    #[arg(long, global = true, value_name = "N", value_parser = values::width)]
    pub width: Option<u16>,
    /// Fit Markdown reports into BYTES bytes.
    ///
    /// Whole table rows are cut, and said, until the report fits. Default 64000: one GitHub
    /// comment (65,536 characters) with room for what a workflow adds; a workflow that adds
    /// more gives what is left for the report.
    #[arg(long, global = true, value_name = "BYTES", value_parser = clap::value_parser!(u32).range(1000..))]
    pub markdown_limit: Option<u32>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The weak symbols of a build, grouped, with the fix.
    ///
    /// Weak definitions, weak binds and dyld lookups of Mach-O files or DYLD_PRINT_BINDINGS
    /// logs, grouped; a bundle or directory is read as a whole process. The answer and the fix
    /// come first, then the tables.
    Scan(ScanArgs),
    /// Compare two builds: what changed, where from, the fix.
    ///
    /// Binaries or logs, in any pair: totals old → new and each group's change; slices paired
    /// by arch, log images by name.
    Diff(DiffArgs),
    /// Objects whose visibility options changed between two builds.
    ///
    /// compile_commands.json or a `ninja -n --verbose` dump, either side: the objects whose
    /// -fvisibility options differ, grouped by target, each target's first changed command
    /// shown whole. No binary needed.
    Flags(FlagsArgs),
    /// Hold a binary's predicted lookups against a dyld log.
    ///
    /// The log is a DYLD_PRINT_BINDINGS log of the binary: exit 0 when they agree, 1 when they
    /// differ by more than --tolerance, 2 on bad input.
    Verify(VerifyArgs),
    /// The pre-release gate: budgets on the weak symbols.
    ///
    /// Budgets from flags and weakscan.toml; exit 0 pass, 1 a budget exceeded, 2 usage, policy
    /// or input error.
    Check(CheckArgs),
    /// Follow the figures through a series of builds.
    ///
    /// Binaries, logs or whole processes, in the order given or by the version in their paths:
    /// each build's figures and change, the largest steps flagged with the groups and
    /// libraries that moved most.
    Trend(TrendArgs),
    /// Find the first version whose build breaks a budget, by bisection.
    ///
    /// An ordered list of versions and a command that gets each one's build: the ends, then
    /// bisection; each build held to check's budgets (a version is bad when one is exceeded).
    /// The last good and first bad version with the diff of that step; exit 0 found, 1 no single
    /// step, 2 bad input.
    Bisect(BisectArgs),
    /// Write the baseline `check --baseline` compares with.
    ///
    /// The figures and every symbol by raw name, one line each, byte-identical across runs.
    Baseline(BaselineArgs),
    /// One self-contained HTML report of one, two or more builds.
    ///
    /// One build (scan), two (diff), more (trend and the diff at the largest step), with a
    /// treemap, a chart, sortable tables and the fix.
    Report(ReportArgs),
    /// A link-time symbol list that hides weak definitions: one relink.
    ///
    /// The weak definitions of one image (all, one library's, or a group's) for
    /// -unexported_symbols_list (or the rest of the exports for -exported_symbols_list), read
    /// by ld64 and ld64.lld: no recompilation. What importers bind to, what other images of a
    /// process share and what --keep names stay exported, each said with why; the report says
    /// what the list saves, as the fix plan counts it.
    Hide(HideArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Print the man pages, in roff.
    ///
    /// weakscan(1) and one page per subcommand.
    Man(ManArgs),
    /// Print the JSON Schema of a JSON document or baseline.
    ///
    /// Draft 2020-12, of a `--format json` document or of a baseline file (also in
    /// docs/schemas/).
    Schema(SchemaArgs),
}

impl Cli {
    /// The request this command line asks for. Errors (usage): a bad `--allow`,
    /// `--allow-group` or `--group` pattern; `--search`/`--sysroot` without a process; a
    /// process scan of several inputs.
    pub fn request(&self) -> Result<Request> {
        let generate =
            |what, output| Request::Generate(Box::new(generate::request(what, command(), output)));
        Ok(match &self.command {
            Command::Completions(a) => generate(Generated::Completions(a.shell), &a.output),
            Command::Man(a) => generate(Generated::Man, &a.output),
            Command::Schema(a) => generate(Generated::Schema(a.document), &a.output),
            Command::Check(args) => Request::Check(args.request()?),
            Command::Trend(args) => Request::Trend(args.request()?),
            Command::Bisect(args) => Request::Bisect(args.request()?),
            Command::Report(args) => Request::Report(args.request()),
            Command::Baseline(args) => Request::Baseline(args.request()?),
            Command::Scan(args) => Request::Scan(args.request()?),
            Command::Diff(args) => Request::Diff(args.request()?),
            Command::Verify(args) => Request::Verify(args.request()?),
            Command::Flags(args) => Request::Flags(args.request()),
            Command::Hide(args) => Request::Hide(args.request()?),
        })
    }

    /// The global flags: `--width`, `--color`, `--no-demangle` and `--markdown-limit`.
    pub fn globals(&self) -> Globals {
        Globals {
            width: self.width,
            color: match self.color {
                clap::ColorChoice::Always => Some(true),
                clap::ColorChoice::Never => Some(false),
                clap::ColorChoice::Auto => None,
            },
            no_demangle: self.no_demangle,
            markdown_limit: self.markdown_limit.map(|n| n as usize),
        }
    }
}

/// The command line as clap parses it: [`Cli`]'s, each subcommand's help ending with its
/// examples (`examples.rs`).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        if let Some(text) = examples::help(&name) {
            cmd = cmd.mut_subcommand(name, |c| c.after_help(text));
        }
    }
    cmd
}

/// Parses the process's arguments with [`command`]. Errors: clap's, which include `--help` and
/// `--version` (printed by [`clap::Error::exit`]), and no subcommand at all
/// ([`is_no_command`]).
pub fn parse() -> std::result::Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let matches = command().try_get_matches()?;
    Cli::from_arg_matches(&matches)
}

/// The error is that no subcommand was given (bare `weakscan`, or only global flags): the
/// caller prints [`overview`] instead of clap's one line.
pub fn is_no_command(e: &clap::Error) -> bool {
    use clap::error::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
    )
}

/// What bare `weakscan` prints on stderr: what it does, every command with its one-line about
/// and one example, and where the rest is.
pub fn overview() -> String {
    let cmd = command();
    examples::overview(|name| {
        cmd.find_subcommand(name)
            .and_then(|c| c.get_about())
            .map(|a| a.to_string())
            .unwrap_or_default()
    })
}

/// A clap error as one line: its message without the `error: ` prefix, the usage and the
/// `--help` tip, continuation lines joined with spaces, escaped and clipped
/// ([`crate::error::Error::usage`]).
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
    crate::error::Error::usage(parts.join(" ")).message
}
