//! weakscan finds the C++ weak symbols that macOS's dynamic linker (dyld) must coalesce at
//! every launch, explains where they come from, and diffs two builds.
//!
//! The crate is laid out as the data flows:
//!
//! * [`macho`] — input: the Mach-O container, load commands, export trie, bind opcodes and
//!   chained fixups, an importer's imports;
//! * [`log`] — input: `DYLD_PRINT_BINDINGS` logs of every dyld generation, streamed;
//! * [`input`] — which of the two a file is;
//! * [`origin`] — input: where symbols come from: link maps (`-map`) and compile databases
//!   (`compile_commands.json`);
//! * [`model`] — one model per image: weak definitions, weak-bind targets with their sites, and
//!   the predicted weak-def lookups;
//! * [`analysis`] — demangling, grouping by symbol/pattern/template/namespace, diffing,
//!   verifying a binary against a log;
//! * [`output`] — tables, JSON, Markdown and GitHub annotations;
//! * [`gate`] — the pre-release gate: policy, budgets, baselines;
//! * [`command`] — one module per subcommand, writing through [`output::sink`];
//! * [`cli`] — the command line, parsed into a [`command::Request`];
//! * [`text`] — the one escaping function for anything printed;
//! * [`memory`] — freed memory returned to the system between phases.
//!
//! Imports point one way: a module uses only modules of its own layer or of the layers below
//! it, highest first here (`tests/layering.rs` holds every `crate::` and `super::` path of
//! `src/` to these lines, and no files may import each other around a cycle):
//!
//! ```text
//! layer cli
//! layer command
//! layer gate output
//! layer analysis
//! layer macho log origin process input
//! layer model
//! layer error text memory pool schema
//! ```

pub mod analysis;
pub mod cli;
pub mod command;
pub mod error;
pub mod gate;
pub mod input;
pub mod log;
pub mod macho;
pub mod memory;
pub mod model;
pub mod origin;
pub mod output;
pub mod pool;
pub mod process;
pub mod schema;
pub mod text;

pub use error::{Error, ErrorKind, Result};
