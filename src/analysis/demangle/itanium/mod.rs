//! weakscan's reading of Itanium C++ ABI mangled names (<https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling>,
//! section 5.1): one linear pass over the mangled bytes that decides, by work and never by
//! time, whether a name is read, and gives its group keys.
//!
//! * [`parse`]: the grammar into an arena of nodes (`u32` indices, no per-node allocation; the
//!   arena is reused by every name of a thread); which vendor extensions are read follows
//!   LLVM's demangler (`ItaniumDemangle.h`), which prints the names.
//! * [`len`]: an upper bound of the length LLVM's printer writes for the name, substitutions and
//!   template parameters expanded and pack expansions counted per element, and the depth its
//!   printing recurses to; computed node by node as the parser creates them (a name with a
//!   forward template reference is walked after its parse).
//! * [`keys`]: the group keys from the parsed structure.
//! * [`budget`]: the bounds: name bytes, depth, steps per name and per run; [`Reject`] says
//!   which one a name is past.
//!
//! A name this pass accepts is printed by `__cxa_demangle` (or cpp_demangle, in a build
//! without libc++abi), knowing in advance that its printing stays within the bound and its
//! recursion within [`budget::MAX_DEPTH`]; a name it rejects is never given to a printer.

pub mod budget;
pub mod keys;
pub mod len;
pub mod parse;
#[cfg(test)]
mod tests;

use crate::analysis::demangle::KeyParts;
pub use budget::Reject;
use std::cell::RefCell;

/// What the pass gives for an accepted name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The group keys.
    pub keys: KeyParts,
    /// An upper bound of the bytes LLVM's printer writes for the name (at most the limit
    /// passed to [`read`]).
    pub printed_bound: u64,
    /// How deep the printing recurses (levels of nodes, substitutions followed).
    pub depth: u32,
    /// Steps the reading took ([`budget::name_steps`] bounds them).
    pub steps: u64,
}

/// A thread's reusable memory.
#[derive(Default)]
struct Work {
    arena: parse::Arena,
    lengths: len::Lengths,
    sink: keys::Sink,
}

thread_local! {
    static WORK: RefCell<Work> = RefCell::new(Work::default());
}

/// Reads `plain` (a mangled name without the Mach-O `_`, `_Z…`): its keys and printed-length
/// bound, or why it is not read — malformed, deeper than [`budget::MAX_DEPTH`], printing more
/// than `limit` bytes, more than its step budget ([`budget::name_steps`]), or longer than
/// [`budget::MAX_NAME_BYTES`]. Deterministic: the same bytes give the same answer everywhere.
/// Recursion is bounded by [`budget::MAX_DEPTH`] (about 200 bytes of stack a level), so any
/// thread may call it. Never panics.
pub fn read(plain: &str, limit: usize) -> Result<Reading, Reject> {
    let input = plain.as_bytes();
    if input.len() > budget::MAX_NAME_BYTES || memchr::memchr(0, input).is_some() {
        return Err(Reject::TooBig);
    }
    WORK.with(|w| {
        let Ok(mut w) = w.try_borrow_mut() else {
            return read_with(input, limit, &mut Work::default());
        };
        read_with(input, limit, &mut w)
    })
}

fn read_with(input: &[u8], limit: usize, w: &mut Work) -> Result<Reading, Reject> {
    let mut steps = budget::Steps::for_name(input.len());
    let root = {
        let mut p = parse::Parser::new(input, &mut w.arena, &mut steps);
        p.mangled_name()?
    };
    let (bound, depth) = len::bound_of(&w.arena, root, &mut w.lengths, &mut steps)?;
    if bound > limit as u64 {
        return Err(Reject::TooLong(bound));
    }
    let keys = keys::keys(&w.arena, input, root, &mut w.sink).ok_or(Reject::Malformed)?;
    Ok(Reading {
        keys,
        printed_bound: bound,
        depth,
        steps: budget::name_steps(input.len()) - steps.left(),
    })
}
