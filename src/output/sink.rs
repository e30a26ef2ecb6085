//! Where a command's output goes: stdout, or a file given with `--output`, written so that
//! nothing the path points to is lost or clobbered.
//!
//! | `--output PATH` is… | written how |
//! |---|---|
//! | absent, or `-` | stdout, buffered |
//! | a symlink (any chain) | resolved first: the link stays, its target is written as below |
//! | a regular file, or a new path | a temp file created by the tempfile crate (random name, `O_EXCL`, so no pre-existing name or symlink is followed) in the destination's directory, flushed, `fsync`ed, then renamed over the path; the old mode is kept (a new file gets 0666 less the umask) |
//! | a character or block device, a FIFO, a socket | opened and written directly, never replaced |
//! | anything reached through `/dev/` or `/proc/` (`/dev/stdout`, `/dev/fd/N`) | written directly |
//! | a directory | refused |
//!
//! Every write error — on stdout too — is returned as an [`Error`] naming the destination
//! (`stdout: No space left on device (os error 28)`), so the binary prints one line and exits 2.
//! A reader that closes the pipe early (`weakscan scan … | head`) is the one exception: a broken
//! pipe on stdout ends the output quietly and keeps the command's exit code.
//!
//! A replaced file is either the old one or the complete new one: if anything fails before the
//! rename, the temp file is removed and the destination is untouched.

use crate::error::{Error, ErrorKind, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Stdout, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};
use tempfile::NamedTempFile;

/// Most symlinks followed when resolving an output path (Linux's `MAXSYMLINKS`).
const MAX_SYMLINKS: usize = 40;

/// A destination opened for writing; call [`Sink::finish`] to complete it.
#[derive(Debug)]
pub struct Sink {
    /// Names the destination in errors (`stdout`, or the path as given).
    name: PathBuf,
    inner: Inner,
    /// Set once a write failed with a broken pipe on stdout: the rest is dropped.
    closed: bool,
    /// The first write error, kept so that [`Sink::finish`] reports it even if the renderer
    /// swallowed it.
    error: Option<io::Error>,
}

#[derive(Debug)]
enum Inner {
    Stdout(BufWriter<Stdout>),
    Direct(BufWriter<File>),
    Replace {
        tmp: BufWriter<NamedTempFile>,
        target: PathBuf,
    },
}

impl Sink {
    /// Stdout.
    pub fn stdout() -> Sink {
        Sink {
            name: PathBuf::from("stdout"),
            inner: Inner::Stdout(BufWriter::with_capacity(1 << 16, io::stdout())),
            closed: false,
            error: None,
        }
    }

    /// `--output PATH`: `None` or `-` is stdout; anything else is opened as the module docs
    /// say. Errors (`Io`): a directory, a symlink loop or chain longer than 40, a missing or
    /// unwritable directory, a device or FIFO that cannot be opened.
    pub fn open(path: Option<&Path>) -> Result<Sink> {
        let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
            return Ok(Sink::stdout());
        };
        let (target, through_special) = resolve(path)?;
        if through_special {
            // /dev/stdout, /dev/fd/N, /proc/self/fd/N: magic links the kernel follows (to a
            // pipe, a terminal, a file); never replaced, opened as given.
            let meta = fs::metadata(path).map_err(|e| Error::io(path, &e))?;
            if meta.is_dir() {
                return Err(Error::new(ErrorKind::Io, path, "is a directory"));
            }
            let file = OpenOptions::new()
                .write(true)
                .truncate(meta.file_type().is_file())
                .open(path)
                .map_err(|e| Error::io(path, &e))?;
            return Ok(Sink::direct(path, file));
        }
        let inner = match fs::metadata(&target).ok() {
            Some(m) if m.is_dir() => {
                return Err(Error::new(ErrorKind::Io, path, "is a directory"));
            }
            Some(m) if !m.file_type().is_file() => {
                // A device, FIFO or socket: only opened, never truncated or replaced.
                let file = OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| Error::io(path, &e))?;
                return Ok(Sink::direct(path, file));
            }
            Some(m) => replace(path, &target, Some(m.permissions().mode()))?,
            None => replace(path, &target, None)?,
        };
        Ok(Sink {
            name: path.to_path_buf(),
            inner,
            closed: false,
            error: None,
        })
    }

    fn direct(path: &Path, file: File) -> Sink {
        Sink {
            name: path.to_path_buf(),
            inner: Inner::Direct(BufWriter::with_capacity(1 << 16, file)),
            closed: false,
            error: None,
        }
    }

    /// True when this writes to stdout.
    pub fn is_stdout(&self) -> bool {
        matches!(self.inner, Inner::Stdout(_))
    }

    /// The destination as named in errors and messages.
    pub fn name(&self) -> &Path {
        &self.name
    }

    /// Flushes, and for a replaced file `fsync`s and renames it into place. Errors: the first
    /// write error, else a flush, sync or rename error, naming the destination.
    pub fn finish(mut self) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(self.io_error(&e));
        }
        let name = self.name.clone();
        let err = |e: &io::Error| Error::io(&name, e);
        match self.inner {
            Inner::Stdout(mut w) => match w.flush() {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(err(&e)),
                Ok(()) => Ok(()),
            },
            Inner::Direct(mut w) => w.flush().map_err(|e| err(&e)),
            Inner::Replace { tmp, target } => {
                let tmp = tmp.into_inner().map_err(|e| err(e.error()))?;
                tmp.as_file().sync_all().map_err(|e| err(&e))?;
                tmp.persist(&target).map_err(|e| err(&e.error))?;
                // The rename is durable once the directory is synced; a failure here is not
                // worth failing the command for (the data is complete and in place).
                if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
                    let _ = File::open(dir).and_then(|d| d.sync_all());
                }
                Ok(())
            }
        }
    }

    fn io_error(&self, e: &io::Error) -> Error {
        Error::io(&self.name, e)
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.inner {
            Inner::Stdout(w) => w,
            Inner::Direct(w) => w,
            Inner::Replace { tmp, .. } => tmp,
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.writer().write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && self.is_stdout() => {
                self.closed = true;
                Ok(buf.len())
            }
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(io::Error::new(e.kind(), e.to_string()));
                }
                Err(e)
            }
            ok => ok,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.writer().flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && self.is_stdout() => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

/// A temp file beside `target`, to be renamed over it.
fn replace(path: &Path, target: &Path, mode: Option<u32>) -> Result<Inner> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!(
        ".{}.",
        target
            .file_name()
            .map_or("weakscan".into(), |n| n.to_string_lossy())
    );
    let tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        .permissions(fs::Permissions::from_mode(mode.unwrap_or(0o666) & 0o7777))
        .tempfile_in(dir)
        .map_err(|e| {
            // tempfile names its own file in the message ("at path …/.r.html.XXXX.tmp"), a
            // path the user never gave: the error is said of `path` alone.
            // The directory's own error when it is the cause (missing, not a directory), else
            // the kind alone.
            let bare = match fs::metadata(dir) {
                Err(d) => d,
                Ok(_) => std::io::Error::from(e.kind()),
            };
            Error::io(path, &bare)
        })?;
    // The mode given to open() is masked by the umask; an existing file keeps its own mode.
    if let Some(m) = mode {
        let _ = tmp
            .as_file()
            .set_permissions(fs::Permissions::from_mode(m & 0o7777));
    }
    Ok(Inner::Replace {
        tmp: BufWriter::with_capacity(1 << 16, tmp),
        target: target.to_path_buf(),
    })
}

/// Follows the symlinks of `path` itself (a chain of them, dangling at the end or not) to the
/// path that will be written, and says whether the chain went through `/dev` or `/proc`.
/// Symlinks in the directories above are left to the kernel. Errors: a chain longer than
/// [`MAX_SYMLINKS`].
fn resolve(path: &Path) -> Result<(PathBuf, bool)> {
    let mut p = path.to_path_buf();
    let mut special = is_special(&p);
    for _ in 0..MAX_SYMLINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&p).map_err(|e| Error::io(path, &e))?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
                special |= is_special(&p);
            }
            _ => return Ok((p, special)),
        }
    }
    Err(Error::new(
        ErrorKind::Io,
        path,
        format!("more than {MAX_SYMLINKS} symbolic links (a loop?)"),
    ))
}

/// `p` is absolute and starts with `/dev` or `/proc`.
fn is_special(p: &Path) -> bool {
    let mut c = p.components();
    c.next() == Some(Component::RootDir)
        && matches!(c.next(), Some(Component::Normal(n)) if n == "dev" || n == "proc")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn write_all(path: &Path, text: &str) -> Result<()> {
        let mut s = Sink::open(Some(path))?;
        s.write_all(text.as_bytes())
            .map_err(|e| Error::io(path, &e))?;
        s.finish()
    }

    #[test]
    fn a_symlink_stays_and_its_target_is_written() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.json");
        fs::write(&real, "old").unwrap();
        let link = d.path().join("link.json");
        symlink("real.json", &link).unwrap();
        write_all(&link, "new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // Only the two entries: no temp file left behind.
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_dangling_symlink_creates_its_target() {
        let d = tempfile::tempdir().unwrap();
        let link = d.path().join("link");
        symlink(d.path().join("made"), &link).unwrap();
        write_all(&link, "x").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(d.path().join("made")).unwrap(), "x");
    }

    #[test]
    fn an_existing_files_mode_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        fs::write(&f, "old").unwrap();
        fs::set_permissions(&f, fs::Permissions::from_mode(0o640)).unwrap();
        write_all(&f, "new").unwrap();
        assert_eq!(
            fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(fs::read_to_string(&f).unwrap(), "new");
    }

    #[test]
    fn a_symlink_loop_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        symlink("b", &a).unwrap();
        symlink("a", d.path().join("b")).unwrap();
        let e = Sink::open(Some(&a)).unwrap_err();
        assert!(
            e.message.ends_with("more than 40 symbolic links (a loop?)"),
            "{e}"
        );
    }

    #[test]
    fn a_directory_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let e = Sink::open(Some(d.path())).unwrap_err();
        assert!(e.message.ends_with(": is a directory"), "{e}");
    }

    #[test]
    fn dev_and_proc_paths_are_special() {
        assert!(is_special(Path::new("/dev/stdout")));
        assert!(is_special(Path::new("/proc/self/fd/1")));
        assert!(!is_special(Path::new("dev/x")));
        assert!(!is_special(Path::new("/devices/x")));
    }
}
