//! `weakscan diff OLD NEW`.

use super::opts::{CommonOpts, ImporterOpts, ProcessOpts};
use crate::command::diff::DiffRequest;
use crate::error::Result;
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
    /// Compare the OLD-arch slice of the old build with the NEW-arch slice of the new one
    /// (e.g. x86_64=arm64); without it, builds that share no arch are an error (exit 2).
    #[arg(long, value_name = "OLD=NEW", value_parser = parse_pair_arch)]
    pub pair_arch: Option<(String, String)>,
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
            old: self.old.clone(),
            new: self.new.clone(),
            symbols: self.symbols,
            read: opts.read_options(),
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
