#![no_main]
//! Fuzz target `macho`: see `harness::macho` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::macho(data));
