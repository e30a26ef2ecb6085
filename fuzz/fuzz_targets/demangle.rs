#![no_main]
//! Fuzz target `demangle`: see `harness::demangle` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::demangle(data));
