//! Input: where symbols come from — link maps, compile databases.
//!
//! * [`link_map`] — the map file `ld64 -map FILE` and `ld64.lld -map FILE` write: which object
//!   file (loose `.o` or archive member) each symbol of the output was taken from, streamed;
//! * [`compile_db`] — clang's JSON compilation database (`compile_commands.json`): the command
//!   that compiled each source file, its visibility flags, and an index that finds the entry of a
//!   source path or an object file.

pub mod compile_db;
pub mod link_map;
