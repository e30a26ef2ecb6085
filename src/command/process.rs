//! `weakscan scan APP|DIR` and `weakscan scan --process MAIN`: a whole process — the main
//! executable and the dylibs dyld loads with it ([`crate::process`]), coalesced as dyld4 does
//! it ([`crate::analysis::coalesce`]).

use super::emit_report;
use crate::analysis::coalesce::coalesce_with;
use crate::error::Result;
use crate::origin::definers::{ObjectFiles, attach_definers};
use crate::output::{self, Format, RenderOptions};
use crate::process::bundle::locate;
use crate::process::load::{LoadOptions, load};
use std::path::PathBuf;

/// What a process scan was asked to do.
#[derive(Debug, Clone)]
pub struct ProcessRequest {
    /// The main executable, a bundle (`.app`, `.framework`) or a directory.
    pub input: PathBuf,
    /// `--arch`, `--search`, `--sysroot`.
    pub load: LoadOptions,
    /// Duplicate groups shown per process (`None`: all).
    pub top: Option<usize>,
    /// Table or JSON.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
    /// `--objects`: where the objects the images' debug maps name are, when not at the path
    /// named ([`crate::origin::definers`]).
    pub objects: Vec<PathBuf>,
}

/// Runs a process scan: exit 0 on success, whatever problems were met finding the images (they
/// are reported and counted). Errors (exit 2): the main executable cannot be found or read; as
/// [`attach_definers`] (`--objects`).
pub fn run(req: &ProcessRequest, opts: &RenderOptions) -> Result<u8> {
    let processes = load_planned(&req.input, &req.load, &req.objects)?;
    // Reading the images freed as much as their models hold (file buffers, names before
    // interning): returned to the system before the coalescing allocates its tables, which
    // lowers the peak of a large process.
    crate::memory::release_freed();
    let reports = processes
        .iter()
        .map(|p| coalesce_with(p, opts.names, true))
        .collect::<Result<Vec<_>>>()?;
    let processes = output::render::Processes {
        reports: &reports,
        top: req.top,
    };
    emit_report(req.output.as_ref(), req.format, &processes, opts)?;
    Ok(0)
}

/// The processes of `input` (a main executable, bundle or directory), one per selected arch.
/// Errors: as [`locate`] and [`load`].
pub fn load_processes(
    input: &std::path::Path,
    opts: &LoadOptions,
) -> Result<Vec<crate::process::Process>> {
    load(&locate(input)?, opts)
}

/// [`load_processes`], with every definer of each image's weak symbols read, as a scan of one
/// image reads them ([`attach_definers`]: on disk where the debug maps name the objects, else
/// below `objects`): what a fix plan of the processes needs, since it routes a symbol several
/// libraries define to all of them. Errors: as [`load_processes`] and [`attach_definers`].
pub fn load_planned(
    input: &std::path::Path,
    opts: &LoadOptions,
    objects: &[PathBuf],
) -> Result<Vec<crate::process::Process>> {
    let mut processes = load_processes(input, opts)?;
    let objects = ObjectFiles::find(objects)?;
    for p in &mut processes {
        attach_definers(
            p.images.iter_mut().filter_map(|i| i.image.as_mut()),
            &objects,
        )?;
    }
    Ok(processes)
}
