#!/usr/bin/env bash
# Time and peak memory of `weakscan scan` on every malformed input: the committed corpus in
# testdata/malformed and the 10⁶-node-deep trie the tests leave in target/tmp (each must exit
# 2), then peak memory on the hostile inputs of scripts/gen-hostile.py and on a big link map
# (scripts/gen-big-link-map.py) against their targets.
# Needs GNU time (Debian package `time`). Figures go into docs/robustness.md.
# `bench-malformed.sh compile-db` runs only the compile-database case (the last one).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
cargo build --release --quiet
bin=target/release/weakscan

# A large compile database (scripts/gen-big-compile-db.py, CDB_ENTRIES entries, default 10⁶:
# about 173 MB): peak memory of `scan --compile-commands` on the attributed fixture against the
# promise of ≤ 3 × the database's size + 50 MB, for the table and --format json.
compile_db_case() {
  local db=target/tmp/big-compile-db.json entries=${CDB_ENTRIES:-1000000}
  mkdir -p target/tmp
  python3 scripts/gen-big-compile-db.py "$db" "$entries"
  local basis target m code verdict missed=0
  basis=$(( $(stat -c %s "$db") / 1024 )); target=$(( 3 * basis + 51200 ))
  printf '%-22s %-14s %4s %8s %11s %11s %11s %6s %s\n' input args exit seconds "basis KB" \
    "max RSS KB" "target KB" ratio verdict
  for args in "" "--format json"; do
    set +e
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o /tmp/bench-malformed.time "$bin" scan $args \
      --compile-commands "$db" testdata/bin/app-attr-x86_64 >/dev/null 2>&1
    code=$?
    set -e
    read -r t m < <(tail -n 1 /tmp/bench-malformed.time)
    verdict=ok
    if [ "$code" != 0 ]; then verdict="FAIL (exit $code)"; missed=1
    elif [ "$m" -gt "$target" ]; then verdict=MISSED; missed=1; fi
    printf '%-22s %-14s %4s %8s %11s %11s %11s %6s %s\n' "$(basename "$db") ($entries)" \
      "${args:-(default)}" "$code" "$t" "$basis" "$m" "$target" \
      "$(python3 -c "print(f'{$m / $basis:.2f}')")" "$verdict"
  done
  [ "$missed" = 0 ] || { echo "compile database memory target missed" >&2; return 1; }
}
if [ "${1:-}" = compile-db ]; then
  compile_db_case
  exit
fi

cargo test --quiet --test integration -- malformed::uncommittable >/dev/null
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

# Hostile but well-formed inputs (scripts/gen-hostile.py): peak memory against the promise,
# logs ≤ 3 × their size + 50 MB, binaries ≤ 8 × their __LINKEDIT filesize + 50 MB, for the
# default scan, --format json and --by symbol. A refused input (exit 2) must also hold it.
# HOSTILE_LOG_MIB sets the logs' size (default 50).
dir=target/tmp/hostile
python3 scripts/gen-hostile.py "$dir" "${HOSTILE_LOG_MIB:-50}"
linkedit_kb() {
  python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read(1 << 16)
off = 32
for _ in range(struct.unpack_from("<I", b, 16)[0]):
    cmd, size = struct.unpack_from("<II", b, off)
    if cmd == 0x19 and b[off + 8:off + 24].rstrip(b"\0") == b"__LINKEDIT":
        print(struct.unpack_from("<Q", b, off + 48)[0] // 1024)
    off += size
PY
}
echo
printf '%-16s %-14s %4s %11s %11s %11s %6s %s\n' input args exit "basis KB" "max RSS KB" "target KB" ratio verdict
missed=0
for f in log-dyld2.log log-dyld4.log trie-long trie-dense binds-2e20 chained-imports; do
  p=$dir/$f
  case $f in
    *.log) basis=$(( $(stat -c %s "$p") / 1024 )); target=$(( 3 * basis + 51200 ));;
    *) basis=$(linkedit_kb "$p"); target=$(( 8 * basis + 51200 ));;
  esac
  for args in "" "--format json" "--by symbol"; do
    set +e
    # shellcheck disable=SC2086
    /usr/bin/time -f '%M' -o /tmp/bench-malformed.time "$bin" scan $args "$p" >/dev/null 2>&1
    code=$?
    set -e
    m=$(tail -n 1 /tmp/bench-malformed.time)
    verdict=ok
    if [ "$code" != 0 ] && [ "$code" != 2 ]; then verdict="FAIL (exit $code)"; missed=1
    elif [ "$m" -gt "$target" ]; then verdict=MISSED; missed=1; fi
    printf '%-16s %-14s %4s %11s %11s %11s %6s %s\n' "$f" "${args:-(default)}" "$code" \
      "$basis" "$m" "$target" "$(python3 -c "print(f'{$m / $basis:.1f}')")" "$verdict"
  done
done

# The wide-key table: ROWS weak binds of distinct 64 KiB names, `scan --by symbol --top ROWS` as
# a table. Table cells are clipped to 160 characters, so the output is linear in the rows (at
# most 1 KiB a row here) and memory stays within the log target; it used to be rows × key width
# (1.26 GB for 4000 rows).
rows=${WIDE_ROWS:-1000}
wide=$dir/wide-keys.log
python3 - "$wide" "$rows" <<'PY'
import sys
path, rows = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    for i in range(rows):
        s = "_wide%06d_" % i + "k" * 65536
        a = 0x100008000 + 8 * i
        f.write(f"dyld: weak bind: app:0x{a:X} = app:{s}, *0x{a:X} = 0x{0x104000000 + 16 * i:X}\n")
PY
basis=$(( $(stat -c %s "$wide") / 1024 )); target=$(( 3 * basis + 51200 ))
/usr/bin/time -f '%M' -o /tmp/bench-malformed.time "$bin" scan --by symbol --top "$rows" "$wide" >"$dir/wide-keys.out"
m=$(tail -n 1 /tmp/bench-malformed.time)
out_kb=$(( $(stat -c %s "$dir/wide-keys.out") / 1024 ))
verdict=ok
if [ "$m" -gt "$target" ] || [ "$out_kb" -gt "$rows" ]; then verdict=MISSED; missed=1; fi
printf '%-16s %-14s %4s %11s %11s %11s %6s %s (table %s KB for %s rows)\n' wide-keys.log \
  "--by symbol" 0 "$basis" "$m" "$target" "$(python3 -c "print(f'{$m / $basis:.1f}')")" \
  "$verdict" "$out_kb" "$rows"

# The report of 200 weak-bound names of 100 KB (report-names of scripts/gen-hostile.py): names
# are clipped to 512 characters in the HTML but for one whole copy each, so the report must
# stay within 1.5 × the names' bytes + 1 MiB (it was about 10 ×), and peak memory within the
# binaries' target (8 × __LINKEDIT + 50 MB: the page keeps its names clipped too).
p=$dir/report-names
names_kb=$(( 200 * 100000 / 1024 )); size_target=$(( names_kb * 3 / 2 + 1024 ))
basis=$(linkedit_kb "$p"); target=$(( 8 * basis + 51200 ))
set +e
/usr/bin/time -f '%M' -o /tmp/bench-malformed.time "$bin" report -o "$dir/report-names.html" "$p" >/dev/null 2>&1
code=$?
set -e
m=$(tail -n 1 /tmp/bench-malformed.time)
html_kb=$(( $(stat -c %s "$dir/report-names.html") / 1024 ))
verdict=ok
if [ "$code" != 0 ]; then verdict="FAIL (exit $code)"; missed=1
elif [ "$html_kb" -gt "$size_target" ]; then verdict="MISSED (size)"; missed=1
elif [ "$m" -gt "$target" ]; then verdict=MISSED; missed=1; fi
printf '%-16s %-14s %4s %11s %11s %11s %6s %s (report %s KB, target %s KB)\n' report-names report \
  "$code" "$basis" "$m" "$target" "$(python3 -c "print(f'{$m / $basis:.1f}')")" "$verdict" \
  "$html_kb" "$size_target"

# A big link map (scripts/gen-big-link-map.py): LINK_MAP_OBJECTS objects (default 10⁶), half
# as many symbols, and the fixture's own weak names so that the map attributes them, given to
# `scan BINARY --map MAP` (default and --by object): peak memory ≤ 3 × the map's size + 50 MB.
map_bin=testdata/bin/app-attr-x86_64-stripped
map=$dir/big.map
"$bin" scan --by symbol --format json "$map_bin" | python3 -c \
  'import json, sys; print("\n".join(g["mangled"] for g in json.load(sys.stdin)["groups"]))' \
  >"$dir/big-map-names.txt"
python3 scripts/gen-big-link-map.py "$map" "${LINK_MAP_OBJECTS:-1000000}" \
  $(( ${LINK_MAP_OBJECTS:-1000000} / 2 )) "$dir/big-map-names.txt"
basis=$(( $(stat -c %s "$map") / 1024 )); target=$(( 3 * basis + 51200 ))
for args in "" "--by object"; do
  set +e
  # shellcheck disable=SC2086
  /usr/bin/time -f '%M' -o /tmp/bench-malformed.time "$bin" scan $args "$map_bin" --map "$map" >/dev/null 2>&1
  code=$?
  set -e
  m=$(tail -n 1 /tmp/bench-malformed.time)
  verdict=ok
  if [ "$code" != 0 ]; then verdict="FAIL (exit $code)"; missed=1
  elif [ "$m" -gt "$target" ]; then verdict=MISSED; missed=1; fi
  printf '%-16s %-14s %4s %11s %11s %11s %6s %s\n' big.map "${args:-(default)}" "$code" \
    "$basis" "$m" "$target" "$(python3 -c "print(f'{$m / $basis:.1f}')")" "$verdict"
done
[ "$missed" = 0 ] || echo "memory target missed (above)" >&2

echo
compile_db_case || missed=1
[ "$missed" = 0 ] || exit 1
