//! `weakscan verify BINARY LOG`: a binary's predicted lookups held against a dyld log of it.

use super::{emit_report, one_stdin};
use crate::analysis::group::GroupBy;
use crate::analysis::verify::{pick_log_image, verify};
use crate::error::{Error, ErrorKind, Result};
use crate::input::{FileKind, ReadOptions, read_input};
use crate::output::render::ProcessVerify;
use crate::output::{Format, RenderOptions};
use std::path::PathBuf;

/// What `weakscan verify` was asked to do.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    /// The Mach-O file (`-` is stdin).
    pub binary: PathBuf,
    /// The log recorded from it.
    pub log: PathBuf,
    /// Differences still accepted.
    pub tolerance: usize,
    /// The image of the log to compare with.
    pub image: Option<String>,
    /// How to read the inputs (the kinds are forced: binary, then log).
    pub read: ReadOptions,
    /// Grouping.
    pub group_by: GroupBy,
    /// Groups shown (`None`: all).
    pub top: Option<usize>,
    /// Output format.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
    /// Hold a whole process against the log (`--process`, or a directory or bundle given).
    pub process: Option<crate::process::load::LoadOptions>,
}

/// Runs `weakscan verify`: exit 0 when the binary and the log agree within the tolerance, 1
/// when they do not.
pub fn run(req: &VerifyRequest, opts: &RenderOptions) -> Result<u8> {
    if matches!(req.format, Format::Markdown | Format::Github) {
        return Err(crate::error::Error::usage(
            "verify writes --format table or json (markdown and github are for scan, diff and check)"
                .to_string(),
        ));
    }
    one_stdin(&[&req.binary, &req.log])?;
    if let Some(load) = &req.process {
        return run_process(req, load, opts);
    }
    let mut read = req.read.clone();
    read.kind = Some(FileKind::Binary);
    let binaries = read_input(&req.binary, &read)?;
    let [binary_image] = binaries.as_slice() else {
        let arches: Vec<&str> = binaries.iter().map(|i| i.label()).collect();
        return Err(Error::new(
            ErrorKind::Usage,
            &req.binary,
            format!(
                "{} slices ({}): pick the one the log was recorded from with --arch",
                binaries.len(),
                arches.join(", ")
            ),
        ));
    };
    read.kind = Some(FileKind::Log);
    let mut log_images = read_input(&req.log, &read)?;
    let mut notes = Vec::new();
    let mut k = pick_log_image(binary_image, &log_images, req.image.as_deref(), &mut notes)?;
    if binary_image.is_main_executable() {
        k = crate::log::set_main(&mut log_images, k);
    }
    let log_image = &log_images[k];
    let report = verify(
        binary_image,
        log_image,
        req.group_by,
        req.top,
        req.tolerance,
        notes,
        opts.names,
    )?;
    emit_report(req.output.as_ref(), req.format, &report, opts)?;
    Ok(if report.agrees { 0 } else { 1 })
}

/// `weakscan verify APP LOG`: every image of the process against the log's images.
fn run_process(
    req: &VerifyRequest,
    load: &crate::process::load::LoadOptions,
    opts: &RenderOptions,
) -> Result<u8> {
    if req.image.is_some() {
        return Err(Error::usage(
            "--image picks one image of the log for one binary; a process is compared image by image",
        ));
    }
    let processes = super::process::load_processes(&req.binary, load)?;
    let [process] = processes.as_slice() else {
        let arches: Vec<&str> = processes.iter().map(|p| p.arch.as_str()).collect();
        return Err(Error::new(
            ErrorKind::Usage,
            &req.binary,
            format!(
                "{} slices ({}): pick the one the log was recorded from with --arch",
                processes.len(),
                arches.join(", ")
            ),
        ));
    };
    let mut read = req.read.clone();
    read.kind = Some(FileKind::Log);
    let mut log_images = read_input(&req.log, &read)?;
    // The log's main executable is the process's, by name (inserted dylibs come before it).
    let main_name = process.main().image.as_ref().map(|i| i.name.as_str());
    if let Some(k) = log_images
        .iter()
        .position(|l| Some(l.name.as_str()) == main_name)
    {
        crate::log::set_main(&mut log_images, k);
    }
    let report = crate::analysis::process_verify::verify_process(
        process,
        &log_images,
        req.group_by,
        req.top,
        req.tolerance,
        opts.names,
    )?;
    let shown = ProcessVerify {
        report: &report,
        group_by: req.group_by,
    };
    emit_report(req.output.as_ref(), req.format, &shown, opts)?;
    Ok(if report.agrees { 0 } else { 1 })
}
