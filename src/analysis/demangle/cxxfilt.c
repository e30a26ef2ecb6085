/*
 * weakscan's bounded call into GNU libiberty, the demangler GNU c++filt runs.
 *
 * c++filt (binutils/cxxfilt.c, demangle_it) calls cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI |
 * DMGL_VERBOSE) with the AUTO style, which for a `_Z` name tries rust_demangle (legacy Rust
 * names are `_ZN…17h<hash>E`) and then cplus_demangle_v3 (libiberty/cplus-dem.c). This does the
 * same through the callback forms of both functions, which allocate nothing: their working
 * memory is on the stack (cp-demangle.c, d_demangle_callback and
 * cplus_demangle_print_callback). So the printing can be abandoned with longjmp as soon as the
 * text would outgrow the caller's buffer, which bounds both the output and the time (a 253-byte
 * name that back-references itself prints 436 MB in 3.2 s when left to finish).
 */
#include <setjmp.h>
#include <stddef.h>
#include <string.h>
#include "cxxfilt.h"

void weakscan_write(const char *s, size_t n, void *opaque) {
  struct weakscan_sink *out = opaque;
  if (n > out->cap - out->len)
    longjmp(out->full, 1);
  memcpy(out->buf + out->len, s, n);
  out->len += n;
}

/*
 * Whether `name` can be a legacy Rust name: rust_demangle_callback (libiberty/rust-demangle.c,
 * rust_demangle_callback) accepts a `_Z` name only if it starts with `_ZN` and holds the hash
 * segment `17h` + 16 hex digits before its final `E` (and any `.suffix`); it first checks every
 * byte of the name, so testing these necessary conditions here spares that walk for C++ names
 * without changing any result.
 */
static int weakscan_maybe_legacy_rust(const char *name) {
  return strncmp(name, "_ZN", 3) == 0 && strstr(name + 3, "17h") != NULL;
}

/*
 * Demangles the NUL-terminated `name` (without the Mach-O `_`) into `buf` (`cap` bytes, not
 * NUL-terminated). Returns the printed length, -1 if libiberty does not demangle the name (c++filt
 * then prints it unchanged), or -2 if the printed form would be longer than `cap` bytes.
 */
long weakscan_cxxfilt(const char *name, char *buf, size_t cap) {
  struct weakscan_sink out;
  out.buf = buf;
  out.len = 0;
  out.cap = cap;
  if (setjmp(out.full))
    return -2;
  if (weakscan_maybe_legacy_rust(name) &&
      rust_demangle_callback(name, WEAKSCAN_CXXFILT_FLAGS, weakscan_write, &out))
    return (long)out.len;
  out.len = 0;
  if (cplus_demangle_v3_callback(name, WEAKSCAN_CXXFILT_FLAGS, weakscan_write, &out))
    return (long)out.len;
  return -1;
}
