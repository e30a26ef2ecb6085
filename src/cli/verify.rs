//! `weakscan verify BINARY LOG`.

use super::opts::{CommonOpts, ProcessOpts};
use crate::command::verify::VerifyRequest;
use crate::error::Result;
use clap::Args;
use std::path::PathBuf;

/// `weakscan verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The Mach-O file (one slice: --arch for a universal file).
    pub binary: PathBuf,
    /// The dyld log recorded from it.
    pub log: PathBuf,
    /// Differences still accepted.
    ///
    /// Predicted but not seen, plus seen but not predicted.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub tolerance: usize,
    /// The log's image to compare with (its name or full path).
    ///
    /// Default: the image named like the binary's file, else like its install name, else
    /// (for a main executable) the log's main executable — not the first image fixed up:
    /// DYLD_INSERT_LIBRARIES dylibs come before it.
    #[arg(long, value_name = "NAME")]
    pub image: Option<String>,
    #[command(flatten)]
    pub process: ProcessOpts,
    #[command(flatten)]
    pub opts: CommonOpts,
}

impl VerifyArgs {
    /// The request for [`crate::command::verify`]. Errors (usage): `--search`/`--sysroot`
    /// without a process.
    pub fn request(&self) -> Result<VerifyRequest> {
        let opts = &self.opts;
        Ok(VerifyRequest {
            process: self.process.load(&[&self.binary], &opts.arch)?,
            binary: self.binary.clone(),
            log: self.log.clone(),
            tolerance: self.tolerance,
            image: self.image.clone(),
            read: opts.read_options(),
            group_by: opts.group_by(),
            top: opts.top(),
            format: opts.format,
            output: opts.output.clone(),
        })
    }
}
