//! Input: Mach-O files. The container (thin and universal) and load commands are read with
//! goblin; the LINKEDIT structures that weakscan exists for — the export trie, the bind
//! opcode streams, chained fixups and the symbol table's debug map — are parsed here,
//! bounds-checked and loop-safe.

pub mod archive;
pub mod bind_opcodes;
pub mod chained_fixups;
pub mod cursor;
pub mod debug_map;
pub mod export_trie;
pub mod file;
pub mod image;
pub mod imports;
pub mod lazy_load;
pub mod load_commands;
pub mod lookup_budget;
pub mod object;
pub mod symtab;
pub mod trie_lookup;

pub use file::MachOFile;
pub use image::{
    ArchFilter, PendingAttribution, read_bytes, read_file, read_image, read_images,
    read_images_deferred,
};
