//! `weakscan diff OLD NEW`.

use super::opts::{CommonOpts, ImporterOpts, ProcessOpts};
use crate::command::diff::DiffRequest;
use crate::error::Result;
use crate::origin::attach::OriginFiles;
use clap::Args;
use std::path::PathBuf;

/// `weakscan diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old build: a Mach-O file or a dyld log.
    pub old: PathBuf,
    /// The new build: a Mach-O file or a dyld log.
    pub new: PathBuf,
    /// Also list the weak-bound symbols added and removed.
    #[arg(long)]
    pub symbols: bool,
    /// The old build's dSYM (bundle or DWARF file).
    ///
    /// As scan's --dsym, for the old build: weak definitions are attributed to compile units
    /// by address; its UUID must match the old build's. Each side takes its own flag, so a
    /// side without one keeps its debug map, and neither depends on the order given.
    #[arg(long, value_name = "PATH", conflicts_with = "old_map")]
    pub old_dsym: Option<PathBuf>,
    /// The new build's dSYM (bundle or DWARF file).
    ///
    /// As scan's --dsym, for the new build.
    #[arg(long, value_name = "PATH", conflicts_with = "new_map")]
    pub new_dsym: Option<PathBuf>,
    /// The old build's link map (`ld64 -map FILE`).
    ///
    /// As scan's --map, for the old build: symbols are attributed by name to the objects it
    /// lists.
    #[arg(long, value_name = "FILE")]
    pub old_map: Option<PathBuf>,
    /// The new build's link map (`ld64 -map FILE`).
    ///
    /// As scan's --map, for the new build.
    #[arg(long, value_name = "FILE")]
    pub new_map: Option<PathBuf>,
    /// Where the new build's objects are (archives, objects, directories).
    ///
    /// As scan's --objects, for the new build, whose fix plan the diff shows: the objects its
    /// debug map (or --new-map) names are read where it says, else looked for by file name
    /// below these paths (repeatable). Without them the plan's figures are "at most".
    #[arg(long = "objects", value_name = "PATH")]
    pub objects: Vec<PathBuf>,
    /// The new build's compile database: compile_commands.json or a command dump.
    ///
    /// clang's compile database of the new build (or `ninja -n --verbose` output), the one a
    /// fix changes: the fix names the compile command of the object the largest change comes
    /// from, and whether it compiles with -fvisibility=hidden. --compile-commands is the same.
    #[arg(long, visible_alias = "compile-commands", value_name = "FILE")]
    pub new_compile_commands: Option<PathBuf>,
    /// The old build's compile database: compile_commands.json or a command dump.
    ///
    /// With --new-compile-commands: the section "compiled differently" lists, per library,
    /// the new build's objects whose visibility options changed between the two databases
    /// and the lookups they cost; the fix names the library when it explains the growth.
    #[arg(long, value_name = "FILE", requires = "new_compile_commands")]
    pub old_compile_commands: Option<PathBuf>,
    /// Link the HTML report at URL (markdown and github).
    ///
    /// The Markdown report (a pull-request comment) links it after the fix, and the github
    /// summary line names it; e.g. the URL of the artifact `weakscan report` was uploaded as.
    #[arg(long, value_name = "URL")]
    pub report_url: Option<String>,
    /// Compare the OLD arch of the old build with the NEW arch of the new one.
    ///
    /// E.g. x86_64=arm64; without it, builds that share no arch are an error (exit 2).
    #[arg(long, value_name = "OLD=NEW", value_parser = parse_pair_arch)]
    pub pair_arch: Option<(String, String)>,
    /// Name the builds in every output: twice, old then new.
    ///
    /// E.g. --label main --label pr-123. Default: their versions when both paths have one,
    /// else the shortest path suffix that tells them apart (old/out/Release/node).
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,
    #[command(flatten)]
    pub process: ProcessOpts,
    #[command(flatten)]
    pub importer: ImporterOpts,
    #[command(flatten)]
    pub opts: CommonOpts,
}

impl DiffArgs {
    /// The request for [`crate::command::diff`]. Errors (usage): `--search`/`--sysroot`
    /// without a process.
    pub fn request(&self) -> Result<DiffRequest> {
        let opts = &self.opts;
        Ok(DiffRequest {
            importers: self.importer.importers.clone(),
            process: self.process.load(&[&self.old, &self.new], &opts.arch)?,
            pair_arch: self.pair_arch.clone(),
            labels: self.labels.clone(),
            old: self.old.clone(),
            new: self.new.clone(),
            symbols: self.symbols,
            origin: [
                OriginFiles {
                    map: self.old_map.clone(),
                    dsym: self.old_dsym.clone(),
                    objects: Vec::new(),
                },
                OriginFiles {
                    map: self.new_map.clone(),
                    dsym: self.new_dsym.clone(),
                    objects: self.objects.clone(),
                },
            ],
            compile_commands: self.new_compile_commands.clone(),
            old_compile_commands: self.old_compile_commands.clone(),
            report_url: self.report_url.clone(),
            // The new build's fix plan (in the JSON) counts what each candidate would also hide.
            read: crate::input::ReadOptions {
                other_exports: true,
                ..opts.read_options()
            },
            group_by: opts.group_by(),
            top: opts.top(),
            format: opts.format,
            output: opts.output.clone(),
        })
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
