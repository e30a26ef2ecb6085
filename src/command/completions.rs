//! `weakscan completions SHELL`, `weakscan man` and `weakscan schema DOCUMENT`: shell
//! completions (clap_complete) and a roff man page (clap_mangen), generated from the command
//! line's own definition, so they never disagree with `--help`; and the JSON Schema of a
//! document (schemars), generated from the types that write it.

use super::emit;
use crate::error::Result;
use std::io::Write;
use std::path::PathBuf;

/// What to generate.
#[derive(Debug, Clone)]
pub enum Generated {
    /// A completion script for this shell.
    Completions(clap_complete::Shell),
    /// The man page, `weakscan(1)`, with each subcommand's options.
    Man,
    /// The JSON Schema of a document ([`crate::output::schemas::schema`]).
    Schema(crate::schema::Document),
}

/// `weakscan completions` / `weakscan man` / `weakscan schema`.
#[derive(Debug, Clone)]
pub struct GenerateRequest {
    /// What to write.
    pub what: Generated,
    /// The command line definition (`Cli::command()`), given by the parser.
    pub command: clap::Command,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
}

/// Writes the completions, the man page or the schema. Errors: the output cannot be written (exit 2).
pub fn run(req: &GenerateRequest) -> Result<u8> {
    let mut command = req.command.clone();
    emit(req.output.as_ref(), |out| match req.what {
        Generated::Completions(shell) => {
            let name = command.get_name().to_string();
            clap_complete::generate(shell, &mut command, name, out);
            Ok(())
        }
        Generated::Man => {
            let man = clap_mangen::Man::new(command.clone());
            man.render(out)?;
            for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
                let name = format!("{}-{}", command.get_name(), sub.get_name());
                clap_mangen::Man::new(sub.clone().name(name)).render(out)?;
            }
            Ok(())
        }
        Generated::Schema(doc) => {
            let schema = crate::output::schemas::schema(doc);
            serde_json::to_writer_pretty(&mut *out, &schema)?;
            out.write_all(b"\n")
        }
    })?;
    Ok(0)
}
