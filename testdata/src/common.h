// Shared declarations for the weakscan fixtures. Self-contained: no standard
// library headers (there is no macOS SDK on the build machine).
#ifndef WEAKSCAN_COMMON_H
#define WEAKSCAN_COMMON_H

extern "C" {
long write(int fd, const void* buf, unsigned long n);
int puts(const char* s);
}

// The replaceable allocation functions. libSystem.tbd lists them as weak
// definitions, so every use becomes a weak bind ("defined elsewhere" case).
void* operator new(unsigned long size);
void* operator new[](unsigned long size);
void operator delete(void* p) noexcept;
void operator delete(void* p, unsigned long size) noexcept;
void operator delete[](void* p) noexcept;
void operator delete[](void* p, unsigned long size) noexcept;

// Global-namespace inline functions: weak definitions in every object that
// uses them. noinline + address taken keeps them in the final image.
__attribute__((noinline)) inline unsigned weakscan_hash(const char* s) {
  unsigned h = 2166136261u;
  while (*s) {
    h ^= static_cast<unsigned char>(*s++);
    h *= 16777619u;
  }
  return h;
}

// A function-local static inside a global inline function.
__attribute__((noinline)) inline int& weakscan_call_count() {
  static int count = 0;
  return count;
}

// An inline thread_local variable: a weak thread-local definition, printed
// by llvm-objdump --exports-trie as [weak_def, per-thread].
inline thread_local int weakscan_tls_depth = 0;

// Small helpers (static: internal linkage, never weak).
static inline unsigned long weakscan_strlen(const char* s) {
  unsigned long n = 0;
  while (s[n]) n++;
  return n;
}

static inline void weakscan_print(const char* label, unsigned value) {
  char buf[64];
  unsigned long n = 0;
  for (const char* p = label; *p && n < 40; ++p) buf[n++] = *p;
  buf[n++] = '=';
  char digits[12];
  int d = 0;
  do {
    digits[d++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value && d < 11);
  while (d) buf[n++] = digits[--d];
  buf[n++] = '\n';
  write(1, buf, n);
}

#endif  // WEAKSCAN_COMMON_H
