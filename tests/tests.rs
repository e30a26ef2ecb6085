//! Integration tests: one target, one module per concern.
//!
//! * `cli` runs the binary on the committed fixtures (figures from `testdata/expected.tsv`,
//!   made by llvm-objdump-22 when the fixtures were built), on bad input, and against golden files;
//! * `differential` checks every parser against the object crate on every fixture, and against a
//!   live `llvm-objdump` from LLVM 22 when one is installed;
//! * `bisect` runs `weakscan bisect` over series of fixtures mapped to versions by a fetch
//!   script (the step found within ⌈log₂ N⌉ + 2 fetches, skipped versions, ends that agree,
//!   series not monotonic, the cache), `scripts/git-bisect-check.sh` under `git bisect run`, and
//!   the npm builds of Node.js from 20.11.0 to 22.11.0 when they are cached;
//! * `check` runs `weakscan check` and `weakscan baseline`: every budget kind, policy and
//!   baseline errors, golden files of every output format;
//! * `baselines` reads the baselines of `schema_version` 1 in `testdata/baselines` as the
//!   version-2 ones written now and checks with both alike, and holds the Node.js 22.11.0
//!   baseline to 2 MB;
//! * `logs` reads every dyld log format in `testdata/logs` (figures from its `expected.tsv`,
//!   written by the log generator from llvm-objdump's view of the fixtures) and verifies each
//!   fixture against its log;
//! * `node` checks the reference figures on official Node.js binaries when they are cached;
//! * `harness` holds the fuzz harnesses (shared with `fuzz/`); `fuzz_regressions` replays every
//!   fuzz finding and seed through them; `properties` runs round-trip properties and a bounded,
//!   fixed-seed mutation run of every harness; `mutation` mutates whole fixtures and logs;
//!   `malformed` runs the binary on `testdata/malformed`, each file with its exact error;
//! * `fix_plan_objects` holds every surface of the fix plan (scan, diff, check, report; one
//!   image or a process) to "at most" exactly when not every definer was read, and `--objects`
//!   to making it exact;
//! * `compiled_differently` runs `diff --old-compile-commands A --new-compile-commands B` on
//!   the flags program of `testdata/plan` with a database A written beside its committed one;
//! * `flags` runs `weakscan flags` on generated compile databases, a ninja command dump and
//!   the committed fixture databases, and on bad input;
//! * `flags_regression` runs `diff` with both builds' compile databases and `flags` on the two
//!   builds of `testdata/flags`, one library of which lost `-fvisibility=hidden` (databases
//!   clang wrote with `-MJ`, and `ninja -n --verbose` dumps), against the binaries' own figures;
//! * `importers` runs `--importer` on `testdata/importers` (check, scan, diff, directories, bad
//!   importers) and holds the importer reader to llvm-objdump-22's binds; `importers_real` holds
//!   a real Node-API addon (`scripts/fetch-npm.sh`) against official Node.js builds;
//! * `hide` holds `weakscan hide`'s link-time symbol lists to the programs of `testdata/hide`,
//!   relinked with them by ld64.lld-22 (and relinks them here when it is installed: plug-ins
//!   with `-undefined error`, a process's shared singleton, Node.js 22.11.0 with an addon);
//! * `io` reads inputs from pipes, FIFOs and stdin, and writes `--output` through symlinks,
//!   devices and FIFOs without replacing them;
//! * `layering` holds every import in `src/` to the layers of `src/lib.rs`, with no cycle;
//! * `markdown` feeds every Markdown output (and the job summary) and the HTML report names,
//!   paths, log text, compile commands and patterns that carry links, images, tags, comments,
//!   @mentions, backticks and `|`, and holds that none of it is read as markup;
//! * `parallel` gives the same bytes on one core as on all, and errors in one order;
//! * `portability` keeps Linux-only APIs out of `src/` unless under `cfg(target_os = "linux")`
//!   (weakscan's users run it on macOS);
//! * `process` reads whole processes (bundles, load order, winners) of `testdata/process`;
//! * `reexport` follows re-exports and reads `dylib_use_command`s in whole processes, on
//!   `testdata/process/Reexport` and copies of it with re-exports and new-form load commands
//!   written in;
//! * `real_process` checks the whole process of sharp's official macOS addon and its libvips
//!   (npm packages, cached by `scripts/fetch-npm.sh`) against LLVM 22's view of the images;
//! * `schema` keeps `docs/schemas/` current and validates real outputs against it.
//! * `trend` runs `weakscan trend` over series of fixtures (figures from `expected.tsv`, the
//!   step rule, the groups behind the flagged steps), logs and processes, and its usage errors.

mod util;

mod action;
mod attribution;
mod baselines;
mod bisect;
mod check;
mod cli;
mod compiled_differently;
mod differential;
mod fix_plan;
mod fix_plan_objects;
mod fix_plan_rebuilt;
mod flags;
mod flags_regression;
mod fuzz_regressions;
mod harness;
mod hide;
mod importers;
mod importers_real;
mod io;
mod layering;
mod logs;
mod malformed;
mod markdown;
mod mutation;
mod names;
mod node;
mod old_keys;
mod parallel;
mod portability;
mod process;
mod process_fix_plan;
mod properties;
mod real_process;
mod reexport;
mod report;
mod schema;
mod trend;
