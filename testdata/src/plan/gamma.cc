// libgamma.a, the static library of the bundle's executable (bundle_main.cc): it instantiates
// core::Registry<int>, as libdelta.dylib does. The executable is first in load order, so at
// launch its copy wins the dylib's weak lookups too: it supplies them to the dylib.
#include "core.h"

namespace gamma_ {
int seed() { return 11; }

inline int ticks() {
  static int t = seed();
  return ++t;
}
} // namespace gamma_

int gamma_run() {
  core::Registry<int> r;
  r.add(4);
  return r.size() + gamma_::ticks();
}
