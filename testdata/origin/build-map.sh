#!/usr/bin/env bash
# Writes testdata/origin/lld-x86_64.map: a real link map of `ld64.lld-22 -map`, read by the
# `real_lld_map` test of src/origin/link_map.rs.
#
# Usage: bash testdata/origin/build-map.sh        (from any directory)
#
# Needs clang++-22, llvm-ar-22 and ld64.lld-22 (Debian packages clang-22, llvm-22, lld-22).
# Written with Debian clang/LLD 22.1.8. Paths in the map are relative to a scratch directory,
# so the output does not depend on where it runs.
#
# What the map shows: a loose object (a.o) and two members of an archive in a directory with
# parentheses (`dir (1)/libb.a`), one of them with parentheses in its name (`c(1).o`); weak
# template functions `foo<T>::get()` and their function-local statics; C string literals with
# spaces, tabs and quotes; a stub, lazy pointer and GOT entries; `-dead_strip` dead symbols and
# a dead string.
set -euo pipefail
export LC_ALL=C

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

cat > a.cc <<'SRC'
extern int ext(int);
extern int ext_data;
template <class T> struct foo { static T get() { static T v; return ++v; } };
int use_a() { return foo<int>::get() + ext(ext_data); }
const char* msg_a() { return "hello a b\tc"; }
const char* unused_a() { return "dead string"; }
SRC
cat > b.cc <<'SRC'
template <class T> struct foo { static T get() { static T v; return ++v; } };
int use_b() { return foo<int>::get() + foo<long>::get(); }
const char* msg_b() { return "literal with \"quotes\" and \\n"; }
SRC
cat > c.cc <<'SRC'
template <class T> struct foo { static T get() { static T v; return ++v; } };
int use_c() { return foo<char>::get(); }
SRC
printf '%s\n' __Z5use_av __Z5msg_av __Z5use_bv __Z5msg_bv __Z5use_cv > exports.txt

T=(-target x86_64-apple-macos11 -O0)
clang++-22 "${T[@]}" -c a.cc -o a.o
clang++-22 "${T[@]}" -c b.cc -o b.o
clang++-22 "${T[@]}" -c c.cc -o 'c(1).o'
mkdir 'dir (1)'
llvm-ar-22 rcs 'dir (1)/libb.a' b.o 'c(1).o'
ld64.lld-22 -arch x86_64 -platform_version macos 11.0 11.0 -dylib -undefined dynamic_lookup \
  -dead_strip -exported_symbols_list exports.txt -u __Z5use_bv -u __Z5use_cv \
  -map "$HERE/lld-x86_64.map" -o libx.dylib a.o 'dir (1)/libb.a'
