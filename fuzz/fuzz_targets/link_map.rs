#![no_main]
//! Fuzz target `link_map`: see `harness::link_map` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::link_map(data));
