//! `weakscan hide BIN`.

use super::opts::{ImporterOpts, ObjectsOpts, OriginOpts, ProcessOpts};
use super::values;
use crate::analysis::group::GroupByName;
use crate::analysis::hide::ListKind;
use crate::command::hide::{HideRequest, Scope};
use crate::error::{Error, Result};
use crate::gate::pattern::Pattern;
use crate::macho::ArchFilter;
use crate::output::Format;
use clap::Args;
use std::path::PathBuf;

/// `weakscan hide`.
#[derive(Debug, Args)]
pub struct HideArgs {
    /// The linked image (one slice: --arch for a universal file), or a whole process: its main
    /// executable with --process, a bundle (.app) or a directory.
    pub input: PathBuf,
    /// Write the list to PATH; the report goes to stdout.
    ///
    /// Without it the list goes to stdout, its head of # comments (which ld64 and ld64.lld
    /// skip) saying what it saves and keeps. Written as every -o: see --help of baseline -o.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Write the allow list for -exported_symbols_list: every export of the image but the
    /// weak definitions hidden.
    #[arg(long)]
    pub exported: bool,
    /// Hide only the weak definitions of LIBRARY (a key of `scan --by library`, from the debug
    /// map: libv8_base_without_compiler.a).
    #[arg(long, value_name = "LIBRARY", conflicts_with = "group")]
    pub library: Option<String>,
    /// Hide only the weak definitions whose group key matches PATTERN (a glob, or re:REGEX, as
    /// check --allow-group); keys as --by makes them.
    #[arg(long, value_name = "PATTERN")]
    pub group: Option<String>,
    /// With --group: how to group symbols.
    #[arg(long = "by", value_enum, default_value_t = GroupByName::Template)]
    pub by: GroupByName,
    /// Namespace components kept by `--by namespace`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
    /// The build's own symbol list (ld64's syntax, wildcards too): what it names stays
    /// exported.
    #[arg(long, value_name = "FILE")]
    pub keep: Option<PathBuf>,
    /// List typeinfo objects and names (_ZTI, _ZTS) too.
    ///
    /// Kept by default: compiled unique (all but Apple arm64), their addresses are what catch
    /// and dynamic_cast compare across images, so a copy hidden in one image no longer equals
    /// another image's.
    #[arg(long)]
    pub hide_typeinfo: bool,
    /// With a process: the image the list is for, as the process names it
    /// (Contents/Frameworks/libfoo.dylib). Default: the main executable.
    #[arg(long, value_name = "NAME")]
    pub image: Option<String>,
    /// Which slice of a universal file to read.
    #[arg(long, value_parser = values::arch(), default_value = "all")]
    pub arch: ArchFilter,
    /// The report's format (with -o).
    #[arg(long, value_parser = values::hide_format(), default_value = "table")]
    pub format: Format,
    #[command(flatten)]
    pub process: ProcessOpts,
    #[command(flatten)]
    pub importer: ImporterOpts,
    #[command(flatten)]
    pub origin: OriginOpts,
    #[command(flatten)]
    pub objects: ObjectsOpts,
}

impl HideArgs {
    /// The request for [`crate::command::hide`]. Errors (usage): a bad `--group` pattern;
    /// `--image` without a process; `--search`/`--sysroot` without one; `--map`/`--dsym` or
    /// `--objects` with one (each image of a process is read by its own debug map).
    pub fn request(&self) -> Result<HideRequest> {
        let process = self.process.load(&[&self.input], &self.arch)?;
        if process.is_none() && self.image.is_some() {
            return Err(Error::usage(
                "--image names an image of a process: give --process, a bundle or a directory",
            ));
        }
        if process.is_some()
            && (self.origin.map.is_some()
                || self.origin.dsym.is_some()
                || !self.objects.objects.is_empty())
        {
            return Err(Error::usage(
                "--map, --dsym and --objects describe one binary: give the image itself, not its process, with them",
            ));
        }
        let scope = match (&self.library, &self.group) {
            (Some(l), _) => Scope::Library(l.clone()),
            (None, Some(g)) => Scope::Group(
                Pattern::parse(g).map_err(|e| Error::usage(format!("--group: {e}")))?,
                self.by.with_depth(usize::from(self.depth)),
            ),
            (None, None) => Scope::All,
        };
        Ok(HideRequest {
            input: self.input.clone(),
            process,
            image: self.image.clone(),
            arch: self.arch.clone(),
            scope,
            kind: if self.exported {
                ListKind::Exported
            } else {
                ListKind::Unexported
            },
            importers: self.importer.importers.clone(),
            keep: self.keep.clone(),
            hide_typeinfo: self.hide_typeinfo,
            origin: self.origin.files(&self.objects.objects),
            format: self.format,
            output: self.output.clone(),
        })
    }
}
