//! The run's one thread pool: demangling, and the steps a command overlaps with it (reading two
//! builds, a file's debug map while its names are demangled, grouping two images), run on it.
//!
//! Its threads have [`STACK_BYTES`] of stack each, because libc++abi's demangler (and
//! cpp_demangle, in a build without it) recurse once per level of a name's structure (at most
//! [`crate::analysis::demangle::itanium::budget::MAX_DEPTH`] levels), and any of them may demangle. They are started once, on the
//! first [`pool`] call, and serve the whole run, so a command starts each thread's stack and
//! allocator heap once.
//!
//! The result never depends on the pool's size: work is split into ordered parts whose
//! results are put back in order, so the output is the same on 1 thread or 16.

use crate::error::{Error, ErrorKind, Result};
use std::sync::OnceLock;

/// Stack size of each thread of the pool, in bytes (256 MiB: address space, not memory; a
/// thread touches only what its deepest call used).
pub const STACK_BYTES: usize = 256 << 20;

/// The pool, or why none could be started.
static POOL: OnceLock<std::result::Result<rayon::ThreadPool, String>> = OnceLock::new();

/// The environment variable that sets the pool's thread count (1 to 16), in place of one per
/// available core: `WEAKSCAN_THREADS=1` runs as a one-CPU machine does.
pub const THREADS_VAR: &str = "WEAKSCAN_THREADS";

/// The pool's thread count: [`THREADS_VAR`] when set, else one per available core (which on
/// Linux honours `taskset`), at most 16. Errors: the variable is set but is not 1 to 16.
fn thread_count() -> std::result::Result<usize, String> {
    match std::env::var_os(THREADS_VAR) {
        Some(v) => v
            .to_str()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|n| (1..=16).contains(n))
            .ok_or_else(|| {
                format!(
                    "{THREADS_VAR}={} is not a thread count from 1 to 16",
                    crate::text::escape_bytes(std::os::unix::ffi::OsStrExt::as_bytes(
                        v.as_os_str()
                    ))
                )
            }),
        None => Ok(std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 16)),
    }
}

/// The run's pool, started on first use with one thread per available core (at most 16), or
/// with one thread when that many cannot start (a low `ulimit -v`: each thread reserves
/// [`STACK_BYTES`] of address space).
///
/// Errors (`Io`, without a file, exit 2): not even one thread could be started. The names are
/// then never silently left mangled, which would change groups and a `check` verdict.
pub fn pool() -> Result<&'static rayon::ThreadPool> {
    let pool = POOL.get_or_init(|| {
        let threads = match thread_count() {
            Ok(n) => n,
            Err(e) => return Err(e),
        };
        // rayon stops the threads of a pool that failed to start but does not wait for them;
        // their stacks would still hold the address space the one-thread retry needs. So the
        // threads are started here, and joined when the pool fails.
        let build = |n: usize| {
            let started = std::sync::Mutex::new(Vec::new());
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("weakscan-{i}"))
                .spawn_handler(|thread| {
                    let mut b = std::thread::Builder::new().stack_size(STACK_BYTES);
                    if let Some(name) = thread.name() {
                        b = b.name(name.to_owned());
                    }
                    let handle = b.spawn(|| thread.run())?;
                    started.lock().unwrap_or_else(|e| e.into_inner()).push(handle);
                    Ok(())
                })
                .build();
            if pool.is_err() {
                for handle in started.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    let _ = handle.join();
                }
            }
            pool
        };
        build(threads).or_else(|first| {
            build(1).map_err(|e| {
                format!(
                    "cannot start a demangling thread with {} MiB of stack ({e}; first refusal: {first}): raise the address-space limit (ulimit -v)",
                    STACK_BYTES >> 20
                )
            })
        })
    });
    pool.as_ref()
        .map_err(|e| Error::usage(e.clone()).with_kind(ErrorKind::Io))
}

/// Runs `f` on the pool ([`pool`]) and returns its result; when already on it, runs `f` here.
///
/// Errors: those of [`pool`].
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> Result<R> {
    Ok(pool()?.install(f))
}

/// Runs `f` on the pool, so that rayon's own parallel iterators and joins inside it use the pool
/// too; without a pool (it could not start), runs `f` here. For a whole command
/// ([`crate::command::run`]): every step of the run then shares the pool's threads.
pub fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// `(a(), b())`, at the same time on the pool ([`rayon::join`]); without a pool (it could not
/// start), one after the other on this thread, so the work is done either way.
pub fn join<RA: Send, RB: Send>(
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (RA, RB) {
    match pool() {
        Ok(pool) => pool.install(|| rayon::join(a, b)),
        Err(_) => (a(), b()),
    }
}

/// `items.iter().map(f).collect()`, the items shared out among the pool's threads ([`rayon`]'s
/// `par_iter`, results in the items' order); without a pool, here, one after the other.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    match pool() {
        Ok(pool) => pool.install(|| items.par_iter().map(f).collect()),
        Err(_) => items.iter().map(f).collect(),
    }
}

/// `v.sort_unstable_by(cmp)` on the pool's threads ([`rayon`]'s `par_sort_unstable_by`);
/// without a pool, here. The order of elements `cmp` finds equal is unspecified either way: for
/// lists whose elements are all distinct, or whose equal ones are interchangeable.
pub fn sort_unstable_by<T: Send>(
    v: &mut [T],
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Sync + Send,
) {
    use rayon::prelude::*;
    match pool() {
        Ok(pool) => pool.install(|| v.par_sort_unstable_by(cmp)),
        Err(_) => v.sort_unstable_by(cmp),
    }
}

/// Where [`scope`] runs the work spawned in it: on the pool, or (without one) at once, here.
pub struct Scope<'r, 'scope>(Option<&'r rayon::Scope<'scope>>);

impl<'scope> Scope<'_, 'scope> {
    /// Runs `f` on the pool, by the end of the [`scope`]; without a pool, now.
    pub fn spawn(&self, f: impl FnOnce() + Send + 'scope) {
        match self.0 {
            Some(s) => s.spawn(|_| f()),
            None => f(),
        }
    }

    /// [`Scope::spawn`], with `f` given the scope, so that it can spawn more work in it.
    pub fn spawn_in(&self, f: impl for<'s> FnOnce(&Scope<'s, 'scope>) + Send + 'scope) {
        match self.0 {
            Some(s) => s.spawn(|s| f(&Scope(Some(s)))),
            None => f(self),
        }
    }
}

/// Runs `f` on the pool ([`rayon::scope`]) and waits for everything it spawned; without a pool
/// (it could not start), runs `f` here, and what it spawns at once. Steps that read input run
/// either way, so their errors are seen even without a pool (the demangling then fails with
/// the pool's error, which a caller reports after the inputs').
pub fn scope<'scope, R: Send>(f: impl for<'r> FnOnce(&Scope<'r, 'scope>) -> R + Send) -> R {
    match pool() {
        Ok(pool) => pool.install(|| rayon::scope(|s| f(&Scope(Some(s))))),
        Err(_) => f(&Scope(None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_the_items_order_and_sorts_sort() {
        let items: Vec<u32> = (0..10_000).map(|i| (i * 7919) % 10_007).collect();
        assert_eq!(
            map(&items, |&i| u64::from(i) * 3),
            items.iter().map(|&i| u64::from(i) * 3).collect::<Vec<_>>()
        );
        let (mut a, mut b) = (items.clone(), items.clone());
        sort_unstable_by(&mut a, u32::cmp);
        sort_unstable_by(&mut b, |x, y| y.cmp(x));
        let mut want = items;
        want.sort();
        assert_eq!(a, want);
        want.reverse();
        assert_eq!(b, want);
        assert!(map(&[] as &[u32], |&i| i).is_empty());
    }

    #[test]
    fn the_pool_runs_work_on_big_stacks_and_is_reused() {
        let a = pool().unwrap() as *const _;
        let b = pool().unwrap() as *const _;
        assert_eq!(a, b);
        // A frame far larger than a default 2 MiB (8 MiB main) stack would overflow there.
        let deep = install(|| {
            fn down(n: u32) -> u32 {
                let pad = std::hint::black_box([0u8; 4096]);
                if n == 0 {
                    u32::from(pad[0])
                } else {
                    down(n - 1) + u32::from(pad[1])
                }
            }
            down(16 * 1024) // 64 MiB of frames
        })
        .unwrap();
        assert_eq!(deep, 0);
        assert!(rayon::current_thread_index().is_none());
        assert!(install(rayon::current_thread_index).unwrap().is_some());
    }
}
