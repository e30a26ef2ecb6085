//! Writes the seed corpora, `fuzz/corpus/<target>/seed-NNNN`, from the fixtures in `testdata`
//! (see `harness::seeds`). Run from the repository root or `fuzz/`:
//! `cargo run --manifest-path fuzz/Cargo.toml --bin seed-corpora`.

#[path = "../../../tests/harness.rs"]
mod harness;

use std::path::Path;

fn main() -> std::io::Result<()> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = harness::seeds(&fuzz.join("../testdata"));
    for (n, (target, bytes)) in seeds.iter().enumerate() {
        let dir = fuzz.join("corpus").join(target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("seed-{n:04}")), bytes)?;
    }
    for (target, _) in harness::TARGETS {
        let count = seeds.iter().filter(|(t, _)| *t == target).count();
        println!("{target}: {count} seeds");
    }
    Ok(())
}
