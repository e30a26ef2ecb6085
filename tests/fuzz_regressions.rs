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
