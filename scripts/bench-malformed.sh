#!/usr/bin/env bash
# Time and peak memory of `weakscan scan` on every malformed input: the committed corpus in
# testdata/malformed and the 10⁶-node-deep trie the tests leave in target/tmp. Each must exit 2.
# Needs GNU time (Debian package `time`). Figures go into docs/robustness.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
cargo build --release --quiet
cargo test --quiet --test integration -- malformed::uncommittable >/dev/null
bin=target/release/weakscan
printf '%-38s %4s %9s %11s\n' input exit seconds "max RSS KB"
worst_t=0 worst_m=0
for f in testdata/malformed/* target/tmp/trie-1e6-deep; do
  case $f in *.tsv|*.md) continue;; esac
  set +e
  /usr/bin/time -f '%e %M' -o /tmp/bench-malformed.time "$bin" scan "$f" >/dev/null 2>&1
  code=$?
  set -e
  read -r t m < <(tail -n 1 /tmp/bench-malformed.time)
  printf '%-38s %4s %9s %11s\n' "$(basename "$f")" "$code" "$t" "$m"
  [ "$code" = 2 ] || { echo "$f: exit $code, expected 2" >&2; exit 1; }
  worst_t=$(python3 -c "print(max($worst_t, $t))"); worst_m=$(( m > worst_m ? m : worst_m ))
done
echo "worst: ${worst_t} s, ${worst_m} KB max RSS"
