#![no_main]
//! Fuzz target `cli`: see `harness::cli` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::cli(data));
