#![no_main]
//! Fuzz target `pairs`: see `harness::pairs` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::pairs(data));
