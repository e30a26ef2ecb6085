//! Returning freed memory to the system between the phases of a large analysis.
//!
//! The `weakscan` binary allocates with mimalloc (`main.rs`), which keeps the pages of freed
//! blocks for reuse and returns them to the system after a delay. Reading a process's images
//! frees as much as their models keep (each file's export trie, fixups and chain pages, and
//! each image's names before they are interned), so the next phase would start on top of that
//! slack. A library user with another global allocator loses nothing: mimalloc then holds no
//! memory and the call returns at once.

/// Returns the pages of every block freed so far to the system (`mi_collect(true)`,
/// mimalloc's `mimalloc.h`): a few milliseconds; call it between phases, not in a loop.
pub fn release_freed() {
    // SAFETY: `mi_collect` takes no pointer and may be called from any thread at any time.
    unsafe { libmimalloc_sys::mi_collect(true) }
}
