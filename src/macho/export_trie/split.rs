//! The export trie walked in parts on the run's pool: a Node.js build's trie (2.8 MB, 95k
//! nodes, 63k terminals) takes ~3 ms to walk warm and 6–7 ms in a fresh process, as long as
//! everything else its read does; split, the thread that read the fixups takes a share.
//!
//! A walk is split the way rayon splits a range, adaptively: every [`Split::check_every`]
//! nodes, a part with no spare work queued for an idle thread hands the second half of the
//! remaining children of its outermost open node (the largest piece of work it has left) to a
//! new part, through [`rayon::join`]. Work left in a part comes before the children it handed
//! off in depth-first edge order, so the parts, put back in order, visit the terminals in the
//! order [`super::walk_export_trie`] does:
//!
//! ```text
//! part A:  root ─ "_" ─ "__Z" ─ … (children 0..h of "_", and all it had open)   ┐ in order
//! part B:                       (children h..n of "_", handed off)             ┘
//! ```
//!
//! The parts share one bitset of entered nodes (an atomic `fetch_or` per node, so a node
//! reached from two parts is seen twice) and draw their name bytes from one budget in 4 KiB
//! draws, so a hostile trie holds no more memory split than walked whole. Any error in any part
//! is not reported as found: the walk is run again whole, on this thread, and its result is
//! returned. A split walk thus either gives exactly the whole walk's terminals, or the whole
//! walk's own result — never a different error or a different first error.

use super::{ExportTarget, Frame, Ledger, Walker, child_entry, name_budget, walk_export_trie};
use crate::error::ParseError;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};

/// When and how often a walk is split ([`walk_export_trie_split`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// Tries smaller than this many bytes are walked whole (splitting costs more than it
    /// saves).
    pub min_bytes: usize,
    /// Nodes a part walks between two looks at whether it should split (at least 1).
    pub check_every: u32,
}

impl Split {
    /// What `scan` and `diff` use: tries of 256 KiB and more, a look every 256 nodes.
    pub const DEFAULT: Split = Split {
        min_bytes: 256 << 10,
        check_every: 256,
    };
}

/// The most parts one walk is cut into: bounds the parts to put back together and the nesting
/// of joins (a part that splits goes on inside the join: at most this many frames of [`run`]
/// on one thread, a few hundred KiB of stack), whatever the trie's shape.
const MAX_PARTS: usize = 256;
/// Open nodes a part looks through, from the root, for one with children left to hand off
/// (deeper nodes hold less work, and a trie may be 10⁶ nodes deep).
const MAX_FRAMES_LOOKED_AT: usize = 64;
/// Name bytes a part draws from the shared budget at a time (a Node.js build's names: ~700
/// draws); a part gives back what it did not spend when it ends.
const BUDGET_DRAW: usize = 4 << 10;

/// Walks the trie in `data` as [`walk_export_trie`] does, in parts on the current rayon pool:
/// `visit(part, name, flags, target)` is called for each terminal with the part being filled
/// (`new_part()` makes one), and the parts come back in order, so that their terminals,
/// concatenated, are those of the whole walk in its order. Off a pool (no rayon thread), or for
/// a trie under `split.min_bytes`, the walk is whole: one part.
///
/// Errors: those of [`walk_export_trie`], exactly: on any error the trie is walked again whole
/// on this thread, and that walk's error is returned.
pub fn walk_export_trie_split<T: Send>(
    data: &[u8],
    split: Split,
    new_part: impl Fn() -> T + Sync,
    visit: impl Fn(&mut T, &[u8], u64, ExportTarget) + Sync,
) -> Result<Vec<T>, ParseError> {
    if data.len() >= split.min_bytes.max(1) && rayon::current_thread_index().is_some() {
        let shared = Shared {
            data,
            visited: (0..data.len().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            budget: AtomicUsize::new(name_budget(data)),
            queued: AtomicUsize::new(0),
            parts: AtomicUsize::new(1),
            failed: AtomicBool::new(false),
            check_every: split.check_every.max(1),
        };
        let mut walker = Walker::new(data, shared.ledger());
        let mut part = new_part();
        let first = walker.enter(0, &mut |n: &[u8], f, t| visit(&mut part, n, f, t));
        if first.is_ok()
            && let Ok(parts) = run(&shared, walker, part, &new_part, &visit)
        {
            return Ok(parts);
        }
    }
    let mut part = new_part();
    walk_export_trie(data, |n, f, t| visit(&mut part, n, f, t))?;
    Ok(vec![part])
}

/// What the parts of one split walk share.
struct Shared<'a> {
    data: &'a [u8],
    /// One bit per trie byte: a node starts there and was entered.
    visited: Vec<AtomicU64>,
    /// Name bytes not yet drawn by a part.
    budget: AtomicUsize,
    /// Parts handed off and not yet started: a part splits only when this is 0.
    queued: AtomicUsize,
    /// Parts made so far (at most [`MAX_PARTS`]).
    parts: AtomicUsize,
    /// A part failed: the others stop at their next look, and the walk is rerun whole.
    failed: AtomicBool,
    check_every: u32,
}

impl Shared<'_> {
    fn ledger(&self) -> SharedLedger<'_> {
        SharedLedger {
            visited: &self.visited,
            budget: &self.budget,
            drawn: 0,
        }
    }
}

/// A part's view of the [`Shared`] bitset and budget, with the bytes it has drawn and not
/// spent.
struct SharedLedger<'a> {
    visited: &'a [AtomicU64],
    budget: &'a AtomicUsize,
    drawn: usize,
}

impl Ledger for SharedLedger<'_> {
    fn enter(&mut self, offset: usize) -> bool {
        let bit = 1u64 << (offset % 64);
        // One read-modify-write: of two parts entering the same node, exactly one sees its
        // bit clear.
        self.visited[offset / 64].fetch_or(bit, Relaxed) & bit == 0
    }

    fn spend(&mut self, n: usize) -> bool {
        if n > self.drawn {
            let need = n - self.drawn;
            let mut left = self.budget.load(Relaxed);
            loop {
                if left < need {
                    return false;
                }
                let draw = need.max(BUDGET_DRAW).min(left);
                match self
                    .budget
                    .compare_exchange_weak(left, left - draw, Relaxed, Relaxed)
                {
                    Ok(_) => {
                        self.drawn += draw;
                        break;
                    }
                    Err(now) => left = now,
                }
            }
        }
        self.drawn -= n;
        true
    }
}

/// Walks what `walker` has open into `part`, splitting as the module docs say; the parts in
/// order. Errors: the first error of any part (not necessarily the whole walk's).
fn run<'a, T: Send>(
    shared: &'a Shared<'a>,
    mut walker: Walker<'a, SharedLedger<'a>>,
    mut part: T,
    new_part: &(impl Fn() -> T + Sync),
    visit: &(impl Fn(&mut T, &[u8], u64, ExportTarget) + Sync),
) -> Result<Vec<T>, ParseError> {
    let mut visit_part = |n: &[u8], f: u64, t: ExportTarget| visit(&mut part, n, f, t);
    let mut countdown = shared.check_every;
    loop {
        match walker.step(&mut visit_part) {
            Ok(true) => {}
            Ok(false) => {
                shared.budget.fetch_add(walker.ledger.drawn, Relaxed);
                break;
            }
            Err(e) => {
                shared.failed.store(true, Relaxed);
                return Err(e);
            }
        }
        countdown -= 1;
        if countdown > 0 {
            continue;
        }
        countdown = shared.check_every;
        if shared.failed.load(Relaxed) {
            return Err(ParseError::new("another part of the walk failed", 0));
        }
        if shared.queued.load(Relaxed) != 0 || shared.parts.load(Relaxed) >= MAX_PARTS {
            continue;
        }
        let handed = match hand_off(shared, &mut walker) {
            Ok(Some(handed)) => handed,
            Ok(None) => continue,
            Err(e) => {
                shared.failed.store(true, Relaxed);
                return Err(e);
            }
        };
        shared.parts.fetch_add(1, Relaxed);
        shared.queued.fetch_add(1, Relaxed);
        let (ours, theirs) = rayon::join(
            || run(shared, walker, part, new_part, visit),
            || {
                shared.queued.fetch_sub(1, Relaxed);
                run(shared, handed, new_part(), new_part, visit)
            },
        );
        let mut parts = ours?;
        parts.extend(theirs?);
        return Ok(parts);
    }
    Ok(vec![part])
}

/// Cuts the outermost open node of `walker` (among the first [`MAX_FRAMES_LOOKED_AT`]) with at
/// least two children left: `walker` keeps the first half of them and what it has open inside
/// them; the returned walker, with that node's name, gets the second half and the children
/// left to the nodes outside it (at most one each: the node is the outermost with two), which
/// come after them in the walk. `None` when no open node has two children left.
fn hand_off<'a>(
    shared: &'a Shared<'a>,
    walker: &mut Walker<'a, SharedLedger<'a>>,
) -> Result<Option<Walker<'a, SharedLedger<'a>>>, ParseError> {
    let Some(cut) = walker
        .stack
        .iter()
        .take(MAX_FRAMES_LOOKED_AT)
        .position(|f| f.remaining >= 2)
    else {
        return Ok(None);
    };
    let frame = &walker.stack[cut];
    let kept = frame.remaining / 2;
    let mut pos = frame.next_child;
    for _ in 0..kept {
        pos = child_entry(shared.data, pos)?.2;
    }
    let mut handed = Walker::new(shared.data, shared.ledger());
    handed
        .name
        .extend_from_slice(&walker.name[..frame.name_len]);
    handed
        .stack
        .extend(walker.stack[..cut].iter().map(|f| Frame { ..*f }));
    handed.stack.push(Frame {
        next_child: pos,
        remaining: frame.remaining - kept,
        name_len: frame.name_len,
    });
    for f in &mut walker.stack[..cut] {
        f.remaining = 0;
    }
    walker.stack[cut].remaining = kept;
    Ok(Some(handed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every split, as often as possible.
    const ALWAYS: Split = Split {
        min_bytes: 0,
        check_every: 1,
    };

    /// A node of [`wide_trie`] being built: its terminal's address, its children (edge label,
    /// node number).
    type Node = (Option<u64>, Vec<(u8, usize)>);
    /// The terminals of a walk: name bytes and flags.
    type Terminals = Vec<(Vec<u8>, u64)>;

    /// A trie of `n` weak terminals "_<i in base 4, 6 digits>" (a 4-ary tree of one-letter
    /// edges), nodes in creation order, each terminal's address its number; and the offsets of
    /// the 3-byte ULEB child offsets of the edges that lead to terminals, in the bytes' order.
    fn wide_trie(n: usize) -> (Vec<u8>, Vec<usize>) {
        let uleb3 = |v: usize| {
            [
                (v as u8 & 0x7f) | 0x80,
                ((v >> 7) as u8 & 0x7f) | 0x80,
                (v >> 14) as u8,
            ]
        };
        // (terminal address, children), node 0 the root.
        let mut nodes: Vec<Node> = vec![(None, vec![])];
        for i in 0..n {
            let mut at = 0;
            let labels = std::iter::once(b'_')
                .chain((0..6).rev().map(|d| b'0' + ((i >> (2 * d)) & 3) as u8));
            for label in labels {
                at = match nodes[at].1.iter().find(|(l, _)| *l == label) {
                    Some(&(_, c)) => c,
                    None => {
                        nodes.push((None, vec![]));
                        let c = nodes.len() - 1;
                        nodes[at].1.push((label, c));
                        c
                    }
                };
            }
            nodes[at].0 = Some(i as u64);
        }
        // Every node's size is known before the offsets are: 3-byte ULEBs.
        let size = |(term, kids): &Node| (if term.is_some() { 4 } else { 1 }) + 1 + kids.len() * 5;
        let mut at = Vec::with_capacity(nodes.len());
        let mut off = 0;
        for node in &nodes {
            at.push(off);
            off += size(node);
        }
        let (mut t, mut leaf_edges) = (Vec::with_capacity(off), Vec::new());
        for (term, kids) in &nodes {
            match term {
                Some(a) => {
                    t.extend_from_slice(&[3, 0x04, 0x80 | (*a as u8 & 0x7f), (*a >> 7) as u8])
                }
                None => t.push(0),
            }
            t.push(kids.len() as u8);
            for &(label, c) in kids {
                t.extend_from_slice(&[label, 0]);
                if nodes[c].0.is_some() {
                    leaf_edges.push(t.len());
                }
                t.extend_from_slice(&uleb3(at[c]));
            }
        }
        assert!(t.len() < 1 << 21, "offsets fit 3 ULEB bytes");
        (t, leaf_edges)
    }

    /// The split walk's terminals, concatenated, and how many parts it made.
    fn split_walk(data: &[u8], split: Split) -> (Result<Terminals, ParseError>, usize) {
        let parts = crate::pool::install(|| {
            walk_export_trie_split(
                data,
                split,
                Vec::new,
                |part: &mut Terminals, name, flags, _| part.push((name.to_vec(), flags)),
            )
        })
        .unwrap();
        match parts {
            Ok(parts) => {
                let n = parts.len();
                (Ok(parts.into_iter().flatten().collect()), n)
            }
            Err(e) => (Err(e), 0),
        }
    }

    /// The whole walk's terminals: names as bytes (a mutated trie's need not be UTF-8).
    fn whole_walk(data: &[u8]) -> Result<Terminals, ParseError> {
        let mut all = Vec::new();
        walk_export_trie(data, |name, flags, _| all.push((name.to_vec(), flags)))?;
        Ok(all)
    }

    #[test]
    fn parts_in_order_are_the_whole_walk() {
        let (t, _) = wide_trie(3000);
        let whole = whole_walk(&t).unwrap();
        assert_eq!(whole.len(), 3000);
        assert_eq!(whole[4].0, b"_000010");
        let mut most = 0;
        for _ in 0..20 {
            let (split, parts) = split_walk(&t, ALWAYS);
            assert_eq!(split.unwrap(), whole);
            most = most.max(parts);
        }
        assert!(most >= 2, "the walk was never split");
        // Off the pool, or under the threshold: one part.
        let one =
            walk_export_trie_split(&t, ALWAYS, Vec::new, |p: &mut Vec<u8>, _, _, _| p.push(0));
        assert_eq!(one.unwrap().len(), 1);
        assert_eq!(split_walk(&t, Split::DEFAULT).1, 1);
    }

    #[test]
    fn a_node_reached_from_two_parts_is_the_whole_walks_error() {
        // The first edge to a terminal made to lead to the last terminal's node: the first
        // and the last part each enter it once, the shared bitset sees it twice.
        let (mut t, leaf_edges) = wide_trie(3000);
        let (first, last) = (leaf_edges[0], leaf_edges[leaf_edges.len() - 1]);
        let to = t[last..last + 3].to_vec();
        t[first..first + 3].copy_from_slice(&to);
        let whole = whole_walk(&t);
        assert_eq!(
            whole.as_ref().unwrap_err().message,
            "node reached twice (loop in trie)"
        );
        for _ in 0..20 {
            assert_eq!(split_walk(&t, ALWAYS).0, whole);
        }
    }

    #[test]
    fn every_error_is_the_whole_walks() {
        let (t, _) = wide_trie(600);
        for at in (0..t.len()).step_by(7) {
            let mut bad = t.clone();
            bad[at] ^= 0x55;
            assert_eq!(split_walk(&bad, ALWAYS).0, whole_walk(&bad), "byte {at}");
            assert_eq!(split_walk(&t[..at], ALWAYS).0, whole_walk(&t[..at]));
        }
    }

    #[test]
    fn parts_never_spend_more_than_the_budget() {
        let shared = Shared {
            data: &[],
            visited: Vec::new(),
            budget: AtomicUsize::new(100_000),
            queued: AtomicUsize::new(0),
            parts: AtomicUsize::new(1),
            failed: AtomicBool::new(false),
            check_every: 1,
        };
        let (mut a, mut b) = (shared.ledger(), shared.ledger());
        assert!(a.spend(70_000));
        assert!(b.spend(28_000));
        assert!(!a.spend(3_000), "only 2 000 bytes are left to draw");
        // A draw is cut to what is left.
        assert!(a.spend(2_000));
        assert!(!b.spend(1));
        assert_eq!(shared.budget.load(Relaxed), 0);
    }
}
