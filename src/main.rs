//! `weakscan`: see `weakscan --help` and the README.

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

/// mimalloc: measured ~15% faster than the system allocator on `scripts/bench.sh` (demangling
/// allocates heavily on two threads). Built with its `no_thp` feature: it no longer asks Linux
/// for transparent huge pages, which the kernel zeroed 2 MiB at a time for a few KiB used
/// (diff of two Node builds: 147 → 132 ms of CPU, peak memory 55 → 28 MB; docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // The pool's threads are started while the arguments are parsed (0.4–0.7 ms), not after:
    // the first read of a scan began 0.69 → 0.51 ms into the run (medians of 40). A command that
    // needs no pool only leaves two idle threads; whichever of this helper and the command asks
    // first starts the pool, the other waits for it (`pool::pool`). The helper's stack is small:
    // it only spawns the pool's threads. If it cannot start, the command starts the pool.
    let _ = std::thread::Builder::new()
        .name("weakscan-start".into())
        .stack_size(256 << 10)
        .spawn(|| {
            let _ = weakscan::pool::pool();
        });
    let cli = match weakscan::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "weakscan: {}",
                weakscan::cli::one_line(&e)
            );
            return ExitCode::from(2);
        }
    };
    weakscan::analysis::demangle::show_raw_names(cli.no_demangle);
    weakscan::memory::leak_at_exit();
    let run = |r: weakscan::command::Request| {
        use weakscan::output::table;
        table::set_width(
            cli.width
                .or_else(|| r.output().is_none().then(table::terminal_width).flatten()),
        );
        weakscan::command::run(&r)
    };
    match cli.request().and_then(run) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // The message is already one line (see weakscan::text); stderr errors are moot.
            let _ = writeln!(std::io::stderr(), "weakscan: {e}");
            ExitCode::from(2)
        }
    }
}
