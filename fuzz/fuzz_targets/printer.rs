#![no_main]
//! Fuzz target `printer`: see `harness::printer` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::printer(data));
