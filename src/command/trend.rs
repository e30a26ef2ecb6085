//! `weakscan trend FILE…`: a series of builds (binaries, logs or whole processes), each read
//! once and all in parallel, followed by [`crate::analysis::trend`].

use super::{emit_report, one_stdin};
use crate::analysis::group::GroupBy;
use crate::analysis::labels::build_labels;
use crate::analysis::trend::{Build, Sort, order_by_version, trend, version_in};
use crate::error::{Error, ErrorKind, Result};
use crate::input::{ReadOptions, read_input};
use crate::output::{Format, RenderOptions};
use crate::process::load::LoadOptions;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// What `weakscan trend` was asked to do.
#[derive(Debug, Clone)]
pub struct TrendRequest {
    /// The builds, oldest first unless `sort` orders them (`-` is stdin, once).
    pub files: Vec<PathBuf>,
    /// As given, or by the version in each path.
    pub sort: Sort,
    /// `--label`: the builds' names, one per file in the order of `files` (empty: from their
    /// paths, [`crate::analysis::labels`]).
    pub labels: Vec<String>,
    /// How to read binaries and logs.
    pub read: ReadOptions,
    /// The grouping of each flagged step's groups.
    pub group_by: GroupBy,
    /// Groups (and libraries) listed per flagged step.
    pub top: usize,
    /// Table, JSON or Markdown.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
    /// Read every build as a whole process (`--process`, or a directory or bundle given),
    /// loaded so.
    pub process: Option<LoadOptions>,
}

/// Runs `weakscan trend`: exit 0 on success.
///
/// Errors (exit 2): fewer than two builds, `--format github`, a path without a version under
/// `--sort version`, no arch common to every build (usage); any build unreadable or malformed
/// (the first in the trend's order, named).
pub fn run(req: &TrendRequest, opts: &RenderOptions) -> Result<u8> {
    if req.files.len() < 2 {
        return Err(Error::usage(
            "a trend needs at least two builds (one build: weakscan scan FILE)",
        ));
    }
    if req.format == Format::Github {
        return Err(Error::usage(
            "trend writes --format table, json or markdown (github: not yet)",
        ));
    }
    let paths: Vec<&Path> = req.files.iter().map(PathBuf::as_path).collect();
    one_stdin(&paths)?;
    let (order, versions): (Vec<usize>, Vec<Option<String>>) = match req.sort {
        Sort::Input => (
            (0..paths.len()).collect(),
            paths.iter().map(|p| version_in(p, &paths)).collect(),
        ),
        Sort::Version => {
            let (order, versions) = order_by_version(&paths)?;
            (order, versions.into_iter().map(Some).collect())
        }
    };
    let labels = trend_labels(&paths, &order, &req.labels)?;
    // The builds are independent: read at the same time, each once. The first error in the
    // trend's order is the one reported, whichever thread met it first.
    let builds = order
        .par_iter()
        .zip(labels)
        .map(|(&i, label)| read_build(paths[i], versions[i].clone(), label, req, opts))
        .collect::<Vec<Result<Build>>>()
        .into_iter()
        .collect::<Result<Vec<Build>>>()?;
    let report = trend(&builds, req.group_by, req.top, req.sort, opts.names)?;
    emit_report(req.output.as_ref(), req.format, &report, opts)?;
    Ok(0)
}

/// The label of each build in the trend's `order` (indices into `paths`): `given` (one per
/// path, in the order of `paths`) when given, else from the paths in that order.
fn trend_labels(paths: &[&Path], order: &[usize], given: &[String]) -> Result<Vec<String>> {
    let shown: Vec<String> = paths.iter().map(|p| crate::text::escape_path(p)).collect();
    if given.is_empty() {
        let ordered: Vec<&str> = order.iter().map(|&i| shown[i].as_str()).collect();
        return build_labels(&ordered, given);
    }
    let all: Vec<&str> = shown.iter().map(String::as_str).collect();
    let labels = build_labels(&all, given)?;
    Ok(order.iter().map(|&i| labels[i].clone()).collect())
}

/// Reads one build: a binary's slices or a log's images, or each arch of a whole process as
/// one merged image with its trie probes.
fn read_build(
    path: &Path,
    version: Option<String>,
    label: String,
    req: &TrendRequest,
    opts: &RenderOptions,
) -> Result<Build> {
    let shown = crate::text::escape_path(path);
    let Some(load) = &req.process else {
        return Ok(Build {
            path: shown,
            version,
            label,
            images: read_input(path, &req.read)?,
            trie_probes: Vec::new(),
            input_kind: None,
        });
    };
    let mut images = Vec::new();
    let mut trie_probes = Vec::new();
    for p in super::process::load_processes(path, load)? {
        trie_probes.push(Some(
            crate::analysis::coalesce::coalesce(&p, opts.names)?.trie_probes,
        ));
        images.push(crate::analysis::merge::merged(&p).ok_or_else(|| {
            Error::new(
                ErrorKind::Malformed,
                path,
                "the main executable was not read",
            )
        })?);
    }
    Ok(Build {
        path: shown,
        version,
        label,
        images,
        trie_probes,
        input_kind: Some(super::check::PROCESS_KIND),
    })
}
