//! `weakscan hide BIN`: the link-time symbol list that hides an image's weak definitions
//! ([`crate::analysis::hide`]), written to `-o FILE` (through [`crate::output::sink`]: a temp
//! file renamed over it, never through a symlink or onto a device) with what it saves and keeps
//! on stdout; without `-o` the list goes to stdout, its head of `#` comments saying the same.
//!
//! The image is one slice of a binary, or one image of a whole process (`hide APP.app`,
//! `hide --process MAIN`; `--image NAME`, default the main executable), whose other images
//! then keep what they share with it exported.

use super::builds::read_builds;
use super::importers::Importers;
use super::{emit, emit_report};
use crate::analysis::attribute::Origins;
use crate::analysis::demangle::NameStyle;
use crate::analysis::group::GroupBy;
use crate::analysis::hide::{HideInputs, ListKind, hide_list, of_library};
use crate::error::{Error, ErrorKind, Result};
use crate::gate::pattern::Pattern;
use crate::input::ReadOptions;
use crate::macho::ArchFilter;
use crate::macho::imports::{ImporterSlice, read_importer};
use crate::model::{Image, Source};
use crate::origin::attach::{OriginFiles, attach};
use crate::origin::symbol_list::SymbolList;
use crate::output::hide::{HideReport, write_list};
use crate::output::{Format, RenderOptions};
use crate::process::load::LoadOptions;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Which weak definitions the list may hide.
#[derive(Debug, Clone)]
pub enum Scope {
    /// Every weak definition of the image.
    All,
    /// Those of one library, as the fix plan keys it (`libv8_base_without_compiler.a`).
    Library(String),
    /// Those whose group key under the grouping matches the pattern.
    Group(Pattern, GroupBy),
}

impl Scope {
    fn words(&self) -> String {
        match self {
            Scope::All => "all".into(),
            Scope::Library(l) => format!("library {l}"),
            Scope::Group(p, by) => format!("group {} (--by {})", p.text, by.as_str()),
        }
    }
}

/// What `weakscan hide` was asked to do.
#[derive(Debug, Clone)]
pub struct HideRequest {
    /// The binary, or a process's main executable, bundle or directory.
    pub input: PathBuf,
    /// With a process: how to load it; `None` for a single binary.
    pub process: Option<LoadOptions>,
    /// With a process: the image the list is for (its name as the process shows it).
    pub image: Option<String>,
    /// `--arch`.
    pub arch: ArchFilter,
    /// Which weak definitions.
    pub scope: Scope,
    /// The unexported list, or its complement.
    pub kind: ListKind,
    /// `--importer`: images that bind to this one.
    pub importers: Vec<PathBuf>,
    /// `--keep`: the build's own symbol list, whose names stay exported.
    pub keep: Option<PathBuf>,
    /// `--hide-typeinfo`: list typeinfo objects and names too.
    pub hide_typeinfo: bool,
    /// `--map`, `--dsym`, `--objects`.
    pub origin: OriginFiles,
    /// The report's format (table or JSON).
    pub format: Format,
    /// `-o`: where the list goes (stdout when `None`).
    pub output: Option<PathBuf>,
}

/// Runs `weakscan hide`: exit 0 with the list written. Errors (exit 2): the input is not one
/// linked Mach-O image; `--library` names no library of it; `--image` names no image of the
/// process; the inputs, importers or `--keep` list cannot be read; the list cannot be written.
pub fn run(req: &HideRequest, opts: &RenderOptions) -> Result<u8> {
    let to_file = req.output.as_ref().filter(|p| p.as_os_str() != "-");
    if to_file.is_none() && req.format == Format::Json {
        return Err(Error::usage(
            "--format json is the report of a list written to a file: give the list -o FILE",
        ));
    }
    let processes;
    let mut shown = String::new();
    let (file, arch, others, process_imports) = match &req.process {
        Some(load) => {
            processes = super::process::load_planned(&req.input, load, &[])?;
            let [process] = processes.as_slice() else {
                let arches: Vec<&str> = processes.iter().map(|p| p.arch.as_str()).collect();
                return Err(Error::new(
                    ErrorKind::Usage,
                    &req.input,
                    format!(
                        "{} slices ({}): a list is for one, pick it with --arch",
                        arches.len(),
                        arches.join(", ")
                    ),
                ));
            };
            let index = match &req.image {
                None => 0,
                Some(name) => process
                    .images
                    .iter()
                    .position(|i| &i.name == name)
                    .ok_or_else(|| {
                        let names: Vec<&str> =
                            process.images.iter().map(|i| i.name.as_str()).collect();
                        Error::new(
                            ErrorKind::Usage,
                            &req.input,
                            format!(
                                "--image {name}: no such image in the process ({})",
                                names.join(", ")
                            ),
                        )
                    })?,
            };
            let Some(path) = process.images[index].path.clone() else {
                return Err(Error::new(
                    ErrorKind::Usage,
                    &req.input,
                    format!(
                        "{} is outside the process's directories (not read): a list is for an image on disk",
                        process.images[index].name
                    ),
                ));
            };
            let others: Vec<(&str, &Image)> = process
                .images
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != index)
                .filter_map(|(_, i)| Some((i.name.as_str(), i.image.as_ref()?)))
                .collect();
            // Each named as the process names it, not by the path it was read at.
            let mut imports: Vec<ImporterSlice> = Vec::new();
            for (_, i) in process
                .images
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != index)
            {
                if let Some(p) = i.path.as_deref()
                    && let Some(mut slice) = read_importer(p, &process.arch)?
                {
                    slice.path = i.name.clone();
                    imports.push(slice);
                }
            }
            shown = format!(
                "{}: {}",
                crate::text::escape_path(&req.input),
                process.images[index].name
            );
            (
                path,
                ArchFilter::Only(process.arch.clone()),
                others,
                imports,
            )
        }
        None => (req.input.clone(), req.arch.clone(), Vec::new(), Vec::new()),
    };
    let store = OnceLock::new();
    let read = ReadOptions {
        arch,
        pid: None,
        kind: None,
        other_exports: true,
    };
    let by = match &req.scope {
        Scope::Group(_, by) => *by,
        _ => GroupBy::Symbol,
    };
    let builds = read_builds(&[&file], &read, by, NameStyle::default(), 1, &store)?;
    let mut images: Vec<Image> = builds.images.into_iter().flatten().collect();
    one_image(&file, &images)?;
    attach(&mut images, &req.origin)?;
    let image = &images[0];
    let names = builds.names;
    let slices = match Importers::find(&req.importers)? {
        Some(mut imp) => imp.read(image.arch.as_deref().unwrap_or_default())?,
        None => Vec::new(),
    };
    let origins = Origins::of(image);
    let in_scope: Box<dyn Fn(&str) -> bool> = match &req.scope {
        Scope::All => Box::new(|_| true),
        Scope::Library(library) => {
            let set: HashSet<&str> = of_library(image, &origins, &names, library).map_err(|keys| {
                Error::new(
                    ErrorKind::Usage,
                    &file,
                    format!(
                        "--library {library}: no weak definition comes from it (libraries: {}); without a debug map, choose by --group",
                        keys.join(", ")
                    ),
                )
            })?;
            Box::new(move |raw| set.contains(raw))
        }
        Scope::Group(pattern, by) => {
            let (names, origins) = (&names, &origins);
            Box::new(move |raw| {
                let name = names.lookup(raw);
                let origin = origins.origin(raw);
                pattern.is_match(&by.key(raw, &name, &origin))
            })
        }
    };
    let keep_list = req.keep.as_deref().map(SymbolList::read).transpose()?;
    let keep_path = req.keep.as_deref().map(crate::text::escape_path);
    let mut cells = 0u64;
    let mut matcher = |raw: &str| -> Result<bool> {
        match (&keep_list, &req.keep) {
            (Some(list), Some(path)) => list.matches(raw, &mut cells, path),
            _ => Ok(false),
        }
    };
    let mut list = hide_list(HideInputs {
        image,
        kind: req.kind,
        scope: req.scope.words(),
        in_scope: &*in_scope,
        importers: &slices,
        others: &others,
        process_imports: &process_imports,
        keep: keep_path
            .as_deref()
            .map(|p| (p, &mut matcher as &mut dyn FnMut(&str) -> Result<bool>)),
        hide_typeinfo: req.hide_typeinfo,
    })?;
    if !shown.is_empty() {
        list.image = shown;
    }
    let report = HideReport {
        list: &list,
        written_to: to_file.map(|p| crate::text::escape_path(p)),
    };
    emit(to_file, |sink| write_list(sink, &report))?;
    if to_file.is_some() {
        emit_report(None, req.format, &report, opts)?;
    }
    Ok(0)
}

/// The one image of `file`: a linked Mach-O slice. Errors: several slices (pick with
/// `--arch`), a log or an archive.
fn one_image<'i>(file: &Path, images: &'i [Image]) -> Result<&'i Image> {
    let [image] = images else {
        let arches: Vec<&str> = images.iter().map(|i| i.label()).collect();
        return Err(Error::new(
            ErrorKind::Usage,
            file,
            format!(
                "{} slices ({}): a list is for one, pick it with --arch",
                images.len(),
                arches.join(", ")
            ),
        ));
    };
    if image.source != Source::Binary || image.filetype.is_none() {
        return Err(Error::new(
            ErrorKind::Usage,
            file,
            "a symbol list is for a linked Mach-O image, not a log or an archive",
        ));
    }
    Ok(image)
}
