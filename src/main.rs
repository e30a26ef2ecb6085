//! `weakscan`: see `weakscan --help` and the README.

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

/// mimalloc: measured ~15% faster than the system allocator on `scripts/bench.sh` (demangling
/// allocates heavily on two threads).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = weakscan::cli::Cli::parse();
    match weakscan::cli::run(&cli) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`weakscan … | head`) is not an error worth a message.
            let _ = stdout
                .write_all(out.stdout.as_bytes())
                .and_then(|()| stdout.flush());
            ExitCode::from(out.code)
        }
        Err(e) => {
            eprintln!("weakscan: {e}");
            ExitCode::from(2)
        }
    }
}
