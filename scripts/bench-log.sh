#!/usr/bin/env bash
# Benchmark: reading a large DYLD_PRINT_BINDINGS log (default 1024 MiB), generated here by
# scripts/gen-big-log.py (Node-sized processes, two at a time interleaved) and deleted after.
#
# 1. Speed: `weakscan scan big.log --format json` (the first process) and `--pid LAST` (the
#    last one) against `grep -c 'looking for weak-def symbol' big.log`, timed by hyperfine in
#    the same run, in alternated rounds (the machine may be shared: compare ratios, not
#    seconds across runs). grep's output goes to a pipe: with its stdout on /dev/null GNU grep
#    stops at the first match. Prints medians, GB/s and the ratio to grep.
# 2. Memory: peak RSS (GNU time) on the full log and on a 64 MiB one: flat in the log's size.
# 3. Scaling: one process with 6,800 weak-def lookups and one with 108,800 (16 ×, same
#    shape: 16 × the weak-bind sites and rebases), µs per lookup of `scan --format json`.
#
# Usage: scripts/bench-log.sh [SIZE_MIB]
#   ROUNDS=N      alternated rounds of 3 runs (default 5)
#   WEAKSCAN=BIN  time BIN instead of this tree's release build (e.g. an older build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mib=${1:-1024}
rounds=${ROUNDS:-5}
for tool in /usr/bin/time hyperfine python3 grep; do
  command -v "$tool" >/dev/null || { echo "bench-log.sh: missing $tool" >&2; exit 2; }
done
if [ -z "${WEAKSCAN:-}" ]; then
  (cd "$root" && cargo build --release --quiet)
fi
ws=${WEAKSCAN:-${CARGO_TARGET_DIR:-$root/target}/release/weakscan}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
log=$dir/big.log
info=$(python3 "$root/scripts/gen-big-log.py" "$log" "$mib")
echo "$info"
last=$(echo "$info" | sed -E 's/.*PIDs [0-9]+\.\.([0-9]+)\)/\1/')
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"

# Medians of ROUNDS alternated hyperfine rounds. Args: a label per command then `--`, then
# the commands; prints "label median_seconds" lines.
medians() {
  local labels=() json=$dir/round.json
  while [ "$1" != -- ]; do labels+=("$1"); shift; done
  shift
  : >"$dir/times"
  for ((r = 0; r < rounds; r++)); do
    hyperfine -N --output=pipe --warmup 1 --runs 3 --export-json "$json" "$@" >/dev/null 2>&1
    python3 -c '
import json, sys
for i, res in enumerate(json.load(open(sys.argv[1]))["results"]):
    for t in res["times"]:
        print(i, t)' "$json" >>"$dir/times"
  done
  python3 -c '
import statistics, sys
labels = sys.argv[2:]
times = {}
for line in open(sys.argv[1]):
    i, t = line.split()
    times.setdefault(int(i), []).append(float(t))
for i, label in enumerate(labels):
    print(label, statistics.median(times[i]))' "$dir/times" "${labels[@]}"
}

echo
echo "== speed (medians of $rounds alternated rounds of 3 runs)"
bytes=$(stat -c %s "$log")
medians grep first last -- \
  "grep -c 'looking for weak-def symbol' $log" \
  "$ws scan $log --format json" \
  "$ws scan $log --pid $last --format json" >"$dir/speed"
python3 - "$dir/speed" "$bytes" "$last" <<'PY'
import sys
t = dict((l.split()[0], float(l.split()[1])) for l in open(sys.argv[1]))
size = int(sys.argv[2])
g = t["grep"]
print(f"grep -c 'looking for weak-def symbol' big.log (stdout a pipe): {g:.3f} s, {size / g / 1e9:.2f} GB/s")
for key, args in (("first", ""), ("last", f" --pid {sys.argv[3]}")):
    s = t[key]
    print(f"weakscan scan big.log{args} --format json: {s:.3f} s, {size / s / 1e9:.2f} GB/s, {s / g:.2f} x grep -c")
PY

echo
echo "== peak memory (GNU time, max RSS)"
small=$dir/small.log
python3 "$root/scripts/gen-big-log.py" "$small" 64 >/dev/null
for f in "$small" "$log"; do
  out=$( { /usr/bin/time -f '%M' "$ws" scan "$f" --format json >/dev/null; } 2>&1 | tail -1)
  echo "weakscan scan $(basename "$f") ($(( $(stat -c %s "$f") >> 20 )) MiB) --format json: peak memory $((out / 1024)) MB"
done
rm -f "$small"

echo
echo "== per-lookup scaling: one process, 6,800 vs 108,800 lookups"
python3 "$root/scripts/gen-big-log.py" --one-process "$dir/one-6k8.log" 6800 8237 30000 >/dev/null
python3 "$root/scripts/gen-big-log.py" --one-process "$dir/one-109k.log" 108800 131792 480000 >/dev/null
medians 6800 108800 -- \
  "$ws scan $dir/one-6k8.log --format json" \
  "$ws scan $dir/one-109k.log --format json" >"$dir/scaling"
python3 - "$dir/scaling" <<'PY'
import sys
t = dict((int(l.split()[0]), float(l.split()[1])) for l in open(sys.argv[1]))
per = {n: s / n * 1e6 for n, s in t.items()}
for n, s in t.items():
    print(f"{n} lookups: {s * 1e3:.1f} ms, {per[n]:.2f} us per lookup")
print(f"108,800 / 6,800 per lookup: {per[108800] / per[6800]:.2f} (1.00 is linear)")
PY
