#![no_main]
//! Fuzz target `export_trie`: see `harness::export_trie` in `tests/harness.rs`.

#[path = "../../tests/harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::export_trie(data));
