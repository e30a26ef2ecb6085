// libdelta.dylib, in the bundle's Contents/Frameworks (install name @rpath/libdelta.dylib):
// core::Registry<int>, shared with the executable's libgamma.a, and weak definitions of its
// own (an inline function with a function-local static, a class template's in-class and
// out-of-class members, and an explicit instantiation the executable calls, which only this
// image defines). Its entry point is exported whatever the visibility it is built with.
#include "core.h"

namespace delta {
int seed() { return 13; }

inline int hits() {
  static int h = seed();
  return ++h;
}

template <class T> struct Cache {
  T last = T(0);
  T put(T v) {
    last = v;
    return last;
  }
  T get();
};
template <class T> T Cache<T>::get() { return last + T(hits()); }

template <class T> T peek(T v) { return v + T(seed()); }
template int peek<int>(int);
} // namespace delta

__attribute__((visibility("default"))) int delta_run() {
  core::Registry<int> r;
  r.add(5);
  delta::Cache<long> c;
  c.put(2);
  return r.size() + delta::hits() + int(c.get());
}
