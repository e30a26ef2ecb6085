//! A bounded, deterministic mutation run that `cargo test` always executes: fixtures with bytes
//! overwritten in the headers, load commands and LINKEDIT must give an image or an error, never
//! a panic. (Coverage-guided fuzzing is in `fuzz/`, with per-input time limits; the proptest
//! run over every harness is in `properties`; hang and memory bounds on the binary are checked
//! under `ulimit` in `malformed`. No wall-clock assertion here: the work per mutant is bounded
//! by its size, which is what the parsers are built to guarantee.)

use crate::util::fixture;
use std::panic::{AssertUnwindSafe, catch_unwind};
use weakscan::analysis::demangle::NameStyle;
use weakscan::analysis::group::GroupBy;
use weakscan::analysis::report::{diff_report, scan_report};
use weakscan::macho::{ArchFilter, read_file};

/// xorshift64*: a fixed-seed generator, so a failure reproduces.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Counts one mutant's outcome: true if read, false if refused with a one-line error. A panic
/// keeps the input in the temp directory and fails the test.
fn tally(
    result: std::thread::Result<weakscan::Result<()>>,
    (name, round, bytes): (&str, usize, &[u8]),
) -> bool {
    match result {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            assert!(!e.message.contains('\n'), "one line: {e}");
            false
        }
        Err(_) => {
            let keep = std::env::temp_dir().join(format!("weakscan-panic-{name}-{round}"));
            std::fs::write(&keep, bytes).unwrap();
            panic!(
                "panic on {name} round {round}; input kept at {}",
                keep.display()
            );
        }
    }
}

const FIXTURES: [&str; 5] = [
    "app-default-chained-x86_64",
    "app-default-opcodes-arm64",
    "app-default-chained-universal",
    "libweak-opcodes-arm64.dylib",
    "app-hidden-chained-arm64",
];
/// Rounds per fixture; `WEAKSCAN_MUTATION_ROUNDS` raises it for a longer run.
fn rounds() -> usize {
    std::env::var("WEAKSCAN_MUTATION_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

#[test]
fn mutated_fixtures_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mutant");
    let seed = std::env::var("WEAKSCAN_MUTATION_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x005e_ed0f_7ea4);
    let mut rng = Rng(seed);
    let (mut ok, mut errors) = (0, 0);
    for name in FIXTURES {
        let original = std::fs::read(fixture(name)).unwrap();
        let linkedit_start = original.len() - original.len() / 4;
        for round in 0..rounds() {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(8) {
                // Half the hits in the first 4 KiB (headers, load commands), half in LINKEDIT.
                let at = if rng.below(2) == 0 {
                    rng.below(4096.min(bytes.len()))
                } else {
                    linkedit_start + rng.below(bytes.len() - linkedit_start)
                };
                bytes[at] = match rng.below(4) {
                    0 => 0,
                    1 => 0xff,
                    2 => bytes[at] ^ (1 << rng.below(8)),
                    _ => rng.next() as u8,
                };
            }
            if rng.below(10) == 0 {
                bytes.truncate(rng.below(bytes.len()));
            }
            std::fs::write(&path, &bytes).unwrap();
            let result = catch_unwind(AssertUnwindSafe(|| {
                read_file(&path, &ArchFilter::All).map(|images| {
                    // The analysis must survive whatever the parsers accepted.
                    let _ = scan_report(&images, GroupBy::Template, None, NameStyle::Demangled);
                    let _ = diff_report(
                        &images,
                        &images,
                        GroupBy::Namespace(2),
                        Some(5),
                        true,
                        NameStyle::Demangled,
                    );
                })
            }));
            if tally(result, (name, round, &bytes)) {
                ok += 1;
            } else {
                errors += 1;
            }
        }
    }
    eprintln!("mutation run: {ok} read, {errors} refused");
    assert!(
        errors > 0 && ok > 0,
        "the run exercised both outcomes ({ok} ok, {errors} errors)"
    );
}

const LOGS: [&str; 6] = [
    "dyld4-macos15-chained.log",
    "dyld4-macos15-opcodes.log",
    "dyld4-macos26-opcodes.log",
    "dyld4-macos14-opcodes.log",
    "dyld2-macos11.log",
    "noisy.log",
];

/// Mutated dyld logs: lines dropped, duplicated, swapped, cut and sprayed with bytes must give
/// images or one-line errors, and every analysis (scan, diff, verify) must survive them.
#[test]
fn mutated_logs_never_panic() {
    use weakscan::analysis::verify::verify;
    use weakscan::log::read_log_from;
    let mut rng = Rng(0x10c5_eed5);
    let binary = &read_file(&fixture("app-default-chained-x86_64"), &ArchFilter::All).unwrap()[0];
    let (mut ok, mut errors) = (0, 0);
    for name in LOGS {
        let text = std::fs::read(crate::util::testdata().join("logs").join(name)).unwrap();
        let original: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        // Each log round runs every analysis: a third of the rounds of the binary run.
        for round in 0..rounds().div_ceil(3) {
            let mut lines: Vec<Vec<u8>> = original.iter().map(|l| l.to_vec()).collect();
            for _ in 0..1 + rng.below(6) {
                let i = rng.below(lines.len());
                match rng.below(7) {
                    0 => {
                        lines.remove(i);
                    }
                    1 => {
                        let l = lines[i].clone();
                        lines.insert(rng.below(lines.len()), l);
                    }
                    2 => {
                        let j = rng.below(lines.len());
                        lines.swap(i, j);
                    }
                    3 => {
                        let n = lines[i].len();
                        lines[i].truncate(rng.below(n + 1));
                    }
                    4 => {
                        if !lines[i].is_empty() {
                            let at = rng.below(lines[i].len());
                            lines[i][at] = rng.next() as u8;
                        }
                    }
                    5 => {
                        // A digit run replaced (PIDs, bind#, addresses).
                        let digits = b"0123456789abcdefX\\'\"<>()/#: ";
                        for b in lines[i].iter_mut() {
                            if b.is_ascii_digit() && rng.below(3) == 0 {
                                *b = digits[rng.below(digits.len())];
                            }
                        }
                    }
                    _ => {
                        let junk: Vec<u8> = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
                        lines.insert(i, junk);
                    }
                }
                if lines.is_empty() {
                    lines.push(Vec::new());
                }
            }
            let bytes = lines.join(&b'\n');
            let result = catch_unwind(AssertUnwindSafe(|| {
                read_log_from(std::path::Path::new(name), bytes.as_slice(), None).map(|images| {
                    let _ = scan_report(&images, GroupBy::Pattern, None, NameStyle::Demangled);
                    let _ = diff_report(
                        &images,
                        &images,
                        GroupBy::Template,
                        Some(5),
                        true,
                        NameStyle::Demangled,
                    );
                    let _ = diff_report(
                        std::slice::from_ref(binary),
                        &images[..1],
                        GroupBy::Namespace(2),
                        None,
                        true,
                        NameStyle::Demangled,
                    );
                    let _ = verify(
                        binary,
                        &images[0],
                        GroupBy::Template,
                        None,
                        0,
                        Vec::new(),
                        NameStyle::Demangled,
                    );
                })
            }));
            if tally(result, (name, round, &bytes)) {
                ok += 1;
            } else {
                errors += 1;
            }
        }
    }
    eprintln!("log mutation run: {ok} read, {errors} refused");
    assert!(
        ok > 0,
        "the run read mutated logs ({ok} ok, {errors} errors)"
    );
}
