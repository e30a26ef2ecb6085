#![no_main]
//! Fuzz target `chained_fixups`: see `harness::chained_fixups` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::chained_fixups(data));
