#![no_main]
//! Fuzz target `dsym`: see `harness::dsym` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::dsym(data));
