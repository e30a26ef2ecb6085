#![no_main]
//! Fuzz target `baseline`: see `harness::baseline` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::baseline(data));
