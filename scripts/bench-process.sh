#!/usr/bin/env bash
# Benchmark: `weakscan scan --process` on a synthetic process of 20 images totalling ~1 GiB
# (goal: under 1 s on 2 cores, peak memory under 200 MB), against what a user would otherwise
# run: llvm-objdump --exports-trie --dyld-info on every image, piped to c++filt.
#
# The process (built once with clang-22 / ld64.lld-22, no macOS SDK, the flags of
# testdata/build.sh; cached in ${WEAKSCAN_BENCH_DIR:-/tmp/weakscan-bench-process}/process):
#   main                  MH_EXECUTE, LC_RPATH @executable_path/lib, LC_LOAD_DYLIB of the 19
#                         dylibs then libSystem; instantiates the first 1/TUS of the templates
#   lib/libbig_NN.dylib   NN = 00..18, install name @rpath/libbig_NN.dylib: 19 links of the
#                         same objects, each exporting 2 weak definitions per instantiation of
#                         bigproc::detail::Slot<N> (Get() and its function-local static) for
#                         N = 0..INSTANTIATIONS-1, and weak-binding to both
# Every image also holds an initialized const array sized so that the 20 files total TOTAL_MIB.
# Sources: scripts/gen-big-process.py. x86_64, chained fixups (macOS 12), default visibility.
#
# Reports: generation time, file sizes, medians (hyperfine, both commands in one run) and the
# ratio weakscan / pipeline, weakscan's peak memory (GNU time -v, max RSS), the process figures
# of weakscan's JSON, and a cross-check of them against llvm-objdump (weak-def exports and
# weak imports per image).
#
# Usage: scripts/bench-process.sh [hostile]
# Environment: WEAKSCAN_BENCH_DIR, RUNS (default 10), INSTANTIATIONS (20000), TUS (4),
#   TOTAL_MIB (1024), DYLIBS (19), REBUILD=1 (ignore the cache).
# Needs: clang-22, lld-22, llvm-22, binutils' c++filt, python3, hyperfine (else a bash loop),
#   /usr/bin/time (GNU), taskset (optional: without it, all cores).
set -euo pipefail
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${WEAKSCAN_BENCH_DIR:-/tmp/weakscan-bench-process}
runs=${RUNS:-10}
count=${INSTANTIATIONS:-20000}
tus=${TUS:-4}
total_mib=${TOTAL_MIB:-1024}
ndylibs=${DYLIBS:-19}
build_version=1 # bump when the build below changes: invalidates the cache

die() {
  echo "bench-process.sh: $*" >&2
  exit 2
}

# The bounded dependency search (docs/process.md, "Bounds"): the hostile processes of
# scripts/gen-rpath-hostile.py, each scanned once by a release build, against its target:
# 3,000 missing LC_RPATHs × 3,000 @rpath dependencies ≤ 2 s, a 4,096-deep chain of dylibs each
# with its own missing LC_RPATH ≤ 5 s. With strace, the file-system calls are counted too. Then
# the export-trie lookups of scripts/gen-trie-hostile.py.
# `scripts/bench-process.sh hostile` runs only these.
hostile() {
  local dir=$bench/hostile bin=$root/target/release/weakscan status=0
  (cd "$root" && cargo build --release --quiet)
  rm -rf "$dir"
  python3 "$root/scripts/gen-rpath-hostile.py" wide "$dir/wide" 3000 3000
  python3 "$root/scripts/gen-rpath-hostile.py" chain "$dir/chain" 4096
  echo "hostile dependency searches (target, seconds, file-system calls):"
  local name target t0 t1 s calls
  for name in wide:2 chain:5; do
    target=${name#*:} name=${name%%:*}
    t0=$(now)
    "$bin" scan "$dir/$name" --format json >"$dir/$name.json" || die "$name: weakscan failed"
    t1=$(now)
    s=$(secs "$t0" "$t1")
    calls=-
    if command -v strace >/dev/null; then
      calls=$(strace -f -c -e trace=%file,%stat "$bin" scan "$dir/$name" --format json 2>&1 \
        >/dev/null | awk '$NF == "total" {print $(NF-2)}')
    fi
    printf '  %-6s target <= %s s: %s s, %s calls\n' "$name" "$target" "$s" "$calls"
    python3 -c "import sys; sys.exit(0 if $s <= $target else 1)" || status=1
  done
  [[ $status = 0 ]] || die "a hostile dependency search missed its target"
  # Export-trie lookups by name (scripts/gen-trie-hostile.py): renamed re-exports fanned out into
  # 14 dylibs with 8,000-deep tries (refused past the process walk's work limit: exit 2), and
  # 200 imports held against a 49,000-deep trie (the check's result: exit 1), each <= 2 s.
  python3 "$root/scripts/gen-trie-hostile.py" reexport "$dir/trie-reexport"
  python3 "$root/scripts/gen-trie-hostile.py" importer "$dir/trie-importer"
  echo "hostile export-trie lookups (exit code, target, seconds):"
  local code
  for name in trie-reexport:2 trie-importer:1; do
    code=${name#*:} name=${name%%:*}
    local args=(scan --format json "$dir/$name")
    [[ $name = trie-importer ]] &&
      args=(check --no-config "$dir/$name/libdeep.dylib" --importer "$dir/$name/addon.node")
    t0=$(now)
    "$bin" "${args[@]}" >/dev/null 2>&1 && s=0 || s=$?
    [[ $s = "$code" ]] || die "$name: exit $s, not $code"
    t1=$(now)
    s=$(secs "$t0" "$t1")
    printf '  %-14s exit %s, target <= 2 s: %s s\n' "$name" "$code" "$s"
    python3 -c "import sys; sys.exit(0 if $s <= 2 else 1)" || status=1
  done
  [[ $status = 0 ]] || die "a hostile export-trie lookup missed its target"
}
if [[ ${1:-} == hostile ]]; then
  now() { date +%s%N; }
  secs() { python3 -c "print(f'{($2 - $1) / 1e9:.2f}')"; }
  hostile
  exit 0
fi
tool() {
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"
  elif [[ -x $2 ]]; then echo "$2"
  else die "missing $1 (Debian packages clang-22 lld-22 llvm-22)"
  fi
}
CXX=$(tool clang++-22 /usr/lib/llvm-22/bin/clang++)
CC=$(tool clang-22 /usr/lib/llvm-22/bin/clang)
LD=$(tool ld64.lld-22 /usr/lib/llvm-22/bin/ld64.lld)
OBJDUMP=$(tool llvm-objdump-22 /usr/lib/llvm-22/bin/llvm-objdump)
for t in c++filt python3 /usr/bin/time; do
  command -v "$t" >/dev/null || die "missing $t"
done
now() { date +%s%N; }
secs() { python3 -c "print(f'{($2 - $1) / 1e9:.1f}')"; }

# ---------------------------------------------------------------------------------------------
# The process, cached.
proc=$bench/process
stamp="v$build_version count=$count tus=$tus total_mib=$total_mib dylibs=$ndylibs"
stamp+=" gen=$(sha256sum "$root/scripts/gen-big-process.py" | cut -c1-16)"
stamp+=" $("$CXX" --version | head -1) / $("$LD" --version | head -1)"

build() {
  local work=$bench/work
  rm -rf "$work" "$proc"
  mkdir -p "$work/obj" "$work/process/lib"
  local sdk=$root/testdata/sdk t0 t1 t2 t3
  t0=$(now)
  python3 "$root/scripts/gen-big-process.py" "$work/src" "$count" "$tus" 1 >/dev/null
  # testdata/build.sh's CXXFLAGS (-g: the debug map that weakscan attributes with).
  local cxxflags=(-target x86_64-apple-macos12.0 -std=c++17 -O2 -nostdinc -nostdinc++ -nostdlib
    -fno-exceptions -fno-rtti -fno-stack-protector -Wall -Wextra -g
    "-ffile-prefix-map=$work=/bigproc" -fdebug-compilation-dir=/bigproc)
  local jobs
  jobs=$(nproc)
  {
    for ((k = 0; k < tus; k++)); do echo "slots_$k"; done
    echo main
  } | xargs -P "$jobs" -I{} "$CXX" "${cxxflags[@]}" -c "$work/src/{}.cc" -o "$work/obj/{}.o"
  t1=$(now)
  local slots=()
  for ((k = 0; k < tus; k++)); do slots+=("$work/obj/slots_$k.o"); done
  export ZERO_AR_DATE=1
  # plink OUT ARG...: testdata/build.sh's link of the process fixtures (libSystem last, so the
  # LC_LOAD_DYLIB order is that of ARG...).
  plink() {
    local out=$1
    shift
    "$LD" -arch x86_64 -platform_version macos 12.0 12.0 -fixup_chains \
      -oso_prefix "$work/" -syslibroot "$sdk" "$@" -lSystem -o "$out"
  }
  # Size the array: link once without it, then share out what is left of TOTAL_MIB.
  "$CC" -target x86_64-apple-macos12.0 -nostdinc -O2 -DBLOB_BYTES=1 -c "$work/src/blob.c" \
    -o "$work/obj/blob1.o"
  plink "$work/probe.dylib" -dylib -install_name @rpath/libbig_00.dylib "${slots[@]}" \
    "$work/obj/blob1.o"
  plink "$work/probe-main" "$work/obj/main.o" "$work/obj/slots_0.o" "$work/obj/blob1.o" \
    "$work/probe.dylib"
  local blob
  blob=$(python3 -c "
total = $total_mib << 20
rest = total - $ndylibs * $(stat -c %s "$work/probe.dylib") - $(stat -c %s "$work/probe-main")
print(max(4096, rest // ($ndylibs + 1) // 4096 * 4096))")
  "$CC" -target x86_64-apple-macos12.0 -nostdinc -O2 "-DBLOB_BYTES=$blob" \
    -c "$work/src/blob.c" -o "$work/obj/blob.o"
  t2=$(now)
  local libs=() nn
  for ((i = 0; i < ndylibs; i++)); do
    nn=$(printf '%02d' "$i")
    plink "$work/process/lib/libbig_$nn.dylib" -dylib -install_name "@rpath/libbig_$nn.dylib" \
      "${slots[@]}" "$work/obj/blob.o"
    libs+=("$work/process/lib/libbig_$nn.dylib")
  done
  plink "$work/process/main" -rpath @executable_path/lib "$work/obj/main.o" \
    "$work/obj/slots_0.o" "$work/obj/blob.o" "${libs[@]}"
  t3=$(now)
  {
    echo "$stamp"
    echo "generation: $(secs "$t0" "$t3") s (sources + compile $(secs "$t0" "$t1") s," \
      "sizing link $(secs "$t1" "$t2") s, $((ndylibs + 1)) links $(secs "$t2" "$t3") s;" \
      "$tus+1 translation units on $jobs jobs; array $((blob >> 20)) MiB per image)"
  } >"$work/process/.stamp"
  mv "$work/process" "$proc"
  rm -rf "$work"
}

if [[ ${REBUILD:-0} == 1 || ! -f $proc/.stamp || $(head -1 "$proc/.stamp") != "$stamp" ]]; then
  echo "building the synthetic process in $proc ..."
  build
  sed -n 2p "$proc/.stamp"
else
  echo "cached in $proc; $(sed -n 2p "$proc/.stamp")"
fi

(cd "$root" && cargo build --release --quiet)
ws=$root/target/release/weakscan
cd "$proc"
files=(main lib/*.dylib)

pin=()
if command -v taskset >/dev/null && taskset -c 0,1 true 2>/dev/null; then
  pin=(taskset -c 0,1)
  cores="2 cores (taskset -c 0,1)"
else
  cores="all $(nproc) cores (no taskset)"
fi
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); measured on $cores"
echo "weakscan $("$ws" --version | head -1 | cut -d' ' -f2); $("$OBJDUMP" --version | grep -m1 version | sed 's/^ *//'); $(c++filt --version | head -1)"
echo

# ---------------------------------------------------------------------------------------------
# Sizes.
python3 - "${files[@]}" <<'PY'
import os, sys
sizes = {f: os.path.getsize(f) for f in sys.argv[1:]}
libs = [s for f, s in sizes.items() if f != "main"]
total = sum(sizes.values())
print(f"files: main {sizes['main'] / 2**20:.1f} MiB; {len(libs)} dylibs "
      f"{min(libs) / 2**20:.1f}-{max(libs) / 2**20:.1f} MiB each; "
      f"{len(sizes)} images, {total} bytes = {total / 2**30:.3f} GiB")
PY

# ---------------------------------------------------------------------------------------------
# Medians.
ws_cmd="$ws scan --process main --format json > /dev/null"
pipe_cmd="for f in ${files[*]}; do $OBJDUMP --macho --exports-trie --dyld-info \"\$f\"; done | c++filt -_ | wc -l"
echo "pipeline output: $(bash -c "$pipe_cmd") lines"
# Other processes on the machine inflate wall times: the load average says how busy it was.
echo "load average before timing: $(cut -d' ' -f1-3 /proc/loadavg)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if command -v hyperfine >/dev/null; then
  "${pin[@]}" hyperfine --shell bash --warmup 2 --runs "$runs" --style none \
    --export-json "$tmp/times.json" \
    -n "weakscan scan --process main --format json" "$ws_cmd" \
    -n "llvm-objdump --exports-trie --dyld-info (20 images) | c++filt -_ | wc -l" "$pipe_cmd" \
    >/dev/null
else
  echo "(no hyperfine: a bash loop, $runs runs after 1 warm-up)"
  for name in weakscan pipeline; do
    [[ $name == weakscan ]] && cmd=$ws_cmd || cmd=$pipe_cmd
    "${pin[@]}" bash -c "$cmd" >/dev/null
    for ((i = 0; i < runs; i++)); do
      t0=$(now)
      "${pin[@]}" bash -c "$cmd" >/dev/null
      echo "$(($(now) - t0))"
    done >"$tmp/$name.ns"
  done
  python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
names = {"weakscan": "weakscan scan --process main --format json",
         "pipeline": "llvm-objdump --exports-trie --dyld-info (20 images) | c++filt -_ | wc -l"}
res = [{"command": names[n], "times": [int(x) / 1e9 for x in open(f"{d}/{n}.ns")]} for n in names]
json.dump({"results": res}, open(f"{d}/times.json", "w"))
PY
fi
python3 - "$tmp/times.json" <<'PY'
import json, statistics, sys
res = json.load(open(sys.argv[1]))["results"]
print("| command | median ms | mean ms | min ms | max ms | mean user+sys ms | runs |")
print("|---|---:|---:|---:|---:|---:|---:|")
med = []
for r in res:
    t = [x * 1000 for x in r["times"]]
    med.append(statistics.median(t))
    cpu = f"{(r['user'] + r['system']) * 1000:.0f}" if "user" in r else "n/a"
    print(f"| {r['command']} | {med[-1]:.1f} | {statistics.mean(t):.1f} | {min(t):.1f} | {max(t):.1f} | {cpu} | {len(t)} |")
print(f"ratio weakscan / pipeline (medians): {med[0] / med[1]:.3f} (pipeline {med[1] / med[0]:.1f}x slower)")
print(f"goal < 1 s: {'met' if med[0] < 1000 else 'NOT met'} ({med[0]:.0f} ms)")
PY

# ---------------------------------------------------------------------------------------------
# Peak memory.
"${pin[@]}" /usr/bin/time -v "$ws" scan --process main --format json >"$tmp/process.json" \
  2>"$tmp/time.txt" || { cat "$tmp/time.txt" >&2; die "weakscan failed"; }
kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time.txt")
echo "peak memory, weakscan: $((kb / 1024)) MB (max RSS $kb KB); goal < 200 MB: $( ((kb < 200 * 1024)) && echo met || echo NOT met)"
echo "  that run: $(awk -F': ' '/Elapsed/ { e = $2 } /User time/ { u = $2 } /System time/ { s = $2 } END { print e " wall, " u " s user, " s " s sys" }' "$tmp/time.txt"); JSON report $(stat -c %s "$tmp/process.json") bytes"
"${pin[@]}" /usr/bin/time -v "$OBJDUMP" --macho --exports-trie --dyld-info lib/libbig_00.dylib \
  >/dev/null 2>"$tmp/time-objdump.txt"
kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time-objdump.txt")
echo "peak memory, llvm-objdump on one dylib: $((kb / 1024)) MB"
echo

# ---------------------------------------------------------------------------------------------
# Process figures, and llvm-objdump's count of what they are made of: per image, weak-def
# exports (export trie, weak_def) and weak imports (chained imports with lib_ordinal -3,
# BIND_SPECIAL_DYLIB_WEAK_LOOKUP), plus the 22 treat-as-weak operator new/delete names the main
# executable requests twice when it has MH_WEAK_DEFINES and chained fixups (docs/process.md).
for f in "${files[@]}"; do
  printf '%s\t%s\t%s\t%s\n' "$f" \
    "$("$OBJDUMP" --macho --exports-trie "$f" | { grep -c weak_def || true; })" \
    "$("$OBJDUMP" --macho --chained-fixups "$f" | { grep -c 'lib_ordinal = -3' || true; })" \
    "$("$OBJDUMP" --macho --private-header "$f" | grep -c WEAK_DEFINES || true)"
done >"$tmp/objdump.tsv"
python3 - "$tmp/process.json" "$tmp/objdump.tsv" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
procs = doc["processes"]
p = procs[0]
imgs = p["images"]
disk = [i for i in imgs if i["on_disk"]]
total = sum(os.path.getsize(i["image"]) for i in disk)
print(f"process figures (weakscan JSON, {len(procs)} process, {p['arch']}):")
print(f"  images {len(imgs)} ({p['images_on_disk']} on disk, {p['images_outside']} outside), "
      f"images searched {p['images_searched']}, total bytes of the images on disk {total} "
      f"({total / 2**30:.3f} GiB)")
print(f"  lookups {p['lookups']}, trie probes {p['trie_probes']}, weakDefMap hits "
      f"{p['weak_def_map_hits']}, distinct names {p['distinct_names']}, duplicated names "
      f"{p['duplicated_names']}, defined outside {p['defined_outside']}, problems {len(p['problems'])}")
print(f"  estimated ms {p['estimated_ms']}")
ob = {}
for line in open(sys.argv[2]):
    f, exports, imports, weakdefs = line.rstrip("\n").split("\t")
    ob[f] = (int(exports), int(imports), int(weakdefs) > 0)
bad = []
expect_lookups = 0
for i in disk:
    f = i["image"]
    exports, imports, weakdefs = ob[f]
    extra = 44 if f == "main" and weakdefs else 0
    expect_lookups += imports + extra
    if i["weak_definitions"] != exports:
        bad.append(f"{f}: weak_definitions {i['weak_definitions']}, llvm-objdump weak_def exports {exports}")
    if i["lookups"] != imports + extra:
        bad.append(f"{f}: lookups {i['lookups']}, llvm-objdump weak imports {imports} + {extra}")
if p["lookups"] != expect_lookups:
    bad.append(f"process: lookups {p['lookups']}, llvm-objdump sum {expect_lookups}")
searched = sum(1 for f in ob if ob[f][2])
if p["images_searched"] != searched:
    bad.append(f"process: images_searched {p['images_searched']}, MH_WEAK_DEFINES images {searched}")
print(f"  llvm-objdump: weak imports {sum(v[1] for v in ob.values())} (+44 treat-as-weak of main) "
      f"= {expect_lookups} lookups; weak-def exports {sum(v[0] for v in ob.values())}; "
      f"{searched} images with MH_WEAK_DEFINES")
print("  check against llvm-objdump: " + ("ok" if not bad else "MISMATCH"))
for b in bad:
    print("    " + b)
if p["problems"]:
    print("  problems: " + "; ".join(map(str, p["problems"][:5])))
PY

hostile
