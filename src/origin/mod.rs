//! Input: where symbols come from, beside the image's own debug map ([`crate::macho::debug_map`]).
//!
//! * [`link_map`] — the map file `ld64 -map FILE` and `ld64.lld -map FILE` write: which object
//!   file (loose `.o` or archive member) each symbol of the output was taken from, streamed;
//! * [`dsym`] — a dSYM's DWARF: the compile unit of each address and linkage name, for stripped
//!   binaries;
//! * [`compile_db`] — clang's JSON compilation database (`compile_commands.json`): the command
//!   that compiled each source file, its visibility flags, and an index that finds the entry of a
//!   source path or an object file;
//! * [`definers`] — every object that defines an image's weak symbols, hidden or not, read
//!   from the objects its debug map names (on disk or among `--objects`);
//! * [`attach`] — a link map or dSYM joined to the images of one binary (`--map`, `--dsym`);
//! * [`symbol_list`] — the symbol lists of the link (`-exported_symbols_list`,
//!   `-unexported_symbols_list`): read and matched as ld64 does, and which names a line can carry.

pub mod attach;
pub mod compile_db;
pub mod definers;
pub mod dsym;
pub mod link_map;
pub mod symbol_list;
