/*
 * What cxxfilt.c (c++filt's own call into GNU libiberty) shares with keys.c (the keys from
 * libiberty's component tree): c++filt's flags, and the bounded output sink both print through.
 */
#ifndef WEAKSCAN_CXXFILT_H
#define WEAKSCAN_CXXFILT_H

#include <setjmp.h>
#include <stddef.h>
#include <demangle.h>

/* The flags of c++filt, with the style cplus_demangle adds (current_demangling_style). */
#define WEAKSCAN_CXXFILT_FLAGS (DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE | DMGL_AUTO)

/* `cap` bytes of room at `buf`, `len` used; printing that would pass `cap` longjmps to `full`. */
struct weakscan_sink {
  char *buf;
  size_t len;
  size_t cap;
  jmp_buf full;
};

/* The libiberty print callback writing into a `struct weakscan_sink` (the `opaque`). */
void weakscan_write(const char *s, size_t n, void *opaque);

/* c++filt's own call (cxxfilt.c): the printed length, -1 if not demangled, -2 if past `cap`. */
long weakscan_cxxfilt(const char *name, char *buf, size_t cap);

#endif
