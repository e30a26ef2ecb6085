//! From a log's lines to the model: one process, its images, their weak-bind targets, sites
//! and lookups.
//!
//! How dyld4 orders its output (dyld-1231.3) is what makes the attribution exact:
//!
//! * `JustInTimeLoader::handleStrongWeakDefOverrides` runs before any fixups: its lookups are
//!   followed by no bind line. They belong to the main executable.
//! * The images are fixed up in `state.loaded` order: inserted dylibs (`DYLD_INSERT_LIBRARIES`)
//!   first, then the main executable, then the rest. The main executable is told by the
//!   treat-as-weak targets appended to a chained main executable's, else as the first image
//!   fixed up whose name is not a library's (`roles.rs`); every image with a line of its own
//!   is listed, weak binds or not.
//! * `Loader::resolveSymbol` prints the lookup block of a weak-bind target, and
//!   `JustInTimeLoader::applyFixups` then prints that target's bind line
//!   (`<image/bind#N> -> …`) naming the image. A lookup block followed by a bind line of the
//!   same symbol is that image's weak-bind target; followed by one of another symbol (past the
//!   override checks), it is too: the bind line names what a renamed re-export led to.
//! * For an opcode image the weak-bind ("override") targets are printed after the regular ones
//!   and restart at `bind#0`; `Loader::applyFixupsGeneric` then prints one
//!   `<image/weak-bind#N>` fixup line per weak-bind location. Logs without lookup lines
//!   (macOS 12–14) still give an opcode image's weak binds this way; a chained image's weak
//!   imports cannot be told from its regular ones there, and the figure is `None`.
//! * dyld2 prints one `dyld: weak bind: …` line per weak-bound location.
//!
//! Memory: the reader holds one line; other processes cost a counter; the process read costs
//! its distinct symbols, its bind targets and its weak-bind locations — what is reported.
//!
//! The files: `recorder.rs` records each message of the process read as it comes, `pids.rs`
//! counts the lines of every process and picks the one read, `intern.rs` stores each name
//! once, `images.rs` makes the model's images from the records once the log ends, and
//! `roles.rs` says which is the main executable and which were inserted before it.

mod images;
mod intern;
mod pids;
mod recorder;
mod roles;

pub use roles::set_main;

use super::reader::LineReader;
use crate::error::{Error, ErrorKind, Result};
use crate::model::Image;
use recorder::Recorder;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Most images (bound images and libraries named as suppliers) one process may name. A launch
/// prints bind lines only for images outside the shared cache: hundreds, not thousands. Every
/// reported image carries the log's facts in JSON, so this also bounds the report's size.
pub const MAX_LOG_IMAGES: usize = 8192;

/// Reads the dyld log at `path`: the process `pid` (default: the first one seen).
///
/// Returns the images of that process the log fixes up (the main executable first, always: an
/// unnamed one when no image is fixed up), then in the order dyld fixed them up. Errors (one line naming the file): unreadable file,
/// no dyld lines, or no lines of `pid` (usage error, listing the PIDs seen).
pub fn read_log(path: &Path, pid: Option<u32>) -> Result<Vec<Image>> {
    let file = File::open(path).map_err(|e| Error::io(path, &e))?;
    read_log_from(path, file, pid)
}

/// [`read_log`] on any reader; `path` names it in errors and in the images.
pub fn read_log_from(path: &Path, input: impl Read, pid: Option<u32>) -> Result<Vec<Image>> {
    let mut lines = LineReader::new(input);
    let mut rec = Recorder::new(pid);
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => return Err(Error::io(path, &e)),
        };
        rec.facts.lines += 1;
        rec.facts.crlf_lines += u64::from(line.crlf);
        rec.facts.oversized_lines += u64::from(line.oversized);
        if !line.terminated {
            rec.facts.truncated_last_line = true;
        }
        rec.facts.invalid_utf8_lines += u64::from(!line.utf8);
        rec.feed(line.bytes);
        // Caps are checked as the log is read: a log past one fails at once.
        if rec.image_names.names.len() > MAX_LOG_IMAGES {
            return Err(too_many_images(path, rec.image_names.names.len()));
        }
    }
    rec.finish(path, pid)
}

/// The error of a process that names `n` images, more than [`MAX_LOG_IMAGES`].
fn too_many_images(path: &Path, n: usize) -> Error {
    Error::new(
        ErrorKind::Malformed,
        path,
        format!(
            "the process names {n} images, more than the {MAX_LOG_IMAGES} weakscan reads (not a log of one launch?)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The images of the log `log`, read as `t.log`.
    pub(super) fn read(log: &str, pid: Option<u32>) -> Result<Vec<Image>> {
        read_log_from(Path::new("t.log"), log.as_bytes(), pid)
    }

    /// The image cap is checked as lines are read: a log past it fails at the first line over
    /// it, before the rest of the file is read (here the rest is a reader that fails).
    #[test]
    fn the_image_cap_is_enforced_while_reading() {
        struct Unreadable;
        impl Read for Unreadable {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("read past the image cap"))
            }
        }
        let lines: String = (0..=MAX_LOG_IMAGES)
            .map(|i| format!("dyld[1]: <i{i}/bind#0> -> missing-weak-bind (__Z1fv)\n"))
            .collect();
        let e = read_log_from(Path::new("t.log"), lines.as_bytes().chain(Unreadable), None)
            .unwrap_err();
        assert!(
            e.message
                .ends_with("more than the 8192 weakscan reads (not a log of one launch?)"),
            "{e}"
        );
    }

    /// Fuzz-audit finding: 200k image names in a 10 MB log each carried the log's facts; the
    /// facts are now shared and a process may name at most MAX_LOG_IMAGES images.
    #[test]
    fn too_many_images_are_refused() {
        let lines = |n: usize| -> String {
            (0..n)
                .map(|i| format!("dyld[1]: <i{i}/bind#0> -> missing-weak-bind (__Z1fv)\n"))
                .collect()
        };
        let images = read(&lines(MAX_LOG_IMAGES), None).unwrap();
        assert!(images.len() > 1);
        let f = &images[0].log().unwrap().facts;
        assert!(
            images
                .iter()
                .all(|i| std::sync::Arc::ptr_eq(&i.log().unwrap().facts, f))
        );
        let e = read(&lines(MAX_LOG_IMAGES + 1), None).unwrap_err();
        assert!(
            e.message.ends_with(
                "the process names 8193 images, more than the 8192 weakscan reads (not a log of one launch?)"
            ),
            "{e}"
        );
    }
}
