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
