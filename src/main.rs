//! `weakscan`: see `weakscan --help` and the README.

use std::io::Write;
use std::process::ExitCode;

/// mimalloc: faster than the system allocator where the demangling allocates heavily on every
/// thread (docs/performance.md). Built with its `no_thp` feature, so it does not ask Linux for
/// transparent huge pages, which the kernel zeroes 2 MiB at a time for a few KiB used.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    weakscan::memory::purge_at_once();
    // The pool's threads are started while the arguments are parsed, not after, so the first
    // read of a command starts sooner. A command that needs no pool only leaves idle threads; whichever of this helper and the command asks
    // first starts the pool, the other waits for it (`pool::pool`). The helper's stack is small:
    // it only spawns the pool's threads. If it cannot start, the command starts the pool.
    let _ = std::thread::Builder::new()
        .name("weakscan-start".into())
        .stack_size(256 << 10)
        .spawn(|| {
            let _ = weakscan::pool::pool();
        });
    let cli = match weakscan::cli::parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) if weakscan::cli::is_no_command(&e) => {
            let _ = std::io::stderr().write_all(weakscan::cli::overview().as_bytes());
            exit_now(2)
        }
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "weakscan: {}",
                weakscan::cli::one_line(&e)
            );
            exit_now(2)
        }
    };
    weakscan::memory::leak_at_exit();
    let globals = cli.globals();
    let code = match cli
        .request()
        .and_then(|r| weakscan::command::run(&r, &globals))
    {
        Ok(code) => code,
        Err(e) => {
            // The message is already one line (see weakscan::text); stderr errors are moot.
            let _ = writeln!(std::io::stderr(), "weakscan: {e}");
            2
        }
    };
    exit_now(code)
}

/// Ends the process with `code` once stdout and stderr are flushed, without the exit-time work
/// of `exit(3)`: mimalloc's `mi_process_done` (its `init.c`) collects the main thread's heap
/// page by page, for memory the system takes back anyway. The
/// command has already finished its output (`command::emit` flushed and synced it, reporting
/// any error) and removed what it created; nothing else is registered with `atexit`.
fn exit_now(code: u8) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` takes no pointer; the streams above are flushed, and no other thread
    // holds output of ours (the pool's threads are idle once the command has returned).
    unsafe { libc::_exit(i32::from(code)) }
}
