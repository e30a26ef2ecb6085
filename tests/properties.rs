//! Property tests (proptest, a fixed seed and a fixed number of cases, so every run of
//! `cargo test` executes the same bounded search and a failure reproduces):
//!
//! * round trips: export tries and weak-bind streams written by an encoder here from a random
//!   model must read back as exactly that model;
//! * a bounded fuzz run: the seeds of every fuzz target (`harness::seeds`), mutated by proptest
//!   (bytes overwritten, inserted, removed, the input cut), through the same harness functions
//!   the cargo-fuzz targets call; a panic or a broken invariant fails the test and proptest
//!   shrinks the mutation list to a minimal one.
//!
//! * budgets: an unchanged figure passes an increase budget of any size the parser accepts;
//! * escaping: any bytes, escaped, are one line with no control or bidi character.
//!
//! `WEAKSCAN_PROPTEST_CASES` raises the number of cases for a longer run.

use crate::harness;
use crate::util::uleb;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use std::collections::BTreeMap;
use weakscan::macho::bind_opcodes::*;
use weakscan::macho::export_trie::{ExportTarget, parse_export_trie};

fn config(cases: u32) -> Config {
    let cases = std::env::var("WEAKSCAN_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x005e_ed0f_7ea4),
        failure_persistence: None,
        ..Config::default()
    }
}

fn sleb(mut v: i64, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
}

/// A ULEB128 padded to five bytes (dyld, like weakscan, accepts redundant bytes), so node
/// offsets can be written before the nodes after them are sized.
fn uleb5(v: u32, out: &mut Vec<u8>) {
    for i in 0..5 {
        let byte = ((v >> (7 * i)) & 0x7f) as u8;
        out.push(if i < 4 { byte | 0x80 } else { byte });
    }
}

/// Writes an export trie with one node per distinct prefix and one-byte edges: the widest,
/// deepest shape a linker could emit for these names.
fn encode_trie(exports: &BTreeMap<Vec<u8>, (u64, u64)>) -> Vec<u8> {
    // Nodes are the distinct prefixes, in sorted (pre-)order; the root is the empty prefix.
    let mut prefixes: Vec<Vec<u8>> = vec![Vec::new()];
    for name in exports.keys() {
        for len in 1..=name.len() {
            prefixes.push(name[..len].to_vec());
        }
    }
    prefixes.sort();
    prefixes.dedup();
    let children = |p: &[u8]| -> Vec<usize> {
        (0..prefixes.len())
            .filter(|&i| prefixes[i].len() == p.len() + 1 && prefixes[i].starts_with(p))
            .collect()
    };
    let node = |p: &[u8], offsets: &[u32]| -> Vec<u8> {
        let mut out = Vec::new();
        match exports.get(p) {
            Some(&(flags, address)) => {
                let mut t = Vec::new();
                uleb(flags, &mut t);
                uleb(address, &mut t);
                uleb(t.len() as u64, &mut out);
                out.extend(t);
            }
            None => out.push(0),
        }
        let kids = children(p);
        out.push(kids.len() as u8);
        for k in kids {
            out.push(*prefixes[k].last().unwrap());
            out.push(0);
            uleb5(offsets[k], &mut out);
        }
        out
    };
    // Sizes do not depend on the offsets (they are padded), so lay out once with zeros.
    let zeros = vec![0u32; prefixes.len()];
    let mut offsets = Vec::with_capacity(prefixes.len());
    let mut at = 0u32;
    for p in &prefixes {
        offsets.push(at);
        at += node(p, &zeros).len() as u32;
    }
    prefixes.iter().flat_map(|p| node(p, &offsets)).collect()
}

#[test]
fn export_tries_round_trip() {
    let names = prop::collection::btree_map(
        prop::collection::vec(prop::sample::select(b"_ZNab1<>".to_vec()), 1..10),
        (prop::sample::select(vec![0u64, 1, 4, 5]), 0u64..1 << 40),
        0..40,
    );
    TestRunner::new(config(256))
        .run(&names, |model| {
            let trie = encode_trie(&model);
            let read = parse_export_trie(&trie).expect("a well-formed trie");
            let got: BTreeMap<Vec<u8>, (u64, u64)> = read
                .into_iter()
                .map(|e| match e.target {
                    ExportTarget::Address(a) => (e.name.into_bytes(), (e.flags, a)),
                    other => panic!("unexpected {other:?}"),
                })
                .collect();
            prop_assert_eq!(got, model);
            Ok(())
        })
        .unwrap();
}

/// One bind run of the model: `count` pointers from `offset` in `segment`, `skip` bytes apart
/// beyond the pointer itself.
#[derive(Debug, Clone)]
struct Run {
    symbol: u8,
    addend: i64,
    segment: u8,
    offset: u64,
    count: u64,
    skip: u64,
    /// Which opcode form writes it (0 DO_BIND, 1 IMM_SCALED, 2 ULEB_TIMES_SKIPPING,
    /// 3 ADD_ADDR_ULEB).
    form: u8,
}

#[test]
fn weak_bind_streams_round_trip() {
    let segments = [
        SegmentBounds {
            vm_size: 0x4000,
            writable: false,
            is_linkedit: false,
        },
        SegmentBounds {
            vm_size: 0x10000,
            writable: true,
            is_linkedit: false,
        },
        SegmentBounds {
            vm_size: 0x8000,
            writable: true,
            is_linkedit: false,
        },
    ];
    let run = (
        0u8..4,
        -2i64..3,
        1u8..3,
        0u64..0x400,
        1u64..6,
        0u64..4,
        0u8..4,
    )
        .prop_map(|(symbol, addend, segment, slot, count, skip, form)| Run {
            symbol,
            addend,
            segment,
            offset: slot * 8,
            count,
            skip: skip * 8,
            form,
        });
    TestRunner::new(config(256))
        .run(&prop::collection::vec(run, 0..24), |runs| {
            let mut stream = Vec::new();
            // The model: (symbol name, addend, segment, offset, target) per location.
            let mut expected = Vec::new();
            let (mut targets, mut last): (u32, Option<(u8, i64)>) = (0, None);
            let mut symbol_set_since_bind = false;
            for r in &runs {
                if last.map(|l| l.0) != Some(r.symbol) {
                    stream.push(BIND_OPCODE_SET_SYMBOL_TRAILING_FLAGS_IMM);
                    stream.extend(format!("__Z{}sym", r.symbol).bytes());
                    stream.push(0);
                    symbol_set_since_bind = true;
                }
                if last.map(|l| l.1) != Some(r.addend) {
                    stream.push(BIND_OPCODE_SET_ADDEND_SLEB);
                    sleb(r.addend, &mut stream);
                }
                stream.push(BIND_OPCODE_SET_SEGMENT_AND_OFFSET_ULEB | r.segment);
                let (count, skip) = match r.form {
                    0 | 3 => (1, 0),
                    1 => (1, 0),
                    _ => (r.count, r.skip),
                };
                if r.form == 3 {
                    // Start below and move up with ADD_ADDR_ULEB.
                    uleb(0, &mut stream);
                    stream.push(BIND_OPCODE_ADD_ADDR_ULEB);
                    uleb(r.offset, &mut stream);
                } else {
                    uleb(r.offset, &mut stream);
                }
                match r.form {
                    0 | 3 => stream.push(BIND_OPCODE_DO_BIND),
                    1 => stream.push(BIND_OPCODE_DO_BIND_ADD_ADDR_IMM_SCALED | 3),
                    _ => {
                        stream.push(BIND_OPCODE_DO_BIND_ULEB_TIMES_SKIPPING_ULEB);
                        uleb(count, &mut stream);
                        uleb(skip, &mut stream);
                    }
                }
                for i in 0..count {
                    if symbol_set_since_bind || last.map(|l| l.1) != Some(r.addend) {
                        targets += 1;
                    }
                    symbol_set_since_bind = false;
                    last = Some((r.symbol, r.addend));
                    let offset = r.offset + i * (8 + skip);
                    expected.push((
                        format!("__Z{}sym", r.symbol),
                        r.addend,
                        r.segment,
                        offset,
                        targets - 1,
                    ));
                }
            }
            stream.push(BIND_OPCODE_DONE);
            let table = parse_weak_binds(&stream, &segments, 8).expect("a well-formed stream");
            let got: Vec<_> = table
                .binds
                .iter()
                .map(|b| {
                    (
                        table.symbols[b.symbol as usize].clone(),
                        b.addend,
                        b.segment_index,
                        b.segment_offset,
                        b.target,
                    )
                })
                .collect();
            prop_assert_eq!(got, expected);
            prop_assert_eq!(table.targets, targets);
            Ok(())
        })
        .unwrap();
}

/// A mutation of a seed input.
#[derive(Debug, Clone)]
enum Mutation {
    /// Overwrite the byte at (position mod length).
    Set(usize, u8),
    /// Flip one bit.
    Flip(usize, u8),
    /// Insert bytes.
    Insert(usize, Vec<u8>),
    /// Remove up to n bytes.
    Remove(usize, usize),
    /// Overwrite 4 bytes with an extreme little-endian u32 (0, 0xffffffff, 0x80000000, …).
    Word(usize, u32),
    /// Cut the input.
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Set(p, b)),
        3 => (any::<usize>(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(p, v)| Mutation::Insert(p, v)),
        1 => (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Remove(p, n)),
        2 => (any::<usize>(), prop::sample::select(vec![0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1000, 0xffff]))
            .prop_map(|(p, w)| Mutation::Word(p, w)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        if bytes.is_empty() {
            break;
        }
        let at = |p: usize| p % bytes.len();
        match m {
            Mutation::Set(p, b) => {
                let i = at(*p);
                bytes[i] = *b;
            }
            Mutation::Flip(p, bit) => {
                let i = at(*p);
                bytes[i] ^= 1 << bit;
            }
            Mutation::Insert(p, v) => {
                let i = at(*p);
                bytes.splice(i..i, v.iter().copied());
            }
            Mutation::Remove(p, n) => {
                let i = at(*p);
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
            Mutation::Word(p, w) => {
                let i = at(*p);
                let end = (i + 4).min(bytes.len());
                bytes[i..end].copy_from_slice(&w.to_le_bytes()[..end - i]);
            }
            Mutation::Truncate(p) => {
                let i = at(*p);
                bytes.truncate(i);
            }
        }
    }
    bytes
}

/// The bounded fuzz run: `cases` mutants of the seeds of each target, through its harness.
fn mutate_target(target: &str, run: fn(&[u8]), cases: u32) {
    let seeds: Vec<Vec<u8>> = harness::seeds(&crate::util::testdata())
        .into_iter()
        .filter(|(t, _)| *t == target)
        .map(|(_, b)| b)
        .collect();
    assert!(!seeds.is_empty(), "no seeds for {target}");
    let strategy = (
        prop::sample::select(seeds),
        prop::collection::vec(mutation(), 1..12),
    );
    TestRunner::new(config(cases))
        .run(&strategy, |(seed, mutations)| {
            let input = apply(seed, &mutations);
            run(&input);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{target}: {e}"));
}

#[test]
fn mutated_export_tries() {
    mutate_target("export_trie", harness::export_trie, 512);
}

#[test]
fn mutated_weak_bind_streams() {
    mutate_target("bind_opcodes", harness::bind_opcodes, 512);
}

#[test]
fn mutated_chained_fixups() {
    mutate_target("chained_fixups", harness::chained_fixups, 512);
}

#[test]
fn mutated_binaries() {
    mutate_target("macho", harness::macho, 128);
}

#[test]
fn mutated_logs() {
    mutate_target("log", harness::log, 128);
}

#[test]
fn mutated_symbol_names() {
    mutate_target("demangle", harness::demangle, 256);
}

#[test]
fn mutated_names_through_the_printer() {
    mutate_target("printer", harness::printer, 512);
}

#[test]
fn an_unchanged_figure_passes_any_accepted_increase() {
    use weakscan::gate::policy::{Increase, MAX_INCREASE_COUNT, MAX_INCREASE_PERCENT};
    let text = prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        (0..=MAX_INCREASE_COUNT).prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|p| format!("{p}%")),
        (0.0..=MAX_INCREASE_PERCENT).prop_map(|p| format!("{p}%")),
        "[0-9.e+%-]{1,30}",
    ];
    let baseline = prop_oneof![any::<usize>(), 0..100_000usize, Just(usize::MAX)];
    TestRunner::new(config(2048))
        .run(&(text, baseline), |(text, base)| {
            if let Ok(inc) = Increase::parse(&text) {
                prop_assert!(inc.limit(base) >= base as u64, "{text}: {base}");
                match inc {
                    Increase::Count(n) => prop_assert!(n <= MAX_INCREASE_COUNT),
                    Increase::Percent(p) => prop_assert!((0.0..=MAX_INCREASE_PERCENT).contains(&p)),
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn escaped_text_is_one_line_without_control_or_bidi_characters() {
    use weakscan::text::{escape, escape_bytes, needs_escape};
    TestRunner::new(config(4096))
        .run(&proptest::collection::vec(any::<u8>(), 0..64), |bytes| {
            let e = escape_bytes(&bytes);
            prop_assert!(!e.chars().any(needs_escape), "{e:?}");
            prop_assert_eq!(escape(&e).into_owned(), e.clone(), "idempotent");
            if let Ok(s) = std::str::from_utf8(&bytes) {
                prop_assert_eq!(escape(s).into_owned(), e);
            }
            Ok(())
        })
        .unwrap();
    TestRunner::new(config(4096))
        .run(&"\\PC*", |s| {
            let e = escape(&s);
            prop_assert!(!e.contains('\n') && !e.contains('\r') && !e.chars().any(needs_escape));
            Ok(())
        })
        .unwrap();
}

#[test]
fn mutated_policies() {
    mutate_target("policy", harness::policy, 256);
}

#[test]
fn mutated_baselines() {
    mutate_target("baseline", harness::baseline, 64);
}

#[test]
fn mutated_patterns() {
    mutate_target("pattern", harness::pattern, 512);
}

#[test]
fn mutated_command_lines() {
    mutate_target("cli", harness::cli, 256);
}

#[test]
fn mutated_renders() {
    mutate_target("render", harness::render, 32);
}

#[test]
fn mutated_pairs() {
    mutate_target("pairs", harness::pairs, 32);
}

/// Pieces of symbol names that GitHub's runner would read as workflow commands, and pieces
/// that make them (an identifier ending in `##` before an ABI tag prints `##[abi:…]`).
const COMMAND_PIECES: &[&str] = &[
    "##[error]x",
    "##[add-mask]secret",
    "##[stop-commands]tok",
    "::error::x",
    "  ::warning file=a::x",
    "\u{2003}::notice::x",
    "#",
    "##",
    "[",
    ":",
    "::",
    "__Z3a##B3foov",
    "__ZN2v83##[E",
    "__Z1fv",
    "_c",
];

/// A dyld log (dyld4 format) whose lookups are of `names`, each found in an image whose path
/// holds a piece of them too.
fn log_of(names: &[String]) -> Vec<u8> {
    let mut log = String::new();
    for (i, n) in names.iter().enumerate() {
        log += &format!("dyld[7]: looking for weak-def symbol '{n}':\n");
        log += &format!("dyld[7]:   using '{n}' in /build/{i}##[x]/lib{i}.dylib\n");
    }
    log.into_bytes()
}

// Hostile-input campaign: names printed verbatim raised `##[error]` annotations, masked text or
// stopped the commands in a gate's log. No text from an input may do so in any format.
#[test]
fn names_holding_workflow_commands_print_as_none_in_any_format() {
    let piece = proptest::sample::select(COMMAND_PIECES);
    let name = proptest::collection::vec(piece, 1..5).prop_map(|p| p.concat());
    let names = proptest::collection::vec(name, 1..12);
    TestRunner::new(config(256))
        .run(&(names.clone(), names), |(old, new)| {
            harness::render(&harness::join_pair(&log_of(&old), &log_of(&new)));
            Ok(())
        })
        .unwrap();
}

/// The reports the fitted-tables property draws (arguments in `testdata/`): scans of binaries,
/// raw names, a log, a process and compile commands; diffs of binaries and processes; a trend;
/// a failing check; verifies of a binary and a process.
const FITTED_REPORTS: &[&[&str]] = &[
    &["scan", "bin/app-default-chained-x86_64"],
    &[
        "scan",
        "--by",
        "symbol",
        "bin/app-v2-default-chained-x86_64",
    ],
    &["scan", "--no-demangle", "bin/app-default-chained-x86_64"],
    &["scan", "logs/dyld4-macos15-chained.log"],
    &["scan", "process/App.app"],
    &[
        "scan",
        "--compile-commands",
        "attr/compile_commands.json",
        "bin/app-attr-x86_64",
    ],
    &[
        "diff",
        "--symbols",
        "bin/app-default-chained-x86_64",
        "bin/app-v2-default-chained-x86_64",
    ],
    &[
        "diff",
        "--by",
        "namespace",
        "bin/app-default-chained-universal",
        "bin/app-v2-default-chained-universal",
    ],
    &["diff", "process/App.app", "process/App-v2.app"],
    &[
        "trend",
        "--top",
        "3",
        "bin/app-default-chained-x86_64",
        "bin/app-default-chained-universal",
        "bin/app-v2-default-chained-x86_64",
        "bin/app-hidden-chained-x86_64",
    ],
    &[
        "check",
        "--config",
        "../tests/golden/gate.toml",
        "bin/app-v2-default-chained-x86_64",
    ],
    &[
        "verify",
        "bin/app-default-chained-x86_64",
        "logs/dyld4-macos15-chained.log",
    ],
    &[
        "verify",
        "process/App.app",
        "logs/dyld4-macos15-process-app.log",
    ],
];

/// Every report of `reports`, drawn at random widths of 40 to 220 columns (`cases` of them),
/// holds to [`assert_fitted`]: no line wider than the width, no identifier split across lines.
fn fitted_at_any_width(reports: &[Vec<String>], cases: u32) {
    use crate::util::{assert_fitted, identifiers_of, stdout_of};
    let args = |i: usize| -> Vec<&str> { reports[i].iter().map(String::as_str).collect() };
    let ids: Vec<_> = (0..reports.len())
        .map(|i| identifiers_of(&args(i)))
        .collect();
    TestRunner::new(config(cases))
        .run(&(0..reports.len(), 40u16..=220), |(i, width)| {
            let w = width.to_string();
            let mut fitted = args(i);
            fitted.extend(["--width", &w]);
            let text = stdout_of(&fitted);
            assert_fitted(&reports[i].join(" "), &text, usize::from(width), &ids[i]);
            Ok(())
        })
        .unwrap();
}

#[test]
fn fitted_tables_of_fixtures_fit_any_width_and_split_no_identifier() {
    let reports: Vec<Vec<String>> = FITTED_REPORTS
        .iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect();
    fitted_at_any_width(&reports, 64);
}

/// The same on Node.js: a scan, a diff and a trend of four releases (skipped, saying so, when
/// the builds are not cached).
#[test]
fn fitted_tables_of_node_fit_any_width_and_split_no_identifier() {
    let builds: Option<Vec<String>> = ["20.11.0", "22.11.0", "22.14.0", "24.11.1"]
        .iter()
        .map(|v| crate::node::node_binary(v).map(|p| p.display().to_string()))
        .collect();
    let Some(b) = builds else {
        return;
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let reports = vec![
        s(&["scan", "--top", "10", &b[1]]),
        s(&["diff", "--top", "10", &b[1], &b[3]]),
        s(&["trend", "--top", "5", &b[0], &b[1], &b[2], &b[3]]),
    ];
    fitted_at_any_width(&reports, 6);
}
