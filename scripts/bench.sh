#!/usr/bin/env bash
# Benchmark: `weakscan diff` of two Node.js builds against the manual pipeline
# `llvm-objdump --macho --weak-bind --exports-trie NODE | c++filt -_` on ONE of them (`-_`: the
# Mach-O names carry a leading underscore that GNU c++filt only strips when told).
# Median of repeated runs (hyperfine), then peak memory (GNU time, max RSS) of weakscan.
# Needs: the Node cache (scripts/fetch-node.sh), hyperfine, llvm-22, binutils' c++filt.
# Usage: scripts/bench.sh [OLD_VERSION NEW_VERSION]   (default 22.11.0 24.11.1)
# Environment: RUNS (default 20); BASELINE=/path/to/an/older/weakscan also times that binary's
#   diff and scan in the same run (before/after of a change); LLVM_OBJDUMP, LLVM_STRIP.
# Prints the medians, each weakscan command as a ratio of the pipeline's median (the issue-16
# goals: diff <= 0.25x, diff <= 30 ms, scan <= 20 ms on 2 idle cores), the same commands again
# interleaved (scripts/bench-ab.py: wall, CPU, page faults; the fairer comparison on a shared
# machine), then peak memory (goal: diff <= 30 MB).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${WEAKSCAN_NODE_CACHE:-$root/.cache/node}
old=${1:-22.11.0}
new=${2:-24.11.1}
objdump=${LLVM_OBJDUMP:-/usr/lib/llvm-22/bin/llvm-objdump}
runs=${RUNS:-20}
for tool in hyperfine c++filt "$objdump" /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench.sh: missing $tool" >&2; exit 2; }
done
bash "$root/scripts/fetch-node.sh" "$old" "$new" >/dev/null
(cd "$root" && cargo build --release --quiet)
ws=$root/target/release/weakscan
a=$cache/$old/node
b=$cache/$new/node

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "weakscan $("$ws" --version | head -1 | cut -d' ' -f2) ($("$ws" --version | sed -n 2p)); $("$objdump" --version | grep -m1 version | sed 's/^ *//'); $(c++filt --version | head -1)"
echo
json=$(mktemp)
# Attribution costs: the same scan of a copy stripped of its debug map (llvm-strip -S).
strip=${LLVM_STRIP:-/usr/lib/llvm-22/bin/llvm-strip}
stripped=$(mktemp -d)/node-$old-stripped
"$strip" -S "$a" -o "$stripped"
base=()
if [ -n "${BASELINE:-}" ]; then
  base=(-n "BASELINE diff node-$old node-$new" "$BASELINE diff $a $b"
        -n "BASELINE scan node-$old" "$BASELINE scan $a")
fi
hyperfine -N --warmup 3 --runs "$runs" --style none --export-json "$json" \
  -n "weakscan diff node-$old node-$new" "$ws diff $a $b" \
  -n "weakscan diff --format json (both)" "$ws diff --format json $a $b" \
  -n "weakscan scan node-$old" "$ws scan $a" \
  -n "weakscan scan node-$old, stripped (no attribution)" "$ws scan $stripped" \
  "${base[@]}" >/dev/null
hyperfine --warmup 3 --runs "$runs" --style none --export-json "$json.pipe" \
  -n "llvm-objdump --weak-bind --exports-trie, piped to c++filt -_ (node-$old only)" \
  "$objdump --macho --weak-bind --exports-trie $a | c++filt -_" >/dev/null
python3 - "$json" "$json.pipe" <<'PY'
import json, statistics, sys
rows = [r for path in sys.argv[1:] for r in json.load(open(path))["results"]]
pipe = statistics.median(rows[-1]["times"]) * 1000
print("| command | median ms | mean ms | min ms | max ms | runs | × pipeline |")
print("|---|---:|---:|---:|---:|---:|---:|")
for r in rows:
    t = [x * 1000 for x in r["times"]]
    m = statistics.median(t)
    print(f"| {r['command']} | {m:.1f} | {statistics.mean(t):.1f} | {min(t):.1f} | {max(t):.1f} | {len(t)} | {m / pipe:.2f} |")
PY
rm -f "$json" "$json.pipe"
echo
# The same commands interleaved (one run of each in turn): on a shared machine the load drifts
# between hyperfine's blocks of runs by more than a change is worth (scripts/bench-ab.py).
inter=("$ws diff $a $b" "$ws scan $a")
[ -n "${BASELINE:-}" ] && inter+=("$BASELINE diff $a $b" "$BASELINE scan $a")
python3 "$root/scripts/bench-ab.py" -n "$runs" "${inter[@]}" \
  "$objdump --macho --weak-bind --exports-trie $a | c++filt -_"
echo
for cmd in "diff $a $b" "scan $a" "scan $stripped"; do
  kb=$( { /usr/bin/time -f '%M' "$ws" $cmd >/dev/null; } 2>&1 | tail -1)
  echo "peak memory, weakscan ${cmd%% *} ${cmd##*/}: $((kb / 1024)) MB (max RSS ${kb} KB)"
done
rm -rf "$(dirname "$stripped")"
kb=$( { /usr/bin/time -f '%M' "$objdump" --macho --weak-bind --exports-trie "$a" >/dev/null; } 2>&1 | tail -1)
echo "peak memory, llvm-objdump alone on node-$old: $((kb / 1024)) MB"
