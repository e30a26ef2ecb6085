#![no_main]
//! Fuzz target `cxxfilt`: see `harness::cxxfilt` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::cxxfilt(data));
