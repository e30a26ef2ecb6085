//! `weakscan completions SHELL`, `weakscan man` and `weakscan schema DOCUMENT`: what weakscan
//! prints about itself.

use crate::command::completions::{GenerateRequest, Generated};
use clap::Args;
use std::path::PathBuf;

/// `weakscan completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
    /// Write here instead of stdout.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// `weakscan man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write here instead of stdout.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// `weakscan schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The document.
    #[arg(value_enum)]
    pub document: crate::schema::Document,
    /// Write here instead of stdout.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// The request to print `what` of the command line `command` to `output`.
pub(super) fn request(
    what: Generated,
    command: clap::Command,
    output: &Option<PathBuf>,
) -> GenerateRequest {
    GenerateRequest {
        what,
        command,
        output: output.clone(),
    }
}
