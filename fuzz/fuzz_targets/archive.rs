#![no_main]
//! Fuzz target `archive`: see `harness::archive` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::archive(data));
