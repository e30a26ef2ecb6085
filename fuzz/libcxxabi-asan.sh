#!/usr/bin/env bash
# Builds libc++abi's __cxa_demangle with AddressSanitizer and libFuzzer coverage, so the fuzz
# targets check the C++ demangler too (Debian's /usr/lib/llvm-22/lib/libc++abi.a is not
# instrumented):
#   bash fuzz/libcxxabi-asan.sh              # -> fuzz/libcxxabi-asan/lib/libc++abi.a
#   WEAKSCAN_LIBCXXABI_DIR=$PWD/fuzz/libcxxabi-asan bash fuzz/run.sh 600 <target>
# The archive holds one object, fuzz/libcxxabi-asan.cpp: __cxa_demangle as in
# libcxxabi/src/cxa_demangle.cpp of LLVM 22 (github.com/llvm/llvm-project, llvmorg-22.1.8),
# written anew over LLVM 22's installed llvm/Demangle/ItaniumDemangle.h (llvm-22-dev). That
# header is libcxxabi's src/demangle/ItaniumDemangle.h as libcxxabi's cp-to-llvm.sh copies it
# (rewriting only the two banner lines); not diffed byte for byte here (the llvm-project
# snapshot is 8 GB), but checked against Debian's libc++abi.a 22.1.8 (built from
# libcxxabi's copy): the same string constants (bar assert texts and RTTI names), and the same
# output on the 189,878 _Z names of the cached Node.js binaries and on 200,000 mutated ones.
# Its only undefined symbols are libc (malloc, realloc, free, memchr, memcmp, strlen,
# snprintf, abort, __assert_fail), ASan and sanitizer-coverage ones, and weak
# (never called) operator delete and __cxa_pure_virtual, so a C program links it as it is.
# CXX (default clang++-22), OBJCOPY (default llvm-objcopy-22) and LLVM_INCLUDE (default
# /usr/lib/llvm-22/include) can be set.
set -euo pipefail
cd "$(dirname "$0")"
cxx=${CXX:-clang++-22}
objcopy=${OBJCOPY:-llvm-objcopy-22}
llvm_include=${LLVM_INCLUDE:-/usr/lib/llvm-22/include}
if [ ! -f "$llvm_include/llvm/Demangle/ItaniumDemangle.h" ]; then
  echo "no $llvm_include/llvm/Demangle/ItaniumDemangle.h (install llvm-22-dev or set LLVM_INCLUDE)" >&2
  exit 1
fi
mkdir -p libcxxabi-asan/build libcxxabi-asan/lib
obj=libcxxabi-asan/build/cxa_demangle.o
"$cxx" -c -O1 -g -fPIC -fsanitize=address -fsanitize=fuzzer-no-link \
  -fno-exceptions -fno-rtti -fvisibility=hidden -std=c++17 \
  -I"$llvm_include" -o "$obj.tmp" libcxxabi-asan.cpp
# The vtables of Node (abstract) and of Node's and OutputBuffer's virtual destructors name
# __cxa_pure_virtual and operator delete(void*, size_t), which are never called (nothing is
# deleted); weak references let the archive link without a C++ runtime.
"$objcopy" --weaken-symbol=_ZdlPvm --weaken-symbol=__cxa_pure_virtual "$obj.tmp" "$obj"
rm -f "$obj.tmp"
rm -f libcxxabi-asan/lib/libc++abi.a
ar rcs libcxxabi-asan/lib/libc++abi.a "$obj"
echo "built fuzz/libcxxabi-asan/lib/libc++abi.a"
