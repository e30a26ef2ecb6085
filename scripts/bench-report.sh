#!/usr/bin/env bash
# Benchmark: `weakscan report` (HTML) of two Node.js builds (a diff view) and of a series (a trend
# view), against what a user would otherwise run: the manual pipeline
# `llvm-objdump --macho --weak-bind --exports-trie NODE | c++filt -_` on ONE build. Medians
# (hyperfine) in the same run, the ratio, and the report sizes.
# Needs: the Node cache (scripts/fetch-node.sh), hyperfine, llvm-22, binutils' c++filt.
# Usage: scripts/bench-report.sh [OLD NEW [SERIES…]]
#   (default 22.11.0 24.11.1, series 18.20.8 20.0.0 20.11.0 22.11.0 22.12.0 22.14.0 22.18.0 22.23.3 24.11.1)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${WEAKSCAN_NODE_CACHE:-$root/.cache/node}
old=${1:-22.11.0}
new=${2:-24.11.1}
shift $(( $# >= 2 ? 2 : $# ))
series=("$@")
[ ${#series[@]} -gt 0 ] || series=(18.20.8 20.0.0 20.11.0 22.11.0 22.12.0 22.14.0 22.18.0 22.23.3 24.11.1)
objdump=${LLVM_OBJDUMP:-/usr/lib/llvm-22/bin/llvm-objdump}
runs=${RUNS:-11}
for tool in hyperfine c++filt "$objdump"; do
  command -v "$tool" >/dev/null || { echo "bench-report.sh: missing $tool" >&2; exit 2; }
done
bash "$root/scripts/fetch-node.sh" "$old" "$new" "${series[@]}" >/dev/null
(cd "$root" && cargo build --release --quiet)
ws=$root/target/release/weakscan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
paths=()
for v in "${series[@]}"; do paths+=("$cache/$v/node"); done

echo "machine: $(nproc) cores, $(uname -m)"
hyperfine -N --warmup 2 --runs "$runs" --style none --export-json "$tmp/ws.json" \
  -n "weakscan report (diff node-$old node-$new)" "$ws report -o $tmp/diff.html $cache/$old/node $cache/$new/node" \
  -n "weakscan report (trend, ${#series[@]} builds)" "$ws report -o $tmp/trend.html ${paths[*]}" >/dev/null
hyperfine --warmup 2 --runs "$runs" --style none --export-json "$tmp/pipe.json" \
  -n "llvm-objdump --weak-bind --exports-trie | c++filt -_ (node-$old only)" \
  "$objdump --macho --weak-bind --exports-trie $cache/$old/node | c++filt -_ | cat >/dev/null" >/dev/null
python3 - "$tmp/ws.json" "$tmp/pipe.json" "$tmp/diff.html" "$tmp/trend.html" <<'PY'
import json, os, sys
ws = json.load(open(sys.argv[1]))["results"]
pipe = json.load(open(sys.argv[2]))["results"][0]
base = pipe["median"]
print(f"{'command':<62} {'median':>9}  ratio to the pipeline")
for r in ws + [pipe]:
    print(f"{r['command']:<62} {r['median']*1000:7.0f} ms  {r['median']/base:5.2f}")
for name in sys.argv[3:]:
    print(f"size of {os.path.basename(name)}: {os.path.getsize(name)/1e6:.2f} MB")
PY
