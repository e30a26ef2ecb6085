//! Which kind of input a file is — a Mach-O binary or a dyld log — and reading it into the
//! model.
//!
//! Detection looks at the first 4 KiB: a Mach-O or universal magic (either byte order), or
//! any NUL byte, means a binary (a non-Mach-O binary then gets the Mach-O reader's error);
//! anything else is read as a log. `--input-kind` overrides it.

use crate::error::{Error, ErrorKind, Result};
use crate::log::read_log;
use crate::macho::{ArchFilter, read_file};
use crate::model::Image;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// A binary or a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A Mach-O file, thin or universal.
    Binary,
    /// A `DYLD_PRINT_BINDINGS` log.
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
    pub kind: Option<InputKind>,
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

/// Detects the kind of `path` from its first bytes; a file that cannot be read is treated as
/// a binary, so that the reader reports the error.
pub fn detect(path: &Path) -> InputKind {
    let mut head = [0u8; 4096];
    let n = match File::open(path).and_then(|mut f| read_up_to(&mut f, &mut head)) {
        Ok(n) => n,
        Err(_) => return InputKind::Binary,
    };
    kind_of(&head[..n])
}

fn read_up_to(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The kind of a file starting with `head`.
pub fn kind_of(head: &[u8]) -> InputKind {
    let magic = head
        .get(..4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    // A file shorter than a magic number that starts like one is a cut binary.
    let cut_magic = head.len() < 4 && MAGICS.iter().any(|m| m.to_be_bytes().starts_with(head));
    if cut_magic || magic.is_some_and(|m| MAGICS.contains(&m)) || head.contains(&0) {
        InputKind::Binary
    } else {
        InputKind::Log
    }
}

/// Reads `path` as `opts.kind`, or as detected. A detected log with no dyld lines is reported
/// as neither kind.
pub fn read_input(path: &Path, opts: &ReadOptions) -> Result<Vec<Image>> {
    match opts.kind {
        Some(InputKind::Binary) => read_file(path, &opts.arch),
        Some(InputKind::Log) => read_log(path, opts.pid),
        None => match detect(path) {
            InputKind::Binary => read_file(path, &opts.arch),
            InputKind::Log => read_log(path, opts.pid).map_err(|e| {
                if e.kind == ErrorKind::Malformed {
                    Error::new(
                        ErrorKind::Malformed,
                        path,
                        format!(
                            "neither a Mach-O file nor a dyld log: {}",
                            e.message
                                .strip_prefix(&format!("{}: ", path.display()))
                                .unwrap_or(&e.message)
                        ),
                    )
                } else {
                    e
                }
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(
            kind_of(&[0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]),
            InputKind::Binary
        );
        assert_eq!(kind_of(&[0xca, 0xfe, 0xba, 0xbe]), InputKind::Binary);
        assert_eq!(kind_of(b"\x7fELF\x02\x01\x01\x00"), InputKind::Binary);
        assert_eq!(kind_of(b""), InputKind::Binary);
        assert_eq!(
            kind_of(b"dyld[1]: <a/bind#0> -> 0x1 (b/_c)\n"),
            InputKind::Log
        );
        assert_eq!(kind_of(b"any text at all"), InputKind::Log);
    }
}
