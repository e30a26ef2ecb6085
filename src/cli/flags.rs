//! `weakscan flags OLD NEW`.

use crate::command::flags::FlagsRequest;
use crate::output::Format;
use clap::Args;
use std::path::PathBuf;

/// `weakscan flags`.
#[derive(Debug, Args)]
pub struct FlagsArgs {
    /// The old build's compile database: compile_commands.json or a command dump.
    ///
    /// A command dump is what `ninja -n --verbose` prints, one command a line; the form is told
    /// by content.
    pub old: PathBuf,
    /// The new build's compile database.
    pub new: PathBuf,
    /// Output format (github: as table).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write the report to PATH, not stdout.
    ///
    /// `-` is stdout; how a file is written: see --help of baseline -o.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

impl FlagsArgs {
    /// The request for [`crate::command::flags`].
    pub fn request(&self) -> FlagsRequest {
        FlagsRequest {
            old: self.old.clone(),
            new: self.new.clone(),
            format: self.format,
            output: self.output.clone(),
        }
    }
}
