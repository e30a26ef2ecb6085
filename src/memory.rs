//! Returning freed memory to the system between the phases of a large analysis, and not
//! freeing at all when the process is about to exit ([`discard`]).
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

/// mimalloc's `mi_option_purge_delay` (`mimalloc.h`, the 16th of `mi_option_e` in mimalloc 2 and
/// 3; libmimalloc-sys names no constant for it): how many milliseconds freed pages wait before
/// they go back to the system (`options.c`: 1000 in mimalloc 3, which libmimalloc-sys builds
/// unless its `v2` feature is on, 10 in 2; 0: at once).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Returns each page of freed blocks to the system as soon as the page is empty, rather than
/// a second later (mimalloc's default), for the `weakscan` binary: a scan or diff of Node.js builds
/// frees its read buffers and each thread's working memory while it goes on allocating, so with
/// the delay the freed pages are still held at the peak (a diff of two builds: 40-45 MB peak
/// with the delay, 29 MB without, for 5–14% more CPU in `madvise` and page faults;
/// docs/performance.md).
/// Call it before the first allocation that matters. A library user with another global
/// allocator loses nothing.
pub fn purge_at_once() {
    // SAFETY: `mi_option_set` takes an option number and a value; any thread, any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

/// Set by [`leak_at_exit`]: the process exits right after the command.
static LEAK_AT_EXIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Declares that the process ends when the command returns (the `weakscan` binary), so
/// [`discard`] may leave the command's models to the system instead of freeing them one
/// block at a time (a diff of two Node.js builds frees ~60k names and their tables).
/// A library caller that keeps running never calls it, and frees as usual.
pub fn leak_at_exit() {
    LEAK_AT_EXIT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Drops `value`, or after [`leak_at_exit`] forgets it: its memory goes back to the system
/// with the process. For what a command holds until it returns (images, reports); nothing
/// whose drop does work beyond freeing (files, writers) belongs here.
pub fn discard<T>(value: T) {
    if LEAK_AT_EXIT.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

/// `n` zeroed words, the zeros written here rather than left to fresh pages: for a bit set
/// that is read before each write (visited nodes of an export trie, fixup sites of a chain).
///
/// `vec![0; n]` asks the allocator for zeroed memory, which it takes from fresh pages without
/// writing them. The first read of such a page maps the kernel's shared zero page, and the
/// first write then replaces it: a second fault, whose TLB flush interrupts every other thread
/// of the process (a diff of two Node.js builds: ~3% of its CPU in those interrupts). Written
/// zeros cost one fault per page and a memset (a 2.8 MB trie: 350 KB, ~20 µs).
#[allow(clippy::slow_vector_initialization)] // the point: `vec![0; n]` is the slow one here
pub fn zeroed_words(n: usize) -> Vec<u64> {
    let mut words = Vec::with_capacity(n);
    words.resize(n, 0);
    words
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_purge_delay_option_is_the_one_whose_default_is_a_second() {
        // The option numbers of `mi_option_e` around it have other defaults
        // (eager_commit_delay 1, use_numa_nodes 0): a renumbering fails here.
        let get = |o| unsafe { libmimalloc_sys::mi_option_get(o) };
        assert_eq!(get(super::MI_OPTION_PURGE_DELAY - 1), 1);
        assert_eq!(get(super::MI_OPTION_PURGE_DELAY + 1), 0);
        let delay = get(super::MI_OPTION_PURGE_DELAY);
        assert!(delay == 1000 || delay == 0, "purge delay {delay}");
    }
}
