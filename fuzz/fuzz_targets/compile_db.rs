#![no_main]
//! Fuzz target `compile_db`: see `harness::compile_db` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::compile_db(data));
