//! The processes of a log: each dyld line counted for the process that wrote it (its PID, or
//! none for dyld2), the first [`MAX_LISTED_PIDS`] listed in [`LogFacts::pids`], the others
//! counted up to a bound, and the one process read chosen (the one asked for, or the first).

use crate::log::line::Writer;
use crate::model::{LogFacts, MAX_LISTED_PIDS, PidLines};
use rustc_hash::FxHashMap;
use std::collections::HashSet;

/// Distinct PIDs tracked to count [`LogFacts::more_pids`]; beyond this the count is a lower
/// bound.
const MAX_TRACKED_PIDS: usize = 1 << 20;

/// Which processes a log has shown so far, and which one is read.
pub(super) struct Processes {
    /// The process read: `Some(Some(pid))` dyld4, `Some(None)` dyld2.
    pub(super) selected: Option<Option<u32>>,
    /// Index in `facts.pids` of each listed PID. Looked up once per dyld line: FxHash, as it
    /// holds at most [`MAX_LISTED_PIDS`] keys (no costly collisions to choose).
    listed: FxHashMap<Option<u32>, usize>,
    /// The last two listed keys met, most recent first, with their index (see
    /// [`Processes::listed_index`]).
    recent: [Option<(Option<u32>, usize)>; 2],
    /// PIDs past the listed ones (SipHash: up to [`MAX_TRACKED_PIDS`] keys a log chooses).
    tracked: HashSet<Option<u32>>,
}

impl Processes {
    /// None seen yet; `want` is the PID to read (default: the first process seen).
    pub(super) fn new(want: Option<u32>) -> Self {
        Processes {
            selected: want.map(Some),
            listed: FxHashMap::default(),
            recent: [None; 2],
            tracked: HashSet::new(),
        }
    }

    /// Counts a dyld line for its process in `facts`; true if it is the process read.
    pub(super) fn count(&mut self, w: Writer, facts: &mut LogFacts) -> bool {
        let key = match w {
            Writer::Dyld4 { pid, .. } => Some(pid),
            Writer::Dyld2 => None,
        };
        match self.listed_index(key) {
            Some(i) => facts.pids[i].lines += 1,
            None if facts.pids.len() < MAX_LISTED_PIDS => {
                let i = facts.pids.len();
                self.listed.insert(key, i);
                self.recent = [Some((key, i)), self.recent[0]];
                facts.pids.push(PidLines { pid: key, lines: 1 });
            }
            None => {
                if self.tracked.len() < MAX_TRACKED_PIDS && self.tracked.insert(key) {
                    facts.more_pids += 1;
                }
            }
        }
        if self.selected.is_none() {
            self.selected = Some(key);
        }
        if self.selected == Some(key) {
            facts.dyld_lines += 1;
            true
        } else {
            facts.other_process_lines += 1;
            false
        }
    }

    /// The index of `key` in `facts.pids`, if listed. Called once per dyld line: the two
    /// processes met last are checked before the map (logs interleave a few processes at a
    /// time, so most lines are counted without hashing).
    fn listed_index(&mut self, key: Option<u32>) -> Option<usize> {
        match self.recent {
            [Some((k, i)), _] if k == key => Some(i),
            [other, Some((k, i))] if k == key => {
                self.recent = [Some((k, i)), other];
                Some(i)
            }
            _ => {
                let i = *self.listed.get(&key)?;
                self.recent = [Some((key, i)), self.recent[0]];
                Some(i)
            }
        }
    }

    /// Whether dyld4 process `pid` wrote any line (listed or tracked).
    pub(super) fn seen(&self, pid: u32) -> bool {
        self.listed.contains_key(&Some(pid)) || self.tracked.contains(&Some(pid))
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_log_from;
    use crate::error::ErrorKind;
    use crate::model::PidLines;
    use std::path::Path;

    #[test]
    fn processes_and_noise() {
        let log: &[u8] = b"program says hi\r\n\
dyld[7]: looking for weak-def symbol '__Znwm':\n\
dyld[8]: looking for weak-def symbol '__Znwm':\n\
dyld[7]: something dyld says that we do not know\n\
\x1b[1m\xff\n\
dyld[7]: <app/bind#0> -> 0x1 (libc++abi.dylib/__Znwm)\n\
dyld[7]: looking for weak-def symbol '__Zn";
        let bytes = log;
        let images = read_log_from(Path::new("t.log"), bytes, None).unwrap();
        let f = &images[0].log().unwrap().facts;
        assert_eq!(f.lines, 7);
        assert_eq!(f.crlf_lines, 1);
        assert_eq!(f.program_output_lines, 2);
        assert_eq!(f.other_process_lines, 1);
        // The cut last line is one of them.
        assert_eq!(f.unrecognized_dyld_lines, 2);
        assert!(f.truncated_last_line);
        assert_eq!(
            f.pids,
            [
                PidLines {
                    pid: Some(7),
                    lines: 4
                },
                PidLines {
                    pid: Some(8),
                    lines: 1
                }
            ]
        );
        let other = read_log_from(Path::new("t.log"), bytes, Some(8)).unwrap();
        assert_eq!(other[0].seen_weak_lookups(), Some(1));
        let err = read_log_from(Path::new("t.log"), bytes, Some(9)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Usage);
        assert!(err.to_string().contains("PIDs seen: 7, 8"), "{err}");
    }
}
