#!/usr/bin/env bash
# Fetches npm packages (official tarballs from the npm registry, `npm pack`) into a cache outside
# git: $WEAKSCAN_NPM_CACHE (default: .cache/npm in the repository), unpacked as npm installs
# them: <cache>/node_modules/<name>/… (a scoped @scope/name in node_modules/@scope/name).
# Idempotent: a package whose package.json already has the version asked for is skipped; another
# version of it is replaced.
# Usage: scripts/fetch-npm.sh [NAME@VERSION…]
#   default: sharp's macOS arm64 addon and the libvips it depends on (its optionalDependencies
#   pin @img/sharp-libvips-darwin-arm64 1.2.4, `npm view @img/sharp-darwin-arm64@0.34.5
#   optionalDependencies`), and the pair one minor release older (0.33.5 and the 1.0.4 it pins)
#   in <cache>/sharp-0.33.5/node_modules, the old side of the real process diff
#   (tests/real_process.rs); and a prebuilt Node-API addon for darwin x64,
#   @parcel/watcher-darwin-x64 2.6.0 (watcher.node, an MH_BUNDLE whose 47 napi_* imports are
#   flat lookups: `check --importer`, tests/importers_real.rs). Each checked against the
#   registry's sha512 integrity pinned below.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${WEAKSCAN_NPM_CACHE:-$root/.cache/npm}
packages=("$@")
old_packages=()
if [ ${#packages[@]} -eq 0 ]; then
  packages=(@img/sharp-darwin-arm64@0.34.5 @img/sharp-libvips-darwin-arm64@1.2.4
            @parcel/watcher-darwin-x64@2.6.0)
  old_packages=(@img/sharp-darwin-arm64@0.33.5 @img/sharp-libvips-darwin-arm64@1.0.4)
fi
# `npm view NAME@VERSION dist.integrity` of the defaults.
declare -A integrity=(
  [@img/sharp-darwin-arm64@0.34.5]=sha512-imtQ3WMJXbMY4fxb/Ndp6HBTNVtWCUI0WdobyheGf5+ad6xX8VIDO8u2xE4qc/fr08CKG/7dDseFtn6M6g/r3w==
  [@img/sharp-libvips-darwin-arm64@1.2.4]=sha512-zqjjo7RatFfFoP0MkQ51jfuFZBnVE2pRiaydKJ1G/rHZvnsrHAOcQALIi9sA5co5xenQdTugCvtb1cuf78Vf4g==
  [@img/sharp-darwin-arm64@0.33.5]=sha512-UT4p+iz/2H4twwAoLCqfA9UH5pI6DggwKEGuaPy7nCVQ8ZsiY5PIcrRvD1DzuY3qYL07NtIQcWnBSY/heikIFQ==
  [@img/sharp-libvips-darwin-arm64@1.0.4]=sha512-XblONe153h0O2zuFfTAbQYAX2JhYmDHeWikp1LM9Hul9gVPjFY427k6dFEcOL72O01QxQsWi761svJ/ev9xEDg==
  [@parcel/watcher-darwin-x64@2.6.0]=sha512-Ohv6OpzhUfKYD7Beb8kDvG0jbIxORCYY1JRdZnaBtnjjkJxgD7ZVL0nw2sCYd0yTMKTvz3nnTnOF3cDifK+kvw==
)
command -v npm >/dev/null || { echo "fetch-npm.sh: npm is required" >&2; exit 2; }
command -v node >/dev/null || { echo "fetch-npm.sh: node is required" >&2; exit 2; }
# fetch CACHE SPEC…: each NAME@VERSION into CACHE/node_modules.
fetch() {
  local cache=$1 spec name version dest tmp tarball want got
  shift
  mkdir -p "$cache/node_modules"
  for spec in "$@"; do
    # The version follows the last @ (a scoped name starts with one).
    name=${spec%@*}
    version=${spec##*@}
    if [ -z "$name" ] || [ -z "$version" ] || [ "$name" = "$spec" ]; then
      echo "fetch-npm.sh: $spec: expected NAME@VERSION" >&2
      exit 2
    fi
    case $name in
      */*/* | *..* | /* ) echo "fetch-npm.sh: $name: not a package name" >&2; exit 2 ;;
    esac
    dest=$cache/node_modules/$name
    if [ -f "$dest/package.json" ] &&
      [ "$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version' "$dest/package.json")" = "$version" ]; then
      echo "cached: $dest ($version)"
      continue
    fi
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    if ! tarball=$(cd "$tmp" && npm pack --loglevel=error "$name@$version" | tail -n 1) ||
      [ -z "$tarball" ] || [ ! -f "$tmp/$tarball" ]; then
      echo "fetch-npm.sh: npm pack $name@$version failed" >&2
      exit 1
    fi
    want=${integrity[$spec]:-}
    if [ -n "$want" ]; then
      got=sha512-$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write(c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tmp/$tarball")
      [ "$got" = "$want" ] || { echo "fetch-npm.sh: $spec: integrity $got, expected $want" >&2; exit 1; }
    fi
    mkdir -p "$tmp/unpacked"
    tar -xzf "$tmp/$tarball" -C "$tmp/unpacked"
    [ -f "$tmp/unpacked/package/package.json" ] || { echo "fetch-npm.sh: $tarball has no package/package.json" >&2; exit 1; }
    mkdir -p "$(dirname "$dest")"
    rm -rf "$dest"
    mv "$tmp/unpacked/package" "$dest"
    rm -rf "$tmp"
    trap - EXIT
    echo "fetched: $dest ($version, $(du -sk "$dest" | cut -f1) KiB)"
  done
}

fetch "$cache" "${packages[@]}"
[ ${#old_packages[@]} -eq 0 ] || fetch "$cache/sharp-0.33.5" "${old_packages[@]}"
