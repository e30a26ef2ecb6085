#!/usr/bin/env python3
"""Interleaved timing of commands: one run of each command in turn, N rounds.

On a shared machine (CI runners, cloud VMs) the load drifts by tens of percent within a
minute: on the 2-core machine of docs/performance.md, three hyperfine blocks of 30 runs of the
same `weakscan diff` gave medians of 52, 65 and 67 ms. Timing one command's runs after
another's (hyperfine's order) can thus show a 10% change either way; interleaving makes the
drift hit every command alike. Reports, per command, the medians of wall time, CPU (user +
system of the command and the children it waited for, from wait4) and minor page faults, and
the wall time as a ratio of the last command's (put the reference last).

Usage: scripts/bench-ab.py [-n ROUNDS] [--pin CPUS] COMMAND...
  Each COMMAND is one string, split as a shell would (shlex); one holding a `|` runs under
  `bash -c`. Output goes to /dev/null.
  e.g. scripts/bench-ab.py -n 60 "/tmp/ws-before diff old new" "target/release/weakscan diff old new"
  --pin 0 runs each under `taskset -c 0` (CPU on one core).
Exit 2 when a command fails.
"""
import argparse
import os
import shlex
import statistics
import sys
import time


def run(argv, devnull):
    """Runs argv with stdout and stderr to /dev/null: (exit code, wall ms, CPU ms, faults)."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter() - start) * 1000
    return os.waitstatus_to_exitcode(status), wall, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_minflt


def main() -> int:
    p = argparse.ArgumentParser(usage=__doc__)
    p.add_argument("-n", type=int, default=30, help="rounds (default 30)")
    p.add_argument("--pin", help="CPU list for taskset -c")
    p.add_argument("commands", nargs="+")
    opts = p.parse_args()
    argvs = []
    for c in opts.commands:
        argv = ["bash", "-c", c] if "|" in c else shlex.split(c)
        argvs.append((["taskset", "-c", opts.pin] if opts.pin else []) + argv)
    results = [{"wall": [], "cpu": [], "faults": []} for _ in argvs]
    devnull = os.open(os.devnull, os.O_WRONLY)
    for _ in range(opts.n):
        for argv, r in zip(argvs, results):
            code, wall, cpu, faults = run(argv, devnull)
            if code != 0:
                print(f"bench-ab.py: {' '.join(argv)}: exit {code}", file=sys.stderr)
                return 2
            r["wall"].append(wall)
            r["cpu"].append(cpu)
            r["faults"].append(faults)
    ref = statistics.median(results[-1]["wall"])
    print(f"{opts.n} interleaved rounds{' on CPUs ' + opts.pin if opts.pin else ''}")
    print("| command | median wall ms | median CPU ms | page faults | wall × last |")
    print("|---|---:|---:|---:|---:|")
    for c, r in zip(opts.commands, results):
        wall = statistics.median(r["wall"])
        print(
            f"| {c.replace('|', chr(92) + '|')} | {wall:.1f} | {statistics.median(r['cpu']):.1f} | "
            f"{statistics.median(r['faults']):.0f} | {wall / ref:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
