// libmarked.a, compiled with -fvisibility=hidden: only what the source marks
// visibility("default") stays exported, by its own mark, its namespace's or its class's.
#ifndef PLAN_MARKED_H
#define PLAN_MARKED_H
int marked_seed();

// The namespace's mark: neither flag hides its inline functions.
namespace __attribute__((visibility("default"))) mk {
inline int ns_count() {
  static int n = marked_seed();
  return ++n;
}
} // namespace mk

// The function's own mark: neither flag hides it.
__attribute__((visibility("default"))) inline int own_count() {
  static int n = marked_seed();
  return ++n;
}

// The class's mark: -fvisibility=hidden keeps its inline members, -fvisibility-inlines-hidden
// hides them (clang getLVForClassMember).
struct __attribute__((visibility("default"))) Marked {
  int count() {
    static int n = marked_seed();
    return ++n;
  }
};

// Unmarked: hidden.
template <class T> struct Plain {
  static T get() {
    static T v = T(marked_seed());
    return ++v;
  }
};

int marked_use();
#endif
