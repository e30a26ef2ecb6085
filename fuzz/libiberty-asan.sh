#!/usr/bin/env bash
# Builds GNU libiberty's demanglers (and cp-demint.c's component parse, which keys.c walks) with AddressSanitizer and libFuzzer coverage, so the `cxxfilt`
# fuzz target checks the C code too (the system libiberty.a is not instrumented):
#   bash fuzz/libiberty-asan.sh              # -> fuzz/libiberty-asan/{include,lib}
#   WEAKSCAN_LIBIBERTY_DIR=$PWD/fuzz/libiberty-asan CC=clang-22 \
#     CFLAGS="-fsanitize=address -fsanitize=fuzzer-no-link" bash fuzz/run.sh 600 cxxfilt
# The source is Debian's libiberty 20230104 (what libiberty-dev installs, and the code of GNU
# c++filt 2.40 as far as the Node.js names show), fetched and checked against its SHA-256.
set -euo pipefail
cd "$(dirname "$0")"
version=20230104
sha256=f0c873589b983a2e82287d1beea3b230959803121ede290154d44008984013ef
url=http://deb.debian.org/debian/pool/main/libi/libiberty/libiberty_${version}.orig.tar.xz
cc=${CC:-clang-22}
work=libiberty-asan/build
mkdir -p "$work" libiberty-asan/lib libiberty-asan/include
tarball=$work/libiberty.tar.xz
[ -f "$tarball" ] || curl -fsSL -o "$tarball" "$url"
echo "$(sha256sum "$tarball" | cut -d' ' -f1)  libiberty_${version}.orig.tar.xz"
if [ "${LIBIBERTY_SHA256:-$sha256}" != skip ] && ! sha256sum "$tarball" | grep -q "^${LIBIBERTY_SHA256:-$sha256} "; then
  echo "checksum mismatch (set LIBIBERTY_SHA256 to the value above after checking it)" >&2
  exit 1
fi
tar -xJf "$tarball" -C "$work"
src=$(dirname "$(find "$work" -name cp-demangle.c -path '*libiberty/*' | head -1)")
inc=$(dirname "$(find "$work" -name demangle.h -path '*include/*' | head -1)")
objs=()
for f in cp-demangle.c cp-demint.c rust-demangle.c safe-ctype.c; do
  "$cc" -c -O1 -g -fPIC -fsanitize=address -fsanitize=fuzzer-no-link \
    -DHAVE_STDLIB_H -DHAVE_STRING_H -DHAVE_LIMITS_H -DHAVE_ALLOCA_H \
    -I"$inc" -o "$work/${f%.c}.o" "$src/$f"
  objs+=("$work/${f%.c}.o")
done
rm -f libiberty-asan/lib/libiberty.a
ar rcs libiberty-asan/lib/libiberty.a "${objs[@]}"
cp "$inc"/demangle.h "$inc"/libiberty.h "$inc"/ansidecl.h libiberty-asan/include/
echo "built fuzz/libiberty-asan/lib/libiberty.a"
