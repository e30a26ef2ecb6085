//! `weakscan scan FILE…`: weak definitions, weak binds and lookups of binaries or logs, grouped.

use super::builds::read_builds;
use super::{emit_report, one_binary_for, one_stdin};
use crate::analysis::group::GroupBy;
use crate::analysis::report::scan_report_with;
use crate::analysis::visibility::visibility_report;
use crate::error::{Error, Result};
use crate::input::ReadOptions;
use crate::model::Image;
use crate::origin::attach::{OriginFiles, attach};
use crate::output::{Format, RenderOptions};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What `weakscan scan` was asked to do.
#[derive(Debug, Clone)]
pub struct ScanRequest {
    /// Inputs (`-` is stdin).
    pub files: Vec<PathBuf>,
    /// How to read them.
    pub read: ReadOptions,
    /// Grouping.
    pub group_by: GroupBy,
    /// Groups shown per image (`None`: all).
    pub top: Option<usize>,
    /// Output format.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
    /// `--compile-commands`: a compile database to join attributed objects to.
    pub compile_commands: Option<PathBuf>,
    /// `--map` / `--dsym`.
    pub origin: OriginFiles,
    /// `--process MAIN` (or a directory given as the input): `--search` and `--sysroot` with it.
    pub process: Option<super::process::ProcessRequest>,
    /// `--importer`: files or directories of importers, held against each image's exports.
    pub importers: Vec<PathBuf>,
}

/// Runs `weakscan scan`, rendering with `opts`: always exit 0 on success.
pub fn run(req: &ScanRequest, opts: &RenderOptions) -> Result<u8> {
    if let Some(p) = &req.process {
        if !req.importers.is_empty() {
            return Err(Error::usage(
                "--importer holds importers against one binary: scan the main executable or dylib itself, not a whole process",
            ));
        }
        return super::process::run(p, opts);
    }
    one_stdin(&req.files.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    let files: Vec<&Path> = req.files.iter().map(PathBuf::as_path).collect();
    let store = OnceLock::new();
    let builds = read_builds(&files, &req.read, req.group_by, opts.names, 1, &store)?;
    one_binary_for(&req.origin, req.files.len())?;
    // Per image (in report order), the importers read in its arch.
    let mut slices_per_image = Vec::new();
    let importer_checks = match super::importers::Importers::find(&req.importers)? {
        Some(mut imp) => {
            let mut checks = Vec::new();
            for (file, images) in files.iter().zip(&builds.images) {
                for image in images {
                    let (c, s) = super::importers::check_image_keeping(&mut imp, image, file)?;
                    checks.extend(c);
                    slices_per_image.push(s);
                }
            }
            Some((checks, imp.skipped()))
        }
        None => None,
    };
    let mut images: Vec<Image> = builds.images.into_iter().flatten().collect();
    attach(&mut images, &req.origin)?;
    let compile_db = match &req.compile_commands {
        Some(path) => Some(super::builds::join_compile_db(path, &mut images)?),
        None => None,
    };
    let mut report = scan_report_with(&images, builds.names, req.group_by, req.top);
    if let Some((checks, skipped)) = importer_checks {
        report.importers = checks;
        report.importers_skipped = skipped;
        for (img, slices) in report.images.iter_mut().zip(&slices_per_image) {
            super::importers::imported_by(&mut img.fix_plan, img.image, slices);
        }
    }
    if let Some((commands, index)) = &compile_db {
        for img in &mut report.images {
            if img.image.attribution.is_some() {
                img.visibility = Some(visibility_report(img.image, commands, index));
            }
        }
    }
    emit_report(req.output.as_ref(), req.format, &report, opts)?;
    crate::memory::discard(report);
    crate::memory::discard(images);
    crate::memory::discard(store);
    Ok(0)
}
