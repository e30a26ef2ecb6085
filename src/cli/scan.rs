//! `weakscan scan FILE…`.

use super::opts::{CommonOpts, ImporterOpts, ObjectsOpts, OriginOpts, ProcessOpts};
use crate::command::process::ProcessRequest;
use crate::command::scan::ScanRequest;
use crate::error::{Error, Result};
use crate::input::ReadOptions;
use clap::Args;
use std::path::PathBuf;

/// `weakscan scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Mach-O files or dyld logs; `-` is stdin.
    ///
    /// Mach-O files (thin or universal) or DYLD_PRINT_BINDINGS logs. A directory or bundle
    /// (.app, .framework) is read as a whole process (see --process).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub process: ProcessOpts,
    /// The build's compile_commands.json.
    ///
    /// clang's compile database: names the compile command of each object the weak symbols
    /// come from, and whether it compiles with -fvisibility=hidden.
    #[arg(long, value_name = "FILE")]
    pub compile_commands: Option<PathBuf>,
    #[command(flatten)]
    pub origin: OriginOpts,
    #[command(flatten)]
    pub objects: ObjectsOpts,
    #[command(flatten)]
    pub importer: ImporterOpts,
    #[command(flatten)]
    pub opts: CommonOpts,
}

impl ScanArgs {
    /// The request for [`crate::command::scan`]. Errors (usage): as [`ScanArgs::process`].
    pub fn request(&self) -> Result<ScanRequest> {
        let opts = &self.opts;
        Ok(ScanRequest {
            importers: self.importer.importers.clone(),
            process: self.process()?,
            origin: self.origin.files(&self.objects.objects),
            files: self.files.clone(),
            // The fix plan shows what each candidate would also hide.
            read: ReadOptions {
                other_exports: true,
                ..opts.read_options()
            },
            group_by: opts.group_by(),
            top: opts.top(),
            format: opts.format,
            output: opts.output.clone(),
            compile_commands: self.compile_commands.clone(),
        })
    }

    /// A process scan, when `--process` is given or the one input is a directory. Errors:
    /// several inputs with a process, `--map`, `--dsym` or `--compile-commands` with one,
    /// `--search`/`--sysroot` without one.
    fn process(&self) -> Result<Option<ProcessRequest>> {
        let files: Vec<&PathBuf> = self.files.iter().collect();
        let Some(load) = self.process.load(&files, &self.opts.arch)? else {
            return Ok(None);
        };
        let [input] = self.files.as_slice() else {
            return Err(Error::usage(
                "a process is read from one main executable, bundle or directory: give it as the only input",
            ));
        };
        // Each image of a process is attributed by its own debug map: a file of one binary
        // would not say which image it describes (and would be left unread).
        let one_binary = [
            ("--map", self.origin.map.is_some()),
            ("--dsym", self.origin.dsym.is_some()),
            ("--compile-commands", self.compile_commands.is_some()),
        ];
        if let Some((flag, _)) = one_binary.iter().find(|(_, given)| *given) {
            return Err(Error::usage(format!(
                "{flag} describes one binary, not a whole process: scan the main executable or dylib it is of alone"
            )));
        }
        Ok(Some(ProcessRequest {
            input: input.clone(),
            load,
            top: self.opts.top(),
            format: self.opts.format,
            output: self.opts.output.clone(),
            objects: self.objects.objects.clone(),
        }))
    }
}
