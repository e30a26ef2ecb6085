#!/usr/bin/env bash
# Checks that two weakscan binaries print byte-identical output: the check every speed change
# must pass (issue 16: "no correctness change").
# Usage: scripts/same-output.sh OLD_WEAKSCAN NEW_WEAKSCAN
# Compares, with `cmp`:
#   * `scan --format json --by G` of every cached Node build (scripts/fetch-node.sh), for G in
#     symbol pattern template namespace library object;
#   * `diff --symbols --format json --by G` of four pairs of those builds;
#   * `scan` of every fixture (testdata) in JSON and table form, and of testdata/process/App.app
#     in JSON, table and Markdown.
# Prints each output that differs and a count; exits 1 if any differs, 2 on bad usage.
set -uo pipefail
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || {
  echo "usage: scripts/same-output.sh OLD_WEAKSCAN NEW_WEAKSCAN" >&2
  exit 2
}
old=$1 new=$2
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${WEAKSCAN_NODE_CACHE:-$root/.cache/node}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compared=0 differ=0
same() { # same LABEL ARGS...: runs both binaries with ARGS and compares stdout+stderr
  local label=$1
  shift
  "$old" "$@" >"$work/old" 2>&1
  echo "exit $?" >>"$work/old"
  "$new" "$@" >"$work/new" 2>&1
  echo "exit $?" >>"$work/new"
  compared=$((compared + 1))
  cmp -s "$work/old" "$work/new" || { differ=$((differ + 1)); echo "differs: $label"; }
}
groupings="symbol pattern template namespace library object"
builds=$(ls "$cache" 2>/dev/null | sort -V)
for v in $builds; do
  [ -f "$cache/$v/node" ] || continue
  for by in $groupings; do same "scan $v --by $by" scan --format json --by "$by" "$cache/$v/node"; done
done
set -- $builds
pairs=()
while [ $# -ge 2 ]; do pairs+=("$1 $2"); shift; done
for p in "${pairs[@]}"; do
  read -r a b <<<"$p"
  [ -f "$cache/$a/node" ] && [ -f "$cache/$b/node" ] || continue
  for by in $groupings; do
    same "diff $a $b --by $by" diff --symbols --format json --by "$by" "$cache/$a/node" "$cache/$b/node"
  done
done
while IFS= read -r f; do
  for fmt in json table; do same "scan ${f#"$root"/} ($fmt)" scan --format "$fmt" "$f"; done
done < <(find "$root/testdata" -type f \( -name '*.dylib' -o -name 'app*' -o -name '*.a' -o -name '*.log' \) | sort)
for fmt in json table markdown; do
  same "scan --process App.app ($fmt)" scan --format "$fmt" "$root/testdata/process/App.app"
done
[ -z "$builds" ] && echo "no Node builds in $cache (scripts/fetch-node.sh): fixtures only"
echo "$compared outputs compared, $differ differ"
[ "$differ" -eq 0 ]
