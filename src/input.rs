//! Which kind of input a file is — a Mach-O binary or a dyld log — and reading it into the
//! model, opening each input once.
//!
//! Detection looks at the first 4 KiB: a Mach-O or universal magic (either byte order), or
//! any NUL byte, means a binary (a non-Mach-O binary then gets the Mach-O reader's error);
//! anything else is read as a log. `--input-kind` overrides it.
//!
//! Every input is opened once and never reopened, so a stream gives all of its bytes:
//!
//! * a regular file: the first 4 KiB are peeked with `pread`, then the same open file is read
//!   (a binary by byte range, a log from its start);
//! * `-` (stdin), `/dev/stdin`, a FIFO, a process substitution `<(…)`, a character device: the
//!   head is read into memory and detection runs on it; a log is then streamed (the head, then
//!   the rest of the stream); a binary is buffered in memory up to [`MAX_STREAM_BINARY_BYTES`],
//!   past which the error says to save it to a file.

use crate::error::{Error, ErrorKind, Result};
use crate::log::read_log_from;
use crate::macho::{ArchFilter, MachOFile, PendingAttribution, read_images, read_images_deferred};
use crate::model::{Attribution, Image};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes peeked to detect the kind of an input.
pub const DETECT_BYTES: usize = 4096;

/// Most bytes of a Mach-O file read from a stream (stdin, a FIFO) into memory: 1 GiB. A file
/// on disk has no such limit (it is read by byte range).
pub const MAX_STREAM_BINARY_BYTES: u64 = 1 << 30;
/// A binary or a log (also `--input-kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FileKind {
    /// A Mach-O file, thin or universal.
    #[value(help = "A Mach-O file")]
    Binary,
    /// A `DYLD_PRINT_BINDINGS` log.
    #[value(help = "A DYLD_PRINT_BINDINGS log")]
    Log,
}

/// How to read inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// Slices of a binary to read (a log has no arch and ignores it).
    pub arch: ArchFilter,
    /// Process of a log to read (default: the first).
    pub pid: Option<u32>,
    /// Forced kind (default: detected).
    pub kind: Option<FileKind>,
    /// Read every export of a binary that is not a weak definition, and attribute it, for the
    /// fix plan's other exports ([`crate::macho::image::ReadOptions::other_exports`]): `scan`
    /// only, since no other command shows them (a Node.js build: ~53k names kept and joined
    /// to the debug map).
    pub other_exports: bool,
}

/// Magic numbers at offset 0 of a Mach-O or universal file, as read big-endian.
const MAGICS: [u32; 8] = [
    0xfeed_face, // MH_MAGIC
    0xfeed_facf, // MH_MAGIC_64
    0xcefa_edfe, // MH_CIGAM
    0xcffa_edfe, // MH_CIGAM_64
    0xcafe_babe, // FAT_MAGIC
    0xcafe_babf, // FAT_MAGIC_64
    0xbeba_feca, // FAT_CIGAM
    0xbfba_feca, // FAT_CIGAM_64
];

/// An input opened once: its name in errors and reports, and where its bytes come from.
#[derive(Debug)]
pub struct Opened {
    /// The path as given, or `stdin` for `-`.
    pub path: PathBuf,
    /// The first up to [`DETECT_BYTES`] bytes.
    pub head: Vec<u8>,
    source: Source,
}

#[derive(Debug)]
enum Source {
    /// A regular file, positioned at its start (the head was read with `pread`).
    Regular(File),
    /// A stream whose head has been consumed.
    Stream(Box<dyn ReadDebug>),
}

/// `Read + Debug`, for a boxed stream.
trait ReadDebug: Read + std::fmt::Debug + Send {}
impl<T: Read + std::fmt::Debug + Send> ReadDebug for T {}

/// Opens `path` (`-` is stdin) and reads its head. Errors (`Io`): not found, unreadable, a
/// directory.
pub fn open(path: &Path) -> Result<Opened> {
    if path.as_os_str() == "-" {
        return Opened::stream(PathBuf::from("stdin"), Box::new(std::io::stdin()));
    }
    let file = File::open(path).map_err(|e| Error::io(path, &e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, &e))?;
    if meta.is_dir() {
        return Err(Error::new(ErrorKind::Io, path, "is a directory"));
    }
    if !meta.is_file() {
        return Opened::stream(path.to_path_buf(), Box::new(file));
    }
    let mut head = vec![0u8; DETECT_BYTES.min(usize::try_from(meta.len()).unwrap_or(DETECT_BYTES))];
    let mut n = 0;
    while n < head.len() {
        match file.read_at(&mut head[n..], n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, &e)),
        }
    }
    head.truncate(n);
    Ok(Opened {
        path: path.to_path_buf(),
        head,
        source: Source::Regular(file),
    })
}

impl Opened {
    fn stream(path: PathBuf, mut r: Box<dyn ReadDebug>) -> Result<Opened> {
        let mut head = Vec::with_capacity(DETECT_BYTES);
        (&mut r)
            .take(DETECT_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(|e| Error::io(&path, &e))?;
        Ok(Opened {
            path,
            head,
            source: Source::Stream(r),
        })
    }

    /// The detected kind (see the module docs).
    pub fn kind(&self) -> FileKind {
        kind_of(&self.head)
    }

    /// Reads it as a Mach-O file: the slices of `arch` (without the other exports). Errors:
    /// those of [`crate::macho::read_file`], and a stream longer than
    /// [`MAX_STREAM_BINARY_BYTES`].
    pub fn into_images(self, arch: &ArchFilter) -> Result<Vec<Image>> {
        read_images(&self.into_file()?, arch)
    }

    /// [`Opened::into_images`] with the debug maps of linked images left to read
    /// ([`DeferredInput`]), and every other export when `other_exports`
    /// ([`ReadOptions::other_exports`]). Errors: as [`Opened::into_images`], but for a
    /// malformed debug map.
    pub fn into_images_deferred(
        self,
        arch: &ArchFilter,
        other_exports: bool,
    ) -> Result<DeferredInput> {
        let file = self.into_file()?;
        let (images, pending) = read_images_deferred(&file, arch, other_exports)?
            .into_iter()
            .unzip();
        Ok(DeferredInput {
            images,
            pending: Some((file, pending)),
        })
    }

    /// The Mach-O file to read: the open file, or the stream's bytes in memory.
    fn into_file(self) -> Result<MachOFile> {
        Ok(match self.source {
            Source::Regular(f) => MachOFile::from_file(&self.path, f)?,
            Source::Stream(mut r) => {
                let mut bytes = self.head;
                (&mut r)
                    .take(MAX_STREAM_BINARY_BYTES + 1 - bytes.len() as u64)
                    .read_to_end(&mut bytes)
                    .map_err(|e| Error::io(&self.path, &e))?;
                if bytes.len() as u64 > MAX_STREAM_BINARY_BYTES {
                    return Err(Error::new(
                        ErrorKind::Unsupported,
                        &self.path,
                        format!(
                            "a Mach-O file read from a stream is held in memory, at most {} MiB: save it to a file and give its path",
                            MAX_STREAM_BINARY_BYTES >> 20
                        ),
                    ));
                }
                MachOFile::from_bytes(&self.path, bytes)
            }
        })
    }

    /// Reads it as a dyld log, streamed: the process `pid` (default: the first). Errors: those
    /// of [`crate::log::read_log`].
    pub fn into_log(self, pid: Option<u32>) -> Result<Vec<Image>> {
        match self.source {
            // The line reader reads 1 MiB at a time itself (no BufReader in between).
            Source::Regular(f) => read_log_from(&self.path, f, pid),
            Source::Stream(r) => {
                read_log_from(&self.path, std::io::Cursor::new(self.head).chain(r), pid)
            }
        }
    }
}

/// Reads `path` (`-` is stdin) as a Mach-O file, whatever its first bytes: `check` and
/// `baseline` take binaries only.
pub fn read_binary(path: &Path, arch: &ArchFilter) -> Result<Vec<Image>> {
    open(path)?.into_images(arch)
}

/// The kind of a file starting with `head`.
pub fn kind_of(head: &[u8]) -> FileKind {
    let magic = head
        .get(..4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    // A file shorter than a magic number that starts like one is a cut binary.
    let cut_magic = head.len() < 4 && MAGICS.iter().any(|m| m.to_be_bytes().starts_with(head));
    if cut_magic
        || magic.is_some_and(|m| MAGICS.contains(&m))
        || head.starts_with(crate::macho::object::AR_MAGIC)
        || head.contains(&0)
    {
        FileKind::Binary
    } else {
        FileKind::Log
    }
}

/// Reads `path` (`-` is stdin) as `opts.kind`, or as detected. A detected log with no dyld
/// lines is reported as neither kind.
pub fn read_input(path: &Path, opts: &ReadOptions) -> Result<Vec<Image>> {
    let input = open(path)?;
    match opts.kind.unwrap_or_else(|| input.kind()) {
        FileKind::Binary if opts.other_exports => {
            let input = input.into_images_deferred(&opts.arch, true)?;
            let read = input.read_attributions()?;
            Ok(input.finish(read))
        }
        FileKind::Binary => input.into_images(&opts.arch),
        FileKind::Log => log_images(input, opts),
    }
}

/// `input`, detected or declared a log (`opts.kind`), read as one. A detected log that does not
/// read as one is "neither a Mach-O file nor a dyld log".
fn log_images(input: Opened, opts: &ReadOptions) -> Result<Vec<Image>> {
    let path = input.path.clone();
    match opts.kind {
        Some(_) => input.into_log(opts.pid),
        None => input.into_log(opts.pid).map_err(|e| {
            if e.kind == ErrorKind::Malformed {
                let prefix = format!("{}: ", crate::text::escape_path(&path));
                Error::new(
                    ErrorKind::Malformed,
                    &path,
                    format!(
                        "neither a Mach-O file nor a dyld log: {}",
                        e.message.strip_prefix(&prefix).unwrap_or(&e.message)
                    ),
                )
            } else {
                e
            }
        }),
    }
}

/// An input read but for the debug maps of its linked images ([`read_input_deferred`]): a
/// command reads them ([`DeferredInput::read_attributions`]) while it demangles the images'
/// names, then puts them in place ([`DeferredInput::finish`]).
#[derive(Debug)]
pub struct DeferredInput {
    /// The images; a linked image's `attribution` stays `None` until [`DeferredInput::finish`].
    pub images: Vec<Image>,
    /// The Mach-O file and, per image, its debug map still to read (`None` for a log).
    pending: Option<(MachOFile, Vec<Option<PendingAttribution>>)>,
}

/// The debug maps [`DeferredInput::read_attributions`] read, for [`DeferredInput::finish`].
#[derive(Debug)]
pub struct ReadAttributions(Vec<(usize, Option<Box<Attribution>>)>);

impl DeferredInput {
    /// Reads the pending debug maps, in image order (as [`read_input`] reads them).
    ///
    /// Errors (exit 2, naming the file): the first image's whose debug map is malformed, or a
    /// file that shrank since it was read (a symbol table outside the file was already an error
    /// of [`read_input_deferred`]).
    pub fn read_attributions(&self) -> Result<ReadAttributions> {
        let Some((file, pending)) = &self.pending else {
            return Ok(ReadAttributions(Vec::new()));
        };
        let mut read = Vec::new();
        for (i, (image, p)) in self.images.iter().zip(pending).enumerate() {
            if let Some(p) = p {
                read.push((i, p.read(file, image)?));
            }
        }
        Ok(ReadAttributions(read))
    }

    /// The images, each with the attribution `read` holds for it: what [`read_input`] gives.
    pub fn finish(mut self, read: ReadAttributions) -> Vec<Image> {
        for (i, a) in read.0 {
            self.images[i].attribution = a;
        }
        self.images
    }
}

/// [`read_input`] with the debug maps of linked images left to read ([`DeferredInput`]).
///
/// Errors: those of [`read_input`], but for a malformed debug map
/// ([`DeferredInput::read_attributions`]).
pub fn read_input_deferred(path: &Path, opts: &ReadOptions) -> Result<DeferredInput> {
    let input = open(path)?;
    match opts.kind.unwrap_or_else(|| input.kind()) {
        FileKind::Binary => input.into_images_deferred(&opts.arch, opts.other_exports),
        FileKind::Log => Ok(DeferredInput {
            images: log_images(input, opts)?,
            pending: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(
            kind_of(&[0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]),
            FileKind::Binary
        );
        assert_eq!(kind_of(&[0xca, 0xfe, 0xba, 0xbe]), FileKind::Binary);
        assert_eq!(kind_of(b"\x7fELF\x02\x01\x01\x00"), FileKind::Binary);
        assert_eq!(kind_of(b""), FileKind::Binary);
        assert_eq!(
            kind_of(b"dyld[1]: <a/bind#0> -> 0x1 (b/_c)\n"),
            FileKind::Log
        );
        assert_eq!(kind_of(b"any text at all"), FileKind::Log);
    }
}
