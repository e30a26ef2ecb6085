//! `weakscan bisect VERSION…`.

use super::check::{parse_group, parse_increase, rule_set};
use super::opts::{AllowOpts, MaxOpts};
use super::values;
use crate::analysis::check::Figure;
use crate::analysis::group::GroupByName;
use crate::command::bisect::BisectRequest;
use crate::command::bisect::fetch::FetchCommand;
use crate::command::bisect::versions::VersionList;
use crate::error::{Error, Result};
use crate::gate::policy::{Flags, Increase};
use crate::macho::ArchFilter;
use crate::output::Format;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// `weakscan bisect`.
#[derive(Debug, Args)]
pub struct BisectArgs {
    /// The versions, oldest first (or --versions FILE).
    ///
    /// Each is ASCII letters, digits and . _ - +, starting with a letter or a digit, and is
    /// listed once.
    #[arg(value_name = "VERSION")]
    pub versions: Vec<String>,
    /// Read the versions from FILE, one a line, oldest first (`-`: stdin).
    ///
    /// Blank lines and lines starting with # are not versions.
    #[arg(long = "versions", value_name = "FILE", conflicts_with = "versions")]
    pub versions_file: Option<PathBuf>,
    /// The command that gets the build of a version and prints its path.
    ///
    /// Run without a shell (its words split as sh splits them); each {version} becomes the
    /// version, else the version is its last argument. The last line it prints on stdout is
    /// the path of the Mach-O file to read.
    #[arg(long, value_name = "COMMAND")]
    pub fetch: Option<String>,
    /// Run the fetch command by `sh -c COMMAND sh VERSION` ({version} and $1 are the version).
    #[arg(long, requires = "fetch")]
    pub shell: bool,
    /// Stop a fetch that has not finished after SECONDS, and skip its version.
    ///
    /// Its whole process group is killed. A fetch that times out is skipped and said so: the
    /// answer is the same on any machine only as far as the fetches are.
    #[arg(long, value_name = "SECONDS", default_value = "900", value_parser = parse_timeout)]
    pub fetch_timeout: Duration,
    /// Keep each build fetched in DIR/VERSION/, and take it from there next time.
    ///
    /// A copy of the file the fetch printed, under its name (DIR/22.11.0/node); a second
    /// bisection over the same versions fetches nothing.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// The figures' maxima.
    #[command(flatten)]
    pub max: MaxOpts,
    /// Bad when a figure is up by more than this from the first version.
    ///
    /// A count (50) or a percentage (10%) of each figure; repeat to require both.
    #[arg(long, value_name = "N|P%", value_parser = parse_increase)]
    pub max_increase: Vec<Increase>,
    /// Bad when the groups whose key matches PATTERN have more than MAX (repeatable).
    ///
    /// PATTERN is a glob or re:REGEX over the group key, as in check; the figure is
    /// --group-figure's.
    #[arg(long = "group", value_name = "PATTERN=MAX", value_parser = parse_group)]
    pub groups: Vec<(String, u64)>,
    /// Symbols and groups that may be weak.
    #[command(flatten)]
    pub allow: AllowOpts,
    /// The slice to follow in universal builds.
    ///
    /// Default: the first version's one slice (a universal first version needs --arch).
    #[arg(long, value_parser = values::arch(), default_value = "all")]
    pub arch: ArchFilter,
    /// How to group symbols (group budgets and the step's diff).
    #[arg(long = "by", value_enum, default_value_t = GroupByName::Template)]
    pub by: GroupByName,
    /// Namespace components kept by `--by namespace`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
    /// The figure group budgets limit.
    ///
    /// Default: weak_bind_symbols.
    #[arg(long, value_enum)]
    pub group_figure: Option<Figure>,
    /// Groups listed in the step's diff.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Output format.
    ///
    /// markdown is also appended to $GITHUB_STEP_SUMMARY when it is set.
    #[arg(long, value_parser = values::trend_format(), default_value = "table")]
    pub format: Format,
    /// Write the report to PATH, not stdout.
    ///
    /// `-` is stdout; how a file is written: see --help of baseline -o.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

impl BisectArgs {
    /// The request for [`crate::command::bisect`]. Errors (usage): a bad pattern, an empty
    /// fetch command or one whose quotes do not close.
    pub fn request(&self) -> Result<BisectRequest> {
        let maxima = self.max.maxima();
        let rules = rule_set(
            maxima,
            &self.max_increase,
            &self.groups,
            &self.allow.allow,
            &self.allow.allow_groups,
        )?;
        let fetch = match &self.fetch {
            Some(text) => Some(
                FetchCommand::parse(text, self.shell, self.fetch_timeout).map_err(Error::usage)?,
            ),
            None => None,
        };
        Ok(BisectRequest {
            versions: match &self.versions_file {
                Some(f) => VersionList::File(f.clone()),
                None => VersionList::Args(self.versions.clone()),
            },
            fetch,
            cache: self.cache.clone(),
            arch: self.arch.clone(),
            flags: Flags {
                baseline: None,
                group_by: Some(self.by.with_depth(usize::from(self.depth))),
                group_figure: self.group_figure,
                rules,
            },
            top: self.top,
            format: self.format,
            output: self.output.clone(),
        })
    }
}

/// `--fetch-timeout SECONDS`: more than 0, at most a week; fractions allowed (`0.5`).
fn parse_timeout(s: &str) -> std::result::Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 7.0 * 86400.0 => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!(
            "{s:?} is not a number of seconds above 0 and at most 604800"
        )),
    }
}
