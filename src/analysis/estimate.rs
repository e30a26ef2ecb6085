//! The calibration of weakscan's launch-time estimates (`estimated_ms` of a process, the fix
//! plan's savings), and the words every surface that shows an estimated time states it with.

/// Calibration of the launch-cost estimate, microseconds per trie probe (low, high): from
/// nodejs/node#56275, 7317 → 1755 lookups took 28.9 → 12.4 ms (16.5 ms for 5562 lookups,
/// 2.97 µs each), with each lookup probing node's own trie and, in the shared cache, at least
/// libc++ and libc++abi: 1 to 3 probes per lookup. `docs/process.md`.
pub const US_PER_PROBE: (f64, f64) = (0.99, 2.97);

/// The launch time `lookups` more (or, negative, fewer) weak-def lookups cost, milliseconds
/// (low, high), at [`US_PER_PROBE`]: both signed as `lookups`, `low` the smaller in size.
pub fn ms_of_lookups(lookups: i64) -> (f64, f64) {
    let n = lookups as f64;
    (n * US_PER_PROBE.0 / 1000.0, n * US_PER_PROBE.1 / 1000.0)
}

/// Where a single image's estimate comes from, short (the `fix:` line):
/// `0.99–2.97 µs per lookup, measured in nodejs/node#56275`.
pub fn per_lookup_short() -> String {
    format!(
        "{:.2}–{:.2} µs per lookup, measured in nodejs/node#56275",
        US_PER_PROBE.0, US_PER_PROBE.1
    )
}

/// Where a single image's estimate comes from, in full (under a table of times): the cost per
/// lookup, where it was measured, and what its range stands for.
pub fn per_lookup_source() -> String {
    format!(
        "times are estimates: {:.2}–{:.2} µs per lookup, measured on Node.js for macOS \
         (nodejs/node#56275: 5562 fewer lookups, 16.5 ms faster launch); the range is 1 to 3 \
         export-trie probes per lookup",
        US_PER_PROBE.0, US_PER_PROBE.1
    )
}
