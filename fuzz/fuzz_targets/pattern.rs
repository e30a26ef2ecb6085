#![no_main]
//! Fuzz target `pattern`: see `harness::pattern` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::pattern(data));
