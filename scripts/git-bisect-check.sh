#!/bin/sh
# `weakscan check` as a `git bisect run` script over source builds: builds the commit checked
# out, checks the build, and answers in the exit codes git bisect run reads.
#
#   git bisect start BAD GOOD
#   git bisect run scripts/git-bisect-check.sh 'BUILD COMMAND' BINARY [weakscan check options…]
#   e.g. git bisect run scripts/git-bisect-check.sh 'make -j8 node' out/Release/node \
#          --no-config --max-predicted-weak-lookups 4000
#
#   0    good: every budget holds
#   1    bad: a budget is exceeded
#   125  skip: BUILD COMMAND failed or did not make BINARY (an unbuildable commit)
#   128  stop the bisection: weakscan could not check (its exit 2: a bad option, policy or
#        baseline, a malformed build), which git bisect run would otherwise take for "bad"
#
# BINARY is removed before each build, so a build that fails is never judged by the binary of
# the commit before. $WEAKSCAN is the weakscan to run (default: weakscan on PATH).
set -u
if [ $# -lt 2 ]; then
  echo "usage: git-bisect-check.sh 'BUILD COMMAND' BINARY [weakscan check options...]" >&2
  exit 128
fi
build=$1
binary=$2
shift 2
rm -f -- "$binary"
sh -c "$build" || exit 125
[ -f "$binary" ] || exit 125
"${WEAKSCAN:-weakscan}" check "$binary" "$@"
case $? in
  0) exit 0 ;;
  1) exit 1 ;;
  *) exit 128 ;;
esac
