//! Streaming a log as lines, in bounded memory.
//!
//! A line ends at `\n`; a `\r` before it is dropped (CRLF). A line longer than
//! [`MAX_LINE_BYTES`] keeps its first `MAX_LINE_BYTES` bytes and the rest is read and dropped
//! (no dyld message is that long: syslog caps them at 2048 bytes). The last line may lack its
//! `\n` (a log cut while it was written). Nothing else is held: memory is the read buffer plus
//! one line.
//!
//! Speed: a log is read at close to the speed of reading the file, so no line is copied when it
//! need not be. Lines are returned borrowed from the read buffer ([`READ_BUFFER_BYTES`]); only
//! a line that runs past the buffer's end is assembled in a second buffer. UTF-8 is checked
//! once per buffer fill, not once per line: a line inside the valid prefix of the buffer is
//! valid (lines split at `\n`, an ASCII byte, so at character boundaries).

use memchr::memchr;
use std::io::{self, Read};

/// Longest line kept, in bytes; longer lines are cut and counted as oversized.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Bytes read from the input at a time. Lines found whole in the buffer are at most this long
/// less one (their `\n`), so they are never oversized.
pub const READ_BUFFER_BYTES: usize = 1 << 20;

const _: () = assert!(READ_BUFFER_BYTES <= MAX_LINE_BYTES);

/// One line, without its terminator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// The bytes (at most [`MAX_LINE_BYTES`]).
    pub bytes: &'a [u8],
    /// Ended with `\r\n`.
    pub crlf: bool,
    /// Longer than [`MAX_LINE_BYTES`]; `bytes` is its head.
    pub oversized: bool,
    /// Ended by `\n` (false only for a last line cut short).
    pub terminated: bool,
    /// `bytes` are valid UTF-8.
    pub utf8: bool,
}

/// Reads lines from a [`Read`] one at a time through one read buffer.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    /// The read buffer; `buf[pos..end]` is not returned yet.
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// `buf[..valid_to]` is valid UTF-8.
    valid_to: usize,
    /// A line that runs past the end of `buf`, assembled (its first [`MAX_LINE_BYTES`]).
    spill: Vec<u8>,
    /// Bytes consumed so far.
    pub bytes_read: u64,
}

impl<R: Read> LineReader<R> {
    /// A reader over `inner`, reading [`READ_BUFFER_BYTES`] at a time (no other buffering
    /// needed).
    pub fn new(inner: R) -> Self {
        Self::with_capacity(READ_BUFFER_BYTES, inner)
    }

    /// A reader over `inner` with a read buffer of `capacity` bytes (1 to
    /// [`MAX_LINE_BYTES`]).
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        assert!(
            (1..=MAX_LINE_BYTES).contains(&capacity),
            "read buffer of {capacity} bytes"
        );
        LineReader {
            inner,
            buf: vec![0; capacity].into_boxed_slice(),
            pos: 0,
            end: 0,
            valid_to: 0,
            spill: Vec::new(),
            bytes_read: 0,
        }
    }

    /// The next line, or `None` at the end. Errors: read errors of `inner`.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if self.pos == self.end && !self.fill()? {
            return Ok(None);
        }
        let Some(i) = memchr(b'\n', &self.buf[self.pos..self.end]) else {
            return self.straddling_line().map(Some);
        };
        // The whole line is in the buffer: borrowed, not copied.
        let (start, stop) = (self.pos, self.pos + i);
        self.consume(i + 1);
        let mut bytes = &self.buf[start..stop];
        let utf8 = stop <= self.valid_to || std::str::from_utf8(bytes).is_ok();
        let crlf = bytes.last() == Some(&b'\r');
        if crlf {
            bytes = &bytes[..bytes.len() - 1];
        }
        Ok(Some(Line {
            bytes,
            crlf,
            oversized: false,
            terminated: true,
            utf8,
        }))
    }

    /// A line that starts in `buf[pos..end]` (not empty) and has no `\n` there: assembled in
    /// `spill` while the buffer is refilled, up to its `\n` or the end of the input.
    fn straddling_line(&mut self) -> io::Result<Line<'_>> {
        self.spill.clear();
        let mut oversized = false;
        let mut terminated = false;
        loop {
            let avail = &self.buf[self.pos..self.end];
            let (chunk, used, done) = match memchr(b'\n', avail) {
                Some(i) => (&avail[..i], i + 1, true),
                None => (avail, avail.len(), false),
            };
            let room = MAX_LINE_BYTES - self.spill.len();
            if chunk.len() > room {
                oversized = true;
            }
            self.spill
                .extend_from_slice(&chunk[..chunk.len().min(room)]);
            self.consume(used);
            if done {
                terminated = true;
                break;
            }
            if !self.fill()? {
                break;
            }
        }
        let crlf = terminated && !oversized && self.spill.last() == Some(&b'\r');
        if crlf {
            self.spill.pop();
        }
        Ok(Line {
            bytes: &self.spill,
            crlf,
            oversized,
            terminated,
            utf8: std::str::from_utf8(&self.spill).is_ok(),
        })
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
        self.bytes_read += n as u64;
    }

    /// Refills the (fully consumed) buffer; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        debug_assert_eq!(self.pos, self.end);
        let n = loop {
            match self.inner.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        self.pos = 0;
        self.end = n;
        // A character cut by the buffer's end stops the valid prefix; the line holding it is
        // a straddling one, checked whole.
        // (The ASCII check first: it is twice as fast as UTF-8's on the ASCII logs usually are.)
        let filled = &self.buf[..n];
        self.valid_to = if filled.is_ascii() {
            n
        } else {
            match std::str::from_utf8(filled) {
                Ok(_) => n,
                Err(e) => e.valid_up_to(),
            }
        };
        Ok(n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type Got = (Vec<u8>, bool, bool, bool, bool);

    fn lines_from(mut r: LineReader<impl Read>) -> Vec<Got> {
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.bytes.to_vec(), l.crlf, l.oversized, l.terminated, l.utf8));
        }
        out
    }

    fn lines(input: &[u8], cap: usize) -> Vec<Got> {
        let mut r = LineReader::with_capacity(cap, input);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.bytes.to_vec(), l.crlf, l.oversized, l.terminated, l.utf8));
        }
        assert_eq!(r.bytes_read, input.len() as u64);
        out
    }

    /// The rules of the module doc, line by line on the whole input: what the reader must
    /// give whatever its buffer and however the input is split into reads.
    fn reference(input: &[u8]) -> Vec<Got> {
        let mut out = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let (line, terminated) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let l = &rest[..i];
                    rest = &rest[i + 1..];
                    (l, true)
                }
                None => (std::mem::take(&mut rest), false),
            };
            let oversized = line.len() > MAX_LINE_BYTES;
            let mut bytes = &line[..line.len().min(MAX_LINE_BYTES)];
            let crlf = terminated && !oversized && bytes.last() == Some(&b'\r');
            if crlf {
                bytes = &bytes[..bytes.len() - 1];
            }
            let utf8 = std::str::from_utf8(bytes).is_ok();
            out.push((bytes.to_vec(), crlf, oversized, terminated, utf8));
        }
        out
    }

    /// Gives its input in reads of the given sizes, in turn (a pipe or a terminal).
    struct ShortReads<'a> {
        input: &'a [u8],
        sizes: Vec<usize>,
        next: usize,
    }

    impl Read for ShortReads<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let size = self.sizes[self.next % self.sizes.len()];
            self.next += 1;
            if size == 0 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = size.min(buf.len()).min(self.input.len());
            buf[..n].copy_from_slice(&self.input[..n]);
            self.input = &self.input[n..];
            Ok(n)
        }
    }

    #[test]
    fn terminators() {
        let want = [
            (b"a".to_vec(), true, false, true, true),
            (b"bb".to_vec(), false, false, true, true),
            (vec![], false, false, true, true),
            (b"cut".to_vec(), false, false, false, true),
        ];
        for cap in [1, 2, 3, 4, 100] {
            assert_eq!(lines(b"a\r\nbb\n\ncut", cap), want, "buffer of {cap}");
        }
        assert!(lines(b"", 8).is_empty());
        // A `\r` without its `\n` (a cut last line) is kept.
        assert_eq!(
            lines(b"x\r", 8),
            [(b"x\r".to_vec(), false, false, false, true)]
        );
    }

    #[test]
    fn invalid_utf8_is_told_per_line() {
        // `é` is 0xC3 0xA9: valid whole, invalid cut; 0xFF is never valid.
        let input = "é\n\u{e9}a\nb\n".as_bytes().to_vec();
        let mut bad = input.clone();
        bad.splice(3..3, [0xff]);
        for cap in [1, 2, 3, 5, 64] {
            assert!(lines(&input, cap).iter().all(|l| l.4), "buffer of {cap}");
            let got: Vec<bool> = lines(&bad, cap).iter().map(|l| l.4).collect();
            assert_eq!(got, [true, false, true], "buffer of {cap}");
        }
    }

    #[test]
    fn oversized_lines_are_cut_and_the_rest_dropped() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\nnext\n");
        for cap in [4096, READ_BUFFER_BYTES, MAX_LINE_BYTES] {
            let got = lines(&input, cap);
            assert_eq!(got.len(), 2);
            assert_eq!(got[0].0.len(), MAX_LINE_BYTES);
            assert!(got[0].2);
            assert_eq!(got[1].0, b"next");
        }
        // A `\r` past the cut is dropped with the rest: the line is not CRLF.
        let mut input = vec![b'x'; MAX_LINE_BYTES];
        input.extend_from_slice(b"\r\n");
        let got = lines(&input, READ_BUFFER_BYTES);
        assert_eq!(
            (got[0].0.len(), got[0].1, got[0].2),
            (MAX_LINE_BYTES, false, true)
        );
        // At the limit a line is whole.
        let mut input = vec![b'x'; MAX_LINE_BYTES - 1];
        input.extend_from_slice(b"\r\n");
        let got = lines(&input, READ_BUFFER_BYTES);
        assert_eq!(
            (got[0].0.len(), got[0].1, got[0].2),
            (MAX_LINE_BYTES - 1, true, false)
        );
    }

    #[test]
    fn read_errors_are_returned() {
        struct Fails;
        impl Read for Fails {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("gone"))
            }
        }
        let mut r = LineReader::with_capacity(4, b"ab\ncd".chain(Fails));
        assert_eq!(r.next_line().unwrap().unwrap().bytes, b"ab");
        assert!(r.next_line().is_err());
    }

    proptest! {
        /// Any input, any buffer, any split into reads (interrupted ones too): the lines of
        /// the reference.
        #[test]
        fn lines_match_the_reference(
            input in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(0xc3u8), Just(0xa9u8), Just(0xffu8), Just(b'a')],
                0..200,
            ),
            cap in 1usize..40,
            sizes in proptest::collection::vec(0usize..50, 1..6),
        ) {
            let sizes = if sizes.iter().all(|&s| s == 0) { vec![1] } else { sizes };
            let r = LineReader::with_capacity(cap, ShortReads { input: &input, sizes, next: 0 });
            prop_assert_eq!(lines_from(r), reference(&input));
        }
    }
}
