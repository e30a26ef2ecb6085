//! The container: a thin Mach-O file or a universal (fat) file of several slices.
//!
//! Only byte ranges are read — the fat header, each slice's mach header and load commands, and
//! later the LINKEDIT structures and fixup pages — never the whole (often 100+ MB) file.
//!
//! ```text
//! struct fat_header { magic: u32 /* 0xcafebabe FAT_MAGIC or 0xcafebabf FAT_MAGIC_64 */,
//!                     nfat_arch: u32 }                          // big-endian
//! struct fat_arch    { cputype: i32, cpusubtype: i32, offset: u32, size: u32, align: u32 }
//! struct fat_arch_64 { cputype: i32, cpusubtype: i32, offset: u64, size: u64, align: u32,
//!                      reserved: u32 }
//! ```
//!
//! `FAT_MAGIC` slices are read with goblin's `mach::fat`; goblin has no `FAT_MAGIC_64`, whose
//! 32-byte entries are decoded here (`<mach-o/fat.h>`).

use crate::error::{Error, ErrorKind, Result};
use goblin::mach::constants::cputype::{CPU_TYPE_ARM64, CPU_TYPE_X86_64};
use goblin::mach::fat::{FAT_MAGIC, FatArch, SIZEOF_FAT_ARCH, SIZEOF_FAT_HEADER};
use std::fs::File;
use std::path::{Path, PathBuf};

/// `FAT_MAGIC_64` from `<mach-o/fat.h>` (not in goblin).
pub const FAT_MAGIC_64: u32 = 0xcafe_babf;
/// Size of a `fat_arch_64` entry.
pub const SIZEOF_FAT_ARCH_64: usize = 32;
/// At most this many slices are accepted in a universal file.
pub const MAX_FAT_ARCHS: u32 = 64;
/// `CPU_SUBTYPE_ARM64E`.
pub const CPU_SUBTYPE_ARM64E: u32 = 2;
/// `CPU_SUBTYPE_X86_64_H`.
pub const CPU_SUBTYPE_X86_64_H: u32 = 8;

/// An input that is read by byte range: an open file, or bytes already in memory (a fuzz input,
/// a test). The length is taken once, when it is opened; a file that shrinks afterwards makes a
/// later [`MachOFile::read_range`] fail with "file shrank while being read", never a crash
/// (weakscan uses `pread`, not a memory map, so there is no SIGBUS to catch).
#[derive(Debug)]
pub struct MachOFile {
    path: PathBuf,
    backing: Backing,
    len: u64,
    identity: Option<FileIdentity>,
}

/// What identifies a file on disk when it was opened: device and inode (dyld's `FileID`,
/// dyld/DyldDelegates.h, adds the modification time in seconds), plus the modification and
/// status-change times in nanoseconds and the length.
///
/// Two paths with the same [`FileIdentity::dyld_file_id`] are one file reached through a hard link or
/// symlink, which dyld loads once (Loader.cpp `getLoader`: "already-loaded-by-inode-mtime"). A
/// file whose identity differs from the one read earlier was replaced or rewritten in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIdentity {
    /// `st_dev`.
    pub device: u64,
    /// `st_ino`.
    pub inode: u64,
    /// `st_mtime` in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// `st_size` in bytes.
    pub len: u64,
    /// `st_ctime` in nanoseconds since the epoch: changes with every write, also one whose
    /// modification time was put back (`touch -r`).
    pub ctime_ns: i128,
}

impl FileIdentity {
    /// The identity in `meta` (`stat`/`fstat` of the file).
    pub fn of(meta: &std::fs::Metadata) -> FileIdentity {
        use std::os::unix::fs::MetadataExt;
        FileIdentity {
            device: meta.dev(),
            inode: meta.ino(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            len: meta.len(),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }

    /// The identity of the file at `path` (following symlinks), or `None` if it cannot be
    /// read (dyld's `FileID::none()`: matches nothing).
    pub fn of_path(path: &Path) -> Option<FileIdentity> {
        std::fs::metadata(path).ok().map(|m| FileIdentity::of(&m))
    }

    /// What dyld's `FileID::operator==` compares: device, inode and modification second.
    /// Two identities with the same key are one file for dyld.
    pub fn dyld_file_id(&self) -> (u64, u64, i128) {
        (
            self.device,
            self.inode,
            self.mtime_ns.div_euclid(1_000_000_000),
        )
    }
}

#[derive(Debug)]
enum Backing {
    File(File),
    Memory(Vec<u8>),
}

/// Where one slice (architecture) lives in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceLocation {
    /// Arch name: `x86_64`, `x86_64h`, `arm64`, `arm64e`, or `cputype 0x…` for others.
    pub arch: String,
    /// `cputype` from the fat entry or the mach header.
    pub cputype: u32,
    /// `cpusubtype` without the capability bits.
    pub cpusubtype: u32,
    /// File offset of the slice's mach header.
    pub offset: u64,
    /// Size of the slice in bytes.
    pub size: u64,
}

/// The weakscan name of a (cputype, cpusubtype) pair.
pub fn arch_name(cputype: u32, cpusubtype: u32) -> String {
    let sub = cpusubtype & 0x00ff_ffff;
    match cputype {
        CPU_TYPE_X86_64 if sub == CPU_SUBTYPE_X86_64_H => "x86_64h".into(),
        CPU_TYPE_X86_64 => "x86_64".into(),
        CPU_TYPE_ARM64 if sub == CPU_SUBTYPE_ARM64E => "arm64e".into(),
        CPU_TYPE_ARM64 => "arm64".into(),
        7 => "i386".into(),
        12 => "arm".into(),
        0x0200_000c => "arm64_32".into(),
        18 => "ppc".into(),
        0x0100_0012 => "ppc64".into(),
        other => format!("cputype {other:#x}"),
    }
}

impl MachOFile {
    /// Opens `path` for ranged reads. Errors: not found, a directory, unreadable.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, &e))?;
        MachOFile::from_file(path, file)
    }

    /// Opens `path` for ranged reads if it is a regular file, without ever blocking: it is opened
    /// with `O_NONBLOCK` (a FIFO or device at `path` cannot hang the open) and refused unless
    /// `fstat` says it is a regular file, as dyld refuses (`ENOTAFILE_NP`, DyldDelegates.h). For
    /// the images of a process, which dyld maps from regular files only. Errors: not found,
    /// unreadable, not a regular file.
    pub fn open_regular(path: &Path) -> Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| Error::io(path, &e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, &e))?;
        if !meta.is_file() {
            return Err(Error::new(ErrorKind::Io, path, "not a regular file"));
        }
        MachOFile::from_file(path, file)
    }

    /// Reads from an already opened `file`; `path` names it in errors. Errors: a directory,
    /// metadata that cannot be read.
    pub fn from_file(path: &Path, file: File) -> Result<Self> {
        let meta = file.metadata().map_err(|e| Error::io(path, &e))?;
        if meta.is_dir() {
            return Err(Error::new(ErrorKind::Io, path, "is a directory"));
        }
        Ok(MachOFile {
            path: path.to_path_buf(),
            backing: Backing::File(file),
            len: meta.len(),
            identity: Some(FileIdentity::of(&meta)),
        })
    }

    /// Reads from `bytes` instead of a file; `path` only names the input in errors.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Self {
        MachOFile {
            path: path.to_path_buf(),
            len: bytes.len() as u64,
            backing: Backing::Memory(bytes),
            identity: None,
        }
    }

    /// The identity of the opened file (`fstat` when it was opened); `None` for bytes in
    /// memory.
    pub fn identity(&self) -> Option<FileIdentity> {
        self.identity
    }

    /// The path given to [`MachOFile::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// File size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// An error about this file.
    pub fn error(&self, kind: ErrorKind, what: impl std::fmt::Display) -> Error {
        Error::new(kind, &self.path, what)
    }

    /// Reads `len` bytes at file offset `offset`. The range is checked against the file size
    /// first, so a corrupt size never causes a large allocation; `what` names the structure in
    /// the error (`"… past the end of the file"`).
    pub fn read_range(&self, offset: u64, len: u64, what: &str) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.read_range_into(offset, len, what, &mut buf)?;
        Ok(buf)
    }

    /// [`MachOFile::read_range`] into `buf` (cleared first), reusing its allocation: for
    /// structures read a window at a time (the symbol and string tables).
    pub fn read_range_into(
        &self,
        offset: u64,
        len: u64,
        what: &str,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let end = offset.checked_add(len);
        if end.is_none_or(|e| e > self.len) {
            return Err(self.error(
                ErrorKind::Malformed,
                format!(
                    "truncated: {what} (file offset {offset:#x}, {len} bytes) runs past the end of the file ({} bytes)",
                    self.len
                ),
            ));
        }
        let (start, end) = (offset as usize, (offset + len) as usize);
        buf.clear();
        match &self.backing {
            Backing::Memory(bytes) => {
                buf.extend_from_slice(&bytes[start..end]);
                Ok(())
            }
            Backing::File(file) => {
                match read_exact_at(file, buf, len as usize, offset) {
                    Ok(()) => Ok(()),
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                        Err(self.error(
                            ErrorKind::Io,
                            format!(
                                "file shrank while being read: {what} (file offset {offset:#x}, {len} bytes) is no longer there (the file had {} bytes when opened)",
                                self.len
                            ),
                        ))
                    }
                    Err(e) => Err(Error::io(&self.path, &e)),
                }
            }
        }
    }

    /// Lists the slices: one for a thin file, one per `fat_arch(_64)` for a universal file.
    ///
    /// Errors: an empty or too-short file, an unknown magic (not Mach-O), a universal file with
    /// zero, too many, overlapping-the-header, out-of-file or duplicate-arch slices, a 32-bit
    /// or big-endian thin image (unsupported).
    pub fn slices(&self) -> Result<Vec<SliceLocation>> {
        if self.len == 0 {
            return Err(self.error(ErrorKind::Malformed, "empty file (0 bytes)"));
        }
        if self.len < 4 {
            return Err(self.error(
                ErrorKind::Malformed,
                "not a Mach-O file (too short for a magic number)",
            ));
        }
        let head = self.read_range(0, self.len.min(SIZEOF_FAT_HEADER as u64), "header")?;
        let magic_be = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
        match magic_be {
            FAT_MAGIC | FAT_MAGIC_64 => self.fat_slices(magic_be == FAT_MAGIC_64),
            _ => {
                let hdr = self.read_range(0, self.len.min(12), "mach header")?;
                let (cputype, cpusubtype) = thin_cpu(self, &hdr)?;
                Ok(vec![SliceLocation {
                    arch: arch_name(cputype, cpusubtype),
                    cputype,
                    cpusubtype: cpusubtype & 0x00ff_ffff,
                    offset: 0,
                    size: self.len,
                }])
            }
        }
    }

    fn fat_slices(&self, is_64: bool) -> Result<Vec<SliceLocation>> {
        let head = self.read_range(0, SIZEOF_FAT_HEADER as u64, "fat header")?;
        let nfat = u32::from_be_bytes([head[4], head[5], head[6], head[7]]);
        // A Java class file starts with the same 0xcafebabe; its next four bytes are the class
        // file version (u16 minor, u16 major: 45 for JDK 1.1 … 69 for JDK 25). file(1)
        // (libmagic's `cafebabe` rule) tells them apart by the count: under 20 is universal.
        if !is_64 && nfat >= 20 && (45..=80).contains(&(nfat & 0xffff)) {
            return Err(self.error(
                ErrorKind::Malformed,
                "not a Mach-O file: a Java class file (magic 0xcafebabe, class file version where a universal file has its slice count)",
            ));
        }
        if nfat == 0 {
            return Err(self.error(
                ErrorKind::Malformed,
                "universal file has no slices (nfat_arch is 0)",
            ));
        }
        if nfat > MAX_FAT_ARCHS {
            return Err(self.error(
                ErrorKind::Malformed,
                format!("universal file claims {nfat} slices (more than {MAX_FAT_ARCHS})"),
            ));
        }
        let entry = if is_64 {
            SIZEOF_FAT_ARCH_64
        } else {
            SIZEOF_FAT_ARCH
        };
        let table_len = entry as u64 * u64::from(nfat);
        let table = self.read_range(SIZEOF_FAT_HEADER as u64, table_len, "fat_arch table")?;
        let header_end = SIZEOF_FAT_HEADER as u64 + table_len;
        let mut out: Vec<SliceLocation> = Vec::new();
        for i in 0..nfat as usize {
            let e = &table[i * entry..(i + 1) * entry];
            let (cputype, cpusubtype, offset, size) = if is_64 {
                let be32 =
                    |o: usize| u32::from_be_bytes(e[o..o + 4].try_into().unwrap_or_default());
                let be64 =
                    |o: usize| u64::from_be_bytes(e[o..o + 8].try_into().unwrap_or_default());
                (be32(0), be32(4), be64(8), be64(16))
            } else {
                let arch = FatArch::parse(&table, i * entry).map_err(|err| {
                    self.error(ErrorKind::Malformed, format!("fat_arch {i}: {err}"))
                })?;
                (
                    arch.cputype,
                    arch.cpusubtype,
                    u64::from(arch.offset),
                    u64::from(arch.size),
                )
            };
            let arch = arch_name(cputype, cpusubtype);
            if offset < header_end {
                return Err(self.error(
                    ErrorKind::Malformed,
                    format!(
                        "slice {i} ({arch}) at offset {offset:#x} starts inside the fat_arch table (which ends at {header_end:#x})"
                    ),
                ));
            }
            if offset.checked_add(size).is_none_or(|end| end > self.len) {
                return Err(self.error(
                    ErrorKind::Malformed,
                    format!(
                        "truncated: slice {i} ({arch}) at offset {offset:#x}, {size} bytes, runs past the end of the file ({} bytes)",
                        self.len
                    ),
                ));
            }
            if out.iter().any(|s| s.arch == arch) {
                return Err(self.error(
                    ErrorKind::Malformed,
                    format!("universal file has two {arch} slices"),
                ));
            }
            out.push(SliceLocation {
                arch,
                cputype,
                cpusubtype: cpusubtype & 0x00ff_ffff,
                offset,
                size,
            });
        }
        // Slices sharing bytes would multiply the work on them (lipo never writes them).
        let mut by_offset: Vec<&SliceLocation> = out.iter().collect();
        by_offset.sort_by_key(|s| s.offset);
        for w in by_offset.windows(2) {
            if w[1].offset < w[0].offset + w[0].size {
                return Err(self.error(
                    ErrorKind::Malformed,
                    format!(
                        "universal file's {} and {} slices overlap",
                        w[0].arch, w[1].arch
                    ),
                ));
            }
        }
        Ok(out)
    }
}

/// cputype/cpusubtype of a thin image, or the error that says why it cannot be read.
fn thin_cpu(file: &MachOFile, hdr: &[u8]) -> Result<(u32, u32)> {
    use goblin::mach::header::{MH_CIGAM, MH_CIGAM_64, MH_MAGIC, MH_MAGIC_64};
    let magic_le = u32::from_le_bytes([hdr[0], hdr[1], hdr[2], hdr[3]]);
    match magic_le {
        MH_MAGIC_64 if hdr.len() >= 12 => {
            let le = |o: usize| u32::from_le_bytes(hdr[o..o + 4].try_into().unwrap_or_default());
            Ok((le(4), le(8)))
        }
        MH_MAGIC_64 => Err(file.error(ErrorKind::Malformed, "truncated mach header")),
        MH_MAGIC => Err(file.error(
            ErrorKind::Unsupported,
            "32-bit Mach-O images are not supported",
        )),
        MH_CIGAM | MH_CIGAM_64 => Err(file.error(
            ErrorKind::Unsupported,
            "big-endian Mach-O images are not supported",
        )),
        _ => {
            let head = file.read_range(0, file.len.min(4096), "header")?;
            Err(file.error(
                ErrorKind::Malformed,
                match foreign_format(&head) {
                    Some(what) => format!("not a Mach-O file: {what}"),
                    None => format!("not a Mach-O file (magic {magic_le:#010x})"),
                },
            ))
        }
    }
}

/// What a file that is not Mach-O is, from its first bytes, for the error that refuses it: the
/// formats a user is likely to pass by mistake (ELF, PE/COFF, gzip, zip, a text file such as a
/// dyld log given where a binary is needed). `None` when it is none of them.
pub fn foreign_format(head: &[u8]) -> Option<&'static str> {
    let starts = |m: &[u8]| head.starts_with(m);
    if starts(b"\x7fELF") {
        return Some("an ELF file (a Linux or BSD binary); weakscan reads macOS Mach-O images");
    }
    if starts(b"MZ") {
        return Some("a PE/COFF file (a Windows binary); weakscan reads macOS Mach-O images");
    }
    if starts(b"\x1f\x8b") {
        return Some("a gzip file: decompress it first");
    }
    if starts(b"PK\x03\x04") {
        return Some("a zip archive (an .ipa, .jar or zipped app?): unzip it first");
    }
    if starts(b"\xfe\xed\xfa\xce") || starts(b"\xce\xfa\xed\xfe") {
        return Some("a 32-bit Mach-O image, which weakscan does not read");
    }
    let text = std::str::from_utf8(head)
        .or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
        .ok()
        .filter(|t| !t.is_empty() && t.len() + 4 >= head.len())
        .filter(|t| t.chars().all(|c| !c.is_control() || c.is_whitespace()))?;
    // A dyld log line: `dyld[PID]: …` (dyld4), `dyld: …` (dyld2), also after a syslog prefix.
    let log_line = |l: &str| {
        l.split_once("dyld[")
            .is_some_and(|(_, rest)| rest.split_once("]: ").is_some())
            || l.contains("dyld: ")
    };
    Some(if text.lines().take(64).any(log_line) {
        "a text file, apparently a DYLD_PRINT_BINDINGS log, where a Mach-O binary is needed (arguments swapped?)"
    } else {
        "a text file, not a Mach-O binary"
    })
}

/// Reads `len` bytes at `offset` into `buf` (empty), with `pread` straight into its spare
/// capacity: zeroing the buffer first, as a read into a `&mut [u8]` needs, touched every page
/// of a fresh buffer twice (the LINKEDIT reads of a Node.js diff are 33 MB).
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut Vec<u8>, len: usize, offset: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    debug_assert!(buf.is_empty());
    buf.reserve_exact(len);
    while buf.len() < len {
        let done = buf.len();
        let at = offset
            .checked_add(done as u64)
            .and_then(|at| libc::off_t::try_from(at).ok())
            .ok_or(std::io::ErrorKind::InvalidInput)?;
        // At most `INT_MAX - 1` bytes per call, as std's own reads: macOS refuses longer ones
        // with EINVAL (Linux returns a short read, which the loop continues).
        let ask = (len - done).min(libc::c_int::MAX as usize - 1);
        let spare = &mut buf.spare_capacity_mut()[..ask];
        // SAFETY: `pread` writes at most `spare.len()` bytes into `spare`, memory `buf` owns;
        // the fd is open for the call (`file` is borrowed).
        let n =
            unsafe { libc::pread(file.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len(), at) };
        match n {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n if n < 0 => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            // SAFETY: the first `done + n` bytes are initialized: `n` more were just read.
            n => unsafe { buf.set_len(done + n as usize) },
        }
    }
    Ok(())
}

#[cfg(windows)]
fn read_exact_at(file: &File, buf: &mut Vec<u8>, len: usize, offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    buf.resize(len, 0);
    let (mut buf, mut offset) = (&mut buf[..], offset);
    while !buf.is_empty() {
        let n = file.seek_read(buf, offset)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut buf[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(bytes: &[u8]) -> (tempfile::NamedTempFile, MachOFile) {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), bytes).unwrap();
        let m = MachOFile::open(f.path()).unwrap();
        (f, m)
    }

    fn thin_header(cputype: u32, cpusubtype: u32) -> Vec<u8> {
        let mut h = 0xfeed_facfu32.to_le_bytes().to_vec();
        h.extend(cputype.to_le_bytes());
        h.extend(cpusubtype.to_le_bytes());
        h.resize(32, 0);
        h
    }

    #[test]
    fn thin_arch_names() {
        for (ct, st, name) in [
            (CPU_TYPE_X86_64, 3, "x86_64"),
            (CPU_TYPE_X86_64, 8, "x86_64h"),
            (CPU_TYPE_ARM64, 0, "arm64"),
            (CPU_TYPE_ARM64, 0x8000_0002, "arm64e"), // capability bits are masked
        ] {
            let (_f, m) = file_with(&thin_header(ct, st));
            let s = m.slices().unwrap();
            assert_eq!(s.len(), 1);
            assert_eq!(s[0].arch, name);
            assert_eq!((s[0].offset, s[0].size), (0, 32));
        }
    }

    #[test]
    fn fat64_entries_and_bounds() {
        let mut fat = vec![0xca, 0xfe, 0xba, 0xbf, 0, 0, 0, 1];
        fat.extend(CPU_TYPE_ARM64.to_be_bytes());
        fat.extend(2u32.to_be_bytes());
        fat.extend(0x40u64.to_be_bytes());
        fat.extend(32u64.to_be_bytes());
        fat.extend([0u8; 8]);
        fat.resize(0x40, 0);
        fat.extend(thin_header(CPU_TYPE_ARM64, 2));
        let (_f, m) = file_with(&fat);
        let s = m.slices().unwrap();
        assert_eq!(
            (s[0].arch.as_str(), s[0].offset, s[0].size),
            ("arm64e", 0x40, 32)
        );
        // The same entry pointing past the end of the file.
        fat[16..24].copy_from_slice(&0x1000u64.to_be_bytes());
        let (_f, m) = file_with(&fat);
        let e = m.slices().unwrap_err();
        assert!(
            e.message.ends_with(
                "truncated: slice 0 (arm64e) at offset 0x1000, 32 bytes, runs past the end of the file (96 bytes)"
            ),
            "{e}"
        );
        // Slice overlapping the fat header itself.
        fat[16..24].copy_from_slice(&0x8u64.to_be_bytes());
        let (_f, m) = file_with(&fat);
        assert!(
            m.slices()
                .unwrap_err()
                .message
                .contains("starts inside the fat_arch table (which ends at 0x28)")
        );
    }

    #[test]
    fn too_many_slices_and_short_files() {
        let (_f, m) = file_with(&[0xca, 0xfe, 0xba, 0xbe, 0, 0, 1, 0]);
        assert!(
            m.slices()
                .unwrap_err()
                .message
                .contains("claims 256 slices")
        );
        let (_f, m) = file_with(&[0xcf, 0xfa]);
        assert!(
            m.slices()
                .unwrap_err()
                .message
                .contains("too short for a magic number")
        );
        let (_f, m) = file_with(&[0xcf, 0xfa, 0xed, 0xfe, 7]);
        assert!(
            m.slices()
                .unwrap_err()
                .message
                .ends_with("truncated mach header")
        );
        let (_f, m) = file_with(&[0xfe, 0xed, 0xfa, 0xcf, 0, 0, 0, 0]);
        assert_eq!(m.slices().unwrap_err().kind, ErrorKind::Unsupported);
    }

    #[test]
    fn ranged_reads_are_checked_before_allocating() {
        let (_f, m) = file_with(&[1, 2, 3, 4]);
        assert_eq!(m.read_range(1, 2, "x").unwrap(), [2, 3]);
        let e = m.read_range(2, u64::MAX, "export trie").unwrap_err();
        assert!(e.message.contains("truncated: export trie (file offset 0x2, 18446744073709551615 bytes) runs past the end of the file (4 bytes)"), "{e}");
    }
}
