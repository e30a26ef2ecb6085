//! Constants of weakscan's JSON documents that are both written ([`crate::output`]) and read
//! back ([`crate::gate::baseline`]); the shapes are in `docs/json.md`.

/// Version of the JSON schema (`schema_version`); bump it on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// The `command` value of a baseline file (`weakscan baseline`).
pub const BASELINE_COMMAND: &str = "baseline";
