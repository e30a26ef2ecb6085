//! The options several subcommands share: reading and showing ([`CommonOpts`]: scan, diff,
//! verify), whole processes ([`ProcessOpts`]), attribution files ([`OriginOpts`]) and the
//! objects a fix plan reads its definers from ([`ObjectsOpts`]).

use super::values;
use crate::analysis::group::{GroupBy, GroupByName};
use crate::error::{Error, Result};
use crate::input::{FileKind, ReadOptions};
use crate::macho::ArchFilter;
use crate::origin::attach::OriginFiles;
use crate::output::Format;
use crate::process::load::LoadOptions;
use clap::Args;
use std::path::PathBuf;

/// Options shared by `scan`, `diff` and `verify`.
#[derive(Debug, Args)]
pub struct CommonOpts {
    /// Which slices of a universal file to read.
    #[arg(long, value_parser = values::arch(), default_value = "all")]
    pub arch: ArchFilter,
    /// How to group symbols.
    #[arg(long = "by", value_enum, default_value_t = GroupByName::Template)]
    pub by: GroupByName,
    /// Namespace components kept by `--by namespace`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
    /// Show at most N groups per image.
    ///
    /// Default: 20 in a table, 10 in Markdown and annotations, all in JSON.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Read inputs as KIND, not as detected.
    ///
    /// The kind is otherwise detected from each input's first bytes.
    #[arg(long, value_enum, value_name = "KIND")]
    pub input_kind: Option<FileKind>,
    /// The process of a log to read.
    ///
    /// Default: the first PID in the log.
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Write the report to PATH, not stdout.
    ///
    /// `-` is stdout; how a file is written: see --help of baseline -o.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

impl CommonOpts {
    /// `--by` with `--depth`.
    pub(super) fn group_by(&self) -> GroupBy {
        self.by.with_depth(usize::from(self.depth))
    }

    /// `--arch`, `--pid` and `--input-kind`.
    pub(super) fn read_options(&self) -> ReadOptions {
        ReadOptions {
            arch: self.arch.clone(),
            pid: self.pid,
            kind: self.input_kind,
            other_exports: false,
        }
    }

    /// `--top`, else the format's default: 20 groups in a table, 10 in Markdown and
    /// annotations, all in JSON.
    pub(super) fn top(&self) -> Option<usize> {
        match (self.top, self.format) {
            (Some(n), _) => Some(n),
            (None, Format::Table) => Some(20),
            (None, Format::Markdown | Format::Github) => Some(10),
            (None, Format::Json) => None,
        }
    }
}

/// Whole processes: `--process`, `--search`, `--sysroot` (scan, diff, check, baseline, verify).
#[derive(Debug, Clone, Default, Args)]
pub struct ProcessOpts {
    /// Read the input as a whole process.
    ///
    /// The input is its main executable: the dylibs it loads (LC_LOAD_DYLIB, @rpath,
    /// @loader_path, @executable_path) in dyld's load order, who wins each weak symbol and what
    /// each image costs (docs/process.md). A directory or bundle (.app, .framework) is always
    /// read as one.
    #[arg(long)]
    pub process: bool,
    /// With a process: look for dylibs in DIR too.
    ///
    /// Dependencies are looked for by leaf name in DIR (repeatable).
    #[arg(long = "search", value_name = "DIR")]
    pub search: Vec<PathBuf>,
    /// With a process: the root of absolute install names.
    ///
    /// Where absolute install names (/usr/lib/…) are looked for; without it system libraries
    /// are outside (in the dyld shared cache) and not read.
    #[arg(long, value_name = "DIR")]
    pub sysroot: Option<PathBuf>,
}

impl ProcessOpts {
    /// How to load the processes when `inputs` are read as processes (`--process`, or one of
    /// them is a directory or bundle), else `None`.
    ///
    /// Errors (usage): `--search`/`--sysroot` without a process.
    pub(super) fn load(
        &self,
        inputs: &[&PathBuf],
        arch: &ArchFilter,
    ) -> Result<Option<LoadOptions>> {
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
                ArchFilter::Only(a) => Some(a.clone()),
                ArchFilter::All => None,
            },
            search: self.search.clone(),
            sysroot: self.sysroot.clone(),
        }))
    }
}

/// `--importer`: who imports the exports (scan, diff, check).
#[derive(Debug, Clone, Default, Args)]
pub struct ImporterOpts {
    /// A Mach-O image that binds to the scanned image's exports (a .node addon, a .bundle, a
    /// .dylib), or a directory searched for them; repeatable. Its imports that resolve against
    /// the image (flat lookups, main-executable binds, two-level binds to its install name) are
    /// held against the image's export trie (check: exit 1 when one is missing).
    #[arg(long = "importer", value_name = "PATH")]
    pub importers: Vec<PathBuf>,
}

/// `--map` / `--dsym`: attribution for a stripped binary.
#[derive(Debug, Clone, Default, Args)]
pub struct OriginOpts {
    /// The binary's link map (`ld64 -map FILE`).
    ///
    /// From `ld64 -map FILE` or `ld64.lld -map FILE`: symbols are attributed by name to the
    /// objects it lists (for a stripped binary).
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    /// The binary's dSYM (bundle or DWARF file).
    ///
    /// A `.dSYM` bundle or its DWARF file: weak definitions are attributed to compile units by
    /// address; its UUID must match the binary's.
    #[arg(long, value_name = "PATH")]
    pub dsym: Option<PathBuf>,
}

/// `--objects`: where the objects are whose definers a fix plan reads (scan, check; diff has
/// its own, of the new build). Not `baseline`'s: a baseline records no fix plan.
#[derive(Debug, Clone, Default, Args)]
pub struct ObjectsOpts {
    /// Where the objects the debug map names are (archives, objects, directories).
    ///
    /// Every definer of a weak symbol counts: it stays exported unless every library that
    /// defines it is hidden. The objects the debug map (or --map) names are read where it says
    /// (relative paths from the working directory); those not there are looked for by file
    /// name below these paths (repeatable). Without them the fix plan's figures are "at most".
    #[arg(long = "objects", value_name = "PATH")]
    pub objects: Vec<PathBuf>,
}

impl OriginOpts {
    /// The files given, with `objects` (`--objects`, where a command reads definers).
    pub(super) fn files(&self, objects: &[PathBuf]) -> OriginFiles {
        OriginFiles {
            map: self.map.clone(),
            dsym: self.dsym.clone(),
            objects: objects.to_vec(),
        }
    }
}

/// The symbols and groups that may be weak (`check`, `bisect`).
#[derive(Debug, Clone, Args)]
pub struct AllowOpts {
    /// A symbol that may be weak (repeatable).
    ///
    /// A glob or re:REGEX over the raw or demangled name.
    #[arg(long = "allow", value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// A group that may be weak (repeatable).
    ///
    /// A glob or re:REGEX over the group key.
    #[arg(long = "allow-group", value_name = "PATTERN")]
    pub allow_groups: Vec<String>,
}

/// The maxima of an image's figures (`check`, `bisect`), each after the allowlist.
#[derive(Debug, Clone, Args)]
pub struct MaxOpts {
    /// Maximum predicted weak-def lookups (after the allowlist).
    #[arg(long, value_name = "N")]
    pub max_predicted_weak_lookups: Option<u64>,
    /// Maximum weak-def exports (after the allowlist).
    #[arg(long, value_name = "N")]
    pub max_weak_def_exports: Option<u64>,
    /// Maximum weak-bound symbols (after the allowlist).
    #[arg(long, value_name = "N")]
    pub max_weak_bind_symbols: Option<u64>,
}

impl MaxOpts {
    /// The maxima given, by figure.
    pub fn maxima(&self) -> std::collections::BTreeMap<crate::analysis::check::Figure, u64> {
        use crate::analysis::check::Figure;
        [
            (
                Figure::PredictedWeakLookups,
                self.max_predicted_weak_lookups,
            ),
            (Figure::WeakDefExports, self.max_weak_def_exports),
            (Figure::WeakBindSymbols, self.max_weak_bind_symbols),
        ]
        .into_iter()
        .filter_map(|(f, m)| m.map(|m| (f, m)))
        .collect()
    }
}
