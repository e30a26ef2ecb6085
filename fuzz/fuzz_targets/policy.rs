#![no_main]
//! Fuzz target `policy`: see `harness::policy` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::policy(data));
