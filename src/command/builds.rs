//! Reading the inputs of `scan` and `diff` with their names demangled: on a Node.js build the
//! debug map and the demangling are each about 40% of the work, so they run at the same time
//! on the run's pool ([`crate::pool`]), and each input's debug map is read as soon as the rest
//! of that input is (a `diff`'s two builds at once):
//!
//! ```text
//! input 0:  read ──┬── debug map 0 ──────────────┐
//! input 1:  read ──┼─┬─ debug map 1 ──────┐      │
//!                  │ │                    │      │
//!        names 0 ──┴─┴─ names 1 ── union ─┴─ demangle ─┴─▶ images (attributed), names
//! ```
//!
//! Errors come in one order, whatever finished first (see [`read_builds`]). Without a pool
//! every step runs on this thread, and the errors are reported in that same order.

use crate::analysis::demangle::{Demangled, NameStyle};
use crate::analysis::group::GroupBy;
use crate::analysis::report::{demangle_names, names_to_demangle, union_of_sorted};
use crate::error::{Error, ErrorKind, Result};
use crate::input::{DeferredInput, ReadAttributions, ReadOptions, read_input_deferred};
use crate::model::{Image, Name};
use crate::origin::compile_db::{CompileCommand, CompileDbIndex, parse_compile_db};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The inputs read by [`read_builds`].
#[derive(Debug)]
pub struct Builds<'s> {
    /// The images of each input, in the inputs' order, with their debug-map attribution.
    pub images: Vec<Vec<Image>>,
    /// The names of all of them, demangled with the keys the grouping reads.
    pub names: Demangled<'s>,
}

/// Reads `paths` as [`crate::input::read_input`] does and demangles their names for `by`, to be
/// shown in `style` ([`demangle_names`]); `store` receives the names demangled (the result
/// borrows them).
///
/// The inputs are read `window` at a time (`diff`: its two builds at once; `scan`: one after
/// the other, so a scan of hundreds of dylibs holds one file open, and stops at the first that
/// fails); each window's files are closed before the next is opened, and the last window's
/// debug maps are read while all the names are demangled.
///
/// Errors: those of [`crate::input::read_input`] and of [`demangle_names`]: each window's
/// reads in the inputs' order, then its debug maps in order; windows in order; then the
/// demangling (its pool could not start).
pub fn read_builds<'s>(
    paths: &[&Path],
    opts: &ReadOptions,
    by: GroupBy,
    style: NameStyle,
    window: usize,
    store: &'s OnceLock<Vec<Name>>,
) -> Result<Builds<'s>> {
    fn slots<T>(n: usize) -> Vec<OnceLock<T>> {
        (0..n).map(|_| OnceLock::new()).collect()
    }
    let windows: Vec<&[&Path]> = paths.chunks(window.max(1)).collect();
    let mut images: Vec<Vec<Image>> = Vec::with_capacity(paths.len());
    let mut done: Vec<Vec<Name>> = Vec::with_capacity(paths.len());
    let names: OnceLock<Result<Demangled<'s>>> = OnceLock::new();
    let not_run =
        |what: &str| Error::usage(format!("internal: {what} did not run")).with_kind(ErrorKind::Io);
    for (k, paths) in windows.iter().enumerate() {
        let last = k + 1 == windows.len();
        let inputs: Vec<OnceLock<Result<DeferredInput>>> = slots(paths.len());
        let reads: Vec<OnceLock<Result<ReadAttributions>>> = slots(paths.len());
        let lists: Vec<OnceLock<Vec<Name>>> = slots(paths.len());
        // Inputs still being read and listed; the one that finishes last starts the
        // demangling itself, so it runs beside the debug maps still being read (a scope
        // waited on here would wait for whatever its thread picked up meanwhile, such as a
        // debug map, before the demangling could start).
        let pending = AtomicUsize::new(paths.len());
        let (pending, list_slots, done_lists, names_slot) = (&pending, &lists, &done, &names);
        crate::pool::scope(|all| {
            for ((path, input), (read, list)) in
                paths.iter().zip(&inputs).zip(reads.iter().zip(list_slots))
            {
                all.spawn_in(move |all| {
                    if let Ok(input) = input.get_or_init(|| read_input_deferred(path, opts)) {
                        all.spawn(move || {
                            let _ = read.set(input.read_attributions());
                        });
                        let _ = list.set(names_to_demangle(&input.images));
                    }
                    if pending.fetch_sub(1, Ordering::AcqRel) == 1
                        && last
                        && list_slots.iter().all(|l| l.get().is_some())
                    {
                        let store = store.get_or_init(|| {
                            let this = list_slots.iter().filter_map(|l| l.get().map(Vec::as_slice));
                            union_of_sorted(done_lists.iter().map(Vec::as_slice).chain(this))
                        });
                        let _ = names_slot.set(demangle_names(store, by, style));
                    }
                });
            }
        });
        // Every slot a step reached is set when the scope returns; an unset one is a step that
        // did not run, reported as such rather than trusted.
        let inputs = inputs
            .into_iter()
            .map(|i| i.into_inner().unwrap_or_else(|| Err(not_run("a read"))))
            .collect::<Result<Vec<_>>>()?;
        let reads = reads
            .into_iter()
            .map(|r| {
                r.into_inner()
                    .unwrap_or_else(|| Err(not_run("a debug-map read")))
            })
            .collect::<Result<Vec<_>>>()?;
        // The window's files are closed here.
        images.extend(inputs.into_iter().zip(reads).map(|(i, r)| i.finish(r)));
        done.extend(
            lists
                .into_iter()
                .map(|l| l.into_inner().unwrap_or_default()),
        );
    }
    let names = match names.into_inner() {
        Some(names) => names?,
        // No input at all.
        None => demangle_names(store.get_or_init(Vec::new), by, style)?,
    };
    Ok(Builds { images, names })
}

/// Reads the compile database at `path` and records in each image's attribution how its
/// objects were compiled ([`crate::model::Attribution::compiled`], what the fix plan reads);
/// returns the commands and their index for the visibility report.
///
/// Errors: those of [`read_compile_db`].
pub fn join_compile_db(
    path: &Path,
    images: &mut [Image],
) -> Result<(Vec<CompileCommand>, CompileDbIndex)> {
    Ok(join_commands(read_compile_db(path)?, images))
}

/// [`join_compile_db`] of commands already read (`diff` reads either form of database,
/// [`super::flags::read_compile_input`]).
pub fn join_commands(
    commands: Vec<CompileCommand>,
    images: &mut [Image],
) -> (Vec<CompileCommand>, CompileDbIndex) {
    let index = CompileDbIndex::new(&commands);
    for image in images.iter_mut() {
        let compiled = crate::analysis::visibility::compiled_objects(image, &commands, &index);
        if let Some(a) = image.attribution.as_deref_mut() {
            a.compiled = compiled;
        }
    }
    (commands, index)
}

/// The compile database at `path` (`--compile-commands`), parsed. The text is dropped before
/// the caller builds its index: the peak is the larger of text and entries, entries and index.
///
/// Errors: the file cannot be read (`Io`), or is no compile database (`Malformed`, naming it).
pub fn read_compile_db(path: &Path) -> Result<Vec<CompileCommand>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, &e))?;
    parse_compile_db(&bytes).map_err(|e| Error::new(ErrorKind::Malformed, path, e))
}
