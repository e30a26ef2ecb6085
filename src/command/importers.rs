//! `--importer PATH` of `scan`, `diff` and `check`: the importers named (files, and the Mach-O
//! files below directories) read in the slice of each scanned image's arch and held against
//! its export trie ([`crate::analysis::imports`]).

use crate::analysis::fix_plan::{FixPlan, IMPORTED_EXAMPLES, ImportedBy, ImportedName, hidden_by};
use crate::analysis::imports::{
    ImporterCheck, ImporterNeeds, SkippedImporters, Target, check_importer, count_skipped,
    importers_of, removed_but_needed,
};
use crate::error::{Error, ErrorKind, Result};
use crate::macho::imports::{
    ExportTrie, ImporterFiles, ImporterSlice, Skip, find_importers, read_importer, slice_archs,
};
use crate::macho::lookup_budget::LookupBudget;
use crate::model::{Image, Source};
use rayon::prelude::*;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// The importers of a run, found once; each scanned image reads them in its arch.
#[derive(Debug, Clone, Default)]
pub struct Importers {
    files: ImporterFiles,
    /// Files skipped so far: those of the directories, then those without a slice of an arch.
    skipped: Vec<(PathBuf, Skip)>,
}

impl Importers {
    /// The importers `paths` name (see [`find_importers`]); `None` when there are none.
    ///
    /// Errors: a path that cannot be read, a directory that cannot be listed.
    pub fn find(paths: &[PathBuf]) -> Result<Option<Importers>> {
        if paths.is_empty() {
            return Ok(None);
        }
        let files = find_importers(paths)?;
        Ok(Some(Importers {
            skipped: files.skipped.clone(),
            files,
        }))
    }

    /// What was skipped, counted by reason (each file once per reason, however many images
    /// of its missing arch were checked).
    pub fn skipped(&self) -> Vec<SkippedImporters> {
        let mut seen = std::collections::HashSet::new();
        count_skipped(
            self.skipped
                .iter()
                .filter(|(p, s)| seen.insert((p.as_path(), *s)))
                .map(|(p, s)| (p.as_path(), *s)),
        )
    }

    /// Each importer read in `arch`. A file found in a directory without that slice is skipped
    /// and counted; one named directly is an error.
    ///
    /// Errors (one line naming the importer, exit 2): not Mach-O, no `arch` slice, malformed.
    pub fn read(&mut self, arch: &str) -> Result<Vec<ImporterSlice>> {
        let read: Vec<Result<Option<ImporterSlice>>> = self
            .files
            .files
            .par_iter()
            .map(|(path, _)| read_importer(path, arch))
            .collect();
        let mut out = Vec::new();
        for ((path, in_dir), r) in self.files.files.iter().zip(read) {
            match r? {
                Some(s) => out.push(s),
                None if *in_dir => self.skipped.push((path.clone(), Skip::NoSlice)),
                None => {
                    let have = crate::macho::MachOFile::open(path)
                        .and_then(|f| slice_archs(&f))
                        .map(|a| a.join(", "))
                        .unwrap_or_default();
                    return Err(Error::new(
                        ErrorKind::Usage,
                        path,
                        format!(
                            "importer has no {arch} slice (it has {have}): an importer is read in the scanned image's arch"
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// What the importers are held against: the slice `image` read from `file`.
///
/// Errors: `image` is not a binary slice (a log, an archive), or `file` is stdin.
fn target_of<'i>(image: &'i Image, file: &Path) -> Result<(Target<'i>, &'i str)> {
    let refuse = |why: &str| Error::new(ErrorKind::Usage, file, why);
    if file.as_os_str() == "-" {
        return Err(refuse(
            "--importer reads the scanned image's export trie again: give it as a file, not -",
        ));
    }
    let arch = match (&image.source, image.arch.as_deref()) {
        (Source::Binary, Some(a)) if image.filetype.is_some() => a,
        _ => {
            return Err(refuse(
                "--importer holds importers against a linked Mach-O image, not a log or an archive",
            ));
        }
    };
    let target = Target {
        filetype: image.filetype,
        install_name: image
            .linkage
            .as_ref()
            .and_then(|l| l.install_name.as_deref()),
    };
    Ok((target, arch))
}

/// Holds every importer against `image`, read from `file`: their imports' lookups in its
/// export trie share one [`LookupBudget`].
///
/// Errors: those of [`Importers::read`], of reading `file`'s export trie and looking names up
/// in it (a malformed path; the budget run out), and of [`target_of`].
pub fn check_image(
    importers: &mut Importers,
    image: &Image,
    file: &Path,
) -> Result<Vec<ImporterCheck>> {
    Ok(check_image_keeping(importers, image, file)?.0)
}

/// [`check_image`], also giving the importers read (for [`imported_by`]).
pub fn check_image_keeping(
    importers: &mut Importers,
    image: &Image,
    file: &Path,
) -> Result<(Vec<ImporterCheck>, Vec<ImporterSlice>)> {
    let (target, arch) = target_of(image, file)?;
    let slices = importers.read(arch)?;
    let trie = ExportTrie::read(file, arch)?;
    let mut budget = LookupBudget::default();
    let checks = slices
        .iter()
        .map(|s| {
            check_importer(s, &target, &image.path, |n| {
                Ok(trie.find(n, &mut budget)?.is_some())
            })
        })
        .collect::<Result<_>>()?;
    Ok((checks, slices))
}

/// Joins `image`'s fix plan to `slices`, the importers read in its arch: for each candidate,
/// who imports the weak definitions it would hide ([`crate::analysis::fix_plan::hidden_by`]).
pub fn imported_by(plan: &mut FixPlan, image: &Image, slices: &[ImporterSlice]) {
    let target = Target {
        filetype: image.filetype,
        install_name: image
            .linkage
            .as_ref()
            .and_then(|l| l.install_name.as_deref()),
    };
    for c in &mut plan.candidates {
        let hidden = hidden_by(image, &c.library);
        c.imported_by = importers_of(&hidden, slices, &target)
            .into_iter()
            .map(|(s, names)| ImportedBy {
                importer: s.path.clone(),
                symbols: names.len(),
                examples: names
                    .iter()
                    .take(IMPORTED_EXAMPLES)
                    .map(|n| ImportedName {
                        symbol: n.to_string(),
                        name: crate::analysis::demangle::demangle_one(n)
                            .demangled(n)
                            .into_owned(),
                    })
                    .collect(),
            })
            .collect();
    }
}

/// The exports removed from `old` (read from `old_file`) to `new` that each importer still
/// imports (an importer that imports none has an empty list).
///
/// Errors: as [`check_image`], for both images (whose lookups share one budget).
pub fn removed_needed(
    importers: &mut Importers,
    (old, old_file): (&Image, &Path),
    (new, new_file): (&Image, &Path),
) -> Result<Vec<ImporterNeeds>> {
    let (_, old_arch) = target_of(old, old_file)?;
    let (target, arch) = target_of(new, new_file)?;
    let slices = importers.read(arch)?;
    let (old_trie, new_trie) = (
        ExportTrie::read(old_file, old_arch)?,
        ExportTrie::read(new_file, arch)?,
    );
    let budget = RefCell::new(LookupBudget::default());
    let exported =
        |trie: &ExportTrie, n: &str| Ok(trie.find(n, &mut budget.borrow_mut())?.is_some());
    slices
        .iter()
        .map(|s| {
            removed_but_needed(
                s,
                &target,
                |n| exported(&old_trie, n),
                |n| exported(&new_trie, n),
            )
        })
        .collect()
}
