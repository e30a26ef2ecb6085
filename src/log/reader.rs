//! Streaming a log as lines, in bounded memory.
//!
//! A line ends at `\n`; a `\r` before it is dropped (CRLF). A line longer than
//! [`MAX_LINE_BYTES`] keeps its first `MAX_LINE_BYTES` bytes and the rest is read and dropped
//! (no dyld message is that long: syslog caps them at 2048 bytes). The last line may lack its
//! `\n` (a log cut while it was written). Nothing else is held: memory is the read buffer plus
//! one line.

use std::io::{self, BufRead};

/// Longest line kept, in bytes; longer lines are cut and counted as oversized.
pub const MAX_LINE_BYTES: usize = 1 << 20;

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
}

/// Reads lines from a [`BufRead`] one at a time, reusing one buffer.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    line: Vec<u8>,
    /// Bytes consumed so far.
    pub bytes_read: u64,
}

impl<R: BufRead> LineReader<R> {
    /// A reader over `inner`.
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            line: Vec::new(),
            bytes_read: 0,
        }
    }

    /// The next line, or `None` at the end. Errors: read errors of `inner`.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.line.clear();
        let mut oversized = false;
        let mut terminated = false;
        let mut any = false;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                break;
            }
            any = true;
            let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], i + 1, true),
                None => (buf, buf.len(), false),
            };
            let room = MAX_LINE_BYTES - self.line.len();
            if chunk.len() > room {
                oversized = true;
            }
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            self.inner.consume(used);
            self.bytes_read += used as u64;
            if done {
                terminated = true;
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        let crlf = terminated && !oversized && self.line.last() == Some(&b'\r');
        if crlf {
            self.line.pop();
        }
        Ok(Some(Line {
            bytes: &self.line,
            crlf,
            oversized,
            terminated,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<(Vec<u8>, bool, bool, bool)> {
        let mut r = LineReader::new(io::BufReader::with_capacity(cap, input));
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.bytes.to_vec(), l.crlf, l.oversized, l.terminated));
        }
        assert_eq!(r.bytes_read, input.len() as u64);
        out
    }

    #[test]
    fn terminators() {
        let got = lines(b"a\r\nbb\n\ncut", 3);
        assert_eq!(
            got,
            [
                (b"a".to_vec(), true, false, true),
                (b"bb".to_vec(), false, false, true),
                (vec![], false, false, true),
                (b"cut".to_vec(), false, false, false),
            ]
        );
        assert!(lines(b"", 8).is_empty());
    }

    #[test]
    fn oversized_lines_are_cut_and_the_rest_dropped() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\nnext\n");
        let got = lines(&input, 4096);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.len(), MAX_LINE_BYTES);
        assert!(got[0].2);
        assert_eq!(got[1].0, b"next");
    }
}
