#![no_main]
//! Fuzz target `bind_opcodes`: see `harness::bind_opcodes` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::bind_opcodes(data));
