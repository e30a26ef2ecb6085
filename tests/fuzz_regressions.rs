//! Every fuzz finding, kept: each file in `tests/regressions/<target>/` is an input that once
//! crashed, hung or broke an invariant in that target (its name says which bug; the list is in
//! `docs/robustness.md`). They are replayed through the same harness functions as the
//! cargo-fuzz targets, with the seed corpus of every target.

use crate::harness;

fn regressions(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = crate::util::testdata()
        .join("../tests/regressions")
        .join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    (name, std::fs::read(e.path()).expect("regression input"))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn fuzz_findings_stay_fixed() {
    let mut replayed = 0;
    for (target, run) in harness::TARGETS {
        for (name, bytes) in regressions(target) {
            eprintln!("{target}/{name}");
            run(&bytes);
            replayed += 1;
        }
    }
    eprintln!("{replayed} findings replayed");
    // A missing or mistyped directory would pass replaying nothing: each one names a target
    // and holds findings, and all of them were replayed.
    let root = crate::util::testdata().join("../tests/regressions");
    let mut on_disk = 0;
    for dir in std::fs::read_dir(&root).expect("tests/regressions") {
        let target = dir.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            harness::TARGETS.iter().any(|(t, _)| *t == target),
            "tests/regressions/{target} names no fuzz target"
        );
        let n = regressions(&target).len();
        assert!(n > 0, "tests/regressions/{target} is empty");
        on_disk += n;
    }
    assert!(
        on_disk >= 16,
        "only {on_disk} findings in tests/regressions"
    );
    assert_eq!(replayed, on_disk);
}

#[test]
fn seeds_pass_every_harness() {
    let seeds = harness::seeds(&crate::util::testdata());
    for (target, run) in harness::TARGETS {
        let n = seeds.iter().filter(|(t, _)| *t == target).count();
        assert!(n > 0, "{target} has no seeds");
        for (_, bytes) in seeds.iter().filter(|(t, _)| *t == target) {
            run(bytes);
        }
    }
}

/// A valid trie whose terminal names total more than 4 × its size (a chain of one-letter edges,
/// every node a terminal: 876 bytes, 5995 name bytes). The parser accepts it (its budget is
/// 4 × the trie + 1 MiB), so the harness must too: it used to assert 4 × alone and abort.
#[test]
fn export_trie_harness_allowed_less_than_the_parser_budget() {
    let n = 110usize;
    let offsets: Vec<usize> = (0..n).map(|i| i * 8).collect();
    let mut trie = Vec::new();
    for i in 0..n {
        // terminal_size 2: flags WEAK_DEFINITION, address 0
        trie.extend_from_slice(&[2, 0x04, 0x00]);
        if i + 1 == n {
            trie.push(0);
        } else {
            let o = offsets[i + 1];
            trie.extend_from_slice(&[1, b'a', 0, (o & 0x7f) as u8 | 0x80, (o >> 7) as u8]);
        }
    }
    let mut names = 0usize;
    weakscan::macho::export_trie::walk_export_trie(&trie, |name, _, _| names += name.len())
        .expect("a valid trie");
    assert!(
        names > 4 * trie.len(),
        "{names} name bytes, {} trie bytes",
        trie.len()
    );
    harness::export_trie(&trie);
}
