#!/usr/bin/env bash
# Benchmark: `weakscan flags OLD NEW` on a pair of generated compile databases of ENTRIES
# commands each (default 100,000; scripts/gen-big-compile-db.py), NEW with the first 20 targets'
# objects no longer compiled -fvisibility=hidden, and NEW again as a `ninja -n --verbose`
# command dump. Prints wall and CPU seconds and the peak RSS (GNU time) of each run, against the
# promise of docs/robustness.md: a database read within 3 × its size + 50 MB (here: both
# inputs' sizes summed).
#
# Usage: scripts/bench-flags.sh [ENTRIES]
#   WEAKSCAN=BIN  time BIN instead of this tree's release build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100000}
command -v /usr/bin/time >/dev/null || { echo "bench-flags.sh: missing /usr/bin/time" >&2; exit 2; }
if [ -z "${WEAKSCAN:-}" ]; then
  (cd "$root" && cargo build --release --quiet)
fi
ws=${WEAKSCAN:-${CARGO_TARGET_DIR:-$root/target}/release/weakscan}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$root/scripts/gen-big-compile-db.py" "$dir/old.json" "$n"
python3 - "$dir/old.json" "$dir/new.json" "$dir/new.ninja" <<'PY'
import json, sys
old = json.load(open(sys.argv[1]))
new = []
for e in old:
    e = dict(e)
    t = e.get("output", "")
    lost = t.startswith("obj/t") and int(t[5:].split("/")[0]) < 20
    if lost and "command" in e:
        e["command"] = e["command"].replace(" -fvisibility=hidden", "")
    new.append(e)
json.dump(new, open(sys.argv[2], "w"))
with open(sys.argv[3], "w") as f:
    f.write("ninja: Entering directory `%s'\n" % new[0]["directory"])
    for i, e in enumerate(new):
        if "command" in e:
            f.write("[%d/%d] %s\n" % (i + 1, len(new), e["command"]))
PY
run() {
  local what=$1 a=$2 b=$3 size
  size=$(($(stat -c %s "$a") + $(stat -c %s "$b")))
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$ws" flags "$a" "$b" --format json >"$dir/out.json"
  read -r wall user sys kb <"$dir/time"
  printf '%-22s %6.2f s wall %6.2f s CPU  peak %4d MB  (promise %4d MB, inputs %d MB)\n' \
    "$what" "$wall" "$(echo "$user + $sys" | bc)" $((kb / 1024)) \
    $(((3 * size + 50 * 1024 * 1024) / 1048576)) $((size / 1048576))
}
echo "weakscan flags, $n commands a side ($("$ws" --version | head -n1))"
run "JSON → JSON" "$dir/old.json" "$dir/new.json"
run "JSON → ninja dump" "$dir/old.json" "$dir/new.ninja"
