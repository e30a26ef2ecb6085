#![no_main]
//! Fuzz target `log`: see `harness::log` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::log(data));
