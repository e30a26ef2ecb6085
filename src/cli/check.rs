//! `weakscan check FILE…`.

use super::opts::{AllowOpts, ImporterOpts, MaxOpts, ObjectsOpts, OriginOpts, ProcessOpts};
use super::values;
use crate::analysis::check::Figure;
use crate::analysis::group::GroupByName;
use crate::command::check::CheckRequest;
use crate::error::{Error, Result};
use crate::gate::pattern::Pattern;
use crate::gate::policy::{Flags, GroupBudget, Increase, RuleSet};
use crate::macho::ArchFilter;
use crate::output::Format;
use clap::Args;
use std::path::PathBuf;

/// `weakscan check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Mach-O files; `-` is stdin.
    ///
    /// Thin or universal: each slice is checked on its own. A directory or bundle is checked
    /// as a whole process.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub origin: OriginOpts,
    #[command(flatten)]
    pub objects: ObjectsOpts,
    /// Write the report to PATH, not stdout.
    ///
    /// `-` is stdout; how a file is written: see --help of baseline -o.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Policy file.
    ///
    /// Default: weakscan.toml in the working directory, if there is one.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Ignore weakscan.toml in the working directory.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
    /// Baseline file written by `weakscan baseline`.
    ///
    /// Overrides the policy's.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Maximum increase over the baseline.
    ///
    /// Of each gated figure: a count (50) or a percentage (10%); repeat to require both
    /// (default with a baseline: 0).
    #[arg(long, value_name = "N|P%", value_parser = parse_increase)]
    pub max_increase: Vec<Increase>,
    /// The figures' maxima.
    #[command(flatten)]
    pub max: MaxOpts,
    /// Maximum export-trie probes of a process.
    ///
    /// Of a whole process's lookups (a bundle, directory or --process input;
    /// docs/process.md).
    #[arg(long, value_name = "N")]
    pub max_trie_probes: Option<u64>,
    #[command(flatten)]
    pub process: ProcessOpts,
    #[command(flatten)]
    pub importer: ImporterOpts,
    /// Group budget (repeatable).
    ///
    /// The groups whose key matches PATTERN (a glob, or re:REGEX) have at most MAX of the
    /// group figure in total.
    #[arg(long = "group", value_name = "PATTERN=MAX", value_parser = parse_group)]
    pub groups: Vec<(String, u64)>,
    /// Symbols and groups that may be weak.
    #[command(flatten)]
    pub allow: AllowOpts,
    /// Which slices of a universal file to check.
    #[arg(long, value_parser = values::arch(), default_value = "all")]
    pub arch: ArchFilter,
    /// How to group symbols.
    ///
    /// For group budgets, allowed groups and offending groups. Default: the policy's, else
    /// template.
    #[arg(long = "by", value_enum)]
    pub by: Option<GroupByName>,
    /// Namespace components kept by `--by namespace`.
    ///
    /// Default: 2.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: Option<u16>,
    /// The figure group budgets limit.
    ///
    /// Default: the policy's, else weak_bind_symbols.
    #[arg(long, value_enum)]
    pub group_figure: Option<Figure>,
    /// Offending groups shown per failing image.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,
    /// Output format.
    ///
    /// markdown and github also append the Markdown report to $GITHUB_STEP_SUMMARY when it is
    /// set.
    #[arg(long, value_parser = values::check_format(), default_value = "table")]
    pub format: Format,
    /// Link the HTML report at URL (markdown and github).
    ///
    /// The Markdown report (a pull-request comment) links it after the fix, and the github
    /// summary line names it; e.g. the URL of the artifact `weakscan report` was uploaded as.
    #[arg(long, value_name = "URL")]
    pub report_url: Option<String>,
}

impl CheckArgs {
    /// The request for [`crate::command::check`]. Errors: a bad `--allow`, `--allow-group` or
    /// `--group` pattern; `--search`/`--sysroot` without a process (usage).
    pub fn request(&self) -> Result<CheckRequest> {
        let rules = rule_set(
            self.maxima(),
            &self.max_increase,
            &self.groups,
            &self.allow.allow,
            &self.allow.allow_groups,
        )?;
        Ok(CheckRequest {
            process: self
                .process
                .load(&self.files.iter().collect::<Vec<_>>(), &self.arch)?,
            origin: self.origin.files(&self.objects.objects),
            importers: self.importer.importers.clone(),
            files: self.files.clone(),
            config: self.config.clone(),
            no_config: self.no_config,
            arch: self.arch.clone(),
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
            format: self.format,
            output: self.output.clone(),
            report_url: self.report_url.clone(),
        })
    }

    /// The `--max-…` flags given, by figure.
    fn maxima(&self) -> std::collections::BTreeMap<Figure, u64> {
        let mut maxima = self.max.maxima();
        maxima.extend(self.max_trie_probes.map(|m| (Figure::TrieProbes, m)));
        maxima
    }
}

/// The budgets and allowlists given as flags (`check`, `bisect`): the `--max-…` maxima,
/// `--max-increase`, `--group PATTERN=MAX`, `--allow` and `--allow-group`.
///
/// Errors (usage): a pattern that does not compile, named with its flag.
pub(super) fn rule_set(
    max: std::collections::BTreeMap<Figure, u64>,
    max_increase: &[Increase],
    groups: &[(String, u64)],
    allow: &[String],
    allow_groups: &[String],
) -> Result<RuleSet> {
    let patterns = |flag: &str, list: &[String]| -> Result<Vec<Pattern>> {
        list.iter()
            .map(|p| Pattern::parse(p).map_err(|e| Error::usage(format!("{flag}: {e}"))))
            .collect()
    };
    let mut budgets = Vec::new();
    for (pattern, max) in groups {
        let pattern = Pattern::parse(pattern).map_err(|e| Error::usage(format!("--group: {e}")))?;
        budgets.push(GroupBudget { pattern, max: *max });
    }
    Ok(RuleSet {
        max,
        max_increase: (!max_increase.is_empty()).then(|| max_increase.to_vec()),
        increase_figures: None,
        groups: budgets,
        allow_symbols: patterns("--allow", allow)?,
        allow_groups: patterns("--allow-group", allow_groups)?,
    })
}

pub(super) fn parse_increase(s: &str) -> std::result::Result<Increase, String> {
    Increase::parse(s)
}

pub(super) fn parse_group(s: &str) -> std::result::Result<(String, u64), String> {
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
