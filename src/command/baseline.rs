//! `weakscan baseline FILE`: write the baseline `check --baseline` compares with.

use super::emit;
use crate::analysis::check::Figure;
use crate::analysis::group::GroupBy;
use crate::analysis::report::scan_report;
use crate::error::Result;
use crate::input::read_binary;
use crate::macho::ArchFilter;
use crate::output::{self, RenderOptions};
use std::io::Write;
use std::path::PathBuf;

/// What `weakscan baseline` was asked to do.
#[derive(Debug, Clone)]
pub struct BaselineRequest {
    /// The build.
    pub file: PathBuf,
    /// Where to write (stdout when `None`).
    pub output: Option<PathBuf>,
    /// The slices to record.
    pub arch: ArchFilter,
    /// The grouping of the recorded groups (symbols are recorded by raw name, whatever it is).
    pub group_by: GroupBy,
    /// `--map` / `--dsym`.
    pub origin: crate::origin::attach::OriginFiles,
    /// Record a whole process (`--process`, or a directory or bundle given), loaded so.
    pub process: Option<crate::process::load::LoadOptions>,
}

/// Runs `weakscan baseline`: the baseline JSON on stdout, or written to `output` (see
/// [`crate::output::sink`]: a regular file is replaced atomically) with a one-line confirmation
/// on stdout. Exit 0.
///
/// Errors: unreadable or malformed input, or the output cannot be written (exit 2).
pub fn run(req: &BaselineRequest, opts: &RenderOptions) -> Result<u8> {
    // A process is recorded as one image per arch (`crate::analysis::merge`) with its trie
    // probes, `input_kind: "process"`.
    let mut probes = Vec::new();
    let images = match &req.process {
        Some(load) => {
            if !req.origin.is_empty() {
                return Err(crate::error::Error::usage(
                    "--map and --dsym describe one binary, not a whole process",
                ));
            }
            let mut images = Vec::new();
            for p in super::process::load_processes(&req.file, load)? {
                probes.push(crate::analysis::coalesce::coalesce(&p, opts.names)?.trie_probes);
                images.push(crate::analysis::merge::merged(&p).ok_or_else(|| {
                    crate::error::Error::new(
                        crate::error::ErrorKind::Malformed,
                        &req.file,
                        "the main executable was not read",
                    )
                })?);
            }
            images
        }
        None => {
            let mut images = read_binary(&req.file, &req.arch)?;
            crate::origin::attach::attach(&mut images, &req.origin)?;
            images
        }
    };
    let mut report = scan_report(&images, req.group_by, None, opts.names)?;
    for (r, probes) in report.images.iter_mut().zip(&probes) {
        r.summary.input_kind = super::check::PROCESS_KIND;
        r.summary.trie_probes = Some(*probes);
    }
    emit(req.output.as_ref(), |out| {
        output::baseline::render(out, &report, &images)
    })?;
    // The confirmation is a status line: on stderr (as cargo's and ripgrep's are), so it never
    // lands in the baseline, whatever `-o` names (`-o /dev/stdout`, a link to stdout's file).
    let Some(out) = req.output.as_ref().filter(|o| o.as_os_str() != "-") else {
        return Ok(0);
    };
    let slices: Vec<String> = images
        .iter()
        .zip(&report.images)
        .map(|(image, r)| {
            let figures: Vec<String> = Figure::ALL
                .iter()
                .filter_map(|f| match f.of(&r.summary) {
                    Some(v) => Some(format!("{f} {v}")),
                    // Trie probes are a figure of processes only: not listed as n/a elsewhere.
                    None if *f == Figure::TrieProbes => None,
                    None => Some(format!("{f} n/a")),
                })
                .collect();
            format!("{}: {}", image.label(), figures.join(", "))
        })
        .collect();
    // A status line that cannot be written changes nothing: the baseline is written.
    let _ = writeln!(
        std::io::stderr(),
        "wrote {} from {} ({})",
        crate::text::escape_path(out),
        crate::text::escape_path(&req.file),
        slices.join("; ")
    );
    Ok(0)
}
