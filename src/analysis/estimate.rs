//! The calibration of weakscan's launch-time estimates (`estimated_ms` of a process, the fix
//! plan's savings).

/// Calibration of the launch-cost estimate, microseconds per trie probe (low, high): from
/// nodejs/node#56275, 7317 → 1755 lookups took 28.9 → 12.4 ms (16.5 ms for 5562 lookups,
/// 2.97 µs each), with each lookup probing node's own trie and, in the shared cache, at least
/// libc++ and libc++abi: 1 to 3 probes per lookup. `docs/process.md`.
pub const US_PER_PROBE: (f64, f64) = (0.99, 2.97);
