//! `weakscan bisect VERSION…`: the step of an ordered list of versions where a build first
//! breaks a criterion, with as few builds fetched as bisection needs
//! ([`crate::analysis::bisect`]).
//!
//! Each version tested is got once — from the cache ([`cache`]) or by the fetch command
//! ([`fetch`]), its copy then kept in the cache — and read as `check` reads a binary: one slice
//! (`--arch`, else the first version's one slice), its figures held to the criterion's budgets
//! by [`crate::gate::budget::evaluate`], an increase counted from the first version. A build
//! that cannot be got or read is skipped, said on stderr and in the report; the first and the
//! last version must be read. Each test prints one progress line on stderr. The report ends
//! with the `diff` of the step found ([`crate::analysis::report::diff_report_paired`]).

pub mod cache;
pub mod fetch;
pub mod versions;

use super::emit_report;
use crate::analysis::bisect::{
    BisectReport, Bisection, Budget, Source, Tested, Verdict, figure_text, steps_among,
    verdict_word,
};
use crate::analysis::check::{Finding, ImageCheck};
use crate::analysis::demangle::demangle_all;
use crate::analysis::report::{BuildLabels, DiffOptions, ImageSummary, diff_report_paired};
use crate::analysis::tally::tally;
use crate::error::{Error, ErrorKind, Result};
use crate::gate::baseline::BaselineImage;
use crate::gate::budget::{Subject, evaluate};
use crate::gate::policy::{Flags, Policy};
use crate::input::read_binary;
use crate::macho::ArchFilter;
use crate::model::Image;
use crate::output::{Format, RenderOptions};
use cache::Cache;
use fetch::FetchCommand;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use versions::VersionList;

/// What `weakscan bisect` was asked to do.
#[derive(Debug, Clone)]
pub struct BisectRequest {
    /// The versions, oldest first.
    pub versions: VersionList,
    /// `--fetch` (with `--shell`, `--fetch-timeout`); `None`: the cache only.
    pub fetch: Option<FetchCommand>,
    /// `--cache DIR`.
    pub cache: Option<PathBuf>,
    /// The slice followed (`--arch`; all: the first version's one slice).
    pub arch: ArchFilter,
    /// The criterion: budgets and allowlist as `check` takes them as flags.
    pub flags: Flags,
    /// Groups listed in the step's diff.
    pub top: usize,
    /// Table, JSON or Markdown.
    pub format: Format,
    /// `--output` (stdout when `None`).
    pub output: Option<PathBuf>,
}

/// Runs `weakscan bisect`: exit 0 when the step was found, 1 when no single step was (the ends
/// agree, the series is not monotonic or reversed, or only skipped versions are left between
/// the last good and the first bad: the report says which).
///
/// Errors (exit 2): a bad version list ([`versions::read`]), no criterion, neither `--fetch`
/// nor `--cache`, a cache that cannot be made, a first or last version that cannot be got or
/// read, a first version of several slices without `--arch`, the output.
pub fn run(req: &BisectRequest, opts: &RenderOptions) -> Result<u8> {
    let versions = versions::read(&req.versions)?;
    let mut policy = Policy::default();
    policy.apply(req.flags.clone());
    if !policy.has_budgets() {
        return Err(Error::usage(
            "no criterion: give --max-predicted-weak-lookups N, --max-increase N|P%, --group PATTERN=MAX, … (a version is bad when one is exceeded)",
        ));
    }
    if req.fetch.is_none() && req.cache.is_none() {
        return Err(Error::usage(
            "no way to get a build: give --fetch COMMAND (and --cache DIR to keep what it fetches)",
        ));
    }
    let cache = req.cache.as_deref().map(Cache::open).transpose()?;
    let mut run = Run {
        req,
        policy,
        cache,
        opts,
        arch: None,
        first: None,
        criterion: Vec::new(),
        fetches: 0,
        from_cache: 0,
        tested: versions
            .iter()
            .map(|v| Tested {
                version: v.clone(),
                verdict: None,
                order: None,
                source: None,
                path: None,
                values: Vec::new(),
                reason: None,
            })
            .collect(),
    };
    let last = versions.len() - 1;
    let mut search = Bisection::new(versions.len());
    let mut kept: BTreeMap<usize, Vec<Image>> = BTreeMap::new();
    let mut order = 0;
    while let Some(i) = search.next() {
        order += 1;
        let verdict = match run.test(i) {
            Ok((verdict, images)) => {
                kept.insert(i, images);
                verdict
            }
            Err(Skip::Stop(e)) => return Err(e),
            Err(Skip::Build(source, why)) if i == 0 || i == last => {
                let which = if i == 0 { "first" } else { "last" };
                let how = match source {
                    Some(Source::Cache) => " (from the cache)",
                    Some(Source::Fetched) => " (fetched)",
                    None => "",
                };
                return Err(Error::new(
                    ErrorKind::Io,
                    Path::new(&versions[i]),
                    format!(
                        "the {which} version{how} cannot be used: {why} (the first and the last version must be read: they are the good and the bad end)"
                    ),
                ));
            }
            Err(Skip::Build(source, why)) => {
                run.tested[i].source = source;
                run.tested[i].reason = Some(why);
                Verdict::Skipped
            }
        };
        run.tested[i].verdict = Some(verdict);
        run.tested[i].order = Some(order);
        search.record(i, verdict);
        match search.bounds() {
            Some((lo, hi)) => kept.retain(|&k, _| k == lo || k == hi),
            None if i > 0 => kept.clear(),
            None => {}
        }
        let rest = if search.next().is_none() {
            "done".to_string()
        } else if i == 0 {
            "the last version next".to_string()
        } else if search.bounds().is_some() {
            // ⌈log₂(left + 1)⌉ more tests without skips.
            let left = search.left();
            let tests = (usize::BITS - left.leading_zeros()) as usize;
            format!(
                "{} left, about {} more",
                crate::text::count(left, "build", "builds"),
                crate::text::count(tests, "test", "tests")
            )
        } else {
            "the ends agree: a version between them next".to_string()
        };
        run.progress(i, &rest);
    }
    let outcome = search.outcome();
    let diff = match outcome.step() {
        Some((lo, hi)) => Some(run.diff(&kept, lo, hi)?),
        None => None,
    };
    let report = BisectReport {
        arch: run.arch.clone().unwrap_or_default(),
        criterion: run.criterion,
        steps: steps_among(search.verdicts()),
        versions: run.tested,
        outcome,
        fetches: run.fetches,
        from_cache: run.from_cache,
        diff,
    };
    emit_report(req.output.as_ref(), req.format, &report, opts)?;
    Ok(report.outcome.exit_code())
}

/// Why a version was not read.
enum Skip {
    /// The build could not be got or read (where it came from, if it was had, and why): the
    /// version is skipped.
    Build(Option<Source>, String),
    /// A problem of the run, not of the build: the command stops.
    Stop(Error),
}

/// A bisection under way.
struct Run<'a> {
    req: &'a BisectRequest,
    policy: Policy,
    cache: Option<Cache>,
    opts: &'a RenderOptions,
    /// The slice followed, once the first version is read.
    arch: Option<String>,
    /// The first version as the baseline of increases (with `--max-increase`).
    first: Option<BaselineImage>,
    /// The budgets, as the first version's check states them.
    criterion: Vec<Budget>,
    fetches: usize,
    from_cache: usize,
    tested: Vec<Tested>,
}

impl Run<'_> {
    /// Gets, reads and checks version `i`: its verdict and images.
    fn test(&mut self, i: usize) -> std::result::Result<(Verdict, Vec<Image>), Skip> {
        let version = self.tested[i].version.clone();
        let (path, source) = self.get(&version)?;
        self.tested[i].source = Some(source);
        self.tested[i].path = Some(crate::text::escape_path(&path));
        let filter = match &self.arch {
            Some(a) => ArchFilter::Only(a.clone()),
            None => self.req.arch.clone(),
        };
        let images =
            read_binary(&path, &filter).map_err(|e| Skip::Build(Some(source), e.message))?;
        let [image] = images.as_slice() else {
            let arches: Vec<&str> = images.iter().map(Image::label).collect();
            return Err(Skip::Stop(Error::new(
                ErrorKind::Usage,
                Path::new(&version),
                format!(
                    "{} slices ({}): bisect follows one; pick it with --arch",
                    images.len(),
                    arches.join(", ")
                ),
            )));
        };
        let arch = image.label().to_string();
        let subject = Subject {
            summary: ImageSummary::of(image),
            path: image.path.clone(),
            arch: arch.clone(),
            entries: tally(image),
        };
        if self.arch.is_none() {
            self.arch = Some(arch.clone());
            if self.req.flags.rules.max_increase.is_some() {
                self.first = Some(BaselineImage::of_image(
                    &subject.summary,
                    &arch,
                    subject.entries.clone(),
                    Path::new(&version),
                ));
            }
        }
        let check = self.check(&subject).map_err(Skip::Stop)?;
        if self.criterion.is_empty() {
            self.criterion = check.budgets.iter().map(budget).collect();
        }
        self.tested[i].values = check.budgets.iter().map(|f| f.value).collect();
        let verdict = if check.passed {
            Verdict::Good
        } else {
            Verdict::Bad
        };
        Ok((verdict, images))
    }

    /// The build of `version`: from the cache, else fetched (and copied into the cache).
    fn get(&mut self, version: &str) -> std::result::Result<(PathBuf, Source), Skip> {
        if let Some(cache) = &self.cache {
            match cache.lookup(version) {
                Ok(Some(p)) => {
                    self.from_cache += 1;
                    return Ok((p, Source::Cache));
                }
                Ok(None) => {}
                Err(why) => return Err(Skip::Build(None, why)),
            }
        }
        let Some(fetch) = &self.req.fetch else {
            return Err(Skip::Build(
                None,
                "not in the cache, and no --fetch to get it".into(),
            ));
        };
        self.fetches += 1;
        let fetched = fetch
            .run(version)
            .map_err(|why| Skip::Build(Some(Source::Fetched), why))?;
        let path = match &self.cache {
            Some(cache) => cache
                .store(version, &fetched)
                .map_err(|why| Skip::Build(Some(Source::Fetched), why))?,
            None => fetched,
        };
        Ok((path, Source::Fetched))
    }

    /// `subject` held to the criterion (increases from the first version).
    fn check(&self, subject: &Subject) -> Result<ImageCheck> {
        let base = self.first.as_ref();
        let names = demangle_all(
            subject
                .entries
                .iter()
                .chain(base.iter().flat_map(|b| b.entries.iter()))
                .map(|e| e.raw.as_str()),
            self.opts.names,
        )?;
        evaluate(subject, base, &self.policy, &names, self.req.top)
    }

    /// The progress line of version `i` (on stderr): its figure and verdict, then `rest`, what
    /// is left.
    fn progress(&self, i: usize, rest: &str) {
        let t = &self.tested[i];
        let what = match (t.verdict, &t.reason) {
            (Some(Verdict::Skipped), Some(why)) => format!("skipped: {why}"),
            (Some(v), _) => {
                let figure = self
                    .criterion
                    .first()
                    .zip(t.values.first())
                    .map(|(b, &v)| format!("{}: ", figure_text(b, v)))
                    .unwrap_or_default();
                format!("{figure}{}", verdict_word(v))
            }
            (None, _) => String::new(),
        };
        let from = match t.source {
            Some(Source::Cache) => " [cache]",
            Some(Source::Fetched) => " [fetched]",
            None => "",
        };
        let _ = writeln!(
            std::io::stderr(),
            "bisect: {}{from}: {}; {rest}",
            t.version,
            crate::text::escape(&what)
        );
    }

    /// The diff of the step: the builds of `lo` and `hi`, named by their versions.
    fn diff(
        &self,
        kept: &BTreeMap<usize, Vec<Image>>,
        lo: usize,
        hi: usize,
    ) -> Result<crate::analysis::report::DiffReport> {
        let (Some(old), Some(new)) = (kept.get(&lo), kept.get(&hi)) else {
            return Err(Error::usage("internal: the step's builds were not kept"));
        };
        let options = DiffOptions {
            by: self.policy.group_by,
            top: Some(self.req.top),
            with_symbols: false,
            pair: None,
            style: self.opts.names,
        };
        let mut diff = diff_report_paired(old, new, options)?;
        diff.labels = BuildLabels {
            old: self.tested[lo].version.clone(),
            new: self.tested[hi].version.clone(),
        };
        Ok(diff)
    }
}

/// A budget of the criterion as the first version's check states it.
fn budget(f: &Finding) -> Budget {
    let mut b = Budget {
        kind: f.kind,
        figure: f.figure,
        pattern: f.pattern.clone(),
        max_increase: f.max_increase.clone(),
        limit: f.limit,
        text: String::new(),
    };
    b.text = b.text_with(str::to_string);
    b
}
