#!/usr/bin/env bash
# Benchmark: reading a large DYLD_PRINT_BINDINGS log (default 1024 MiB), generated here by
# scripts/gen-big-log.py (Node-sized processes, two at a time interleaved) and deleted after.
# Reports wall time, throughput and peak memory (GNU time, max RSS) of `weakscan scan` on the
# first process (the default) and on the last one (`--pid`).
# Usage: scripts/bench-log.sh [SIZE_MIB]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mib=${1:-1024}
command -v /usr/bin/time >/dev/null || { echo "bench-log.sh: missing /usr/bin/time" >&2; exit 2; }
(cd "$root" && cargo build --release --quiet)
ws=$root/target/release/weakscan
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
log=$dir/big.log
info=$(python3 "$root/scripts/gen-big-log.py" "$log" "$mib")
echo "$info"
last=$(echo "$info" | sed -E 's/.*PIDs [0-9]+\.\.([0-9]+)\)/\1/')
bytes=$(stat -c %s "$log")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
for args in "scan $log --format json" "scan $log --pid $last --format json"; do
  out=$( { /usr/bin/time -f '%e %M' "$ws" $args >/dev/null; } 2>&1 | tail -1)
  secs=${out% *}
  kb=${out#* }
  python3 -c "import sys; s=float('$secs'); print(f'weakscan ${args/$log/big.log}: {s:.2f} s, {$bytes/s/1e6:.0f} MB/s, peak memory {$kb/1024:.1f} MB')"
done
