#!/usr/bin/env bash
# Benchmark: `weakscan trend --sort version` over a series of Node.js builds (default the nine of
# issue 15) against the manual pipeline `llvm-objdump --macho --weak-bind --exports-trie NODE |
# c++filt -_` on ONE build, in the same run: medians (hyperfine), the ratio, and weakscan's peak
# memory (GNU time, max RSS). Goal (issue 15): under 1 s on 2 cores.
# Needs: the Node cache (scripts/fetch-node.sh), hyperfine, llvm-22, binutils' c++filt.
# Usage: scripts/bench-trend.sh [VERSION…]
#   (default 18.20.8 20.0.0 20.11.0 22.11.0 22.12.0 22.14.0 22.18.0 22.23.3 24.11.1)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${WEAKSCAN_NODE_CACHE:-$root/.cache/node}
series=("$@")
[ ${#series[@]} -gt 0 ] || series=(18.20.8 20.0.0 20.11.0 22.11.0 22.12.0 22.14.0 22.18.0 22.23.3 24.11.1)
one=${ONE:-22.11.0}
objdump=${LLVM_OBJDUMP:-/usr/lib/llvm-22/bin/llvm-objdump}
runs=${RUNS:-15}
for tool in hyperfine c++filt "$objdump" /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-trend.sh: missing $tool" >&2; exit 2; }
done
bash "$root/scripts/fetch-node.sh" "${series[@]}" "$one" >/dev/null
(cd "$root" && cargo build --release --quiet)
ws=$root/target/release/weakscan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
paths=()
for v in "${series[@]}"; do paths+=("$cache/$v/node"); done

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "weakscan $("$ws" --version | head -1 | cut -d' ' -f2); $("$objdump" --version | grep -m1 version | sed 's/^ *//'); $(c++filt --version | head -1)"
echo "series: ${series[*]} ($(du -cb "${paths[@]}" | tail -1 | cut -f1 | awk '{printf "%.0f MB", $1/1e6}'))"
echo
hyperfine -N --warmup 2 --runs "$runs" --style none --export-json "$tmp/ws.json" \
  -n "weakscan trend --sort version (${#series[@]} builds)" "$ws trend --sort version ${paths[*]}" \
  -n "weakscan trend --sort version --format json (${#series[@]} builds)" "$ws trend --sort version --format json ${paths[*]}" \
  -n "weakscan diff node-22.12.0 node-22.14.0 (one step)" "$ws diff $cache/22.12.0/node $cache/22.14.0/node" >/dev/null
hyperfine --warmup 2 --runs "$runs" --style none --export-json "$tmp/pipe.json" \
  -n "llvm-objdump --weak-bind --exports-trie, piped to c++filt -_ (node-$one only)" \
  "$objdump --macho --weak-bind --exports-trie $cache/$one/node | c++filt -_ | cat >/dev/null" >/dev/null
python3 - "$tmp/ws.json" "$tmp/pipe.json" <<'PY'
import json, statistics, sys
ws = json.load(open(sys.argv[1]))["results"]
pipe = json.load(open(sys.argv[2]))["results"][0]
base = statistics.median(pipe["times"])
print("| command | median ms | min ms | max ms | runs | ratio to the pipeline |")
print("|---|---:|---:|---:|---:|---:|")
for r in ws + [pipe]:
    t = r["times"]
    m = statistics.median(t)
    print(f"| {r['command']} | {m*1000:.0f} | {min(t)*1000:.0f} | {max(t)*1000:.0f} | {len(t)} | {m/base:.2f} |")
PY
echo
kb=$( { /usr/bin/time -f '%M' "$ws" trend --sort version "${paths[@]}" >/dev/null; } 2>&1 | tail -1)
echo "peak memory, weakscan trend (${#series[@]} builds): $((kb / 1024)) MB (max RSS ${kb} KB)"
