//! The one bound cpp_demangle's parser does not give: its time.
//!
//! The parser backtracks, and on some invalid names the work doubles with each repetition of
//! a few bytes (`_ZdlStIStIStI…`: 20 repetitions, 0.35 s; 30, minutes; gimli-rs/cpp_demangle
//! issues #215 and #282). It takes no step budget, and its parse cannot be stopped from outside,
//! so a watchdog thread checks that no name's key parse ([`watch`]) has run longer than
//! [`name_limit`]; one that has ends the run with one line and exit code 2, rather than a hang.
//! Real names take microseconds (Node.js: 10k names in 30 ms of CPU), so the limit leaves a
//! margin of 10⁵ and only a hostile name can reach it.
//!
//! Each demangling thread has a slot holding when its current name started (nanoseconds since
//! the first watch, plus one; 0 when idle); the watchdog reads the slots four times a second.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Environment variable holding [`name_limit`] in seconds (1 to 3600).
pub const LIMIT_VAR: &str = "WEAKSCAN_DEMANGLE_SECONDS";
/// The default of [`name_limit`], in seconds.
pub const DEFAULT_LIMIT_SECONDS: u64 = 10;

/// Slots: the pool has at most 16 threads ([`crate::pool`]); any other thread shares the last.
const SLOTS: usize = 17;

/// When each slot's current name started (see the module docs).
static STARTED: [AtomicU64; SLOTS] = [const { AtomicU64::new(0) }; SLOTS];
/// The instant slot times count from.
static BASE: OnceLock<Instant> = OnceLock::new();
/// The watchdog thread was started (or could not be).
static WATCHDOG: OnceLock<()> = OnceLock::new();

/// How long one name's parse may take: `WEAKSCAN_DEMANGLE_SECONDS` if it holds 1 to 3600, else
/// [`DEFAULT_LIMIT_SECONDS`].
pub fn name_limit() -> Duration {
    let seconds = std::env::var(LIMIT_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|s| (1..=3600).contains(s))
        .unwrap_or(DEFAULT_LIMIT_SECONDS);
    Duration::from_secs(seconds)
}

/// Marks this thread's slot busy until the guard drops.
pub struct Guard(usize);

impl Drop for Guard {
    fn drop(&mut self) {
        STARTED[self.0].store(0, Ordering::Relaxed);
    }
}

/// Watches the parse that runs until the guard drops, starting the watchdog on first use.
pub fn watch() -> Guard {
    let base = *BASE.get_or_init(Instant::now);
    WATCHDOG.get_or_init(start_watchdog);
    let slot = rayon::current_thread_index().map_or(SLOTS - 1, |i| i.min(SLOTS - 1));
    let now = u64::try_from(base.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
    STARTED[slot].store(now + 1, Ordering::Relaxed);
    Guard(slot)
}

/// Starts the watchdog thread; if it cannot start (no memory, a thread limit), names go
/// unwatched, as before the limit existed.
fn start_watchdog() {
    let limit = name_limit();
    let _ = std::thread::Builder::new()
        .name("weakscan-watchdog".into())
        .stack_size(64 << 10)
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(250));
                if past_limit(limit) {
                    give_up(limit);
                }
            }
        });
}

/// Some slot's name has been parsed for longer than `limit`.
fn past_limit(limit: Duration) -> bool {
    let Some(base) = BASE.get() else {
        return false;
    };
    let now = base.elapsed().as_nanos();
    STARTED.iter().any(|s| {
        let started = s.load(Ordering::Relaxed);
        started != 0 && now.saturating_sub(u128::from(started - 1)) > limit.as_nanos()
    })
}

/// Ends the run: one line on stderr, exit code 2.
fn give_up(limit: Duration) -> ! {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "weakscan: a symbol name took longer than {} s to demangle (cpp_demangle backtracks \
         exponentially on some invalid names); no report",
        limit.as_secs()
    );
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` takes no pointer; nothing is written to stdout before the names are
    // demangled, and stderr was flushed above.
    unsafe { libc::_exit(2) }
}
