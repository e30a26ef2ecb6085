#![no_main]
//! Fuzz target `debug_map`: see `harness::debug_map` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::debug_map(data));
