#![no_main]
//! Fuzz target `render`: see `harness::render` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::render(data));
