#!/bin/sh
# The fetch command of tests/bisect.rs: `fetch.sh VERSION` prints the path of the build of
# VERSION as $BISECT_MAP maps it (lines `VERSION WHAT`), after appending VERSION to $BISECT_LOG
# (one line a fetch, so a test counts them). WHAT is a fixture of testdata/bin, or:
#   fail     exit 1
#   none     print nothing, exit 0
#   missing  print a path that does not exist
#   hang [S] never finish: sleep S seconds (default 1000), and a child too (the whole group
#            must be stopped)
#   chatter  print lines before the path (the last one is the path): the fixture after it
set -eu
version=$1
echo "$version" >>"$BISECT_LOG"
bin=$(cd "$(dirname "$0")/../bin" && pwd)
what=$(awk -v v="$version" '($1 "") == v { print $2; exit }' "$BISECT_MAP")
case $what in
  fail) echo "fetch.sh: no build of $version" >&2; exit 1 ;;
  none) exit 0 ;;
  missing) echo "$bin/no-such-build-$version" ;;
  hang)
    s=$(awk -v v="$version" '($1 "") == v { print $3; exit }' "$BISECT_MAP")
    sleep "${s:-1000}" &
    sleep "${s:-1000}" ;;
  chatter) echo "downloading $version"; echo "unpacking"; echo "$bin/$(awk -v v="$version" '($1 "") == v { print $3; exit }' "$BISECT_MAP")" ;;
  "") echo "fetch.sh: $version is not in $BISECT_MAP" >&2; exit 1 ;;
  *) echo "$bin/$what" ;;
esac
