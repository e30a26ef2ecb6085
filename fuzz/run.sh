#!/usr/bin/env bash
# Runs fuzz targets for a while each, keeping going after a finding, and logs to fuzz/logs/.
#   bash fuzz/run.sh SECONDS TARGET...      e.g. bash fuzz/run.sh 600 macho log
# SECONDS is wall time; FUZZ_JOBS=N (default 1) runs N fork-mode workers. The CPU time each run
# really got (user + sys of the workers, from GNU time) is written to fuzz/logs/TARGET.time,
# which is the figure docs/robustness.md reports.
# Needs cargo-fuzz and a nightly toolchain (or RUSTC_BOOTSTRAP=1 with stable). Findings land in
# fuzz/artifacts/TARGET/; each one becomes a file in tests/regressions/TARGET/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=$1; shift
toolchain=${FUZZ_TOOLCHAIN:-+nightly}
jobs=${FUZZ_JOBS:-1}
[ -d fuzz/corpus ] || cargo run --quiet --manifest-path fuzz/Cargo.toml --bin seed-corpora
mkdir -p fuzz/logs
for t in "$@"; do
  mkdir -p "fuzz/artifacts/$t" "fuzz/corpus/$t"
  echo "== $t: ${secs}s"
  cargo $toolchain fuzz build -O "$t" >/dev/null 2>&1
  /usr/bin/time -a -o "fuzz/logs/$t.time" -f "%e s wall, %U s user, %S s sys, $(date -u +%FT%TZ)" \
  cargo $toolchain fuzz run -O "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
    -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 \
    >> "fuzz/logs/$t.log" 2>&1 || true
  tail -n 3 "fuzz/logs/$t.log"
  tail -n 1 "fuzz/logs/$t.time"
  ls "fuzz/artifacts/$t" | sed 's/^/  finding: /' || true
done
